/* The --poisson inputs' binomial draws (common/models/lif.h, poisson_input.h):
 * - with the factors made once per input (olive_binomial_factors, what every
 *   engine uses) a draw is the draw without them, bit for bit, for every
 *   uniform tried: n from 1 to 10^5, n p from 1e-3 to 50 (draws past the
 *   table's 32 factors included), u up to the last double below 1;
 * - olive_poisson_input_hits_f's draws have Binomial(n, p)'s mean and
 *   variance (within 5 standard errors) and no correlation between
 *   neighbouring cells or steps. */
#include "poisson_input.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int fail;

static void expect(const char *what, double got, double want, double tol)
{
    const int ok = fabs(got - want) <= tol;
    printf("%-52s %12.6f  (want %.6f, tolerance %.6f)%s\n", what, got, want, tol, ok ? "" : "  FAIL");
    if (!ok) fail = 1;
}

/* Every draw of (n, p) over a grid of uniforms, with and without the
 * factors: the number that differ (0), the largest k seen. */
static long long compare(long long n, double p, long long *kmax)
{
    double fac[OLIVE_BINOMIAL_FACTORS];
    olive_binomial_factors(n, p, fac);
    const double p0 = olive_binomial_p0(n, p);
    long long differ = 0;
    const int U = 20000;
    for (int i = 0; i <= U + 3; i++) {
        /* an even grid, then the uniforms just below 1 (the longest draws) */
        const double u = i <= U ? (i + 0.5) / (U + 1.0) : nextafter(1.0, 0.0) - (double)(i - U - 1) * 1e-16;
        const long long a = olive_binomial_f(u, n, p, p0, fac), b = olive_binomial(u, n, p, p0);
        if (a != b) differ++;
        if (b > *kmax) *kmax = b;
    }
    return differ;
}

static void moments(long long n, double p)
{
    double fac[OLIVE_BINOMIAL_FACTORS];
    olive_binomial_factors(n, p, fac);
    const double p0 = olive_binomial_p0(n, p);
    const int64_t cells = 1000, steps = 1000;
    double s1 = 0, s2 = 0, cc = 0, sc = 0;
    for (int64_t step = 0; step < steps; step++)
        for (int64_t g = 0; g < cells; g++) {
            const double x = (double)olive_poisson_input_hits_f(7, g, step, 3, n, p, p0, fac);
            const double y = (double)olive_poisson_input_hits_f(7, g + 1, step, 3, n, p, p0, fac);
            const double z = (double)olive_poisson_input_hits_f(7, g, step + 1, 3, n, p, p0, fac);
            s1 += x;
            s2 += x * x;
            cc += x * y;
            sc += x * z;
        }
    const double N = (double)(cells * steps), mean = n * p, var = n * p * (1 - p);
    char what[96];
    snprintf(what, sizeof what, "Binomial(%lld, %g): mean", n, p);
    expect(what, s1 / N, mean, 5 * sqrt(var / N));
    snprintf(what, sizeof what, "Binomial(%lld, %g): variance", n, p);
    const double m = s1 / N;
    /* (the sample variance's standard error: sqrt((mu4 - var^2) / N), mu4 ~ var (1 + 3 var) for small p) */
    expect(what, s2 / N - m * m, var, 5 * sqrt(var * (1 + 3 * var) - var * var) / sqrt(N) + 1e-12);
    snprintf(what, sizeof what, "Binomial(%lld, %g): neighbouring cells' covariance", n, p);
    expect(what, cc / N - m * m, 0, 5 * var / sqrt(N));
    snprintf(what, sizeof what, "Binomial(%lld, %g): neighbouring steps' covariance", n, p);
    expect(what, sc / N - m * m, 0, 5 * var / sqrt(N));
}

int main(void)
{
    const long long ns[] = {1, 2, 7, 31, 32, 33, 100, 1000, 2000, 100000};
    const double lambdas[] = {1e-3, 0.1, 1, 1.6, 5, 15, 30, 50};
    long long differ = 0, kmax = 0, cases = 0;
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (size_t j = 0; j < sizeof lambdas / sizeof lambdas[0]; j++) {
            const double p = lambdas[j] / (double)ns[i];
            if (p > 1) continue;
            differ += compare(ns[i], p, &kmax);
            cases++;
        }
    printf("%lld (n, p) pairs x 20004 uniforms: %lld draws differ with the factors; largest k %lld\n", cases, differ, kmax);
    if (differ) fail = 1;
    if (kmax <= OLIVE_BINOMIAL_FACTORS) {
        printf("FAIL: no draw went past the table's %d factors\n", OLIVE_BINOMIAL_FACTORS);
        fail = 1;
    }
    moments(2000, 8e-4);   /* the microcircuit's background: K_ext inputs at 8 Hz, dt 0.1 ms */
    moments(20, 0.25);
    printf(fail ? "FAIL\n" : "ok\n");
    return fail;
}
