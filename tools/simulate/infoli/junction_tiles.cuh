/* Gap-junction sums in shared-memory tiles (CUDA engine, many junctions a row).
 *
 * Why: a thread a row gathering each neighbour's voltage moves a 32-byte L2
 * sector for 8 bytes, and on a random network no two gathers share one; at
 * 100 and more junctions a row the L2 is the bound (docs/BENCHMARKS.md, "The
 * performance model"). Here one block an SM owns up to JT_RMAX rows of a row
 * list (their sums and own voltages in shared memory) and walks all the
 * voltages tile by tile, each tile copied into shared memory once a block
 * (two buffers: the next tile comes while this one is used).
 *
 * The junctions of a block's rows whose neighbours fall in one tile form row
 * segments. A tile's segments of a block are sorted by length (longest
 * first, rows ascending among equals) and dealt 32 to a group, a lane a
 * segment, a warp a group at a time: a lane adds its segment's terms to its
 * row's sum one by one, in stored order, and a row meets the tiles in
 * ascending order, so where every row's neighbours ascend (checked at
 * set-up) each row's terms are added in stored order, as the CPU and the
 * other CUDA kernels add them: the same bits. Sorting by length keeps a
 * warp's lanes nearly equally busy (the padding is ~1 % on random networks).
 *
 * Layout (built on the device from the CSR rows, jt_build):
 *   gfirst[b * ntiles + t] .. gfirst[b * ntiles + t + 1]: block b's groups of tile t
 *   rec[g * 32 + lane]: the lane's row (list position - b * rows_per_block) | length << JT_LEN_SHIFT
 *   off[g]: group g's entries start at ent[off[g] * 32]; entry j of a lane at ent[(off[g] + j) * 32 + lane]
 *   ent: neighbour - t * JT_TILE | conductance code << 16 (0 where a lane's segment is shorter) */
#ifndef OLIVE_JUNCTION_TILES_CUH
#define OLIVE_JUNCTION_TILES_CUH
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <stdint.h>
#include <string.h>
#include "model.h"

#define JT_TILE 6144      /* voltages a tile (48 KiB in double) */
#define JT_RMAX 8192      /* rows a block at most */
#define JT_LEN_SHIFT 13   /* log2(JT_RMAX) */

struct jt_layout {
    int64_t nrows, rows_per_block, nvolt;   /* list rows, rows a block, voltages the columns index */
    int ntiles, nblocks;
    int64_t *gfirst;
    uint32_t *rec;
    uint64_t *off;
    uint32_t *ent;
    size_t bytes;                           /* device memory held */
};

__device__ __forceinline__ double jt_term(int kind, double w, double v) { return olive_gj_term_d(kind, w, v); }
__device__ __forceinline__ float jt_term(int kind, float w, float v) { return olive_gj_term_f(kind, w, v); }

/* Copy voltages [c0, c0 + JT_TILE) (fewer at the end) into dst, 16 bytes a copy where aligned. */
template <typename R>
__device__ __forceinline__ void jt_fetch(R *dst, const R *vd, int64_t c0, int64_t nv)
{
    const int64_t m = nv - c0 < JT_TILE ? nv - c0 : JT_TILE;
    const int per = 16 / (int)sizeof(R);
    const int64_t whole = m / per;
    for (int64_t i = threadIdx.x; i < whole; i += blockDim.x) __pipeline_memcpy_async(dst + per * i, vd + c0 + per * i, 16);
    for (int64_t i = whole * per + threadIdx.x; i < m; i += blockDim.x) dst[i] = vd[c0 + i];
    __pipeline_commit();
}

/* Shared memory of k_tile_currents<R>. */
template <typename R> constexpr size_t jt_smem_bytes() { return (2 * JT_RMAX + 2 * JT_TILE + 256) * sizeof(R); }

/* ic[row] = the junction sum of each row of the list (rows: list position ->
 * local row; NULL: itself), a block an SM part of the list. BITS: 0 (one
 * conductance w0), 4 or 8 (codes into lut). */
