/* olive-loopprobe: what a step loop of the microcircuit's shape can cost on
 * this GPU when it runs as one persistent cooperative kernel (issue 36:
 * real-time factor 0.1 needs 10 us a step; the two-launch loop of the
 * device push path takes ~25). Synthetic, no olive code: `cells` cells with
 * three doubles of state each, a ring of 64 slots of sums, and a step's
 * `events` events to random targets; per step
 *   update:  each cell reads its state, its inbox count and up to 4 events
 *            (all at once), the slots the events name, adds them, writes;
 *   scatter: each event (one a thread) reads its target, takes a place in
 *            the target's inbox (an integer atomic) and writes itself there;
 * separated by grid barriers. Printed, in us a step:
 *   barrier   a grid barrier alone (cooperative groups' and a hand-written
 *             one: an arrival counter and a generation flag);
 *   two-sync  update, barrier, scatter, barrier (and each part alone);
 *   one-sync  the scatter done by the block that found the spike (no
 *             barrier between), ~25 spikes of `fanout` events a step;
 *   due-slot  the events kept per (due slot, target) instead of summed into
 *             the ring at arrival: the update reads its due slot's inbox;
 *   resident  (issue 58: a step of <= 5 us) the shape the order-free sums
 *             allow: a cell's state stays in its thread's registers for
 *             the whole run, a step's events are added into the ring with
 *             atomics that return nothing, and ONE barrier a step: in
 *             iteration s every thread of the grid sends its share of
 *             step s-1's spikes (read from a list) while each cell takes
 *             in slot s-1's sums, clears it and makes step s (the least
 *             delay is one step, so the two touch no common slot);
 *             iaf_psc_exp's propagation in double, a DC or a drawn-ahead
 *             drive, ~25 spikes a step of `fanout` synapses each, stored
 *             (8 bytes: target, receptor, delay, weight), delays 1-40.
 *   owned     the resident loop with each block owning its cells' sums:
 *             a cell's synapses grouped by the block that owns their
 *             target, a block summing its share of a step's events in
 *             shared memory (a window of the next due steps; the far ones
 *             by the ring or by the block's own queues), against the ring
 *             on the same synapses (the microcircuit's delay law).
 *             `owned pd14=FILE`: targets by a network's populations and
 *             spikes at their rates (FILE: read_pop_table).
 * Usage: olive-loopprobe [cells] [events] [fanout] [steps] [all|resident|owned [pd14=FILE]] */
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>

namespace cg = cooperative_groups;

#define BENCH_NAME "olive-loopprobe"
#include "bench_cuda.h"

static const int SLOTS = 64, INBOX = 4;
__device__ unsigned int g_arrived, g_generation;

/* The hand-written barrier: the last block to arrive releases the others. */
__device__ __forceinline__ void counter_barrier(unsigned int &gen)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        gen++;
        __threadfence();
        if (atomicAdd(&g_arrived, 1u) == gridDim.x - 1) {
            g_arrived = 0;
            __threadfence();
            atomicExch(&g_generation, gen);
        } else {
            unsigned int v;
            do asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(&g_generation)); while (v != gen);
        }
    }
    __syncthreads();
}

__global__ void k_barriers(int iters, int hand)
{
    unsigned int gen = 0;
    if (threadIdx.x == 0) gen = *(volatile unsigned int *)&g_generation;
    for (int i = 0; i < iters; i++) {
        if (hand) counter_barrier(gen);
        else cg::this_grid().sync();
    }
}

struct world {
    int n, nev, fanout;
    double *st, *acc;
    uint32_t *cnt, *tgt;
    uint2 *inbox;
};

/* One cell's update: its inbox (events sent last step) into the ring, its
 * due slot, its state. */
__device__ __forceinline__ void update_cell(const world &w, int s, int r)
{
    const int par = s & 1;
    double v = w.st[r], a = w.st[w.n + r], b = w.st[2 * w.n + r];
    const uint32_t c = __ldcg(&w.cnt[par * w.n + r]);
    const double due = __ldcg(&w.acc[(size_t)(s % SLOTS) * w.n + r]);
    uint2 ev[INBOX];
    double old[INBOX];
#pragma unroll
    for (int k = 0; k < INBOX; k++) ev[k] = __ldcg(&w.inbox[((size_t)par * w.n + r) * INBOX + k]);
#pragma unroll
    for (int k = 0; k < INBOX; k++) old[k] = (uint32_t)k < c ? __ldcg(&w.acc[(size_t)(ev[k].x % SLOTS) * w.n + r]) : 0.0;
#pragma unroll
    for (int k = 0; k < INBOX; k++)
        if ((uint32_t)k < c) w.acc[(size_t)(ev[k].x % SLOTS) * w.n + r] = old[k] + __int_as_float(ev[k].y);
    w.cnt[par * w.n + r] = 0;
    w.acc[(size_t)(s % SLOTS) * w.n + r] = 0;
    w.st[r] = v * 0.99 + a * 0.01 + due;
    w.st[w.n + r] = a * 0.9;
    w.st[2 * w.n + r] = b + 1;
}

/* One event of step s into its target's inbox for the next step. */
__device__ __forceinline__ void send_event(const world &w, int s, uint32_t x, int j)
{
    const uint32_t t = x % w.n, par = (s & 1) ^ 1;
    const uint32_t k = atomicAdd(&w.cnt[par * w.n + t], 1u);
    if (k < INBOX) w.inbox[((size_t)par * w.n + t) * INBOX + k] = make_uint2((s + j) % SLOTS, __float_as_int(0.1f));
}

/* mode bits: 1 no update, 2 no scatter */
__global__ void k_two_sync(int steps, world w, int mode)
{
    cg::grid_group g = cg::this_grid();
    const int T = gridDim.x * blockDim.x, tid = blockIdx.x * blockDim.x + threadIdx.x;
    const size_t ntgt = (size_t)w.n * SLOTS;
    for (int s = 0; s < steps; s++) {
        if (!(mode & 1))
            for (int r = tid; r < w.n; r += T) update_cell(w, s, r);
        g.sync();
        if (!(mode & 2))
            for (int e = tid; e < w.nev; e += T) send_event(w, s, __ldcs(&w.tgt[((size_t)s * 7919 + e) % ntgt]), e);
        g.sync();
    }
}

/* ~25 cells a step spike (a hash of cell and step); each block sends its
 * own spikes' fanout events, then one barrier. */
__global__ void k_one_sync(int steps, world w)
{
    cg::grid_group g = cg::this_grid();
    __shared__ int spk[64];
    __shared__ int nspk;
    const int T = gridDim.x * blockDim.x, tid = blockIdx.x * blockDim.x + threadIdx.x;
    for (int s = 0; s < steps; s++) {
        if (threadIdx.x == 0) nspk = 0;
        __syncthreads();
        for (int r = tid; r < w.n; r += T) {
            update_cell(w, s, r);
            uint64_t h = (uint64_t)(r + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t)(s + 7) * 0xC2B2AE3D27D4EB4Full;
            h ^= h >> 29;
            h *= 0xBF58476D1CE4E5B9ull;
            h ^= h >> 32;
            if (h % (uint64_t)w.n < 25) {
                const int i = atomicAdd(&nspk, 1);
                if (i < 64) spk[i] = r;
            }
        }
        __syncthreads();
        const int m = nspk < 64 ? nspk : 64;
        for (int i = 0; i < m; i++) {
            const size_t base = ((size_t)spk[i] * w.fanout) % ((size_t)w.n * SLOTS - w.fanout);
            for (int e = threadIdx.x; e < w.fanout; e += blockDim.x) send_event(w, s, __ldcs(&w.tgt[base + e]), e);
        }
        g.sync();
    }
}

