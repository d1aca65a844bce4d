/* GPU generation for olive-genconn (--backend cuda, or auto on a GPU host).
 *
 * The rows come from gen_rows.h, the very source the CPU drivers run
 * (gen_uniform.c, gen_gaussian.c), compiled here for the device; with
 * -fmad=false, IEEE division and the olive log (common/math/fastlog.h) every
 * operation rounds as on the CPU, so the file is bit-identical to the CPU's.
 *
 *  - uniform (binomial degrees): a warp per row. Lane l takes Philox counter
 *    c0 + l, i.e. gaps 2(c0+l) and 2(c0+l)+1; a warp prefix sum of the gaps
 *    turns them into the next 64 positions, which are exactly the CPU's
 *    sequential positions. Two passes: count every row's degree, exclusive
 *    scan (cub::DeviceScan), then fill in chunks of rows, each copied to the
 *    host. Rows come out ascending.
 *  - uniform --fixed-degree and gaussian: a thread per row running the
 *    shared row function with its duplicate set in a per-thread table in
 *    device memory (grid-stride over the rows of a chunk), so the drawn set
 *    and the acceptance decisions are the CPU's; then the rows are sorted on
 *    the device (cub::DeviceSegmentedSort: ascending, as gc_sort_i32 gives).
 *    The complement branch of --fixed-degree writes ascending rows directly.
 *  - grid stays on the CPU (generate.c).
 * A gaussian row that runs out of attempts is reported by an atomicMin of the
 * cell; the host recomputes that row on the CPU to name the numbers. */
#define OMPI_SKIP_MPICXX 1
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern "C" {
#include "genconn.h"
#include "util.h"
}
#include "gen_rows.h"

#include "cuda_check.h"

#define FULL_MASK 0xffffffffu
/* Neighbour ids generated per chunk at most (a chunk is also sorted and
 * copied as one piece); a single longer row makes a chunk of its own. */
#define CHUNK_IDS (INT64_C(1) << 27)
/* Device memory for the per-thread duplicate sets of a chunk. */
#define SCRATCH_BYTES (INT64_C(1) << 30)

static unsigned blocks_for(int64_t threads, int per_block)
{
    int64_t b = (threads + per_block - 1) / per_block;
    if (b > INT32_MAX) olive_die("CUDA: %lld threads are too many for one launch", (long long)threads);
    return (unsigned)(b > 0 ? b : 1);
}

/* ---- uniform, binomial: a warp per row */
__device__ __forceinline__ int64_t warp_inclusive_sum(int64_t v, int lane)
{
    for (int o = 1; o < 32; o <<= 1) {
        int64_t y = __shfl_up_sync(FULL_MASK, v, o);
        if (lane >= o) v += y;
    }
    return v;
}

/* FILL 0: deg[r] = the degree of row row0 + r; FILL 1: the ids of row
 * row0 + r into col + (rp[r] - base). */
template <int FILL>
__global__ void k_bern(uint64_t seed, int64_t row0, int64_t nrows, int64_t M, double lq, int64_t *deg,
                       const int64_t *rp, int64_t base, int32_t *col)
{
    const int64_t r = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (r >= nrows) return;   /* whole warps: nrows counts warps */
    const int64_t i = row0 + r;
    int32_t *out = FILL ? col + (rp[r] - base) : nullptr;
    int64_t pos = -1, n = 0;
    if (M > 0)
        for (uint32_t c0 = 0;; c0 += 32) {
            int64_t g0, g1;
            gc_bern_gaps(seed, i, c0 + (uint32_t)lane, lq, M, &g0, &g1);
            const int64_t a = g0 + 1, b = g1 + 1, s = a + b;
            const int64_t incl = warp_inclusive_sum(s, lane);
            const int64_t p0 = pos + (incl - s) + a, p1 = p0 + b;
            /* Positions increase along the lanes: the valid ones (< M) are a
             * prefix, lane l's two at n + 2l and n + 2l + 1. */
            if (FILL) {
                if (p0 < M) out[n + 2 * lane] = gc_cand_cell(p0, i);
                if (p1 < M) out[n + 2 * lane + 1] = gc_cand_cell(p1, i);
            }
            n += __popc(__ballot_sync(FULL_MASK, p0 < M)) + __popc(__ballot_sync(FULL_MASK, p1 < M));
            const int64_t last = pos + __shfl_sync(FULL_MASK, incl, 31);
            if (last >= M) break;
            pos = last;
        }
    if (!FILL && lane == 0) deg[r] = n;
}

