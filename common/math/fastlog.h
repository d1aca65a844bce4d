/* log and log1p in plain IEEE arithmetic (+, -, *, / only), host and device:
 * the algorithms of fdlibm (Sun Microsystems, 1993: e_log.c and s_log1p.c),
 * argument reduction to f in [sqrt(2)/2 - 1, sqrt(2) - 1], then
 * log(1+f) = f - f²/2 + s*(f²/2 + R(s²)), s = f/(2+f), R a minimax
 * polynomial of degree 14 in s, and k*ln2 in two parts (exact products).
 *
 * Why not libm: the uniform generator's geometric gaps floor(log(u)/log1p(-p))
 * must come out identical on the CPU (glibc) and the GPU (CUDA's libdevice),
 * and the two libraries differ in the last bit now and then; a floor() of a
 * quotient turns such a bit into a different network. This source, compiled
 * with -ffp-contract=off (gcc) and -fmad=false (nvcc), rounds every operation
 * identically everywhere. Accuracy: within 1 ulp of glibc (checked by
 * tests/unit/test_fastlog.c). log(0) = -inf, log(x<0) = NaN, log(inf) = inf,
 * NaN propagates; log1p likewise at -1 and below -1. */
#ifndef OLIVE_FASTLOG_H
#define OLIVE_FASTLOG_H
#include <stdint.h>
#include <string.h>
#include "hostdev.h"

#define OLIVE_LN2_HI 6.93147180369123816490e-01   /* 0x3fe62e42fee00000: k * it is exact */
#define OLIVE_LN2_LO 1.90821492927058770002e-10   /* 0x3dea39ef35793c76 */
#define OLIVE_LG1 6.666666666666735130e-01
#define OLIVE_LG2 3.999999999940941908e-01
#define OLIVE_LG3 2.857142874366239149e-01
#define OLIVE_LG4 2.222219843214978396e-01
#define OLIVE_LG5 1.818357216161805012e-01
#define OLIVE_LG6 1.531383769920937332e-01
#define OLIVE_LG7 1.479819860511658591e-01

OLIVE_HD uint64_t olive_dbits(double x) { uint64_t b; memcpy(&b, &x, sizeof b); return b; }
OLIVE_HD double olive_bitsd(uint64_t b) { double x; memcpy(&x, &b, sizeof x); return x; }

OLIVE_HD double olive_log_d(double x)
{
    uint64_t b = olive_dbits(x);
    int32_t hx = (int32_t)(b >> 32);
    int32_t k = 0;
    if (hx < 0x00100000) {                           /* x < 2^-1022, or negative */
        if ((b & 0x7fffffffffffffffull) == 0) return olive_bitsd(0xfff0000000000000ull);   /* -inf */
        if (hx < 0) return (x - x) / (x - x);        /* NaN */
        k -= 54;
        x *= 18014398509481984.0;                    /* subnormal: scale by 2^54 */
        b = olive_dbits(x);
        hx = (int32_t)(b >> 32);
    }
    if (hx >= 0x7ff00000) return x + x;              /* inf or NaN */
    k += (hx >> 20) - 1023;
    hx &= 0x000fffff;
    int32_t i = (hx + 0x95f64) & 0x100000;
    /* x or x/2 normalised into [sqrt(2)/2, sqrt(2)) */
    x = olive_bitsd(((uint64_t)(uint32_t)(hx | (i ^ 0x3ff00000)) << 32) | (b & 0xffffffffull));
    k += i >> 20;
    double f = x - 1.0, dk = (double)k;
    if ((0x000fffff & (2 + hx)) < 3) {               /* |f| < 2^-20 */
        if (f == 0.0) return k == 0 ? 0.0 : dk * OLIVE_LN2_HI + dk * OLIVE_LN2_LO;
        double R = f * f * (0.5 - 0.33333333333333333 * f);
        return k == 0 ? f - R : dk * OLIVE_LN2_HI - ((R - dk * OLIVE_LN2_LO) - f);
    }
    double s = f / (2.0 + f), z = s * s, w = z * z;
    int32_t j = 0x6b851 - hx;
    i = hx - 0x6147a;
    double t1 = w * (OLIVE_LG2 + w * (OLIVE_LG4 + w * OLIVE_LG6));
    double t2 = z * (OLIVE_LG1 + w * (OLIVE_LG3 + w * (OLIVE_LG5 + w * OLIVE_LG7)));
    double R = t2 + t1;
    if ((i | j) > 0) {
        double hfsq = 0.5 * f * f;
        return k == 0 ? f - (hfsq - s * (hfsq + R))
                      : dk * OLIVE_LN2_HI - ((hfsq - (s * (hfsq + R) + dk * OLIVE_LN2_LO)) - f);
    }
    return k == 0 ? f - s * (f - R) : dk * OLIVE_LN2_HI - ((s * (f - R) - dk * OLIVE_LN2_LO) - f);
}

