/* Normally distributed synapse values (olive-genconn's weight=normal:... and
 * delay=normal:...), truncated as NEST's nest.math.redraw truncates them:
 * a draw outside [lo, hi] is thrown away and drawn again. Every attempt is
 * keyed like the uniform draws (rng.h), so a value depends only on the seed
 * and its counter, never on the rank, thread or device that computes it
 * (a projection drawn on the fly draws the same numbers on the GPU). */
#ifndef OLIVE_RNG_NORMAL_H
#define OLIVE_RNG_NORMAL_H
#include "rng.h"
#include "cospi2.h"
#include "fastlog.h"
#include <math.h>

/* Attempt r of counter (a, b, draw, stream) uses stream + (r << 8): the
 * streams of rng.h stay below 256, so attempts never meet another use. */
#define OLIVE_NORMAL_STREAM_SHIFT 8
/* Attempts before giving up; olive-genconn refuses a truncation that keeps
 * less than OLIVE_NORMAL_MIN_KEPT of the distribution, so with at least 1%
 * kept 10000 attempts all fail with probability below 0.99^10000 = 2e-44. */
#define OLIVE_NORMAL_MAX_ATTEMPTS 10000
#define OLIVE_NORMAL_MIN_KEPT 0.01

/* One standard normal from one counter: Box-Muller with both uniforms of
 * the counter (the cosine branch; the sine's normal is not used), with
 * olive's own log and cos (fastlog.h, cospi2.h: the same bits on the CPU
 * and the GPU, where a procedural projection draws at each spike). */
OLIVE_HD double olive_std_normal(uint64_t seed, uint32_t a, uint32_t b, uint32_t draw, uint32_t stream)
{
    double u0, u1;
    olive_uniform2(seed, a, b, draw, stream, &u0, &u1);
    return sqrt(-2.0 * olive_log_d(u0)) * olive_cos2pi_d(u1);
}

/* Both standard normals of one counter: Box-Muller's cosine branch (the
 * value of olive_std_normal) and its sine branch, independent of it. */
OLIVE_HD void olive_std_normal_pair(uint64_t seed, uint32_t a, uint32_t b, uint32_t draw, uint32_t stream,
                                    double *z0, double *z1)
{
    double u0, u1, c, s;
    olive_uniform2(seed, a, b, draw, stream, &u0, &u1);
    const double r = sqrt(-2.0 * olive_log_d(u0));
    olive_sincos2pi_d(u1, &c, &s);
    *z0 = r * c;
    *z1 = r * s;
}

/* mean + sd z from attempt r0 of the stream on (attempt r in stream +
 * (r << OLIVE_NORMAL_STREAM_SHIFT)), redrawn while outside [lo, hi]; 1 and
 * the value in *x, or 0 when every attempt fell outside. */
OLIVE_HD int olive_normal_redraw_from(uint32_t r0, uint64_t seed, uint32_t a, uint32_t b, uint32_t draw,
                                      uint32_t stream, double mean, double sd, double lo, double hi, double *x)
{
    for (uint32_t r = r0; r < OLIVE_NORMAL_MAX_ATTEMPTS; r++) {
        const double v = mean + sd * olive_std_normal(seed, a, b, draw, stream + (r << OLIVE_NORMAL_STREAM_SHIFT));
        if (v >= lo && v <= hi) { *x = v; return 1; }
    }
    return 0;
}

/* mean + sd z, redrawn while outside [lo, hi] (bounds kept, as NEST's
 * redraw keeps them); 1 and the value in *x, or 0 when every attempt fell
 * outside. */
OLIVE_HD int olive_normal_redraw(uint64_t seed, uint32_t a, uint32_t b, uint32_t draw, uint32_t stream, double mean,
                                 double sd, double lo, double hi, double *x)
{
    return olive_normal_redraw_from(0, seed, a, b, draw, stream, mean, sd, lo, hi, x);
}

/* The share of normal(mean, sd) inside [lo, hi] (sd > 0; bounds may be infinite). */
OLIVE_HD double olive_normal_kept(double mean, double sd, double lo, double hi)
{
    const double s = 1.0 / (sd * 1.4142135623730951);
    return 0.5 * (erfc((lo - mean) * s) - erfc((hi - mean) * s));
}

#endif
