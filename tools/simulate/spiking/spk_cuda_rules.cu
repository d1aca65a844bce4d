/* Projections drawn at each spike (the technique GeNN calls procedural connectivity): an
 * outdegree or total_out rule's synapses (conn_rule.h) are never stored
 * (a total_out's source counts are, made here at set-up); a spike of
 * source g draws g's targets, delays and weights again from their keys
 * with the draws olive-genconn makes (conn_synapse.h: one source for the CPU
 * and the GPU), so a network whose synapses exceed the GPU's memory runs on
 * one GPU, and gives the stored network's spikes bit for bit.
 *
 * On the host push path (spk_cuda.cu): a window's spikes (sorted by step,
 * then cell) are numbered out as events, spike by spike, projection by
 * projection, draw by draw: the CPU engine's order at a target (spk.h: an
 * out-degree row is in (source, draw) order, conn_draw.c). A stable sort by
 * (due slot, target) keeps that order within a target's run, whose first
 * event adds the run's weights, each drawn again there. Events bound for
 * other ranks' cells get the key past every slot and sort last. A window
 * with more events than a batch holds goes in batches of whole spikes, in
 * order: a target's sum sees its events in the same order. */
#include <algorithm>
#include <cub/cub.cuh>
#include <hdf5.h>
#include <mpi.h>   /* (C++ headers: before spk_cuda.h's extern "C") */
#include "conn_synapse.h"
#include "mix64.h"
#include "spk_cuda.h"
#include "spk_rules.cuh"
#include "weight_quantum.h"

/* Rules grouped by their source range, for a spike to find its own: the
 * ranges (sorted, disjoint) and each one's rules in file order; where ranges
 * overlap, one group of every rule (each still checks its range). */
struct spk_rule_groups {
    int n;
    const int64_t *s0, *s1;
    const int *first, *order;    /* group q's rules: order[first[q] .. first[q + 1]) */
    const uint32_t *counts;      /* total_out rules' source counts (spk_rule_dev.cnt_off) */
};

/* An event's number within its window: rule << (gbits + dbits) | source << dbits | draw
 * (the widths from the rules and the cells: spk_rules_bits). */
struct spk_event_bits {
    int gbits, dbits;
};

struct spk_rules_cuda {
    int n;
    spk_rule_dev *host, *dev;
    spk_rule_groups hg, dg;      /* host and device copies */
    spk_event_bits bits;
    unsigned long long *cnt, *h_cnt;   /* [0] events into the rank's cells, [1] a bad delay's event, [2] a bad weight's */
    cudaEvent_t copied;                /* h_cnt's copy of a window done */
    int pending;                       /* h_cnt holds a window's counts not yet read (spk_rules_flush) */
};

static __host__ __device__ __forceinline__ uint64_t rule_event(const spk_event_bits &b, int j, int64_t g, int64_t d)
{
    return (uint64_t)j << (b.gbits + b.dbits) | (uint64_t)g << b.dbits | (uint64_t)d;
}
static __host__ __device__ __forceinline__ int event_rule(const spk_event_bits &b, uint64_t v)
{
    return (int)(v >> (b.gbits + b.dbits));
}
static __host__ __device__ __forceinline__ uint32_t event_source(const spk_event_bits &b, uint64_t v)
{
    return (uint32_t)(v >> b.dbits & ((1ULL << b.gbits) - 1));
}
static __host__ __device__ __forceinline__ uint32_t event_draw(const spk_event_bits &b, uint64_t v)
{
    return (uint32_t)(v & ((1ULL << b.dbits) - 1));
}

/* The group holding source g, or -1. */
static __host__ __device__ __forceinline__ int rule_group(const spk_rule_groups &G, int64_t g)
{
    int lo = 0, hi = G.n - 1, at = -1;
    while (lo <= hi) {
        const int mid = (lo + hi) / 2;
        if (G.s0[mid] <= g) { at = mid; lo = mid + 1; }
        else hi = mid - 1;
    }
    return at >= 0 && g < G.s1[at] ? at : -1;
}

/* The draws of source g in rule q: its out-degree, or its total_out count. */
static __host__ __device__ __forceinline__ int64_t rule_draws(const spk_rule_dev &q, const uint32_t *counts, int64_t g)
{
    if (g < q.s0 || g >= q.s1) return 0;
    return q.cnt_off < 0 ? q.k : (int64_t)counts[q.cnt_off + (g - q.s0)];
}

__global__ void k_rule_degrees(int64_t m, const int64_t *sp, const spk_rule_dev *r, spk_rule_groups G, int64_t *deg)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= m) return;
    const int64_t g = sp[i] & 0xffffffff;
    const int q = rule_group(G, g);
    int64_t d = 0;
    for (int x = q < 0 ? 0 : G.first[q]; q >= 0 && x < G.first[q + 1]; x++) d += rule_draws(r[G.order[x]], G.counts, g);
    deg[i] = d;
}

