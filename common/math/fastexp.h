/* exp in plain IEEE arithmetic (Cody-Waite reduction + a polynomial in fused
 * multiply-adds + exponent bits), for both precisions, host and device.
 *
 * Why not libm: (1) a loop calling libm's exp does not vectorise without
 * -ffast-math, and the model spends ~25 exponentials per cell and one per
 * junction; (2) the vector and scalar paths of a SIMD loop must give the same
 * bits, or results would depend on where a cell falls in a vector, i.e. on
 * the number of ranks; (3) the CUDA backend runs the very same operations.
 * The reduction and the polynomial are written with fma(), which is correctly rounded on every
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

/* exp(r) of the reduced argument, and the bits of kd, whose low bits hold
 * k + 1023 (the biased exponent of 2^k) with x = k ln2 + r: the part every
 * double exp below shares. The bias rides in the shift, so scaling by 2^k
 * is a shift of these bits, without an integer add a lane: the same k and r
 * as a shift of 1.5 * 2^52 alone: x times 1/ln 2 (a double whose odd part has
 * 52 bits; 24 for float) is never exactly half way between integers, so an
 * odd constant added to it cannot change which way it rounds
 * (tests/unit/test_fastexp.c checks k against the bare shift). */
OLIVE_HD double olive_exp_reduce_d(double x, int64_t *kbits)
{
    const double shift = 6755399441056767.0;          /* 1.5 * 2^52 + 1023: rounds to an integer */
    double kd = fma(x, 1.4426950408889634, shift);    /* k = round(x / ln 2) in the low bits */
    double k = kd - shift;
    double r = fma(-k, 6.93147180369123816490e-01, x);   /* ln 2, high part (k * it is exact) */
    r = fma(-k, 1.90821492927058770002e-10, r);           /* ln 2, low part */
    /* exp(r) = 1 + r + r^2 q(r), |r| <= ln2/2: q is a degree-9 Chebyshev fit on
     * [-0.35, 0.35] (mpmath; error 2e-17 relative to exp, 0.1 ulp). */
    double p = 2.5101335854788522e-08;
    p = fma(p, r, 2.7621324269313687e-07);
    p = fma(p, r, 2.7557266442353424e-06);
    p = fma(p, r, 2.4801518672268355e-05);
    p = fma(p, r, 0.00019841269864364933);
    p = fma(p, r, 0.0013888888918918907);
    p = fma(p, r, 0.008333333333329796);
    p = fma(p, r, 0.04166666666662068);
    p = fma(p, r, 0.16666666666666669);
    p = fma(p, r, 0.5000000000000001);
    p = fma(p, r, 1.0);
    p = fma(p, r, 1.0);
    memcpy(kbits, &kd, sizeof *kbits);
    return p;
}

/* 2^k, k + 1023 in the low bits of kbits */
OLIVE_HD double olive_exp_two_d(int64_t kbits)
{
    uint64_t sb = (uint64_t)kbits << 52;
    double s;
    memcpy(&s, &sb, sizeof s);
    return s;
}

/* p * 2^k, k + 1023 in the low bits of kbits */
OLIVE_HD double olive_exp_scale_d(double p, int64_t kbits)
{
    return p * olive_exp_two_d(kbits);
}

/* exp(x) for x in [-708, 709] or NaN (no clamping: the callers below). */
OLIVE_HD double olive_exp_inrange_d(double x)
{
    int64_t kb;
    double p = olive_exp_reduce_d(x, &kb);
    return olive_exp_scale_d(p, kb);
}

/* c + exp(x) for x in [-708, 709] or NaN, as one fused multiply-add
 * c + p * 2^k: the bits of c + olive_exp_inrange_d(x) (p * 2^k is exact
 * there: k >= -1021 and p > 0.7), one vector operation fewer (the cell
 * model's sigmoids 1/(1 + exp)). */
OLIVE_HD double olive_exp_inrange_plus_d(double x, double c)
{
    int64_t kb;
    double p = olive_exp_reduce_d(x, &kb);
    return fma(p, olive_exp_two_d(kb), c);
}

/* exp(x), arguments clamped to the finite range. */
OLIVE_HD double olive_exp_d(double x)
{
    x = x > 709.0 ? 709.0 : x;
    return olive_exp_inrange_d(x < -708.0 ? -708.0 : x);
}

/* exp(x) for x <= 0, for a caller that adds the result to a number far
 * above 2^-1000 (the gap-junction term's 0.8 exp(-V^2/100) + 0.2): for
 * x >= -708 the bits of olive_exp_d; below, where olive_exp_d gives exp(-708),
 * some positive number under 2^-1020 instead (k held at -1022 by an integer
 * max: for |x| < 2^51), which such a sum rounds away alike; -inf gives NaN.
 * The term runs once a junction, and the clamp of x had cost a compare and a
 * select in the vector loop (the IEEE ?: is not min/max): 4 % of a
 * 100-junction step on one thread (tests/unit/test_fastexp.c checks both
 * ranges). */
