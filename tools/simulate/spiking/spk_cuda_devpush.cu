/* The device push path of the CUDA spiking engine (spk_cuda.h): one rank,
 * every step's events summed on the device with no host round trip.
 *
 * Static buckets (g->pass.sb, spk_sb.h; whenever a link and a scratch entry per
 * synapse fit in half of the free device memory): a step's events to a
 * target form a list through the synapses' links, one list head per target
 * and parity of the step. A step is one pass over the cells
 * (olive_plugin_tail_update_*, spk_plugin_kernels.cu, with the point
 * model's functions): per cell the previous step's events from its list,
 * sorted and summed in that order, the due slot, Poisson, the model's
 * on_spike, then this step's update; then k_sb_scatter sends the events of the
 * step's spikes into the other parity's lists, spread over the grid. (With
 * cable cells the tail has its own kernel before their update.)
 * Otherwise dynamic buckets, room for dp_cap events a step in all:
 * The step's spiking cells (g->spk, in any order) send their events:
 *   k_dp_count:   per event, the target's count (integer atomics: exact), the
 *                 first event of a target puts it on the list of targets;
 *   k_dp_place:   each listed target gets a bucket of its count in ev;
 *   k_dp_scatter: each event's index in the per-source lists (out) into its
 *                 target's bucket (in any order);
 *   k_dp_sum:     each target sorts its bucket by that index, which is the
 *                 order (source, then the source's list) the CPU engine adds
 *                 a step's events in, and adds the weights one by one into the
 *                 slot of each event's due step; then clears its counts.
 * Steps are summed one after the other, so a slot sees its events in (spike
 * step, source, list) order: the CPU engine's, hence its bits. The work is
 * O(events) a step; only the update (with the previous step's on_spike) and
 * k_dp_tail (delivery, Poisson in one pass) look at every cell. Six launches a step, no host visit
 * (static buckets: two). */
#define OMPI_SKIP_MPICXX 1
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
#include <cub/cub.cuh>
#include <hdf5.h>
#include <mpi.h>
#include "spk_cuda.h"

namespace cg = cooperative_groups;

/* counters in g->dp->dpc */
enum { DPC_TARGETS, DPC_EVENTS, DPC_OVERFLOW, DPC_N };

/* Device push's own device state (g->dp). */
struct spk_devpush_dev {
    /* dynamic buckets */
    uint32_t *cnt, *fill;      /* per target: this step's events, placed so far */
    unsigned long long *boff;  /* per target: its bucket in ev */
    int32_t *tlist;            /* the targets with events this step */
    unsigned long long *dpc;   /* counters: touched targets, events, overflow */
    int64_t *ev;               /* buckets of out-list indices, room for dp_cap */
    int64_t dp_cap;
    /* static buckets (g->pass.sb, spk_sb.h): cnt holds both parities' list
     * heads; under 2^32 - 1 synapses (link indices) */
    int sb_regs;               /* events a tail takes in registers (spk_sb_bucket.nreg) */
    int sb_grid;               /* k_sb_scatter's blocks: those the device runs at once */
    uint32_t *bptr;
    spk_link *link;            /* nsyn: the links of even steps, and of odd ones where link_odd is null */
    spk_link *link_odd;        /* with sb_add: nsyn, the links of odd steps */
    uint32_t *ovf;             /* nsyn: the targets' scratch for bursts */
    /* sb_add (static buckets, no delay of 0 steps; spk_sb.h): a step's
     * events are added into their slots by the next step's scatter kernel,
     * beside that step's pass, not by the pass's tails */
    int sb_add;
    uint32_t *later;           /* 2n: both parities' list heads of those events */
    int add_pending;           /* step add_step's events are still to add */
    int64_t add_step;
    /* a chunk's Poisson inputs drawn ahead (spike_tail.cuh's spk_poisson_ahead) */
    int16_t *pcover;           /* per x n: input << 1 | receptor covering each cell, -1 after the last */
    double *padd;              /* chunk steps x per x n (pbuf[pcur]); null: drawn in the tail */
    int pper;
    int64_t pfirst;            /* the chunk's first step */
    /* the next chunk's draws made while this one runs (spk_devpush_poisson_next) */
    double *pbuf[2];           /* pbuf[1] null: no draws ahead */
    int pcur;                  /* the buffer of this chunk */
    cudaStream_t pst;          /* the draws ahead's stream, of the lowest priority */
    cudaEvent_t pfree, pdrawn; /* the chunk before has run (its buffer is free); the draws ahead are made */
    unsigned long long *pcount;   /* the draws ahead's events, counted once the chunk takes them */
    int ahead;                 /* draws ahead are pending for the chunk of steps [afirst, afirst + acount) */
    unsigned pgrid;            /* their blocks: OLIVE_GPU_POISSON_AHEAD an SM */
    int64_t afirst, acount;
};
static const int DP_GRID = 1024, DP_BLOCK = 128;

/* Block per spike, threads over its synapses. */
__global__ void k_dp_count(const int32_t *spk, const unsigned int *nspk, int64_t row0, const int64_t *out_ptr,
                           const spk_out *out, uint32_t *cnt, int32_t *tlist, unsigned long long *dpc)
{
    for (int64_t i = blockIdx.x; i < (int64_t)*nspk; i += gridDim.x) {
        const int64_t g = row0 + spk[i];
        for (int64_t e = out_ptr[g] + threadIdx.x; e < out_ptr[g + 1]; e += blockDim.x) {
            const int32_t t = out[e].target;
            if (atomicAdd(&cnt[t], 1u) == 0) {
                /* one atomic per warp on the shared counter, not one per target */
                cg::coalesced_group w = cg::coalesced_threads();
                unsigned long long at = 0;
                if (w.thread_rank() == 0) at = atomicAdd(&dpc[DPC_TARGETS], (unsigned long long)w.size());
                tlist[w.shfl(at, 0) + w.thread_rank()] = t;
            }
        }
    }
}

