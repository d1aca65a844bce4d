/* olive-genconn: configuration and the pieces shared by its files.
 *
 * Every generator is written as "generate rows [r0, r1)": a row depends only
 * on the seed, the cell id and the configuration, never on other rows, so any
 * split of the rows (OpenMP blocks today, MPI ranks later, GPU threads) gives
 * a bit-identical network. */
#ifndef OLIVE_GENCONN_H
#define OLIVE_GENCONN_H
#include <stdint.h>
#include "netfile.h"
#include <mpi.h>

/* The options both command lines take (cli.c's gap-junction one and
 * spiking/spiking_cli.c's), none repeatable: the first entries of their
 * olive_opt tables (util.h), at these indices (each table's own help text);
 * each program's own options follow from GC_NCOMMON. */
enum {
    GC_OPT_OUTPUT, GC_OPT_MODEL, GC_OPT_CELLS, GC_OPT_SEED, GC_OPT_EXPORT_SONATA, GC_OPT_FORCE, GC_OPT_QUIET,
    GC_OPT_VERBOSE, GC_OPT_HELP, GC_OPT_VERSION, GC_NCOMMON
};

typedef enum { GC_UNIFORM, GC_GAUSSIAN, GC_GRID } gc_generator;
typedef enum { GC_IMPORT_EDGES, GC_IMPORT_MATRIX, GC_IMPORT_SONATA } gc_import_format;
typedef enum { GC_BACKEND_AUTO, GC_BACKEND_CPU, GC_BACKEND_CUDA } gc_backend;

typedef struct {
    const char *out_path;
    int64_t count, dims[3];
    gc_generator gen;
    double density;          /* K: mean degree (uniform) or exact degree */
    double sigma;            /* gaussian width in lattice units */
    uint64_t seed;
    double w_a, w_b;         /* conductance: constant (w_a == w_b, !w_range) or range */
    int w_range;
    int bits;                /* 0, 4, 8, 16, 32 */
    double gcal_a, gcal_b;   /* g_CaL constant or range */
    int gcal_range;
    int symmetric, fixed_degree, force;
    int64_t block_rows;      /* rows per generation block (0: automatic) */
    gc_backend backend;      /* --backend: where uniform and gaussian rows are generated */
    /* --import (import.c): import_path NULL means generate. */
    const char *import_path;
    gc_import_format import_format;
    int import_transpose;    /* --transpose: matrix line i is the receiving cell */
    int drop_self;           /* --drop-self: drop self junctions of an import, counted */
    const char *import_attribute;   /* NULL: conductance, else syn_weight */
    const char *import_population;  /* NULL: the only one */
    int dup_sum;             /* --duplicates sum (default reject) */
    int have_w;              /* --conductance given */
    const char *export_prefix;      /* --export-sonata PREFIX or NULL */
} gc_config;

/* Rows [row0, row1) in compressed sparse rows with global neighbour ids. */
typedef struct {
    int64_t row0, row1;
    int64_t *row_ptr;        /* row1-row0+1 entries, row_ptr[0] == 0 */
    int32_t *col;
    int64_t nnz, cap;
    /* Set by a generator that could not complete a row (gaussian). */
    int64_t fail_cell, fail_found, fail_attempts;
} gc_rows;

/* cli.c */
void gc_parse_args(int argc, char **argv, gc_config *cfg);
const char *gc_generator_name(gc_generator g);

/* rows.c: a growable block of rows. */
void gc_rows_init(gc_rows *b, int64_t row0, int64_t row1, int64_t cap_hint);
/* Make room for at least extra more ids; returns the col array. */
int32_t *gc_rows_reserve(gc_rows *b, int64_t extra);
void gc_rows_free(gc_rows *b);

/* gen_uniform.c (the row algorithms: gen_rows.h) */
void gc_uniform_rows(const gc_config *cfg, int64_t r0, int64_t r1, gc_rows *out);
double gc_uniform_lq(const gc_config *cfg);   /* log1p(-p) of the geometric gaps */