/* Events kept per (due slot, target), 16 bytes each: no ring of sums. */
struct ev16 {
    uint32_t key, delay;
    double w;
};
__global__ void k_due_slot(int steps, world w, uint32_t *dcnt, ev16 *dbox)
{
    cg::grid_group g = cg::this_grid();
    const int T = gridDim.x * blockDim.x, tid = blockIdx.x * blockDim.x + threadIdx.x;
    const size_t ntgt = (size_t)w.n * SLOTS;
    for (int s = 0; s < steps; s++) {
        for (int r = tid; r < w.n; r += T) {
            const size_t at = (size_t)(s % SLOTS) * w.n + r;
            const uint32_t c = __ldcg(&dcnt[at]);
            double sum = 0;
#pragma unroll
            for (int k = 0; k < INBOX; k++) {
                const int4 q = __ldcg((const int4 *)&dbox[at * INBOX + k]);
                ev16 e;
                memcpy(&e, &q, sizeof e);
                if ((uint32_t)k < c) sum += e.w;
            }
            dcnt[at] = 0;
            w.st[r] = w.st[r] * 0.99 + w.st[w.n + r] * 0.01 + sum;
            w.st[w.n + r] *= 0.9;
        }
        g.sync();
        for (int e = tid; e < w.nev; e += T) {
            const uint32_t x = __ldcs(&w.tgt[((size_t)s * 7919 + e) % ntgt]), t = x % w.n;
            const int d = 1 + (x >> 20) % (SLOTS - 4);
            const size_t at = (size_t)((s + d) % SLOTS) * w.n + t;
            const uint32_t k = atomicAdd(&dcnt[at], 1u);
            if (k < INBOX) {
                ev16 v = {(uint32_t)e, (uint32_t)d, 0.1};
                dbox[at * INBOX + k] = v;
            }
        }
        g.sync();
    }
}

/* The resident loop's world: a ring of SLOTS x 2 receptors x n sums, the
 * synapses of every cell (fanout each), three spike lists taking turns (the
 * one read, the one written, the one being emptied). */
static const int LIST_CAP = 4096, DRIVE_STEPS = 256;
struct resident_world {
    int n, fanout, per_block;
    double *ring, *st;
    const uint2 *syn;
    uint32_t *list, *cnt;
    const double *drive;
    uint32_t *qcnt;               /* mode 32: per (block, due slot) inbox, its count */
    unsigned long long *queue;    /* and its events, qcap each: local cell | receptor << 10 | weight << 11 */
    uint32_t qcap;
    const double *thr;            /* per cell, its spikes' threshold (a network's rates), or none: ~25 a step evenly */
};

/* A network of populations (`owned pd14=FILE`): each population's first
 * cell, whether it is inhibitory, and per source population the cumulative
 * share of its synapses onto each target population. */
static const int MAXPOP = 16;
struct pop_table {
    int npop;
    uint32_t start[MAXPOP + 1];
    int inh[MAXPOP];
    double cdf[MAXPOP][MAXPOP];   /* [source][target] */
};

/* delays 1-40 uniform, or (mc) the microcircuit's law in steps: a normal by
 * six 10-bit uniforms (Irwin-Hall, sd 1/sqrt(2) before scaling), excitatory
 * ~N(15, 7.5), inhibitory ~N(7.5, 3.75), clipped to 1-58 */
__global__ void k_make_synapses(uint2 *syn, size_t count, uint32_t n, uint32_t fanout, int mc, pop_table pt)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 31;
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 29;
        const uint32_t cell = (uint32_t)(i / fanout);
        uint32_t inh = cell % 5 == 4, target = (uint32_t)(h % n);
        if (pt.npop) {   /* the source's population, then the target's by the table, then a cell of it */
            int x = 0, y = 0;
            while (x + 1 < pt.npop && cell >= pt.start[x + 1]) x++;
            inh = (uint32_t)pt.inh[x];
            uint64_t f = h * 0xD1B54A32D192ED03ull + 0x8CB92BA72F3D8DD7ull;
            f ^= f >> 29;
            f *= 0xBF58476D1CE4E5B9ull;
            f ^= f >> 32;
            const double u = (double)(f >> 11) * (1.0 / 9007199254740992.0);
            while (y + 1 < pt.npop && u >= pt.cdf[x][y]) y++;
            target = pt.start[y] + (uint32_t)(h % (pt.start[y + 1] - pt.start[y]));
        }
        uint32_t delay = 1 + (uint32_t)(h >> 40) % 40;
        if (mc) {
            uint64_t g = h * 0x94D049BB133111EBull + 0x2545F4914F6CDD1Dull;
            g ^= g >> 32;
            g *= 0xD6E8FEB86659FD93ull;
            g ^= g >> 32;
            int u = 0;
            for (int k = 0; k < 6; k++) u += (int)(g >> (10 * k) & 1023);
            const double z = ((double)u / 1023.0 - 3.0) * 1.4142135623730951;
            const int d = (int)lrint(inh ? 7.5 + 3.75 * z : 15.0 + 7.5 * z);
            delay = (uint32_t)(d < 1 ? 1 : d > 58 ? 58 : d);
        }
        syn[i] = make_uint2(target | inh << 31, delay << 24 | (uint32_t)(h >> 16 & 0xfffff));
    }
}

/* mode bits: 1 no update (the spikes still listed), 2 no sends, 4 the sends'
 * sums folded into 8 slots (an array the L2 holds), 8 the update without
 * the ring (no sums read or cleared), 16 the ring cell-major (a cell's
 * slots and receptors side by side: a block's cells in a few pages), 32
 * no ring: a block's cells' events by due slot in inboxes of their own (an
 * integer atomic reserves an event's place, the event is stored there; the
 * block sums its due inbox in shared memory: what the L2 holds is the events
 * in flight, ~10 MB, not a ring of sums), 64 a thread's first two sends'
 * loads issued together, the spike list's entries beside its count */
static __device__ __forceinline__ size_t ring_at(int mode, int n, uint32_t slot, uint32_t rec, uint32_t cell)
{
    return mode & 16 ? ((size_t)cell * SLOTS + slot) * 2 + rec : ((size_t)slot * 2 + rec) * n + cell;
}

/* Whether cell r fires at step s: ~25 cells a step whatever the state, so
 * every variant sends the same events (thr: 25 / n of 2^32). */
static __device__ __forceinline__ bool resident_spikes(int r, int s, double thr)
{
    uint64_t h = (uint64_t)(r + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t)(s + 7) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    return (double)(uint32_t)h < thr;
}