/* Event d of source g in rule j: its target t - row0 into *tt and its delay
 * in steps into *dl; 1 when it goes into the rank's cells, 0 when it does
 * not, -1 for a delay outside 0..L-1 (its event number into cnt[1]). With
 * w (not null) and both values drawn, the weight comes with the delay
 * (conn_synapse.h's olive_syn_values: one counter for both normals) into
 * *w, and *wok says whether it was drawn; *wok stays -1 otherwise. */
static __device__ __forceinline__ int rule_event_due(const spk_rule_dev &q, int j, int64_t g, int64_t d,
                                                     const spk_event_bits &bits, int L, int64_t row0, int64_t n,
                                                     int64_t *tt, int64_t *dl, unsigned long long *cnt,
                                                     double *w = nullptr, int *wok = nullptr)
{
    const int64_t t = olive_outdegree_target(q.seed, q.key, g, (uint32_t)d, q.t0, q.t1, q.autapses, OLIVE_STREAM_SYN_PAIRS);
    if (t < row0 || t >= row0 + n) return 0;
    *tt = t - row0;
    *dl = q.dconst;
    double ms;
    if (q.dvar) {
        const int both = w && q.wvar;
        const int ok = olive_syn_wanted(both ? 3 : 1, &q.d, &q.w, q.seed, q.key, (uint32_t)g, (uint32_t)d, &ms, w);
        if (both) *wok = ok >> 1;
        *dl = ok & 1 ? olive_delay_steps(ms, q.dt, q.rdt, L - 1) : -1;
    }
    if (*dl >= 0) return 1;
    atomicMin(&cnt[1], (unsigned long long)rule_event(bits, j, g, d));
    return -1;
}

/* Event d of source g in rule j: its key (due slot x nt + target, or none)
 * into *kk; 1 when it goes into the rank's cells. */
static __device__ __forceinline__ int rule_event_key(const spk_rule_dev &q, int j, int64_t g, int64_t d, int64_t step,
                                                     const spk_event_bits &bits, int L, int64_t row0, int64_t n, int64_t nt,
                                                     uint64_t *kk, unsigned long long *cnt)
{
    *kk = (uint64_t)L * (uint64_t)nt;
    int64_t t, dl;
    if (rule_event_due(q, j, g, d, bits, L, row0, n, &t, &dl, cnt) <= 0) return 0;
    *kk = (uint64_t)((step + dl) % L) * (uint64_t)nt + (uint64_t)t;
    return 1;
}

/* --order-free-sums: event d of source g in rule j, its weight drawn,
 * rounded to 2^-wq and added into its slot at once (atomics: the sums are
 * exact in any order, weight_quantum.h); 1 when it goes into the rank's
 * cells. The due slot is the spike's (sL = its step mod L) plus the delay,
 * wrapped once (a delay is at most L - 1 steps): no 64-bit division an
 * event. touched: null when the ring's empty slots hold -0.0 (k_deliver). */
static __device__ __forceinline__ int rule_event_add(const spk_rule_dev &q, int j, int64_t g, int64_t d, int64_t sL,
                                                     const spk_event_bits &bits, int L, int64_t row0, int64_t n, int64_t nt,
                                                     int wq, double *acc, unsigned char *touched, unsigned long long *cnt)
{
    int64_t t, dl;
    double w = q.wconst;
    int wok = -1;
    const int due = rule_event_due(q, j, g, d, bits, L, row0, n, &t, &dl, cnt, &w, &wok);
    if (due <= 0) return 0;
    if (q.wvar && wok < 0) wok = olive_syn_weight(&q.w, &q.d, q.seed, q.key, (uint32_t)g, (uint32_t)d, &w);
    if (q.wvar && !wok) {
        atomicMin(&cnt[2], (unsigned long long)rule_event(bits, j, g, d));
        return 1;   /* (a bad weight's event is the rank's, as the keyed form counts it) */
    }
    int64_t slot = sL + dl;
    if (slot >= L) slot -= L;
    atomicAdd(&acc[(2 * slot + q.rec) * nt + t], olive_weight_quantize(w, wq));
    if (touched) touched[slot * nt + t] = 1;
    return 1;
}

/* rule_event_add with first attempts only (olive_syn_wanted_first): the
 * same event added, 1, or 0 when it goes into other ranks' cells; -2, with
 * nothing added or counted, where a value needs a redraw or falls outside
 * its range (k_rule_events then adds it by rule_event_add in a pass of its
 * own, so a warp's lanes do not wait for one lane's redraws: ~3 % of the
 * multi-area model's delays are redrawn, and inline they cost the warps of
 * ~70 % of its events a second Philox, log, root and cosine). */
