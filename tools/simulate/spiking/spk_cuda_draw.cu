/* Procedural projections drawn on the device at set-up (one GPU): every
 * rule's rows (p, indegree, total, outdegree) with the keyed draws
 * olive-genconn makes (conn_synapse.h, one source for both processors), so
 * the rows are the file's, bit for bit, without the host's seconds of
 * drawing; they stay on the device for the turn-around into per-source
 * lists (spk_cuda_turnaround.cu).
 *
 * A pair rule (indegree, total, outdegree) draws every pair as a key
 * (row << sbits | source offset) with its pair number, sorts the keys
 * (stable: an out-degree's equal keys stay in draw order) and so has each
 * row's sources ascending, the order conn_draw.c sorts them into; a value is
 * keyed by (target, place in the row), or (source, draw) for an out-degree.
 * A p rule draws a row a thread, twice (its length, then its sources), the
 * geometric gaps with olive's own log. */
#include <cub/cub.cuh>
#include <hdf5.h>
#include <mpi.h>   /* (C++ headers: before spk_cuda.h's extern "C") */
#include "conn_synapse.h"
#include "spk_cuda.h"
#include "spk_rules.cuh"
#include "spk_sort.cuh"

/* The device's rows of the projections it drew (spk.h's dev_drawn). */
struct spk_drawn {
    int n;
    spk_drawn_rows *p;
};

/* out: [0] least delay, [1] greatest, [2] a value that could not be drawn
 * (its synapse's place in the rows), each ~0 or 0 when none. A warp's
 * delays reduced first: one atomic a warp, not a synapse. */
static __device__ void note_delays(unsigned long long *out, unsigned lo, unsigned hi)
{
    const unsigned mask = __activemask();
    lo = __reduce_min_sync(mask, lo);
    hi = __reduce_max_sync(mask, hi);
    if ((int)(threadIdx.x & 31) == __ffs(mask) - 1 && lo != 0xffffffffu) {
        atomicMin(&out[0], (unsigned long long)lo);
        atomicMax(&out[1], (unsigned long long)hi);
    }
}

/* Synapse (b, draw)'s weight into w[i] and delay into dl[i] (either may be
 * null), as olive-genconn's draw_values draws them (olive_syn_wanted: one
 * Box-Muller pair when both are wanted and normal); a value that
 * could not be drawn zeroed and its place into out[2]. Returns the delay in
 * steps, -1 where it could not be drawn, -2 without dl. */
static __device__ int64_t draw_values_at(const spk_rule_dev &q, uint32_t b, uint32_t draw, int64_t i, double *w,
                                         uint16_t *dl, unsigned long long *out)
{
    double wx = 0.0, ms = 0.0;
    const int ok = olive_syn_wanted((dl ? 1 : 0) | (w ? 2 : 0), &q.d, &q.w, q.seed, q.key, b, draw, &ms, &wx);
    if (w) {
        w[i] = ok & 2 ? wx : 0.0;
        if (!(ok & 2)) atomicMin(&out[2], (unsigned long long)i);
    }
    if (!dl) return -2;
    const int64_t steps = ok & 1 ? olive_delay_steps(ms, q.dt, q.rdt, OLIVE_MAX_DELAY) : -1;
    dl[i] = (uint16_t)(steps < 0 ? 0 : steps);
    if (steps < 0) atomicMin(&out[2], (unsigned long long)i);
    return steps;
}

