/* SWC files into sections (swc.h). */
#include "swc.h"
#include "util.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *path;
    int n;
    int *type, *parent, *kid_ptr, *kids;
    double *x, *y, *z, *r;
    olive_morphology *m;
    int cap_sec;
    int64_t nodes;             /* the cell's nodes so far (cable_cell.h counts nseg + 1 a section, and a root) */
    double *fill;              /* next free place in m->points */
    int count[3];              /* axon, dend, apic */
} swc_tree;

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

static void add_section(swc_tree *t, const char *kind, int type, const int *pts, int np, int parent, double parent_x,
                        double seg_length)
{
    olive_morphology *m = t->m;
    if (m->nsec == t->cap_sec) {
        t->cap_sec = 2 * t->cap_sec + 8;
        m->sec = olive_realloc(m->sec, (size_t)t->cap_sec * sizeof *m->sec, "sections");
    }
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
    s.npt = np;
    s.arc = arc;
    s.pd = pd;
    s.L = arc[np - 1];
    if (!(s.L > 0)) olive_die("%s: section %s (from point %d on) has no length", t->path, s.name, pts[np - 1]);
    s.parent = parent;
    s.parent_x = parent_x;
    s.Ra = 100;
    s.mechs = (type == 1 || type == 2) ? OLIVE_MECH_HH : OLIVE_MECH_PAS;
    s.g_pas = 1e-4;
    s.e_pas = -65;
    s.nseg = nseg_for(&s, seg_length);
    if (s.nseg < 1) olive_die("%s: section %s (from point %d on): %g um needs more than 32767 segments", t->path, s.name,
                              pts[np - 1], s.L);
    t->nodes += s.nseg + 1;
    if (t->nodes > INT_MAX)
        olive_die("%s: section %s (from point %d on): the cell has more than %d nodes", t->path, s.name, pts[np - 1], INT_MAX);
    m->sec[m->nsec++] = s;
}

static const char *kind_of(int type) { return type == 2 ? "axon" : type == 4 ? "apic" : "dend"; }

/* A section still to build: it starts at point c, its parent point dup (-1:
 * none, on the soma), on section psec at px. */
typedef struct {
    int c, psec, dup;
    double px;
} pending;

/* The sections from the pending ones on stack (depth first, children in
 * file order): an explicit stack, as a tree may nest hundreds of thousands
 * of sections. buf holds one section's points at a time. */
