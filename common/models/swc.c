/* SWC files into sections (swc.h), as NEURON 9's Import3d reads them
 * (read_swc.hoc, import3d_gui.hoc). Every pass is a loop over the points or
 * the sections in file order, no recursion: a file may nest hundreds of
 * thousands of sections. Reading is O(n log n) in the points. */
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

/* One section as Import3d_SWC_read's mksection makes it: the points
 * first..end-1 of the file, after the parent point par (-1 for the root
 * section, which has none). */
typedef struct {
    int first, end, par;
    int psec;        /* the parent section (after chk_valid's removals: the nearest kept one) */
    double px;       /* where on it the 0 end attaches */
    int skip;        /* Import3d's sec.first: 1 leaves the parent point out (a "wire" to the parent) */
    int removed;     /* chk_valid: a section of one 3-d point, or of two at one place */
} i3d_section;

typedef struct {
    const char *path;
    FILE *f;                   /* open while reading */
    int n, cap;
    int *id, *pid, *type;      /* per point, in file order */
    double *x, *y, *z, *r;
    int *parent, *nsoma, *sec_of;   /* the parent index; soma children of a soma point; the section of a point */
    double *nchild;            /* mark_branch's child count (1 exactly: the point is inside a section) */
    char *prox;                /* mark_branch's connect2prox */
    i3d_section *s;
    int ns;
    int *index;                /* instantiate: olive's section of a kept one */
    double (*raw)[4];          /* instantiate: one section's 3-d points before NEURON's rounding */
    int *types, *count;        /* instantiate: the sections' types, sorted and unique; sections so far of each */
    olive_morphology *m;
    int64_t nodes;             /* the cell's nodes so far (cable_cell.h: nseg + 1 a section, and the root) */
    double *fill;              /* next free place in m->points */
} swc_tree;