__global__ void k_draw_pairs(spk_rule_dev q, int64_t E, int64_t row0, int64_t n, int sbits, uint64_t *key, uint64_t *val,
                             uint32_t *cnt)
{
    const int64_t T = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < E; e += T) {
        int64_t j, src;
        if (q.kind == OLIVE_CONN_TOTAL) {
            olive_total_pair(q.seed, q.key, e, q.t0, q.t1, q.s0, q.s1, q.autapses, OLIVE_STREAM_SYN_PAIRS, &j, &src);
        } else if (q.kind == OLIVE_CONN_INDEGREE) {
            j = q.t0 + e / q.k;
            src = olive_indegree_source(q.seed, q.key, j, (uint32_t)(e % q.k), q.s0, q.s1, q.autapses, OLIVE_STREAM_SYN_PAIRS);
        } else {   /* outdegree */
            src = q.s0 + e / q.k;
            j = olive_outdegree_target(q.seed, q.key, src, (uint32_t)(e % q.k), q.t0, q.t1, q.autapses,
                                       OLIVE_STREAM_SYN_PAIRS);
        }
        val[e] = (uint64_t)e;
        if (j < row0 || j >= row0 + n) { key[e] = (uint64_t)n << sbits; continue; }   /* (another rank's: sorted last) */
        key[e] = (uint64_t)(j - row0) << sbits | (uint64_t)(src - q.s0);
        atomicAdd(&cnt[j - row0], 1u);
    }
}

/* The m kept pairs, sorted: their sources, weights and delays. */
__global__ void k_draw_values(spk_rule_dev q, int64_t m, int64_t row0, int sbits, const uint64_t *key, const uint64_t *val,
                              const int64_t *row_ptr, int32_t *col, double *w, uint16_t *dl, unsigned long long *out)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= m) return;
    const uint64_t kk = key[i];
    const int64_t r = (int64_t)(kk >> sbits), src = q.s0 + (int64_t)(kk & ((1ULL << sbits) - 1));
    col[i] = (int32_t)src;
    if (!w && !dl) return;
    const int out_deg = q.kind == OLIVE_CONN_OUTDEGREE;
    const uint32_t b = out_deg ? (uint32_t)src : (uint32_t)(row0 + r);
    const uint32_t at = out_deg ? (uint32_t)(val[i] % (uint64_t)q.k) : (uint32_t)(i - row_ptr[r]);
    const int64_t steps = draw_values_at(q, b, at, i, w, dl, out);
    if (dl) note_delays(out, steps < 0 ? 0xffffffffu : (unsigned)steps, steps < 0 ? 0u : (unsigned)steps);
}

/* Row j of a p rule: its length (col null), or its sources, weights and
 * delays from place row_ptr[r]: conn_draw.c's draw_row. */
__global__ void k_draw_p(spk_rule_dev q, double lq, int64_t a, int64_t b, int64_t row0, int64_t *len,
                         const int64_t *row_ptr, int32_t *col, double *w, uint16_t *dl, unsigned long long *out)
{
    const int64_t j = a + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (j >= b) return;
    const int64_t ns = q.s1 - q.s0, r = j - row0;
    int64_t pos = -1, c = 0, at = col ? row_ptr[r] : 0;
    unsigned lo = 0xffffffffu, hi = 0;
    for (uint32_t draw = 0;; draw++) {
        if (q.p >= 1) pos++;
        else {
            const double gap = olive_p_gap(q.seed, q.key, j, draw, lq, OLIVE_STREAM_SYN_PAIRS);
            if (gap >= (double)ns) break;
            pos += 1 + (int64_t)gap;
        }
        if (pos >= ns) break;
        if (!q.autapses && q.s0 + pos == j) continue;
        if (col) {
            col[at] = (int32_t)(q.s0 + pos);
            const int64_t steps = draw_values_at(q, (uint32_t)j, (uint32_t)c, at, w, dl, out);
            if (steps >= 0) { lo = (unsigned)steps < lo ? (unsigned)steps : lo; hi = (unsigned)steps > hi ? (unsigned)steps : hi; }
            at++;
        }
        c++;
    }
    if (!col) len[r] = c;
    else if (lo != 0xffffffffu) { atomicMin(&out[0], (unsigned long long)lo); atomicMax(&out[1], (unsigned long long)hi); }
}