static __device__ __forceinline__ void resident_list_spike(const resident_world &w, int s, int r)
{
    const uint32_t k = atomicAdd(&w.cnt[s % 3], 1u);
    if (k < LIST_CAP) w.list[(s % 3) * LIST_CAP + k] = (uint32_t)r;
}

/* A cell's step s: the due sums taken in, iaf_psc_exp's propagation at 0.1 ms
 * (tau_m 10, tau_syn 0.5, C_m 250), the spike (the test on v keeps the
 * update's work from being dropped). */
static __device__ __forceinline__ void resident_cell_step(const resident_world &w, int s, int r, double thr, double dex,
                                                          double din, double drive, double &v, double &iex, double &iin)
{
    const double P22 = 0.99004983374916811, P11 = 0.81873075307798182, P21 = 3.6184923263367e-04, P20 = 3.9800664998e-04;
    iex += dex;
    iin -= din;
    v = P22 * v + P21 * (iex + iin) + P20 * (350.0 + drive);
    iex *= P11;
    iin *= P11;
    if (resident_spikes(r, s, thr) || v > 1e9) {
        v = -70.0;
        resident_list_spike(w, s, r);
    }
}

__global__ void k_resident(int steps, resident_world w, int hand, int mode)
{
    cg::grid_group g = cg::this_grid();
    const uint32_t T = gridDim.x * blockDim.x, tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.x * w.per_block + threadIdx.x;
    const bool own = threadIdx.x < (unsigned)w.per_block && r < w.n;
    const double thr = w.thr && own ? w.thr[r] : 25.0 / w.n * 4294967296.0;
    double v = own ? -58.0 - 0.001 * (r % 1000) : 0, iex = 0, iin = 0;
    double drive_next = own && w.drive ? __ldcs(&w.drive[r]) : 0;
    unsigned int gen = 0;
    if (threadIdx.x == 0) gen = *(volatile unsigned int *)&g_generation;
    for (int s = 1; s <= steps; s++) {
        if (mode & 32) {
            __shared__ unsigned long long qs[2][1024];
            const int lp = (s - 1) % 3;
            const uint32_t qd = blockIdx.x * SLOTS + ((s - 1) & (SLOTS - 1));
            const uint32_t c = min(__ldcg(&w.qcnt[qd]), w.qcap), m = min(__ldcg(&w.cnt[lp]), (uint32_t)LIST_CAP);
            const uint32_t E = m * (uint32_t)w.fanout;
            if (threadIdx.x < (unsigned)w.per_block) qs[0][threadIdx.x] = qs[1][threadIdx.x] = 0;
            for (uint32_t e = tid; e < E; e += T) {
                const uint32_t i = e / (uint32_t)w.fanout, j = e - i * (uint32_t)w.fanout;
                const uint32_t cc = __ldcg(&w.list[lp * LIST_CAP + i]);
                const uint2 y = __ldcs(&w.syn[(size_t)cc * w.fanout + j]);
                const uint32_t t = y.x & 0x7fffffffu, owner = t / (uint32_t)w.per_block, local = t - owner * (uint32_t)w.per_block;
                const uint32_t q = owner * SLOTS + ((uint32_t)(s - 1 + (int)(y.y >> 24)) & (SLOTS - 1));
                const uint32_t k = atomicAdd(&w.qcnt[q], 1u);
                if (k < w.qcap)
                    w.queue[(size_t)q * w.qcap + k] = local | (unsigned long long)(y.x >> 31) << 10 | (unsigned long long)(y.y & 0xfffff) << 11;
            }
            __syncthreads();
            for (uint32_t k = threadIdx.x; k < c; k += blockDim.x) {
                const unsigned long long ev = __ldcg(&w.queue[(size_t)qd * w.qcap + k]);
                atomicAdd(&qs[ev >> 10 & 1][ev & 1023], ev >> 11);
            }
            __syncthreads();
            if (threadIdx.x == 0) w.qcnt[qd] = 0;
            if (own) {
                resident_cell_step(w, s, r, thr, (double)qs[0][threadIdx.x] * (1.0 / 65536),
                                   (double)qs[1][threadIdx.x] * (1.0 / 65536), 0.0, v, iex, iin);
            }
            if (tid == 0) w.cnt[(s + 1) % 3] = 0;
            if (hand) counter_barrier(gen);
            else g.sync();
            continue;
        }
        /* step s-1's spikes: every thread a share of their events (mode 64: a
         * thread's first two events with their list entries read beside the
         * count, before it is known, and both synapses read together) */
        const int lp = (s - 1) % 3;
        const uint32_t F = (uint32_t)w.fanout, i0 = tid / F, i1 = (tid + T) / F;
        const uint32_t c0 = mode & 64 && i0 < (uint32_t)LIST_CAP ? __ldcg(&w.list[lp * LIST_CAP + i0]) : 0;
        const uint32_t c1 = mode & 64 && i1 < (uint32_t)LIST_CAP ? __ldcg(&w.list[lp * LIST_CAP + i1]) : 0;
        const uint32_t m = min(__ldcg(&w.cnt[lp]), (uint32_t)LIST_CAP), E = m * (uint32_t)w.fanout;
        if ((mode & 64) && !(mode & 2)) {
            const bool h0 = tid < E, h1 = tid + T < E;
            uint2 y0 = make_uint2(0, 0), y1 = make_uint2(0, 0);
            if (h0) y0 = __ldcs(&w.syn[(size_t)c0 * F + (tid - i0 * F)]);
            if (h1) y1 = __ldcs(&w.syn[(size_t)c1 * F + (tid + T - i1 * F)]);
            const uint32_t fold = mode & 4 ? 7 : SLOTS - 1;
            if (h0)
                atomicAdd(&w.ring[ring_at(mode, w.n, (uint32_t)(s - 1 + (int)(y0.y >> 24)) & fold, y0.x >> 31, y0.x & 0x7fffffffu)],
                          (double)(y0.y & 0xfffff) * (1.0 / 65536));
            if (h1)
                atomicAdd(&w.ring[ring_at(mode, w.n, (uint32_t)(s - 1 + (int)(y1.y >> 24)) & fold, y1.x >> 31, y1.x & 0x7fffffffu)],
                          (double)(y1.y & 0xfffff) * (1.0 / 65536));
        }
        for (uint32_t e = mode & 64 ? tid + 2 * T : tid; e < (mode & 2 ? 0u : E); e += T) {
            const uint32_t i = e / (uint32_t)w.fanout, j = e - i * (uint32_t)w.fanout;
            const uint32_t c = __ldcg(&w.list[lp * LIST_CAP + i]);
            const uint2 y = __ldcs(&w.syn[(size_t)c * w.fanout + j]);
            const uint32_t slot = (uint32_t)(s - 1 + (int)(y.y >> 24)) & (mode & 4 ? 7 : SLOTS - 1);
            atomicAdd(&w.ring[ring_at(mode, w.n, slot, y.x >> 31, y.x & 0x7fffffffu)], (double)(y.y & 0xfffff) * (1.0 / 65536));
        }
        /* step s: slot s-1's sums taken in, the slot cleared, the cell moved on */
        if (own && !(mode & 1)) {
            const size_t a0 = ring_at(mode, w.n, (s - 1) & (SLOTS - 1), 0, r), a1 = ring_at(mode, w.n, (s - 1) & (SLOTS - 1), 1, r);
            const double dex = mode & 8 ? 0.0 : __ldcg(&w.ring[a0]), din = mode & 8 ? 0.0 : __ldcg(&w.ring[a1]);
            const double drive = drive_next;
            if (w.drive) drive_next = __ldcs(&w.drive[(size_t)(s % DRIVE_STEPS) * w.n + r]);
            if (!(mode & 8)) {
                w.ring[a0] = 0;
                w.ring[a1] = 0;
            }
            resident_cell_step(w, s, r, thr, dex, din, drive, v, iex, iin);
        }
        if (own && (mode & 1)) {   /* the same spikes, no update */
            if (resident_spikes(r, s, thr)) resident_list_spike(w, s, r);
        }
        if (tid == 0) w.cnt[(s + 1) % 3] = 0;
        if (hand) counter_barrier(gen);
        else g.sync();
    }
    if (own) {
        w.st[r] = v;
        w.st[w.n + r] = iex;
        w.st[2 * w.n + r] = iin;
    }
}

