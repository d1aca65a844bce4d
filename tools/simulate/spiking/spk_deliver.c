/* Spike exchange and event delivery (spk.h): the spikes of a window, from
 * every rank, are put in (step, source id) order and each adds its weights
 * into the slots of the steps they are due; a slot is added to the receptor
 * variables at its step. */
#include "spk.h"
#include "poisson_input.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int64_t *spk_gather_window(sim_t *s, int64_t *total_out)
{
    struct sim_spk *k = s->spk;
    /* This window's own spikes: (step offset in the window) << 32 | cell, so
     * that sorting the numbers sorts by step, then cell. */
    int64_t m = k->restart.ncarry;   /* (a restart's spikes of the window before it: spk_plastic.c) */
    for (int t = 0; t < s->nthreads; t++) m += s->tspike_n[t] - k->mark[t];
    if (m > INT32_MAX) olive_die("rank %d: more than 2^31 spikes in one exchange window", s->rank);
    int64_t *mine = olive_malloc((size_t)m * sizeof(int64_t) + 8, "spike exchange"), j = 0;
    for (int64_t i = 0; i < k->restart.ncarry; i++) mine[j++] = (k->restart.carry[i].step - k->window0) << 32 | k->restart.carry[i].cell;
    free(k->restart.carry);
    k->restart.carry = NULL;
    k->restart.ncarry = 0;
    for (int t = 0; t < s->nthreads; t++) {
        for (int64_t i = k->mark[t]; i < s->tspike_n[t]; i++)
            mine[j++] = (s->tspikes[t][i].step - k->window0) << 32 | s->tspikes[t][i].cell;
        k->mark[t] = s->tspike_n[t];
    }
    int cnt = (int)m, *counts = olive_malloc((size_t)s->size * sizeof(int), "spike exchange");
    int *displs = olive_malloc((size_t)s->size * sizeof(int), "spike exchange");
    int64_t *all = mine, total = m;
    if (s->size > 1) {
        const double m0 = olive_now();
        SIM_CHECK_MPI(MPI_Allgather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD));
        total = 0;
        for (int q = 0; q < s->size; q++) {
            if (total > INT32_MAX) olive_die("more than 2^31 spikes in one exchange window");
            displs[q] = (int)total;
            total += counts[q];
        }
        all = olive_malloc((size_t)total * sizeof(int64_t) + 8, "spike exchange");
        SIM_CHECK_MPI(MPI_Allgatherv(mine, cnt, MPI_INT64_T, all, counts, displs, MPI_INT64_T, MPI_COMM_WORLD));
        s->t.mpi += olive_now() - m0;
    }
    qsort(all, (size_t)total, sizeof(int64_t), cmp_i64);
    if (all != mine) free(mine);
    free(counts); free(displs);
    k->exchanged += total;
    *total_out = total;
    return all;
}

/* The events of one spike into the delay ring. Only a restart's replayed
 * spikes (sstep < min_due) and those near the run's end test each
 * synapse's due step: the exchange's calls, the hot ones, skip those tests
 * with loop-invariant flags. An event due after the run's last step is
 * counted but not queued: a ring of fewer slots than the delays (a run
 * shorter than them) holds only the steps still to run. */
/* A spike through plastic synapses (spk_plastic.c): every synapse's update
 * in list order, its event due whether or not the run reaches it. */
static int64_t queue_plastic(struct sim_spk *k, int64_t g, int64_t sstep, double dt)
{
    const int slots = k->slots;
    const int64_t x0 = k->out_ptr[g], no = k->out_ptr[g + 1] - x0;
    for (int64_t e = 0; e < no; e++) {
        const int64_t x = x0 + e;
        const int d = k->out_delay[x];
        const spk_out *o = &k->out[x];
        const double w = k->plastic_proj[x] < 0 ? o->w : spk_plastic_pre(k, x, sstep, d, dt);   /* (static: as is) */
        /* (no test of the run's end: the ring has a slot per delay step, and
         * the events due after the run stay queued for its state) */
        spk_slot *sl = &k->ring[(sstep + d) % slots];
        const int32_t r = o->target;
        if (!sl->touched[r]) { sl->touched[r] = 1; sl->list[sl->n++] = r; }
        sl->acc[o->receptor][r] += w;
    }
    return no;
}

static inline int64_t queue_events(struct sim_spk *k, int64_t g, int64_t sstep, int64_t min_due)
{
    const int slots = k->slots;
    const spk_out *o = k->out + k->out_ptr[g];
    const uint16_t *d = k->out_delay + k->out_ptr[g];
    const int64_t no = k->out_ptr[g + 1] - k->out_ptr[g];
    const int replay = sstep < min_due, clip = sstep + (k->L - 1) >= k->end;
    int64_t queued = 0;
    for (int64_t e = 0; e < no; e++) {
        if (replay && sstep + d[e] < min_due) continue;   /* delivered before the restart's first step */
        queued++;
        if (clip && sstep + d[e] >= k->end) continue;
        spk_slot *sl = &k->ring[(sstep + d[e]) % slots];
        const int32_t r = o[e].target;
        if (!sl->touched[r]) { sl->touched[r] = 1; sl->list[sl->n++] = r; }
        sl->acc[o[e].receptor][r] += o[e].w;
    }
    return queued;
}

