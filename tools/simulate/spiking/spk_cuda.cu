/* The CUDA engine of spiking networks (--backend cuda with a point model,
 * built in or a plugin's, and hh_traub / hh_cable through spk_cable_cuda.cu):
 * the CPU engine's schedule and sums on one GPU per rank, giving the same
 * bits.
 *
 * A point model's cells are stepped by its own cell functions, the source
 * the CPU engine runs, linked into olive's kernels (spk_cuda_plugin.cu). A step:
 *   update:    the model's step, condition -> flags, spiking cells appended
 *              to a list (atomic counter; the host sorts every window's
 *              spikes), the first non-finite cell (atomicMin);
 *   host:      the step's spikes come back (count, then ids); at the end of an
 *              exchange window every rank's spikes are gathered and sorted by
 *              (step, source) on the host (spk_gather_window, as the CPU engine)
 *              and uploaded;
 *   events:    one event per outgoing synapse of every spike, numbered in
 *              (spike, synapse) order: the CPU engine's push order; a stable
 *              radix sort by (slot, target) keeps that order within a target,
 *              and one thread per (slot, target) run adds the weights into the
 *              slot's sums one by one, as the CPU does: no atomics, the same
 *              additions in the same order;
 *   k_deliver: the due slot's sums into the receptors (touched targets only,
 *              as the CPU), Poisson input (olive_binomial, Philox by (seed,
 *              cell, step); with many inputs both in one pass,
 *              k_deliver_poisson), the model's on_spike (reset: run first by
 *              the next step's update pass, see reset()).
 * The host waits for the device once a step: for the update's spikes,
 * which come back with their count; the events' counts of a window are read
 * a window later (spk_rules_flush).
 * The host keeps mirrors of the state for output (fetch). This is the host
 * push path (any rank count); one rank takes the device push path
 * (spk_cuda_devpush.cu) or, for a small network, the fused one
 * (spk_cuda_fused.cu): chunks of steps with no host round trip per step. */
#define OMPI_SKIP_MPICXX 1
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <utility>
#include <stdint.h>
#include <string.h>
#include <hdf5.h>
#include <mpi.h>
/* Before spk.h: headers that include C++ ones may not be given C linkage. */
#include "rng.h"
#include "noise.h"
#include "lif.h"

#include "spk_cuda.h"


__global__ void k_degrees(int64_t m, const int64_t *sp, const int64_t *out_ptr, int64_t *deg)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= m) return;
    const int64_t g = sp[i] & 0xffffffff;
    deg[i] = out_ptr[g + 1] - out_ptr[g];
}

/* One block per spike i0 + blockIdx.x: event number off[i] + e is synapse
 * e of spike i, its value the synapse. With plastic synapses (pl) the
 * event is made by the synapse's update (spk_plastic_dev_event) and kept
 * with the weight it delivers in ev, its value the event itself; the
 * window's spikes are then launched a step at a time, in order: a source
 * fires at most once a step, so a synapse sees its spikes in time order, as
 * on the CPU (spk_deliver.c, queue_plastic). */
__global__ void k_events(const int64_t *sp, const int64_t *off, int64_t i0, int64_t window0, const int64_t *out_ptr,
                         const spk_out *out, const uint16_t *delay, int L, int64_t n, uint64_t *key, int64_t *val,
                         const spk_plastic_dev *pl, spk_out *ev)
{
    const int64_t i = i0 + blockIdx.x;
    const int64_t g = sp[i] & 0xffffffff, step = window0 + (sp[i] >> 32);
    const int64_t o0 = out_ptr[g], no = out_ptr[g + 1] - o0;
    for (int64_t e = threadIdx.x; e < no; e += blockDim.x) {
        const int64_t x = o0 + e, at = off[i] + e;
        const int d = delay[x];
        const spk_out o = out[x];
        key[at] = (uint64_t)((step + d) % L) * (uint64_t)n + (uint64_t)o.target;
        if (!pl) { val[at] = x; continue; }
        spk_out made = o;
        made.w = spk_plastic_dev_event(*pl, x, step, d, o.target, o.w);
        ev[at] = made;
        val[at] = at;
    }
}

/* The first event of each (slot, target) run adds the run's weights in order. */
__global__ void k_accumulate(int64_t E, const uint64_t *key, const int64_t *val, const spk_out *out, int64_t n,
                             double *acc, unsigned char *touched)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= E || (i > 0 && key[i] == key[i - 1])) return;
    const uint64_t k = key[i];
    const int64_t slot = (int64_t)(k / (uint64_t)n), r = (int64_t)(k % (uint64_t)n);
    double *a0 = acc + (2 * slot) * n + r, *a1 = acc + (2 * slot + 1) * n + r;
    double s0 = *a0, s1 = *a1;
    for (int64_t j = i; j < E && key[j] == k; j++) {
        const spk_out o = out[val[j]];
        if (o.receptor) s1 += o.w; else s0 += o.w;
    }
    *a0 = s0;
    *a1 = s1;
    touched[slot * n + r] = 1;
}

/* Slot `slot`'s sums of the nt targets: rows r < n into x0, x1 (ge, gi);
 * the synapse sites' channels beyond them into site_in (receptor 0 carries
 * them: spk_sites.c). neg0 (spk_ring_dev): an empty slot holds -0.0, and a
 * target is due when touched or when either sum is not -0.0; its sums are
 * then the CPU engine's, whose start at +0.0 (-0.0 + w = +0.0 + w for every
 * w but -0.0, and a sum left at -0.0 counts as +0.0, what +0.0 plus -0.0s
 * gives). Every weight added there is rounded by --order-free-sums, whose
 * rounding never gives -0.0 (weight_quantum.h), so the kernel adding a
 * rule's events need not write the touched byte: one random store an event
 * fewer. */
__global__ void k_deliver(int64_t nt, int64_t n, int64_t slot, double *acc, unsigned char *touched, double *x0,
                          double *x1, double *site_in, const double *rscale, int neg0)
{
    const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (r >= nt) return;
    double s0, s1;
    if (!spk_due_sums(nt, slot, r, acc, touched, neg0, s0, s1)) return;
    if (rscale) {   /* a plugin's receptors: the cell's factors times the sums (spk_deliver.c) */
        x0[r] += rscale[r] * s0;
        x1[r] += rscale[n + r] * s1;
    } else if (r < n) {
        x0[r] += s0;
        x1[r] += s1;
    } else {
        site_in[r - n] += s0;
    }
}

