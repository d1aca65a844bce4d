/* The probe of docs/results/cpu_cell_fma_2026-12-06_vm-intel.txt (not part of the build): the CPU
 * update loop on one core with the model body named by BODY and the divisions of variant V (0 plain,
 * 1 none (timing only), 2 reciprocals from FMAs, 3 every division from FMAs). Build from tools/simulate's
 * flags: gcc -std=c11 -O3 -ffp-contract=off -fno-trapping-math -mfma -Icommon/models -Icommon/math
 * -DV=0 -DBODY='"model_body.h"' THIS.c common/models/state.c -lm (V >= 2 needs a body whose helpers
 * take OLIVE_BAD_PARAM). */
/* ---- fdiv.h ---- */
/* experimental correctly rounded reciprocal and division from FMAs */
#include <stdint.h>
#include <string.h>
#include <math.h>
static inline __attribute__((always_inline)) int64_t fd_bits(double x) { int64_t i; memcpy(&i, &x, 8); return i; }
/* RN(1/b) for |b| in [2^-126, 2^126]; *bad set otherwise or where the result's significand is zero */
static inline __attribute__((always_inline)) double fd_rcp(double b, int64_t *bad)
{
    double y = (double)(1.0f / (float)b);           /* rel. error <= 2^-24 */
    double e = fma(-b, y, 1.0);
    y = fma(y, fma(e, e, e), y);                     /* cubic step: ~2^-72 */
    e = fma(-b, y, 1.0);                             /* exact */
    y = fma(y, e, y);                                /* RN(1/b) (Markstein), unless b's significand is all ones */
    const uint64_t m = ((uint64_t)fd_bits(b) << 1) - ((uint64_t)0x3810000000000000ULL << 1);  /* |b| - 2^-126, as bits */
    *bad |= (m > (((uint64_t)0x47d0000000000000ULL - 0x3810000000000000ULL) << 1)) | ((fd_bits(y) & 0x000fffffffffffffLL) == 0);
    return y;
}
static inline __attribute__((always_inline)) double fd_div(double a, double b, int64_t *bad)
{
    const double y = fd_rcp(b, bad);
    const double q0 = a * y;
    double r = fma(-b, q0, a);
    const double q1 = fma(r, y, q0);                 /* faithful */
    r = fma(-b, q1, a);                              /* exact */
    const double q2 = fma(r, y, q1);                 /* RN(a/b) */
    const uint64_t m = ((uint64_t)fd_bits(q0) << 1) - ((uint64_t)0x0b70000000000000ULL << 1);  /* |q0| - 2^-840 */
    *bad |= (a != 0) & (m > (((uint64_t)0x7830000000000000ULL - 0x0b70000000000000ULL) << 1));   /* up to 2^900 */
    return a == 0 ? q0 : q2;
}
/* ---- the loop ---- */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "model.h"
#ifndef V
#define V 0
#endif
/* the model body with the variant's divisions */
#define OLIVE_REAL double
#define OLIVE_FN(name) name##_x
#define OLIVE_EXP olive_exp_inrange_d
#define OLIVE_EXP_PLUS olive_exp_inrange_plus_d
#define OLIVE_GATE_V(v) (fabs(v) > 2000.0 ? copysign((double)NAN, (v)) : (v))
#define OLIVE_FABS fabs
#define OLIVE_FMA fma
#if V == 1
#define OLIVE_DIV(a, b) ((a) * (C_(1.5) - (b) * C_(1e-30)))
#define OLIVE_RCP(b) (C_(0.5) - (b) * C_(1e-30))
#elif V == 2
#define OLIVE_DIV(a, b) ((a) / (b))
#define OLIVE_RCP(b) fd_rcp((b), bad_)
#elif V == 3
#define OLIVE_DIV(a, b) fd_div((a), (b), bad_)
#define OLIVE_RCP(b) fd_rcp((b), bad_)
#endif
#if V >= 2
#define OLIVE_BAD_PARAM , int64_t *bad_
#define OLIVE_BAD_ARG , bad_
#endif
#include BODY
#define N 4096
#define NV OLIVE_NVARS
static double X[NV][N], IA[N];
#define VL(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16) X(17) X(18)
#define KP(v) , double *restrict x##v
__attribute__((noinline, target("arch=x86-64-v4"))) static long run(int64_t n, const double *restrict iapp KP(0) KP(1) KP(2) KP(3) KP(4) KP(5) KP(6) KP(7) KP(8) KP(9) KP(10) KP(11) KP(12) KP(13) KP(14) KP(15) KP(16) KP(17) KP(18))
{
    long nbad = 0;
    for (int64_t k0 = 0; k0 < n; k0 += 64) {
        int64_t fl[64];
        for (int64_t j = 0; j < 64; j++) {
            const int64_t k = k0 + j;
            double in[NV], out[NV];
            int64_t bad = 0; (void)bad;
#define KL(v) in[v] = x##v[k];
#define KS(v) x##v[k] = out[v];
            VL(KL)
#if V >= 2
            olive_cell_step_x(in, out, iapp[k], 0.0, &bad);
#else
            olive_cell_step_x(in, out, iapp[k], 0.0);
#endif
            VL(KS)
            fl[j] = bad;
        }
        for (int j = 0; j < 64; j++) nbad += fl[j] != 0;
    }
    return nbad;
}
int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 4000;
    for (int v = 0; v < NV; v++) for (int k = 0; k < N; k++) X[v][k] = olive_var_initial[v];
    for (int k = 0; k < N; k++) IA[k] = (k % 7) * 0.3 - 0.5 + 1e-3 * (k % 13);
    struct timespec t0, t1;
    long nbad = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
#define KA(v) , X[v]
    for (int s = 0; s < steps; s++) nbad += run(N, IA VL(KA));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double dt = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
    unsigned long long h = 1469598103934665603ULL;
    for (int v = 0; v < NV; v++) for (int k = 0; k < N; k++) { uint64_t b; memcpy(&b, &X[v][k], 8); h = (h ^ b) * 1099511628211ULL; }
    printf("V=%d %.3f s  %.3g cell-steps/s  bad %ld  hash %016llx  v0 %.17g\n", V, dt, (double)N * steps / dt, nbad, h, X[0][5]);
    return 0;
}
