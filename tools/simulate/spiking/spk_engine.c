/* The CPU engine of spiking networks of point models: steps 1, 2 and 4 of
 * the schedule (spk.h) on OpenMP threads over the own cells, through the
 * point model's cell functions (point_model.h), one path for every model;
 * exchange and delivery in spk_deliver.c. */
#include "spk.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <omp.h>

void spk_add_spike(sim_t *s, int t, int64_t step, int64_t cell)
{
    if (s->tspike_n[t] == s->tspike_cap[t]) {
        s->tspike_cap[t] = s->tspike_cap[t] ? 2 * s->tspike_cap[t] : 1024;
        s->tspikes[t] = olive_realloc(s->tspikes[t], (size_t)s->tspike_cap[t] * sizeof(sim_spike), "spikes");
    }
    s->tspikes[t][s->tspike_n[t]++] = (sim_spike){step, cell};
}

const double *spk_pulse_currents(sim_t *s, int64_t step)
{
    struct sim_spk *k = s->spk;
    const int64_t n = s->plan.nlocal, row0 = s->plan.row0;
    const sim_pulse *active = s->active;
    const int nactive = sim_active_pulses(&s->cfg->stim, step, s->active);
    if (!nactive) return NULL;
    /* pulse by pulse over its own cells: each cell's sum still adds its
     * pulses in pulse order from 0 (the same bits as a per-cell loop), in
     * O(cells + pulsed cells) rather than O(cells x pulses) */
    memset(k->cur, 0, (size_t)n * sizeof(double));
    for (int a = 0; a < nactive; a++) {
        const int64_t lo = active[a].first > row0 ? active[a].first - row0 : 0;
        const int64_t hi = active[a].last < 0 || active[a].last > row0 + n ? n : active[a].last - row0;
        for (int64_t r = lo; r < hi; r++) k->cur[r] += active[a].amp;
    }
    return k->cur;
}

void spk_window_end(sim_t *s, int64_t step)
{
    struct sim_spk *k = s->spk;
    if (k->plastic) spk_plastic_post(s, step);   /* (the exchange's stdp synapses read them) */
    if (k->zero_delay || (step + 1 - k->window0) % k->D == 0) {
        double tx = olive_now();
        spk_exchange(s, step);
        k->window0 = step + 1;
        s->t.exchange += olive_now() - tx;
    }
}

/* ---- point models (point_model.h: the built-in integrate-and-fire models
 * and plugins alike): model_plugin.h's schedule through the model's step,
 * condition and on_spike ---- */

/* The first own cell of [a, b) with a non-finite variable, as a global id. */
static int64_t first_nonfinite(const sim_t *s, double *const *x, int64_t a, int64_t b)
{
    for (int64_t r = a; r < b; r++)
        for (int v = 0; v < s->cfg->run.model->nvars; v++)
            if (!isfinite(x[v][r])) return s->plan.row0 + r;
    return INT64_MAX;
}

/* s->bad_what: which variable of own cell r is non-finite; the variable an
 * adaptive solver keeps its step size in (NESTML's __h_int) means the
 * solver gave up (plugin_rkf45.h). */
static void name_nonfinite(sim_t *s, double *const *x, int64_t r)
{
    const olive_cell_model *m = s->cfg->run.model;
    for (int v = 0; v < m->nvars; v++) {
        if (isfinite(x[v][r])) continue;
        if (!strcmp(m->var_names[v], "__h_int"))
            snprintf(s->bad_what, sizeof s->bad_what, "the RKF45 solver of model %s gave up: its step size fell below "
                     "1e-12 of dt, or it took more than 10000 tries in one step (gsl_abs_error_tol and gsl_rel_error_tol "
                     "too small for doubles, or equations that blow up)", m->name);
        else
            snprintf(s->bad_what, sizeof s->bad_what, "variable %s of model %s", m->var_names[v], m->name);
        return;
    }
}

/* Steps 1 (cells, and the spike sources' flags) or 2 (the condition) of
 * the own cells [lo, hi) of one thread, run by run of one coefficient set;
 * returns the first non-finite cell of step 1, else INT64_MAX. */
