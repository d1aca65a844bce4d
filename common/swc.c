/* SWC files into sections (swc.h). Every walk over the tree is a loop (an
 * explicit stack for the sections): a file may nest hundreds of thousands of
 * sections. Reading is O(n log n) in the points. */
#include "swc.h"
#include "util.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A section still to build: it starts at point c, its parent point dup (-1:
 * none, on the soma), on section psec at px. */
typedef struct {
    int c, psec, dup;
    double px;
} pending;

typedef struct {
    const char *path;
    FILE *f;                   /* open while reading */
    int n, cap;
    int *id, *pid, *type;      /* per point, in file order */
    double *x, *y, *z, *r;
    int *parent, *kid_ptr, *kids, *chain, *buf;   /* parent and children as indices; the soma chain; one section's points */
    pending *stack;
    void *sorted;              /* the ids sorted, while parents are looked up */
    olive_morphology *m;
    int cap_sec;
    int64_t nodes;             /* the cell's nodes so far (cable_cell.h: nseg + 1 a section, and the root) */
    double *fill;              /* next free place in m->points */
    int count[3];              /* axon, dend, apic */
} swc_tree;

static void tree_free(swc_tree *t)
{
    void *p[] = {t->id, t->pid, t->type, t->x, t->y, t->z, t->r, t->parent, t->kid_ptr, t->kids, t->chain, t->buf, t->stack,
                 t->sorted};
    for (size_t k = 0; k < sizeof p / sizeof p[0]; k++) free(p[k]);
}

/* Dies with the message, first freeing what the reader holds (the fuzzer
 * goes on after olive_die: tests/fuzz/fuzz_swc.c). */
