/* Checked CUDA calls of the GPU probes and benchmarks (tools/bench):
 * CK(call) exits with status 1, naming the program (BENCH_NAME, defined
 * before this header), the call and CUDA's message. The probes are
 * standalone programs (most do not link olive's library, whose
 * common/math/cuda_check.h dies through olive_die). */
#ifndef OLIVE_BENCH_CUDA_H
#define OLIVE_BENCH_CUDA_H
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s: %s: %s\n", BENCH_NAME, #call, cudaGetErrorString(e_)); exit(1); } } while (0)

#endif
