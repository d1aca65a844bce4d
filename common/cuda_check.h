/* Checked CUDA calls for the .cu files of every tool: CK(call) dies naming
 * the call and CUDA's message; CK_LAUNCH(what) after every kernel launch
 * checks cudaGetLastError. Needs util.h (olive_die) included before. */
#ifndef OLIVE_CUDA_CHECK_H
#define OLIVE_CUDA_CHECK_H
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t e_ = (call); \
    if (e_ != cudaSuccess) olive_die("CUDA call failed: %s: %s", #call, cudaGetErrorString(e_)); } while (0)
#define CK_LAUNCH(what) do { cudaError_t e_ = cudaGetLastError(); \
    if (e_ != cudaSuccess) olive_die("CUDA kernel launch failed: %s: %s", what, cudaGetErrorString(e_)); } while (0)

#endif
