/* Plastic synapses (docs/MODELS.md, "Plastic synapses"): what a presynaptic
 * spike does to one synapse, written once for every engine (host and
 * device: OLIVE_HD), in NEST 3's arithmetic, operation for operation, so
 * that olive's weights follow NEST's to the rounding of exp:
 *   stdp:     NEST's stdp_synapse (pair-based, all-to-all, traces Kplus on
 *             the synapse and Kminus on the target, weight dependence
 *             mu_plus / mu_minus: 0 additive, 1 multiplicative, else power
 *             law), with NEST's convention that the whole delay is
 *             dendritic; the facilitation by the target's spikes since the
 *             last presynaptic spike is made at the next one, as NEST does;
 *   tsodyks:  NEST's tsodyks_synapse (Tsodyks, Uziel & Markram 2000:
 *             resources x, y, z = 1 - x - y, utilisation u);
 *   tsodyks2: NEST's tsodyks2_synapse (Maass & Markram 2002: x, u);
 *   stdp_nn_symm: NEST's stdp_nn_symm_synapse, stdp with symmetric
 *             nearest-spike pairing: a target's spike pairs with the last
 *             presynaptic one only, a presynaptic spike with the target's
 *             last (no traces that sum: stdp's code with the traces 1).
 * Times are NEST's: a spike of step s is stamped (s + 1) dt, and a synapse
 * that has seen no spike has its last one at step -1 (t = 0, NEST's
 * t_lastspike_ = 0; tsodyks2 reads it as "none yet", NEST's -1). The
 * exponentials are olive's (fastexp.h: the same bits on CPU and GPU,
 * within 1 ulp of glibc's, which NEST calls). */
#ifndef OLIVE_PLASTICITY_H
#define OLIVE_PLASTICITY_H
#include <stdint.h>
#include "hostdev.h"
#include "fastexp.h"
#include "fastlog.h"

enum olive_plast_rule { OLIVE_PLAST_NONE, OLIVE_PLAST_STDP, OLIVE_PLAST_TSODYKS, OLIVE_PLAST_TSODYKS2, OLIVE_PLAST_STDP_NN_SYMM,
                        OLIVE_PLAST_NRULES };
#define OLIVE_PLAST_MAXPAR 8

/* Parameter indices of each rule (plasticity.c's tables give names, units,
 * NEST's defaults and limits, in this order). */
enum { OLIVE_STDP_TAU_PLUS, OLIVE_STDP_LAMBDA, OLIVE_STDP_ALPHA, OLIVE_STDP_MU_PLUS, OLIVE_STDP_MU_MINUS, OLIVE_STDP_WMAX,
       OLIVE_STDP_TAU_MINUS };
enum { OLIVE_TSO_U, OLIVE_TSO_TAU_PSC, OLIVE_TSO_TAU_REC, OLIVE_TSO_TAU_FAC, OLIVE_TSO_X, OLIVE_TSO_Y, OLIVE_TSO_U0 };
enum { OLIVE_TSO2_U, OLIVE_TSO2_U0, OLIVE_TSO2_X, OLIVE_TSO2_TAU_REC, OLIVE_TSO2_TAU_FAC };

/* A projection's rule and parameters (rule OLIVE_PLAST_NONE: static). */
typedef struct {
    int rule;
    double par[OLIVE_PLAST_MAXPAR];
} olive_plasticity;

/* One synapse's state besides its weight: stdp s[0] = Kplus; tsodyks s = x,
 * y, u; tsodyks2 s[0] = x, s[2] = u. last: the step of its last
 * presynaptic spike (-1: none). */
typedef struct {
    double s[3];
    int64_t last;
} olive_plast_state;

/* The rules of the stdp family (stdp's parameters, the target's spikes). */
OLIVE_HD int olive_plast_is_stdp(int rule) { return rule == OLIVE_PLAST_STDP || rule == OLIVE_PLAST_STDP_NN_SYMM; }

/* The time stamp (ms) of a spike of step s (NEST's: the end of the step). */
OLIVE_HD double olive_plast_time(int64_t step, double dt) { return (double)(step + 1) * dt; }

/* x^y for x >= 0, with glibc's bits where NEST's weight dependences use
 * them (y = 0: 1, y = 1: x, exactly; pow does the same), else exp(y log x). */
OLIVE_HD double olive_plast_pow(double x, double y)
{
    if (y == 0.0) return 1.0;
    if (y == 1.0) return x;
    if (x == 0.0) return y > 0 ? 0.0 : 1.0 / 0.0;
    return olive_exp_d(y * olive_log_d(x));
}

