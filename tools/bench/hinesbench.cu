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
    if (c < cells) olive_hines_solve(m, 1, parent, a, b, d + c * m, rhs + c * m);
}

__global__ void k_interleaved(int64_t cells, int m, const int *parent, const double *a, const double *b, double *d,
                              double *rhs)
{
    const int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (c < cells) olive_hines_solve(m, (long)cells, parent, a, b, d + c, rhs + c);
}

static uint64_t rng = 88172645463325252ULL;
static double urand(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
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
        const int m = (int)nodes_l[ni];
        int *parent = (int *)malloc((size_t)m * sizeof(int));
        double *a = (double *)malloc((size_t)m * 8), *b = (double *)malloc((size_t)m * 8);
        for (int i = 0; i < m; i++) {
            parent[i] = i == 0 ? -1 : (i % 8 == 0 ? (int)(urand() * i) : i - 1);
            a[i] = -(0.05 + urand());
            b[i] = -(0.05 + urand());
        }
        int *g_parent;
        double *g_a, *g_b;
        CK(cudaMalloc(&g_parent, (size_t)m * sizeof(int)));
        CK(cudaMalloc(&g_a, (size_t)m * 8));
        CK(cudaMalloc(&g_b, (size_t)m * 8));
        CK(cudaMemcpy(g_parent, parent, (size_t)m * sizeof(int), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(g_a, a, (size_t)m * 8, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(g_b, b, (size_t)m * 8, cudaMemcpyHostToDevice));
        for (int ci = 0; ci < nc; ci++) {
            const int64_t cells = cells_l[ci], tot = cells * m;
            double *d0 = (double *)malloc((size_t)tot * 8), *r0 = (double *)malloc((size_t)tot * 8);
            double *d = (double *)malloc((size_t)tot * 8), *r = (double *)malloc((size_t)tot * 8);
            double *ref = (double *)malloc((size_t)tot * 8), *back = (double *)malloc((size_t)tot * 8);
            for (int64_t c = 0; c < cells; c++)   /* flat: cell c's node i at c*m + i; dominant diagonals */
                for (int i = 0; i < m; i++) { d0[c * m + i] = 4 + urand(); r0[c * m + i] = urand() - 0.5; }
            double t_seq = 1e30, t_omp = 1e30, t_flat = 1e30, t_int = 1e30;
            for (int k = 0; k < reps; k++) {
                memcpy(d, d0, (size_t)tot * 8); memcpy(r, r0, (size_t)tot * 8);
                double t0 = now();
                for (int64_t c = 0; c < cells; c++) olive_hines_solve(m, 1, parent, a, b, d + c * m, r + c * m);
                t_seq = fmin(t_seq, now() - t0);
            }
            memcpy(ref, r, (size_t)tot * 8);
            for (int k = 0; k < reps; k++) {
                memcpy(d, d0, (size_t)tot * 8); memcpy(r, r0, (size_t)tot * 8);
                double t0 = now();
#pragma omp parallel for schedule(static)
                for (int64_t c = 0; c < cells; c++) olive_hines_solve(m, 1, parent, a, b, d + c * m, r + c * m);
                t_omp = fmin(t_omp, now() - t0);
            }
            int same = !memcmp(r, ref, (size_t)tot * 8);
            double *g_d0, *g_r0, *g_d, *g_r;
            CK(cudaMalloc(&g_d0, (size_t)tot * 8)); CK(cudaMalloc(&g_r0, (size_t)tot * 8));
            CK(cudaMalloc(&g_d, (size_t)tot * 8)); CK(cudaMalloc(&g_r, (size_t)tot * 8));
            cudaEvent_t e0, e1;
            CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
            const unsigned blocks = (unsigned)((cells + 127) / 128);
            for (int layout = 0; layout < 2; layout++) {
                if (layout == 0) {
                    CK(cudaMemcpy(g_d0, d0, (size_t)tot * 8, cudaMemcpyHostToDevice));
                    CK(cudaMemcpy(g_r0, r0, (size_t)tot * 8, cudaMemcpyHostToDevice));
                } else {   /* interleave: node i of cell c at i*cells + c */
                    for (int64_t c = 0; c < cells; c++)
                        for (int i = 0; i < m; i++) { d[i * cells + c] = d0[c * m + i]; r[i * cells + c] = r0[c * m + i]; }
                    CK(cudaMemcpy(g_d0, d, (size_t)tot * 8, cudaMemcpyHostToDevice));
                    CK(cudaMemcpy(g_r0, r, (size_t)tot * 8, cudaMemcpyHostToDevice));
                }
                for (int k = 0; k < reps; k++) {
                    CK(cudaMemcpy(g_d, g_d0, (size_t)tot * 8, cudaMemcpyDeviceToDevice));
                    CK(cudaMemcpy(g_r, g_r0, (size_t)tot * 8, cudaMemcpyDeviceToDevice));
                    CK(cudaEventRecord(e0));
                    if (layout == 0) k_flat<<<blocks, 128>>>(cells, m, g_parent, g_a, g_b, g_d, g_r);
                    else k_interleaved<<<blocks, 128>>>(cells, m, g_parent, g_a, g_b, g_d, g_r);
                    CK_LAUNCH("solve");
                    CK(cudaEventRecord(e1));
                    CK(cudaEventSynchronize(e1));
                    float ms = 0;
                    CK(cudaEventElapsedTime(&ms, e0, e1));
                    if (layout == 0) t_flat = fmin(t_flat, ms * 1e-3); else t_int = fmin(t_int, ms * 1e-3);
                }
                CK(cudaMemcpy(back, g_r, (size_t)tot * 8, cudaMemcpyDeviceToHost));
                if (layout == 0) same &= !memcmp(back, ref, (size_t)tot * 8);
                else
                    for (int64_t c = 0; c < cells && same; c++)
                        for (int i = 0; i < m; i++)
                            if (memcmp(&back[i * cells + c], &ref[c * m + i], 8)) { same = 0; break; }
            }
            bad |= !same;
            printf("%8lld %6d %12.4g %12.4g %12.4g %12.4g %8.2f %8.2f %8.2f %6s\n", (long long)cells, m, cells / t_seq,
                   cells / t_omp, cells / t_flat, cells / t_int, t_seq / t_omp, t_seq / t_flat, t_seq / t_int,
                   same ? "yes" : "NO");
            fflush(stdout);
            CK(cudaFree(g_d0)); CK(cudaFree(g_r0)); CK(cudaFree(g_d)); CK(cudaFree(g_r));
            CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
            free(d0); free(r0); free(d); free(r); free(ref); free(back);
        }
        CK(cudaFree(g_parent)); CK(cudaFree(g_a)); CK(cudaFree(g_b));
        free(parent); free(a); free(b);
    }
    if (bad) fprintf(stderr, "olive-hinesbench: a GPU result differs from the sequential CPU's\n");
    return bad;
}