int64_t spk_queue_spike(sim_t *s, int64_t g, int64_t sstep, int64_t min_due)
{
    return queue_events(s->spk, g, sstep, min_due);
}

void spk_exchange(sim_t *s, int64_t step)
{
    struct sim_spk *k = s->spk;
    int64_t total;
    int64_t *all = spk_gather_window(s, &total);
    if (k->plastic) {
        for (int64_t i = 0; i < total; i++)
            k->events += queue_plastic(k, all[i] & 0xffffffff, k->window0 + (all[i] >> 32), s->cfg->run.dt);
    } else {
        for (int64_t i = 0; i < total; i++)
            k->events += queue_events(k, all[i] & 0xffffffff, k->window0 + (all[i] >> 32), 0);
    }
    (void)step;
    free(all);
}

/* A point model's receptor q's factor for own cell r: receptor_scale[q], times
 * the cell's coefficient receptor_coef[q] when the scale depends on its
 * parameters (model_plugin.h; NESTML's e/tau_syn of alpha kernels).
 * Spike sources (no coefficient set) have no receptors that matter. */
double spk_plugin_scale(const struct sim_spk *k, int q, int64_t r)
{
    const olive_model_plugin *pl = k->point;
    const int c = pl->receptor_coef ? pl->receptor_coef[q] : -1;
    if (c < 0 || k->coef_of[r] < 0) return pl->receptor_scale[q];
    return pl->receptor_scale[q] * k->pcoef[(size_t)k->coef_of[r] * (size_t)pl->ncoef + (size_t)c];
}

/* Step 3's events into a point model's receptors: the factor times the
 * summed weights, receptor by receptor (model_plugin.h; the built-in
 * models' factors are 1: the sums themselves, bit for bit). */
static void deliver_point(struct sim_spk *k, spk_slot *sl, double *const *rec)
{
    const int nr = k->point->model.nreceptors;
    const int64_t nt = sl->n;
#pragma omp parallel for schedule(static) if (nt > 4096)
    for (int64_t i = 0; i < nt; i++) {
        const int32_t r = sl->list[i];
        for (int q = 0; q < nr; q++) {
            rec[q][r] += spk_plugin_scale(k, q, r) * sl->acc[q][r];
            sl->acc[q][r] = 0;
        }
        sl->touched[r] = 0;
    }
}

void spk_deliver(sim_t *s, int64_t step)
{
    struct sim_spk *k = s->spk;
    const sim_config *c = s->cfg;
    const int64_t n = s->plan.nlocal, row0 = s->plan.row0;
    spk_slot *sl = &k->ring[step % k->slots];
    double *rec[OLIVE_NVARS];
    for (int q = 0; q < c->run.model->nreceptors; q++) rec[q] = s->state[c->run.model->receptors[q]];
    const int64_t nt = sl->n;
    if (k->point) {
        deliver_point(k, sl, rec);
    } else {   /* cable cells: their two receptors, and synapse sites' channels */
#pragma omp parallel for schedule(static) if (nt > 4096)
        for (int64_t i = 0; i < nt; i++) {
            const int32_t r = sl->list[i];
            if (r < n) {
                rec[0][r] += sl->acc[0][r];
                rec[1][r] += sl->acc[1][r];
            } else {   /* a synapse site's channel (the cell kind's): receptor 0 carries it */
                k->sites.in[r - n] += sl->acc[0][r];
            }
            sl->acc[0][r] = sl->acc[1][r] = 0;
            sl->touched[r] = 0;
        }
    }
    sl->n = 0;
    /* Poisson inputs after the synaptic events, one draw per cell and step. */
    for (int j = 0; j < c->spiking.npoisson; j++) {
        const sim_poisson *p = &k->poisson.in[j];
        if (step < p->step0 || step >= p->step1) continue;
        const int64_t a = p->first > row0 ? p->first : row0, b = p->last < row0 + n ? p->last : row0 + n;
        double *x = rec[k->poisson.rec[j]];
        const double *fac = k->poisson.fac + (size_t)j * OLIVE_BINOMIAL_FACTORS;
        int64_t evn = 0;
#pragma omp parallel for schedule(static) reduction(+ : evn) if (b - a >= SPK_PARALLEL_MIN_CELLS)
        for (int64_t g = a; g < b; g++) {
            const int64_t hits = olive_poisson_input_hits_f(c->run.seed, g, step, j, p->n, p->prob, p->p0, fac);
            /* a point model's receptor scales its events (the built-in models': 1, the same bits) */
            const double w = k->point ? spk_plugin_scale(k, k->poisson.rec[j], g - row0) * p->weight : p->weight;
            if (hits) { x[g - row0] += (double)hits * w; evn += hits; }
        }
        k->poisson_events += evn;
    }
}
