/* The content hash of a network: conductances and g_CaL (netcontent.c). */
#ifndef OLIVE_NETCONTENT_H
#define OLIVE_NETCONTENT_H
#include <stdint.h>
#include "netfile.h"

/* splitmix64's finaliser: a bijective avalanche of 64 bits (the hashes' mixer). */
uint64_t olive_mix64(uint64_t x);
/* The bits of a double, for hashing. */
uint64_t olive_bits_of(double x);

/* The same sum for any array (state files' checksums, restart.c): element i
 * of first + i adds mix(mix(tag ^ mix(global index)) ^ its bits) (el 4 or 8
 * bytes); the parts of any split of the array sum to the same value. */
uint64_t olive_hash_values(uint64_t tag, int64_t first, int64_t n, const void *data, size_t el);
/* A tag for olive_hash_values from a name (FNV-1a, mixed). */
uint64_t olive_hash_name(const char *name);

/* This rank's part (rows [row0, row1)); parts are summed over ranks. */
uint64_t olive_net_content_part(const olive_network *net);
/* The hash from the summed parts, bits, offset, scale and count: 63 bits. */
uint64_t olive_net_content_finish(uint64_t sum, const olive_network *net);

#endif
