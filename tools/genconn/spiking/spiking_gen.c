/* Projections of chemical synapses (docs/FORMAT.md): every draw is
 * keyed by (seed, projection, target or synapse number, draw, stream), so the
 * rows are the same however they are computed; O(synapses) work. */
#include "spiking_net.h"
#include "memcheck.h"
#include "netfile.h"
#include "rng.h"
#include "rng_normal.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Cells [*a, *b) of population name, or all cells. */
static void pop_range(const gc_spk_config *cfg, const char *name, int64_t *a, int64_t *b)
{
    *a = 0;
    *b = cfg->count;
    for (int i = 0; i < cfg->pops.n; i++)
        if (!strcmp(cfg->pops.pop[i].name, name)) { *a = cfg->pops.pop[i].first; *b = *a + cfg->pops.pop[i].count; }
}

/* The rule of projection number k of cfg (conn_rule.h). */
static void conn_of(const gc_spk_config *cfg, int k, olive_conn *c)
{
    const gc_proj_spec *s = &cfg->proj[k];
    memset(c, 0, sizeof *c);
    c->kind = s->rule;
    c->p = s->p;
    c->k = s->k;
    c->autapses = s->autapses;
    c->w = s->w;
    c->d = s->d;
    c->dt = cfg->dt;
    c->seed = cfg->seed;
    c->key = (uint32_t)k;
    c->count = cfg->count;
    pop_range(cfg, s->from, &c->s0, &c->s1);
    pop_range(cfg, s->to, &c->t0, &c->t1);
    if (s->file) snprintf(c->what, sizeof c->what, "--projections %.900s line %d: --projection %s", s->file, s->line, s->spec);
    else snprintf(c->what, sizeof c->what, "--projection %s", s->spec);
}

/* Errors of projection s name its --projections file and line. */
static void proj_context(const gc_proj_spec *s)
{
    char ctx[1200];
    snprintf(ctx, sizeof ctx, "--projections %.900s line %d", s->file ? s->file : "", s->line);
    olive_error_context(s->file ? ctx : NULL);
}

void gc_spk_generate(const gc_spk_config *cfg, int k, olive_projection *p)
{
    const gc_proj_spec *s = &cfg->proj[k];
    olive_conn *c = olive_malloc(sizeof *c, "a projection's rule");
    conn_of(cfg, k, c);
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", s->name);
    snprintf(p->receptor, sizeof p->receptor, "%s", s->receptor);
    snprintf(p->source, sizeof p->source, "%s", s->from);
    snprintf(p->target, sizeof p->target, "%s", s->to);
    snprintf(p->rule, sizeof p->rule, "%.127s", s->spec);
    p->plast = s->plast;
    proj_context(s);
    const int overlap = c->t0 < c->s1 && c->s0 < c->t1;
    if (!s->autapses && overlap && c->s1 - c->s0 == 1 && (s->rule == GC_RULE_INDEGREE || s->rule == GC_RULE_TOTAL) &&
        s->k > 0)
        olive_usage_error("--projection %s: autapses=no leaves no source for cell %lld", s->spec, (long long)c->s0);
    const char *fault = olive_conn_fault(c);
    if (fault) olive_usage_error("--projection %s: %s", s->spec, fault);
    if (cfg->procedural) {
        /* the rule alone: rows, weights and delays drawn by whoever reads it */
        p->row0 = 0;
        p->row1 = cfg->count;
        p->weight_value = c->w.a;
        p->delay_value = olive_ms_to_steps_or_die(olive_usage_error, "delay", c->d.a, cfg->dt, 0, OLIVE_MAX_DELAY);
        p->nnz = p->nnz_total = (int64_t)llround(olive_conn_expected(c, 0, cfg->count));
        p->procedural = c;
        olive_error_context(NULL);
        return;
    }
    /* merged: only the target rows (row_ptr of thousands of projections
     * over every cell would not fit) */
    if (cfg->merge) olive_conn_draw(c, c->t0, c->t1, p);
    else olive_conn_draw(c, 0, cfg->count, p);
    free(c);
    p->nnz_total = p->nnz;
    gc_spk_sites_draw(cfg, k, p);
    olive_error_context(NULL);
}