/* gen_gaussian.c: per-axis sampling tables built once, then rows. */
typedef struct gc_gauss gc_gauss;
gc_gauss *gc_gauss_new(const gc_config *cfg);
void gc_gauss_free(gc_gauss *g);
struct gc_gauss_tab;   /* gen_rows.h */
const struct gc_gauss_tab *gc_gauss_tables(const gc_gauss *g);
/* Returns 0, or -1 when a row could not find its partners (fail_* set). */
int gc_gauss_rows(const gc_config *cfg, const gc_gauss *g, int64_t r0, int64_t r1, gc_rows *out);

/* gen_grid.c */
void gc_grid_rows(const gc_config *cfg, int64_t r0, int64_t r1, gc_rows *out);

/* generate.c: all rows, in parallel blocks (or on the GPU), into net
 * (row_ptr, col, nnz). */
void gc_generate(const gc_config *cfg, olive_network *net);
/* The node-local rank whose device this process uses (device local % devices),
 * or -1 for the CPU: --backend cuda, or auto when a device is present.
 * Decided on the first call, which is collective (gc_generate makes it). */
int gc_cuda_local_rank(const gc_config *cfg);
/* Dies naming the cell, as the CPU path does, when gaussian row cell could
 * not find its partners (recomputes the row on the CPU for the numbers). */
void gc_gauss_fail(const gc_config *cfg, int64_t cell);

/* gen_cuda.cu (CUDA builds only: OLIVE_HAVE_CUDA): the same rows on the GPU.
 * gc_cuda_device_count is 0 when there is no device or no driver;
 * gc_generate_cuda uses device local_rank % devices. */
int gc_cuda_device_count(void);
void gc_generate_cuda(const gc_config *cfg, olive_network *net, int local_rank);

/* symmetric.c: replace the structure of net by its union with its transpose. */
void gc_symmetrize(olive_network *net);
/* Size of the union of two ascending id lists, written to out when non-NULL. */
int64_t gc_merge_union(const int32_t *a, int64_t na, const int32_t *b, int64_t nb, int32_t *out);
/* symmetric_mpi.c: the same across MPI ranks owning the row blocks bounds[]. */
void gc_symmetrize_mpi(olive_network *net, const int64_t *bounds, int P);

/* conductance.c: fill bits/offset/scale/cond; returns the largest
 * quantisation error |stored w - drawn w| (on the GPU when the rows are made
 * there: gc_cuda_local_rank >= 0). */
double gc_conductance(const gc_config *cfg, olive_network *net);
/* cond_cuda.cu (CUDA builds only): the same on device local_rank % devices,
 * into net->cond (allocated and zeroed, nnz > 0); par: cond_rows.h. */
struct gc_cond_par;
double gc_conductance_cuda(const struct gc_cond_par *par, olive_network *net, int local_rank);

/* import.c: read cfg->import_path into net (all rows, conductances packed;
 * dies naming the file and the line or dataset of the first fault). */
void gc_import(const gc_config *cfg, olive_network *net);
const char *gc_import_format_name(gc_import_format f);

/* import_pack.c: pack nnz conductances w into net (bits < 0: 0 when all are
 * equal, else 32); returns -1 with err when bits 0 cannot hold them. */
typedef struct { int bits; double min, max, maxerr; } gc_pack_info;
int gc_pack_conductance(olive_network *net, const double *w, int bits, double w_default, gc_pack_info *info,
                        char *err, size_t errlen);

/* export_sonata.c: write PREFIX_nodes.h5 and PREFIX_edges.h5 (SONATA,
 * population "io") from the rows each rank of comm holds, under temporary
 * names; gc_export_commit renames them (rank 0) once the network is written. */
enum { GC_EXP_NODES, GC_EXP_EDGES, GC_EXP_NODE_TYPES, GC_EXP_EDGE_TYPES, GC_EXP_CONFIG, GC_EXPORT_FILES };
typedef struct { char path[GC_EXPORT_FILES][4096], tmp[GC_EXPORT_FILES][4096]; } gc_export;
void gc_export_paths(const char *prefix, gc_export *x);
void gc_export_sonata(const char *prefix, const olive_network *net, int force, MPI_Comm comm, gc_export *x);
void gc_export_commit(gc_export *x, MPI_Comm comm);

/* gcal.c: g_CaL per cell (NULL for the default 0.68 everywhere). */
void gc_gcal(const gc_config *cfg, olive_network *net);

/* sort.c: ascending sort of int32 ids (rows are short; no libc callback). */
void gc_sort_i32(int32_t *a, int64_t n);

#endif
