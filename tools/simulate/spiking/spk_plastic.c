/* Plastic synapses on the CPU engine (plasticity.h is the physics; docs/
 * MODELS.md, "Plastic synapses"). Each synapse of a plastic projection has
 * a state beside its entry in the per-source lists (k->out); a presynaptic
 * spike updates it where the exchange queues the spike's events
 * (spk_deliver.c), one synapse at a time in spike order, so a synapse
 * sees its spikes in time order and every weight comes out the same on
 * any rank or thread count. An stdp synapse reads its target's spikes: the
 * cells with stdp inputs keep them (steps and Kminus), recorded after step
 * 2 of every step, before the exchange reads them. */
#include "spk.h"
#include "h5util.h"
#include "plasticity_io.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

/* The synapses' states, and with them the per-projection tables. */
struct spk_plastic {
    int nproj;
    int64_t ncells;                   /* own cells */
    olive_plasticity *rule;           /* per projection (rule NONE: static) */
    char (*name)[OLIVE_NAME_LEN];
    int64_t *first, *count, *total;   /* per projection: this rank's synapses' first index in file order, their
                                         number, and the projection's synapses on all ranks */
    int16_t *proj_of;                 /* per out entry: its projection if plastic, else -1 */
    int64_t *index_of;                /* per out entry: its index within its projection's synapses on this rank */
    olive_plast_state *st;            /* per out entry */
    /* per own cell: its spikes (steps, Kminus after each) when it has stdp inputs */
    int64_t **post_step;
    double **post_kminus;
    int64_t *post_n, *post_cap;
    double *kminus, *last_t, *tau_minus;   /* tau_minus 0: no stdp input */
};

int spk_plastic_any(const olive_synapses *syn)
{
    for (int j = 0; j < syn->n; j++)
        if (syn->proj[j].plast.rule != OLIVE_PLAST_NONE) return 1;
    return 0;
}