/* x[0 .. m) = -0.0 (an empty ring with neg0) */
__global__ void k_fill_neg0(double *x, int64_t m)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < m; i += (int64_t)gridDim.x * blockDim.x) x[i] = -0.0;
}

__global__ void k_poisson(int64_t a, int64_t b, int64_t row0, uint64_t seed, int64_t step, uint32_t j, int64_t nin,
                          double prob, double p0, const double *fac, double w, double *x, unsigned long long *count,
                          const double *rs)
{
    const int64_t g = a + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (g >= b) return;
    const long long hits = olive_poisson_input_hits_f(seed, g, step, (int)j, nin, prob, p0, fac);
    if (hits) x[g - row0] += spk_poisson_amount(hits, w, rs ? rs + (g - row0) : nullptr);   /* (rs: a plugin's receptor factors) */
    spk_count_events((unsigned long long)hits, count);
}

int16_t *spk_poisson_cover(const sim_t *s, int64_t n, int *per)
{
    const int nin = s->cfg->spiking.npoisson;
    const int64_t row0 = s->plan.row0;
    *per = 0;
    if (nin == 0 || nin > INT16_MAX / 2 || n == 0) return nullptr;
    int *cnt = (int *)olive_calloc((size_t)n, sizeof(int), "Poisson inputs");
    for (int j = 0; j < nin; j++) {
        const sim_poisson *p = &s->spk->poisson.in[j];
        for (int64_t c = p->first > row0 ? p->first : row0; c < p->last && c < row0 + n; c++)
            *per = ++cnt[c - row0] > *per ? cnt[c - row0] : *per;
    }
    if (*per == 0) { free(cnt); return nullptr; }
    int16_t *cover = (int16_t *)olive_malloc((size_t)*per * (size_t)n * sizeof(int16_t), "Poisson inputs");
    memset(cover, 0xff, (size_t)*per * (size_t)n * sizeof(int16_t));
    memset(cnt, 0, (size_t)n * sizeof(int));
    for (int j = 0; j < nin; j++) {
        const sim_poisson *p = &s->spk->poisson.in[j];
        for (int64_t c = p->first > row0 ? p->first : row0; c < p->last && c < row0 + n; c++)
            cover[(int64_t)cnt[c - row0]++ * n + (c - row0)] = (int16_t)(j << 1 | (s->spk->poisson.rec[j] != 0));
    }
    free(cnt);
    return cover;
}

/* Every input of every cell in one launch, a thread a cell, its covering
 * inputs (cover, per: spk_poisson_cover's) in their order: the same
 * additions as k_poisson's launches one after another, for many inputs,
 * whose launches would cost more than their work (the multi-area model's
 * 254 populations: 254 launches a step). */
/* k_deliver, then every Poisson input of the cell in its order (its
 * covering inputs: spk_poisson_cover), in one pass: the host push path's
 * step 3 with many inputs, whose launches one an input would cost more
 * than their work (the multi-area model's 254 populations). The same
 * additions in the same order as k_deliver and k_poisson's launches one
 * after another; each cell's receptor variables read and written once
 * (as two kernels, k_deliver and a Poisson pass: 69 + 119 us a step of the
 * multi-area model on an H200). */
__global__ void k_deliver_poisson(int64_t nt, int64_t n, int64_t slot, double *acc, unsigned char *touched, double *x0,
                                  double *x1, double *site_in, const double *rscale, int neg0, int64_t row0, uint64_t seed,
                                  int64_t step, const sim_poisson *in, const int16_t *cover, int per, const double *fac,
                                  unsigned long long *count)
{
    const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (r >= nt) return;
    double s0, s1;
    const int due = spk_due_sums(nt, slot, r, acc, touched, neg0, s0, s1);
    if (r >= n) {   /* a synapse site's channel (no Poisson input) */
        if (due) site_in[r - n] += s0;
        return;
    }
    double v0 = x0[r], v1 = x1[r];
    if (due) {
        if (rscale) {   /* (k_deliver's terms) */
            v0 += rscale[r] * s0;
            v1 += rscale[n + r] * s1;
        } else {
            v0 += s0;
            v1 += s1;
        }
    }
    const unsigned long long events = spk_poisson_cover_cell(n, r, row0 + r, seed, step, in, cover, per, fac, rscale, v0, v1);
    x0[r] = v0;
    x1[r] = v1;
    spk_count_events(events, count);
}

/* Inputs from which one launch takes them all (k_deliver_poisson). */
#define SPK_POISSON_ONE_LAUNCH 8

/* The covering inputs of every cell on the device (once; freed with the
 * engine): k_deliver_poisson's and olive_plugin_update_due's. */
static void poisson_cover_ready(sim_t *s, spk_cuda *g)
{
    if (g->poisson.cover) return;
    const int nin = s->cfg->spiking.npoisson;
    int16_t *cover = spk_poisson_cover(s, g->n, &g->poisson.per);
    if (!g->poisson.in) g->poisson.in = dev_copy(s->spk->poisson.in, (size_t)nin, "Poisson inputs");
    g->poisson.cover = cover ? dev_copy(cover, (size_t)g->poisson.per * (size_t)g->n, "Poisson inputs")
                             : dev_alloc<int16_t>(1, "Poisson inputs");
    free(cover);
}

/* Whether step 3 of a host push step is left to the next update pass
 * (olive_plugin_update_due): a point model whose inputs come after its
 * condition, the many-input form of the Poisson inputs, no synapse sites. */
static int due_folds(const sim_t *s, const spk_cuda *g)
{
    return g->plugin && !spk_plugin_cuda_late(g) && s->cfg->spiking.npoisson >= SPK_POISSON_ONE_LAUNCH &&
           g->ring.nt == g->n;
}

/* What the update pass of a folded step takes in first: step `due`'s due
 * slot and its covering Poisson inputs (k_deliver_poisson's arguments). */
