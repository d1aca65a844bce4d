/* The double-precision cell step reads each compartment's voltage for its
 * gates only within +-2000 mV (NaN beyond: a blown-up cell) and then calls
 * the exponential without its own clamp (model.h's OLIVE_GATE_V and
 * olive_exp_inrange_d). That is meant to change nothing a cell can reach:
 * here the very same model body, compiled a second time as it was before
 * (every exponential clamped, the voltages read as they are:
 * olive_cell_step_ref), must give the same bits as the engine's
 * olive_cell_step_d for 2 million random states with voltages anywhere in
 * [-2000, 2000] mV (the ends included) and gates in [0, 1]; beyond (from
 * the next double past 2000 mV to infinity) and for a NaN voltage, the
 * compartment's voltage must come out NaN, so that the engine stops the
 * run naming the cell. */
#include "model.h"
#include <stdio.h>
#include <string.h>

/* The reference: model_body.h once more, with the exponential's own clamps
 * on every argument and the voltages read as they are (the form before). */
#define OLIVE_REAL double
#define OLIVE_FN(name) name##_ref
#define OLIVE_EXP olive_exp_d
#define OLIVE_EXP_PLUS(x, c) ((c) + olive_exp_d(x))   /* (the same bits in the range, fastexp.h) */
#define OLIVE_FABS fabs
#define OLIVE_FMA fma
#define OLIVE_GATE_V(v) (v)
#define olive_exp_nonpos_plus_ref olive_exp_nonpos_plus_d   /* the junction term's, unchanged */
#include "model_body.h"
#undef OLIVE_REAL
#undef OLIVE_FN
#undef OLIVE_EXP
#undef OLIVE_EXP_PLUS
#undef OLIVE_FABS
#undef OLIVE_FMA
#undef OLIVE_GATE_V

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double uniform(void)   /* xorshift64: reproducible, in [0, 1) */
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void random_state(double *in, double vmax)
{
    for (int v = 0; v < OLIVE_NVARS; v++) in[v] = uniform();
    in[OV_CA] = 4.0 * uniform();
    in[OV_I_CAH] = 2.0 * uniform() - 1.0;
    in[OV_G_CAL] = 1.5 * uniform();
    const int volts[3] = {OV_V_DEND, OV_V_SOMA, OV_V_AXON};
    for (int c = 0; c < 3; c++) {
        double u = uniform();
        /* a third near rest, most anywhere in the range, a few at its ends */
        in[volts[c]] = u < 0.33 ? -120.0 + 240.0 * uniform()
                     : u < 0.98 ? vmax * (2.0 * uniform() - 1.0)
                     : (u < 0.99 ? vmax : -vmax);
    }
}

int main(void)
{
    int fail = 0;
    long differ = 0;
    double in[OLIVE_NVARS], out[OLIVE_NVARS], ref[OLIVE_NVARS];
    for (long i = 0; i < 2000000; i++) {
        random_state(in, 2000.0);
        double iapp = uniform() < 0.5 ? 0.0 : 10.0 * uniform() - 5.0, ic = 2.0 * uniform() - 1.0;
        olive_cell_step_d(in, out, iapp, ic);
        olive_cell_step_ref(in, ref, iapp, ic);
        if (memcmp(out, ref, sizeof out) != 0 && differ++ < 3)
            printf("FAIL: state %ld (Vd %.17g, Vs %.17g, Va %.17g): other bits than the clamped exponentials\n",
                   i, in[OV_V_DEND], in[OV_V_SOMA], in[OV_V_AXON]);
    }
    if (differ) { printf("FAIL: %ld of 2000000 states differ within +-2000 mV\n", differ); fail = 1; }

    /* Beyond the range, and NaN: the compartment's voltage comes out NaN. */
    const double far[] = {2000.0000000000002, -2000.0000000000002, 2500.0, -2500.0, 1e4, -1e4, 1e300, -1e300,
                          INFINITY, -INFINITY, NAN};
    const int volts[3] = {OV_V_DEND, OV_V_SOMA, OV_V_AXON};
    for (unsigned f = 0; f < sizeof far / sizeof far[0]; f++)
        for (int c = 0; c < 3; c++) {
            random_state(in, 100.0);
            in[volts[c]] = far[f];
            olive_cell_step_d(in, out, 0.0, 0.0);
            if (!isnan(out[volts[c]])) {
                printf("FAIL: compartment %d at %g mV came out %g, not NaN\n", c, far[f], out[volts[c]]);
                fail = 1;
            }
        }
    printf("%s: 2000000 states within +-2000 mV give the clamped exponentials' bits; beyond, the voltage is NaN\n",
           fail ? "FAIL" : "ok");
    return fail;
}
