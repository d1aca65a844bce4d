/* The CUDA side of a plugin model (model_plugin.h): the arguments of the
 * three kernels a plugin's GPU image holds, shared by olive's CUDA engine
 * (tools/simulate/spiking/spk_cuda_plugin.cu, which launches them) and the
 * kernels themselves (plugin_kernels.cuh, compiled by `olive-model build`
 * with nvcc from the model's one C source). Plain C: both sides agree on the
 * layout. */
#ifndef OLIVE_PLUGIN_GPU_H
#define OLIVE_PLUGIN_GPU_H
#include <stdint.h>

/* The kernels' names in the image (extern "C"), each launched with one
 * thread per own cell, olive_plugin_gpu_args by value. */
#define OLIVE_PLUGIN_KERNEL_UPDATE "olive_plugin_update"       /* step 1 (and 2 when a.condition) */
#define OLIVE_PLUGIN_KERNEL_CONDITION "olive_plugin_condition" /* step 2 alone (inputs_before_condition) */
#define OLIVE_PLUGIN_KERNEL_ON_SPIKE "olive_plugin_on_spike"   /* step 4 of the flagged cells */
/* The device push path's pass (static buckets): the previous step's tail
 * (spike_tail.cuh: its events, its Poisson inputs), its step 4, then this
 * step's update: (spk_tail_args, olive_plugin_gpu_args). Its name carries
 * OLIVE_PLUGIN_GPU_ABI, the version of the structures both sides compile
 * (spike_tail.cuh's, these): an image of another version lacks the kernel
 * and olive-simulate asks for a rebuild. */
#define OLIVE_PLUGIN_GPU_ABI 4   /* 2: sim_poisson's prob and p0; 3: Poisson hits drawn ahead; 4: the FREE pass */
#define OLIVE_PLUGIN_KERNEL_TAIL_UPDATE "olive_plugin_tail_update_v4"
/* The same pass where the events are in their slots (--order-free-sums),
 * the Poisson inputs drawn ahead or none, and no current is passed
 * (plugin_kernels.cuh: fewer registers). */
#define OLIVE_PLUGIN_KERNEL_TAIL_UPDATE_FREE "olive_plugin_tail_update_free_v4"

typedef struct olive_plugin_gpu_args {
    int64_t n;                 /* own cells */
    int64_t step;              /* the step (the non-finite report's) */
    int64_t q;                 /* its index in a chunk of steps (the chunk's spike list) */
    int64_t ncoef;             /* doubles per coefficient set */
    const double *coef;        /* the sets */
    const int32_t *coef_of;    /* per cell its set; < 0: a spike source (olive fires it) */
    const double *cur;         /* the step's pulse current per cell, or NULL */
    double *const *state;      /* nvars device arrays, var-major as on the CPU */
    unsigned char *flags;      /* the condition per cell */
    int32_t *spk;              /* the step's spiking cells, appended (atomic counter nspk) */
    unsigned int *nspk;
    uint64_t *chunk;           /* q << 32 | cell per spike of a chunk, or NULL */
    unsigned long long *nchunk;
    unsigned long long *bad;   /* step << 32 | cell: the first non-finite (atomicMin) */
    int condition;             /* the update kernel tests the condition too */
    int reset_first;           /* the update kernel first runs the previous step's step 4
                                * (flags still the previous step's): one launch a step fewer */
} olive_plugin_gpu_args;

#endif
