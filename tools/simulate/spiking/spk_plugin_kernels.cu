/* The CUDA kernels that run a point model's cells (point_model.h: the
 * built-in integrate-and-fire models and plugins alike): olive's own,
 * compiled with the engine (-dlto: LTO-IR, embedded in olive-simulate as
 * spk_plugin_kernels.fatbin.h) and linked at load time with the model's GPU
 * image, which holds only the three cell functions of plugin_cell.h
 * (spk_cuda_plugin.cu: nvJitLink with link-time optimisation, so the
 * model's functions are inlined here as if one file). The delivery tail
 * (spike_tail.cuh) and the fused strategy's steps are the engine's: a change
 * of them, or of these kernels, is no change of the model interface, and no
 * model is rebuilt for it. Launched one thread per own cell,
 * spk_plugin_args by value (spk_plugin_gpu.h), except the fused kernel.
 * Not compiled into olive-simulate's own image (the Makefile keeps it out):
 * it calls functions only a model defines. */
#define OMPI_SKIP_MPICXX 1
#include <cooperative_groups.h>
#include "spk_plugin_gpu.h"
#include "spike_tail.cuh"
#include "plugin_cell.h"
#include "state.h"   /* (OLIVE_NVARS: the most variables a model has) */
extern "C" {
#include "spk.h"
}
#include "spk_plastic.cuh"
#include "spk_fused_gpu.h"

static __device__ __forceinline__ const double *olive_plugin_coef(const spk_plugin_args &a, int32_t ci)
{
    return a.coef + (int64_t)ci * a.ncoef;
}

/* One cell's variables in registers (plugin_cell.h: the model's functions
 * inlined here index them by constants, so the array is no memory): x the
 * values as they go, x0 as loaded (what olive_cell_store_v2 compares). */
struct olive_cell_values {
    double x[OLIVE_NVARS], x0[OLIVE_NVARS];
};

/* The condition of cell r (its values in v): its flag, the spike lists. */
static __device__ __forceinline__ void olive_plugin_test(const spk_plugin_args &a, const double *coef, int64_t r,
                                                         olive_cell_values &v)
{
    const int fire = olive_cell_condition_v2(coef, v.x);
    a.flags[r] = (unsigned char)fire;
    if (fire) {
        a.spk[atomicAdd(a.nspk, 1u)] = (int32_t)r;
        if (a.chunk) a.chunk[atomicAdd(a.nchunk, 1ULL)] = (uint64_t)a.q << 32 | (uint64_t)r;
        if (a.pl) spk_plastic_dev_post(*a.pl, r, a.step);   /* (before the step's events are sent) */
    }
}

/* The rest of a cell's step after its inputs (olive_plugin_update's and
 * olive_plugin_update_due's): the step before's onCondition body where
 * a.reset_first, the update, the condition where a.condition, the store. */
static __device__ __forceinline__ void olive_plugin_step_cell(const spk_plugin_args &a, const double *coef, int64_t r,
                                                              olive_cell_values &v)
{
    if (a.reset_first && a.flags[r]) olive_cell_on_spike_v2(coef, v.x);
    if (!olive_cell_step_v2(coef, v.x, a.cur ? a.cur[r] : 0.0, a.cur != nullptr))
        atomicMin(a.bad, (unsigned long long)a.step << 32 | (unsigned long long)r);
    if (a.condition) olive_plugin_test(a, coef, r, v);
    olive_cell_store_v2(coef, a.state, r, v.x, v.x0);
}

extern "C" __global__ void olive_plugin_update(spk_plugin_args a)
{
    const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (r >= a.n) return;
    const int32_t ci = a.coef_of[r];
    if (ci < 0) return;   /* a spike source */
    const double *coef = olive_plugin_coef(a, ci);
    olive_cell_values v;
    olive_cell_load_v2(coef, a.state, r, v.x, v.x0);
    olive_plugin_step_cell(a, coef, r, v);
}

