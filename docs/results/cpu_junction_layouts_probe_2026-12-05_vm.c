/* Probe (not olive's code; docs/results/cpu_junction_layouts_2026-12-05_vm.txt): the gap-junction pass of 4096 cells x ~100
 * symmetric junctions on one thread, olive's current form (A: a row's terms in a SIMD loop, 8 rows' sums by 8 x 8 blocks
 * turned around in registers) against three other layouts with the same sums bit for bit (checked at start):
 * B each pair's term once, the other row gathering its negative; E each pair's term stored into both its edges;
 * S SELL-8 (a lane a row). Also A's parts: the gathers and sums alone (C), the sums alone (D).
 *   gcc -std=c11 -D_GNU_SOURCE -O3 -march=x86-64-v4 -ffp-contract=off -fno-trapping-math -fopenmp-simd \
 *       -Icommon/math -Icommon/util -o pairs THIS.c -lm && ./pairs 400 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include "fastexp.h"
#define N 4096
#define HALF 50
#define L 8
typedef double V8 __attribute__((vector_size(64)));
typedef int64_t M8 __attribute__((vector_size(64)));
static inline double term(double w, double v)
{
    double f = 0.8 * olive_exp_nonpos_d((v * v) * (1.0 / -100.0)) + 0.2;
    return w * f * v;
}
static int64_t rp[N + 1], *pp;   /* CSR rows; pairs' first per row (i < j) */
static int32_t *col, *pidx, *pcol;
static double *vd, *tb, *pt, ic[N], ic2[N];
static const double w0 = 0.04;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static inline void add_block(V8 *a, const double *t, int64_t stride)
{
    V8 r[8], p[8], q[8], u[8];
    for (int l = 0; l < 8; l++) memcpy(&r[l], t + l * stride, sizeof(V8));
    for (int l = 0; l < 8; l += 2) {
        p[l] = __builtin_shuffle(r[l], r[l + 1], (M8){0, 8, 2, 10, 4, 12, 6, 14});
        p[l + 1] = __builtin_shuffle(r[l], r[l + 1], (M8){1, 9, 3, 11, 5, 13, 7, 15});
    }
    for (int l = 0; l < 8; l += 4)
        for (int k = 0; k < 2; k++) {
            q[l + k] = __builtin_shuffle(p[l + k], p[l + k + 2], (M8){0, 1, 8, 9, 4, 5, 12, 13});
            q[l + k + 2] = __builtin_shuffle(p[l + k], p[l + k + 2], (M8){2, 3, 10, 11, 6, 7, 14, 15});
        }
    for (int k = 0; k < 4; k++) {
        u[k] = __builtin_shuffle(q[k], q[k + 4], (M8){0, 1, 2, 3, 8, 9, 10, 11});
        u[k + 4] = __builtin_shuffle(q[k], q[k + 4], (M8){4, 5, 6, 7, 12, 13, 14, 15});
    }
    for (int k = 0; k < 8; k++) *a = *a + u[k];
}
#define STRIDE 256
/* the 8-row sums of rows g..g+7 from their terms in tb */
static inline void sums(int64_t g, const int64_t *n, double *out)
{
    int64_t maxn = 0;
    for (int l = 0; l < L; l++) maxn = n[l] > maxn ? n[l] : maxn;
    const int64_t nb = (maxn + 7) / 8 * 8;
    for (int l = 0; l < L; l++) for (int64_t j = n[l]; j < nb; j++) tb[l * STRIDE + j] = 0;
    V8 a = {0};
    for (int64_t j = 0; j < nb; j += 8) add_block(&a, tb + j, STRIDE);
    for (int l = 0; l < L; l++) out[g + l] = a[l];
}
__attribute__((noinline)) static void pass_a(void)
{
    for (int64_t g = 0; g < N; g += L) {
        int64_t n[L];
        for (int l = 0; l < L; l++) {
            const int64_t r = g + l, e0 = rp[r], m = rp[r + 1] - e0, nv = (m + 7) / 8 * 8;
            const double vi = vd[r];
            double *t = tb + l * STRIDE;
            const int32_t *c = col + e0;
#pragma omp simd
            for (int64_t j = 0; j < nv; j++) t[j] = term(w0, vi - vd[c[j]]);
            n[l] = m;
        }
        sums(g, n, ic);
    }
}
__attribute__((noinline)) static void pass_b1(void)
{
    /* each pair's term once, from its lower row */
    for (int64_t i = 0; i < N; i++) {
        const int64_t k0 = pp[i], m = pp[i + 1] - k0, nv = (m + 7) / 8 * 8;
        const double vi = vd[i];
        double *t = pt + k0;
        const int32_t *c = pcol + k0;
#pragma omp simd
        for (int64_t j = 0; j < nv; j++) t[j] = term(w0, vi - vd[c[j]]);
    }
}
__attribute__((noinline)) static void pass_b2(void)
{
    for (int64_t g = 0; g < N; g += L) {
        int64_t n[L];
        for (int l = 0; l < L; l++) {
            const int64_t r = g + l, e0 = rp[r], m = rp[r + 1] - e0, nv = (m + 7) / 8 * 8;
            double *t = tb + l * STRIDE;
            const int32_t *q = pidx + e0;
#pragma omp simd
            for (int64_t j = 0; j < nv; j++) {
                const int32_t x = q[j];
                uint64_t b;
                double y = pt[x & 0x7fffffff];
                memcpy(&b, &y, 8);
                b ^= (uint64_t)((uint32_t)x >> 31) << 63;
                memcpy(&y, &b, 8);
                t[j] = y;
            }
            n[l] = m;
        }
        sums(g, n, ic2);
    }
}
static void pass_b(void) { pass_b1(); pass_b2(); }
static double ic3[N], ic4[N], ic5[N], *T;
/* S: SELL-8: a group of 8 rows (perm: rows in each window of SIGMA sorted by length, longest first), each lane one
 * row, its j-th column at colS[gs[g] + 8 j + l] (padding: the row itself, a +0.0 term) */