/* ---- --merge-projections ---- */

typedef struct { int32_t col, at; } col_at;
static int by_col_then_place(const void *a, const void *b)
{
    const col_at *x = a, *y = b;
    if (x->col != y->col) return (x->col > y->col) - (x->col < y->col);
    return (x->at > y->at) - (x->at < y->at);
}

/* The projections of syn (each over its target rows) become one per
 * receptor, in the order the receptors first appear: a row holds its
 * synapses of every projection of that receptor, sources ascending (ties
 * in projection order), each with its weight and delay. */
void gc_spk_merge(const gc_spk_config *cfg, olive_synapses *syn)
{
    const int64_t N = cfg->count;
    int nrec = 0;
    int *rec_of = olive_malloc((size_t)syn->n * sizeof(int) + 1, "projections");
    char recs[16][32];
    for (int k = 0; k < syn->n; k++) {
        int r = 0;
        while (r < nrec && strcmp(recs[r], syn->proj[k].receptor)) r++;
        if (r == nrec) {
            if (nrec == 16) olive_die("internal: more than 16 receptors");
            snprintf(recs[nrec++], sizeof recs[0], "%s", syn->proj[k].receptor);
        }
        rec_of[k] = r;
    }
    olive_projection *out = olive_calloc((size_t)nrec + 1, sizeof *out, "merged projections");
    for (int r = 0; r < nrec; r++) {
        olive_projection *m = &out[r];
        int nk = 0;
        for (int k = 0; k < syn->n; k++) nk += rec_of[k] == r;
        snprintf(m->name, sizeof m->name, "%s", recs[r]);
        snprintf(m->receptor, sizeof m->receptor, "%s", recs[r]);
        snprintf(m->source, sizeof m->source, "all");
        snprintf(m->target, sizeof m->target, "all");
        snprintf(m->rule, sizeof m->rule, "merged: %d projections onto %s (--merge-projections)", nk, recs[r]);
        m->row0 = 0;
        m->row1 = N;
        m->row_ptr = olive_calloc((size_t)N + 1, sizeof(int64_t), "merged rows");
        for (int k = 0; k < syn->n; k++) {
            const olive_projection *p = &syn->proj[k];
            if (rec_of[k] != r) continue;
            for (int64_t j = p->row0; j < p->row1; j++) m->row_ptr[j + 1] += p->row_ptr[j - p->row0 + 1] - p->row_ptr[j - p->row0];
        }
        for (int64_t j = 0; j < N; j++) m->row_ptr[j + 1] += m->row_ptr[j];
        m->nnz = m->nnz_total = m->row_ptr[N];
        m->col = olive_malloc_huge((size_t)m->nnz * sizeof(int32_t) + 4, "merged synapses");
        m->weight = olive_malloc_huge((size_t)m->nnz * sizeof(double) + 8, "merged weights");
        m->delay = olive_malloc_huge((size_t)m->nnz * sizeof(uint16_t) + 2, "merged delays");
        int64_t *fill = olive_malloc(((size_t)N + 1) * sizeof(int64_t), "merged rows");
        memcpy(fill, m->row_ptr, ((size_t)N + 1) * sizeof(int64_t));
        for (int k = 0; k < syn->n; k++) {
            olive_projection *p = &syn->proj[k];
            if (rec_of[k] != r) continue;
            for (int64_t j = p->row0; j < p->row1; j++)
                for (int64_t e = p->row_ptr[j - p->row0]; e < p->row_ptr[j - p->row0 + 1]; e++) {
                    const int64_t at = fill[j]++;
                    m->col[at] = p->col[e];
                    m->weight[at] = p->weight ? p->weight[e] : p->weight_value;
                    m->delay[at] = p->delay ? p->delay[e] : (uint16_t)p->delay_value;
                }
            free(p->row_ptr);
            free(p->col);
            free(p->weight);
            free(p->delay);
            p->row_ptr = NULL;
            p->col = NULL;
            p->weight = NULL;
            p->delay = NULL;
        }
        free(fill);
        /* sources ascending in each row (each projection's part is already) */
#pragma omp parallel
        {
            col_at *t = NULL;
            double *tw = NULL;
            uint16_t *td = NULL;
            int64_t cap = 0;
#pragma omp for schedule(dynamic, 256)
            for (int64_t j = 0; j < N; j++) {
                const int64_t a = m->row_ptr[j], n = m->row_ptr[j + 1] - a;
                int sorted = 1;
                for (int64_t e = a + 1; e < a + n && sorted; e++) sorted = m->col[e - 1] <= m->col[e];
                if (sorted) continue;
                if (n > cap) {
                    cap = n;
                    t = olive_realloc(t, (size_t)cap * sizeof *t, "a row");
                    tw = olive_realloc(tw, (size_t)cap * sizeof *tw, "a row");
                    td = olive_realloc(td, (size_t)cap * sizeof *td, "a row");
                }
                for (int64_t e = 0; e < n; e++) { t[e].col = m->col[a + e]; t[e].at = (int32_t)e; }
                qsort(t, (size_t)n, sizeof *t, by_col_then_place);
                for (int64_t e = 0; e < n; e++) { tw[e] = m->weight[a + t[e].at]; td[e] = m->delay[a + t[e].at]; }
                for (int64_t e = 0; e < n; e++) { m->col[a + e] = t[e].col; m->weight[a + e] = tw[e]; m->delay[a + e] = td[e]; }
            }
            free(t);
            free(tw);
            free(td);
        }
    }
    const double dt = syn->dt;
    olive_syn_free(syn);
    syn->dt = dt;
    syn->n = nrec;
    syn->proj = out;
    free(rec_of);
}

