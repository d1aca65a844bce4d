/* The CUDA backend of olive-simulate (--backend cuda): one MPI rank per GPU.
 *
 * The physics is common/models/model.h, the very source the CPU backend runs, here
 * compiled by nvcc for the device. Built with -fmad=false and IEEE division,
 * every operation rounds as on the CPU (-ffp-contract=off, exp in plain
 * arithmetic: common/math/fastexp.h), so both backends give the same numbers.
 *
 * Layout: structure of arrays, double-buffered (d_cur/d_nxt, swapped each
 * step). The junctions of each row list (interior, boundary) are re-laid on
 * the device in sliced ELL: 32 consecutive rows of the list form a slice,
 * stored entry-major (entry j of the 32 rows side by side), padded to the
 * slice's longest row. A thread owns a row and sums its junctions in stored
 * order (the CPU's bits) while a warp's loads of indices and conductance
 * codes are coalesced; neighbour voltages are gathered (from L2 for networks
 * of a few million cells). Each step:
 *   stream x: pack the V_dend values other ranks need -> pinned host buffer
 *   stream c: interior rows (gap-junction sum in stored order + cell update)
 *   host:     MPI_Ineighbor_alltoallv of the pinned buffers (the counts of
 *             exchange.c), then the halo goes back to the device on stream x
 *   stream c: boundary rows, after the halo (event)
 * With few junctions per row one kernel does the sum and the cell update;
 * with many, the sum runs in its own lean kernel and the update follows;
 * where a row meets a tile at two or more junctions on average, in lists of
 * 10M junctions or more (or with OLIVE_CUDA_SUMS=tiles), the sums come from
 * shared-memory tiles of the voltages instead of gathers (junction_tiles.cuh:
 * the same bits).
 * Spikes (atomic counter + buffer of (step, cell)) and the first non-finite
 * value (atomicMin of (step, cell)) are found on the device and collected
 * every few steps. The host keeps mirrors of the state only for output. */
#define OMPI_SKIP_MPICXX 1
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* Before sim.h: C++ headers may not be included with C linkage. */
#include "noise.h"
extern "C" {
#include "sim.h"
#include "util.h"
}
#include "model.h"
#include "junction_tiles.cuh"

#include "cuda_check.h"
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h> /* Open MPI: MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support */
#endif

/* Whether MPI can move device memory: Open MPI says so at compile and at run
 * time; OLIVE_CUDA_AWARE=1 asserts it for MPIs that do not advertise it (e.g.
 * MVAPICH2-GDR, Cray MPICH with MPICH_GPU_SUPPORT_ENABLED=1), =0 forbids it.
 * The Debian Open MPI olive is tested with is not CUDA-aware. */
static int mpi_cuda_aware(void)
{
    if (const char *e = getenv("OLIVE_CUDA_AWARE")) {
        if (!strcmp(e, "0") || !strcmp(e, "1")) return e[0] == '1';
        olive_die("OLIVE_CUDA_AWARE=%s: expected 0 or 1", e);
    }
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support();
#else
    return 0;
#endif
}

/* Pulses active in a step travel as a kernel argument (up to INLINE_PULSES),
 * otherwise through a device buffer. */
#define INLINE_PULSES 32
struct dev_pulses {
    int n;
    const sim_pulse *ext;            /* device copy when n > INLINE_PULSES */
    int64_t first[INLINE_PULSES], last[INLINE_PULSES];
    double amp[INLINE_PULSES];
};

/* The noise of a step: cur[r] is the OU current of local row r for this
 * step, replaced by the next step's (NULL: no noise). */
template <typename R> struct dev_noise {
    R *cur;
    olive_noise nz;
    int64_t step;
};

template <typename R> struct dev_state {
    const R *c[OLIVE_NVARS];
    R *n[OLIVE_NVARS];
};

/* Spike and non-finite reports of the current window of steps. */
struct dev_report {
    unsigned long long count;        /* spikes found (may exceed cap: overflow) */
    unsigned long long bad;          /* min of (step in window << 32 | local cell), ~0: none */
};

/* One row list (interior or boundary) in sliced ELL (header comment). */
struct ell_list {
    int64_t nrows;                   /* rows in the list */
    int32_t *rows;                   /* local row of list position k; NULL: k itself */
    int64_t *slice;                  /* nslices + 1 offsets, in units of 32 entries */
    int32_t *len;                    /* junctions of the row at list position k */
    int32_t *col;                    /* local neighbour index per entry */
    void *code;                      /* conductance code per entry (bits 4 widened to 8); NULL: bits 0 */
    int tiled;                       /* the junction sums from tiles (junction_tiles.cuh) */
    jt_layout tiles;
};

struct sim_cuda {
    int device;
    cudaStream_t sc, sx;
    cudaEvent_t ev_halo, ev_done;
    size_t el;
    void *d_a[OLIVE_NVARS], *d_b[OLIVE_NVARS]; /* the two buffers */
    void *d_cur[OLIVE_NVARS], *d_nxt[OLIVE_NVARS];
    ell_list inner, outer;           /* interior rows, boundary rows */
    int32_t *d_send;
    void *d_lut, *d_sendbuf, *d_ic;
    void *d_noise;                   /* OU current per own cell (NULL: no noise) */
    void *h_send, *h_recv;           /* pinned staging of the halo exchange */
    sim_pulse *d_pulses, *h_pulses;  /* more than INLINE_PULSES active pulses */
    unsigned long long *d_spikes;    /* (step in window << 32 | local cell) */
    dev_report *d_rep, *h_rep;
    unsigned long long *h_spikes;
    int64_t cap;                     /* spike buffer entries */
    int64_t window;                  /* steps between collections (power of 2, divides 64) */
    int64_t window0;                 /* first step of the current window */
    int split;                       /* junction sums in their own kernel */
    int energy_owner;                /* the first rank on this GPU: reads its energy */
    int cuda_aware;                  /* MPI takes device buffers: no host staging */
};

/* ---- device code ---- */

