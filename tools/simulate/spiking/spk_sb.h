/* Static buckets of the CUDA spiking engine's device push path (C++, for
 * spk_cuda.h): where a step's events wait for their target's tail.
 *
 * A step's events to target t form a list: head[t] (one array per parity of
 * the step, so that one pass can take in step t - 1's events while it sends
 * step t's) is the synapse index of the last event that arrived, and
 * link[e], stored where synapse e's own entry is, holds the next one, the
 * event's due slot and receptor and its weight. Sending an event is then an
 * atomic exchange on the target's head and a store beside the store of the
 * spike's next synapse: a spike's ~1000 stores fill whole sectors, where a
 * store into a per-target row was a random partial write that waits on
 * DRAM (olive-stepprobe: 66.7 against 52.4 us a step on an H200, 1M x 1000,
 * ~244 spikes a step). The tail walks its list, up to 4 events into
 * registers ordered by a sorting network; a longer list (a burst) is copied
 * into the target's scratch (ovf[bptr[t]], room for its in-degree, which no
 * step's events to t exceed: a source fires at most once a step), sorted
 * there. Ordering by synapse index orders events by their index in the
 * per-source lists (distinct within a step), the CPU engine's order.
 * link[] has one copy: step t's events are sent (k_sb_scatter) after the
 * pass that walked step t - 1's lists. */
#ifndef OLIVE_SPK_SB_H
#define OLIVE_SPK_SB_H
#include <stdint.h>
#include <string.h>

/* An event in registers: key = synapse << 17 | slot << 1 | receptor, and
 * its weight. */
typedef struct {
    uint64_t key;
    double w;
} spk_sev;
static const int SPK_SEV_SYN_SHIFT = 17;
static const int SPK_INREG = 4;   /* events a tail orders in registers */

/* Synapse e's link: the event before it to the same target in the same
 * step (its synapse index, or SPK_END), its slot << 1 | receptor, weight. */
typedef struct {
    uint32_t next;
    uint32_t tag;
    double w;
} spk_link;
static const uint32_t SPK_END = 0xffffffffu;

/* One parity's buckets. */
struct spk_sb_bucket {
    uint32_t *head;
    spk_link *link;
    uint32_t *ovf;
    const uint32_t *bptr;
    uint32_t nreg;   /* events a tail takes in registers: SPK_INREG (OLIVE_GPU_SB_REGS=1..4: tests of a burst) */
};

/* What sending one step's events needs. */
struct spk_scatter_args {
    spk_sb_bucket b;
    const int64_t *out_ptr;
    const spk_out *out;
    const uint16_t *delay;
    int64_t step, row0;
    int L;
};

/* Synapse *p, read evict-first: a spike's list is read once. */
static __device__ __forceinline__ spk_out spk_out_ldcs(const spk_out *p)
{
    static_assert(sizeof(spk_out) == sizeof(int4), "a synapse is read as one 16-byte word");
    const int4 v = __ldcs((const int4 *)p);
    spk_out o;
    memcpy(&o, &v, sizeof o);
    return o;
}

/* Every event of local cell c's spike, by the threads of a block, one
 * event a thread at a time: its synapse read, its target's head exchanged,
 * its link written. */
static __device__ __forceinline__ void spk_sb_send_spike(const spk_scatter_args &s, int64_t c)
{
    const int64_t g = s.row0 + c, end = s.out_ptr[g + 1];
    for (int64_t e = s.out_ptr[g] + threadIdx.x; e < end; e += blockDim.x) {
        const spk_out o = spk_out_ldcs(&s.out[e]);
        spk_link l;
        l.next = atomicExch(&s.b.head[o.target], (uint32_t)e);
        l.tag = (s.L == 1 ? 0 : (uint32_t)((s.step + s.delay[e]) % s.L)) << 1 | (uint32_t)(o.receptor != 0);
        l.w = o.w;
        s.b.link[e] = l;
    }
}

static __device__ __forceinline__ void spk_sev_order(spk_sev &x, spk_sev &y)
{
    if (y.key < x.key) { const spk_sev t = x; x = y; y = t; }
}

/* b[0..m) ascending: insertion sort for a few, heapsort for a burst
 * (distinct keys: any sort gives the same order). */
static __device__ __forceinline__ void spk_sort_keys(uint32_t *b, int64_t m)
{
    if (m <= 32) {
        for (int64_t x = 1; x < m; x++) {
            const uint32_t y = b[x];
            int64_t z = x;
            for (; z > 0 && b[z - 1] > y; z--) b[z] = b[z - 1];
            b[z] = y;
        }
        return;
    }
    for (int64_t end = m, start = m / 2; end > 1;) {
        int64_t root;
        if (start > 0) root = --start;
        else { const uint32_t t = b[--end]; b[end] = b[0]; b[0] = t; root = 0; }
        const uint32_t y = b[root];
        for (int64_t child; (child = 2 * root + 1) < end; root = child) {
            if (child + 1 < end && b[child + 1] > b[child]) child++;
            if (b[child] <= y) break;
            b[root] = b[child];
        }
        b[root] = y;
    }
}

/* The events of cell r's step (its list from head h != SPK_END), in key
 * order, to add(event). Up to nreg of them (the usual case) are taken into
 * registers and ordered by a sorting network; a longer list is copied into
 * r's scratch, sorted there, and its links read again. */
template <class Add>
static __device__ __forceinline__ void spk_sb_events(const spk_sb_bucket &b, int64_t r, uint32_t h, Add add)
{
    static_assert(SPK_INREG == 4, "the sorting network below orders 4 events");
    spk_sev e[SPK_INREG];
    uint32_t x = h, m = 0;
#pragma unroll
    for (int j = 0; j < SPK_INREG; j++) {
        e[j].key = ~0ULL;   /* (after every event) */
        e[j].w = 0;
        if (x != SPK_END && (uint32_t)j < b.nreg) {
            const spk_link l = b.link[x];
            e[j].key = (uint64_t)x << SPK_SEV_SYN_SHIFT | l.tag;
            e[j].w = l.w;
            x = l.next;
            m = j + 1;
        }
    }
    if (x == SPK_END) {
        spk_sev_order(e[0], e[1]);
        spk_sev_order(e[2], e[3]);
        spk_sev_order(e[0], e[2]);
        spk_sev_order(e[1], e[3]);
        spk_sev_order(e[1], e[2]);
#pragma unroll
        for (int j = 0; j < SPK_INREG; j++)
            if ((uint32_t)j < m) add(e[j]);
        return;
    }
    uint32_t *k = b.ovf + b.bptr[r];
#pragma unroll
    for (int j = 0; j < SPK_INREG; j++)
        if ((uint32_t)j < m) k[j] = (uint32_t)(e[j].key >> SPK_SEV_SYN_SHIFT);
    for (; x != SPK_END; x = b.link[x].next) k[m++] = x;
    spk_sort_keys(k, m);
    for (uint32_t j = 0; j < m; j++) {
        const spk_link l = b.link[k[j]];
        spk_sev v;
        v.key = (uint64_t)k[j] << SPK_SEV_SYN_SHIFT | l.tag;
        v.w = l.w;
        add(v);
    }
}

#endif
