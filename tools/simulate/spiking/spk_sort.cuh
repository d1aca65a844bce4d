/* A stable radix sort of m (key, value) pairs by the key's bits [0, end_bit)
 * in CUB's double-buffer form (scratch of a few MB, not a copy of the
 * pairs): the sorted pairs are keys.Current(), vals.Current(). For the
 * set-up's sorts (spk_cuda_turnaround.cu, spk_cuda_draw.cu). */
#ifndef OLIVE_SPK_SORT_CUH
#define OLIVE_SPK_SORT_CUH
#include <cub/cub.cuh>
#include "cuda_check.h"

template <class K, class V>
static void spk_sort_pairs(cub::DoubleBuffer<K> &keys, cub::DoubleBuffer<V> &vals, int64_t m, int end_bit)
{
    size_t bytes = 0;
    CK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, vals, m, 0, end_bit));
    void *tmp = nullptr;
    CK(cudaMalloc(&tmp, bytes + 1));
    CK(cub::DeviceRadixSort::SortPairs(tmp, bytes, keys, vals, m, 0, end_bit));
    CK(cudaFree(tmp));
}

/* ptr[0..n] = the exclusive sums of the n int64 in[] (in has n + 1
 * entries, the last 0): row or list pointers from their lengths. */
static void spk_exclusive_sum(const int64_t *in, int64_t *ptr, int64_t n)
{
    size_t bytes = 0;
    CK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, ptr, n + 1));
    void *tmp = nullptr;
    CK(cudaMalloc(&tmp, bytes + 1));
    CK(cub::DeviceScan::ExclusiveSum(tmp, bytes, in, ptr, n + 1));
    CK(cudaFree(tmp));
}

static __global__ void k_widen_counts(int64_t n, const uint32_t *c, int64_t *w)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i <= n) w[i] = i < n ? (int64_t)c[i] : 0;
}

/* ptr[0..n] from n uint32 counts. */
static void spk_pointers_of_counts(const uint32_t *cnt, int64_t *ptr, int64_t n)
{
    int64_t *wide = nullptr;
    CK(cudaMalloc(&wide, ((size_t)n + 1) * sizeof(int64_t)));
    k_widen_counts<<<(unsigned)((n + 256) / 256), 256>>>(n, cnt, wide);
    CK_LAUNCH("k_widen_counts");
    spk_exclusive_sum(wide, ptr, n);
    CK(cudaFree(wide));
}

#endif