__global__ void k_dp_place(const int32_t *tlist, const uint32_t *cnt, unsigned long long *boff, unsigned long long *dpc,
                           int64_t cap)
{
    const int64_t T = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (int64_t)dpc[DPC_TARGETS]; i += T) {
        const int32_t t = tlist[i];
        const unsigned long long c = cnt[t];
        /* the warp's buckets side by side: one atomic per warp */
        cg::coalesced_group w = cg::coalesced_threads();
        const unsigned long long before = cg::exclusive_scan(w, c);
        unsigned long long base = 0;
        if (w.thread_rank() == w.size() - 1) base = atomicAdd(&dpc[DPC_EVENTS], before + c);
        const unsigned long long at = w.shfl(base, w.size() - 1) + before;
        boff[t] = at;
        if (at + c > (unsigned long long)cap) dpc[DPC_OVERFLOW] = 1;
    }
}

__global__ void k_dp_scatter(const int32_t *spk, const unsigned int *nspk, int64_t row0, const int64_t *out_ptr,
                             const spk_out *out, const unsigned long long *boff, uint32_t *fill, int64_t *ev, int64_t cap)
{
    for (int64_t i = blockIdx.x; i < (int64_t)*nspk; i += gridDim.x) {
        const int64_t g = row0 + spk[i];
        for (int64_t e = out_ptr[g] + threadIdx.x; e < out_ptr[g + 1]; e += blockDim.x) {
            const int32_t t = out[e].target;
            const unsigned long long at = boff[t] + atomicAdd(&fill[t], 1u);
            if (at < (unsigned long long)cap) ev[at] = e;
        }
    }
}

__global__ void k_dp_sum(const int32_t *tlist, const unsigned long long *dpc, uint32_t *cnt, uint32_t *fill,
                         const unsigned long long *boff, int64_t *ev, int64_t cap, const spk_out *out,
                         const uint16_t *delay, int64_t step, int L, int64_t n, double *acc, unsigned char *touched)
{
    const int64_t T = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (int64_t)dpc[DPC_TARGETS]; i += T) {
        const int32_t t = tlist[i];
        const int64_t m = cnt[t];
        if (boff[t] + m <= (unsigned long long)cap) {
            int64_t *b = ev + boff[t];
            for (int64_t x = 1; x < m; x++) {   /* insertion sort: buckets are short */
                const int64_t y = b[x];
                int64_t z = x;
                for (; z > 0 && b[z - 1] > y; z--) b[z] = b[z - 1];
                b[z] = y;
            }
            for (int64_t x = 0; x < m; x++) {
                const int64_t o = b[x];
                const int64_t slot = (step + delay[o]) % L;
                acc[(2 * slot + out[o].receptor) * n + t] += out[o].w;
                touched[slot * n + t] = 1;
            }
        }
        cnt[t] = 0;
        fill[t] = 0;
    }
}

/* Static buckets: the step's events sent by the whole grid at once. A
 * step has few spikes (the microcircuit ~25, 1M x 1000 ~250) of thousands
 * of events each: a block per spike, looping over its list, left most of
 * the device idle and took one memory round trip per blockDim events of
 * the longest list. Instead every block numbers the spikes' chunks of
 * SB_THREADS events (a scan of their out-degrees in shared memory, each
 * block the same) and takes chunk blockIdx.x, then every gridDim.x-th:
 * with the grid all resident, a step's ~400 chunks are one round. A burst
 * of more than SB_SPREAD spikes (every block would scan them) falls back to
 * a block per spike. The order of the sends does not matter: a tail orders
 * its events by synapse (spk_sb.h). */
static const int SB_THREADS = 256, SB_SPREAD = 1024, SB_PER_THREAD = SB_SPREAD / SB_THREADS, SB_PASS_WAVE = 3 * 256;

/* Target r's events of a step (a.sb.head: that step's later lists; a.slot
 * -1: none is due, every event goes into its slot) added into their slots
 * in key order, as a tail adds them. */
static __device__ __forceinline__ void sb_add_target(const spk_tail_args &a, int64_t r)
{
    const uint32_t h = r < a.n ? a.sb.head[r] : SPK_END;
    if (h == SPK_END) return;
    double s0 = 0, s1 = 0;   /* (the due slot's: none) */
    int any = 0;
    spk_sb_events(a.sb, r, h, [&](const spk_sev (&e)[SPK_BATCH], uint32_t m) { spk_add_events(a, r, e, m, s0, s1, any); });
    a.sb.head[r] = SPK_END;
}

/* Every event of the m spikes spk[0..m) to send(e), spread over blocks
 * [b0, gridDim.x) as the comment above says. */