template <typename R, int BITS, int GJ>
__global__ void __launch_bounds__(1024, 1) k_tile_currents(const R *vd, jt_layout T, const int32_t *rows, const R *lut_g,
                                                             R w0, R *ic)
{
    extern __shared__ __align__(16) unsigned char jt_sm[];
    R *sum = (R *)jt_sm, *vi = sum + JT_RMAX, *buf = vi + JT_RMAX, *lut = buf + 2 * JT_TILE;
    const int64_t k0 = (int64_t)blockIdx.x * T.rows_per_block;
    const int nr = (int)(T.nrows - k0 < T.rows_per_block ? T.nrows - k0 : T.rows_per_block);
    for (int i = threadIdx.x; i < nr; i += blockDim.x) {
        const int64_t r = rows ? (int64_t)rows[k0 + i] : k0 + i;
        sum[i] = (R)0;
        vi[i] = vd[r];
    }
    if (BITS != 0)
        for (int i = threadIdx.x; i < (1 << BITS); i += blockDim.x) lut[i] = lut_g[i];
    jt_fetch(buf, vd, 0, T.nvolt);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    const int64_t *gf = T.gfirst + (int64_t)blockIdx.x * T.ntiles;
    for (int t = 0; t < T.ntiles; t++) {
        __pipeline_wait_prior(0);
        __syncthreads();   /* tile t in; tile t - 1 done by every warp, its buffer free */
        if (t + 1 < T.ntiles) jt_fetch(buf + ((t + 1) & 1) * JT_TILE, vd, (int64_t)(t + 1) * JT_TILE, T.nvolt);
        const R *tv = buf + (t & 1) * JT_TILE;
        for (int64_t g = gf[t] + warp; g < gf[t + 1]; g += nw) {
            const uint32_t rc = T.rec[g * 32 + lane];
            const int row = rc & (JT_RMAX - 1), len = (int)(rc >> JT_LEN_SHIFT);
            const int most = __shfl_sync(0xffffffffu, len, 0);   /* lane 0's segment is the longest */
            const uint32_t *e = T.ent + T.off[g] * 32 + lane;
            const R v = vi[row];
            R a = len ? sum[row] : (R)0;
            int j = 0;
            for (; j + 2 <= most; j += 2) {
                const uint32_t x0 = e[32 * j], x1 = e[32 * (j + 1)];
                const R t0 = jt_term(GJ, BITS ? lut[x0 >> 16] : w0, v - tv[x0 & 0xffff]);
                const R t1 = jt_term(GJ, BITS ? lut[x1 >> 16] : w0, v - tv[x1 & 0xffff]);
                if (j < len) a = a + t0;
                if (j + 1 < len) a = a + t1;
            }
            if (j < most) {
                const uint32_t x0 = e[32 * j];
                const R t0 = jt_term(GJ, BITS ? lut[x0 >> 16] : w0, v - tv[x0 & 0xffff]);
                if (j < len) a = a + t0;
            }
            if (len) sum[row] = a;
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < nr; i += blockDim.x) ic[rows ? (int64_t)rows[k0 + i] : k0 + i] = sum[i];
}

/* ---- set-up: the layout from CSR rows on the device ---- */

/* Segments of list position k (row rows[k]): how many tiles its columns
 * touch; *bad set where a row's columns do not ascend. */
__global__ void k_jt_count(const int32_t *rows, int64_t n, const int64_t *rp, const int32_t *col, uint64_t *nseg, int *bad)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const int64_t r = rows ? (int64_t)rows[k] : k;
    uint64_t c = 0;
    int64_t last = -1;
    if (rp[r + 1] - rp[r] >= 0xffffff) { atomicOr(bad, 1); return; }   /* (the key's 24 bits of length) */
    for (int64_t e = rp[r]; e < rp[r + 1]; e++) {
        const int64_t x = col[e];
        if (x < last) { atomicOr(bad, 1); return; }
        if (last < 0 || x / JT_TILE != last / JT_TILE) c++;
        last = x;
    }
    nseg[k] = c;
}

/* Each segment: its sort key ((block, tile) then length, longest first),
 * its list position and first CSR entry; the count of its (block, tile). */
