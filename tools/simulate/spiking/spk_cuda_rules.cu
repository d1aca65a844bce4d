/* Projections drawn at each spike (the technique GeNN calls procedural connectivity): an
 * outdegree rule's synapses (conn_rule.h) are never stored; a spike of
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
#include <cub/cub.cuh>
#include <hdf5.h>
#include <mpi.h>   /* (C++ headers: before spk_cuda.h's extern "C") */
#include "conn_synapse.h"
#include "mix64.h"
#include "spk_cuda.h"
#include "spk_rules.cuh"

struct spk_rules_cuda {
    int n;
    spk_rule_dev *host, *dev;
    unsigned long long *cnt, *h_cnt;   /* [0] events into the rank's cells, [1] a bad delay's event, [2] a bad weight's */
};

/* An event's number within its window: projection << 58 | source << 27 | draw. */
#define RULE_EVENT(j, g, d) ((uint64_t)(j) << 58 | (uint64_t)(g) << 27 | (uint64_t)(d))
#define RULE_DRAWS (1 << 27)

__global__ void k_rule_degrees(int64_t m, const int64_t *sp, const spk_rule_dev *r, int nr, int64_t *deg)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= m) return;
    const int64_t g = sp[i] & 0xffffffff;
    int64_t d = 0;
    for (int j = 0; j < nr; j++)
        if (g >= r[j].s0 && g < r[j].s1) d += r[j].k;
    deg[i] = d;
}

/* One block per spike: its events' keys (due slot x nt + target, or none)
 * and numbers, from off[i]. */
__global__ void k_rule_events(const int64_t *sp, const int64_t *off, int64_t window0, const spk_rule_dev *r, int nr,
                              int L, int64_t row0, int64_t n, int64_t nt, uint64_t *key, int64_t *val,
                              unsigned long long *cnt)
{
    __shared__ unsigned long long local;
    if (threadIdx.x == 0) local = 0;
    __syncthreads();
    const int64_t i = blockIdx.x;
    const int64_t g = sp[i] & 0xffffffff, step = window0 + (sp[i] >> 32);
    const uint64_t none = (uint64_t)L * (uint64_t)nt;
    int64_t base = off[i];
    unsigned long long mine = 0;
    for (int j = 0; j < nr; j++) {
        const spk_rule_dev &q = r[j];
        if (g < q.s0 || g >= q.s1) continue;
        for (int64_t d = threadIdx.x; d < q.k; d += blockDim.x) {
            const int64_t t = olive_outdegree_target(q.seed, q.key, g, (uint32_t)d, q.t0, q.t1, q.autapses,
                                                     OLIVE_STREAM_SYN_PAIRS);
            uint64_t kk = none;
            if (t >= row0 && t < row0 + n) {
                int64_t dl = q.dconst;
                double ms;
                if (q.dvar)
                    dl = olive_value_draw(&q.d, q.seed, q.key, (uint32_t)g, (uint32_t)d, OLIVE_STREAM_SYN_DELAY, &ms)
                             ? olive_delay_steps(ms, q.dt, L - 1) : -1;
                if (dl < 0) {
                    atomicMin(&cnt[1], (unsigned long long)RULE_EVENT(j, g, d));
                } else {
                    kk = (uint64_t)((step + dl) % L) * (uint64_t)nt + (uint64_t)(t - row0);
                    mine++;
                }
            }
            key[base + d] = kk;
            val[base + d] = (int64_t)RULE_EVENT(j, g, d);
        }
        base += q.k;
    }
    if (mine) atomicAdd(&local, mine);
    __syncthreads();
    if (threadIdx.x == 0 && local) atomicAdd(&cnt[0], local);
}

/* The first event of each (slot, target) run adds the run's weights in order. */
__global__ void k_rule_accumulate(int64_t E, const uint64_t *key, const int64_t *val, const spk_rule_dev *r, int64_t nt,
                                  uint64_t none, double *acc, unsigned char *touched, unsigned long long *cnt)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= E || key[i] == none || (i > 0 && key[i] == key[i - 1])) return;
    const uint64_t k = key[i];
    const int64_t slot = (int64_t)(k / (uint64_t)nt), t = (int64_t)(k % (uint64_t)nt);
    double *a0 = acc + (2 * slot) * nt + t, *a1 = acc + (2 * slot + 1) * nt + t;
    double s0 = *a0, s1 = *a1;
    for (int64_t e = i; e < E && key[e] == k; e++) {
        const uint64_t v = (uint64_t)val[e];
        const spk_rule_dev &q = r[v >> 58];
        double w = q.wconst;
        if (q.wvar && !olive_value_draw(&q.w, q.seed, q.key, (uint32_t)(v >> 27 & 0x7fffffff),
                                        (uint32_t)(v & (RULE_DRAWS - 1)), OLIVE_STREAM_SYN_WEIGHT, &w)) {
            atomicMin(&cnt[2], (unsigned long long)v);
            w = 0;
        }
        if (q.rec) s1 += w; else s0 += w;
    }
    *a0 = s0;
    *a1 = s1;
    touched[slot * nt + t] = 1;
}