static spk_due_args due_args(sim_t *s, spk_cuda *g, int64_t due)
{
    poisson_cover_ready(s, g);
    spk_due_args d;
    d.slot = due % s->spk->L;
    d.step = due;
    d.row0 = s->plan.row0;
    d.acc = g->ring.acc;
    d.touched = g->ring.touched;
    d.neg0 = g->ring.neg0;
    d.per = g->poisson.per;
    d.in = g->poisson.in;
    d.cover = g->poisson.cover;
    d.fac = g->poisson.fac;
    d.seed = s->cfg->run.seed;
    d.count = g->poisson.count;
    d.rscale = g->rscale;
    d.ge = g->ge;
    d.gi = g->gi;
    return d;
}

/* The spike sources' step: rows[i] fires (spike_source.h), its flag and
 * the spike lists as the model's update. */
__global__ void k_sources(int64_t m, const int32_t *rows, olive_sources src, uint64_t seed, int64_t row0,
                          unsigned char *flags, int32_t *spk, unsigned int *nspk, int64_t step, uint64_t *chunk,
                          unsigned long long *nchunk, int64_t q)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= m) return;
    const int64_t r = rows[i];
    const int fire = olive_source_fires(&src, seed, r, row0 + r, step);
    flags[r] = (unsigned char)fire;
    if (fire) {
        spk[atomicAdd(nspk, 1u)] = (int32_t)r;
        if (chunk) chunk[atomicAdd(nchunk, 1ULL)] = (uint64_t)q << 32 | (uint64_t)r;
    }
}

/* The delay ring emptied: its sums 0 (-0.0 where neg0), no target touched. */
static void ring_clear(sim_t *s, spk_cuda *g)
{
    const int64_t L = s->spk->L, nt = g->ring.nt;
    if (g->ring.neg0) {
        k_fill_neg0<<<1024, 256>>>(g->ring.acc, L * 2 * nt);
        CK_LAUNCH("k_fill_neg0");
    } else {
        CK(cudaMemset(g->ring.acc, 0, (size_t)L * 2 * (size_t)nt * sizeof(double)));
    }
    CK(cudaMemset(g->ring.touched, 0, (size_t)L * (size_t)nt));
}

/* The ring's empty slots hold -0.0 (neg0) where every sum is exact
 * (--order-free-sums) and the tails read every target's sums anyway: host
 * push's k_deliver, and device push's order-free pass of one wave
 * (sums_ahead, spk_cuda_devpush.cu). A target is then due where a sum is
 * not -0.0, and the kernels adding events write no touched byte beside each
 * atomic, one random store of their two (the multi-area model's rules
 * kernel 15-17 % faster on an H200, the microcircuit's loop 12.6-12.9 % on
 * an H100). A pass of several waves keeps the flags: reading 16 bytes a
 * cell where 1 tells was more bytes than the stores saved.
 * OLIVE_GPU_NEG0=0: the flags everywhere (comparisons). Decided once the
 * delivery path's set-up has chosen its pass; the ring emptied so. */
static void ring_setup(sim_t *s, spk_cuda *g)
{
    const int neg0 = spk_env_digit("OLIVE_GPU_NEG0", 0, 1);   /* (checked whether or not it applies) */
    g->ring.neg0 = s->spk->wq.order_free && neg0 != 0 &&
                   (g->mode == SPK_HOST_PUSH || (g->mode == SPK_DEVICE_PUSH && (g->pass.sums_ahead || g->pass.owned)));
    ring_clear(s, g);
}

/* The push path's device memory: per-source synapse lists, the delay ring. */
static void push_setup(sim_t *s, spk_cuda *g)
{
    struct sim_spk *k = s->spk;
    const int64_t n = g->n, N = g->N, nsyn = k->nsyn;
    g->cur = dev_alloc<double>((size_t)n, "pulse currents");
    g->flags = dev_alloc<unsigned char>((size_t)n, "flags");
    if (k->dev.rows) {   /* the rows, turned around here */
        spk_turnaround_device(s, g);
        if (k->wq.order_free) spk_quantize_device(s, g);   /* (the host's lists: rounded there) */
    } else {
        g->out_ptr = dev_copy(k->out_ptr, (size_t)N + 1, "synapses");
        g->out = dev_copy(k->out, (size_t)nsyn, "synapses");
        g->out_delay = dev_copy(k->out_delay, (size_t)nsyn, "synapses");
    }
    const int64_t nt = g->ring.nt;   /* the rows, then the synapse sites' channels */
    g->ring.acc = dev_alloc<double>((size_t)k->L * 2 * (size_t)nt, "delay ring");
    g->ring.touched = dev_alloc<unsigned char>((size_t)k->L * (size_t)nt, "delay ring");
    /* (emptied by ring_setup, after the delivery path's set-up) */
    g->poisson.fac = dev_copy(k->poisson.fac, (size_t)s->cfg->spiking.npoisson * OLIVE_BINOMIAL_FACTORS, "Poisson inputs");
    g->spk = dev_alloc<int32_t>((size_t)n, "spikes");
    g->nspk = dev_alloc<unsigned int>(1, "spikes");
    CK(cudaMemset(g->nspk, 0, sizeof(unsigned int)));
    CK(cudaMallocHost((void **)&g->win.h_nspk, sizeof(unsigned int)));
    CK(cudaMallocHost((void **)&g->win.h_spk, (size_t)(n + 1) * sizeof(int32_t)));
    uint64_t top = (uint64_t)k->L * (uint64_t)nt;
    g->win.key_bits = 1;
    while (g->win.key_bits < 64 && (top >> g->win.key_bits)) g->win.key_bits++;
}

/* A restart (--restart): the events of the spikes still in flight, queued
 * into the CPU engine's ring by spk_restart.c in the unbroken run's order
 * (so the same partial sums), copied into device push's ring, each target's
 * at its due step's slot. A chunk of device push's steps ends with its ring
 * just so (every event due later summed in its slot, the lists empty, the
 * last step's tail done), and the run goes on as the unbroken one. */
