/* The leaky integrate-and-fire models lif_cuba and lif_coba (docs/MODELS.md)
 * and their alpha-synapse forms lif_cuba_alpha and lif_coba_alpha (NEST's
 * iaf_psc_alpha, iaf_cond_alpha; PyNN's IF_curr_alpha, IF_cond_alpha),
 * written once for the CPU and CUDA (OLIVE_HD). Per-population constants are
 * folded into an olive_lif_coef by lif_models.c (host) before the run, where
 * the models are described and their point-model descriptors made.
 *
 * Alpha synapses: an event of weight w adds w to the drive xe (xi), and
 * dxe/dt = -xe/tau_e, dge/dt = e/tau_e xe - ge/tau_e: ge follows
 * w t/tau_e e^(1 - t/tau_e), which peaks at w when t = tau_e (NEST's
 * normalisation). Both are exact over a step.
 *
 * One step of one cell, as Brian2's schedule: the refractory counter counts
 * down; the potential is integrated only when it has reached 0 (Brian2's
 * `unless refractory`, integration resumes round(t_ref/dt) steps after the
 * spike); the synaptic variables always decay. The caller then tests the
 * threshold (olive_lif_spikes), delivers events into ge / gi and resets
 * (olive_lif_reset). */
#ifndef OLIVE_LIF_H
#define OLIVE_LIF_H
#include "hostdev.h"
#include "fastexp.h"
#include "fastlog.h"
#include <math.h>

enum { OLIVE_LIF_V, OLIVE_LIF_GE, OLIVE_LIF_GI, OLIVE_LIF_REF, OLIVE_LIF_NVARS };
/* the alpha models' drives, after the four above */
enum { OLIVE_LIF_XE = OLIVE_LIF_NVARS, OLIVE_LIF_XI, OLIVE_LIF_ALPHA_NVARS };
enum olive_lif_kind { OLIVE_LIF_CUBA, OLIVE_LIF_COBA };
enum olive_lif_method { OLIVE_METHOD_EXACT, OLIVE_METHOD_EULER, OLIVE_METHOD_EXPEULER };

typedef struct {
    int kind, method;
    double dt;
    double E_L, V_th, V_reset, I_e;
    double ref_steps;          /* round(t_ref / dt) */
    double tau_m, tau_e, tau_i; /* CUBA */
    double C, g_L, E_e, E_i;    /* COBA */
    double a_m, a_e, a_i;       /* exp(-dt/tau): membrane (CUBA), excitatory, inhibitory */
    double c_e, c_i;            /* CUBA exact: ge, gi at the start of the step -> v at its end */
    int alpha;                  /* alpha synapses: the drives xe, xi */
    double h_e, h_i;            /* alpha: e/tau dt, xe's share of ge after the step (before the decay) */
    double k_e, k_i;            /* alpha, CUBA exact: xe, xi at the start of the step -> v at its end */
} olive_lif_coef;

/* Advance v, ge, gi, ref (and, for alpha synapses, the drives xe, xi; NULL
 * otherwise) over one step with the extra current I (pulses: mV for CUBA, pA
 * for COBA, added to I_e). */
