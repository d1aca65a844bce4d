/* Building and stepping one multi-compartment cell on the CPU (cable_cell.h;
 * the physics in cable.h). */
#include "cable_cell.h"
#include "cable.h"
#include "util.h"
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

olive_section olive_section_default(const char *name)
{
    olive_section s;
    memset(&s, 0, sizeof s);
    snprintf(s.name, sizeof s.name, "%s", name);
    s.L = 100;
    s.diam = 500;   /* NEURON's defaults */
    s.Ra = 35.4;
    s.cm = 1;
    s.nseg = 1;
    s.parent = -1;
    s.parent_x = 1;
    s.g_pas = .001;
    s.e_pas = -70;
    s.gnabar = .12;
    s.gkbar = .036;
    s.gl = .0003;
    s.el = -54.3;
    s.ena = 50;
    s.ek = -77;
    return s;
}

/* Node numbering: node 0 the root; section s's segment nodes, then its 1-end
 * node, after those of every section before it. O(s): for the few lookups
 * of olive_cable_node; olive_cable_build numbers every section in one pass. */
static int first_node(const olive_section *sec, int s)
{
    int at = 1;
    for (int j = 0; j < s; j++) at += sec[j].nseg + 1;
    return at;
}

/* The node at x in (0, 1] of a section whose first node is f. */
static int node_within(const olive_section *x, int f, double at)
{
    if (at >= 1) return f + x->nseg;
    int k = (int)(at * x->nseg);
    if (k >= x->nseg) k = x->nseg - 1;
    return f + k;
}

int olive_cable_node(const olive_cable_cell *c, const olive_section *sec, int s, double x)
{
    (void)c;
    while (x <= 0) {   /* the 0 end: the parent's node where it attaches (a loop: chains can be long) */
        if (sec[s].parent < 0) return 0;
        x = sec[s].parent_x;
        s = sec[s].parent;
    }
    return node_within(&sec[s], first_node(sec, s), x);
}

/* One half segment [a, b] of a section with 3-d points: walks the
 * points from *j (the piece holding a), integrating the linear diameter
 * between breakpoints: the sum of (y1 + y2) dx (for the mean diameter), of
 * dx / (y1 y2) (resistance) and of (y1 + y2) * slant length (lateral area).
 * (*x1, *y1) is the start, carried from the previous half. */
static void integrate_half(const olive_section *x, int *j, double *x1, double *y1, double b, double *dsum, double *rsum,
                           double *asum)
{
    *rsum = 0;
    for (;;) {
        const int jp = *j + 1;
        const double xj = x->arc[*j], xjp = x->arc[jp];
        double x2, y2;
        int next;
        if (xjp > b || jp == x->npt - 1) {   /* b lies in this piece (or past the last point) */
            const double frac = fabs(xjp - xj) < 1e-10 ? 1 : (b - xj) / (xjp - xj);
            x2 = b;
            y2 = (1. - frac) * x->pd[*j] + frac * x->pd[jp];
            next = *j;
        } else {
            x2 = xjp;
            y2 = x->pd[jp];
            next = jp;
        }
        double dx = x2 - *x1;
        *dsum += (y2 + *y1) * dx;
        if (dx < 1e-15) dx = 1e-15;
        double q = y2 * *y1 / dx;
        if (q == 0) q = 1e-15;
        *rsum += 1 / q;
        const double taper = .5 * (y2 - *y1);
        *asum += (y2 + *y1) * sqrt(dx * dx + taper * taper);
        *x1 = x2;
        *y1 = y2;
        if (next == *j) break;
        *j = next;
    }
}

/* Areas and inverse resistances of a section's segment nodes from its 3-d
 * points; returns the right half resistance of the last segment. */