/* A cell's receptor variables where its inputs are added: a model cell's
 * from its values, loaded here with the rest of its state (one round trip);
 * otherwise (a spike source, or a pass that loads the values later) from
 * the receptor arrays. */
static __device__ __forceinline__ void spk_cell_receptors(const spk_plugin_args &a, const double *coef, int from_values,
                                                          int64_t r, const double *ge, const double *gi,
                                                          olive_cell_values &v, double &d0, double &d1)
{
    if (from_values) {
        olive_cell_load_v2(coef, a.state, r, v.x, v.x0);
        d0 = olive_cell_receptor_v2(coef, v.x, 0);
        d1 = olive_cell_receptor_v2(coef, v.x, 1);
    } else {
        d0 = ge[r];
        d1 = gi[r];
    }
}

/* SPK_PLUGIN_KERNEL_UPDATE_DUE: the host push path's step 3 of the step
 * before (k_deliver_poisson's additions: the due sums times the receptor
 * factors, then the covering Poisson inputs in their order), its step 4
 * (reset_first) and this step's update in one pass: the receptor variables
 * taken in in registers, not written by one kernel and read by the next
 * (the multi-area model's 4.1M cells: a pass of ~150 us and its launch a
 * step). The order of olive_plugin_tail_update_cell's. */
extern "C" __global__ void olive_plugin_update_due(spk_due_args d, spk_plugin_args a)
{
    const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (r >= a.n) return;
    double s0 = 0, s1 = 0;
    const int due = spk_due_sums(a.n, d.slot, r, d.acc, d.touched, d.neg0, s0, s1);
    const int32_t ci = a.coef_of[r];
    const double *coef = olive_plugin_coef(a, ci < 0 ? 0 : ci);
    olive_cell_values v;
    double d0, d1;
    spk_cell_receptors(a, coef, ci >= 0, r, d.ge, d.gi, v, d0, d1);
    if (due) {
        if (d.rscale) {
            d0 += d.rscale[r] * s0;
            d1 += d.rscale[a.n + r] * s1;
        } else {
            d0 += s0;
            d1 += s1;
        }
    }
    const unsigned long long events =
        spk_poisson_cover_cell(a.n, r, d.row0 + r, d.seed, d.step, d.in, d.cover, d.per, d.fac, d.rscale, d0, d1);
    spk_count_events(events, d.count);
    if (ci < 0) {   /* a spike source: its inputs only, into the receptor arrays */
        d.ge[r] = d0;
        d.gi[r] = d1;
        return;
    }
    olive_cell_set_receptor_v2(coef, v.x, 0, d0);
    olive_cell_set_receptor_v2(coef, v.x, 1, d1);
    olive_plugin_step_cell(a, coef, r, v);
}

/* SPK_PLUGIN_KERNEL_TAIL_UPDATE: the previous step's tail, its step 4 and
 * this step's update in one pass over the cells (the tail's nspk is the previous step's list counter, cleared here; a.nspk this
 * step's). A cell's variables are read once (FREE: with its flag and its
 * inputs' loads; otherwise after the lists' walk), its receptor variables
 * take the inputs in registers, and everything is written once at the end
 * (plugin_cell.h: the microcircuit's FREE pass on an H200 waited on about
 * eight memory round trips in a row a cell while the model's functions read
 * the arrays after each other's stores). A model whose update fits (exact propagators: its descriptor's
 * gpu_pass_blocks is 3) takes the pass held to 80 registers, 3 blocks an
 * SM (..._b3), so that a network of up to 3 x 256 cells an SM (the
 * microcircuit's 77k on 132) is one wave (at 88 registers, two: slower); a
 * numeric solver's update would spill there and takes the uncapped one
 * (..._b1).
 *
 * FREE (SPK_PLUGIN_KERNEL_TAIL_FREE): the same pass where the engine knows
 * three things ahead: the events are in their slots already
 * (--order-free-sums: no static buckets' lists to walk), the Poisson
 * inputs were drawn ahead (or there are none) and no current is passed.
 * What it leaves out (the lists' batches, Philox and the binomial's
 * divisions, the input terms' divisions) held its registers: an exact
 * propagator update then needs 38 (32 before its values were held), not 80, and more of the events' kernel
 * beside it fits on the SMs (the microcircuit's step on an H200: 10.8 ->
 * 9.5 us; at 40 registers 11.3). */
