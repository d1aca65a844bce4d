/* Multi-compartment cells: the cable equation on a tree of nodes
 * with NEURON's discretisation and NEURON's fixed-step method, written once
 * for the CPU and CUDA (OLIVE_HD).
 *
 * Nodes are numbered so that every node's parent comes before it (roots
 * first, parent < i). Node i couples to its parent with the coefficients
 * a[i] (in the parent's row) and b[i] (in its own row), NEURON's NODEA and
 * NODEB: -1e2 / (ri * area) with ri in megohm and areas in um2, so rows are
 * in mA/cm2 (cable.c computes them as NEURON's treeset.c does). Zero-area
 * nodes (section ends, the root) carry no membrane: area 100, cm 0.
 *
 * One step (NEURON's fadvance with secondorder = 0):
 *   1. at t + dt/2, every membrane current i(v) and its slope
 *      (i(v + 0.001) - i(v)) / 0.001, as NEURON's generated nrn_cur, into
 *      rhs (-i) and d (+slope); electrode currents (clamps) with the other
 *      sign, scaled by 1e2 / area (nA -> mA/cm2); the axial currents;
 *   2. d += cm * 0.001 / dt; the tree solved for dv by Hines elimination
 *      (backward Euler: fully implicit in v); v += dv;
 *   3. at t + dt, the channel states advanced by exponential Euler with the
 *      new v (NEURON's cnexp: staggered).
 * The Hodgkin-Huxley channels are NEURON's hh.mod (vtrap, q10 from celsius,
 * ena 50, ek -77 by default), their rates interpolated in hh.mod's table
 * (NEURON's default usetable_hh = 1; olive_hh_table) or, without a table,
 * computed from their formulas (usetable_hh = 0). A layout stride lets the same
 * functions walk one cell's nodes (stride 1) or a node of many interleaved
 * cells (stride = number of cells). */
#ifndef OLIVE_CABLE_H
#define OLIVE_CABLE_H
#include "hostdev.h"
#include "fastexp.h"
#include "cable_mechs_step.h"
#include <math.h>

/* A current clamp (NEURON's IClamp) on a node: amp nA during [del, del + dur). */
typedef struct { int node; double del, dur, amp; } olive_iclamp;

/* An exponential synapse on a node, i = g (v - e) nA. tau1 = 0: NEURON's
 * ExpSyn, g' = -g / tau, an event of weight w (uS) adds w to g. tau1 > 0:
 * NEURON's Exp2Syn (tau1 rise, tau the decay), g = B - A, A' = -A / tau1,
 * B' = -B / tau, an event adds w * factor to A and to B (factor normalises
 * the peak to w; set by olive_cable_add_syn). nS set: g is in nS (NEST's
 * units: i = 1e-3 g (v - e) nA), else in uS (NEURON's). */
typedef struct { int node; double tau, e, tau1, factor; int nS; } olive_expsyn;

/* An event of weight w on synapse y whose state is *g (ExpSyn's g,
 * Exp2Syn's B) and *a (Exp2Syn's A): NEURON's NET_RECEIVE. */
OLIVE_HD void olive_expsyn_event(const olive_expsyn *y, double *g, double *a, double w)
{
    if (y->tau1 > 0) {
        *a += w * y->factor;
        *g += w * y->factor;
    } else {
        *g += w;
    }
}

/* Membrane mechanisms of a node. TRAUB: the Traub-Miles sodium and
 * potassium channels of NEST's hh_cond_exp_traub (Brette et al. 2007,
 * benchmark 3), with the node's gnabar, gkbar, ena, ek and vt (V_T, mV),
 * plus a leak gl, el, as hh.mod's; no temperature factor. */
enum { OLIVE_MECH_PAS = 1, OLIVE_MECH_HH = 2, OLIVE_MECH_TRAUB = 4 };

/* What cells of one morphology share: per node (parent before child). */
typedef struct {
    int n;
    const int *parent, *mechs;
    const double *area, *cm, *a, *b;
    const double *g_pas, *e_pas, *gnabar, *gkbar, *gl, *el, *ena, *ek;
    int nclamps, nsyn;
    const olive_iclamp *clamps;   /* amp: the default when a cell has none of its own */
    const olive_expsyn *syn;
    double q10;                   /* 3^((celsius - 6.3) / 10) */
    const double *vt;             /* per node: V_T of TRAUB nodes (may be null when there are none) */
    const struct olive_hh_table *hh_table;   /* HH nodes' rates from this table; null: from the formulas */
    const olive_mech_set *mset;   /* NMODL mechanisms after these (cable_mechs.h), or null */
} olive_cable_shape;