/* The target-owned loop ("owned", issue 58): each block owns a run of
 * cells, and a firing cell's synapses are stored grouped by the block that
 * owns their target (a cell's offsets, one per block), so that a block reads
 * only its cells' share of a step's spikes and sums them in SHARED memory:
 * a window of the next W due steps (a step's sums of its cells, exact
 * 64-bit fixed point, the same numbers as the ring's exact double sums).
 * Events due W steps or more ahead go (mode 128) into the global ring by a
 * double atomic, read back by the cell with its window, or (mode 256) into
 * the block's own queue of its due step in global memory, with the count
 * in shared memory (no global atomic), and join the window when their step
 * enters it (mode 512: no sends, the barrier and the update alone; 1024:
 * the hand-written barrier). No event crosses to another block's memory: what the L2 and
 * the DRAM see is the synapses read, the spike list, and the far events.
 * Synapses as the resident loop's, delays as the microcircuit's law
 * (excitatory ~N(15, 7.5) steps, inhibitory ~N(7.5, 3.75), 1-58). */
struct owned_world {
    int n, fanout, per_block, W;
    double *ring, *st;
    const uint2 *syn;              /* grouped by owning block within each cell's run */
    const uint16_t *off;           /* (blocks + 1) a cell: where each block's group starts */
    const uint2 *rows;             /* mode 4096: a cell's group for each block padded to ROW entries */
    const double *drive;           /* a drawn-ahead drive (DRIVE_STEPS x n amounts), or none (DC) */
    const double *thr;             /* as resident_world's */
    uint32_t *list, *cnt;
    unsigned long long *fq;        /* mode 256: per (block, due slot) far events, fqcap each */
    uint32_t fqcap;
};

/* One block a cell: its synapses regrouped by the block owning the target. */
__global__ void k_group_by_owner(const uint2 *syn, uint2 *out, uint16_t *off, uint32_t fanout, uint32_t per_block,
                                 uint32_t blocks)
{
    extern __shared__ uint32_t at[];
    const size_t c = blockIdx.x, base = c * fanout;
    for (uint32_t b = threadIdx.x; b <= blocks; b += blockDim.x) at[b] = 0;
    __syncthreads();
    for (uint32_t j = threadIdx.x; j < fanout; j += blockDim.x)
        atomicAdd(&at[(syn[base + j].x & 0x7fffffffu) / per_block], 1u);
    __syncthreads();
    if (threadIdx.x == 0) {
        uint32_t sum = 0;
        for (uint32_t b = 0; b <= blocks; b++) {
            const uint32_t k = at[b];
            at[b] = sum;
            off[c * (blocks + 1) + b] = (uint16_t)sum;
            sum += k;
        }
    }
    __syncthreads();
    for (uint32_t j = threadIdx.x; j < fanout; j += blockDim.x) {
        const uint2 y = syn[base + j];
        out[base + atomicAdd(&at[(y.x & 0x7fffffffu) / per_block], 1u)] = y;
    }
}

/* One block a cell: its groups copied into rows of ROW entries, the rest
 * marked empty; the longest group is kept (a row too short is reported). */
__device__ unsigned int g_longest;
__global__ void k_pad_rows(const uint2 *grouped, const uint16_t *off, uint2 *rows, uint32_t fanout, uint32_t blocks,
                           uint32_t row)
{
    const size_t c = blockIdx.x;
    for (uint32_t b = 0; b < blocks; b++) {
        const uint32_t o0 = off[c * (blocks + 1) + b], len = off[c * (blocks + 1) + b + 1] - o0;
        if (threadIdx.x == 0) atomicMax(&g_longest, len);
        for (uint32_t k = threadIdx.x; k < row; k += blockDim.x)
            rows[(c * blocks + b) * row + k] = k < len ? grouped[c * fanout + o0 + k] : make_uint2(0xffffffffu, 0);
    }
}

/* One event into the block's window, or its far path (mode 256: the
 * block's queue of its due step; else the global ring). */
static __device__ __forceinline__ void owned_send(const owned_world &w, uint2 y, int s, uint32_t b, uint32_t PB, uint32_t W,
                                                  int mode, unsigned long long *win, uint32_t *fqn)
{
    const uint32_t d = y.y >> 24, rec = y.x >> 31, t = y.x & 0x7fffffffu, local = t - b * PB;
    const unsigned long long q = y.y & 0xfffff;
    const uint32_t due = (uint32_t)(s - 1) + d;
    if (d < W) atomicAdd(&win[((due % W) * 2 + rec) * PB + local], q);
    else if (mode & 256) {
        const uint32_t slot = due & (SLOTS - 1), k = atomicAdd(&fqn[slot], 1u);
        if (k < w.fqcap) w.fq[((size_t)b * SLOTS + slot) * w.fqcap + k] = local | (unsigned long long)rec << 10 | q << 11;
    } else
        atomicAdd(&w.ring[ring_at(0, w.n, due & (SLOTS - 1), rec, t)], (double)q * (1.0 / 65536));
}

/* mode bits: 128 far events to the ring, 256 to the block's queues, 512 no
 * sends, 1024 the hand-written barrier, 2048 no update (the spikes still
 * listed), 4096 fixed rows: a cell's events for each block padded to ROW
 * entries (no offsets to read: the row's place follows from the cell), the
 * list's entry read beside its count, 8192 the update beside the sends (no
 * block barrier between them: they touch no common slot) */