__device__ __forceinline__ void cell_step(const double *in, double *out, double iapp, double ic)
{
    olive_cell_step_d(in, out, iapp, ic);
}
__device__ __forceinline__ void cell_step(const float *in, float *out, float iapp, float ic)
{
    olive_cell_step_f(in, out, iapp, ic);
}
__device__ __forceinline__ double ou_next(const olive_noise *nz, double i, int64_t cell, int64_t step)
{
    return olive_ou_next_d(nz, i, cell, step);
}
__device__ __forceinline__ float ou_next(const olive_noise *nz, float i, int64_t cell, int64_t step)
{
    return olive_ou_next_f(nz, i, cell, step);
}
__device__ __forceinline__ double gj_term(int kind, double w, double v) { return olive_gj_term_d(kind, w, v); }
__device__ __forceinline__ float gj_term(int kind, float w, float v) { return olive_gj_term_f(kind, w, v); }

/* The ELL code type of a conductance width: bits 4 is widened to a byte. */
template <int BITS> struct code_t { typedef uint8_t T; };
template <> struct code_t<16> { typedef uint16_t T; };
template <> struct code_t<32> { typedef float T; };
template <> struct code_t<64> { typedef double T; };

/* Code of CSR junction e in the file's packing, as the CPU decodes it. */
template <int BITS>
__device__ __forceinline__ typename code_t<BITS>::T csr_code(const void *cond, int64_t e)
{
    if constexpr (BITS == 4) return (uint8_t)((((const uint8_t *)cond)[e >> 1] >> ((e & 1) * 4)) & 15);
    else return ((const typename code_t<BITS>::T *)cond)[e];
}

/* Re-lay the CSR rows of a list in sliced ELL, a thread per row (once, at
 * set-up). Padding entries keep what cudaMemset left: they are never read. */
template <int BITS>
__global__ void k_to_ell(const int32_t *rows, int64_t nrows, const int64_t *rp, const int32_t *lcol,
                         const void *cond, const int64_t *slice, int32_t *col, void *code)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= nrows) return;
    const int64_t r = rows ? (int64_t)rows[k] : k;
    const int64_t e0 = rp[r], n = rp[r + 1] - e0;
    const int64_t base = slice[k >> 5] * 32 + (k & 31);
    for (int64_t j = 0; j < n; j++) {
        col[base + 32 * j] = lcol[e0 + j];
        if constexpr (BITS != 0) ((typename code_t<BITS>::T *)code)[base + 32 * j] = csr_code<BITS>(cond, e0 + j);
    }
}

/* Conductance of ELL entry e. */
template <typename R, int BITS>
__device__ __forceinline__ R ell_w(const void *code, const R *lut, R w0, int64_t e)
{
    if constexpr (BITS == 0) return w0;
    else if constexpr (BITS == 32) return (R)((const float *)code)[e];
    else if constexpr (BITS == 64) return (R)((const double *)code)[e];
    else return lut[((const typename code_t<BITS>::T *)code)[e]];
}

/* Gap-junction current of list position k (local row r), summed in stored
 * order. Four junctions' terms are computed ahead of their ordered additions
 * so that their loads and exponentials overlap. */
template <typename R, int BITS, int GJ>
__device__ __forceinline__ R ell_current(const R *vd, const ell_list &L, int64_t k, int64_t r, const R *lut, R w0)
{
    const int n = L.len[k];
    const int64_t base = L.slice[k >> 5] * 32 + (k & 31);
    const R vi = vd[r];
    R a = (R)0;
    int j = 0;
    for (; j + 4 <= n; j += 4) {
        R t[4];
#pragma unroll
        for (int u = 0; u < 4; u++) {
            const int64_t e = base + 32 * (int64_t)(j + u);
            t[u] = gj_term(GJ, ell_w<R, BITS>(L.code, lut, w0, e), vi - vd[L.col[e]]);
        }
#pragma unroll
        for (int u = 0; u < 4; u++) a = a + t[u];
    }
    for (; j < n; j++) {
        const int64_t e = base + 32 * (int64_t)j;
        a = a + gj_term(GJ, ell_w<R, BITS>(L.code, lut, w0, e), vi - vd[L.col[e]]);
    }
    return a;
}

/* Cell update of local row r with its gap-junction current ic (MODEL.md
 * "One step"), I_app from the active pulses summed in their order plus the
 * noise current (stepped on, in the CPU's order), spike and non-finite flags
 * as on the CPU. */
template <typename R>
__device__ __forceinline__ void cell_update(const dev_state<R> &st, int64_t r, R ic, const dev_pulses &pl,
                                            const dev_noise<R> &nzs, int64_t row0, R thr, unsigned rel,
                                            unsigned long long *spikes, int64_t cap, dev_report *rep)
{
    R in[OLIVE_NVARS], out[OLIVE_NVARS];
#pragma unroll
    for (int v = 0; v < OLIVE_NVARS; v++) in[v] = st.c[v][r];
    R iapp = (R)0;
    const int64_t id = row0 + r;
    for (int q = 0; q < pl.n; q++) {
        int64_t first, last;
        double amp;
        if (pl.ext) { first = pl.ext[q].first; last = pl.ext[q].last; amp = pl.ext[q].amp; }
        else { first = pl.first[q]; last = pl.last[q]; amp = pl.amp[q]; }
        if (id >= first && (last < 0 || id < last)) iapp = iapp + (R)amp;
    }
    if (nzs.cur) {
        const R x = nzs.cur[r];
        iapp = iapp + x;
        nzs.cur[r] = ou_next(&nzs.nz, x, id, nzs.step);
    }
    cell_step(in, out, iapp, ic);
#pragma unroll
    for (int v = 0; v < OLIVE_NVARS; v++) st.n[v][r] = out[v];
    if (in[OV_V_AXON] < thr && out[OV_V_AXON] >= thr) {
        unsigned long long k = atomicAdd(&rep->count, 1ULL);
        if ((int64_t)k < cap) spikes[k] = ((unsigned long long)rel << 32) | (unsigned long long)r;
    }
    R z = (out[OV_V_DEND] - out[OV_V_DEND]) + (out[OV_V_SOMA] - out[OV_V_SOMA]) + (out[OV_V_AXON] - out[OV_V_AXON]);
    if (!(z == z)) atomicMin(&rep->bad, ((unsigned long long)rel << 32) | (unsigned long long)r);
}

/* A thread per row of a list: the junction sum (unless GJ is NGJ, or
 * FROM_IC: ic[] holds it) and the cell update. */
#define K_ROWS_PARAMS                                                                                               \
    dev_state<R> st, ell_list L, const R *lut, R w0, const R *ic, dev_pulses pl, dev_noise<R> nzs, int64_t row0, \
        R thr, unsigned rel, unsigned long long *spikes, int64_t cap, dev_report *rep
