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
#include <math.h>
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
    int64_t *post_dropped;            /* after a GPU run: per cell the newest spike its ring dropped, or NULL */
    int64_t post_cap_gpu;             /* the GPU's ring (entries a cell) */
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
        if (!olive_plast_uses_post(p->plast.rule)) continue;
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
    /* Where each synapse sits in the lists: its projection and index rode
     * with it through the lists' making (spk_setup.c: k->list_proj,
     * list_index); static ones get -1. */
    const int64_t nsyn = k->out_ptr ? k->out_ptr[N] : 0;
    if (!k->list_proj) olive_die("internal: plastic synapses without their list entries' projections");
    P->proj_of = k->list_proj;
    P->index_of = k->list_index;
    k->plastic_proj = P->proj_of;
    k->list_proj = NULL;
    k->list_index = NULL;
    P->st = olive_malloc_huge((size_t)nsyn * sizeof(olive_plast_state) + sizeof(olive_plast_state), "plastic synapses");
#pragma omp parallel for schedule(static)
    for (int64_t x = 0; x < nsyn; x++) {
        const olive_plasticity *pl = &syn->proj[P->proj_of[x]].plast;
        if (pl->rule == OLIVE_PLAST_NONE) P->proj_of[x] = -1;
        olive_plast_initial(pl, &P->st[x]);
    }
    P->post_step = olive_calloc((size_t)n + 1, sizeof(int64_t *), "plastic synapses");
    P->post_kminus = olive_calloc((size_t)n + 1, sizeof(double *), "plastic synapses");
    P->post_n = olive_calloc((size_t)n + 1, sizeof(int64_t), "plastic synapses");
    P->post_cap = olive_calloc((size_t)n + 1, sizeof(int64_t), "plastic synapses");
    P->kminus = olive_calloc((size_t)n + 1, sizeof(double), "plastic synapses");
    P->last_t = olive_malloc((size_t)(n + 1) * sizeof(double), "plastic synapses");
    for (int64_t r = 0; r <= n; r++) P->last_t[r] = -1.0;   /* NEST's last_spike_ before any */
    spk_synapse_hash(s);   /* now, of the file's weights (a state's check: spk_restart.c) */
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

/* A weight or event the rule made non-finite (parameters far out of range,
 * e.g. STDP's alpha = -1e300) stops the run naming the projection, the
 * synapse and the rule, not a cell's voltage a few steps later. */
static void nonfinite_weight(const struct spk_plastic *P, int64_t x, int64_t sstep, double w)
{
    const int j = P->proj_of[x];
    const olive_plasticity *rule = &P->rule[j];
    char pars[512] = "";
    for (int q = 0, used = 0; q < olive_plast_npar(rule->rule) && used < (int)sizeof pars; q++)
        used += snprintf(pars + used, sizeof pars - (size_t)used, "%s%s = %g", q ? ", " : "", olive_plast_par_name(rule->rule, q),
                         rule->par[q]);
    olive_die("plastic projection %s: synapse %lld (in the projection's file order) got the non-finite weight %g at the "
              "spike of step %lld (plasticity=%s: %s): a parameter far out of range?", P->name[j],
              (long long)(P->first[j] + P->index_of[x]), w, (long long)sstep, olive_plast_rule_name(rule->rule), pars);
}

double spk_plastic_pre(struct sim_spk *k, int64_t x, int64_t sstep, int d, double dt)
{
    struct spk_plastic *P = k->plastic;
    spk_out *o = &k->out[x];
    if (P->proj_of[x] < 0) return o->w;   /* a static synapse */
    const olive_plasticity *rule = &P->rule[P->proj_of[x]];
    olive_post_history h = {NULL, NULL, 0, 0, 0, OLIVE_POST_NONE, NULL};
    if (olive_plast_uses_post(rule->rule)) {   /* (the target's spikes: kept for stdp inputs only) */
        const int32_t r = o->target;
        h = (olive_post_history){P->post_step[r], P->post_kminus[r], P->post_n[r], 0, 0, OLIVE_POST_NONE, NULL};
    }
    const double w = olive_plast_pre(rule, dt, sstep, d, h, &o->w, &P->st[x]);
    if (!isfinite(w) || !isfinite(o->w)) nonfinite_weight(P, x, sstep, isfinite(w) ? o->w : w);
    return w;
}

