/* --poisson input events (docs/MODELS.md), written once for every engine (CPU,
 * the CUDA paths): the number of events from input j into cell g on step
 * `step`, Binomial(n, prob) drawn from Philox keyed by (seed, cell, step,
 * input), so it is the same on any rank, thread or device. */
#ifndef OLIVE_POISSON_INPUT_H
#define OLIVE_POISSON_INPUT_H
#include "hostdev.h"
#include "lif.h"
#include "rng.h"
#include <stdint.h>

OLIVE_HD long long olive_poisson_input_hits(uint64_t seed, int64_t g, int64_t step, int j, long long n, double prob)
{
    double u0, u1;
    olive_uniform2(seed, (uint32_t)g, (uint32_t)step, (uint32_t)(step >> 32) | (uint32_t)j << 24, OLIVE_STREAM_POISSON,
                   &u0, &u1);
    return olive_binomial(u0, n, prob);
}

#endif
