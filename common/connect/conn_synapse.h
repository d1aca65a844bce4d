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

/* y (a first attempt of v's normal) when inside v's bounds, else v redrawn
 * from attempt 1 of the stream on; 1 and the value in *x, or 0. */
OLIVE_HD int olive_normal_keep(double y, const olive_value *v, uint64_t seed, uint32_t key, uint32_t b, uint32_t draw,
                               uint32_t stream, double *x)
{
    if (y >= v->lo && y <= v->hi) { *x = y; return 1; }
    return olive_normal_redraw_from(1, seed, key, b, draw, stream, v->mean, v->sd, v->lo, v->hi, x);
}

/* A synapse's delay (ms) and weight, counted (key, b, draw). When both are
 * normal, their first attempts come from one counter of the delay stream:
 * Box-Muller's cosine for the delay and its sine, an independent normal, for
 * the weight (one counter, one log and one square root a synapse fewer: the
 * GPU draws these at each spike); a value outside its bounds is redrawn from
 * attempt 1 of its own stream on. Otherwise each is olive_value_draw in its
 * own stream. Returns bit 0: the delay was drawn, bit 1: the weight was
 * drawn (a normal outside its bounds in every attempt leaves its bit 0).
 * olive_syn_delay and olive_syn_weight give each alone, the same bits. */
OLIVE_HD int olive_syn_values(const olive_value *d, const olive_value *w, uint64_t seed, uint32_t key, uint32_t b,
                              uint32_t draw, double *dx, double *wx)
{
    if (!(d->normal && w->normal))
        return olive_value_draw(d, seed, key, b, draw, OLIVE_STREAM_SYN_DELAY, dx) |
               olive_value_draw(w, seed, key, b, draw, OLIVE_STREAM_SYN_WEIGHT, wx) << 1;
    double z0, z1;
    olive_std_normal_pair(seed, key, b, draw, OLIVE_STREAM_SYN_DELAY, &z0, &z1);
    return olive_normal_keep(d->mean + d->sd * z0, d, seed, key, b, draw, OLIVE_STREAM_SYN_DELAY, dx) |
           olive_normal_keep(w->mean + w->sd * z1, w, seed, key, b, draw, OLIVE_STREAM_SYN_WEIGHT, wx) << 1;
}

/* One of the two alone: the delay (which 0) or the weight (which 1). */
OLIVE_HD int olive_syn_value(int which, const olive_value *d, const olive_value *w, uint64_t seed, uint32_t key,
                             uint32_t b, uint32_t draw, double *x)
{
    const olive_value *v = which ? w : d;
    const uint32_t stream = which ? OLIVE_STREAM_SYN_WEIGHT : OLIVE_STREAM_SYN_DELAY;
    if (!(d->normal && w->normal)) return olive_value_draw(v, seed, key, b, draw, stream, x);
    double z[2];
    olive_std_normal_pair(seed, key, b, draw, OLIVE_STREAM_SYN_DELAY, &z[0], &z[1]);
    return olive_normal_keep(v->mean + v->sd * z[which], v, seed, key, b, draw, stream, x);
}

OLIVE_HD int olive_syn_delay(const olive_value *d, const olive_value *w, uint64_t seed, uint32_t key, uint32_t b,
                             uint32_t draw, double *x)
{
    return olive_syn_value(0, d, w, seed, key, b, draw, x);
}

OLIVE_HD int olive_syn_weight(const olive_value *w, const olive_value *d, uint64_t seed, uint32_t key, uint32_t b,
                              uint32_t draw, double *x)
{
    return olive_syn_value(1, d, w, seed, key, b, draw, x);
}

/* The values of synapse (b, draw) that want asks for (bit 0 the delay into
 * *dx, bit 1 the weight into *wx; 0: none), both from olive_syn_values when
 * both are wanted; returns olive_syn_values' bits for the wanted ones (an
 * unwanted value's bit is 0, its pointer untouched). */