template <class Send>
static __device__ __forceinline__ void sb_spread(const int32_t *spk, int64_t m, const spk_scatter_args &a, unsigned b0,
                                                 Send send)
{
    typedef cub::BlockScan<uint32_t, SB_THREADS> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    __shared__ uint32_t first[SB_SPREAD + 1];   /* spike i's chunks are [first[i], first[i + 1]) */
    const unsigned nb = gridDim.x - b0;
    if (m > SB_SPREAD) {
        for (int64_t i = blockIdx.x - b0; i < m; i += nb) {
            const int64_t g = a.row0 + spk[i], end = a.out_ptr[g + 1];
            for (int64_t e = a.out_ptr[g] + threadIdx.x; e < end; e += blockDim.x) send(e);
        }
        return;
    }
    uint32_t c[SB_PER_THREAD];
#pragma unroll
    for (int j = 0; j < SB_PER_THREAD; j++) {
        const int64_t i = (int64_t)threadIdx.x * SB_PER_THREAD + j;
        c[j] = 0;
        if (i < m) {
            const int64_t g = a.row0 + spk[i];
            c[j] = (uint32_t)((a.out_ptr[g + 1] - a.out_ptr[g] + SB_THREADS - 1) / SB_THREADS);
        }
    }
    uint32_t total;
    scan_t(tmp).ExclusiveSum(c, c, total);
#pragma unroll
    for (int j = 0; j < SB_PER_THREAD; j++) first[threadIdx.x * SB_PER_THREAD + j] = c[j];
    if (threadIdx.x == 0) first[m] = total;
    __syncthreads();
    for (uint32_t k = blockIdx.x - b0; k < total; k += nb) {
        int64_t lo = 0, hi = m;   /* the spike i with first[i] <= k < first[i + 1] */
        while (hi - lo > 1) {
            const int64_t mid = (lo + hi) / 2;
            if (first[mid] <= k) lo = mid; else hi = mid;
        }
        const int64_t g = a.row0 + spk[lo];
        const int64_t e = a.out_ptr[g] + (int64_t)(k - first[lo]) * SB_THREADS + threadIdx.x;
        if (e < a.out_ptr[g + 1]) send(e);
    }
}

template <bool PLASTIC, bool ADD>
__global__ void __launch_bounds__(SB_THREADS) k_sb_scatter(const int32_t *spk, const unsigned int *nspk,
                                                           spk_scatter_args a, spk_tail_args add, unsigned nadd)
{
    if (!PLASTIC) a.pl = nullptr;   /* (a constant: a static network's scatter keeps its registers, 32 not 94) */
    if (!ADD) nadd = 0;             /* (and without sb_add: 32, not 64) */
    if (ADD && blockIdx.x < nadd) {   /* sb_add: the previous step's events, beside this step's pass (no wait) */
        spk_pdl_release();
        sb_add_target(add, blockIdx.x * (int64_t)SB_THREADS + threadIdx.x);
        return;
    }
    spk_pdl_wait();   /* (launched before the step's pass ends: spike_tail.cuh) */
    spk_pdl_release();
    sb_spread(spk, (int64_t)*nspk, a, nadd, [&](int64_t e) { spk_sb_send_event(a, e); });
}

/* sb_atomic: the previous step's events into their slots, beside this
 * step's pass. It needs nothing of that pass, so it releases the next
 * launch (the pass after, which waits for this kernel) at once; its blocks
 * wait for the pass only at their end, every one of them, so that this
 * kernel's completion implies the pass's. */
__global__ void __launch_bounds__(SB_THREADS) k_sb_atomic(const int32_t *spk, const unsigned int *nspk,
                                                          spk_scatter_args a, double *acc, unsigned char *touched,
                                                          int64_t n)
{
    spk_pdl_release();
    sb_spread(spk, (int64_t)*nspk, a, 0, [&](int64_t e) { spk_sb_add_event(a, acc, touched, n, e); });
    spk_pdl_wait();
}

/* In-degrees into cnt (then scanned into bptr). */
__global__ void k_sb_indegree(int64_t nsyn, const spk_out *out, uint32_t *cnt)
{
    const int64_t T = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < nsyn; e += T) atomicAdd(&cnt[out[e].target], 1u);
}

__global__ void k_sb_widen(int64_t n, const uint32_t *cnt, uint32_t *deg)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i <= n) deg[i] = i < n ? cnt[i] : 0;
}

/* sb_add: the last step's events into their slots at a chunk's end (the
 * next scatter adds them otherwise). */
__global__ void __launch_bounds__(256) k_sb_add(spk_tail_args a)
{
    sb_add_target(a, blockIdx.x * (int64_t)blockDim.x + threadIdx.x);
}

/* Steps 3 and 4 for every cell in one pass (spk_tail_cell); the step's
 * counters cleared for the next one (the event kernels are done). */
__global__ void k_dp_tail(spk_tail_args a, unsigned long long *dpc)
{
    const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (r == 0) {
        if (a.nspk) *a.nspk = 0;
        if (dpc) { dpc[DPC_TARGETS] = 0; dpc[DPC_EVENTS] = 0; }
    }
    if (r < a.n) spk_tail_cell(a, r);
}

/* A chunk's Poisson inputs (spike_tail.cuh's spk_poisson_ahead): a thread
 * per cell and POISSON_STEPS steps (blockIdx.y), each of the cell's
 * inputs in order, its parameters read once; the events counted (one
 * atomic a warp, an integer: exact in any order). (A thread per (step,
 * cell) took a 64-bit division and the input's parameters again for each:
 * 98 us for the microcircuit's 64 steps on an H200, issue-bound at ~360
 * instructions a draw.) */
static const int POISSON_STEPS = 8;

/* The work (cell r, steps q0 ..) of item i: a grid of any size walks them
 * (the draws ahead take a few blocks an SM, beside the steps' kernels). */
