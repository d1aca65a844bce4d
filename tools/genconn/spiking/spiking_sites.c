/* Synapse sites on cable cells (--projection ...,sites=;
 * docs/FORMAT.md "Synapses"): where on its target cell each synapse of a
 * projection sits. The eligible places of each target population are spans
 * (section, x0..x1) laid end to end on a line; a synapse's one uniform draw,
 * keyed by (seed, projection, target, place in the row) as its weight is but
 * in a stream of its own, picks a point on that line. sites=TYPES[:DMIN:DMAX]
 * makes a span's length its length in um (uniform over dendritic length);
 * sites=@FILE makes every listed (section, x) a span of length 1 (uniform
 * over the lines). */
#include "spiking_net.h"
#include "cable_model.h"
#include "rng.h"
#include "swc.h"
#include "util.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gc_site_span {
    int32_t sec;
    double x0, x1;   /* the span on section sec */
    double end;      /* where it ends on the line (its start: the previous span's end, or 0) */
};

/* The type groups of swc.h (custom, soma, axon, dend, apic) named in sites=. */
static const char *const type_names[5] = {"custom", "soma", "axon", "dend", "apic"};

/* The sections of population p's cell: an SWC file's (hh_swc), or the
 * ball-and-stick's soma and dend (hh_cable, as cable_model.c builds them). */
static void pop_sections(const olive_population *p, olive_morphology *m)
{
    /* the sections olive-simulate builds (cable_model.c's template): one
     * source of the cell's geometry for both programs */
    olive_cable_template t;
    const char *fault = olive_cable_template_make(p->model, p->param, p->morphology, p->biophysics, NULL, &t);
    if (fault) olive_usage_error("population %s: %s", p->name, fault);
    memset(m, 0, sizeof *m);
    m->sec = t.sec;
    m->nsec = t.nsec;
    t.sec = NULL;
    olive_cable_template_free(&t);
}

/* Path distance (um) from the soma's middle to the 0 end of every section:
 * NEURON's h.distance(soma(0.5), sec(0)); parents come before children. */
static double *start_distances(const olive_morphology *m)
{
    double *d0 = olive_malloc((size_t)m->nsec * sizeof(double) + 8, "sections");
    for (int s = 0; s < m->nsec; s++) {
        const olive_section *q = &m->sec[s];
        if (q->parent < 0) { d0[s] = -0.5 * q->L; continue; }   /* the root: distance |x - 0.5| L */
        const olive_section *par = &m->sec[q->parent];
        d0[s] = par->parent < 0 ? fabs(q->parent_x - 0.5) * par->L : d0[q->parent] + q->parent_x * par->L;
    }
    return d0;
}

/* Append span (sec, x0..x1) of weight len to t, if it has any. */
static void push_span(gc_site_table *t, int *cap, int sec, double x0, double x1, double len)
{
    if (!(len > 0)) return;
    if (t->n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        t->span = olive_realloc(t->span, (size_t)*cap * sizeof *t->span, "synapse sites");
    }
    t->total += len;
    t->span[t->n++] = (gc_site_span){sec, x0, x1, t->total};
}

/* The parts of section s of m at distance [dmin, dmax] from the soma's middle. */
static void section_spans(const olive_morphology *m, const double *d0, int s, double dmin, double dmax, gc_site_table *t,
                          int *cap)
{
    const double L = m->sec[s].L;
    if (m->sec[s].parent < 0) {   /* the root soma: distance |x - 0.5| L, two halves */
        push_span(t, cap, s, fmax(0, 0.5 - dmax / L), 0.5 - dmin / L, fmin(dmax, 0.5 * L) - dmin);
        push_span(t, cap, s, 0.5 + dmin / L, fmin(1, 0.5 + dmax / L), fmin(dmax, 0.5 * L) - dmin);
        return;
    }
    const double x0 = fmax(0, (dmin - d0[s]) / L), x1 = fmin(1, (dmax - d0[s]) / L);
    push_span(t, cap, s, x0, x1, (x1 - x0) * L);
}

