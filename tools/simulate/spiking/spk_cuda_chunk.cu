/* The spikes of a chunk of steps, for the one-rank paths of the CUDA spiking
 * engine (spk_cuda.h): the device appends (step - first) << 32 | cell to a
 * list as cells fire (in any order: the output sorts by step and cell); at
 * the end of the chunk the host takes the list once, instead of once a step,
 * with the chunk's synaptic events per step, summed on the device
 * (k_chunk_events): looking up each spike's out-degree on the host, in
 * random order, kept the GPU idle ~0.2 ms a chunk. */
#define OMPI_SKIP_MPICXX 1
#include <algorithm>
#include <hdf5.h>
#include <mpi.h>
#include "spk_cuda.h"

/* Chunks end at least every SIM_CHECK_STEPS steps anyway (main.c's checks). */
static const int64_t CHUNK_STEPS = SIM_CHECK_STEPS;

/* Events per step of the chunk: each spike's out-degree into ev[its step]
 * (integer atomics: exact in any order). */
__global__ void k_chunk_events(const uint64_t *spk, const unsigned long long *nspk, const int64_t *out_ptr, int64_t row0,
                               unsigned long long *ev)
{
    const int64_t T = (int64_t)gridDim.x * blockDim.x, m = (int64_t)*nspk;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < m; i += T) {
        const uint64_t x = spk[i];
        const int64_t g = row0 + (int64_t)(x & 0xffffffff);
        atomicAdd(&ev[x >> 32], (unsigned long long)(out_ptr[g + 1] - out_ptr[g]));
    }
}

void spk_chunk_setup(const sim_t *s, spk_cuda *g, int64_t max_entries)
{
    const int64_t n = std::max<int64_t>(g->n, 1);
    const int64_t steps = std::max<int64_t>(1, std::min<int64_t>(CHUNK_STEPS, max_entries / n));
    if (!g->out_ptr) g->out_ptr = dev_copy(s->spk->out_ptr, (size_t)g->N + 1, "synapses");   /* (fused path) */
    g->chunk.ev = dev_alloc<unsigned long long>((size_t)steps, "spikes");
    CK(cudaMemset(g->chunk.ev, 0, (size_t)steps * sizeof(unsigned long long)));
    CK(cudaMallocHost((void **)&g->chunk.h_ev, (size_t)steps * sizeof(unsigned long long)));
    g->chunk.cap = steps * n;
    g->chunk.spk = dev_alloc<uint64_t>((size_t)g->chunk.cap, "spikes");
    g->chunk.n = dev_alloc<unsigned long long>(1, "spikes");
    CK(cudaMemset(g->chunk.n, 0, sizeof(unsigned long long)));
    CK(cudaMallocHost((void **)&g->chunk.h_spk, (size_t)g->chunk.cap * sizeof(uint64_t) + 8));
    CK(cudaMallocHost((void **)&g->chunk.h_n, sizeof(unsigned long long)));
}

int64_t spk_chunk_max(const spk_cuda *g) { return g->chunk.cap / std::max<int64_t>(g->n, 1); }

void spk_chunk_collect(sim_t *s, spk_cuda *g, int64_t first, int64_t count)
{
    struct sim_spk *k = s->spk;
    const sim_config *c = s->cfg;
    const int64_t row0 = s->plan.row0;
    k_chunk_events<<<64, 256, 0, g->st>>>(g->chunk.spk, g->chunk.n, g->out_ptr, row0, g->chunk.ev);
    CK_LAUNCH("k_chunk_events");
    CK(cudaMemcpyAsync(g->chunk.h_n, g->chunk.n, sizeof(unsigned long long), cudaMemcpyDeviceToHost, g->st));
    CK(cudaMemcpyAsync(g->h_bad, g->bad, sizeof(unsigned long long), cudaMemcpyDeviceToHost, g->st));
    CK(cudaMemcpyAsync(g->chunk.h_ev, g->chunk.ev, (size_t)count * sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                       g->st));
    /* the spikes too, as many as the last chunks had (twice, at least 4096):
     * usually all of them, and the chunk costs one synchronisation, not two
     * (each ~10 us, against ~2.7 ms for the microcircuit's 256 steps) */
    const int64_t guess = std::min<int64_t>(g->chunk.cap, std::max<int64_t>(g->chunk.guess, 4096));
    CK(cudaMemcpyAsync(g->chunk.h_spk, g->chunk.spk, (size_t)guess * sizeof(uint64_t), cudaMemcpyDeviceToHost, g->st));
    CK(cudaMemsetAsync(g->chunk.n, 0, sizeof(unsigned long long), g->st));
    CK(cudaMemsetAsync(g->chunk.ev, 0, (size_t)count * sizeof(unsigned long long), g->st));
    CK(cudaStreamSynchronize(g->st));
    const int64_t ns = (int64_t)*g->chunk.h_n;
    if (ns > g->chunk.cap) olive_die("internal: %lld spikes in a chunk of room %lld", (long long)ns, (long long)g->chunk.cap);
    if (ns > guess) {   /* (the memsets above leave chunk_spk as it is) */
        CK(cudaMemcpyAsync(g->chunk.h_spk + guess, g->chunk.spk + guess, (size_t)(ns - guess) * sizeof(uint64_t),
                           cudaMemcpyDeviceToHost, g->st));
        CK(cudaStreamSynchronize(g->st));
    }
    g->chunk.guess = 2 * ns;
    /* The CPU engine counts a spike's events when its exchange window is
     * complete (windows of D steps from the first step): the same here. */
    const int64_t last = first + count - 1, start = c->run.start_step;
    const int64_t window0 = start + (last + 1 - start) / k->D * k->D;
    if (window0 > k->window0) {
        k->events += g->chunk.pend_events;
        k->exchanged += g->chunk.pend_spikes;
        g->chunk.pend_events = g->chunk.pend_spikes = 0;
        k->window0 = window0;
    }
    for (int64_t q = 0; q < count; q++) {
        if (first + q < window0) k->events += (int64_t)g->chunk.h_ev[q];
        else g->chunk.pend_events += (int64_t)g->chunk.h_ev[q];
    }
    spk_tspikes_reserve(s, ns);
    for (int64_t i = 0; i < ns; i++) {
        const int64_t step = first + (int64_t)(g->chunk.h_spk[i] >> 32), cell = row0 + (int64_t)(g->chunk.h_spk[i] & 0xffffffff);
        s->tspikes[0][s->tspike_n[0]++] = sim_spike{step, cell};
        if (step < window0) k->exchanged++;
        else g->chunk.pend_spikes++;
    }
    if (*g->h_bad != ~0ULL && s->bad_step < 0) {
        s->bad_step = (int64_t)(*g->h_bad >> 32);
        s->bad_cell = row0 + (int64_t)(*g->h_bad & 0xffffffff);
    }
}

void spk_chunk_free(spk_cuda *g)
{
    CK(cudaFree(g->chunk.spk));
    CK(cudaFree(g->chunk.n));
    CK(cudaFree(g->chunk.ev));
    if (g->chunk.h_ev) CK(cudaFreeHost(g->chunk.h_ev));
    if (g->chunk.h_spk) CK(cudaFreeHost(g->chunk.h_spk));
    if (g->chunk.h_n) CK(cudaFreeHost(g->chunk.h_n));
}
