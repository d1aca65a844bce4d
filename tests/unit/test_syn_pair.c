/* A synapse's delay and weight drawn as a pair (common/connect/conn_synapse.h,
 * olive_syn_values): when both are normal, Box-Muller's cosine of one counter
 * of the delay stream is the delay's first attempt and its sine the weight's;
 * a value out of bounds is redrawn from attempt 1 of its own stream. Checked:
 * - olive_syn_values gives, bit for bit, what olive_syn_delay and
 *   olive_syn_weight give alone (the GPU's rules kernel draws them together,
 *   its accumulate pass and olive-genconn's set-up kernels one at a time);
 * - olive_sincos2pi_d's cosine is olive_cos2pi_d's, its sine within 2.5e-16
 *   of sinl(2 pi u);
 * - the law: 2,000,000 pairs, each value's mean and variance within 5 standard
 *   errors of a standard normal's, the two uncorrelated (|r| < 5 / sqrt(n));
 *   truncated draws stay in their bounds, with the kept share of a normal;
 * - where the two are not both normal, each is olive_value_draw in its own
 *   stream, as before (the law of uniform and constant values unchanged). */
#include "conn_synapse.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int fail;

static uint64_t bits_of(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

/* The reference of olive_delay_steps: the division itself. */
static int64_t steps_by_division(double ms, double dt, int64_t max)
{
    const double x = round(ms / dt);
    return x >= 0 && x <= (double)max ? (int64_t)x : -1;
}

static olive_value normal_value(double mean, double sd, double lo, double hi)
{
    olive_value v = {mean + sd * -OLIVE_NORMAL_Z_MAX, mean + sd * OLIVE_NORMAL_Z_MAX, 1, mean, sd, lo, hi};
    if (v.a < lo) v.a = lo;
    if (v.b > hi) v.b = hi;
    return v;
}

int main(void)
{
    /* sin and cos of one reduction */
    double worst = 0;
    for (uint32_t i = 0; i <= 1000000; i++) {
        const double u = (double)i / 1000000.0;
        double c, s;
        olive_sincos2pi_d(u, &c, &s);
        if (bits_of(c) != bits_of(olive_cos2pi_d(u))) { printf("FAIL: cos(2 pi %.17g) differs from olive_cos2pi_d\n", u); fail = 1; break; }
        const double e = fabs(s - (double)sinl(6.28318530717958647692528676655900577L * (long double)u));
        worst = e > worst ? e : worst;
    }
    if (worst > 2.5e-16) { printf("FAIL: sin(2 pi u) off by %.3g\n", worst); fail = 1; }
    printf("sin(2 pi u), 1e6 + 1 points: largest error %.3g\n", worst);

    /* the pair = each alone, bit for bit; the law */
    const olive_value d = normal_value(1.5, 0.75, 0.1, INFINITY);     /* a delay: normal(d, d/2) above dt, as the MAM's */
    const olive_value w = normal_value(87.8, 8.78, 0.0, INFINITY);    /* an excitatory weight, redrawn into [0, inf) */
    const olive_value wt = normal_value(0.0, 1.0, -0.5, 0.5);         /* a hard truncation: 38 % kept */
    const int n = 2000000;
    double ws = 0, ws2 = 0, ds = 0, ds2 = 0, dws = 0;   /* sums of the standardised weight and delay */
    int64_t out = 0, mism = 0;
    for (int i = 0; i < n; i++) {
        const uint32_t b = (uint32_t)(i / 97), draw = (uint32_t)(i % 97);
        double x = 0, y = 0, x1 = 0, y1 = 0;
        const int ok = olive_syn_values(&d, &w, 7, 3, b, draw, &x, &y);
        const int okd = olive_syn_delay(&d, &w, 7, 3, b, draw, &x1), okw = olive_syn_weight(&w, &d, 7, 3, b, draw, &y1);
        if (ok != 3 || !okd || !okw || bits_of(x) != bits_of(x1) || bits_of(y) != bits_of(y1)) mism++;
        const double zd = (x - 1.5) / 0.75, zw = (y - 87.8) / 8.78;   /* (the weight never truncates at 10 SD) */
        ws += zw; ws2 += zw * zw; ds += zd; ds2 += zd * zd; dws += zd * zw;
        double a = 0, c = 0, a1 = 0, c1 = 0;
        const int okt = olive_syn_values(&d, &wt, 11, 5, b, draw, &a, &c);
        const int okt1 = olive_syn_weight(&wt, &d, 11, 5, b, draw, &c1) << 1 | olive_syn_delay(&d, &wt, 11, 5, b, draw, &a1);
        if (okt != okt1 || bits_of(a) != bits_of(a1) || bits_of(c) != bits_of(c1)) mism++;
        if (okt != 3 || c < -0.5 || c > 0.5 || a < 0.1) out++;
    }
    if (mism) { printf("FAIL: %lld pairs differ from the values drawn alone\n", (long long)mism); fail = 1; }
    if (out) { printf("FAIL: %lld truncated values out of their bounds or not drawn\n", (long long)out); fail = 1; }
    const double mw = ws / n, vw = ws2 / n - mw * mw, md = ds / n, vd = ds2 / n - md * md;
    const double corr = (dws / n - md * mw) / sqrt(vd * vw);
    /* the delay is truncated at (0.1 - 1.5) / 0.75 = -1.87 SD: its moments are that truncated normal's */
    const double al = (0.1 - 1.5) / 0.75, phi = exp(-0.5 * al * al) / sqrt(2 * M_PI), Z = 0.5 * erfc(al / sqrt(2.0));
    const double tmean = phi / Z, tvar = 1 + al * phi / Z - tmean * tmean;
    printf("2e6 pairs: weight mean %.5f var %.5f (0, 1); delay (truncated at %.3f SD) mean %.5f (%.5f) var %.5f (%.5f); "
           "correlation %.5f\n", mw, vw, al, md, tmean, vd, tvar, corr);
    const double se = 1 / sqrt((double)n);
    if (fabs(mw) > 5 * se || fabs(vw - 1) > 5 * sqrt(2.0) * se) { printf("FAIL: the weight is not normal(mean, sd)\n"); fail = 1; }
    if (fabs(md - tmean) > 5 * se || fabs(vd - tvar) > 5 * sqrt(2.0) * se) { printf("FAIL: the delay is not its truncated normal\n"); fail = 1; }
    if (fabs(corr) > 5 * se) { printf("FAIL: delay and weight correlated (%.5f)\n", corr); fail = 1; }

    /* not both normal: each olive_value_draw in its own stream */
    const olive_value uni = {0.5, 2.5, 0, 0, 0, 0, 0};
    for (int i = 0; i < 100000; i++) {
        double x = 0, y = 0, x0 = 0, y0 = 0;
        const int ok = olive_syn_values(&uni, &w, 5, 9, (uint32_t)i, 3, &x, &y);
        olive_value_draw(&uni, 5, 9, (uint32_t)i, 3, OLIVE_STREAM_SYN_DELAY, &x0);
        olive_value_draw(&w, 5, 9, (uint32_t)i, 3, OLIVE_STREAM_SYN_WEIGHT, &y0);
        if (ok != 3 || bits_of(x) != bits_of(x0) || bits_of(y) != bits_of(y0)) {
            printf("FAIL: a uniform delay and a normal weight are not drawn as before\n"); fail = 1; break;
        }
    }
    /* olive_syn_wanted (genconn's draw_values and the GPU's set-up and rules kernels): each want gives what the
     * calls it stands for give, an unwanted value untouched; on the truncated weight, so that failures count too */
    int64_t wmism = 0;
    for (int i = 0; i < 200000; i++) {
        const uint32_t b = (uint32_t)(i / 31), draw = (uint32_t)(i % 31);
        double a = 0, c = 0, a1 = 0, c1 = 0;
        const int ok3 = olive_syn_wanted(3, &d, &wt, 11, 5, b, draw, &a, &c);
        const int ok3r = olive_syn_values(&d, &wt, 11, 5, b, draw, &a1, &c1);
        if (ok3 != ok3r || bits_of(a) != bits_of(a1) || bits_of(c) != bits_of(c1)) wmism++;
        double x = -7, y = -7, x1 = 0, y1 = 0;
        const int ok1 = olive_syn_wanted(1, &d, &wt, 11, 5, b, draw, &x, &y);
        if (ok1 != olive_syn_delay(&d, &wt, 11, 5, b, draw, &x1) || bits_of(x) != bits_of(x1) || y != -7) wmism++;
        x = y = -7;
        const int ok2 = olive_syn_wanted(2, &d, &wt, 11, 5, b, draw, &x, &y);
        if (ok2 != olive_syn_weight(&wt, &d, 11, 5, b, draw, &y1) << 1 || (ok2 && bits_of(y) != bits_of(y1)) || x != -7) wmism++;
        x = y = -7;
        if (olive_syn_wanted(0, &d, &wt, 11, 5, b, draw, &x, &y) != 0 || x != -7 || y != -7) wmism++;
    }
    if (wmism) { printf("FAIL: olive_syn_wanted differs from the calls it stands for %lld times\n", (long long)wmism); fail = 1; }

    /* olive_syn_wanted_first (the GPU's rules kernel, first attempts only): where it draws, olive_syn_wanted's bits
     * and values, an unwanted value untouched; -1 exactly as often as a first attempt falls outside its bounds: the
     * MAM-like delay's 3.1 % (normal(1.5, 0.75) below 0.1), the hard truncation's 62 %, never for the others */
    const olive_value konst = {1.0, 1.0, 0, 0, 0, 0, 0};
    const struct { const olive_value *d, *w; const char *what; } cases[] = {
        {&d, &w, "normal delay, normal weight"},
        {&d, &wt, "normal delay, truncated weight"},
        {&uni, &w, "uniform delay, normal weight"},
        {&uni, &uni, "uniform both"},
        {&konst, &wt, "constant delay, truncated weight"},
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        /* the shares a first attempt keeps: the delay's below 0.1, the truncated weight's |z| > 0.5 (Box-Muller's
         * cosine and sine are independent normals, so the pair keeps the product) */
        const double keptd = cases[ci].d == &d ? 1 - 0.5 * erfc(-al / sqrt(2.0)) : 1;
        const double keptw = cases[ci].w == &wt ? 1 - erfc(0.5 / sqrt(2.0)) : 1;
        for (int want = 1; want <= 3; want++) {
            const int m = 200000;
            int64_t redo = 0, fmism = 0;
            for (int i = 0; i < m; i++) {
                const uint32_t b = (uint32_t)(i / 53), draw = (uint32_t)(i % 53);
                double x = -7, y = -7, x1 = -7, y1 = -7;
                const int okf = olive_syn_wanted_first(want, cases[ci].d, cases[ci].w, 13, 2, b, draw, &x, &y);
                const int ok = olive_syn_wanted(want, cases[ci].d, cases[ci].w, 13, 2, b, draw, &x1, &y1);
                if (okf < 0) { redo++; if (x != -7 || y != -7) fmism++; continue; }
                if (okf != ok || bits_of(x) != bits_of(x1) || bits_of(y) != bits_of(y1)) fmism++;
            }
            const double expect = 1 - ((want & 1) ? keptd : 1) * ((want & 2) ? keptw : 1);
            const double share = (double)redo / m, se1 = sqrt(expect * (1 - expect) / m);
            if (fmism || fabs(share - expect) > 5 * se1 + 1e-12) {
                printf("FAIL: olive_syn_wanted_first, %s, want %d: %lld differ, %.5f redrawn (expected %.5f)\n",
                       cases[ci].what, want, (long long)fmism, share, expect);
                fail = 1;
            }
        }
    }
    printf("olive_syn_wanted_first: the same draws as olive_syn_wanted where no value is redrawn (5 cases x 3 wants)\n");
    /* olive_delay_steps (the GPU's delay at each event, by a multiplication where it rounds the same) = the
     * division's round(ms / dt) for every ms: normal draws of
     * several dt, ms within 16 ulps of every half-integer step up to 4096 (where a product and a quotient could
     * round to different sides), and the non-finite and out-of-range values */
    {
        const double dts[] = {0.1, 0.05, 0.025, 0.1 / 3.0, 0.125, 1.0, 0.01, 0.2};
        int64_t dmism = 0, tried = 0, fell = 0;
        for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
            const double dt = dts[di], rdt = 1.0 / dt;
            for (uint32_t i = 0; i < 400000; i++) {
                const double ms = 1.5 + 2.0 * olive_std_normal(17, 4, i, (uint32_t)di, 0);
                tried++;
                if (olive_delay_steps(ms, dt, rdt, 4096) != steps_by_division(ms, dt, 4096)) dmism++;
            }
            for (int64_t k = -3; k <= 4096; k++) {
                const double mid = ((double)k + 0.5) * dt;
                double lo = mid, hi = mid;
                for (int u = 0; u < 16; u++) {
                    lo = nextafter(lo, -INFINITY), hi = nextafter(hi, INFINITY);
                    const double c[3] = {lo, hi, mid};
                    for (int x = 0; x < 3; x++) {
                        tried++;
                        const double q = c[x] * rdt, r = round(q);
                        fell += !(0.5 - fabs(q - r) > fabs(q) * 0x1p-44);
                        if (olive_delay_steps(c[x], dt, rdt, 4096) != steps_by_division(c[x], dt, 4096)) dmism++;
                    }
                }
            }
            const double odd[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e300, -1e300, 5e-324, 4096.4 * dt, 4096.6 * dt,
                                  -0.5 * dt, -0.49 * dt, 0.5 * dt};
            for (size_t x = 0; x < sizeof odd / sizeof odd[0]; x++) {
                tried++;
                if (olive_delay_steps(odd[x], dt, rdt, 4096) != steps_by_division(odd[x], dt, 4096)) dmism++;
            }
        }
        if (dmism) { printf("FAIL: olive_delay_steps differs from round(ms / dt) %lld times\n", (long long)dmism); fail = 1; }
        if (fell == 0) { printf("FAIL: no value near a half-integer took the division (the check tested nothing)\n"); fail = 1; }
        printf("olive_delay_steps: %lld delays, the same steps as round(ms / dt) (%lld near a half-integer took the division)\n",
               (long long)tried, (long long)fell);
    }
    printf(fail ? "test_syn_pair: FAILED\n" : "test_syn_pair: all passed\n");
    return fail;
}
