/* A run's spikes as spikes.h5's columns (spike_split.c): split by output
 * population and sorted by step, then cell, in a few passes over the
 * spikes. The multi-area model's 1.5e8 spikes in 254 populations took half
 * a minute with a sort by comparisons and an index array; each pass here is
 * a count, a prefix sum or a stream of writes. */
#ifndef OLIVE_SPIKE_SPLIT_H
#define OLIVE_SPIKE_SPLIT_H
#include "sim.h"
#include <stdint.h>

/* Population p's spikes are step[off[p] .. off[p + 1]) and, beside them,
 * id[...] (node ids local to p: cell - first), sorted by step, then id. */
typedef struct {
    int64_t *off;   /* npops + 1 */
    int64_t *step;
    uint64_t *id;
} sim_spike_columns;

/* The columns of sp[0..n) for the populations pops[0..npops), in order of
 * their first cells and disjoint (the network's, which tile its cells:
 * olive_pops_read); a spike of a cell in no population is left out. sp is
 * taken (freed here). sim_spike_columns_free frees the columns. */
void sim_spike_columns_make(const sim_outpop *pops, int npops, sim_spike *sp, int64_t n, sim_spike_columns *c);
void sim_spike_columns_free(sim_spike_columns *c);

#endif