template <typename R, int BITS, int GJ, int FROM_IC>
__device__ __forceinline__ void rows_body(K_ROWS_PARAMS)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= L.nrows) return;
    const int64_t r = L.rows ? (int64_t)L.rows[k] : k;
    R c = (R)0;
    if (FROM_IC) c = ic[r];
    else if (GJ != OLIVE_GJ_NGJ) c = ell_current<R, BITS, GJ>(st.c[OV_V_DEND], L, k, r, lut, w0);
    cell_update<R>(st, r, c, pl, nzs, row0, thr, rel, spikes, cap, rep);
}

/* The kernel in single precision (56 registers). */
template <typename R, int BITS, int GJ, int FROM_IC>
__global__ void __launch_bounds__(128) k_rows(K_ROWS_PARAMS)
{
    rows_body<R, BITS, GJ, FROM_IC>(st, L, lut, w0, ic, pl, nzs, row0, thr, rel, spikes, cap, rep);
}

/* In double, at most 72 registers: 7 blocks an SM, not 6 at its own 74. The
 * fused kernel is latency-bound; on an H200 the step at 10 junctions a cell
 * went from 76.5 to 80.6 % of the floor, at 0 and 20 a little faster too,
 * the same bits (the same bound cost single precision 2 points, hence not
 * there; docs/results/infoli_gpu_tiles_2026-12-04_h200.txt). */
template <typename R, int BITS, int GJ, int FROM_IC>
__global__ void __launch_bounds__(128, 7) k_rows_d(K_ROWS_PARAMS)
{
    rows_body<R, BITS, GJ, FROM_IC>(st, L, lut, w0, ic, pl, nzs, row0, thr, rel, spikes, cap, rep);
}
#undef K_ROWS_PARAMS

/* The junction sums alone (rows with many junctions: a lean kernel keeps
 * more threads in flight to hide the gathers), into ic[]. */
template <typename R, int BITS, int GJ>
__global__ void __launch_bounds__(256) k_currents(const R *vd, ell_list L, const R *lut, R w0, R *ic)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= L.nrows) return;
    const int64_t r = L.rows ? (int64_t)L.rows[k] : k;
    ic[r] = ell_current<R, BITS, GJ>(vd, L, k, r, lut, w0);
}

template <typename R>
__global__ void k_pack(const R *vd, const int32_t *send, int64_t n, R *buf)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) buf[i] = vd[send[i]];
}

/* ---- host side ---- */

static unsigned blocks_for(int64_t threads, int per_block)
{
    int64_t b = (threads + per_block - 1) / per_block;
    if (b > INT32_MAX) olive_die("CUDA backend: %lld threads are too many for one launch", (long long)threads);
    return (unsigned)(b > 0 ? b : 1);
}

/* k_rows or k_rows_d by precision, a thread per row of L. */
template <typename R, int BITS, int GJ, int FROM_IC>
static void launch_k_rows(const ell_list &L, cudaStream_t st_, const dev_state<R> &st, const R *lut, R w0, const R *ic,
                          const dev_pulses &pl, const dev_noise<R> &nzs, int64_t row0, R thr, unsigned rel,
                          unsigned long long *spikes, int64_t cap, dev_report *rep)
{
    if constexpr (sizeof(R) == 8)
        k_rows_d<R, BITS, GJ, FROM_IC><<<blocks_for(L.nrows, 128), 128, 0, st_>>>(st, L, lut, w0, ic, pl, nzs, row0, thr, rel,
                                                                               spikes, cap, rep);
    else
        k_rows<R, BITS, GJ, FROM_IC><<<blocks_for(L.nrows, 128), 128, 0, st_>>>(st, L, lut, w0, ic, pl, nzs, row0, thr, rel,
                                                                             spikes, cap, rep);
}

template <typename R, int BITS, int GJ>
static void launch_rows_t(sim_t *s, const ell_list &L, const dev_pulses &pl, int64_t step, unsigned rel)
{
    sim_cuda *g = s->cuda;
    dev_noise<R> nzs;
    nzs.cur = (R *)g->d_noise;
    nzs.nz = s->io.nz;
    nzs.step = step;
    dev_state<R> st;
    for (int v = 0; v < OLIVE_NVARS; v++) { st.c[v] = (const R *)g->d_cur[v]; st.n[v] = (R *)g->d_nxt[v]; }
    const R w0 = (R)s->net.offset, thr = (R)s->cfg->infoli.spike_threshold;
    const R *lut = (const R *)g->d_lut;
    if (GJ != OLIVE_GJ_NGJ && g->split) {
        if constexpr (BITS == 0 || BITS == 4 || BITS == 8) {
            if (L.tiled) {
                static int smem_set;   /* (one a kernel: this template's) */
                if (!smem_set) {
                    CK(cudaFuncSetAttribute(k_tile_currents<R, BITS, GJ>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            (int)jt_smem_bytes<R>()));
                    smem_set = 1;
                }
                k_tile_currents<R, BITS, GJ><<<(unsigned)L.tiles.nblocks, 1024, jt_smem_bytes<R>(), g->sc>>>(
                    (const R *)g->d_cur[OV_V_DEND], L.tiles, L.rows, lut, w0, (R *)g->d_ic);
                CK_LAUNCH("k_tile_currents");
            }
        }
        if (!L.tiled) {
            k_currents<R, BITS, GJ><<<blocks_for(L.nrows, 256), 256, 0, g->sc>>>(
                (const R *)g->d_cur[OV_V_DEND], L, lut, w0, (R *)g->d_ic);
            CK_LAUNCH("k_currents");
        }
        launch_k_rows<R, 0, GJ, 1>(L, g->sc, st, lut, w0, (const R *)g->d_ic, pl, nzs, s->plan.row0, thr, rel, g->d_spikes,
                                   g->cap, g->d_rep);
        CK_LAUNCH("k_rows (update)");
    } else {
        launch_k_rows<R, BITS, GJ, 0>(L, g->sc, st, lut, w0, (const R *)g->d_ic, pl, nzs, s->plan.row0, thr, rel,
                                      g->d_spikes, g->cap, g->d_rep);
        CK_LAUNCH("k_rows");
    }
}