static __device__ __forceinline__ int rule_event_add_first(const spk_rule_dev &q, int64_t g, int64_t d, int64_t sL, int L,
                                                           int64_t row0, int64_t n, int64_t nt, int wq, double *acc,
                                                           unsigned char *touched)
{
    const int64_t t = olive_outdegree_target(q.seed, q.key, g, (uint32_t)d, q.t0, q.t1, q.autapses, OLIVE_STREAM_SYN_PAIRS);
    if (t < row0 || t >= row0 + n) return 0;
    double ms = 0, w = q.wconst;
    int64_t dl = q.dconst;
    const int want = (q.dvar ? 1 : 0) | (q.wvar ? 2 : 0);
    if (want && olive_syn_wanted_first(want, &q.d, &q.w, q.seed, q.key, (uint32_t)g, (uint32_t)d, &ms, &w) < 0) return -2;
    if (q.dvar && (dl = olive_delay_steps(ms, q.dt, q.rdt, L - 1)) < 0) return -2;
    int64_t slot = sL + dl;
    if (slot >= L) slot -= L;
    atomicAdd(&acc[(2 * slot + q.rec) * nt + (t - row0)], olive_weight_quantize(w, wq));
    if (touched) touched[slot * nt + (t - row0)] = 1;
    return 1;
}

/* A block's events deferred to its second pass (rule_event_add_first's -2)
 * at most; past it an event is added at once by rule_event_add. */
#define RULES_REDO 512

/* Event d of source g in rule j: its key and number at key[at], val[at], or
 * (FREE) its weight added at once; 1 when it goes into the rank's cells. */
template <int FREE>
static __device__ __forceinline__ int rule_event_emit(const spk_rule_dev &q, int j, int64_t g, int64_t d, int64_t step,
                                                      int64_t sL, const spk_event_bits &bits, int L, int64_t row0, int64_t n,
                                                      int64_t nt, unsigned long long *cnt, int wq, double *acc,
                                                      unsigned char *touched, uint64_t *key, int64_t *val, int64_t at)
{
    if (FREE) return rule_event_add(q, j, g, d, sL, bits, L, row0, n, nt, wq, acc, touched, cnt);
    uint64_t kk;
    const int in = rule_event_key(q, j, g, d, step, bits, L, row0, n, nt, &kk, cnt);
    key[at] = kk;
    val[at] = (int64_t)rule_event(bits, j, g, d);
    return in;
}

/* A block's rules at most, for the flat form of k_rule_events. */
#define RULES_FLAT 512

/* Runs of 32 events (a warp's at a time) whose first event's rule a block
 * keeps, for spikes of up to 32 x this many events. */
#define RULES_RUNS 1024

/* The rule x (of nr) whose draws hold a spike's event e: the greatest x with
 * pre[x] <= e (pre: the running sums of the rules' draws, in shared memory;
 * rules without draws passed over). run_rule (or null): the rule of each
 * run of 32 events' first event, from which e's rule is a step or two on: a
 * warp's 32 events lie in one or two rules of the multi-area model's ~40
 * draws, where a search over its ~150 rules took eight dependent reads. */
