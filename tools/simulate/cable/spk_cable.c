/* Networks of cable cells (hh_traub, hh_cable: cable_model.h) on the CPU.
 * The schedule of spk.h with NEURON's order inside it: step i advances every
 * cell from t_i to t_i+1 (cable.h, with the synaptic conductances ge, gi
 * delivered so far); a cell whose soma crosses its threshold at t_i+1 spikes
 * at step i (written at t_i+1, as NEURON's NetCon records it); events due at
 * step i are added to ge, gi after the update, so they act from t_i+1 on:
 * NEURON delivers an event at t_s + delay before the step that starts
 * there. There is no reset.
 *
 * The own cells of each population form a block sharing one template (the
 * shape of cable.h); the block's node state is interleaved (node j of cell c
 * at j * cells + c), so neighbouring cells share cache lines and the layout
 * is the one a GPU kernel would read. s->state holds each cell's soma v, m,
 * h, n and the two conductances, for reports, delivery and --poisson. */
#include "spk.h"
#include "spk_cable.h"
#include "util.h"
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

enum { V_V, V_M, V_H, V_N, V_GE, V_GI };

typedef spk_cable_block cable_block;

static void block_alloc(cable_block *b)
{
    const size_t nodes = (size_t)b->shape.n * (size_t)b->n + 1;
    double **arr[] = {&b->x.v, &b->x.m, &b->x.h, &b->x.n, &b->x.d, &b->x.rhs};
    for (size_t k = 0; k < sizeof arr / sizeof arr[0]; k++) *arr[k] = olive_calloc(nodes, sizeof(double), "cable cells");
    const size_t syn = (size_t)b->shape.nsyn * (size_t)b->n + 1, cl = (size_t)b->shape.nclamps * (size_t)b->n + 1;
    b->x.syn_g = olive_calloc(syn, sizeof(double), "cable cells");
    b->x.syn_a = olive_calloc(syn, sizeof(double), "cable cells");
    b->x.clamp_amp = olive_calloc(cl, sizeof(double), "cable cells");
    if (b->shape.mset) {   /* NMODL mechanisms: their variables and the nodes' ions, interleaved as the nodes */
        const olive_mech_set *ms = b->shape.mset;
        b->x.mx = olive_calloc((size_t)ms->nx * (size_t)b->n + 1, sizeof(double), "cable cells");
        b->x.ion = olive_calloc((size_t)ms->nnode * (size_t)ms->nion * OLIVE_ION_NF * (size_t)b->n + 1, sizeof(double),
                                "cable cells");
    }
}

/* Cell c of block b at v0 (NEURON's finitialize). */
static void cell_init(cable_block *b, int64_t c, double v0, double dt)
{
    const olive_cable_cell *t = &b->t.cell;
    const int64_t st = b->n;
    for (int i = 0; i < t->n; i++) {
        b->x.v[i * st + c] = v0;
        olive_cable_gates_init(t->mechs[i], v0, b->shape.q10, t->vt[i], b->shape.hh_table, &b->x.m[i * st + c],
                               &b->x.h[i * st + c], &b->x.n[i * st + c]);
    }
    if (b->shape.mset) olive_mechs_init(b->shape.mset, b->x.v, b->x.mx, b->x.ion, c, st, dt);
}

/* The soma's values of cell c into the state row r. */
static void soma_out(sim_t *s, const cable_block *b, int64_t c, int64_t r)
{
    const int64_t at = (int64_t)b->t.soma * b->n + c;
    ((double *)s->state[V_V])[r] = b->x.v[at];
    ((double *)s->state[V_M])[r] = b->x.m[at];
    ((double *)s->state[V_H])[r] = b->x.h[at];
    ((double *)s->state[V_N])[r] = b->x.n[at];
}

static void resolve_records(sim_t *s, struct spk_cable *e);