__global__ void k_poisson_ahead(int64_t n, int64_t row0, int64_t first, int64_t count, int per, const int16_t *cover,
                                const sim_poisson *in, const double *fac, const double *rs, uint64_t seed, double *add,
                                unsigned long long *events)
{
    const int64_t groups = (count + POISSON_STEPS - 1) / POISSON_STEPS, T = (int64_t)gridDim.x * blockDim.x;
    unsigned long long ev = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < groups * n; i += T) {
        const int64_t r = i % n;
        const int64_t q0 = i / n * POISSON_STEPS, q1 = q0 + POISSON_STEPS < count ? q0 + POISSON_STEPS : count;
        for (int k = 0; k < per; k++) {
            const int c = cover[k * n + r];
            if (c < 0) break;
            const int j = c >> 1;
            const sim_poisson *p = &in[j];
            const int64_t step0 = p->step0, step1 = p->step1;
            const long long pn = p->n;
            const double prob = p->prob, p0 = p->p0, w = p->weight;
            const double *f = fac + (int64_t)j * OLIVE_BINOMIAL_FACTORS;
            const double rsv = rs ? rs[(c & 1) * n + r] : 0.0;   /* (a plugin's receptor factor) */
            for (int64_t q = q0; q < q1; q++) {
                const int64_t step = first + q;
                long long hits = 0;
                if (step >= step0 && step < step1) hits = olive_poisson_input_hits_f(seed, row0 + r, step, j, pn, prob, p0, f);
                add[(q * per + k) * n + r] = hits ? spk_poisson_amount(hits, w, rs ? &rsv : nullptr) : -0.0;
                ev += (unsigned long long)hits;
            }
        }
    }
    spk_count_events(ev, events);
}

/* *to += *from; *from = 0 (the draws ahead's events, once taken) */
__global__ void k_take_count(unsigned long long *to, unsigned long long *from)
{
    *to += *from;
    *from = 0;
}

/* The inputs covering each own cell, in input order: if a chunk's draws
 * fit in an eighth of the free memory, they are drawn ahead. */
static void poisson_ahead_setup(sim_t *s, spk_cuda *g, int64_t steps, size_t free_b)
{
    const int env = spk_env_digit("OLIVE_GPU_POISSON_AHEAD", 0, 4), blocks = env < 0 ? 1 : env;
    const int64_t n = g->n;
    int per = 0;
    int16_t *cover = spk_poisson_cover(s, n, &per);
    if (!cover) return;
    const size_t cells = (size_t)steps * (size_t)per * (size_t)n;
    if ((double)cells * sizeof(double) > (double)free_b / 8) { free(cover); return; }
    spk_devpush_dev *d = g->dp;
    d->pper = per;
    d->pcover = dev_copy(cover, (size_t)per * (size_t)n, "Poisson inputs");
    free(cover);
    d->pbuf[0] = d->padd = dev_alloc<double>(cells, "Poisson inputs");
    /* the next chunk's draws in a second buffer while this chunk runs, where
     * it fits too: drawn before its steps, they took ~0.9 us of the
     * microcircuit's ~10 us step; beside the chunk before, the loop is 5-7 %
     * shorter with the same spikes (one H100, 2026-12-07, docs/results/
     * microcircuit_poisson_ahead_2026-12-07_h100.txt). In
     * OLIVE_GPU_POISSON_AHEAD=B blocks an SM (1 to 4; default 1, which
     * measured best); 0: each chunk's draws before its steps (read at the
     * top: a bad value stops the run whether or not it applies). */
    if (!blocks || (double)cells * sizeof(double) > (double)free_b / 16) return;
    int dev = 0, sms = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    d->pgrid = (unsigned)(blocks * sms);
    d->pbuf[1] = dev_alloc<double>(cells, "Poisson inputs");
    d->pcount = dev_alloc<unsigned long long>(1, "counters");
    CK(cudaMemset(d->pcount, 0, sizeof(unsigned long long)));
    int least = 0, greatest = 0;
    CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CK(cudaStreamCreateWithPriority(&d->pst, cudaStreamNonBlocking, least));
    CK(cudaEventCreateWithFlags(&d->pfree, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&d->pdrawn, cudaEventDisableTiming));
}

/* This chunk's draws: made ahead for just these steps, or now. */
void spk_devpush_poisson_ahead(sim_t *s, spk_cuda *g, int64_t first, int64_t count)
{
    spk_devpush_dev *d = g->dp;
    d->pfirst = first;
    if (!d->padd) return;
    if (d->ahead && d->afirst == first && d->acount == count) {
        d->pcur ^= 1;
        CK(cudaStreamWaitEvent(g->st, d->pdrawn, 0));
        k_take_count<<<1, 1, 0, g->st>>>(g->poisson.count, d->pcount);
        CK_LAUNCH("k_take_count");
    } else {   /* (draws ahead for other steps are left unused, their events uncounted) */
        const unsigned grid = (unsigned)spk_blocks(g->n * ((count + POISSON_STEPS - 1) / POISSON_STEPS), 256);
        k_poisson_ahead<<<grid, 256, 0, g->st>>>(g->n, s->plan.row0, first, count, d->pper, d->pcover, g->poisson.in,
                                                 g->poisson.fac, g->rscale, s->cfg->run.seed, d->pbuf[d->pcur],
                                                 g->poisson.count);
        CK_LAUNCH("k_poisson_ahead");
    }
    d->padd = d->pbuf[d->pcur];
    d->ahead = 0;
    if (d->pbuf[1] && !g->graph) CK(cudaEventRecord(d->pfree, g->st));   /* (the other buffer's chunk has run) */
}

/* After a chunk's launches: the draws of the chunk likely next (from
 * `next`; where the next chunk is not just those steps, it draws its own),
 * on a stream of the lowest priority so that the steps' blocks are
 * scheduled first, in a few blocks an SM (each holds 88 registers a thread
 * for the whole chunk, beside the steps' kernels): the draws take ~0.25 ms a
 * chunk of the microcircuit at the full device's rate, the chunk's steps
 * ~2.4 ms. */
