/* Every spike of a file in memory (for ISIs, re-sorting, rasters) and the
 * per-cell spike counts (streamed, any file size). */
#include "analyze.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

void ana_spikes_load(const ana_spikes *s, ana_spike_list *l)
{
    l->n = s->n;
    l->t = olive_malloc((size_t)s->n * sizeof(double) + 8, "spike times");
    l->node = olive_malloc((size_t)s->n * sizeof(uint64_t) + 8, "node ids");
    for (int64_t off = 0; off < s->n; off += ANA_SPIKE_CHUNK) {
        int64_t n = s->n - off < ANA_SPIKE_CHUNK ? s->n - off : ANA_SPIKE_CHUNK;
        ana_spikes_read(s, off, n, l->t + off, l->node + off);
    }
}

void ana_spike_list_free(ana_spike_list *l)
{
    free(l->t);
    free(l->node);
    memset(l, 0, sizeof *l);
}

typedef struct {
    double t;
    uint64_t node;
} pair;

static int by_time(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node);
}

static int by_node(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    if (x->node != y->node) return x->node < y->node ? -1 : 1;
    return (x->t > y->t) - (x->t < y->t);
}

static void sort_list(ana_spike_list *l, int (*cmp)(const void *, const void *))
{
    pair *p = olive_malloc((size_t)l->n * sizeof *p + 8, "spike sort");
    for (int64_t i = 0; i < l->n; i++) p[i] = (pair){l->t[i], l->node[i]};
    qsort(p, (size_t)l->n, sizeof *p, cmp);
    for (int64_t i = 0; i < l->n; i++) { l->t[i] = p[i].t; l->node[i] = p[i].node; }
    free(p);
}

void ana_spike_list_sort_time(ana_spike_list *l) { sort_list(l, by_time); }
void ana_spike_list_sort_node(ana_spike_list *l) { sort_list(l, by_node); }

void ana_spikes_per_cell(const ana_spikes *s, int64_t cells, int64_t *counts)
{
    memset(counts, 0, (size_t)cells * sizeof *counts);
    int64_t chunk = s->n < ANA_SPIKE_CHUNK ? s->n : ANA_SPIKE_CHUNK;
    double *t = olive_malloc((size_t)chunk * sizeof(double) + 8, "spike times");
    uint64_t *id = olive_malloc((size_t)chunk * sizeof(uint64_t) + 8, "node ids");
    for (int64_t off = 0; off < s->n; off += chunk) {
        int64_t n = s->n - off < chunk ? s->n - off : chunk;
        ana_spikes_read(s, off, n, t, id);
        for (int64_t i = 0; i < n; i++) {
            if (id[i] >= (uint64_t)cells)
                ana_error("%s: %s[%lld] = %llu is not a cell of a %lld-cell run", s->path, s->ids.name,
                          (long long)(off + i), (unsigned long long)id[i], (long long)cells);
            counts[id[i]]++;
        }
    }
    free(t);
    free(id);
}
