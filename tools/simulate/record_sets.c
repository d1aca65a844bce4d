/* What is recorded: the output's populations (the network's) and, per
 * variable, the set of recorded cells from --record-cells SET or VAR=SET,
 * SET a comma-separated list of items (docs/SPEC-simulate-output.md):
 *   17         one cell (global id)
 *   A:B        cells A <= id < B (global ids)
 *   exc        every cell of population exc
 *   exc[A:B]   cells A <= id < B of population exc (ids local to it)
 * Repeated arguments add up (a union). Sets are kept as ranges: recording
 * every cell of a large network costs one range, not a list of ids. */
#include "sim.h"
#include "synfile.h"
#include "util.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int64_t (*r)[2];
    int n, cap;
} range_list;

static void add_range(range_list *l, int64_t a, int64_t b)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->r = olive_realloc(l->r, (size_t)l->cap * sizeof *l->r, "cell sets");
    }
    l->r[l->n][0] = a;
    l->r[l->n][1] = b;
    l->n++;
}

static int by_start(const void *x, const void *y)
{
    const int64_t *a = x, *b = y;
    return (a[0] > b[0]) - (a[0] < b[0]);
}

/* Sorted and merged: disjoint, non-adjacent ranges. */
static sim_cellset normalise(range_list *l)
{
    qsort(l->r, (size_t)l->n, sizeof *l->r, by_start);
    int m = 0;
    for (int i = 0; i < l->n; i++) {
        if (m > 0 && l->r[i][0] <= l->r[m - 1][1]) {
            if (l->r[i][1] > l->r[m - 1][1]) l->r[m - 1][1] = l->r[i][1];
        } else {
            l->r[m][0] = l->r[i][0];
            l->r[m][1] = l->r[i][1];
            m++;
        }
    }
    return (sim_cellset){l->r, m};
}

/* A non-negative integer filling the whole of s, else -1. */
static int64_t whole_int(const char *s, size_t len)
{
    if (len == 0 || len > 18) return -1;
    int64_t x = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        x = 10 * x + (s[i] - '0');
    }
    return x;
}

/* "A:B" (len characters) into [a, b): 1, or 0 when it is not two integers. */
static int parse_span(const char *s, size_t len, int64_t *a, int64_t *b)
{
    const char *colon = memchr(s, ':', len);
    if (!colon) return 0;
    *a = whole_int(s, (size_t)(colon - s));
    *b = whole_int(colon + 1, len - (size_t)(colon + 1 - s));
    return *a >= 0 && *b >= 0;
}

static const sim_outpop *find_pop(const sim_config *cfg, const char *name, size_t len)
{
    for (int p = 0; p < cfg->rec.npops; p++)
        if (strlen(cfg->rec.pops[p].name) == len && !strncmp(cfg->rec.pops[p].name, name, len)) return &cfg->rec.pops[p];
    return NULL;
}

static void pop_names(const sim_config *cfg, char *buf, size_t n)
{
    buf[0] = 0;
    for (int p = 0; p < cfg->rec.npops; p++)
        snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", p ? ", " : "", cfg->rec.pops[p].name);
}

/* One item of a set into l, refused (naming the argument and the item) when
 * it names no cell or a cell the network does not have. */
static void add_item(const sim_config *cfg, const char *arg, const char *item, int64_t count, range_list *l)
{
    const size_t len = strlen(item);
    int64_t a, b;
    const char *bracket = strchr(item, '[');
    if (!len) olive_usage_error("--record-cells %s: an empty item", arg);
    if (bracket) {   /* POP[A:B] */
        const sim_outpop *p = find_pop(cfg, item, (size_t)(bracket - item));
        char names[4096];
        pop_names(cfg, names, sizeof names);
        if (!p) olive_usage_error("--record-cells %s: '%s': the network has no population '%.*s' (it has: %s)", arg, item,
                                  (int)(bracket - item), item, names);
        if (item[len - 1] != ']' || !parse_span(bracket + 1, len - (size_t)(bracket - item) - 2, &a, &b))
            olive_usage_error("--record-cells %s: '%s' must be POP[A:B] with integers A < B", arg, item);
        if (b <= a) olive_usage_error("--record-cells %s: '%s' names no cell (A < B needed)", arg, item);
        if (b > p->count)
            olive_usage_error("--record-cells %s: '%s': population %s has %lld cells", arg, item, p->name, (long long)p->count);
        add_range(l, p->first + a, p->first + b);
        return;
    }
    if (parse_span(item, len, &a, &b)) {
        if (b <= a) olive_usage_error("--record-cells %s: '%s' names no cell (A < B needed)", arg, item);
        if (b > count) olive_usage_error("--record-cells %s: '%s': the network has %lld cells", arg, item, (long long)count);
        add_range(l, a, b);
        return;
    }
    if ((a = whole_int(item, len)) >= 0) {
        if (a >= count)
            olive_usage_error("--record-cells %s: '%s': the network has %lld cells (ids 0 to %lld)", arg, item,
                              (long long)count, (long long)count - 1);
        add_range(l, a, a + 1);
        return;
    }
    const sim_outpop *p = find_pop(cfg, item, len);
    if (!p) {
        char names[4096];
        pop_names(cfg, names, sizeof names);
        olive_usage_error("--record-cells %s: '%s' is not a cell id, A:B, a population or POP[A:B] (populations: %s)", arg,
                          item, names);
    }
    add_range(l, p->first, p->first + p->count);
}