static void restart_ring(sim_t *s, spk_cuda *g)
{
    struct sim_spk *k = s->spk;
    if (g->mode != SPK_DEVICE_PUSH) olive_die("internal: a restart on the CUDA engine's delivery path %d", g->mode);
    const int64_t nt = g->ring.nt, k0 = s->cfg->run.start_step, L = k->L, slots = k->slots;
    const size_t na = (size_t)L * 2 * (size_t)nt, nu = (size_t)L * (size_t)nt;
    double *acc = (double *)olive_calloc(na + 1, sizeof(double), "delay ring");
    unsigned char *touched = (unsigned char *)olive_calloc(nu + 1, 1, "delay ring");
    if (g->ring.neg0)   /* (a queued sum is never -0.0: it marks its target due by itself) */
        for (size_t i = 0; i < na; i++) acc[i] = -0.0;
    int64_t held = 0;
    for (int64_t q = 0; q < slots; q++) {
        const spk_slot *sl = &k->ring[q];
        const int64_t due = k0 + ((q - k0 % slots) % slots + slots) % slots, slot = due % L;
        for (int64_t i = 0; i < sl->n; i++, held++) {
            const int64_t r = sl->list[i];
            for (int a = 0; a < k->nacc; a++) acc[(2 * slot + a) * nt + r] = sl->acc[a][r];
            touched[slot * nt + r] = 1;
        }
    }
    CK(cudaMemcpy(g->ring.acc, acc, na * sizeof(double), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(g->ring.touched, touched, nu, cudaMemcpyHostToDevice));
    free(acc);
    free(touched);
    olive_info("rank %d: CUDA engine: the restart's %lld queued sums (of %lld spikes in flight) in device push's ring",
               s->rank, (long long)held, (long long)k->restart.nrestored);
}

void spk_select_device(void)
{
    MPI_Comm node;
    int local = 0;
    SIM_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    SIM_CHECK_MPI(MPI_Comm_rank(node, &local));
    MPI_Comm_free(&node);
    olive_cuda_select(local);
}

static void spiking_cuda_setup(sim_t *s)
{
    struct sim_spk *k = s->spk;
    spk_select_device();
    spk_cuda *g = (spk_cuda *)olive_calloc(1, sizeof *g, "CUDA engine");
    s->spk->cuda = g;
    const int64_t n = s->plan.nlocal, N = s->net.count, nsyn = k->nsyn;
    g->n = n;
    g->ring.nt = k->ntarget;
    g->N = N;
    size_t free_b = 0, total_b = 0;
    CK(cudaMemGetInfo(&free_b, &total_b));
    const struct spk_cell_kind *kind = s->family->cells;   /* cable cells (engine.c), else NULL */
    const double rest = 8.0 * (N + 1) + (double)k->L * (double)k->ntarget * 17 + 60.0 * n + (256 << 20) +
                        (kind ? kind->cuda_bytes(s) : 0) + (k->point ? spk_plugin_cuda_bytes(s) : 0);
    /* the turn-around on the device holds 56 bytes a synapse at its peak
     * (places, keys, records, lists); where that does not fit, the host's */
    if (k->dev.rows && !k->dev.drawn && rest + 56.0 * nsyn > (double)free_b) {
        olive_info("rank %d: the turn-around needs %.2f GiB of device memory: on the host instead", s->rank,
                   (rest + 56.0 * nsyn) / 1073741824.0);
        spk_lists_on_host(s);
    }
    const double need = rest + 18.0 * nsyn;
    olive_info("rank %d: the CUDA engine needs about %.2f GiB of device memory, %.2f GiB free", s->rank, need / 1073741824.0,
               (double)free_b / 1073741824.0);
    if (need > (double)free_b)
        olive_die("rank %d: the CUDA engine needs about %.2f GiB of device memory for %lld cells and %lld synapses, but the "
                  "GPU has %.2f GiB free; use more ranks (GPUs) or --backend cpu", s->rank, need / 1073741824.0,
                  (long long)n, (long long)nsyn, (double)free_b / 1073741824.0);
    CK(cudaStreamCreateWithFlags(&g->st, cudaStreamNonBlocking));
    int dev = 0, major = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    const int pdl = spk_env_digit("OLIVE_GPU_PDL", 0, 1);   /* 0: every launch after the kernel before it (comparisons) */
    g->pdl = major >= 9 && pdl != 0;
    if (k->point) {   /* a point model: its state, coefficients, receptors and linked kernels */
        spk_plugin_cuda_setup(s, g);
    } else {   /* cable cells: the receptors ge, gi are state variables 4, 5; the rest is the kind's cuda_setup */
        const int rge = s->cfg->run.model->receptors[0], rgi = s->cfg->run.model->receptors[1];
        g->v = dev_copy((const double *)s->state[0], (size_t)n, "the state");
        g->ge = dev_copy((const double *)s->state[rge], (size_t)n, "the state");
        g->gi = dev_copy((const double *)s->state[rgi], (size_t)n, "the state");
        g->ref = dev_alloc<double>((size_t)n, "the state");
    }
    g->bad = dev_alloc<unsigned long long>(1, "flags");
    g->poisson.count = dev_alloc<unsigned long long>(1, "counters");
    CK(cudaMemset(g->poisson.count, 0, sizeof(unsigned long long)));
    CK(cudaMemset(g->bad, 0xff, sizeof(unsigned long long)));
    CK(cudaMallocHost((void **)&g->h_bad, sizeof(unsigned long long)));
    g->mode = spk_delivery_mode(s);
    if (kind) kind->cuda_setup(s, g);   /* (coef_of: -1 marks the spike sources the update leaves to k_sources) */
    if (k->sources.n) {   /* the spike sources' device copy (spike_source.h) */
        g->sources.n = k->sources.n;
        g->sources.rows = dev_copy(k->sources.rows, (size_t)k->sources.n, "spike sources");
        g->sources.src.kind = dev_copy(k->sources.src.kind, (size_t)n, "spike sources");
        g->sources.src.p = dev_copy(k->sources.src.p, (size_t)n, "spike sources");
        g->sources.src.step0 = dev_copy(k->sources.src.step0, (size_t)n, "spike sources");
        g->sources.src.step1 = dev_copy(k->sources.src.step1, (size_t)n, "spike sources");
        g->sources.src.ptr = dev_copy(k->sources.src.ptr, (size_t)n + 1, "spike sources");
        g->sources.src.steps = dev_copy(k->sources.src.steps, (size_t)k->sources.src.ptr[n], "spike sources");
        g->sources.src.next = dev_copy(k->sources.src.next, (size_t)n, "spike sources");
    }
    if (g->mode == SPK_FUSED) {
        spk_fused_setup(s, g);
    } else {
        push_setup(s, g);
        if (g->mode == SPK_DEVICE_PUSH) spk_devpush_setup(s, g);
        ring_setup(s, g);
        if (s->cfg->run.restart_path) restart_ring(s, g);
        if (k->drawn.n) spk_rules_setup(s, g);
        if (k->plastic) spk_plastic_cuda_setup(s, g);
        spk_graph_setup(s, g);
    }
    CK(cudaDeviceSynchronize());
}

void spk_grow_window(spk_cuda *g, int64_t m, int64_t E)
{
    if (m > g->win.sp_cap) {
        CK(cudaFree(g->win.sp)); CK(cudaFree(g->win.deg)); CK(cudaFree(g->win.off));
        g->win.sp_cap = m + m / 2 + 1024;
        g->win.sp = dev_alloc<int64_t>((size_t)g->win.sp_cap, "spikes");
        g->win.deg = dev_alloc<int64_t>((size_t)g->win.sp_cap, "spikes");
        g->win.off = dev_alloc<int64_t>((size_t)g->win.sp_cap, "spikes");
    }
    if (E > g->win.ev_cap) {
        CK(cudaFree(g->win.key_in)); CK(cudaFree(g->win.key_out)); CK(cudaFree(g->win.val_in)); CK(cudaFree(g->win.val_out));
        g->win.ev_cap = E + E / 2 + 4096;
        g->win.key_in = dev_alloc<uint64_t>((size_t)g->win.ev_cap, "events");
        g->win.key_out = dev_alloc<uint64_t>((size_t)g->win.ev_cap, "events");
        g->win.val_in = dev_alloc<int64_t>((size_t)g->win.ev_cap, "events");
        g->win.val_out = dev_alloc<int64_t>((size_t)g->win.ev_cap, "events");
    }
}

void spk_ensure_tmp(spk_cuda *g, size_t bytes)
{
    if (bytes <= g->win.tmp_bytes) return;
    CK(cudaFree(g->win.tmp));
    g->win.tmp_bytes = bytes + bytes / 2;
    CK(cudaMalloc(&g->win.tmp, g->win.tmp_bytes));
}

/* The window's spikes of every rank: their events into the slots. */
static void push_window(sim_t *s)
{
    struct sim_spk *k = s->spk;
    spk_cuda *g = s->spk->cuda;
    int64_t m;
    int64_t *all = spk_gather_window(s, &m);
    if (m == 0) { free(all); return; }
    spk_grow_window(g, m, 0);
    CK(cudaMemcpyAsync(g->win.sp, all, (size_t)m * sizeof(int64_t), cudaMemcpyHostToDevice, g->st));
    if (k->drawn.n) {   /* projections drawn at each spike */
        spk_rules_window(s, g, all, m);
        free(all);
        return;
    }
    k_degrees<<<spk_blocks(m, 256), 256, 0, g->st>>>(m, g->win.sp, g->out_ptr, g->win.deg);
    CK_LAUNCH("k_degrees");
    size_t bytes = 0;
    CK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, g->win.deg, g->win.off, m, g->st));
    spk_ensure_tmp(g, bytes);
    CK(cub::DeviceScan::ExclusiveSum(g->win.tmp, bytes, g->win.deg, g->win.off, m, g->st));
    /* E from the host's lists: the same sum, without a round trip */
    int64_t E = 0;
    for (int64_t i = 0; i < m; i++) { const int64_t c = all[i] & 0xffffffff; E += k->out_ptr[c + 1] - k->out_ptr[c]; }
    k->events += E;
    if (E == 0) { free(all); return; }
    spk_grow_window(g, 0, E);
    /* what k_accumulate reads: the synapses, or a plastic window's events as made */
    spk_out *ev = g->pl ? spk_plastic_cuda_event_buffer(g, E) : nullptr;
    for (int64_t i0 = 0, i1; i0 < m; i0 = i1) {   /* plastic: a step at a time (all: by step, then cell) */
        i1 = m;
        if (g->pl)
            for (i1 = i0 + 1; i1 < m && all[i1] >> 32 == all[i0] >> 32; i1++) {}
        k_events<<<(unsigned)(i1 - i0), 128, 0, g->st>>>(g->win.sp, g->win.off, i0, k->window0, g->out_ptr, g->out, g->out_delay,
                                                        k->L, g->ring.nt, g->win.key_in, g->win.val_in, g->pl, ev);
        CK_LAUNCH("k_events");
    }
    free(all);
    bytes = 0;
    CK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, g->win.key_in, g->win.key_out, g->win.val_in, g->win.val_out, E, 0, g->win.key_bits, g->st));
    spk_ensure_tmp(g, bytes);
    CK(cub::DeviceRadixSort::SortPairs(g->win.tmp, bytes, g->win.key_in, g->win.key_out, g->win.val_in, g->win.val_out, E, 0, g->win.key_bits, g->st));
    k_accumulate<<<spk_blocks(E, 256), 256, 0, g->st>>>(E, g->win.key_out, g->win.val_out, ev ? ev : g->out, g->ring.nt, g->ring.acc,
                                                        g->ring.touched);
    CK_LAUNCH("k_accumulate");
}