static const uint32_t ROW = 64, NO_EVENT = 0xffffffffu;
__global__ void __launch_bounds__(1024, 1) k_owned(int steps, owned_world w, int mode)
{
    extern __shared__ unsigned long long win[];    /* [W][2][per_block] */
    __shared__ uint32_t fqn[SLOTS];
    cg::grid_group g = cg::this_grid();
    const uint32_t PB = (uint32_t)w.per_block, W = (uint32_t)w.W, B = gridDim.x, b = blockIdx.x;
    const int r = (int)(b * PB + threadIdx.x);
    const bool own = threadIdx.x < PB && r < w.n;
    const double thr = w.thr && own ? w.thr[r] : 25.0 / w.n * 4294967296.0;
    double v = own ? -58.0 - 0.001 * (r % 1000) : 0, iex = 0, iin = 0;
    double drive_next = own && w.drive ? __ldcs(&w.drive[r]) : 0;
    for (uint32_t k = threadIdx.x; k < W * 2 * PB; k += blockDim.x) win[k] = 0;
    for (uint32_t k = threadIdx.x; k < SLOTS; k += blockDim.x) fqn[k] = 0;
    __syncthreads();
    const uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31, warps = blockDim.x >> 5;
    unsigned int gen = 0;   /* mode 1024: the hand-written barrier */
    if (threadIdx.x == 0) gen = *(volatile unsigned int *)&g_generation;
    const resident_world rw = {w.n, w.fanout, w.per_block, w.ring, w.st, w.syn, w.list, w.cnt, nullptr, nullptr, nullptr, 0, w.thr};
    for (int s = 1; s <= steps; s++) {
        const int lp = (s - 1) % 3;
        const uint32_t first = mode & 4096 ? __ldcg(&w.list[lp * LIST_CAP + warp]) : 0;
        const uint32_t m = mode & 512 ? 0 : min(__ldcg(&w.cnt[lp]), (uint32_t)LIST_CAP);
        /* mode 256: the far events of the due step entering the window */
        const uint32_t enter = (uint32_t)(s - 2) + W, eq = enter & (SLOTS - 1);
        const uint32_t ec = mode & 256 ? min(fqn[eq], w.fqcap) : 0;
        auto sends = [&]() {
        for (uint32_t i = warp; i < m; i += warps) {
            const uint32_t c = mode & 4096 && i == warp ? first : __ldcg(&w.list[lp * LIST_CAP + i]);
            if (mode & 4096) {
                const uint2 *row = w.rows + ((size_t)c * B + b) * ROW;
                const uint2 y0 = __ldcs(&row[lane]), y1 = __ldcs(&row[lane + 32]);
                if (y0.x != NO_EVENT) owned_send(w, y0, s, b, PB, W, mode, win, fqn);
                if (y1.x != NO_EVENT) owned_send(w, y1, s, b, PB, W, mode, win, fqn);
                continue;
            }
            const uint32_t o0 = __ldg(&w.off[(size_t)c * (B + 1) + b]), o1 = __ldg(&w.off[(size_t)c * (B + 1) + b + 1]);
            for (uint32_t k = o0 + lane; k < o1; k += 32)
                owned_send(w, __ldcs(&w.syn[(size_t)c * w.fanout + k]), s, b, PB, W, mode, win, fqn);
        }
        for (uint32_t k = threadIdx.x; k < ec; k += blockDim.x) {
            const unsigned long long ev = __ldcg(&w.fq[((size_t)b * SLOTS + eq) * w.fqcap + k]);
            atomicAdd(&win[((enter % W) * 2 + (uint32_t)(ev >> 10 & 1)) * PB + (uint32_t)(ev & 1023)], ev >> 11);
        }
        };
        auto update = [&]() {
        if (own && (mode & 2048)) {
            if (resident_spikes(r, s, thr)) resident_list_spike(rw, s, r);
        } else if (own) {
            const uint32_t ws = (uint32_t)(s - 1) % W;
            double dex = (double)win[(ws * 2) * PB + threadIdx.x] * (1.0 / 65536);
            double din = (double)win[(ws * 2 + 1) * PB + threadIdx.x] * (1.0 / 65536);
            win[(ws * 2) * PB + threadIdx.x] = 0;
            win[(ws * 2 + 1) * PB + threadIdx.x] = 0;
            if (!(mode & 256)) {
                const size_t a0 = ring_at(0, w.n, (s - 1) & (SLOTS - 1), 0, r), a1 = ring_at(0, w.n, (s - 1) & (SLOTS - 1), 1, r);
                dex += __ldcg(&w.ring[a0]);
                din += __ldcg(&w.ring[a1]);
                w.ring[a0] = 0;
                w.ring[a1] = 0;
            }
            const double drive = drive_next;
            if (w.drive) drive_next = __ldcs(&w.drive[(size_t)(s % DRIVE_STEPS) * w.n + r]);
            resident_cell_step(rw, s, r, thr, dex, din, drive, v, iex, iin);
        }
        };
        if (mode & 8192) {
            /* the update beside the sends, no block barrier between: the
             * slot it reads and clears (s-1) was filled by earlier
             * iterations, and this one's sends and queue reach only later
             * slots; the step before's entering queue is emptied here */
            if (threadIdx.x == 0 && s > 1 && (mode & 256)) fqn[((uint32_t)(s - 3) + W) & (SLOTS - 1)] = 0;
            update();
            sends();
        } else {
            sends();
            __syncthreads();
            if (threadIdx.x == 0 && (mode & 256)) fqn[eq] = 0;
            update();
        }
        if (b == 0 && threadIdx.x == 0) w.cnt[(s + 1) % 3] = 0;
        if (mode & 1024) counter_barrier(gen);
        else g.sync();
    }
    if (own) {
        w.st[r] = v;
        w.st[w.n + r] = iex;
        w.st[2 * w.n + r] = iin;
    }
}

__global__ void k_fill_drive(double *d, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        d[i] = (double)(i * 2654435761u % 7);
}

static int g_sms;
static float timed(const void *kernel, int block, int per_sm_want, void **args, int steps, int *per_sm_used,
                   size_t smem = 0)
{
    int per = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernel, block, smem));
    const int use = per < per_sm_want ? per : per_sm_want;
    *per_sm_used = use;
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaEventRecord(a));
    if (use < 1) return -1;
    CK(cudaLaunchCooperativeKernel(kernel, dim3(g_sms * use), dim3(block), args, smem, 0));
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    return ms * 1000 / steps;
}

/* The resident loop at 1 and 2 blocks an SM, both barriers, DC and drawn-ahead
 * drive; the spikes a step it sent are printed beside the time. */
