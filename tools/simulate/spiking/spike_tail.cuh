/* The per-cell tail of the CUDA spiking engine's device push path (C++):
 * a target's due events (the slot's sums, and with static buckets the
 * step's events from its list, spk_sb.h) and its --poisson inputs added into
 * its two receptor variables in the CPU engine's order. In a header of its
 * own, without olive-simulate's other types, because two of the engine's
 * images compile it: olive-simulate's kernels (spk_cuda.h: the tail alone,
 * for cable cells and dynamic buckets) and the point models' kernels
 * (spk_plugin_kernels.cu, fused with a model's update when the model is
 * loaded). Never compiled into a model: a change here needs no model
 * rebuild. */
#ifndef OLIVE_SPIKE_TAIL_CUH
#define OLIVE_SPIKE_TAIL_CUH
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <stdint.h>
#include <string.h>
#include "lif.h"   /* (olive_binomial: the Poisson inputs) */
#include "poisson_input.h"
#include "poisson_spec.h"

/* Programmatic dependent launch (Hopper and later; spk_cuda.h's
 * spk_launch): a kernel of the step loop may be launched while the kernel
 * before it still runs, so that its launch overlaps that kernel's end;
 * spk_pdl_wait, first in the kernel, waits until that kernel is complete and
 * its writes are seen (without the launch attribute it returns at once).
 * spk_pdl_release lets the next kernel's launch begin. */
static __device__ __forceinline__ void spk_pdl_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

static __device__ __forceinline__ void spk_pdl_release()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* An event in registers: key = synapse << 17 | slot << 1 | receptor, and
 * its weight. */
typedef struct {
    uint64_t key;
    double w;
} spk_sev;
static const int SPK_SEV_SYN_SHIFT = 17;
static const int SPK_BATCH = 4;   /* events a tail adds together (spk_add_events) */
/* An empty slot of a neg0 ring holds -0.0 (spk_cuda.cu's ring_setup says why) */
#define SPK_NEG0 0x8000000000000000ULL
/* A neg0 ring's sum of bits b as the CPU engine's: -0.0 (no event) is +0.0,
 * what a sum starting at +0.0 holds (rounded weights are never -0.0) */
static __device__ __forceinline__ double spk_neg0_sum(unsigned long long b)
{
    return b == SPK_NEG0 ? 0.0 : __longlong_as_double((long long)b);
}
/* Events a tail orders in registers: 8, two batches. With the
 * microcircuit's ~1.25 events a target a step, one cell in a hundred gets
 * more than 4, and a quarter of the warps had such a cell: when 4 was the
 * limit it took the scratch path (its keys sorted in memory, its links read
 * again), and the warp, the pass, waited for it (Nsight Compute). More
 * than 8 is rare. */
static const int SPK_INREG = 8;

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
    uint32_t nreg;   /* events a tail takes in registers: SPK_INREG (OLIVE_GPU_SB_REGS=1..8: tests of a burst) */
};

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
 * order, to add(e, m): batches e[0..m) of up to SPK_BATCH, each after the
 * one before. Up to nreg of them (the usual case) are taken into registers
 * and ordered by a sorting network; a longer list is copied into r's
 * scratch, sorted there, and its links read again, a batch at a time. */
template <class Add>
static __device__ __forceinline__ void spk_sb_events(const spk_sb_bucket &b, int64_t r, uint32_t h, Add add)
{
    static_assert(SPK_INREG == 2 * SPK_BATCH && SPK_BATCH == 4, "the sorting network below orders 8 events");
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
        /* Batcher's odd-even merge sort of 8 (19 comparators): the two
         * halves sorted, then merged */
        spk_sev_order(e[0], e[1]);
        spk_sev_order(e[2], e[3]);
        spk_sev_order(e[0], e[2]);
        spk_sev_order(e[1], e[3]);
        spk_sev_order(e[1], e[2]);
        if (m > (uint32_t)SPK_BATCH) {
            spk_sev_order(e[4], e[5]);
            spk_sev_order(e[6], e[7]);
            spk_sev_order(e[4], e[6]);
            spk_sev_order(e[5], e[7]);
            spk_sev_order(e[5], e[6]);
            spk_sev_order(e[0], e[4]);
            spk_sev_order(e[2], e[6]);
            spk_sev_order(e[2], e[4]);
            spk_sev_order(e[1], e[5]);
            spk_sev_order(e[3], e[7]);
            spk_sev_order(e[3], e[5]);
            spk_sev_order(e[1], e[2]);
            spk_sev_order(e[3], e[4]);
            spk_sev_order(e[5], e[6]);
        }
        add(*reinterpret_cast<const spk_sev(*)[SPK_BATCH]>(&e[0]), m < (uint32_t)SPK_BATCH ? m : (uint32_t)SPK_BATCH);
        if (m > (uint32_t)SPK_BATCH)
            add(*reinterpret_cast<const spk_sev(*)[SPK_BATCH]>(&e[SPK_BATCH]), m - SPK_BATCH);
        return;
    }
    uint32_t *k = b.ovf + b.bptr[r];
