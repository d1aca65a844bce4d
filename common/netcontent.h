/* The content hash of a network: conductances and g_CaL (netcontent.c). */
#ifndef OLIVE_NETCONTENT_H
#define OLIVE_NETCONTENT_H
#include <stdint.h>
#include "netfile.h"

/* This rank's part (rows [row0, row1)); parts are summed over ranks. */
uint64_t olive_net_content_part(const olive_network *net);
/* The hash from the summed parts, bits, offset, scale and count: 63 bits. */
uint64_t olive_net_content_finish(uint64_t sum, const olive_network *net);

#endif
