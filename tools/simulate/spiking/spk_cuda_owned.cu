/* Device push's owned form (issue 58): a chunk of steps in one cooperative
 * launch, each block owning its cells' sums.
 *
 * Why: device push's order-free step (sb_atomic) is two kernels, the model's
 * pass and the events' atomics into a 72 MB ring past the L2, with a launch
 * boundary between steps; a probe of this shape (tools/bench/loopprobe.cu
 * `owned`, docs/MICROCIRCUIT.md) stepped the microcircuit's synapses in
 * 5.7 us where the ring's resident loop took 7.2.
 *
 * How: one block an SM, SPK_OWNED_THREADS threads, block b owning cells
 * b x PB .. + PB (a thread each). At set-up each source's synapses are put
 * in groups by the block owning their target (goff: where each group
 * starts), their weights as integers in units of 2^-bits (--order-free-sums
 * makes every weight one, so every sum is exact in any order, as the ring's
 * doubles are). Each step the block reads only its groups of the step
 * before's spikes and adds them in SHARED memory, into a window of its
 * cells' sums of the next W due steps; events due later wait in the block's
 * queue of their due step in global memory (its count in shared memory;
 * past its room, in the ring) and join the window when their step enters
 * it. Then each thread takes its cell's due sums and Poisson amounts
 * (drawn ahead, as device push's), the step before's onCondition body and
 * this step's update, in the order of device push's FREE pass; one grid
 * barrier a step. No event touches another block's memory.
 *
 * Between chunks the ring is device push's, with every sum due later in
 * its slot and the last step's tail done: the kernel takes the ring's sums
 * into its window as their steps enter it and gives the window and queues
 * back at the chunk's end. So restarts, checkpoints and the host's reads
 * see one form, and the spikes and state are device push's, bit for bit
 * (scripts/gpu-validate-spiking.sh's owned checks).
 *
 * Takes: one rank, a point model, --order-free-sums with no delay of 0
 * steps and no plastic synapses (sb_atomic), the Poisson inputs drawn ahead
 * or none, no pulse current (the host passes it a step at a time), no spike
 * sources, at most SPK_OWNED_THREADS cells a block and a window of at least
 * two steps in shared memory. OLIVE_GPU_OWNED=0 off, 1 on where it can run,
 * 2 the same with each step's cell steps before its sends and no block
 * barrier between (off unless set, until measured against device push on a
 * GPU). */
#define OMPI_SKIP_MPICXX 1
#include <algorithm>
#include <hdf5.h>
#include <mpi.h>
#include "spk_cuda.h"

struct spk_owned_dev {
    cudaKernel_t kernel;
    unsigned blocks, threads;
    size_t smem;
    spk_owned_args a;          /* the chunk's arguments but its steps and Poisson amounts */
};

/* Source c's synapses (one block a source) regrouped by the block owning
 * their target, in place of their order in device push's list: goff the
 * groups' starts, gw the weights in units of 2^-bits, gmeta the target's
 * place in its block, receptor and delay. */
__global__ void k_owned_group(int64_t N, const int64_t *out_ptr, const spk_out *out, const uint16_t *out_delay,
                              uint32_t PB, uint32_t B, int bits, uint32_t *goff, long long *gw, uint32_t *gmeta)
{
    extern __shared__ uint32_t at[];   /* B + 1 */
    for (int64_t c = blockIdx.x; c < N; c += gridDim.x) {
        const int64_t e0 = out_ptr[c], e1 = out_ptr[c + 1];
        for (uint32_t x = threadIdx.x; x <= B; x += blockDim.x) at[x] = 0;
        __syncthreads();
        for (int64_t e = e0 + threadIdx.x; e < e1; e += blockDim.x) atomicAdd(&at[(uint32_t)out[e].target / PB], 1u);
        __syncthreads();
        if (threadIdx.x == 0) {
            uint32_t sum = 0;
            for (uint32_t x = 0; x <= B; x++) {
                const uint32_t m = at[x];
                at[x] = sum;
                goff[(size_t)c * (B + 1) + x] = sum;
                sum += m;
            }
        }
        __syncthreads();
        for (int64_t e = e0 + threadIdx.x; e < e1; e += blockDim.x) {
            const spk_out y = out[e];
            const uint32_t blk = (uint32_t)y.target / PB, p = atomicAdd(&at[blk], 1u);
            gw[e0 + p] = owned_fixed(y.w, bits);   /* (exact: y.w is a multiple of 2^-bits) */
            gmeta[e0 + p] = ((uint32_t)y.target - blk * PB) | (uint32_t)(y.receptor != 0) << 10 | (uint32_t)out_delay[e] << 11;
        }
        __syncthreads();
    }
}

