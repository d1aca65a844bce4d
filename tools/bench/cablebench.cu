/* olive-cablebench: whole steps of many multi-compartment cells:
 * NEURON's fixed step (currents, Hines solve, hh states) of common/models/cable.h
 * for N independent ball-and-stick cells (hh soma, passive dendrite of
 * NSEG segments, an IClamp of a different amplitude per cell), 25 ms at
 * dt 0.025 ms: OpenMP over cells (flat layout), and one GPU thread per cell
 * with the flat and the full-interleaved layouts. Every cell's final state on
 * the GPU must equal the CPU's bit for bit, else the program fails. Without a
 * GPU, the CPU column only (scripts/bench_cable.sh compares it with NEURON).
 *
 *   olive-cablebench [--cells 2560,25600,256000] [--nseg 21] [--steps 1000] */
#include <cuda_runtime.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
extern "C" {
#include "util.h"
}
#include "bench_args.h"
#include "cable.h"
extern "C" {
#include "cable_cell.h"
}

#define BENCH_NAME "olive-cablebench"
#include "bench_cuda.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* steps of every cell; state arrays laid out with stride (1: flat, cell c's
 * block at c * per; cells: interleaved) */
__global__ void k_steps(olive_cable_shape s, olive_cable_state x, int64_t cells, int interleaved, int steps, double dt)
{
    const int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (c >= cells) return;
    olive_cable_state y = x;
    long cc = c, stride = cells;
    if (!interleaved) {   /* the cell's own blocks */
        y.v += c * s.n; y.m += c * s.n; y.h += c * s.n; y.n += c * s.n; y.d += c * s.n; y.rhs += c * s.n;
        y.syn_g += c * s.nsyn; y.clamp_amp += c * s.nclamps;
        cc = 0;
        stride = 1;
    }
    double t = 0;
    for (int k = 0; k < steps; k++) {
        olive_cable_cell_step(&s, &y, cc, stride, t, dt);
        t += .5 * dt;
        t += .5 * dt;
    }
}

template <class T> static T *dev(const T *h, size_t n)
{
    T *p;
    CK(cudaMalloc(&p, n * sizeof(T) + sizeof(T)));
    if (h) CK(cudaMemcpy(p, h, n * sizeof(T), cudaMemcpyHostToDevice));
    return p;
}

/* What every size's run shares: the prototype cell, its shape on the host
 * and (gpu) on the device. */
typedef struct {
    const olive_cable_cell *proto;
    const olive_section *sec;
    olive_cable_shape hs, ds;
    int n, gpu, steps;
    double dt;
} bench_ctx;

static olive_cable_shape shape_on_device(const olive_cable_shape *hs)
{
    const int n = hs->n;
    olive_cable_shape ds = *hs;
    ds.parent = dev(hs->parent, n); ds.mechs = dev(hs->mechs, n);
    ds.area = dev(hs->area, n); ds.cm = dev(hs->cm, n); ds.a = dev(hs->a, n); ds.b = dev(hs->b, n);
    ds.g_pas = dev(hs->g_pas, n); ds.e_pas = dev(hs->e_pas, n); ds.gnabar = dev(hs->gnabar, n); ds.gkbar = dev(hs->gkbar, n);
    ds.gl = dev(hs->gl, n); ds.el = dev(hs->el, n); ds.ena = dev(hs->ena, n); ds.ek = dev(hs->ek, n); ds.vt = dev(hs->vt, n);
    ds.clamps = dev(hs->clamps, hs->nclamps); ds.syn = dev(hs->syn, hs->nsyn);
    if (hs->hh_table) ds.hh_table = dev(hs->hh_table, 1);
    return ds;
}

/* The GPU's run of `cells` cells in one layout (0 flat, 1 interleaved) from
 * the device state g, syn, amp; its seconds; *same cleared where its v
 * differs from the CPU's (v, flat). */