/* What each cell has: node i of cell c at [i * stride + c] (stride 1 and
 * c 0 for one cell; stride = cells: the interleaved layout); clamp and
 * synapse k at [k * stride + c]. clamp_amp may be null (the shape's amps).
 * syn_g: ExpSyn's g, Exp2Syn's B; syn_a: Exp2Syn's A. */
typedef struct {
    double *v, *m, *h, *n, *d, *rhs;
    double *syn_g, *clamp_amp, *syn_a;
    double *mx, *ion;   /* mset's: its mechanisms' variables (rows of cable_mechs.h), the nodes' ions */
} olive_cable_state;

/* hh.mod's rates at v (mV), q10 = 3^((celsius - 6.3) / 10). */
typedef struct { double minf, mtau, hinf, htau, ninf, ntau; } olive_hh_rates;

OLIVE_HD double olive_hh_vtrap(double x, double y)
{
    return fabs(x / y) < 1e-6 ? y * (1 - x / y / 2) : x / (olive_exp_d(x / y) - 1);
}

OLIVE_HD olive_hh_rates olive_hh_rates_at(double v, double q10)
{
    olive_hh_rates r;
    double alpha = .1 * olive_hh_vtrap(-(v + 40), 10), beta = 4 * olive_exp_d(-(v + 65) / 18), sum = alpha + beta;
    r.mtau = 1 / (q10 * sum);
    r.minf = alpha / sum;
    alpha = .07 * olive_exp_d(-(v + 65) / 20);
    beta = 1 / (olive_exp_d(-(v + 35) / 10) + 1);
    sum = alpha + beta;
    r.htau = 1 / (q10 * sum);
    r.hinf = alpha / sum;
    alpha = .01 * olive_hh_vtrap(-(v + 55), 10);
    beta = .125 * olive_exp_d(-(v + 65) / 80);
    sum = alpha + beta;
    r.ntau = 1 / (q10 * sum);
    r.ninf = alpha / sum;
    return r;
}

/* hh.mod's TABLE minf, mtau, hinf, htau, ninf, ntau DEPEND celsius FROM -100
 * TO 100 WITH 200, as NMODL translates it (_check_rates, _n_rates): the rates
 * at 201 voltages from tmin in steps of dx (the voltage summed step by step,
 * as NEURON's loop does), looked up by linear interpolation in the same
 * arithmetic order, the ends held outside [-100, 100]. Built on the host
 * for one celsius (q10) and shared by every node, copied as is to a GPU. */
#define OLIVE_HH_TABLE_N 200
typedef struct olive_hh_table {
    double tmin, mfac;
    olive_hh_rates row[OLIVE_HH_TABLE_N + 1];
} olive_hh_table;

static inline void olive_hh_table_fill(olive_hh_table *tb, double q10)
{
    const double tmax = 100.0;
    tb->tmin = -100.0;
    const double dx = (tmax - tb->tmin) / (double)OLIVE_HH_TABLE_N;
    tb->mfac = 1. / dx;
    double x = tb->tmin;
    for (int i = 0; i <= OLIVE_HH_TABLE_N; x += dx, i++) tb->row[i] = olive_hh_rates_at(x, q10);
}

OLIVE_HD olive_hh_rates olive_hh_rates_lookup(const olive_hh_table *tb, double v)
{
    const double xi = tb->mfac * (v - tb->tmin);
    olive_hh_rates r;
    if (isnan(xi)) {   /* NEURON passes a NaN on to every rate */
        r.minf = r.mtau = r.hinf = r.htau = r.ninf = r.ntau = xi;
        return r;
    }
    if (xi <= 0.) return tb->row[0];
    if (xi >= (double)OLIVE_HH_TABLE_N) return tb->row[OLIVE_HH_TABLE_N];
    const int i = (int)xi;
    const double theta = xi - (double)i;
    const olive_hh_rates *a = &tb->row[i], *b = &tb->row[i + 1];
#define OLIVE_HH_LERP(f) r.f = a->f + theta * (b->f - a->f)
    OLIVE_HH_LERP(minf); OLIVE_HH_LERP(mtau); OLIVE_HH_LERP(hinf);
    OLIVE_HH_LERP(htau); OLIVE_HH_LERP(ninf); OLIVE_HH_LERP(ntau);
#undef OLIVE_HH_LERP
    return r;
}

/* The Traub-Miles rates of hh_cond_exp_traub at v with V_T vt, as NEST
 * writes them (the removable singularities through vtrap). */