static __device__ __forceinline__ int rule_of_event(const int64_t *pre, const uint16_t *run_rule, int nr, int64_t e)
{
    if (run_rule) {
        int x = run_rule[e >> 5];
        while (pre[x + 1] <= e) x++;
        return x;
    }
    int lo = 0, hi = nr - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (pre[mid] <= e) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* One block per spike: its events' keys and numbers from off[i], rule by
 * rule in file order, draw by draw. The block's threads take the spike's
 * events together (a rule's place found in the rules' running sums, in
 * shared memory), not rule after rule: a source of the multi-area model
 * has ~150 rules of ~40 draws each. */
/* FREE (--order-free-sums): no keys; each event's weight, rounded to the
 * grid of 2^-wq, added into its slot at once (atomics: the sums are exact
 * in any order, weight_quantum.h). */
template <int FREE>
__global__ void __launch_bounds__(256, FREE ? 3 : 1) k_rule_events(const int64_t *sp, const int64_t *off, int64_t window0, const spk_rule_dev *r, spk_rule_groups G,
                              spk_event_bits bits, int L, int64_t row0, int64_t n, int64_t nt, uint64_t *key, int64_t *val,
                              unsigned long long *cnt, int wq, double *acc, unsigned char *touched)
{
    __shared__ unsigned long long local;
    __shared__ int64_t pre[RULES_FLAT + 1];
    __shared__ uint16_t runs[RULES_RUNS];
    __shared__ unsigned nredo;
    __shared__ uint32_t redo[FREE ? RULES_REDO : 1];
    if (threadIdx.x == 0) local = 0, nredo = 0;
    const int64_t i = blockIdx.x;
    const int64_t g = sp[i] & 0xffffffff, step = window0 + (sp[i] >> 32);
    const int64_t base = FREE ? 0 : off[i], sL = FREE ? step % L : 0;
    unsigned long long mine = 0;
    const int grp = rule_group(G, g);
    const int x0 = grp < 0 ? 0 : G.first[grp], nr = grp < 0 ? 0 : G.first[grp + 1] - x0;
    if (nr <= RULES_FLAT) {
        for (int x = threadIdx.x; x < nr; x += blockDim.x) pre[x + 1] = rule_draws(r[G.order[x0 + x]], G.counts, g);
        __syncthreads();
        if (threadIdx.x == 0) {
            pre[0] = 0;
            for (int x = 0; x < nr; x++) pre[x + 1] += pre[x];
        }
        __syncthreads();
        const int64_t total = pre[nr];
        const uint16_t *run_rule = total <= 32 * (int64_t)RULES_RUNS ? runs : nullptr;
        if (run_rule) {   /* each run's first event's rule: the rule whose draws hold event 32c */
            for (int x = threadIdx.x; x < nr; x += blockDim.x)
                for (int64_t c = (pre[x] + 31) >> 5; c << 5 < pre[x + 1]; c++) runs[c] = (uint16_t)x;
            __syncthreads();
        }
        for (int64_t e = threadIdx.x; e < total; e += blockDim.x) {
            const int lo = rule_of_event(pre, run_rule, nr, e);
            const int j = G.order[x0 + lo];
            if (FREE) {
                const int in = rule_event_add_first(r[j], g, e - pre[lo], sL, L, row0, n, nt, wq, acc, touched);
                if (in >= 0) { mine += (unsigned)in; continue; }
                if (total <= (int64_t)UINT32_MAX) {
                    const unsigned k = atomicAdd(&nredo, 1u);
                    if (k < RULES_REDO) { redo[k] = (uint32_t)e; continue; }
                }
            }
            mine += rule_event_emit<FREE>(r[j], j, g, e - pre[lo], step, sL, bits, L, row0, n, nt, cnt, wq, acc, touched,
                                          key, val, base + e);
        }
        if (FREE) {   /* the deferred events, the block's warps full of them */
            __syncthreads();
            const unsigned nr2 = nredo < RULES_REDO ? nredo : RULES_REDO;
            for (unsigned k = threadIdx.x; k < nr2; k += blockDim.x) {
                const int64_t e = redo[k];
                const int lo = rule_of_event(pre, run_rule, nr, e);
                const int j = G.order[x0 + lo];
                mine += rule_event_add(r[j], j, g, e - pre[lo], sL, bits, L, row0, n, nt, wq, acc, touched, cnt);
            }
        }
    } else {
        int64_t at = base;
        for (int x = x0; x < x0 + nr; x++) {
            const int j = G.order[x];
            const int64_t kg = rule_draws(r[j], G.counts, g);
            for (int64_t d = threadIdx.x; d < kg; d += blockDim.x)
                mine += rule_event_emit<FREE>(r[j], j, g, d, step, sL, bits, L, row0, n, nt, cnt, wq, acc, touched, key,
                                              val, at + d);
            at += kg;
        }
        __syncthreads();
    }
    for (int o = 16; o > 0; o >>= 1) mine += __shfl_down_sync(0xffffffffu, mine, o);   /* (one shared atomic a warp) */
    if ((threadIdx.x & 31) == 0 && mine) atomicAdd(&local, mine);
    __syncthreads();
    if (threadIdx.x == 0 && local) atomicAdd(&cnt[0], local);
}

/* The first event of each (slot, target) run adds the run's weights in order. */
__global__ void k_rule_accumulate(int64_t E, const uint64_t *key, const int64_t *val, const spk_rule_dev *r, spk_event_bits bits,
                                  int64_t nt, uint64_t none, double *acc, unsigned char *touched, unsigned long long *cnt)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= E || key[i] == none || (i > 0 && key[i] == key[i - 1])) return;
    const uint64_t k = key[i];
    const int64_t slot = (int64_t)(k / (uint64_t)nt), t = (int64_t)(k % (uint64_t)nt);
    double *a0 = acc + (2 * slot) * nt + t, *a1 = acc + (2 * slot + 1) * nt + t;
    double s0 = *a0, s1 = *a1;
    for (int64_t e = i; e < E && key[e] == k; e++) {
        const uint64_t v = (uint64_t)val[e];
        const spk_rule_dev &q = r[event_rule(bits, v)];
        double w = q.wconst;
        if (q.wvar && !olive_syn_weight(&q.w, &q.d, q.seed, q.key, event_source(bits, v), event_draw(bits, v), &w)) {
            atomicMin(&cnt[2], (unsigned long long)v);
            w = 0;
        }
        if (q.rec) s1 += w; else s0 += w;
    }
    *a0 = s0;
    *a1 = s1;
    touched[slot * nt + t] = 1;
}

/* total_out rule q's source counts into c (zeroed): the histogram of its k
 * keyed source draws (conn_draw.c's olive_conn_source_counts, the same integers). */