/* ---- predicted memory, before generating ---- */

/* The synapses projection k will make: exact for indegree and total; for p
 * the Binomial mean plus 6 standard deviations. */
static double expected_synapses(const gc_spk_config *cfg, int k)
{
    const gc_proj_spec *s = &cfg->proj[k];
    int64_t s0, s1, t0, t1;
    pop_range(cfg, s->from, &s0, &s1);
    pop_range(cfg, s->to, &t0, &t1);
    if (s->rule == GC_RULE_TOTAL || s->rule == GC_RULE_TOTAL_OUT) return (double)s->k;
    if (s->rule == GC_RULE_INDEGREE) return (double)s->k * (double)(t1 - t0);
    if (s->rule == GC_RULE_OUTDEGREE) return (double)s->k * (double)(s1 - s0);
    const double pairs = (double)(s1 - s0) * (double)(t1 - t0), mean = pairs * s->p;
    return mean + 6 * sqrt(mean * (1 - s->p)) + 1;
}

/* Every projection held (rows and synapses), the largest one's generation
 * buffers beside it (row blocks grown by doubling), the empty gap-junction
 * rows and v0; SONATA export copies the synapses once more. */
static void check_memory(const gc_spk_config *cfg)
{
    const double N = (double)cfg->count;
    double held = 16 * (N + 1), total = 0, most = 0;
    int big = -1;
    for (int k = 0; k < cfg->nproj; k++) {
        const double e = expected_synapses(cfg, k);
        const gc_proj_spec *s = &cfg->proj[k];
        if (cfg->procedural) continue;   /* the rule alone */
        int64_t t0, t1;
        pop_range(cfg, s->to, &t0, &t1);
        held += 8 * ((cfg->merge ? (double)(t1 - t0) : N) + 1) +
                e * gc_spk_held_per_synapse(gc_value_varies(&s->w), gc_value_varies(&s->d), s->site != NULL);
        total += e;
        if (big < 0 || e > most) { most = e; big = k; }
    }
    if (big < 0) return;
    if (cfg->export_prefix) held += 40 * total;
    if (cfg->merge) held += 14 * total + 24 * (N + 1);   /* the merged copy, its rows and the fill places */
    char what[512];
    snprintf(what, sizeof what, "%lld cells and about %.3g synapses, %.3g of them from --projection %.300s",
             (long long)cfg->count, total, most, cfg->proj[big].spec);
    olive_require_memory(cfg->out_path, held + 8 * most + 8 * (N + 1), what);
}