static int64_t point_pass(sim_t *s, int64_t lo, int64_t hi, const double *cur, double *const *x, int cond, int64_t step)
{
    const struct sim_spk *k = s->spk;
    const olive_model_plugin *pl = k->point;
    int64_t bad = INT64_MAX;
    for (int64_t a = lo; a < hi;) {
        int64_t b = a + 1;
        while (b < hi && k->coef_of[b] == k->coef_of[a]) b++;
        if (k->coef_of[a] < 0) {   /* spike sources: their flags with step 1 */
            for (int64_t r = a; r < b && !cond; r++)
                s->flags[r] = (unsigned char)olive_source_fires(&k->sources.src, s->cfg->run.seed, r, s->plan.row0 + r, step);
            a = b;
            continue;
        }
        const double *coef = k->pcoef + (size_t)k->coef_of[a] * (size_t)pl->ncoef;
        if (cond) {
            pl->condition(coef, a, b, x, s->flags);
        } else if (!pl->step(coef, a, b, cur, x) && bad == INT64_MAX) {
            bad = first_nonfinite(s, x, a, b);
        }
        a = b;
    }
    return bad;
}

/* Steps 1 and 2 (2 also when both): the spikes of step 2 to thread t's list. */
static int64_t point_cells(sim_t *s, int64_t step, const double *cur, double *const *x, int update, int cond)
{
    const int64_t n = s->plan.nlocal;
    int64_t bad = INT64_MAX;
#pragma omp parallel reduction(min : bad) if (n >= SPK_PARALLEL_MIN_CELLS)
    {
        const int t = omp_get_thread_num(), T = omp_get_num_threads();
        const int64_t lo = n * t / T, hi = n * (t + 1) / T;
        if (update) bad = point_pass(s, lo, hi, cur, x, 0, step);
        if (cond) {
            point_pass(s, lo, hi, cur, x, 1, step);
            for (int64_t r = lo; r < hi; r++)
                if (s->flags[r]) spk_add_spike(s, t, step, s->plan.row0 + r);
        }
    }
    return bad;
}

static void point_step(sim_t *s, int64_t step)
{
    struct sim_spk *k = s->spk;
    const olive_model_plugin *pl = k->point;
    const int64_t n = s->plan.nlocal;
    double *x[OLIVE_NVARS];
    for (int v = 0; v < pl->model.nvars; v++) x[v] = s->state[v];
    const double *cur = spk_pulse_currents(s, step);
    const int late = pl->inputs_before_condition;   /* order 1, 3, 2, 4 (no delay of 0: spk_setup.c) */
    const double t0 = olive_now();
    const int64_t bad = point_cells(s, step, cur, x, 1, !late);
    if (bad != INT64_MAX && s->bad_step < 0) {
        s->bad_step = step;
        s->bad_cell = bad;
        name_nonfinite(s, x, bad - s->plan.row0);
    }
    if (late) {   /* (the delivery counts as compute, as in the other order; the exchange as exchange) */
        spk_deliver(s, step);
        point_cells(s, step, cur, x, 0, 1);
        s->t.compute += olive_now() - t0;
        spk_window_end(s, step);
    } else {
        s->t.compute += olive_now() - t0;
        spk_window_end(s, step);
    }
    const double t1 = olive_now();
    if (!late) spk_deliver(s, step);
#pragma omp parallel for schedule(static) if (n >= SPK_PARALLEL_MIN_CELLS)
    for (int64_t r = 0; r < n; r++)
        if (s->flags[r] && k->coef_of[r] >= 0) pl->on_spike(k->pcoef + (size_t)k->coef_of[r] * (size_t)pl->ncoef, r, x);
    s->t.compute += olive_now() - t1;
}

/* The state lives on the host: nothing to set up, fetch or free here
 * (sim_free_spiking frees the synapses). */
static void point_setup(sim_t *s) { (void)s; }
static void point_fetch(sim_t *s, int all) { (void)s; (void)all; }
static double point_energy_j(sim_t *s, int *owner) { (void)s; *owner = 0; return -1; }
static void point_free(sim_t *s) { (void)s; }

const sim_engine sim_engine_point_cpu = {"cpu", 0, 1, point_setup, point_step, point_fetch, point_energy_j, point_free,
                                         NULL, NULL, NULL, NULL};
