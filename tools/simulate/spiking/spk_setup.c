/* Set-up of a spiking network: this rank's block of cells, their
 * coefficients and initial state, and the synapses into them turned around
 * into per-source lists (what a spike of source g does here). */
#include "spk.h"
#include "poisson_input.h"
#include "memcheck.h"
#include "conn_rule.h"
#include "netcontent.h"
#include "point_model.h"
#include "util.h"
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Coefficient set number set from parameter values par, by the point
 * model's coef_make; NULL or the fault. */
static const char *make_set(sim_t *s, const double *par, int set)
{
    struct sim_spk *k = s->spk;
    return k->point->coef_make(par, s->cfg->run.dt, k->pcoef + (size_t)set * (size_t)k->point->ncoef);
}

/* A set just made equal to the one before it: per-cell values that give
 * the same coefficients share a set (fewer, longer runs). */
static int same_as_previous(const struct sim_spk *k, int set)
{
    const size_t nc = (size_t)k->point->ncoef;
    return set > 0 && !memcmp(k->pcoef + (size_t)set * nc, k->pcoef + (size_t)(set - 1) * nc, nc * sizeof(double));
}

/* The initial state of own cell r with parameter values par: the point
 * model's init() (the built-in models': v0, no synaptic input, not refractory). */
static void init_cell(sim_t *s, int64_t r, const double *par)
{
    const olive_model_plugin *pl = s->spk->point;
    double x[OLIVE_NVARS];
    pl->init(par, x);
    for (int v = 0; v < pl->model.nvars; v++) ((double *)s->state[v])[r] = x[v];
}

/* The coefficient set of every own cell: one per population, or one per
 * cell of a population with per-cell parameters (spk_pop_percell). */
static void setup_cells(sim_t *s)
{
    struct sim_spk *k = s->spk;
    const sim_config *c = s->cfg;
    const int64_t r0 = s->plan.row0, r1 = s->plan.row1, n = r1 - r0;
    k->pcoef = olive_malloc((size_t)(n + k->pops.n) * (size_t)k->point->ncoef * sizeof(double) + 8, "coefficients");
    k->coef_of = olive_malloc((size_t)n * sizeof(int32_t) + 4, "coefficients");
    for (int64_t r = 0; r < n; r++) k->coef_of[r] = -1;   /* spike sources keep -1 */
    int nset = 0;
    for (int ip = 0; ip < k->pops.n; ip++) {
        const olive_population *p = &k->pops.pop[ip];
        int64_t a = p->first > r0 ? p->first : r0, b = p->first + p->count < r1 ? p->first + p->count : r1;
        if (a >= b || olive_model_is_source(p->model)) continue;
        const int percell = spk_pop_percell(k, p);
        /* per cell: every parameter array; else one set for the population */
        double **pv = olive_calloc((size_t)c->run.model->nparams + 1, sizeof(double *), "parameters");
        for (int q = 0; q < c->run.model->nparams; q++)
            if (p->percell[q]) {
                pv[q] = olive_malloc((size_t)(b - a) * sizeof(double), "parameters");
                olive_pops_read_percell(c->run.net_path, p, q, a, b, pv[q]);
            }
        double par[OLIVE_MAX_PARAMS];
        memcpy(par, p->param, sizeof par);
        const char *fault = NULL;
        if (!percell) fault = make_set(s, par, nset);
        for (int64_t g = a; g < b && !fault; g++) {
            for (int q = 0; q < c->run.model->nparams; q++) if (pv[q]) par[q] = pv[q][g - a];
            if (percell) {
                fault = make_set(s, par, nset);
                if (fault) break;
                if (same_as_previous(k, nset)) k->coef_of[g - r0] = nset - 1;
                else k->coef_of[g - r0] = nset++;
            } else {
                k->coef_of[g - r0] = nset;
            }
            init_cell(s, g - r0, par);
        }
        if (fault) spk_pop_refuse(c, p, fault);
        if (!percell) nset++;
        for (int q = 0; q < c->run.model->nparams; q++) free(pv[q]);
        free(pv);
    }
}

/* ---- predicted memory, before the big allocations ---- */

/* What this rank's synapses cost: their number, and their bytes as read
 * (col, and the weight and delay datasets where a projection has them; a
 * delay dataset is read through int64). */
typedef struct {
    int64_t nsyn;
    double read_bytes;
    int nproj, dmax_known;   /* the largest constant delay (the datasets' are read later) */
} spk_mem;

/* The own rows' synapses from the row_ptr of every projection at row0 and
 * at row1 (two reads of no rows: validated, and nothing big read yet). */
static spk_mem own_synapses(const sim_t *s, int64_t count)
{
    olive_synapses a, b;
    spk_mem m = {0, 0, 0, 0};
    if (!olive_syn_read_rows(s->cfg->run.net_path, count, s->plan.row0, s->plan.row0, &a)) return m;
    olive_syn_read_rows(s->cfg->run.net_path, count, s->plan.row1, s->plan.row1, &b);
    for (int j = 0; j < a.n && j < b.n; j++) {
        if (a.proj[j].kept) continue;   /* drawn at each spike: nothing held (no rows) */
        m.nproj++;
        const int64_t e = b.proj[j].e0 - a.proj[j].e0;   /* (a decreasing row_ptr: the reader reports it) */
        if (e <= 0) continue;
        m.nsyn += e;
        m.read_bytes += (double)e * (4 + (a.proj[j].weight ? 8 : 0) + (a.proj[j].delay ? 10 : 0));
        if (!a.proj[j].delay && a.proj[j].delay_value > m.dmax_known) m.dmax_known = (int)a.proj[j].delay_value;
    }
    olive_syn_free(&a);
    olive_syn_free(&b);
    return m;
}

/* Host bytes of this rank: the cells' state, sources and rows; the
 * synapses as read and turned around (spk_out and delay per synapse, the
 * per-source pointers and per-thread counts); the delay ring's slots
 * (a sum per receptor, a mark and a list entry per own cell each). */
static double predict_host(const sim_t *s, int64_t count, const spk_mem *m, int slots)
{
    const double n = (double)s->plan.nlocal, N = (double)count, T = s->nthreads;
    const double cells = n * (8.0 * s->cfg->run.model->nvars + 1 + 8 + 4 + 8 + 45) + 8.0 * (n + 1) * m->nproj;
    const double cnt = 4 * T * N < 2e9 + 4 * N ? 4 * T * N : 2e9 + 4 * N;
    /* out and out_delay (which hold the turn-around's records first), the
     * records' sources, and the threads' copies of a bucket (setup_synapses:
     * ~2^18 synapses, 4x for skew) */
    const double syn = m->read_bytes + (18.0 + 4.0) * (double)m->nsyn + T * 18.0 * 4 * (1 << 18) + 8 * (N + 1) + cnt;
    const double sites = (double)s->spk->sites.n;   /* the ring's extra targets (the cell kind's synapse sites) */
    return cells + syn + (double)slots * (n + sites) * ((double)s->spk->nacc * sizeof(double) + 1 + sizeof(int32_t));
}

