/* olive-simulate --param: the overrides of the populations' parameters for
 * this run (common/io/popparam.c parses and applies them), their record in
 * the provenance (attribute param_overrides), and the refusals of a value
 * the model cannot take, named after the option. A --restart may change
 * them, as it may continue on a network file with other cell parameters
 * (docs/FORMAT.md): each output records the overrides of its own piece. */
#include "spk.h"
#include "popparam.h"
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "POP.NAME=VALUE" of every override, comma-separated, in population order then parameter order ("" when none). */
static char *describe(const olive_populations *pops, const int (*set)[OLIVE_MAX_PARAMS])
{
    size_t len = 1;
    for (int i = 0; i < pops->n; i++)
        for (int k = 0; k < pops->pop[i].model->nparams; k++)
            if (set[i][k]) len += strlen(pops->pop[i].name) + strlen(pops->pop[i].model->params[k].name) + 32;
    char *s = olive_malloc(len, "--param"), *end = s;
    *s = 0;
    for (int i = 0; i < pops->n; i++)
        for (int k = 0; k < pops->pop[i].model->nparams; k++)
            if (set[i][k])
                end += sprintf(end, "%s%s.%s=%.17g", end == s ? "" : ",", pops->pop[i].name, pops->pop[i].model->params[k].name,
                               pops->pop[i].param[k]);
    return s;
}

void spk_params_apply(sim_config *cfg, olive_populations *pops)
{
    static int set[OLIVE_MAX_POPS][OLIVE_MAX_PARAMS];
    memset(set, 0, sizeof set);
    for (int j = 0; j < cfg->run.nparams; j++) {
        int hit[OLIVE_MAX_POPS] = {0};
        char name[OLIVE_NAME_LEN];
        olive_pops_param_apply("--param", cfg->run.params[j], pops, hit, name, sizeof name);
        for (int i = 0; i < pops->n; i++)
            if (hit[i]) set[i][olive_model_param(pops->pop[i].model, name)] = 1;
    }
    cfg->run.param_overrides = describe(pops, (const int (*)[OLIVE_MAX_PARAMS])set);
}

int spk_pop_percell(const struct sim_spk *k, const olive_population *p)
{
    /* (v0 aside for the built-in models, whose coefficients do not read it; a plugin's init may read any) */
    const int skip = k->plugin ? -1 : olive_model_param(p->model, "v0");
    int percell = 0;
    for (int q = 0; q < p->model->nparams; q++) percell |= p->percell[q] && q != skip;
    return percell;
}

void spk_pop_refuse(const sim_config *cfg, const olive_population *p, const char *fault)
{
    /* this population's overrides: the entries of param_overrides that begin with "POP." */
    char mine[4096] = "";
    size_t used = 0, l = strlen(p->name);
    for (const char *e = cfg->run.param_overrides; e && *e; e = strchr(e, ',') ? strchr(e, ',') + 1 : e + strlen(e)) {
        size_t n = strcspn(e, ",");
        if (n > l && !strncmp(e, p->name, l) && e[l] == '.' && used + n + 2 < sizeof mine)
            used += (size_t)sprintf(mine + used, "%s%.*s", used ? " --param " : "", (int)n, e);
    }
    if (used) olive_usage_error("--param %s: population %s: %s (network %s)", mine, p->name, fault, cfg->run.net_path);
    olive_die("%s: population %s: %s", cfg->run.net_path, p->name, fault);
}

/* A parameter set between a session's runs (olive_session_set_param): SPEC
 * as --param takes it, applied to a copy of the populations first, so that
 * a value the engine cannot take in memory leaves the run as it was and the
 * refusal in why (the caller then restarts from the run's state, as
 * pyNN.olive does). In memory: the point models' populations whose
 * parameters are one set for the population, where the new set changes no
 * receptor factor (the CUDA engine holds those apart); the new coefficients
 * act from the next step on, on every engine and rank alike (each rank
 * makes the same set). Initial values (v0) change nothing once the run has
 * begun. The change is noted in the outputs' param_overrides. */
