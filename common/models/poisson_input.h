/* --poisson input events (docs/MODELS.md), written once for every engine (CPU,
 * the CUDA paths): the number of events from input j into cell g on step
 * `step`, Binomial(n, prob) drawn from Philox keyed by (seed, cell, step,
 * input), so it is the same on any rank, thread or device. */
#ifndef OLIVE_POISSON_INPUT_H
#define OLIVE_POISSON_INPUT_H
#include "hostdev.h"
#include "lif.h"
#include "poisson_spec.h"
#include "rng.h"
#include <stdint.h>

/* The per-input constants of p (poisson_spec.h) for steps of dt ms. */
static inline void olive_poisson_prepare(sim_poisson *p, double dt)
{
    p->prob = p->rate_hz * 1e-3 * dt;
    p->p0 = olive_binomial_p0(p->n, p->prob);
}

/* fac: olive_binomial_factors(n, prob) (the same hits, faster), or NULL. */
OLIVE_HD long long olive_poisson_input_hits_f(uint64_t seed, int64_t g, int64_t step, int j, long long n, double prob,
                                              double p0, const double *fac)
{
    double u0, u1;
    olive_uniform2(seed, (uint32_t)g, (uint32_t)step, (uint32_t)(step >> 32) | (uint32_t)j << 24, OLIVE_STREAM_POISSON,
                   &u0, &u1);
    return olive_binomial_f(u0, n, prob, p0, fac);
}

OLIVE_HD long long olive_poisson_input_hits(uint64_t seed, int64_t g, int64_t step, int j, long long n, double prob,
                                            double p0)
{
    return olive_poisson_input_hits_f(seed, g, step, j, n, prob, p0, 0);
}

#endif