/* Projection j's synapses on this rank, in file order: the weight, the
 * last spike's step and the rule's state variables (s[var[c]]), gathered
 * in one pass over the lists, then written column by column. */
static void write_columns(sim_t *s, const char *path, hid_t g, int j, hid_t xfer, uint64_t *part)
{
    struct sim_spk *k = s->spk;
    struct spk_plastic *P = k->plastic;
    const int rule = P->rule[j].rule;
    const char *state[3];
    olive_plast_state_names(rule, state);
    const char *names[5] = {"weight", "last_spike_step", state[0], state[1], state[2]};
    const int var[5] = {-1, -1, 0, 1, 2};
    const int used[5] = {1, 1, state[0] != NULL, state[1] != NULL, state[2] != NULL};
    const int64_t nsyn = k->out_ptr[s->net.count], m = P->count[j];
    double *v[5];
    for (int c = 0; c < 5; c++) v[c] = used[c] ? olive_malloc_huge((size_t)m * sizeof(double) + 8, "plastic synapses") : NULL;
#pragma omp parallel for schedule(static)
    for (int64_t x = 0; x < nsyn; x++) {
        if (P->proj_of[x] != j) continue;
        const int64_t e = P->index_of[x];
        v[0][e] = k->out[x].w;
        ((int64_t *)v[1])[e] = P->st[x].last;   /* (the same size) */
        for (int c = 2; c < 5; c++)
            if (v[c]) v[c][e] = P->st[x].s[var[c]];
    }
    for (int c = 0; c < 5; c++) {
        if (!v[c]) continue;
        hid_t d = olive_h5_dset1(path, g, names[c], c == 1 ? H5T_STD_I64LE : H5T_IEEE_F64LE, P->total[j], 0);
        if (P->total[j] > 0)
            olive_h5_write_slab1(path, d, c == 1 ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, P->first[j], m, v[c], xfer);
        char what[160];
        snprintf(what, sizeof what, "state/plastic/%s/%s", P->name[j], names[c]);
        *part += sim_state_hash(what, P->first[j], m, v[c], 8);
        olive_h5_close(path, d, what);
        free(v[c]);
    }
}

/* Datasets NAME_k of m rows each, this rank's rows at its place among the
 * ranks' (their blocks of cells follow each other: the file is the same for
 * any rank count). */
