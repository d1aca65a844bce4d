/* The spikes split by output population (spike_split.h). The populations'
 * firsts and ends cut the cell ids into segments, each held by the same
 * populations throughout; a spike finds its segment by a binary search.
 * One pass counts each population's spikes, a second lists them. */
#include "spike_split.h"
#include "util.h"
#include <stdlib.h>

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The segment of cell c: b[s] <= c < b[s + 1], or -1 outside [b[0], b[nb - 1]). */
static int64_t segment_of(const int64_t *b, int64_t nb, int64_t c)
{
    if (nb < 2 || c < b[0] || c >= b[nb - 1]) return -1;
    int64_t lo = 0, hi = nb - 1;   /* b[lo] <= c < b[hi] */
    while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (b[mid] <= c) lo = mid; else hi = mid;
    }
    return lo;
}

int64_t *sim_split_spikes(const sim_outpop *pops, int npops, const sim_spike *sp, int64_t n, int64_t **off_out)
{
    /* the segments' bounds, sorted, without repeats */
    int64_t *b = olive_malloc((size_t)(2 * npops + 1) * sizeof(int64_t), "spike split");
    int64_t nb = 0;
    for (int p = 0; p < npops; p++) { b[nb++] = pops[p].first; b[nb++] = pops[p].first + pops[p].count; }
    qsort(b, (size_t)nb, sizeof *b, cmp_i64);
    int64_t u = 0;
    for (int64_t i = 0; i < nb; i++)
        if (u == 0 || b[i] != b[u - 1]) b[u++] = b[i];
    nb = u;
    /* each segment's populations, as lists in one array */
    const int64_t nseg = nb > 1 ? nb - 1 : 0;
    int64_t *cov_off = olive_malloc((size_t)(nseg + 1) * sizeof(int64_t), "spike split");
    int64_t ncov = 0;
    for (int64_t s = 0; s < nseg; s++) {
        cov_off[s] = ncov;
        for (int p = 0; p < npops; p++)
            if (pops[p].first <= b[s] && b[s + 1] <= pops[p].first + pops[p].count) ncov++;
    }
    cov_off[nseg] = ncov;
    int *cov = olive_malloc((size_t)ncov * sizeof(int) + 8, "spike split");
    for (int64_t s = 0, k = 0; s < nseg; s++)
        for (int p = 0; p < npops; p++)
            if (pops[p].first <= b[s] && b[s + 1] <= pops[p].first + pops[p].count) cov[k++] = p;
    /* each population's count, then its list */
    int64_t *off = olive_calloc((size_t)npops + 1, sizeof(int64_t), "spike split");
    for (int64_t i = 0; i < n; i++) {
        const int64_t s = segment_of(b, nb, sp[i].cell);
        if (s >= 0)
            for (int64_t k = cov_off[s]; k < cov_off[s + 1]; k++) off[cov[k] + 1]++;
    }
    for (int p = 0; p < npops; p++) off[p + 1] += off[p];
    int64_t *idx = olive_malloc((size_t)off[npops] * sizeof(int64_t) + 8, "spike split");
    int64_t *next = olive_malloc((size_t)npops * sizeof(int64_t) + 8, "spike split");
    for (int p = 0; p < npops; p++) next[p] = off[p];
    for (int64_t i = 0; i < n; i++) {
        const int64_t s = segment_of(b, nb, sp[i].cell);
        if (s >= 0)
            for (int64_t k = cov_off[s]; k < cov_off[s + 1]; k++) idx[next[cov[k]]++] = i;
    }
    free(next);
    free(cov);
    free(cov_off);
    free(b);
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
