/* olive-l2fetchprobe: does the L2's fetch granularity hint change what a
 * random double atomic or a random 8-byte load costs on this GPU?
 *
 * Why (issue 58): the multi-area model's events kernel is bound by one
 * atomic addition an event into a 42 GB delay ring, a random DRAM sector
 * each (docs/results/multiarea_atomic_cost_2026-12-06_h100.txt), and the
 * microcircuit's ring (72 MB) is larger than the L2. Where the L2 fetches
 * more than the 32-byte sector an access needs, a random access moves two
 * or four times the bytes it uses; cudaLimitMaxL2FetchGranularity is
 * CUDA's hint for that fetch size (0 to 128 bytes).
 *
 * For each array size (default 16 MiB, 1 GiB, 8 GiB) and each granularity
 * (the driver's default, then 32, 64 and 128 bytes, each read back with
 * cudaDeviceGetLimit): `count` random atomicAdd(double) into the array, and
 * `count` random 8-byte loads summed per thread, best of `reps` launches,
 * in ns an access and millions of accesses a second.
 * Usage: olive-l2fetchprobe [count (default 2^26)] [reps (default 5)] [MiB ...] */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BENCH_NAME "olive-l2fetchprobe"
#include "bench_cuda.h"

static __device__ __forceinline__ uint64_t mix(uint64_t x)
{
    x ^= x >> 33; x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

__global__ void k_atomics(double *a, uint64_t n, uint64_t count, uint64_t seed)
{
    const uint64_t T = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < count; i += T)
        atomicAdd(&a[mix(i + seed) % n], 1.0);
}

__global__ void k_loads(const double *a, uint64_t n, uint64_t count, uint64_t seed, double *out)
{
    const uint64_t T = (uint64_t)gridDim.x * blockDim.x;
    double s = 0;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < count; i += T) s += a[mix(i + seed) % n];
    if (s == -1.0) *out = s;   /* (never: keeps the loads) */
}

/* Best of reps launches in ms; kernel 0: atomics, 1: loads. */
static float best_ms(int kernel, double *a, uint64_t n, uint64_t count, int reps, int grid, double *out)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    float best = 1e30f;
    for (int r = 0; r <= reps; r++) {   /* (launch 0 warms up) */
        CK(cudaEventRecord(e0));
        if (kernel == 0) k_atomics<<<grid, 256>>>(a, n, count, 0x9e3779b97f4a7c15ULL * (uint64_t)(r + 1));
        else k_loads<<<grid, 256>>>(a, n, count, 0x9e3779b97f4a7c15ULL * (uint64_t)(r + 1), out);
        CK(cudaGetLastError());
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r > 0 && ms < best) best = ms;
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return best;
}

int main(int argc, char **argv)
{
    const uint64_t count = argc > 1 ? strtoull(argv[1], NULL, 10) : (1ULL << 26);
    const int reps = argc > 2 ? atoi(argv[2]) : 5;
    uint64_t mib[16] = {16, 1024, 8192};
    int nsizes = 3;
    if (argc > 3) {
        nsizes = 0;
        for (int i = 3; i < argc && nsizes < 16; i++) mib[nsizes++] = strtoull(argv[i], NULL, 10);
    }
    if (count == 0 || reps < 1) { fprintf(stderr, "usage: %s [count] [reps] [MiB ...]\n", argv[0]); return 2; }
    int dev = 0, sms = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, dev));
    size_t dflt = 0;
    CK(cudaDeviceGetLimit(&dflt, cudaLimitMaxL2FetchGranularity));
    printf("# %s: %s, L2 %d MiB, %llu random accesses a launch, best of %d; the driver's default fetch granularity %zu B\n",
           BENCH_NAME, p.name, p.l2CacheSize >> 20, (unsigned long long)count, reps, dflt);
    printf("%-10s %-12s %14s %12s %14s %12s\n", "array-MiB", "granularity", "atomic-ns", "atomic-M/s", "load-ns", "load-M/s");
    double *out = NULL;
    CK(cudaMalloc(&out, sizeof(double)));
    const size_t want[] = {dflt, 32, 64, 128};
    for (int s = 0; s < nsizes; s++) {
        const uint64_t n = mib[s] * (1ULL << 20) / sizeof(double);
        double *a = NULL;
        if (cudaMalloc(&a, n * sizeof(double)) != cudaSuccess) {
            (void)cudaGetLastError();
            printf("%-10llu (no room)\n", (unsigned long long)mib[s]);
            continue;
        }
        CK(cudaMemset(a, 0, n * sizeof(double)));
        for (size_t g = 0; g < sizeof want / sizeof want[0]; g++) {
            CK(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, want[g]));
            size_t got = 0;
            CK(cudaDeviceGetLimit(&got, cudaLimitMaxL2FetchGranularity));
            const float ta = best_ms(0, a, n, count, reps, sms * 8, out);
            const float tl = best_ms(1, a, n, count, reps, sms * 8, out);
            char gname[32];
            snprintf(gname, sizeof gname, "%zu%s", got, g == 0 ? " (default)" : "");
            printf("%-10llu %-12s %14.4f %12.0f %14.4f %12.0f\n", (unsigned long long)mib[s], gname, 1e6 * ta / (double)count,
                   (double)count / (1e3 * ta), 1e6 * tl / (double)count, (double)count / (1e3 * tl));
        }
        CK(cudaFree(a));
        CK(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, dflt));
    }
    CK(cudaFree(out));
    return 0;
}