/* Collective: refused (the file named) when the node's ranks need more
 * than it has. */
static void check_spiking_memory(sim_t *s, int64_t count, const spk_mem *m, int slots)
{
    char what[4200];
    snprintf(what, sizeof what, "%s with %lld cells (%lld on rank %d), %lld synapses into them and a delay ring of %d "
             "slot(s)", s->cfg->run.net_path, (long long)count, (long long)s->plan.nlocal, s->rank, (long long)m->nsyn, slots);
    sim_require_node_memory(s, predict_host(s, count, m, slots), -1, what);
}

static void setup_lists(sim_t *s, olive_synapses *syn, const int *rec, int64_t nsyn);
static void alloc_ring(sim_t *s);

/* Projection p's receptor index in the model, or the run refused by name. */
static int checked_receptor(const sim_t *s, const olive_projection *p)
{
    const sim_config *c = s->cfg;
    const int rec = olive_model_receptor(c->run.model, p->receptor);
    if (rec < 0)
        olive_die("%s: /synapses/%s: model %s has no receptor '%s' (it has %s)", c->run.net_path, p->name,
                  c->run.model->name, p->receptor, olive_model_receptor_list(c->run.model));
    return rec;
}

/* A rule's weights (drawn later) refused where the model takes conductances and they can be negative. */
static void check_rule_weights(const sim_t *s, const olive_projection *p, const olive_conn *r)
{
    const sim_config *c = s->cfg;
    if (c->run.model->weights_nonnegative && r->w.a < 0)
        olive_die("%s: /synapses/%s: weights down to %g; a %s weight is a conductance (nS) and cannot be "
                  "negative", c->run.net_path, p->name, r->w.a, c->run.model->name);
}

/* Each projection's receptor into rec, its weights and delays checked,
 * their least and greatest delay (steps) into *dmin, *dmax; returns the
 * synapses held (rules drawn at each spike or on the device: none yet). */
static int64_t scan_projections(sim_t *s, const olive_synapses *syn, int *rec, int *dmin, int *dmax)
{
    const struct sim_spk *k = s->spk;
    const sim_config *c = s->cfg;
    int64_t nsyn = 0;
    for (int j = 0; j < syn->n; j++) {
        olive_projection *p = &syn->proj[j];
        rec[j] = checked_receptor(s, p);
        nsyn += p->nnz;
        if (p->kept) {   /* drawn on the device: setup_synapses */
            check_rule_weights(s, p, p->kept);
            continue;
        }
        for (int64_t e = 0; e < p->nnz; e++) {
            double w = olive_syn_w(p, e);
            int d = (int)olive_syn_d(p, e);
            if (c->run.model->weights_nonnegative && w < 0)
                olive_die("%s: /synapses/%s: synapse %lld has weight %g; a %s weight is a conductance (nS) and "
                          "cannot be negative", c->run.net_path, p->name, (long long)(p->e0 + e), w, c->run.model->name);
            if (d < *dmin) *dmin = d;
            if (d > *dmax) *dmax = d;
            if (!p->weight && !p->delay) break;   /* constants: one look is enough */
        }
    }
    for (int j = 0; j < syn->n && k->sources.n; j++)   /* a spike source takes no input */
        for (int64_t i = 0; i < k->sources.n && !syn->proj[j].kept; i++) {
            const int64_t r = k->sources.rows[i];
            if (syn->proj[j].row_ptr[r + 1] > syn->proj[j].row_ptr[r])
                olive_die("%s: /synapses/%s: synapse %lld targets the spike source cell %lld (a source takes no input)",
                          c->run.net_path, syn->proj[j].name, (long long)(syn->proj[j].e0 + syn->proj[j].row_ptr[r]),
                          (long long)(s->plan.row0 + r));
        }
    return nsyn;
}

#ifdef OLIVE_HAVE_CUDA
/* The CUDA engine's synapses made on the device: those drawn at each spike
 * surveyed (their delays, count and hash, drawn once there), or the rules'
 * rows drawn there and kept (counted into *nsyn); their delays widen
 * *dmin, *dmax. */
static void device_synapses(sim_t *s, olive_synapses *syn, const int *rec, int64_t *nsyn, int *dmin, int *dmax)
{
    struct sim_spk *k = s->spk;
    int64_t lo = OLIVE_MAX_DELAY + 1, hi = 0;
    if (k->drawn.n) {
        spk_rules_survey(s, &k->drawn.nsyn, &lo, &hi, &k->dev.hash);
    } else if (k->dev.draw) {
        int kept = 0;
        for (int j = 0; j < syn->n; j++) kept |= syn->proj[j].kept != NULL;
        if (!kept) return;
        spk_draw_device(s, syn, rec, &lo, &hi);
        for (int j = 0; j < syn->n; j++) *nsyn += syn->proj[j].kept ? syn->proj[j].nnz : 0;
        k->nsyn = *nsyn;
    } else {
        return;
    }
    if (lo < *dmin) *dmin = (int)lo;
    if (hi > *dmax) *dmax = (int)hi;
}
#endif

/* Every rank the same exchange period and ring, from the least and greatest
 * delay of every rank's synapses. */
