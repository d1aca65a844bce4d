/* --param POP.NAME=VALUE, NAME=VALUE@POP, NAME=VALUE (popparam.h). */
#include "popparam.h"
#include "util.h"
#include <stdio.h>
#include <string.h>

/* "a, b, c" into out (cut with "..." when it does not fit). */
static void list_names(char *out, size_t len, int n, const char *(*name_of)(const void *, int), const void *ctx)
{
    size_t used = 0;
    out[0] = 0;
    for (int i = 0; i < n && used < len; i++) {
        int w = snprintf(out + used, len - used, "%s%s", i ? ", " : "", name_of(ctx, i));
        if (w < 0 || (size_t)w >= len - used) { snprintf(out + (len > 4 ? len - 4 : 0), len > 4 ? 4 : len, "..."); return; }
        used += (size_t)w;
    }
}

static const char *pop_name(const void *ctx, int i) { return ((const olive_populations *)ctx)->pop[i].name; }
static const char *param_name(const void *ctx, int i) { return ((const olive_cell_model *)ctx)->params[i].name; }

static int find_pop(const olive_populations *pops, const char *name)
{
    for (int i = 0; i < pops->n; i++)
        if (!strcmp(pops->pop[i].name, name)) return i;
    return -1;
}

/* The population whose name followed by '.' starts key (the longest), or -1. */
static int pop_prefix(const olive_populations *pops, const char *key)
{
    int best = -1;
    size_t best_len = 0;
    for (int i = 0; i < pops->n; i++) {
        size_t l = strlen(pops->pop[i].name);
        if (l > best_len && !strncmp(key, pops->pop[i].name, l) && key[l] == '.') { best = i; best_len = l; }
    }
    return best;
}

/* 1 when some population's model has a parameter called key. */
static int any_has(const olive_populations *pops, const char *key)
{
    for (int i = 0; i < pops->n; i++)
        if (olive_model_param(pops->pop[i].model, key) >= 0) return 1;
    return 0;
}

/* Refused: no population has key; the models present and their parameters listed. */
static void refuse_unknown(const char *opt, const char *spec, const olive_populations *pops, const char *key)
{
    char models[1024] = "", params[4096] = "", one[2048];
    size_t um = 0, up = 0;
    for (int i = 0; i < pops->n; i++) {
        const olive_cell_model *m = pops->pop[i].model;
        int seen = 0;
        for (int j = 0; j < i; j++) seen |= pops->pop[j].model == m;
        if (seen) continue;
        list_names(one, sizeof one, m->nparams, param_name, m);
        int w = snprintf(models + um, sizeof models - um, "%s%s", um ? " or " : "", m->name);
        if (w > 0 && (size_t)w < sizeof models - um) um += (size_t)w;
        w = snprintf(params + up, sizeof params - up, "%s%s: %s", up ? "; " : "", m->name, m->nparams ? one : "none");
        if (w > 0 && (size_t)w < sizeof params - up) up += (size_t)w;
    }
    char popl[1024];
    list_names(popl, sizeof popl, pops->n, pop_name, pops);
    olive_usage_error("%s %s: '%s' is not a parameter of %s (populations: %s; parameters of %s)", opt, spec, key, models,
                      popl, params);
}

void olive_pops_param_apply(const char *opt, const char *spec, olive_populations *pops, int hit[OLIVE_MAX_POPS],
                            char *name, size_t name_len)
{
    char buf[512], what[600];
    if ((size_t)snprintf(buf, sizeof buf, "%s", spec) >= sizeof buf) olive_usage_error("%s: '%s' is too long", opt, spec);
    char *eq = strchr(buf, '='), *at;
    if (!eq || eq == buf) olive_usage_error("%s: '%s' must be POP.NAME=VALUE, NAME=VALUE@POP or NAME=VALUE", opt, spec);
    *eq = 0;
    if ((at = strchr(eq + 1, '@'))) *at++ = 0;
    const char *key = buf;
    int only = -1;   /* the one population named, or -1: every population that has key */
    if (at) {
        if ((only = find_pop(pops, at)) < 0) {
            char popl[1024];
            list_names(popl, sizeof popl, pops->n, pop_name, pops);
            olive_usage_error("%s %s: no population '%s' (populations: %s)", opt, spec, at, popl);
        }
    } else if ((only = pop_prefix(pops, key)) >= 0) {
        if (any_has(pops, key))
            olive_usage_error("%s %s: '%s' is both population %s's parameter %s and a parameter of its own: write "
                              "%s=VALUE@POP", opt, spec, key, pops->pop[only].name, key + strlen(pops->pop[only].name) + 1,
                              key + strlen(pops->pop[only].name) + 1);
        key += strlen(pops->pop[only].name) + 1;
    }
    snprintf(what, sizeof what, "%s %s", opt, spec);
    const double v = olive_parse_double(what, eq + 1, -1e9, 1e9);
    if ((size_t)snprintf(name, name_len, "%s", key) >= name_len) olive_usage_error("%s: '%s' is too long", opt, key);
    if (only >= 0) {
        olive_population *p = &pops->pop[only];
        const int k = olive_model_param(p->model, key);
        if (k < 0) {
            char pl[2048];
            list_names(pl, sizeof pl, p->model->nparams, param_name, p->model);
            olive_usage_error("%s %s: population %s (%s) has no parameter '%s' (its parameters: %s)", opt, spec, p->name,
                              p->model->name, key, p->model->nparams ? pl : "none");
        }
        p->param[k] = v;
        p->percell[k] = 0;
        hit[only] = 1;
        return;
    }
    if (!any_has(pops, key)) refuse_unknown(opt, spec, pops, key);
    for (int i = 0; i < pops->n; i++) {
        const int k = olive_model_param(pops->pop[i].model, key);
        if (k < 0) continue;
        pops->pop[i].param[k] = v;
        pops->pop[i].percell[k] = 0;
        hit[i] = 1;
    }
}