OLIVE_HD olive_hh_rates olive_traub_rates_at(double v, double vt)
{
    olive_hh_rates r;
    const double V = v - vt;
    double alpha = .32 * olive_hh_vtrap(13 - V, 4), beta = .28 * olive_hh_vtrap(V - 40, 5), sum = alpha + beta;
    r.mtau = 1 / sum;
    r.minf = alpha / sum;
    alpha = .128 * olive_exp_d((17 - V) / 18);
    beta = 4 / (1 + olive_exp_d((40 - V) / 5));
    sum = alpha + beta;
    r.htau = 1 / sum;
    r.hinf = alpha / sum;
    alpha = .032 * olive_hh_vtrap(15 - V, 5);
    beta = .5 * olive_exp_d((10 - V) / 40);
    sum = alpha + beta;
    r.ntau = 1 / sum;
    r.ninf = alpha / sum;
    return r;
}

/* The gating rates of a node's mechanisms (HH or TRAUB) at v; HH's from
 * the table tb when there is one. */
OLIVE_HD olive_hh_rates olive_gate_rates_at(int mechs, double v, double q10, double vt, const olive_hh_table *tb)
{
    if (mechs & OLIVE_MECH_TRAUB) return olive_traub_rates_at(v, vt);
    return tb ? olive_hh_rates_lookup(tb, v) : olive_hh_rates_at(v, q10);
}

/* hh.mod's BREAKPOINT current (mA/cm2) at v with the present states. */
OLIVE_HD double olive_hh_current(double v, double m, double h, double n, double gnabar, double gkbar, double gl,
                                 double el, double ena, double ek)
{
    const double gna = gnabar * m * m * m * h, gk = gkbar * n * n * n * n;
    return gna * (v - ena) + gk * (v - ek) + gl * (v - el);
}

/* cnexp for x' = (xinf - x) / xtau over dt. */
OLIVE_HD double olive_cnexp(double x, double xinf, double xtau, double dt)
{
    return x + (1. - olive_exp_d(dt * (-1.0 / xtau))) * (xinf - x);
}

/* Step 1's current term of one mechanism: rhs -= i(v), d += slope. */
#define OLIVE_NRN_CUR(CURRENT_AT, V, RHS, D)            \
    do {                                                \
        const double g_ = CURRENT_AT((V) + .001);       \
        const double i_ = CURRENT_AT(V);                \
        (RHS) -= i_;                                    \
        (D) += (g_ - i_) / .001;                        \
    } while (0)

/* The axial terms of step 1 and 2 for nodes [first, n) of w cells side by
 * side (v ... at cell 0 of them). */
OLIVE_HD void olive_cable_axial(int first, int n, long stride, long w, const int *parent, const double *a, const double *b,
                                const double *v, double *rhs, double *d)
{
    for (int i = first; i < n; i++) {
        const int p = parent[i];
        if (p < 0) continue;
        for (long q = 0; q < w; q++) {
            const double dv = v[p * stride + q] - v[i * stride + q];
            rhs[i * stride + q] -= b[i] * dv;
            rhs[p * stride + q] += a[i] * dv;
            d[i * stride + q] -= b[i];
            d[p * stride + q] -= a[i];
        }
    }
}

/* Hines elimination of the trees of w cells side by side (NEURON's triang
 * and bksub, each cell's operations in NEURON's order): the solution (dv)
 * replaces rhs; d is destroyed. The cells' chains of divisions interleave. */
OLIVE_HD void olive_hines_solve(int n, long stride, long w, const int *parent, const double *a, const double *b, double *d,
                                double *rhs)
{
    for (int i = n - 1; i >= 0; i--) {
        const int p = parent[i];
        if (p < 0) continue;
        for (long q = 0; q < w; q++) {
            const double f = a[i] / d[i * stride + q];
            d[p * stride + q] -= f * b[i];
            rhs[p * stride + q] -= f * rhs[i * stride + q];
        }
    }
    for (int i = 0; i < n; i++) {
        const int p = parent[i];
        for (long q = 0; q < w; q++) {
            if (p >= 0) rhs[i * stride + q] -= b[i] * rhs[p * stride + q];
            rhs[i * stride + q] /= d[i * stride + q];
        }
    }
}

/* One step of cells c0 .. c0 + w - 1 from t to t + dt (the schedule above):
 * each phase runs over the w cells side by side, each cell's arithmetic in
 * the order one cell alone would take (the CPU steps a few cells at once, so
 * that their independent chains fill the pipeline; a GPU thread, w = 1). */
