/* The CUDA backend of olive-simulate (--backend cuda): one MPI rank per GPU.
 *
 * The physics is common/model.h, the very source the CPU backend runs, here
 * compiled by nvcc for the device. Built with -fmad=false and IEEE division,
 * every operation rounds as on the CPU (-ffp-contract=off, exp in plain
 * arithmetic: common/fastexp.h), so both backends give the same numbers.
 *
 * Layout: structure of arrays, double-buffered (d_cur/d_nxt, swapped each
 * step); the junction rows (lrow_ptr, lcol), packed conductance codes and
 * their table are uploaded once. Each step:
 *   stream x: pack the V_dend values other ranks need -> pinned host buffer
 *   stream c: interior rows (gap-junction sum in stored order + cell update)
 *   host:     MPI_Ineighbor_alltoallv of the pinned buffers (the counts of
 *             exchange.c), then the halo goes back to the device on stream x
 *   stream c: boundary rows, after the halo (event)
 * With a large average degree the junction sum runs a warp per row (lanes
 * compute the terms, the sum still adds them one by one in stored order) and
 * the cell update is a separate kernel; otherwise one thread per row does both.
 * Spikes (atomic counter + buffer of (step, cell)) and the first non-finite
 * value (atomicMin of (step, cell)) are found on the device and collected
 * every few steps. The host keeps mirrors of the state only for output. */
#define OMPI_SKIP_MPICXX 1
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern "C" {
#include "sim.h"
#include "util.h"
}
#include "model.h"

#define CK(call) do { cudaError_t e_ = (call); \
    if (e_ != cudaSuccess) olive_die("CUDA call failed: %s: %s", #call, cudaGetErrorString(e_)); } while (0)
#define CK_LAUNCH(what) do { cudaError_t e_ = cudaGetLastError(); \
    if (e_ != cudaSuccess) olive_die("CUDA kernel launch failed: %s: %s", what, cudaGetErrorString(e_)); } while (0)

/* Pulses active in a step travel as a kernel argument (up to INLINE_PULSES),
 * otherwise through a device buffer. */
