/* The GPU side of a plugin model (model_plugin.h): the whole of what a
 * model's GPU image holds, and all that olive's CUDA engine may call in it.
 *
 * A model gives its cell functions on the values of ONE cell held by the
 * caller (x[], the cell's state variables in the model's order, at most
 * OLIVE_NVARS of them), the same code its CPU loops run:
 *   olive_cell_load_v2(coef, state, r, x, x0)   cell r's variables from the
 *                                  var-major arrays state[v][r] into x and x0
 *   olive_cell_store_v2(coef, state, r, x, x0)  those whose bits differ from
 *                                  x0 back (a variable that did not change is
 *                                  not written)
 *   olive_cell_receptor_v2(coef, x, q)          receptor q's variable (0 where
 *                                  the model has no receptor q)
 *   olive_cell_set_receptor_v2(coef, x, q, v)   ... set (nothing where none)
 *   olive_cell_step_v2(coef, x, I, with_input)  the update block (I the
 *                                  step's pulse current; with_input 0: none,
 *                                  I 0); 0 when a variable became non-finite
 *   olive_cell_condition_v2(coef, x)            the onCondition test (with
 *                                  the update's statements after the spike
 *                                  input, which may change x)
 *   olive_cell_on_spike_v2(coef, x)             the onCondition body
 * `olive-model build` compiles them with nvcc (-dlto, -fmad=false) into
 * LTO-IR, the model's cuda_fatbin. The kernels that call them (update,
 * condition, the delivery tail fused with the update) are olive's own
 * (tools/simulate/spiking/spk_plugin_kernels.cu): when olive-simulate loads
 * the model it links its kernels' LTO-IR with the model's (CUDA's nvJitLink,
 * link-time optimisation: the model's functions are inlined into the
 * engine's kernels, as if one file). So delivery is never compiled into a
 * model: an engine change needs no model rebuild, and a model built once
 * runs with every olive of this interface.
 *
 * Why values, not the arrays (_v1 took state and r in each function): a
 * kernel's pass then reads a cell's variables once, all at once, and writes
 * them once at its end. With the arrays, every function read them again
 * after the stores before it (which, for all the compiler knows, might
 * alias), a memory round trip each: the microcircuit's pass waited on about
 * eight in a row per cell. The version is in the names: a change of these
 * signatures is _v3, and an image without _v2 is refused with a request to
 * rebuild (OLIVE_PLUGIN_ABI). */
#ifndef OLIVE_PLUGIN_CELL_H
#define OLIVE_PLUGIN_CELL_H
#include <stdint.h>

#define OLIVE_PLUGIN_CELL_VERSION 2

#ifdef __CUDACC__
extern "C" {
__device__ void olive_cell_load_v2(const double *coef, double *const *state, int64_t r, double *x, double *x0);
__device__ void olive_cell_store_v2(const double *coef, double *const *state, int64_t r, const double *x, const double *x0);
__device__ double olive_cell_receptor_v2(const double *coef, const double *x, int q);
__device__ void olive_cell_set_receptor_v2(const double *coef, double *x, int q, double v);
__device__ int olive_cell_step_v2(const double *coef, double *x, double I, int with_input);
__device__ int olive_cell_condition_v2(const double *coef, double *x);
__device__ void olive_cell_on_spike_v2(const double *coef, double *x);
}

/* A model's GPU image in one line: its source defines olive_cell_load,
 * olive_cell_store, olive_cell_receptor, olive_cell_set_receptor,
 * olive_cell_step, olive_cell_condition and olive_cell_on_spike (OLIVE_HD,
 * on one cell's values as above) and then writes OLIVE_PLUGIN_CELL_EXPORT
 * (what the generated sources and a model written by hand do). */
#define OLIVE_PLUGIN_CELL_EXPORT                                                                                       \
    extern "C" __device__ void olive_cell_load_v2(const double *coef, double *const *state, int64_t r, double *x,      \
                                                  double *x0)                                                          \
    {                                                                                                                  \
        olive_cell_load(coef, state, r, x, x0);                                                                        \
    }                                                                                                                  \
    extern "C" __device__ void olive_cell_store_v2(const double *coef, double *const *state, int64_t r,                \
                                                   const double *x, const double *x0)                                  \
    {                                                                                                                  \
        olive_cell_store(coef, state, r, x, x0);                                                                       \
    }                                                                                                                  \
    extern "C" __device__ double olive_cell_receptor_v2(const double *coef, const double *x, int q)                    \
    {                                                                                                                  \
        return olive_cell_receptor(coef, x, q);                                                                        \
    }                                                                                                                  \
    extern "C" __device__ void olive_cell_set_receptor_v2(const double *coef, double *x, int q, double v)              \
    {                                                                                                                  \
        olive_cell_set_receptor(coef, x, q, v);                                                                        \
    }                                                                                                                  \
    extern "C" __device__ int olive_cell_step_v2(const double *coef, double *x, double I, int with_input)              \
    {                                                                                                                  \
        return olive_cell_step(coef, x, I, with_input);                                                                \
    }                                                                                                                  \
    extern "C" __device__ int olive_cell_condition_v2(const double *coef, double *x)                                   \
    {                                                                                                                  \
        return olive_cell_condition(coef, x);                                                                          \
    }                                                                                                                  \
    extern "C" __device__ void olive_cell_on_spike_v2(const double *coef, double *x) { olive_cell_on_spike(coef, x); }
#endif

#endif
