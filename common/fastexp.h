/* exp in plain IEEE arithmetic (Cody-Waite reduction + Taylor polynomial in
 * fused multiply-adds + exponent bits), for both precisions, host and device.
 *
 * Why not libm: (1) a loop calling libm's exp does not vectorise without
 * -ffast-math, and the model spends ~25 exponentials per cell and one per
 * junction; (2) the vector and scalar paths of a SIMD loop must give the same
 * bits, or results would depend on where a cell falls in a vector, i.e. on
 * the number of ranks; (3) the CUDA backend runs the very same operations.
 * The polynomial is written with fma(), which is correctly rounded on every
 * path (FMA instructions in the AVX2/AVX-512 clones and on the GPU, glibc's
 * exact fma elsewhere), so it halves the operations without changing the
 * bits from one path to another; plain a*b+c is never contracted (-ffp-contract=off).
 * Accuracy: within 1 ulp of glibc's exp over [-708, 709] (checked by
 * tests/unit/test_fastexp.c); the MODEL.md table is reproduced to 1e-12.
 * Arguments are clamped to the finite range; NaN propagates. */
#ifndef OLIVE_FASTEXP_H
#define OLIVE_FASTEXP_H
#include <stdint.h>
#include <string.h>
#include <math.h>
#include "hostdev.h"

OLIVE_HD double olive_exp_d(double x)
{
    x = x > 709.0 ? 709.0 : x;
    x = x < -708.0 ? -708.0 : x;
    const double shift = 6755399441055744.0;          /* 1.5 * 2^52: rounds to an integer */
    double kd = x * 1.4426950408889634 + shift;       /* k = round(x / ln 2) in the low bits */
    double k = kd - shift;
    double r = x - k * 6.93147180369123816490e-01;    /* ln 2, high part (k * it is exact) */
    r = r - k * 1.90821492927058770002e-10;           /* ln 2, low part */
    double p = 1.0 / 6227020800.0;                    /* Taylor to r^13, |r| <= ln2/2 */
    p = fma(p, r, 1.0 / 479001600.0);
    p = fma(p, r, 1.0 / 39916800.0);
    p = fma(p, r, 1.0 / 3628800.0);
    p = fma(p, r, 1.0 / 362880.0);
    p = fma(p, r, 1.0 / 40320.0);
    p = fma(p, r, 1.0 / 5040.0);
    p = fma(p, r, 1.0 / 720.0);
    p = fma(p, r, 1.0 / 120.0);
    p = fma(p, r, 1.0 / 24.0);
    p = fma(p, r, 1.0 / 6.0);
    p = fma(p, r, 0.5);
    p = fma(p, r, 1.0);
    p = fma(p, r, 1.0);
    uint64_t kb;
    memcpy(&kb, &kd, sizeof kb);
    uint64_t sb = (kb + 1023) << 52;                  /* 2^k: low bits of kd hold k */
    double s;
    memcpy(&s, &sb, sizeof s);
    return p * s;
}

OLIVE_HD float olive_exp_f(float x)
{
    x = x > 88.0f ? 88.0f : x;
    x = x < -87.0f ? -87.0f : x;
    const float shift = 12582912.0f;                  /* 1.5 * 2^23 */
    float kf = x * 1.44269504f + shift;
    float k = kf - shift;
    float r = x - k * 0.693145751953125f;             /* ln 2 high part, exact products */
    r = r - k * 1.428606765330187e-06f;
    float p = 1.0f / 5040.0f;                         /* Taylor to r^7 */
    p = fmaf(p, r, 1.0f / 720.0f);
    p = fmaf(p, r, 1.0f / 120.0f);
    p = fmaf(p, r, 1.0f / 24.0f);
    p = fmaf(p, r, 1.0f / 6.0f);
    p = fmaf(p, r, 0.5f);
    p = fmaf(p, r, 1.0f);
    p = fmaf(p, r, 1.0f);
    uint32_t kb;
    memcpy(&kb, &kf, sizeof kb);
    uint32_t sb = (kb + 127) << 23;
    float s;
    memcpy(&s, &sb, sizeof s);
    return p * s;
}

#endif
