/* olive-scatterprobe: what sending one step's spike events costs on this
 * GPU, piece by piece (why the static buckets' scatter into
 * per-target front rows was slow; spk_sb.h now keeps lists).
 *
 * A synthetic network in the engine's layout: `cells` sources with `fanout`
 * synapses each to random targets, one step's `spikes` random sources;
 * each spike's events read from the per-source lists, counted per target
 * (integer atomics) and written into the target's front row, one block per
 * spike, as k_sb_scatter. Variants take away one access at a time, and
 * restrict the spiking sources to the first `span` of them, so that the
 * lists they read lie in fewer pages (if the time fell, the cost would be
 * address translation), and run after a pass over every cell's state like
 * the engine's step (the counts and front rows then evicted from L2, or not
 * with evict-first accesses in the pass).
 * Usage: olive-scatterprobe [cells] [fanout] [spikes] [steps] */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>

#define BENCH_NAME "olive-scatterprobe"
#include "bench_cuda.h"

struct syn16 { int32_t target, receptor; double w; };
struct sev { uint64_t key; double w; };

enum { FULL16, STORE16, ATOMIC16, LOAD16, FULL4, KEY8, EMPTY, NMODES };
static const char *mode_name[NMODES] = {
    "16-byte synapses: load, atomic, store (front rows)",
    "16-byte synapses: load, store (no atomic)",
    "16-byte synapses: load, atomic (no store)",
    "16-byte synapses: load only",
    "4-byte targets: load, atomic, store",
    "16-byte synapses: load, atomic, store of an 8-byte key",
    "nothing (the launch and the events' own cost)",
};

static __device__ __host__ uint64_t mix(uint64_t x)
{
    x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33;
    return x;
}

__global__ void k_fill(syn16 *s16, uint32_t *t4, int64_t m, int64_t n)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < m; e += (int64_t)gridDim.x * blockDim.x) {
        const int32_t t = (int32_t)(mix((uint64_t)e) % (uint64_t)n);
        s16[e].target = t; s16[e].receptor = (int32_t)(e & 1); s16[e].w = 0.25;
        t4[e] = (uint32_t)t;
    }
}

template <int MODE>
__global__ void k_scatter(const int32_t *spk, int fanout, const syn16 *s16, const uint32_t *t4, uint32_t *cnt,
                          sev *front, int64_t n)
{
    if (MODE == EMPTY) return;
    const int64_t e0 = (int64_t)spk[blockIdx.x] * fanout;
    for (int64_t e = e0 + threadIdx.x; e < e0 + fanout; e += blockDim.x) {
        int32_t t;
        double w = 1.0;
        if (MODE == FULL4) t = (int32_t)t4[e];
        else { const syn16 o = s16[e]; t = o.target; w = o.w; }
        if (MODE == LOAD16) { if (w == -1) front[t].w = w; continue; }   /* (never: keeps the load) */
        uint32_t k = 0;
        if (MODE != STORE16) k = atomicAdd(&cnt[t], 1u);
        if (MODE == ATOMIC16) { if (k == 0xffffffffu) front[t].w = w; continue; }
        if (MODE == KEY8) { if (k < 4) ((uint64_t *)front)[k * n + t] = (uint64_t)e << 17; continue; }
        if (k < 4) { sev v; v.key = (uint64_t)e << 17; v.w = w; front[k * n + t] = v; }
    }
}

template <bool EVICT_FIRST>
__global__ void k_pass(double *state, uint32_t *cnt, int64_t n)
{
    const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (r >= n) return;
    double x[4];
    for (int j = 0; j < 4; j++) x[j] = EVICT_FIRST ? __ldcs(&state[j * n + r]) : state[j * n + r];
    const uint32_t m = cnt[r];
    if (m) cnt[r] = 0;
    for (int j = 0; j < 3; j++) {
        const double y = x[j] * 0.5 + x[(j + 1) & 3] + m;
        if (EVICT_FIRST) __stcs(&state[j * n + r], y); else state[j * n + r] = y;
    }
}

typedef void (*kfun)(const int32_t *, int, const syn16 *, const uint32_t *, uint32_t *, sev *, int64_t);
static const kfun kernels[NMODES] = {k_scatter<FULL16>, k_scatter<STORE16>, k_scatter<ATOMIC16>, k_scatter<LOAD16>,
                                     k_scatter<FULL4>, k_scatter<KEY8>,
                                     k_scatter<EMPTY>};

