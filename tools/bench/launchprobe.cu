/* olive-launchprobe: what a step's synchronisation costs on the GPU, apart from any model:
 * the microcircuit's step is latency-bound (~9.2 us a 0.1 ms step on the
 * H200, two kernels a step), so the question for a faster step loop is how
 * long the GPU takes from the end of one phase of a step to the start of
 * the next, by each way of ordering them (docs/MICROCIRCUIT.md):
 *   launch   kernels back to back on one stream, each launched by the host;
 *   pdl      the same with programmatic dependent launch (the next kernel
 *            starts while the last finishes; it waits in
 *            cudaGridDependencySynchronize), as olive's step loop launches;
 *   graph    the same kernels captured once in a CUDA graph and replayed;
 *   coop     one persistent cooperative kernel, a grid.sync() a phase;
 *   flag     one persistent kernel, a hand-made grid barrier a phase (one
 *            atomic add a block, then a spin on a generation word).
 * Every phase does the same small work: each thread adds its index into
 * one of N_CELLS doubles (a grid-stride loop), so that the phases are
 * real kernels of the microcircuit's size (77,169 cells), not empty ones.
 * (olive-loopprobe measures whole persistent steps of the microcircuit's
 * shape; this one the boundary between two phases, every way side by side.)
 * Usage: olive-launchprobe [PHASES] (default 20000); microseconds a phase. */
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define BENCH_NAME "olive-launchprobe"
#include "bench_cuda.h"

namespace cg = cooperative_groups;

#define N_CELLS 77169

__device__ __forceinline__ void phase_work(double *cells, int phase)
{
    const int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N_CELLS; i += stride) cells[i] += (double)(i + phase);
}

__global__ void k_phase(double *cells, int phase) { phase_work(cells, phase); }

__global__ void k_phase_pdl(double *cells, int phase)
{
    cudaGridDependencySynchronize();   /* the last phase's writes are visible from here */
    phase_work(cells, phase);
    cudaTriggerProgrammaticLaunchCompletion();
}

__global__ void k_coop(double *cells, int phases)
{
    cg::grid_group grid = cg::this_grid();
    for (int p = 0; p < phases; p++) {
        phase_work(cells, p);
        grid.sync();
    }
}

/* count: blocks arrived in this round; gen: rounds completed */
__global__ void k_flag(double *cells, int phases, unsigned int *count, volatile unsigned int *gen)
{
    for (int p = 0; p < phases; p++) {
        phase_work(cells, p);
        __syncthreads();
        if (threadIdx.x == 0) {
            const unsigned int g = *gen;
            __threadfence();
            if (atomicAdd(count, 1u) == gridDim.x - 1) {
                atomicExch(count, 0u);   /* (the others spin until gen moves) */
                __threadfence();
                *gen = g + 1;
            } else {
                while (*gen == g) { }
            }
            __threadfence();
        }
        __syncthreads();
    }
}

static float ms_of(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0;
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&ms, a, b));
    return ms;
}

int main(int argc, char **argv)
{
    const int phases = argc > 1 ? atoi(argv[1]) : 20000;
    if (phases < 100) { fprintf(stderr, "usage: %s [PHASES >= 100]\n", argv[0]); return 64; }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    const int sms = prop.multiProcessorCount;
    double *cells;
    unsigned int *bar;
    CK(cudaMalloc(&cells, N_CELLS * sizeof(double)));
    CK(cudaMalloc(&bar, 2 * sizeof(unsigned int)));
    CK(cudaMemset(cells, 0, N_CELLS * sizeof(double)));
    CK(cudaMemset(bar, 0, 2 * sizeof(unsigned int)));
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    printf("# %s, %d SMs; %d phases of %d cells each; microseconds a phase (best of 3)\n", prop.name, sms, phases, N_CELLS);
    printf("%-8s %8s %8s %12s\n", "way", "blocks", "threads", "us/phase");
    const int threads = 256;
    for (int per_sm = 1; per_sm <= 4; per_sm *= 2) {
        const int blocks = sms * per_sm;
        float best[5] = {1e30f, 1e30f, 1e30f, 1e30f, 1e30f};
        for (int rep = 0; rep < 3; rep++) {
            /* launch */
            CK(cudaEventRecord(e0, st));
            for (int p = 0; p < phases; p++) k_phase<<<blocks, threads, 0, st>>>(cells, p);
            CK(cudaGetLastError());
            CK(cudaEventRecord(e1, st));
            float t = ms_of(e0, e1);
            best[0] = t < best[0] ? t : best[0];
            /* pdl */
            cudaLaunchAttribute attr;
            attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
            attr.val.programmaticStreamSerializationAllowed = 1;
            cudaLaunchConfig_t cfg = {};
            cfg.gridDim = dim3(blocks);
            cfg.blockDim = dim3(threads);
            cfg.stream = st;
            cfg.attrs = &attr;
            cfg.numAttrs = 1;
            CK(cudaEventRecord(e0, st));
            for (int p = 0; p < phases; p++) CK(cudaLaunchKernelEx(&cfg, k_phase_pdl, cells, p));
            CK(cudaEventRecord(e1, st));
            t = ms_of(e0, e1);
            best[1] = t < best[1] ? t : best[1];
            /* graph: 100 phases captured, replayed phases / 100 times */
            cudaGraph_t g;
            cudaGraphExec_t ge;
            CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
            for (int p = 0; p < 100; p++) k_phase<<<blocks, threads, 0, st>>>(cells, p);
            CK(cudaStreamEndCapture(st, &g));
            CK(cudaGraphInstantiate(&ge, g, 0));
            CK(cudaGraphLaunch(ge, st));   /* (the first replay uploads the graph) */
            CK(cudaEventRecord(e0, st));
            for (int r = 0; r < phases / 100; r++) CK(cudaGraphLaunch(ge, st));
            CK(cudaEventRecord(e1, st));
            t = ms_of(e0, e1) * (float)phases / (float)(phases / 100 * 100);
            best[2] = t < best[2] ? t : best[2];
            CK(cudaGraphExecDestroy(ge));
            CK(cudaGraphDestroy(g));
            /* coop (where the grid fits at once) */
            int fit = 0;
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, k_coop, threads, 0));
            if (fit >= per_sm) {
                int ph = phases;
                void *args[] = {(void *)&cells, (void *)&ph};
                CK(cudaEventRecord(e0, st));
                CK(cudaLaunchCooperativeKernel((const void *)k_coop, dim3(blocks), dim3(threads), args, 0, st));
                CK(cudaEventRecord(e1, st));
                t = ms_of(e0, e1);
                best[3] = t < best[3] ? t : best[3];
            }
            /* flag (the same fit: every block must be resident, or the spin never ends) */
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, k_flag, threads, 0));
            if (fit >= per_sm) {
                CK(cudaMemsetAsync(bar, 0, 2 * sizeof(unsigned int), st));
                CK(cudaEventRecord(e0, st));
                k_flag<<<blocks, threads, 0, st>>>(cells, phases, bar, bar + 1);
                CK(cudaGetLastError());
                CK(cudaEventRecord(e1, st));
                t = ms_of(e0, e1);
                best[4] = t < best[4] ? t : best[4];
            }
        }
        const char *name[5] = {"launch", "pdl", "graph", "coop", "flag"};
        for (int w = 0; w < 5; w++)
            if (best[w] < 1e29f) printf("%-8s %8d %8d %12.3f\n", name[w], blocks, threads, 1e3 * best[w] / phases);
    }
    CK(cudaDeviceSynchronize());
    return 0;
}