#define INLINE_PULSES 32
struct dev_pulses {
    int n;
    const sim_pulse *ext;            /* device copy when n > INLINE_PULSES */
    int64_t first[INLINE_PULSES], last[INLINE_PULSES];
    double amp[INLINE_PULSES];
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

struct sim_cuda {
    int device;
    cudaStream_t sc, sx;
    cudaEvent_t ev_halo, ev_done;
    size_t el;
    void *d_a[OLIVE_NVARS], *d_b[OLIVE_NVARS]; /* the two buffers */
    void *d_cur[OLIVE_NVARS], *d_nxt[OLIVE_NVARS];
    int64_t *d_rp;
    int32_t *d_lcol, *d_interior, *d_boundary, *d_send;
    void *d_cond, *d_lut, *d_sendbuf, *d_ic;
    void *h_send, *h_recv;           /* pinned staging of the halo exchange */
    sim_pulse *d_pulses, *h_pulses;  /* more than INLINE_PULSES active pulses */
    unsigned long long *d_spikes;    /* (step in window << 32 | local cell) */
    dev_report *d_rep, *h_rep;
    unsigned long long *h_spikes;
    int64_t cap;                     /* spike buffer entries */
    int64_t window;                  /* steps between collections (power of 2, divides 64) */
    int64_t window0;                 /* first step of the current window */
    int warp_rows;                   /* junction sums a warp per row */
    int interior_all;                /* every row is interior: rows = identity */
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
__device__ __forceinline__ double gj_term(int kind, double w, double v) { return olive_gj_term_d(kind, w, v); }
__device__ __forceinline__ float gj_term(int kind, float w, float v) { return olive_gj_term_f(kind, w, v); }

/* Conductance of local junction e, decoded exactly as the CPU backend does. */
template <typename R, int BITS>
__device__ __forceinline__ R cond_of(const void *cond, const R *lut, R w0, int64_t e)
{
    if (BITS == 0) return w0;
    if (BITS == 4) return lut[(((const uint8_t *)cond)[e >> 1] >> ((e & 1) * 4)) & 15];
    if (BITS == 8) return lut[((const uint8_t *)cond)[e]];
    if (BITS == 16) return lut[((const uint16_t *)cond)[e]];
    return (R)((const float *)cond)[e];
}

/* Gap-junction current of row r, one thread, stored order. */
template <typename R, int BITS, int GJ>
__device__ __forceinline__ R row_current(const R *vd, int64_t r, const int64_t *rp, const int32_t *lcol,
                                         const void *cond, const R *lut, R w0)
{
    const int64_t e0 = rp[r], e1 = rp[r + 1];
    const R vi = vd[r];
    R a = (R)0;
    for (int64_t e = e0; e < e1; e++) a = a + gj_term(GJ, cond_of<R, BITS>(cond, lut, w0, e), vi - vd[lcol[e]]);
    return a;
}

/* Cell update of local row r with its gap-junction current ic (MODEL.md
 * "One step"), I_app from the active pulses summed in their order, spike and
 * non-finite flags as on the CPU. */
template <typename R>
__device__ __forceinline__ void cell_update(const dev_state<R> &st, int64_t r, R ic, const dev_pulses &pl,
                                            int64_t row0, R thr, unsigned rel, unsigned long long *spikes,
                                            int64_t cap, dev_report *rep)
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

/* One thread per row: junction sum (GJ != NGJ, unless FROM_IC: ic[] holds it)
 * and cell update. rows == NULL: rows 0..nrows-1. */
template <typename R, int BITS, int GJ, int FROM_IC>
__global__ void __launch_bounds__(128) k_rows(dev_state<R> st, const int32_t *rows, int64_t nrows,
                                              const int64_t *rp, const int32_t *lcol, const void *cond,
                                              const R *lut, R w0, const R *ic, dev_pulses pl, int64_t row0,
                                              R thr, unsigned rel, unsigned long long *spikes, int64_t cap,
                                              dev_report *rep)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= nrows) return;
    const int64_t r = rows ? (int64_t)rows[k] : k;
    R c = (R)0;
    if (FROM_IC) c = ic[r];
    else if (GJ != OLIVE_GJ_NGJ) c = row_current<R, BITS, GJ>(st.c[OV_V_DEND], r, rp, lcol, cond, lut, w0);
    cell_update<R>(st, r, c, pl, row0, thr, rel, spikes, cap, rep);
}

/* A warp per row: the lanes compute 32 terms at a time (coalesced loads, the
 * exponentials in parallel); every lane then adds them one by one in stored
 * order, so the sum has the bits of the sequential loop. */