/* A bmtk BioNet circuit's edges (biophys_swc --import-circuit): every edges
 * file of the config, its node populations at the olive ids of the cells
 * (the populations before the spike sources) and of --import-spikes' ones. */
static void import_circuit_edges(gc_spk_config *cfg, olive_synapses *syn)
{
    static gc_node_map map;
    memset(&map, 0, sizeof map);
    map.sonata[0] = cfg->import_node_pop_name;
    map.n = 1;
    for (int i = 0; i < cfg->pops.n; i++) {
        const olive_population *p = &cfg->pops.pop[i];
        if (p->model != &olive_model_spike_source_array) { map.count[0] = p->first + p->count; continue; }
        map.sonata[map.n] = p->name;
        map.first[map.n] = p->first;
        map.count[map.n++] = p->count;
    }
    static char edges[16][4096], types[16][4096], dir[4096];
    const int n = gc_circuit_edge_files(cfg->import_circuit, 16, edges, types, dir);
    for (int i = 0; i < n; i++) {
        const int before = syn->n;
        gc_spk_import_file(cfg, syn, edges[i], types[i], dir[0] ? dir : NULL, &map);
        for (int k = before; k < syn->n; k++)
            olive_info("%s: projection %s: %lld synapses", edges[i], syn->proj[k].name, (long long)syn->proj[k].nnz);
    }
}

/* The populations and synapses, into the network file before it is closed. */
typedef struct {
    const gc_spk_config *cfg;
    olive_synapses *syn;
    double *(*percell)[OLIVE_MAX_PARAMS];
} write_ctx;

static void write_extra(const char *path, int64_t file, void *ctx)
{
    write_ctx *w = ctx;
    olive_pops_write(path, (hid_t)file, &w->cfg->pops, (double *const (*)[OLIVE_MAX_PARAMS])w->percell);
    gc_spk_write_spike_trains(path, file, w->cfg);
    olive_syn_write(path, (hid_t)file, w->syn);
}

