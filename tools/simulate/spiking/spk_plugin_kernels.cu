/* The CUDA kernels that run a plugin model's cells (model_plugin.h): olive's
 * own, compiled with the engine (-dlto: LTO-IR, embedded in olive-simulate
 * as spk_plugin_kernels.fatbin.h) and linked at load time with the model's
 * GPU image, which holds only the three cell functions of plugin_cell.h
 * (spk_cuda_plugin.cu: nvJitLink with link-time optimisation, so the
 * model's functions are inlined here as if one file). The delivery tail
 * (spike_tail.cuh) is the engine's: a change of it, or of these kernels, is
 * no change of the model interface, and no model is rebuilt for it.
 * Launched one thread per own cell, spk_plugin_args by value
 * (spk_plugin_gpu.h). Not compiled into olive-simulate's own image (the
 * Makefile keeps it out): it calls functions only a model defines. */
#include "spk_plugin_gpu.h"
#include "spike_tail.cuh"
#include "plugin_cell.h"

static __device__ __forceinline__ const double *olive_plugin_coef(const spk_plugin_args &a, int32_t ci)
{
    return a.coef + (int64_t)ci * a.ncoef;
}

/* The condition of cell r: its flag, the spike lists. */
static __device__ __forceinline__ void olive_plugin_test(const spk_plugin_args &a, const double *coef, int64_t r)
{
    const int fire = olive_cell_condition_v1(coef, a.state, r);
    a.flags[r] = (unsigned char)fire;
    if (fire) {
        a.spk[atomicAdd(a.nspk, 1u)] = (int32_t)r;
        if (a.chunk) a.chunk[atomicAdd(a.nchunk, 1ULL)] = (uint64_t)a.q << 32 | (uint64_t)r;
    }
}

extern "C" __global__ void olive_plugin_update(spk_plugin_args a)
{
    const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (r >= a.n) return;
    const int32_t ci = a.coef_of[r];
    if (ci < 0) return;   /* a spike source */
    const double *coef = olive_plugin_coef(a, ci);
    if (a.reset_first && a.flags[r]) olive_cell_on_spike_v1(coef, a.state, r);
    if (!olive_cell_step_v1(coef, a.state, r, a.cur ? a.cur[r] : 0.0, a.cur != nullptr))
        atomicMin(a.bad, (unsigned long long)a.step << 32 | (unsigned long long)r);
    if (a.condition) olive_plugin_test(a, coef, r);
}

/* SPK_PLUGIN_KERNEL_TAIL_UPDATE: as olive's k_tail_update for lif.h (the
 * tail's nspk is the previous step's list counter, cleared here; a.nspk this
 * step's). The receptor variables are state arrays: the tail's sums go to
 * memory, where the model's step reads them. The cell's set and flag are
 * read first, with its receptor variables (after the tail's stores they
 * were two more round trips on its chain). A model whose update fits
 * (exact propagators: its descriptor's gpu_pass_blocks is 3) takes the
 * pass held to 80 registers, 3 blocks an SM (..._b3), so that a network of
 * up to 3 x 256 cells an SM (the microcircuit's 77k on 132) is one wave (at
 * 88 registers, two: slower); a numeric solver's update would spill there
 * and takes the uncapped one (..._b1).
 *
 * FREE (SPK_PLUGIN_KERNEL_TAIL_FREE): the same pass where the engine knows
 * three things ahead: the events are in their slots already
 * (--order-free-sums: no static buckets' lists to walk), the Poisson
 * inputs were drawn ahead (or there are none) and no current is passed.
 * What it leaves out (the lists' batches, Philox and the binomial's
 * divisions, the input terms' divisions) held its registers: an exact
 * propagator update then needs 32, not 80, and more of the events' kernel
 * beside it fits on the SMs (the microcircuit's step on an H200: 10.8 ->
 * 9.5 us; at 40 registers 11.3). */
template <bool FREE>
static __device__ __forceinline__ void olive_plugin_tail_update_cell(const spk_tail_args &t, const spk_plugin_args &a)
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
    if (fired) olive_cell_on_spike_v1(coef, a.state, r);
    /* (with_input a run-time value outside FREE: the update's text once, not twice) */
    const int ok = FREE ? olive_cell_step_v1(coef, a.state, r, 0.0, 0)
                        : olive_cell_step_v1(coef, a.state, r, a.cur ? a.cur[r] : 0.0, a.cur != nullptr);
    if (!ok) atomicMin(a.bad, (unsigned long long)a.step << 32 | (unsigned long long)r);
    olive_plugin_test(a, coef, r);
}

extern "C" __global__ void __launch_bounds__(256) olive_plugin_tail_update_b1(spk_tail_args t, spk_plugin_args a)
{
    olive_plugin_tail_update_cell<false>(t, a);
}

extern "C" __global__ void __launch_bounds__(256, 3) olive_plugin_tail_update_b3(spk_tail_args t, spk_plugin_args a)
{
    olive_plugin_tail_update_cell<false>(t, a);
}

extern "C" __global__ void __launch_bounds__(256)   /* (its ~32 registers: no cap needed) */
    olive_plugin_tail_update_free(spk_tail_args t, spk_plugin_args a)
{
    olive_plugin_tail_update_cell<true>(t, a);
}

extern "C" __global__ void olive_plugin_condition(spk_plugin_args a)
{
    const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (r >= a.n) return;
    const int32_t ci = a.coef_of[r];
    if (ci >= 0) olive_plugin_test(a, olive_plugin_coef(a, ci), r);
}

extern "C" __global__ void olive_plugin_on_spike(spk_plugin_args a)
{
    const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (r >= a.n || !a.flags[r]) return;
    const int32_t ci = a.coef_of[r];
    if (ci >= 0) olive_cell_on_spike_v1(olive_plugin_coef(a, ci), a.state, r);
}