#pragma unroll
    for (int j = 0; j < SPK_INREG; j++)
        if ((uint32_t)j < m) k[j] = (uint32_t)(e[j].key >> SPK_SEV_SYN_SHIFT);
    for (; x != SPK_END; x = b.link[x].next) k[m++] = x;
    spk_sort_keys(k, m);
    for (uint32_t j0 = 0; j0 < m; j0 += SPK_BATCH) {   /* a batch's links read together */
#pragma unroll
        for (int j = 0; j < SPK_BATCH; j++) {
            e[j].key = ~0ULL;
            e[j].w = 0;
            if (j0 + j < m) {
                const spk_link l = b.link[k[j0 + j]];
                e[j].key = (uint64_t)k[j0 + j] << SPK_SEV_SYN_SHIFT | l.tag;
                e[j].w = l.w;
            }
        }
        add(*reinterpret_cast<const spk_sev(*)[SPK_BATCH]>(&e[0]),
            m - j0 < (uint32_t)SPK_BATCH ? m - j0 : (uint32_t)SPK_BATCH);
    }
}

/* What `hits` events of an input of weight w add to a receptor variable
 * (rs: the cell's receptor factor, a plugin's, or null), as the CPU engine
 * adds them (spk_deliver.c): every CUDA path computes it here. */
static __device__ __forceinline__ double spk_poisson_amount(long long hits, double w, const double *rs)
{
    return (double)hits * (rs ? *rs * w : w);
}

/* A thread's events added to the counter: one atomic a warp (an integer:
 * exact in any order). An atomic per cell on the one counter serialised:
 * 42 us a step of the microcircuit's 77k cells on an H200, more than the
 * rest of the step. */
static __device__ __forceinline__ void spk_count_events(unsigned long long events, unsigned long long *count)
{
    cooperative_groups::coalesced_group w = cooperative_groups::coalesced_threads();
    const unsigned long long sum = cooperative_groups::reduce(w, events, cooperative_groups::plus<unsigned long long>());
    if (w.thread_rank() == 0 && sum) atomicAdd(count, sum);
}

/* Every --poisson input of cell g on step `step` into its receptor
 * variables x0 (ge) and x1 (gi), in input order, as the CPU engine
 * (spk_deliver.c): the one-rank paths' per-cell form. */
static __device__ __forceinline__ void spk_poisson_cell(const sim_poisson *in, const int *rec, int nin, uint64_t seed,
                                                        int64_t g, int64_t step, double &x0, double &x1,
                                                        unsigned long long *count, const double *rs0 = nullptr,
                                                        const double *rs1 = nullptr)
{
    unsigned long long events = 0;
    for (int j = 0; j < nin; j++) {
        const sim_poisson *p = &in[j];
        if (step < p->step0 || step >= p->step1 || g < p->first || g >= p->last) continue;
        const long long hits = olive_poisson_input_hits(seed, g, step, j, p->n, p->prob, p->p0);
        if (hits) {   /* (rs0, rs1: a plugin's receptor factors of the cell, spk_cuda_plugin.cu) */
            if (rec[j]) x1 += spk_poisson_amount(hits, p->weight, rs1);
            else x0 += spk_poisson_amount(hits, p->weight, rs0);
            events += (unsigned long long)hits;
        }
    }
    spk_count_events(events, count);
}