int gc_spiking_main(int argc, char **argv)
{
    double t0 = olive_now();
    static gc_spk_config cfg;
    gc_spk_parse_args(argc, argv, &cfg);
    if (!cfg.force && olive_path_exists(cfg.out_path))
        olive_usage_error("%s exists; use --force to overwrite it", cfg.out_path);
    if (cfg.export_prefix) {
        char paths[5][4096];
        gc_spk_export_paths(cfg.export_prefix, paths);
        for (int k = 0; k < 5; k++) {
            if (!cfg.force && olive_path_exists(paths[k])) olive_usage_error("%s exists; use --force to overwrite it", paths[k]);
            if (olive_same_path(paths[k], cfg.out_path)) olive_usage_error("-o %s is also an --export-sonata file", cfg.out_path);
        }
    }
    if (cfg.import_synapses && olive_same_path(cfg.import_synapses, cfg.out_path))
        olive_usage_error("-o %s is the --import-synapses file itself", cfg.out_path);
    check_memory(&cfg);
    olive_synapses syn = {cfg.dt, cfg.nproj, olive_calloc((size_t)cfg.nproj + 1, sizeof(olive_projection), "projections")};
    int64_t total = 0;
    for (int k = 0; k < cfg.nproj; k++) {
        gc_spk_generate(&cfg, k, &syn.proj[k]);
        total += syn.proj[k].nnz;
        olive_info("projection %s: %lld synapses%s", syn.proj[k].name, (long long)syn.proj[k].nnz,
                   cfg.procedural ? " (procedural: the number expected, drawn when read)" : "");
    }
    if (cfg.merge) gc_spk_merge(&cfg, &syn);
    const int before = syn.n;
    if (cfg.import_synapses) gc_spk_import(&cfg, &syn);
    if (cfg.import_circuit && olive_model_needs_mechanisms(cfg.model)) import_circuit_edges(&cfg, &syn);   /* bmtk BioNet's */
    if (olive_model_needs_mechanisms(cfg.model)) gc_apply_point_synapses(&cfg);   /* NMODL Exp2Syn: the edge types' values */
    for (int k = before; k < syn.n; k++) {
        total += syn.proj[k].nnz;
        for (int q = 0; q < k; q++)
            if (!strcmp(syn.proj[q].name, syn.proj[k].name))
                olive_die("%s: imported projection '%s' has the name of another projection",
                          cfg.import_synapses ? cfg.import_synapses : cfg.import_circuit, syn.proj[k].name);
    }
    double t_gen = olive_now();
    /* Random initial potentials: one per cell, keyed by the cell id. */
    static double *percell[OLIVE_MAX_POPS][OLIVE_MAX_PARAMS];
    const int kv0 = olive_model_param(cfg.model, "v0");
    for (int i = 0; i < cfg.pops.n; i++) {
        const olive_population *p = &cfg.pops.pop[i];
        if (!(cfg.v0_a[i] < cfg.v0_b[i]) && !(cfg.v0_sd[i] > 0)) continue;
        double *v = percell[i][kv0] = olive_malloc((size_t)p->count * sizeof(double), "v0");
        for (int64_t c = 0; c < p->count; c++) {
            double u0, u1;
            if (cfg.v0_sd[i] > 0)   /* unbounded: the redraw always keeps the first */
                olive_normal_redraw(cfg.seed, 0, (uint32_t)(p->first + c), 0, OLIVE_STREAM_V0, cfg.v0_a[i], cfg.v0_sd[i],
                                    -INFINITY, INFINITY, &v[c]);
            else {
                olive_uniform2(cfg.seed, 0, (uint32_t)(p->first + c), 0, OLIVE_STREAM_V0, &u0, &u1);
                v[c] = cfg.v0_a[i] + (cfg.v0_b[i] - cfg.v0_a[i]) * u0;
            }
        }
    }
    /* No gap junctions: an empty matrix. */
    olive_network net;
    memset(&net, 0, sizeof net);
    net.count = cfg.count;
    net.dims[0] = cfg.count;
    net.dims[1] = net.dims[2] = 1;
    net.row1 = cfg.count;
    net.row_ptr = olive_calloc((size_t)cfg.count + 1, sizeof(int64_t), "rows");
    net.col = olive_malloc(4, "rows");
    snprintf(net.generator, sizeof net.generator, "none");
    net.seed = cfg.seed;
    snprintf(net.command, sizeof net.command, "%s", olive_cmdline());
    net.command_full = olive_cmdline();   /* (the file keeps it whole, however long) */
    write_ctx w = {&cfg, &syn, percell};
    static char exp_tmp[5][4096];
    if (cfg.export_prefix) gc_spk_export_sonata(&cfg, &syn, exp_tmp);
    olive_net_write_ex(cfg.out_path, &net, cfg.force, write_extra, &w);
    if (cfg.export_prefix) gc_spk_export_commit(exp_tmp);
    double t_end = olive_now();
    if (!olive_quiet)
        printf("%s: %lld %s cells in %d population(s), %lld synapses in %d projection(s), %.3f s "
               "(generation %.3f s, write %.3f s)\n", cfg.out_path, (long long)cfg.count, cfg.model->name, cfg.pops.n,
               (long long)total, syn.n, t_end - t0, t_gen - t0, t_end - t_gen);
    olive_net_free(&net);
    for (int k = 0; k < syn.n && k < cfg.nproj; k++) free((void *)syn.proj[k].procedural);
    olive_syn_free(&syn);
    for (int i = 0; i < cfg.pops.n && kv0 >= 0; i++) free(percell[i][kv0]);
    for (int k = 0; k < cfg.nproj; k++) gc_spk_sites_free(&cfg.proj[k], cfg.pops.n);
    free(cfg.proj);
    for (int i = 0; i < cfg.pops.n; i++) { free(cfg.array_times[i]); free(cfg.array_ptr[i]); }
    return 0;
}