void spk_cable_setup(sim_t *s, const olive_synapses *syn)
{
    struct sim_spk *k = s->spk;
    const sim_config *c = s->cfg;
    const int64_t r0 = s->plan.row0, r1 = s->plan.row1;
    const int kv0 = olive_model_param(c->run.model, "v0");
    struct spk_cable *e = k->cable = olive_calloc(1, sizeof *k->cable, "cable cells");
    e->b = olive_calloc((size_t)k->pops.n + 1, sizeof(cable_block), "cable cells");
    e->vprev = olive_calloc((size_t)(r1 - r0) + 1, sizeof(double), "cable cells");
    e->ref = olive_calloc((size_t)(r1 - r0) + 1, sizeof(int32_t), "cable cells");
    const olive_population *of[OLIVE_MAX_POPS];
    for (int ip = 0; ip < k->pops.n; ip++) {   /* the templates */
        const olive_population *p = &k->pops.pop[ip];
        const int64_t a = p->first > r0 ? p->first : r0, z = p->first + p->count < r1 ? p->first + p->count : r1;
        if (a >= z || olive_model_is_source(p->model)) continue;
        for (int q = 0; q < c->run.model->nparams; q++)
            if (p->percell[q] && q != kv0)
                olive_die("%s: population %s: per-cell values of %s: a %s population takes one value per population "
                          "(v0 aside)", c->run.net_path, p->name, c->run.model->params[q].name, c->run.model->name);
        of[e->nblocks] = p;
        cable_block *b = &e->b[e->nblocks++];
        b->r0 = a - r0;
        b->n = z - a;
        const olive_mech_library *lib = NULL;
        if (olive_model_needs_mechanisms(p->model)) {
            char why[3000];
            if (!(lib = olive_mechs_find(p->mechanisms, p->mechanisms_hash, why, sizeof why)))
                olive_die("%s: population %s: %s", c->run.net_path, p->name, why);
        }
        const char *fault = olive_cable_template_make(c->run.model, p->param, p->morphology, p->biophysics, lib, &b->t);
        if (fault) spk_pop_refuse(c, p, fault);
        char what[160];
        snprintf(what, sizeof what, "%s: population %s: t_ref", c->run.net_path, p->name);
        const int ref = (int)olive_ms_to_steps_or_die(olive_die, what, b->t.t_ref, c->run.dt, 0, INT32_MAX);
        b->cr = (spk_cable_cellrule){b->t.soma, b->t.rule, ref, b->t.V_th, b->t.I_e, b->t.pulse_to_nA};
    }
    resolve_records(s, e);
    spk_sites_setup(s, syn, of);   /* adds the sites' synapses to the templates */
    for (int i = 0; i < e->nblocks; i++) {   /* the cells */
        const olive_population *p = of[i];
        cable_block *b = &e->b[i];
        const int64_t a = r0 + b->r0, z = a + b->n;
        b->shape = olive_cable_shape_of(&b->t.cell);
        b->shape.mset = b->t.mset;
        block_alloc(b);
        b->elem_node = olive_malloc((size_t)b->t.cell.n * sizeof(int), "cable cells");
        for (int j = 0; j < b->t.cell.n; j++)
            if (b->t.cell.xpos[j] >= 0) b->elem_node[b->nelem++] = j;
        double *v0 = NULL;
        if (p->percell[kv0]) {
            v0 = olive_malloc((size_t)(z - a) * sizeof(double), "parameters");
            olive_pops_read_percell(c->run.net_path, p, kv0, a, z, v0);
        }
        for (int64_t g = a; g < z; g++) {
            const double v = v0 ? v0[g - a] : b->t.v0;
            if (!isfinite(v)) olive_die("%s: population %s: v0 of cell %lld is not finite", c->run.net_path, p->name, (long long)g);
            cell_init(b, g - a, v, c->run.dt);
            soma_out(s, b, g - a, g - r0);
            e->vprev[g - r0] = v;
            e->ref[g - r0] = b->t.rule == OLIVE_SPIKE_CROSSING && v > b->t.V_th;
        }
        free(v0);
        const char *loud = b->shape.mset && b->n ? olive_mechs_points_quiet(b->shape.mset, b->x.v, b->x.mx, b->x.ion, 0, b->n,
                                                                           c->run.dt) : NULL;
        if (loud)   /* (a synapse no event reached must add nothing: the rank's set of them is its rows') */
            olive_die("%s: population %s: the synapse mechanism %s carries a current before any event arrives; olive "
                      "places one per (node, receptor) that the rank's cells use, so such a synapse would make the "
                      "results depend on the rank count: a synapse for olive is at rest (no current) until an event",
                      c->run.net_path, p->name, loud);
    }
}