/* sites=TYPES[:DMIN:DMAX] into the type groups (bits) and the range. */
static void parse_rule(const char *spec, const char *v, int *groups, double *dmin, double *dmax)
{
    char buf[256], *f[4];
    int nf = 0;
    snprintf(buf, sizeof buf, "%s", v);
    for (char *save = NULL, *tok = strtok_r(buf, ":", &save); tok && nf < 4; tok = strtok_r(NULL, ":", &save)) f[nf++] = tok;
    if (nf != 1 && nf != 3)
        olive_usage_error("--projection %s: sites='%s' must be TYPES[:DMIN:DMAX] or @FILE", spec, v);
    *groups = 0;
    char types[256];
    snprintf(types, sizeof types, "%s", f[0]);
    for (char *save = NULL, *tok = strtok_r(types, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
        int g = 0;
        while (g < 5 && strcmp(tok, type_names[g])) g++;
        if (g == 5)
            olive_usage_error("--projection %s: sites: '%s' is not a section type (soma, axon, dend, apic, custom)", spec, tok);
        *groups |= 1 << g;
    }
    *dmin = 0;
    *dmax = INFINITY;
    if (nf == 3) {
        char *e1, *e2;
        errno = 0;
        *dmin = strtod(f[1], &e1);
        *dmax = strtod(f[2], &e2);
        if (*e1 || *e2 || errno || !isfinite(*dmin) || *dmin < 0 || isnan(*dmax) || !(*dmax > *dmin))
            olive_usage_error("--projection %s: sites='%s': the distances DMIN:DMAX must be numbers with "
                              "0 <= DMIN < DMAX (um; DMAX may be inf)", spec, v);
    }
}

/* Section index of name in m: the exact name, or a bare type name ("soma")
 * for its only section ("soma[0]" where there is no "soma[1]"); -1 if none. */
static int find_section(const olive_morphology *m, const char *name)
{
    for (int s = 0; s < m->nsec; s++)
        if (!strcmp(m->sec[s].name, name)) return s;
    if (strchr(name, '[')) return -1;
    char first[96], second[96];
    snprintf(first, sizeof first, "%.80s[0]", name);
    snprintf(second, sizeof second, "%.80s[1]", name);
    int found = -1;
    for (int s = 0; s < m->nsec; s++) {
        if (!strcmp(m->sec[s].name, second)) return -1;
        if (!strcmp(m->sec[s].name, first)) found = s;
    }
    return found;
}

/* sites=@FILE for population p of sections m: one span of weight 1 a line. */
static void read_list(const char *file, const olive_population *p, const olive_morphology *m, gc_site_table *t)
{
    FILE *f = fopen(file, "r");
    if (!f) olive_usage_error("sites=@%s: cannot open the file: %s", file, strerror(errno));
    char line[1024];
    int cap = 0;
    for (long ln = 1; fgets(line, sizeof line, f); ln++) {
        if (!strchr(line, '\n') && !feof(f)) olive_die("%s: line %ld: longer than %zu characters", file, ln, sizeof line - 2);
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char name[80], x_s[80], extra[2];
        const int n = sscanf(line, "%79s %79s %1s", name, x_s, extra);
        if (n <= 0) continue;
        if (n != 2) olive_die("%s: line %ld: expected SECTION_NAME X", file, ln);
        char *end;
        const double x = strtod(x_s, &end);
        if (*end || !(x >= 0 && x <= 1)) olive_die("%s: line %ld: x = '%s' is not a position in [0, 1]", file, ln, x_s);
        const int s = find_section(m, name);
        if (s < 0)
            olive_die("%s: line %ld: section '%s' is not in the cell of population %s (%s: %d sections)", file, ln, name,
                      p->name, olive_model_needs_morphology(p->model) ? p->morphology : "hh_cable: soma, dend", m->nsec);
        push_span(t, &cap, s, x, x, 1);
    }
    if (ferror(f)) olive_die("%s: read error", file);
    fclose(f);
    if (!t->n) olive_die("%s: no sites (lines SECTION_NAME X)", file);
}

/* The eligible spans of population p for sites=v of projection spec. */
static void pop_table(const char *spec, const char *v, const olive_population *p, gc_site_table *t)
{
    olive_morphology m;
    pop_sections(p, &m);
    memset(t, 0, sizeof *t);
    if (v[0] == '@') {
        read_list(v + 1, p, &m, t);
    } else {
        int groups, cap = 0;
        double dmin, dmax;
        parse_rule(spec, v, &groups, &dmin, &dmax);
        double *d0 = start_distances(&m);
        for (int s = 0; s < m.nsec; s++)
            if (groups >> olive_swc_group(m.sec[s].type) & 1) section_spans(&m, d0, s, dmin, dmax, t, &cap);
        free(d0);
        if (!(t->total > 0))
            olive_usage_error("--projection %s: the cell of population %s (%s) has no length of those section types at "
                              "that distance from the soma", spec, p->name,
                              olive_model_needs_morphology(p->model) ? p->morphology : "hh_cable");
    }
    olive_morphology_free(&m);
}

void gc_spk_sites_resolve(gc_spk_config *cfg, gc_proj_spec *s)
{
    if (cfg->model != &olive_model_hh_swc && cfg->model != &olive_model_hh_cable)
        olive_usage_error("--projection %s: sites= places synapses on the sections of hh_swc and hh_cable cells, not %s",
                          s->spec, cfg->model->name);
    s->site = olive_calloc((size_t)cfg->pops.n + 1, sizeof *s->site, "synapse sites");
    for (int i = 0; i < cfg->pops.n; i++)
        if (!strcmp(s->to, "all") || !strcmp(s->to, cfg->pops.pop[i].name)) pop_table(s->spec, s->sites, &cfg->pops.pop[i], &s->site[i]);
}

void gc_spk_sites_free(gc_proj_spec *s, int npops)
{
    for (int i = 0; s->site && i < npops; i++) free(s->site[i].span);
    free(s->site);
    s->site = NULL;
}

/* The site at v in [0, total] of table t (the first span ending after v; the
 * last span at v = total, where rounding may put u0 * total). */
static void locate(const gc_site_table *t, double v, int32_t *sec, double *x)
{
    int lo = 0, hi = t->n - 1;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (t->span[mid].end > v) hi = mid;
        else lo = mid + 1;
    }
    const gc_site_span *q = &t->span[lo];
    const double start = lo ? t->span[lo - 1].end : 0, f = (v - start) / (q->end - start);
    *sec = q->sec;
    *x = fmin(q->x1, fmax(q->x0, q->x0 + (q->x1 - q->x0) * f));
}

