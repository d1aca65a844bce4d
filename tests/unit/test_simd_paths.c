/* The model gives the same bits on every instruction-set path: the cell step
 * and the gap-junction term, run as SIMD loops compiled for x86-64-v4
 * (AVX-512) and v3 (AVX2 + FMA) when this CPU has them, against the baseline
 * x86-64 build (SSE2, calling glibc's fma). kernel_cpu.c picks one of these
 * at run time (tests/test_simd_engine.sh runs the engine on each), so
 * results must not depend on which; the explicit
 * fma() calls of fastexp.h, or a contraction the compiler was not asked
 * for, are what could break it (built with -ffp-contract=fast, this test
 * fails). Inputs: the states of MODEL.md's reference cell along 30000 steps
 * (its spike included), every third one perturbed, with pulses and junction
 * currents mixed in, in both precisions. */
#include "model.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCELL 30000

/* One SIMD loop per path over structure-of-arrays states, shaped as the
 * kernel's (tools/simulate/infoli/kernel_cpu_body.h): every array a restrict
 * pointer, the 19 variables unrolled, so the loop vectorises. */
#define VARS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) \
    X(15) X(16) X(17) X(18)
_Static_assert(OLIVE_NVARS == 19, "VARS must list every state variable");
#define PARAM(v) , REAL *restrict i##v, REAL *restrict o##v
#define LOAD(v) a[v] = i##v[k];
#define STORE(v) o##v[k] = b[v];
#define STEP_LOOP(NAME, TARGET, FN)                                                        \
    TARGET __attribute__((noinline)) static void NAME(int n, const REAL *restrict iapp,           \
        const REAL *restrict ic, const REAL *restrict dv, REAL *restrict gj VARS(PARAM))           \
    {                                                                                              \
        for (int k = 0; k < n; k++) {                                                              \
            REAL a[OLIVE_NVARS], b[OLIVE_NVARS];                                                   \
            VARS(LOAD)                                                                             \
            FN(olive_cell_step)(a, b, iapp[k], ic[k]);                                             \
            VARS(STORE)                                                                            \
            gj[k] = FN(olive_gj_term)(OLIVE_GJ_RGJ, (REAL)0.04, dv[k]);                            \
        }                                                                                          \
    }
#define FN_D(x) x##_d
#define FN_F(x) x##_f
#define V4 __attribute__((target("arch=x86-64-v4")))
#define V3 __attribute__((target("arch=x86-64-v3")))
#define REAL double
STEP_LOOP(step_base_d, , FN_D)
STEP_LOOP(step_v4_d, V4, FN_D)
STEP_LOOP(step_v3_d, V3, FN_D)
#undef REAL
#define REAL float
STEP_LOOP(step_base_f, , FN_F)
STEP_LOOP(step_v4_f, V4, FN_F)
STEP_LOOP(step_v3_f, V3, FN_F)
#undef REAL

static double *in_d[OLIVE_NVARS], *ref_d[OLIVE_NVARS], *out_d[OLIVE_NVARS];
static float *in_f[OLIVE_NVARS], *ref_f[OLIVE_NVARS], *out_f[OLIVE_NVARS];
static double iapp_d[NCELL], ic_d[NCELL], dv_d[NCELL], gref_d[NCELL], gout_d[NCELL];
static float iapp_f[NCELL], ic_f[NCELL], dv_f[NCELL], gref_f[NCELL], gout_f[NCELL];

/* Calls F with the arrays of each variable as the 38 pointer arguments. */
#define ARGS(v) , in[v], out[v]
#define RUN(F, IAPP, IC, DV, GJ) F(NCELL, IAPP, IC, DV, GJ VARS(ARGS))
static void run_d(int path, double **in, double **out, double *gj)
{
    if (path == 0) RUN(step_base_d, iapp_d, ic_d, dv_d, gj);
    else if (path == 1) RUN(step_v4_d, iapp_d, ic_d, dv_d, gj);
    else RUN(step_v3_d, iapp_d, ic_d, dv_d, gj);
}
static void run_f(int path, float **in, float **out, float *gj)
{
    if (path == 0) RUN(step_base_f, iapp_f, ic_f, dv_f, gj);
    else if (path == 1) RUN(step_v4_f, iapp_f, ic_f, dv_f, gj);
    else RUN(step_v3_f, iapp_f, ic_f, dv_f, gj);
}

