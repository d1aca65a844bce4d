/* The built-in integrate-and-fire models (lif_cuba, lif_coba and their
 * alpha forms) as point models of the same kind as a plugin's
 * (model_plugin.h, point_model.h): one source, compiled twice, as a NESTML
 * model's generated source is:
 *  - by cc, into olive: the models' names, variables and parameters (the
 *    model table of cellmodel.c lists them), their coefficients, and a
 *    descriptor per integration method (--method), whose CPU loops are
 *    compiled with the kind, method and synapse shape fixed (the branches
 *    of olive_lif_step fold away and the loop vectorises);
 *  - by nvcc with OLIVE_PLUGIN_DEVICE (the Makefile), into the models' GPU
 *    image: the cell functions below and nothing else (plugin_cell.h), LTO-IR
 *    that the CUDA engine links into its own kernels as it does a plugin's
 *    (one image for every descriptor: the kind, method and shape are read
 *    from the coefficients there, uniform across a set's cells).
 * The physics is lif.h's, for both. */
#include "lif.h"
#include "hostdev.h"
#include <stdint.h>
#include <string.h>

/* ---- one cell (model_plugin.h's schedule); the coefficient set holds an
 * olive_lif_coef in its doubles ---- */

/* The GPU image's cell functions (plugin_cell.h: one cell's values in the
 * caller's registers; the CPU loops below run lif.h directly). The state is
 * streamed on the GPU (read and written once a step: evict-first, so that it
 * does not push the spike buckets out of L2), and a variable whose bits did
 * not change (a refractory count of 0) is not written back; the values are
 * the same either way. */
#ifdef __CUDA_ARCH__
#define LIF_LOAD(p) __ldcs(p)
#define LIF_STORE(p, x, old) do { if (__double_as_longlong(x) != __double_as_longlong(old)) __stcs((p), (x)); } while (0)
#else
#define LIF_LOAD(p) (*(p))
#define LIF_STORE(p, x, old) ((void)(old), *(p) = (x))
#endif

OLIVE_HD const olive_lif_coef *lif_coef(const double *coef) { return (const olive_lif_coef *)(const void *)coef; }

/* Cell r's 4 variables, or 6 with alpha synapses, into x and x0. */
OLIVE_HD void olive_cell_load(const double *coef, double *const *s, int64_t r, double *x, double *x0)
{
    const int nv = lif_coef(coef)->alpha ? OLIVE_LIF_ALPHA_NVARS : OLIVE_LIF_NVARS;
    for (int v = 0; v < OLIVE_LIF_ALPHA_NVARS; v++)
        if (v < nv) x[v] = x0[v] = LIF_LOAD(&s[v][r]);
}

OLIVE_HD void olive_cell_store(const double *coef, double *const *s, int64_t r, const double *x, const double *x0)
{
    const int nv = lif_coef(coef)->alpha ? OLIVE_LIF_ALPHA_NVARS : OLIVE_LIF_NVARS;
    for (int v = 0; v < OLIVE_LIF_ALPHA_NVARS; v++)
        if (v < nv) LIF_STORE(&s[v][r], x[v], x0[v]);
}

/* The receptors: ge and gi, or with alpha synapses their drives xe and xi
 * (lif_receptors, alpha_receptors below). */
OLIVE_HD double olive_cell_receptor(const double *coef, const double *x, int q)
{
    if (lif_coef(coef)->alpha) return q ? x[OLIVE_LIF_XI] : x[OLIVE_LIF_XE];
    return q ? x[OLIVE_LIF_GI] : x[OLIVE_LIF_GE];
}

OLIVE_HD void olive_cell_set_receptor(const double *coef, double *x, int q, double v)
{
    if (lif_coef(coef)->alpha) {
        if (q) x[OLIVE_LIF_XI] = v; else x[OLIVE_LIF_XE] = v;
    } else {
        if (q) x[OLIVE_LIF_GI] = v; else x[OLIVE_LIF_GE] = v;
    }
}

/* Step 1: olive_lif_step on the cell's variables; 0 where v, ge or gi is
 * not finite. */
