/* Spike-source cells (populations of model spike_source_poisson or
 * spike_source_array beside a network's neurons; docs/FORMAT.md), written
 * once for every engine (OLIVE_HD): whether source row r spikes on step
 * `step`. A spike of step i is written at (i + 1) dt and its events are due
 * at step i + delay, as a neuron's.
 *   poisson: a spike on step i with probability rate dt (Philox keyed by
 *     (seed, cell, step), so the same on any rank, thread or device) for
 *     step0 <= i < step1 (round(start / dt), round((start + duration) / dt));
 *   array: the cell's spike steps (round(t / dt) - 1 of its times, sorted),
 *     consumed in order through a cursor. */
#ifndef OLIVE_SPIKE_SOURCE_H
#define OLIVE_SPIKE_SOURCE_H
#include "hostdev.h"
#include "rng.h"
#include <stdint.h>

enum { OLIVE_SOURCE_NONE = 0, OLIVE_SOURCE_POISSON = 1, OLIVE_SOURCE_ARRAY = 2 };

/* The source rows of a rank: kind per row (NONE for neurons); Poisson's
 * probability and step window; the arrays' steps in CSR by row and a cursor. */
typedef struct {
    const int8_t *kind;
    const double *p;
    const int64_t *step0, *step1;
    const int64_t *ptr, *steps;
    int64_t *next;
} olive_sources;

OLIVE_HD int olive_source_fires(const olive_sources *s, uint64_t seed, int64_t r, int64_t g, int64_t step)
{
    if (s->kind[r] == OLIVE_SOURCE_POISSON) {
        if (step < s->step0[r] || step >= s->step1[r]) return 0;
        double u0, u1;
        olive_uniform2(seed, (uint32_t)g, (uint32_t)step, (uint32_t)(step >> 32), OLIVE_STREAM_SOURCE, &u0, &u1);
        return u0 < s->p[r];
    }
    if (s->kind[r] == OLIVE_SOURCE_ARRAY) {
        int64_t k = s->next[r];
        const int64_t end = s->ptr[r + 1];
        while (k < end && s->steps[k] < step) k++;   /* (steps before the run's start: a restart) */
        const int fire = k < end && s->steps[k] == step;
        while (k < end && s->steps[k] == step) k++;   /* two times in one step: one spike */
        s->next[r] = k;
        return fire;
    }
    return 0;
}

#endif
