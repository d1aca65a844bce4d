/* Plastic synapses on the CUDA engine: the host's side (spk_plastic.cuh is
 * the device's). Set-up copies the host's tables (spk_plastic.c: the
 * synapses' projections and states in list order, the rules, the cells'
 * tau_minus) and makes each cell a ring of its newest spikes; the fetch
 * brings the weights, states and rings back for state.h5. Device push with
 * static buckets (an event sent by one thread, in step order) and the host
 * path of several ranks (a window's events made step by step:
 * spk_cuda.cu's k_events); other paths refuse plastic networks, named. */
#define OMPI_SKIP_MPICXX 1
#include <cuda_runtime.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include "spk_cuda.h"

struct spk_plastic_cuda {
    spk_plastic_dev d;   /* the view, as copied to g->pl */
    int64_t nsyn;
    int64_t *wx;         /* a weight frame's list entries (weights.h5), and their weights */
    double *ww;
    int64_t wcap;
    const int64_t *wx_of;   /* the caller's index array now in wx (sim_engine.weights: it stays as it is) */
    int64_t wx_n;
    spk_out *ev;         /* the host path: a window's events as delivered (target, receptor, weight) */
    int64_t evcap;
};

/* The ring's entries a cell of n: OLIVE_GPU_STDP_HISTORY, by default as many
 * as 64 MiB of rings hold (16 bytes an entry), from 64 to 65536. An stdp
 * update needs every spike of its target since the synapse's last one: a
 * small network whose inputs fire rarely (PyNN's scenario 3: 10 cells, 5 Hz
 * inputs over 10 s) needed more than 64; a large one cannot spend the memory,
 * and there a ring too small stops the run, named (spk_plastic_cuda_check). */
static int64_t ring_size(int64_t n)
{
    const char *env = getenv("OLIVE_GPU_STDP_HISTORY");
    if (!env || !*env) {
        const int64_t fit = (INT64_C(64) << 20) / (16 * (n > 0 ? n : 1));
        return fit < 64 ? 64 : fit > 65536 ? 65536 : fit;
    }
    char *end = NULL;
    const long long v = strtoll(env, &end, 10);
    if (*end || v < 1 || v > 1 << 20) olive_die("OLIVE_GPU_STDP_HISTORY='%s': expected an integer in 1..%d", env, 1 << 20);
    return v;
}

void spk_plastic_cuda_setup(sim_t *s, spk_cuda *g)
{
    struct sim_spk *k = s->spk;
    /* (a plugin's cells note their spikes in its rings as the built-in
     * models' do: olive_plugin_test, spk_plugin_kernels.cu) */
    if ((g->mode != SPK_HOST_PUSH && (g->mode != SPK_DEVICE_PUSH || !g->pass.sb)) || g->cable)
        olive_die("%s: plastic synapses on the CUDA engine need the host path or device push with static buckets (20 "
                  "bytes a synapse in half of the free device memory; not OLIVE_GPU_BUCKETS=dynamic) and a point "
                  "model, so far: --backend cpu", s->cfg->run.net_path);
    spk_plastic_view v;
    spk_plastic_view_of(k, &v);
    const int64_t n = g->n, nsyn = k->nsyn, cap = ring_size(g->n);
    spk_plastic_cuda *h = (spk_plastic_cuda *)olive_calloc(1, sizeof *h, "plastic synapses");
    g->plh = h;
    h->nsyn = nsyn;
    spk_plastic_dev &d = h->d;
    d.proj = dev_copy(v.proj_of, (size_t)nsyn, "plastic synapses");
    d.st = dev_copy(v.st, (size_t)nsyn, "plastic synapses");
    d.rule = dev_copy(v.rule, (size_t)v.nproj, "plastic synapses");
    d.out = g->out;
    d.tau_minus = dev_copy(v.tau_minus, (size_t)n, "plastic synapses");
    d.cap = cap;
    d.hstep = dev_alloc<int64_t>((size_t)(n * cap), "the cells' spike rings (OLIVE_GPU_STDP_HISTORY)");
    d.hkm = dev_alloc<double>((size_t)(n * cap), "the cells' spike rings (OLIVE_GPU_STDP_HISTORY)");
    d.hcount = dev_alloc<int64_t>((size_t)n, "plastic synapses");
    CK(cudaMemset(d.hcount, 0, (size_t)n * sizeof(int64_t)));
    int64_t *none = (int64_t *)olive_malloc((size_t)(n + 1) * sizeof(int64_t), "plastic synapses");
    double *minus1 = (double *)olive_malloc((size_t)(n + 1) * sizeof(double), "plastic synapses");
    for (int64_t r = 0; r < n; r++) { none[r] = OLIVE_POST_NONE; minus1[r] = -1.0; }   /* NEST's last_spike_ before any */
    d.hdropped = dev_copy(none, (size_t)n, "plastic synapses");
    d.last_t = dev_copy(minus1, (size_t)n, "plastic synapses");
    free(none);
    free(minus1);
    d.kminus = dev_alloc<double>((size_t)n, "plastic synapses");
    CK(cudaMemset(d.kminus, 0, (size_t)n * sizeof(double)));
    d.dt = s->cfg->run.dt;
    d.overflow = dev_alloc<int>(1, "plastic synapses");
    CK(cudaMemset(d.overflow, 0, sizeof(int)));
    g->pl = dev_copy(&d, 1, "plastic synapses");
    olive_info("rank %d: CUDA engine: plastic synapses, rings of %lld spikes a cell (OLIVE_GPU_STDP_HISTORY)", s->rank,
               (long long)cap);
}

