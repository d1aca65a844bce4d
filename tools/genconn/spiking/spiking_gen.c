/* Projections of chemical synapses (docs/FORMAT.md): every draw is
 * keyed by (seed, projection, target or synapse number, draw, stream), so the
 * rows are the same however they are computed; O(synapses) work. */
#include "spiking.h"
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

static double u01(const gc_spk_config *cfg, int k, uint64_t b, uint32_t draw, uint32_t stream)
{
    double u0, u1;
    olive_uniform2(cfg->seed, (uint32_t)k, (uint32_t)b, draw, stream, &u0, &u1);
    return u0;
}

/* The weight or delay v of the synapse at place at of target j's row in
 * projection k: uniform, or normal redrawn outside its bounds (rng_normal.h). */
static double draw_value(const gc_spk_config *cfg, int k, const char *what, const gc_value *v, uint64_t j, uint32_t at,
                         uint32_t stream)
{
    if (!v->normal) return v->a + (v->b - v->a) * u01(cfg, k, j, at, stream);
    double x;
    if (!olive_normal_redraw(cfg->seed, (uint32_t)k, (uint32_t)j, at, stream, v->mean, v->sd, v->lo, v->hi, &x))
        olive_die("--projection %s: the %s of a synapse of cell %llu fell outside [%g, %g] in %d draws",
                  cfg->proj[k].spec, what, (unsigned long long)j, v->lo, v->hi, OLIVE_NORMAL_MAX_ATTEMPTS);
    return x;
}

/* Source number idx of n possible for target j without autapses: the source
 * range [s0, s0 + n + 1) with j left out. */