void spk_cable_free(sim_t *s)
{
    struct spk_cable *e = s->spk ? s->spk->cable : NULL;
    if (!e) return;
    for (int i = 0; i < e->nblocks; i++) {
        cable_block *b = &e->b[i];
        olive_cable_template_free(&b->t);
        void *p[] = {b->x.v, b->x.m, b->x.h, b->x.n, b->x.d, b->x.rhs, b->x.syn_g, b->x.syn_a, b->x.clamp_amp, b->elem_node,
                     b->x.mx, b->x.ion};
        for (size_t j = 0; j < sizeof p / sizeof p[0]; j++) free(p[j]);
    }
    spk_sites_free(e);
    free(e->b); free(e->vprev); free(e->ref); free(e);
    s->spk->cable = NULL;
}

/* The CPU steps this many cells of a block side by side: their independent
 * chains of divisions (the tree solve) fill the pipeline; each cell's
 * arithmetic is its own, in its own order (the same bits as one at a time). */
#define CABLE_CPU_CELLS 8

static void cable_step(sim_t *s, int64_t step)
{
    struct sim_spk *k = s->spk;
    struct spk_cable *e = k->cable;
    const int64_t n = s->plan.nlocal, row0 = s->plan.row0;
    const double *cur = spk_pulse_currents(s, step), t = (double)step * s->cfg->run.dt;
    const double *v = s->state[V_V];
    int64_t bad = INT64_MAX;
    const double t0 = olive_now();
#pragma omp parallel reduction(min : bad) if (n >= 8)   /* a cable cell is hundreds of LIF updates */
    {
        const int th = omp_get_thread_num(), T = omp_get_num_threads();
        const int64_t lo = n * th / T, hi = n * (th + 1) / T;
        for (int i = 0; i < e->nblocks; i++) {
            cable_block *b = &e->b[i];
            const int64_t a = lo > b->r0 ? lo : b->r0, z = hi < b->r0 + b->n ? hi : b->r0 + b->n;
            for (int64_t r = a; r < z; r += CABLE_CPU_CELLS) {   /* a few cells side by side (cable.h) */
                const int64_t w = z - r < CABLE_CPU_CELLS ? z - r : CABLE_CPU_CELLS;
                for (int64_t q = r; q < r + w; q++)
                    spk_cable_cell_pre(&b->shape, &b->x, &b->cr, e->sites, q - b->r0, b->n, q, cur, s->state[V_GE],
                                       s->state[V_GI], t, s->cfg->run.dt);
                olive_cable_cells_step(&b->shape, &b->x, r - b->r0, w, b->n, t, s->cfg->run.dt);
                for (int64_t q = r; q < r + w; q++) {
                    if (spk_cable_cell_post(&b->x, &b->cr, q - b->r0, b->n, q, s->state[V_V], s->state[V_M], s->state[V_H],
                                            s->state[V_N], s->state[V_GE], s->state[V_GI], e->vprev, e->ref))
                        spk_add_spike(s, th, step, row0 + q);
                    if (!isfinite(v[q]) && bad == INT64_MAX) bad = row0 + q;
                }
            }
        }
        for (int64_t r = lo; r < hi; r++)   /* spike sources */
            if (k->sources.src.kind[r] && olive_source_fires(&k->sources.src, s->cfg->run.seed, r, row0 + r, step))
                spk_add_spike(s, th, step, row0 + r);
    }
    if (bad != INT64_MAX && s->bad_step < 0) { s->bad_step = step; s->bad_cell = bad; }
    s->t.compute += olive_now() - t0;
    spk_window_end(s, step);
    const double t1 = olive_now();
    spk_deliver(s, step);
    s->t.compute += olive_now() - t1;
}

