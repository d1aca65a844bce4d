/* --symmetric: replace A by A ∪ Aᵀ (gap junctions conduct both ways). O(nnz):
 * a counting-sort transpose, then a merge of the two ascending rows per cell
 * that keeps an entry present in both once.
 *
 * The transpose runs on T threads, each owning a contiguous range of rows:
 * thread t counts its entries per column, and the column's slots are handed
 * out thread after thread, so every transposed row is ascending without any
 * sorting, exactly as a serial scan of the rows in order would make it. */
#include "genconn.h"
#include "util.h"
#include <omp.h>
#include <stdlib.h>

/* Size of the union of two ascending lists; writes it to out when non-NULL. */
int64_t gc_merge_union(const int32_t *a, int64_t na, const int32_t *b, int64_t nb, int32_t *out)
{
    int64_t i = 0, j = 0, n = 0;
    while (i < na || j < nb) {
        int32_t v;
        if (j == nb || (i < na && a[i] < b[j])) v = a[i++];
        else if (i == na || b[j] < a[i]) v = b[j++];
        else { v = a[i++]; j++; }
        if (out) out[n] = v;
        n++;
    }
    return n;
}

/* Aᵀ of net into (*tp_out, *tc_out): row j lists the cells that receive from j. */
static void transpose(const olive_network *net, int64_t **tp_out, int32_t **tc_out)
{
    const int64_t N = net->count;
    const int64_t *rp = net->row_ptr;
    const int32_t *col = net->col;
    int T = omp_get_max_threads();
    if (T > 16) T = 16;   /* T x N counters: bounded memory */
    if (T > N) T = (int)N;
    /* cnt[t*N + j]: entries of column j in thread t's rows, later its first
     * slot relative to tp[j]. int32 suffices: a count never exceeds the rows
     * of one thread. */
    int32_t *cnt = olive_calloc((size_t)T * (size_t)N, sizeof(int32_t), "transpose counters");
    int64_t *tp = olive_malloc((size_t)(N + 1) * sizeof(int64_t), "transpose row_ptr");
    int32_t *tc = olive_malloc((size_t)net->nnz * sizeof(int32_t), "transpose col");

#pragma omp parallel num_threads(T)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        int64_t r0 = N * t / nt, r1 = N * (t + 1) / nt;
        int32_t *c = cnt + (size_t)t * (size_t)N;
        for (int64_t e = rp[r0]; e < rp[r1]; e++) c[col[e]]++;
#pragma omp barrier
#pragma omp for schedule(static)
        for (int64_t j = 0; j < N; j++) {
            int64_t s = 0;
            for (int k = 0; k < nt; k++) {
                int32_t n = cnt[(size_t)k * (size_t)N + j];
                cnt[(size_t)k * (size_t)N + j] = (int32_t)s;
                s += n;
            }
            tp[j + 1] = s;
        }
#pragma omp single
        {
            tp[0] = 0;
            for (int64_t j = 0; j < N; j++) tp[j + 1] += tp[j];
        }
        for (int64_t i = r0; i < r1; i++)
            for (int64_t e = rp[i]; e < rp[i + 1]; e++) {
                int32_t j = col[e];
                tc[tp[j] + c[j]++] = (int32_t)i;
            }
    }
    free(cnt);
    *tp_out = tp;
    *tc_out = tc;
}

void gc_symmetrize(olive_network *net)
{
    const int64_t N = net->count;
    const int64_t *rp = net->row_ptr;
    const int32_t *col = net->col;
    int64_t *tp;
    int32_t *tc;
    transpose(net, &tp, &tc);

    /* Union sizes, prefix sum, then the merged rows. */
    int64_t *np = olive_malloc((size_t)(N + 1) * sizeof(int64_t), "symmetric row_ptr");
    np[0] = 0;
#pragma omp parallel for schedule(static, 4096)
    for (int64_t i = 0; i < N; i++)
        np[i + 1] = gc_merge_union(col + rp[i], rp[i + 1] - rp[i], tc + tp[i], tp[i + 1] - tp[i], NULL);
    for (int64_t i = 0; i < N; i++) np[i + 1] += np[i];
    int32_t *nc = olive_malloc((size_t)np[N] * sizeof(int32_t), "symmetric col");
#pragma omp parallel for schedule(static, 4096)
    for (int64_t i = 0; i < N; i++)
        gc_merge_union(col + rp[i], rp[i + 1] - rp[i], tc + tp[i], tp[i + 1] - tp[i], nc + np[i]);

    free(tp);
    free(tc);
    free(net->row_ptr);
    free(net->col);
    net->row_ptr = np;
    net->col = nc;
    net->nnz = net->nnz_total = np[N];
}