template <typename R, int GJ>
static void launch_rows_gj(sim_t *s, const ell_list &L, const dev_pulses &pl, int64_t step, unsigned rel)
{
    switch (s->net.bits) {
    case 0: launch_rows_t<R, 0, GJ>(s, L, pl, step, rel); break;
    case 4: launch_rows_t<R, 4, GJ>(s, L, pl, step, rel); break;
    case 8: launch_rows_t<R, 8, GJ>(s, L, pl, step, rel); break;
    case 16: launch_rows_t<R, 16, GJ>(s, L, pl, step, rel); break;
    case 32: launch_rows_t<R, 32, GJ>(s, L, pl, step, rel); break;
    default: launch_rows_t<R, 64, GJ>(s, L, pl, step, rel); break;
    }
}

template <typename R>
static void launch_rows_r(sim_t *s, const ell_list &L, const dev_pulses &pl, int64_t step, unsigned rel)
{
    if (L.nrows <= 0) return;
    switch (s->cfg->infoli.gj) {
    case OLIVE_GJ_RGJ: launch_rows_gj<R, OLIVE_GJ_RGJ>(s, L, pl, step, rel); break;
    case OLIVE_GJ_SGJ: launch_rows_gj<R, OLIVE_GJ_SGJ>(s, L, pl, step, rel); break;
    default: launch_rows_t<R, 0, OLIVE_GJ_NGJ>(s, L, pl, step, rel); break;
    }
}

static void launch_rows(sim_t *s, const ell_list &L, const dev_pulses &pl, int64_t step, unsigned rel)
{
    if (s->cfg->run.single) launch_rows_r<float>(s, L, pl, step, rel);
    else launch_rows_r<double>(s, L, pl, step, rel);
}

extern "C" int sim_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError(); /* no driver / no device: not an error for auto */
        return 0;
    }
    return n;
}

/* Host -> device copy. From pageable memory cudaMemcpy runs at ~5-6 GB/s
 * (the driver stages it on one thread), and the junction arrays of a large
 * network are tens of GB: large copies go through two pinned 64 MiB buffers
 * instead, filled by all host threads while the other one is in flight. */
static void upload(void *dst, const void *src, size_t bytes)
{
    const size_t piece = (size_t)64 << 20;
    if (bytes < 4 * piece) {
        CK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
        return;
    }
    void *pin[2];
    cudaEvent_t done[2];
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    for (int b = 0; b < 2; b++) {
        CK(cudaMallocHost(&pin[b], piece));
        CK(cudaEventCreateWithFlags(&done[b], cudaEventDisableTiming));
    }
    for (size_t off = 0, i = 0; off < bytes; off += piece, i++) {
        const int b = (int)(i & 1);
        const size_t len = bytes - off < piece ? bytes - off : piece;
        if (i >= 2) CK(cudaEventSynchronize(done[b])); /* its previous copy has left */
        olive_memcpy_parallel(pin[b], (const char *)src + off, len);
        CK(cudaMemcpyAsync((char *)dst + off, pin[b], len, cudaMemcpyHostToDevice, st));
        CK(cudaEventRecord(done[b], st));
    }
    CK(cudaStreamSynchronize(st));
    for (int b = 0; b < 2; b++) {
        CK(cudaEventDestroy(done[b]));
        CK(cudaFreeHost(pin[b]));
    }
    CK(cudaStreamDestroy(st));
}

template <typename T> static T *dev_upload(const void *src, size_t bytes, const char *what)
{
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 8);
    if (e != cudaSuccess)
        olive_die("CUDA: cannot allocate %zu bytes of device memory for %s: %s", bytes, what, cudaGetErrorString(e));
    if (src && bytes) upload(p, src, bytes);
    return (T *)p;
}

/* The sliced-ELL copy of the rows in list[0..n) (NULL: rows 0..n-1): slice
 * offsets and row lengths computed here, the entries re-laid on the device
 * from the CSR arrays d_rp / d_lcol / d_cond (the file's packing). */
/* Slice offsets (in units of 32 entries) and row lengths of the sliced-ELL
 * copy of the rows in list[0..n) (NULL: rows 0..n-1); returns the entries. */
static int64_t ell_shape(const sim_t *s, const int32_t *list, int64_t n, int64_t *slice, int32_t *len)
{
    const int64_t *rp = s->plan.lrow_ptr, ns = (n + 31) / 32;
    int64_t total = 0;
    if (slice) slice[0] = 0;
    for (int64_t sl = 0; sl < ns; sl++) {
        int64_t m = 0;
        for (int64_t k = 32 * sl; k < n && k < 32 * sl + 32; k++) {
            int64_t r = list ? list[k] : k, d = rp[r + 1] - rp[r];
            if (d > INT32_MAX) olive_die("CUDA backend: cell %lld has %lld junctions; at most 2^31-1",
                                         (long long)(s->plan.row0 + r), (long long)d);
            if (len) len[k] = (int32_t)d;
            if (d > m) m = d;
        }
        total += m;
        if (slice) slice[sl + 1] = total;
    }
    return total * 32;
}

/* Bytes of one conductance code in the ELL copy (0: none). */
static size_t ell_code_bytes(const sim_t *s)
{
    const int bits = s->cfg->infoli.gj == OLIVE_GJ_NGJ ? 0 : s->net.bits;
    return bits == 0 ? 0 : bits <= 8 ? 1 : (size_t)bits / 8;
}

/* The ELL copy of the rows in list[0..n): shape computed on the host, the
 * entries re-laid on the device from the CSR arrays d_rp / d_lcol / d_cond
 * (the file's packing). */
