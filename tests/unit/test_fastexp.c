/* olive_exp_d / olive_exp_f against libm: at most 1 ulp (double) and 2 ulp
 * (float) over the model's whole range, exact at 0, NaN propagates, and the
 * clamped ends stay finite. olive_exp_nonpos_d/f (the gap-junction term's)
 * give the very bits of olive_exp_d/f for every x <= 0, except double's
 * below -708: there a positive number under 2^-1020, with which the term's
 * 0.8 e + 0.2 has the very bits it has with olive_exp_d. The bias of 2^k
 * rides in the reduction's shift (fastexp.h): it rounds x / ln 2 to the same
 * integer k as the bare 1.5 * 2^52 (1.5 * 2^23) would, for every x checked
 * here, so the bits are those of the form without it. c + exp(x) as one
 * fused multiply-add (olive_exp_inrange_plus_d, olive_exp_plus_f: the cell
 * model's sigmoids) gives the bits of the addition after the exponential,
 * for the model's constants c and for c another exponential. */
#include "fastexp.h"
#include <math.h>
#include <stdio.h>

static double ulps_d(double a, double b) { return fabs(a - b) / (nextafter(b, INFINITY) - b); }
static int same_bits_d(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }
static int same_bits_f(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }
static double ulps_f(float a, float b) { return fabs((double)a - (double)b) / ((double)nextafterf(b, INFINITY) - (double)b); }

/* k from the shift with the bias (olive_exp_reduce_*'s kbits) against k
 * from the bare shift: 0 where they agree. */
static int k_differs_d(double x)
{
    int64_t kb;
    (void)olive_exp_reduce_d(x, &kb);
    const double bare = 6755399441055744.0;
    const double k0 = fma(x, 1.4426950408889634, bare) - bare;
    return (double)(kb - (int64_t)0x4338000000000000LL - 1023) != k0;
}
static int k_differs_f(float x)
{
    int32_t kb;
    (void)olive_exp_reduce_f(x, &kb);
    const float bare = 12582912.0f;
    const float k0 = fmaf(x, 1.44269504f, bare) - bare;
    return (float)(kb - (int32_t)0x4B400000 - 127) != k0;
}

