#include "partition.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

void olive_block_bounds(int64_t count, const int64_t *row_ptr, int P, int balance, int64_t *bounds)
{
    bounds[0] = 0;
    bounds[P] = count;
    if (balance == OLIVE_BALANCE_CELLS || !row_ptr) {
        for (int r = 1; r < P; r++) bounds[r] = (int64_t)((__int128)count * r / P);
        return;
    }
    /* Weight of a cell: its junctions plus one (the cell update itself), so a
     * network without junctions still splits evenly. Cut where the cumulative
     * weight passes r/P of the total, keeping at least one cell per rank. */
    int64_t total = row_ptr[count] + count;
    int64_t c = 0;
    for (int r = 1; r < P; r++) {
        int64_t target = (int64_t)((__int128)total * r / P);
        if (c < bounds[r - 1] + 1) c = bounds[r - 1] + 1;
        while (c < count - (P - r) && row_ptr[c] + c < target) c++;
        bounds[r] = c;
    }
}

int olive_owner(const int64_t *bounds, int P, int64_t cell)
{
    int lo = 0, hi = P - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (bounds[mid] <= cell) lo = mid; else hi = mid - 1;
    }
    return lo;
}


void olive_plan_build_local(const olive_network *net, const int64_t *bounds, int P, int rank, olive_plan *p)
{
    memset(p, 0, sizeof *p);
    p->P = P;
    p->rank = rank;
    p->row0 = bounds[rank];
    p->row1 = bounds[rank + 1];
    p->nlocal = p->row1 - p->row0;
    if (net->row0 != p->row0 || net->row1 != p->row1)
        olive_die("internal: network rows [%lld,%lld) do not match rank %d's block [%lld,%lld)",
                  (long long)net->row0, (long long)net->row1, rank, (long long)p->row0, (long long)p->row1);

    /* Foreign neighbours, unique and ascending: the halo. A position table
     * over all cells (O(cells + junctions), no sort) replaces a sort of every
     * foreign reference, which took 40 s for 1M cells x 100 junctions. */
    int32_t *pos = olive_malloc((size_t)net->count * sizeof(int32_t), "halo positions");
    char *mark = olive_calloc((size_t)net->count, 1, "halo marks");
#pragma omp parallel for schedule(static)
    for (int64_t e = 0; e < net->nnz; e++)
        if (net->col[e] < p->row0 || net->col[e] >= p->row1) {
#pragma omp atomic write
            mark[net->col[e]] = 1;
        }
    int64_t u = 0;
    for (int64_t c = 0; c < net->count; c++) u += mark[c];
    int64_t *ids = olive_malloc((size_t)u * sizeof(int64_t) + 8, "halo ids");
    u = 0;
    for (int64_t c = 0; c < net->count; c++)
        if (mark[c]) { pos[c] = (int32_t)u; ids[u++] = c; }
    free(mark);
    p->nhalo = u;
    p->halo_ids = ids;
    if (p->nlocal + p->nhalo > INT32_MAX) olive_die("rank %d holds too many cells for 32-bit local indices", rank);

    p->recv_count = olive_calloc((size_t)P, sizeof(int), "recv counts");
    p->recv_displ = olive_calloc((size_t)P, sizeof(int), "recv displs");
    for (int64_t i = 0; i < p->nhalo; i++) p->recv_count[olive_owner(bounds, P, ids[i])]++;
    for (int r = 1; r < P; r++) p->recv_displ[r] = p->recv_displ[r - 1] + p->recv_count[r - 1];

    /* Rows with local indices, and the interior/boundary split. */
    p->lrow_ptr = olive_malloc((size_t)(p->nlocal + 1) * sizeof(int64_t), "local row_ptr");
    memcpy(p->lrow_ptr, net->row_ptr, (size_t)(p->nlocal + 1) * sizeof(int64_t));
    p->lcol = olive_calloc((size_t)(net->nnz + OLIVE_JUNCTION_PAD), sizeof(int32_t), "local col");
    p->interior = olive_malloc((size_t)p->nlocal * sizeof(int32_t) + 1, "interior rows");
    p->boundary = olive_malloc((size_t)p->nlocal * sizeof(int32_t) + 1, "boundary rows");
    /* Rows remapped in parallel (dynamic: degrees vary), the foreign flags
     * kept per row so that the lists come out in row order. */
    unsigned char *foreign = olive_malloc((size_t)p->nlocal + 1, "row flags");
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t r = 0; r < p->nlocal; r++) {
        unsigned char f = 0;
        for (int64_t e = net->row_ptr[r]; e < net->row_ptr[r + 1]; e++) {
            int64_t c = net->col[e];
            if (c >= p->row0 && c < p->row1) {
                p->lcol[e] = (int32_t)(c - p->row0);
            } else {
                p->lcol[e] = (int32_t)(p->nlocal + pos[c]);
                f = 1;
            }
        }
        foreign[r] = f;
    }
    for (int64_t r = 0; r < p->nlocal; r++) {
        if (foreign[r]) p->boundary[p->nboundary++] = (int32_t)r;
        else p->interior[p->ninterior++] = (int32_t)r;
    }
    free(foreign);
    free(pos);
}

void olive_plan_set_sends(olive_plan *p, int64_t *const *need_from_r, const int *need_count)
{
    p->send_count = olive_calloc((size_t)p->P, sizeof(int), "send counts");
    p->send_displ = olive_calloc((size_t)p->P, sizeof(int), "send displs");
    p->nsend = 0;
    for (int q = 0; q < p->P; q++) {
        p->send_count[q] = need_count[q];
        p->send_displ[q] = (int)p->nsend;
        p->nsend += need_count[q];
    }
    p->send_local = olive_malloc((size_t)p->nsend * sizeof(int32_t) + 1, "send list");
    for (int q = 0; q < p->P; q++)
        for (int i = 0; i < need_count[q]; i++) {
            int64_t id = need_from_r[q][i];
            if (id < p->row0 || id >= p->row1)
                olive_die("internal: rank %d asked rank %d for cell %lld it does not own", q, p->rank, (long long)id);
            p->send_local[p->send_displ[q] + i] = (int32_t)(id - p->row0);
        }
}

void olive_plan_free(olive_plan *p)
{
    free(p->halo_ids); free(p->recv_count); free(p->recv_displ);
    free(p->send_local); free(p->send_count); free(p->send_displ);
    free(p->lrow_ptr); free(p->lcol); free(p->interior); free(p->boundary);
    memset(p, 0, sizeof *p);
}