OLIVE_HD int olive_syn_wanted(int want, const olive_value *d, const olive_value *w, uint64_t seed, uint32_t key,
                              uint32_t b, uint32_t draw, double *dx, double *wx)
{
    if (want == 3) return olive_syn_values(d, w, seed, key, b, draw, dx, wx);
    if (want == 1) return olive_syn_delay(d, w, seed, key, b, draw, dx);
    if (want == 2) return olive_syn_weight(w, d, seed, key, b, draw, wx) << 1;
    return 0;
}

/* Value v's first attempt only: olive_value_draw's value where a normal's
 * attempt 0 falls inside its bounds (a uniform or constant always), 1 and
 * *x; -1 where that attempt falls outside (*x untouched). */
OLIVE_HD int olive_value_first(const olive_value *v, uint64_t seed, uint32_t key, uint32_t b, uint32_t draw,
                               uint32_t stream, double *x)
{
    if (!v->normal) return olive_value_draw(v, seed, key, b, draw, stream, x);
    const double y = v->mean + v->sd * olive_std_normal(seed, key, b, draw, stream);   /* (attempt 0: stream + 0) */
    if (!(y >= v->lo && y <= v->hi)) return -1;
    *x = y;
    return 1;
}

/* olive_syn_wanted's first attempts only: where every wanted value falls
 * inside its bounds at its first attempt, olive_syn_wanted's bits and values
 * (the same operations); -1 where one does not, and then olive_syn_wanted
 * must draw the synapse (its redraws). Why: on the GPU a warp's 32 synapses
 * wait for any one lane's redraw loop; a kernel that draws first attempts
 * only and sends the few synapses that need more to a later pass keeps its
 * warps full (spk_cuda_rules.cu). */
OLIVE_HD int olive_syn_wanted_first(int want, const olive_value *d, const olive_value *w, uint64_t seed, uint32_t key,
                                    uint32_t b, uint32_t draw, double *dx, double *wx)
{
    if (!want) return 0;
    if (!(d->normal && w->normal)) {   /* each alone in its own stream (olive_syn_values, olive_syn_value) */
        double x0 = 0, x1 = 0;
        if ((want & 1) && olive_value_first(d, seed, key, b, draw, OLIVE_STREAM_SYN_DELAY, &x0) < 0) return -1;
        if ((want & 2) && olive_value_first(w, seed, key, b, draw, OLIVE_STREAM_SYN_WEIGHT, &x1) < 0) return -1;
        if (want & 1) *dx = x0;
        if (want & 2) *wx = x1;
        return want;
    }
    double z0, z1;   /* both normal: one counter of the delay stream, cosine the delay's, sine the weight's */
    olive_std_normal_pair(seed, key, b, draw, OLIVE_STREAM_SYN_DELAY, &z0, &z1);
    const double y0 = d->mean + d->sd * z0, y1 = w->mean + w->sd * z1;
    if ((want & 1) && !(y0 >= d->lo && y0 <= d->hi)) return -1;
    if ((want & 2) && !(y1 >= w->lo && y1 <= w->hi)) return -1;
    if (want & 1) *dx = y0;
    if (want & 2) *wx = y1;
    return want;
}

/* Delay ms in whole steps of dt, as olive_ms_to_steps rounds it (util.h):
 * round(ms / dt), or -1 outside [0, max]; rdt is 1/dt rounded. The GPU
 * converts a delay at each event, and a double division is a software
 * sequence on the event's dependent chain, so the quotient comes from a
 * multiplication where that rounds the same: q = ms * rdt lies within
 * 3 * 2^-53 of ms / dt relative, and so does the division's rounded
 * quotient, so the two can round to different integers only where a
 * half-integer lies between them: within 2^-44 |q| of one (a margin of 2^7
 * over that bound) the division decides. NaN and infinities take the
 * division too (the comparison is false). The same steps as round(ms / dt)
 * for every ms (tests/unit/test_syn_pair.c). */
OLIVE_HD int64_t olive_delay_steps(double ms, double dt, double rdt, int64_t max)
{
    const double q = ms * rdt, r = round(q);
    const double x = 0.5 - fabs(q - r) > fabs(q) * 0x1p-44 ? r : round(ms / dt);
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