/* A chunk's --poisson inputs drawn ahead of its steps, all at once
 * (spk_cuda_devpush.cu's k_poisson_ahead, the same olive_poisson_input_hits
 * calls): per cell up to `per` inputs that cover it, cover[k * n + r] =
 * input << 1 | receptor (in input order, -1 after the last), and what each
 * adds on the tail's step, add[k * n + r]: hits x weight (x the cell's
 * receptor factor), as spk_poisson_cell computes it, or -0.0 for no hits
 * (x + -0.0 is x, bit for bit: the tail adds without a test). Drawn in the
 * tail (add null), Philox, the binomial's divisions and the scan of every
 * input for the cell's were a third of the microcircuit's tail pass, which
 * every cell waits through in turn. */
struct spk_poisson_ahead {
    const int16_t *cover;
    const double *add;
    int per;
};

/* Steps 3 and 4 of one cell on the device push path (spk_cuda_devpush.cu):
 * the due slot's sums so far (touched cells only), with static buckets the
 * step's events to the cell in (source, synapse) order (spk_sb.h), added one
 * by one into their slots, the due one in registers (the CPU engine's
 * order); the Poisson inputs in their order; the reset. */
struct spk_tail_args {
    int64_t n, row0, step, slot;
    int L;
    int due_held;                          /* the due slot may hold sums from earlier steps (else not read) */
    int sums_ahead;                        /* FREE: its sums read with its flag, needed or not (spk_cuda.h) */
    int neg0;                              /* the ring's empty slots hold -0.0 and no flag is kept (spk_ring_dev) */
    double *acc;
    unsigned char *touched;
    double *ge, *gi;
    const sim_poisson *poisson;
    const int *poisson_rec;
    int npoisson;
    uint64_t seed;
    unsigned long long *npoisson_events;
    const unsigned char *flags;
    const double *rscale;                  /* a point model's receptor factors (2 x n), or null (all 1) */
    const int32_t *coef_of;
    unsigned int *nspk;                    /* the step's spike counter: cleared (by the kernel's thread 0) */
    spk_sb_bucket sb;                      /* static buckets: the step's parity; or sb.head null */
    spk_poisson_ahead pa;                  /* the step's Poisson inputs drawn ahead (and counted), or pa.add null */
};

/* Cell r's Poisson inputs drawn ahead into d0, d1 in input order; the
 * first one's cover c0 and amount x0 read already (spk_tail_inputs: with
 * the cell's first loads). */
static __device__ __forceinline__ void spk_poisson_ahead_cell(const spk_tail_args &a, int64_t r, int c0, double x0,
                                                              double &d0, double &d1)
{
    if (c0 < 0) return;
    if (c0 & 1) d1 += x0; else d0 += x0;
    for (int k = 1; k < a.pa.per; k++) {
        const int c = a.pa.cover[k * a.n + r];
        if (c < 0) break;
        const double x = a.pa.add[k * a.n + r];
        if (c & 1) d1 += x; else d0 += x;
    }
}

/* A batch of a target's events, e[0..m) in key order, into the due slot's
 * sums s0, s1 or their slots' sums in acc, as adding them one by one in
 * that order: each distinct slot and receptor of the batch read once, all
 * the reads issued before the first addition, the additions in key order
 * in registers, each sum written once. One by one, each event's read
 * waited for the write before it (they may be the same sum): a memory
 * round trip an event, and a tail pass lasts as long as its longest list. */
