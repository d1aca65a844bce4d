/* SWC files into sections (swc.h). */
#include "swc.h"
#include "util.h"
#include <errno.h>
#include <math.h>
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
    m->sec[m->nsec++] = s;
}

static const char *kind_of(int type) { return type == 2 ? "axon" : type == 4 ? "apic" : "dend"; }

/* The section starting at point c, its parent point dup (-1: none, on the soma). */
static void build_from(swc_tree *t, int c, int psec, double px, int dup, double seg_length, int *buf)
{
    int np = 0, cur = c;
    if (dup >= 0) buf[np++] = dup;
    for (;;) {
        buf[np++] = cur;
        const int nk = t->kid_ptr[cur + 1] - t->kid_ptr[cur];
        if (nk == 1 && t->type[t->kids[t->kid_ptr[cur]]] == t->type[c]) cur = t->kids[t->kid_ptr[cur]];
        else break;
    }
    add_section(t, kind_of(t->type[c]), t->type[c], buf, np, psec, px, seg_length);
    const int me = t->m->nsec - 1;
    for (int e = t->kid_ptr[cur]; e < t->kid_ptr[cur + 1]; e++) build_from(t, t->kids[e], me, 1.0, cur, seg_length, buf + np);
}

void olive_swc_read(const char *path, double seg_length, olive_morphology *m)
{
    memset(m, 0, sizeof *m);
    if (!(seg_length > 0) && seg_length != 0) olive_die("%s: segment length %g: positive, or 0 for the d_lambda rule", path, seg_length);
    FILE *f = fopen(path, "r");
    if (!f) olive_die("%s: cannot open: %s", path, strerror(errno));
    swc_tree t = {0};
    t.path = path;
    t.m = m;
    int cap = 0, *ids = NULL, *pids = NULL;
    char line[1024];
    long lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *h = strchr(line, '#');
        if (h) *h = 0;
        char *p = line;
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
        if (!*p) continue;
        int id, type, parent;
        double x, y, z, r;
        char extra;
        if (sscanf(p, "%d %d %lf %lf %lf %lf %d %c", &id, &type, &x, &y, &z, &r, &parent, &extra) != 7) {
            fclose(f);
            olive_die("%s:%ld: expected 'id type x y z radius parent'", path, lineno);
        }
        if (id <= 0 || !(r > 0) || !isfinite(x) || !isfinite(y) || !isfinite(z) || !isfinite(r) || type < 0) {
            fclose(f);
            olive_die("%s:%ld: point %d: need a positive id and radius, finite coordinates, a type >= 0", path, lineno, id);
        }
        if (t.n == cap) {
            cap = 2 * cap + 64;
            ids = olive_realloc(ids, (size_t)cap * sizeof(int), "swc");
            pids = olive_realloc(pids, (size_t)cap * sizeof(int), "swc");
            t.type = olive_realloc(t.type, (size_t)cap * sizeof(int), "swc");
            double **arr[] = {&t.x, &t.y, &t.z, &t.r};
            for (int k = 0; k < 4; k++) *arr[k] = olive_realloc(*arr[k], (size_t)cap * sizeof(double), "swc");
        }
        ids[t.n] = id; pids[t.n] = parent; t.type[t.n] = type;
        t.x[t.n] = x; t.y[t.n] = y; t.z[t.n] = z; t.r[t.n] = r;
        t.n++;
    }
    const int bad = ferror(f);
    fclose(f);
    if (bad) olive_die("%s: read error", path);
    if (t.n == 0) olive_die("%s: no points", path);
    /* parents as indices: an id given before (ids are looked up by a sorted copy) */
    int *order = olive_malloc((size_t)t.n * sizeof(int), "swc");
    for (int i = 0; i < t.n; i++) order[i] = i;
    for (int i = 1; i < t.n; i++) {   /* insertion sort by id: files are nearly sorted */
        const int v = order[i];
        int j = i;
        while (j > 0 && ids[order[j - 1]] > ids[v]) { order[j] = order[j - 1]; j--; }
        order[j] = v;
    }
    for (int i = 1; i < t.n; i++)
        if (ids[order[i]] == ids[order[i - 1]]) olive_die("%s: point id %d is given twice", path, ids[order[i]]);
    t.parent = olive_malloc((size_t)t.n * sizeof(int), "swc");
    int roots = 0;
    for (int i = 0; i < t.n; i++) {
        if (pids[i] == -1) { t.parent[i] = -1; roots++; continue; }
        int lo = 0, hi = t.n - 1, at = -1;
        while (lo <= hi) {
            const int mid = (lo + hi) / 2;
            if (ids[order[mid]] == pids[i]) { at = order[mid]; break; }
            if (ids[order[mid]] < pids[i]) lo = mid + 1; else hi = mid - 1;
        }
        if (at < 0 || at >= i) olive_die("%s: point %d: parent %d is not a point given before it", path, ids[i], pids[i]);
        t.parent[i] = at;
    }
    if (roots != 1) olive_die("%s: %d roots (points with parent -1); one is needed", path, roots);
    if (t.parent[0] != -1 || t.type[0] != 1) olive_die("%s: the first point must be the root, a soma point (type 1)", path);
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
    int *buf = olive_malloc((size_t)(2 * t.n + 4) * sizeof(int), "swc");
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
    } else {
        add_section(&t, "soma", 1, chain, nchain, -1, 0, seg_length);
    }
    const double Ls = m->sec[0].L;
    for (int k = 0; k < nchain; k++) {
        const double px = nchain == 1 ? 0.5 : m->sec[0].arc[k] / Ls;
        for (int e = t.kid_ptr[chain[k]]; e < t.kid_ptr[chain[k] + 1]; e++)
            if (t.type[t.kids[e]] != 1) build_from(&t, t.kids[e], 0, px, -1, seg_length, buf);
    }
    free(buf); free(chain); free(order); free(ids); free(pids);
    free(t.type); free(t.parent); free(t.kid_ptr); free(t.kids);
    free(t.x); free(t.y); free(t.z); free(t.r);
}

void olive_morphology_free(olive_morphology *m)
{
    free(m->sec);
    free(m->points);
    memset(m, 0, sizeof *m);
}