int sim_set_param(sim_t *s, const char *spec, int64_t step, char *why, size_t why_len)
{
    struct sim_spk *k = s->spk;
    if (!k || !k->point) {
        snprintf(why, why_len, "a parameter is set in memory in spiking point-model networks only (this run: %s)",
                 s->cfg->run.model->name);
        return -1;
    }
    const olive_model_plugin *pl = k->point;
    const size_t nc = (size_t)pl->ncoef;
    static olive_populations copy;   /* (static: a malformed SPEC stops inside the parse, leaving nothing to free) */
    olive_populations *trial = &copy;
    memcpy(trial, &k->pops, sizeof *trial);
    int hit[OLIVE_MAX_POPS] = {0}, set_of[OLIVE_MAX_POPS];
    char name[OLIVE_NAME_LEN];
    olive_pops_param_apply("olive_session_set_param", spec, trial, hit, name, sizeof name);
    double *coef = olive_malloc((size_t)trial->n * nc * sizeof(double) + 8, "coefficients");
    double *old = olive_malloc(nc * sizeof(double) + 8, "coefficients");
    const int64_t r0 = s->plan.row0, r1 = s->plan.row1;
    int fault = 0;
    for (int i = 0; i < trial->n && !fault; i++) {
        const olive_population *was = &k->pops.pop[i], *p = &trial->pop[i];
        set_of[i] = -1;
        if (olive_model_is_source(was->model)) {   /* (the point model's sets skip sources) */
            if (hit[i]) {
                snprintf(why, why_len, "%s: population %s is a spike source, whose inputs are drawn at set-up", spec,
                         p->name);
                fault = 1;
            }
            continue;
        }
        if (!hit[i]) continue;
        /* its set: that of its first cell on this rank (one set per population here), none without cells here */
        const int64_t a = p->first > r0 ? p->first : r0;
        const int mine = a < r1 && a < p->first + p->count ? k->coef_of[a - r0] : -1;
        const char *bad = NULL;
        if (spk_pop_percell(k, was)) {   /* (its cells' sets are their own) */
            snprintf(why, why_len, "%s: population %s has per-cell parameters (its coefficient sets are per cell)", spec,
                     p->name);
            fault = 1;
        } else if ((bad = pl->coef_make(p->param, s->cfg->run.dt, coef + (size_t)i * nc))) {
            snprintf(why, why_len, "%s: population %s: %s", spec, p->name, bad);
            fault = 1;
        } else {
            /* the set of the old values, made here (every rank decides alike, with cells here or not) */
            if (pl->coef_make(was->param, s->cfg->run.dt, old))
                olive_die("olive_session_set_param: population %s: its coefficients cannot be made again (internal)",
                          p->name);
            for (int q = 0; q < pl->model.nreceptors && !fault; q++) {
                const int c = pl->receptor_coef ? pl->receptor_coef[q] : -1;
                if (c >= 0 && old[c] != coef[(size_t)i * nc + (size_t)c]) {
                    snprintf(why, why_len, "%s: population %s: the value changes receptor %d's factor, which the engines "
                             "hold apart from the coefficients", spec, p->name, q);
                    fault = 1;
                }
            }
            set_of[i] = mine;
        }
    }
    if (!fault) {
        for (int i = 0; i < trial->n; i++) {
            if (!hit[i]) continue;
            memcpy(k->pops.pop[i].param, trial->pop[i].param, sizeof trial->pop[i].param);
            if (set_of[i] >= 0) memcpy(k->pcoef + (size_t)set_of[i] * nc, coef + (size_t)i * nc, nc * sizeof(double));
        }
        /* the outputs' record: "POP.NAME=VALUE from step N" after the run's own overrides */
        const char *was = s->cfg->run.param_overrides ? s->cfg->run.param_overrides : "";
        const size_t len = strlen(was) + strlen(spec) + 48;
        char *now = olive_malloc(len, "--param");
        snprintf(now, len, "%s%s%s from step %lld", was, *was ? "," : "", spec, (long long)step);
        free(s->cfg->run.param_overrides);
        s->cfg->run.param_overrides = now;
    }
    free(coef);
    free(old);
    return fault ? -1 : 0;
}