static __device__ __forceinline__ void spk_add_events(const spk_tail_args &a, int64_t r, const spk_sev (&e)[SPK_BATCH],
                                                      uint32_t m, double &s0, double &s1, int &any)
{
    int64_t at[SPK_BATCH];   /* the event's sum in acc, or -1: the due slot's (or no event) */
    int first[SPK_BATCH], last[SPK_BATCH];   /* no event before / after it in the batch has its sum */
    double v[SPK_BATCH];     /* its sum after it */
#pragma unroll
    for (int j = 0; j < SPK_BATCH; j++) {
        at[j] = -1;
        if ((uint32_t)j < m) {
            const int64_t slot = (int64_t)(e[j].key >> 1 & 0xffff);
            if (slot != a.slot) at[j] = (2 * slot + (int64_t)(e[j].key & 1)) * a.n + r;
        }
    }
#pragma unroll
    for (int j = 0; j < SPK_BATCH; j++) {
        first[j] = last[j] = at[j] >= 0;
#pragma unroll
        for (int i = 0; i < SPK_BATCH; i++)
            if (i != j && at[i] == at[j]) {
                if (i < j) first[j] = 0; else last[j] = 0;
            }
        v[j] = first[j] ? a.acc[at[j]] : 0.0;   /* (the batch's reads together) */
    }
#pragma unroll
    for (int j = 0; j < SPK_BATCH; j++) {
        if ((uint32_t)j >= m) continue;
        if (at[j] < 0) {
            if (e[j].key & 1) s1 += e[j].w; else s0 += e[j].w;
            any = 1;
            continue;
        }
        double x = v[j];
#pragma unroll
        for (int i = 0; i < j; i++)
            if (at[i] == at[j]) x = v[i];   /* (the latest before it: its sum so far) */
        v[j] = x + e[j].w;
    }
#pragma unroll
    for (int j = 0; j < SPK_BATCH; j++)
        if (last[j]) {
            a.acc[at[j]] = v[j];
            a.touched[(int64_t)(e[j].key >> 1 & 0xffff) * a.n + r] = 1;
        }
}

/* Those inputs of cell r (h: the head of its list in the static buckets,
 * or SPK_END) into its receptor variables d0, d1 (ge, gi, or the alpha
 * drives), in registers. The receptor factors and the first Poisson input
 * drawn ahead are read first, beside the due slot's flag: after the
 * events' stores (which might alias them, for all the compiler knows)
 * they were two more memory round trips on every cell's chain (the
 * microcircuit's pass -0.4 us, loop -3 %, on an H200). FREE: the caller
 * knows there are no lists (--order-free-sums: h is SPK_END) and no draws
 * here (the Poisson inputs drawn ahead, or none), and their code is left
 * out of its kernel. */
template <bool FREE = false>
static __device__ __forceinline__ void spk_tail_inputs(const spk_tail_args &a, int64_t r, uint32_t h, double &d0,
                                                       double &d1)
{
    const int64_t due = a.slot;
    /* (FREE: the factors read where a sum is due, as it is added: read
     * first, for every cell, they made the microcircuit's FREE pass 20-40 %
     * slower on an H200) */
    const double rs0 = a.rscale && !FREE ? a.rscale[r] : 1.0, rs1 = a.rscale && !FREE ? a.rscale[a.n + r] : 1.0;
    /* (FREE: the first input's amount, the due flag and, with sums_ahead,
     * the due sums read with the cover, each whether it is used or not: all
     * in one memory round trip, where each waited for the one before) */
    const int pc0 = a.pa.add && a.pa.per > 0 ? a.pa.cover[r] : -1;
    const double px0 = FREE ? (a.pa.add && a.pa.per > 0 ? a.pa.add[r] : 0.0) : pc0 >= 0 ? a.pa.add[r] : 0.0;
    unsigned char *tdue = a.touched + due * a.n + r;
    /* neg0: the sums tell whether the cell is due (no flag: the events'
     * kernel writes none), so they are read with the cover, for every cell */
    const int ahead = a.due_held && (a.neg0 || (FREE && a.sums_ahead));
    const double f0 = ahead ? a.acc[(2 * due) * a.n + r] : 0.0;
    const double f1 = ahead ? a.acc[(2 * due + 1) * a.n + r] : 0.0;
    const unsigned long long b0 = (unsigned long long)__double_as_longlong(f0),
                             b1 = (unsigned long long)__double_as_longlong(f1);
    const int held = !a.due_held ? 0 : a.neg0 ? b0 != SPK_NEG0 || b1 != SPK_NEG0 : *tdue;
    int any = held;
    double s0 = 0, s1 = 0;   /* receptor 0 is ge, 1 is gi (cellmodel.c) */
    if (held) {
        s0 = ahead ? spk_neg0_sum(b0) : a.acc[(2 * due) * a.n + r];
        s1 = ahead ? spk_neg0_sum(b1) : a.acc[(2 * due + 1) * a.n + r];
    }
    if (!FREE && h != SPK_END) {   /* (static buckets only) */
        spk_sb_events(a.sb, r, h,
                      [&](const spk_sev (&e)[SPK_BATCH], uint32_t m) { spk_add_events(a, r, e, m, s0, s1, any); });
        a.sb.head[r] = SPK_END;
    }
    if (any) {
        if (a.rscale) {   /* a plugin's receptor: its factor times the sum, as spk_deliver.c */
            d0 += (FREE ? a.rscale[r] : rs0) * s0;
            d1 += (FREE ? a.rscale[a.n + r] : rs1) * s1;
        } else {
            d0 += s0;
            d1 += s1;
        }
        if (held) {
            a.acc[(2 * due) * a.n + r] = a.neg0 ? -0.0 : 0.0;
            a.acc[(2 * due + 1) * a.n + r] = a.neg0 ? -0.0 : 0.0;
            if (!a.neg0) *tdue = 0;
        }
    }
    if (FREE || a.pa.add)   /* (FREE: drawn ahead or none, pc0 -1) */
        spk_poisson_ahead_cell(a, r, pc0, px0, d0, d1);
    else
        spk_poisson_cell(a.poisson, a.poisson_rec, a.npoisson, a.seed, a.row0 + r, a.step, d0, d1, a.npoisson_events,
                         a.rscale ? a.rscale + r : nullptr, a.rscale ? a.rscale + a.n + r : nullptr);
}