/* Steps 1 and 2 of step (q: its index in the chunk): the pulse current, the
 * update and threshold; tail: the previous step's steps 3 and 4 still to run
 * (device push, static buckets), in the same pass where the cells allow, or
 * null. */
static void update(sim_t *s, int64_t step, int64_t q, const spk_tail_args *tail)
{
    struct sim_spk *k = s->spk;
    spk_cuda *g = s->spk->cuda;
    const int64_t n = g->n;
    const double *cur = spk_pulse_currents(s, step);   /* host, k->cur */
    if (cur) {
        /* (from pageable memory: k->cur may be reused once this returns) */
        CK(cudaMemcpyAsync(g->cur, k->cur, (size_t)n * sizeof(double), cudaMemcpyHostToDevice, g->st));
        cur = g->cur;
    }
    const int chunked = g->mode == SPK_DEVICE_PUSH;
    if (g->cable) {
        if (tail) spk_devpush_tail_launch(g, tail);
        s->family->cells->cuda_update(s, g, step, q, cur);
    } else {   /* (device push: with static buckets the tail here, else plugin_push_steps) */
        if (tail) spk_plugin_cuda_tail_update(s, g, tail, step, q, cur);
        else {
            const int reset_first = (chunked && q > 0 && !g->pass.sb) || g->win.reset_pending;   /* (host push: reset()) */
            g->win.reset_pending = 0;
            if (g->win.due_pending) {   /* (host push: the step before's step 3 first) */
                g->win.due_pending = 0;
                const spk_due_args d = due_args(s, g, g->win.due_step);
                spk_plugin_cuda_update_due(s, g, &d, step, cur, reset_first);
            } else {
                spk_plugin_cuda_update(s, g, step, q, cur, chunked, reset_first);
            }
        }
    }
    if (g->sources.n) {
        k_sources<<<spk_blocks(g->sources.n, 256), 256, 0, g->st>>>(g->sources.n, g->sources.rows, g->sources.src, s->cfg->run.seed, s->plan.row0,
                                                           g->flags, g->spk, g->nspk, step,
                                                           chunked ? g->chunk.spk : nullptr, chunked ? g->chunk.n : nullptr, q);
        CK_LAUNCH("k_sources");
    }
}