void spk_devpush_poisson_next(sim_t *s, spk_cuda *g, int64_t next)
{
    spk_devpush_dev *d = g->dp;
    if (!d->pbuf[1] || g->graph) return;   /* (a graph's chunk is captured ahead: its draws are in it) */
    const int64_t count = spk_next_chunk_guess(s, g, next);
    if (count <= 0) return;   /* (the run's end) */
    CK(cudaStreamWaitEvent(d->pst, d->pfree, 0));
    CK(cudaMemsetAsync(d->pcount, 0, sizeof(unsigned long long), d->pst));
    k_poisson_ahead<<<d->pgrid, 256, 0, d->pst>>>(g->n, s->plan.row0, next, count, d->pper, d->pcover, g->poisson.in,
                                                  g->poisson.fac, g->rscale, s->cfg->run.seed, d->pbuf[d->pcur ^ 1],
                                                  d->pcount);
    CK_LAUNCH("k_poisson_ahead");
    CK(cudaEventRecord(d->pdrawn, d->pst));
    d->ahead = 1;
    d->afirst = next;
    d->acount = count;
}

/* The inputs' rates or factors are about to change on g->st: draws made
 * ahead with the old ones are dropped, and the copy waits for them to end. */
void spk_devpush_poisson_forget(spk_cuda *g)
{
    spk_devpush_dev *d = g->dp;
    if (!d || !d->ahead) return;
    CK(cudaStreamWaitEvent(g->st, d->pdrawn, 0));
    d->ahead = 0;
}

/* Whether the step's pass over g's cells is one wave (SB_PASS_WAVE cells an
 * SM: 3 blocks of 256, the least of its forms); the scatter's grid and
 * sb_add are chosen by it. */
static int pass_one_wave(const spk_cuda *g)
{
    int dev = 0, sms = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return g->n <= (int64_t)sms * SB_PASS_WAVE;
}

/* k_sb_scatter's form for the run (plastic: the network's synapses). */
static const void *sb_scatter_kernel(const spk_cuda *g, bool plastic)
{
    if (g->dp->sb_add) return plastic ? (const void *)k_sb_scatter<true, true> : (const void *)k_sb_scatter<false, true>;
    return plastic ? (const void *)k_sb_scatter<true, false> : (const void *)k_sb_scatter<false, false>;
}

/* The scatter's blocks: as many as run at once (k_sb_scatter says why);
 * but where the step's pass is one wave (pass_one_wave), 2 an SM for the
 * lists' scatter: the pass, launched while the scatter runs, then has room
 * to start in (H200, alternating in one call: the microcircuit's loop
 * -3 %, 100k x 1000 -6 %; on 1M x 1000, a pass of many waves, +5 %, hence
 * not there). */
static int sb_grid_size(const spk_cuda *g, bool plastic)
{
    int dev = 0, sms = 0, per_sm = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const void *k = g->pass.sb_atomic ? (const void *)k_sb_atomic : sb_scatter_kernel(g, plastic);
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, SB_THREADS, 0));
    per_sm = per_sm > 0 ? per_sm : 1;
    /* (sb_atomic: as many as run at once, even beside a pass of one wave:
     * the microcircuit's loop on an H200, 3 s, 2, 4, 6 and 8 blocks an SM:
     * 0.383, 0.352, 0.344, 0.346 s; the kernel, as long as the pass, is on
     * the step's chain) */
    return sms * (pass_one_wave(g) && per_sm > 2 && !g->pass.sb_atomic ? 2 : per_sm);
}

/* Static buckets: bptr from the in-degrees (device atomics and a scan),
 * both parities' list heads (cnt: 2n, all SPK_END), links and scratch. */
static void sb_setup(sim_t *s, spk_cuda *g)
{
    const int64_t n = g->n, nsyn = s->spk->nsyn;
    if (g->pass.sb_atomic) {   /* no lists: the tails' heads stay SPK_END; three spike lists rotate */
        CK(cudaMemset(g->dp->cnt, 0xff, 2 * (size_t)n * sizeof(uint32_t)));
        g->dp->sb_grid = sb_grid_size(g, false);
        g->pass.spk_prev = dev_alloc<int32_t>((size_t)n, "spikes");
        g->pass.spk_third = dev_alloc<int32_t>((size_t)n, "spikes");
        g->pass.nspk_prev = dev_alloc<unsigned int>(1, "spikes");
        g->pass.nspk_third = dev_alloc<unsigned int>(1, "spikes");
        CK(cudaMemset(g->pass.nspk_prev, 0, sizeof(unsigned int)));
        CK(cudaMemset(g->pass.nspk_third, 0, sizeof(unsigned int)));
        g->dp->sb_regs = SPK_INREG;
        return;
    }
    g->dp->link = dev_alloc<spk_link>((size_t)nsyn, "event buckets");
    if (g->dp->sb_add) {
        g->dp->link_odd = dev_alloc<spk_link>((size_t)nsyn, "event buckets");
        g->dp->later = dev_alloc<uint32_t>(2 * (size_t)n, "event buckets");
        CK(cudaMemset(g->dp->later, 0xff, 2 * (size_t)n * sizeof(uint32_t)));   /* SPK_END */
    }
    g->dp->ovf = dev_alloc<uint32_t>((size_t)nsyn, "event buckets");
    g->dp->bptr = dev_alloc<uint32_t>((size_t)n + 1, "event buckets");
    uint32_t *deg = dev_alloc<uint32_t>((size_t)n + 1, "event buckets");
    CK(cudaMemset(g->dp->cnt, 0, (size_t)n * sizeof(uint32_t)));
    if (nsyn) {
        k_sb_indegree<<<4096, 256, 0, g->st>>>(nsyn, g->out, g->dp->cnt);
        CK_LAUNCH("k_sb_indegree");
    }
    k_sb_widen<<<(unsigned)((n + 256) / 256), 256, 0, g->st>>>(n, g->dp->cnt, deg);
    CK_LAUNCH("k_sb_widen");
    size_t bytes = 0;
    CK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, deg, g->dp->bptr, n + 1, g->st));
    void *tmp = nullptr;
    CK(cudaMalloc(&tmp, bytes + 1));
    CK(cub::DeviceScan::ExclusiveSum(tmp, bytes, deg, g->dp->bptr, n + 1, g->st));
    CK(cudaStreamSynchronize(g->st));
    CK(cudaFree(tmp));
    CK(cudaFree(deg));
    CK(cudaMemset(g->dp->cnt, 0xff, 2 * (size_t)n * sizeof(uint32_t)));   /* SPK_END */
    uint32_t total = 0;
    CK(cudaMemcpy(&total, g->dp->bptr + n, sizeof total, cudaMemcpyDeviceToHost));
    if ((int64_t)total != nsyn) olive_die("internal: the static buckets hold %lld events, the network has %lld synapses",
                                 (long long)total, (long long)nsyn);
    g->dp->sb_grid = sb_grid_size(g, s->spk->plastic != nullptr);
    g->pass.spk_prev = dev_alloc<int32_t>((size_t)n, "spikes");
    g->pass.nspk_prev = dev_alloc<unsigned int>(1, "spikes");
    CK(cudaMemset(g->pass.nspk_prev, 0, sizeof(unsigned int)));
    /* OLIVE_GPU_SB_REGS=1..8: fewer events in registers, so that tests
     * reach the scratch path of bursts */
    const int regs = spk_env_digit("OLIVE_GPU_SB_REGS", 1, SPK_INREG);
    g->dp->sb_regs = regs < 0 ? SPK_INREG : regs;
}

