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