/* The host push path's per-cell steps (spk_cuda.cu's k_deliver, k_poisson,
 * k_deliver_poisson, and the plugin pass that takes them in:
 * spk_plugin_kernels.cu's olive_plugin_update_due). */

/* Target r's due sums (the slot's, emptied): 1 and s0, s1 where it is due,
 * else 0 (k_deliver's test, by itself and in k_deliver_poisson). */
static __device__ __forceinline__ int spk_due_sums(int64_t nt, int64_t slot, int64_t r, double *acc, unsigned char *touched,
                                                   int neg0, double &s0, double &s1)
{
    double *a0 = acc + (2 * slot) * nt + r, *a1 = acc + (2 * slot + 1) * nt + r;
    unsigned char *t = touched + slot * nt + r;
    if (neg0) {
        const unsigned long long b0 = (unsigned long long)__double_as_longlong(*a0),
                                 b1 = (unsigned long long)__double_as_longlong(*a1);
        if (!*t && b0 == SPK_NEG0 && b1 == SPK_NEG0) return 0;
        s0 = spk_neg0_sum(b0);
        s1 = spk_neg0_sum(b1);
    } else {
        if (!*t) return 0;
        s0 = *a0;
        s1 = *a1;
    }
    *a0 = neg0 ? -0.0 : 0.0;
    *a1 = neg0 ? -0.0 : 0.0;
    *t = 0;
    return 1;
}

/* Cell r's covering inputs on `step` into v0, v1 in their order; the
 * events they bring. */
static __device__ __forceinline__ unsigned long long spk_poisson_cover_cell(int64_t n, int64_t r, int64_t g, uint64_t seed,
                                                                            int64_t step, const sim_poisson *in,
                                                                            const int16_t *cover, int per,
                                                                            const double *fac, const double *rs, double &v0,
                                                                            double &v1)
{
    unsigned long long events = 0;
    for (int q = 0; q < per; q++) {
        const int c = cover[(int64_t)q * n + r];
        if (c < 0) break;
        const int j = c >> 1;
        const sim_poisson *p = &in[j];
        if (step < p->step0 || step >= p->step1) continue;
        const long long hits = olive_poisson_input_hits_f(seed, g, step, j, p->n, p->prob, p->p0,
                                                          fac + (size_t)j * OLIVE_BINOMIAL_FACTORS);
        if (!hits) continue;
        if (c & 1) v1 += spk_poisson_amount(hits, p->weight, rs ? rs + n + r : nullptr);
        else v0 += spk_poisson_amount(hits, p->weight, rs ? rs + r : nullptr);
        events += (unsigned long long)hits;
    }
    return events;
}

#endif
