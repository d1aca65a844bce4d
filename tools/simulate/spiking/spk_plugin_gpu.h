/* The kernels that run a point model's cells on the GPU, built in or a
 * plugin's (spk_plugin_kernels.cu, linked with the model's cell functions at
 * load time), and their arguments, shared by those kernels and the files
 * that launch them (spk_cuda_plugin.cu, spk_cuda_fused.cu). The engine's
 * own: nothing here is compiled into a model (plugin_cell.h is the model's
 * side). */
#ifndef SPK_PLUGIN_GPU_H
#define SPK_PLUGIN_GPU_H
#include <stdint.h>
#include "poisson_spec.h"   /* (sim_poisson: spk_due_args) */
#include "spk_owned_plan.h"

/* Each launched with one thread per own cell, spk_plugin_args by value. */
#define SPK_PLUGIN_KERNEL_UPDATE "olive_plugin_update"       /* step 1 (and 2 when a.condition) */
#define SPK_PLUGIN_KERNEL_CONDITION "olive_plugin_condition" /* step 2 alone (inputs_before_condition) */
#define SPK_PLUGIN_KERNEL_ON_SPIKE "olive_plugin_on_spike"   /* step 4 of the flagged cells */
/* Device push's pass (static buckets): the previous step's tail
 * (spike_tail.cuh: its events, its Poisson inputs), its step 4, then this
 * step's update: (spk_tail_args, spk_plugin_args). _b3: held to 3 blocks
 * of 256 an SM (a model whose descriptor's gpu_pass_blocks is 3); _b1: not. */
#define SPK_PLUGIN_KERNEL_TAIL_UPDATE_B1 "olive_plugin_tail_update_b1"
#define SPK_PLUGIN_KERNEL_TAIL_UPDATE_B3 "olive_plugin_tail_update_b3"
/* The same pass where the events are in their slots (--order-free-sums),
 * the Poisson inputs drawn ahead or none, and no current is passed
 * (spk_plugin_kernels.cu: fewer registers). */
#define SPK_PLUGIN_KERNEL_TAIL_FREE "olive_plugin_tail_update_free"
/* The fused strategy's cooperative kernel: chunks of steps in one launch
 * (spk_fused_args, first, count; spk_cuda_fused.cu). _b4: held to 4 blocks
 * of 256 an SM (64 registers; a model whose gpu_pass_blocks is 3); the
 * other: not. */
#define SPK_PLUGIN_KERNEL_FUSED "olive_plugin_fused"
#define SPK_PLUGIN_KERNEL_FUSED_B4 "olive_plugin_fused_b4"
/* The host push path's update pass that first takes in the step before's
 * due sums and Poisson inputs (spk_due_args, spk_plugin_args). */
#define SPK_PLUGIN_KERNEL_UPDATE_DUE "olive_plugin_update_due"
/* Device push's owned form (spk_cuda_owned.cu): a chunk of steps in one
 * cooperative launch, one block an SM of SPK_OWNED_THREADS threads, each
 * block owning a run of cells and their due sums (spk_owned_args, then
 * spk_plugin_args). */
#define SPK_PLUGIN_KERNEL_OWNED "olive_plugin_owned"
#define SPK_OWNED_THREADS 1024
#define SPK_PLUGIN_KERNEL_OWNED_FEW "olive_plugin_owned_few"   /* blocks of SPK_OWNED_THREADS_FEW */
#define SPK_OWNED_THREADS_FEW 768

struct spk_plastic_dev;

typedef struct spk_plugin_args {
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
    const struct spk_plastic_dev *pl;   /* plastic synapses: the cells' spikes for stdp (device), or NULL */
    int condition;             /* the update kernel tests the condition too */
    int reset_first;           /* the update kernel first runs the previous step's step 4
                                * (flags still the previous step's): one launch a step fewer */
} spk_plugin_args;

/* What olive_plugin_update_due takes in first: the due slot `slot` of the
 * ring (neg0: spk_cuda.cu's k_deliver) and the covering Poisson inputs of
 * step `step` (spk_poisson_cover), as k_deliver_poisson adds them. */
typedef struct spk_due_args {
    int64_t slot, step, row0;
    double *acc;
    unsigned char *touched;
    int neg0;
    int per;
    const sim_poisson *in;
    const int16_t *cover;
    const double *fac;
    uint64_t seed;
    unsigned long long *count;
    const double *rscale;      /* the receptor factors (2 x n), or NULL */
    double *ge, *gi;           /* the receptor variables' arrays (a spike source's inputs go there) */
} spk_due_args;

/* The owned form's chunk (spk_cuda_owned.cu says how it works). */
typedef struct spk_owned_args {
    spk_owned_plan p;          /* its windows, queues and ring (spk_owned_plan.h) */
    int64_t first, count;      /* the chunk's steps */
    int64_t row0;
    int beside;                /* a step's cell steps before its sends, no block barrier between */
    const int64_t *out_ptr;    /* per source its synapses (device push's lists' bounds) */
    const uint32_t *goff;      /* per source (blocks + 1) starts of its groups, from out_ptr */
    const long long *gw;       /* per synapse, grouped by the block owning its target: weight x 2^bits */
    const uint32_t *gmeta;     /* target - block's first cell | receptor << 10 | delay << 11 */
    int32_t *list[3];          /* spike lists, step % 3: filled, sent, cleared */
    unsigned int *nlist[3];
    const int16_t *pcover;     /* the Poisson inputs drawn ahead (spike_tail.cuh), or padd null */
    const double *padd;        /* the chunk's first step's amounts; a step per pper x n */
    int pper;
    const double *rscale;      /* the receptor factors (2 x n), or null */
} spk_owned_args;

#endif