template <bool FREE>
static __device__ __forceinline__ void olive_plugin_tail_update_cell(const spk_tail_args &t, spk_plugin_args a)
{
    if (FREE) a.pl = nullptr;   /* (no plastic synapses with --order-free-sums: spk_setup.c) */
    const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    /* (the cell's set: nothing before this kernel writes it, so it is read
     * while the kernel before ends) */
    const int32_t ci = r < a.n ? a.coef_of[r] : -1;
    const double *coef = olive_plugin_coef(a, ci < 0 ? 0 : ci);
    spk_pdl_wait();   /* (launched before the step's scatter ends: spike_tail.cuh) */
    spk_pdl_release();
    if (r == 0) *t.nspk = 0;
    if (r >= a.n) return;
    const int fired = t.flags[r];
    /* FREE: the cell's variables read first, with the inputs' loads (one
     * round trip); otherwise after the lists' walk, so that they are not
     * held in registers through it (the walk's batches need them: lif_cuba's
     * capped pass spilled), the receptor variables read for the walk alone */
    olive_cell_values v;
    double d0, d1;
    spk_cell_receptors(a, coef, FREE && ci >= 0, r, t.ge, t.gi, v, d0, d1);
    const double e0 = d0, e1 = d1;
    spk_tail_inputs<FREE>(t, r, FREE ? SPK_END : t.sb.head[r], d0, d1);
    if (ci < 0) {   /* a spike source: its inputs only, into the receptor arrays */
        if (__double_as_longlong(d0) != __double_as_longlong(e0)) t.ge[r] = d0;
        if (__double_as_longlong(d1) != __double_as_longlong(e1)) t.gi[r] = d1;
        return;
    }
    if (!FREE) olive_cell_load_v2(coef, a.state, r, v.x, v.x0);
    olive_cell_set_receptor_v2(coef, v.x, 0, d0);
    olive_cell_set_receptor_v2(coef, v.x, 1, d1);
    if (fired) olive_cell_on_spike_v2(coef, v.x);
    /* (with_input a run-time value outside FREE: the update's text once, not twice) */
    const int ok = FREE ? olive_cell_step_v2(coef, v.x, 0.0, 0)
                        : olive_cell_step_v2(coef, v.x, a.cur ? a.cur[r] : 0.0, a.cur != nullptr);
    if (!ok) atomicMin(a.bad, (unsigned long long)a.step << 32 | (unsigned long long)r);
    olive_plugin_test(a, coef, r, v);
    olive_cell_store_v2(coef, a.state, r, v.x, v.x0);
}

extern "C" __global__ void __launch_bounds__(256) olive_plugin_tail_update_b1(spk_tail_args t, spk_plugin_args a)
{
    olive_plugin_tail_update_cell<false>(t, a);
}

extern "C" __global__ void __launch_bounds__(256, 3) olive_plugin_tail_update_b3(spk_tail_args t, spk_plugin_args a)
{
    olive_plugin_tail_update_cell<false>(t, a);
}

extern "C" __global__ void __launch_bounds__(256)   /* (its ~38 registers: no cap needed) */
    olive_plugin_tail_update_free(spk_tail_args t, spk_plugin_args a)
{
    olive_plugin_tail_update_cell<true>(t, a);
}

