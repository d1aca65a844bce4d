/* lif_cuba written by hand as a plugin (common/models/model_plugin.h): the
 * same parameters, variables, receptors and arithmetic (lif.h's
 * olive_lif_step, lif.c's coefficients, exact integration), so that a
 * network of it gives the built-in's bits (tests/test_model_plugin.sh).
 * Built with  cc -O2 -ffp-contract=off -fPIC -shared -I$TOP/common/models
 * -I$TOP/common/math lif_cuba_plugin.c -o lif_cuba_plugin.so -lm.
 * -DPLUGIN_ABI=N, -DPLUGIN_HASH=... and -DRESET_TO=X make the other builds
 * the test needs. */
#include "model_plugin.h"
#include "lif.h"
#include <math.h>
#include <string.h>

#ifndef PLUGIN_ABI
#define PLUGIN_ABI OLIVE_PLUGIN_ABI
#endif
#ifndef PLUGIN_HASH
#define PLUGIN_HASH "0123456789abcdef"
#endif

/* the coefficient set is an olive_lif_coef, carried in doubles */
#define NCOEF ((int)((sizeof(olive_lif_coef) + sizeof(double) - 1) / sizeof(double)))

static const char *const names[OLIVE_LIF_NVARS] = {"v", "ge", "gi", "ref"};
static const char *const units[OLIVE_LIF_NVARS] = {"mV", "mV", "mV", "steps"};
static const double initial[OLIVE_LIF_NVARS] = {-60, 0, 0, 0};
static const int receptors[2] = {OLIVE_LIF_GE, OLIVE_LIF_GI};
static const char *const receptor_names[2] = {"ge", "gi"};
static const double receptor_scale[2] = {1, 1};
enum { P_EL, P_VTH, P_VRESET, P_TREF, P_TAUM, P_TAUE, P_TAUI, P_IE, P_V0, NP };
static const olive_param_desc params[NP] = {
    {"E_L", "mV", -49}, {"V_th", "mV", -50}, {"V_reset", "mV", -60}, {"t_ref", "ms", 0},
    {"tau_m", "ms", 20}, {"tau_e", "ms", 5}, {"tau_i", "ms", 10}, {"I_e", "mV", 0}, {"v0", "mV", -60},
};

/* lif.c's expressions for lif_cuba, exact */
static const char *coef_make(const double *p, double dt, double *coef)
{
    olive_lif_coef c;
    memset(&c, 0, sizeof c);
    c.kind = OLIVE_LIF_CUBA;
    c.method = OLIVE_METHOD_EXACT;
    c.dt = dt;
    c.E_L = p[P_EL];
    c.V_th = p[P_VTH];
    c.V_reset = p[P_VRESET];
    c.I_e = p[P_IE];
    if (p[P_TREF] < 0) return "t_ref is negative";
    const double steps = round(p[P_TREF] / dt);
    if (!(steps <= 2147483647.0)) return "t_ref is more than 2^31 - 1 steps of dt";
    c.ref_steps = steps;
    c.tau_e = p[P_TAUE];
    c.tau_i = p[P_TAUI];
    if (!(c.tau_e > 0) || !(c.tau_i > 0)) return "tau_e and tau_i must be more than 0";
    c.a_e = exp(-dt / c.tau_e);
    c.a_i = exp(-dt / c.tau_i);
    c.tau_m = p[P_TAUM];
    if (!(c.tau_m > 0)) return "tau_m must be more than 0";
    c.a_m = exp(-dt / c.tau_m);
    c.c_e = c.tau_e == c.tau_m ? dt / c.tau_m * c.a_m : c.tau_e / (c.tau_e - c.tau_m) * (c.a_e - c.a_m);
    c.c_i = c.tau_i == c.tau_m ? dt / c.tau_m * c.a_m : c.tau_i / (c.tau_i - c.tau_m) * (c.a_i - c.a_m);
    memcpy(coef, &c, sizeof c);
    return NULL;
}

static void init(const double *p, double *x)
{
    x[OLIVE_LIF_V] = p[P_V0];
    x[OLIVE_LIF_GE] = x[OLIVE_LIF_GI] = x[OLIVE_LIF_REF] = 0;
}

static int step(const double *coef, int64_t a, int64_t b, const double *I, double *const *s)
{
    olive_lif_coef c;
    memcpy(&c, coef, sizeof c);
    int finite = 1;
    for (int64_t r = a; r < b; r++) {
        olive_lif_step(&c, I ? I[r] : 0, &s[0][r], &s[1][r], &s[2][r], &s[3][r], NULL, NULL);
        finite &= (s[0][r] - s[0][r] == 0) & (s[1][r] - s[1][r] == 0) & (s[2][r] - s[2][r] == 0);
    }
    return finite;
}

static void condition(const double *coef, int64_t a, int64_t b, double *const *s, unsigned char *flags)
{
    olive_lif_coef c;
    memcpy(&c, coef, sizeof c);
    for (int64_t r = a; r < b; r++) flags[r] = (unsigned char)olive_lif_spikes(&c, s[0][r], s[3][r]);
}

static void on_spike(const double *coef, int64_t r, double *const *s)
{
    olive_lif_coef c;
    memcpy(&c, coef, sizeof c);
    olive_lif_reset(&c, &s[0][r], &s[3][r]);
#ifdef RESET_TO
    s[0][r] = RESET_TO;   /* the test's faulty builds: the plugin's reset runs, a NaN is caught */
#endif
}

static const olive_model_plugin plugin = {
    PLUGIN_ABI, PLUGIN_HASH, "tests/plugins/lif_cuba_plugin.c (by hand)",
    {"lif_cuba_plugin", "lif_cuba through the plugin interface", OLIVE_LIF_NVARS, names, units, initial, NP, params,
     OLIVE_LIF_V, -1, 2, receptors, "mV", 0, 0.1, 0, receptor_names},
    receptor_scale, "mV", 0, NCOEF, coef_make, init, step, condition, on_spike, NULL,
};

const olive_model_plugin *olive_model_plugin_v1(void);
const olive_model_plugin *olive_model_plugin_v1(void) { return &plugin; }