void spk_plastic_cuda_check(spk_cuda *g)
{
    int over = 0;
    CK(cudaMemcpy(&over, g->plh->d.overflow, sizeof over, cudaMemcpyDeviceToHost));
    if (over)
        olive_die("CUDA engine: a cell fired more than the %lld spikes its ring keeps (OLIVE_GPU_STDP_HISTORY) between two "
                  "spikes of one of its stdp inputs, so an update would have missed one: raise OLIVE_GPU_STDP_HISTORY, or "
                  "--backend cpu (which keeps every spike)", (long long)g->plh->d.cap);
}

void spk_plastic_cuda_fetch(sim_t *s, spk_cuda *g)
{
    struct sim_spk *k = s->spk;
    const spk_plastic_dev &d = g->plh->d;
    const int64_t n = g->n, nsyn = g->plh->nsyn, cap = d.cap;
    spk_plastic_cuda_check(g);
    spk_plastic_view v;
    spk_plastic_view_of(k, &v);
    CK(cudaMemcpy(k->out, g->out, (size_t)nsyn * sizeof(spk_out), cudaMemcpyDeviceToHost));   /* (the weights) */
    CK(cudaMemcpy(v.st, d.st, (size_t)nsyn * sizeof(olive_plast_state), cudaMemcpyDeviceToHost));
    int64_t *hs = (int64_t *)olive_malloc((size_t)(n * cap + 1) * sizeof(int64_t), "spike history");
    double *hk = (double *)olive_malloc((size_t)(n * cap + 1) * sizeof(double), "spike history");
    int64_t *cnt = (int64_t *)olive_malloc((size_t)(n + 1) * sizeof(int64_t), "spike history");
    int64_t *drop = (int64_t *)olive_malloc((size_t)(n + 1) * sizeof(int64_t), "spike history");
    double *km = (double *)olive_malloc((size_t)(n + 1) * sizeof(double), "spike history");
    double *lt = (double *)olive_malloc((size_t)(n + 1) * sizeof(double), "spike history");
    CK(cudaMemcpy(hs, d.hstep, (size_t)(n * cap) * sizeof(int64_t), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hk, d.hkm, (size_t)(n * cap) * sizeof(double), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(cnt, d.hcount, (size_t)n * sizeof(int64_t), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(drop, d.hdropped, (size_t)n * sizeof(int64_t), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(km, d.kminus, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(lt, d.last_t, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost));
    int64_t *ts = (int64_t *)olive_malloc((size_t)(cap + 1) * sizeof(int64_t), "spike history");
    double *tk = (double *)olive_malloc((size_t)(cap + 1) * sizeof(double), "spike history");
    for (int64_t r = 0; r < n; r++) {   /* each ring oldest first */
        const int64_t c = cnt[r], m = c < cap ? c : cap, first = c < cap ? 0 : c % cap;
        for (int64_t i = 0; i < m; i++) {
            ts[i] = hs[r * cap + (first + i) % cap];
            tk[i] = hk[r * cap + (first + i) % cap];
        }
        spk_plastic_set_history(k, r, ts, tk, m, drop[r], km[r], lt[r], cap);
    }
    free(hs); free(hk); free(cnt); free(drop); free(km); free(lt); free(ts); free(tk);
}

static __global__ void k_gather_weights(const spk_out *out, const int64_t *x, int64_t n, double *w)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        w[i] = out[x[i]].w;
}

void spk_plastic_cuda_weights(spk_cuda *g, const int64_t *x, int64_t n, double *w)
{
    spk_plastic_cuda *h = g->plh;
    if (!h) olive_die("internal: weights of a network without plastic synapses on the device");
    spk_plastic_cuda_check(g);   /* (a ring that dropped a spike an update needed: the weights would be wrong) */
    if (n == 0) return;
    if (n > h->wcap) {
        CK(cudaFree(h->wx));
        CK(cudaFree(h->ww));
        CK(cudaMalloc(&h->wx, (size_t)n * sizeof(int64_t)));
        CK(cudaMalloc(&h->ww, (size_t)n * sizeof(double)));
        h->wcap = n;
        h->wx_of = NULL;
    }
    /* the index once per selection, not at every read (8 MB for 1e6 weights: a session reads them often) */
    if (x != h->wx_of || n != h->wx_n) {
        CK(cudaMemcpyAsync(h->wx, x, (size_t)n * sizeof(int64_t), cudaMemcpyHostToDevice, g->st));
        h->wx_of = x;
        h->wx_n = n;
    }
    k_gather_weights<<<spk_blocks(n, 256), 256, 0, g->st>>>(g->out, h->wx, n, h->ww);
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(w, h->ww, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost, g->st));
    CK(cudaStreamSynchronize(g->st));
}

spk_out *spk_plastic_cuda_event_buffer(spk_cuda *g, int64_t E)
{
    spk_plastic_cuda *h = g->plh;
    if (E > h->evcap) {
        CK(cudaFree(h->ev));
        CK(cudaMalloc(&h->ev, (size_t)E * sizeof(spk_out)));
        h->evcap = E;
    }
    return h->ev;
}

void spk_plastic_cuda_free(spk_cuda *g)
{
    spk_plastic_cuda *h = g->plh;
    if (!h) return;
    const void *p[] = {h->d.proj, h->d.st, h->d.rule, h->d.tau_minus, h->d.hstep, h->d.hkm, h->d.hcount, h->d.hdropped,
                       h->d.kminus, h->d.last_t, h->d.overflow, g->pl, h->wx, h->ww, h->ev};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) CK(cudaFree((void *)p[i]));
    free(h);
    g->plh = NULL;
    g->pl = NULL;
}
