/* The fused delivery path of the CUDA spiking engine (spk_cuda.h): one rank,
 * many steps per kernel launch.
 *
 * On one rank every spike is a local one, so nothing needs the host between
 * steps but the output. One cooperative kernel runs a chunk of steps, each
 * step an update of every cell (the point model's cell functions), a grid
 * sync, and every target pulling its due events from a history of spike
 * flags through its incoming synapses, kept in the order the CPU engine adds
 * them: the same sums, bit for bit. The kernel is olive_plugin_fused
 * (spk_plugin_kernels.cu), linked with the model's functions as the other
 * point-model kernels are; this file builds its incoming lists and history
 * and launches it. Reading every synapse every step costs O(synapses) per
 * step, so this path is for small networks, where the push path's host
 * round trip per step dominates. */
#define OMPI_SKIP_MPICXX 1
#include <algorithm>
#include <stdlib.h>
#include <string.h>
#include <hdf5.h>
#include <mpi.h>
#include "rng.h"
#include "noise.h"
#include "spk_cuda.h"
#include "spk_fused_gpu.h"

/* Fused's own device state (g->fu). */
struct spk_fused_dev {
    int64_t *in_ptr;           /* per target: its incoming synapses */
    spk_in *in;
    unsigned char *hist;       /* H slots x n spike flags, slot step % H */
    int H;
    sim_pulse *pulses;
    int grid;                  /* co-resident blocks of the fused kernel */
    cudaKernel_t kernel;       /* olive_plugin_fused of the model's linked image */
};

static const int FUSED_BLOCK = 256;

/* The own cells' incoming synapses in pull order, from the per-source lists
 * (sources ascending, each list in (target, projection, index) order), then
 * stably by delay, longest first (the earliest spike step first). */
static void build_incoming(const struct sim_spk *k, int64_t n, int64_t N, int64_t **ptr_out, spk_in **in_out)
{
    int64_t *ptr = (int64_t *)olive_calloc((size_t)n + 1, sizeof(int64_t), "incoming synapses");
    for (int64_t e = 0; e < k->out_ptr[N]; e++) ptr[k->out[e].target + 1]++;
    for (int64_t r = 0; r < n; r++) ptr[r + 1] += ptr[r];
    int64_t *fill = (int64_t *)olive_calloc((size_t)n + 1, sizeof(int64_t), "incoming synapses");
    spk_in *in = (spk_in *)olive_malloc((size_t)k->out_ptr[N] * sizeof(spk_in) + sizeof(spk_in), "incoming synapses");
    for (int64_t g = 0; g < N; g++)
        for (int64_t e = k->out_ptr[g]; e < k->out_ptr[g + 1]; e++) {
            const spk_out *o = &k->out[e];
            in[ptr[o->target] + fill[o->target]++] = spk_in{(int32_t)g, k->out_delay[e], (uint8_t)o->receptor, 0, o->w};
        }
    free(fill);
    for (int64_t r = 0; r < n; r++)
        std::stable_sort(in + ptr[r], in + ptr[r + 1], [](const spk_in &x, const spk_in &y) { return x.delay > y.delay; });
    *ptr_out = ptr;
    *in_out = in;
}

void spk_fused_setup(sim_t *s, spk_cuda *g)
{
    struct sim_spk *k = s->spk;
    const sim_config *c = s->cfg;
    const int64_t n = g->n;
    int64_t *ptr;
    spk_in *in;
    g->fu = (spk_fused_dev *)olive_calloc(1, sizeof *g->fu, "CUDA engine");
    build_incoming(k, n, g->N, &ptr, &in);
    g->fu->in_ptr = dev_copy(ptr, (size_t)n + 1, "incoming synapses");
    g->fu->in = dev_copy(in, (size_t)ptr[n], "incoming synapses");
    free(ptr);
    free(in);
    g->fu->H = k->L + 1;
    g->fu->hist = dev_alloc<unsigned char>((size_t)g->fu->H * (size_t)n, "spike history");
    CK(cudaMemset(g->fu->hist, 0, (size_t)g->fu->H * (size_t)n));
    g->fu->pulses = dev_copy(c->stim.pulses, (size_t)c->stim.npulses, "pulses");
    g->poisson.in = dev_copy(k->poisson.in, (size_t)c->spiking.npoisson, "Poisson inputs");
    g->poisson.rec = dev_copy(k->poisson.rec, (size_t)c->spiking.npoisson, "Poisson inputs");
    spk_chunk_setup(s, g, INT64_C(16) << 20);   /* 128 MiB at most */
    int per_sm = 0, dev = 0, sms = 0, coop = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    if (!coop) olive_die("the CUDA device %d cannot launch cooperative kernels (the fused path needs them); "
                         "set OLIVE_GPU_DELIVERY=push", dev);
    g->fu->kernel = spk_plugin_cuda_fused_kernel(g);
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)g->fu->kernel, FUSED_BLOCK, 0));
    if (per_sm < 1) olive_die("internal: the fused kernel fits no block on a multiprocessor");
    const int64_t want = (32 * n + FUSED_BLOCK - 1) / FUSED_BLOCK;   /* a warp per cell at most */
    g->fu->grid = (int)std::max<int64_t>(1, std::min<int64_t>(want, (int64_t)per_sm * sms));
    olive_info("CUDA engine: fused delivery, chunks of up to %lld steps per launch, %d blocks of %d threads",
               (long long)spk_chunk_max(g), g->fu->grid, FUSED_BLOCK);
}

void spk_fused_steps(sim_t *s, spk_cuda *g, int64_t first, int64_t count)
{
    const sim_config *c = s->cfg;
    if (count < 1 || count > spk_chunk_max(g)) olive_die("internal: a fused chunk of %lld steps", (long long)count);
    const double t0 = olive_now();
    spk_fused_args a;
    a.c = spk_plugin_cuda_args(g, first, 0, nullptr, 1, 1);
    a.row0 = s->plan.row0;
    a.in_ptr = g->fu->in_ptr;
    a.in = g->fu->in;
    a.hist = g->fu->hist;
    a.H = g->fu->H;
    a.pulses = g->fu->pulses;
    a.npulses = c->stim.npulses;
    a.poisson = g->poisson.in;
    a.poisson_rec = g->poisson.rec;
    a.npoisson = c->spiking.npoisson;
    a.seed = c->run.seed;
    a.npoisson_events = g->poisson.count;
    a.rec0 = g->ge;
    a.rec1 = g->gi;
    a.rscale = g->rscale;
    void *args[] = {&a, &first, &count};
    CK(cudaLaunchCooperativeKernel((const void *)g->fu->kernel, dim3((unsigned)g->fu->grid), dim3(FUSED_BLOCK), args, 0,
                                   g->st));
    CK_LAUNCH(SPK_PLUGIN_KERNEL_FUSED);
    spk_chunk_collect(s, g, first, count);
    s->t.compute += olive_now() - t0;
}

void spk_fused_free(spk_cuda *g)
{
    if (!g->fu) return;
    void *d[] = {g->fu->in_ptr, g->fu->in, g->fu->hist, g->fu->pulses};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) CK(cudaFree(d[i]));
    free(g->fu);
    g->fu = nullptr;
}
