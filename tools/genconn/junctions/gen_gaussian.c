/* gaussian: each cell gets exactly K distinct partners on the dims lattice,
 * drawn with probability proportional to exp(-d^2/(2 sigma^2)), d the lattice
 * distance, no wrap. Because exp(-(dx^2+dy^2+dz^2)/(2 sigma^2)) factorises,
 * one draw is three independent per-axis offsets from the discrete gaussian
 * P(dx) ∝ exp(-dx^2/(2 sigma^2)); an offset landing outside the lattice, on the
 * cell itself or on a partner already chosen is rejected and redrawn. That is
 * exactly the law above conditioned on valid, new partners. */
#include "genconn.h"
#include "gen_rows.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>

/* Offsets whose weight is below 1e-20 (|dx| > 9.6 sigma) are left out of the
 * tables: their total probability is far below the 2^-53 resolution of a
 * uniform draw, so they could not be drawn anyway, and leaving them out keeps
 * the tables small for long axes. */
#define WEIGHT_FLOOR 1e-20
/* Table entries per axis at most (the table is 12 bytes an entry). */
#define MAX_TABLE (INT64_C(1) << 25)

typedef struct {
    double *cdf;
    int32_t *guide;
} axis_mem;

/* The tables (gen_rows.h's gc_gauss_tab, which a GPU copies) and their memory. */
struct gc_gauss {
    gc_gauss_tab t;
    axis_mem mem[3];
};

static void build_axis(gc_axis *t, axis_mem *m, int64_t dim, double sigma)
{
    int64_t R = 0;
    double inv = 1.0 / (2.0 * sigma * sigma);
    while (R < dim - 1 && exp(-(double)(R + 1) * (double)(R + 1) * inv) >= WEIGHT_FLOOR) {
        R++;
        if (2 * R + 1 > MAX_TABLE)
            olive_usage_error("--sigma %g is too large for an axis of %lld cells (the sampling table would "
                              "exceed %lld entries)", sigma, (long long)dim, (long long)MAX_TABLE);
    }
    t->R = R;
    t->n = 2 * R + 1;
    double *cdf = m->cdf = olive_malloc((size_t)t->n * sizeof(double), "gaussian table");
    int32_t *guide = m->guide = olive_malloc((size_t)t->n * sizeof(int32_t), "gaussian guide table");
    t->cdf = cdf;
    t->guide = guide;
    /* Summed in one fixed order so the table (hence the file) never depends
     * on anything but dims and sigma; a GPU copies this table. */
    double total = 0;
    for (int64_t k = 0; k < t->n; k++) {
        double d = (double)(k - R);
        total += exp(-d * d * inv);
        cdf[k] = total;
    }
    for (int64_t k = 0; k < t->n; k++) cdf[k] /= total;
    cdf[t->n - 1] = 1.0;
    /* Guide table: a draw u starts its search at guide[floor(u*n)], which
     * makes the lookup O(1) on average yet returns exactly the smallest k with
     * u < cdf[k] (what a binary search would). */
    int64_t k = 0;
    for (int64_t g = 0; g < t->n; g++) {
        double lo = (double)g / (double)t->n;
        while (cdf[k] <= lo) k++;
        guide[g] = (int32_t)k;
    }
}

gc_gauss *gc_gauss_new(const gc_config *cfg)
{
    gc_gauss *g = olive_calloc(1, sizeof *g, "gaussian tables");
    gc_gauss_tab *t = &g->t;
    for (int a = 0; a < 3; a++) {
        build_axis(&t->ax[a], &g->mem[a], cfg->dims[a], cfg->sigma);
        t->dims[a] = cfg->dims[a];
        if (cfg->dims[a] > 1) t->active[t->nactive++] = a;
    }
    /* Enough for any sensible sigma (a row normally needs about K attempts);
     * running out means the neighbourhood holds too few cells within reach. */
    int64_t K = (int64_t)cfg->density;
    t->max_attempts = 64 * K + 4096;
    if (t->max_attempts > INT32_MAX) t->max_attempts = INT32_MAX;
    olive_info("gaussian: sigma %g, offset tables of %lld x %lld x %lld entries, at most %lld draws a row",
               cfg->sigma, (long long)t->ax[0].n, (long long)t->ax[1].n, (long long)t->ax[2].n,
               (long long)t->max_attempts);
    return g;
}

const gc_gauss_tab *gc_gauss_tables(const gc_gauss *g) { return &g->t; }

void gc_gauss_free(gc_gauss *g)
{
    if (!g) return;
    for (int a = 0; a < 3; a++) { free(g->mem[a].cdf); free(g->mem[a].guide); }
    free(g);
}

/* The CPU driver over a block of rows (the row itself: gen_rows.h). */
int gc_gauss_rows(const gc_config *cfg, const gc_gauss *g, int64_t r0, int64_t r1, gc_rows *out)
{
    const int64_t K = (int64_t)cfg->density;
    const int lg = gc_hs_lg(K);
    uint32_t *slot = olive_malloc(((size_t)1 << lg) * sizeof(uint32_t), "id set");
    for (int64_t i = r0; i < r1; i++) {
        int32_t *row = gc_rows_reserve(out, K) + out->nnz;
        int64_t attempts = 0, n = gc_gauss_row(&g->t, cfg->seed, i, K, slot, lg, row, &attempts);
        if (n < K) {
            out->fail_cell = i;
            out->fail_found = n;
            out->fail_attempts = attempts;
            free(slot);
            return -1;
        }
        gc_sort_i32(row, K);
        out->nnz += K;
        out->row_ptr[i - r0 + 1] = out->nnz;
    }
    free(slot);
    return 0;
}
