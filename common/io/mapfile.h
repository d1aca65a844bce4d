/* The dispersal map (docs/FORMAT.md): the exchange plans of all P ranks of one
 * network, laid out so that each rank reads only its own slices. */
#ifndef OLIVE_MAPFILE_H
#define OLIVE_MAPFILE_H
#include <stdint.h>
#include "partition.h"

typedef struct {
    int P;
    int balance;
    int64_t count, nnz;
    uint32_t network_crc;
    char network[1024];
    int64_t *bounds;         /* P+1 */
    double time_dispersal_s; /* how long olive-disperse took to read and plan */
} olive_map_header;

/* Write plans[0..P) (complete, with send lists) for the network at
 * net_path with checksum crc. Atomic, refuses to overwrite unless force. */
void olive_map_write(const char *path, const char *net_path, uint32_t crc, int64_t count, int64_t nnz,
                     int balance, const int64_t *bounds, int P, const olive_plan *plans, double time_dispersal_s,
                     int force);

/* Read the header (validated). */
void olive_map_read_header(const char *path, olive_map_header *h);
/* Read rank's plan (validated against the header); plan->lrow_ptr is taken
 * from the network rows the rank holds (net). */
void olive_map_read_plan(const char *path, const olive_map_header *h, int rank, const olive_network *net,
                         olive_plan *plan);
void olive_map_header_free(olive_map_header *h);

#endif