static void set_exchange_period(sim_t *s, int dmin, int dmax)
{
    struct sim_spk *k = s->spk;
    const sim_config *c = s->cfg;
    int lo[2] = {dmin, -dmax}, all[2];
    SIM_CHECK_MPI(MPI_Allreduce(lo, all, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    dmin = all[0];
    dmax = -all[1];
    if (dmin > OLIVE_MAX_DELAY) dmin = dmax = 1;   /* no synapses anywhere */
    k->zero_delay = dmin == 0;
    if (k->zero_delay && k->point && k->point->inputs_before_condition)
        olive_die("%s: a synapse has a delay of 0 steps, but model %s takes its inputs before its spike condition "
                  "(inputs_before_condition, model_plugin.h): every delay must be at least one step of %g ms",
                  c->run.net_path, c->run.model->name, c->run.dt);
    k->D = dmin > 0 ? dmin : 1;
    k->L = dmax + 1;
    /* The ring holds the due steps still to run: at most the run's steps
     * (a 1 ms run of a network with 6.5 s delays needs 11 slots, not 65536). */
    const int64_t run = c->run.steps - c->run.start_step;
    k->slots = run < k->L && !k->plastic_net ? (int)run : k->L;   /* (plastic: every event kept for states, spk_plastic.c) */
    k->end = c->run.steps;
}

/* Turn the own rows (by target) around into per-source lists. */
static void setup_synapses(sim_t *s, olive_synapses *syn, const spk_mem *m)
{
    struct sim_spk *k = s->spk;
    const sim_config *c = s->cfg;
    const int64_t N = s->net.count;
    for (int j = 0; j < k->drawn.n; j++)   /* a spike source takes no input */
        for (int64_t i = 0; i < k->sources.n; i++) {
            const olive_conn *r = &k->drawn.conn[j];
            const int64_t g = s->plan.row0 + k->sources.rows[i];
            if (g >= r->t0 && g < r->t1 && r->k > 0)
                olive_die("%s: the rule's targets include the spike source cell %lld (a source takes no input)", r->what,
                          (long long)g);
        }
    int *rec = olive_malloc((size_t)syn->n * sizeof(int) + 1, "receptors");
    int dmin = OLIVE_MAX_DELAY + 1, dmax = 0;
    int64_t nsyn = scan_projections(s, syn, rec, &dmin, &dmax);
    k->nsyn = nsyn;
#ifdef OLIVE_HAVE_CUDA
    device_synapses(s, syn, rec, &nsyn, &dmin, &dmax);
#endif
    set_exchange_period(s, dmin, dmax);
    const int64_t mine = k->nsyn + k->drawn.nsyn;
    SIM_CHECK_MPI(MPI_Allreduce(&mine, &k->nsyn_total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    check_spiking_memory(s, N, m, k->slots);

    spk_quantum_scales(s, syn);   /* (--order-free-sums: before the rows move) */
    /* the turn-around on the device (spk_cuda_turnaround.cu): by default
     * from 2^24 synapses (beyond the fused path's networks) */
    if (k->dev.drawn && nsyn >= (int64_t)UINT32_MAX)
        olive_die("%s: %lld synapses drawn on the device: the turn-around there takes fewer than 2^32 (more ranks, or "
                  "OLIVE_GPU_DRAW=host)", c->run.net_path, (long long)nsyn);
    if (k->dev.drawn || (nsyn > 0 && nsyn < (int64_t)UINT32_MAX &&
                         (k->dev.rows_wanted > 0 || (k->dev.rows_wanted < 0 && nsyn >= (INT64_C(1) << 24))))) {
        k->dev.rows = olive_malloc(sizeof *syn, "synapse rows");
        *k->dev.rows = *syn;
        memset(syn, 0, sizeof *syn);   /* (the engine frees them) */
        k->dev.rows_rec = olive_malloc((size_t)k->dev.rows->n * sizeof(int), "synapse rows");
        memcpy(k->dev.rows_rec, rec, (size_t)k->dev.rows->n * sizeof(int));
    } else {
        setup_lists(s, syn, rec, nsyn);
    }
    free(rec);
    alloc_ring(s);
    if (!k->dev.rows) spk_quantize_host(s);   /* (after alloc_ring: k->ntarget) */
}

/* The own rows (by target) into per-source lists, on the host.
 * Threads take contiguous blocks of targets. Each counts its block's
 * synapses per source; a source's list then holds block 0's synapses,
 * then block 1's, ...: within a block row by row (targets ascending),
 * projection by projection, so every list is in (target, projection,
 * synapse index) order whatever the thread count.
 * The lists are filled in two passes, because storing each synapse
 * straight at its source's place missed the cache every time (3/4 of
 * the set-up): each block first writes its synapses, in order, as
 * records into the region of their source's bucket (a contiguous range
 * of sources, its lists a few MB); then each bucket's records, block
 * by block, go to their lists, all within the bucket's few MB. A
 * bucket's region of records is the region of its lists, so a record is
 * its synapse's entries of out and out_delay, written in place, and its
 * source (below, or source_of: 4 bytes); pass 2 moves the entries within the region
 * through a copy of it (records of their own, 24 bytes a synapse, were
 * the set-up's largest allocation, and zeroing fresh pages is much of
 * its time: docs/MICROCIRCUIT.md). */
typedef struct {
    struct sim_spk *k;
    const olive_synapses *syn;
    const int *rec;
    int64_t n, N, nsyn;
    int T;                   /* threads, each a block of targets */
    int64_t B, S;            /* B buckets of S = 2^Sbits sources */
    int Sbits;
    uint32_t *cnt;           /* [t][source]: the block's synapses */
    int64_t *boff;           /* [b][t]: where the block's records of bucket b start */
    /* With receptors 0 and 1 only (lif cells, most plugins) a record's
     * source rides in its out entry's receptor field (source | receptor <<
     * 31: sources are below 2^31): one array fewer to write in pass 1, whose
     * stores spread over every bucket are its cost; else source_of */
    int packed;
    int32_t *source_of;
    /* plastic networks: each entry's projection and index in the projection's
     * rows ride with it through both passes (spk_plastic.c takes them) */
    int16_t *pj;
    int64_t *pe;
    int32_t *const *chan;    /* a synapse with a site goes to its channel beyond the rows (the cell kind's) */
    int rank;
} lists_plan;

static void lists_plan_make(lists_plan *P, sim_t *s, const olive_synapses *syn, const int *rec, int64_t nsyn)
{
    struct sim_spk *k = s->spk;
    const int64_t N = s->net.count;
    *P = (lists_plan){.k = k, .syn = syn, .rec = rec, .n = s->plan.nlocal, .N = N, .nsyn = nsyn, .rank = s->rank};
    k->out_ptr = olive_calloc((size_t)N + 1, sizeof(int64_t), "outgoing synapses");
    k->out = olive_malloc_huge((size_t)nsyn * sizeof(spk_out) + sizeof(spk_out), "outgoing synapses");
    k->out_delay = olive_malloc_huge((size_t)nsyn * sizeof(uint16_t) + 2, "outgoing synapses");
    /* (at most ~2 GB of per-thread counts) */
    const double cap = 1 + 2e9 / (4.0 * (double)N);
    P->T = s->nthreads < cap ? s->nthreads : (int)cap;
    P->cnt = olive_calloc((size_t)P->T * (size_t)N, sizeof(uint32_t), "outgoing synapses");
    /* buckets of sources holding about 2^18 synapses each (equal source ranges) */
    int64_t B = nsyn >> 18;
    B = B < 1 ? 1 : B > 4096 ? 4096 : B;
    /* sources a bucket: a power of two, so that g's bucket is a shift (a
     * division per synapse was much of pass 1) */
    P->Sbits = 0;   /* (rounded down: buckets stay within the size above) */
    while (N > 0 && ((int64_t)2 << P->Sbits) * B <= N) P->Sbits++;
    P->S = (int64_t)1 << P->Sbits;
    P->B = N > 0 ? (N + P->S - 1) / P->S : 1;
    P->boff = olive_calloc((size_t)(P->B * P->T + 1), sizeof(int64_t), "outgoing synapses");
    P->packed = 1;
    for (int j = 0; j < syn->n; j++) P->packed &= rec[j] == 0 || rec[j] == 1;
    /* OLIVE_SETUP_SOURCE_ARRAY=1: the source array anyway (tests: both forms give the same lists) */
    const char *sa = getenv("OLIVE_SETUP_SOURCE_ARRAY");
    if (sa && *sa && strcmp(sa, "0") && strcmp(sa, "1")) olive_die("OLIVE_SETUP_SOURCE_ARRAY='%s': expected 0 or 1", sa);
    if (sa && !strcmp(sa, "1")) P->packed = 0;
    P->source_of = P->packed ? NULL : olive_malloc_huge((size_t)nsyn * sizeof(int32_t) + 4, "outgoing synapses");
    if (k->plastic_net) {
        P->pj = k->list_proj = olive_malloc_huge((size_t)nsyn * sizeof(int16_t) + 2, "plastic synapses");
        P->pe = k->list_index = olive_malloc_huge((size_t)nsyn * sizeof(int64_t) + 8, "plastic synapses");
    }
    P->chan = k->sites.chan;
}

/* Thread t (in the parallel region): its block's synapses per source; then
 * per source the total, per bucket and block its records (omp for). */
static void lists_count(const lists_plan *P, int t)
{
    const int T = P->T;
    const int64_t N = P->N, ra = P->n * t / T, rb = P->n * (t + 1) / T;
    const olive_synapses *syn = P->syn;
    uint32_t *c = P->cnt + (size_t)t * (size_t)N;
    for (int j = 0; j < syn->n; j++)
        for (int64_t e = syn->proj[j].row_ptr[ra]; e < syn->proj[j].row_ptr[rb]; e++) c[syn->proj[j].col[e]]++;
#pragma omp barrier
#pragma omp for schedule(static)
    for (int64_t b = 0; b < P->B; b++)
        for (int64_t g = b * P->S; g < (b + 1) * P->S && g < N; g++) {
            uint64_t sum = 0;
            for (int q = 0; q < T; q++) {
                uint32_t x = P->cnt[(size_t)q * (size_t)N + (size_t)g];
                if (sum + x > UINT32_MAX) olive_die("cell %lld sends more than 2^32 synapses into rank %d", (long long)g, P->rank);
                P->boff[b * T + q + 1] += x;
                sum += x;
            }
            P->k->out_ptr[g + 1] = (int64_t)sum;
        }
}

/* Pass 1 of thread t: its block's synapses, in order, into their buckets' regions. */
static void lists_pass1(const lists_plan *P, int t)
{
    struct sim_spk *k = P->k;
    const int T = P->T;
    const int64_t n = P->n, ra = n * t / T, rb = n * (t + 1) / T;
    int64_t *at = olive_malloc((size_t)P->B * sizeof(int64_t), "outgoing synapses");
    for (int64_t b = 0; b < P->B; b++) at[b] = P->boff[b * T + t];
    for (int64_t r = ra; r < rb; r++)
        for (int j = 0; j < P->syn->n; j++) {
            const olive_projection *p = &P->syn->proj[j];
            for (int64_t e = p->row_ptr[r]; e < p->row_ptr[r + 1]; e++) {
                const int32_t g = p->col[e];
                const int64_t x = at[g >> P->Sbits]++;
                const int site = P->chan && P->chan[j], q = site ? 0 : P->rec[j];
                k->out[x].target = site ? (int32_t)(n + P->chan[j][e]) : (int32_t)r;
                if (P->packed) k->out[x].receptor = (int32_t)((uint32_t)g | (uint32_t)q << 31);
                else { k->out[x].receptor = q; P->source_of[x] = g; }
                k->out[x].w = olive_syn_w(p, e);
                k->out_delay[x] = (uint16_t)olive_syn_d(p, e);
                if (P->pj) { P->pj[x] = (int16_t)j; P->pe[x] = e; }
            }
        }
    free(at);
}

/* Pass 2 (omp for over the buckets): each bucket's records, block by block,
 * into their lists (the bucket's region copied first: the lists overwrite it). */
static void lists_pass2(const lists_plan *P)
{
    struct sim_spk *k = P->k;
    const int T = P->T;
    int16_t *pj = P->pj;
    int64_t *pe = P->pe;
    uint32_t *fill = olive_malloc((size_t)P->S * sizeof(uint32_t), "outgoing synapses");
    spk_out *cp = NULL;
    int16_t *cpj = NULL;
    int64_t *cpe = NULL;
    uint16_t *cpd = NULL;
    int64_t cap = 0;
#pragma omp for schedule(dynamic, 1)
    for (int64_t b = 0; b < P->B; b++) {
        const int64_t g0 = b * P->S, g1 = (b + 1) * P->S < P->N ? (b + 1) * P->S : P->N;
        const int64_t lo = P->boff[b * T], m = P->boff[(b + 1) * T] - lo;
        if (m == 0) continue;
        if (m > cap) {
            cap = m + m / 4;
            cp = olive_realloc(cp, (size_t)cap * sizeof(spk_out), "outgoing synapses");
            cpd = olive_realloc(cpd, (size_t)cap * sizeof(uint16_t), "outgoing synapses");
            if (pj) {
                cpj = olive_realloc(cpj, (size_t)cap * sizeof(int16_t), "plastic synapses");
                cpe = olive_realloc(cpe, (size_t)cap * sizeof(int64_t), "plastic synapses");
            }
        }
        memcpy(cp, k->out + lo, (size_t)m * sizeof(spk_out));
        memcpy(cpd, k->out_delay + lo, (size_t)m * sizeof(uint16_t));
        if (pj) {
            memcpy(cpj, pj + lo, (size_t)m * sizeof(int16_t));
            memcpy(cpe, pe + lo, (size_t)m * sizeof(int64_t));
        }
        memset(fill, 0, (size_t)(g1 - g0) * sizeof(uint32_t));
        for (int64_t i = 0; i < m; i++) {
            const uint32_t tag = (uint32_t)cp[i].receptor;
            const int64_t g = P->packed ? (int64_t)(tag & 0x7fffffffu) : P->source_of[lo + i];
            const int64_t o = k->out_ptr[g] + fill[g - g0]++;
            k->out[o] = cp[i];
            if (P->packed) k->out[o].receptor = (int32_t)(tag >> 31);
            k->out_delay[o] = cpd[i];
            if (pj) { pj[o] = cpj[i]; pe[o] = cpe[i]; }
        }
    }
    free(cp);
    free(cpd);
    free(cpj);
    free(cpe);
    free(fill);
}

static void setup_lists(sim_t *s, olive_synapses *syn, const int *rec, int64_t nsyn)
{
    double tp[4];   /* the phases' ends (-v): checks, per-source counts, pass 1, pass 2 */
    tp[0] = olive_now();
    lists_plan P;
    lists_plan_make(&P, s, syn, rec, nsyn);
#pragma omp parallel num_threads(P.T)
    {
        const int t = omp_get_thread_num();
        lists_count(&P, t);
#pragma omp single
        {
            for (int64_t g = 0; g < P.N; g++) s->spk->out_ptr[g + 1] += s->spk->out_ptr[g];
            for (int64_t i = 0; i < P.B * P.T; i++) P.boff[i + 1] += P.boff[i];
            tp[1] = olive_now();
        }
        lists_pass1(&P, t);
#pragma omp barrier
#pragma omp master
        tp[2] = olive_now();
        lists_pass2(&P);
    }
    free(P.source_of);
    free(P.boff);
    free(P.cnt);
    tp[3] = olive_now();
    olive_info("rank %d: per-source rows: counts %.3f s, pass 1 (into buckets) %.3f s, pass 2 (into lists) %.3f s",
               s->rank, tp[1] - tp[0], tp[2] - tp[1], tp[3] - tp[2]);
}

void spk_lists_on_host(sim_t *s)
{
    struct sim_spk *k = s->spk;
    setup_lists(s, k->dev.rows, k->dev.rows_rec, k->nsyn);
    spk_quantize_host(s);
    olive_syn_free(k->dev.rows);
    free(k->dev.rows);
    free(k->dev.rows_rec);
    k->dev.rows = NULL;
    k->dev.rows_rec = NULL;
}

/* The CPU engine's delay ring (and the ring's target count). */
static void alloc_ring(sim_t *s)
{
    struct sim_spk *k = s->spk;
    const int64_t n = s->plan.nlocal;
    if (s->family->cells) s->family->cells->lists_built(s);
    const int64_t nt = k->ntarget = n + k->sites.n;
    k->ring = olive_calloc((size_t)k->slots, sizeof(spk_slot), "delay buffer");
    for (int i = 0; i < k->slots; i++) {
        spk_slot *sl = &k->ring[i];
        for (int q = 0; q < k->nacc; q++) sl->acc[q] = olive_calloc((size_t)nt + 1, sizeof(double), "delay buffer");
        sl->touched = olive_calloc((size_t)nt + 1, 1, "delay buffer");
        sl->list = olive_malloc((size_t)(nt + 1) * sizeof(int32_t), "delay buffer");
    }
}

/* The rank's spike-source rows (spike_source.h): Poisson probabilities and
 * windows, the arrays' times as steps. */
static void setup_sources(sim_t *s)
{
    struct sim_spk *k = s->spk;
    const sim_config *c = s->cfg;
    const int64_t r0 = s->plan.row0, r1 = s->plan.row1, n = r1 - r0;
    int8_t *kind = olive_calloc((size_t)n + 1, 1, "spike sources");
    double *p = olive_calloc((size_t)n + 1, sizeof(double), "spike sources");
    int64_t *s0 = olive_calloc((size_t)n + 1, sizeof(int64_t), "spike sources");
    int64_t *s1 = olive_calloc((size_t)n + 1, sizeof(int64_t), "spike sources");
    int64_t *ptr = olive_calloc((size_t)n + 2, sizeof(int64_t), "spike sources");
    int64_t *steps = NULL, nsteps = 0;
    k->sources.rows = olive_malloc((size_t)n * sizeof(int32_t) + 4, "spike sources");
    for (int ip = 0; ip < k->pops.n; ip++) {
        const olive_population *q = &k->pops.pop[ip];
        const int64_t a = q->first > r0 ? q->first : r0, b = q->first + q->count < r1 ? q->first + q->count : r1;
        if (a >= b || !olive_model_is_source(q->model)) continue;
        if (q->model == &olive_model_spike_source_poisson) {
            /* rate, start, duration: the attribute's value, or the cell's own
             * (a per-cell dataset); the engines take them per row either way */
            double *pv[3] = {NULL, NULL, NULL};
            for (int j = 0; j < 3; j++)
                if (q->percell[j]) {
                    pv[j] = olive_malloc((size_t)(b - a) * sizeof(double), "spike sources");
                    olive_pops_read_percell(c->run.net_path, q, j, a, b, pv[j]);
                }
            char what0[160], what1[160];
            snprintf(what0, sizeof what0, "%s: population %s: start", c->run.net_path, q->name);
            snprintf(what1, sizeof what1, "%s: population %s: start + duration", c->run.net_path, q->name);
            for (int64_t g = a; g < b; g++) {
                const double rate = pv[0] ? pv[0][g - a] : q->param[0], start = pv[1] ? pv[1][g - a] : q->param[1],
                             dur = pv[2] ? pv[2][g - a] : q->param[2];
                if (!(rate >= 0 && rate * 1e-3 * c->run.dt <= 1 && start >= 0 && dur >= 0)) {
                    char fault[256];
                    snprintf(fault, sizeof fault, "cell %lld: rate %g Hz, start %g ms, duration %g ms: need 0 <= rate "
                             "<= 1/dt and start, duration >= 0", (long long)g, rate, start, dur);
                    spk_pop_refuse(c, q, fault);
                }
                kind[g - r0] = OLIVE_SOURCE_POISSON;
                p[g - r0] = rate * 1e-3 * c->run.dt;
                /* a window beyond the int64 steps is never reached: no spike
                 * (NaN and negative values were refused just above) */
                s0[g - r0] = olive_ms_to_step_or_never(olive_die, what0, start, c->run.dt);
                s1[g - r0] = olive_ms_to_step_or_never(olive_die, what1, start + dur, c->run.dt);
            }
            for (int j = 0; j < 3; j++) free(pv[j]);
        } else {   /* array: spike_times_ptr[count + 1], spike_times (ms, sorted per cell) */
            int64_t *qp = olive_malloc((size_t)(b - a + 1) * sizeof(int64_t), "spike sources");
            olive_spike_times_read(c->run.net_path, q, a, b, qp, NULL);
            const int64_t nt = qp[b - a] - qp[0];
            double *t = olive_malloc((size_t)nt * sizeof(double) + 8, "spike sources");
            olive_spike_times_read(c->run.net_path, q, a, b, qp, t);
            steps = olive_realloc(steps, (size_t)(nsteps + nt) * sizeof(int64_t) + 8, "spike sources");
            for (int64_t g = a; g < b; g++) {   /* rows ascend: the steps land in row order */
                kind[g - r0] = OLIVE_SOURCE_ARRAY;
                for (int64_t e = qp[g - a] - qp[0]; e < qp[g - a + 1] - qp[0]; e++) {
                    /* a time beyond the int64 steps is never reached: kept as NEVER (the order stays) */
                    int64_t st = t[e] >= 0 ? olive_ms_to_step_or_never(olive_die, "spike_times", t[e], c->run.dt) : 0;
                    if (st != OLIVE_STEP_NEVER) st--;
                    if (st < 0)
                        olive_die("%s: population %s: cell %lld spikes at %g ms, before the end of the first step "
                                  "(%g ms): not representable", c->run.net_path, q->name, (long long)g, t[e], c->run.dt);
                    steps[nsteps++] = st;
                }
                ptr[g - r0 + 1] = qp[g - a + 1] - qp[g - a];   /* a count, summed below */
            }
            free(qp);
            free(t);
        }
    }
    int64_t *next = olive_malloc((size_t)n * sizeof(int64_t) + 8, "spike sources");
    for (int64_t r = 0; r < n; r++) {
        ptr[r + 1] += ptr[r];
        next[r] = ptr[r];
        if (kind[r]) k->sources.rows[k->sources.n++] = (int32_t)r;
    }
    k->sources.src = (olive_sources){kind, p, s0, s1, ptr, steps ? steps : olive_malloc(8, "spike sources"), next};
}

static void setup_poisson(sim_t *s)
{
    struct sim_spk *k = s->spk;
    const sim_config *c = s->cfg;
    k->poisson.in = olive_malloc((size_t)(c->spiking.npoisson + 1) * sizeof(sim_poisson), "poisson");
    k->poisson.rec = olive_malloc((size_t)(c->spiking.npoisson + 1) * sizeof(int), "poisson");
    k->poisson.fac = olive_malloc((size_t)(c->spiking.npoisson + 1) * OLIVE_BINOMIAL_FACTORS * sizeof(double), "poisson");
    for (int j = 0; j < c->spiking.npoisson; j++) {
        sim_poisson p = c->spiking.poisson[j];
        k->poisson.rec[j] = olive_model_receptor(c->run.model, p.receptor);
        if (k->poisson.rec[j] < 0)
            olive_usage_error("--poisson: model %s has no receptor '%s' (it has %s)", c->run.model->name, p.receptor,
                              olive_model_receptor_list(c->run.model));
        p.weight = olive_parse_amount("--poisson weight", p.weight_text, c->run.model->weight_unit, c->run.model->name,
                                      -1e9, 1e9);
        if (c->run.model->weights_nonnegative && p.weight < 0)
            olive_usage_error("--poisson: weight %s is a conductance of %s (%s) and cannot be negative", p.weight_text,
                              c->run.model->name, c->run.model->weight_unit);
        if (c->spiking.poisson_pop[j][0]) {   /* cells=POP */
            const olive_population *q = NULL;
            for (int i = 0; i < k->pops.n && !q; i++)
                if (!strcmp(k->pops.pop[i].name, c->spiking.poisson_pop[j])) q = &k->pops.pop[i];
            if (!q) {
                char names[512] = "";
                for (int i = 0; i < k->pops.n; i++)
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", k->pops.pop[i].name);
                olive_usage_error("--poisson cells=%s: %s has no population %s (it has %s)", c->spiking.poisson_pop[j],
                                  c->run.net_path, c->spiking.poisson_pop[j], names);
            }
            p.first = q->first;
            p.last = q->first + q->count;
        }
        if (p.last < 0) { p.first = 0; p.last = s->net.count; }
        if (p.last > s->net.count)
            olive_usage_error("--poisson cells %lld:%lld: the network has %lld cells", (long long)p.first,
                              (long long)p.last, (long long)s->net.count);
        p.step0 = olive_ms_to_step_or_never(olive_usage_error, "--poisson time START", p.start_ms, c->run.dt);
        p.step1 = p.stop_ms < 0 ? OLIVE_STEP_NEVER
                                : olive_ms_to_step_or_never(olive_usage_error, "--poisson time STOP", p.stop_ms, c->run.dt);
        spk_poisson_rate_check(&p, p.rate_hz, c->run.dt, "--poisson");
        olive_poisson_prepare(&p, c->run.dt);
        olive_binomial_factors(p.n, p.prob, k->poisson.fac + (size_t)j * OLIVE_BINOMIAL_FACTORS);
        k->poisson.in[j] = p;
    }
}

/* Projections drawn at each spike (the CUDA engine; spk_cuda_rules.cu):
 * the outdegree rules of a file whose projections are all such rules, a
 * source's draws (< 2^27) and the projections (<= 64) within what an
 * event's number holds; OLIVE_GPU_SYNAPSES=stored draws and stores them
 * anyway (comparisons). 1 when some projection may be kept undrawn. */
static int on_the_fly_wanted(const sim_t *s, const sim_engine *engine)
{
    const char *env = getenv("OLIVE_GPU_SYNAPSES");
    if (env && *env && strcmp(env, "stored") && strcmp(env, "auto"))
        olive_die("OLIVE_GPU_SYNAPSES='%s': expected auto or stored", env);
    if (env && !strcmp(env, "stored")) return 0;
    /* (--order-free-sums: the rules' weights rounded as they are drawn, spk_cuda_rules.cu; a restart or a
     * checkpoint runs on device push, which takes stored lists) */
    return engine != s->family->cpu && !olive_model_is_cable(s->cfg->run.model) && !s->spk->plastic_net &&
           !sim_restart_or_checkpoint(s->cfg);
}

/* The turn-around of the rows on the device: the CUDA engine on one rank
 * (its device push path), integrate-and-fire cells, no projection drawn at
 * each spike; OLIVE_GPU_TURNAROUND=device|host forces it either way (tests,
 * comparisons). 1, 0, or -1: by the synapse count. */
static int device_turnaround_wanted(const sim_t *s, const sim_engine *engine)
{
    const char *env = getenv("OLIVE_GPU_TURNAROUND"), *dl = getenv("OLIVE_GPU_DELIVERY");
    if (env && *env && strcmp(env, "device") && strcmp(env, "host") && strcmp(env, "auto"))
        olive_die("OLIVE_GPU_TURNAROUND='%s': expected auto, device or host", env);
    if (engine == s->family->cpu || s->size > 1 || olive_model_is_cable(s->cfg->run.model) || s->spk->drawn.n ||
        s->spk->plastic_net || s->cfg->run.restart_path ||   /* (a restart queues its events through the host's lists) */
        (dl && *dl && strcmp(dl, "device")) || (env && !strcmp(env, "host")))
        return 0;
    return env && !strcmp(env, "device") ? 1 : -1;
}

/* Procedural projections drawn on the device at set-up (spk_cuda_draw.cu),
 * where the lists are made there too: the CUDA engine on one rank
 * (device push), integrate-and-fire cells; OLIVE_GPU_DRAW=host draws them
 * on the host (comparisons), as OLIVE_GPU_TURNAROUND=host does. */
static int draw_on_device_wanted(const sim_t *s, const sim_engine *engine)
{
    const char *env = getenv("OLIVE_GPU_DRAW"), *ta = getenv("OLIVE_GPU_TURNAROUND"), *dl = getenv("OLIVE_GPU_DELIVERY");
    if (env && *env && strcmp(env, "device") && strcmp(env, "host") && strcmp(env, "auto"))
        olive_die("OLIVE_GPU_DRAW='%s': expected auto, device or host", env);
    return engine != s->family->cpu && s->size == 1 && !olive_model_is_cable(s->cfg->run.model) && !s->spk->plastic_net &&
           !s->cfg->run.restart_path && !(env && !strcmp(env, "host")) && !(ta && !strcmp(ta, "host")) &&
           !(dl && *dl && strcmp(dl, "device"));
}

/* After the read: every projection kept undrawn, or none (the kept ones
 * drawn now, as any reader draws them, or on the device: rows of zeros
 * until then). Kept for the spikes to draw, the rules leave syn (which then
 * holds no projection: thousands of rules hold no rows). */
static void keep_rules_or_draw(sim_t *s, olive_synapses *syn, int fly)
{
    struct sim_spk *k = s->spk;
    int all = fly && syn->n > 0;
    for (int j = 0; j < syn->n; j++)
        all &= syn->proj[j].kept &&
               (syn->proj[j].kept->kind == OLIVE_CONN_OUTDEGREE || syn->proj[j].kept->kind == OLIVE_CONN_TOTAL_OUT);
    for (int j = 0; j < syn->n; j++) {
        olive_projection *p = &syn->proj[j];
        if (!p->kept || all) continue;
        if (k->dev.draw && p->kept->kind != OLIVE_CONN_TOTAL_OUT) {   /* drawn on the device at set-up: its rows there */
            p->row_ptr = olive_calloc((size_t)(p->row1 - p->row0) + 1, sizeof(int64_t), "synapse rows");
            p->col = olive_malloc(4, "synapses");
            continue;
        }
        olive_conn_draw(p->kept, s->plan.row0, s->plan.row1, p);
        free(p->kept);
        p->kept = NULL;
    }
    if (!all) return;
    k->drawn.n = syn->n;
    k->drawn.conn = olive_malloc((size_t)syn->n * sizeof(olive_conn), "rules");
    k->drawn.rec = olive_malloc((size_t)syn->n * sizeof(int), "rules");
    for (int j = 0; j < syn->n; j++) {
        const olive_projection *p = &syn->proj[j];
        k->drawn.conn[j] = *p->kept;
        k->drawn.rec[j] = checked_receptor(s, p);
        check_rule_weights(s, p, p->kept);
    }
    const double dt = syn->dt;   /* (the file's, as read) */
    olive_syn_free(syn);
    syn->dt = dt;
}

/* This rank's block of the cells (equal counts). */
static void split_cells(sim_t *s, int64_t count)
{
    int64_t *bounds = olive_malloc((size_t)(s->size + 1) * sizeof(int64_t), "bounds");
    olive_block_bounds(count, NULL, s->size, OLIVE_BALANCE_CELLS, bounds);
    s->plan.row0 = bounds[s->rank];
    s->plan.row1 = bounds[s->rank + 1];
    s->plan.nlocal = s->plan.row1 - s->plan.row0;
    free(bounds);
}

/* Plastic synapses (spk_plastic.c): stored, their lists made on the host
 * (the states follow the host's list order); the CUDA engine takes them
 * with any point model, built in or a plugin's (spk_cuda_plastic.cu). */
static void check_plastic(sim_t *s, sim_config *cfg)
{
    struct sim_spk *k = s->spk;
    char plastic[OLIVE_NAME_LEN];
    if (!olive_syn_plastic(cfg->run.net_path, plastic, sizeof plastic)) return;
    k->plastic_net = 1;
    if (cfg->spiking.order_free)
        olive_die("--order-free-sums: %s: /synapses/%s is plastic; the option rounds static weights once, at "
                  "set-up (a plastic weight changes at every spike)", cfg->run.net_path, plastic);
}

/* The own cells' variables at their initial values, flags, pulse currents;
 * one neuron model per network (and spike sources). */
static void alloc_cell_state(sim_t *s)
{
    const sim_config *cfg = s->cfg;
    struct sim_spk *k = s->spk;
    const int64_t n = s->plan.nlocal;
    for (int v = 0; v < cfg->run.model->nvars; v++) {
        s->state_raw[v] = s->state[v] = olive_calloc((size_t)n + 1, sizeof(double), "state");
        for (int64_t i = 0; i < n; i++) ((double *)s->state[v])[i] = cfg->run.model->var_initial[v];
    }
    s->flags = olive_calloc((size_t)n + 1, 1, "flags");
    s->active = olive_malloc((size_t)(cfg->stim.npulses + 1) * sizeof(sim_pulse), "pulses");
    k->mark = olive_calloc((size_t)s->nthreads, sizeof(int64_t), "spike marks");
    k->cur = olive_calloc((size_t)n + 1, sizeof(double), "pulse currents");
    for (int i = 0; i < k->pops.n; i++)
        if (k->pops.pop[i].model != cfg->run.model && !olive_model_is_source(k->pops.pop[i].model))
            olive_die("%s: population %s is %s in a %s network: one neuron model per network (and spike sources), "
                      "for now", cfg->run.net_path, k->pops.pop[i].name, k->pops.pop[i].model->name, cfg->run.model->name);
}

/* -v: where set-up went (tp: its phases' starts: header, synapses, cells,
 * rows, inputs, engine) and what the rank holds. */
static void report_setup(const sim_t *s, const double tp[6])
{
    const struct sim_spk *k = s->spk;
    olive_info("rank %d: set-up: header and memory %.3f s, synapses read or drawn %.3f s, cells %.3f s, "
               "per-source rows %.3f s, inputs %.3f s, %s engine %.3f s", s->rank, tp[1] - tp[0], tp[2] - tp[1],
               tp[3] - tp[2], tp[4] - tp[3], tp[5] - tp[4], s->engine->name, olive_now() - tp[5]);
    olive_info("rank %d: %s engine, cells [%lld, %lld), %lld synapses into them (%lld in all), delays %d..%d steps, exchange every %d step(s), %d threads",
               s->rank, s->engine->name, (long long)s->plan.row0, (long long)s->plan.row1, (long long)k->nsyn, (long long)k->nsyn_total,
               k->zero_delay ? 0 : k->D, k->L - 1, k->D, s->nthreads);
    if (k->drawn.n)
        olive_info("rank %d: %d projection(s) drawn at each spike, not stored (%lld synapses into the rank's cells)",
                   s->rank, k->drawn.n, (long long)k->drawn.nsyn);
}

void sim_setup_spiking(sim_t *s, sim_config *cfg, const sim_family *family)
{
    double t0 = olive_now();
    sim_setup_common(s, cfg, family);
    s->io.graph = MPI_COMM_NULL;
    s->spk = olive_calloc(1, sizeof *s->spk, "spiking state");
    struct sim_spk *k = s->spk;
    k->plugin = olive_plugin_of(cfg->run.model);
    k->point = olive_point_model(cfg->run.model, cfg->spiking.method);   /* (NULL: cable cells) */
    k->nacc = k->point ? (k->point->model.nreceptors > 0 ? k->point->model.nreceptors : 1) : 2;
    if (!k->point && !s->family->cells)
        olive_die("internal: model %s (method %d) is neither a point model nor a cell kind's", cfg->run.model->name,
                  cfg->spiking.method);
    olive_network hdr;
    olive_net_read_header(cfg->run.net_path, &hdr);
    if (hdr.nnz_total > 0)
        olive_die("%s: a %s network with gap junctions: gap junctions couple InfOli cells only, for now", cfg->run.net_path,
                  cfg->run.model->name);
    sim_check_cell_count(s, cfg, hdr.count);
    if (cfg->run.restart_path) spk_restart_check_header(cfg, hdr.count);   /* sets start_step */
    split_cells(s, hdr.count);
    sim_threads_for_work(s, s->plan.nlocal, SPK_PARALLEL_MIN_CELLS * 4);
    check_plastic(s, cfg);
    k->wq.order_free = cfg->spiking.order_free;
    /* the engine first: the CUDA engine may draw outdegree rules at each
     * spike, and those are then not drawn here */
    const sim_engine *engine = sim_engine_choose(s);
    const int fly = on_the_fly_wanted(s, engine);
    k->dev.draw = draw_on_device_wanted(s, engine);
    olive_syn_keep_rules((fly ? 1u << OLIVE_CONN_OUTDEGREE | 1u << OLIVE_CONN_TOTAL_OUT : 0) | (k->dev.draw ? 0xfu : 0));
    /* before anything of the cells' size: the delay datasets are not read
     * yet, so the ring counts the constant delays only (checked again once
     * the delays are known) */
    const spk_mem mem = own_synapses(s, hdr.count);
    const int64_t run = cfg->run.steps - cfg->run.start_step;
    check_spiking_memory(s, hdr.count, &mem, run < mem.dmax_known + 1 ? (int)run : mem.dmax_known + 1);
    olive_net_read_rows(cfg->run.net_path, s->plan.row0, s->plan.row1, &s->net);
    olive_pops_read(cfg->run.net_path, hdr.count, &k->pops);
    spk_params_apply(cfg, &k->pops);
    olive_synapses syn;
    const double t_syn = olive_now();
    olive_syn_read_rows(cfg->run.net_path, hdr.count, s->plan.row0, s->plan.row1, &syn);
    olive_syn_keep_rules(0);
    keep_rules_or_draw(s, &syn, fly);
    k->dev.rows_wanted = device_turnaround_wanted(s, engine);
    const double t_cells = olive_now();
    if (syn.n > 0 && fabs(syn.dt - cfg->run.dt) > 1e-12 * cfg->run.dt)
        olive_die("internal: dt %g differs from the synapses' %g", cfg->run.dt, syn.dt);
    alloc_cell_state(s);
    if (s->family->cells) s->family->cells->setup(s, &syn);
    else setup_cells(s);
    setup_sources(s);
    const double t_rows = olive_now();
    setup_synapses(s, &syn, &mem);
    spk_plastic_setup(s, &syn);
    olive_syn_free(&syn);
    const double t_poisson = olive_now();
    setup_poisson(s);
    k->window0 = cfg->run.start_step;
    if (cfg->run.restart_path) spk_restart_load(s);
    s->net_crc = 0;
    const double t_engine = olive_now();
    engine->setup(s);
    s->engine = engine;   /* set up: sim_free frees it */
    s->t.setup = olive_now() - t0;
    /* where set-up goes (issue 36: reading or drawing the synapses, turning
     * them into per-source rows, the engine's device copies) */
    const double tp[6] = {t0, t_syn, t_cells, t_rows, t_poisson, t_engine};
    report_setup(s, tp);
}

void sim_free_spiking(sim_t *s)
{
    struct sim_spk *k = s->spk;
    if (!k) return;
    if (s->family && s->family->cells) s->family->cells->free(s);
    free(k->pcoef); free(k->coef_of); free(k->out_ptr); free(k->out); free(k->out_delay);
    for (int i = 0; k->ring && i < k->slots; i++) {
        for (int q = 0; q < k->nacc; q++) free(k->ring[i].acc[q]);
        free(k->ring[i].touched); free(k->ring[i].list);
    }
    free(k->ring); free(k->mark); free(k->cur); free(k->poisson.in); free(k->poisson.rec); free(k->poisson.fac);
    free((void *)k->sources.src.kind); free((void *)k->sources.src.p); free((void *)k->sources.src.step0); free((void *)k->sources.src.step1);
    free((void *)k->sources.src.ptr); free((void *)k->sources.src.steps); free(k->sources.src.next); free(k->sources.rows);
    free(k->restart.restored);
    free(k->list_proj);
    spk_quantum_free(s);
    free(k->list_index);
    free(k->restart.carry);
    spk_plastic_free(k);
    free(k->drawn.conn); free(k->drawn.rec); free(k->drawn.counts); free(k->drawn.cnt_off);
    if (k->dev.rows) { olive_syn_free(k->dev.rows); free(k->dev.rows); }
#ifdef OLIVE_HAVE_CUDA
    spk_drawn_free(s);
#endif
    free(k->dev.rows_rec);
    free(s->cfg->run.param_overrides);
    s->cfg->run.param_overrides = NULL;
    free(k);
    s->spk = NULL;
}