static void build_ell(sim_t *s, const int32_t *list, int64_t n, const int64_t *d_rp, const int32_t *d_lcol,
                      const void *d_cond, ell_list *L)
{
    const int64_t ns = (n + 31) / 32;
    int64_t *slice = (int64_t *)olive_malloc((size_t)(ns + 1) * sizeof(int64_t), "ELL slices");
    int32_t *len = (int32_t *)olive_malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t), "ELL rows");
    ell_shape(s, list, n, slice, len);
    const int64_t entries = slice[ns] * 32;
    const int bits = s->cfg->infoli.gj == OLIVE_GJ_NGJ ? 0 : s->net.bits;
    const size_t cb = ell_code_bytes(s);
    L->nrows = n;
    L->rows = list ? dev_upload<int32_t>(list, (size_t)n * sizeof(int32_t), "row lists") : NULL;
    L->slice = dev_upload<int64_t>(slice, (size_t)(ns + 1) * sizeof(int64_t), "ELL slices");
    L->len = dev_upload<int32_t>(len, (size_t)n * sizeof(int32_t), "ELL rows");
    L->col = dev_upload<int32_t>(NULL, (size_t)entries * sizeof(int32_t), "junction indices (ELL)");
    L->code = cb ? dev_upload<void>(NULL, (size_t)entries * cb, "conductance codes (ELL)") : NULL;
    CK(cudaMemset(L->col, 0, (size_t)entries * sizeof(int32_t)));
    if (cb) CK(cudaMemset(L->code, 0, (size_t)entries * cb));
    if (n > 0 && s->cfg->infoli.gj != OLIVE_GJ_NGJ) {
        const unsigned nb = blocks_for(n, 256);
        switch (bits) {
        case 0: k_to_ell<0><<<nb, 256>>>(L->rows, n, d_rp, d_lcol, d_cond, L->slice, L->col, L->code); break;
        case 4: k_to_ell<4><<<nb, 256>>>(L->rows, n, d_rp, d_lcol, d_cond, L->slice, L->col, L->code); break;
        case 8: k_to_ell<8><<<nb, 256>>>(L->rows, n, d_rp, d_lcol, d_cond, L->slice, L->col, L->code); break;
        case 16: k_to_ell<16><<<nb, 256>>>(L->rows, n, d_rp, d_lcol, d_cond, L->slice, L->col, L->code); break;
        case 32: k_to_ell<32><<<nb, 256>>>(L->rows, n, d_rp, d_lcol, d_cond, L->slice, L->col, L->code); break;
        default: k_to_ell<64><<<nb, 256>>>(L->rows, n, d_rp, d_lcol, d_cond, L->slice, L->col, L->code); break;
        }
        CK_LAUNCH("k_to_ell");
    }
    free(slice);
    free(len);
}

/* The tiles' layout of list L where its sums run in their own kernel, the
 * list holds JT_MIN_LIST junctions or more and a row meets a tile, on
 * average, at JT_MIN_SEGMENT junctions or more (the default); always with
 * OLIVE_CUDA_SUMS=tiles, never with =rows (tuning and validation). Built
 * from the CSR arrays while they are on the device; L keeps the thread-a-row
 * kernel where the layout cannot serve. Why a segment's mean length decides:
 * each segment costs its row's sum read and written in shared memory and a
 * record; on 1M cells (H100, docs/results/infoli_gpu_tiles_2026-12-06_h100.txt)
 * the tiles ran at 0.78x the gathers at ~0.6 junctions a segment (100 a row)
 * and at 2.06x at ~5.9 (1000 a row); a fit of segments' and junctions' costs
 * to those two puts the crossing near 1.2, hence 2 with a margin. Smaller
 * lists are bound by launches, not by gathers, and the tiles were not timed
 * there: they keep the gathers. */
#define JT_MIN_SEGMENT 2.0
#define JT_MIN_LIST 10000000
static void build_tiles(sim_t *s, int split, int nsm, const int32_t *list, const int64_t *d_rp, const int32_t *d_lcol,
                        const void *d_cond, ell_list *L)
{
    const olive_plan *p = &s->plan;
    const int bits = s->net.bits;
    const int64_t nv = p->nlocal + p->nhalo;
    int want = split && L->nrows > 0 && nv > 0;
    if (want) {   /* the list's junctions a row times the share of the voltages a tile holds */
        int64_t nj = 0;
        for (int64_t k = 0; k < L->nrows; k++) {
            const int64_t r = list ? list[k] : k;
            nj += p->lrow_ptr[r + 1] - p->lrow_ptr[r];
        }
        want = nj >= JT_MIN_LIST && (double)nj / (double)L->nrows * ((double)JT_TILE / (double)nv) >= JT_MIN_SEGMENT;
    }
    if (const char *e = getenv("OLIVE_CUDA_SUMS")) {
        if (!strcmp(e, "rows")) want = 0;
        else if (!strcmp(e, "tiles")) want = split && L->nrows > 0;
        else olive_die("OLIVE_CUDA_SUMS=%s: expected rows or tiles", e);
    }
    if (!want || s->cfg->infoli.gj == OLIVE_GJ_NGJ || !(bits == 0 || bits == 4 || bits == 8)) return;
    int r = 1;
    switch (bits) {
    case 0: r = jt_build<0>(L->rows, L->nrows, d_rp, d_lcol, d_cond, nv, nsm, 0, &L->tiles); break;
    case 4: r = jt_build<4>(L->rows, L->nrows, d_rp, d_lcol, d_cond, nv, nsm, 0, &L->tiles); break;
    default: r = jt_build<8>(L->rows, L->nrows, d_rp, d_lcol, d_cond, nv, nsm, 0, &L->tiles); break;
    }
    CK(cudaGetLastError());
    L->tiled = r == 0;
    if (L->tiled) {   /* the sums read the tiles only: the ELL entries go (the update reads rows alone) */
        cudaFree(L->col); cudaFree(L->code);
        L->col = NULL, L->code = NULL;
    }
}

static void free_ell(ell_list *L)
{
    jt_free(&L->tiles);
    cudaFree(L->rows); cudaFree(L->slice); cudaFree(L->len); cudaFree(L->col); cudaFree(L->code);
    memset(L, 0, sizeof *L);
}

static int64_t spike_cap(int64_t n)
{
    /* A cell crosses the threshold upwards at most every other step, so
     * window/2 entries per cell never overflow (window chosen to fit). */
    int64_t cap = 32 * n, lo = (int64_t)4 * n, mid = INT64_C(1) << 24;
    if (cap > (lo > mid ? lo : mid)) cap = lo > mid ? lo : mid;
    return cap > 0 ? cap : 1;
}

/* The device memory the set-up will need at its peak (the CSR copy and the
 * ELL copy side by side), checked against what the GPU has free before
 * anything is allocated, so that a too-large network gets a clear message. */
