/* The per-row generators of olive-genconn, one source for the CPU (gen_uniform.c,
 * gen_gaussian.c, compiled by gcc as C11) and the GPU (gen_cuda.cu, nvcc):
 * every function here is OLIVE_HD inline and uses only integer arithmetic,
 * Philox (common/math/rng.h), +,-,*,/ and floor, and the olive log
 * (common/math/fastlog.h), never a libm call whose last bit could differ between
 * glibc and CUDA. Built with -ffp-contract=off and nvcc -fmad=false, a row
 * comes out bit-identical on both. The drivers only decide who runs which
 * rows and where the ids go. */
#ifndef OLIVE_GEN_ROWS_H
#define OLIVE_GEN_ROWS_H
#include <stdint.h>
#include <math.h>
#include "hostdev.h"
#include "rng.h"
#include "fastlog.h"

/* Uniform integer in [0, n) from 64 random bits: the high word of bits * n
 * (no modulo; the bias is below 2^-32 for n < 2^32). */
OLIVE_HD uint64_t gc_below(uint64_t bits, uint64_t n)
{
#ifdef __CUDA_ARCH__
    return __umul64hi(bits, n);
#else
    return (uint64_t)(((unsigned __int128)bits * n) >> 64);
#endif
}

/* Cell i's candidates are the N-1 other cells, numbered m = 0..N-2 with
 * cell(m) = m < i ? m : m + 1, which keeps them ascending. */
OLIVE_HD int32_t gc_cand_cell(int64_t m, int64_t i) { return (int32_t)(m < i ? m : m + 1); }

/* ---- uniform, binomial degrees: Bernoulli(p) over the M candidates by
 * geometric skipping. Gap g (the number of candidates skipped before the next
 * partner) is floor(log(u_g) / log1p(-p)); u_g is uniform g%2 of Philox
 * counter (i, g/2, DEGREE). The partners are the positions
 * pos_g = pos_{g-1} + gap_g + 1 (pos_-1 = -1) below M: ascending, O(degree)
 * per row. lq = olive_log1p_d(-p), computed once; p = 0 gives no partners and
 * p = 1 (lq = -inf) every candidate. A gap of M or more ends the row whatever
 * the position, so gaps are clamped to M (exact: the comparison is made on
 * integers below 2^31 either way). */
OLIVE_HD int64_t gc_bern_gap(double u, double lq, int64_t M)
{
    if (lq == 0) return M;
    double gap = floor(olive_log_d(u) / lq);
    return gap >= (double)M ? M : (int64_t)gap;
}

/* The two gaps of counter c of row i. */
OLIVE_HD void gc_bern_gaps(uint64_t seed, int64_t i, uint32_t c, double lq, int64_t M, int64_t *g0, int64_t *g1)
{
    double u0, u1;
    olive_uniform2(seed, (uint32_t)i, (uint32_t)((uint64_t)i >> 32), c, OLIVE_STREAM_DEGREE, &u0, &u1);
    *g0 = gc_bern_gap(u0, lq, M);
    *g1 = gc_bern_gap(u1, lq, M);
}

/* ---- a set of candidate numbers in a caller's table of 2^lg uint32 slots
 * (open addressing, linear probing, Fibonacci hashing, at most half full);
 * keys are < 2^31 so UINT32_MAX marks an empty slot. */
#define GC_HS_EMPTY 0xffffffffu

/* log2 of the table size for up to max_items keys (at least 16 slots). */
OLIVE_HD int gc_hs_lg(int64_t max_items)
{
    int lg = 4;
    while ((INT64_C(1) << lg) < 2 * max_items) lg++;
    return lg;
}

OLIVE_HD void gc_hs_clear(uint32_t *slot, int lg)
{
    for (int64_t h = 0; h < (INT64_C(1) << lg); h++) slot[h] = GC_HS_EMPTY;
}

/* 1 when key was new (and is now in the set), 0 when it was there. */
OLIVE_HD int gc_hs_insert(uint32_t *slot, int lg, uint32_t key)
{
    uint32_t mask = (uint32_t)((INT64_C(1) << lg) - 1);
    for (uint32_t h = (uint32_t)(key * 2654435769u) >> (32 - lg);; h = (h + 1) & mask) {
        uint32_t v = slot[h];
        if (v == key) return 0;
        if (v == GC_HS_EMPTY) { slot[h] = key; return 1; }
    }
}

OLIVE_HD int gc_hs_contains(const uint32_t *slot, int lg, uint32_t key)
{
    uint32_t mask = (uint32_t)((INT64_C(1) << lg) - 1);
    for (uint32_t h = (uint32_t)(key * 2654435769u) >> (32 - lg);; h = (h + 1) & mask) {
        uint32_t v = slot[h];
        if (v == key) return 1;
        if (v == GC_HS_EMPTY) return 0;
    }
}