static double gpu_run(const bench_ctx *b, double **g, double *syn, double *amp, int64_t cells, int layout,
                      const double *v, double *tmp, int *same)
{
    const int n = b->n;
    olive_cable_state x = {g[0], g[1], g[2], g[3], g[4], g[5], syn, amp, NULL, NULL, NULL};
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    CK(cudaEventRecord(e0));
    k_steps<<<(unsigned)((cells + 127) / 128), 128>>>(b->ds, x, cells, layout, b->steps, b->dt);
    CK(cudaGetLastError());
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
    CK(cudaMemcpy(tmp, g[0], (size_t)cells * n * 8, cudaMemcpyDeviceToHost));
    for (int64_t c = 0; c < cells && *same; c++)
        for (int i = 0; i < n; i++) {
            const double gv = layout ? tmp[i * cells + c] : tmp[c * n + i];
            if (memcmp(&gv, &v[c * n + i], 8)) { *same = 0; break; }
        }
    return ms * 1e-3;
}

/* One size: the CPU's run, the GPU's in both layouts from the same start,
 * a table row and the soma's final v; returns whether the GPU's v equal
 * the CPU's (1 without a GPU). */
static int bench_cells(const bench_ctx *b, int64_t cells)
{
    const int n = b->n, gpu = b->gpu, steps = b->steps;
    const double dt = b->dt;
    const int64_t tot = cells * n;
    /* flat host state: every cell from the prototype's initial state, amps varied */
    double *arr[6];
    const double *init[6] = {b->proto->v, b->proto->m, b->proto->h, b->proto->hn, b->proto->d, b->proto->rhs};
    for (int k = 0; k < 6; k++) {
        arr[k] = (double *)olive_malloc((size_t)tot * 8, "state");
        for (int64_t c = 0; c < cells; c++) memcpy(arr[k] + c * n, init[k], (size_t)n * 8);
    }
    double *syn_g = (double *)olive_calloc((size_t)cells, 8, "state"), *amp = (double *)olive_malloc((size_t)cells * 8, "state");
    for (int64_t c = 0; c < cells; c++) amp[c] = .1 + .2 * (double)(c % 1000) / 1000;
    /* device copies before the CPU run changes them: flat, then interleaved */
    double *g_flat[6] = {0}, *g_int[6] = {0}, *tmp = (double *)olive_malloc((size_t)tot * 8, "state");
    for (int k = 0; k < 6 && gpu; k++) {
        g_flat[k] = dev(arr[k], (size_t)tot);
        for (int64_t c = 0; c < cells; c++)
            for (int i = 0; i < n; i++) tmp[i * cells + c] = arr[k][c * n + i];
        g_int[k] = dev(tmp, (size_t)tot);
    }
    double *g_syn_f = 0, *g_amp_f = 0, *g_syn_i = 0, *g_amp_i = 0;
    if (gpu) { g_syn_f = dev(syn_g, cells); g_amp_f = dev(amp, cells); g_syn_i = dev(syn_g, cells); g_amp_i = dev(amp, cells); }
    double t0 = now();
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < cells; c++) {
        olive_cable_state y = {arr[0] + c * n, arr[1] + c * n, arr[2] + c * n, arr[3] + c * n, arr[4] + c * n,
                               arr[5] + c * n, syn_g + c, amp + c, NULL, NULL, NULL};   /* ExpSyn only: no A */
        double t = 0;
        for (int k = 0; k < steps; k++) {
            olive_cable_cell_step(&b->hs, &y, 0, 1, t, dt);
            t += .5 * dt;
            t += .5 * dt;
        }
    }
    const double t_cpu = now() - t0;
    double t_gpu[2] = {0, 0};
    int same = 1;
    if (gpu) {
        t_gpu[0] = gpu_run(b, g_flat, g_syn_f, g_amp_f, cells, 0, arr[0], tmp, &same);
        t_gpu[1] = gpu_run(b, g_int, g_syn_i, g_amp_i, cells, 1, arr[0], tmp, &same);
    }
    const double cs = (double)cells * steps;
    if (gpu)
        printf("%8lld %14.4g %14.4g %14.4g %10.2f %10.2f %6s\n", (long long)cells, cs / t_cpu, cs / t_gpu[0],
               cs / t_gpu[1], t_cpu / t_gpu[0], t_cpu / t_gpu[1], same ? "yes" : "NO");
    else
        printf("%8lld %14.4g %14s %14s %10s %10s %6s\n", (long long)cells, cs / t_cpu, "-", "-", "-", "-", "-");
    /* the soma's final potential of cells 0 and cells - 1, for outside checks */
    const int soma = olive_cable_node(b->proto, b->sec, 0, .5);
    printf("# soma v at %g ms: cell 0 %.17g, cell %lld %.17g\n", steps * dt, arr[0][soma], (long long)(cells - 1),
           arr[0][(cells - 1) * n + soma]);
    fflush(stdout);
    for (int k = 0; k < 6; k++) { free(arr[k]); if (gpu) { CK(cudaFree(g_flat[k])); CK(cudaFree(g_int[k])); } }
    if (gpu) { CK(cudaFree(g_syn_f)); CK(cudaFree(g_amp_f)); CK(cudaFree(g_syn_i)); CK(cudaFree(g_amp_i)); }
    free(syn_g); free(amp); free(tmp);
    return same;
}