/* The rules as the kernels read them (host copy). */
static spk_rule_dev *rules_dev_of(const struct sim_spk *k)
{
    spk_rule_dev *h = (spk_rule_dev *)olive_calloc((size_t)k->drawn.n, sizeof(spk_rule_dev), "rules");
    for (int j = 0; j < k->drawn.n; j++) h[j] = spk_rule_dev_of(&k->drawn.conn[j], k->drawn.rec[j]);
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
    R->cnt = dev_alloc<unsigned long long>(3, "rules");
    CK(cudaMallocHost((void **)&R->h_cnt, 3 * sizeof(unsigned long long)));
}

/* Every synapse of rule j into rows [row0, row0 + n), a grid-stride loop
 * over its sources' draws: out[0] count, [1] least delay, [2] greatest,
 * [3] the hash's sum (spk_restart.c's terms), [4] a bad draw's event. */
__global__ void k_rule_survey(const spk_rule_dev *r, int j, int64_t row0, int64_t n, unsigned long long *out)
{
    const spk_rule_dev &q = r[j];
    const int64_t total = (q.s1 - q.s0) * q.k;
    unsigned long long cnt = 0, hash = 0, lo = ~0ULL, hi = 0;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t g = q.s0 + e / q.k;
        const uint32_t d = (uint32_t)(e % q.k);
        const int64_t t = olive_outdegree_target(q.seed, q.key, g, d, q.t0, q.t1, q.autapses, OLIVE_STREAM_SYN_PAIRS);
        if (t < row0 || t >= row0 + n) continue;
        int64_t dl = q.dconst;
        double ms, w = q.wconst;
        if (q.dvar)
            dl = olive_value_draw(&q.d, q.seed, q.key, (uint32_t)g, d, OLIVE_STREAM_SYN_DELAY, &ms)
                     ? olive_delay_steps(ms, q.dt, OLIVE_MAX_DELAY) : -1;
        if (dl < 0 || (q.wvar && !olive_value_draw(&q.w, q.seed, q.key, (uint32_t)g, d, OLIVE_STREAM_SYN_WEIGHT, &w))) {
            atomicMin(&out[4], (unsigned long long)RULE_EVENT(j, g, d));
            continue;
        }
        cnt++;
        lo = (unsigned long long)dl < lo ? (unsigned long long)dl : lo;
        hi = (unsigned long long)dl > hi ? (unsigned long long)dl : hi;
        hash += olive_synapse_hash_term((uint64_t)g, (uint64_t)t, (uint64_t)q.rec, (uint64_t)dl,
                                        (uint64_t)__double_as_longlong(w));
    }
    if (cnt) {
        atomicAdd(&out[0], cnt);
        atomicMin(&out[1], lo);
        atomicMax(&out[2], hi);
        atomicAdd(&out[3], hash);   /* (a sum mod 2^64: any order) */
    }
}

/* Dies naming the synapse of event number v (a bad delay or weight). */
static void rule_fault(const sim_t *s, uint64_t v, const char *what)
{
    const olive_conn *c = &s->spk->drawn.conn[v >> 58];
    olive_die("%s: draw %llu of cell %llu: its %s", c->what, (unsigned long long)(v & (RULE_DRAWS - 1)),
              (unsigned long long)(v >> 27 & 0x7fffffff), what);
}