/* One rule's rows [row0, row0 + n) into d (device arrays); out as note_delays'. */
static void draw_rule(const spk_rule_dev &q, int64_t row0, int64_t n, spk_drawn_rows *d, unsigned long long *out)
{
    d->row_ptr = dev_alloc<int64_t>((size_t)n + 1, "drawn rows");
    const int64_t a = q.t0 > row0 ? q.t0 : row0, b = q.t1 < row0 + n ? q.t1 : row0 + n;
    if (q.kind == OLIVE_CONN_P) {
        int64_t *len = dev_alloc<int64_t>((size_t)n + 1, "drawn rows");
        CK(cudaMemset(len, 0, ((size_t)n + 1) * sizeof(int64_t)));
        const double lq = olive_log1p_d(-q.p);
        if (b > a && q.p > 0) {
            k_draw_p<<<spk_blocks(b - a, 128), 128>>>(q, lq, a, b, row0, len, nullptr, nullptr, nullptr, nullptr, out);
            CK_LAUNCH("k_draw_p");
        }
        spk_exclusive_sum(len, d->row_ptr, n);
        CK(cudaMemcpy(&d->nnz, d->row_ptr + n, sizeof(int64_t), cudaMemcpyDeviceToHost));
        d->col = dev_alloc<int32_t>((size_t)d->nnz, "drawn rows");
        d->w = q.wvar ? dev_alloc<double>((size_t)d->nnz, "drawn rows") : nullptr;
        d->d = q.dvar ? dev_alloc<uint16_t>((size_t)d->nnz, "drawn rows") : nullptr;
        if (b > a && q.p > 0) {
            k_draw_p<<<spk_blocks(b - a, 128), 128>>>(q, lq, a, b, row0, len, d->row_ptr, d->col, d->w, d->d, out);
            CK_LAUNCH("k_draw_p");
        }
        CK(cudaFree(len));
        return;
    }
    /* pairs: total k, or k a target (indegree) or a source (outdegree) */
    const int64_t E = q.kind == OLIVE_CONN_TOTAL ? q.k : q.kind == OLIVE_CONN_INDEGREE ? q.k * (q.t1 - q.t0)
                                                                                     : q.k * (q.s1 - q.s0);
    int sbits = 1, rbits = 1;
    while (sbits < 32 && ((uint64_t)(q.s1 - q.s0) >> sbits)) sbits++;
    while (rbits < 32 && ((uint64_t)n >> rbits)) rbits++;
    uint64_t *key = dev_alloc<uint64_t>((size_t)E, "drawn rows"), *key2 = dev_alloc<uint64_t>((size_t)E, "drawn rows");
    uint64_t *val = dev_alloc<uint64_t>((size_t)E, "drawn rows"), *val2 = dev_alloc<uint64_t>((size_t)E, "drawn rows");
    uint32_t *cnt = dev_alloc<uint32_t>((size_t)n, "drawn rows");
    CK(cudaMemset(cnt, 0, (size_t)n * sizeof(uint32_t)));
    if (E > 0) {
        k_draw_pairs<<<4096, 256>>>(q, E, row0, n, sbits, key, val, cnt);
        CK_LAUNCH("k_draw_pairs");
    }
    spk_pointers_of_counts(cnt, d->row_ptr, n);
    CK(cudaMemcpy(&d->nnz, d->row_ptr + n, sizeof(int64_t), cudaMemcpyDeviceToHost));
    /* row bits, one more (another rank's pairs, row n, sort last), and source bits */
    const int end = sbits + rbits + 1;
    cub::DoubleBuffer<uint64_t> keys(key, key2), vals(val, val2);
    spk_sort_pairs(keys, vals, E, end);
    d->col = dev_alloc<int32_t>((size_t)d->nnz, "drawn rows");
    d->w = q.wvar ? dev_alloc<double>((size_t)d->nnz, "drawn rows") : nullptr;
    d->d = q.dvar ? dev_alloc<uint16_t>((size_t)d->nnz, "drawn rows") : nullptr;
    if (d->nnz > 0) {
        k_draw_values<<<spk_blocks(d->nnz, 256), 256>>>(q, d->nnz, row0, sbits, keys.Current(), vals.Current(), d->row_ptr,
                                                      d->col, d->w, d->d, out);
        CK_LAUNCH("k_draw_values");
    }
    void *f[] = {key, key2, val, val2, cnt};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) CK(cudaFree(f[i]));
}

