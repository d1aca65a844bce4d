/* What a session reads and changes between runs: spikes so far, a
 * variable's values, plastic weights, Poisson rates (and the stimulus
 * file's rate changes, applied by the step loop at their steps). */
#include "sim_session.h"
#include "spk.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

void sim_session_rates_due(olive_session *x, int64_t i)
{
    const sim_stim_config *st = &x->cfg.stim;
    for (; x->next_rate < st->nrates && st->rates[x->next_rate].step <= i; x->next_rate++)
        sim_set_poisson_rate(&x->s, st->rates[x->next_rate].input, st->rates[x->next_rate].rate_hz, st->path);
}

int64_t sim_session_next_rate_step(const olive_session *x)
{
    const sim_stim_config *st = &x->cfg.stim;
    return x->next_rate < st->nrates ? st->rates[x->next_rate].step : INT64_MAX;
}

static int by_step_then_cell(const void *a, const void *b)
{
    const sim_spike *p = a, *q = b;
    if (p->step != q->step) return p->step < q->step ? -1 : 1;
    return (p->cell > q->cell) - (p->cell < q->cell);
}

int64_t sim_session_spikes(olive_session *x, int64_t *steps, int64_t *cells, int64_t cap)
{
    sim_t *s = &x->s;
    int64_t n = 0;
    for (int t = 0; t < s->nthreads; t++) n += s->tspike_n[t] - x->taken[t];
    if (!steps || !cells) return n;
    if (cap < n) olive_die("olive_session_spikes: room for %lld spikes, %lld to take", (long long)cap, (long long)n);
    sim_spike *all = olive_malloc((size_t)n * sizeof *all + 1, "spikes");
    int64_t k = 0;
    for (int t = 0; t < s->nthreads; t++) {
        memcpy(all + k, s->tspikes[t] + x->taken[t], (size_t)(s->tspike_n[t] - x->taken[t]) * sizeof *all);
        k += s->tspike_n[t] - x->taken[t];
        x->taken[t] = s->tspike_n[t];
    }
    qsort(all, (size_t)n, sizeof *all, by_step_then_cell);
    for (int64_t i = 0; i < n; i++) { steps[i] = all[i].step; cells[i] = all[i].cell; }
    free(all);
    return n;
}