/* The block of row r, or NULL (a spike source). */
const spk_cable_block *spk_cable_block_of(const sim_t *s, int64_t r)
{
    const struct spk_cable *e = s->spk->cable;
    for (int i = 0; i < e->nblocks; i++)
        if (r >= e->b[i].r0 && r < e->b[i].r0 + e->b[i].n) return &e->b[i];
    return NULL;
}

int spk_cable_nelements(const sim_t *s, int64_t r)
{
    const spk_cable_block *b = spk_cable_block_of(s, r);
    return b ? b->nelem : 0;
}

void spk_cable_element(const sim_t *s, int64_t r, int k, uint32_t *section, float *pos)
{
    const spk_cable_block *b = spk_cable_block_of(s, r);
    const int j = b->elem_node[k];
    *section = (uint32_t)b->t.cell.section[j];
    *pos = (float)b->t.cell.xpos[j];
}

/* --record-compartments' NMODL names against the library: ION fields (eX,
 * iX, Xi, Xo of an ion X) or NAME_SUFFIX of a mechanism's variable. */
static void resolve_records(sim_t *s, struct spk_cable *e)
{
    const sim_config *c = s->cfg;
    const olive_mech_library *lib = NULL;   /* (every rank's, cells or not: the reports' units are collective) */
    for (int ip = 0; ip < s->spk->pops.n && !lib && c->rec.ncomp_mech; ip++) {
        const olive_population *p = &s->spk->pops.pop[ip];
        char why[3000];
        if (olive_model_needs_mechanisms(p->model) && !(lib = olive_mechs_find(p->mechanisms, p->mechanisms_hash, why, sizeof why)))
            olive_die("%s: population %s: %s", c->run.net_path, p->name, why);
    }
    for (int k = 0; k < c->rec.ncomp_mech; k++) {
        const char *nm = c->rec.comp_mech[k];
        e->rec[k].ion = e->rec[k].mech = -1;
        for (int q = 0; lib && q < lib->nion && e->rec[k].ion < 0; q++) {
            const char *x = lib->ions[q].name;
            const size_t lx = strlen(x);
            const int f = (nm[0] == 'e' && !strcmp(nm + 1, x)) ? OLIVE_ION_E : (nm[0] == 'i' && !strcmp(nm + 1, x)) ? OLIVE_ION_I
                          : (!strncmp(nm, x, lx) && !strcmp(nm + lx, "i")) ? OLIVE_ION_CI
                          : (!strncmp(nm, x, lx) && !strcmp(nm + lx, "o")) ? OLIVE_ION_CO : -1;
            if (f >= 0) { e->rec[k].ion = q; e->rec[k].field = f; }
        }
        for (int m = 0; lib && e->rec[k].ion < 0 && m < lib->nmech && e->rec[k].mech < 0; m++) {
            const olive_mech_desc *d = &lib->mech[m];
            const size_t ls = strlen(d->name), ln = strlen(nm);
            if (d->point) continue;   /* (a synapse's variable is no compartment's) */
            if (ln <= ls + 1 || nm[ln - ls - 1] != '_' || strcmp(nm + ln - ls, d->name)) continue;
            for (int v = 0; v < d->nvar; v++)
                if (strlen(d->var_names[v]) == ln - ls - 1 && !strncmp(nm, d->var_names[v], ln - ls - 1)) {
                    e->rec[k].mech = m;
                    e->rec[k].var = v;
                }
        }
        if (e->rec[k].ion < 0 && e->rec[k].mech < 0)
            olive_usage_error("--record-compartments %s: neither an ion's variable (eX, iX, Xi, Xo of an ion of the "
                              "library %s) nor a density mechanism's state, RANGE variable or current NAME_SUFFIX", nm,
                              lib ? lib->name : "(none)");
    }
}