extern "C" __global__ void olive_plugin_condition(spk_plugin_args a)
{
    const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (r >= a.n) return;
    const int32_t ci = a.coef_of[r];
    if (ci < 0) return;
    const double *coef = olive_plugin_coef(a, ci);
    olive_cell_values v;
    olive_cell_load_v2(coef, a.state, r, v.x, v.x0);
    olive_plugin_test(a, coef, r, v);
    olive_cell_store_v2(coef, a.state, r, v.x, v.x0);
}

extern "C" __global__ void olive_plugin_on_spike(spk_plugin_args a)
{
    const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (r >= a.n || !a.flags[r]) return;
    const int32_t ci = a.coef_of[r];
    if (ci < 0) return;
    const double *coef = olive_plugin_coef(a, ci);
    olive_cell_values v;
    olive_cell_load_v2(coef, a.state, r, v.x, v.x0);
    olive_cell_on_spike_v2(coef, v.x);
    olive_cell_store_v2(coef, a.state, r, v.x, v.x0);
}

/* The fused strategy (spk_cuda_fused.cu): one rank, many steps a launch,
 * one grid sync a step. Cell r belongs to warp r mod W (W warps in the
 * grid); per step
 *   phase 1: every cell's update (the model's step; the pulse current of
 *            the active pulses in their order, as the CPU's
 *            sim_active_pulses), its condition: the spike flag into the
 *            history slot of the step, spikes appended to the chunk's list
 *            (the host sorts them), the first non-finite (step, cell);
 *   grid sync;
 *   phase 2: every target adds its due events, pulled from its incoming
 *            synapses 32 at a time by its warp's lanes (the sums themselves
 *            made one by one, in order): a synapse of delay d contributes
 *            when its source's flag of step - d is set. The synapses are
 *            kept in (delay descending, source, projection, synapse index)
 *            order, the order the CPU engine adds them in (by spike step,
 *            then source, then the source's list): the same sums, bit for
 *            bit, times the receptor's factor as the CPU's. Then the
 *            Poisson inputs and the model's on_spike, as the CPU engine.
 * The history has H = max delay + 2 slots, so phase 1 of the next step
 * (slot step + 1) never overwrites a slot phase 2 of this step still reads. */