/* Step 3: the due slot, the Poisson inputs. */
static void deliver(sim_t *s, int64_t step)
{
    struct sim_spk *k = s->spk;
    spk_cuda *g = s->spk->cuda;
    const sim_config *c = s->cfg;
    const int64_t n = g->n, row0 = s->plan.row0;
    /* receptor 0 is ge, 1 is gi (cellmodel.c) */
    if (c->spiking.npoisson >= SPK_POISSON_ONE_LAUNCH) {   /* the due sums and every input in one pass */
        poisson_cover_ready(s, g);
        k_deliver_poisson<<<spk_blocks(g->ring.nt, 256), 256, 0, g->st>>>(
            g->ring.nt, n, step % k->L, g->ring.acc, g->ring.touched, g->ge, g->gi, g->ring.site_in, g->rscale, g->ring.neg0,
            row0, c->run.seed, step, g->poisson.in, g->poisson.cover, g->poisson.per, g->poisson.fac, g->poisson.count);
        CK_LAUNCH("k_deliver_poisson");
        return;
    }
    k_deliver<<<spk_blocks(g->ring.nt, 256), 256, 0, g->st>>>(g->ring.nt, n, step % k->L, g->ring.acc, g->ring.touched, g->ge, g->gi,
                                                     g->ring.site_in, g->rscale, g->ring.neg0);
    CK_LAUNCH("k_deliver");
    for (int j = 0; j < c->spiking.npoisson; j++) {
        const sim_poisson *p = &k->poisson.in[j];
        if (step < p->step0 || step >= p->step1) continue;
        const int64_t a = p->first > row0 ? p->first : row0, b = p->last < row0 + n ? p->last : row0 + n;
        if (a >= b) continue;
        k_poisson<<<spk_blocks(b - a, 256), 256, 0, g->st>>>(a, b, row0, c->run.seed, step, (uint32_t)j, p->n,
                                                          p->prob, p->p0, g->poisson.fac + (size_t)j * OLIVE_BINOMIAL_FACTORS,
                                                          p->weight,
                                                          k->poisson.rec[j] ? g->gi : g->ge, g->poisson.count,
                                                          g->rscale ? g->rscale + (k->poisson.rec[j] ? n : 0) : nullptr);
        CK_LAUNCH("k_poisson");
    }
}

/* Step 4: the point model's on_spike (its reset; cable cells have none).
 * On the host push path it is left to the next step's update pass, which
 * runs it first for the cells that fired (olive_plugin_update's
 * reset_first: the same operations in the same order, one pass over the
 * cells fewer a step), unless the host reads or changes the cells before:
 * reset_flush. */
static void reset(sim_t *s, int64_t step)
{
    spk_cuda *g = s->spk->cuda;
    if (!g->plugin) return;
    g->win.reset_pending = 1;
    g->win.reset_step = step;
}

static void reset_flush(sim_t *s)
{
    spk_cuda *g = s->spk->cuda;
    if (g->win.due_pending) {   /* (step 3 before step 4) */
        g->win.due_pending = 0;
        deliver(s, g->win.due_step);
    }
    if (!g->win.reset_pending) return;
    spk_plugin_cuda_on_spike(s, g, g->win.reset_step);
    g->win.reset_pending = 0;
}

/* The host push path: the step's spikes come back, windows are exchanged. */
static void host_push_step(sim_t *s, int64_t step)
{
    struct sim_spk *k = s->spk;
    spk_cuda *g = s->spk->cuda;
    const int64_t row0 = s->plan.row0;
    const double t0 = olive_now();
    const int late = spk_plugin_cuda_late(g);   /* steps 1, 3, 2, 4 (the delivery counts as compute) */
    update(s, step, 0, nullptr);
    if (late) {
        deliver(s, step);
        spk_plugin_cuda_condition(s, g, step, 0, 0);
    }
    CK(cudaMemcpyAsync(g->win.h_nspk, g->nspk, sizeof(unsigned int), cudaMemcpyDeviceToHost, g->st));
    CK(cudaMemcpyAsync(g->h_bad, g->bad, sizeof(unsigned long long), cudaMemcpyDeviceToHost, g->st));
    /* the spikes too, as many as twice the last step's (at least 1024):
     * usually all of them, and the step waits for the device once, not twice */
    const int64_t guess = std::min<int64_t>(g->n, std::max<int64_t>(g->win.guess, 1024));
    CK(cudaMemcpyAsync(g->win.h_spk, g->spk, (size_t)guess * sizeof(int32_t), cudaMemcpyDeviceToHost, g->st));
    CK(cudaMemsetAsync(g->nspk, 0, sizeof(unsigned int), g->st));
    CK(cudaStreamSynchronize(g->st));
    const unsigned int ns = *g->win.h_nspk;
    g->win.guess = 2 * (int64_t)ns;
    if (ns) {
        if ((int64_t)ns > guess) {   /* (the memset above leaves the list as it is) */
            CK(cudaMemcpyAsync(g->win.h_spk + guess, g->spk + guess, (size_t)(ns - guess) * sizeof(int32_t),
                               cudaMemcpyDeviceToHost, g->st));
            CK(cudaStreamSynchronize(g->st));
        }
        spk_tspikes_reserve(s, ns);
        for (unsigned int i = 0; i < ns; i++) s->tspikes[0][s->tspike_n[0]++] = (sim_spike){step, row0 + g->win.h_spk[i]};
    }
    if (*g->h_bad != ~0ULL && s->bad_step < 0) {
        s->bad_step = (int64_t)(*g->h_bad >> 32);
        s->bad_cell = row0 + (int64_t)(*g->h_bad & 0xffffffff);
    }
    s->t.compute += olive_now() - t0;
    if (k->zero_delay || (step + 1 - k->window0) % k->D == 0) {
        const double tx = olive_now();
        push_window(s);
        k->window0 = step + 1;
        s->t.exchange += olive_now() - tx;
    }
    const double t1 = olive_now();
    if (!late) {
        if (due_folds(s, g)) {   /* (left to the next update pass, or to reset_flush) */
            g->win.due_pending = 1;
            g->win.due_step = step;
        } else {
            deliver(s, step);
        }
    }
    reset(s, step);
    s->t.compute += olive_now() - t1;
}