static void tree_free(swc_tree *t)
{
    void *p[] = {t->id,    t->pid,  t->type, t->x, t->y, t->z,     t->r,   t->parent,
                 t->nsoma, t->sec_of, t->nchild, t->prox, t->s, t->index, t->raw, t->types, t->count};
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

/* A coordinate or diameter as NEURON holds it after Import3d_GUI.instantiate:
 * printed with %.8g into a pt3dadd statement, read back, stored as a float
 * (Pt3d in nrn's section.h). */
static float nrn_coord(double v)
{
    char b[40];
    snprintf(b, sizeof b, "%.8g", v);
    return (float)strtod(b, NULL);
}

/* The section's 3-d points from Import3d's raw ones (xyzd[0..np)): arcs as
 * nrn_pt3dmodified computes them (float differences, double sums). */
static void set_points(swc_tree *t, olive_section *s, const double (*xyzd)[4], int np)
{
    double *arc = t->fill, *pd = t->fill + np;
    t->fill += 2 * np;
    float px = 0, py = 0, pz = 0;
    for (int k = 0; k < np; k++) {
        const float fx = nrn_coord(xyzd[k][0]), fy = nrn_coord(xyzd[k][1]), fz = nrn_coord(xyzd[k][2]);
        pd[k] = nrn_coord(xyzd[k][3]);
        if (k == 0) arc[k] = 0;
        else {
            const double t1 = (float)(fx - px), t2 = (float)(fy - py), t3 = (float)(fz - pz);
            arc[k] = arc[k - 1] + sqrt(t1 * t1 + t2 * t2 + t3 * t3);
        }
        px = fx; py = fy; pz = fz;
    }
    s->npt = np;
    s->arc = arc;
    s->pd = pd;
    s->L = arc[np - 1];
}

/* Section s into the morphology, counting its nodes (a cell has at most
 * INT_MAX); first: the point it is named by. */
static void push_section(swc_tree *t, olive_section s, const olive_swc_setup *su, int first)
{
    olive_morphology *m = t->m;
    if (!(s.L > 0)) fail(t, "%s: section %s (from point %d on) has no length", t->path, s.name, t->id[first]);
    const olive_section *b = &su->bio[olive_swc_group(s.type)];
    s.Ra = b->Ra; s.cm = b->cm; s.mechs = b->mechs;
    s.gnabar = b->gnabar; s.gkbar = b->gkbar; s.gl = b->gl; s.el = b->el; s.ena = b->ena; s.ek = b->ek;
    s.g_pas = b->g_pas; s.e_pas = b->e_pas;
    s.nseg = olive_section_nseg(&s, su->seg_length, su->d_lambda, su->d_lambda_freq);
    if (s.nseg < 1)
        fail(t, "%s: section %s (from point %d on): %g um needs more than 32767 segments (Ra %g, cm %g, seg_length %g, "
             "d_lambda %g, d_lambda_freq %g)", t->path, s.name, t->id[first], s.L, s.Ra, s.cm, su->seg_length,
             su->d_lambda, su->d_lambda_freq);
    t->nodes += s.nseg + 1;
    if (t->nodes > INT_MAX) fail(t, "%s: section %s (from point %d on): the cell has more than %d nodes", t->path, s.name,
                                 t->id[first], INT_MAX);
    m->sec[m->nsec++] = s;
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

/* As NEURON's Import3d reads it: C's sscanf "%f", a float (hoc_sscanf). */
static int field_float(char **p, double *v)
{
    char *end;
    *v = strtof(*p, &end);
    if (end == *p || (*end && !isspace((unsigned char)*end))) return 0;
    *p = end;
    return 1;
}

/* "id type x y z radius parent" and nothing else: 1, else 0. */
static int parse_point(char *p, int *id, int *type, double xyzr[4], int *parent)
{
    if (!field_int(&p, id) || !field_int(&p, type)) return 0;
    for (int k = 0; k < 4; k++)
        if (!field_float(&p, &xyzr[k])) return 0;
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
        if (id <= 0 || !(xyzr[3] > 0) || !isfinite(xyzr[0]) || !isfinite(xyzr[1]) || !isfinite(xyzr[2]) || !isfinite(xyzr[3]))
            fail(t, "%s:%ld: point %d: need a positive id and radius, finite coordinates", t->path, lineno, id);
        if (id > 16777216 || parent > 16777216)   /* 2^24: NEURON reads ids as floats, which would merge larger ones */
            fail(t, "%s:%ld: point %d, parent %d: ids above 16777216 are not read exactly by NEURON's Import3d", t->path, lineno,
                 id, parent);
        if (t->n == INT_MAX / 8) fail(t, "%s:%ld: more than %d points", t->path, lineno, INT_MAX / 8);
        add_point(t, id, type, xyzr, parent);
    }
    if (ferror(t->f)) fail(t, "%s: read error", t->path);
    fclose(t->f);
    t->f = NULL;
}

/* Parents as indices. The ids must increase down the file (Import3d sorts
 * them otherwise, and NEURON 9's sort fails: check_pid's d.sortindex(diam,
 * ...)); a parent id is looked up by bisection, O(n log n). One root (a
 * second tree is NEURON's "more than one tree"), the first point, a soma
 * point (olive's clamp and spike detector sit on the soma). */
static void link_parents(swc_tree *t)
{
    for (int i = 1; i < t->n; i++)
        if (t->id[i] <= t->id[i - 1])
            fail(t, t->id[i] == t->id[i - 1] ? "%s: point id %d is given twice" : "%s: point id %d after id %d: ids must increase down "
                 "the file", t->path, t->id[i], t->id[i - 1]);
    t->parent = olive_malloc((size_t)t->n * sizeof(int), "swc");
    int roots = 0;
    for (int i = 0; i < t->n; i++) {
        if (t->pid[i] < 0) { t->parent[i] = -1; roots++; continue; }
        int lo = 0, hi = i;   /* a parent id is below the point's (NEURON: "pid is not less than id") */
        while (lo < hi) {
            const int mid = lo + (hi - lo) / 2;
            if (t->id[mid] < t->pid[i]) lo = mid + 1;
            else hi = mid;
        }
        if (lo == i || t->id[lo] != t->pid[i]) fail(t, "%s: point %d: parent %d is not a point given before it", t->path, t->id[i], t->pid[i]);
        t->parent[i] = lo;
    }
    if (roots != 1) fail(t, "%s: %d roots (points with a negative parent); one tree is needed", t->path, roots);
    if (t->parent[0] != -1 || t->type[0] != 1) fail(t, "%s: the first point must be the root, a soma point (type 1)", t->path);
}

/* read_swc.hoc's mark_branch, sectionify and the NeuroMorpho three-point
 * soma: nchild[i] == 1 exactly where point i is inside a section (its one
 * child, next in the file and of its type, continues it); the sections are
 * the runs of points up to each other point. Returns soma3geom. */
static int mark_sections(swc_tree *t)
{
    const int n = t->n;
    int *par = t->parent, *type = t->type;
    double *nc = t->nchild = olive_calloc((size_t)n, sizeof(double), "swc");
    t->prox = olive_calloc((size_t)n, 1, "swc");
    t->nsoma = olive_calloc((size_t)n, sizeof(int), "swc");
    for (int i = 0; i < n; i++) {
        const int p = par[i];
        if (p < 0) continue;
        nc[p] += 1;
        if (p != i - 1) {
            nc[p] += .01;
            /* a child of the first point of a dendrite on the soma goes to that dendrite's 0 end
             * (the root is a soma point here: the p == 0 case of mark_branch never applies) */
            if (p > 1 && type[p] != 1 && type[par[p]] == 1) {
                t->prox[i] = 1;
                nc[p] = 1;
            }
        }
        if (type[p] != type[i]) nc[p] += .01;
    }
    int nsoma_pts = 0;
    for (int i = 0; i < n; i++)
        if (type[i] == 1) {
            nsoma_pts++;
            if (par[i] >= 0 && type[par[i]] == 1) t->nsoma[par[i]]++;
        }
    /* NeuroMorpho's three-point soma (a root with two soma children of its
     * diameter, none of their own, spanning one diameter): a sphere, the
     * root point alone; point 2 hangs on point 1 so that one section holds all three */
    int soma3 = 0;
    if (nsoma_pts == 3 && n >= 3 && par[1] == 0 && par[2] == 0 && nc[1] == 0 && nc[2] == 0 && t->r[1] == t->r[0] &&
        t->r[2] == t->r[0]) {
        double len = 0;
        for (int i = 1; i <= 2; i++) {
            const double dx = t->x[i] - t->x[0], dy = t->y[i] - t->y[0], dz = t->z[i] - t->z[0];
            len += sqrt(dx * dx + dy * dy + dz * dz);
        }
        if (fabs(len / (2 * t->r[0]) - 1) < .01) {
            soma3 = 1;
            par[2] = 1;
        }
    }
    for (int i = 0; i < n - 1; i++)   /* a soma point followed by its soma child continues, unless it branches (not the root) */
        if (type[i] == 1 && type[i + 1] == 1 && par[i + 1] == i && !(i != 0 && t->nsoma[i] > 1)) nc[i] = 1;
    return soma3;
}

/* read_swc.hoc's mksection for section k (k >= 1) of points first..end-1:
 * where it attaches and whether its first 3-d point (a copy of the parent
 * point) is left out. */
static void attach(swc_tree *t, int k, int soma3)
{
    i3d_section *s = &t->s[k], *ps;
    const int first = s->first, np = s->end - first, pp = t->parent[first];
    s->par = pp;
    s->psec = t->sec_of[pp];
    ps = &t->s[s->psec];
    const int ptype = t->type[ps->first], ptsize = s->psec == 0 ? (soma3 ? 1 : ps->end - ps->first) : ps->end - ps->first + 1;
    const int den_con_soma = ptype == 1 && t->type[first] != 1;
    s->px = 1;
    s->skip = 0;
    int handled = 0;
    if (s->psec == 0) {   /* on the root section */
        handled = 1;
        if (den_con_soma && ptsize == 1) {   /* a one-point (spherical) soma: at its middle, by a wire if longer than a point */
            s->px = .5;
            s->skip = np > 1;
        } else if (pp == 0) {   /* the root's first point: its 0 end */
            s->px = 0;
            s->skip = t->type[first] != 1 && t->nsoma[pp] > 1;
        } else {
            handled = 0;
        }
    }
    if (!handled && ptype == 1) {
        const int offset = ps->first == 0 ? -1 : -2;
        if (pp < ps->first + ptsize + offset) {   /* an interior soma point: soma(0.5) */
            s->px = .5;
            s->skip = den_con_soma && np > 1;
        } else if (np > 1 && t->nsoma[pp] > 1 && t->type[first] != 1) {
            s->skip = 1;
        }
    }
    if (t->prox[first]) s->px = 0;
}

/* The sections (sectionify, mksection), then Import3d_GUI's chk_valid: a
 * section with one 3-d point, or two at one place, is removed (NEURON
 * prints that, olive warns) and its children go where it attached. */
static void make_sections(swc_tree *t, int soma3)
{
    const int n = t->n;
    t->sec_of = olive_malloc((size_t)n * sizeof(int), "swc");
    t->s = olive_malloc((size_t)n * sizeof *t->s, "swc");
    t->ns = 0;
    for (int i = 0, first = 0; i < n; i++) {
        t->sec_of[i] = t->ns;
        if (t->nchild[i] != 1) {
            t->s[t->ns++] = (i3d_section){first, i + 1, -1, -1, 0, 0, 0};
            first = i + 1;
        }
    }
    if (soma3) t->s[0].end = 1;   /* the sphere: the root point alone (points 1, 2 dropped) */
    for (int k = 1; k < t->ns; k++) {
        attach(t, k, soma3);
        i3d_section *s = &t->s[k];
        const int npt = s->end - s->first + 1 - s->skip, a = s->skip ? s->first : s->par, b = s->skip ? s->first + 1 : s->first;
        if (npt <= 1 || (npt == 2 && t->x[a] == t->x[b] && t->y[a] == t->y[b] && t->z[a] == t->z[b])) {
            s->removed = 1;
            olive_warn("%s: the section ending at point %d has %s; removed, as NEURON's Import3d does", t->path,
                       t->id[s->end - 1], npt <= 1 ? "one 3-d point" : "two 3-d points at one place");
        }
        const i3d_section *q = &t->s[s->psec];
        if (q->removed) {   /* chk_valid reattaches the children of a removed section where it attached */
            s->px = q->px;
            s->psec = q->psec;
        }
    }
}

static int cmp_int(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static const char *type_name(int type, char *buf, size_t cap)
{
    if (type >= 1 && type <= 4) return (const char *[]){"soma", "axon", "dend", "apic"}[type - 1];
    snprintf(buf, cap, type < 0 ? "minus_%d" : "dend_%d", type < 0 ? -type : type);
    return buf;
}

/* Import3d_GUI.instantiate: the kept sections in file order, named by type
 * and their index among those of the type, with their 3-d points (a
 * one-point root: the sphere as three points along x, L = diam). */
static void instantiate(swc_tree *t, const olive_swc_setup *su)
{
    olive_morphology *m = t->m;
    int *index = t->index = olive_malloc((size_t)t->ns * sizeof(int), "swc");
    double (*raw)[4] = t->raw = olive_malloc(((size_t)t->n + 3) * sizeof *raw, "swc");
    m->sec = olive_malloc((size_t)t->ns * sizeof *m->sec, "sections");
    m->points = olive_malloc(((size_t)2 * t->n + 2 * (size_t)t->ns + 8) * sizeof(double), "swc");
    t->fill = m->points;
    int ntypes = 0;   /* the types (a file may have one a section: sorted, O(n log n)) */
    t->types = olive_malloc((size_t)t->ns * sizeof(int), "swc");
    for (int k = 0; k < t->ns; k++) t->types[ntypes++] = t->type[t->s[k].first];
    qsort(t->types, (size_t)ntypes, sizeof(int), cmp_int);
    int nu = 0;
    for (int k = 0; k < ntypes; k++)
        if (!nu || t->types[k] != t->types[nu - 1]) t->types[nu++] = t->types[k];
    t->count = olive_calloc((size_t)nu, sizeof(int), "swc");
    for (int k = 0; k < t->ns; k++) {
        const i3d_section *s = &t->s[k];
        if (s->removed) continue;
        const int type = t->type[s->first];
        const int c = (int)((const int *)bsearch(&type, t->types, (size_t)nu, sizeof(int), cmp_int) - t->types);
        char tb[24];
        olive_section o = olive_section_default("");
        o.type = type;   /* its biophysics (push_section) */
        snprintf(o.name, sizeof o.name, "%s[%d]", type_name(type, tb, sizeof tb), t->count[c]++);
        int np = 0;
        if (k > 0) {   /* the parent point first; on a soma, with this section's first diameter */
            const int p = s->par;
            raw[np][0] = t->x[p]; raw[np][1] = t->y[p]; raw[np][2] = t->z[p]; raw[np][3] = 2 * t->r[p];
            if (t->type[t->s[t->sec_of[p]].first] == 1 && type != 1) raw[np][3] = 2 * t->r[s->first];
            np++;
        }
        for (int i = s->first; i < s->end; i++, np++) {
            raw[np][0] = t->x[i]; raw[np][1] = t->y[i]; raw[np][2] = t->z[i]; raw[np][3] = 2 * t->r[i];
        }
        const double (*pts)[4] = (const double (*)[4])raw + s->skip;
        np -= s->skip;
        if (np == 1) {   /* sphere_rep */
            const double d = raw[0][3];
            raw[2][0] = raw[0][0] + d / 2;
            raw[1][0] = raw[0][0];
            raw[0][0] -= d / 2;
            for (int j = 1; j <= 2; j++) { raw[j][1] = raw[0][1]; raw[j][2] = raw[0][2]; raw[j][3] = d; }
            np = 3;
        }
        set_points(t, &o, pts, np);
        o.parent = k ? index[s->psec] : -1;
        o.parent_x = k ? s->px : 1;
        index[k] = m->nsec;
        push_section(t, o, su, s->first);
    }
}

void olive_swc_read(const char *path, const olive_swc_setup *setup, olive_morphology *m)
{
    memset(m, 0, sizeof *m);
    const double seg_length = setup->seg_length;
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
    const int soma3 = mark_sections(&t);
    make_sections(&t, soma3);
    instantiate(&t, setup);
    tree_free(&t);
}

void olive_morphology_free(olive_morphology *m)
{
    free(m->sec);
    free(m->points);
    memset(m, 0, sizeof *m);
}