__global__ void k_source_counts(spk_rule_dev q, uint32_t *c)
{
    const int64_t ns = q.s1 - q.s0;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < q.k; e += (int64_t)gridDim.x * blockDim.x)
        atomicAdd(&c[olive_total_out_source(q.seed, q.key, e, ns, OLIVE_STREAM_SYN_SOURCES)], 1u);
}

/* The groups of rules h[0..n) (spk_rule_groups; host arrays, malloc'd). */
static spk_rule_groups groups_of(const spk_rule_dev *h, int n)
{
    int *order = (int *)olive_malloc((size_t)n * sizeof(int) + 1, "rules");
    for (int j = 0; j < n; j++) order[j] = j;
    std::stable_sort(order, order + n, [h](int a, int b) { return h[a].s0 != h[b].s0 ? h[a].s0 < h[b].s0 : h[a].s1 < h[b].s1; });
    int ng = 0, disjoint = 1;
    for (int x = 0; x < n; x++) {
        const spk_rule_dev &q = h[order[x]];
        if (x > 0 && q.s0 == h[order[x - 1]].s0 && q.s1 == h[order[x - 1]].s1) continue;
        if (x > 0 && q.s0 < h[order[x - 1]].s1) disjoint = 0;
        ng++;
    }
    int64_t *s0 = (int64_t *)olive_malloc((size_t)(ng + 1) * sizeof(int64_t), "rules");
    int64_t *s1 = (int64_t *)olive_malloc((size_t)(ng + 1) * sizeof(int64_t), "rules");
    int *first = (int *)olive_malloc((size_t)(ng + 2) * sizeof(int), "rules");
    if (!disjoint) {   /* one group, file order */
        ng = 1;
        s0[0] = INT64_MAX, s1[0] = 0;
        for (int j = 0; j < n; j++) {
            order[j] = j;
            s0[0] = h[j].s0 < s0[0] ? h[j].s0 : s0[0];
            s1[0] = h[j].s1 > s1[0] ? h[j].s1 : s1[0];
        }
        first[0] = 0, first[1] = n;
    } else {   /* (stable: a group's rules in file order) */
        int q = -1;
        for (int x = 0; x < n; x++) {
            const spk_rule_dev &r = h[order[x]];
            if (q < 0 || r.s0 != s0[q] || r.s1 != s1[q]) {
                q++;
                s0[q] = r.s0, s1[q] = r.s1, first[q] = x;
            }
        }
        first[ng] = n;
    }
    spk_rule_groups G = {ng, s0, s1, first, order, nullptr};
    return G;
}

static void groups_free(spk_rule_groups *G)
{
    free((void *)G->s0); free((void *)G->s1); free((void *)G->first); free((void *)G->order);
}

/* The event number's widths for these rules: every rule, cell and draw must fit. */
static spk_event_bits bits_of(const sim_t *s, const spk_rule_dev *h, int n)
{
    const struct sim_spk *k = s->spk;
    int jbits = 1, gbits = 1;
    int64_t cells = 0, draws = 0;
    for (int j = 0; j < n; j++) {
        cells = h[j].s1 > cells ? h[j].s1 : cells;
        if (h[j].cnt_off < 0) draws = h[j].k > draws ? h[j].k : draws;
    }
    for (int64_t i = 0; i < k->drawn.ncounts; i++) draws = (int64_t)k->drawn.counts[i] > draws ? k->drawn.counts[i] : draws;
    while (jbits < 31 && ((uint64_t)(n - 1) >> jbits)) jbits++;
    while (gbits < 32 && ((uint64_t)(cells - 1) >> gbits)) gbits++;
    spk_event_bits b = {gbits, 63 - jbits - gbits};
    if (b.dbits < 1 || (uint64_t)draws >> b.dbits)
        olive_die("%s: %d rules drawn at each spike, %lld cells, a source's %lld draws in one rule: more than an event's "
                  "64-bit number holds (fewer rules or draws, or stored synapses: OLIVE_GPU_SYNAPSES=stored)",
                  s->cfg->run.net_path, n, (long long)cells, (long long)draws);
    return b;
}

/* The rules as the kernels read them (host copy). */
static spk_rule_dev *rules_dev_of(const struct sim_spk *k)
{
    spk_rule_dev *h = (spk_rule_dev *)olive_calloc((size_t)k->drawn.n, sizeof(spk_rule_dev), "rules");
    for (int j = 0; j < k->drawn.n; j++) {
        h[j] = spk_rule_dev_of(&k->drawn.conn[j], k->drawn.rec[j]);
        if (k->drawn.cnt_off) h[j].cnt_off = k->drawn.cnt_off[j];
    }
    return h;
}