static uint64_t write_rows(sim_t *s, const char *path, hid_t g, const char *const *names, void *const *data,
                           const int *is_int, int nd, int64_t m, hid_t xfer)
{
    int64_t off = 0, total = 0;
    SIM_CHECK_MPI(MPI_Exscan(&m, &off, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    if (s->rank == 0) off = 0;
    SIM_CHECK_MPI(MPI_Allreduce(&m, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    uint64_t part = 0;
    for (int q = 0; q < nd; q++) {
        hid_t d = olive_h5_dset1(path, g, names[q], is_int[q] ? H5T_STD_I64LE : H5T_IEEE_F64LE, total, 0);
        if (total > 0) olive_h5_write_slab1(path, d, is_int[q] ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, off, m, data[q], xfer);
        char what[96];
        snprintf(what, sizeof what, "state/%s", names[q]);
        olive_h5_close(path, d, what);
        part += sim_state_hash(what, off, m, data[q], 8);
    }
    return part;
}

typedef struct { int64_t cell, step; double v[OLIVE_NVARS]; } pending;

static int cmp_pending(const void *a, const void *b)
{
    const pending *x = a, *y = b;
    if (x->cell != y->cell) return (x->cell > y->cell) - (x->cell < y->cell);
    return (x->step > y->step) - (x->step < y->step);
}

/* The stdp targets' spike histories and the events queued for steps >=
 * step (the ring's slots as they are: every touched target, its sums per
 * receptor), both by cell then step; the exchange window's first step. */
static uint64_t write_histories_and_queue(sim_t *s, const char *path, hid_t g, int64_t step, hid_t xfer)
{
    struct sim_spk *k = s->spk;
    struct spk_plastic *P = k->plastic;
    const int64_t n = s->plan.nlocal, row0 = s->plan.row0;
    /* What of each history a synapse can still read: its spikes after floor
     * (the least last spike - delay of its stdp synapses) and the latest one
     * at or before it (the K value of a later spike; Kminus goes on from the
     * last). Written so, the state is the same whether the run kept every
     * spike (CPU) or the newest ones (GPU: spk_cuda_plastic.cu). */
    int64_t *floor = olive_malloc((size_t)(n + 1) * sizeof(int64_t), "state"), *from = olive_malloc((size_t)(n + 1) * sizeof(int64_t), "state");
    for (int64_t r = 0; r < n; r++) floor[r] = INT64_MAX;
    const int64_t nsyn = k->out_ptr ? k->out_ptr[s->net.count] : 0;
#pragma omp parallel for schedule(static) reduction(min : floor[:n])
    for (int64_t x = 0; x < nsyn; x++)
        if (P->proj_of[x] >= 0 && olive_plast_uses_post(P->rule[P->proj_of[x]].rule)) {
            const int64_t f = P->st[x].last - k->out_delay[x];
            if (f < floor[k->out[x].target]) floor[k->out[x].target] = f;
        }
    int64_t m = 0;
    for (int64_t r = 0; r < n; r++) {
        int64_t i = P->post_n[r];
        while (i > 0 && P->post_step[r][i - 1] > floor[r]) i--;
        from[r] = i > 0 ? i - 1 : 0;
        if (P->post_dropped && P->post_dropped[r] != OLIVE_POST_NONE && (P->post_dropped[r] > floor[r] || i == 0))
            olive_die("%s: cell %lld fired more than the GPU's %lld kept spikes (OLIVE_GPU_STDP_HISTORY) since the last "
                      "spike of one of its stdp inputs: its state cannot be written (raise OLIVE_GPU_STDP_HISTORY, or "
                      "--backend cpu)", path, (long long)(row0 + r), (long long)P->post_cap_gpu);
        m += P->post_n[r] - from[r];
    }
    int64_t *hc = olive_malloc((size_t)m * sizeof(int64_t) + 8, "state"), *hs = olive_malloc((size_t)m * sizeof(int64_t) + 8, "state");
    double *hk = olive_malloc((size_t)m * sizeof(double) + 8, "state");
    for (int64_t r = 0, j = 0; r < n; r++)
        for (int64_t i = from[r]; i < P->post_n[r]; i++, j++) { hc[j] = row0 + r; hs[j] = P->post_step[r][i]; hk[j] = P->post_kminus[r][i]; }
    free(floor);
    free(from);
    const char *hn[3] = {"plastic_history_cell", "plastic_history_step", "plastic_history_kminus"};
    void *hd[3] = {hc, hs, hk};
    const int hi[3] = {1, 1, 0};
    uint64_t part = write_rows(s, path, g, hn, hd, hi, 3, m, xfer);
    free(hc); free(hs); free(hk);
    /* After a GPU run (its rings fetched: post_dropped) the events queued are
     * on the device: no queue is written, and a restart refuses the state
     * (restore_queue), rather than continue without them. */
    if (P->post_dropped) return part;
    /* the queue: slot q holds the events due at the one step of [step, step + slots) that is q mod slots */
    int64_t np = 0;
    for (int q = 0; q < k->slots; q++) np += k->ring[q].n;
    pending *pe = olive_malloc((size_t)np * sizeof(pending) + sizeof(pending), "state");
    np = 0;
    for (int q = 0; q < k->slots; q++) {
        const spk_slot *sl = &k->ring[q];
        const int64_t due = step + ((q - step % k->slots) % k->slots + k->slots) % k->slots;
        for (int64_t i = 0; i < sl->n; i++) {
            pending *e = &pe[np++];
            e->cell = row0 + sl->list[i];
            e->step = due;
            for (int a = 0; a < k->nacc; a++) e->v[a] = sl->acc[a][sl->list[i]];
        }
    }
    qsort(pe, (size_t)np, sizeof *pe, cmp_pending);
    int64_t *pc = olive_malloc((size_t)np * sizeof(int64_t) + 8, "state"), *ps = olive_malloc((size_t)np * sizeof(int64_t) + 8, "state");
    double *pv = olive_malloc((size_t)np * (size_t)k->nacc * sizeof(double) + 8, "state");
    for (int64_t i = 0; i < np; i++) {
        pc[i] = pe[i].cell;
        ps[i] = pe[i].step;
        for (int a = 0; a < k->nacc; a++) pv[i * k->nacc + a] = pe[i].v[a];
    }
    free(pe);
    const char *pn[2] = {"plastic_queue_cell", "plastic_queue_step"};
    void *pd[2] = {pc, ps};
    const int pi[2] = {1, 1};
    part += write_rows(s, path, g, pn, pd, pi, 2, np, xfer);
    /* the sums: nacc per event, as rows of nacc values */
    int64_t off = 0, total = 0, mv = np * k->nacc;
    SIM_CHECK_MPI(MPI_Exscan(&mv, &off, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    if (s->rank == 0) off = 0;
    SIM_CHECK_MPI(MPI_Allreduce(&mv, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    hid_t d = olive_h5_dset1(path, g, "plastic_queue_sums", H5T_IEEE_F64LE, total, 0);
    if (total > 0) olive_h5_write_slab1(path, d, H5T_NATIVE_DOUBLE, off, mv, pv, xfer);
    olive_h5_close(path, d, "dataset /state/plastic_queue_sums");
    part += sim_state_hash("state/plastic_queue_sums", off, mv, pv, 8);
    free(pc); free(ps); free(pv);
    /* the window: its spikes (in flight, steps >= it) are not exchanged yet */
    hid_t w = olive_h5_dset1(path, g, "plastic_window", H5T_STD_I64LE, 1, 0);
    if (s->rank == 0) olive_h5_write_slab1(path, w, H5T_NATIVE_INT64, 0, 1, &k->window0, xfer);
    else olive_h5_write_slab1(path, w, H5T_NATIVE_INT64, 0, 0, &k->window0, xfer);
    olive_h5_close(path, w, "dataset /state/plastic_window");
    if (s->rank == 0) part += sim_state_hash("state/plastic_window", 0, 1, &k->window0, 8);
    return part;
}

uint64_t spk_plastic_write(sim_t *s, const char *path, hid_t state_group, int64_t step, hid_t xfer)
{
    struct spk_plastic *P = s->spk->plastic;
    if (!P) return 0;
    uint64_t part = write_histories_and_queue(s, path, state_group, step, xfer);
    hid_t pg = olive_h5_group(path, state_group, "plastic");
    for (int j = 0; j < P->nproj; j++) {
        const int rule = P->rule[j].rule;
        if (rule == OLIVE_PLAST_NONE) continue;
        hid_t g = olive_h5_group(path, pg, P->name[j]);
        olive_h5_attr_str(path, g, "plasticity", olive_plast_rule_name(rule));
        write_columns(s, path, g, j, xfer, &part);
        olive_h5_close(path, g, "a group of /state/plastic");
    }
    olive_h5_close(path, pg, "group /state/plastic");
    return part;
}

const char *spk_plastic_names(const sim_t *s, char *buf, size_t n)
{
    const struct spk_plastic *P = s->spk->plastic;
    size_t used = 0;
    buf[0] = 0;
    for (int j = 0; P && j < P->nproj && used < n; j++)
        if (P->rule[j].rule != OLIVE_PLAST_NONE)
            used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "", P->name[j]);
    return buf[0] ? buf : "none";
}

int spk_plastic_select(sim_t *s, const char *name, int64_t a, int64_t b, spk_weight_sel *sel)
{
    struct sim_spk *k = s->spk;
    struct spk_plastic *P = k->plastic;
    memset(sel, 0, sizeof *sel);
    sel->proj = -1;
    for (int j = 0; P && j < P->nproj; j++)
        if (!strcmp(P->name[j], name)) sel->proj = j;
    if (sel->proj < 0) return -1;
    const int j = sel->proj;
    sel->rule = P->rule[j].rule;
    if (sel->rule == OLIVE_PLAST_NONE) return -2;
    sel->total = P->total[j];
    if (b < 0) b = sel->total;
    if (b > sel->total || a >= b) return -3;
    /* this rank's synapses are P->first[j] .. + count[j] of the projection */
    const int64_t lo = a > P->first[j] ? a : P->first[j], hi = b < P->first[j] + P->count[j] ? b : P->first[j] + P->count[j];
    sel->e0 = lo;
    sel->n = hi > lo ? hi - lo : 0;
    sel->x = olive_malloc((size_t)sel->n * sizeof(int64_t) + 8, "weight report");
    sel->target = olive_malloc((size_t)sel->n * sizeof(int64_t) + 8, "weight report");
    sel->source = olive_malloc((size_t)sel->n * sizeof(int64_t) + 8, "weight report");
    if (sel->n == 0) return 0;
    const int64_t N = s->net.count;
#pragma omp parallel for schedule(static)
    for (int64_t g = 0; g < N; g++)   /* (entries of source g: out_ptr[g] .. out_ptr[g + 1]) */
        for (int64_t x = k->out_ptr[g]; x < k->out_ptr[g + 1]; x++) {
            if (P->proj_of[x] != j) continue;
            const int64_t e = P->first[j] + P->index_of[x];
            if (e < lo || e >= hi) continue;
            sel->x[e - lo] = x;
            sel->target[e - lo] = s->plan.row0 + k->out[x].target;
            sel->source[e - lo] = g;
        }
    return 0;
}

void spk_plastic_free(struct sim_spk *k)
{
    struct spk_plastic *P = k->plastic;
    if (!P) return;
    for (int64_t r = 0; P->post_step && r < P->ncells; r++) { free(P->post_step[r]); free(P->post_kminus[r]); }
    free(P->post_step); free(P->post_kminus);
    free(P->rule); free(P->name); free(P->first); free(P->count); free(P->total);
    free(P->proj_of); free(P->index_of); free(P->st);
    free(P->post_n); free(P->post_cap); free(P->kminus); free(P->last_t); free(P->tau_minus); free(P->post_dropped);
    free(P);
    k->plastic = NULL;
    k->plastic_proj = NULL;
}

/* Dataset name of state file f: its length (want >= 0: must be that). */
static int64_t state_len(const char *path, hid_t f, const char *name, int64_t want)
{
    if (!olive_h5_exists(f, name))
        olive_die("%s: /%s is missing (a network with plastic synapses needs it to continue)", path, name);
    const int64_t m = olive_h5_len1(path, f, name);
    if (want >= 0 && m != want)
        olive_die("%s: /%s has %lld entries, the network's plastic synapses need %lld", path, name, (long long)m, (long long)want);
    return m;
}

/* Every plastic synapse's weight and state, this rank's slab of each. */
static void restore_synapses(sim_t *s, const char *path, hid_t f, int64_t k0, uint64_t *part)
{
    struct sim_spk *k = s->spk;
    struct spk_plastic *P = k->plastic;
    const int64_t nsyn = k->out_ptr[s->net.count];
    for (int j = 0; j < P->nproj; j++) {
        const int rule = P->rule[j].rule;
        if (rule == OLIVE_PLAST_NONE) continue;
        const char *state[3];
        olive_plast_state_names(rule, state);
        const char *vars[5] = {"weight", "last_spike_step", state[0], state[1], state[2]};
        const int slot_of[5] = {-1, -2, 0, 1, 2};
        const int64_t m = P->count[j];
        double *col[5] = {NULL, NULL, NULL, NULL, NULL};
        for (int q = 0; q < 5; q++) {
            if (!vars[q]) continue;
            double *v = col[q] = olive_malloc((size_t)m * sizeof(double) + 8, "state");
            char name[160];
            snprintf(name, sizeof name, "state/plastic/%s/%s", P->name[j], vars[q]);
            state_len(path, f, name, P->total[j]);
            H5T_class_t cls;
            size_t sz;
            olive_h5_dtype_info(path, f, name, &cls, &sz);
            if (sz != 8 || cls != (q == 1 ? H5T_INTEGER : H5T_FLOAT))
                olive_die("%s: /%s is not %s", path, name, q == 1 ? "int64" : "float64");
            olive_h5_read_slab1(path, f, name, q == 1 ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, P->first[j], m, v);
            *part += sim_state_hash(name, P->first[j], m, v, 8);
            for (int64_t e = 0; e < m; e++) {
                const int64_t last = ((int64_t *)v)[e];
                if (q == 1 ? (last < -1 || last >= k0) : !isfinite(v[e]))
                    olive_die("%s: /%s[%lld] is %s", path, name, (long long)(P->first[j] + e),
                              q == 1 ? "not a step before the state's (-1: none)" : "not finite");
                if (q >= 2 && (v[e] < 0 || v[e] > olive_plast_state_max(rule)))
                    olive_die("%s: /%s[%lld] = %g is outside [0, %g%s", path, name, (long long)(P->first[j] + e), v[e],
                              olive_plast_state_max(rule), isinf(olive_plast_state_max(rule)) ? ")" : "]");
                if (q == 0 && olive_plast_weight_fault(&P->rule[j], v[e]))
                    olive_die("%s: /%s[%lld] = %g: %s", path, name, (long long)(P->first[j] + e), v[e],
                              olive_plast_weight_fault(&P->rule[j], v[e]));
            }
        }
        /* every column read and checked: into the lists in one pass */
#pragma omp parallel for schedule(static)
        for (int64_t x = 0; x < nsyn; x++) {
            if (P->proj_of[x] != j) continue;
            const int64_t e = P->index_of[x];
            k->out[x].w = col[0][e];
            P->st[x].last = ((int64_t *)col[1])[e];
            for (int q = 2; q < 5; q++)
                if (col[q]) P->st[x].s[slot_of[q]] = col[q][e];
        }
        for (int q = 0; q < 5; q++) free(col[q]);
    }
}

/* The stdp targets' histories (every rank reads them all, keeps its own). */
static void restore_histories(sim_t *s, const char *path, hid_t f, int64_t k0, uint64_t *part)
{
    struct spk_plastic *P = s->spk->plastic;
    const int64_t m = state_len(path, f, "state/plastic_history_cell", -1);
    state_len(path, f, "state/plastic_history_step", m);
    state_len(path, f, "state/plastic_history_kminus", m);
    int64_t *hc = olive_malloc((size_t)m * sizeof(int64_t) + 8, "state"), *hs = olive_malloc((size_t)m * sizeof(int64_t) + 8, "state");
    double *hk = olive_malloc((size_t)m * sizeof(double) + 8, "state");
    olive_h5_read_slab1(path, f, "state/plastic_history_cell", H5T_NATIVE_INT64, 0, m, hc);
    olive_h5_read_slab1(path, f, "state/plastic_history_step", H5T_NATIVE_INT64, 0, m, hs);
    olive_h5_read_slab1(path, f, "state/plastic_history_kminus", H5T_NATIVE_DOUBLE, 0, m, hk);
    if (s->rank == 0)
        *part += sim_state_hash("state/plastic_history_cell", 0, m, hc, 8) + sim_state_hash("state/plastic_history_step", 0, m, hs, 8) +
                 sim_state_hash("state/plastic_history_kminus", 0, m, hk, 8);
    const int64_t row0 = s->plan.row0, row1 = s->plan.row1;
    for (int64_t i = 0; i < m; i++) {
        const int64_t g = hc[i];
        if (g < 0 || g >= s->net.count || (i > 0 && (g < hc[i - 1] || (g == hc[i - 1] && hs[i] <= hs[i - 1]))))
            olive_die("%s: /state/plastic_history_cell and _step entry %lld (cell %lld, step %lld) is not a cell, or not "
                      "after the entry before it in (cell, step) order", path, (long long)i, (long long)g, (long long)hs[i]);
        if (hs[i] < 0 || hs[i] >= k0 || !(hk[i] >= 1) || !isfinite(hk[i]))
            olive_die("%s: /state/plastic_history entry %lld (cell %lld): step %lld or Kminus %g is not a spike's before "
                      "the state's step", path, (long long)i, (long long)g, (long long)hs[i], hk[i]);
        if (g < row0 || g >= row1) continue;
        const int64_t r = g - row0;
        if (P->tau_minus[r] == 0)
            olive_die("%s: /state/plastic_history_cell[%lld] = %lld: the cell has no stdp synapse", path, (long long)i, (long long)g);
        if (P->post_n[r] == P->post_cap[r]) {
            P->post_cap[r] = P->post_cap[r] ? 2 * P->post_cap[r] : 16;
            P->post_step[r] = olive_realloc(P->post_step[r], (size_t)P->post_cap[r] * sizeof(int64_t), "spike history");
            P->post_kminus[r] = olive_realloc(P->post_kminus[r], (size_t)P->post_cap[r] * sizeof(double), "spike history");
        }
        P->post_step[r][P->post_n[r]] = hs[i];
        P->post_kminus[r][P->post_n[r]++] = hk[i];
        P->kminus[r] = hk[i];
        P->last_t[r] = olive_plast_time(hs[i], s->cfg->run.dt);
    }
    free(hc); free(hs); free(hk);
}

/* The events queued, into the ring (own cells). */
static void restore_queue(sim_t *s, const char *path, hid_t f, int64_t k0, uint64_t *part)
{
    struct sim_spk *k = s->spk;
    if (!olive_h5_exists(f, "state/plastic_queue_cell"))
        olive_die("%s: /state/plastic_queue_cell is missing: the state was written by the CUDA engine, whose queued events "
                  "stay on the device; a network with plastic synapses continues from a state of the CPU engine "
                  "(--backend cpu)", path);
    const int64_t m = state_len(path, f, "state/plastic_queue_cell", -1);
    state_len(path, f, "state/plastic_queue_step", m);
    state_len(path, f, "state/plastic_queue_sums", m * k->nacc);
    int64_t *pc = olive_malloc((size_t)m * sizeof(int64_t) + 8, "state"), *ps = olive_malloc((size_t)m * sizeof(int64_t) + 8, "state");
    double *pv = olive_malloc((size_t)(m * k->nacc) * sizeof(double) + 8, "state");
    olive_h5_read_slab1(path, f, "state/plastic_queue_cell", H5T_NATIVE_INT64, 0, m, pc);
    olive_h5_read_slab1(path, f, "state/plastic_queue_step", H5T_NATIVE_INT64, 0, m, ps);
    olive_h5_read_slab1(path, f, "state/plastic_queue_sums", H5T_NATIVE_DOUBLE, 0, m * k->nacc, pv);
    if (s->rank == 0)
        *part += sim_state_hash("state/plastic_queue_cell", 0, m, pc, 8) + sim_state_hash("state/plastic_queue_step", 0, m, ps, 8) +
                 sim_state_hash("state/plastic_queue_sums", 0, m * k->nacc, pv, 8);
    for (int64_t i = 0; i < m; i++) {
        const int64_t g = pc[i];
        if (g < 0 || g >= s->net.count || ps[i] < k0 || ps[i] >= k0 + k->L - 1 + (k->zero_delay ? 1 : 0) ||
            (i > 0 && (g < pc[i - 1] || (g == pc[i - 1] && ps[i] <= ps[i - 1]))))
            olive_die("%s: /state/plastic_queue_cell and _step entry %lld (cell %lld, step %lld): not a cell, not a step "
                      "an event can be due at (%lld .. %lld), or not after the entry before it", path, (long long)i,
                      (long long)g, (long long)ps[i], (long long)k0, (long long)(k0 + k->L - 2 + (k->zero_delay ? 1 : 0)));
        for (int a = 0; a < k->nacc; a++)
            if (!isfinite(pv[i * k->nacc + a]))
                olive_die("%s: /state/plastic_queue_sums[%lld] is not finite", path, (long long)(i * k->nacc + a));
        if (g < s->plan.row0 || g >= s->plan.row1) continue;
        spk_slot *sl = &k->ring[ps[i] % k->slots];
        const int32_t r = (int32_t)(g - s->plan.row0);
        sl->touched[r] = 1;
        sl->list[sl->n++] = r;
        for (int a = 0; a < k->nacc; a++) sl->acc[a][r] = pv[i * k->nacc + a];
    }
    free(pc); free(ps); free(pv);
}

void spk_plastic_restore(sim_t *s, const char *path, hid_t f, uint64_t *part)
{
    struct sim_spk *k = s->spk;
    const int64_t k0 = s->cfg->run.start_step;
    restore_synapses(s, path, f, k0, part);
    restore_histories(s, path, f, k0, part);
    restore_queue(s, path, f, k0, part);
    int64_t w0;
    state_len(path, f, "state/plastic_window", 1);
    olive_h5_read_slab1(path, f, "state/plastic_window", H5T_NATIVE_INT64, 0, 1, &w0);
    if (s->rank == 0) *part += sim_state_hash("state/plastic_window", 0, 1, &w0, 8);
    if (w0 > k0 || w0 < k0 - k->D + 1 || w0 < 0)
        olive_die("%s: /state/plastic_window = %lld is not the start of an exchange window holding step %lld (windows of %d "
                  "step(s))", path, (long long)w0, (long long)k0 - 1, k->D);
    /* the window goes on where it was: its own spikes so far, not exchanged yet, go with its next exchange */
    k->window0 = w0;
    for (int64_t i = 0; i < k->restart.nrestored; i++)
        k->restart.ncarry += k->restart.restored[i].step >= w0 && k->restart.restored[i].cell >= s->plan.row0 && k->restart.restored[i].cell < s->plan.row1;
    k->restart.carry = olive_malloc((size_t)k->restart.ncarry * sizeof(sim_spike) + sizeof(sim_spike), "spikes");
    for (int64_t i = 0, j = 0; i < k->restart.nrestored; i++)
        if (k->restart.restored[i].step >= w0 && k->restart.restored[i].cell >= s->plan.row0 && k->restart.restored[i].cell < s->plan.row1)
            k->restart.carry[j++] = k->restart.restored[i];
}

void spk_plastic_view_of(const struct sim_spk *k, spk_plastic_view *v)
{
    const struct spk_plastic *P = k->plastic;
    v->nproj = P->nproj;
    v->rule = P->rule;
    v->proj_of = P->proj_of;
    v->st = P->st;
    v->tau_minus = P->tau_minus;
}

void spk_plastic_set_history(struct sim_spk *k, int64_t r, const int64_t *step, const double *kminus, int64_t n,
                             int64_t dropped, double kminus_now, double last_t, int64_t cap)
{
    struct spk_plastic *P = k->plastic;
    if (!P->post_dropped) {
        P->post_dropped = olive_malloc((size_t)(P->ncells + 1) * sizeof(int64_t), "spike history");
        for (int64_t i = 0; i <= P->ncells; i++) P->post_dropped[i] = OLIVE_POST_NONE;
    }
    if (n > P->post_cap[r]) {
        P->post_cap[r] = n;
        P->post_step[r] = olive_realloc(P->post_step[r], (size_t)n * sizeof(int64_t), "spike history");
        P->post_kminus[r] = olive_realloc(P->post_kminus[r], (size_t)n * sizeof(double), "spike history");
    }
    if (n) {
        memcpy(P->post_step[r], step, (size_t)n * sizeof(int64_t));
        memcpy(P->post_kminus[r], kminus, (size_t)n * sizeof(double));
    }
    P->post_n[r] = n;
    P->post_dropped[r] = dropped;
    P->kminus[r] = kminus_now;
    P->last_t[r] = last_t;
    P->post_cap_gpu = cap;
}