/* expm1(x) (NEST's tsodyks_synapse uses it for the recovery): the Taylor
 * series in Horner form for |x| < 0.5 (20 terms: the next is below 1e-24
 * of x), exp(x) - 1 beyond (the subtraction loses at most a bit there). */
OLIVE_HD double olive_plast_expm1(double x)
{
    if (!(x > -0.5 && x < 0.5)) return olive_exp_d(x) - 1.0;
    double p = 1.0;
    for (int k = 20; k >= 2; k--) p = 1.0 + p * x / (double)k;
    return x * p;
}

/* stdp_synapse's facilitate_ and depress_, as NEST writes them. */
OLIVE_HD double olive_stdp_facilitate(const double *par, double w, double kplus)
{
    const double wmax = par[OLIVE_STDP_WMAX];
    const double norm_w = (w / wmax) + (par[OLIVE_STDP_LAMBDA] * olive_plast_pow(1.0 - (w / wmax), par[OLIVE_STDP_MU_PLUS]) * kplus);
    return norm_w < 1.0 ? norm_w * wmax : wmax;
}

OLIVE_HD double olive_stdp_depress(const double *par, double w, double kminus)
{
    const double wmax = par[OLIVE_STDP_WMAX];
    const double norm_w =
        (w / wmax) - (par[OLIVE_STDP_ALPHA] * par[OLIVE_STDP_LAMBDA] * olive_plast_pow(w / wmax, par[OLIVE_STDP_MU_MINUS]) * kminus);
    return norm_w > 0.0 ? norm_w * wmax : 0.0;
}

/* The target's spike history, as NEST's ArchivingNode keeps it: the steps
 * of its spikes, ascending, and Kminus just after each. The CPU engine
 * keeps every entry in order (cap 0); the GPU the newest cap of them in a
 * ring, entry i at (first + i) % cap, and the step of the newest it dropped
 * (OLIVE_POST_NONE: none). A synapse whose update would need a dropped
 * entry sets *overflow (the GPU run stops, named) instead of differing from
 * the CPU's. */
#define OLIVE_POST_NONE INT64_MIN
typedef struct {
    const int64_t *step;
    const double *kminus;
    int64_t n, first, cap;
    int64_t dropped;
    int *overflow;
} olive_post_history;

OLIVE_HD int64_t olive_post_index(olive_post_history h, int64_t i) { return h.cap ? (h.first + i) % h.cap : i; }

/* The first entry of h whose step is > x (h.n when none). */
OLIVE_HD int64_t olive_post_after(olive_post_history h, int64_t x)
{
    int64_t lo = 0, hi = h.n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (h.step[olive_post_index(h, mid)] > x) hi = mid; else lo = mid + 1;
    }
    return lo;
}

/* Kminus of the target after its spike of step p, given the one before
 * (kminus, at time last_t ms; NEST starts from Kminus 0 at -1 ms). */
OLIVE_HD double olive_stdp_kminus_after(double kminus, double last_t, int64_t p, double dt, double tau_minus)
{
    const double tau_minus_inv = 1. / tau_minus;
    return kminus * olive_exp_d((last_t - olive_plast_time(p, dt)) * tau_minus_inv) + 1.0;
}

/* stdp_synapse::send for a presynaptic spike of step s through a synapse of
 * weight *w, delay d steps, state st, into a target with history h: the
 * facilitation by the target's spikes of steps (last - d, s - d], the
 * depression by its trace just before step s - d, then the traces moved
 * on. Returns the weight the spike delivers (the new *w). nn:
 * stdp_nn_symm_synapse::send, the same with the traces 1 (Kplus not kept,
 * the nearest spike's exp(-dt / tau_minus) for Kminus): 1.0 * x is x. */