static __device__ __forceinline__ void olive_plugin_fused_steps(const spk_fused_args &f, int64_t first, int64_t count)
{
    namespace cg = cooperative_groups;
    cg::grid_group grid = cg::this_grid();
    const spk_plugin_args &a = f.c;
    const int lane = threadIdx.x & 31;
    const int64_t warp = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5, W = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t q = 0; q < count; q++) {
        const int64_t step = first + q;
        unsigned char *h = f.hist + (step % f.H) * a.n;
        int active = 0;   /* a pulse on this step: the CPU passes a current (0 where none covers the cell) */
        for (int p = 0; p < f.npulses; p++) active |= f.pulses[p].step0 <= step && step < f.pulses[p].step1;
        /* phase 1: the warp's cells warp, warp + W, ..., one per lane */
        for (int64_t j = lane;; j += 32) {
            const int64_t r = warp + j * W;
            if (r >= a.n) break;
            const int64_t g = f.row0 + r;
            double I = 0;
            for (int p = 0; p < f.npulses && active; p++) {
                const sim_pulse *u = &f.pulses[p];
                if (u->step0 <= step && step < u->step1 && g >= u->first && (u->last < 0 || g < u->last)) I += u->amp;
            }
            const double *coef = olive_plugin_coef(a, a.coef_of[r]);   /* (no spike sources on this path) */
            olive_cell_values v;
            olive_cell_load_v2(coef, a.state, r, v.x, v.x0);
            if (!olive_cell_step_v2(coef, v.x, I, active))
                atomicMin(a.bad, (unsigned long long)step << 32 | (unsigned long long)r);
            const int fire = olive_cell_condition_v2(coef, v.x);
            olive_cell_store_v2(coef, a.state, r, v.x, v.x0);
            h[r] = (unsigned char)fire;
            if (fire) a.chunk[atomicAdd(a.nchunk, 1ULL)] = (uint64_t)q << 32 | (uint64_t)r;
        }
        grid.sync();
        /* phase 2: the same cells, one at a time, the warp's lanes reading 32
         * synapses at once; the sums are made in synapse order (lowest lane
         * first), every lane making the same ones. */
        for (int64_t r = warp; r < a.n; r += W) {
            double s0 = 0, s1 = 0;
            unsigned any = 0;
            for (int64_t e0 = f.in_ptr[r]; e0 < f.in_ptr[r + 1]; e0 += 32) {
                const int64_t e = e0 + lane;
                int hit = 0;
                double w = 0;
                int rec = 0;
                if (e < f.in_ptr[r + 1]) {
                    const spk_in y = f.in[e];
                    hit = f.hist[((step - y.delay + f.H) % f.H) * a.n + y.source];
                    w = y.w;
                    rec = y.receptor;
                }
                unsigned m = __ballot_sync(0xffffffffu, hit);
                any |= m;
                while (m) {
                    const int k = __ffs(m) - 1;
                    const double wk = __shfl_sync(0xffffffffu, w, k);
                    if (__shfl_sync(0xffffffffu, rec, k)) s1 += wk; else s0 += wk;
                    m &= m - 1;
                }
            }
            if (lane == 0) {
                const double *rs0 = f.rscale ? f.rscale + r : nullptr, *rs1 = f.rscale ? f.rscale + a.n + r : nullptr;
                if (any) {   /* (the CPU's touched targets: both receptors, a factor times each sum) */
                    f.rec0[r] += rs0 ? *rs0 * s0 : s0;
                    f.rec1[r] += rs1 ? *rs1 * s1 : s1;
                }
                spk_poisson_cell(f.poisson, f.poisson_rec, f.npoisson, f.seed, f.row0 + r, step, f.rec0[r], f.rec1[r],
                                 f.npoisson_events, rs0, rs1);
                if (h[r]) {   /* (the variables read after the inputs' stores: a spiking cell's only) */
                    const double *coef = olive_plugin_coef(a, a.coef_of[r]);
                    olive_cell_values v;
                    olive_cell_load_v2(coef, a.state, r, v.x, v.x0);
                    olive_cell_on_spike_v2(coef, v.x);
                    olive_cell_store_v2(coef, a.state, r, v.x, v.x0);
                }
            }
        }
        __syncwarp();   /* lane 0's writes seen by the lane that updates the cell next */
    }
}

extern "C" __global__ void __launch_bounds__(256) olive_plugin_fused(spk_fused_args f, int64_t first, int64_t count)
{
    olive_plugin_fused_steps(f, first, count);
}

/* (a model whose update fits, as the pass's _b3: 4 blocks an SM. With the
 * cell's values in registers (plugin_cell.h's _v2) the built-in lif image's
 * kernel took 78 registers, 3 blocks, where _v1's took 64: the tutorial
 * network's 10 s on an H200 0.78 s against 0.59; held to 64 (40 bytes of
 * spills) 0.61 s. Its alpha drives are loaded for every cell, as the image
 * serves the four lif models, where _v1 read them in the alpha branch.) */
extern "C" __global__ void __launch_bounds__(256, 4) olive_plugin_fused_b4(spk_fused_args f, int64_t first, int64_t count)
{
    olive_plugin_fused_steps(f, first, count);
}

/* Device push's owned form (spk_cuda_owned.cu says why and how; its steps
 * are device push's with --order-free-sums, step for step; the bookkeeping
 * of due steps is spk_owned_plan.h's). Block b owns cells b x PB .. + PB,
 * one a thread, and their sums of the next W due steps in shared memory. */