__global__ void k_jt_segments(const int32_t *rows, int64_t n, const int64_t *rp, const int32_t *col, const uint64_t *segoff,
                              int64_t rpb, int ntiles, uint64_t *key, uint32_t *sid, uint32_t *spos, int64_t *se0,
                              unsigned long long *cnt)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const int64_t r = rows ? (int64_t)rows[k] : k, b = k / rpb, end = rp[r + 1];
    uint64_t s = segoff[k];
    for (int64_t e = rp[r]; e < end;) {
        const int64_t t = col[e] / JT_TILE;
        int64_t f = e + 1;
        while (f < end && col[f] / JT_TILE == t) f++;
        const uint64_t bt = (uint64_t)(b * ntiles + t);
        key[s] = bt << 24 | (uint64_t)(0xffffff - (f - e));
        sid[s] = (uint32_t)s;
        spos[s] = (uint32_t)k;
        se0[s] = e;
        atomicAdd(&cnt[bt], 1ull);
        s++;
        e = f;
    }
}

/* Groups: the first lane of each writes its group's length (the longest). */
__global__ void k_jt_glen(const uint64_t *key, uint64_t nseg, const uint64_t *runstart, const int64_t *gfirst, uint64_t *glen)
{
    const uint64_t p = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= nseg) return;
    const uint64_t bt = key[p] >> 24, idx = p - runstart[bt];
    if (idx % 32 == 0) glen[gfirst[bt] + idx / 32] = 0xffffff - (key[p] & 0xffffff);
}

template <int BITS>
__global__ void k_jt_fill(const uint64_t *key, const uint32_t *sid, uint64_t nseg, const uint64_t *runstart, const int64_t *gfirst,
                          const uint32_t *spos, const int64_t *se0, const int32_t *col, const uint8_t *code, int64_t rpb,
                          int ntiles, const uint64_t *off, uint32_t *rec, uint32_t *ent)
{
    const uint64_t p = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= nseg) return;
    const uint64_t bt = key[p] >> 24, idx = p - runstart[bt];
    const int64_t len = 0xffffff - (int64_t)(key[p] & 0xffffff), g = gfirst[bt] + (int64_t)(idx / 32);
    const int lane = (int)(idx % 32);
    const uint32_t s = sid[p];
    const int64_t b = (int64_t)(bt / (uint64_t)ntiles), t = (int64_t)(bt % (uint64_t)ntiles);
    rec[g * 32 + lane] = (uint32_t)(spos[s] - b * rpb) | (uint32_t)len << JT_LEN_SHIFT;
    uint32_t *o = ent + off[g] * 32 + lane;
    for (int64_t j = 0; j < len; j++) {
        const int64_t e = se0[s] + j;
        uint32_t c = 0;
        if (BITS == 8) c = code[e];
        else if (BITS == 4) c = (code[e >> 1] >> ((e & 1) * 4)) & 15;
        o[32 * j] = (uint32_t)(col[e] - t * JT_TILE) | c << 16;
    }
}

/* ---- set-up, host side ---- */

__global__ void k_jt_groups(const unsigned long long *cnt, int64_t nbt, int64_t *gcount)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nbt) gcount[i] = (int64_t)((cnt[i] + 31) / 32);
}

static void jt_free(jt_layout *L)
{
    cudaFree(L->gfirst); cudaFree(L->rec); cudaFree(L->off); cudaFree(L->ent);
    L->gfirst = NULL, L->rec = NULL, L->off = NULL, L->ent = NULL, L->bytes = 0;
}

/* Device memory or NULL (the error cleared: the caller falls back). */
static void *jt_alloc(size_t bytes, size_t *held)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) { (void)cudaGetLastError(); return NULL; }
    if (held) *held += bytes;
    return p;
}

/* *h = *d once stream st's work is done; 0 where that failed (the build then gives up). */
template <typename T> static int jt_read(cudaStream_t st, const T *d, T *h)
{
    return cudaStreamSynchronize(st) == cudaSuccess && cudaMemcpy(h, d, sizeof *h, cudaMemcpyDeviceToHost) == cudaSuccess;
}

/* A CUB call's status as a condition: the build gives up where one fails. */
#define JT_OK(call) ((call) == cudaSuccess)

/* The tiles' layout of list rows (rows: list position -> local row, NULL:
 * itself; n of them) from the CSR rows on the device (rp, col; code: the
 * file's packing of BITS 0, 4 or 8), neighbours indexing nvolt voltages,
 * a block for each of nsm SMs (more where a block would exceed JT_RMAX).
 * Returns 0 and *L, or 1 where the layout cannot serve (a row's neighbours
 * do not ascend, a row too long, device memory short): nothing is held then
 * and the caller keeps its other kernels. CUDA errors otherwise are the
 * caller's check's (the next synchronising call). */