OLIVE_HD int olive_cell_step(const double *coef, double *x, double I, int with_input)
{
    const olive_lif_coef *c = lif_coef(coef);
    if (c->alpha)
        olive_lif_step(c, with_input ? I : 0.0, &x[OLIVE_LIF_V], &x[OLIVE_LIF_GE], &x[OLIVE_LIF_GI], &x[OLIVE_LIF_REF],
                       &x[OLIVE_LIF_XE], &x[OLIVE_LIF_XI]);
    else
        olive_lif_step(c, with_input ? I : 0.0, &x[OLIVE_LIF_V], &x[OLIVE_LIF_GE], &x[OLIVE_LIF_GI], &x[OLIVE_LIF_REF],
                       NULL, NULL);
    const double v = x[OLIVE_LIF_V], e = x[OLIVE_LIF_GE], i = x[OLIVE_LIF_GI];
    return (v - v == 0) & (e - e == 0) & (i - i == 0);
}

/* Step 2: the threshold. */
OLIVE_HD int olive_cell_condition(const double *coef, double *x)
{
    return olive_lif_spikes(lif_coef(coef), x[OLIVE_LIF_V], x[OLIVE_LIF_REF]);
}

/* Step 4: the reset. */
OLIVE_HD void olive_cell_on_spike(const double *coef, double *x)
{
    olive_lif_reset(lif_coef(coef), &x[OLIVE_LIF_V], &x[OLIVE_LIF_REF]);
}

#ifdef OLIVE_PLUGIN_DEVICE
/* the GPU image: these three functions, as plugin_cell.h names them */
#include "plugin_cell.h"
OLIVE_PLUGIN_CELL_EXPORT
#else
#include "cellmodel.h"
#include "model_plugin.h"
#include "point_model.h"
#include "util.h"
#include <math.h>

static const char *const lif_names[OLIVE_LIF_NVARS] = {"v", "ge", "gi", "ref"};
static const char *const cuba_units[OLIVE_LIF_NVARS] = {"mV", "mV", "mV", "steps"};
static const char *const coba_units[OLIVE_LIF_NVARS] = {"mV", "nS", "nS", "steps"};
static const double lif_initial[OLIVE_LIF_NVARS] = {-60, 0, 0, 0};
static const int lif_receptors[2] = {OLIVE_LIF_GE, OLIVE_LIF_GI};

/* Defaults: the tutorial's Brian2 listing (CUBA) and Brette et al. 2007
 * benchmark 1 / NEST's iaf_cond_exp (COBA); docs/MODELS.md. v0 is the initial
 * potential (a per-cell dataset holds random starts); it is the last
 * parameter of both (init below). */
static const olive_param_desc cuba_params[] = {
    {"E_L", "mV", -49}, {"V_th", "mV", -50}, {"V_reset", "mV", -60}, {"t_ref", "ms", 0},
    {"tau_m", "ms", 20}, {"tau_e", "ms", 5}, {"tau_i", "ms", 10}, {"I_e", "mV", 0}, {"v0", "mV", -60},
};
static const olive_param_desc coba_params[] = {
    {"E_L", "mV", -60}, {"V_th", "mV", -50}, {"V_reset", "mV", -60}, {"t_ref", "ms", 5},
    {"C", "pF", 200}, {"g_L", "nS", 10}, {"E_e", "mV", 0}, {"E_i", "mV", -80},
    {"tau_e", "ms", 5}, {"tau_i", "ms", 10}, {"I_e", "pA", 0}, {"v0", "mV", -60},
};
#define NP(a) ((int)(sizeof a / sizeof a[0]))

/* The alpha-synapse forms: two more variables, the drives xe and xi, which
 * the receptors ge and gi add to (lif.h); defaults as NEST's iaf_psc_alpha and
 * iaf_cond_alpha where PyNN's IF_curr_alpha and IF_cond_alpha keep them. */
