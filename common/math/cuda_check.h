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

/* One rank per GPU: select device node-local rank % devices (dies when there
 * is none) and create its context now, so later timings exclude it. */
static inline int olive_cuda_select(int local_rank)
{
    int ndev = 0;
    CK(cudaGetDeviceCount(&ndev));
    if (ndev <= 0) olive_die("--backend cuda: no CUDA device");
    const int dev = local_rank % ndev;
    CK(cudaSetDevice(dev));
    CK(cudaFree(nullptr));
    return dev;
}

#endif
