/* The fused strategy's kernel arguments (spk_cuda_fused.cu sets them up,
 * spk_plugin_kernels.cu's olive_plugin_fused runs the steps, with the point
 * model's cell functions linked in). C++; after spk.h (sim_pulse,
 * sim_poisson). */
#ifndef SPK_FUSED_GPU_H
#define SPK_FUSED_GPU_H
#include <stdint.h>
#include "spk_plugin_gpu.h"

/* One incoming synapse of the fused path, in its target's pull order. */
typedef struct {
    int32_t source;
    uint16_t delay;   /* steps */
    uint8_t receptor;
    uint8_t pad;
    double w;
} spk_in;

typedef struct {
    spk_plugin_args c;         /* the cells (c.chunk, c.nchunk: the chunk's spike list) */
    int64_t row0;
    const int64_t *in_ptr;     /* per target: its incoming synapses */
    const spk_in *in;
    unsigned char *hist;       /* H slots x n spike flags, slot step % H */
    int H;
    const sim_pulse *pulses;
    int npulses;
    const sim_poisson *poisson;
    const int *poisson_rec;
    int npoisson;
    uint64_t seed;
    unsigned long long *npoisson_events;
    double *rec0, *rec1;       /* the model's two receptor variables */
    const double *rscale;      /* their factors per cell (2 x n), or NULL (all 1) */
} spk_fused_args;

#endif