static const char *const alpha_names[OLIVE_LIF_ALPHA_NVARS] = {"v", "ge", "gi", "ref", "xe", "xi"};
static const char *const cuba_alpha_units[OLIVE_LIF_ALPHA_NVARS] = {"mV", "mV", "mV", "steps", "mV", "mV"};
static const char *const coba_alpha_units[OLIVE_LIF_ALPHA_NVARS] = {"mV", "nS", "nS", "steps", "nS", "nS"};
static const double alpha_initial[OLIVE_LIF_ALPHA_NVARS] = {-60, 0, 0, 0, 0, 0};
static const int alpha_receptors[2] = {OLIVE_LIF_XE, OLIVE_LIF_XI};
static const char *const alpha_receptor_names[2] = {"ge", "gi"};

/* The models, as macros: the model table's entry and the descriptors' copy are one text. */
/* CUBA: dv/dt = (ge + gi + I_e - (v - E_L)) / tau_m (lif.h). */
#define LIF_CUBA_MODEL                                                                                              \
    {"lif_cuba", "current-based leaky integrate-and-fire, exponential currents (Brette et al. 2007 benchmark 2)",  \
     OLIVE_LIF_NVARS, lif_names, cuba_units, lif_initial, NP(cuba_params), cuba_params,                            \
     OLIVE_LIF_V, -1, 2, lif_receptors, "mV", 0, 0.1, 0, NULL}
/* COBA: C dv/dt = g_L (E_L - v) + ge (E_e - v) + gi (E_i - v) + I_e (lif.h). */
#define LIF_COBA_MODEL                                                                                              \
    {"lif_coba", "conductance-based leaky integrate-and-fire, exponential conductances (Brette et al. 2007 "        \
     "benchmark 1)", OLIVE_LIF_NVARS, lif_names, coba_units, lif_initial, NP(coba_params), coba_params,            \
     OLIVE_LIF_V, -1, 2, lif_receptors, "nS", 1, 0.1, 0, NULL}
#define LIF_CUBA_ALPHA_MODEL                                                                                        \
    {"lif_cuba_alpha", "current-based leaky integrate-and-fire, alpha-shaped currents (NEST's iaf_psc_alpha)",     \
     OLIVE_LIF_ALPHA_NVARS, alpha_names, cuba_alpha_units, alpha_initial, NP(cuba_params), cuba_params,            \
     OLIVE_LIF_V, -1, 2, alpha_receptors, "mV", 0, 0.1, 0, alpha_receptor_names}
#define LIF_COBA_ALPHA_MODEL                                                                                        \
    {"lif_coba_alpha", "conductance-based leaky integrate-and-fire, alpha-shaped conductances (NEST's "            \
     "iaf_cond_alpha)", OLIVE_LIF_ALPHA_NVARS, alpha_names, coba_alpha_units, alpha_initial, NP(coba_params),      \
     coba_params, OLIVE_LIF_V, -1, 2, alpha_receptors, "nS", 1, 0.1, 0, alpha_receptor_names}

const olive_cell_model olive_model_lif_cuba = LIF_CUBA_MODEL;
const olive_cell_model olive_model_lif_coba = LIF_COBA_MODEL;
const olive_cell_model olive_model_lif_cuba_alpha = LIF_CUBA_ALPHA_MODEL;
const olive_cell_model olive_model_lif_coba_alpha = LIF_COBA_ALPHA_MODEL;

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

/* ---- the cell functions (model_plugin.h's schedule) ---- */

/* the coefficient set is an olive_lif_coef, carried in doubles */
#define LIF_NCOEF ((int)((sizeof(olive_lif_coef) + sizeof(double) - 1) / sizeof(double)))

static inline olive_lif_coef coef_of(const double *coef)
{
    olive_lif_coef c;
    memcpy(&c, coef, sizeof c);
    return c;
}

/* Step 1 of cells [a, b), with the kind, method and synapse shape constants
 * (inlined into each descriptor's step: one specialised loop each). Not
 * finite: v, ge or gi of some cell. */
