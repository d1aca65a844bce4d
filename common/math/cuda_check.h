/* Checked CUDA calls for the .cu files of every tool: CK(call) dies naming
 * the call and CUDA's message; CK_LAUNCH(what) after every kernel launch
 * checks cudaGetLastError. Needs util.h (olive_die) included before. */
#ifndef OLIVE_CUDA_CHECK_H
#define OLIVE_CUDA_CHECK_H
#include <cuda_runtime.h>
#include <stdlib.h>

#define CK(call) do { cudaError_t e_ = (call); \
    if (e_ != cudaSuccess) olive_die("CUDA call failed: %s: %s", #call, cudaGetErrorString(e_)); } while (0)
#define CK_LAUNCH(what) do { cudaError_t e_ = cudaGetLastError(); \
    if (e_ != cudaSuccess) olive_die("CUDA kernel launch failed: %s: %s", what, cudaGetErrorString(e_)); } while (0)

/* OLIVE_GPU_L2_FETCH=B (0 to 128): CUDA's hint for the most bytes the L2
 * fetches from memory a miss (cudaLimitMaxL2FetchGranularity), for timing
 * comparisons: a random access uses one 32-byte sector of what is fetched.
 * Unset: the driver's choice. */
static inline void olive_cuda_l2_fetch(void)
{
    const char *e = getenv("OLIVE_GPU_L2_FETCH");
    if (!e || !*e) return;
    char *end = NULL;
    const long b = strtol(e, &end, 10);
    if (*end || b < 0 || b > 128) olive_die("OLIVE_GPU_L2_FETCH='%s': expected bytes from 0 to 128", e);
    CK(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, (size_t)b));
    size_t got = 0;
    CK(cudaDeviceGetLimit(&got, cudaLimitMaxL2FetchGranularity));
    olive_info("CUDA: the L2's fetch granularity %zu bytes (OLIVE_GPU_L2_FETCH=%ld)", got, b);
}

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
    olive_cuda_l2_fetch();
    return dev;
}

#endif
