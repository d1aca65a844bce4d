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
 * ~244 spikes a step). The tail walks its list, up to 8 events into
 * registers ordered by a sorting network; a longer list (a burst) is copied
 * into the target's scratch (ovf[bptr[t]], room for its in-degree, which no
 * step's events to t exceed: a source fires at most once a step), sorted
 * there. Ordering by synapse index orders events by their index in the
 * per-source lists (distinct within a step), the CPU engine's order.
 * link[] has one copy: step t's events are sent (k_sb_scatter) after the
 * pass that walked step t - 1's lists.
 *
 * Where no synapse has a delay of 0 steps (sb_add), none of a step's events
 * is due at the next tail's own slot, so the tails need none of them: they
 * go to lists of their own (later[], both parities), and the next step's
 * scatter kernel walks those in blocks of its own, a thread a target, adding
 * each target's events into their slots in the same key order
 * (spk_cuda_devpush.cu's sb_add_target). Those blocks do not wait for the
 * pass they are launched beside (programmatic launch): the adds run beside
 * the pass and the scatter instead of on every cell's chain in the pass
 * (the microcircuit's step on an H200: 22.5 -> 17.4 us). The first tail
 * that can find them due, the pass after next, waits for that kernel. Its
 * own sends write links while those blocks still read the step before's,
 * so link[] has a copy per parity; the last step of a chunk is added by
 * k_sb_add.
 *
 * With --order-free-sums (sb_atomic, weight_quantum.h) every sum is exact
 * and no order is needed: no lists at all, a step's events are added into
 * their slots by k_sb_atomic (spk_sb_add_event), beside the next step's
 * pass. */
#ifndef OLIVE_SPK_SB_H
#define OLIVE_SPK_SB_H
#include <stdint.h>
#include <string.h>
#include "spike_tail.cuh"
#include "spk_plastic.cuh"

/* What sending one step's events needs. */
struct spk_scatter_args {
    spk_sb_bucket b;
    uint32_t *later;             /* sb_add: the parity's heads of the lists the next scatter adds; or null: b.head */
    const int64_t *out_ptr;
    const spk_out *out;
    const uint16_t *delay;
    int64_t step, row0;
    int L;
    const spk_plastic_dev *pl;   /* plastic synapses (spk_plastic.cuh), or null */
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

/* Event e of a spike: its synapse read, its target's head exchanged, its
 * link written. */
static __device__ __forceinline__ void spk_sb_send_event(const spk_scatter_args &s, int64_t e)
{
    const spk_out o = spk_out_ldcs(&s.out[e]);
    spk_link l;
    l.next = atomicExch(&(s.later ? s.later : s.b.head)[o.target], (uint32_t)e);
    l.tag = (s.L == 1 ? 0 : (uint32_t)((s.step + s.delay[e]) % s.L)) << 1 | (uint32_t)(o.receptor != 0);
    l.w = s.pl ? spk_plastic_dev_event(*s.pl, e, s.step, s.delay[e], o.target, o.w) : o.w;
    s.b.link[e] = l;
}

/* sb_atomic (--order-free-sums, weight_quantum.h): event e straight into
 * its slot, with an atomic. Every sum of the ring is exact, so the order in
 * which the events of a slot arrive does not change a bit of it. touched:
 * null for a neg0 ring (the tails find a due cell by its sums): one random
 * store an event less. */
static __device__ __forceinline__ void spk_sb_add_event(const spk_scatter_args &s, double *acc, unsigned char *touched,
                                                        int64_t n, int64_t e)
{
    const spk_out o = spk_out_ldcs(&s.out[e]);
    const int64_t slot = s.L == 1 ? 0 : (s.step + s.delay[e]) % s.L;
    atomicAdd(&acc[(2 * slot + (o.receptor != 0)) * n + o.target], o.w);
    if (touched) touched[slot * n + o.target] = 1;
}

#endif