static inline __attribute__((always_inline)) int lif_cells(const double *coef, int64_t a, int64_t b, const double *I,
                                                           double *const *s, int kind, int method, int alpha)
{
    olive_lif_coef c = coef_of(coef);
    c.kind = kind;
    c.method = method;
    c.alpha = alpha;
    double *v = s[OLIVE_LIF_V], *ge = s[OLIVE_LIF_GE], *gi = s[OLIVE_LIF_GI], *ref = s[OLIVE_LIF_REF];
    double *xe = alpha ? s[OLIVE_LIF_XE] : NULL, *xi = alpha ? s[OLIVE_LIF_XI] : NULL;
    int finite = 1;
    for (int64_t r = a; r < b; r++) {
        olive_lif_step(&c, I ? I[r] : 0, &v[r], &ge[r], &gi[r], &ref[r], alpha ? &xe[r] : NULL, alpha ? &xi[r] : NULL);
        finite &= (v[r] - v[r] == 0) & (ge[r] - ge[r] == 0) & (gi[r] - gi[r] == 0);
    }
    return finite;
}

static void lif_condition(const double *coef, int64_t a, int64_t b, double *const *s, unsigned char *flags)
{
    const olive_lif_coef c = coef_of(coef);
    const double *v = s[OLIVE_LIF_V], *ref = s[OLIVE_LIF_REF];
    for (int64_t r = a; r < b; r++) flags[r] = (unsigned char)olive_lif_spikes(&c, v[r], ref[r]);
}

static void lif_on_spike(const double *coef, int64_t r, double *const *s)
{
    const olive_lif_coef c = coef_of(coef);
    olive_lif_reset(&c, &s[OLIVE_LIF_V][r], &s[OLIVE_LIF_REF][r]);
}

/* The initial state: the variables' initial values, v from v0 (the last parameter). */
#define LIF_INIT(NAME, PARAMS, NVARS, INITIAL)                                                                      \
    static void NAME##_init(const double *p, double *x)                                                            \
    {                                                                                                               \
        for (int v = 0; v < NVARS; v++) x[v] = INITIAL[v];                                                          \
        x[OLIVE_LIF_V] = p[NP(PARAMS) - 1];                                                                         \
    }

/* The models' GPU image (this file compiled by nvcc: the Makefile, where it
 * finds nvcc, for every common/models/NAME_models.c), a byte array of
 * LTO-IR; else they run on the CPU only. */
#ifdef OLIVE_BUILTIN_FATBIN
#include "lif_models.fatbin.h"
#define LIF_FATBIN ((const unsigned char *)lif_models_ltoir)
#define LIF_FATBIN_SIZE sizeof lif_models_ltoir
#else
#define LIF_FATBIN NULL
#define LIF_FATBIN_SIZE 0
#endif

/* One descriptor: model MODEL (its table entry M) integrated by METHOD. */
static const double unit_scale[2] = {1, 1};
#define LIF_POINT(NAME, M, MODEL, KIND, METHOD, ALPHA, CURRENT_UNIT, INIT)                                        \
    static const char *NAME##_coef(const double *p, double dt, double *coef)                                      \
    {                                                                                                               \
        olive_lif_coef c;                                                                                           \
        const char *fault = olive_lif_coef_make(&M, p, dt, METHOD, &c);                                             \
        memcpy(coef, &c, sizeof c);                                                                                 \
        return fault;                                                                                               \
    }                                                                                                               \
    static int NAME##_step(const double *coef, int64_t a, int64_t b, const double *I, double *const *s)           \
    {                                                                                                               \
        return lif_cells(coef, a, b, I, s, KIND, METHOD, ALPHA);                                                    \
    }                                                                                                               \
    static const olive_model_plugin NAME = {                                                                        \
        OLIVE_PLUGIN_ABI, "", "common/models/lif_models.c (built in)", MODEL, unit_scale, CURRENT_UNIT, 0,          \
        LIF_NCOEF, NAME##_coef, INIT, NAME##_step, lif_condition, lif_on_spike, NULL, NULL, LIF_FATBIN,              \
        LIF_FATBIN_SIZE, 3,                                                                                         \
    };