/* ---- uniform --fixed-degree and gaussian: a thread per row, K ids each */
enum { EXACT_FIXED = 0, EXACT_GAUSS = 1 };

template <int GEN>
__global__ void k_exact(uint64_t seed, int64_t row0, int64_t nrows, int64_t M, int64_t K, gc_gauss_tab tab,
                        uint32_t *scratch, int lg, int32_t *col, unsigned long long *fail)
{
    const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t T = (int64_t)gridDim.x * blockDim.x;
    uint32_t *slot = scratch + (tid << lg);
    for (int64_t r = tid; r < nrows; r += T) {
        const int64_t i = row0 + r;
        int32_t *row = col + r * K;
        if (GEN == EXACT_FIXED) {
            (void)gc_fixed_row(seed, i, M, K, slot, lg, row);
        } else {
            int64_t attempts;
            if (gc_gauss_row(&tab, seed, i, K, slot, lg, row, &attempts) < K) {
                atomicMin(fail, (unsigned long long)i);
                return;
            }
        }
    }
}

__global__ void k_offsets(int64_t nseg, int64_t K, int32_t *off)
{
    const int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (s <= nseg) off[s] = (int32_t)(s * K);
}

extern "C" int gc_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

static void *dev_alloc(size_t bytes)
{
    void *p = nullptr;
    CK(cudaMalloc(&p, bytes ? bytes : 1));
    return p;
}

typedef struct {
    double t_kernels, t_copy;
} timing;

/* Uniform with binomial degrees. */
static void gen_bern(const gc_config *cfg, olive_network *net, timing *tm)
{
    const int64_t R0 = net->row0, N = net->row1 - net->row0, M = cfg->count - 1;
    const double lq = gc_uniform_lq(cfg);
    int64_t *d_deg = (int64_t *)dev_alloc((size_t)N * sizeof(int64_t));
    int64_t *d_rp = (int64_t *)dev_alloc((size_t)(N + 1) * sizeof(int64_t));
    double t = olive_now();
    k_bern<0><<<blocks_for(N * 32, 256), 256>>>(cfg->seed, R0, N, M, lq, d_deg, nullptr, 0, nullptr);
    CK_LAUNCH("k_bern (count)");
    size_t tmp_bytes = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, tmp_bytes, d_deg, d_rp + 1, N));
    void *d_tmp = dev_alloc(tmp_bytes);
    CK(cub::DeviceScan::InclusiveSum(d_tmp, tmp_bytes, d_deg, d_rp + 1, N));
    CK(cudaMemset(d_rp, 0, sizeof(int64_t)));
    CK(cudaFree(d_tmp));
    CK(cudaFree(d_deg));
    net->row_ptr = (int64_t *)olive_malloc((size_t)(N + 1) * sizeof(int64_t), "row_ptr");
    CK(cudaMemcpy(net->row_ptr, d_rp, (size_t)(N + 1) * sizeof(int64_t), cudaMemcpyDeviceToHost));
    const int64_t nnz = net->row_ptr[N];
    tm->t_kernels += olive_now() - t;
    net->col = (int32_t *)olive_malloc((size_t)nnz * sizeof(int32_t) + 1, "col");
    /* Chunks of whole rows of at most CHUNK_IDS ids (or one longer row). */
    int64_t cap = 0;
    for (int64_t a = 0; a < N;) {
        int64_t b = a + 1;
        while (b < N && net->row_ptr[b + 1] - net->row_ptr[a] <= CHUNK_IDS) b++;
        if (net->row_ptr[b] - net->row_ptr[a] > cap) cap = net->row_ptr[b] - net->row_ptr[a];
        a = b;
    }
    int32_t *d_col = (int32_t *)dev_alloc((size_t)cap * sizeof(int32_t));
    int32_t *h_buf = nullptr;
    CK(cudaMallocHost((void **)&h_buf, (size_t)(cap > 0 ? cap : 1) * sizeof(int32_t)));
    for (int64_t a = 0; a < N;) {
        int64_t b = a + 1;
        while (b < N && net->row_ptr[b + 1] - net->row_ptr[a] <= CHUNK_IDS) b++;
        const int64_t base = net->row_ptr[a], n = net->row_ptr[b] - base;
        t = olive_now();
        k_bern<1><<<blocks_for((b - a) * 32, 256), 256>>>(cfg->seed, R0 + a, b - a, M, lq, nullptr, d_rp + a, base, d_col);
        CK_LAUNCH("k_bern (fill)");
        CK(cudaMemcpy(h_buf, d_col, (size_t)n * sizeof(int32_t), cudaMemcpyDeviceToHost));
        double t2 = olive_now();
        tm->t_kernels += t2 - t;
        olive_memcpy_parallel(net->col + base, h_buf, (size_t)n * sizeof(int32_t));
        tm->t_copy += olive_now() - t2;
        olive_progress("generating", (double)b / (double)N);
        a = b;
    }
    olive_progress_done();
    CK(cudaFreeHost(h_buf));
    CK(cudaFree(d_col));
    CK(cudaFree(d_rp));
    net->nnz = net->nnz_total = nnz;
}