template <int BITS>
static int jt_build(const int32_t *rows, int64_t n, const int64_t *rp, const int32_t *col, const void *code, int64_t nvolt,
                    int nsm, cudaStream_t st, jt_layout *L)
{
    memset(L, 0, sizeof *L);
    if (n <= 0 || nvolt <= 0 || (BITS != 0 && BITS != 4 && BITS != 8)) return 1;
    int64_t rpb = (n + nsm - 1) / nsm;
    if (rpb > JT_RMAX) rpb = JT_RMAX;
    const int64_t nblk = (n + rpb - 1) / rpb, ntiles = (nvolt + JT_TILE - 1) / JT_TILE, nbt = nblk * ntiles;
    int bits_bt = 1;
    while (bits_bt < 40 && ((int64_t)1 << bits_bt) <= nbt) bits_bt++;
    if (24 + bits_bt > 64) return 1;
    const unsigned nb = (unsigned)((n + 255) / 256);
    size_t tmp = 0, held = 0;
    void *cub_tmp = NULL;
    size_t cub_bytes = 0;
    uint64_t *segoff = NULL, *key = NULL, *key2 = NULL, *glen = NULL;
    uint32_t *sid = NULL, *sid2 = NULL, *spos = NULL;
    int64_t *se0 = NULL, *gcount = NULL;
    unsigned long long *cnt = NULL;
    int *bad = NULL;
    int ok = 0;
    uint64_t S = 0, G = 0, E = 0;
    /* 1. segments a row, and whether every row ascends */
    if (!(segoff = (uint64_t *)jt_alloc((n + 1) * 8, &tmp)) || !(bad = (int *)jt_alloc(sizeof(int), &tmp))) goto out;
    cudaMemsetAsync(bad, 0, sizeof(int), st);
    cudaMemsetAsync(segoff, 0, (n + 1) * 8, st);
    k_jt_count<<<nb, 256, 0, st>>>(rows, n, rp, col, segoff, bad);
    if (cub::DeviceScan::ExclusiveSum(NULL, cub_bytes, segoff, segoff, n + 1, st) != cudaSuccess) goto out;
    if (!(cub_tmp = jt_alloc(cub_bytes, &tmp))) goto out;
    if (!JT_OK(cub::DeviceScan::ExclusiveSum(cub_tmp, cub_bytes, segoff, segoff, n + 1, st))) goto out;
    cudaFree(cub_tmp), cub_tmp = NULL;
    {
        int b = 1;
        if (!jt_read(st, bad, &b) || b || !jt_read(st, segoff + n, &S) || S == 0 || S >= 0xffffffffull) goto out;
    }
    /* 2. the segments, keyed (block, tile, longest first), and each (block, tile)'s count */
    if (!(key = (uint64_t *)jt_alloc(S * 8, &tmp)) || !(key2 = (uint64_t *)jt_alloc(S * 8, &tmp)) ||
        !(sid = (uint32_t *)jt_alloc(S * 4, &tmp)) || !(sid2 = (uint32_t *)jt_alloc(S * 4, &tmp)) ||
        !(spos = (uint32_t *)jt_alloc(S * 4, &tmp)) || !(se0 = (int64_t *)jt_alloc(S * 8, &tmp)) ||
        !(cnt = (unsigned long long *)jt_alloc((nbt + 1) * 8, &tmp)) || !(gcount = (int64_t *)jt_alloc((nbt + 1) * 8, &tmp)))
        goto out;
    cudaMemsetAsync(cnt, 0, (nbt + 1) * 8, st);
    cudaMemsetAsync(gcount, 0, (nbt + 1) * 8, st);
    k_jt_segments<<<nb, 256, 0, st>>>(rows, n, rp, col, segoff, rpb, (int)ntiles, key, sid, spos, se0, cnt);
    k_jt_groups<<<(unsigned)((nbt + 255) / 256), 256, 0, st>>>(cnt, nbt, gcount);
    /* 3. runs' starts and groups' firsts; the segments sorted (stable: rows ascending among equal lengths) */
    {
        cub::DoubleBuffer<uint64_t> dk(key, key2);
        cub::DoubleBuffer<uint32_t> dv(sid, sid2);
        size_t b1 = 0, b2 = 0, b3 = 0;
        if (!JT_OK(cub::DeviceScan::ExclusiveSum(NULL, b1, cnt, cnt, nbt + 1, st)) ||
            !JT_OK(cub::DeviceScan::ExclusiveSum(NULL, b2, gcount, gcount, nbt + 1, st)) ||
            !JT_OK(cub::DeviceRadixSort::SortPairs(NULL, b3, dk, dv, (int64_t)S, 0, 24 + bits_bt, st)))
            goto out;
        cub_bytes = b1 > b2 ? b1 : b2;
        cub_bytes = cub_bytes > b3 ? cub_bytes : b3;
        if (!(cub_tmp = jt_alloc(cub_bytes, &tmp))) goto out;
        if (!JT_OK(cub::DeviceScan::ExclusiveSum(cub_tmp, cub_bytes, cnt, cnt, nbt + 1, st)) ||
            !JT_OK(cub::DeviceScan::ExclusiveSum(cub_tmp, cub_bytes, gcount, gcount, nbt + 1, st)) ||
            !JT_OK(cub::DeviceRadixSort::SortPairs(cub_tmp, cub_bytes, dk, dv, (int64_t)S, 0, 24 + bits_bt, st)))
            goto out;
        cudaFree(cub_tmp), cub_tmp = NULL;
        key = dk.Current(), key2 = dk.Alternate(), sid = dv.Current(), sid2 = dv.Alternate();
    }
    cudaFree(key2), key2 = NULL;
    cudaFree(sid2), sid2 = NULL;
    {
        int64_t g = 0;
        if (!jt_read(st, gcount + nbt, &g)) goto out;
        G = (uint64_t)g;
    }
    /* 4. each group's entries: its longest segment's length, their running sums */
    if (!(glen = (uint64_t *)jt_alloc((G + 1) * 8, &tmp))) goto out;
    cudaMemsetAsync(glen, 0, (G + 1) * 8, st);
    k_jt_glen<<<(unsigned)((S + 255) / 256), 256, 0, st>>>(key, S, (const uint64_t *)cnt, gcount, glen);
    cub_bytes = 0;
    if (!JT_OK(cub::DeviceScan::ExclusiveSum(NULL, cub_bytes, glen, glen, G + 1, st)) ||
        !(cub_tmp = jt_alloc(cub_bytes, &tmp)) || !JT_OK(cub::DeviceScan::ExclusiveSum(cub_tmp, cub_bytes, glen, glen, G + 1, st)))
        goto out;
    cudaFree(cub_tmp), cub_tmp = NULL;
    if (!jt_read(st, glen + G, &E)) goto out;
    /* 5. the layout */
    if (!(L->gfirst = (int64_t *)jt_alloc((nbt + 1) * 8, &held)) || !(L->rec = (uint32_t *)jt_alloc(G * 32 * 4, &held)) ||
        !(L->ent = (uint32_t *)jt_alloc(E * 32 * 4, &held)))
        goto out;
    L->off = (uint64_t *)glen, glen = NULL;
    held += (G + 1) * 8;
    cudaMemcpyAsync(L->gfirst, gcount, (nbt + 1) * 8, cudaMemcpyDeviceToDevice, st);
    cudaMemsetAsync(L->rec, 0, G * 32 * 4, st);
    cudaMemsetAsync(L->ent, 0, E * 32 * 4, st);
    k_jt_fill<BITS><<<(unsigned)((S + 255) / 256), 256, 0, st>>>(key, sid, S, (const uint64_t *)cnt, gcount, spos, se0, col,
                                                                  (const uint8_t *)code, rpb, (int)ntiles, L->off, L->rec, L->ent);
    cudaStreamSynchronize(st);
    L->nrows = n, L->rows_per_block = rpb, L->nvolt = nvolt, L->ntiles = (int)ntiles, L->nblocks = (int)nblk, L->bytes = held;
    ok = 1;
out:
    cudaFree(cub_tmp); cudaFree(segoff); cudaFree(bad); cudaFree(key); cudaFree(key2); cudaFree(sid); cudaFree(sid2);
    cudaFree(spos); cudaFree(se0); cudaFree(cnt); cudaFree(gcount); cudaFree(glen);
    if (!ok) jt_free(L);
    return ok ? 0 : 1;
}

#endif