/* Why the owned form cannot take this run, or NULL. */
static const char *owned_unfit(const sim_t *s, const spk_cuda *g)
{
    const struct sim_spk *k = s->spk;
    if (!g->pass.sb_atomic) return "it adds the events of --order-free-sums with no delay of 0 steps and no plastic synapses";
    if (!g->plugin) return "it steps point models";
    if (!g->pass.plugin_free) return "the Poisson inputs are not drawn ahead";
    if (s->cfg->stim.npulses > 0) return "a pulse current is passed a step at a time";
    if (k->sources.n) return "spike sources fire in the push strategies' update only";
    if (k->L >= (INT64_C(1) << 21)) return "its delays do not fit its synapses' 21 bits";
    if (spk_env_digit("OLIVE_GPU_NEG0", 0, 1) == 0) return "OLIVE_GPU_NEG0=0: its ring's empty slots are -0.0";
    return NULL;
}

void spk_owned_setup(sim_t *s, spk_cuda *g)
{
    const int on = spk_env_digit("OLIVE_GPU_OWNED", 0, 2);
    if (on < 1) return;   /* (off unless asked for: not measured on a GPU yet) */
    const char *why = owned_unfit(s, g);
    const struct sim_spk *k = s->spk;
    const int64_t n = g->n, N = g->N, nsyn = k->nsyn;
    int dev = 0, sms = 0, coop = 0, optin = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    const uint32_t B = (uint32_t)sms, PB = (uint32_t)((n + B - 1) / B > 0 ? (n + B - 1) / B : 1);
    const int L = (int)k->L, NW = (int)(PB + 31) / 32, SL = owned_queue_slots(L);
    /* the window: as many due steps as shared memory holds beside the queues' counts */
    const int W = owned_window((int64_t)optin - 8 * SL - 1024, (int)PB, L);
    if (!why && !coop) why = "the device cannot launch cooperative kernels";
    if (!why && PB > SPK_OWNED_THREADS) why = "more cells than a block of threads an SM";
    if (!why && W < 2) why = "a window of two due steps does not fit a block's shared memory";
    const size_t smem = (size_t)W * 2 * PB * 8 + (size_t)W * NW * 4 + (size_t)SL * 8;
    /* OLIVE_GPU_OWNED_FEW=1: blocks of 768 threads where the cells fit (85
     * registers a thread, not 64: the model's step spilled; not measured yet) */
    const int few = PB <= SPK_OWNED_THREADS_FEW && spk_env_digit("OLIVE_GPU_OWNED_FEW", 0, 1) == 1;
    const unsigned threads = few ? SPK_OWNED_THREADS_FEW : SPK_OWNED_THREADS;
    cudaKernel_t kern = spk_plugin_cuda_owned_kernel(g, few);
    int per_sm = 0;
    if (!why) {
        if (cudaKernelSetAttributeForDevice(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem, dev) != cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)kern, (int)threads, smem) != cudaSuccess) {
            (void)cudaGetLastError();
            per_sm = 0;
        }
        if (per_sm < 1) why = "its kernel, linked with the model, fits no block on a multiprocessor";
    }
    /* its far queues: at most 256 MiB, 4096 events a (block, due step) */
    const uint32_t fqcap = (uint32_t)std::min<int64_t>(4096, (INT64_C(256) << 20) / ((int64_t)B * SL * 8));
    const double bytes = 12.0 * (double)nsyn + 4.0 * (double)N * (B + 1) + 8.0 * B * SL * fqcap + 12.0 * (double)n;
    size_t free_b = 0, total_b = 0;
    CK(cudaMemGetInfo(&free_b, &total_b));
    if (!why && bytes > 0.9 * (double)free_b) why = "its grouped synapses do not fit the free device memory";
    if (why) {
        olive_info("CUDA engine: not device push's owned form: %s", why);
        return;
    }
    spk_owned_dev *w = (spk_owned_dev *)olive_calloc(1, sizeof *w, "CUDA engine");
    g->ow = w;
    g->pass.owned = 1;
    w->kernel = kern;
    w->blocks = B;
    w->threads = threads;
    w->smem = smem;
    spk_owned_args &a = w->a;
    a.row0 = 0;   /* (one rank) */
    a.p.n = n;
    a.p.W = W;
    a.p.L = L;
    a.p.SL = SL;
    a.p.PB = (int)PB;
    a.p.NW = NW;
    a.p.bits = k->wq.bits;
    a.p.fqcap = fqcap;
    a.beside = on == 2;
    a.out_ptr = g->out_ptr;
    uint32_t *goff = dev_alloc<uint32_t>((size_t)N * (B + 1), "grouped synapses");
    long long *gw = dev_alloc<long long>((size_t)nsyn, "grouped synapses");
    uint32_t *gmeta = dev_alloc<uint32_t>((size_t)nsyn, "grouped synapses");
    if (N > 0) {
        k_owned_group<<<(unsigned)std::min<int64_t>(N, 1 << 16), 256, (B + 1) * sizeof(uint32_t), g->st>>>(
            N, g->out_ptr, g->out, g->out_delay, PB, B, k->wq.bits, goff, gw, gmeta);
        CK_LAUNCH("k_owned_group");
    }
    a.goff = goff;
    a.gw = gw;
    a.gmeta = gmeta;
    a.p.acc = g->ring.acc;
    a.p.fq = dev_alloc<unsigned long long>((size_t)B * SL * fqcap, "far events");
    for (int i = 0; i < 3; i++) {
        a.list[i] = dev_alloc<int32_t>((size_t)n, "spikes");
        a.nlist[i] = dev_alloc<unsigned int>(1, "spikes");
        CK(cudaMemsetAsync(a.nlist[i], 0, sizeof(unsigned int), g->st));
    }
    a.rscale = g->rscale;
    CK(cudaStreamSynchronize(g->st));
    cudaFuncAttributes fa;
    const int regs = cudaFuncGetAttributes(&fa, (const void *)kern) == cudaSuccess ? fa.numRegs : -1;
    olive_info("CUDA engine: device push's owned form: %u blocks of %u cells, a window of %d due steps (%zu bytes of "
               "shared memory a block), far queues of %u events, %u threads a block, %d registers a thread",
               B, PB, W, smem, fqcap, threads, regs);
}

