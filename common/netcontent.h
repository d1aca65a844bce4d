/* The content hash of a network: conductances and g_CaL (netcontent.c). */
#ifndef OLIVE_NETCONTENT_H
#define OLIVE_NETCONTENT_H
#include <stdint.h>
#include "netfile.h"

/* splitmix64's finaliser: a bijective avalanche of 64 bits (the hashes' mixer). */
uint64_t olive_mix64(uint64_t x);
/* The bits of a double, for hashing. */
uint64_t olive_bits_of(double x);

/* This rank's part (rows [row0, row1)); parts are summed over ranks. */
uint64_t olive_net_content_part(const olive_network *net);
/* The hash from the summed parts, bits, offset, scale and count: 63 bits. */
uint64_t olive_net_content_finish(uint64_t sum, const olive_network *net);

#endif