static double geometry_3d(const olive_section *x, int f, double *area, double *rinv)
{
    const double ds = x->arc[x->npt - 1] / x->nseg;
    int j = 0;
    double x1 = x->arc[0], y1 = x->pd[0], rright = 0;
    for (int k = 0; k < x->nseg; k++) {
        double si = k * ds, dsum = 0, asum = 0, rl = 0, rr = 0;
        for (int half = 0; half < 2; half++) {
            const double sip = si + ds / 2.;
            double rsum;
            integrate_half(x, &j, &x1, &y1, sip, &dsum, &rsum, &asum);
            if (half == 0) rl = rsum * x->Ra / PI * (4. * .01);   /* megohm */
            else rr = rsum * x->Ra / PI * (4. * .01);
            si = sip;
        }
        rinv[f + k] = 1. / (rright + rl);
        area[f + k] = asum * .5 * PI;
        rright = rr;
    }
    return rright;
}

void olive_cable_build(olive_cable_cell *c, const olive_section *sec, int nsec, double celsius)
{
    memset(c, 0, sizeof *c);
    c->celsius = celsius;
    int64_t total = 1;
    for (int s = 0; s < nsec; s++) {
        const olive_section *x = &sec[s];
        if (x->npt == 1 || x->npt < 0) olive_die("section %s: %d 3-d points; a section needs 0 or at least 2", x->name, x->npt);
        for (int k = 0; k < x->npt; k++)
            if (!(x->pd[k] > 0) || (k && !(x->arc[k] >= x->arc[k - 1])) || !(x->arc[k] - x->arc[k] == 0))
                olive_die("section %s: 3-d point %d: diameter %g, arc %g: need a positive diameter and arcs that do not "
                          "decrease", x->name, k, x->pd[k], x->arc[k]);
        if (x->npt >= 2 && !(x->arc[x->npt - 1] > 0)) olive_die("section %s: its 3-d points have no length", x->name);
        if (!((x->L > 0 || x->npt >= 2) && (x->diam > 0 || x->npt >= 2) && x->Ra > 0 && x->cm >= 0 && x->nseg >= 1 &&
              x->nseg <= 32767))
            olive_die("section %s: L %g, diam %g, Ra %g, cm %g, nseg %d: need positive L, diam, Ra, cm >= 0, "
                      "1 <= nseg <= 32767", x->name, x->L, x->diam, x->Ra, x->cm, x->nseg);
        if (x->parent >= s || (s > 0 && x->parent < 0) || (s == 0 && x->parent >= 0))
            olive_die("section %s: its parent must come before it (one root: the first section)", x->name);
        if (!(x->parent_x >= 0 && x->parent_x <= 1)) olive_die("section %s: parent x %g is not in [0, 1]", x->name, x->parent_x);
        total += x->nseg + 1;
        if (total > INT_MAX) olive_die("section %s: the cell has more than %d nodes", x->name, INT_MAX);
    }
    const int n = (int)total;
    c->n = n;
    c->parent = olive_malloc((size_t)n * sizeof(int), "cell");
    c->section = olive_malloc((size_t)n * sizeof(int), "cell");
    c->xpos = olive_malloc((size_t)n * sizeof(double), "cell");
    c->mechs = olive_calloc((size_t)n, sizeof(int), "cell");
    double **arrays[] = {&c->area, &c->cm, &c->a, &c->b, &c->g_pas, &c->e_pas, &c->gnabar, &c->gkbar, &c->gl, &c->el,
                         &c->ena, &c->ek, &c->vt, &c->v, &c->m, &c->h, &c->hn, &c->d, &c->rhs};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) *arrays[k] = olive_calloc((size_t)n, sizeof(double), "cell");
    double *rinv = olive_calloc((size_t)n, sizeof(double), "cell");
    /* each section's first node and the node of its 0 end, in one pass (parents come first) */
    int *first = olive_malloc((size_t)nsec * sizeof(int) + 1, "cell"), *zero = olive_malloc((size_t)nsec * sizeof(int) + 1, "cell");
    for (int s = 0, at = 1; s < nsec; at += sec[s].nseg + 1, s++) {
        first[s] = at;
        const olive_section *x = &sec[s];
        zero[s] = x->parent < 0 ? 0 : x->parent_x <= 0 ? zero[x->parent] : node_within(&sec[x->parent], first[x->parent], x->parent_x);
    }
    /* the root node: zero area (100 in NEURON's dimensionless units) */
    c->parent[0] = -1;
    c->section[0] = -1;
    c->xpos[0] = -1;
    c->area[0] = 1e2;
    for (int s = 0; s < nsec; s++) {
        const olive_section *x = &sec[s];
        const int f = first[s], pn = zero[s];
        const double dx = x->L / x->nseg;
        double rright = 0;
        if (x->npt >= 2) rright = geometry_3d(x, f, c->area, rinv);
        for (int j = 0; j < x->nseg; j++) {
            const int i = f + j;
            c->parent[i] = j ? i - 1 : pn;
            c->section[i] = s;
            c->xpos[i] = (j + .5) / x->nseg;
            c->cm[i] = x->cm;
            if (x->npt < 2) {   /* a cylinder */
                c->area[i] = PI * x->diam * dx;
                const double rleft = 1e-2 * x->Ra * (dx / 2) / (PI * x->diam * x->diam / 4.);   /* megohm */
                rinv[i] = 1. / (rleft + rright);
                rright = rleft;
            }
            c->mechs[i] = x->mechs;
            c->g_pas[i] = x->g_pas; c->e_pas[i] = x->e_pas;
            c->gnabar[i] = x->gnabar; c->gkbar[i] = x->gkbar; c->gl[i] = x->gl; c->el[i] = x->el;
            c->ena[i] = x->ena; c->ek[i] = x->ek; c->vt[i] = x->vt;
        }
        const int e = f + x->nseg;   /* the 1 end: zero area */
        c->parent[e] = e - 1;
        c->section[e] = s;
        c->xpos[e] = -1;
        c->area[e] = 1e2;
        rinv[e] = 1. / rright;
    }
    for (int i = 1; i < n; i++) {
        c->b[i] = -1.e2 * rinv[i] / c->area[i];
        c->a[i] = -1.e2 * rinv[i] / c->area[c->parent[i]];
    }
    free(rinv); free(first); free(zero);
    olive_cable_use_hh_table(c, 1);
}

