/* splitmix64's finaliser, host and device: the hashes' mixer (the host's
 * in netcontent.h, and the CUDA engine's survey of synapses drawn at each spike,
 * which must add to the same synapse hash as the stored lists; the hash's
 * term, olive_synapse_hash_term, for both). */
#ifndef OLIVE_MIX64_H
#define OLIVE_MIX64_H
#include <stdint.h>
#include "hostdev.h"

OLIVE_HD uint64_t olive_mix64_inline(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* One synapse's term of the synapse hash (state.h5's synapse_hash; terms
 * add mod 2^64, so any order and split gives the sum): its source, target
 * (global ids), receptor, delay (steps) and the weight's bits. */
OLIVE_HD uint64_t olive_synapse_hash_term(uint64_t source, uint64_t target, uint64_t receptor, uint64_t delay,
                                          uint64_t weight_bits)
{
    uint64_t h = olive_mix64_inline(source);
    h = olive_mix64_inline(h ^ target);
    h = olive_mix64_inline(h ^ (receptor << 16 | delay));
    return olive_mix64_inline(h ^ weight_bits);
}

#endif
