/* Spike exchange and event delivery (spk.h): every spike becomes one event
 * per outgoing synapse in the slot of the step it is due; a slot is
 * delivered sorted by (target, the target's synapse order), whatever order
 * the events came in, so every rank and thread count adds the same numbers
 * in the same order. */
#include "spk.h"
#include "rng.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

static void push(spk_slot *sl, const spk_out *o)
{
    if (sl->n == sl->cap) {
        sl->cap = sl->cap ? 2 * sl->cap : 4096;
        sl->ev = olive_realloc(sl->ev, (size_t)sl->cap * sizeof(spk_event), "delay buffer");
    }
    sl->ev[sl->n++] = *o;
}

void spk_exchange(sim_t *s, int64_t step)
{
    struct sim_spk *k = s->spk;
    /* This window's own spikes: (step offset in the window) << 32 | cell. */
    int64_t m = 0;
    for (int t = 0; t < s->nthreads; t++) m += s->tspike_n[t] - k->mark[t];
    if (m > INT32_MAX) olive_die("rank %d: more than 2^31 spikes in one exchange window", s->rank);
    int64_t *mine = olive_malloc((size_t)m * sizeof(int64_t) + 8, "spike exchange"), j = 0;
    for (int t = 0; t < s->nthreads; t++) {
        for (int64_t i = k->mark[t]; i < s->tspike_n[t]; i++)
            mine[j++] = (s->tspikes[t][i].step - k->window0) << 32 | s->tspikes[t][i].cell;
        k->mark[t] = s->tspike_n[t];
    }
    int cnt = (int)m, *counts = olive_malloc((size_t)s->size * sizeof(int), "spike exchange");
    int *displs = olive_malloc((size_t)s->size * sizeof(int), "spike exchange");
    SIM_CHECK_MPI(MPI_Allgather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD));
    int64_t total = 0;
    for (int q = 0; q < s->size; q++) {
        if (total > INT32_MAX) olive_die("more than 2^31 spikes in one exchange window");
        displs[q] = (int)total;
        total += counts[q];
    }
    int64_t *all = olive_malloc((size_t)total * sizeof(int64_t) + 8, "spike exchange");
    SIM_CHECK_MPI(MPI_Allgatherv(mine, cnt, MPI_INT64_T, all, counts, displs, MPI_INT64_T, MPI_COMM_WORLD));
    for (int64_t i = 0; i < total; i++) {
        const int64_t g = all[i] & 0xffffffff, sstep = k->window0 + (all[i] >> 32);
        for (int64_t o = k->out_ptr[g]; o < k->out_ptr[g + 1]; o++)
            push(&k->ring[(sstep + k->out_delay[o]) % k->L], &k->out[o]);
    }
    k->exchanged += total;
    (void)step;
    free(all); free(counts); free(displs); free(mine);
}

static int cmp_event(const void *a, const void *b)
{
    const spk_event *x = a, *y = b;
    if (x->target != y->target) return x->target < y->target ? -1 : 1;
    return (x->key > y->key) - (x->key < y->key);
}

/* The events of a slot in (target, key) order: a counting sort by target
 * (then the few events of one target by key) when the slot is large, a
 * comparison sort when it is small against the cell count. */
static const spk_event *sort_slot(struct sim_spk *k, spk_slot *sl, int64_t n)
{
    if (sl->n < 2) return sl->ev;
    if (sl->n * 16 < n) {
        qsort(sl->ev, (size_t)sl->n, sizeof(spk_event), cmp_event);
        return sl->ev;
    }
    if (sl->n > k->sorted_cap) {
        k->sorted_cap = sl->cap;
        free(k->sorted);
        k->sorted = olive_malloc((size_t)k->sorted_cap * sizeof(spk_event), "delivery");
    }
    int64_t *cnt = k->count;
    memset(cnt, 0, (size_t)(n + 1) * sizeof(int64_t));
    for (int64_t e = 0; e < sl->n; e++) cnt[sl->ev[e].target + 1]++;
    for (int64_t r = 0; r < n; r++) cnt[r + 1] += cnt[r];
    for (int64_t e = 0; e < sl->n; e++) k->sorted[cnt[sl->ev[e].target]++] = sl->ev[e];
    /* cnt[r] is now the end of target r's events: sort each run by key */
    int64_t a = 0;
    for (int64_t r = 0; r < n; r++) {
        const int64_t b = cnt[r];
        for (int64_t i = a + 1; i < b; i++) {
            spk_event x = k->sorted[i];
            int64_t j = i - 1;
            while (j >= a && k->sorted[j].key > x.key) { k->sorted[j + 1] = k->sorted[j]; j--; }
            k->sorted[j + 1] = x;
        }
        a = b;
    }
    return k->sorted;
}

/* k ~ Binomial(n, p) by inversion from one uniform (n p is small: checked). */
static int64_t binomial(double u, int64_t n, double p)
{
    const double q = 1 - p;
    double pk = pow(q, (double)n), F = pk;
    int64_t k = 0;
    while (u > F && k < n) {
        pk *= (double)(n - k) / (double)(k + 1) * p / q;
        k++;
        F += pk;
        if (pk == 0) break;
    }
    return k;
}

void spk_deliver(sim_t *s, int64_t step)
{
    struct sim_spk *k = s->spk;
    const sim_config *c = s->cfg;
    const int64_t n = s->plan.nlocal, row0 = s->plan.row0;
    spk_slot *sl = &k->ring[step % k->L];
    const spk_event *ev = sort_slot(k, sl, n);
    double *rec[2] = {s->state[c->model->receptors[0]], s->state[c->model->receptors[1]]};
    for (int64_t e = 0; e < sl->n; e++) rec[ev[e].key & 1][ev[e].target] += ev[e].w;
    k->events += sl->n;
    sl->n = 0;
    /* Poisson inputs after the synaptic events, one draw per cell and step. */
    for (int j = 0; j < c->npoisson; j++) {
        const sim_poisson *p = &k->poisson[j];
        if (step < p->step0 || step >= p->step1) continue;
        const int64_t a = p->first > row0 ? p->first : row0, b = p->last < row0 + n ? p->last : row0 + n;
        const double prob = p->rate_hz * 1e-3 * c->dt;
        double *x = rec[k->poisson_rec[j]];
        int64_t evn = 0;
#pragma omp parallel for schedule(static) reduction(+ : evn)
        for (int64_t g = a; g < b; g++) {
            double u0, u1;
            olive_uniform2(c->seed, (uint32_t)g, (uint32_t)step, (uint32_t)(step >> 32) | (uint32_t)j << 24,
                           OLIVE_STREAM_POISSON, &u0, &u1);
            const int64_t hits = binomial(u0, p->n, prob);
            if (hits) { x[g - row0] += (double)hits * p->weight; evn += hits; }
        }
        k->poisson_events += evn;
    }
}
