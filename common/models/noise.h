/* Noise and variability of olive-simulate (docs/MODEL.md "Noise and random
 * initial states"), host and device:
 *
 * - an Ornstein-Uhlenbeck input current per cell, injected into the dendrite
 *   with the pulses:  dI = (mu - I)/tau dt + sigma sqrt(2/tau) dW,
 *   stepped exactly (no discretisation error in its statistics):
 *     I(i+1) = mu + (I(i) - mu) decay + amp xi(seed, cell, i),
 *     decay = exp(-dt/tau), amp = sigma sqrt(1 - decay^2),
 *   so I stays N(mu, sigma^2) in the stationary state with autocorrelation
 *   exp(-|t|/tau); I(start) is drawn from that stationary distribution.
 * - random initial membrane potentials, uniform in [lo, hi].
 *
 * Every number comes from Philox keyed by the seed and counted by (cell,
 * step, stream): never from a sequence, so any rank count, thread count or
 * backend draws the same values for a cell and a step, and a restart at step
 * i continues with exactly the draws the unbroken run makes. The normal
 * deviates use the polar method with the portable log of fastlog.h (and
 * IEEE sqrt and division, correctly rounded on both backends): the CPU and
 * the GPU agree to the bit. decay and amp are computed once on the host and
 * handed to the kernels, so the device never evaluates exp for them. */
#ifndef OLIVE_NOISE_H
#define OLIVE_NOISE_H
#include <math.h>
#include <stdint.h>
#include "fastlog.h"
#include "hostdev.h"
#include "rng.h"

/* Streams of olive-simulate (after rng.h's olive-genconn streams). */
enum olive_sim_stream {
    OLIVE_STREAM_NOISE = 5,        /* the OU increments, per (cell, step) */
    OLIVE_STREAM_NOISE_START = 6,  /* the OU current at the first step */
    OLIVE_STREAM_INIT = 7,         /* random initial potentials */
};

/* The OU process of a run, as the kernels need it. */
typedef struct {
    int on;
    uint64_t seed;
    double mean, decay, amp;       /* uA/cm2, 1, uA/cm2 */
} olive_noise;

/* Polar-method attempts before giving up (each fails with p = 1 - pi/4; 64
 * failures in a row have p < 1e-42). */
#define OLIVE_POLAR_TRIES 64

/* A standard normal deviate for (cell, step) of stream. The counter holds
 * the cell's low 32 bits, the step's low 32 bits, the attempt and the
 * step's bits 32-55 in the draw word, the stream and the cell's bits 32-55
 * in the stream word: distinct for every cell < 2^56 and step < 2^56. */
OLIVE_HD double olive_normal(uint64_t seed, int64_t cell, int64_t step, uint32_t stream)
{
    const uint32_t a = (uint32_t)cell, b = (uint32_t)step;
    const uint32_t hi_step = (uint32_t)((uint64_t)step >> 32) << 8;
    const uint32_t st = stream | ((uint32_t)((uint64_t)cell >> 32) << 8);
    for (uint32_t k = 0; k < OLIVE_POLAR_TRIES; k++) {
        double u0, u1;
        olive_uniform2(seed, a, b, hi_step | k, st, &u0, &u1);
        const double x = 2.0 * u0 - 1.0, y = 2.0 * u1 - 1.0;
        const double q = x * x + y * y;
        if (q < 1.0 && q > 0.0) return x * sqrt(-2.0 * olive_log_d(q) / q);
    }
    return 0.0;
}

/* The OU current of step + 1 from that of step, in the run's precision. */
#define OLIVE_OU_NEXT(R, SUFFIX)                                                                   \
    OLIVE_HD R olive_ou_next_##SUFFIX(const olive_noise *nz, R i, int64_t cell, int64_t step)     \
    {                                                                                              \
        const R mu = (R)nz->mean;                                                                  \
        return ((i - mu) * (R)nz->decay + mu) + (R)nz->amp * (R)olive_normal(nz->seed, cell, step, \
                                                                              OLIVE_STREAM_NOISE); \
    }
OLIVE_OU_NEXT(double, d)
OLIVE_OU_NEXT(float, f)
#undef OLIVE_OU_NEXT

/* A uniform value in [lo, hi] for (cell, draw) of the initial state. */
OLIVE_HD double olive_init_uniform(uint64_t seed, int64_t cell, uint32_t draw, double lo, double hi)
{
    double u0, u1;
    olive_uniform2(seed, (uint32_t)cell, (uint32_t)((uint64_t)cell >> 32), draw, OLIVE_STREAM_INIT, &u0, &u1);
    (void)u1;
    return lo + (hi - lo) * u0;
}

#endif