void spk_rules_setup(sim_t *s, spk_cuda *g)
{
    const struct sim_spk *k = s->spk;
    spk_rules_cuda *R = (spk_rules_cuda *)olive_calloc(1, sizeof *R, "rules");
    g->rules = R;
    R->n = k->drawn.n;
    R->host = rules_dev_of(k);
    R->dev = dev_copy(R->host, (size_t)R->n, "rules");
    R->hg = groups_of(R->host, R->n);
    R->hg.counts = k->drawn.counts;
    R->bits = bits_of(s, R->host, R->n);
    R->dg.n = R->hg.n;
    R->dg.s0 = dev_copy(R->hg.s0, (size_t)R->hg.n, "rules");
    R->dg.s1 = dev_copy(R->hg.s1, (size_t)R->hg.n, "rules");
    R->dg.first = dev_copy(R->hg.first, (size_t)R->hg.n + 1, "rules");
    R->dg.order = dev_copy(R->hg.order, (size_t)R->n, "rules");
    R->dg.counts = k->drawn.ncounts ? dev_copy(k->drawn.counts, (size_t)k->drawn.ncounts, "source counts") : nullptr;
    R->cnt = dev_alloc<unsigned long long>(3, "rules");
    CK(cudaMallocHost((void **)&R->h_cnt, 3 * sizeof(unsigned long long)));
    CK(cudaEventCreateWithFlags(&R->copied, cudaEventDisableTiming));
}

/* Every synapse of rule j into rows [row0, row0 + n), a grid-stride loop
 * over its sources' draws (an out-degree's flattened; a total_out's source
 * by source): out[0] count, [1] least delay, [2] greatest, [3] the hash's
 * sum (spk_restart.c's terms), [4] a bad draw's event. */
__global__ void k_rule_survey(const spk_rule_dev *r, int j, const uint32_t *counts, spk_event_bits bits, int64_t row0,
                              int64_t n, unsigned long long *out, uint32_t *indeg)
{
    const spk_rule_dev &q = r[j];
    const int out_deg = q.cnt_off < 0;
    const int64_t units = out_deg ? (q.s1 - q.s0) * q.k : q.s1 - q.s0;
    unsigned long long cnt = 0, hash = 0, lo = ~0ULL, hi = 0, wbits = 0;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < units; e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t g = q.s0 + (out_deg ? e / q.k : e);
        const int64_t d0 = out_deg ? e % q.k : 0, d1 = out_deg ? d0 + 1 : (int64_t)counts[q.cnt_off + e];
        for (int64_t dd = d0; dd < d1; dd++) {
            const uint32_t d = (uint32_t)dd;
            const int64_t t = olive_outdegree_target(q.seed, q.key, g, d, q.t0, q.t1, q.autapses, OLIVE_STREAM_SYN_PAIRS);
            if (t < row0 || t >= row0 + n) continue;
            int64_t dl = q.dconst;
            double ms = 0.0, w = q.wconst;
            const int want = (q.dvar ? 1 : 0) | (q.wvar ? 2 : 0);   /* (the constant ones count as drawn) */
            const int ok = olive_syn_wanted(want, &q.d, &q.w, q.seed, q.key, (uint32_t)g, d, &ms, &w) | (3 & ~want);
            if (q.dvar) dl = ok & 1 ? olive_delay_steps(ms, q.dt, q.rdt, OLIVE_MAX_DELAY) : -1;
            if (dl < 0 || !(ok & 2)) {
                atomicMin(&out[4], (unsigned long long)rule_event(bits, j, g, d));
                continue;
            }
            cnt++;
            if (indeg) {   /* --order-free-sums: its grid's maxima, [5] the largest |weight|'s bits (one atomic a thread) */
                atomicAdd(&indeg[t - row0], 1u);
                const unsigned long long b = (unsigned long long)__double_as_longlong(fabs(w));
                wbits = b > wbits ? b : wbits;
            }
            lo = (unsigned long long)dl < lo ? (unsigned long long)dl : lo;
            hi = (unsigned long long)dl > hi ? (unsigned long long)dl : hi;
            hash += olive_synapse_hash_term((uint64_t)g, (uint64_t)t, (uint64_t)q.rec, (uint64_t)dl,
                                            (uint64_t)__double_as_longlong(w));
        }
    }
    if (cnt) {
        atomicAdd(&out[0], cnt);
        atomicMin(&out[1], lo);
        atomicMax(&out[2], hi);
        atomicAdd(&out[3], hash);   /* (a sum mod 2^64: any order) */
        if (wbits) atomicMax(&out[5], wbits);
    }
}

/* Dies naming the synapse of event number v (a bad delay or weight). */
static void rule_fault(const sim_t *s, const spk_event_bits &b, uint64_t v, const char *what)
{
    const olive_conn *c = &s->spk->drawn.conn[event_rule(b, v)];
    olive_die("%s: draw %llu of cell %llu: its %s", c->what, (unsigned long long)event_draw(b, v),
              (unsigned long long)event_source(b, v), what);
}

/* The total_out rules' source counts (k->drawn.counts, cnt_off), made on
 * the device as conn_draw.c makes them on the host. */