/* ---- uniform --fixed-degree: exactly K of the M candidates by Floyd's
 * algorithm (for j = M-K..M-1: t uniform in [0, j]; take t if new, else j),
 * t of step d from Philox counter (i, d, PARTNER). When K > M/2 the M-K
 * excluded candidates are drawn instead and the row is every other
 * candidate, so the set stays small and the row costs O(M) = O(K).
 * The set lives in slot (2^lg >= 2 min(K, M-K) entries, see gc_fixed_lg).
 * Writes the K cells into row and returns 1 when they are in draw order (the
 * caller sorts them), 0 when they are already ascending (complement). */
OLIVE_HD int64_t gc_fixed_pick(int64_t M, int64_t K) { return K > M / 2 ? M - K : K; }
OLIVE_HD int gc_fixed_lg(int64_t M, int64_t K) { return gc_hs_lg(gc_fixed_pick(M, K)); }

OLIVE_HD int gc_fixed_row(uint64_t seed, int64_t i, int64_t M, int64_t K, uint32_t *slot, int lg, int32_t *row)
{
    const int complement = K > M / 2;
    const int64_t pick = gc_fixed_pick(M, K);
    int64_t n = 0;
    gc_hs_clear(slot, lg);
    for (int64_t j = M - pick, d = 0; j < M; j++, d++) {
        uint64_t r = olive_bits64(seed, (uint32_t)i, (uint32_t)((uint64_t)i >> 32), (uint32_t)d, OLIVE_STREAM_PARTNER);
        uint32_t t = (uint32_t)gc_below(r, (uint64_t)j + 1);
        if (!gc_hs_insert(slot, lg, t)) { gc_hs_insert(slot, lg, (uint32_t)j); t = (uint32_t)j; }
        if (!complement) row[n++] = gc_cand_cell(t, i);
    }
    if (!complement) return 1;
    for (int64_t m = 0; m < M; m++)
        if (!gc_hs_contains(slot, lg, (uint32_t)m)) row[n++] = gc_cand_cell(m, i);
    return 0;
}

/* ---- gaussian: per-axis sampling tables (built on the host by
 * gen_gaussian.c; the GPU gets a copy) and the row generator. */
typedef struct {
    int64_t R;              /* offsets -R..R */
    int64_t n;              /* 2R+1 entries */
    const double *cdf;      /* cdf[k] = P(offset <= k-R); cdf[n-1] = 1 exactly */
    const int32_t *guide;   /* guide[g] = first k with cdf[k] > g/n */
} gc_axis;

typedef struct gc_gauss_tab {
    gc_axis ax[3];
    int active[3], nactive;     /* axes with more than one cell */
    int64_t max_attempts;       /* per row */
    int64_t dims[3];
} gc_gauss_tab;

/* The smallest offset k - R with u < cdf[k], starting at the guide entry. */
OLIVE_HD int64_t gc_sample_axis(const gc_axis *t, double u)
{
    int64_t g = (int64_t)(u * (double)t->n);
    if (g >= t->n) g = t->n - 1;
    int64_t k = t->guide[g];
    while (u >= t->cdf[k]) k++;
    return k - t->R;
}

/* Row i: K distinct partners in draw order into row (the caller sorts them).
 * Attempt t owns Philox counters 2t and 2t+1 (i, ., PARTNER): two uniforms
 * each, one per active axis (the second counter only for 3-D lattices); an
 * attempt outside the lattice, on i itself or on a partner already chosen is
 * rejected. The set lives in slot (2^lg >= 2K entries: gc_hs_lg(K)). Returns
 * the partners found: K, or fewer when max_attempts ran out (*attempts says
 * how many were made). */
OLIVE_HD int64_t gc_gauss_row(const gc_gauss_tab *g, uint64_t seed, int64_t i, int64_t K, uint32_t *slot, int lg,
                              int32_t *row, int64_t *attempts)
{
    const int64_t D0 = g->dims[0], D1 = g->dims[1], D2 = g->dims[2];
    const int64_t pos[3] = {i / (D1 * D2), (i / D2) % D1, i % D2};
    const uint32_t a = (uint32_t)i, b = (uint32_t)((uint64_t)i >> 32);
    int64_t n = 0, t = 0;
    gc_hs_clear(slot, lg);
    while (n < K) {
        if (t == g->max_attempts) break;
        double u[4];
        olive_uniform2(seed, a, b, (uint32_t)(2 * t), OLIVE_STREAM_PARTNER, &u[0], &u[1]);
        if (g->nactive == 3) olive_uniform2(seed, a, b, (uint32_t)(2 * t + 1), OLIVE_STREAM_PARTNER, &u[2], &u[3]);
        t++;
        int64_t q[3] = {pos[0], pos[1], pos[2]};
        int inside = 1;
        for (int k = 0; k < g->nactive; k++) {
            int ax = g->active[k];
            int64_t D = ax == 0 ? D0 : ax == 1 ? D1 : D2;
            q[ax] += gc_sample_axis(&g->ax[ax], u[k]);
            if (q[ax] < 0 || q[ax] >= D) inside = 0;
        }
        if (!inside) continue;
        int64_t j = (q[0] * D1 + q[1]) * D2 + q[2];
        if (j == i || !gc_hs_insert(slot, lg, (uint32_t)j)) continue;
        row[n++] = (int32_t)j;
    }
    *attempts = t;
    return n;
}

#endif
