/* Qualifiers that let one inline source compile for the CPU (gcc, C11) and for
 * CUDA kernels (nvcc): the physics and the RNG are written once, here and in
 * model.h / rng.h, and never copied into a backend. */
#ifndef OLIVE_HOSTDEV_H
#define OLIVE_HOSTDEV_H
#ifdef __CUDACC__
#define OLIVE_HD __host__ __device__ __forceinline__
#else
#define OLIVE_HD static inline __attribute__((always_inline))
#endif
#endif