/* Dynamic buckets: per-target counters and room for dp_cap events a step. */
static void dp_setup(sim_t *s, spk_cuda *g, int64_t half_free)
{
    const int64_t n = g->n;
    g->dp->fill = dev_alloc<uint32_t>((size_t)n, "event buckets");
    g->dp->boff = dev_alloc<unsigned long long>((size_t)n, "event buckets");
    g->dp->tlist = dev_alloc<int32_t>((size_t)n, "event buckets");
    g->dp->dpc = dev_alloc<unsigned long long>(DPC_N, "event buckets");
    CK(cudaMemset(g->dp->fill, 0, (size_t)n * sizeof(uint32_t)));
    CK(cudaMemset(g->dp->dpc, 0, DPC_N * sizeof(unsigned long long)));
    /* every synapse if it fits in half of what is free, else that half (a
     * step needing more stops the run) */
    const int64_t half = half_free / (int64_t)sizeof(int64_t);
    g->dp->dp_cap = s->spk->nsyn < half ? s->spk->nsyn : half;
    g->dp->ev = dev_alloc<int64_t>((size_t)g->dp->dp_cap, "event buckets");
}

void spk_devpush_setup(sim_t *s, spk_cuda *g)
{
    const int64_t n = g->n, nsyn = s->spk->nsyn;
    g->dp = (spk_devpush_dev *)olive_calloc(1, sizeof *g->dp, "CUDA engine");
    g->dp->cnt = dev_alloc<uint32_t>(2 * (size_t)n, "event buckets");   /* (static buckets: both parities) */
    CK(cudaMemset(g->dp->cnt, 0, 2 * (size_t)n * sizeof(uint32_t)));
    g->poisson.in = dev_copy(s->spk->poisson.in, (size_t)s->cfg->spiking.npoisson, "Poisson inputs");
    g->poisson.rec = dev_copy(s->spk->poisson.rec, (size_t)s->cfg->spiking.npoisson, "Poisson inputs");
    spk_chunk_setup(s, g, INT64_C(64) << 20);   /* 512 MiB at most */
    size_t free_b = 0, total_b = 0;
    CK(cudaMemGetInfo(&free_b, &total_b));
    const int64_t half = (int64_t)(free_b / 2);
    /* static buckets need a link and a scratch entry per synapse (20
     * bytes) in half of what is free and fewer than 2^32 - 1 synapses (link
     * indices, SPK_END); OLIVE_GPU_BUCKETS=dynamic forces the other form
     * (tests) */
    const char *env = getenv("OLIVE_GPU_BUCKETS");
    if (env && *env && strcmp(env, "dynamic") && strcmp(env, "static"))
        olive_die("OLIVE_GPU_BUCKETS='%s': expected static or dynamic", env);
    const int64_t per_syn = (int64_t)(sizeof(spk_link) + sizeof(uint32_t));
    const int fits = nsyn * per_syn <= half && nsyn < (int64_t)SPK_END;
    /* sb_add (spk_sb.h) where no delay is 0 steps, a second set of links
     * fits too and the pass is one wave (pass_one_wave): the adds
     * then run where the pass leaves the SMs room. A pass of several waves
     * leaves none: on 1M x 200 (delays 0.1-5 ms, H200) the built-in lif_cuba
     * ran as fast with and without, the NESTML form 9 % slower with. The
     * microcircuit's loop: -19 %. OLIVE_GPU_SB_ADD=0: never, 1: wherever
     * the delays and memory allow (comparisons, tests). */
    const int add = spk_env_digit("OLIVE_GPU_SB_ADD", 0, 1);
    g->dp->sb_add = !s->spk->zero_delay && add != 0 && (pass_one_wave(g) || add == 1) &&
                nsyn * (per_syn + (int64_t)sizeof(spk_link)) <= half;
    /* a plugin delivering before its condition (spk_cuda.cu's plugin_push_steps)
     * sends a step's events after that step's delivery: into the slots at
     * once (dynamic), as static buckets' next tail would come too late */
    const int late = spk_plugin_cuda_late(g);
    /* sb_atomic (--order-free-sums: every sum exact, weight_quantum.h) where
     * no delay is 0 steps: the events added into their slots by atomics
     * beside the next step's pass, no lists (no memory a synapse);
     * OLIVE_GPU_SB_ATOMIC=0: the lists instead (comparisons, tests) */
    const int at = spk_env_digit("OLIVE_GPU_SB_ATOMIC", 0, 1);
    g->pass.sb_atomic = s->spk->wq.order_free && !s->spk->zero_delay && !late && !g->pl && !g->cable && g->ring.nt == n &&
                   at != 0 && !(env && !strcmp(env, "dynamic"));
    g->pass.sb = (fits || g->pass.sb_atomic) && !late && !(env && !strcmp(env, "dynamic"));
    if (!g->pass.sb || g->pass.sb_atomic) g->dp->sb_add = 0;
    if (env && !strcmp(env, "static") && !g->pass.sb)
        olive_die("OLIVE_GPU_BUCKETS=static: 20 bytes per synapse (%lld) do not fit in half of the free "
                  "device memory, or there are 2^32 - 1 synapses or more%s",
                  (long long)nsyn, late ? ", or the model's inputs come before its condition (dynamic only)" : "");
    if (g->pass.sb) {
        sb_setup(s, g);
        g->dp->dp_cap = nsyn;
    } else {
        dp_setup(s, g, half);
    }
    CK(cudaMemGetInfo(&free_b, &total_b));
    poisson_ahead_setup(s, g, spk_chunk_max(g), free_b);
    g->pass.plugin_free = g->plugin && g->pass.sb_atomic && (g->dp->padd || s->cfg->spiking.npoisson == 0);
    /* a pass of one wave is bound by its round trips: it reads the due sums
     * with their flag, needed or not (the microcircuit: one round trip less);
     * a pass of several waves is bound by its bytes and reads them only where
     * the flag says (the multi-area model's 4.1M cells: 66 MB a step more,
     * its pass and the events beside it 2-4 % slower) */
    g->pass.sums_ahead = g->pass.plugin_free && pass_one_wave(g);
    spk_owned_setup(s, g);
    olive_info("CUDA engine: device push delivery (%s buckets%s%s), chunks of up to %lld steps, room for %lld events a step",
               g->pass.sb ? "static" : "dynamic",
               g->pass.sb_atomic ? ", order-free: events added by atomics beside the next step" :
               g->dp->sb_add ? ", events added beside the next step" : "",
               g->pass.plugin_free ? "; the model's pass without lists or draws on steps without a current" : "",
               (long long)spk_chunk_max(g), (long long)g->dp->dp_cap);
}

