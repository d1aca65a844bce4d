/* Plastic synapses (docs/MODELS.md, "Plastic synapses"): what a presynaptic
 * spike does to one synapse, written once for every engine (host and
 * device: OLIVE_HD), in NEST 3's arithmetic, operation for operation, so
 * that olive's weights follow NEST's to the rounding of exp. The rules, a
 * file each, and their table: plasticity_rules.h (stdp, tsodyks, tsodyks2,
 * stdp_nn_symm). Here: what they share, and the one dispatch.
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

#define OLIVE_PLAST_MAXPAR 8

/* A projection's rule and parameters (rule OLIVE_PLAST_NONE: static). */
typedef struct {
    int rule;
    double par[OLIVE_PLAST_MAXPAR];
} olive_plasticity;

/* One synapse's state besides its weight: s[0..2] as its rule uses them
 * (plasticity_rules.h names them); last: the step of its last presynaptic
 * spike (-1: none). */
typedef struct {
    double s[3];
    int64_t last;
} olive_plast_state;

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

#include "plasticity_rules.h"

#define OLIVE_PLAST_ENUM_(E, P, name, nest, post, s0, s1, s2, smax) OLIVE_PLAST_##E,
enum olive_plast_rule { OLIVE_PLAST_NONE, OLIVE_PLAST_RULES(OLIVE_PLAST_ENUM_) OLIVE_PLAST_NRULES };
#undef OLIVE_PLAST_ENUM_

/* The rules whose update reads the target's spikes and changes the weight
 * (their target keeps a spike history and a trace of time constant
 * OLIVE_STDP_TAU_MINUS). */
OLIVE_HD int olive_plast_uses_post(int rule)
{
#define OLIVE_PLAST_POST_(E, P, name, nest, post, s0, s1, s2, smax) if (rule == OLIVE_PLAST_##E) return post;
    OLIVE_PLAST_RULES(OLIVE_PLAST_POST_)
#undef OLIVE_PLAST_POST_
    return 0;
}

/* A presynaptic spike's update of one plastic synapse of rule p (the one
 * dispatch the CPU engine and the CUDA kernels share, made from the rules'
 * table): w, the weight as stored, changed in place by the rules that change
 * it; st its state; h its target's spike history (rules that use it).
 * Returns the weight the event delivers. */
OLIVE_HD double olive_plast_pre(const olive_plasticity *p, double dt, int64_t s, int d, olive_post_history h, double *w,
                                olive_plast_state *st)
{
    switch (p->rule) {
#define OLIVE_PLAST_CASE_(E, P, name, nest, post, s0, s1, s2, smax) \
    case OLIVE_PLAST_##E: return olive_plast_##P##_pre(p->par, dt, s, d, h, w, st);
        OLIVE_PLAST_RULES(OLIVE_PLAST_CASE_)
#undef OLIVE_PLAST_CASE_
    default: return *w;
    }
}

#endif