template <typename R, int BITS, int GJ>
__global__ void __launch_bounds__(256) k_currents_warp(const R *vd, const int32_t *rows, int64_t nrows,
                                                       const int64_t *rp, const int32_t *lcol, const void *cond,
                                                       const R *lut, R w0, R *ic)
{
    const int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (w >= nrows) return; /* whole warps leave together */
    const int64_t r = rows ? (int64_t)rows[w] : w;
    const int64_t e0 = rp[r], e1 = rp[r + 1];
    const R vi = vd[r];
    R a = (R)0;
    for (int64_t base = e0; base < e1; base += 32) {
        const int64_t e = base + lane;
        R t = (R)0;
        if (e < e1) t = gj_term(GJ, cond_of<R, BITS>(cond, lut, w0, e), vi - vd[lcol[e]]);
        const int m = e1 - base < 32 ? (int)(e1 - base) : 32;
        for (int j = 0; j < m; j++) a = a + __shfl_sync(0xffffffffu, t, j);
    }
    if (lane == 0) ic[r] = a;
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

template <typename R, int BITS, int GJ>
static void launch_rows_t(sim_t *s, const int32_t *rows, int64_t nrows, const dev_pulses &pl, unsigned rel)
{
    sim_cuda *g = s->cuda;
    dev_state<R> st;
    for (int v = 0; v < OLIVE_NVARS; v++) { st.c[v] = (const R *)g->d_cur[v]; st.n[v] = (R *)g->d_nxt[v]; }
    const R w0 = (R)s->net.offset, thr = (R)s->cfg->threshold;
    const R *lut = (const R *)g->d_lut;
    bool warp = false;
    if constexpr (GJ != OLIVE_GJ_NGJ) warp = g->warp_rows;
    if constexpr (GJ != OLIVE_GJ_NGJ) if (warp) {
        k_currents_warp<R, BITS, GJ><<<blocks_for(nrows * 32, 256), 256, 0, g->sc>>>(
            (const R *)g->d_cur[OV_V_DEND], rows, nrows, g->d_rp, g->d_lcol, g->d_cond, lut, w0, (R *)g->d_ic);
        CK_LAUNCH("k_currents_warp");
        k_rows<R, 0, GJ, 1><<<blocks_for(nrows, 128), 128, 0, g->sc>>>(
            st, rows, nrows, g->d_rp, g->d_lcol, g->d_cond, lut, w0, (const R *)g->d_ic, pl, s->plan.row0, thr, rel,
            g->d_spikes, g->cap, g->d_rep);
        CK_LAUNCH("k_rows (update)");
    }
    if (!warp) {
        k_rows<R, BITS, GJ, 0><<<blocks_for(nrows, 128), 128, 0, g->sc>>>(
            st, rows, nrows, g->d_rp, g->d_lcol, g->d_cond, lut, w0, (const R *)g->d_ic, pl, s->plan.row0, thr, rel,
            g->d_spikes, g->cap, g->d_rep);
        CK_LAUNCH("k_rows");
    }
}

template <typename R, int GJ>
static void launch_rows_gj(sim_t *s, const int32_t *rows, int64_t nrows, const dev_pulses &pl, unsigned rel)
{
    switch (s->net.bits) {
    case 0: launch_rows_t<R, 0, GJ>(s, rows, nrows, pl, rel); break;
    case 4: launch_rows_t<R, 4, GJ>(s, rows, nrows, pl, rel); break;
    case 8: launch_rows_t<R, 8, GJ>(s, rows, nrows, pl, rel); break;
    case 16: launch_rows_t<R, 16, GJ>(s, rows, nrows, pl, rel); break;
    default: launch_rows_t<R, 32, GJ>(s, rows, nrows, pl, rel); break;
    }
}

template <typename R>
static void launch_rows_r(sim_t *s, const int32_t *rows, int64_t nrows, const dev_pulses &pl, unsigned rel)
{
    if (nrows <= 0) return;
    switch (s->cfg->gj) {
    case OLIVE_GJ_RGJ: launch_rows_gj<R, OLIVE_GJ_RGJ>(s, rows, nrows, pl, rel); break;
    case OLIVE_GJ_SGJ: launch_rows_gj<R, OLIVE_GJ_SGJ>(s, rows, nrows, pl, rel); break;
    default: launch_rows_t<R, 0, OLIVE_GJ_NGJ>(s, rows, nrows, pl, rel); break;
    }
}

static void launch_rows(sim_t *s, const int32_t *rows, int64_t nrows, const dev_pulses &pl, unsigned rel)
{
    if (s->cfg->single) launch_rows_r<float>(s, rows, nrows, pl, rel);
    else launch_rows_r<double>(s, rows, nrows, pl, rel);
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

template <typename T> static T *dev_upload(const void *src, size_t bytes, const char *what)
{
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 8);
    if (e != cudaSuccess)
        olive_die("CUDA: cannot allocate %zu bytes of device memory for %s: %s", bytes, what, cudaGetErrorString(e));
    if (src && bytes) CK(cudaMemcpy(p, src, bytes, cudaMemcpyHostToDevice));
    return (T *)p;
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
    CK(cudaSetDevice(g->device));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, g->device));
    if (nlocal_ranks > ndev && local == 0)
        olive_warn("%d ranks on this node share %d GPU(s); one rank per GPU is fastest", nlocal_ranks, ndev);
    CK(cudaStreamCreateWithFlags(&g->sc, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&g->sx, cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&g->ev_halo, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&g->ev_done, cudaEventDisableTiming));

    const size_t el = s->cfg->single ? sizeof(float) : sizeof(double);
    g->el = el;
    const int64_t n = p->nlocal, nh = p->nhalo, nnz = p->lrow_ptr[n];
    if (n > INT32_MAX) olive_die("CUDA backend: %lld cells on one rank; at most 2^31-1 (use more ranks)", (long long)n);
    /* State: both buffers start as the host's initial state. */
    for (int v = 0; v < OLIVE_NVARS; v++) {
        size_t len = (size_t)(v == OV_V_DEND ? n + nh : n) * el;
        g->d_a[v] = dev_upload<void>(s->cur[v], len, "the state");
        g->d_b[v] = dev_upload<void>(s->cur[v], len, "the state");
        g->d_cur[v] = g->d_a[v];
        g->d_nxt[v] = g->d_b[v];
        free(s->nxt[v]); /* the host keeps cur[] as the output mirror only */
        s->nxt[v] = NULL;
    }
    g->d_rp = dev_upload<int64_t>(p->lrow_ptr, (size_t)(n + 1) * sizeof(int64_t), "row pointers");
    g->d_lcol = dev_upload<int32_t>(p->lcol, (size_t)nnz * sizeof(int32_t), "junction indices");
    g->d_cond = s->net.bits ? dev_upload<void>(s->net.cond, olive_cond_bytes(s->net.bits, nnz), "conductances") : NULL;
    g->d_lut = s->wlut ? dev_upload<void>(s->wlut, ((size_t)1 << s->net.bits) * el, "the conductance table") : NULL;
    g->interior_all = p->ninterior == n;
    g->d_interior = g->interior_all ? NULL : dev_upload<int32_t>(p->interior, (size_t)p->ninterior * sizeof(int32_t), "row lists");
    g->d_boundary = dev_upload<int32_t>(p->boundary, (size_t)p->nboundary * sizeof(int32_t), "row lists");
    g->d_send = dev_upload<int32_t>(p->send_local, (size_t)p->nsend * sizeof(int32_t), "send lists");
    g->d_sendbuf = dev_upload<void>(NULL, (size_t)p->nsend * el, "the send buffer");
    g->d_ic = dev_upload<void>(NULL, (size_t)n * el, "currents");
    CK(cudaMallocHost(&g->h_send, (size_t)p->nsend * el + el));
    CK(cudaMallocHost(&g->h_recv, (size_t)nh * el + el));
    g->d_pulses = dev_upload<sim_pulse>(NULL, (size_t)(s->cfg->npulses + 1) * sizeof(sim_pulse), "pulses");
    CK(cudaMallocHost((void **)&g->h_pulses, (size_t)(s->cfg->npulses + 1) * sizeof(sim_pulse)));
    /* A cell crosses the threshold upwards at most every other step, so
     * window/2 entries per cell never overflow. */
    int64_t cap = 32 * n, lo = (int64_t)4 * n, mid = INT64_C(1) << 24;
    if (cap > (lo > mid ? lo : mid)) cap = lo > mid ? lo : mid;
    g->window = 64;
    while (g->window > 8 && (g->window / 2) * n > cap) g->window /= 2;
    g->cap = cap > 0 ? cap : 1;
    g->d_spikes = dev_upload<unsigned long long>(NULL, (size_t)g->cap * sizeof(unsigned long long), "the spike buffer");
    CK(cudaMallocHost((void **)&g->h_spikes, (size_t)g->cap * sizeof(unsigned long long)));
    g->d_rep = dev_upload<dev_report>(NULL, sizeof(dev_report), "spike reports");
    CK(cudaMallocHost((void **)&g->h_rep, sizeof(dev_report)));
    g->h_rep->count = 0;
    g->h_rep->bad = ~0ULL;
    CK(cudaMemcpy(g->d_rep, g->h_rep, sizeof(dev_report), cudaMemcpyHostToDevice));
    g->window0 = 0;
    /* A warp per row once rows average 32 junctions or more. */
    g->warp_rows = n > 0 && nnz / n >= 32;
    if (const char *e = getenv("OLIVE_CUDA_ROWS")) { /* tuning: thread or warp */
        if (!strcmp(e, "warp")) g->warp_rows = 1;
        else if (!strcmp(e, "thread")) g->warp_rows = 0;
    }
    CK(cudaDeviceSynchronize());
    olive_info("rank %d: CUDA device %d (%s, %.1f GiB), %s per row, spikes collected every %lld steps", s->rank,
               g->device, prop.name, (double)prop.totalGlobalMem / 1073741824.0, g->warp_rows ? "a warp" : "a thread",
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
        launch_rows(s, g->interior_all ? NULL : g->d_interior, p->ninterior, pl, rel);
        launch_rows(s, g->d_boundary, p->nboundary, pl, rel);
    } else {
        const MPI_Datatype t = s->cfg->single ? MPI_FLOAT : MPI_DOUBLE;
        /* Pack after the previous step's update (ev_done), on stream x. */
        CK(cudaStreamWaitEvent(g->sx, g->ev_done, 0));
        if (p->nsend > 0) {
            if (s->cfg->single)
                k_pack<float><<<blocks_for(p->nsend, 256), 256, 0, g->sx>>>((const float *)g->d_cur[OV_V_DEND], g->d_send,
                                                                         p->nsend, (float *)g->d_sendbuf);
            else
                k_pack<double><<<blocks_for(p->nsend, 256), 256, 0, g->sx>>>((const double *)g->d_cur[OV_V_DEND],
                                                                          g->d_send, p->nsend, (double *)g->d_sendbuf);
            CK_LAUNCH("k_pack");
            CK(cudaMemcpyAsync(g->h_send, g->d_sendbuf, (size_t)p->nsend * g->el, cudaMemcpyDeviceToHost, g->sx));
        }
        /* Interior rows while the halo travels. */
        launch_rows(s, g->interior_all ? NULL : g->d_interior, p->ninterior, pl, rel);
        double a = olive_now();
        CK(cudaStreamSynchronize(g->sx));
        MPI_Request req;
        SIM_CHECK_MPI(MPI_Ineighbor_alltoallv(g->h_send, s->nbr_send_count, s->nbr_send_displ, t, g->h_recv,
                                              s->nbr_recv_count, s->nbr_recv_displ, t, s->graph, &req));
        SIM_CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        if (p->nhalo > 0)
            CK(cudaMemcpyAsync((char *)g->d_cur[OV_V_DEND] + (size_t)p->nlocal * g->el, g->h_recv,
                               (size_t)p->nhalo * g->el, cudaMemcpyHostToDevice, g->sx));
        CK(cudaEventRecord(g->ev_halo, g->sx));
        CK(cudaStreamWaitEvent(g->sc, g->ev_halo, 0));
        tx = olive_now() - a;
        launch_rows(s, g->d_boundary, p->nboundary, pl, rel);
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
    if ((i + 1) % g->window != 0 && i + 1 != s->cfg->steps) return;
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
    if (!all) {
        int64_t lo = c->rec_a > s->plan.row0 ? c->rec_a : s->plan.row0;
        int64_t hi = c->rec_b < s->plan.row1 ? c->rec_b : s->plan.row1;
        a = hi > lo ? lo - s->plan.row0 : 0;
        n = hi > lo ? hi - lo : 0;
    }
    CK(cudaStreamSynchronize(g->sc)); /* waits for the steps in flight: compute time */
    double t1 = olive_now();
    s->t.compute += t1 - t0;
    for (int v = 0; v < OLIVE_NVARS && n > 0; v++) {
        if (!all && !c->record[v]) continue;
        CK(cudaMemcpy((char *)s->cur[v] + (size_t)a * g->el, (const char *)g->d_cur[v] + (size_t)a * g->el,
                      (size_t)n * g->el, cudaMemcpyDeviceToHost));
    }
    s->t.io += olive_now() - t1;
}

extern "C" void sim_cuda_free(sim_t *s)
{
    sim_cuda *g = s->cuda;
    if (!g) return;
    cudaDeviceSynchronize();
    for (int v = 0; v < OLIVE_NVARS; v++) { cudaFree(g->d_a[v]); cudaFree(g->d_b[v]); }
    cudaFree(g->d_rp); cudaFree(g->d_lcol); cudaFree(g->d_cond); cudaFree(g->d_lut);
    cudaFree(g->d_interior); cudaFree(g->d_boundary); cudaFree(g->d_send); cudaFree(g->d_sendbuf);
    cudaFree(g->d_ic); cudaFree(g->d_pulses); cudaFree(g->d_spikes); cudaFree(g->d_rep);
    cudaFreeHost(g->h_send); cudaFreeHost(g->h_recv); cudaFreeHost(g->h_pulses);
    cudaFreeHost(g->h_spikes); cudaFreeHost(g->h_rep);
    cudaEventDestroy(g->ev_halo); cudaEventDestroy(g->ev_done);
    cudaStreamDestroy(g->sc); cudaStreamDestroy(g->sx);
    free(g);
    s->cuda = NULL;
}
