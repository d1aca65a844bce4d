/* Cable cells (hh_traub, hh_cable) in the CUDA engine of spiking networks
 * (spk_cuda.cu): one thread per cell, the block's nodes interleaved as on
 * the CPU (node j of cell c at j * cells + c: neighbouring threads read
 * neighbouring words, the full-interleaved layout of the cuHinesBatch
 * thesis), stepping with spk_cable_cell_step, the function the CPU engine
 * runs. Delivery, exchange and Poisson input are the engine's (host or
 * device push); there is no reset. */
#define OMPI_SKIP_MPICXX 1
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>
#include <hdf5.h>
#include <mpi.h>
#include "rng.h"
#include "noise.h"
#include "lif.h"

#include "spk_cuda.h"
#include "spk_cable.h"

/* A block's shape and state with device pointers. */
typedef struct {
    int64_t r0, n;
    olive_cable_shape shape;
    olive_cable_state x;
    spk_cable_cellrule cr;
} dev_block;

struct spk_cable_cuda {
    int nblocks;
    dev_block *b;
    spk_cable_sites sites;   /* device copies (in: spk_cuda's ring.site_in) */
    double *vprev;
    int32_t *ref;
    double *sm, *sh, *sn;      /* the soma's m, h, n per cell (reports) */
};

__global__ void k_cable_update(dev_block b, spk_cable_sites st, const double *cur, double t, double dt, double *v, double *m, double *h,
                               double *hn, double *ge, double *gi, double *vprev, int32_t *ref, unsigned char *flags,
                               int32_t *spk, unsigned int *nspk, unsigned long long *bad, int64_t step, uint64_t *chunk,
                               unsigned long long *nchunk, int64_t q)
{
    const int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (c >= b.n) return;
    const int64_t r = b.r0 + c;
    const int fire = spk_cable_cell_step(&b.shape, &b.x, &b.cr, st, c, b.n, r, cur, t, dt, v, m, h, hn, ge, gi, vprev, ref);
    flags[r] = (unsigned char)fire;
    if (fire) {
        spk[atomicAdd(nspk, 1u)] = (int32_t)r;
        if (chunk) chunk[atomicAdd(nchunk, 1ULL)] = (uint64_t)q << 32 | (uint64_t)r;
    }
    if (!(v[r] - v[r] == 0)) atomicMin(bad, (unsigned long long)step << 32 | (unsigned long long)r);
}

double spk_cable_cuda_bytes(const sim_t *s)
{
    const struct spk_cable *e = s->spk->cable;
    double bytes = 0;
    for (int i = 0; i < e->nblocks; i++) {
        const spk_cable_block *b = &e->b[i];
        bytes += 8.0 * (double)b->n * (6.0 * b->shape.n + 3.0 * b->shape.nsyn + b->shape.nclamps) + 200.0 * b->shape.n;
    }
    return bytes + 12.0 * (double)s->plan.nlocal + 12.0 * (double)e->nsite + 8.0 * (double)s->plan.nlocal;
}

void spk_cable_cuda_setup(sim_t *s, spk_cuda *g)
{
    const struct spk_cable *e = s->spk->cable;
    for (int i = 0; i < e->nblocks; i++)   /* (their code is the CPU library's so far) */
        if (e->b[i].shape.mset)
            olive_die("%s: NMODL mechanisms (model %s) run on the CPU engine only so far: --backend cpu",
                      s->cfg->run.net_path, s->cfg->run.model->name);
    spk_cable_cuda *d = (spk_cable_cuda *)olive_calloc(1, sizeof *d, "CUDA cable cells");
    g->cable = d;
    d->nblocks = e->nblocks;
    d->b = (dev_block *)olive_calloc((size_t)e->nblocks + 1, sizeof(dev_block), "CUDA cable cells");
    for (int i = 0; i < e->nblocks; i++) {
        const spk_cable_block *h = &e->b[i];
        dev_block *b = &d->b[i];
        const int nn = h->shape.n;
        const size_t nodes = (size_t)nn * (size_t)h->n;
        b->r0 = h->r0;
        b->n = h->n;
        b->cr = h->cr;
        b->shape = h->shape;
        b->shape.parent = dev_copy(h->shape.parent, (size_t)nn, "cable shape");
        b->shape.mechs = dev_copy(h->shape.mechs, (size_t)nn, "cable shape");
        const double *src[] = {h->shape.area, h->shape.cm, h->shape.a, h->shape.b, h->shape.g_pas, h->shape.e_pas,
                               h->shape.gnabar, h->shape.gkbar, h->shape.gl, h->shape.el, h->shape.ena, h->shape.ek,
                               h->shape.vt};
        const double **dst[] = {&b->shape.area, &b->shape.cm, &b->shape.a, &b->shape.b, &b->shape.g_pas, &b->shape.e_pas,
                                &b->shape.gnabar, &b->shape.gkbar, &b->shape.gl, &b->shape.el, &b->shape.ena, &b->shape.ek,
                                &b->shape.vt};
        for (size_t k = 0; k < sizeof src / sizeof src[0]; k++) *dst[k] = dev_copy(src[k], (size_t)nn, "cable shape");
        b->shape.clamps = dev_copy(h->shape.clamps, (size_t)h->shape.nclamps, "cable shape");
        b->shape.syn = dev_copy(h->shape.syn, (size_t)h->shape.nsyn, "cable shape");
        b->shape.hh_table = h->shape.hh_table ? dev_copy(h->shape.hh_table, 1, "hh table") : nullptr;
        b->x.v = dev_copy(h->x.v, nodes, "cable cells");
        b->x.m = dev_copy(h->x.m, nodes, "cable cells");
        b->x.h = dev_copy(h->x.h, nodes, "cable cells");
        b->x.n = dev_copy(h->x.n, nodes, "cable cells");
        b->x.d = dev_alloc<double>(nodes, "cable cells");
        b->x.rhs = dev_alloc<double>(nodes, "cable cells");
        b->x.syn_g = dev_copy(h->x.syn_g, (size_t)h->shape.nsyn * (size_t)h->n, "cable cells");
        b->x.syn_a = dev_copy(h->x.syn_a, (size_t)h->shape.nsyn * (size_t)h->n, "cable cells");
        b->x.clamp_amp = dev_copy(h->x.clamp_amp, (size_t)h->shape.nclamps * (size_t)h->n, "cable cells");
    }
    const int64_t n = s->plan.nlocal;
    if (e->sites.ptr) {   /* the channels of the synapse sites; their weights in g->ring.site_in (k_deliver's) */
        d->sites.ptr = dev_copy(e->sites.ptr, (size_t)n + 1, "synapse sites");
        d->sites.obj = dev_copy(e->sites.obj, (size_t)e->nsite, "synapse sites");
        g->ring.site_in = dev_copy(e->sites.in, (size_t)e->nsite, "synapse sites");
        d->sites.in = g->ring.site_in;
    }
    d->vprev = dev_copy(e->vprev, (size_t)n, "cable cells");
    d->ref = dev_copy(e->ref, (size_t)n, "cable cells");
    g->cable->sm = dev_copy((const double *)s->state[1], (size_t)n, "the state");
    g->cable->sh = dev_copy((const double *)s->state[2], (size_t)n, "the state");
    g->cable->sn = dev_copy((const double *)s->state[3], (size_t)n, "the state");
}