/* The static buckets of step's parity (all null without static buckets). */
static spk_sb_bucket sb_parity(const spk_cuda *g, int64_t step)
{
    spk_sb_bucket b = {nullptr, nullptr, nullptr, nullptr, 0};
    if (!g->pass.sb) return b;
    b.head = g->dp->cnt + (step & 1) * g->n;
    b.link = (step & 1) && g->dp->link_odd ? g->dp->link_odd : g->dp->link;
    b.ovf = g->dp->ovf;
    b.bptr = g->dp->bptr;
    b.nreg = (uint32_t)g->dp->sb_regs;
    return b;
}

static spk_scatter_args scatter_args(const sim_t *s, const spk_cuda *g, int64_t step)
{
    spk_scatter_args a;
    a.b = sb_parity(g, step);
    a.later = g->dp->sb_add ? g->dp->later + (step & 1) * g->n : nullptr;
    a.out_ptr = g->out_ptr;
    a.out = g->out;
    a.delay = g->out_delay;
    a.step = step;
    a.row0 = s->plan.row0;
    a.L = (int)s->spk->L;
    a.pl = g->pl;
    return a;
}

static spk_tail_args sb_add_args(sim_t *s, spk_cuda *g, int64_t step);

void spk_devpush_atomic(sim_t *s, spk_cuda *g, int64_t step, const int32_t *spk, const unsigned int *nspk, int pdl)
{
    spk_scatter_args sa = scatter_args(s, g, step);
    double *acc = g->ring.acc;
    unsigned char *touched = g->ring.neg0 ? nullptr : g->ring.touched;
    int64_t n = g->n;
    if (pdl) {
        void *argv[] = {(void *)&spk, (void *)&nspk, (void *)&sa, (void *)&acc, (void *)&touched, (void *)&n};
        spk_launch(g, (const void *)k_sb_atomic, (unsigned)g->dp->sb_grid, SB_THREADS, argv, "k_sb_atomic");
    } else {
        k_sb_atomic<<<(unsigned)g->dp->sb_grid, SB_THREADS, 0, g->st>>>(spk, nspk, sa, acc, touched, n);
        CK_LAUNCH("k_sb_atomic");
    }
}

void spk_devpush_events(sim_t *s, spk_cuda *g, int64_t step)
{
    const int64_t row0 = s->plan.row0, L = s->spk->L;
    if (g->pass.sb) {
        spk_scatter_args sa = scatter_args(s, g, step);
        spk_tail_args add = {};
        unsigned nadd = 0;
        if (g->dp->add_pending && g->dp->add_step == step - 1) {
            add = sb_add_args(s, g, step - 1);
            nadd = spk_blocks(g->n, SB_THREADS);
        }
        void *argv[] = {(void *)&g->spk, (void *)&g->nspk, (void *)&sa, (void *)&add, (void *)&nadd};
        spk_launch(g, sb_scatter_kernel(g, g->pl != nullptr), (unsigned)g->dp->sb_grid + nadd, SB_THREADS, argv, "k_sb_scatter");
        g->dp->add_pending = g->dp->sb_add;
        g->dp->add_step = step;
        return;
    }
    k_dp_count<<<DP_GRID, DP_BLOCK, 0, g->st>>>(g->spk, g->nspk, row0, g->out_ptr, g->out, g->dp->cnt, g->dp->tlist, g->dp->dpc);
    CK_LAUNCH("k_dp_count");
    k_dp_place<<<DP_GRID, DP_BLOCK, 0, g->st>>>(g->dp->tlist, g->dp->cnt, g->dp->boff, g->dp->dpc, g->dp->dp_cap);
    CK_LAUNCH("k_dp_place");
    k_dp_scatter<<<DP_GRID, DP_BLOCK, 0, g->st>>>(g->spk, g->nspk, row0, g->out_ptr, g->out, g->dp->boff, g->dp->fill, g->dp->ev,
                                                   g->dp->dp_cap);
    CK_LAUNCH("k_dp_scatter");
    k_dp_sum<<<DP_GRID, DP_BLOCK, 0, g->st>>>(g->dp->tlist, g->dp->dpc, g->dp->cnt, g->dp->fill, g->dp->boff, g->dp->ev, g->dp->dp_cap, g->out,
                                               g->out_delay, step, (int)L, g->n, g->ring.acc, g->ring.touched);
    CK_LAUNCH("k_dp_sum");
}