int main(int argc, char **argv)
{
    olive_set_program("olive-cablebench");
    long cells_l[16] = {2560, 25600, 256000};
    int nc = 3, nseg = 21, steps = 1000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cells") && i + 1 < argc) nc = bench_parse_list("olive-cablebench", argv[++i], cells_l, 16);
        else if (!strcmp(argv[i], "--nseg") && i + 1 < argc) nseg = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
        else { fprintf(stderr, "usage: olive-cablebench [--cells A,B,..] [--nseg N] [--steps N]\n"); return 2; }
    }
    const double dt = .025;
    olive_section sec[2] = {olive_section_default("soma"), olive_section_default("dend")};
    sec[0].L = 20; sec[0].diam = 20; sec[0].mechs = OLIVE_MECH_HH;
    sec[1].L = 200; sec[1].diam = 1; sec[1].nseg = nseg; sec[1].Ra = 100; sec[1].mechs = OLIVE_MECH_PAS;
    sec[1].g_pas = .001; sec[1].e_pas = -65; sec[1].parent = 0;
    olive_cable_cell proto;
    olive_cable_build(&proto, sec, 2, 6.3);
    olive_cable_add_clamp(&proto, (olive_iclamp){olive_cable_node(&proto, sec, 0, .5), 1, 1e9, .2});
    olive_cable_add_syn(&proto, (olive_expsyn){olive_cable_node(&proto, sec, 1, .5), 2, 0, 0, 0, 0});
    olive_cable_init(&proto, -65);
    bench_ctx b = {&proto, sec, olive_cable_shape_of(&proto), {}, 0, 0, steps, dt};
    b.n = b.hs.n;
    int ndev = 0;
    b.gpu = cudaGetDeviceCount(&ndev) == cudaSuccess && ndev > 0;
    cudaGetLastError();   /* no device is an answer here, not an error */
    cudaDeviceProp prop;
    if (b.gpu) CK(cudaGetDeviceProperties(&prop, 0));
    printf("# olive-cablebench: %s, %d OpenMP threads; ball-and-stick cells of %d nodes (nseg %d), %d steps of %g ms\n",
           b.gpu ? prop.name : "no GPU", omp_get_max_threads(), b.n, nseg, steps, dt);
    printf("%8s %14s %14s %14s %10s %10s %6s\n", "cells", "cpu-cell-st/s", "flat-cell-st/s", "inter-cell-st/s", "flat-x",
           "inter-x", "same");
    b.ds = b.gpu ? shape_on_device(&b.hs) : b.hs;
    int bad = 0;
    for (int ci = 0; ci < nc; ci++) bad |= !bench_cells(&b, cells_l[ci]);
    olive_cable_free(&proto);
    if (bad) fprintf(stderr, "olive-cablebench: a GPU state differs from the CPU's\n");
    return bad;
}
