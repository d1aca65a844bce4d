/* olive-hinesbench: throughput of the Hines solve of many cells at once
 * the cuHinesBatch thesis' experiment (Martinez Perez 2018, docs/REFERENCES.md):
 * sequential CPU, multicore CPU (OpenMP), and one GPU thread per cell with
 * the flat layout (cell by cell) and the full-interleaved one (node by node,
 * cells side by side: coalesced). Every path runs olive_hines_solve of
 * common/models/cable.h, the solver of the simulations, and every GPU result must
 * equal the sequential CPU's bit for bit (same operations, same order,
 * -fmad=false), else the program fails.
 *
 *   olive-hinesbench [--cells 256,2560,25600,256000] [--nodes 64,128,256,512] [--reps 5]
 *
 * The cells share one morphology (a trunk with a branch every 8 nodes, fixed
 * seed), so a and b are per node; d and rhs are per cell and node, random. */
#include <cuda_runtime.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_args.h"
#include "cable.h"

#define BENCH_NAME "olive-hinesbench"
#include "bench_cuda.h"
#define CK_LAUNCH(w) CK(cudaGetLastError())

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

__global__ void k_flat(int64_t cells, int m, const int *parent, const double *a, const double *b, double *d, double *rhs)
{
    const int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (c < cells) olive_hines_solve(m, 1, 1, parent, a, b, d + c * m, rhs + c * m);
}

__global__ void k_interleaved(int64_t cells, int m, const int *parent, const double *a, const double *b, double *d,
                              double *rhs)
{
    const int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (c < cells) olive_hines_solve(m, (long)cells, 1, parent, a, b, d + c, rhs + c);
}