spk_tail_args spk_devpush_tail_args(sim_t *s, spk_cuda *g, int64_t step, unsigned int *nspk)
{
    const sim_config *c = s->cfg;
    spk_tail_args a;
    a.n = g->n;
    a.row0 = s->plan.row0;
    a.step = step;
    a.L = (int)s->spk->L;
    a.slot = step % s->spk->L;
    a.acc = g->ring.acc;
    a.touched = g->ring.touched;
    a.ge = g->ge;
    a.gi = g->gi;
    a.poisson = g->poisson.in;
    a.poisson_rec = g->poisson.rec;
    a.npoisson = c->spiking.npoisson;
    a.seed = c->run.seed;
    a.npoisson_events = g->poisson.count;
    a.flags = g->flags;
    a.rscale = g->rscale;
    a.coef_of = g->coef_of;
    a.nspk = nspk;
    a.sb = sb_parity(g, step);
    a.pa.cover = g->dp->pcover;
    a.pa.per = g->dp->pper;
    a.pa.add = g->dp->padd ? g->dp->padd + (step - g->dp->pfirst) * g->dp->pper * g->n : nullptr;
    /* dynamic buckets sum every step's events into the slots; static ones
     * only those of later steps, which a ring of one slot has none of */
    a.due_held = !g->pass.sb || a.L > 1;
    a.sums_ahead = g->pass.sums_ahead;
    a.neg0 = g->ring.neg0;
    return a;
}

static spk_tail_args sb_add_args(sim_t *s, spk_cuda *g, int64_t step)
{
    spk_tail_args a = spk_devpush_tail_args(s, g, step, nullptr);
    a.slot = -1;
    a.sb.head = g->dp->later + (step & 1) * g->n;
    return a;
}

void spk_devpush_add_last(sim_t *s, spk_cuda *g)
{
    if (!g->dp->add_pending) return;
    const spk_tail_args a = sb_add_args(s, g, g->dp->add_step);
    k_sb_add<<<spk_blocks(g->n, 256), 256, 0, g->st>>>(a);
    CK_LAUNCH("k_sb_add");
    g->dp->add_pending = 0;
}

void spk_devpush_tail_launch(spk_cuda *g, const spk_tail_args *tail)
{
    k_dp_tail<<<(unsigned)((g->n + 255) / 256), 256, 0, g->st>>>(*tail, g->pass.sb ? nullptr : g->dp->dpc);
    CK_LAUNCH("k_dp_tail");
}

void spk_devpush_tail(sim_t *s, spk_cuda *g, int64_t step)
{
    const spk_tail_args a = spk_devpush_tail_args(s, g, step, g->nspk);
    spk_devpush_tail_launch(g, &a);
}

/* After a chunk: a step whose events did not fit stops the run. */
void spk_devpush_check(spk_cuda *g)
{
    if (g->pl) spk_plastic_cuda_check(g);
    if (g->pass.sb) return;   /* (static buckets cannot overflow) */
    unsigned long long over = 0;
    CK(cudaMemcpy(&over, g->dp->dpc + DPC_OVERFLOW, sizeof over, cudaMemcpyDeviceToHost));
    if (over)
        olive_die("CUDA engine: a step had more synaptic events than the %lld the device buffer holds (a runaway "
                  "network?); run with OLIVE_GPU_DELIVERY=host, or on more GPUs", (long long)g->dp->dp_cap);
}

size_t spk_devpush_state_bytes(void) { return sizeof(spk_devpush_dev); }

spk_poisson_ahead spk_devpush_poisson_chunk(const spk_cuda *g, int64_t first)
{
    spk_poisson_ahead pa;
    pa.cover = g->dp->pcover;
    pa.per = g->dp->pper;
    pa.add = g->dp->padd ? g->dp->padd + (first - g->dp->pfirst) * g->dp->pper * g->n : nullptr;
    return pa;
}

void spk_devpush_free(spk_cuda *g)
{
    if (!g->dp) return;
    void *d[] = {g->dp->cnt, g->dp->fill, g->dp->boff, g->dp->tlist, g->dp->dpc, g->dp->ev, g->dp->bptr, g->dp->ovf, g->dp->link, g->dp->link_odd, g->dp->later,
                 g->pass.spk_prev, g->pass.nspk_prev, g->pass.spk_third, g->pass.nspk_third, g->dp->pcover, g->dp->pbuf[0],
                 g->dp->pbuf[1], g->dp->pcount};
    if (g->dp->pst) {
        CK(cudaStreamSynchronize(g->dp->pst));   /* (draws ahead that no chunk took) */
        CK(cudaStreamDestroy(g->dp->pst));
        CK(cudaEventDestroy(g->dp->pfree));
        CK(cudaEventDestroy(g->dp->pdrawn));
    }
    /* (poisson: spiking_cuda_free) */
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) CK(cudaFree(d[i]));
    free(g->dp);
    g->dp = nullptr;
}