static void check_device_memory(const sim_t *s, int device, const char *name)
{
    const olive_plan *p = &s->plan;
    const double el = s->cfg->run.single ? 4 : 8, n = (double)p->nlocal, nh = (double)p->nhalo;
    const double nnz = (double)p->lrow_ptr[p->nlocal];
    const int ngj = s->cfg->infoli.gj == OLIVE_GJ_NGJ;
    double ell = 0;
    if (!ngj) {
        ell += (double)ell_shape(s, p->ninterior == p->nlocal ? NULL : p->interior, p->ninterior, NULL, NULL);
        ell += (double)ell_shape(s, p->boundary, p->nboundary, NULL, NULL);
    }
    double need = 2 * OLIVE_NVARS * n * el + 2 * nh * el                 /* state, both buffers */
                + 8 * (n + 1) + (ngj ? 0 : 4 * nnz + (double)(s->net.bits ? olive_cond_bytes(s->net.bits, (int64_t)nnz) : 0))
                + ell * (4 + (double)ell_code_bytes(s)) + 16 * n                /* ELL entries, lengths, lists */
                + 2 * (double)p->nsend * el + 8 * (double)spike_cap(p->nlocal) + n * el + (64 << 20);
    size_t free_b = 0, total_b = 0;
    CK(cudaMemGetInfo(&free_b, &total_b));
    if (const char *fake = getenv("OLIVE_GPU_MEMAVAILABLE")) { /* testing the message: free bytes */
        char *end;
        double v = strtod(fake, &end);
        if (end == fake || *end || !(v >= 0)) olive_die("OLIVE_GPU_MEMAVAILABLE=%s: expected a number of bytes", fake);
        free_b = (size_t)v;
    }
    olive_info("rank %d: the CUDA backend needs about %.2f GiB of device memory, %.2f GiB free on GPU %d", s->rank,
               need / 1073741824.0, (double)free_b / 1073741824.0, device);
    if (need > (double)free_b)
        olive_die("rank %d: the CUDA backend needs about %.2f GiB of device memory for %lld cells and %.0f junctions, "
                  "but GPU %d (%s) has only %.2f GiB free of %.2f GiB; use more ranks (GPUs), --precision single, "
                  "or --backend cpu", s->rank, need / 1073741824.0, (long long)p->nlocal, nnz, device, name,
                  (double)free_b / 1073741824.0, (double)total_b / 1073741824.0);
}

extern "C" void sim_cuda_setup(sim_t *s)
{
    sim_cuda *g = (sim_cuda *)olive_calloc(1, sizeof *g, "CUDA backend");
    s->cuda = g;
    const olive_plan *p = &s->plan;
    /* Device = node-local rank % devices on the node. */
    MPI_Comm node;
    int local = 0, nlocal_ranks = 1, ndev = 0;
    SIM_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    SIM_CHECK_MPI(MPI_Comm_rank(node, &local));
    SIM_CHECK_MPI(MPI_Comm_size(node, &nlocal_ranks));
    MPI_Comm_free(&node);
    CK(cudaGetDeviceCount(&ndev));
    g->device = local % ndev;
    g->energy_owner = local < ndev;
    CK(cudaSetDevice(g->device));
    olive_cuda_l2_fetch();
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, g->device));
    if (nlocal_ranks > ndev && local == 0)
        olive_warn("%d ranks on this node share %d GPU(s); one rank per GPU is fastest", nlocal_ranks, ndev);
    CK(cudaStreamCreateWithFlags(&g->sc, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&g->sx, cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&g->ev_halo, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&g->ev_done, cudaEventDisableTiming));

    const size_t el = s->cfg->run.single ? sizeof(float) : sizeof(double);
    g->el = el;
    const int64_t n = p->nlocal, nh = p->nhalo, nnz = p->lrow_ptr[n];
    if (n > INT32_MAX) olive_die("CUDA backend: %lld cells on one rank; at most 2^31-1 (use more ranks)", (long long)n);
    check_device_memory(s, g->device, prop.name);
    /* State: both buffers start as the host's initial state. */
    for (int v = 0; v < OLIVE_NVARS; v++) {
        size_t len = (size_t)(v == OV_V_DEND ? n + nh : n) * el;
        g->d_a[v] = dev_upload<void>(s->state[v], len, "the state");
        g->d_b[v] = dev_upload<void>(s->state[v], len, "the state");
        g->d_cur[v] = g->d_a[v];
        g->d_nxt[v] = g->d_b[v];
    }
    /* CSR on the device only while the ELL copies are made. */
    const int ngj = s->cfg->infoli.gj == OLIVE_GJ_NGJ;
    int64_t *d_rp = dev_upload<int64_t>(p->lrow_ptr, (size_t)(n + 1) * sizeof(int64_t), "row pointers");
    int32_t *d_lcol = dev_upload<int32_t>(ngj ? NULL : p->lcol, ngj ? 0 : (size_t)nnz * sizeof(int32_t),
                                          "junction indices");
    void *d_cond = s->net.bits && !ngj ? dev_upload<void>(s->net.cond, olive_cond_bytes(s->net.bits, nnz), "conductances")
                                       : NULL;
    build_ell(s, p->ninterior == n ? NULL : p->interior, p->ninterior, d_rp, d_lcol, d_cond, &g->inner);
    build_ell(s, p->boundary, p->nboundary, d_rp, d_lcol, d_cond, &g->outer);
    CK(cudaDeviceSynchronize());
    /* The junction sums in their own kernel once rows average 32 junctions. */
    g->split = n > 0 && nnz / n >= 32;
    if (const char *e = getenv("OLIVE_CUDA_ROWS")) { /* tuning and validation: fused or split */
        if (!strcmp(e, "split")) g->split = 1;
        else if (!strcmp(e, "fused")) g->split = 0;
        else olive_die("OLIVE_CUDA_ROWS=%s: expected fused or split", e);
    }
    build_tiles(s, g->split, prop.multiProcessorCount, p->ninterior == n ? NULL : p->interior, d_rp, d_lcol, d_cond, &g->inner);
    build_tiles(s, g->split, prop.multiProcessorCount, p->boundary, d_rp, d_lcol, d_cond, &g->outer);
    cudaFree(d_rp); cudaFree(d_lcol); cudaFree(d_cond);
    g->d_lut = s->io.wlut ? dev_upload<void>(s->io.wlut, ((size_t)1 << s->net.bits) * el, "the conductance table") : NULL;
    g->d_send = dev_upload<int32_t>(p->send_local, (size_t)p->nsend * sizeof(int32_t), "send lists");
    g->d_sendbuf = dev_upload<void>(NULL, (size_t)p->nsend * el, "the send buffer");
    g->d_ic = dev_upload<void>(NULL, (size_t)n * el, "currents");
    g->d_noise = s->io.noise ? dev_upload<void>(s->io.noise, (size_t)n * el, "noise currents") : NULL;
    CK(cudaMallocHost(&g->h_send, (size_t)p->nsend * el + el));
    CK(cudaMallocHost(&g->h_recv, (size_t)nh * el + el));
    g->d_pulses = dev_upload<sim_pulse>(NULL, (size_t)(s->cfg->stim.npulses + 1) * sizeof(sim_pulse), "pulses");
    CK(cudaMallocHost((void **)&g->h_pulses, (size_t)(s->cfg->stim.npulses + 1) * sizeof(sim_pulse)));
    const int64_t cap = spike_cap(n);
    g->window = 64;
    while (g->window > 8 && (g->window / 2) * n > cap) g->window /= 2;
    g->cap = cap;
    g->d_spikes = dev_upload<unsigned long long>(NULL, (size_t)g->cap * sizeof(unsigned long long), "the spike buffer");
    CK(cudaMallocHost((void **)&g->h_spikes, (size_t)g->cap * sizeof(unsigned long long)));
    g->d_rep = dev_upload<dev_report>(NULL, sizeof(dev_report), "spike reports");
    CK(cudaMallocHost((void **)&g->h_rep, sizeof(dev_report)));
    g->h_rep->count = 0;
    g->h_rep->bad = ~0ULL;
    CK(cudaMemcpy(g->d_rep, g->h_rep, sizeof(dev_report), cudaMemcpyHostToDevice));
    g->cuda_aware = s->size > 1 && mpi_cuda_aware();
    g->window0 = s->cfg->run.start_step; /* spikes are encoded relative to the window's first step */
    CK(cudaDeviceSynchronize());
    olive_info("rank %d: CUDA device %d (%s, %.1f GiB), sliced-ELL rows, %s, halo exchange %s, spikes collected every "
               "%lld steps", s->rank,
               g->device, prop.name, (double)prop.totalGlobalMem / 1073741824.0, !g->split ? "one kernel" : g->inner.tiled || g->outer.tiled ? "junction sums in shared-memory tiles, then the cell updates" : "junction sums and cell updates in two kernels",
               s->size == 1 ? "none (one rank)" : g->cuda_aware ? "device to device (CUDA-aware MPI)" : "through pinned host memory",
               (long long)g->window);
}

