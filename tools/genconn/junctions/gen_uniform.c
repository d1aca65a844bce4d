/* uniform: every other cell is a partner of cell i independently with
 * p = K/(N-1), so the degree is Binomial(N-1, p) and the partners are uniform
 * distinct cells; with --fixed-degree exactly K distinct partners, uniformly.
 * The row algorithms are gen_rows.h (shared with the GPU, gen_cuda.cu); this
 * is the CPU driver over a block of rows. */
#include "genconn.h"
#include "gen_rows.h"
#include "util.h"
#include <stdlib.h>

/* Bernoulli(p) over the candidates by geometric skipping (gen_rows.h):
 * a row costs O(degree), not O(N), and comes out ascending. */
static void bernoulli_row(const gc_config *cfg, int64_t i, double lq, gc_rows *out)
{
    const int64_t M = cfg->count - 1;
    if (M <= 0) return;
    int64_t pos = -1;   /* last included candidate */
    for (uint32_t c = 0;; c++) {
        int64_t g[2];
        gc_bern_gaps(cfg->seed, i, c, lq, M, &g[0], &g[1]);
        for (int k = 0; k < 2; k++) {
            pos += g[k] + 1;
            if (pos >= M) return;
            /* Grow only when full: this loop is the generator's hot path. */
            if (out->nnz == out->cap) gc_rows_reserve(out, 1);
            out->col[out->nnz++] = gc_cand_cell(pos, i);
        }
    }
}

/* log1p(-p) of the geometric gaps, the same value on the CPU and the GPU. */
double gc_uniform_lq(const gc_config *cfg)
{
    const int64_t M = cfg->count - 1;
    double p = M > 0 ? cfg->density / (double)M : 0;
    return p > 0 ? olive_log1p_d(-p) : 0;
}

void gc_uniform_rows(const gc_config *cfg, int64_t r0, int64_t r1, gc_rows *out)
{
    const int64_t M = cfg->count - 1;
    const int64_t K = (int64_t)cfg->density;
    const double lq = gc_uniform_lq(cfg);
    uint32_t *slot = NULL;
    int lg = 0;
    if (cfg->fixed_degree) {
        lg = gc_fixed_lg(M, K);
        slot = olive_malloc(((size_t)1 << lg) * sizeof(uint32_t), "id set");
    }
    for (int64_t i = r0; i < r1; i++) {
        if (cfg->fixed_degree) {
            int32_t *row = gc_rows_reserve(out, K) + out->nnz;
            if (gc_fixed_row(cfg->seed, i, M, K, slot, lg, row)) gc_sort_i32(row, K);
            out->nnz += K;
        } else
            bernoulli_row(cfg, i, lq, out);
        out->row_ptr[i - r0 + 1] = out->nnz;
    }
    free(slot);
}