void spk_rules_survey(sim_t *s, int64_t *count, int64_t *dmin, int64_t *dmax, uint64_t *hash)
{
    spk_select_device();
    const struct sim_spk *k = s->spk;
    spk_rule_dev *h = rules_dev_of(k);
    spk_rule_dev *r = dev_copy(h, (size_t)k->drawn.n, "rules");
    unsigned long long *out = dev_alloc<unsigned long long>(5, "rules"), init[5] = {0, ~0ULL, 0, 0, ~0ULL}, res[5];
    CK(cudaMemcpy(out, init, sizeof init, cudaMemcpyHostToDevice));
    int dev = 0, sms = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    for (int j = 0; j < k->drawn.n; j++) {
        k_rule_survey<<<(unsigned)sms * 8, 256>>>(r, j, s->plan.row0, s->plan.nlocal, out);
        CK_LAUNCH("k_rule_survey");
    }
    CK(cudaMemcpy(res, out, sizeof res, cudaMemcpyDeviceToHost));
    if (res[4] != ~0ULL) rule_fault(s, res[4], "delay falls outside 0..65535 steps, or a value outside its bounds in every draw");
    *count = (int64_t)res[0];
    *dmin = res[0] ? (int64_t)res[1] : OLIVE_MAX_DELAY + 1;
    *dmax = (int64_t)res[2];
    *hash = res[3];
    CK(cudaFree(r));
    CK(cudaFree(out));
    free(h);
}

void spk_rules_window(sim_t *s, spk_cuda *g, const int64_t *all, int64_t m)
{
    struct sim_spk *k = s->spk;
    spk_rules_cuda *R = g->rules;
    const int64_t cap = INT64_C(1) << 26;   /* events a batch (32 bytes each, and the sort's scratch) */
    const uint64_t none = (uint64_t)k->L * (uint64_t)g->ring.nt;
    CK(cudaMemsetAsync(R->cnt, 0, sizeof(unsigned long long), g->st));
    CK(cudaMemsetAsync(R->cnt + 1, 0xff, 2 * sizeof(unsigned long long), g->st));
    for (int64_t i0 = 0; i0 < m;) {
        /* a batch: whole spikes, up to cap events (one spike at least) */
        int64_t i1 = i0, E = 0;
        while (i1 < m) {
            const int64_t c = all[i1] & 0xffffffff;
            int64_t d = 0;
            for (int j = 0; j < R->n; j++)
                if (c >= R->host[j].s0 && c < R->host[j].s1) d += R->host[j].k;
            if (i1 > i0 && E + d > cap) break;
            E += d;
            i1++;
        }
        const int64_t mb = i1 - i0;
        const int64_t *sp = g->win.sp + i0;
        i0 = i1;
        if (E == 0) continue;
        k_rule_degrees<<<spk_blocks(mb, 256), 256, 0, g->st>>>(mb, sp, R->dev, R->n, g->win.deg);
        CK_LAUNCH("k_rule_degrees");
        size_t bytes = 0;
        CK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, g->win.deg, g->win.off, mb, g->st));
        spk_ensure_tmp(g, bytes);
        CK(cub::DeviceScan::ExclusiveSum(g->win.tmp, bytes, g->win.deg, g->win.off, mb, g->st));
        spk_grow_window(g, 0, E);
        k_rule_events<<<(unsigned)mb, 256, 0, g->st>>>(sp, g->win.off, k->window0, R->dev, R->n, k->L, s->plan.row0, g->n,
                                                       g->ring.nt, g->win.key_in, g->win.val_in, R->cnt);
        CK_LAUNCH("k_rule_events");
        bytes = 0;
        CK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, g->win.key_in, g->win.key_out, g->win.val_in, g->win.val_out, E, 0,
                                           g->win.key_bits, g->st));
        spk_ensure_tmp(g, bytes);
        CK(cub::DeviceRadixSort::SortPairs(g->win.tmp, bytes, g->win.key_in, g->win.key_out, g->win.val_in, g->win.val_out, E, 0,
                                           g->win.key_bits, g->st));
        k_rule_accumulate<<<spk_blocks(E, 256), 256, 0, g->st>>>(E, g->win.key_out, g->win.val_out, R->dev, g->ring.nt, none, g->ring.acc,
                                                                 g->ring.touched, R->cnt);
        CK_LAUNCH("k_rule_accumulate");
    }
    CK(cudaMemcpyAsync(R->h_cnt, R->cnt, 3 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, g->st));
    CK(cudaStreamSynchronize(g->st));
    if (R->h_cnt[1] != ~0ULL) rule_fault(s, R->h_cnt[1], "delay falls outside 0..65535 steps or its bounds in every draw");
    if (R->h_cnt[2] != ~0ULL) rule_fault(s, R->h_cnt[2], "weight falls outside its bounds in every draw");
    k->events += (int64_t)R->h_cnt[0];
}

void spk_rules_free(spk_cuda *g)
{
    spk_rules_cuda *R = g->rules;
    if (!R) return;
    CK(cudaFree(R->dev));
    CK(cudaFree(R->cnt));
    CK(cudaFreeHost(R->h_cnt));
    free(R->host);
    free(R);
    g->rules = nullptr;
}
