/* The spikes split by output population (spike_split.h): each spike's
 * population found by a binary search over the populations' firsts; one
 * pass counts each population's spikes, a second lists them. */
#include "spike_split.h"
#include "util.h"
#include <stdlib.h>

/* The population holding cell c, or -1. */
static int pop_of(const sim_outpop *pops, int npops, int64_t c)
{
    int lo = 0, hi = npops - 1;   /* the last population whose first is <= c */
    if (npops == 0 || c < pops[0].first) return -1;
    while (lo < hi) {
        const int mid = lo + (hi - lo + 1) / 2;
        if (pops[mid].first <= c) lo = mid; else hi = mid - 1;
    }
    return c < pops[lo].first + pops[lo].count ? lo : -1;
}

int64_t *sim_split_spikes(const sim_outpop *pops, int npops, const sim_spike *sp, int64_t n, int64_t **off_out)
{
    for (int p = 1; p < npops; p++)
        if (pops[p].first < pops[p - 1].first + pops[p - 1].count)
            olive_die("internal: output populations %s and %s are not in order or overlap", pops[p - 1].name, pops[p].name);
    int64_t *off = olive_calloc((size_t)npops + 1, sizeof(int64_t), "spike split");
    for (int64_t i = 0; i < n; i++) {
        const int p = pop_of(pops, npops, sp[i].cell);
        if (p >= 0) off[p + 1]++;
    }
    for (int p = 0; p < npops; p++) off[p + 1] += off[p];
    int64_t *idx = olive_malloc((size_t)off[npops] * sizeof(int64_t) + 8, "spike split");
    int64_t *next = olive_malloc((size_t)npops * sizeof(int64_t) + 8, "spike split");
    for (int p = 0; p < npops; p++) next[p] = off[p];
    for (int64_t i = 0; i < n; i++) {
        const int p = pop_of(pops, npops, sp[i].cell);
        if (p >= 0) idx[next[p]++] = i;
    }
    free(next);
    *off_out = off;
    return idx;
}

static int cmp_spike(const void *a, const void *b)
{
    const sim_spike *x = a, *y = b;
    if (x->step != y->step) return x->step < y->step ? -1 : 1;
    return (x->cell > y->cell) - (x->cell < y->cell);
}

void sim_spikes_sort(sim_spike *sp, int64_t n)
{
    for (int64_t i = 1; i < n; i++)
        if (sp[i].step < sp[i - 1].step) {
            qsort(sp, (size_t)n, sizeof *sp, cmp_spike);
            return;
        }
    for (int64_t i = 0, j; i < n; i = j) {   /* the steps rise: each step's run by cell */
        int sorted = 1;
        for (j = i + 1; j < n && sp[j].step == sp[i].step; j++)
            if (sp[j].cell < sp[j - 1].cell) sorted = 0;
        if (!sorted) qsort(sp + i, (size_t)(j - i), sizeof *sp, cmp_spike);
    }
}