void spk_owned_steps(sim_t *s, spk_cuda *g, int64_t first, int64_t count)
{
    (void)s;
    spk_owned_dev *w = g->ow;
    spk_owned_args o = w->a;
    o.first = first;
    o.count = count;
    const spk_poisson_ahead pa = spk_devpush_poisson_chunk(g, first);
    o.pcover = pa.cover;
    o.padd = pa.add;
    o.pper = pa.per;
    spk_plugin_args a = spk_plugin_cuda_args(g, first, 0, nullptr, 1, 1);
    void *args[] = {&o, &a};
    CK(cudaLaunchCooperativeKernel((const void *)w->kernel, dim3(w->blocks), dim3(w->threads), args, w->smem,
                                   g->st));
    CK_LAUNCH(SPK_PLUGIN_KERNEL_OWNED);
}

void spk_owned_free(spk_cuda *g)
{
    spk_owned_dev *w = g->ow;
    if (!w) return;
    void *d[] = {(void *)w->a.goff, (void *)w->a.gw, (void *)w->a.gmeta, w->a.p.fq, w->a.list[0], w->a.list[1],
                 w->a.list[2], w->a.nlist[0], w->a.nlist[1], w->a.nlist[2]};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) CK(cudaFree(d[i]));
    free(w);
    g->ow = nullptr;
}