static int32_t skip_self(int64_t s0, int64_t idx, int64_t j, int autapses, int64_t ns)
{
    if (!autapses && j >= s0 && j < s0 + ns && s0 + idx >= j) idx++;
    return (int32_t)(s0 + idx);
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static void push(olive_projection *p, int64_t *cap, int32_t src)
{
    if (p->nnz == *cap) {
        *cap = *cap ? 2 * *cap : 1024;
        p->col = olive_realloc(p->col, (size_t)*cap * sizeof(int32_t), "synapses");
    }
    p->col[p->nnz++] = src;
}

void gc_spk_generate(const gc_spk_config *cfg, int k, olive_projection *p)
{
    const gc_proj_spec *s = &cfg->proj[k];
    int64_t s0, s1, t0, t1, N = cfg->count;
    pop_range(cfg, s->from, &s0, &s1);
    pop_range(cfg, s->to, &t0, &t1);
    const int64_t ns = s1 - s0, nt = t1 - t0;
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", s->name);
    snprintf(p->receptor, sizeof p->receptor, "%s", s->receptor);
    snprintf(p->source, sizeof p->source, "%s", s->from);
    snprintf(p->target, sizeof p->target, "%s", s->to);
    snprintf(p->rule, sizeof p->rule, "%.127s", s->spec);
    p->row0 = 0;
    p->row1 = N;
    p->row_ptr = olive_calloc((size_t)N + 1, sizeof(int64_t), "synapse rows");
    const int overlap = t0 < s1 && s0 < t1;
    if (!s->autapses && overlap && ns == 1 && s->rule != GC_RULE_P && s->k > 0)
        olive_usage_error("--projection %s: autapses=no leaves no source for cell %lld", s->spec, (long long)s0);
    if (s->rule == GC_RULE_TOTAL) {
        /* N pairs (target, source) drawn with replacement, then sorted into rows. */
        int32_t *tgt = olive_malloc((size_t)s->k * sizeof(int32_t) + 4, "pairs"), *src = olive_malloc((size_t)s->k * sizeof(int32_t) + 4, "pairs");
        for (int64_t e = 0; e < s->k; e++) {
            double u0, u1;
            olive_uniform2(cfg->seed, (uint32_t)k, (uint32_t)e, (uint32_t)(e >> 32), OLIVE_STREAM_SYN_PAIRS, &u0, &u1);
            int64_t j = t0 + (int64_t)(u0 * (double)nt);
            int64_t n = !s->autapses && j >= s0 && j < s1 ? ns - 1 : ns;
            tgt[e] = (int32_t)j;
            src[e] = skip_self(s0, (int64_t)(u1 * (double)n), j, s->autapses, ns);
            p->row_ptr[j + 1]++;
        }
        for (int64_t j = 0; j < N; j++) p->row_ptr[j + 1] += p->row_ptr[j];
        p->nnz = s->k;
        p->col = olive_malloc((size_t)p->nnz * sizeof(int32_t) + 4, "synapses");
        int64_t *fill = olive_malloc((size_t)N * sizeof(int64_t) + 8, "rows");
        memcpy(fill, p->row_ptr, (size_t)N * sizeof(int64_t));
        for (int64_t e = 0; e < s->k; e++) p->col[fill[tgt[e]]++] = src[e];
        for (int64_t j = t0; j < t1; j++)
            qsort(p->col + p->row_ptr[j], (size_t)(p->row_ptr[j + 1] - p->row_ptr[j]), sizeof(int32_t), cmp_i32);
        free(fill); free(tgt); free(src);
    } else {
        /* Rows are independent (every draw keyed by the target): blocks of
         * targets on OpenMP threads, each into a buffer of its own, joined in
         * target order: the same file for any thread count. */
        const int64_t nt_rows = t1 - t0;
        const int nblk = nt_rows > 0 ? (int)(nt_rows < 4096 ? 1 : 256) : 0;
        olive_projection *blk = olive_calloc((size_t)nblk + 1, sizeof(olive_projection), "row blocks");
#pragma omp parallel for schedule(dynamic, 1)
        for (int bi = 0; bi < nblk; bi++) {
            const int64_t ja = t0 + nt_rows * bi / nblk, jb = t0 + nt_rows * (bi + 1) / nblk;
            olive_projection *q = &blk[bi];
            int64_t qcap = 0;
            q->row_ptr = olive_calloc((size_t)(jb - ja) + 1, sizeof(int64_t), "rows");
            for (int64_t j = ja; j < jb; j++) {
                int64_t before = q->nnz;
                if (s->rule == GC_RULE_P && s->p > 0) {
                    /* Geometric gaps between the sources kept: O(synapses), every pair once. */
                    const double lq = log1p(-s->p);
                    int64_t pos = -1;
                    for (uint32_t draw = 0;; draw++) {
                        if (s->p >= 1) pos++;
                        else {
                            double gap = floor(log(u01(cfg, k, (uint64_t)j, draw, OLIVE_STREAM_SYN_PAIRS)) / lq);
                            if (gap >= (double)ns) break;
                            pos += 1 + (int64_t)gap;
                        }
                        if (pos >= ns) break;
                        if (!s->autapses && s0 + pos == j) continue;
                        push(q, &qcap, (int32_t)(s0 + pos));
                    }
                } else if (s->rule == GC_RULE_INDEGREE) {
                    int64_t n = !s->autapses && j >= s0 && j < s1 ? ns - 1 : ns;
                    for (int64_t d = 0; d < s->k; d++) {
                        double u = u01(cfg, k, (uint64_t)j, (uint32_t)d, OLIVE_STREAM_SYN_PAIRS);
                        push(q, &qcap, skip_self(s0, (int64_t)(u * (double)n), j, s->autapses, ns));
                    }
                    qsort(q->col + before, (size_t)(q->nnz - before), sizeof(int32_t), cmp_i32);
                }
                q->row_ptr[j - ja + 1] = q->nnz;
            }
        }
        int64_t total = 0;
        for (int bi = 0; bi < nblk; bi++) total += blk[bi].nnz;
        p->col = olive_malloc((size_t)total * sizeof(int32_t) + 4, "synapses");
        for (int64_t j = 0; j < N; j++) p->row_ptr[j + 1] = j < t0 ? 0 : total;
        int64_t at = 0;
        for (int bi = 0; bi < nblk; bi++) {
            const int64_t ja = t0 + nt_rows * bi / nblk, jb = t0 + nt_rows * (bi + 1) / nblk;
            for (int64_t j = ja; j < jb; j++) p->row_ptr[j + 1] = at + blk[bi].row_ptr[j - ja + 1];
            memcpy(p->col + at, blk[bi].col, (size_t)blk[bi].nnz * sizeof(int32_t));
            at += blk[bi].nnz;
            free(blk[bi].col);
            free(blk[bi].row_ptr);
        }
        free(blk);
        p->nnz = total;
    }
    /* Weights and delays: constants cost nothing; ranges and normals one
     * counter per synapse (a normal's redraws more), keyed by its target and
     * place in the row. */
    const int vw = gc_value_varies(&s->w), vd = gc_value_varies(&s->d);
    if (vw) p->weight = olive_malloc((size_t)p->nnz * sizeof(double) + 8, "weights");
    if (vd) p->delay = olive_malloc((size_t)p->nnz * sizeof(uint16_t) + 2, "delays");
    if (vw || vd) {
#pragma omp parallel for schedule(dynamic, 256)
        for (int64_t j = t0; j < t1; j++)
            for (int64_t e = p->row_ptr[j]; e < p->row_ptr[j + 1]; e++) {
                uint32_t at = (uint32_t)(e - p->row_ptr[j]);
                if (vw) p->weight[e] = draw_value(cfg, k, "weight", &s->w, (uint64_t)j, at, OLIVE_STREAM_SYN_WEIGHT);
                if (vd) {
                    double d = draw_value(cfg, k, "delay", &s->d, (uint64_t)j, at, OLIVE_STREAM_SYN_DELAY);
                    p->delay[e] = (uint16_t)olive_ms_to_steps_or_die(olive_die, "delay", d, cfg->dt, 0, OLIVE_MAX_DELAY);
                }
            }
    }
    p->weight_value = s->w.a;
    p->delay_value = olive_ms_to_steps_or_die(olive_usage_error, "delay", s->d.a, cfg->dt, 0, OLIVE_MAX_DELAY);
    p->nnz_total = p->nnz;
    gc_spk_sites_draw(cfg, k, p);
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
    if (s->rule == GC_RULE_TOTAL) return (double)s->k;
    if (s->rule == GC_RULE_INDEGREE) return (double)s->k * (double)(t1 - t0);
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
        held += 8 * (N + 1) + e * gc_spk_held_per_synapse(gc_value_varies(&s->w), gc_value_varies(&s->d), s->site != NULL);
        total += e;
        if (big < 0 || e > most) { most = e; big = k; }
    }
    if (big < 0) return;
    if (cfg->export_prefix) held += 40 * total;
    char what[512];
    snprintf(what, sizeof what, "%lld cells and about %.3g synapses, %.3g of them from --projection %.300s",
             (long long)cfg->count, total, most, cfg->proj[big].spec);
    olive_require_memory(cfg->out_path, held + 8 * most + 8 * (N + 1), what);
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
        olive_info("projection %s: %lld synapses", syn.proj[k].name, (long long)syn.proj[k].nnz);
    }
    if (cfg.import_synapses) {
        int before = syn.n;
        gc_spk_import(&cfg, &syn);
        for (int k = before; k < syn.n; k++) {
            total += syn.proj[k].nnz;
            for (int q = 0; q < k; q++)
                if (!strcmp(syn.proj[q].name, syn.proj[k].name))
                    olive_die("%s: imported projection '%s' has the name of another projection", cfg.import_synapses, syn.proj[k].name);
        }
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
    olive_syn_free(&syn);
    for (int i = 0; i < cfg.pops.n && kv0 >= 0; i++) free(percell[i][kv0]);
    for (int k = 0; k < cfg.nproj; k++) gc_spk_sites_free(&cfg.proj[k], cfg.pops.n);
    return 0;
}
