/* The fused delivery path of the CUDA spiking engine (spk_cuda.h): one rank,
 * many steps per kernel launch.
 *
 * On one rank every spike is a local one, so nothing needs the host between
 * steps but the output. One cooperative kernel runs a chunk of steps. Cell r
 * belongs to warp r mod W (W warps in the grid); per step
 *   phase 1: every cell's update (olive_lif_step), pulse current, threshold:
 *            its spike flag into the history slot of the step, spikes appended
 *            to the chunk's list (atomic counter: the host sorts them), the
 *            first non-finite (step, cell) (atomicMin);
 *   grid sync;
 *   phase 2: every target adds its due events, pulled from its incoming
 *            synapses, 32 at a time by its warp's lanes (the sums themselves
 *            made one by one, in order): a synapse of delay d contributes
 *            when its source's flag of step - d is set. The synapses are kept in (delay descending,
 *            source, projection, synapse index) order, which is the order the
 *            CPU engine adds them in (by spike step, then source, then the
 *            source's list): the same sums, bit for bit. Then the Poisson
 *            inputs and the reset, as the CPU engine.
 * The history has H = max delay + 2 slots, so phase 1 of the next step (slot
 * step + 1) never overwrites a slot phase 2 of this step still reads: one grid
 * sync per step suffices. Reading every synapse every step costs O(synapses)
 * per step, so this path is for small networks, where the push path's host
 * round trip per step dominates. */
#define OMPI_SKIP_MPICXX 1
#include <cooperative_groups.h>
#include <algorithm>
#include <stdlib.h>
#include <string.h>
#include <hdf5.h>
#include <mpi.h>
#include "rng.h"
#include "noise.h"
#include "spk_cuda.h"

/* One incoming synapse of the fused path, in its target's pull order. */
typedef struct {
    int32_t source;
    uint16_t delay;   /* steps */
    uint8_t receptor;
    uint8_t pad;
    double w;
} spk_in;

/* Fused's own device state (g->fu). */
struct spk_fused_dev {
    int64_t *in_ptr;           /* per target: its incoming synapses */
    spk_in *in;
    unsigned char *hist;       /* H slots x n spike flags, slot step % H */
    int H;
    sim_pulse *pulses;
    int grid;                  /* co-resident blocks of the fused kernel */
};

namespace cg = cooperative_groups;

static const int FUSED_BLOCK = 256;

struct fused_args {
    int64_t n, row0;
    const olive_lif_coef *coef;
    const int32_t *coef_of;
    double *v, *ge, *gi, *ref;
    const int64_t *in_ptr;
    const spk_in *in;
    unsigned char *hist;
    int H;
    const sim_pulse *pulses;
    int npulses;
    const sim_poisson *poisson;
    const int *poisson_rec;
    int npoisson;
    uint64_t seed;
    uint64_t *spk;
    unsigned long long *nspk, *bad, *npoisson_events;
};

__global__ void k_fused(fused_args a, int64_t first, int64_t count)
{
    cg::grid_group grid = cg::this_grid();
    const int lane = threadIdx.x & 31;
    const int64_t warp = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5, W = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t q = 0; q < count; q++) {
        const int64_t step = first + q;
        unsigned char *h = a.hist + (step % a.H) * a.n;
        /* phase 1: the warp's cells warp, warp + W, ..., one per lane */
        for (int64_t j = lane;; j += 32) {
            const int64_t r = warp + j * W;
            if (r >= a.n) break;
            const int64_t g = a.row0 + r;
            double I = 0;   /* the active pulses in their order, as sim_active_pulses */
            for (int p = 0; p < a.npulses; p++) {
                const sim_pulse *u = &a.pulses[p];
                if (u->step0 <= step && step < u->step1 && g >= u->first && (u->last < 0 || g < u->last)) I += u->amp;
            }
            const olive_lif_coef c = a.coef[a.coef_of[r]];
            double x = a.v[r], e = a.ge[r], i = a.gi[r], f = a.ref[r];
            olive_lif_step(&c, I, &x, &e, &i, &f, NULL, NULL);   /* (no alpha synapses on this path) */
            a.v[r] = x; a.ge[r] = e; a.gi[r] = i; a.ref[r] = f;
            const int fire = olive_lif_spikes(&c, x, f);
            h[r] = (unsigned char)fire;
            if (fire) a.spk[atomicAdd(a.nspk, 1ULL)] = (uint64_t)q << 32 | (uint64_t)r;
            if (!(x - x == 0 && e - e == 0 && i - i == 0))
                atomicMin(a.bad, (unsigned long long)step << 32 | (unsigned long long)r);
        }
        grid.sync();
        /* phase 2: the same cells, one at a time, the warp's lanes reading 32
         * synapses at once; the sums are made in synapse order (lowest lane
         * first), every lane making the same ones. */
        for (int64_t r = warp; r < a.n; r += W) {
            double s0 = 0, s1 = 0;
            unsigned any = 0;
            for (int64_t e0 = a.in_ptr[r]; e0 < a.in_ptr[r + 1]; e0 += 32) {
                const int64_t e = e0 + lane;
                int hit = 0;
                double w = 0;
                int rec = 0;
                if (e < a.in_ptr[r + 1]) {
                    const spk_in y = a.in[e];
                    hit = a.hist[((step - y.delay + a.H) % a.H) * a.n + y.source];
                    w = y.w;
                    rec = y.receptor;
                }
                unsigned m = __ballot_sync(0xffffffffu, hit);
                any |= m;
                while (m) {
                    const int k = __ffs(m) - 1;
                    const double wk = __shfl_sync(0xffffffffu, w, k);
                    if (__shfl_sync(0xffffffffu, rec, k)) s1 += wk; else s0 += wk;
                    m &= m - 1;
                }
            }
            if (lane == 0) {
                if (any) { a.ge[r] += s0; a.gi[r] += s1; }   /* receptor 0 is ge, 1 is gi (cellmodel.c) */
                const int64_t g = a.row0 + r;
                spk_poisson_cell(a.poisson, a.poisson_rec, a.npoisson, a.seed, g, step, a.ge[r], a.gi[r],
                                 a.npoisson_events);
                if (h[r]) olive_lif_reset(&a.coef[a.coef_of[r]], &a.v[r], &a.ref[r]);
            }
        }
        __syncwarp();   /* lane 0's writes seen by the lane that updates the cell next */
    }
}

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
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_fused, FUSED_BLOCK, 0));
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
    fused_args a = {g->n, s->plan.row0, g->coef, g->coef_of, g->v, g->ge, g->gi, g->ref, g->fu->in_ptr, g->fu->in, g->fu->hist, g->fu->H,
                    g->fu->pulses, c->stim.npulses, g->poisson.in, g->poisson.rec, c->spiking.npoisson, c->run.seed, g->chunk.spk,
                    g->chunk.n, g->bad, g->poisson.count};
    void *args[] = {&a, &first, &count};
    CK(cudaLaunchCooperativeKernel((const void *)k_fused, dim3((unsigned)g->fu->grid), dim3(FUSED_BLOCK), args, 0, g->st));
    CK_LAUNCH("k_fused");
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