/* The device push path of a point model with dynamic buckets (static
 * ones take device_push_steps' loop: the tail, the onCondition body and the
 * next update in one pass of the model's linked image):
 * each step's update, events and delivery (the tail, which has no reset for
 * it) as kernels of their own;
 * a step's onCondition body runs in the next step's update pass (nothing
 * else reads or writes the cell in between), the chunk's last one alone.
 * With inputs before the condition the delivery comes before the condition
 * (dynamic buckets then: spk_devpush_setup). */
static void plugin_push_steps(sim_t *s, spk_cuda *g, int64_t first, int64_t count)
{
    const int late = spk_plugin_cuda_late(g);
    for (int64_t q = 0; q < count; q++) {
        const int64_t step = first + q;
        update(s, step, q, nullptr);   /* (with step - 1's onCondition body when q > 0) */
        if (late) {
            spk_devpush_tail(s, g, step);
            spk_plugin_cuda_condition(s, g, step, q, 1);
            spk_devpush_events(s, g, step);
        } else {
            spk_devpush_events(s, g, step);
            spk_devpush_tail(s, g, step);
        }
    }
    spk_plugin_cuda_on_spike(s, g, first + count - 1);
}

/* The device push path's launches for a chunk of steps, on g->st (or
 * captured into a graph: spk_cuda_graph.cu). */
static void device_push_enqueue(sim_t *s, int64_t first, int64_t count)
{
    spk_cuda *g = s->spk->cuda;
    spk_devpush_poisson_ahead(s, g, first, count);
    if (g->pass.owned) {   /* the chunk in one launch (spk_cuda_owned.cu) */
        spk_owned_steps(s, g, first, count);
    } else if (g->plugin && !g->pass.sb) {
        plugin_push_steps(s, g, first, count);
    } else if (g->pass.sb_atomic) {
        /* each step's tail runs with the next step's update, as below, and
         * the step before's events are added beside that pass
         * (spk_devpush_atomic): three spike lists rotate, the one the pass
         * fills (g->spk), the one sent beside it (spk_prev) and the one it
         * clears (spk_third, sent beside the pass before) */
        for (int64_t q = 0; q < count; q++) {
            const int64_t step = first + q;
            int32_t *const s3 = g->pass.spk_third;
            unsigned int *const n3 = g->pass.nspk_third;
            g->pass.spk_third = g->pass.spk_prev;
            g->pass.nspk_third = g->pass.nspk_prev;
            g->pass.spk_prev = g->spk;
            g->pass.nspk_prev = g->nspk;
            g->spk = s3;
            g->nspk = n3;
            spk_tail_args tail;   /* (none before the chunk's first step: the last chunk ended with it) */
            if (q) tail = spk_devpush_tail_args(s, g, step - 1, g->pass.nspk_third);
            update(s, step, q, q ? &tail : nullptr);
            if (q) spk_devpush_atomic(s, g, step - 1, g->pass.spk_prev, g->pass.nspk_prev, 1);
        }
        /* the chunk ends with every event in its slot and every list empty */
        spk_devpush_atomic(s, g, first + count - 1, g->spk, g->nspk, 0);
        spk_devpush_tail(s, g, first + count - 1);
        CK(cudaMemsetAsync(g->pass.nspk_prev, 0, sizeof(unsigned int), g->st));
        CK(cudaMemsetAsync(g->pass.nspk_third, 0, sizeof(unsigned int), g->st));
        if (g->plugin) spk_plugin_cuda_on_spike(s, g, first + count - 1);   /* (its tail has no reset) */
    } else if (g->pass.sb) {
        /* each step's tail runs with the next step's update; the spike lists
         * alternate, so the tail clears the list that update is not filling */
        for (int64_t q = 0; q < count; q++) {
            std::swap(g->spk, g->pass.spk_prev);
            std::swap(g->nspk, g->pass.nspk_prev);
            spk_tail_args tail;   /* (none before the chunk's first step: the last chunk ended with it) */
            if (q) tail = spk_devpush_tail_args(s, g, first + q - 1, g->pass.nspk_prev);
            update(s, first + q, q, q ? &tail : nullptr);
            spk_devpush_events(s, g, first + q);   /* (sb_add: step - 1's events added beside this pass) */
        }
        spk_devpush_tail(s, g, first + count - 1);   /* (g->nspk: the last step's list) */
        spk_devpush_add_last(s, g);   /* (sb_add: the chunk ends with every event in its slot) */
        if (g->plugin) spk_plugin_cuda_on_spike(s, g, first + count - 1);   /* (its tail has no reset) */
    } else {
        for (int64_t q = 0; q < count; q++) {
            update(s, first + q, q, nullptr);
            spk_devpush_events(s, g, first + q);
            spk_devpush_tail(s, g, first + q);
        }
    }
    spk_devpush_poisson_next(s, g, first + count);   /* (the next chunk's draws, beside this one) */
}

/* The device push path: a chunk of steps enqueued (or launched as a graph,
 * the next one captured while it runs), then one visit. */
static void device_push_steps(sim_t *s, int64_t first, int64_t count)
{
    spk_cuda *g = s->spk->cuda;
    const double t0 = olive_now();
    if (spk_graph_steps(s, g, first, count, device_push_enqueue)) spk_graph_ahead(s, g, first + count, device_push_enqueue);
    else device_push_enqueue(s, first, count);
    const double t1 = olive_now();
    spk_chunk_collect(s, g, first, count);
    spk_devpush_check(g);
    const double t2 = olive_now();
    g->chunk.t_enqueue += t1 - t0;
    g->chunk.t_collect += t2 - t1;
    s->t.compute += t2 - t0;
}