#define SIGMA 64
static int32_t perm[N], *colS;
static int64_t gs[N / L + 1];
__attribute__((noinline)) static void pass_s(void)
{
    for (int64_t g = 0; g < N / L; g++) {
        const int32_t *c = colS + gs[g];
        const int64_t m = (gs[g + 1] - gs[g]) / L;
        double vi[L], acc[L];
        for (int l = 0; l < L; l++) { vi[l] = vd[perm[g * L + l]]; acc[l] = 0; }
        for (int64_t j = 0; j < m; j++) {
#pragma omp simd
            for (int l = 0; l < L; l++) acc[l] = acc[l] + term(w0, vi[l] - vd[c[j * L + l]]);
        }
        for (int l = 0; l < L; l++) ic5[perm[g * L + l]] = acc[l];
    }
}
static int32_t *eup, *edn;
__attribute__((noinline)) static void pass_e1(void)   /* each pair's term once, stored into both its edges */
{
    for (int64_t i = 0; i < N; i++) {
        const int64_t k0 = pp[i], m = pp[i + 1] - k0;
        const double vi = vd[i];
        const int32_t *c = pcol + k0, *d = edn + k0;
        double *up = T + eup[k0];   /* (a row's partners above it: the tail of its sorted columns) */
#pragma omp simd
        for (int64_t j = 0; j < m; j++) up[j] = term(w0, vi - vd[c[j]]);
        for (int64_t j = 0; j < m; j++) T[d[j]] = -up[j];
    }
}
__attribute__((noinline)) static void pass_e2(void)   /* the rows' sums of their edges' terms, read in order */
{
    for (int64_t g = 0; g < N; g += L) {
        int64_t n[L];
        for (int l = 0; l < L; l++) {
            const int64_t r = g + l, e0 = rp[r], m = rp[r + 1] - e0, nv = (m + 7) / 8 * 8;
            double *t = tb + l * STRIDE;
            const double *src = T + e0;
#pragma omp simd
            for (int64_t j = 0; j < nv; j++) t[j] = src[j];
            n[l] = m;
        }
        sums(g, n, ic4);
    }
}
__attribute__((noinline)) static void pass_c(void)   /* the row pass's gathers and sums alone */
{
    for (int64_t g = 0; g < N; g += L) {
        int64_t n[L];
        for (int l = 0; l < L; l++) {
            const int64_t r = g + l, e0 = rp[r], m = rp[r + 1] - e0, nv = (m + 7) / 8 * 8;
            double *t = tb + l * STRIDE;
            const int32_t *c = col + e0;
#pragma omp simd
            for (int64_t j = 0; j < nv; j++) t[j] = vd[c[j]];
            n[l] = m;
        }
        sums(g, n, ic3);
    }
}
__attribute__((noinline)) static void pass_d(void)   /* sums alone */
{
    for (int64_t g = 0; g < N; g += L) {
        int64_t n[L];
        for (int l = 0; l < L; l++) n[l] = rp[g + l + 1] - rp[g + l];
        sums(g, n, ic3);
    }
}
static uint64_t rs = 88172645463325252ULL;
static uint64_t rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }
static int cmp32(const void *a, const void *b) { return *(const int32_t *)a - *(const int32_t *)b; }
int main(int argc, char **argv)
{
    const int reps = argc > 1 ? atoi(argv[1]) : 400;
    /* symmetric adjacency: each cell picks HALF partners, both directions kept, duplicates dropped */
    int32_t *adj = malloc(sizeof(int32_t) * N * 4 * HALF);
    int cnt[N] = {0};
    int32_t (*lists)[4 * HALF] = (void *)adj;
    for (int i = 0; i < N; i++)
        for (int h = 0; h < HALF; h++) {
            int j = (int)(rnd() % N);
            if (j == i || cnt[i] >= 4 * HALF || cnt[j] >= 4 * HALF) continue;
            lists[i][cnt[i]++] = j;
            lists[j][cnt[j]++] = i;
        }
    int64_t E = 0;
    for (int i = 0; i < N; i++) {
        qsort(lists[i], cnt[i], 4, cmp32);
        int m = 0;
        for (int k = 0; k < cnt[i]; k++) if (!m || lists[i][k] != lists[i][m - 1]) lists[i][m++] = lists[i][k];
        cnt[i] = m;
        E += m;
    }
    col = aligned_alloc(64, sizeof(int32_t) * (E + 64));
    pidx = aligned_alloc(64, sizeof(int32_t) * (E + 64));
    pcol = aligned_alloc(64, sizeof(int32_t) * (E + 64));
    pt = aligned_alloc(64, sizeof(double) * (E + 64));
    pp = malloc(sizeof(int64_t) * (N + 1));
    vd = aligned_alloc(64, sizeof(double) * N);
    tb = aligned_alloc(64, sizeof(double) * STRIDE * L);
    memset(col, 0, sizeof(int32_t) * (E + 64)); memset(pidx, 0, sizeof(int32_t) * (E + 64)); memset(pcol, 0, sizeof(int32_t) * (E + 64));
    /* pairs (i < j) numbered row by row of the lower end */
    int64_t P = 0;
    rp[0] = 0;
    for (int i = 0; i < N; i++) {
        pp[i] = P;
        for (int k = 0; k < cnt[i]; k++) if (lists[i][k] > i) pcol[P++] = lists[i][k];
        rp[i + 1] = rp[i] + cnt[i];
        memcpy(col + rp[i], lists[i], 4 * cnt[i]);
    }
    pp[N] = P;
    for (int i = 0; i < N; i++)
        for (int k = 0; k < cnt[i]; k++) {
            const int j = lists[i][k];
            if (j > i) {   /* the pair's number: its place in row i's pairs */
                int64_t q = pp[i]; while (pcol[q] != j) q++;
                pidx[rp[i] + k] = (int32_t)q;
            } else {
                int64_t q = pp[j]; while (pcol[q] != i) q++;
                pidx[rp[i] + k] = (int32_t)(q | 0x80000000u);
            }
        }
    T = aligned_alloc(64, sizeof(double) * (E + 64));
    memset(T, 0, sizeof(double) * (E + 64));
    eup = aligned_alloc(64, sizeof(int32_t) * (P + 64));
    edn = aligned_alloc(64, sizeof(int32_t) * (P + 64));
    for (int i = 0; i < N; i++)
        for (int k = 0; k < cnt[i]; k++) {
            const int32_t x = pidx[rp[i] + k];
            if (x >= 0) eup[x] = (int32_t)(rp[i] + k);
            else edn[x & 0x7fffffff] = (int32_t)(rp[i] + k);
        }
    for (int i = 0; i < N; i++) perm[i] = i;
    for (int w = 0; w < N; w += SIGMA)   /* insertion sort of each window by length, longest first */
        for (int a = w + 1; a < w + SIGMA; a++)
            for (int b = a; b > w && cnt[perm[b]] > cnt[perm[b - 1]]; b--) { int x = perm[b]; perm[b] = perm[b - 1]; perm[b - 1] = x; }
    int64_t S = 0, pad = 0;
    for (int g = 0; g < N / L; g++) {
        gs[g] = S;
        int mx = 0;
        for (int l = 0; l < L; l++) mx = cnt[perm[g * L + l]] > mx ? cnt[perm[g * L + l]] : mx;
        S += (int64_t)mx * L;
    }
    gs[N / L] = S;
    colS = aligned_alloc(64, sizeof(int32_t) * (S + 64));
    for (int g = 0; g < N / L; g++) {
        const int64_t m = (gs[g + 1] - gs[g]) / L;
        for (int l = 0; l < L; l++) {
            const int r = perm[g * L + l];
            for (int64_t j = 0; j < m; j++) {
                colS[gs[g] + j * L + l] = j < cnt[r] ? col[rp[r] + j] : r;
                pad += j >= cnt[r];
            }
        }
    }
    printf("SELL-8, sigma %d: %lld padding entries (%.1f %%)\n", SIGMA, (long long)pad, 100.0 * pad / E);
    for (int i = 0; i < N; i++) vd[i] = -60.0 + 20.0 * (double)(rnd() % 1000000) / 1e6;
    printf("cells %d, junctions %lld (%.1f a cell), pairs %lld\n", N, (long long)E, (double)E / N, (long long)P);
    pass_a(); pass_b(); pass_e1(); pass_e2(); pass_s();
    for (int i = 0; i < N; i++) if (memcmp(&ic[i], &ic5[i], 8)) { printf("S differs at %d\n", i); break; }
    for (int i = 0; i < N; i++) if (memcmp(&ic[i], &ic4[i], 8)) { printf("E differs at %d\n", i); break; }
    int same = 1;
    for (int i = 0; i < N; i++) if (memcmp(&ic[i], &ic2[i], 8)) { same = 0; printf("differ at %d: %.17g %.17g\n", i, ic[i], ic2[i]); break; }
    printf("same bits: %s\n", same ? "yes" : "NO");
    for (int round = 0; round < 3; round++) {
        double t0 = now();
        for (int k = 0; k < reps; k++) { pass_a(); vd[k % N] += 1e-9; }
        double t1 = now();
        for (int k = 0; k < reps; k++) { pass_b(); vd[k % N] -= 1e-9; }
        double t2 = now();
        for (int k = 0; k < reps; k++) { pass_b1(); vd[k % N] -= 1e-9; }
        double t3 = now();
        for (int k = 0; k < reps; k++) { pass_b2(); vd[k % N] -= 1e-9; }
        double t4 = now(); (void)0;
        double t5 = now();
        for (int k = 0; k < reps; k++) { pass_c(); vd[k % N] -= 1e-9; }
        double t6 = now();
        for (int k = 0; k < reps; k++) { pass_d(); vd[k % N] -= 1e-9; }
        double t7 = now();
        for (int k = 0; k < reps; k++) { pass_e1(); vd[k % N] -= 1e-9; }
        double t8 = now();
        for (int k = 0; k < reps; k++) { pass_e2(); vd[k % N] -= 1e-9; }
        double t9 = now();
        double t10 = now();
        for (int k = 0; k < reps; k++) { pass_s(); vd[k % N] -= 1e-9; }
        double t11 = now();
        printf("   S (SELL-8, lanes = rows): %.3f ns a junction term\n", (t11 - t10) / reps / E * 1e9);
        printf("   E: pair pass with both stores %.3f ns, row pass %.3f ns, together %.3f ns a junction term\n", (t8 - t7) / reps / E * 1e9, (t9 - t8) / reps / E * 1e9, (t9 - t7) / reps / E * 1e9);
        printf("   gathers + sums %.3f ns, sums alone %.3f ns a junction term\n", (t6 - t5) / reps / E * 1e9, (t7 - t6) / reps / E * 1e9);
        printf("   B's pair pass %.3f ns, its row pass %.3f ns a junction term\n", (t3 - t2) / reps / E * 1e9, (t4 - t3) / reps / E * 1e9);
        printf("A %.3f ns a junction term, B %.3f ns (B/A %.3f)\n", (t1 - t0) / reps / E * 1e9, (t2 - t1) / reps / E * 1e9,
               (t2 - t1) / (t1 - t0));
    }
    return 0;
}