static void source_counts(sim_t *s, int sms)
{
    struct sim_spk *k = s->spk;
    k->drawn.cnt_off = (int64_t *)olive_malloc((size_t)k->drawn.n * sizeof(int64_t), "rules");
    int64_t total = 0;
    for (int j = 0; j < k->drawn.n; j++) {
        const olive_conn *c = &k->drawn.conn[j];
        k->drawn.cnt_off[j] = c->kind == OLIVE_CONN_TOTAL_OUT ? total : -1;
        if (c->kind == OLIVE_CONN_TOTAL_OUT) total += c->s1 - c->s0;
    }
    k->drawn.ncounts = total;
    if (!total) return;
    uint32_t *d = dev_alloc<uint32_t>((size_t)total, "source counts");
    CK(cudaMemset(d, 0, (size_t)total * sizeof(uint32_t)));
    for (int j = 0; j < k->drawn.n; j++) {
        if (k->drawn.cnt_off[j] < 0) continue;
        spk_rule_dev q = spk_rule_dev_of(&k->drawn.conn[j], 0);
        if (q.k > (int64_t)UINT32_MAX) olive_die("%s: more than 2^32 synapses in a rule drawn at each spike", k->drawn.conn[j].what);
        k_source_counts<<<(unsigned)sms * 8, 256>>>(q, d + k->drawn.cnt_off[j]);
        CK_LAUNCH("k_source_counts");
    }
    k->drawn.counts = (uint32_t *)olive_malloc_huge((size_t)total * sizeof(uint32_t), "source counts");
    CK(cudaMemcpy(k->drawn.counts, d, (size_t)total * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    CK(cudaFree(d));
}

static double double_of_bits(unsigned long long b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

void spk_rules_survey(sim_t *s, int64_t *count, int64_t *dmin, int64_t *dmax, uint64_t *hash)
{
    spk_select_device();
    struct sim_spk *k = s->spk;
    int dev = 0, sms = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    source_counts(s, sms);
    spk_rule_dev *h = rules_dev_of(k);
    const spk_event_bits bits = bits_of(s, h, k->drawn.n);
    spk_rule_dev *r = dev_copy(h, (size_t)k->drawn.n, "rules");
    uint32_t *counts = k->drawn.ncounts ? dev_copy(k->drawn.counts, (size_t)k->drawn.ncounts, "source counts") : nullptr;
    unsigned long long *out = dev_alloc<unsigned long long>(6, "rules"), init[6] = {0, ~0ULL, 0, 0, ~0ULL, 0}, res[6];
    CK(cudaMemcpy(out, init, sizeof init, cudaMemcpyHostToDevice));
    const int64_t n = s->plan.nlocal;
    uint32_t *indeg = k->wq.order_free ? dev_alloc<uint32_t>((size_t)n + 1, "in-degrees") : nullptr;
    if (indeg) CK(cudaMemset(indeg, 0, ((size_t)n + 1) * sizeof(uint32_t)));
    for (int j = 0; j < k->drawn.n; j++) {
        k_rule_survey<<<(unsigned)sms * 8, 256>>>(r, j, counts, bits, s->plan.row0, n, out, indeg);
        CK_LAUNCH("k_rule_survey");
    }
    CK(cudaMemcpy(res, out, sizeof res, cudaMemcpyDeviceToHost));
    if (indeg) {   /* the largest in-degree, on the host (n counts) */
        uint32_t *h_deg = (uint32_t *)olive_malloc(((size_t)n + 1) * sizeof(uint32_t), "in-degrees");
        CK(cudaMemcpy(h_deg, indeg, (size_t)n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        int64_t dmax = 0;
        for (int64_t i = 0; i < n; i++) dmax = h_deg[i] > dmax ? h_deg[i] : dmax;
        free(h_deg);
        CK(cudaFree(indeg));
        k->drawn.indeg_max = dmax;
        k->drawn.wmax = res[0] ? fabs(double_of_bits(res[5])) : 0;
    }
    if (res[4] != ~0ULL)
        rule_fault(s, bits, res[4], "delay falls outside 0..65535 steps, or a value outside its bounds in every draw");
    *count = (int64_t)res[0];
    *dmin = res[0] ? (int64_t)res[1] : OLIVE_MAX_DELAY + 1;
    *dmax = (int64_t)res[2];
    *hash = res[3];
    CK(cudaFree(r));
    CK(cudaFree(out));
    if (counts) CK(cudaFree(counts));
    free(h);
}

/* The last window's counts: its events, a draw that failed. Read a window
 * late (at the next window, or when the host reads the cells), so that the
 * host does not wait for the events' kernel each step but queues the next
 * step's kernels behind it: a bad draw stops the run one window later,
 * with the same message. */
void spk_rules_flush(sim_t *s, spk_cuda *g)
{
    spk_rules_cuda *R = g->rules;
    if (!R || !R->pending) return;
    CK(cudaEventSynchronize(R->copied));
    R->pending = 0;
    if (R->h_cnt[1] != ~0ULL) rule_fault(s, R->bits, R->h_cnt[1], "delay falls outside 0..65535 steps or its bounds in every draw");
    if (R->h_cnt[2] != ~0ULL) rule_fault(s, R->bits, R->h_cnt[2], "weight falls outside its bounds in every draw");
    s->spk->events += (int64_t)R->h_cnt[0];
}

void spk_rules_window(sim_t *s, spk_cuda *g, const int64_t *all, int64_t m)
{
    struct sim_spk *k = s->spk;
    spk_rules_cuda *R = g->rules;
    spk_rules_flush(s, g);   /* (before h_cnt is written again) */
    const int64_t cap = INT64_C(1) << 26;   /* events a batch (32 bytes each, and the sort's scratch) */
    const uint64_t none = (uint64_t)k->L * (uint64_t)g->ring.nt;
    CK(cudaMemsetAsync(R->cnt, 0, sizeof(unsigned long long), g->st));
    CK(cudaMemsetAsync(R->cnt + 1, 0xff, 2 * sizeof(unsigned long long), g->st));
    if (k->wq.order_free && m > 0) {   /* no order to keep: every event added where it is drawn */
        k_rule_events<1><<<(unsigned)m, 256, 0, g->st>>>(g->win.sp, nullptr, k->window0, R->dev, R->dg, R->bits, k->L,
                                                         s->plan.row0, g->n, g->ring.nt, nullptr, nullptr, R->cnt, k->wq.bits,
                                                         g->ring.acc, g->ring.neg0 ? nullptr : g->ring.touched);
        CK_LAUNCH("k_rule_events (order-free)");
        m = 0;   /* (the batches below: none) */
    }
    for (int64_t i0 = 0; i0 < m;) {
        /* a batch: whole spikes, up to cap events (one spike at least) */
        int64_t i1 = i0, E = 0;
        while (i1 < m) {
            const int64_t c = all[i1] & 0xffffffff;
            const int q = rule_group(R->hg, c);
            int64_t d = 0;
            for (int x = q < 0 ? 0 : R->hg.first[q]; q >= 0 && x < R->hg.first[q + 1]; x++)
                d += rule_draws(R->host[R->hg.order[x]], R->hg.counts, c);
            if (i1 > i0 && E + d > cap) break;
            E += d;
            i1++;
        }
        const int64_t mb = i1 - i0;
        const int64_t *sp = g->win.sp + i0;
        i0 = i1;
        if (E == 0) continue;
        k_rule_degrees<<<spk_blocks(mb, 256), 256, 0, g->st>>>(mb, sp, R->dev, R->dg, g->win.deg);
        CK_LAUNCH("k_rule_degrees");
        size_t bytes = 0;
        CK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, g->win.deg, g->win.off, mb, g->st));
        spk_ensure_tmp(g, bytes);
        CK(cub::DeviceScan::ExclusiveSum(g->win.tmp, bytes, g->win.deg, g->win.off, mb, g->st));
        spk_grow_window(g, 0, E);
        k_rule_events<0><<<(unsigned)mb, 256, 0, g->st>>>(sp, g->win.off, k->window0, R->dev, R->dg, R->bits, k->L, s->plan.row0,
                                                          g->n, g->ring.nt, g->win.key_in, g->win.val_in, R->cnt, 0, nullptr,
                                                          nullptr);
        CK_LAUNCH("k_rule_events");
        bytes = 0;
        CK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, g->win.key_in, g->win.key_out, g->win.val_in, g->win.val_out, E, 0,
                                           g->win.key_bits, g->st));
        spk_ensure_tmp(g, bytes);
        CK(cub::DeviceRadixSort::SortPairs(g->win.tmp, bytes, g->win.key_in, g->win.key_out, g->win.val_in, g->win.val_out, E, 0,
                                           g->win.key_bits, g->st));
        k_rule_accumulate<<<spk_blocks(E, 256), 256, 0, g->st>>>(E, g->win.key_out, g->win.val_out, R->dev, R->bits, g->ring.nt, none, g->ring.acc,
                                                                 g->ring.touched, R->cnt);
        CK_LAUNCH("k_rule_accumulate");
    }
    CK(cudaMemcpyAsync(R->h_cnt, R->cnt, 3 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, g->st));
    CK(cudaEventRecord(R->copied, g->st));
    R->pending = 1;
}

void spk_rules_free(spk_cuda *g)
{
    spk_rules_cuda *R = g->rules;
    if (!R) return;
    CK(cudaFree(R->dev));
    CK(cudaFree(R->cnt));
    CK(cudaFreeHost(R->h_cnt));
    CK(cudaEventDestroy(R->copied));
    void *f[] = {(void *)R->dg.s0, (void *)R->dg.s1, (void *)R->dg.first, (void *)R->dg.order, (void *)R->dg.counts};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i]) CK(cudaFree(f[i]));
    groups_free(&R->hg);
    free(R->host);
    free(R);
    g->rules = nullptr;
}
