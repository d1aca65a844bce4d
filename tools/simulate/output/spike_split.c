/* A run's spikes as spikes.h5's columns (spike_split.h):
 *   1. in step order, stably: they usually are already (one rank's CUDA
 *      engine lists its spikes step by step, one thread likewise); else a
 *      counting sort over the run's steps (several threads or ranks);
 *   2. split by population, stably: one pass finds each spike's population
 *      (pop_of) and counts, a second
 *      writes each spike's step and local id into its population's columns;
 *   3. within each population, each step's ids sorted: a few spikes a
 *      population and step (the multi-area model: ~20), by insertion. */
#include "spike_split.h"
#include "util.h"
#include <omp.h>
#include <stdlib.h>

/* Which population holds a cell: a table of the population at the start of
 * every 2^shift cells (at most 2^20 entries), then a step or two forward.
 * A binary search over the populations' firsts, one unpredictable branch a
 * level, took two thirds of the split's time on random cells. */
typedef struct {
    const sim_outpop *pops;
    int npops, shift;
    int64_t first, end;   /* the populations' cells lie in [first, end) */
    int32_t *tab;
} pop_finder;

static void finder_make(pop_finder *f, const sim_outpop *pops, int npops)
{
    f->pops = pops;
    f->npops = npops;
    f->shift = 0;
    f->tab = NULL;
    if (npops == 0) return;
    f->first = pops[0].first;
    f->end = pops[npops - 1].first + pops[npops - 1].count;
    while (((f->end - f->first) >> f->shift) > (INT64_C(1) << 20)) f->shift++;
    const int64_t nb = ((f->end - f->first) >> f->shift) + 1;
    f->tab = olive_malloc((size_t)nb * sizeof(int32_t), "spike split");
    for (int64_t b = 0, t = 0; b < nb; b++) {
        const int64_t c = f->first + (b << f->shift);
        while (t + 1 < npops && pops[t + 1].first <= c) t++;
        f->tab[b] = (int32_t)t;
    }
}

/* The population holding cell c, or -1. */
static int pop_of(const pop_finder *f, int64_t c)
{
    if (f->npops == 0 || c < f->first || c >= f->end) return -1;
    int t = f->tab[(c - f->first) >> f->shift];
    while (t + 1 < f->npops && f->pops[t + 1].first <= c) t++;
    return c < f->pops[t].first + f->pops[t].count ? t : -1;
}

static int cmp_step(const void *a, const void *b)
{
    const sim_spike *x = a, *y = b;
    return (x->step > y->step) - (x->step < y->step);
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* sp[0..n) in step order, the spikes of a step in their order in sp (the
 * ids are sorted later). Returns sp or its sorted copy (sp then freed). */
static sim_spike *in_step_order(sim_spike *sp, int64_t n)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    int ordered = 1;
    for (int64_t i = 0; i < n; i++) {
        lo = sp[i].step < lo ? sp[i].step : lo;
        hi = sp[i].step > hi ? sp[i].step : hi;
        if (i > 0 && sp[i].step < sp[i - 1].step) ordered = 0;
    }
    if (ordered) return sp;
    const uint64_t range = (uint64_t)(hi - lo) + 1;
    if (range > (uint64_t)n + (1u << 20)) {   /* few spikes over many steps: a sort by comparisons */
        qsort(sp, (size_t)n, sizeof *sp, cmp_step);   /* (not stable; the ids are sorted later) */
        return sp;
    }
    int64_t *at = olive_calloc((size_t)range + 1, sizeof(int64_t), "spike sort");
    for (int64_t i = 0; i < n; i++) at[sp[i].step - lo + 1]++;
    for (uint64_t k = 0; k < range; k++) at[k + 1] += at[k];
    sim_spike *out = olive_malloc((size_t)n * sizeof *out + 8, "spike sort");
    for (int64_t i = 0; i < n; i++) out[at[sp[i].step - lo]++] = sp[i];
    free(at);
    free(sp);
    return out;
}

/* id[0..m) ascending: by insertion where it is short (each step's spikes of
 * one population), else by comparisons. */
static void sort_ids(uint64_t *id, int64_t m)
{
    if (m > 48) {
        qsort(id, (size_t)m, sizeof *id, cmp_u64);
        return;
    }
    for (int64_t i = 1; i < m; i++) {
        const uint64_t v = id[i];
        int64_t j = i;
        for (; j > 0 && id[j - 1] > v; j--) id[j] = id[j - 1];
        id[j] = v;
    }
}

void sim_spike_columns_make(const sim_outpop *pops, int npops, sim_spike *sp, int64_t n, sim_spike_columns *c)
{
    for (int p = 1; p < npops; p++)
        if (pops[p].first < pops[p - 1].first + pops[p - 1].count)
            olive_die("internal: output populations %s and %s are not in order or overlap", pops[p - 1].name, pops[p].name);
    sp = in_step_order(sp, n);
    pop_finder finder;
    finder_make(&finder, pops, npops);
    /* The run's threads split the spikes into T contiguous parts: each
     * counts its part's spikes a population, then writes them from where
     * the parts before it end, so the split stays stable. */
    const int T = omp_get_max_threads();
    int64_t *off = olive_calloc((size_t)npops + 1, sizeof(int64_t), "spike split");
    int64_t *cnt = olive_calloc((size_t)T * (size_t)npops + 1, sizeof(int64_t), "spike split");
    int32_t *pop = olive_malloc((size_t)n * sizeof(int32_t) + 8, "spike split");
    int64_t *step = NULL;
    uint64_t *id = NULL;
#pragma omp parallel num_threads(T)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        const int64_t i0 = n * t / nt, i1 = n * (t + 1) / nt;
        int64_t *mine = cnt + (size_t)t * (size_t)npops;
        for (int64_t i = i0; i < i1; i++) {
            pop[i] = pop_of(&finder, sp[i].cell);
            if (pop[i] >= 0) mine[pop[i]]++;
        }
#pragma omp barrier
#pragma omp single
        {
            for (int p = 0; p < npops; p++) {   /* population p's part of thread u starts at the end of u - 1's */
                int64_t at = off[p];
                for (int u = 0; u < nt; u++) {
                    const int64_t m = cnt[(size_t)u * (size_t)npops + (size_t)p];
                    cnt[(size_t)u * (size_t)npops + (size_t)p] = at;
                    at += m;
                }
                off[p + 1] = at;
            }
            step = olive_malloc((size_t)off[npops] * sizeof(int64_t) + 8, "spike split");
            id = olive_malloc((size_t)off[npops] * sizeof(uint64_t) + 8, "spike split");
        }
        for (int64_t i = i0; i < i1; i++) {
            const int p = pop[i];
            if (p < 0) continue;
            const int64_t k = mine[p]++;
            step[k] = sp[i].step;
            id[k] = (uint64_t)(sp[i].cell - pops[p].first);
        }
#pragma omp barrier
#pragma omp for schedule(dynamic, 1)
        for (int p = 0; p < npops; p++)   /* each population's runs of one step */
            for (int64_t i = off[p], j; i < off[p + 1]; i = j) {
                for (j = i + 1; j < off[p + 1] && step[j] == step[i]; j++) {}
                sort_ids(id + i, j - i);
            }
    }
    free(cnt);
    free(pop);
    free(finder.tab);
    free(sp);
    c->off = off;
    c->step = step;
    c->id = id;
}

void sim_spike_columns_free(sim_spike_columns *c)
{
    free(c->off);
    free(c->step);
    free(c->id);
    c->off = NULL;
    c->step = NULL;
    c->id = NULL;
}