OLIVE_HD double olive_stdp_pre(const double *par, double dt, int64_t s, int d, olive_post_history h, double *w,
                               olive_plast_state *st, int nn)
{
    const double t_spike = olive_plast_time(s, dt), t_last = olive_plast_time(st->last, dt);
    const double dendritic_delay = (double)d * dt;
    const double tau_plus = par[OLIVE_STDP_TAU_PLUS];
    double weight = *w;
    if (h.dropped != OLIVE_POST_NONE && h.dropped > st->last - d) *h.overflow = 1;   /* (a spike of the range dropped) */
    int64_t i = olive_post_after(h, st->last - d);
    for (; i < h.n && h.step[olive_post_index(h, i)] <= s - d; i++) {
        const double minus_dt = t_last - (olive_plast_time(h.step[olive_post_index(h, i)], dt) + dendritic_delay);
        weight = olive_stdp_facilitate(par, weight, (nn ? 1.0 : st->s[0]) * olive_exp_d(minus_dt / tau_plus));
    }
    /* NEST's get_K_value(t_spike - d): the latest spike strictly before it */
    const int64_t k = olive_post_after(h, s - d - 1) - 1;
    double kv = 0.;
    if (k >= 0) {
        const double t = t_spike - dendritic_delay;
        const int64_t j = olive_post_index(h, k);
        kv = (nn ? 1.0 : h.kminus[j]) * olive_exp_d((olive_plast_time(h.step[j], dt) - t) * (1. / par[OLIVE_STDP_TAU_MINUS]));
    } else if (h.dropped != OLIVE_POST_NONE && h.dropped < s - d) {
        *h.overflow = 1;   /* (that spike was dropped) */
    }
    weight = olive_stdp_depress(par, weight, kv);
    if (!nn) st->s[0] = st->s[0] * olive_exp_d((t_last - t_spike) / tau_plus) + 1.0;
    st->last = s;
    *w = weight;
    return weight;
}

/* tsodyks_synapse::send: the state moved from the last spike to step s's,
 * the jump u x; returns the weight delivered (u x times the weight w). */
OLIVE_HD double olive_tsodyks_pre(const double *par, double dt, int64_t s, double w, olive_plast_state *st)
{
    const double h = olive_plast_time(s, dt) - olive_plast_time(st->last, dt);
    const double tau_fac = par[OLIVE_TSO_TAU_FAC], tau_psc = par[OLIVE_TSO_TAU_PSC], tau_rec = par[OLIVE_TSO_TAU_REC];
    const double Puu = (tau_fac == 0.0) ? 0.0 : olive_exp_d(-h / tau_fac);
    const double Pyy = olive_exp_d(-h / tau_psc);
    const double Pzz = olive_plast_expm1(-h / tau_rec);
    const double Pxy = (Pzz * tau_rec - (Pyy - 1.0) * tau_psc) / (tau_psc - tau_rec);
    double x = st->s[0], y = st->s[1], u = st->s[2];
    const double z = 1.0 - x - y;
    u *= Puu;
    x += Pxy * y - Pzz * z;
    y *= Pyy;
    u += par[OLIVE_TSO_U] * (1.0 - u);
    const double delta_y_tsp = u * x;
    x -= delta_y_tsp;
    y += delta_y_tsp;
    st->s[0] = x;
    st->s[1] = y;
    st->s[2] = u;
    st->last = s;
    return delta_y_tsp * w;
}

/* tsodyks2_synapse::send: x and u moved on (not at the first spike); returns
 * x u w. */
OLIVE_HD double olive_tsodyks2_pre(const double *par, double dt, int64_t s, double w, olive_plast_state *st)
{
    if (st->last >= 0) {
        const double h = olive_plast_time(s, dt) - olive_plast_time(st->last, dt);
        const double tau_fac = par[OLIVE_TSO2_TAU_FAC], U = par[OLIVE_TSO2_U];
        const double x_decay = olive_exp_d(-h / par[OLIVE_TSO2_TAU_REC]);
        const double u_decay = (tau_fac == 0) ? 0.0 : olive_exp_d(-h / tau_fac);
        const double x = st->s[0], u = st->s[2];
        st->s[0] = 1. + (x - x * u - 1.) * x_decay;
        st->s[2] = U + u * (1. - U) * u_decay;
    }
    st->last = s;
    return st->s[0] * st->s[2] * w;
}

/* A presynaptic spike's update of one plastic synapse of rule p (the one
 * dispatch the CPU engine and the CUDA kernels share: a new rule is a case
 * here): w, the weight as stored, changed in place by the rules that change
 * it (stdp); st its state; h its target's spike history (stdp only). Returns
 * the weight the event delivers. */
OLIVE_HD double olive_plast_pre(const olive_plasticity *p, double dt, int64_t s, int d, olive_post_history h, double *w,
                                olive_plast_state *st)
{
    switch (p->rule) {
    case OLIVE_PLAST_STDP:
    case OLIVE_PLAST_STDP_NN_SYMM:
        return olive_stdp_pre(p->par, dt, s, d, h, w, st, p->rule == OLIVE_PLAST_STDP_NN_SYMM);
    case OLIVE_PLAST_TSODYKS:
        return olive_tsodyks_pre(p->par, dt, s, *w, st);
    default:
        return olive_tsodyks2_pre(p->par, dt, s, *w, st);
    }
}

#endif
