/* Coefficients of the integrate-and-fire models (lif.h), from a cell's
 * parameters: computed once per population (or cell) on the host. */
#include "lif.h"
#include "cellmodel.h"
#include "util.h"
#include <math.h>
#include <string.h>

static double param(const olive_cell_model *m, const double *p, const char *name)
{
    int k = olive_model_param(m, name);
    return k >= 0 ? p[k] : 0;
}

/* v's share of a drive xe after one step dt (CUBA, alpha): dv/dt = (ge - v)/tau_m with
 * ge(t) = e/tau xe t e^(-t/tau) gives v(dt) = e/tau xe b e^(-b dt) J, b = 1/tau_m,
 * J = integral_0^dt s e^(q s) ds = (e^(q dt) (q dt - 1) + 1)/q^2, q = 1/tau_m - 1/tau;
 * its series dt^2 (1/2 + (q dt)/3 + (q dt)^2/8 + ...) where q dt is small. */
static double alpha_share(double tau_m, double tau, double dt)
{
    const double b = 1 / tau_m, q = b - 1 / tau, z = q * dt;
    double J;
    if (fabs(z) < 1e-2) {
        J = 0;
        double zn = 1, fact = 2;   /* the terms (n - 1)/n! z^(n-2), n = 2, 3, ... */
        for (int n = 2; n < 12; n++) {
            J += (double)(n - 1) / fact * zn;
            zn *= z;
            fact *= n + 1;
        }
        J *= dt * dt;
    } else {
        J = (exp(z) * (z - 1) + 1) / (q * q);
    }
    return M_E / tau * b * exp(-b * dt) * J;
}

const char *olive_lif_coef_make(const void *model, const double *p, double dt, int method, olive_lif_coef *c)
{
    const olive_cell_model *m = model;
    memset(c, 0, sizeof *c);
    c->kind = m == &olive_model_lif_coba || m == &olive_model_lif_coba_alpha ? OLIVE_LIF_COBA : OLIVE_LIF_CUBA;
    c->alpha = m == &olive_model_lif_cuba_alpha || m == &olive_model_lif_coba_alpha;
    c->method = method;
    c->dt = dt;
    for (int k = 0; k < m->nparams; k++)
        if (!isfinite(p[k])) return "a parameter is not finite";
    c->E_L = param(m, p, "E_L");
    c->V_th = param(m, p, "V_th");
    c->V_reset = param(m, p, "V_reset");
    c->I_e = param(m, p, "I_e");
    double t_ref = param(m, p, "t_ref");
    if (t_ref < 0) return "t_ref is negative";
    int64_t ref_steps;
    if (olive_ms_to_steps(t_ref, dt, 0, INT32_MAX, &ref_steps) != OLIVE_STEPS_OK)
        return "t_ref is more than 2^31 - 1 steps of dt";
    c->ref_steps = (double)ref_steps;
    c->tau_e = param(m, p, "tau_e");
    c->tau_i = param(m, p, "tau_i");
    if (!(c->tau_e > 0) || !(c->tau_i > 0)) return "tau_e and tau_i must be more than 0";
    c->a_e = exp(-dt / c->tau_e);
    c->a_i = exp(-dt / c->tau_i);
    c->h_e = M_E / c->tau_e * dt;
    c->h_i = M_E / c->tau_i * dt;
    if (c->kind == OLIVE_LIF_CUBA) {
        c->tau_m = param(m, p, "tau_m");
        if (!(c->tau_m > 0)) return "tau_m must be more than 0";
        c->a_m = exp(-dt / c->tau_m);
        /* ge's share of v after dt: tau_e / (tau_e - tau_m) (e^(-dt/tau_e) - e^(-dt/tau_m)),
         * and its limit dt/tau_m e^(-dt/tau_m) when the two are equal. */
        c->c_e = c->tau_e == c->tau_m ? dt / c->tau_m * c->a_m : c->tau_e / (c->tau_e - c->tau_m) * (c->a_e - c->a_m);
        c->c_i = c->tau_i == c->tau_m ? dt / c->tau_m * c->a_m : c->tau_i / (c->tau_i - c->tau_m) * (c->a_i - c->a_m);
        c->k_e = alpha_share(c->tau_m, c->tau_e, dt);
        c->k_i = alpha_share(c->tau_m, c->tau_i, dt);
        if (method == OLIVE_METHOD_EXPEULER) return "lif_cuba is linear: use --method exact (or euler)";
    } else {
        c->C = param(m, p, "C");
        c->g_L = param(m, p, "g_L");
        c->E_e = param(m, p, "E_e");
        c->E_i = param(m, p, "E_i");
        if (!(c->C > 0) || !(c->g_L > 0)) return "C and g_L must be more than 0";
        if (method == OLIVE_METHOD_EXACT)
            return "lif_coba has no exact solution (the conductances multiply v): use --method exponential_euler or euler";
    }
    return NULL;
}

int olive_lif_method_parse(const char *s)
{
    if (!strcmp(s, "exact")) return OLIVE_METHOD_EXACT;
    if (!strcmp(s, "euler")) return OLIVE_METHOD_EULER;
    if (!strcmp(s, "exponential_euler")) return OLIVE_METHOD_EXPEULER;
    return -1;
}

const char *olive_lif_method_name(int method)
{
    return method == OLIVE_METHOD_EXACT ? "exact" : method == OLIVE_METHOD_EULER ? "euler" : "exponential_euler";
}
