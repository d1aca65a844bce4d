/* The CUDA kernels of a plugin model, compiled by `olive-model build` with
 * nvcc into the plugin's GPU image: the model's generated source (NAME.olive.c)
 * defines its cell functions, then includes this file under
 * OLIVE_PLUGIN_KERNELS:
 *   int  olive_cell_step(coef, state, r, I, with_input)
 *                                                the update block of cell r (with_input 0:
 *                                                no current, I 0, a constant here);
 *                                                0 when a variable became non-finite
 *   int  olive_cell_condition(coef, state, r)    the onCondition test
 *   void olive_cell_on_spike(coef, state, r)     the onCondition body
 * The CPU loops of the same file call the same functions: one text, the same
 * bits (olive's exp/log, no contraction: -fmad=false). */
#include "plugin_gpu.h"
#include "spike_tail.cuh"

static __device__ __forceinline__ const double *olive_plugin_coef(const olive_plugin_gpu_args &a, int32_t ci)
{
    return a.coef + (int64_t)ci * a.ncoef;
}

/* The condition of cell r: its flag, the spike lists. */
static __device__ __forceinline__ void olive_plugin_test(const olive_plugin_gpu_args &a, const double *coef, int64_t r)
{
    const int fire = olive_cell_condition(coef, a.state, r);
    a.flags[r] = (unsigned char)fire;
    if (fire) {
        a.spk[atomicAdd(a.nspk, 1u)] = (int32_t)r;
        if (a.chunk) a.chunk[atomicAdd(a.nchunk, 1ULL)] = (uint64_t)a.q << 32 | (uint64_t)r;
    }
}

extern "C" __global__ void olive_plugin_update(olive_plugin_gpu_args a)
{
    const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (r >= a.n) return;
    const int32_t ci = a.coef_of[r];
    if (ci < 0) return;   /* a spike source */
    const double *coef = olive_plugin_coef(a, ci);
    if (a.reset_first && a.flags[r]) olive_cell_on_spike(coef, a.state, r);
    if (!olive_cell_step(coef, a.state, r, a.cur ? a.cur[r] : 0.0, a.cur != nullptr))
        atomicMin(a.bad, (unsigned long long)a.step << 32 | (unsigned long long)r);
    if (a.condition) olive_plugin_test(a, coef, r);
}

/* OLIVE_PLUGIN_KERNEL_TAIL_UPDATE: as olive's k_tail_update for lif.h (the
 * tail's nspk is the previous step's list counter, cleared here; a.nspk this
 * step's). The receptor variables are state arrays: the tail's sums go to
 * memory, where the model's step reads them. The cell's set and flag are
 * read first, with its receptor variables (after the tail's stores they
 * were two more round trips on its chain). A model whose update fits
 * (exact propagators: the generated source defines OLIVE_PLUGIN_PASS_BLOCKS
 * 3) is held to 80 registers, 3 blocks an SM, so that a network of up to
 * 3 x 256 cells an SM (the microcircuit's 77k on 132) is one wave (at 88
 * registers, two: slower); a numeric solver's update would spill there.
 *
 * FREE (OLIVE_PLUGIN_KERNEL_TAIL_UPDATE_FREE): the same pass where the
 * engine knows three things ahead: the events are in their slots already
 * (--order-free-sums: no static buckets' lists to walk), the Poisson
 * inputs were drawn ahead (or there are none) and no current is passed.
 * What it leaves out (the lists' batches, Philox and the binomial's
 * divisions, the input terms' divisions) held its registers: an exact
 * propagator update then needs 32, not 80, and more of the events' kernel
 * beside it fits on the SMs (the microcircuit's step on an H200: 10.8 ->
 * 9.5 us; at 40 registers 11.3). */
#ifndef OLIVE_PLUGIN_PASS_BLOCKS
#define OLIVE_PLUGIN_PASS_BLOCKS 1
#endif
template <bool FREE>
static __device__ __forceinline__ void olive_plugin_tail_update_cell(const spk_tail_args &t, const olive_plugin_gpu_args &a)
{
    spk_pdl_wait();   /* (launched before the step's scatter ends: spike_tail.cuh) */
    spk_pdl_release();
    const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (r == 0) *t.nspk = 0;
    if (r >= a.n) return;
    const int32_t ci = a.coef_of[r];
    const int fired = t.flags[r];
    double d0 = t.ge[r], d1 = t.gi[r];
    const double e0 = d0, e1 = d1;
    spk_tail_inputs<FREE>(t, r, FREE ? SPK_END : t.sb.head[r], d0, d1);
    if (__double_as_longlong(d0) != __double_as_longlong(e0)) t.ge[r] = d0;
    if (__double_as_longlong(d1) != __double_as_longlong(e1)) t.gi[r] = d1;
    if (ci < 0) return;   /* a spike source: its inputs only */
    const double *coef = olive_plugin_coef(a, ci);
    if (fired) olive_cell_on_spike(coef, a.state, r);
    /* (with_input a run-time value outside FREE: the update's text once, not twice) */
    const int ok = FREE ? olive_cell_step(coef, a.state, r, 0.0, 0)
                        : olive_cell_step(coef, a.state, r, a.cur ? a.cur[r] : 0.0, a.cur != nullptr);
    if (!ok) atomicMin(a.bad, (unsigned long long)a.step << 32 | (unsigned long long)r);
    olive_plugin_test(a, coef, r);
}

extern "C" __global__ void __launch_bounds__(256, OLIVE_PLUGIN_PASS_BLOCKS)
    olive_plugin_tail_update_v4(spk_tail_args t, olive_plugin_gpu_args a)
{
    olive_plugin_tail_update_cell<false>(t, a);
}

extern "C" __global__ void __launch_bounds__(256)   /* (its ~32 registers: no cap needed) */
    olive_plugin_tail_update_free_v4(spk_tail_args t, olive_plugin_gpu_args a)
{
    olive_plugin_tail_update_cell<true>(t, a);
}

extern "C" __global__ void olive_plugin_condition(olive_plugin_gpu_args a)
{
    const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (r >= a.n) return;
    const int32_t ci = a.coef_of[r];
    if (ci >= 0) olive_plugin_test(a, olive_plugin_coef(a, ci), r);
}

extern "C" __global__ void olive_plugin_on_spike(olive_plugin_gpu_args a)
{
    const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (r >= a.n || !a.flags[r]) return;
    const int32_t ci = a.coef_of[r];
    if (ci >= 0) olive_cell_on_spike(olive_plugin_coef(a, ci), a.state, r);
}