void gc_spk_sites_draw(const gc_spk_config *cfg, int k, olive_projection *p)
{
    const gc_proj_spec *s = &cfg->proj[k];
    if (!s->site) return;
    if (s->sites[0] == '@') snprintf(p->sites, sizeof p->sites, "list:%.250s", s->sites + 1);
    else snprintf(p->sites, sizeof p->sites, "%s", s->sites);
    p->site_sec = olive_malloc((size_t)p->nnz * sizeof(int32_t) + 4, "synapse sites");
    p->site_x = olive_malloc((size_t)p->nnz * sizeof(double) + 8, "synapse sites");
    for (int i = 0; i < cfg->pops.n; i++) {
        const gc_site_table *t = &s->site[i];
        if (!t->n) continue;
        const int64_t a = cfg->pops.pop[i].first, b = a + cfg->pops.pop[i].count;
#pragma omp parallel for schedule(dynamic, 256)
        for (int64_t j = a; j < b; j++)
            for (int64_t e = p->row_ptr[j]; e < p->row_ptr[j + 1]; e++) {
                double u0, u1;
                olive_uniform2(cfg->seed, (uint32_t)k, (uint32_t)j, (uint32_t)(e - p->row_ptr[j]), OLIVE_STREAM_SYN_SITE,
                               &u0, &u1);
                locate(t, u0 * t->total, &p->site_sec[e], &p->site_x[e]);
            }
    }
}