void olive_cable_use_hh_table(olive_cable_cell *c, int on)
{
    free(c->hh_table);
    c->hh_table = NULL;
    int hh = 0;
    for (int i = 0; i < c->n && !hh; i++) hh = (c->mechs[i] & OLIVE_MECH_HH) != 0;
    if (!on || !hh) return;
    c->hh_table = olive_malloc(sizeof *c->hh_table, "hh table");
    olive_hh_table_fill(c->hh_table, pow(3., (c->celsius - 6.3) / 10.));
}

int olive_section_nseg(const olive_section *s, double seg_length, double d_lambda, double freq)
{
    double per = seg_length;
    if (!(seg_length > 0) && s->npt < 2) {   /* stdlib.hoc's lambda_f of a cylinder */
        per = d_lambda * (1e5 * sqrt(s->diam / (4 * PI * freq * s->Ra * s->cm)));
    } else if (!(seg_length > 0)) {   /* lambda_f: the sum over the 3-d pieces of dx / sqrt(d1 + d2) */
        double lam = 0;
        for (int i = 1; i < s->npt; i++) lam += (s->arc[i] - s->arc[i - 1]) / sqrt(s->pd[i - 1] + s->pd[i]);
        lam *= sqrt(2) * 1e-5 * sqrt(4 * PI * freq * s->Ra * s->cm);
        per = d_lambda * (s->L / lam);
    }
    const double half = floor((s->L / per + 0.9) / 2);
    if (!(half >= 0 && half <= 16383)) return -1;
    return 2 * (int)half + 1;
}

void olive_cable_init(olive_cable_cell *c, double v0)
{
    const double q10 = pow(3., (c->celsius - 6.3) / 10.);
    for (int i = 0; i < c->n; i++) {
        c->v[i] = v0;
        olive_cable_gates_init(c->mechs[i], v0, q10, c->vt[i], c->hh_table, &c->m[i], &c->h[i], &c->hn[i]);
    }
}

