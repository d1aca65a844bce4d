/* gaussian: each cell gets exactly K distinct partners on the dims lattice,
 * drawn with probability proportional to exp(-d^2/(2 sigma^2)), d the lattice
 * distance, no wrap. Because exp(-(dx^2+dy^2+dz^2)/(2 sigma^2)) factorises,
 * one draw is three independent per-axis offsets from the discrete gaussian
 * P(dx) ∝ exp(-dx^2/(2 sigma^2)); an offset landing outside the lattice, on the
 * cell itself or on a partner already chosen is rejected and redrawn. That is
 * exactly the law above conditioned on valid, new partners. */
#include "genconn.h"
#include "rng.h"
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
    int64_t R;        /* offsets -R..R */
    int64_t n;        /* 2R+1 entries */
    double *cdf;      /* cdf[k] = P(offset <= k-R); cdf[n-1] = 1 exactly */
    int32_t *guide;   /* guide[g] = first k with cdf[k] > g/n */
} axis_table;

struct gc_gauss {
    axis_table ax[3];
    int active[3], nactive;    /* axes with more than one cell */
    int64_t max_attempts;      /* per row */
};

static void build_axis(axis_table *t, int64_t dim, double sigma)
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
    t->cdf = olive_malloc((size_t)t->n * sizeof(double), "gaussian table");
    t->guide = olive_malloc((size_t)t->n * sizeof(int32_t), "gaussian guide table");
    /* Summed in one fixed order so the table (hence the file) never depends
     * on anything but dims and sigma; a GPU copies this table. */
    double total = 0;
    for (int64_t k = 0; k < t->n; k++) {
        double d = (double)(k - R);
        total += exp(-d * d * inv);
        t->cdf[k] = total;
    }
    for (int64_t k = 0; k < t->n; k++) t->cdf[k] /= total;
    t->cdf[t->n - 1] = 1.0;
    /* Guide table: a draw u starts its search at guide[floor(u*n)], which
     * makes the lookup O(1) on average yet returns exactly the smallest k with
     * u < cdf[k] (what a binary search would). */
    int64_t k = 0;
    for (int64_t g = 0; g < t->n; g++) {
        double lo = (double)g / (double)t->n;
        while (t->cdf[k] <= lo) k++;
        t->guide[g] = (int32_t)k;
    }
}

static inline int64_t sample_axis(const axis_table *t, double u)
{
    int64_t g = (int64_t)(u * (double)t->n);
    if (g >= t->n) g = t->n - 1;
    int64_t k = t->guide[g];
    while (u >= t->cdf[k]) k++;
    return k - t->R;
}

gc_gauss *gc_gauss_new(const gc_config *cfg)
{
    gc_gauss *g = olive_calloc(1, sizeof *g, "gaussian tables");
    for (int a = 0; a < 3; a++) {
        build_axis(&g->ax[a], cfg->dims[a], cfg->sigma);
        if (cfg->dims[a] > 1) g->active[g->nactive++] = a;
    }
    /* Enough for any sensible sigma (a row normally needs about K attempts);
     * running out means the neighbourhood holds too few cells within reach. */
    int64_t K = (int64_t)cfg->density;
    g->max_attempts = 64 * K + 4096;
    if (g->max_attempts > INT32_MAX) g->max_attempts = INT32_MAX;
    olive_info("gaussian: sigma %g, offset tables of %lld x %lld x %lld entries, at most %lld draws a row",
               cfg->sigma, (long long)g->ax[0].n, (long long)g->ax[1].n, (long long)g->ax[2].n,
               (long long)g->max_attempts);
    return g;
}

void gc_gauss_free(gc_gauss *g)
{
    if (!g) return;
    for (int a = 0; a < 3; a++) { free(g->ax[a].cdf); free(g->ax[a].guide); }
    free(g);
}

int gc_gauss_rows(const gc_config *cfg, const gc_gauss *g, int64_t r0, int64_t r1, gc_rows *out)
{
    const int64_t K = (int64_t)cfg->density;
    const int64_t *D = cfg->dims;
    gc_intset set;
    gc_intset_init(&set, K);
    for (int64_t i = r0; i < r1; i++) {
        int64_t pos[3] = {i / (D[1] * D[2]), (i / D[2]) % D[1], i % D[2]};
        uint32_t a = (uint32_t)i, b = (uint32_t)((uint64_t)i >> 32);
        int32_t *row = gc_rows_reserve(out, K) + out->nnz;
        int64_t n = 0, t = 0;
        gc_intset_clear(&set);
        while (n < K) {
            if (t == g->max_attempts) {
                out->fail_cell = i;
                out->fail_found = n;
                out->fail_attempts = t;
                gc_intset_free(&set);
                return -1;
            }
            /* Attempt t owns counters 2t and 2t+1: two uniforms each, one per
             * active axis (the second counter only for 3-D lattices). */
            double u[4];
            olive_uniform2(cfg->seed, a, b, (uint32_t)(2 * t), OLIVE_STREAM_PARTNER, &u[0], &u[1]);
            if (g->nactive == 3) olive_uniform2(cfg->seed, a, b, (uint32_t)(2 * t + 1), OLIVE_STREAM_PARTNER, &u[2], &u[3]);
            t++;
            int64_t q[3] = {pos[0], pos[1], pos[2]};
            int inside = 1;
            for (int k = 0; k < g->nactive; k++) {
                int ax = g->active[k];
                q[ax] += sample_axis(&g->ax[ax], u[k]);
                if (q[ax] < 0 || q[ax] >= D[ax]) inside = 0;
            }
            if (!inside) continue;
            int64_t j = (q[0] * D[1] + q[1]) * D[2] + q[2];
            if (j == i || !gc_intset_insert(&set, (uint32_t)j)) continue;
            row[n++] = (int32_t)j;
        }
        gc_sort_i32(row, K);
        out->nnz += K;
        out->row_ptr[i - r0 + 1] = out->nnz;
    }
    gc_intset_free(&set);
    return 0;
}
