/* olive-stepprobe: whole steps of the CUDA spiking engine's one-pass form,
 * with two ways of bucketing a step's events, on a synthetic
 * network: every cell's state read and written (evict-first), its events of
 * the previous step taken in, its own events sent if it fires (~spikes a
 * step, by a hash), one launch a step.
 *   front rows (the engine's layout until 2026-11-26): per target a count
 *     (atomicAdd) and its first 4 events, key and weight, at
 *     front[k * n + t]: a random 16-byte store per event;
 *   lists (the engine's since, spk_sb.h): per target the head of a list
 *     (atomicExch), per synapse the next link, key and weight, written where
 *     the synapse is: the stores of a spike's events are contiguous; the
 *     tail follows the links.
 * Only the memory traffic is modelled (sums of weights, no sorting, no
 * overflow beyond 4 events a target on the front-row form).
 * Usage: olive-stepprobe [cells] [fanout] [spikes] [steps] */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BENCH_NAME "olive-stepprobe"
#include "bench_cuda.h"

struct syn16 { int32_t target, receptor; double w; };
struct sev { uint64_t key; double w; };
struct link16 { uint32_t next, key; double w; };
static const uint32_t END = 0xffffffffu;

static __device__ uint64_t mix(uint64_t x)
{
    x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33;
    return x;
}

__global__ void k_fill(syn16 *s, int64_t m, int64_t n)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < m; e += (int64_t)gridDim.x * blockDim.x) {
        s[e].target = (int32_t)(mix((uint64_t)e) % (uint64_t)n);
        s[e].receptor = (int32_t)(e & 1);
        s[e].w = 0.25;
    }
}

static __device__ uint32_t hash32(uint32_t x)
{
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}

struct net {
    int64_t n;
    int fanout;
    uint32_t mask;    /* a cell fires on a step when its hash & mask is 0 */
    const syn16 *out;
    double *v, *ge, *gi, *ref;
    int32_t *coef_of;
    unsigned char *flags;
    uint32_t *cnt[2];     /* front rows: counts; lists: heads */
    sev *front[2];
    link16 *link[2];
};

static __device__ __forceinline__ syn16 ld_syn(const syn16 *p)
{
    const int4 v = __ldcs((const int4 *)p);
    syn16 o;
    memcpy(&o, &v, sizeof o);
    return o;
}

template <bool LISTS>
__global__ void __launch_bounds__(256, 4) k_step(net a, int step)
{
    __shared__ int32_t fired[256];
    __shared__ unsigned int nfired;
    const int p = step & 1, q = p ^ 1;   /* send into p, take in q */
    const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) nfired = 0;
    __syncthreads();
    if (r < a.n) {
        const int32_t ci = __ldcs(&a.coef_of[r]);
        double e = __ldcs(&a.ge[r]), i = __ldcs(&a.gi[r]), x = __ldcs(&a.v[r]), f = __ldcs(&a.ref[r]);
        const int was = __ldcs(&a.flags[r]);
        double s = 0;
        if (LISTS) {
            uint32_t h = a.cnt[q][r];
            if (h != END) {
                a.cnt[q][r] = END;
                for (; h != END;) { const link16 l = a.link[q][h]; s += l.w; h = l.next; }
            }
        } else {
            const uint32_t m = a.cnt[q][r];
            if (m) {
                a.cnt[q][r] = 0;
                for (uint32_t k = 0; k < m && k < 4; k++) s += a.front[q][k * a.n + r].w;
            }
        }
        e = e * 0.9 + s;
        i = i * 0.8;
        x = was ? 0.0 : x * 0.99 + e - i + ci;
        __stcs(&a.ge[r], e); __stcs(&a.gi[r], i); __stcs(&a.v[r], x);
        if (f != 0) __stcs(&a.ref[r], f - 1);
        const int fire = (hash32((uint32_t)r * 1000003u + (uint32_t)step * 7919u) & a.mask) == 0;
        __stcs(&a.flags[r], (unsigned char)fire);
        if (fire) fired[atomicAdd(&nfired, 1u)] = (int32_t)r;
    }
    __syncthreads();
    for (unsigned int j = 0; j < nfired; j++) {
        const int64_t e0 = (int64_t)fired[j] * a.fanout, end = e0 + a.fanout;
        for (int64_t e = e0 + threadIdx.x; e < end; e += 4 * blockDim.x) {
            syn16 o[4];
            uint32_t k[4];
#pragma unroll
            for (int b = 0; b < 4; b++) if (e + b * blockDim.x < end) o[b] = ld_syn(&a.out[e + b * blockDim.x]);
#pragma unroll
            for (int b = 0; b < 4; b++)
                if (e + b * blockDim.x < end)
                    k[b] = LISTS ? atomicExch(&a.cnt[p][o[b].target], (uint32_t)(e + b * blockDim.x))
                                 : atomicAdd(&a.cnt[p][o[b].target], 1u);
#pragma unroll
            for (int b = 0; b < 4; b++) {
                const int64_t eb = e + b * blockDim.x;
                if (eb >= end) continue;
                if (LISTS) { link16 l; l.next = k[b]; l.key = (uint32_t)o[b].receptor; l.w = o[b].w; a.link[p][eb] = l; }
                else if (k[b] < 4) { sev v; v.key = (uint64_t)eb << 17; v.w = o[b].w; a.front[p][k[b] * a.n + o[b].target] = v; }
            }
        }
    }
}