/* kbits with k held at -1022 or above (olive_exp_nonpos_d's hold) */
OLIVE_HD int64_t olive_exp_hold_d(int64_t kbits)
{
    const int64_t kb_min = 0x4338000000000000LL + 1;      /* kd's bits for k = -1022 */
    return kbits > kb_min ? kbits : kb_min;
}

OLIVE_HD double olive_exp_nonpos_d(double x)
{
    int64_t kb;
    double p = olive_exp_reduce_d(x, &kb);
    return olive_exp_scale_d(p, olive_exp_hold_d(kb));
}

/* c + exp(x) for x <= 0 as one fused multiply-add, k held as
 * olive_exp_nonpos_d holds it: the bits of c + olive_exp_nonpos_d(x) for
 * x >= -708 (p * 2^k exact), and for any x where |c| >= 2^-900 (the gap-
 * junction term's 0.8 exp(x) + 0.2 = exp(x + ln 0.8) + 0.2). */
OLIVE_HD double olive_exp_nonpos_plus_d(double x, double c)
{
    int64_t kb;
    double p = olive_exp_reduce_d(x, &kb);
    return fma(p, olive_exp_two_d(olive_exp_hold_d(kb)), c);
}

OLIVE_HD float olive_exp_reduce_f(float x, int32_t *kbits)
{
    const float shift = 12583039.0f;                  /* 1.5 * 2^23 + 127 (the bias, as for double) */
    float kf = fmaf(x, 1.44269504f, shift);
    float k = kf - shift;
    float r = fmaf(-k, 0.693145751953125f, x);        /* ln 2 high part, exact products */
    r = fmaf(-k, 1.428606765330187e-06f, r);
    /* exp(r) = 1 + r + r^2 q(r): q a degree-4 Chebyshev fit on [-0.35, 0.35]
     * (error 1.2e-8 relative to exp, 0.1 ulp). */
    float p = 0.001392691805594798f;
    p = fmaf(p, r, 0.008363767023287037f);
    p = fmaf(p, r, 0.0416665501627203f);
    p = fmaf(p, r, 0.1666657342385974f);
    p = fmaf(p, r, 0.5f);
    p = fmaf(p, r, 1.0f);
    p = fmaf(p, r, 1.0f);
    memcpy(kbits, &kf, sizeof *kbits);
    return p;
}

OLIVE_HD float olive_exp_two_f(int32_t kbits)
{
    uint32_t sb = (uint32_t)kbits << 23;
    float s;
    memcpy(&s, &sb, sizeof s);
    return s;
}

OLIVE_HD float olive_exp_scale_f(float p, int32_t kbits)
{
    return p * olive_exp_two_f(kbits);
}

OLIVE_HD float olive_exp_inrange_f(float x)
{
    int32_t kb;
    float p = olive_exp_reduce_f(x, &kb);
    return olive_exp_scale_f(p, kb);
}

OLIVE_HD float olive_exp_f(float x)
{
    x = x > 88.0f ? 88.0f : x;
    return olive_exp_inrange_f(x < -87.0f ? -87.0f : x);
}

/* exp(x) for x <= 0 (or NaN): the bits of olive_exp_f, one clamp fewer.
 * (Not olive_exp_nonpos_d's integer hold: float's k leaves the low bits of
 * kf past |x| = 2^22 ln2, a voltage difference of 17 V that single
 * precision, without the double's gate range, can meet in a cell that blows
 * up.) */
OLIVE_HD float olive_exp_nonpos_f(float x)
{
    return olive_exp_inrange_f(x < -87.0f ? -87.0f : x);
}

/* c + exp(x) for x <= 0 as one fused multiply-add (x clamped as
 * olive_exp_nonpos_f does): the bits of c + olive_exp_nonpos_f(x) where
 * |c| >= 2^-100. */
OLIVE_HD float olive_exp_nonpos_plus_f(float x, float c)
{
    x = x < -87.0f ? -87.0f : x;
    int32_t kb;
    float p = olive_exp_reduce_f(x, &kb);
    return fmaf(p, olive_exp_two_f(kb), c);
}

/* c + exp(x) as one fused multiply-add, x clamped as olive_exp_f does (the
 * lower clamp is olive_exp_nonpos_plus_f's): the bits of c + olive_exp_f(x)
 * wherever p * 2^k is a normal float (x > -87 + ln 2), and for any x where
 * |c| >= 2^-100. */
OLIVE_HD float olive_exp_plus_f(float x, float c)
{
    return olive_exp_nonpos_plus_f(x > 88.0f ? 88.0f : x, c);
}

#endif