OLIVE_HD void olive_lif_step(const olive_lif_coef *c, double I, double *v, double *ge, double *gi, double *ref,
                             double *xe, double *xi)
{
    double r = *ref;
    if (r > 0) r -= 1;
    const double g_e = *ge, g_i = *gi, x = *v, drive = c->I_e + I;
    const double x_e = c->alpha ? *xe : 0, x_i = c->alpha ? *xi : 0;
    double vn = x;
    if (c->kind == OLIVE_LIF_CUBA) {
        if (c->method == OLIVE_METHOD_EXACT) {
            /* The linear system solved over dt: ge(t) = ge e^(-t/tau_e) (alpha: plus
             * e/tau_e xe t e^(-t/tau_e)) feeds v. */
            const double rest = c->E_L + drive;
            vn = rest + (x - rest) * c->a_m + g_e * c->c_e + g_i * c->c_i;
            if (c->alpha) vn += x_e * c->k_e + x_i * c->k_i;
        } else {   /* euler */
            vn = x + c->dt * (g_e + g_i + drive - (x - c->E_L)) / c->tau_m;
        }
    } else {
        const double gsum = c->g_L + g_e + g_i;
        const double num = c->g_L * c->E_L + g_e * c->E_e + g_i * c->E_i + drive;
        if (c->method == OLIVE_METHOD_EULER) {
            vn = x + c->dt * (num - gsum * x) / c->C;
        } else {
            /* exponential Euler: the conductances held at their start-of-step values */
            const double vinf = num / gsum;
            vn = vinf + (x - vinf) * olive_exp_d(-c->dt * gsum / c->C);   /* olive_exp_d: the same bits on CPU and GPU */
        }
    }
    if (r == 0) *v = vn;
    if (c->alpha) {
        if (c->method == OLIVE_METHOD_EULER) {
            *ge = g_e + c->dt * (2.718281828459045 * x_e - g_e) / c->tau_e;
            *gi = g_i + c->dt * (2.718281828459045 * x_i - g_i) / c->tau_i;
            *xe = x_e - c->dt * x_e / c->tau_e;
            *xi = x_i - c->dt * x_i / c->tau_i;
        } else {   /* exact: ge(dt) = (ge + e/tau_e dt xe) e^(-dt/tau_e), xe(dt) = xe e^(-dt/tau_e) */
            *ge = (g_e + c->h_e * x_e) * c->a_e;
            *gi = (g_i + c->h_i * x_i) * c->a_i;
            *xe = x_e * c->a_e;
            *xi = x_i * c->a_i;
        }
    } else if (c->method == OLIVE_METHOD_EULER) {
        *ge = g_e - c->dt * g_e / c->tau_e;
        *gi = g_i - c->dt * g_i / c->tau_i;
    } else {
        *ge = g_e * c->a_e;
        *gi = g_i * c->a_i;
    }
    *ref = r;
}

/* Threshold: v above V_th and not refractory. */
OLIVE_HD int olive_lif_spikes(const olive_lif_coef *c, double v, double ref)
{
    return ref == 0 && v > c->V_th;
}

OLIVE_HD void olive_lif_reset(const olive_lif_coef *c, double *v, double *ref)
{
    *v = c->V_reset;
    *ref = c->ref_steps;
}

/* Binomial(n, p)'s chance of 0: the first term of olive_binomial. */
OLIVE_HD double olive_binomial_p0(long long n, double p) { return olive_exp_d((double)n * olive_log1p_d(-p)); }

/* The factor from Binomial(n, p)'s term k to term k + 1. */
OLIVE_HD double olive_binomial_factor(long long n, double p, long long k)
{
    const double q = 1 - p;
    return (double)(n - k) / (double)(k + 1) * p / q;
}

/* Factors 0 .. OLIVE_BINOMIAL_FACTORS - 1 made once per (n, p) (an input's),
 * not per draw: its two divisions were most of a draw (the CUDA engine's
 * Poisson draws of the microcircuit, 2.1 us a step on an H200, were bound
 * by double-precision throughput). A factor from the table is the value
 * the draw would compute: the same operations on the same operands. */
#define OLIVE_BINOMIAL_FACTORS 32
static inline void olive_binomial_factors(long long n, double p, double *fac)
{
    for (long long k = 0; k < OLIVE_BINOMIAL_FACTORS; k++) fac[k] = k < n ? olive_binomial_factor(n, p, k) : 0.0;
}

/* k ~ Binomial(n, p) by inversion from the uniform u (n p small: the caller
 * checks), p0 = olive_binomial_p0(n, p), in arithmetic that gives the same
 * k on CPU and GPU; fac: olive_binomial_factors(n, p), or NULL. */
OLIVE_HD long long olive_binomial_f(double u, long long n, double p, double p0, const double *fac)
{
    double pk = p0, F = pk;
    long long k = 0;
    while (u > F && k < n) {
        pk *= fac && k < OLIVE_BINOMIAL_FACTORS ? fac[k] : olive_binomial_factor(n, p, k);
        k++;
        F += pk;
        if (pk == 0) break;
    }
    return k;
}

OLIVE_HD long long olive_binomial(double u, long long n, double p, double p0) { return olive_binomial_f(u, n, p, p0, 0); }

/* lif_models.c (host): the coefficients of a cell of model m with parameter values
 * p (m's order) at step dt with method; NULL, or a message naming the fault. */
const char *olive_lif_coef_make(const void *model, const double *p, double dt, int method, olive_lif_coef *c);
/* "exact", "euler", "exponential_euler" -> enum, or -1. */
int olive_lif_method_parse(const char *s);
const char *olive_lif_method_name(int method);

#endif