const char *spk_cable_mech_var_unit(const sim_t *s, int k)
{
    const struct spk_cable *e = s->spk->cable;
    if (e->rec[k].ion < 0) return "1";   /* (the library does not carry NMODL's units) */
    return e->rec[k].field == OLIVE_ION_E ? "mV" : e->rec[k].field == OLIVE_ION_I ? "mA/cm2" : "mM";
}

/* NMODL variable k of row r's compartments. */
static void mech_values(const sim_t *s, const spk_cable_block *b, int k, int64_t r, double *out)
{
    const struct spk_cable *e = s->spk->cable;
    const olive_mech_set *ms = b->t.mset;
    const int64_t c = r - b->r0;
    for (int q = 0; q < b->nelem; q++) {
        const int node = b->elem_node[q];
        out[q] = NAN;
        if (!ms) continue;
        if (e->rec[k].ion >= 0) {
            const int sl = e->rec[k].ion;
            if (ms->ion_style[(int64_t)node * ms->nion + sl] & OLIVE_ION_USED)
                out[q] = b->x.ion[(((int64_t)node * ms->nion + sl) * OLIVE_ION_NF + e->rec[k].field) * b->n + c];
            continue;
        }
        for (int u = 0; u < ms->nuse; u++) {
            const olive_mech_use *us = &ms->use[u];
            if (us->m != e->rec[k].mech) continue;
            for (int j = 0; j < us->ninst; j++)
                if (us->node[j] == node) out[q] = b->x.mx[(us->x0 + (int64_t)e->rec[k].var * us->ninst + j) * b->n + c];
        }
    }
}

void spk_cable_element_values(const sim_t *s, int var, int64_t r, double *out)
{
    const spk_cable_block *b = spk_cable_block_of(s, r);
    if (!b) return;   /* a spike source: no compartments */
    if (var >= OLIVE_NVARS) {
        mech_values(s, b, var - OLIVE_NVARS, r, out);
        return;
    }
    const double *x = var == V_V ? b->x.v : var == V_M ? b->x.m : var == V_H ? b->x.h : b->x.n;
    for (int k = 0; k < b->nelem; k++) out[k] = x[(int64_t)b->elem_node[k] * b->n + (r - b->r0)];
}

/* The state lives on the host; spk_cable_free (from sim_free_spiking) frees it. */
static void cable_setup(sim_t *s) { (void)s; }
static void cable_fetch(sim_t *s, int all) { (void)s; (void)all; }
static double cable_energy_j(sim_t *s, int *owner) { (void)s; *owner = 0; return -1; }
static void cable_free(sim_t *s) { (void)s; }

static void cable_lists_built(sim_t *s) { spk_sites_chan_free(s, s->spk->cable); }

const struct spk_cell_kind spk_cable_kind = {
    spk_cable_setup, cable_lists_built, spk_cable_free, spk_cable_write_state, spk_cable_restore,
#ifdef OLIVE_HAVE_CUDA
    spk_cable_cuda_bytes, spk_cable_cuda_setup, spk_cable_cuda_update, spk_cable_cuda_fetch, spk_cable_cuda_free,
#else
    NULL, NULL, NULL, NULL, NULL,
#endif
};

const sim_engine sim_engine_cable_cpu = {"cpu", 0, 1, cable_setup, cable_step, cable_fetch, cable_energy_j, cable_free,
                                         NULL, NULL, NULL, NULL};
