/* The noise of olive-simulate (common/models/noise.h) against theory:
 * - olive_normal: mean 0, variance 1, fourth moment 3, the fraction beyond
 *   1.96 (5%), no correlation between neighbouring cells or steps;
 * - the OU current stepped by olive_ou_next_d (the simulator's own function),
 *   started from the stationary draw: mean mu, standard deviation sigma, and
 *   autocorrelation exp(-lag/tau) at lags tau/2, tau and 2 tau;
 * - float and double paths stay within float rounding of each other;
 * each within 5 standard errors of the estimate (or an exact value). */
#include "noise.h"
#include "model.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int fail;

static void expect(const char *what, double got, double want, double tol)
{
    int ok = fabs(got - want) <= tol;
    printf("%-44s %12.6f  (theory %.6f, tolerance %.6f)%s\n", what, got, want, tol, ok ? "" : "  FAIL");
    if (!ok) fail = 1;
}

static void normals(void)
{
    const int64_t N = 4000000;
    double s1 = 0, s2 = 0, s4 = 0, tail = 0, cell_cor = 0, step_cor = 0;
    for (int64_t i = 0; i < N; i++) {
        int64_t cell = i % 2000, step = i / 2000 + (INT64_C(1) << 33);   /* steps past 2^32 too */
        double x = olive_normal(42, cell, step, OLIVE_STREAM_NOISE);
        double y = olive_normal(42, cell + 1, step, OLIVE_STREAM_NOISE);
        double z = olive_normal(42, cell, step + 1, OLIVE_STREAM_NOISE);
        s1 += x; s2 += x * x; s4 += x * x * x * x;
        tail += fabs(x) > 1.959963984540054;
        cell_cor += x * y;
        step_cor += x * z;
    }
    const double n = (double)N;
    expect("normal: mean", s1 / n, 0, 5 / sqrt(n));
    expect("normal: variance", s2 / n, 1, 5 * sqrt(2 / n));
    expect("normal: fourth moment", s4 / n, 3, 5 * sqrt(96 / n));
    expect("normal: P(|x| > 1.96)", tail / n, 0.05, 5 * sqrt(0.05 * 0.95 / n));
    expect("normal: correlation of neighbouring cells", cell_cor / n, 0, 5 / sqrt(n));
    expect("normal: correlation of successive steps", step_cor / n, 0, 5 / sqrt(n));
    /* Counters, not sequences: a draw depends only on its key and counter. */
    expect("normal: same (seed, cell, step) twice", olive_normal(9, 123, 456, OLIVE_STREAM_NOISE) -
           olive_normal(9, 123, 456, OLIVE_STREAM_NOISE), 0, 0);
}

static void ou(void)
{
    const double mu = 0.3, sigma = 0.7, tau = 5.0, dt = OLIVE_DT;
    olive_noise nz = {1, 11, mu, exp(-dt / tau), sigma * sqrt(-expm1(-2 * dt / tau))};
    const int cells = 64;
    const int64_t steps = 200000, lag = (int64_t)llround(tau / dt);   /* 10 s per cell, 100 steps = tau */
    const int64_t lags[3] = {lag / 2, lag, 2 * lag};
    double s1 = 0, s2 = 0, c[3] = {0, 0, 0};
    double *x = malloc((size_t)steps * sizeof *x);
    double fmax = 0;
    if (!x) return;
    for (int cell = 0; cell < cells; cell++) {
        double i = mu + sigma * olive_normal(nz.seed, cell, 0, OLIVE_STREAM_NOISE_START);
        float f = (float)i;
        for (int64_t t = 0; t < steps; t++) {
            x[t] = i;
            i = olive_ou_next_d(&nz, i, cell, t);
            f = olive_ou_next_f(&nz, f, cell, t);
            double d = fabs((double)f - i);
            fmax = d > fmax ? d : fmax;
        }
        for (int64_t t = 0; t < steps; t++) { s1 += x[t]; s2 += (x[t] - mu) * (x[t] - mu); }
        for (int k = 0; k < 3; k++)
            for (int64_t t = 0; t + lags[k] < steps; t++) c[k] += (x[t] - mu) * (x[t + lags[k]] - mu);
    }
    free(x);
    const double n = (double)cells * (double)steps;
    /* Samples tau apart are about independent: the effective count is
     * T / (2 tau) per cell. */
    const double neff = (double)cells * (double)steps * dt / (2 * tau);
    expect("OU: mean (uA/cm2)", s1 / n, mu, 5 * sigma / sqrt(neff));
    double var = s2 / n;
    expect("OU: standard deviation (uA/cm2)", sqrt(var), sigma, 5 * sigma / sqrt(2 * neff));
    for (int k = 0; k < 3; k++) {
        char what[64];
        snprintf(what, sizeof what, "OU: autocorrelation at lag %g ms", (double)lags[k] * dt);
        double r = c[k] / ((double)cells * (double)(steps - lags[k])) / var;
        expect(what, r, exp(-(double)lags[k] * dt / tau), 5 * sqrt(2.0 / neff));
    }
    /* A float rounding per step (2.4e-7 for |I| < 4) summed over the 1/(1 - decay) = 100
     * steps the process remembers: 2.4e-5. */
    expect("OU: float path within float rounding (uA/cm2)", fmax, 0, 3e-5);
}

int main(void)
{
    normals();
    ou();
    if (fail) fprintf(stderr, "test_noise: FAILED\n");
    return fail;
}