int64_t sim_session_get(olive_session *x, const char *name, double *out, int64_t cap)
{
    sim_t *s = &x->s;
    const olive_cell_model *m = x->cfg.run.model;
    int v = 0;
    while (v < m->nvars && strcmp(m->var_names[v], name)) v++;
    if (v == m->nvars) {
        char names[512] = "";
        for (int i = 0; i < m->nvars; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", m->var_names[i]);
        olive_usage_error("model %s has no variable %s (it has %s)", m->name, name, names);
    }
    const int64_t n = s->plan.nlocal;
    if (!out) return n;
    if (cap < n) olive_die("olive_session_get: room for %lld values, %lld cells", (long long)cap, (long long)n);
    /* every cell's variables; a spiking engine's fetch without `all` leaves out only the plastic
     * synapses' state (on the GPU most of the copy: 4.8 ms at 1e6 synapses), InfOli's all but the
     * recorded cells */
    s->engine->fetch(s, s->spk ? 0 : 1);
    for (int64_t i = 0; i < n; i++)
        out[i] = x->cfg.run.single ? (double)((const float *)s->state[v])[i] : ((const double *)s->state[v])[i];
    return n;
}

/* A projection's synapses on this rank in the order of the engine's list
 * (x ascending: a read walks the list's weights in memory order), each with
 * its index in the projection (e). */
struct sim_weight_cache {
    char name[64];
    int64_t n, *x, *e;
};

static int by_entry(const void *a, const void *b)
{
    const int64_t *p = a, *q = b;
    return (p[0] > q[0]) - (p[0] < q[0]);
}

/* Projection proj's synapses on this rank (selected at the first read). */
static const struct sim_weight_cache *weight_selection(olive_session *x, const char *proj)
{
    sim_t *s = &x->s;
    for (int i = 0; i < x->nweights; i++)
        if (!strcmp(x->weights[i].name, proj)) return &x->weights[i];
    if (!s->spk) olive_usage_error("%s: an InfOli network has no plastic projections", x->cfg.run.net_path);
    spk_weight_sel sel;
    const int fault = spk_plastic_select(s, proj, 0, -1, &sel);
    char names[1024];
    if (fault == -1)
        olive_usage_error("%s has no plastic projection %s (its plastic projections: %s)", x->cfg.run.net_path, proj,
                          spk_plastic_names(s, names, sizeof names));
    if (fault == -2) olive_usage_error("projection %s of %s is static: its weights are the network file's", proj, x->cfg.run.net_path);
    int64_t (*pair)[2] = olive_malloc((size_t)sel.n * sizeof *pair + 16, "session");
    for (int64_t j = 0; j < sel.n; j++) { pair[j][0] = sel.x[j]; pair[j][1] = sel.e0 + j; }
    qsort(pair, (size_t)sel.n, sizeof *pair, by_entry);
    x->weights = olive_realloc(x->weights, (size_t)(x->nweights + 1) * sizeof *x->weights, "session");
    struct sim_weight_cache *c = &x->weights[x->nweights++];
    snprintf(c->name, sizeof c->name, "%s", proj);
    c->n = sel.n;
    c->x = olive_malloc((size_t)sel.n * sizeof *c->x + 8, "session");
    c->e = olive_malloc((size_t)sel.n * sizeof *c->e + 8, "session");
    for (int64_t j = 0; j < sel.n; j++) { c->x[j] = pair[j][0]; c->e[j] = pair[j][1]; }
    free(pair);
    free(sel.x); free(sel.target); free(sel.source);
    return c;
}

int64_t sim_session_weights(olive_session *x, const char *proj, int64_t *index, double *w, int64_t cap)
{
    sim_t *s = &x->s;
    const struct sim_weight_cache *c = weight_selection(x, proj);
    const int64_t n = c->n;
    if (!w && !index) return n;
    if (cap < n) olive_die("olive_session_weights: room for %lld weights, %lld synapses", (long long)cap, (long long)n);
    if (index) memcpy(index, c->e, (size_t)n * sizeof *index);
    if (!w) return n;
    if (s->engine->weights) {
        s->engine->weights(s, c->x, n, w);
    } else {
        const int64_t *xs = c->x;
        const spk_out *out = s->spk->out;
#pragma omp parallel for schedule(static) num_threads(s->nthreads)
        for (int64_t j = 0; j < n; j++) w[j] = out[xs[j]].w;
    }
    return n;
}

/* The local ranges of variable v's recorded cells (made once). */
static void recorded_ranges(olive_session *x, int v)
{
    if (x->frames[v].r || !x->cfg.rec.vars[v]) return;
    const sim_t *s = &x->s;
    x->frames[v].nr = sim_cellset_slice(&x->cfg.rec.cells[v], s->plan.row0, s->plan.row0 + s->plan.nlocal, &x->frames[v].r);
    int64_t cols = 0;
    for (int i = 0; i < x->frames[v].nr; i++) cols += x->frames[v].r[i][1] - x->frames[v].r[i][0];
    x->frames[v].cols = cols;
}

void sim_session_keep_frame(olive_session *x)
{
    const sim_t *s = &x->s;
    for (int v = 0; v < x->cfg.run.model->nvars; v++) {
        if (!x->cfg.rec.vars[v]) continue;
        recorded_ranges(x, v);
        sim_frames *f = &x->frames[v];
        if (f->n == f->cap) {
            f->cap = f->cap ? 2 * f->cap : 64;
            f->v = olive_realloc(f->v, (size_t)(f->cap * f->cols) * sizeof(double) + 8, "report frames");
        }
        double *row = f->v + f->n * f->cols;
        for (int i = 0, k = 0; i < f->nr; i++)
            for (int64_t c = f->r[i][0]; c < f->r[i][1]; c++, k++)
                row[k] = x->cfg.run.single ? (double)((const float *)s->state[v])[c] : ((const double *)s->state[v])[c];
        f->n++;
    }
}

int64_t sim_session_recorded(olive_session *x, int v, int64_t *cells, int64_t cap)
{
    if (!x->cfg.rec.vars[v]) return 0;
    recorded_ranges(x, v);
    const sim_frames *f = &x->frames[v];
    if (!cells) return f->cols;
    if (cap < f->cols) olive_die("olive_session_recorded: room for %lld cells, %lld recorded", (long long)cap, (long long)f->cols);
    for (int i = 0, k = 0; i < f->nr; i++)
        for (int64_t c = f->r[i][0]; c < f->r[i][1]; c++) cells[k++] = x->s.plan.row0 + c;
    return f->cols;
}

int64_t sim_session_frames(olive_session *x, int v, double *data, int64_t cap)
{
    sim_frames *f = &x->frames[v];
    if (!data) return f->n;
    if (cap < f->n) olive_die("olive_session_frames: room for %lld frames, %lld to take", (long long)cap, (long long)f->n);
    if (f->n) memcpy(data, f->v, (size_t)(f->n * f->cols) * sizeof(double));
    const int64_t n = f->n;
    f->n = 0;
    return n;
}

void sim_session_frames_free(olive_session *x)
{
    for (int i = 0; i < x->nweights; i++) { free(x->weights[i].x); free(x->weights[i].e); }
    free(x->weights);
    for (int v = 0; v < OLIVE_NVARS; v++) { free(x->frames[v].v); free(x->frames[v].r); }
}
