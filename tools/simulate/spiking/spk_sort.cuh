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

#endif