static void build_sections(swc_tree *t, pending *stack, int top, double seg_length, int *buf)
{
    while (top > 0) {
        const pending q = stack[--top];
        int np = 0, cur = q.c;
        if (q.dup >= 0) buf[np++] = q.dup;
        for (;;) {
            buf[np++] = cur;
            const int nk = t->kid_ptr[cur + 1] - t->kid_ptr[cur];
            if (nk == 1 && t->type[t->kids[t->kid_ptr[cur]]] == t->type[q.c]) cur = t->kids[t->kid_ptr[cur]];
            else break;
        }
        add_section(t, kind_of(t->type[q.c]), t->type[q.c], buf, np, q.psec, q.px, seg_length);
        const int me = t->m->nsec - 1;
        for (int e = t->kid_ptr[cur + 1] - 1; e >= t->kid_ptr[cur]; e--)   /* reversed: the first child pops first */
            stack[top++] = (pending){t->kids[e], me, cur, 1.0};
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

typedef struct { int id, at; } id_at;

static int cmp_id(const void *a, const void *b)
{
    const id_at *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

/* The lines of f into t (points in file order), ids and parents' ids into
 * *ids, *pids: 0, or -1 with the fault (naming the file and line) in err,
 * for the caller to close f first (the fuzzer goes on after a fault). */
static int read_points(FILE *f, const char *path, swc_tree *t, int **ids, int **pids, char *err, size_t errsz)
{
    int cap = 0, cut, nul;
    char line[1024];
    long lineno = 0;
    while (read_line(f, line, sizeof line, &cut, &nul)) {
        lineno++;
        char *h = strchr(line, '#');
        int id = 0, type, parent;
        double xyzr[4];
        const char *fault = NULL;
        if (nul) fault = "a NUL byte (not a text file)";
        else if (cut && !h) fault = "longer than 1023 characters before any comment";   /* a long comment is skipped */
        if (h) *h = 0;
        char *p = line;
        while (isspace((unsigned char)*p)) p++;
        if (!fault && !*p) continue;
        if (!fault && !parse_point(p, &id, &type, xyzr, &parent)) fault = "expected 'id type x y z radius parent'";
        if (!fault && (id <= 0 || !(xyzr[3] > 0) || !isfinite(xyzr[0]) || !isfinite(xyzr[1]) || !isfinite(xyzr[2]) ||
                       !isfinite(xyzr[3]) || type < 0))
            fault = "need a positive id and radius, finite coordinates, a type >= 0";
        if (!fault && t->n == INT_MAX / 8) fault = "too many points (at most 268435455)";
        if (fault) {
            snprintf(err, errsz, "%s:%ld: %s", path, lineno, fault);
            return -1;
        }
        if (t->n == cap) {   /* doubling: amortised O(1) a point */
            cap = cap < INT_MAX / 16 ? 2 * cap + 64 : INT_MAX / 8;
            *ids = olive_realloc(*ids, (size_t)cap * sizeof(int), "swc");
            *pids = olive_realloc(*pids, (size_t)cap * sizeof(int), "swc");
            t->type = olive_realloc(t->type, (size_t)cap * sizeof(int), "swc");
            double **arr[] = {&t->x, &t->y, &t->z, &t->r};
            for (int k = 0; k < 4; k++) *arr[k] = olive_realloc(*arr[k], (size_t)cap * sizeof(double), "swc");
        }
        (*ids)[t->n] = id; (*pids)[t->n] = parent; t->type[t->n] = type;
        t->x[t->n] = xyzr[0]; t->y[t->n] = xyzr[1]; t->z[t->n] = xyzr[2]; t->r[t->n] = xyzr[3];
        t->n++;
    }
    if (ferror(f)) {
        snprintf(err, errsz, "%s: read error", path);
        return -1;
    }
    return 0;
}

/* Parents as indices: each an id given on an earlier line (looked up in the
 * ids sorted, O(n log n)); one root. */
static void link_parents(const char *path, swc_tree *t, const int *ids, const int *pids)
{
    id_at *sorted = olive_malloc((size_t)t->n * sizeof *sorted, "swc");
    for (int i = 0; i < t->n; i++) sorted[i] = (id_at){ids[i], i};
    qsort(sorted, (size_t)t->n, sizeof *sorted, cmp_id);
    for (int i = 1; i < t->n; i++)
        if (sorted[i].id == sorted[i - 1].id) olive_die("%s: point id %d is given twice", path, sorted[i].id);
    t->parent = olive_malloc((size_t)t->n * sizeof(int), "swc");
    int roots = 0;
    for (int i = 0; i < t->n; i++) {
        if (pids[i] == -1) { t->parent[i] = -1; roots++; continue; }
        const id_at key = {pids[i], 0}, *hit = bsearch(&key, sorted, (size_t)t->n, sizeof *sorted, cmp_id);
        if (!hit || hit->at >= i) olive_die("%s: point %d: parent %d is not a point given before it", path, ids[i], pids[i]);
        t->parent[i] = hit->at;
    }
    free(sorted);
    if (roots != 1) olive_die("%s: %d roots (points with parent -1); one is needed", path, roots);
    if (t->parent[0] != -1 || t->type[0] != 1) olive_die("%s: the first point must be the root, a soma point (type 1)", path);
}

void olive_swc_read(const char *path, double seg_length, olive_morphology *m)
{
    memset(m, 0, sizeof *m);
    if (!(seg_length > 0) && seg_length != 0) olive_die("%s: segment length %g: positive, or 0 for the d_lambda rule", path, seg_length);
    olive_check_regular_file(path);   /* a FIFO would block open() and a device never end */
    FILE *f = fopen(path, "r");
    if (!f) olive_die("%s: cannot open: %s", path, strerror(errno));
    swc_tree t = {0};
    t.nodes = 1;   /* the root node */
    t.path = path;
    t.m = m;
    int *ids = NULL, *pids = NULL;
    char err[1200];
    const int bad = read_points(f, path, &t, &ids, &pids, err, sizeof err);
    fclose(f);
    if (bad) olive_die("%s", err);
    if (t.n == 0) olive_die("%s: no points", path);
    link_parents(path, &t, ids, pids);
    /* children, in file (id) order */
    t.kid_ptr = olive_calloc((size_t)t.n + 1, sizeof(int), "swc");
    t.kids = olive_malloc((size_t)t.n * sizeof(int), "swc");
    for (int i = 1; i < t.n; i++) t.kid_ptr[t.parent[i] + 1]++;
    for (int i = 0; i < t.n; i++) t.kid_ptr[i + 1] += t.kid_ptr[i];
    int *fill = olive_calloc((size_t)t.n, sizeof(int), "swc");
    for (int i = 1; i < t.n; i++) t.kids[t.kid_ptr[t.parent[i]] + fill[t.parent[i]]++] = i;
    free(fill);
    /* the soma chain */
    int *chain = olive_malloc((size_t)t.n * sizeof(int), "swc"), nchain = 0, cur = 0;
    for (;;) {
        chain[nchain++] = cur;
        int next = -1;
        for (int e = t.kid_ptr[cur]; e < t.kid_ptr[cur + 1]; e++)
            if (t.type[t.kids[e]] == 1) {
                if (next >= 0) olive_die("%s: the soma branches at point %d (one chain of soma points is supported)", path, ids[cur]);
                next = t.kids[e];
            }
        if (next < 0) break;
        cur = next;
    }
    int in_chain = 0;
    for (int i = 0; i < t.n; i++) in_chain += t.type[i] == 1;
    if (in_chain != nchain) olive_die("%s: a soma point (type 1) outside the soma chain from the root", path);
    m->points = olive_malloc((size_t)(8 * t.n + 8) * sizeof(double), "swc");
    t.fill = m->points;
    int *buf = olive_malloc((size_t)t.n * sizeof(int) + sizeof(int), "swc");
    if (nchain == 1) {   /* one point: a cylinder along x, L = diam = 2r */
        double *arc = t.fill, *pd = t.fill + 2;
        t.fill += 4;
        arc[0] = 0; arc[1] = 2 * t.r[0];
        pd[0] = pd[1] = 2 * t.r[0];
        olive_section s = olive_section_default("soma");
        s.npt = 2; s.arc = arc; s.pd = pd; s.L = arc[1];
        s.Ra = 100; s.mechs = OLIVE_MECH_HH; s.g_pas = 1e-4; s.e_pas = -65;
        s.nseg = nseg_for(&s, seg_length);
        if (s.nseg < 1) olive_die("%s: the soma (%g um) needs more than 32767 segments", path, s.L);
        t.cap_sec = 8;
        m->sec = olive_malloc((size_t)t.cap_sec * sizeof *m->sec, "sections");
        m->sec[m->nsec++] = s;
        t.nodes += s.nseg + 1;
    } else {
        add_section(&t, "soma", 1, chain, nchain, -1, 0, seg_length);
    }
    /* the sections on the soma, pushed last first so that they pop in order */
    const double Ls = m->sec[0].L;
    pending *stack = olive_malloc((size_t)t.n * sizeof *stack, "swc");
    int top = 0;
    for (int k = nchain - 1; k >= 0; k--) {
        const double px = nchain == 1 ? 0.5 : m->sec[0].arc[k] / Ls;
        for (int e = t.kid_ptr[chain[k] + 1] - 1; e >= t.kid_ptr[chain[k]]; e--)
            if (t.type[t.kids[e]] != 1) stack[top++] = (pending){t.kids[e], 0, -1, px};
    }
    build_sections(&t, stack, top, seg_length, buf);
    free(stack); free(buf); free(chain); free(ids); free(pids);
    free(t.type); free(t.parent); free(t.kid_ptr); free(t.kids);
    free(t.x); free(t.y); free(t.z); free(t.r);
}

void olive_morphology_free(olive_morphology *m)
{
    free(m->sec);
    free(m->points);
    memset(m, 0, sizeof *m);
}
