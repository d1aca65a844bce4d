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

/* NEST 3's names and defaults (stdp_synapse, its target's tau_minus;
 * tsodyks_synapse; tsodyks2_synapse), in plasticity.h's index order. */
static const plast_par stdp_pars[] = {
    {"tau_plus", "ms", 20.0}, {"lambda", "", 0.01}, {"alpha", "", 1.0}, {"mu_plus", "", 1.0},
    {"mu_minus", "", 1.0},    {"Wmax", "weight", 100.0}, {"tau_minus", "ms", 20.0}, {NULL, NULL, 0}};
static const plast_par tso_pars[] = {
    {"U", "", 0.5}, {"tau_psc", "ms", 3.0}, {"tau_rec", "ms", 800.0}, {"tau_fac", "ms", 0.0},
    {"x", "", 1.0}, {"y", "", 0.0},         {"u", "", 0.0},           {NULL, NULL, 0}};
static const plast_par tso2_pars[] = {
    {"U", "", 0.5}, {"u", "", 0.5}, {"x", "", 1.0}, {"tau_rec", "ms", 800.0}, {"tau_fac", "ms", 0.0}, {NULL, NULL, 0}};

static const char *const rule_names[OLIVE_PLAST_NRULES] = {"static", "stdp", "tsodyks", "tsodyks2", "stdp_nn_symm"};
static const plast_par *const rule_pars[OLIVE_PLAST_NRULES] = {NULL, stdp_pars, tso_pars, tso2_pars, stdp_pars};
/* the state variables s[0..2] each rule keeps (state files name them so) */
static const char *const rule_state[OLIVE_PLAST_NRULES][3] = {
    {NULL, NULL, NULL}, {"Kplus", NULL, NULL}, {"x", "y", "u"}, {"x", NULL, "u"}, {"Kplus", NULL, NULL}};

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
    switch (p->rule) {
    case OLIVE_PLAST_STDP:
    case OLIVE_PLAST_STDP_NN_SYMM:
        if (!(q[OLIVE_STDP_TAU_PLUS] > 0)) return "tau_plus must be > 0 ms";
        if (!(q[OLIVE_STDP_TAU_MINUS] > 0)) return "tau_minus must be > 0 ms";
        if (q[OLIVE_STDP_WMAX] == 0) return "Wmax must not be 0";
        if (q[OLIVE_STDP_MU_PLUS] < 0 || q[OLIVE_STDP_MU_MINUS] < 0) return "mu_plus and mu_minus must be >= 0";
        return NULL;
    case OLIVE_PLAST_TSODYKS:
        if (q[OLIVE_TSO_U] < 0 || q[OLIVE_TSO_U] > 1) return "U must be in [0, 1]";
        if (q[OLIVE_TSO_U0] < 0 || q[OLIVE_TSO_U0] > 1) return "u must be in [0, 1]";
        if (!(q[OLIVE_TSO_TAU_PSC] > 0) || !(q[OLIVE_TSO_TAU_REC] > 0)) return "tau_psc and tau_rec must be > 0 ms";
        if (q[OLIVE_TSO_TAU_FAC] < 0) return "tau_fac must be >= 0 ms";
        if (q[OLIVE_TSO_TAU_PSC] == q[OLIVE_TSO_TAU_REC]) return "tau_psc must differ from tau_rec (NEST's propagator divides by their difference)";
        if (q[OLIVE_TSO_X] < 0 || q[OLIVE_TSO_Y] < 0 || q[OLIVE_TSO_X] + q[OLIVE_TSO_Y] > 1.0)
            return "x and y must be >= 0 with x + y <= 1";
        return NULL;
    case OLIVE_PLAST_TSODYKS2:
        if (q[OLIVE_TSO2_U] < 0 || q[OLIVE_TSO2_U] > 1) return "U must be in [0, 1]";
        if (q[OLIVE_TSO2_U0] < 0 || q[OLIVE_TSO2_U0] > 1) return "u must be in [0, 1]";
        if (q[OLIVE_TSO2_X] < 0 || q[OLIVE_TSO2_X] > 1) return "x must be in [0, 1]";
        if (!(q[OLIVE_TSO2_TAU_REC] > 0)) return "tau_rec must be > 0 ms";
        if (q[OLIVE_TSO2_TAU_FAC] < 0) return "tau_fac must be >= 0 ms";
        return NULL;
    default:
        return NULL;
    }
}

const char *olive_plast_weight_fault(const olive_plasticity *p, double w)
{
    /* NEST: "Weight and Wmax must have same sign." */
    if (olive_plast_is_stdp(p->rule) && ((w >= 0) != (p->par[OLIVE_STDP_WMAX] >= 0)))
        return "a weight and Wmax must have the same sign (NEST's stdp_synapse)";
    return NULL;
}

void olive_plast_initial(const olive_plasticity *p, olive_plast_state *st)
{
    st->s[0] = st->s[1] = st->s[2] = 0;
    st->last = -1;
    if (p->rule == OLIVE_PLAST_TSODYKS) {
        st->s[0] = p->par[OLIVE_TSO_X];
        st->s[1] = p->par[OLIVE_TSO_Y];
        st->s[2] = p->par[OLIVE_TSO_U0];
    } else if (p->rule == OLIVE_PLAST_TSODYKS2) {
        st->s[0] = p->par[OLIVE_TSO2_X];
        st->s[2] = p->par[OLIVE_TSO2_U0];
    }
}