/* log(1 + x), accurate for tiny x too (the rounding error of 1 + x is carried
 * as a correction term). */
OLIVE_HD double olive_log1p_d(double x)
{
    uint64_t b = olive_dbits(x);
    int32_t hx = (int32_t)(b >> 32), ax = hx & 0x7fffffff, hu = 0, k = 1;
    double f = 0, c = 0;
    if (hx < 0x3fda827a) {                           /* x < 0.41422 */
        if (ax >= 0x3ff00000) {                      /* x <= -1 (or NaN with the sign bit) */
            if (x == -1.0) return olive_bitsd(0xfff0000000000000ull);   /* -inf */
            return (x - x) / (x - x);                /* NaN */
        }
        if (ax < 0x3e200000) {                       /* |x| < 2^-29 */
            if (ax < 0x3c900000) return x;           /* |x| < 2^-54 */
            return x - x * x * 0.5;
        }
        if (hx > 0 || hx <= (int32_t)0xbfd2bec3) {   /* -0.2929 < x < 0.41422 */
            k = 0;
            f = x;
            hu = 1;
        }
    }
    if (hx >= 0x7ff00000) return x + x;              /* inf or NaN */
    if (k != 0) {
        double u;
        if (hx < 0x43400000) {
            u = 1.0 + x;
            hu = (int32_t)(olive_dbits(u) >> 32);
            k = (hu >> 20) - 1023;
            c = k > 0 ? 1.0 - (u - x) : x - (u - 1.0);    /* the rounding error of 1 + x */
            c /= u;
        } else {
            u = x;
            hu = (int32_t)(olive_dbits(u) >> 32);
            k = (hu >> 20) - 1023;
            c = 0;
        }
        hu &= 0x000fffff;
        uint64_t lo = olive_dbits(u) & 0xffffffffull;
        if (hu < 0x6a09e) {
            u = olive_bitsd(((uint64_t)(uint32_t)(hu | 0x3ff00000) << 32) | lo);   /* normalise u */
        } else {
            k += 1;
            u = olive_bitsd(((uint64_t)(uint32_t)(hu | 0x3fe00000) << 32) | lo);   /* normalise u/2 */
            hu = (0x00100000 - hu) >> 2;
        }
        f = u - 1.0;
    }
    double hfsq = 0.5 * f * f, dk = (double)k;
    if (hu == 0) {                                   /* |f| < 2^-20 */
        if (f == 0.0) return k == 0 ? 0.0 : dk * OLIVE_LN2_HI + (c + dk * OLIVE_LN2_LO);
        double R = hfsq * (1.0 - 0.66666666666666666 * f);
        return k == 0 ? f - R : dk * OLIVE_LN2_HI - ((R - (dk * OLIVE_LN2_LO + c)) - f);
    }
    double s = f / (2.0 + f), z = s * s;
    double R = z * (OLIVE_LG1 + z * (OLIVE_LG2 + z * (OLIVE_LG3 + z * (OLIVE_LG4 + z * (OLIVE_LG5 + z * (OLIVE_LG6 + z * OLIVE_LG7))))));
    return k == 0 ? f - (hfsq - s * (hfsq + R))
                  : dk * OLIVE_LN2_HI - ((hfsq - (s * (hfsq + R) + (dk * OLIVE_LN2_LO + c))) - f);
}

#endif