void spk_cable_cuda_update(sim_t *s, spk_cuda *g, int64_t step, int64_t q, const double *cur)
{
    spk_cable_cuda *d = g->cable;
    const int chunked = g->mode == SPK_DEVICE_PUSH;
    const double dt = s->cfg->run.dt, t = (double)step * dt;
    for (int i = 0; i < d->nblocks; i++) {
        const dev_block *b = &d->b[i];
        k_cable_update<<<(unsigned)((b->n + 127) / 128), 128, 0, g->st>>>(
            *b, d->sites, cur, t, dt, g->v, g->cable->sm, g->cable->sh, g->cable->sn, g->ge, g->gi, d->vprev, d->ref, g->flags, g->spk, g->nspk, g->bad,
            step, chunked ? g->chunk.spk : nullptr, chunked ? g->chunk.n : nullptr, q);
        CK_LAUNCH("k_cable_update");
    }
}

void spk_cable_cuda_fetch(sim_t *s, spk_cuda *g)
{
    double *dev[3] = {g->cable->sm, g->cable->sh, g->cable->sn};
    for (int v = 0; v < 3; v++)
        CK(cudaMemcpyAsync(s->state[1 + v], dev[v], (size_t)g->n * sizeof(double), cudaMemcpyDeviceToHost, g->st));
    if (!s->cfg->rec.ncomp_vars) return;
    /* compartment reports: every node of every block into the host blocks */
    const struct spk_cable *e = s->spk->cable;
    for (int i = 0; i < e->nblocks; i++) {
        const spk_cable_block *h = &e->b[i];
        const dev_block *b = &g->cable->b[i];
        const size_t bytes = (size_t)h->shape.n * (size_t)h->n * sizeof(double);
        CK(cudaMemcpyAsync(h->x.v, b->x.v, bytes, cudaMemcpyDeviceToHost, g->st));
        CK(cudaMemcpyAsync(h->x.m, b->x.m, bytes, cudaMemcpyDeviceToHost, g->st));
        CK(cudaMemcpyAsync(h->x.h, b->x.h, bytes, cudaMemcpyDeviceToHost, g->st));
        CK(cudaMemcpyAsync(h->x.n, b->x.n, bytes, cudaMemcpyDeviceToHost, g->st));
    }
}

void spk_cable_cuda_free(spk_cuda *g)
{
    spk_cable_cuda *d = g->cable;
    if (!d) return;
    for (int i = 0; i < d->nblocks; i++) {
        dev_block *b = &d->b[i];
        const void *p[] = {b->shape.parent, b->shape.mechs, b->shape.area, b->shape.cm, b->shape.a, b->shape.b,
                           b->shape.g_pas, b->shape.e_pas, b->shape.gnabar, b->shape.gkbar, b->shape.gl, b->shape.el,
                           b->shape.ena, b->shape.ek, b->shape.vt, b->shape.clamps, b->shape.syn, b->shape.hh_table, b->x.v, b->x.m,
                           b->x.h, b->x.n, b->x.d, b->x.rhs, b->x.syn_g, b->x.syn_a, b->x.clamp_amp};
        for (size_t k = 0; k < sizeof p / sizeof p[0]; k++) CK(cudaFree((void *)p[k]));
    }
    CK(cudaFree((void *)d->sites.ptr));
    CK(cudaFree((void *)d->sites.obj));
    CK(cudaFree(g->ring.site_in));
    CK(cudaFree(d->vprev));
    CK(cudaFree(d->ref));
    CK(cudaFree(g->cable->sm));
    CK(cudaFree(g->cable->sh));
    CK(cudaFree(g->cable->sn));
    free(d->b);
    free(d);
    g->cable = nullptr;
}
