/* The description of a --poisson input (olive-simulate's configuration),
 * in a header of its own: the CUDA engine's per-cell tail (spike_tail.cuh),
 * which plugin models compile too, reads it on the device. */
#ifndef OLIVE_POISSON_SPEC_H
#define OLIVE_POISSON_SPEC_H
#include <stdint.h>

/* --poisson: n independent Poisson inputs of rate_hz into each of cells
 * [first, last) on steps [step0, step1), each event adding weight to the
 * receptor (drawn per cell and step: rank- and thread-invariant). */
typedef struct {
    double rate_hz, weight;
    char receptor[32];
    int64_t n, first, last, step0, step1;
    double start_ms, stop_ms;
    char weight_text[48];      /* as given (a unit allowed): set-up converts it to the model's unit */
    /* set-up (olive_poisson_prepare): an input's chance of an event in a
     * step (rate dt), and the chance of none of n, Binomial(n, prob)'s first
     * term, once instead of an exp and a log per cell and step */
    double prob, p0;
} sim_poisson;

#endif
