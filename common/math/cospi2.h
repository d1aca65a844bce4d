/* cos(2 pi u) for u in [0, 1) in plain IEEE arithmetic (+, -, *, / only),
 * host and device: the cosine of Box-Muller's normal draws (rng_normal.h).
 *
 * Why not libm: a procedural projection's normal weights and delays are
 * drawn on the CPU (olive-genconn, the CPU engine) and at each spike on the
 * GPU (the CUDA engine's synapses drawn on the fly), and must be the same
 * bits; glibc's cos and CUDA's differ in the last bit now and then. As
 * fastlog.h, this source compiled with -ffp-contract=off (gcc) and
 * -fmad=false (nvcc) rounds every operation identically everywhere.
 *
 * The reduction is exact in u itself: n = the nearest quarter turn, r = u -
 * n/4 in [-1/8, 1/8] (Sterbenz: u and n/4 are within a factor of 2, so the
 * subtraction is exact), x = 2 pi r in [-pi/4, pi/4] (one rounding), and
 * cos(2 pi u) = cos(x), -sin(x), -cos(x), sin(x) for n mod 4 = 0..3, with
 * the minimax polynomials of fdlibm's __kernel_cos and __kernel_sin (Sun
 * Microsystems, 1993: k_cos.c, k_sin.c). Accuracy: within 2e-16 of
 * cos(2 pi u) (tests/unit/test_fastlog.c). */
#ifndef OLIVE_COSPI2_H
#define OLIVE_COSPI2_H
#include "fastlog.h"

#define OLIVE_TWO_PI 6.28318530717958647692

/* cos(x) and sin(x) for |x| <= pi/4 */
OLIVE_HD double olive_kernel_cos(double x)
{
    const double z = x * x;
    const double r = z * (4.16666666666666019037e-02 +
                          z * (-1.38888888888741095749e-03 +
                               z * (2.48015872894767294178e-05 +
                                    z * (-2.75573143513906633035e-07 +
                                         z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))));
    const uint32_t ix = (uint32_t)(olive_dbits(x) >> 32) & 0x7fffffffu;
    if (ix < 0x3e400000u) return 1.0;                  /* |x| < 2^-27 */
    if (ix < 0x3fd33333u) return 1.0 - (0.5 * z - z * r);   /* |x| < 0.3 */
    /* 1 - z/2 in two parts, qx exact, for the rounding of the subtraction */
    const double qx = ix > 0x3fe90000u ? 0.28125 : olive_bitsd((uint64_t)(ix - 0x00200000u) << 32);
    const double hz = 0.5 * z - qx, a = 1.0 - qx;
    return a - (hz - z * r);
}

OLIVE_HD double olive_kernel_sin(double x)
{
    const uint32_t ix = (uint32_t)(olive_dbits(x) >> 32) & 0x7fffffffu;
    if (ix < 0x3e400000u) return x;                    /* |x| < 2^-27 */
    const double z = x * x, v = z * x;
    const double r = 8.33333333332248946124e-03 +
                     z * (-1.98412698298579493134e-04 +
                          z * (2.75573137070700676789e-06 + z * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10)));
    return x + v * (-1.66666666666666324348e-01 + z * r);
}

/* cos(2 pi u), u in [0, 1] */
OLIVE_HD double olive_cos2pi_d(double u)
{
    const int n = (int)(u * 4.0 + 0.5);               /* the nearest quarter turn, 0..4 */
    const double x = (u - 0.25 * (double)n) * OLIVE_TWO_PI;
    switch (n & 3) {
    case 0: return olive_kernel_cos(x);
    case 1: return -olive_kernel_sin(x);
    case 2: return -olive_kernel_cos(x);
    default: return olive_kernel_sin(x);
    }
}

/* cos(2 pi u) and sin(2 pi u), u in [0, 1], from one reduction (the cosine
 * the bits of olive_cos2pi_d): sin(x + n pi/2) = sin(x), cos(x), -sin(x),
 * -cos(x) for n mod 4 = 0..3. */
OLIVE_HD void olive_sincos2pi_d(double u, double *c, double *s)
{
    const int n = (int)(u * 4.0 + 0.5);
    const double x = (u - 0.25 * (double)n) * OLIVE_TWO_PI;
    const double kc = olive_kernel_cos(x), ks = olive_kernel_sin(x);
    switch (n & 3) {
    case 0: *c = kc; *s = ks; break;
    case 1: *c = -ks; *s = kc; break;
    case 2: *c = -kc; *s = -ks; break;
    default: *c = ks; *s = -kc; break;
    }
}

#endif