void spk_draw_device(sim_t *s, olive_synapses *syn, const int *rec, int64_t *dmin, int64_t *dmax)
{
    struct sim_spk *k = s->spk;
    spk_select_device();
    const double t0 = olive_now();
    const int64_t n = s->plan.nlocal, row0 = s->plan.row0;
    spk_drawn *D = (spk_drawn *)olive_calloc(1, sizeof *D, "drawn rows");
    D->n = syn->n;
    D->p = (spk_drawn_rows *)olive_calloc((size_t)syn->n, sizeof(spk_drawn_rows), "drawn rows");
    unsigned long long *out = dev_alloc<unsigned long long>(3, "drawn rows"), init[3] = {~0ULL, 0, ~0ULL},
                       res[3] = {~0ULL, 0, ~0ULL};
    CK(cudaMemcpy(out, init, sizeof init, cudaMemcpyHostToDevice));
    int64_t lo = OLIVE_MAX_DELAY + 1, hi = 0, total = 0;
    for (int j = 0; j < syn->n; j++) {
        olive_projection *p = &syn->proj[j];
        spk_drawn_rows *d = &D->p[j];
        d->nnz = -1;
        if (!p->kept) continue;
        const spk_rule_dev q = spk_rule_dev_of(p->kept, rec[j]);
        draw_rule(q, row0, n, d, out);
        CK(cudaMemcpy(res, out, sizeof res, cudaMemcpyDeviceToHost));
        if (res[2] != ~0ULL)
            olive_die("%s: a synapse's weight or delay (synapse %llu of the rank's rows) fell outside its bounds in every "
                      "draw, or the delay beyond 65535 steps", p->kept->what, res[2]);
        /* the host's view: the rows' pointers (checks, the turn-around's places); no synapses */
        CK(cudaMemcpy(p->row_ptr, d->row_ptr, ((size_t)n + 1) * sizeof(int64_t), cudaMemcpyDeviceToHost));
        p->nnz = d->nnz;
        total += d->nnz;
        if (d->nnz > 0 && !q.dvar) {
            lo = q.dconst < lo ? q.dconst : lo;
            hi = q.dconst > hi ? q.dconst : hi;
        }
    }
    if (res[0] != ~0ULL) {   /* (the drawn delays of every rule) */
        lo = (int64_t)res[0] < lo ? (int64_t)res[0] : lo;
        hi = (int64_t)res[1] > hi ? (int64_t)res[1] : hi;
    }
    CK(cudaFree(out));
    *dmin = lo;
    *dmax = hi;
    k->dev.drawn = D;
    olive_info("rank %d: %lld synapses drawn on the device in %.3f s", s->rank, (long long)total, olive_now() - t0);
}

const spk_drawn_rows *spk_drawn_of(const sim_t *s, int j)
{
    const spk_drawn *D = (const spk_drawn *)s->spk->dev.drawn;
    return D && j < D->n && D->p[j].nnz >= 0 ? &D->p[j] : nullptr;
}

void spk_drawn_free(sim_t *s)
{
    spk_drawn *D = (spk_drawn *)s->spk->dev.drawn;
    if (!D) return;
    for (int j = 0; j < D->n; j++) {
        void *f[] = {D->p[j].row_ptr, D->p[j].col, D->p[j].w, D->p[j].d};
        for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) CK(cudaFree(f[i]));
    }
    free(D->p);
    free(D);
    s->spk->dev.drawn = nullptr;
}