static __device__ __forceinline__ void olive_plugin_owned_chunk(const spk_owned_args &o, spk_plugin_args a)
{
    extern __shared__ unsigned long long win[];   /* [W][2][PB], then dueb [W][NW], fqn [SL], ringed [SL] */
    const spk_owned_plan &p = o.p;
    spk_owned_block k;
    k.win = win;
    k.dueb = (uint32_t *)(win + (size_t)p.W * 2 * p.PB);
    k.fqn = k.dueb + p.W * p.NW;
    k.ringed = k.fqn + p.SL;
    namespace cg = cooperative_groups;
    cg::grid_group grid = cg::this_grid();
    a.pl = nullptr;   /* (no plastic synapses with --order-free-sums) */
    const int64_t n = a.n;
    const uint32_t b = blockIdx.x, B = gridDim.x, tid = threadIdx.x, warp = tid >> 5, lane = tid & 31,
                   warps = blockDim.x >> 5;
    const int64_t r = (int64_t)b * p.PB + tid;
    const bool own = tid < (uint32_t)p.PB && r < n;
    for (uint32_t x = tid; x < (uint32_t)(p.W * 2 * p.PB); x += blockDim.x) k.win[x] = 0;
    for (uint32_t x = tid; x < (uint32_t)(p.W * p.NW); x += blockDim.x) k.dueb[x] = 0;
    for (uint32_t x = tid; x < (uint32_t)p.SL; x += blockDim.x) {
        k.fqn[x] = 0;
        k.ringed[x] = 1;   /* (the ring may hold the sums of any step not in the window yet) */
    }
    __syncthreads();
    /* the window of the first iteration: step first - 1's sums were taken
     * by the chunk before; owned_entering(first) enters in the iteration */
    for (int64_t D = o.first; D < owned_entering(o.first, p.W); D++) owned_enter_ring(&p, &k, b, D, tid);
    const int32_t ci = own ? a.coef_of[r] : 0;   /* (no spike sources in this form) */
    const double *coef = olive_plugin_coef(a, ci);
    /* the cell's values held in registers for the whole chunk (nothing else
     * reads or writes them meanwhile), stored at its end */
    olive_cell_values v;
    if (own) olive_cell_load_v2(coef, a.state, r, v.x, v.x0);
    /* the first Poisson input covering the cell (the same every step), and
     * its amount for the next tail, read an iteration ahead: a chunk's
     * amounts pass the L2, and the tail would wait for DRAM */
    const int pc0 = own && o.padd && o.pper > 0 ? o.pcover[r] : -1;
    double px = 0;
    __syncthreads();
    for (int64_t q = 0; q <= o.count; q++) {
        const int64_t t = o.first + q;
        if (tid == 0) {
            const uint32_t prev = (uint32_t)owned_entered_before(t, p.W) & (uint32_t)(p.SL - 1);
            k.fqn[prev] = 0;
            k.ringed[prev] = 0;
        }
        /* step t - 1's spikes sent, owned_entering(t) entering the window */
        auto sends = [&]() {
            if (q > 0) {
                const int lp = (int)((t - 1) % 3);
                const uint32_t m = __ldcg(o.nlist[lp]), tw = (uint32_t)((t - 1) % p.W);
                for (uint32_t i = warp; i < m; i += warps) {
                    const int32_t c = __ldcg(&o.list[lp][i]);
                    const int64_t base = o.out_ptr[o.row0 + c];
                    const uint32_t *off = o.goff + (size_t)(o.row0 + c) * (B + 1) + b;
                    const uint32_t o0 = __ldg(off), o1 = __ldg(off + 1);
                    for (uint32_t x = o0 + lane; x < o1; x += 32) {
                        const long long j = __ldcs(&o.gw[base + x]);
                        const uint32_t meta = __ldcs(&o.gmeta[base + x]);
                        owned_event(&p, &k, b, t - 1, tw, meta >> 11, meta >> 10 & 1, meta & 1023, j);
                    }
                }
            }
            const int64_t E = owned_entering(t, p.W);
            owned_enter_queue(&p, &k, b, E, tid, blockDim.x);
            owned_enter_ring(&p, &k, b, E, tid);
        };
        /* step t - 1's tail and step t's update of the thread's cell */
        auto step_cell = [&]() {
            /* step t - 1's due flags: a word a warp (cell = thread), cleared by its lane 0 */
            const uint32_t ws = (uint32_t)((t - 1) % p.W);
            const uint32_t word = q > 0 && warp < (uint32_t)p.NW ? k.dueb[ws * p.NW + warp] : 0;
            __syncwarp();
            if (q > 0 && lane == 0 && warp < (uint32_t)p.NW) k.dueb[ws * p.NW + warp] = 0;
            if (!own) return;
            if (q > 0) {   /* step t - 1's tail: as olive_plugin_tail_update_cell<true>'s */
                double d0 = olive_cell_receptor_v2(coef, v.x, 0), d1 = olive_cell_receptor_v2(coef, v.x, 1), s0, s1;
                if (owned_take(&p, &k, ws, word, tid, &s0, &s1)) {
                    if (o.rscale) {
                        d0 += o.rscale[r] * s0;
                        d1 += o.rscale[n + r] * s1;
                    } else {
                        d0 += s0;
                        d1 += s1;
                    }
                }
                if (pc0 >= 0) {
                    spk_tail_args pt;
                    pt.n = n;
                    pt.pa.cover = o.pcover;
                    pt.pa.per = o.pper;
                    pt.pa.add = o.padd + (t - 1 - o.first) * o.pper * n;
                    spk_poisson_ahead_cell(pt, r, pc0, px, d0, d1);
                }
                olive_cell_set_receptor_v2(coef, v.x, 0, d0);
                olive_cell_set_receptor_v2(coef, v.x, 1, d1);
                if (a.flags[r]) olive_cell_on_spike_v2(coef, v.x);
            }
            if (q < o.count) {
                spk_plugin_args at = a;
                at.step = t;
                at.q = q;
                at.spk = o.list[t % 3];
                at.nspk = o.nlist[t % 3];
                if (!olive_cell_step_v2(coef, v.x, 0.0, 0)) atomicMin(a.bad, (unsigned long long)t << 32 | (unsigned long long)r);
                olive_plugin_test(at, coef, r, v);
                if (pc0 >= 0) px = __ldcs(&o.padd[(t - o.first) * o.pper * n + r]);   /* (step t's, for the next tail) */
            } else {
                olive_cell_store_v2(coef, a.state, r, v.x, v.x0);
            }
        };
        if (o.beside) {
            /* the cell's step first, the sends beside it with no block
             * barrier between: the step reads and clears step t - 1's slot
             * and flags, which the sends and the entering step never touch
             * (they reach steps t to t + W - 2), and every event due at
             * t - 1 was added by the iterations before */
            step_cell();
            sends();
        } else {
            sends();
            __syncthreads();
            step_cell();
        }
        if (q == o.count) break;
        if (b == 0 && tid == 0) *o.nlist[(t + 1) % 3] = 0;   /* (sent in the iteration before: filled in the next) */
        grid.sync();
    }
    __syncthreads();
    /* the chunk's end: every sum due later back in the ring, as device push leaves it */
    const int64_t last = o.first + o.count - 1;
    owned_give_window(&p, &k, b, last, tid);
    owned_give_queues(&p, &k, b, last, tid, blockDim.x);
}

/* one block an SM of 1024 threads (64 registers a thread at most), or of
 * 768 (85) where a block's cells fit: the model's step in a chunk's loop
 * spilled at 64 */
extern "C" __global__ void __launch_bounds__(SPK_OWNED_THREADS, 1) olive_plugin_owned(spk_owned_args o, spk_plugin_args a)
{
    olive_plugin_owned_chunk(o, a);
}

extern "C" __global__ void __launch_bounds__(SPK_OWNED_THREADS_FEW, 1) olive_plugin_owned_few(spk_owned_args o, spk_plugin_args a)
{
    olive_plugin_owned_chunk(o, a);
}