int main(void)
{
    int fail = 0, nonpos_bad = 0, k_bad = 0, plus_bad = 0;
    const double cs[] = {1.0, -1.0, 5.0, 100.0, 0.0};
    double worst_d = 0, worst_f = 0, at_d = 0, at_f = 0;
    uint64_t s = 88172645463325252ull;
    for (int i = 0; i < 4000000; i++) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;       /* xorshift: reproducible inputs */
        double u = (double)(s >> 11) / 9007199254740992.0;
        double x = i % 2 ? -700.0 + 1400.0 * u : -40.0 + 80.0 * u;
        double e = ulps_d(olive_exp_d(x), exp(x));
        if (e > worst_d) { worst_d = e; at_d = x; }
        float xf = (float)(i % 2 ? -80.0 + 160.0 * u : -20.0 + 40.0 * u);
        if (k_differs_d(x) || k_differs_d(-1e9 * u * u * u) || k_differs_f(xf)) {
            if (k_bad++ < 3) printf("FAIL: the biased shift rounds x = %.17g (or %.9g) to another k\n", x, xf); }
        double ef = ulps_f(olive_exp_f(xf), expf(xf));
        if (ef > worst_f) { worst_f = ef; at_f = xf; }
        /* x <= 0: double -708 .. 0 the same bits, below (down to -1e9) a
         * tiny positive number and the term's same sum; float the same bits */
        double xn = i % 4 < 2 ? -708.0 * u : -1e9 * u * u * u;
        float xnf = (float)(i % 4 < 2 ? -87.0 * u : -1e4 * u * u);
        if (xn >= -708.0 ? !same_bits_d(olive_exp_nonpos_d(xn), olive_exp_d(xn))
                         : !(olive_exp_nonpos_d(xn) > 0.0 && olive_exp_nonpos_d(xn) < 0x1p-1020 &&
                             same_bits_d(0.8 * olive_exp_nonpos_d(xn) + 0.2, 0.8 * olive_exp_d(xn) + 0.2))) {
            if (nonpos_bad++ < 3) printf("FAIL: exp_nonpos_d(%.17g) = %g, exp_d %g\n", xn, olive_exp_nonpos_d(xn), olive_exp_d(xn));
        }
        /* c + exp: x in the double's range, float's anywhere */
        const double c = i % 6 < 5 ? cs[i % 6] : olive_exp_d(-30.0 + 40.0 * u);
        const double xp = -708.0 + 1417.0 * u;
        const float xpf = (float)(-200.0 + 400.0 * u);
        if (!same_bits_d(olive_exp_inrange_plus_d(xp, c), c + olive_exp_inrange_d(xp)) ||
            !same_bits_f(olive_exp_plus_f(xpf, (float)c), (float)c + olive_exp_f(xpf))) {
            if (plus_bad++ < 3) printf("FAIL: c + exp(x) as one multiply-add differs at x = %.17g, c = %g\n", xp, c);
        }
        if (!same_bits_d(olive_exp_nonpos_plus_d(xn, 0.2), 0.2 + olive_exp_nonpos_d(xn)) ||
            !same_bits_f(olive_exp_nonpos_plus_f(xnf, 0.2f), 0.2f + olive_exp_nonpos_f(xnf))) {
            if (plus_bad++ < 3) printf("FAIL: 0.2 + exp_nonpos(x) as one multiply-add differs at x = %.17g\n", xn);
        }
        if (!same_bits_f(olive_exp_nonpos_f(xnf), olive_exp_f(xnf))) {
            if (nonpos_bad++ < 3) printf("FAIL: exp_nonpos_f(%.9g) = %g, exp_f %g\n", xnf, olive_exp_nonpos_f(xnf), olive_exp_f(xnf));
        }
    }
    const double edges[] = {0.0, -0.0, -708.0, -707.9999999999999, -87.0, -86.99999};
    for (unsigned i = 0; i < sizeof edges / sizeof edges[0]; i++)
        if (!same_bits_d(olive_exp_nonpos_d(edges[i]), olive_exp_d(edges[i])) ||
            !same_bits_f(olive_exp_nonpos_f((float)edges[i]), olive_exp_f((float)edges[i])) ||
            !same_bits_f(olive_exp_nonpos_f((float)edges[i] - 1e3f), olive_exp_f((float)edges[i] - 1e3f))) {
            printf("FAIL: exp_nonpos(%g) differs from exp\n", edges[i]); nonpos_bad++; }
    if (!isnan(olive_exp_nonpos_d(NAN)) || !isnan(olive_exp_nonpos_f(NAN)) || !isnan(olive_exp_nonpos_d(-INFINITY))) {
        printf("FAIL: exp_nonpos of NaN or (double) -inf is not NaN\n"); nonpos_bad++; }
    /* every float the model meets, and the rounding's edges */
    for (float xf = -100.0f; xf <= 100.0f; xf = nextafterf(xf, 200.0f))
        if (k_differs_f(xf) && k_bad++ < 3) printf("FAIL: the biased shift rounds x = %.9g to another k\n", xf);
    if (!same_bits_d(olive_exp_inrange_plus_d(709.0, 1.0), 1.0 + olive_exp_inrange_d(709.0)) ||
        !same_bits_d(olive_exp_inrange_plus_d(-708.0, -1.0), -1.0 + olive_exp_inrange_d(-708.0)) ||
        !isnan(olive_exp_inrange_plus_d(NAN, 1.0)) || !isnan(olive_exp_plus_f(NAN, 1.0f))) {
        printf("FAIL: c + exp at the range's ends or of NaN\n"); plus_bad++; }
    if (plus_bad) { printf("FAIL: %d arguments where c + exp as one multiply-add differs\n", plus_bad); fail = 1; }
    if (k_bad) { printf("FAIL: %d arguments where the biased shift gives another k\n", k_bad); fail = 1; }
    if (nonpos_bad) { printf("FAIL: %d arguments where exp_nonpos is off\n", nonpos_bad); fail = 1; }
    printf("double: worst %.2f ulp at %g; float: worst %.2f ulp at %g\n", worst_d, at_d, worst_f, at_f);
    if (worst_d > 1.0) { printf("FAIL: double exp off by more than 1 ulp\n"); fail = 1; }
    if (worst_f > 2.0) { printf("FAIL: float exp off by more than 2 ulp\n"); fail = 1; }
    if (olive_exp_d(0.0) != 1.0 || olive_exp_f(0.0f) != 1.0f) { printf("FAIL: exp(0) != 1\n"); fail = 1; }
    if (!isnan(olive_exp_d(NAN)) || !isnan(olive_exp_f(NAN))) { printf("FAIL: NaN does not propagate\n"); fail = 1; }
    if (!isfinite(olive_exp_d(1e6)) || olive_exp_d(-1e6) < 0 || !isfinite(olive_exp_f(1e6f))) {
        printf("FAIL: clamped ends are not finite\n"); fail = 1; }
    return fail;
}
