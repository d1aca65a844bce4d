/* The spikes of a run split by output population in one pass (spike_split.c):
 * spikes.h5 holds a group a population, and scanning every spike once per
 * population cost minutes for the multi-area model's 254 populations and
 * 1e8 spikes. */
#ifndef OLIVE_SPIKE_SPLIT_H
#define OLIVE_SPIKE_SPLIT_H
#include "sim.h"
#include <stdint.h>

/* sp[0..n) split by the populations pops[0..npops), in order of their
 * first cells and disjoint (the network's, which tile its cells:
 * olive_pops_read): on return idx[(*off)[p] .. (*off)[p + 1]) are the
 * indices into sp of population p's spikes, in sp's order. Both arrays are
 * the caller's to free. */
int64_t *sim_split_spikes(const sim_outpop *pops, int npops, const sim_spike *sp, int64_t n, int64_t **off);

/* sp[0..n) sorted by step, then cell. Where the steps already rise (one
 * rank's CUDA engine lists its spikes step by step) only each step's spikes
 * are sorted: the multi-area model's 1e8 spikes in a second, not a minute. */
void sim_spikes_sort(sim_spike *sp, int64_t n);

#endif