static void __attribute__((format(printf, 2, 3), noreturn)) fail(swc_tree *t, const char *fmt, ...)
{
    char msg[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (t->f) fclose(t->f);
    tree_free(t);
    olive_morphology_free(t->m);
    olive_die("%s", msg);
}

/* nseg: a fixed length, or (seg_length <= 0) NEURON's d_lambda rule with
 * d_lambda 0.1 at 100 Hz: lambda_f from the 3-d points as stdlib.hoc. */
static int nseg_for(const olive_section *s, double seg_length)
{
    double per = seg_length;
    if (!(seg_length > 0)) {
        const double freq = 100, d_lambda = .1, PI = 3.14159265358979323846;
        double lam = 0;
        for (int i = 1; i < s->npt; i++) lam += (s->arc[i] - s->arc[i - 1]) / sqrt(s->pd[i - 1] + s->pd[i]);
        lam *= sqrt(2) * 1e-5 * sqrt(4 * PI * freq * s->Ra * s->cm);
        per = d_lambda * (s->L / lam);
    }
    const double half = floor((s->L / per + 0.9) / 2);
    if (!(half >= 0 && half <= 16383)) return -1;   /* more than 32767 segments: the caller names it */
    return 2 * (int)half + 1;
}

/* Section s into the morphology, counting its nodes (a cell has at most
 * INT_MAX); first: the point it is named by. */
static void push_section(swc_tree *t, olive_section s, double seg_length, int first)
{
    olive_morphology *m = t->m;
    s.Ra = 100;
    s.g_pas = 1e-4;
    s.e_pas = -65;
    s.nseg = nseg_for(&s, seg_length);
    if (s.nseg < 1)
        fail(t, "%s: section %s (from point %d on): %g um needs more than 32767 segments", t->path, s.name, t->id[first], s.L);
    t->nodes += s.nseg + 1;
    if (t->nodes > INT_MAX) fail(t, "%s: section %s (from point %d on): the cell has more than %d nodes", t->path, s.name,
                                 t->id[first], INT_MAX);
    if (m->nsec == t->cap_sec) {   /* doubling: amortised O(1) a section */
        t->cap_sec = 2 * t->cap_sec + 8;
        m->sec = olive_realloc(m->sec, (size_t)t->cap_sec * sizeof *m->sec, "sections");
    }
    m->sec[m->nsec++] = s;
}

/* The section of points pts[0..np) (pts[own] its first own point, after
 * its parent's) on section parent at parent_x. */
static void add_section(swc_tree *t, const char *kind, int type, const int *pts, int np, int own, int parent,
                        double parent_x, double seg_length)
{
    olive_section s = olive_section_default(kind);
    if (type != 1) {
        const int k = type == 2 ? 0 : type == 4 ? 2 : 1;
        snprintf(s.name, sizeof s.name, "%s[%d]", kind, t->count[k]++);
    }
    double *arc = t->fill, *pd = t->fill + np;
    t->fill += 2 * np;
    arc[0] = 0;
    for (int k = 0; k < np; k++) {
        const int p = pts[k];
        pd[k] = 2 * t->r[p];
        if (k) {
            const int q = pts[k - 1];
            const double dx = t->x[p] - t->x[q], dy = t->y[p] - t->y[q], dz = t->z[p] - t->z[q];
            arc[k] = arc[k - 1] + sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    const int first = pts[own];
    s.npt = np;
    s.arc = arc;
    s.pd = pd;
    s.L = arc[np - 1];
    if (!(s.L > 0)) fail(t, "%s: section %s (from point %d on) has no length", t->path, s.name, t->id[first]);
    s.parent = parent;
    s.parent_x = parent_x;
    s.mechs = (type == 1 || type == 2) ? OLIVE_MECH_HH : OLIVE_MECH_PAS;
    push_section(t, s, seg_length, first);
}

static const char *kind_of(int type) { return type == 2 ? "axon" : type == 4 ? "apic" : "dend"; }

/* The sections from the pending ones on t->stack (depth first, children in
 * file order). */
static void build_sections(swc_tree *t, int top, double seg_length)
{
    while (top > 0) {
        const pending q = t->stack[--top];
        int np = 0, cur = q.c;
        if (q.dup >= 0) t->buf[np++] = q.dup;
        for (;;) {
            t->buf[np++] = cur;
            const int nk = t->kid_ptr[cur + 1] - t->kid_ptr[cur];
            if (nk == 1 && t->type[t->kids[t->kid_ptr[cur]]] == t->type[q.c]) cur = t->kids[t->kid_ptr[cur]];
            else break;
        }
        add_section(t, kind_of(t->type[q.c]), t->type[q.c], t->buf, np, q.dup >= 0, q.psec, q.px, seg_length);
        const int me = t->m->nsec - 1;
        for (int e = t->kid_ptr[cur + 1] - 1; e >= t->kid_ptr[cur]; e--)   /* reversed: the first child pops first */
            t->stack[top++] = (pending){t->kids[e], me, cur, 1.0};
    }
}

/* One line of f into buf (at most cap - 1 characters, the newline dropped):
 * 0 at the end of the file. A longer line is cut there and the rest of it
 * consumed (*cut set); a NUL byte sets *nul. */
static int read_line(FILE *f, char *buf, size_t cap, int *cut, int *nul)
{
    size_t n = 0;
    int ch, any = 0;
    *cut = *nul = 0;
    while ((ch = getc_unlocked(f)) != EOF) {
        any = 1;
        if (ch == '\n') break;
        if (ch == 0) *nul = 1;
        if (n + 1 < cap) buf[n++] = (char)ch;
        else *cut = 1;
    }
    buf[n] = 0;
    return any;
}

/* The next whitespace-separated field of *p as an int or a double: 0 when
 * there is none or it is not one (an int out of range included). */
static int field_int(char **p, int *v)
{
    char *end;
    errno = 0;
    const long x = strtol(*p, &end, 10);
    if (end == *p || errno || x < INT_MIN || x > INT_MAX || (*end && !isspace((unsigned char)*end))) return 0;
    *v = (int)x;
    *p = end;
    return 1;
}

static int field_double(char **p, double *v)
{
    char *end;
    *v = strtod(*p, &end);
    if (end == *p || (*end && !isspace((unsigned char)*end))) return 0;
    *p = end;
    return 1;
}

/* "id type x y z radius parent" and nothing else: 1, else 0. */
static int parse_point(char *p, int *id, int *type, double xyzr[4], int *parent)
{
    if (!field_int(&p, id) || !field_int(&p, type)) return 0;
    for (int k = 0; k < 4; k++)
        if (!field_double(&p, &xyzr[k])) return 0;
    if (!field_int(&p, parent)) return 0;
    while (isspace((unsigned char)*p)) p++;
    return *p == 0;
}

static void add_point(swc_tree *t, int id, int type, const double xyzr[4], int parent)
{
    if (t->n == t->cap) {   /* doubling: amortised O(1) a point */
        t->cap = t->cap < INT_MAX / 16 ? 2 * t->cap + 64 : INT_MAX / 8;
        int **ia[] = {&t->id, &t->pid, &t->type};
        for (int k = 0; k < 3; k++) *ia[k] = olive_realloc(*ia[k], (size_t)t->cap * sizeof(int), "swc");
        double **da[] = {&t->x, &t->y, &t->z, &t->r};
        for (int k = 0; k < 4; k++) *da[k] = olive_realloc(*da[k], (size_t)t->cap * sizeof(double), "swc");
    }
    const int i = t->n++;
    t->id[i] = id; t->pid[i] = parent; t->type[i] = type;
    t->x[i] = xyzr[0]; t->y[i] = xyzr[1]; t->z[i] = xyzr[2]; t->r[i] = xyzr[3];
}

/* The points of t->f, in file order; a fault names the file and line. A
 * comment may be of any length; a point line is at most 1023 characters. */
static void read_points(swc_tree *t)
{
    char line[1024];
    long lineno = 0;
    int cut, nul;
    while (read_line(t->f, line, sizeof line, &cut, &nul)) {
        lineno++;
        char *h = strchr(line, '#');
        if (nul) fail(t, "%s:%ld: a NUL byte (not a text file)", t->path, lineno);
        if (cut && !h) fail(t, "%s:%ld: longer than %d characters before any comment", t->path, lineno, (int)sizeof line - 1);
        if (h) *h = 0;
        char *p = line;
        while (isspace((unsigned char)*p)) p++;
        if (!*p) continue;
        int id, type, parent;
        double xyzr[4];
        if (!parse_point(p, &id, &type, xyzr, &parent)) fail(t, "%s:%ld: expected 'id type x y z radius parent'", t->path, lineno);
        if (id <= 0 || !(xyzr[3] > 0) || !isfinite(xyzr[0]) || !isfinite(xyzr[1]) || !isfinite(xyzr[2]) || !isfinite(xyzr[3]) ||
            type < 0)
            fail(t, "%s:%ld: point %d: need a positive id and radius, finite coordinates, a type >= 0", t->path, lineno, id);
        if (t->n == INT_MAX / 8) fail(t, "%s:%ld: more than %d points", t->path, lineno, INT_MAX / 8);
        add_point(t, id, type, xyzr, parent);
    }
    if (ferror(t->f)) fail(t, "%s: read error", t->path);
    fclose(t->f);
    t->f = NULL;
}

typedef struct { int id, at; } id_at;

static int cmp_id(const void *a, const void *b)
{
    const id_at *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

/* Parents as indices: each an id given on an earlier line (looked up in the
 * ids sorted, O(n log n)); one root, the first point, a soma point. */
static void link_parents(swc_tree *t)
{
    id_at *sorted = olive_malloc((size_t)t->n * sizeof *sorted, "swc");
    t->sorted = sorted;
    for (int i = 0; i < t->n; i++) sorted[i] = (id_at){t->id[i], i};
    qsort(sorted, (size_t)t->n, sizeof *sorted, cmp_id);
    for (int i = 1; i < t->n; i++)
        if (sorted[i].id == sorted[i - 1].id) fail(t, "%s: point id %d is given twice", t->path, sorted[i].id);
    t->parent = olive_malloc((size_t)t->n * sizeof(int), "swc");
    int roots = 0;
    for (int i = 0; i < t->n; i++) {
        if (t->pid[i] == -1) { t->parent[i] = -1; roots++; continue; }
        const id_at key = {t->pid[i], 0}, *hit = bsearch(&key, sorted, (size_t)t->n, sizeof *sorted, cmp_id);
        if (!hit || hit->at >= i) fail(t, "%s: point %d: parent %d is not a point given before it", t->path, t->id[i], t->pid[i]);
        t->parent[i] = hit->at;
    }
    free(sorted);
    t->sorted = NULL;
    if (roots != 1) fail(t, "%s: %d roots (points with parent -1); one is needed", t->path, roots);
    if (t->parent[0] != -1 || t->type[0] != 1) fail(t, "%s: the first point must be the root, a soma point (type 1)", t->path);
}

/* Children as index ranges (kid_ptr), in file order; the soma chain from the
 * root, which must hold every soma point: its length. */
static int link_children(swc_tree *t)
{
    t->kid_ptr = olive_calloc((size_t)t->n + 1, sizeof(int), "swc");
    t->kids = olive_malloc((size_t)t->n * sizeof(int), "swc");
    for (int i = 1; i < t->n; i++) t->kid_ptr[t->parent[i] + 1]++;
    for (int i = 0; i < t->n; i++) t->kid_ptr[i + 1] += t->kid_ptr[i];
    t->chain = olive_calloc((size_t)t->n, sizeof(int), "swc");   /* first the fill count of each point */
    for (int i = 1; i < t->n; i++) t->kids[t->kid_ptr[t->parent[i]] + t->chain[t->parent[i]]++] = i;
    int nchain = 0, cur = 0;
    for (;;) {
        t->chain[nchain++] = cur;
        int next = -1;
        for (int e = t->kid_ptr[cur]; e < t->kid_ptr[cur + 1]; e++)
            if (t->type[t->kids[e]] == 1) {
                if (next >= 0) fail(t, "%s: the soma branches at point %d (one chain of soma points is supported)", t->path, t->id[cur]);
                next = t->kids[e];
            }
        if (next < 0) break;
        cur = next;
    }
    int in_chain = 0;
    for (int i = 0; i < t->n; i++) in_chain += t->type[i] == 1;
    if (in_chain != nchain) fail(t, "%s: a soma point (type 1) outside the soma chain from the root", t->path);
    return nchain;
}

/* The soma: its chain of points, or a single point as a cylinder along x,
 * L = diam = 2r. */
static void add_soma(swc_tree *t, int nchain, double seg_length)
{
    if (nchain > 1) {
        add_section(t, "soma", 1, t->chain, nchain, 0, -1, 0, seg_length);
        return;
    }
    double *arc = t->fill, *pd = t->fill + 2;
    t->fill += 4;
    arc[0] = 0; arc[1] = 2 * t->r[0];
    pd[0] = pd[1] = 2 * t->r[0];
    olive_section s = olive_section_default("soma");
    s.npt = 2; s.arc = arc; s.pd = pd; s.L = arc[1];
    s.mechs = OLIVE_MECH_HH;
    push_section(t, s, seg_length, 0);
}

void olive_swc_read(const char *path, double seg_length, olive_morphology *m)
{
    memset(m, 0, sizeof *m);
    if (!(seg_length > 0) && seg_length != 0) olive_die("%s: segment length %g: positive, or 0 for the d_lambda rule", path, seg_length);
    olive_check_regular_file(path);   /* a FIFO would block open() and a device never end */
    swc_tree t = {0};
    t.path = path;
    t.m = m;
    t.nodes = 1;   /* the root node */
    t.f = fopen(path, "r");
    if (!t.f) olive_die("%s: cannot open: %s", path, strerror(errno));
    read_points(&t);
    if (t.n == 0) fail(&t, "%s: no points", path);
    link_parents(&t);
    const int nchain = link_children(&t);
    m->points = olive_malloc((size_t)(8 * t.n + 8) * sizeof(double), "swc");
    t.fill = m->points;
    t.buf = olive_malloc((size_t)t.n * sizeof(int) + sizeof(int), "swc");
    add_soma(&t, nchain, seg_length);
    /* the sections on the soma, pushed last first so that they pop in order */
    const double Ls = m->sec[0].L;
    t.stack = olive_malloc((size_t)t.n * sizeof *t.stack, "swc");
    int top = 0;
    for (int k = nchain - 1; k >= 0; k--) {
        const double px = nchain == 1 ? 0.5 : m->sec[0].arc[k] / Ls;
        for (int e = t.kid_ptr[t.chain[k] + 1] - 1; e >= t.kid_ptr[t.chain[k]]; e--)
            if (t.type[t.kids[e]] != 1) t.stack[top++] = (pending){t.kids[e], 0, -1, px};
    }
    build_sections(&t, top, seg_length);
    tree_free(&t);
}

void olive_morphology_free(olive_morphology *m)
{
    free(m->sec);
    free(m->points);
    memset(m, 0, sizeof *m);
}