void olive_cable_gates_init(int mechs, double v, double q10, double vt, const olive_hh_table *tb, double *m, double *h,
                            double *n)
{
    if (!(mechs & (OLIVE_MECH_HH | OLIVE_MECH_TRAUB))) return;
    const olive_hh_rates r = olive_gate_rates_at(mechs, v, q10, vt, tb);
    *m = r.minf;
    *h = r.hinf;
    *n = r.ninf;
}

olive_cable_shape olive_cable_shape_of(const olive_cable_cell *c)
{
    olive_cable_shape s = {c->n, c->parent, c->mechs, c->area, c->cm, c->a, c->b, c->g_pas, c->e_pas, c->gnabar, c->gkbar,
                           c->gl, c->el, c->ena, c->ek, c->nclamps, c->nsyn, c->clamps, c->syn,
                           pow(3., (c->celsius - 6.3) / 10.), c->vt, c->hh_table, NULL};
    return s;
}

olive_cable_state olive_cable_state_of(olive_cable_cell *c)
{
    olive_cable_state x = {c->v, c->m, c->h, c->hn, c->d, c->rhs, c->syn_g, NULL, c->syn_a, NULL, NULL};
    return x;
}

void olive_cable_step(olive_cable_cell *c, double t, double dt)
{
    const olive_cable_shape s = olive_cable_shape_of(c);
    const olive_cable_state x = olive_cable_state_of(c);
    olive_cable_cell_step(&s, &x, 0, 1, t, dt);
}

int olive_cable_add_clamp(olive_cable_cell *c, olive_iclamp q)
{
    if (q.node < 0 || q.node >= c->n) olive_die("a clamp on node %d of a cell of %d nodes", q.node, c->n);
    c->clamps = olive_realloc(c->clamps, (size_t)(c->nclamps + 1) * sizeof *c->clamps, "clamps");
    c->clamps[c->nclamps] = q;
    return c->nclamps++;
}

int olive_cable_add_syn(olive_cable_cell *c, olive_expsyn y)
{
    if (y.node < 0 || y.node >= c->n || !(y.tau > 0) || !(y.tau1 >= 0))
        olive_die("a synapse on node %d (tau %g, tau1 %g) of a cell of %d nodes", y.node, y.tau, y.tau1, c->n);
    if (y.tau1 > 0) {   /* exp2syn.mod's INITIAL */
        if (y.tau1 / y.tau > .9999) y.tau1 = .9999 * y.tau;
        if (y.tau1 / y.tau < 1e-9) y.tau1 = y.tau * 1e-9;
        const double tp = (y.tau1 * y.tau) / (y.tau - y.tau1) * log(y.tau / y.tau1);
        y.factor = 1 / (-exp(-tp / y.tau1) + exp(-tp / y.tau));
    }
    c->syn = olive_realloc(c->syn, (size_t)(c->nsyn + 1) * sizeof *c->syn, "synapses");
    c->syn_g = olive_realloc(c->syn_g, (size_t)(c->nsyn + 1) * sizeof *c->syn_g, "synapses");
    c->syn_a = olive_realloc(c->syn_a, (size_t)(c->nsyn + 1) * sizeof *c->syn_a, "synapses");
    c->syn[c->nsyn] = y;
    c->syn_g[c->nsyn] = 0;
    c->syn_a[c->nsyn] = 0;
    return c->nsyn++;
}

void olive_cable_free(olive_cable_cell *c)
{
    void *p[] = {c->parent, c->section, c->xpos, c->mechs, c->area, c->cm, c->a, c->b, c->g_pas, c->e_pas, c->gnabar, c->gkbar,
                 c->gl, c->el, c->ena, c->ek, c->vt, c->v, c->m, c->h, c->hn, c->d, c->rhs, c->clamps, c->syn, c->syn_g, c->syn_a, c->hh_table};
    for (size_t k = 0; k < sizeof p / sizeof p[0]; k++) free(p[k]);
    memset(c, 0, sizeof *c);
}
