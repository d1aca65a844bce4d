/* olive-bwprobe: the device's achievable memory bandwidth, the yardstick of
 * the GPU benchmark (scripts/bench-gpu.sh). A grid-stride copy of a buffer
 * far larger than L2, best of several runs, bytes read + written per second.
 * Usage: olive-bwprobe [GiB]   (default 2 GiB per buffer) */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define BENCH_NAME "olive-bwprobe"
#include "bench_cuda.h"

__global__ void copy(const double2 *__restrict__ a, double2 *__restrict__ b, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        b[i] = a[i];
}

int main(int argc, char **argv)
{
    double gib = argc > 1 ? atof(argv[1]) : 2.0;
    if (!(gib > 0 && gib < 64)) { fprintf(stderr, "olive-bwprobe: size %s GiB is not in (0, 64)\n", argv[1]); return 1; }
    size_t bytes = (size_t)(gib * 1073741824.0) & ~(size_t)15, n = bytes / sizeof(double2);
    double2 *a, *b;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMemset(a, 0, bytes));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    float best = 1e30f;
    for (int r = 0; r < 10; r++) {
        CK(cudaEventRecord(e0));
        copy<<<p.multiProcessorCount * 8, 512>>>(a, b, n);
        CK(cudaGetLastError());
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r > 0 && ms < best) best = ms;
    }
    printf("%s: copy of %.2f GiB, %.1f GB/s (read + write)\n", p.name, gib, 2.0 * (double)bytes / (best * 1e-3) / 1e9);
    return 0;
}
