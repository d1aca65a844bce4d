/* One synapse of a projection's rule drawn from its keys, host and device:
 * what olive-genconn and every reader of a procedural projection draw
 * (conn_draw.c), and what the CUDA engine draws at each spike for a
 * projection kept on the fly (tools/simulate/spiking/spk_cuda_rules.cu).
 * Only +, -, *, / and olive's own log and cos (rng_normal.h), so the CPU and
 * the GPU draw the same bits. */
#ifndef OLIVE_CONN_SYNAPSE_H
#define OLIVE_CONN_SYNAPSE_H
#include <stdint.h>
#include "hostdev.h"
#include "rng.h"
#include "rng_normal.h"
#include "fastlog.h"

/* A weight or delay (ms): constant (a == b), uniform in [a, b), or, when
 * normal is set, normal(mean, sd) redrawn outside [lo, hi] (rng_normal.h);
 * a and b then hold the least and greatest value it can take. */
typedef struct {
    double a, b;
    int normal;
    double mean, sd, lo, hi;
} olive_value;

/* The largest |z| a standard normal of rng_normal.h can take: Box-Muller's
 * sqrt(-2 log u0) with the least u0 of olive_u01, 2^-54 (so a normal with an
 * infinite bound still has a greatest value: mean + sd * this). */
#define OLIVE_NORMAL_Z_MAX 8.6537

/* Value v of the synapse counted (key, b, draw) in stream: 1 and *x, or 0
 * when a normal fell outside its bounds in every attempt. */
OLIVE_HD int olive_value_draw(const olive_value *v, uint64_t seed, uint32_t key, uint32_t b, uint32_t draw,
                              uint32_t stream, double *x)
{
    if (!v->normal) {
        double u0, u1;
        olive_uniform2(seed, key, b, draw, stream, &u0, &u1);
        *x = v->a + (v->b - v->a) * u0;
        return 1;
    }
    return olive_normal_redraw(seed, key, b, draw, stream, v->mean, v->sd, v->lo, v->hi, x);
}

/* Delay ms in whole steps of dt, as olive_ms_to_steps rounds it (util.h),
 * or -1 outside [0, max]. */
OLIVE_HD int64_t olive_delay_steps(double ms, double dt, int64_t max)
{
    const double x = round(ms / dt);
    return x >= 0 && x <= (double)max ? (int64_t)x : -1;
}

/* Draw d of source s of an outdegree rule (the rule NEST names fixed_outdegree): its
 * target, uniform over [t0, t1) without s itself unless autapses. */
OLIVE_HD int64_t olive_outdegree_target(uint64_t seed, uint32_t key, int64_t s, uint32_t d, int64_t t0, int64_t t1,
                                        int autapses, uint32_t stream)
{
    double u0, u1;
    olive_uniform2(seed, key, (uint32_t)s, d, stream, &u0, &u1);
    const int self = !autapses && s >= t0 && s < t1;
    int64_t idx = (int64_t)(u0 * (double)(t1 - t0 - self));
    if (self && t0 + idx >= s) idx++;
    return t0 + idx;
}

/* Source number idx of the choices a target j has, as a cell: the source
 * range [s0, s0 + choices) with j left out (autapses=no). */
OLIVE_HD int64_t olive_skip_self(int64_t idx, int64_t j, int64_t s0, int64_t s1, int autapses)
{
    if (!autapses && j >= s0 && j < s1 && s0 + idx >= j) idx++;
    return s0 + idx;
}

/* The sources target j may draw from (all but itself without autapses). */
OLIVE_HD int64_t olive_source_choices(int64_t j, int64_t s0, int64_t s1, int autapses)
{
    return !autapses && j >= s0 && j < s1 ? s1 - s0 - 1 : s1 - s0;
}

/* Draw d of target j of an in-degree rule: its source. */
OLIVE_HD int64_t olive_indegree_source(uint64_t seed, uint32_t key, int64_t j, uint32_t d, int64_t s0, int64_t s1,
                                       int autapses, uint32_t stream)
{
    double u0, u1;
    olive_uniform2(seed, key, (uint32_t)j, d, stream, &u0, &u1);
    return olive_skip_self((int64_t)(u0 * (double)olive_source_choices(j, s0, s1, autapses)), j, s0, s1, autapses);
}

/* Draw e of a total_out rule's sources (conn_rule.h): a source offset in [0, ns). */
OLIVE_HD int64_t olive_total_out_source(uint64_t seed, uint32_t key, int64_t e, int64_t ns, uint32_t stream)
{
    double u0, u1;
    olive_uniform2(seed, key, (uint32_t)e, (uint32_t)(e >> 32), stream, &u0, &u1);
    return (int64_t)(u0 * (double)ns);
}

/* Pair e of a fixed total: its target *j and source *src. */
OLIVE_HD void olive_total_pair(uint64_t seed, uint32_t key, int64_t e, int64_t t0, int64_t t1, int64_t s0, int64_t s1,
                               int autapses, uint32_t stream, int64_t *j, int64_t *src)
{
    double u0, u1;
    olive_uniform2(seed, key, (uint32_t)e, (uint32_t)(e >> 32), stream, &u0, &u1);
    *j = t0 + (int64_t)(u0 * (double)(t1 - t0));
    *src = olive_skip_self((int64_t)(u1 * (double)olive_source_choices(*j, s0, s1, autapses)), *j, s0, s1, autapses);
}

/* Draw d of row j of a p rule: the gap (pairs skipped) before its next
 * source, floor(log(u) / lq) with lq = olive_log1p_d(-p) (geometric gaps:
 * every pair once with probability p), as a double (it may be huge). */
OLIVE_HD double olive_p_gap(uint64_t seed, uint32_t key, int64_t j, uint32_t d, double lq, uint32_t stream)
{
    double u0, u1;
    olive_uniform2(seed, key, (uint32_t)j, d, stream, &u0, &u1);
    return floor(olive_log_d(u0) / lq);
}

#endif
