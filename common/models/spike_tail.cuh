/* The per-cell tail of the CUDA spiking engine's device push path (C++):
 * a target's due events (the slot's sums, and with static buckets the
 * step's events from its list, spk_sb.h) and its --poisson inputs added into
 * its two receptor variables in the CPU engine's order. In a header of its
 * own, without olive-simulate's other types, because two programs compile
 * it: olive-simulate's kernels (spk_cuda.h) and a plugin model's GPU image
 * (plugin_kernels.cuh: the tail fused with the model's update, as
 * k_tail_update fuses it with lif.h's). A change of these structures is a
 * change of OLIVE_PLUGIN_GPU_ABI (plugin_gpu.h). */
#ifndef OLIVE_SPIKE_TAIL_CUH
#define OLIVE_SPIKE_TAIL_CUH
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <stdint.h>
#include <string.h>
#include "lif.h"
#include "poisson_input.h"
#include "poisson_spec.h"

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
            if (rec[j]) x1 += (double)hits * (rs1 ? *rs1 * p->weight : p->weight);
            else x0 += (double)hits * (rs0 ? *rs0 * p->weight : p->weight);
            events += (unsigned long long)hits;
        }
    }
    /* The count: one atomic a warp (an integer: exact in any order). An
     * atomic per cell on the one counter serialised: 42 us a step of the
     * microcircuit's 77k cells on an H200, more than the rest of the step. */
    cooperative_groups::coalesced_group w = cooperative_groups::coalesced_threads();
    const unsigned long long sum = cooperative_groups::reduce(w, events, cooperative_groups::plus<unsigned long long>());
    if (w.thread_rank() == 0 && sum) atomicAdd(count, sum);
}

/* Steps 3 and 4 of one cell on the device push path (spk_cuda_devpush.cu):
 * the due slot's sums so far (touched cells only), with static buckets the
 * step's events to the cell in (source, synapse) order (spk_sb.h), added one
 * by one into their slots, the due one in registers (the CPU engine's
 * order); the Poisson inputs in their order; the reset. */
struct spk_tail_args {
    int64_t n, row0, step, slot;
    int L;
    int due_held;                          /* the due slot may hold sums from earlier steps (else not read) */
    double *acc;
    unsigned char *touched;
    double *ge, *gi;
    const sim_poisson *poisson;
    const int *poisson_rec;
    int npoisson;
    uint64_t seed;
    unsigned long long *npoisson_events;
    const unsigned char *flags;
    const olive_lif_coef *coef;            /* null for cable cells and plugins (no reset here) */
    const double *rscale;                  /* a plugin's receptor factors (2 x n), or null */
    const int32_t *coef_of;
    double *v, *ref;
    unsigned int *nspk;                    /* the step's spike counter: cleared (by the kernel's thread 0) */
    spk_sb_bucket sb;                      /* static buckets: the step's parity; or sb.head null */
};

/* One event of a target's step into the due slot's sums s0, s1 or its slot. */
static __device__ __forceinline__ void spk_add_event(const spk_tail_args &a, int64_t r, const spk_sev &e, double &s0,
                                                     double &s1, int &any)
{
    const int64_t slot = (int64_t)(e.key >> 1 & 0xffff);
    const int rec = (int)(e.key & 1);
    if (slot == a.slot) {
        if (rec) s1 += e.w; else s0 += e.w;
        any = 1;
    } else {
        a.acc[(2 * slot + rec) * a.n + r] += e.w;
        a.touched[slot * a.n + r] = 1;
    }
}

/* Those inputs of cell r (h: the head of its list in the static buckets,
 * or SPK_END) into its receptor variables d0, d1 (ge, gi, or the alpha
 * drives), in registers. */
static __device__ __forceinline__ void spk_tail_inputs(const spk_tail_args &a, int64_t r, uint32_t h, double &d0,
                                                       double &d1)
{
    const int64_t due = a.slot;
    unsigned char *tdue = a.touched + due * a.n + r;
    const int held = a.due_held ? *tdue : 0;
    int any = held;
    double s0 = 0, s1 = 0;   /* receptor 0 is ge, 1 is gi (cellmodel.c) */
    if (held) {
        s0 = a.acc[(2 * due) * a.n + r];
        s1 = a.acc[(2 * due + 1) * a.n + r];
    }
    if (h != SPK_END) {   /* (static buckets only) */
        spk_sb_events(a.sb, r, h, [&](const spk_sev &e) { spk_add_event(a, r, e, s0, s1, any); });
        a.sb.head[r] = SPK_END;
    }
    if (any) {
        if (a.rscale) {   /* a plugin's receptor: its factor times the sum, as spk_deliver.c */
            d0 += a.rscale[r] * s0;
            d1 += a.rscale[a.n + r] * s1;
        } else {
            d0 += s0;
            d1 += s1;
        }
        if (held) {
            a.acc[(2 * due) * a.n + r] = 0;
            a.acc[(2 * due + 1) * a.n + r] = 0;
            *tdue = 0;
        }
    }
    spk_poisson_cell(a.poisson, a.poisson_rec, a.npoisson, a.seed, a.row0 + r, a.step, d0, d1, a.npoisson_events,
                     a.rscale ? a.rscale + r : nullptr, a.rscale ? a.rscale + a.n + r : nullptr);
}

#endif
