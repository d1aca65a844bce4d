/* Probe (not olive's code; docs/results/cpu_junction_table_exp_2026-12-06_vm-intel.txt): the InfOli junction term
 * w v (0.8 exp(-v^2/100) + 0.2) with olive's exp (fastexp.h: Cody-Waite, degree-11 polynomial; 19 vector operations
 * in its c + exp form), written twice (compiled from fastexp.h in an omp simd loop, and the same operations in
 * AVX-512 intrinsics: the same bits), against a 16-entry table exp (2^(j/16) by one permute, a degree-7
 * polynomial: 16 operations), over 4096 cells x 100 random partners (each partner's voltage gathered, the terms
 * stored). The question: how much of the one-core 100-junction gap to 5x Brian2 would a table exp close.
 *   gcc -std=c11 -D_GNU_SOURCE -O3 -march=native -ffp-contract=off -fno-trapping-math -fopenmp-simd \
 *       -Icommon/math -Icommon/util -o tx THIS.c -lm && ./tx 200 */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include "fastexp.h"
#define N 4096
#define K 100
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static double vd[N], *tb;
static int32_t *col;
static const double w0 = 0.04;
__attribute__((noinline)) static void pass_cur(void)
{
    for (int i = 0; i < N; i++) {
        const double vi = vd[i];
        const int32_t *c = col + (int64_t)i * K;
        double *t = tb + (int64_t)i * K;
#pragma omp simd
        for (int k = 0; k < K; k++) {
            double v = vi - vd[c[k]];
            double f = olive_exp_nonpos_plus_d(fma(v, v * (1.0 / -100.0), -0.2231435513142097), 0.2);
            t[k] = w0 * f * v;
        }
    }
}
/* v = vi - vd[c[0..8)], x = -v^2/100 + ln 0.8, kd = x / (ln2 / steps) + shift, the reduced argument r */
static inline __m512d vreduce(__m512d vi, const int32_t *c, __m512d m100, __m512d ln08, __m512d inv, __m512d shift,
                              __m512d l2h, __m512d l2l, __m512d *v, __m512d *kd)
{
    __m256i idx = _mm256_loadu_si256((const __m256i *)c);
    *v = _mm512_sub_pd(vi, _mm512_i32gather_pd(idx, vd, 8));
    __m512d x = _mm512_fmadd_pd(*v, _mm512_mul_pd(*v, m100), ln08);
    *kd = _mm512_fmadd_pd(x, inv, shift);
    __m512d kk = _mm512_sub_pd(*kd, shift);
    return _mm512_fmadd_pd(kk, l2l, _mm512_fmadd_pd(kk, l2h, x));
}
static double T16[16];
__attribute__((noinline)) static void pass_tab(void)
{
    const __m512d tlo = _mm512_loadu_pd(T16), thi = _mm512_loadu_pd(T16 + 8);
    const __m512d shift = _mm512_set1_pd(6755399441055744.0 + 1023.0 * 16);
    const __m512d inv = _mm512_set1_pd(16 / 0.69314718055994530942);
    const __m512d l2h = _mm512_set1_pd(-0.69314718055994530942 / 16), l2l = _mm512_set1_pd(-2.3190468138462996e-17 / 16);
    const __m512d c7 = _mm512_set1_pd(1.0 / 5040), c6 = _mm512_set1_pd(1.0 / 720), c5 = _mm512_set1_pd(1.0 / 120),
                  c4 = _mm512_set1_pd(1.0 / 24), c3 = _mm512_set1_pd(1.0 / 6), c2 = _mm512_set1_pd(0.5), one = _mm512_set1_pd(1.0);
    const __m512d m100 = _mm512_set1_pd(1.0 / -100.0), ln08 = _mm512_set1_pd(-0.2231435513142097), p2 = _mm512_set1_pd(0.2);
    const __m512d w = _mm512_set1_pd(w0);
    const __m512i kmin = _mm512_set1_epi64(0x4338000000000000LL + 16);   /* k held at -1022 or above, as olive_exp_hold_d */
    for (int i = 0; i < N; i++) {
        const __m512d vi = _mm512_set1_pd(vd[i]);
        const int32_t *c = col + (int64_t)i * K;
        double *t = tb + (int64_t)i * K;
        for (int k = 0; k + 8 <= K; k += 8) {
            __m512d v, kd;
            __m512d r = vreduce(vi, c + k, m100, ln08, inv, shift, l2h, l2l, &v, &kd);
            __m512d p = _mm512_fmadd_pd(c7, r, c6);
            p = _mm512_fmadd_pd(p, r, c5);
            p = _mm512_fmadd_pd(p, r, c4);
            p = _mm512_fmadd_pd(p, r, c3);
            p = _mm512_fmadd_pd(p, r, c2);
            p = _mm512_fmadd_pd(p, r, one);
            p = _mm512_fmadd_pd(p, r, one);
            __m512i kb = _mm512_castpd_si512(kd);
            __m512d tj = _mm512_permutex2var_pd(tlo, kb, thi);
            kb = _mm512_max_epi64(kb, kmin);
            __m512d s = _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_srli_epi64(kb, 4), 52));
            __m512d f = _mm512_fmadd_pd(_mm512_mul_pd(tj, s), p, p2);
            _mm512_storeu_pd(t + k, _mm512_mul_pd(_mm512_mul_pd(w, f), v));
        }
        for (int k = K / 8 * 8; k < K; k++) {   /* (the tail: olive's scalar form) */
            double v = vd[i] - vd[c[k]];
            t[k] = w0 * olive_exp_nonpos_plus_d(fma(v, v * (1.0 / -100.0), -0.2231435513142097), 0.2) * v;
        }
    }
}
__attribute__((noinline)) static void pass_curi(void)
{
    const __m512d shift = _mm512_set1_pd(6755399441056767.0);
    const __m512d inv = _mm512_set1_pd(1.4426950408889634);
    const __m512d l2h = _mm512_set1_pd(-6.93147180369123816490e-01), l2l = _mm512_set1_pd(-1.90821492927058770002e-10);
    static const double cf[12] = {2.5101335854788522e-08, 2.7621324269313687e-07, 2.7557266442353424e-06, 2.4801518672268355e-05,
        0.00019841269864364933, 0.0013888888918918907, 0.008333333333329796, 0.04166666666662068, 0.16666666666666669,
        0.5000000000000001, 1.0, 1.0};
    __m512d C[12];
    for (int q = 0; q < 12; q++) C[q] = _mm512_set1_pd(cf[q]);
    const __m512d m100 = _mm512_set1_pd(1.0 / -100.0), ln08 = _mm512_set1_pd(-0.2231435513142097), p2 = _mm512_set1_pd(0.2);
    const __m512d w = _mm512_set1_pd(w0);
    const __m512i kmin = _mm512_set1_epi64(0x4338000000000000LL + 1);
    for (int i = 0; i < N; i++) {
        const __m512d vi = _mm512_set1_pd(vd[i]);
        const int32_t *c = col + (int64_t)i * K;
        double *t = tb + (int64_t)i * K;
        for (int k = 0; k + 8 <= K; k += 8) {
            __m512d v, kd;
            __m512d r = vreduce(vi, c + k, m100, ln08, inv, shift, l2h, l2l, &v, &kd);
            __m512d p = C[0];
            for (int q = 1; q < 12; q++) p = _mm512_fmadd_pd(p, r, C[q]);
            __m512i kb = _mm512_max_epi64(_mm512_castpd_si512(kd), kmin);
            __m512d s = _mm512_castsi512_pd(_mm512_slli_epi64(kb, 52));
            __m512d f = _mm512_fmadd_pd(p, s, p2);
            _mm512_storeu_pd(t + k, _mm512_mul_pd(_mm512_mul_pd(w, f), v));
        }
        for (int k = K / 8 * 8; k < K; k++) {
            double v = vd[i] - vd[c[k]];
            t[k] = w0 * olive_exp_nonpos_plus_d(fma(v, v * (1.0 / -100.0), -0.2231435513142097), 0.2) * v;
        }
    }
}
int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 200;
    srand(1);
    for (int i = 0; i < N; i++) vd[i] = -70 + 30.0 * rand() / RAND_MAX;
    col = malloc(sizeof *col * N * K);
    tb = aligned_alloc(64, sizeof *tb * N * K);
    double *ref = malloc(sizeof *ref * N * K);
    for (int64_t e = 0; e < (int64_t)N * K; e++) col[e] = rand() % N;
    for (int j = 0; j < 16; j++) T16[j] = exp2(j / 16.0);
    pass_cur(); memcpy(ref, tb, sizeof *ref * N * K);
    pass_curi();
    long dci = 0;
    for (int64_t e = 0; e < (int64_t)N * K; e++) dci += ref[e] != tb[e];
    printf("olive's exp by intrinsics vs compiled: %ld terms differ\n", dci);
    pass_tab();
    double maxrel = 0; long diff = 0;
    for (int64_t e = 0; e < (int64_t)N * K; e++) {
        if (ref[e] != tb[e]) diff++;
        double d = fabs(ref[e] - tb[e]) / (fabs(ref[e]) + 1e-300);
        if (d > maxrel) maxrel = d;
    }
    printf("table vs olive's exp: %ld of %d terms differ, max relative %.3g\n", diff, N * K, maxrel);
    for (int round = 0; round < 3; round++) {
        double t0 = now(); for (int r = 0; r < reps; r++) pass_cur(); double a = now() - t0;
        t0 = now(); for (int r = 0; r < reps; r++) pass_curi(); double ci = now() - t0;
        t0 = now(); for (int r = 0; r < reps; r++) pass_tab(); double b = now() - t0;
        printf("round %d: olive's exp (compiled) %.3f, olive's exp (intrinsics) %.3f, table exp %.3f ns a term (intrinsics/table %.3fx)\n", round,
               a / reps / N / K * 1e9, ci / reps / N / K * 1e9, b / reps / N / K * 1e9, ci / b);
    }
    return 0;
}