LIF_INIT(cuba, cuba_params, OLIVE_LIF_NVARS, lif_initial)
LIF_INIT(coba, coba_params, OLIVE_LIF_NVARS, lif_initial)
LIF_INIT(cuba_alpha, cuba_params, OLIVE_LIF_ALPHA_NVARS, alpha_initial)
LIF_INIT(coba_alpha, coba_params, OLIVE_LIF_ALPHA_NVARS, alpha_initial)

#define C_ OLIVE_LIF_CUBA
#define K_ OLIVE_LIF_COBA
#define EX_ OLIVE_METHOD_EXACT
#define EU_ OLIVE_METHOD_EULER
#define EE_ OLIVE_METHOD_EXPEULER
LIF_POINT(cuba_exact, olive_model_lif_cuba, LIF_CUBA_MODEL, C_, EX_, 0, "mV", cuba_init)
LIF_POINT(cuba_euler, olive_model_lif_cuba, LIF_CUBA_MODEL, C_, EU_, 0, "mV", cuba_init)
LIF_POINT(cuba_expeuler, olive_model_lif_cuba, LIF_CUBA_MODEL, C_, EE_, 0, "mV", cuba_init)
LIF_POINT(coba_exact, olive_model_lif_coba, LIF_COBA_MODEL, K_, EX_, 0, "pA", coba_init)
LIF_POINT(coba_euler, olive_model_lif_coba, LIF_COBA_MODEL, K_, EU_, 0, "pA", coba_init)
LIF_POINT(coba_expeuler, olive_model_lif_coba, LIF_COBA_MODEL, K_, EE_, 0, "pA", coba_init)
LIF_POINT(cuba_alpha_exact, olive_model_lif_cuba_alpha, LIF_CUBA_ALPHA_MODEL, C_, EX_, 1, "mV", cuba_alpha_init)
LIF_POINT(cuba_alpha_euler, olive_model_lif_cuba_alpha, LIF_CUBA_ALPHA_MODEL, C_, EU_, 1, "mV", cuba_alpha_init)
LIF_POINT(cuba_alpha_expeuler, olive_model_lif_cuba_alpha, LIF_CUBA_ALPHA_MODEL, C_, EE_, 1, "mV", cuba_alpha_init)
LIF_POINT(coba_alpha_exact, olive_model_lif_coba_alpha, LIF_COBA_ALPHA_MODEL, K_, EX_, 1, "pA", coba_alpha_init)
LIF_POINT(coba_alpha_euler, olive_model_lif_coba_alpha, LIF_COBA_ALPHA_MODEL, K_, EU_, 1, "pA", coba_alpha_init)
LIF_POINT(coba_alpha_expeuler, olive_model_lif_coba_alpha, LIF_COBA_ALPHA_MODEL, K_, EE_, 1, "pA", coba_alpha_init)

/* The built-in point models, one line per model and method (point_model.h).
 * Every pair is here: one a model does not take (lif_cuba with
 * exponential_euler, lif_coba exact) is refused by its coef_make, naming
 * the population (olive_lif_coef_make's message). */
const olive_point_entry olive_lif_points[] = {
    {&olive_model_lif_cuba, EX_, &cuba_exact},
    {&olive_model_lif_cuba, EU_, &cuba_euler},
    {&olive_model_lif_cuba, EE_, &cuba_expeuler},
    {&olive_model_lif_coba, EX_, &coba_exact},
    {&olive_model_lif_coba, EU_, &coba_euler},
    {&olive_model_lif_coba, EE_, &coba_expeuler},
    {&olive_model_lif_cuba_alpha, EX_, &cuba_alpha_exact},
    {&olive_model_lif_cuba_alpha, EU_, &cuba_alpha_euler},
    {&olive_model_lif_cuba_alpha, EE_, &cuba_alpha_expeuler},
    {&olive_model_lif_coba_alpha, EX_, &coba_alpha_exact},
    {&olive_model_lif_coba_alpha, EU_, &coba_alpha_euler},
    {&olive_model_lif_coba_alpha, EE_, &coba_alpha_expeuler},
    {NULL, 0, NULL},
};

#endif   /* OLIVE_PLUGIN_DEVICE */