OLIVE_HD void olive_cable_cells_step(const olive_cable_shape *s, const olive_cable_state *x, long c0, long w, long stride,
                                     double t, double dt)
{
    const int n = s->n;
    double *v = x->v + c0, *m = x->m + c0, *h = x->h + c0, *hn = x->n + c0, *d = x->d + c0, *rhs = x->rhs + c0;
    const double tm = t + .5 * dt;
    for (int i = 0; i < n; i++)
        for (long q = 0; q < w; q++) { rhs[i * stride + q] = 0; d[i * stride + q] = 0; }
    /* 1. membrane currents (NEURON's mechanism order: pas, IClamp, the synapses, hh) */
    for (int i = 0; i < n; i++) {
        if (!(s->mechs[i] & OLIVE_MECH_PAS)) continue;
        for (long q = 0; q < w; q++) {
#define OLIVE_PAS_AT(V) (s->g_pas[i] * ((V) - s->e_pas[i]))
            OLIVE_NRN_CUR(OLIVE_PAS_AT, v[i * stride + q], rhs[i * stride + q], d[i * stride + q]);
#undef OLIVE_PAS_AT
        }
    }
    for (int k = 0; k < s->nclamps; k++) {   /* electrode current, nA, other sign */
        const olive_iclamp *cl = &s->clamps[k];
        for (long q = 0; q < w; q++) {
            const double amp = x->clamp_amp ? x->clamp_amp[k * stride + c0 + q] : cl->amp;
            const double i = (tm < cl->del + cl->dur && tm >= cl->del) ? amp : 0;
            rhs[cl->node * stride + q] += i * (1.e2 / s->area[cl->node]);
        }
    }
    for (int k = 0; k < s->nsyn; k++) {   /* point process: nA -> mA/cm2 */
        const olive_expsyn *y = &s->syn[k];
        for (long q = 0; q < w; q++) {
            const long at = k * stride + c0 + q;
            double g = y->tau1 > 0 ? x->syn_g[at] - x->syn_a[at] : x->syn_g[at];
            if (y->nS) g *= 1e-3;
            const double u = v[y->node * stride + q], mfact = 1.e2 / s->area[y->node];
            const double i1 = g * (u + .001 - y->e), i0 = g * (u - y->e);
            rhs[y->node * stride + q] -= i0 * mfact;
            d[y->node * stride + q] += (i1 - i0) / .001 * mfact;
        }
    }
    for (int i = 0; i < n; i++) {
        if (!(s->mechs[i] & (OLIVE_MECH_HH | OLIVE_MECH_TRAUB))) continue;   /* the same currents, other rates */
        for (long q = 0; q < w; q++) {
            const long at = i * stride + q;
#define OLIVE_HH_AT(V) olive_hh_current((V), m[at], h[at], hn[at], s->gnabar[i], s->gkbar[i], s->gl[i], s->el[i], \
                                        s->ena[i], s->ek[i])
            OLIVE_NRN_CUR(OLIVE_HH_AT, v[at], rhs[at], d[at]);
#undef OLIVE_HH_AT
        }
    }
    if (s->mset)
        for (long q = 0; q < w; q++) olive_mechs_cur(s->mset, x->v, x->mx, x->ion, x->rhs, x->d, c0 + q, stride, t, dt);
    /* 2. capacitance, axial terms, the solve */
    const double cfac = .001 / dt;
    for (int i = 0; i < n; i++)
        for (long q = 0; q < w; q++) d[i * stride + q] += cfac * s->cm[i];
    olive_cable_axial(0, n, stride, w, s->parent, s->a, s->b, v, rhs, d);
    olive_hines_solve(n, stride, w, s->parent, s->a, s->b, d, rhs);
    for (int i = 0; i < n; i++)
        for (long q = 0; q < w; q++) v[i * stride + q] += rhs[i * stride + q];
    /* 3. synapse and channel states with the new v */
    for (int k = 0; k < s->nsyn; k++)
        for (long q = 0; q < w; q++) {
            const long at = k * stride + c0 + q;
            if (s->syn[k].tau1 > 0) x->syn_a[at] = olive_cnexp(x->syn_a[at], 0, s->syn[k].tau1, dt);
            x->syn_g[at] = olive_cnexp(x->syn_g[at], 0, s->syn[k].tau, dt);
        }
    for (int i = 0; i < n; i++) {
        if (!(s->mechs[i] & (OLIVE_MECH_HH | OLIVE_MECH_TRAUB))) continue;
        for (long q = 0; q < w; q++) {
            const long at = i * stride + q;
            const olive_hh_rates r = olive_gate_rates_at(s->mechs[i], v[at], s->q10, s->vt ? s->vt[i] : 0, s->hh_table);
            m[at] = olive_cnexp(m[at], r.minf, r.mtau, dt);
            h[at] = olive_cnexp(h[at], r.hinf, r.htau, dt);
            hn[at] = olive_cnexp(hn[at], r.ninf, r.ntau, dt);
        }
    }
    if (s->mset)
        for (long q = 0; q < w; q++) olive_mechs_state(s->mset, x->v, x->mx, x->ion, c0 + q, stride, t + dt, dt);
}

/* One step of cell c alone. */
OLIVE_HD void olive_cable_cell_step(const olive_cable_shape *s, const olive_cable_state *x, long c, long stride, double t,
                                    double dt)
{
    olive_cable_cells_step(s, x, c, 1, stride, t, dt);
}

#endif
