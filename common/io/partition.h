/* Block partition of a network over P ranks and the per-rank exchange plan
 * (docs/FORMAT.md "Dispersal map"): used by olive-disperse to write maps and by
 * olive-simulate to build the same plan in memory. */
#ifndef OLIVE_PARTITION_H
#define OLIVE_PARTITION_H
#include <stdint.h>
#include "netfile.h"

enum olive_balance { OLIVE_BALANCE_CELLS = 0, OLIVE_BALANCE_JUNCTIONS = 1 };

/* bounds[0..P]: rank r owns cells [bounds[r], bounds[r+1]). Every rank gets at
 * least one cell (P <= count). Balanced by cell count, or by junctions + cells
 * using the global row_ptr (count+1 entries; may be NULL for cells). */
void olive_block_bounds(int64_t count, const int64_t *row_ptr, int P, int balance, int64_t *bounds);

/* Owner rank of a cell. */
int olive_owner(const int64_t *bounds, int P, int64_t cell);

typedef struct {
    int P, rank;
    int64_t row0, row1;      /* own cells [row0, row1) */
    int64_t nlocal, nhalo;   /* own cells; foreign cells held as halo */
    int64_t *halo_ids;       /* nhalo global ids, ascending (so grouped by owner) */
    int *recv_count;         /* P: halo cells received from each rank */
    int *recv_displ;         /* P: offset of each rank's part in halo_ids */
    int64_t nsend;
    int32_t *send_local;     /* nsend local indices of own cells to send, grouped by destination */
    int *send_count, *send_displ; /* P each */
    int64_t *lrow_ptr;       /* nlocal+1 */
    int32_t *lcol;           /* neighbour as local index: < nlocal own, else nlocal + halo position;
                              * OLIVE_JUNCTION_PAD zeroed entries follow the last (netfile.h) */
    int64_t ninterior, nboundary;
    int32_t *interior, *boundary; /* local row indices */
} olive_plan;

/* Build everything but the send lists from the rank's rows (net must hold
 * rows [bounds[rank], bounds[rank+1])). */
void olive_plan_build_local(const olive_network *net, const int64_t *bounds, int P, int rank, olive_plan *plan);

/* Fill the send lists of plan (rank r) from what every rank q needs from r:
 * need_from_r[q] lists (ascending global ids) of length need_count[q]. */
void olive_plan_set_sends(olive_plan *plan, int64_t *const *need_from_r, const int *need_count);

void olive_plan_free(olive_plan *plan);

#endif