int main(int argc, char **argv)
{
    const int64_t n = argc > 1 ? atoll(argv[1]) : 1000000;
    const int fanout = argc > 2 ? atoi(argv[2]) : 1000;
    const int spikes = argc > 3 ? atoi(argv[3]) : 220;
    const int steps = argc > 4 ? atoi(argv[4]) : 1000;
    if (n < 1 || n * fanout >= END || fanout < 1 || spikes < 1 || spikes > n || steps < 2) {
        fprintf(stderr, "olive-stepprobe: usage: olive-stepprobe [cells] [fanout] [spikes <= cells] [steps >= 2] "
                        "(cells x fanout < 2^32)\n");
        return 1;
    }
    const int64_t m = n * fanout;
    cudaDeviceProp dp;
    CK(cudaGetDeviceProperties(&dp, 0));
    net a;
    a.n = n;
    a.fanout = fanout;
    a.mask = 1;
    while ((int64_t)(a.mask + 1) * 2 * spikes <= n) a.mask = 2 * a.mask + 1;   /* n / (mask + 1) ~ spikes */
    syn16 *out;
    CK(cudaMalloc(&out, (size_t)m * sizeof(syn16)));
    k_fill<<<dp.multiProcessorCount * 8, 512>>>(out, m, n);
    CK(cudaGetLastError());
    a.out = out;
    double *st;
    CK(cudaMalloc(&st, (size_t)4 * n * sizeof(double)));
    CK(cudaMemset(st, 0, (size_t)4 * n * sizeof(double)));
    a.v = st; a.ge = st + n; a.gi = st + 2 * n; a.ref = st + 3 * n;
    CK(cudaMalloc(&a.coef_of, (size_t)n * sizeof(int32_t)));
    CK(cudaMemset(a.coef_of, 0, (size_t)n * sizeof(int32_t)));
    CK(cudaMalloc(&a.flags, (size_t)n));
    CK(cudaMemset(a.flags, 0, (size_t)n));
    for (int p = 0; p < 2; p++) {
        CK(cudaMalloc(&a.cnt[p], (size_t)n * sizeof(uint32_t)));
        CK(cudaMalloc(&a.front[p], (size_t)4 * n * sizeof(sev)));
        CK(cudaMalloc(&a.link[p], (size_t)m * sizeof(link16)));
    }
    printf("%s: %lld cells x %d synapses, ~%lld spikes a step, %d steps, one launch a step\n", dp.name, (long long)n,
           fanout, (long long)(n / (a.mask + 1)), steps);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int lists = 0; lists < 2; lists++) {
        for (int p = 0; p < 2; p++) CK(cudaMemset(a.cnt[p], lists ? 0xff : 0, (size_t)n * sizeof(uint32_t)));
        const unsigned nb = (unsigned)((n + 255) / 256);
        for (int s = 0; s < 20; s++) {   /* warm-up */
            if (lists) k_step<true><<<nb, 256>>>(a, s); else k_step<false><<<nb, 256>>>(a, s);
        }
        CK(cudaEventRecord(e0));
        for (int s = 20; s < 20 + steps; s++) {
            if (lists) k_step<true><<<nb, 256>>>(a, s); else k_step<false><<<nb, 256>>>(a, s);
            CK(cudaGetLastError());
        }
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        printf("%-40s %8.1f us a step\n", lists ? "lists (contiguous stores)" : "front rows (random stores)",
               ms * 1000 / steps);
    }
    return 0;
}
