/* --symmetric across MPI ranks: each junction (i receives from j) is mirrored
 * as (j receives from i) and sent to the owner of row j with one
 * MPI_Alltoallv. Senders list their pairs in row order and the receive buffer
 * is in rank order, so the sources arriving for any row are already
 * ascending: a stable counting sort by row gives the transposed rows, which
 * are merged with the own rows exactly as the single-process path does. */
#include "genconn.h"
#include "partition.h"
#include "util.h"
#include <mpi.h>
#include <stdlib.h>

#define CHECK_MPI(call) do { if ((call) != MPI_SUCCESS) olive_die("MPI call failed: %s", #call); } while (0)

void gc_symmetrize_mpi(olive_network *net, const int64_t *bounds, int P)
{
    const int64_t R0 = net->row0, N = net->row1 - net->row0;
    int *scount = olive_calloc((size_t)P, sizeof(int), "counts"), *sdispl = olive_calloc((size_t)P, sizeof(int), "counts");
    int *rcount = olive_calloc((size_t)P, sizeof(int), "counts"), *rdispl = olive_calloc((size_t)P, sizeof(int), "counts");
    for (int64_t e = 0; e < net->nnz; e++) scount[olive_owner(bounds, P, net->col[e])] += 2;
    int64_t stot = 0, rtot = 0;
    for (int q = 0; q < P; q++) { sdispl[q] = (int)stot; stot += scount[q]; }
    if (stot > INT32_MAX) olive_die("--symmetric: too many junctions on one rank for MPI_Alltoallv; use more ranks");
    /* Pairs (target row j, source i), grouped by the owner of j, in row order. */
    int32_t *sbuf = olive_malloc((size_t)stot * sizeof(int32_t) + 8, "mirror pairs");
    int *fill = olive_calloc((size_t)P, sizeof(int), "counts");
    for (int64_t r = 0; r < N; r++)
        for (int64_t e = net->row_ptr[r]; e < net->row_ptr[r + 1]; e++) {
            int q = olive_owner(bounds, P, net->col[e]);
            int32_t *slot = sbuf + sdispl[q] + fill[q];
            slot[0] = net->col[e];
            slot[1] = (int32_t)(R0 + r);
            fill[q] += 2;
        }
    CHECK_MPI(MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD));
    for (int q = 0; q < P; q++) { rdispl[q] = (int)rtot; rtot += rcount[q]; }
    if (rtot > INT32_MAX) olive_die("--symmetric: too many mirrored junctions for one rank; use more ranks");
    int32_t *rbuf = olive_malloc((size_t)rtot * sizeof(int32_t) + 8, "mirror pairs");
    CHECK_MPI(MPI_Alltoallv(sbuf, scount, sdispl, MPI_INT32_T, rbuf, rcount, rdispl, MPI_INT32_T, MPI_COMM_WORLD));
    free(sbuf);

    /* Transposed rows by a stable counting sort on the target row. */
    int64_t m = rtot / 2;
    int64_t *tp = olive_calloc((size_t)N + 1, sizeof(int64_t), "transpose row_ptr");
    for (int64_t k = 0; k < m; k++) tp[rbuf[2 * k] - R0 + 1]++;
    for (int64_t r = 0; r < N; r++) tp[r + 1] += tp[r];
    int32_t *tc = olive_malloc((size_t)m * sizeof(int32_t) + 4, "transpose col");
    int64_t *pos = olive_malloc((size_t)N * sizeof(int64_t) + 8, "transpose fill");
    for (int64_t r = 0; r < N; r++) pos[r] = tp[r];
    for (int64_t k = 0; k < m; k++) tc[pos[rbuf[2 * k] - R0]++] = rbuf[2 * k + 1];
    free(pos);
    free(rbuf);

    int64_t *np = olive_malloc((size_t)(N + 1) * sizeof(int64_t), "symmetric row_ptr");
    np[0] = 0;
    for (int64_t r = 0; r < N; r++)
        np[r + 1] = np[r] + gc_merge_union(net->col + net->row_ptr[r], net->row_ptr[r + 1] - net->row_ptr[r],
                                           tc + tp[r], tp[r + 1] - tp[r], NULL);
    int32_t *nc = olive_malloc((size_t)np[N] * sizeof(int32_t) + 4, "symmetric col");
#pragma omp parallel for schedule(static, 4096)
    for (int64_t r = 0; r < N; r++)
        gc_merge_union(net->col + net->row_ptr[r], net->row_ptr[r + 1] - net->row_ptr[r], tc + tp[r],
                       tp[r + 1] - tp[r], nc + np[r]);
    free(tp); free(tc); free(fill);
    free(scount); free(sdispl); free(rcount); free(rdispl);
    free(net->row_ptr);
    free(net->col);
    net->row_ptr = np;
    net->col = nc;
    net->nnz = np[N];
}