void spk_plastic_setup(sim_t *s, const olive_synapses *syn)
{
    struct sim_spk *k = s->spk;
    const sim_config *c = s->cfg;
    if (!spk_plastic_any(syn)) return;
    if (olive_model_is_cable(c->run.model))
        olive_die("%s: plastic synapses onto %s cells: plasticity runs on integrate-and-fire and plugin models, so far",
                  c->run.net_path, c->run.model->name);
    const int64_t n = s->plan.nlocal, N = s->net.count;
    struct spk_plastic *P = olive_calloc(1, sizeof *P, "plastic synapses");
    k->plastic = P;
    P->nproj = syn->n;
    P->ncells = n;
    P->rule = olive_malloc((size_t)syn->n * sizeof *P->rule, "plastic synapses");
    P->name = olive_malloc((size_t)syn->n * sizeof *P->name, "plastic synapses");
    P->first = olive_calloc((size_t)syn->n, sizeof(int64_t), "plastic synapses");
    P->count = olive_calloc((size_t)syn->n, sizeof(int64_t), "plastic synapses");
    P->total = olive_calloc((size_t)syn->n, sizeof(int64_t), "plastic synapses");
    P->tau_minus = olive_calloc((size_t)n + 1, sizeof(double), "plastic synapses");
    int *tau_from = olive_malloc((size_t)n * sizeof(int) + 4, "plastic synapses");
    for (int j = 0; j < syn->n; j++) {
        const olive_projection *p = &syn->proj[j];
        P->rule[j] = p->plast;
        snprintf(P->name[j], OLIVE_NAME_LEN, "%s", p->name);
        P->count[j] = p->nnz;
        if (p->plast.rule == OLIVE_PLAST_NONE) continue;
        for (int64_t e = 0; e < p->nnz; e++) {
            const char *bad = olive_plast_weight_fault(&p->plast, olive_syn_w(p, e));
            if (bad)
                olive_die("%s: /synapses/%s: synapse %lld has weight %g: %s", c->run.net_path, p->name,
                          (long long)(p->e0 + e), olive_syn_w(p, e), bad);
            if (!p->weight) break;
        }
        if (p->plast.rule != OLIVE_PLAST_STDP) continue;
        /* NEST keeps tau_minus on the target: one value a cell */
        const double tm = p->plast.par[OLIVE_STDP_TAU_MINUS];
        for (int64_t r = 0; r < n; r++) {
            if (p->row_ptr[r + 1] == p->row_ptr[r]) continue;
            if (P->tau_minus[r] != 0 && P->tau_minus[r] != tm)
                olive_die("%s: /synapses/%s gives cell %lld tau_minus = %g ms, /synapses/%s %g ms: a cell has one "
                          "tau_minus (NEST keeps it on the neuron)", c->run.net_path, p->name, (long long)(s->plan.row0 + r),
                          tm, syn->proj[tau_from[r]].name, P->tau_minus[r]);
            P->tau_minus[r] = tm;
            tau_from[r] = j;
        }
    }
    free(tau_from);
    SIM_CHECK_MPI(MPI_Exscan(P->count, P->first, syn->n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    if (s->rank == 0) memset(P->first, 0, (size_t)syn->n * sizeof(int64_t));   /* (MPI_Exscan leaves rank 0's undefined) */
    SIM_CHECK_MPI(MPI_Allreduce(P->count, P->total, syn->n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    /* Where each synapse sits in the lists: a source's list is in (target,
     * projection, synapse) order (spk_setup.c), so walking the rows in that
     * order and counting per source finds every one. */
    const int64_t nsyn = k->out_ptr ? k->out_ptr[N] : 0;
    P->proj_of = olive_malloc_huge((size_t)nsyn * sizeof(int16_t) + 2, "plastic synapses");
    P->index_of = olive_malloc_huge((size_t)nsyn * sizeof(int64_t) + 8, "plastic synapses");
    P->st = olive_malloc_huge((size_t)nsyn * sizeof(olive_plast_state) + sizeof(olive_plast_state), "plastic synapses");
    int64_t *fill = olive_calloc((size_t)N + 1, sizeof(int64_t), "plastic synapses");
    for (int64_t r = 0; r < n; r++)
        for (int j = 0; j < syn->n; j++) {
            const olive_projection *p = &syn->proj[j];
            for (int64_t e = p->row_ptr[r]; e < p->row_ptr[r + 1]; e++) {
                const int64_t x = k->out_ptr[p->col[e]] + fill[p->col[e]]++;
                P->proj_of[x] = p->plast.rule == OLIVE_PLAST_NONE ? -1 : (int16_t)j;
                P->index_of[x] = e;
                olive_plast_initial(&p->plast, &P->st[x]);
            }
        }
    free(fill);
    P->post_step = olive_calloc((size_t)n + 1, sizeof(int64_t *), "plastic synapses");
    P->post_kminus = olive_calloc((size_t)n + 1, sizeof(double *), "plastic synapses");
    P->post_n = olive_calloc((size_t)n + 1, sizeof(int64_t), "plastic synapses");
    P->post_cap = olive_calloc((size_t)n + 1, sizeof(int64_t), "plastic synapses");
    P->kminus = olive_calloc((size_t)n + 1, sizeof(double), "plastic synapses");
    P->last_t = olive_malloc((size_t)(n + 1) * sizeof(double), "plastic synapses");
    for (int64_t r = 0; r <= n; r++) P->last_t[r] = -1.0;   /* NEST's last_spike_ before any */
}

void spk_plastic_post(sim_t *s, int64_t step)
{
    struct spk_plastic *P = s->spk->plastic;
    const double dt = s->cfg->run.dt;
    for (int64_t r = 0; r < s->plan.nlocal; r++) {
        if (!s->flags[r] || P->tau_minus[r] == 0) continue;
        if (P->post_n[r] == P->post_cap[r]) {
            P->post_cap[r] = P->post_cap[r] ? 2 * P->post_cap[r] : 16;
            P->post_step[r] = olive_realloc(P->post_step[r], (size_t)P->post_cap[r] * sizeof(int64_t), "spike history");
            P->post_kminus[r] = olive_realloc(P->post_kminus[r], (size_t)P->post_cap[r] * sizeof(double), "spike history");
        }
        P->kminus[r] = olive_stdp_kminus_after(P->kminus[r], P->last_t[r], step, dt, P->tau_minus[r]);
        P->last_t[r] = olive_plast_time(step, dt);
        P->post_step[r][P->post_n[r]] = step;
        P->post_kminus[r][P->post_n[r]++] = P->kminus[r];
    }
}

double spk_plastic_pre(struct sim_spk *k, int64_t x, int64_t sstep, int d, double dt)
{
    struct spk_plastic *P = k->plastic;
    spk_out *o = &k->out[x];
    if (P->proj_of[x] < 0) return o->w;   /* a static synapse */
    const olive_plasticity *rule = &P->rule[P->proj_of[x]];
    switch (rule->rule) {
    case OLIVE_PLAST_STDP: {
        const int32_t r = o->target;
        const olive_post_history h = {P->post_step[r], P->post_kminus[r], P->post_n[r]};
        return olive_stdp_pre(rule->par, dt, sstep, d, h, &o->w, &P->st[x]);
    }
    case OLIVE_PLAST_TSODYKS:
        return olive_tsodyks_pre(rule->par, dt, sstep, o->w, &P->st[x]);
    default:
        return olive_tsodyks2_pre(rule->par, dt, sstep, o->w, &P->st[x]);
    }
}

/* One variable of projection j's synapses on this rank, in file order. */
static void write_column(sim_t *s, const char *path, hid_t g, int j, const char *name, int var, hid_t xfer, uint64_t *part)
{
    struct sim_spk *k = s->spk;
    struct spk_plastic *P = k->plastic;
    const int64_t nsyn = k->out_ptr[s->net.count], m = P->count[j];
    const int is_int = var == 4;
    double *v = olive_malloc((size_t)m * sizeof(double) + 8, "plastic synapses");
    int64_t *iv = (int64_t *)v;   /* (the same size) */
    for (int64_t x = 0; x < nsyn; x++) {
        if (P->proj_of[x] != j) continue;
        const int64_t e = P->index_of[x];
        if (var == 3) v[e] = k->out[x].w;
        else if (is_int) iv[e] = P->st[x].last;
        else v[e] = P->st[x].s[var];
    }
    hid_t d = olive_h5_dset1(path, g, name, is_int ? H5T_STD_I64LE : H5T_IEEE_F64LE, P->total[j], 0);
    if (P->total[j] > 0) olive_h5_write_slab1(path, d, is_int ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, P->first[j], m, v, xfer);
    char what[160];
    snprintf(what, sizeof what, "state/plastic/%s/%s", P->name[j], name);
    *part += sim_state_hash(what, P->first[j], m, v, 8);
    olive_h5_close(path, d, what);
    free(v);
}

uint64_t spk_plastic_write(sim_t *s, const char *path, hid_t state_group, hid_t xfer)
{
    struct spk_plastic *P = s->spk->plastic;
    if (!P) return 0;
    uint64_t part = 0;
    hid_t pg = olive_h5_group(path, state_group, "plastic");
    for (int j = 0; j < P->nproj; j++) {
        const int rule = P->rule[j].rule;
        if (rule == OLIVE_PLAST_NONE) continue;
        hid_t g = olive_h5_group(path, pg, P->name[j]);
        olive_h5_attr_str(path, g, "plasticity", olive_plast_rule_name(rule));
        write_column(s, path, g, j, "weight", 3, xfer, &part);
        write_column(s, path, g, j, "last_spike_step", 4, xfer, &part);
        if (rule == OLIVE_PLAST_STDP) write_column(s, path, g, j, "Kplus", 0, xfer, &part);
        if (rule != OLIVE_PLAST_STDP) write_column(s, path, g, j, "x", 0, xfer, &part);
        if (rule == OLIVE_PLAST_TSODYKS) write_column(s, path, g, j, "y", 1, xfer, &part);
        if (rule != OLIVE_PLAST_STDP) write_column(s, path, g, j, "u", 2, xfer, &part);
        olive_h5_close(path, g, "a group of /state/plastic");
    }
    olive_h5_close(path, pg, "group /state/plastic");
    return part;
}

void spk_plastic_free(struct sim_spk *k)
{
    struct spk_plastic *P = k->plastic;
    if (!P) return;
    for (int64_t r = 0; P->post_step && r < P->ncells; r++) { free(P->post_step[r]); free(P->post_kminus[r]); }
    free(P->post_step); free(P->post_kminus);
    free(P->rule); free(P->name); free(P->first); free(P->count); free(P->total);
    free(P->proj_of); free(P->index_of); free(P->st);
    free(P->post_n); free(P->post_cap); free(P->kminus); free(P->last_t); free(P->tau_minus);
    free(P);
    k->plastic = NULL;
}