static uint64_t rng = 88172645463325252ULL;
static double urand(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* One morphology of m nodes (a trunk with a branch every 8 nodes), on the
 * host and the device. */
typedef struct {
    int m;
    int *parent, *g_parent;
    double *a, *b, *g_a, *g_b;
} tree;

static void tree_make(tree *t, int m)
{
    t->m = m;
    t->parent = (int *)malloc((size_t)m * sizeof(int));
    t->a = (double *)malloc((size_t)m * 8);
    t->b = (double *)malloc((size_t)m * 8);
    for (int i = 0; i < m; i++) {
        t->parent[i] = i == 0 ? -1 : (i % 8 == 0 ? (int)(urand() * i) : i - 1);
        t->a[i] = -(0.05 + urand());
        t->b[i] = -(0.05 + urand());
    }
    CK(cudaMalloc(&t->g_parent, (size_t)m * sizeof(int)));
    CK(cudaMalloc(&t->g_a, (size_t)m * 8));
    CK(cudaMalloc(&t->g_b, (size_t)m * 8));
    CK(cudaMemcpy(t->g_parent, t->parent, (size_t)m * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(t->g_a, t->a, (size_t)m * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(t->g_b, t->b, (size_t)m * 8, cudaMemcpyHostToDevice));
}

static void tree_free(tree *t)
{
    CK(cudaFree(t->g_parent)); CK(cudaFree(t->g_a)); CK(cudaFree(t->g_b));
    free(t->parent); free(t->a); free(t->b);
}

/* The GPU's solves of `cells` systems (d0, r0, flat) in one layout (0 flat,
 * 1 interleaved), best of reps; *same cleared where a result differs from
 * ref (the sequential CPU's, flat). d, r, back: host scratch of the size. */
static double gpu_solves(const tree *t, int64_t cells, int layout, int reps, const double *d0, const double *r0,
                         const double *ref, double *d, double *r, double *back, int *same)
{
    const int m = t->m;
    const int64_t tot = cells * m;
    double *g_d0, *g_r0, *g_d, *g_r;
    CK(cudaMalloc(&g_d0, (size_t)tot * 8)); CK(cudaMalloc(&g_r0, (size_t)tot * 8));
    CK(cudaMalloc(&g_d, (size_t)tot * 8)); CK(cudaMalloc(&g_r, (size_t)tot * 8));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    const unsigned blocks = (unsigned)((cells + 127) / 128);
    if (layout == 0) {
        CK(cudaMemcpy(g_d0, d0, (size_t)tot * 8, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(g_r0, r0, (size_t)tot * 8, cudaMemcpyHostToDevice));
    } else {   /* interleave: node i of cell c at i*cells + c */
        for (int64_t c = 0; c < cells; c++)
            for (int i = 0; i < m; i++) { d[i * cells + c] = d0[c * m + i]; r[i * cells + c] = r0[c * m + i]; }
        CK(cudaMemcpy(g_d0, d, (size_t)tot * 8, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(g_r0, r, (size_t)tot * 8, cudaMemcpyHostToDevice));
    }
    double best = 1e30;
    for (int k = 0; k < reps; k++) {
        CK(cudaMemcpy(g_d, g_d0, (size_t)tot * 8, cudaMemcpyDeviceToDevice));
        CK(cudaMemcpy(g_r, g_r0, (size_t)tot * 8, cudaMemcpyDeviceToDevice));
        CK(cudaEventRecord(e0));
        if (layout == 0) k_flat<<<blocks, 128>>>(cells, m, t->g_parent, t->g_a, t->g_b, g_d, g_r);
        else k_interleaved<<<blocks, 128>>>(cells, m, t->g_parent, t->g_a, t->g_b, g_d, g_r);
        CK_LAUNCH("solve");
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        best = fmin(best, ms * 1e-3);
    }
    CK(cudaMemcpy(back, g_r, (size_t)tot * 8, cudaMemcpyDeviceToHost));
    if (layout == 0) *same &= !memcmp(back, ref, (size_t)tot * 8);
    else
        for (int64_t c = 0; c < cells && *same; c++)
            for (int i = 0; i < m; i++)
                if (memcmp(&back[i * cells + c], &ref[c * m + i], 8)) { *same = 0; break; }
    CK(cudaFree(g_d0)); CK(cudaFree(g_r0)); CK(cudaFree(g_d)); CK(cudaFree(g_r));
    CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
    return best;
}

/* One size on tree t: sequential, OpenMP and the two GPU layouts, a table
 * row; returns whether every result equals the sequential CPU's. */
static int bench_size(const tree *t, int64_t cells, int reps)
{
    const int m = t->m;
    const int64_t tot = cells * m;
    double *d0 = (double *)malloc((size_t)tot * 8), *r0 = (double *)malloc((size_t)tot * 8);
    double *d = (double *)malloc((size_t)tot * 8), *r = (double *)malloc((size_t)tot * 8);
    double *ref = (double *)malloc((size_t)tot * 8), *back = (double *)malloc((size_t)tot * 8);
    for (int64_t c = 0; c < cells; c++)   /* flat: cell c's node i at c*m + i; dominant diagonals */
        for (int i = 0; i < m; i++) { d0[c * m + i] = 4 + urand(); r0[c * m + i] = urand() - 0.5; }
    double t_seq = 1e30, t_omp = 1e30;
    for (int k = 0; k < reps; k++) {
        memcpy(d, d0, (size_t)tot * 8); memcpy(r, r0, (size_t)tot * 8);
        double t0 = now();
        for (int64_t c = 0; c < cells; c++) olive_hines_solve(m, 1, 1, t->parent, t->a, t->b, d + c * m, r + c * m);
        t_seq = fmin(t_seq, now() - t0);
    }
    memcpy(ref, r, (size_t)tot * 8);
    for (int k = 0; k < reps; k++) {
        memcpy(d, d0, (size_t)tot * 8); memcpy(r, r0, (size_t)tot * 8);
        double t0 = now();
#pragma omp parallel for schedule(static)
        for (int64_t c = 0; c < cells; c++) olive_hines_solve(m, 1, 1, t->parent, t->a, t->b, d + c * m, r + c * m);
        t_omp = fmin(t_omp, now() - t0);
    }
    int same = !memcmp(r, ref, (size_t)tot * 8);
    const double t_flat = gpu_solves(t, cells, 0, reps, d0, r0, ref, d, r, back, &same);
    const double t_int = gpu_solves(t, cells, 1, reps, d0, r0, ref, d, r, back, &same);
    printf("%8lld %6d %12.4g %12.4g %12.4g %12.4g %8.2f %8.2f %8.2f %6s\n", (long long)cells, m, cells / t_seq,
           cells / t_omp, cells / t_flat, cells / t_int, t_seq / t_omp, t_seq / t_flat, t_seq / t_int,
           same ? "yes" : "NO");
    fflush(stdout);
    free(d0); free(r0); free(d); free(r); free(ref); free(back);
    return same;
}

int main(int argc, char **argv)
{
    long cells_l[16] = {256, 2560, 25600, 256000}, nodes_l[16] = {64, 128, 256, 512};
    int nc = 4, nn = 4, reps = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cells") && i + 1 < argc) nc = bench_parse_list("olive-hinesbench", argv[++i], cells_l, 16);
        else if (!strcmp(argv[i], "--nodes") && i + 1 < argc) nn = bench_parse_list("olive-hinesbench", argv[++i], nodes_l, 16);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else { fprintf(stderr, "usage: olive-hinesbench [--cells A,B,..] [--nodes A,B,..] [--reps N]\n"); return 2; }
    }
    if (reps < 1) reps = 1;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("# olive-hinesbench: %s, %d OpenMP threads, double precision, best of %d\n", prop.name, omp_get_max_threads(), reps);
    printf("# systems/s = cells solved per second; speed-up over the sequential CPU\n");
    printf("%8s %6s %12s %12s %12s %12s %8s %8s %8s %6s\n", "cells", "nodes", "seq-sys/s", "omp-sys/s", "flat-sys/s",
           "inter-sys/s", "omp-x", "flat-x", "inter-x", "same");
    int bad = 0;
    for (int ni = 0; ni < nn; ni++) {
        tree t;
        tree_make(&t, (int)nodes_l[ni]);
        for (int ci = 0; ci < nc; ci++) bad |= !bench_size(&t, cells_l[ci], reps);
        tree_free(&t);
    }
    if (bad) fprintf(stderr, "olive-hinesbench: a GPU result differs from the sequential CPU's\n");
    return bad;
}