static void add_set(const sim_config *cfg, const sim_cellarg *ca, int64_t count, range_list *l)
{
    char *copy = strdup(ca->set), *save = NULL;
    if (!copy) olive_die("out of memory reading --record-cells");
    if (!*copy || copy[strlen(copy) - 1] == ',' || copy[0] == ',' || strstr(copy, ",,"))
        olive_usage_error("--record-cells %s: an empty item", ca->arg);
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) add_item(cfg, ca->arg, tok, count, l);
    free(copy);
}

/* The network's populations, or --population's name for a single one. */
static void resolve_pops(sim_config *cfg, int64_t count)
{
    olive_populations *pops = olive_malloc(sizeof *pops, "populations");
    olive_pops_read(cfg->run.net_path, count, pops);
    if (cfg->rec.population[0] && pops->n > 1)
        olive_usage_error("--population %s: %s has %d populations, and the output keeps their names (--population renames "
                          "the output of a single-population network)", cfg->rec.population, cfg->run.net_path, pops->n);
    cfg->rec.npops = pops->n;
    cfg->rec.pops = olive_calloc((size_t)pops->n, sizeof *cfg->rec.pops, "populations");
    for (int p = 0; p < pops->n; p++) {
        sim_outpop *o = &cfg->rec.pops[p];
        snprintf(o->name, sizeof o->name, "%s", cfg->rec.population[0] ? cfg->rec.population : pops->pop[p].name);
        o->first = pops->pop[p].first;
        o->count = pops->pop[p].count;
    }
    free(pops);
}

/* The cells of the arguments for variable var (-1: those without VAR=); 0 when none names it. */
static int resolve_var(sim_config *cfg, int var, int64_t count, sim_cellset *out)
{
    range_list l = {0};
    int named = 0;
    for (int k = 0; k < cfg->rec.ncell_args; k++)
        if (cfg->rec.cell_args[k].var == var) { add_set(cfg, &cfg->rec.cell_args[k], count, &l); named = 1; }
    if (!named) { free(l.r); return 0; }
    *out = normalise(&l);
    return 1;
}

void sim_record_resolve(sim_config *cfg, int64_t count)
{
    resolve_pops(cfg, count);
    sim_cellset all;
    if (!resolve_var(cfg, -1, count, &all)) {
        range_list l = {0};
        add_range(&l, 0, count);
        all = normalise(&l);
    }
    for (int v = 0; v < OLIVE_NVARS; v++) {
        if (!resolve_var(cfg, v, count, &cfg->rec.cells[v])) {
            cfg->rec.cells[v].n = all.n;
            cfg->rec.cells[v].r = olive_malloc((size_t)all.n * sizeof *all.r, "cell sets");
            memcpy(cfg->rec.cells[v].r, all.r, (size_t)all.n * sizeof *all.r);
        }
    }
    free(all.r);
}

void sim_record_free(sim_config *cfg)
{
    for (int v = 0; v < OLIVE_NVARS; v++) { free(cfg->rec.cells[v].r); cfg->rec.cells[v] = (sim_cellset){0}; }
    free(cfg->rec.pops);
    cfg->rec.pops = NULL;
    free(cfg->rec.cell_args);
    cfg->rec.cell_args = NULL;
}

int64_t sim_cellset_count(const sim_cellset *set, int64_t a, int64_t b)
{
    int64_t n = 0;
    for (int i = 0; i < set->n; i++) {
        const int64_t lo = set->r[i][0] > a ? set->r[i][0] : a, hi = set->r[i][1] < b ? set->r[i][1] : b;
        if (hi > lo) n += hi - lo;
    }
    return n;
}

int sim_cellset_slice(const sim_cellset *set, int64_t a, int64_t b, int64_t (**out)[2])
{
    range_list l = {0};
    for (int i = 0; i < set->n; i++) {
        const int64_t lo = set->r[i][0] > a ? set->r[i][0] : a, hi = set->r[i][1] < b ? set->r[i][1] : b;
        if (hi > lo) add_range(&l, lo - a, hi - a);
    }
    *out = l.r;
    return l.n;
}

void sim_record_span(const sim_t *s, int64_t *lo, int64_t *hi)
{
    const sim_config *c = s->cfg;
    *lo = s->plan.nlocal;
    *hi = 0;
    for (int v = 0; v < c->run.model->nvars; v++) {
        if (!c->rec.vars[v] && !c->rec.comp_vars[v] && !(v == 0 && c->rec.ncomp_mech)) continue;
        int64_t (*r)[2];
        const int n = sim_cellset_slice(&c->rec.cells[v], s->plan.row0, s->plan.row1, &r);
        if (n > 0 && r[0][0] < *lo) *lo = r[0][0];
        if (n > 0 && r[n - 1][1] > *hi) *hi = r[n - 1][1];
        free(r);
    }
    if (*hi < *lo) *hi = *lo;
}