extern "C" void sim_cuda_step(sim_t *s, int64_t step, const sim_pulse *active, int nactive)
{
    sim_cuda *g = s->cuda;
    const olive_plan *p = &s->plan;
    double t0 = olive_now(), tx = 0;
    dev_pulses pl;
    pl.n = nactive;
    pl.ext = NULL;
    if (nactive > INLINE_PULSES) {
        /* The previous copy must be done before the staging buffer changes. */
        CK(cudaStreamSynchronize(g->sc));
        memcpy(g->h_pulses, active, (size_t)nactive * sizeof(sim_pulse));
        CK(cudaMemcpyAsync(g->d_pulses, g->h_pulses, (size_t)nactive * sizeof(sim_pulse), cudaMemcpyHostToDevice, g->sc));
        pl.ext = g->d_pulses;
    } else {
        for (int q = 0; q < nactive; q++) { pl.first[q] = active[q].first; pl.last[q] = active[q].last; pl.amp[q] = active[q].amp; }
    }
    const unsigned rel = (unsigned)(step - g->window0);
    if (s->size == 1) {
        launch_rows(s, g->inner, pl, step, rel);
        launch_rows(s, g->outer, pl, step, rel);
    } else {
        const MPI_Datatype t = s->cfg->run.single ? MPI_FLOAT : MPI_DOUBLE;
        /* Pack after the previous step's update (ev_done), on stream x. */
        CK(cudaStreamWaitEvent(g->sx, g->ev_done, 0));
        if (p->nsend > 0) {
            if (s->cfg->run.single)
                k_pack<float><<<blocks_for(p->nsend, 256), 256, 0, g->sx>>>((const float *)g->d_cur[OV_V_DEND], g->d_send,
                                                                         p->nsend, (float *)g->d_sendbuf);
            else
                k_pack<double><<<blocks_for(p->nsend, 256), 256, 0, g->sx>>>((const double *)g->d_cur[OV_V_DEND],
                                                                          g->d_send, p->nsend, (double *)g->d_sendbuf);
            CK_LAUNCH("k_pack");
            if (!g->cuda_aware)
                CK(cudaMemcpyAsync(g->h_send, g->d_sendbuf, (size_t)p->nsend * g->el, cudaMemcpyDeviceToHost, g->sx));
        }
        /* Interior rows while the halo travels. */
        launch_rows(s, g->inner, pl, step, rel);
        double a = olive_now();
        CK(cudaStreamSynchronize(g->sx));
        MPI_Request req;
        char *halo = (char *)g->d_cur[OV_V_DEND] + (size_t)p->nlocal * g->el;
        /* CUDA-aware MPI reads the packed values and writes the halo in
         * device memory itself; otherwise through the pinned buffers. */
        const double m0 = olive_now();
        SIM_CHECK_MPI(MPI_Ineighbor_alltoallv(g->cuda_aware ? g->d_sendbuf : g->h_send, s->io.nbr_send_count,
                                              s->io.nbr_send_displ, t, g->cuda_aware ? (void *)halo : g->h_recv,
                                              s->io.nbr_recv_count, s->io.nbr_recv_displ, t, s->io.graph, &req));
        SIM_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        s->t.mpi += olive_now() - m0;
        if (p->nhalo > 0 && !g->cuda_aware)
            CK(cudaMemcpyAsync(halo, g->h_recv, (size_t)p->nhalo * g->el, cudaMemcpyHostToDevice, g->sx));
        CK(cudaEventRecord(g->ev_halo, g->sx));
        CK(cudaStreamWaitEvent(g->sc, g->ev_halo, 0));
        tx = olive_now() - a;
        launch_rows(s, g->outer, pl, step, rel);
    }
    CK(cudaEventRecord(g->ev_done, g->sc));
    for (int v = 0; v < OLIVE_NVARS; v++) {
        void *x = g->d_cur[v];
        g->d_cur[v] = g->d_nxt[v];
        g->d_nxt[v] = x;
    }
    s->t.exchange += tx;
    s->t.compute += olive_now() - t0 - tx;
}

