/* The CUDA cable kernel's body (one thread per cell, spk_cable_cell_step),
 * shared by the kernel of olive-simulate's own image (spk_cable_cuda.cu:
 * cells without NMODL mechanisms) and the kernel linked at load time with a
 * mechanism library's GPU image (spk_cable_mech_kernels.cu). */
#ifndef SPK_CABLE_KERNEL_CUH
#define SPK_CABLE_KERNEL_CUH
#include <stdint.h>
#include "spk_cable.h"

/* A block's shape and state with device pointers. */
typedef struct {
    int64_t r0, n;
    olive_cable_shape shape;
    olive_cable_state x;
    spk_cable_cellrule cr;
} dev_block;

/* The arguments of the kernel, in its order (the launch of a linked kernel passes them by address). */
#define SPK_CABLE_KERNEL_PARAMS                                                                                         \
    dev_block b, spk_cable_sites st, const double *cur, double t, double dt, double *v, double *m, double *h,          \
        double *hn, double *ge, double *gi, double *vprev, int32_t *ref, unsigned char *flags, int32_t *spk,           \
        unsigned int *nspk, unsigned long long *bad, int64_t step, uint64_t *chunk, unsigned long long *nchunk, int64_t q

__device__ __forceinline__ void spk_cable_update_cell(SPK_CABLE_KERNEL_PARAMS)
{
    const int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (c >= b.n) return;
    const int64_t r = b.r0 + c;
    const int fire = spk_cable_cell_step(&b.shape, &b.x, &b.cr, st, c, b.n, r, cur, t, dt, v, m, h, hn, ge, gi, vprev, ref);
    flags[r] = (unsigned char)fire;
    if (fire) {
        spk[atomicAdd(nspk, 1u)] = (int32_t)r;
        if (chunk) chunk[atomicAdd(nchunk, 1ULL)] = (uint64_t)q << 32 | (uint64_t)r;
    }
    if (!(v[r] - v[r] == 0)) atomicMin(bad, (unsigned long long)step << 32 | (unsigned long long)r);
}

#define SPK_CABLE_MECH_KERNEL "olive_cable_update_mechs"

#endif
