/* Plastic synapses on the host: the rules' parameters (names, units, NEST's
 * defaults and limits), a projection's rule as attributes of its group in
 * the network file (docs/FORMAT.md) and back, validated. The physics is
 * plasticity.h. */
#include "plasticity_io.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const char *name, *unit;
    double def;
} plast_par;

/* Each rule's parameters (NEST's names, units, defaults: its file's
 * OLIVE_PLAST_<E>_PARS), name, NEST's model and state variables, from the
 * rules' table (plasticity_rules.h). */
#define PARS_(E, P, name, nest, post, s0, s1, s2, smax) static const plast_par P##_pars[] = {OLIVE_PLAST_##E##_PARS{NULL, NULL, 0}};
OLIVE_PLAST_RULES(PARS_)
#undef PARS_
#define ROW_(E, P, name, nest, post, s0, s1, s2, smax) [OLIVE_PLAST_##E] = P##_pars,
static const plast_par *const rule_pars[OLIVE_PLAST_NRULES] = {NULL, OLIVE_PLAST_RULES(ROW_)};
#undef ROW_
#define ROW_(E, P, name, nest, post, s0, s1, s2, smax) [OLIVE_PLAST_##E] = name,
static const char *const rule_names[OLIVE_PLAST_NRULES] = {"static", OLIVE_PLAST_RULES(ROW_)};
#undef ROW_
#define ROW_(E, P, name, nest, post, s0, s1, s2, smax) [OLIVE_PLAST_##E] = nest,
static const char *const nest_names[OLIVE_PLAST_NRULES] = {"static_synapse", OLIVE_PLAST_RULES(ROW_)};
#undef ROW_
#define ROW_(E, P, name, nest, post, s0, s1, s2, smax) [OLIVE_PLAST_##E] = {s0, s1, s2},
static const char *const rule_state[OLIVE_PLAST_NRULES][3] = {{NULL, NULL, NULL}, OLIVE_PLAST_RULES(ROW_)};
#undef ROW_
#define ROW_(E, P, name, nest, post, s0, s1, s2, smax) [OLIVE_PLAST_##E] = smax,
static const double state_max[OLIVE_PLAST_NRULES] = {0, OLIVE_PLAST_RULES(ROW_)};
#undef ROW_

const char *olive_plast_nest_name(int rule) { return rule >= 0 && rule < OLIVE_PLAST_NRULES ? nest_names[rule] : "?"; }

int olive_plast_rule_of_nest(const char *name)
{
    for (int r = 0; r < OLIVE_PLAST_NRULES; r++)
        if (!strcmp(name, nest_names[r])) return r;
    return -1;
}

const char *olive_plast_nest_list(void)
{
    static char buf[512];
    buf[0] = 0;
    for (int r = 0; r < OLIVE_PLAST_NRULES; r++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", r ? ", " : "", nest_names[r]);
    return buf;
}

double olive_plast_state_max(int rule) { return rule > 0 && rule < OLIVE_PLAST_NRULES ? state_max[rule] : 0; }

void olive_plast_state_names(int rule, const char *names[3])
{
    for (int c = 0; c < 3; c++) names[c] = rule > 0 && rule < OLIVE_PLAST_NRULES ? rule_state[rule][c] : NULL;
}

int olive_plast_rule_of(const char *name)
{
    for (int r = 0; r < OLIVE_PLAST_NRULES; r++)
        if (!strcmp(name, rule_names[r])) return r;
    return -1;
}

const char *olive_plast_rule_name(int rule) { return rule >= 0 && rule < OLIVE_PLAST_NRULES ? rule_names[rule] : "?"; }

int olive_plast_npar(int rule)
{
    int n = 0;
    while (rule > 0 && rule < OLIVE_PLAST_NRULES && rule_pars[rule][n].name) n++;
    return n;
}

const char *olive_plast_par_name(int rule, int k) { return rule_pars[rule][k].name; }

const char *olive_plast_par_list(int rule)
{
    static char buf[256];
    buf[0] = 0;
    for (int k = 0; k < olive_plast_npar(rule); k++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", k ? ", " : "", rule_pars[rule][k].name);
    return buf;
}

void olive_plast_defaults(int rule, olive_plasticity *p)
{
    memset(p, 0, sizeof *p);
    p->rule = rule;
    for (int k = 0; k < olive_plast_npar(rule); k++) p->par[k] = rule_pars[rule][k].def;
}

int olive_plast_set(olive_plasticity *p, const char *name, double v)
{
    for (int k = 0; k < olive_plast_npar(p->rule); k++)
        if (!strcmp(name, rule_pars[p->rule][k].name)) { p->par[k] = v; return 1; }
    return 0;
}

int olive_plast_is_par(const char *name)
{
    for (int r = 1; r < OLIVE_PLAST_NRULES; r++)
        for (int k = 0; k < olive_plast_npar(r); k++)
            if (!strcmp(name, rule_pars[r][k].name)) return 1;
    return 0;
}

/* NEST's checks (set_status of the synapse models and of the target's
 * tau_minus), and finite values. */
const char *olive_plast_fault(const olive_plasticity *p)
{
    static char buf[256];
    const double *q = p->par;
    for (int k = 0; k < olive_plast_npar(p->rule); k++) {
        const char *bad = olive_number_fault(q[k]);
        if (bad) {
            snprintf(buf, sizeof buf, "%s = %g %s", rule_pars[p->rule][k].name, q[k], bad);
            return buf;
        }
    }
    switch (p->rule) {   /* the rule's own (its file) */
#define CASE_(E, P, name, nest, post, s0, s1, s2, smax) \
    case OLIVE_PLAST_##E: return olive_plast_##P##_fault(q);
        OLIVE_PLAST_RULES(CASE_)
#undef CASE_
    default: return NULL;
    }
}

const char *olive_plast_weight_fault(const olive_plasticity *p, double w)
{
    switch (p->rule) {
#define CASE_(E, P, name, nest, post, s0, s1, s2, smax) \
    case OLIVE_PLAST_##E: return olive_plast_##P##_weight_fault(p->par, w);
        OLIVE_PLAST_RULES(CASE_)
#undef CASE_
    default: return NULL;
    }
}

void olive_plast_initial(const olive_plasticity *p, olive_plast_state *st)
{
    st->s[0] = st->s[1] = st->s[2] = 0;
    st->last = -1;
    switch (p->rule) {
#define CASE_(E, P, name, nest, post, s0, s1, s2, smax) \
    case OLIVE_PLAST_##E: olive_plast_##P##_initial(p->par, st); break;
        OLIVE_PLAST_RULES(CASE_)
#undef CASE_
    default: break;
    }
}

