/* What Brian2CUDA 1.0a6's synapse creation from arrays costs on the host
 * (docs/BENCHMARKS.md): its loop copies the pairs into
 * thrust::host_vector with push_back, then checks for repeated (source,
 * target) pairs by inserting every pair into a std::map (its template
 * synapses_create_array.cu); brian2cuda_build.py's sortcheck makes the same
 * check by sorting. The pairs come in olive's order (by target, sources
 * rising within a target; ~100 per target here). Host code only:
 *   nvcc -O3 -std=c++17 -o /tmp/b2c_check scripts/brian2cuda_setup_check_cost.cu
 *   /tmp/b2c_check PAIRS MAP_PAIRS      (100000000 of each: ~9 GB, ~90 s) */
#include <thrust/host_vector.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <vector>

static double since(clock_t t) { return (double)(clock() - t) / CLOCKS_PER_SEC; }

int main(int argc, char **argv)
{
    if (argc != 3) { fprintf(stderr, "usage: %s PAIRS MAP_PAIRS\n", argv[0]); return 64; }
    const long n = atol(argv[1]), mapn = atol(argv[2]);
    if (n <= 0 || mapn < 0 || mapn > n) { fprintf(stderr, "%s: need 0 < PAIRS and 0 <= MAP_PAIRS <= PAIRS\n", argv[0]); return 64; }
    std::vector<int32_t> src(n), tgt(n);
    for (long i = 0; i < n; i++) {   /* target i / 100; sources rising over [0, 800000) within it */
        tgt[i] = (int32_t)(i / 100);
        src[i] = (int32_t)(((i % 100) * 8000 + (i * 2654435761u) % 8000) % 800000);
    }
    clock_t t = clock();
    thrust::host_vector<int32_t> pre, post;
    for (long i = 0; i < n; i++) { pre.push_back(src[i]); post.push_back(tgt[i]); }
    printf("push_back of %ld pairs: %.3f us a pair\n", n, since(t) / n * 1e6);
    t = clock();
    std::map<std::pair<int32_t, int32_t>, int32_t> count;
    for (long i = 0; i < mapn; i++) count[std::make_pair(pre[i], post[i])]++;
    if (mapn) printf("std::map check of %ld pairs: %.3f us a pair\n", mapn, since(t) / mapn * 1e6);
    t = clock();
    std::vector<uint64_t> key(n);
    for (long i = 0; i < n; i++) key[i] = ((uint64_t)(uint32_t)pre[i] << 32) | (uint32_t)post[i];
    if (!std::is_sorted(key.begin(), key.end())) std::sort(key.begin(), key.end());
    const bool repeated = std::adjacent_find(key.begin(), key.end()) != key.end();
    printf("sort check of %ld pairs: %.3f us a pair (repeated pairs: %s)\n", n, since(t) / n * 1e6, repeated ? "yes" : "no");
    return 0;
}
