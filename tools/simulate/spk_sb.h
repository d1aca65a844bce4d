/* Static buckets of the CUDA spiking engine's device push path (C++, for
 * spk_cuda.h): where a step's events wait for their target's tail.
 *
 * Target t owns, per parity of the step (steps alternate, so that one pass
 * can take in step t - 1's events while it sends step t's):
 *   cnt[t]             the step's events to t so far (integer atomics: exact);
 *   front[k * n + t]   its first SPK_FRONT events, key and weight: dense rows,
 *                      so the scatter's writes stay within a few pages and
 *                      the tail's reads of neighbouring cells share sectors;
 *   ovf[bptr[t] + k]   the keys of the rest (k >= SPK_FRONT, rare): room for
 *                      t's in-degree, which no step's events to t exceed (a
 *                      source fires at most once a step).
 * key = synapse << 17 | slot << 1 | receptor: ordering keys orders events by
 * their index in the per-source lists (distinct within a step), the CPU
 * engine's order; the due slot (step + delay) % L < 65536 and the receptor
 * ride along, so the tail reads no synapse (but for overflowed events' weights). */
#ifndef OLIVE_SPK_SB_H
#define OLIVE_SPK_SB_H
#include <stdint.h>
#include <string.h>

typedef struct {
    uint64_t key;
    double w;
} spk_sev;
static const int SPK_SEV_SYN_SHIFT = 17;
static const int SPK_FRONT = 4;

/* One parity's buckets. */
struct spk_sb_bucket {
    uint32_t *cnt;
    spk_sev *front;
    uint64_t *ovf;
    const uint32_t *bptr;
    uint32_t nfront;   /* front rows in use: SPK_FRONT (OLIVE_GPU_SB_FRONT=0..4: tests of the overflow) */
};

/* What sending one step's events needs. */
struct spk_scatter_args {
    spk_sb_bucket b;
    const int64_t *out_ptr;
    const spk_out *out;
    const uint16_t *delay;
    int64_t step, n, row0;
    int L;
};

/* The key of event e (an index in the per-source lists), synapse o. */
static __device__ __forceinline__ uint64_t spk_sb_key(const spk_scatter_args &s, int64_t e, const spk_out &o)
{
    const uint64_t slot = s.L == 1 ? 0 : (uint64_t)((s.step + s.delay[e]) % s.L);
    return (uint64_t)e << SPK_SEV_SYN_SHIFT | slot << 1 | (uint64_t)(o.receptor != 0);
}

/* Event e, synapse o, into its place k of its target's bucket. */
static __device__ __forceinline__ void spk_sb_put(const spk_scatter_args &s, int64_t e, const spk_out &o, uint32_t k)
{
    if (k < s.b.nfront) {
        spk_sev v;
        v.key = spk_sb_key(s, e, o);
        v.w = o.w;
        s.b.front[k * s.n + o.target] = v;
    } else {
        s.b.ovf[s.b.bptr[o.target] + k] = spk_sb_key(s, e, o);
    }
}

/* Synapse *p, read evict-first: a spike's list is read once. */
static __device__ __forceinline__ spk_out spk_out_ldcs(const spk_out *p)
{
    static_assert(sizeof(spk_out) == sizeof(int4), "a synapse is read as one 16-byte word");
    const int4 v = __ldcs((const int4 *)p);
    spk_out o;
    memcpy(&o, &v, sizeof o);
    return o;
}

/* Every event of local cell c's spike, by the threads of a block, BATCH
 * events a thread at a time: their synapses read, then their places taken,
 * then written, each step's accesses in flight together (the compiler may
 * not move a read of out past an atomic itself: it cannot tell they do not
 * overlap). */
template <int BATCH>
static __device__ __forceinline__ void spk_sb_send_spike(const spk_scatter_args &s, int64_t c)
{
    const int64_t g = s.row0 + c, end = s.out_ptr[g + 1];
    const int64_t stride = blockDim.x;
    for (int64_t e0 = s.out_ptr[g] + threadIdx.x; e0 < end; e0 += BATCH * stride) {
        spk_out o[BATCH];
        uint32_t k[BATCH];
#pragma unroll
        for (int j = 0; j < BATCH; j++)
            if (e0 + j * stride < end) o[j] = spk_out_ldcs(&s.out[e0 + j * stride]);
#pragma unroll
        for (int j = 0; j < BATCH; j++)
            if (e0 + j * stride < end) k[j] = atomicAdd(&s.b.cnt[o[j].target], 1u);
#pragma unroll
        for (int j = 0; j < BATCH; j++)
            if (e0 + j * stride < end) spk_sb_put(s, e0 + j * stride, o[j], k[j]);
    }
}

static __device__ __forceinline__ void spk_sev_order(spk_sev &x, spk_sev &y)
{
    if (y.key < x.key) { const spk_sev t = x; x = y; y = t; }
}

/* b[0..m) ascending: insertion sort for a few, heapsort for a burst
 * (distinct keys: any sort gives the same order). */
static __device__ __forceinline__ void spk_sort_keys(uint64_t *b, int64_t m)
{
    if (m <= 32) {
        for (int64_t x = 1; x < m; x++) {
            const uint64_t y = b[x];
            int64_t z = x;
            for (; z > 0 && b[z - 1] > y; z--) b[z] = b[z - 1];
            b[z] = y;
        }
        return;
    }
    for (int64_t end = m, start = m / 2; end > 1;) {
        int64_t root;
        if (start > 0) root = --start;
        else { const uint64_t t = b[--end]; b[end] = b[0]; b[0] = t; root = 0; }
        const uint64_t y = b[root];
        for (int64_t child; (child = 2 * root + 1) < end; root = child) {
            if (child + 1 < end && b[child + 1] > b[child]) child++;
            if (b[child] <= y) break;
            b[root] = b[child];
        }
        b[root] = y;
    }
}

/* The m >= 1 events of cell r's step, in key order, to add(event). Up to
 * SPK_FRONT of them (the usual case) come from the front rows into
 * registers, ordered by a sorting network; more are gathered with the
 * overflow in r's bucket, sorted there, their weights read from out. */
template <class Add>
static __device__ __forceinline__ void spk_sb_events(const spk_sb_bucket &b, const spk_out *out, int64_t n, int64_t r,
                                                     uint32_t m, Add add)
{
    static_assert(SPK_FRONT == 4, "the sorting network below orders 4 events");
    if (m <= b.nfront) {
        spk_sev e[SPK_FRONT];
#pragma unroll
        for (int x = 0; x < SPK_FRONT; x++) {
            if ((uint32_t)x < m) e[x] = b.front[x * n + r];
            else { e[x].key = ~0ULL; e[x].w = 0; }   /* (after every event) */
        }
        spk_sev_order(e[0], e[1]);
        spk_sev_order(e[2], e[3]);
        spk_sev_order(e[0], e[2]);
        spk_sev_order(e[1], e[3]);
        spk_sev_order(e[1], e[2]);
#pragma unroll
        for (int x = 0; x < SPK_FRONT; x++)
            if ((uint32_t)x < m) add(e[x]);
        return;
    }
    uint64_t *k = b.ovf + b.bptr[r];
    for (uint32_t x = 0; x < b.nfront; x++) k[x] = b.front[x * n + r].key;
    spk_sort_keys(k, m);
    for (uint32_t x = 0; x < m; x++) {
        spk_sev e;
        e.key = k[x];
        e.w = out[k[x] >> SPK_SEV_SYN_SHIFT].w;
        add(e);
    }
}

#endif
