/* olive-genconn --import: parsers of outside connectivity (docs/FORMAT.md
 * "External connectivity") and the compact junction list they fill.
 *
 * The parsers never exit and never print: they hand every junction to a
 * sink callback and return 0, or -1 with the fault in sink->err ("FILE: line
 * N: ..." for text, "FILE: /edges/POP/DATASET...: ..." for SONATA). The CLI
 * (import.c) turns a fault into olive_die; the fuzz harnesses (tests/fuzz/)
 * just go on to the next input. Only this header's types are needed to call
 * them (no MPI, no olive_die). */
#ifndef OLIVE_IMPORT_H
#define OLIVE_IMPORT_H
#include <stdint.h>
#include <stdio.h>

/* Largest cell id accepted: the cell count (id + 1) must fit in int32. */
#define GC_IMPORT_MAX_ID (INT32_MAX - 1)

typedef struct gc_sink gc_sink;
struct gc_sink {
    int64_t cells;        /* > 0: ids must be < cells; 0: any id up to GC_IMPORT_MAX_ID */
    double w_default;     /* conductance of an edges line without one (and of a SONATA
                           * file without the attribute, when have_w_default) */
    int have_w_default;   /* SONATA: the user gave --conductance */
    /* One junction into target from source, already checked (ids in range,
     * target != source, w finite and >= 0); pos is the line number (text) or
     * the edge index (SONATA). Returns 0 to go on; anything else stops the
     * parser, which then returns -1 (with err as the callback left it, or a
     * generic message when it left err empty). */
    int matrix_transpose; /* matrix format: line i is the receiver (default: the sender) */
    int drop_self;        /* --drop-self: skip self junctions (counted) instead of refusing them */
    int64_t dropped_self;
    int (*add)(gc_sink *s, int32_t target, int32_t source, double w, int64_t pos);
    void *ctx;
    char err[640];
};

/* import_edges.c: "source target [conductance]" lines. name: for messages. */
int gc_import_edges(FILE *f, const char *name, gc_sink *s);
/* import_matrix.c: N lines of N numbers; *n_out = N. s->cells > 0 must equal N. */
int gc_import_matrix(FILE *f, const char *name, gc_sink *s, int64_t *n_out);
/* import_sonata.c: population NULL: the only one in the file; attribute
 * NULL: "conductance", else "syn_weight". */
int gc_import_sonata(const char *path, const char *population, const char *attribute, gc_sink *s);

/* import_text.c: the tokenizer shared by the two text formats. Fields are
 * separated by spaces, tabs or commas (an empty field between commas is an
 * error); '#' starts a comment; blank and comment-only lines are skipped. */
typedef struct {
    FILE *f;
    const char *name;
    int64_t line;         /* line of the last field returned */
    int64_t next_line;    /* line the next character belongs to */
    int fields;           /* fields returned on the current line */
    int comma;            /* a comma was seen after the last field */
    int at_eof;
} gc_lexer;
enum { GC_TOK_FIELD, GC_TOK_EOL, GC_TOK_EOF, GC_TOK_ERROR };
#define GC_FIELD_MAX 128
void gc_lex_init(gc_lexer *lx, FILE *f, const char *name);
/* The next field into buf[GC_FIELD_MAX] (*len bytes, NUL-terminated; it may
 * hold NUL bytes of the input), GC_TOK_EOL after the last field of a line,
 * GC_TOK_EOF at the end, GC_TOK_ERROR with the fault in err. */
int gc_lex_next(gc_lexer *lx, char *buf, size_t *len, char *err, size_t errlen);
/* A field as printable text for messages (at most 40 characters). */
const char *gc_field_show(const char *buf, size_t len, char out[64]);
/* Strict numbers. Return 0, or -1 with a fault ("'x' is not ...") in err. */
int gc_parse_id(const char *buf, size_t len, int64_t *id, char *err, size_t errlen);
int gc_parse_w(const char *buf, size_t len, double *w, char *err, size_t errlen);

/* import_build.c: junctions as (target, source, w) triples, 16 bytes each,
 * in three growing arrays; then compressed sparse rows by target. */
typedef struct {
    int64_t n, cap;
    int32_t *tgt, *src;
    double *w;
    int64_t max_id;       /* largest id seen, -1 when none */
    int64_t limit;        /* > 0: refuse more junctions than this (fuzzing) */
} gc_edge_list;
void gc_edge_list_init(gc_edge_list *l);
void gc_edge_list_free(gc_edge_list *l);
/* A gc_sink callback that appends to the gc_edge_list in s->ctx. */
int gc_edge_list_add(gc_sink *s, int32_t target, int32_t source, double w, int64_t pos);

typedef struct {
    int64_t count, nnz;
    int64_t *row_ptr;     /* count+1 */
    int32_t *col;         /* ascending within each row */
    double *w;
    int64_t merged;       /* duplicates summed */
    int32_t dup_target, dup_source;  /* the first duplicate, when refused */
} gc_csr;
/* Sort l into rows (a counting sort by target, in place), each row by
 * (source, w); duplicates summed (dup_sum) or refused: returns -1 with
 * dup_target/dup_source set and err filled. Takes over l's arrays (l is
 * left empty either way). Memory: l's 16 bytes per junction plus 16 bytes
 * per cell. */
int gc_edges_to_csr(gc_edge_list *l, int64_t count, int dup_sum, gc_csr *out, char *err, size_t errlen);
void gc_csr_free(gc_csr *c);

#endif