static void spiking_cuda_steps(sim_t *s, int64_t first, int64_t count)
{
    spk_cuda *g = s->spk->cuda;
    if (g->mode == SPK_FUSED) spk_fused_steps(s, g, first, count);
    else if (g->mode == SPK_DEVICE_PUSH) device_push_steps(s, first, count);
    else
        for (int64_t i = first; i < first + count; i++) host_push_step(s, i);
}

static int64_t spiking_cuda_max_steps(sim_t *s)
{
    const spk_cuda *g = s->spk->cuda;
    return g->mode == SPK_HOST_PUSH ? 1 : spk_chunk_max(g);
}

static void spiking_cuda_step(sim_t *s, int64_t step) { spiking_cuda_steps(s, step, 1); }

static void spiking_cuda_fetch(sim_t *s, int all)
{
    spk_cuda *g = s->spk->cuda;
    reset_flush(s);
    spk_rules_flush(s, g);   /* (the last window's event count) */
    if (g->plugin) {
        spk_plugin_cuda_fetch(s, g);   /* (the point model's variables) */
    } else {   /* cable cells: v and the receptors here, the rest the kind's */
        const int *rec = s->cfg->run.model->receptors;
        double *dev[3] = {g->v, g->ge, g->gi};
        const int var[3] = {0, rec[0], rec[1]};
        for (int v = 0; v < 3; v++)
            CK(cudaMemcpyAsync(s->state[var[v]], dev[v], (size_t)g->n * sizeof(double), cudaMemcpyDeviceToHost, g->st));
    }
    if (g->cable) s->family->cells->cuda_fetch(s, g, all);
    if (g->pl && all) spk_plastic_cuda_fetch(s, g);   /* (for a state: not every recorded frame) */
    unsigned long long np = 0;
    CK(cudaMemcpyAsync(&np, g->poisson.count, sizeof np, cudaMemcpyDeviceToHost, g->st));
    CK(cudaStreamSynchronize(g->st));
    s->spk->poisson_events = (int64_t)np;
}

static double spiking_cuda_energy_j(sim_t *s, int *owner) { (void)s; *owner = 0; return -1; }

static void spiking_cuda_free(sim_t *s)
{
    spk_cuda *g = s->spk->cuda;
    if (!g) return;
    if (g->mode == SPK_DEVICE_PUSH)   /* (where the loop's time went: the host queueing, or waiting for the device) */
        olive_info("rank %d: CUDA engine: step loop %.3f s queueing the steps' kernels, %.3f s waiting for the device "
                   "and taking the spikes", s->rank, g->chunk.t_enqueue, g->chunk.t_collect);
    spk_graph_free(s, g);
    spk_plugin_cuda_free(g);   /* (its receptor variables are ge, gi) */
    CK(cudaFree(g->rscale));
    void *d[] = {g->v, g->ge, g->gi, g->ref, g->cur, g->flags, g->coef_of, g->out_ptr, g->out,
                 g->out_delay, g->ring.acc, g->ring.touched, g->spk, g->nspk, g->bad, g->poisson.in, g->poisson.rec, g->poisson.cover,
                 g->poisson.fac, g->poisson.count, g->win.sp, g->win.deg, g->win.off, g->win.key_in, g->win.key_out,
                 g->win.val_in, g->win.val_out, g->win.tmp};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) CK(cudaFree(d[i]));
    void *h[] = {g->win.h_nspk, g->h_bad, g->win.h_spk};
    for (size_t i = 0; i < sizeof h / sizeof h[0]; i++)
        if (h[i]) CK(cudaFreeHost(h[i]));
    spk_fused_free(g);
    spk_owned_free(g);
    spk_devpush_free(g);
    spk_rules_free(g);
    spk_plastic_cuda_free(g);
    if (s->family->cells) s->family->cells->cuda_free(g);
    if (g->sources.n) {
        const void *p[] = {g->sources.rows, g->sources.src.kind, g->sources.src.p, g->sources.src.step0, g->sources.src.step1, g->sources.src.ptr, g->sources.src.steps,
                           g->sources.src.next};
        for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) CK(cudaFree((void *)p[i]));
    }
    spk_chunk_free(g);
    CK(cudaStreamDestroy(g->st));
    free(g);
    s->spk->cuda = nullptr;
}

static void spiking_cuda_weights(sim_t *s, const int64_t *x, int64_t n, double *w)
{
    reset_flush(s);
    spk_plastic_cuda_weights(s->spk->cuda, x, n, w);
}

/* A rate changed between steps (spk_inputs.c), or a parameter (spk_params.c):
 * the device's copies of the inputs, their factors and the coefficient sets,
 * in stream order before the next step. */
static void spiking_cuda_inputs_changed(sim_t *s)
{
    spk_cuda *g = s->spk->cuda;
    reset_flush(s);   /* (with the coefficients it was due with) */
    spk_graph_forget(g);   /* (a graph made ahead holds the arguments of before) */
    spk_devpush_poisson_forget(g);   /* (and draws made ahead, the rates of before) */
    const size_t nin = (size_t)s->cfg->spiking.npoisson;
    if (g->poisson.in)
        CK(cudaMemcpyAsync(g->poisson.in, s->spk->poisson.in, nin * sizeof(sim_poisson), cudaMemcpyHostToDevice, g->st));
    if (g->poisson.fac)
        CK(cudaMemcpyAsync(g->poisson.fac, s->spk->poisson.fac, nin * OLIVE_BINOMIAL_FACTORS * sizeof(double),
                           cudaMemcpyHostToDevice, g->st));
    if (g->plugin) spk_plugin_cuda_coef_changed(s, g);
    CK(cudaStreamSynchronize(g->st));   /* (pageable host memory: the copy is done before the host changes it again) */
}

extern "C" const sim_engine sim_engine_spiking_cuda = {"cuda", 1, 1, spiking_cuda_setup, spiking_cuda_step, spiking_cuda_fetch,
                                                   spiking_cuda_energy_j, spiking_cuda_free, spiking_cuda_steps, spiking_cuda_max_steps,
                                                   spiking_cuda_weights, spiking_cuda_inputs_changed};
