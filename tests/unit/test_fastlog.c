/* olive_log_d / olive_log1p_d against glibc's log / log1p: at most 1 ulp
 * over the whole positive range (random exponents and mantissas, subnormals,
 * values next to 1, the uniform generator's (0, 1) draws and its -p for
 * p = 2^-60 .. 1), and the special values; olive_cos2pi_d against
 * cos(2 pi u) in long double: within 2e-16 over the generator's draws, the
 * quarter turns exact. */
#include "fastlog.h"
#include "cospi2.h"
#include <math.h>
#include <stdio.h>

static double ulps(double a, double b)
{
    if (a == b) return 0;
    double step = fabs(nextafter(b, INFINITY) - b);
    double s2 = fabs(b - nextafter(b, -INFINITY));
    return fabs(a - b) / (step < s2 ? step : s2);
}

static uint64_t s = 88172645463325252ull;
static uint64_t next(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }

int main(void)
{
    int fail = 0;
    double worst_l = 0, worst_p = 0, at_l = 0, at_p = 0;
    for (int i = 0; i < 6000000; i++) {
        uint64_t r = next();
        double u = (double)(r >> 11) / 9007199254740992.0;
        double x;
        switch (i % 5) {
        case 0: x = ldexp(1.0 + u, (int)(next() % 2098) - 1074); break;   /* any positive double */
        case 1: x = ((double)(r >> 11) + 0.5) / 9007199254740992.0; break; /* olive_u01's values */
        case 2: x = 1.0 + ldexp(u - 0.5, -(int)(next() % 60)); break;      /* near 1 */
        case 3: x = olive_bitsd(r >> 12); break;                           /* subnormals and small */
        default: x = 0.5 + 1.5 * u; break;
        }
        if (x > 0 && isfinite(x)) {
            double e = ulps(olive_log_d(x), log(x));
            if (e > worst_l) { worst_l = e; at_l = x; }
        }
        /* log1p over (-1, inf): -p for tiny to large p, and positive x */
        double y;
        switch (i % 4) {
        case 0: y = -ldexp(1.0 + u, -(int)(next() % 62) - 1); break;       /* -p, p in (2^-62, 1) */
        case 1: y = -u; break;
        case 2: y = ldexp(1.0 + u, (int)(next() % 1100) - 1074); break;
        default: y = -1.0 + ldexp(1.0 + u, -(int)(next() % 50) - 1); break; /* close to -1 */
        }
        if (y > -1.0 && isfinite(y)) {
            double e = ulps(olive_log1p_d(y), log1p(y));
            if (e > worst_p) { worst_p = e; at_p = y; }
        }
    }
    double worst_c = 0, at_c = 0;
    for (int i = 0; i < 4000000; i++) {
        const uint64_t r = next();
        double u = ((double)(r >> 11) + 0.5) / 9007199254740992.0;   /* olive_u01's values */
        if (i % 4 == 1) u = ldexp((double)(r >> 11), -53 - (int)(next() % 40));   /* near 0 */
        if (i % 4 == 2) u = 0.125 * (double)(next() % 9) + ldexp((double)(r >> 11) - 4503599627370496.0, -80);  /* near eighths */
        if (!(u >= 0 && u <= 1)) continue;
        const double e = fabs(olive_cos2pi_d(u) - (double)cosl(6.28318530717958647692528676655900577L * (long double)u));
        if (e > worst_c) { worst_c = e; at_c = u; }
    }
    printf("cos(2 pi u): worst %.3g at %.17g\n", worst_c, at_c);
    if (worst_c > 2e-16) { printf("FAIL: cos(2 pi u) off by more than 2e-16\n"); fail = 1; }
    if (olive_cos2pi_d(0.0) != 1.0 || olive_cos2pi_d(0.25) != 0.0 || olive_cos2pi_d(0.5) != -1.0 ||
        olive_cos2pi_d(0.75) != 0.0 || olive_cos2pi_d(1.0) != 1.0) { printf("FAIL: cos at quarter turns\n"); fail = 1; }
    printf("log: worst %.3f ulp at %.17g; log1p: worst %.3f ulp at %.17g\n", worst_l, at_l, worst_p, at_p);
    if (worst_l > 1.0) { printf("FAIL: log off by more than 1 ulp\n"); fail = 1; }
    if (worst_p > 1.0) { printf("FAIL: log1p off by more than 1 ulp\n"); fail = 1; }
    if (olive_log_d(1.0) != 0.0 || olive_log1p_d(0.0) != 0.0 || olive_log_d(2.0) != log(2.0)) {
        printf("FAIL: log(1), log1p(0) or log(2)\n"); fail = 1; }
    if (!(olive_log_d(0.0) == -INFINITY) || !isnan(olive_log_d(-1.0)) || !(olive_log_d(INFINITY) == INFINITY) ||
        !isnan(olive_log_d(NAN))) { printf("FAIL: log special values\n"); fail = 1; }
    if (!(olive_log1p_d(-1.0) == -INFINITY) || !isnan(olive_log1p_d(-2.0)) || !(olive_log1p_d(INFINITY) == INFINITY) ||
        !isnan(olive_log1p_d(NAN)) || olive_log1p_d(-1e-300) != -1e-300) {
        printf("FAIL: log1p special values\n"); fail = 1; }
    return fail;
}
