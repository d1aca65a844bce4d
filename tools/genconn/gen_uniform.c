/* uniform: every other cell is a partner of cell i independently with
 * p = K/(N-1), so the degree is Binomial(N-1, p) and the partners are uniform
 * distinct cells; with --fixed-degree exactly K distinct partners, uniformly.
 *
 * Cell i's candidates are the N-1 other cells, numbered m = 0..N-2 with
 * cell(m) = m < i ? m : m + 1, which keeps them ascending. */
#include "genconn.h"
#include "rng.h"
#include <math.h>

static inline int32_t cand_cell(int64_t m, int64_t i) { return (int32_t)(m < i ? m : m + 1); }

/* Bernoulli(p) over the candidates by geometric skipping: the gap to the next
 * included candidate is floor(log(u)/log1p(-p)), so a row costs O(degree),
 * not O(N), and comes out ascending. Two uniforms per Philox counter. */
static void bernoulli_row(const gc_config *cfg, int64_t i, double p, gc_rows *out)
{
    const int64_t M = cfg->count - 1;
    if (p <= 0 || M <= 0) return;
    if (p >= 1) {
        int32_t *col = gc_rows_reserve(out, M);
        for (int64_t m = 0; m < M; m++) col[out->nnz++] = cand_cell(m, i);
        return;
    }
    const double lq = log1p(-p);
    int64_t pos = -1;   /* last included candidate */
    uint32_t draw = 0;
    double u[2];
    int k = 2;          /* gap g uses uniform g%2 of counter draw g/2 */
    for (;;) {
        if (k == 2) {
            olive_uniform2(cfg->seed, (uint32_t)i, (uint32_t)((uint64_t)i >> 32), draw++, OLIVE_STREAM_DEGREE, &u[0], &u[1]);
            k = 0;
        }
        double gap = floor(log(u[k++]) / lq);
        /* Compare in double: a gap can exceed any integer type for tiny p. */
        if (gap >= (double)(M - pos - 1)) break;
        pos += (int64_t)gap + 1;
        /* Grow only when full: this loop is the generator's hot path. */
        if (out->nnz == out->cap) gc_rows_reserve(out, 1);
        out->col[out->nnz++] = cand_cell(pos, i);
    }
}

/* Exactly K of the M candidates by Floyd's algorithm (K draws, each new
 * candidate accepted or replaced by j), O(K) with a hash set. When K > M/2
 * the M-K excluded candidates are drawn instead, so the set stays small and
 * the row costs O(M) = O(K). */
static void fixed_row(const gc_config *cfg, int64_t i, int64_t K, gc_intset *set, gc_rows *out)
{
    const int64_t M = cfg->count - 1;
    int complement = K > M / 2;
    int64_t pick = complement ? M - K : K;
    gc_intset_clear(set);
    for (int64_t j = M - pick, d = 0; j < M; j++, d++) {
        uint64_t r = olive_bits64(cfg->seed, (uint32_t)i, (uint32_t)((uint64_t)i >> 32), (uint32_t)d, OLIVE_STREAM_PARTNER);
        uint32_t t = (uint32_t)gc_below(r, (uint64_t)j + 1);
        if (!gc_intset_insert(set, t)) gc_intset_insert(set, (uint32_t)j);
    }
    int32_t *col = gc_rows_reserve(out, K);
    if (complement) {
        for (int64_t m = 0; m < M; m++)
            if (!gc_intset_contains(set, (uint32_t)m)) col[out->nnz++] = cand_cell(m, i);
    } else {
        int32_t *row = col + out->nnz;
        for (int64_t e = 0; e < K; e++) row[e] = cand_cell(set->keys[e], i);
        gc_sort_i32(row, K);
        out->nnz += K;
    }
}

void gc_uniform_rows(const gc_config *cfg, int64_t r0, int64_t r1, gc_rows *out)
{
    const int64_t M = cfg->count - 1;
    const int64_t K = (int64_t)cfg->density;
    double p = M > 0 ? cfg->density / (double)M : 0;
    gc_intset set = {0};
    if (cfg->fixed_degree) gc_intset_init(&set, K < M - K ? K : M - K);
    for (int64_t i = r0; i < r1; i++) {
        if (cfg->fixed_degree) fixed_row(cfg, i, K, &set, out);
        else bernoulli_row(cfg, i, p, out);
        out->row_ptr[i - r0 + 1] = out->nnz;
    }
    if (cfg->fixed_degree) gc_intset_free(&set);
}