extern "C" void sim_cuda_poll(sim_t *s, int64_t i)
{
    sim_cuda *g = s->cuda;
    /* a checkpoint writes the spikes so far: all of them are collected there */
    const int64_t ck = s->cfg->run.checkpoint_every;
    if ((i + 1) % g->window != 0 && i + 1 != s->loop_end && !(ck && (i + 1) % ck == 0)) return;
    double t0 = olive_now();
    CK(cudaMemcpyAsync(g->h_rep, g->d_rep, sizeof(dev_report), cudaMemcpyDeviceToHost, g->sc));
    CK(cudaStreamSynchronize(g->sc));
    int64_t count = (int64_t)g->h_rep->count;
    if (count > g->cap)
        olive_die("CUDA backend: %lld spikes in %lld steps on rank %d overflow the buffer of %lld (internal error)",
                  (long long)count, (long long)(i + 1 - g->window0), s->rank, (long long)g->cap);
    if (count > 0) {
        CK(cudaMemcpyAsync(g->h_spikes, g->d_spikes, (size_t)count * sizeof(unsigned long long), cudaMemcpyDeviceToHost, g->sc));
        CK(cudaStreamSynchronize(g->sc));
        if (s->tspike_cap[0] < s->tspike_n[0] + count) {
            int64_t c = s->tspike_cap[0] ? s->tspike_cap[0] : 1024;
            while (c < s->tspike_n[0] + count) c *= 2;
            s->tspikes[0] = (sim_spike *)realloc(s->tspikes[0], (size_t)c * sizeof(sim_spike));
            if (!s->tspikes[0]) olive_die("out of memory recording spikes");
            s->tspike_cap[0] = c;
        }
        for (int64_t k = 0; k < count; k++) {
            unsigned long long x = g->h_spikes[k];
            sim_spike sp;
            sp.step = g->window0 + (int64_t)(x >> 32);
            sp.cell = s->plan.row0 + (int64_t)(x & 0xffffffffULL);
            s->tspikes[0][s->tspike_n[0]++] = sp;
        }
    }
    unsigned long long bad = g->h_rep->bad;
    if (bad != ~0ULL && s->bad_step < 0) {
        s->bad_step = g->window0 + (int64_t)(bad >> 32);
        s->bad_cell = s->plan.row0 + (int64_t)(bad & 0xffffffffULL);
    }
    g->h_rep->count = 0;
    g->h_rep->bad = ~0ULL;
    CK(cudaMemcpyAsync(g->d_rep, g->h_rep, sizeof(dev_report), cudaMemcpyHostToDevice, g->sc));
    CK(cudaStreamSynchronize(g->sc)); /* h_rep is reused by the next poll */
    g->window0 = i + 1;
    s->t.compute += olive_now() - t0;
}

extern "C" void sim_cuda_fetch(sim_t *s, int all)
{
    sim_cuda *g = s->cuda;
    const sim_config *c = s->cfg;
    double t0 = olive_now();
    int64_t a = 0, n = s->plan.nlocal;
    if (!all) {   /* the span of the recorded cells: one copy per variable, not a gather */
        int64_t lo, hi;
        sim_record_span(s, &lo, &hi);
        a = lo;
        n = hi - lo;
    }
    CK(cudaStreamSynchronize(g->sc)); /* waits for the steps in flight: compute time */
    double t1 = olive_now();
    s->t.compute += t1 - t0;
    for (int v = 0; v < OLIVE_NVARS && n > 0; v++) {
        if (!all && !c->rec.vars[v]) continue;
        CK(cudaMemcpy((char *)s->state[v] + (size_t)a * g->el, (const char *)g->d_cur[v] + (size_t)a * g->el,
                      (size_t)n * g->el, cudaMemcpyDeviceToHost));
    }
    if (all && g->d_noise && n > 0) CK(cudaMemcpy(s->io.noise, g->d_noise, (size_t)n * g->el, cudaMemcpyDeviceToHost));
    s->t.io += olive_now() - t1;
}

/* NVML, opened at run time (it ships with the driver, not the toolkit, and
 * the binary must run where there is none). Only the three calls needed. */
typedef struct nvml_device *nvml_device_t;
static struct {
    int tried, ok;
    int (*init)(void);
    int (*by_pci)(const char *, nvml_device_t *);
    int (*energy)(nvml_device_t, unsigned long long *);
} nvml;

extern "C" double sim_cuda_energy_j(sim_t *s, int *owner)
{
    sim_cuda *g = s->cuda;
    *owner = g->energy_owner;
    if (!nvml.tried) {
        nvml.tried = 1;
        void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (h) {
            nvml.init = (int (*)(void))dlsym(h, "nvmlInit_v2");
            nvml.by_pci = (int (*)(const char *, nvml_device_t *))dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2");
            nvml.energy = (int (*)(nvml_device_t, unsigned long long *))dlsym(h, "nvmlDeviceGetTotalEnergyConsumption");
            nvml.ok = nvml.init && nvml.by_pci && nvml.energy && nvml.init() == 0;
        }
        if (!nvml.ok) olive_info("rank %d: no NVML energy counter (%s)", s->rank, h ? "NVML failed" : dlerror());
    }
    if (!nvml.ok) return -1;
    char bus[32];
    nvml_device_t dev;
    unsigned long long mj = 0;
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, g->device) != cudaSuccess || nvml.by_pci(bus, &dev) != 0 ||
        nvml.energy(dev, &mj) != 0) {
        (void)cudaGetLastError();
        return -1;
    }
    return (double)mj * 1e-3;
}

extern "C" void sim_cuda_free(sim_t *s)
{
    sim_cuda *g = s->cuda;
    if (!g) return;
    cudaDeviceSynchronize();
    for (int v = 0; v < OLIVE_NVARS; v++) { cudaFree(g->d_a[v]); cudaFree(g->d_b[v]); }
    free_ell(&g->inner); free_ell(&g->outer);
    cudaFree(g->d_lut); cudaFree(g->d_send); cudaFree(g->d_sendbuf);
    cudaFree(g->d_ic); cudaFree(g->d_noise); cudaFree(g->d_pulses); cudaFree(g->d_spikes); cudaFree(g->d_rep);
    cudaFreeHost(g->h_send); cudaFreeHost(g->h_recv); cudaFreeHost(g->h_pulses);
    cudaFreeHost(g->h_spikes); cudaFreeHost(g->h_rep);
    cudaEventDestroy(g->ev_halo); cudaEventDestroy(g->ev_done);
    cudaStreamDestroy(g->sc); cudaStreamDestroy(g->sx);
    free(g);
    s->cuda = NULL;
}