static int differ(const char *what, const void *a, const void *b, size_t bytes)
{
    if (memcmp(a, b, bytes) == 0) return 0;
    printf("FAIL: %s differs from the baseline path\n", what);
    return 1;
}

int main(void)
{
    for (int v = 0; v < OLIVE_NVARS; v++) {
        in_d[v] = malloc(NCELL * sizeof(double)); ref_d[v] = malloc(NCELL * sizeof(double));
        out_d[v] = malloc(NCELL * sizeof(double)); in_f[v] = malloc(NCELL * sizeof(float));
        ref_f[v] = malloc(NCELL * sizeof(float)); out_f[v] = malloc(NCELL * sizeof(float));
    }
    /* States along the reference trajectory (pulse of 6 on steps 20000..20498
     * in the MODEL.md experiment; here every 11th state gets a pulse and a
     * junction current, so the inputs cover both). */
    double x[OLIVE_NVARS], y[OLIVE_NVARS];
    for (int v = 0; v < OLIVE_NVARS; v++) x[v] = olive_var_initial[v];
    uint64_t s = 88172645463325252ull;
    for (int k = 0; k < NCELL; k++) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        double u = (double)(s >> 11) / 9007199254740992.0;
        for (int v = 0; v < OLIVE_NVARS; v++) {
            in_d[v][k] = x[v] * (k % 3 ? 1.0 : 1.0 + 1e-3 * (u - 0.5));
            in_f[v][k] = (float)in_d[v][k];
        }
        iapp_d[k] = k % 11 == 0 ? 6.0 : 0.0;
        ic_d[k] = k % 11 == 5 ? 0.4 * (u - 0.5) : 0.0;
        dv_d[k] = 200.0 * (u - 0.5);
        iapp_f[k] = (float)iapp_d[k]; ic_f[k] = (float)ic_d[k]; dv_f[k] = (float)dv_d[k];
        olive_cell_step_d(x, y, (k >= 20000 && k < 20499) ? 6.0 : 0.0, 0.0);
        memcpy(x, y, sizeof x);
    }
    int fail = 0, paths = 0;
    run_d(0, in_d, ref_d, gref_d);
    run_f(0, in_f, ref_f, gref_f);
    const char *path[] = {"x86-64-v4", "x86-64-v3"};
    __builtin_cpu_init();
    for (int p = 0; p < 2; p++) {
        int have = p == 0 ? __builtin_cpu_supports("avx512f") : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
        if (!have) { printf("%s: not supported by this CPU, skipped\n", path[p]); continue; }
        paths++;
        run_d(p + 1, in_d, out_d, gout_d);
        run_f(p + 1, in_f, out_f, gout_f);
        char what[96];
        for (int v = 0; v < OLIVE_NVARS; v++) {
            snprintf(what, sizeof what, "%s double variable %d", path[p], v);
            fail |= differ(what, out_d[v], ref_d[v], NCELL * sizeof(double));
            snprintf(what, sizeof what, "%s single variable %d", path[p], v);
            fail |= differ(what, out_f[v], ref_f[v], NCELL * sizeof(float));
        }
        snprintf(what, sizeof what, "%s double RGJ term", path[p]);
        fail |= differ(what, gout_d, gref_d, sizeof gout_d);
        snprintf(what, sizeof what, "%s single RGJ term", path[p]);
        fail |= differ(what, gout_f, gref_f, sizeof gout_f);
        printf("%s: %d cells x 19 variables and the RGJ term, double and single: %s\n", path[p], NCELL,
               fail ? "DIFFER" : "same bits as baseline x86-64");
    }
    if (!paths) printf("no SIMD path on this CPU: nothing to compare\n");
    return fail;
}
