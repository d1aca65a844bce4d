/* The GPU side of a plugin model (model_plugin.h): the whole of what a
 * model's GPU image holds, and all that olive's CUDA engine may call in it.
 *
 * A model gives three device functions of one cell r (state var-major, its
 * coefficient set coef), the same code its CPU loops run:
 *   olive_cell_step_v1(coef, state, r, I, with_input)  the update block (I the
 *                                  step's pulse current; with_input 0: none,
 *                                  I 0); 0 when a variable became non-finite
 *   olive_cell_condition_v1(coef, state, r)            the onCondition test
 *   olive_cell_on_spike_v1(coef, state, r)             the onCondition body
 * `olive-model build` compiles them with nvcc (-dlto, -fmad=false) into
 * LTO-IR, the model's cuda_fatbin. The kernels that call them (update,
 * condition, the delivery tail fused with the update) are olive's own
 * (tools/simulate/spiking/spk_plugin_kernels.cu): when olive-simulate loads
 * the model it links its kernels' LTO-IR with the model's (CUDA's nvJitLink,
 * link-time optimisation: the model's functions are inlined into the
 * engine's kernels, as if one file). So delivery is never compiled into a
 * model: an engine change needs no model rebuild, and a model built once
 * runs with every olive of this interface. The version is in the names: a
 * change of these signatures is _v2, and an image without _v1 is refused
 * with a request to rebuild. */
#ifndef OLIVE_PLUGIN_CELL_H
#define OLIVE_PLUGIN_CELL_H
#include <stdint.h>

#define OLIVE_PLUGIN_CELL_VERSION 1

#ifdef __CUDACC__
extern "C" {
__device__ int olive_cell_step_v1(const double *coef, double *const *state, int64_t r, double I, int with_input);
__device__ int olive_cell_condition_v1(const double *coef, double *const *state, int64_t r);
__device__ void olive_cell_on_spike_v1(const double *coef, double *const *state, int64_t r);
}

/* A model's GPU image in one line: its source defines olive_cell_step,
 * olive_cell_condition and olive_cell_on_spike (OLIVE_HD, model_plugin.h's
 * schedule) and then writes OLIVE_PLUGIN_CELL_EXPORT (what the generated
 * sources and a model written by hand do). */
#define OLIVE_PLUGIN_CELL_EXPORT                                                                                  \
    extern "C" __device__ int olive_cell_step_v1(const double *coef, double *const *state, int64_t r, double I,   \
                                                 int with_input)                                                  \
    {                                                                                                             \
        return olive_cell_step(coef, state, r, I, with_input);                                                    \
    }                                                                                                             \
    extern "C" __device__ int olive_cell_condition_v1(const double *coef, double *const *state, int64_t r)        \
    {                                                                                                             \
        return olive_cell_condition(coef, state, r);                                                              \
    }                                                                                                             \
    extern "C" __device__ void olive_cell_on_spike_v1(const double *coef, double *const *state, int64_t r)        \
    {                                                                                                             \
        olive_cell_on_spike(coef, state, r);                                                                      \
    }
#endif

#endif