int main(int argc, char **argv)
{
    const int64_t n = argc > 1 ? atoll(argv[1]) : 1000000;
    const int fanout = argc > 2 ? atoi(argv[2]) : 1000;
    const int spikes = argc > 3 ? atoi(argv[3]) : 220;
    const int steps = argc > 4 ? atoi(argv[4]) : 200;
    if (n < 1 || fanout < 1 || spikes < 1 || spikes > n || steps < 2) {
        fprintf(stderr, "olive-scatterprobe: usage: olive-scatterprobe [cells] [fanout] [spikes <= cells] [steps >= 2]\n");
        return 1;
    }
    const int64_t m = n * fanout;
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    syn16 *s16;
    uint32_t *t4, *cnt;
    sev *front;
    int32_t *spk;
    CK(cudaMalloc(&s16, (size_t)m * sizeof(syn16)));
    CK(cudaMalloc(&t4, (size_t)m * sizeof(uint32_t)));
    CK(cudaMalloc(&cnt, (size_t)n * sizeof(uint32_t)));
    CK(cudaMalloc(&front, (size_t)4 * n * sizeof(sev)));
    CK(cudaMalloc(&spk, (size_t)steps * spikes * sizeof(int32_t)));
    k_fill<<<p.multiProcessorCount * 8, 512>>>(s16, t4, m, n);
    CK(cudaGetLastError());
    CK(cudaMemset(cnt, 0, (size_t)n * sizeof(uint32_t)));
    printf("%s: %lld cells x %d synapses (%.1f GB of 16-byte synapses), %d spikes a step, %d steps; "
           "median us a step of one kernel (block of 1024 a spike)\n",
           p.name, (long long)n, fanout, (double)m * 16 / 1e9, spikes, steps);
    /* the pass of the engine's step, roughly: every cell's state read and
     * written, its count read and cleared; plain or evict-first accesses */
    double *state;
    CK(cudaMalloc(&state, (size_t)4 * n * sizeof(double)));
    CK(cudaMemset(state, 0, (size_t)4 * n * sizeof(double)));
    const char *cond[] = {"warm L2", "lists in 64 MB", "after a pass", "after an evict-first pass"};
    printf("%-62s", "variant \\ condition");
    for (const char *c : cond) printf("  %14s", c);
    printf("\n");
    cudaEvent_t ev[2];
    CK(cudaEventCreate(&ev[0]));
    CK(cudaEventCreate(&ev[1]));
    std::vector<int32_t> h((size_t)steps * spikes);
    for (int mode = 0; mode < NMODES; mode++) {
        printf("%-62s", mode_name[mode]);
        for (int c = 0; c < 4; c++) {
            const int64_t span = c == 1 ? std::max<int64_t>(spikes, 4096) : n;
            uint64_t x = 12345 + (uint64_t)c;
            for (auto &v : h) v = (int32_t)(mix(x++) % (uint64_t)span);
            CK(cudaMemcpy(spk, h.data(), h.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
            std::vector<float> t;
            for (int st = 0; st < steps; st++) {
                if (c < 2) CK(cudaMemset(cnt, 0, (size_t)n * sizeof(uint32_t)));
                else if (c == 2) k_pass<false><<<(unsigned)((n + 255) / 256), 256>>>(state, cnt, n);
                else k_pass<true><<<(unsigned)((n + 255) / 256), 256>>>(state, cnt, n);
                CK(cudaGetLastError());
                CK(cudaEventRecord(ev[0]));
                kernels[mode]<<<spikes, 1024>>>(spk + (size_t)st * spikes, fanout, s16, t4, cnt, front, n);
                CK(cudaGetLastError());
                CK(cudaEventRecord(ev[1]));
                CK(cudaEventSynchronize(ev[1]));
                float ms;
                CK(cudaEventElapsedTime(&ms, ev[0], ev[1]));
                t.push_back(ms * 1000);
            }
            std::sort(t.begin(), t.end());
            printf("  %14.1f", t[t.size() / 2]);
        }
        printf("\n");
        fflush(stdout);
    }
    return 0;
}