static void resident_loops(int n, int fanout, int steps)
{
    resident_world r;
    r.thr = nullptr;
    r.n = n;
    r.fanout = fanout;
    const size_t nsyn = (size_t)n * fanout;
    uint2 *syn;
    double *drive;
    CK(cudaMalloc(&syn, nsyn * sizeof(uint2)));
    k_make_synapses<<<g_sms * 8, 256>>>(syn, nsyn, (uint32_t)n, (uint32_t)fanout, 0, pop_table{});
    CK(cudaGetLastError());
    r.syn = syn;
    CK(cudaMalloc(&r.ring, (size_t)SLOTS * 2 * n * sizeof(double)));
    CK(cudaMalloc(&r.st, 3 * (size_t)n * sizeof(double)));
    CK(cudaMalloc(&r.list, 3 * (size_t)LIST_CAP * sizeof(uint32_t)));
    CK(cudaMalloc(&r.cnt, 3 * sizeof(uint32_t)));
    CK(cudaMalloc(&drive, (size_t)DRIVE_STEPS * n * sizeof(double)));
    r.qcap = 4096;
    CK(cudaMalloc(&r.qcnt, (size_t)g_sms * 2 * SLOTS * sizeof(uint32_t)));
    CK(cudaMalloc(&r.queue, (size_t)g_sms * 2 * SLOTS * r.qcap * sizeof(unsigned long long)));
    k_fill_drive<<<g_sms * 8, 256>>>(drive, (size_t)DRIVE_STEPS * n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    printf("resident: %d cells, fanout %d, %d steps, ring %.1f MB, synapses %.2f GB\n", n, fanout, steps,
           SLOTS * 2.0 * n * 8 / 1e6, nsyn * 8.0 / 1e9);
    struct variant { int per, block, drive, hand, mode; const char *what; };
    const variant vs[] = {
        {1, 0, 0, 0, 0, "DC, whole step (ring)"},
        {1, 0, 0, 0, 32, "DC, whole step (inboxes)"},
        {2, 0, 0, 0, 32, "DC, whole step (inboxes)"},
        {1, 1024, 0, 0, 32, "DC, whole step (inboxes)"},
        {1, 0, 0, 1, 32, "DC, inboxes, hand barrier"},
        {1, 0, 0, 0, 2, "update alone (ring, no sends)"},
        {1, 0, 0, 0, 3, "barrier and spike list alone"},
        {1, 0, 0, 0, 1, "sends alone (ring)"},
        {1, 0, 1, 0, 0, "drawn drive, whole step (ring)"},
        {1, 0, 0, 0, 0, "DC, whole step (ring, again)"},
        {1, 0, 0, 0, 32, "DC, whole step (inboxes, again)"},
        {1, 0, 0, 0, 64, "DC, whole step, sends' loads ahead"},
        {1, 0, 0, 0, 65, "sends alone, loads ahead"},
        {1, 0, 0, 0, 68, "DC, loads ahead, 8 slots (L2)"},
        {1, 1024, 0, 0, 64, "DC, whole step, sends' loads ahead"},
        {2, 0, 0, 0, 64, "DC, whole step, sends' loads ahead"},
    };
    /* 30,000 untimed steps first: a call's first figures, with only each
     * variant's own short warm-up, once came out ~2.7x slower, likely the
     * clocks coming up from idle
     * (docs/results/microcircuit_resident_probe_2026-12-07_h100.txt) */
    {
        r.per_block = (n + g_sms - 1) / g_sms;
        r.drive = nullptr;
        CK(cudaMemset(r.cnt, 0, 3 * sizeof(uint32_t)));
        CK(cudaMemset(r.ring, 0, (size_t)SLOTS * 2 * n * sizeof(double)));
        int s = 30000, h = 0, m = 0, used = 0;
        void *args[] = {&s, &r, &h, &m};
        timed((const void *)k_resident, (r.per_block + 31) / 32 * 32, 1, args, s, &used);
    }
    std::vector<double> ref;
    for (const variant &x : vs) {
        r.per_block = (n + g_sms * x.per - 1) / (g_sms * x.per);
        const int block = x.block ? x.block : (r.per_block + 31) / 32 * 32;
        if (block > 1024 || block < r.per_block) continue;
        r.drive = x.drive ? drive : nullptr;
        CK(cudaMemset(r.ring, 0, (size_t)SLOTS * 2 * n * sizeof(double)));
        CK(cudaMemset(r.cnt, 0, 3 * sizeof(uint32_t)));
        CK(cudaMemset(r.qcnt, 0, (size_t)g_sms * 2 * SLOTS * sizeof(uint32_t)));
        int s = steps, h = x.hand, m = x.mode, used = 0;
        void *args[] = {&s, &r, &h, &m};
        int s0 = steps < 2000 ? steps : 2000;   /* a warm-up run, then the timed one */
        void *args0[] = {&s0, &r, &h, &m};
        timed((const void *)k_resident, block, x.per, args0, s0, &used);
        if (used < x.per) { printf("resident  %d blocks an SM do not fit\n", x.per); continue; }
        CK(cudaMemset(r.cnt, 0, 3 * sizeof(uint32_t)));
        CK(cudaMemset(r.qcnt, 0, (size_t)g_sms * 2 * SLOTS * sizeof(uint32_t)));
        CK(cudaMemset(r.ring, 0, (size_t)SLOTS * 2 * n * sizeof(double)));
        const float us = timed((const void *)k_resident, block, x.per, args, steps, &used);
        uint32_t c[3];
        CK(cudaMemcpy(c, r.cnt, sizeof c, cudaMemcpyDeviceToHost));
        /* the same spikes (a hash of cell and step) and exact sums: the DC runs
         * of the ring and of the inboxes end in the same state, bit for bit */
        const char *same = "";
        if (!x.drive && (x.mode == 0 || x.mode == 16 || x.mode == 32 || x.mode == 64)) {
            std::vector<double> st(3 * (size_t)n);
            CK(cudaMemcpy(st.data(), r.st, st.size() * sizeof(double), cudaMemcpyDeviceToHost));
            if (ref.empty()) ref = st, same = ", the reference state";
            else same = memcmp(ref.data(), st.data(), st.size() * sizeof(double)) ? ", state DIFFERS from the first run's" : ", the same state bit for bit";
        }
        printf("resident  %-32s %4d threads x %d blocks an SM (%d cells a block): %6.3f us a step (last step's spikes %u%s)\n",
               x.what, block, used, r.per_block, us, c[steps % 3], same);
    }
}

/* The target-owned loop against the ring on the same synapses (the
 * microcircuit's delay law), 1024 threads and one block an SM: the ring's
 * run first (its state the reference), then each window and far path. */
/* A network of populations from FILE (written by
 * docs/results/microcircuit_owned_groups_2026-12-07.py --table): the number of
 * populations, their sizes, rates (Hz), inhibitory flags (0/1), then the
 * synapse counts [target][source], one target a line. Sets the table and
 * every cell's spike threshold (its population's rate at 0.1 ms a step). */
static void read_pop_table(const char *file, int n, pop_table &pt, std::vector<double> &thr)
{
    FILE *f = fopen(file, "r");
    if (!f) { fprintf(stderr, "olive-loopprobe: %s: cannot open\n", file); exit(2); }
    int np = 0;
    double size[MAXPOP], rate[MAXPOP], k[MAXPOP][MAXPOP];
    bool ok = fscanf(f, "%d", &np) == 1 && np > 0 && np <= MAXPOP;
    for (int x = 0; ok && x < np; x++) ok = fscanf(f, "%lf", &size[x]) == 1 && size[x] >= 1;
    for (int x = 0; ok && x < np; x++) ok = fscanf(f, "%lf", &rate[x]) == 1 && rate[x] >= 0 && rate[x] < 1e4;
    for (int x = 0; ok && x < np; x++) ok = fscanf(f, "%d", &pt.inh[x]) == 1 && (pt.inh[x] == 0 || pt.inh[x] == 1);
    for (int y = 0; ok && y < np; y++)
        for (int x = 0; ok && x < np; x++) ok = fscanf(f, "%lf", &k[y][x]) == 1 && k[y][x] >= 0;
    fclose(f);
    if (!ok) { fprintf(stderr, "olive-loopprobe: %s: not a population table (count, sizes, rates, flags, counts)\n", file); exit(2); }
    pt.npop = np;
    pt.start[0] = 0;
    for (int x = 0; x < np; x++) pt.start[x + 1] = pt.start[x] + (uint32_t)size[x];
    if (pt.start[np] != (uint32_t)n) { fprintf(stderr, "olive-loopprobe: %s: %u cells, not %d\n", file, pt.start[np], n); exit(2); }
    thr.resize(n);
    for (int x = 0; x < np; x++) {
        double total = 0, sum = 0;
        for (int y = 0; y < np; y++) total += k[y][x];
        for (int y = 0; y < np; y++) pt.cdf[x][y] = total > 0 ? (sum += k[y][x]) / total : 1.0;
        pt.cdf[x][np - 1] = 2.0;   /* every draw falls in some population */
        for (uint32_t c = pt.start[x]; c < pt.start[x + 1]; c++) thr[c] = rate[x] * 1e-4 * 4294967296.0;
    }
}

static void owned_loops(int n, int fanout, int steps, const char *table)
{
    if (fanout > 65535) { printf("owned: fanout over 65535, not run\n"); return; }
    const uint32_t B = (uint32_t)g_sms, PB = (uint32_t)((n + g_sms - 1) / g_sms);
    if (PB > 1024) { printf("owned: %u cells a block do not fit 1024 threads\n", PB); return; }
    const size_t nsyn = (size_t)n * fanout;
    uint2 *raw, *grouped;
    uint16_t *off;
    CK(cudaMalloc(&raw, nsyn * sizeof(uint2)));
    CK(cudaMalloc(&grouped, nsyn * sizeof(uint2)));
    CK(cudaMalloc(&off, (size_t)n * (B + 1) * sizeof(uint16_t)));
    pop_table pt = {};
    std::vector<double> thr_host;
    if (table) read_pop_table(table, n, pt, thr_host);
    double *thr = nullptr;
    if (table) {
        CK(cudaMalloc(&thr, n * sizeof(double)));
        CK(cudaMemcpy(thr, thr_host.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    }
    k_make_synapses<<<g_sms * 8, 256>>>(raw, nsyn, (uint32_t)n, (uint32_t)fanout, 1, pt);
    CK(cudaGetLastError());
    k_group_by_owner<<<n, 256, (B + 1) * sizeof(uint32_t)>>>(raw, grouped, off, (uint32_t)fanout, PB, B);
    CK(cudaGetLastError());
    uint2 *rows;
    CK(cudaMalloc(&rows, (size_t)n * B * ROW * sizeof(uint2)));
    k_pad_rows<<<n, 64>>>(grouped, off, rows, (uint32_t)fanout, B, ROW);
    CK(cudaGetLastError());
    unsigned int longest = 0;
    CK(cudaMemcpyFromSymbol(&longest, g_longest, sizeof longest));
    /* the delays' law as drawn: how many fall within each window */
    std::vector<uint2> h(std::min(nsyn, (size_t)4000000));
    CK(cudaMemcpy(h.data(), raw, h.size() * sizeof(uint2), cudaMemcpyDeviceToHost));
    size_t within16 = 0, within24 = 0, dmax = 0;
    for (const uint2 &y : h) {
        const size_t d = y.y >> 24;
        within16 += d < 16;
        within24 += d < 24;
        dmax = d > dmax ? d : dmax;
    }
    resident_world r = {};
    owned_world o = {};
    auto common = [&](auto &x, const uint2 *syn) {   /* what the ring loop and the owned loop share */
        x.thr = thr;
        x.n = n;
        x.fanout = fanout;
        x.per_block = (int)PB;
        x.syn = syn;
    };
    common(r, raw);
    common(o, grouped);
    o.off = off;
    o.rows = rows;
    o.fqcap = 4096;
    const size_t ring_bytes = (size_t)SLOTS * 2 * n * sizeof(double);
    CK(cudaMalloc(&r.ring, ring_bytes));
    CK(cudaMalloc(&r.st, 3 * (size_t)n * sizeof(double)));
    CK(cudaMalloc(&r.list, 3 * (size_t)LIST_CAP * sizeof(uint32_t)));
    CK(cudaMalloc(&r.cnt, 3 * sizeof(uint32_t)));
    CK(cudaMalloc(&o.fq, (size_t)B * SLOTS * o.fqcap * sizeof(unsigned long long)));
    o.ring = r.ring;
    o.st = r.st;
    o.list = r.list;
    o.cnt = r.cnt;
    CK(cudaDeviceSynchronize());
    int optin = 0, dev = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    CK(cudaFuncSetAttribute((const void *)k_owned, cudaFuncAttributeMaxDynamicSharedMemorySize, optin - 1024));
    if (table) printf("owned: %d populations from %s: targets by population, spikes at their rates\n", pt.npop, table);
    printf("owned: %d cells, fanout %d, %d steps, %u blocks of %u cells; delays 1-%zu steps, %.1f %% under 16, %.1f %% "
           "under 24 (first %zu synapses); a cell's longest group for one block %u (rows of %u)\n", n, fanout, steps, B, PB,
           dmax, 100.0 * within16 / h.size(), 100.0 * within24 / h.size(), h.size(), longest, ROW);
    double *drive;
    CK(cudaMalloc(&drive, (size_t)DRIVE_STEPS * n * sizeof(double)));
    k_fill_drive<<<g_sms * 8, 256>>>(drive, (size_t)DRIVE_STEPS * n);
    CK(cudaGetLastError());
    struct variant { int kind, mode, W; const char *what; };
    const variant vs[] = {
        {0, 0, 0, "ring (resident loop)"},
        {1, 256, 24, "owned, window 24, far queued"},
        {1, 256 | 4096, 24, "owned, 24, queued, fixed rows"},
        {1, 256 | 4096, 16, "owned, 16, queued, fixed rows"},
        {1, 256 | 512, 24, "no sends (barrier, update)"},
        {1, 256 | 2048, 24, "no update (barrier, sends)"},
        {1, 256 | 4096 | 2048, 24, "no update (barrier, rows' sends)"},
        {1, 256 | 512 | 2048, 24, "barrier and spike list alone"},
        {1, 256 | 4096 | 1024, 24, "fixed rows, hand barrier"},
        {1, 256 | 8192, 24, "owned, 24, queued, update beside"},
        {1, 256 | 4096 | 8192, 24, "fixed rows, update beside"},
        {0, 0, 0, "ring (resident loop, again)"},
        {1, 256, 24, "owned, window 24, far queued, again"},
        {1, 256 | 4096, 24, "owned, 24, fixed rows, again"},
        {2, 256, 24, "owned, 24, queued, drawn drive"},
        {3, 0, 0, "ring, drawn drive"},
        {1, 256 | 8192, 24, "owned, 24, update beside, again"},
    };
    std::vector<double> ref, ref_drive;
    for (const variant &x : vs) {
        const bool owned = x.kind == 1 || x.kind == 2;
        const size_t smem = owned ? (size_t)x.W * 2 * PB * sizeof(unsigned long long) : 0;
        if ((x.mode & 4096) && longest > ROW) { printf("owned     %-36s rows too short\n", x.what); continue; }
        if (smem > (size_t)optin - 1024) { printf("owned     %-36s window of %zu bytes does not fit\n", x.what, smem); continue; }
        o.W = x.W;
        o.drive = r.drive = x.kind >= 2 ? drive : nullptr;
        int s = steps, m = x.mode, h0 = 0, used = 0;
        void *ra[] = {&s, &r, &h0, &m};
        void *oa[] = {&s, &o, &m};
        const void *kern = owned ? (const void *)k_owned : (const void *)k_resident;
        const int block = owned ? 1024 : (int)(PB + 31) / 32 * 32;
        float us = 0;
        for (int rep = 0; rep < 2; rep++) {   /* a warm-up run, then the timed one */
            CK(cudaMemset(r.ring, 0, ring_bytes));
            CK(cudaMemset(r.cnt, 0, 3 * sizeof(uint32_t)));
            us = timed(kern, block, 1, owned ? oa : ra, steps, &used, smem);
        }
        if (us < 0) { printf("owned     %-36s does not fit one block an SM\n", x.what); continue; }
        uint32_t c[3];
        CK(cudaMemcpy(c, r.cnt, sizeof c, cudaMemcpyDeviceToHost));
        const char *same = x.mode & 512 ? ", no sends" : ", no update";
        /* the DC runs against the ring's first; the drawn drive's two forms against each other */
        if (x.kind >= 2 || !(x.mode & (512 | 2048))) {
            std::vector<double> &against = x.kind >= 2 ? ref_drive : ref;
            std::vector<double> st(3 * (size_t)n);
            CK(cudaMemcpy(st.data(), r.st, st.size() * sizeof(double), cudaMemcpyDeviceToHost));
            if (against.empty()) against = st, same = ", the first state of its kind";
            else same = memcmp(against.data(), st.data(), st.size() * sizeof(double)) ? ", state DIFFERS from the first of its kind" : ", the first of its kind's state bit for bit";
        }
        printf("owned     %-36s %4d threads, %3zu KB shared: %6.3f us a step (last step's spikes %u%s)\n", x.what,
               block, smem / 1024, us, c[steps % 3], same);
    }
    CK(cudaFree(raw));
    CK(cudaFree(grouped));
    CK(cudaFree(rows));
    CK(cudaFree(drive));
    if (thr) CK(cudaFree(thr));
    CK(cudaFree(off));
    CK(cudaFree(r.ring));
    CK(cudaFree(r.st));
    CK(cudaFree(r.list));
    CK(cudaFree(r.cnt));
    CK(cudaFree(o.fq));
}

int main(int argc, char **argv)
{
    world w;
    w.n = argc > 1 ? atoi(argv[1]) : 77169;
    w.nev = argc > 2 ? atoi(argv[2]) : 96000;
    w.fanout = argc > 3 ? atoi(argv[3]) : 3900;
    int steps = argc > 4 ? atoi(argv[4]) : 10000;
    const int only_resident = argc > 5 && !strcmp(argv[5], "resident");
    const int only_owned = argc > 5 && !strcmp(argv[5], "owned");
    if (w.n < 1 || w.nev < 0 || w.fanout < 1 || steps < 1 || (size_t)w.fanout >= (size_t)w.n * SLOTS) {
        fprintf(stderr, "usage: olive-loopprobe [cells] [events] [fanout] [steps] [all|resident|owned]\n");
        return 2;
    }
    int dev = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, dev));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    printf("olive-loopprobe on %s (%d SMs): %d cells, %d events a step, fanout %d, %d steps\n", prop.name, g_sms, w.n,
           w.nev, w.fanout, steps);
    int used = 0;
    if (only_owned) {
        const char *table = argc > 6 && !strncmp(argv[6], "pd14=", 5) ? argv[6] + 5 : nullptr;
        owned_loops(w.n, w.fanout, steps, table);
        return 0;
    }
    if (only_resident) goto resident;
    {
    const int iters = 20000;
    for (int hand = 0; hand < 2; hand++)
        for (int per : {1, 4}) {
            int it = iters, h = hand;
            void *args[] = {&it, &h};
            const float us = timed((const void *)k_barriers, 256, per, args, iters, &used);
            printf("barrier   %-16s 256 threads x %d blocks an SM: %6.3f us\n", hand ? "hand-written" : "cooperative groups",
                   used, us);
        }
    CK(cudaMalloc(&w.st, 3 * (size_t)w.n * sizeof(double)));
    CK(cudaMemset(w.st, 0, 3 * (size_t)w.n * sizeof(double)));
    CK(cudaMalloc(&w.acc, (size_t)SLOTS * w.n * sizeof(double)));
    CK(cudaMemset(w.acc, 0, (size_t)SLOTS * w.n * sizeof(double)));
    CK(cudaMalloc(&w.cnt, 2 * (size_t)w.n * sizeof(uint32_t)));
    CK(cudaMemset(w.cnt, 0, 2 * (size_t)w.n * sizeof(uint32_t)));
    CK(cudaMalloc(&w.inbox, 2 * (size_t)w.n * INBOX * sizeof(uint2)));
    std::vector<uint32_t> h((size_t)w.n * SLOTS);
    uint64_t x = 88172645463325252ull;
    for (auto &v : h) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; v = (uint32_t)x; }
    CK(cudaMalloc(&w.tgt, h.size() * sizeof(uint32_t)));
    CK(cudaMemcpy(w.tgt, h.data(), h.size() * sizeof(uint32_t), cudaMemcpyHostToDevice));
    const char *what[] = {"update + scatter", "scatter alone", "update alone", "barriers alone"};
    for (int mode = 0; mode < 4; mode++)
        for (int per : {1, 4}) {
            const int block = per == 1 ? 1024 : 256;
            int s = steps, m = mode;
            void *args[] = {&s, &w, &m};
            const float us = timed((const void *)k_two_sync, block, per, args, steps, &used);
            printf("two-sync  %-16s %4d threads x %d blocks an SM: %6.3f us a step\n", what[mode], block, used, us);
        }
    for (int per : {1, 4}) {
        const int block = per == 1 ? 1024 : 256;
        int s = steps;
        void *args[] = {&s, &w};
        const float us = timed((const void *)k_one_sync, block, per, args, steps, &used);
        printf("one-sync  %-16s %4d threads x %d blocks an SM: %6.3f us a step\n", "own spikes", block, used, us);
    }
    uint32_t *dcnt;
    ev16 *dbox;
    CK(cudaMalloc(&dcnt, (size_t)SLOTS * w.n * sizeof(uint32_t)));
    CK(cudaMemset(dcnt, 0, (size_t)SLOTS * w.n * sizeof(uint32_t)));
    CK(cudaMalloc(&dbox, (size_t)SLOTS * w.n * INBOX * sizeof(ev16)));
    for (int per : {1, 4}) {
        const int block = per == 1 ? 1024 : 256;
        int s = steps;
        void *args[] = {&s, &w, &dcnt, &dbox};
        const float us = timed((const void *)k_due_slot, block, per, args, steps, &used);
        printf("due-slot  %-16s %4d threads x %d blocks an SM: %6.3f us a step\n", "update + scatter", block, used, us);
    }
    }
resident:
    resident_loops(w.n, w.fanout, steps);
    return 0;
}