/* Exactly K ids a row: uniform --fixed-degree and gaussian. */
static void gen_exact(const gc_config *cfg, olive_network *net, int gen, timing *tm)
{
    const int64_t R0 = net->row0, N = net->row1 - net->row0, M = cfg->count - 1;
    const int64_t K = (int64_t)cfg->density;
    net->row_ptr = (int64_t *)olive_malloc((size_t)(N + 1) * sizeof(int64_t), "row_ptr");
    for (int64_t r = 0; r <= N; r++) net->row_ptr[r] = r * K;
    const int64_t nnz = N * K;
    net->col = (int32_t *)olive_malloc((size_t)nnz * sizeof(int32_t) + 1, "col");
    net->nnz = net->nnz_total = nnz;
    if (K == 0 || N == 0) return;

    gc_gauss_tab tab;
    memset(&tab, 0, sizeof tab);
    gc_gauss *gauss = nullptr;
    void *d_tables[6] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
    int lg, sorted_rows = 0;
    if (gen == EXACT_GAUSS) {
        gauss = gc_gauss_new(cfg);
        tab = *gc_gauss_tables(gauss);
        for (int a = 0; a < 3; a++) {   /* the host's tables, copied */
            size_t nc = (size_t)tab.ax[a].n * sizeof(double), ng = (size_t)tab.ax[a].n * sizeof(int32_t);
            d_tables[2 * a] = dev_alloc(nc);
            d_tables[2 * a + 1] = dev_alloc(ng);
            CK(cudaMemcpy(d_tables[2 * a], tab.ax[a].cdf, nc, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(d_tables[2 * a + 1], tab.ax[a].guide, ng, cudaMemcpyHostToDevice));
            tab.ax[a].cdf = (const double *)d_tables[2 * a];
            tab.ax[a].guide = (const int32_t *)d_tables[2 * a + 1];
        }
        lg = gc_hs_lg(K);
    } else {
        lg = gc_fixed_lg(M, K);
        sorted_rows = K > M / 2;   /* the complement branch writes ascending rows */
    }
    const int64_t chunk_rows = K >= CHUNK_IDS ? 1 : CHUNK_IDS / K;
    const int64_t max_rows = chunk_rows < N ? chunk_rows : N, cap = max_rows * K;
    /* Threads of a chunk: as many as the sets' memory allows, whole blocks. */
    const int per_block = 128;
    int64_t threads = SCRATCH_BYTES / ((int64_t)sizeof(uint32_t) << lg);
    if (threads > max_rows) threads = max_rows;
    threads = (threads + per_block - 1) / per_block * per_block;
    if (threads < per_block) threads = per_block;
    uint32_t *d_scratch = (uint32_t *)dev_alloc((size_t)threads * ((size_t)sizeof(uint32_t) << lg));
    int32_t *d_gen = (int32_t *)dev_alloc((size_t)cap * sizeof(int32_t));
    int32_t *d_sorted = sorted_rows ? nullptr : (int32_t *)dev_alloc((size_t)cap * sizeof(int32_t));
    int32_t *d_off = sorted_rows ? nullptr : (int32_t *)dev_alloc((size_t)(max_rows + 1) * sizeof(int32_t));
    unsigned long long *d_fail = (unsigned long long *)dev_alloc(sizeof(unsigned long long));
    CK(cudaMemset(d_fail, 0xff, sizeof(unsigned long long)));
    size_t tmp_bytes = 0;
    void *d_tmp = nullptr;
    if (!sorted_rows) {
        CK(cub::DeviceSegmentedSort::SortKeys(nullptr, tmp_bytes, d_gen, d_sorted, cap, max_rows, d_off, d_off + 1));
        d_tmp = dev_alloc(tmp_bytes);
        k_offsets<<<blocks_for(max_rows + 1, 256), 256>>>(max_rows, K, d_off);
        CK_LAUNCH("k_offsets");
    }
    int32_t *h_buf = nullptr;
    CK(cudaMallocHost((void **)&h_buf, (size_t)cap * sizeof(int32_t)));
    olive_info("cuda: %lld rows in chunks of %lld, %lld threads with %lld-slot duplicate sets",
               (long long)N, (long long)max_rows, (long long)threads, (long long)1 << lg);
    for (int64_t a = 0; a < N; a += max_rows) {
        const int64_t rows = a + max_rows < N ? max_rows : N - a, n = rows * K;
        double t = olive_now();
        if (gen == EXACT_GAUSS)
            k_exact<EXACT_GAUSS><<<blocks_for(threads, per_block), per_block>>>(cfg->seed, R0 + a, rows, M, K, tab,
                                                                             d_scratch, lg, d_gen, d_fail);
        else
            k_exact<EXACT_FIXED><<<blocks_for(threads, per_block), per_block>>>(cfg->seed, R0 + a, rows, M, K, tab,
                                                                             d_scratch, lg, d_gen, d_fail);
        CK_LAUNCH("k_exact");
        const int32_t *res = d_gen;
        if (!sorted_rows) {
            size_t need = 0;
            CK(cub::DeviceSegmentedSort::SortKeys(nullptr, need, d_gen, d_sorted, n, rows, d_off, d_off + 1));
            if (need > tmp_bytes) olive_die("CUDA: segmented sort needs %zu bytes of scratch, %zu reserved", need, tmp_bytes);
            CK(cub::DeviceSegmentedSort::SortKeys(d_tmp, need, d_gen, d_sorted, n, rows, d_off, d_off + 1));
            res = d_sorted;
        }
        unsigned long long fail = 0;
        CK(cudaMemcpy(&fail, d_fail, sizeof fail, cudaMemcpyDeviceToHost));
        if (fail != ~0ull) gc_gauss_fail(cfg, (int64_t)fail);   /* dies */
        CK(cudaMemcpy(h_buf, res, (size_t)n * sizeof(int32_t), cudaMemcpyDeviceToHost));
        double t2 = olive_now();
        tm->t_kernels += t2 - t;
        olive_memcpy_parallel(net->col + a * K, h_buf, (size_t)n * sizeof(int32_t));
        tm->t_copy += olive_now() - t2;
        olive_progress("generating", (double)(a + rows) / (double)N);
    }
    olive_progress_done();
    CK(cudaFreeHost(h_buf));
    if (d_tmp) CK(cudaFree(d_tmp));
    CK(cudaFree(d_fail));
    if (d_off) CK(cudaFree(d_off));
    if (d_sorted) CK(cudaFree(d_sorted));
    CK(cudaFree(d_gen));
    CK(cudaFree(d_scratch));
    for (int k = 0; k < 6; k++)
        if (d_tables[k]) CK(cudaFree(d_tables[k]));
    gc_gauss_free(gauss);
}

extern "C" void gc_generate_cuda(const gc_config *cfg, olive_network *net, int local_rank)
{
    double t0 = olive_now();
    const int dev = olive_cuda_select(local_rank);
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    double t1 = olive_now();
    timing tm = {0, 0};
    if (cfg->gen == GC_UNIFORM && !cfg->fixed_degree) gen_bern(cfg, net, &tm);
    else if (cfg->gen == GC_UNIFORM) gen_exact(cfg, net, EXACT_FIXED, &tm);
    else if (cfg->gen == GC_GAUSSIAN) gen_exact(cfg, net, EXACT_GAUSS, &tm);
    else olive_die("internal: generator %s has no CUDA path", gc_generator_name(cfg->gen));
    CK(cudaDeviceSynchronize());
    double t2 = olive_now();
    olive_info("cuda generation on device %d (%s): %lld junctions in %.3f s (%.3g junctions/s; device %.3f s, "
               "host copies %.3f s; device setup %.3f s before)",
               dev, prop.name, (long long)net->nnz, t2 - t1, (double)net->nnz / (t2 - t1 > 0 ? t2 - t1 : 1e-9),
               tm.t_kernels, tm.t_copy, t1 - t0);
}
