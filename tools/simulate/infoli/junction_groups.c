/* The CPU junction pass's layout of a list of rows (the interior or the
 * boundary rows): the rows in groups of SIM_ROW_LANES, and each group's
 * junctions slot by slot, slot j holding the j-th junction of each of the
 * group's rows side by side (sliced ELLPACK with slices of 8 rows; the CUDA
 * engine lays out slices of 32 the same way, backend_cuda.cu).
 *
 * Why: the pass sums each row's terms one by one in stored order. With the
 * rows' junctions one after another (the plan's CSR arrays), the terms of 8
 * rows had to be computed row by row, stored, read back and turned around in
 * registers before 8 rows' sums could take them at once. Laid out slot by
 * slot, one SIMD vector of terms holds the next term of all 8 rows and goes
 * straight into their sums: the same additions in the same order, so the
 * same bits (tests/test_simd_engine.sh, tests/test_cpu_junction_groups.sh),
 * without the stores, loads and shuffles (docs/results/junction_groups_2026-12-05_vm.txt).
 *
 * A row shorter than its group's longest is padded with its own column:
 * V_i - V_i = +0.0 makes the term a zero (+0.0 or -0.0), which leaves a sum
 * unchanged (a sum that starts at +0.0 is never -0.0). A row without
 * junctions is written +0.0 directly (kernel_cpu_isa.h), so that a lane of
 * padding never decides its current. Within windows of SIM_GROUP_WINDOW rows
 * the rows are ordered by descending degree (stable), so that rows of like
 * degree share a group: less padding where degrees vary, while the groups
 * stay near the cells they read. */
#include "sim.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

#define SIM_GROUP_WINDOW 256

typedef struct { int64_t deg; int64_t pos; } deg_pos;

static int by_degree_desc(const void *a, const void *b)
{
    const deg_pos *x = a, *y = b;
    if (x->deg != y->deg) return x->deg > y->deg ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;   /* stable */
}

/* Copy junction e's conductance code (or value) into slot k of the group layout. */
static void copy_cond(int bits, const void *from, int64_t e, void *to, int64_t k)
{
    if (bits == 4) {
        const uint32_t code = (((const uint8_t *)from)[e >> 1] >> ((e & 1) * 4)) & 15;
        olive_cond_set(4, to, k, code, 0);
    } else {
        const size_t b = (size_t)bits / 8;
        memcpy((char *)to + (size_t)k * b, (const char *)from + (size_t)e * b, b);
    }
}

void sim_junction_groups_build(const sim_t *s, const int32_t *rows, int64_t nrows, int unroll, sim_jgroups *G)
{
    const olive_plan *p = &s->plan;
    const int bits = s->net.bits;
    const int L = SIM_ROW_LANES;
    memset(G, 0, sizeof *G);
    G->nrows = nrows;
    G->ngroups = (nrows + L - 1) / L;
    G->gslot = olive_calloc((size_t)(G->ngroups + 1), sizeof(int64_t), "junction groups");   /* gslot[0] = 0 */
    if (nrows == 0) return;

    /* the list's order, degree-sorted within windows */
    deg_pos *order = olive_malloc((size_t)nrows * sizeof *order, "junction groups");
    for (int64_t i = 0; i < nrows; i++)
        order[i] = (deg_pos){p->lrow_ptr[rows[i] + 1] - p->lrow_ptr[rows[i]], i};
#pragma omp parallel for schedule(static)
    for (int64_t w0 = 0; w0 < nrows; w0 += SIM_GROUP_WINDOW) {
        const int64_t w1 = w0 + SIM_GROUP_WINDOW < nrows ? w0 + SIM_GROUP_WINDOW : nrows;
        qsort(order + w0, (size_t)(w1 - w0), sizeof *order, by_degree_desc);
    }

    G->row = olive_malloc((size_t)G->ngroups * L * sizeof(int32_t), "junction groups");
    G->nj = olive_malloc((size_t)G->ngroups * L * sizeof(int32_t), "junction groups");
    for (int64_t g = 0; g < G->ngroups; g++) {
        int64_t longest = 0;
        for (int l = 0; l < L; l++) {
            const int64_t i = g * L + l;
            /* lanes past the list's end repeat the group's first row, with no junctions (never stored) */
            const int32_t r = rows[order[i < nrows ? i : g * L].pos];
            const int64_t n = i < nrows ? p->lrow_ptr[r + 1] - p->lrow_ptr[r] : 0;
            G->row[g * L + l] = r;
            G->nj[g * L + l] = (int32_t)n;
            longest = n > longest ? n : longest;
        }
        G->gslot[g + 1] = G->gslot[g] + (longest + unroll - 1) / unroll * unroll;
    }
    free(order);

    const int64_t slots = G->gslot[G->ngroups];
    G->col = olive_malloc((size_t)(slots * L) * sizeof(int32_t), "junction groups");
    if (bits != 0) G->cond = olive_calloc(olive_cond_bytes(bits, slots * L) + 8, 1, "junction groups");
    /* (4-bit codes: two slots a byte, both of one group: 8 lanes a slot) */
#pragma omp parallel for schedule(static)
    for (int64_t g = 0; g < G->ngroups; g++) {
        int64_t e0[SIM_ROW_LANES];
        for (int l = 0; l < L; l++) e0[l] = p->lrow_ptr[G->row[g * L + l]];
        for (int64_t j = 0; j < G->gslot[g + 1] - G->gslot[g]; j++)
            for (int l = 0; l < L; l++) {
                const int64_t k = (G->gslot[g] + j) * L + l;
                const int in_row = j < G->nj[g * L + l];
                G->col[k] = in_row ? p->lcol[e0[l] + j] : G->row[g * L + l];   /* padding: the row itself, a +-0 term */
                if (bits != 0 && in_row) copy_cond(bits, s->net.cond, e0[l] + j, G->cond, k);
            }
    }
    G->bytes = (size_t)(slots * L) * sizeof(int32_t) + (bits ? olive_cond_bytes(bits, slots * L) : 0) +
               (size_t)G->ngroups * L * 2 * sizeof(int32_t) + (size_t)(G->ngroups + 1) * sizeof(int64_t);
}

void sim_junction_groups_free(sim_jgroups *G)
{
    free(G->row); free(G->nj); free(G->gslot); free(G->col); free(G->cond);
    memset(G, 0, sizeof *G);
}
