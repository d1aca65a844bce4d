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
#include "spk_cable_kernel.cuh"
#include "spk_cuda_link.h"
#include "spk_cable_mech_kernels.fatbin.h"

struct spk_cable_cuda {
    int nblocks;
    dev_block *b;
    spk_cable_sites sites;   /* device copies (in: spk_cuda's ring.site_in) */
    double *vprev;
    int32_t *ref;
    double *sm, *sh, *sn;      /* the soma's m, h, n per cell (reports) */
    /* NMODL mechanisms (cable_mechs.h): the cable kernel linked with the library's GPU image */
    cudaLibrary_t lib;
    cudaKernel_t k_mechs;
    void *mem[64 * 8];         /* the device allocations of the blocks' mechanism sets */
    int nmem;
};

__global__ void k_cable_update(SPK_CABLE_KERNEL_PARAMS)
{
    spk_cable_update_cell(b, st, cur, t, dt, v, m, h, hn, ge, gi, vprev, ref, flags, spk, nspk, bad, step, chunk, nchunk, q);
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

template <typename T> static T *mech_copy(spk_cable_cuda *d, const T *src, size_t n)
{
    if (d->nmem == (int)(sizeof d->mem / sizeof d->mem[0])) olive_die("CUDA engine: too many mechanism sets");
    T *p = dev_copy(src, n ? n : 1, "NMODL mechanisms");
    d->mem[d->nmem++] = (void *)p;
    return p;
}

/* A device copy of a block's mechanism set: its instances' nodes,
 * parameters and tables, the ions' styles and charges (the library stays on the host:
 * the kernel calls the library's linked device functions). */
static const olive_mech_set *mset_to_device(spk_cable_cuda *d, const olive_mech_set *ms)
{
    olive_mech_use *use = (olive_mech_use *)olive_calloc((size_t)ms->nuse + 1, sizeof *use, "NMODL mechanisms");
    for (int k = 0; k < ms->nuse; k++) {
        const olive_mech_use *u = &ms->use[k];
        use[k] = *u;
        use[k].node = mech_copy(d, u->node, (size_t)u->ninst);
        use[k].p = mech_copy(d, u->p, (size_t)u->ninst * (size_t)ms->lib->mech[u->m].nparam);
        if (u->tab) use[k].tab = mech_copy(d, u->tab, (size_t)ms->lib->mech[u->m].ntab);
        if (u->mfact) use[k].mfact = mech_copy(d, u->mfact, (size_t)u->ninst);
    }
    olive_mech_set c = *ms;
    c.lib = nullptr;
    c.use = mech_copy(d, use, (size_t)ms->nuse);
    c.ion_style = mech_copy(d, ms->ion_style, (size_t)ms->nnode * (size_t)ms->nion);
    c.ion0 = nullptr;
    c.charge = mech_copy(d, ms->charge, (size_t)ms->nion);
    c.used = mech_copy(d, ms->used, (size_t)ms->nused);
    c.adv = mech_copy(d, ms->adv, (size_t)ms->nadv);
    c.pv = nullptr;
    c.pt = ms->pt ? mech_copy(d, ms->pt, (size_t)ms->npt * 2) : nullptr;
    free(use);
    return mech_copy(d, &c, 1);
}

/* olive's cable kernel and the library's mechanisms, linked for this GPU
 * (nvJitLink: the mechanisms' functions inlined into the kernel) and loaded. */
static void link_mechanisms(sim_t *s, spk_cable_cuda *d, const olive_mech_library *lib)
{
    if (!lib->cuda_fatbin)
        olive_die("--backend cuda: %s: the mechanism library %s has no GPU image (built where nvcc was not): build it "
                  "again with olive-model build where the CUDA toolkit is, or run --backend cpu",
                  s->cfg->run.net_path, lib->name);
    const spk_link_input in[] = {
        {spk_cable_mech_kernels_ltoir, sizeof spk_cable_mech_kernels_ltoir, "olive's cable kernel"},
        {lib->cuda_fatbin, lib->cuda_fatbin_size, lib->name},
    };
    const char *const used[] = {SPK_CABLE_MECH_KERNEL, nullptr};
    char why[4096];
    int sm;
    double secs = 0;
    switch (spk_cuda_link_load(in, 2, used, &d->lib, &sm, &secs, why, sizeof why)) {
    case 0: break;
    case SPK_LINK_NO_LINKER:
        olive_die("--backend cuda: mechanism library %s: its functions are linked into olive's cable kernel at load "
                  "time, and %s", lib->name, why);
    case SPK_LINK_FAILED:
        olive_die("%s: mechanism library %s: its GPU image and olive's cable kernel cannot be linked for this GPU "
                  "(sm_%d): %s. Build it again for this GPU: OLIVE_CUDA_ARCH=sm_%d olive-model build ... --force",
                  s->cfg->run.net_path, lib->name, sm, why, sm);
    default:
        olive_die("%s: mechanism library %s: cannot load the linked GPU image (%s)", s->cfg->run.net_path, lib->name, why);
    }
    const cudaError_t err = cudaLibraryGetKernel(&d->k_mechs, d->lib, SPK_CABLE_MECH_KERNEL);
    if (err != cudaSuccess)
        olive_die("internal: the linked cable image has no kernel %s (%s)", SPK_CABLE_MECH_KERNEL, cudaGetErrorString(err));
    olive_info("CUDA engine: mechanism library %s linked into olive's cable kernel for sm_%d (%.2f s)", lib->name, sm,
               secs);
}

void spk_cable_cuda_setup(sim_t *s, spk_cuda *g)
{
    const struct spk_cable *e = s->spk->cable;
    const olive_mech_library *lib = nullptr;
    for (int i = 0; i < e->nblocks; i++)   /* one library a run: its functions are the kernel's */
        if (e->b[i].shape.mset) {
            if (lib && e->b[i].shape.mset->lib != lib)
                olive_die("--backend cuda: %s: populations use the mechanism libraries %s and %s: the CUDA engine "
                          "links one library a run (build their .mod files into one, or run --backend cpu)",
                          s->cfg->run.net_path, lib->name, e->b[i].shape.mset->lib->name);
            lib = e->b[i].shape.mset->lib;
        }
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
        if (h->shape.mset) {
            const olive_mech_set *ms = h->shape.mset;
            b->shape.mset = mset_to_device(d, ms);
            b->x.mx = mech_copy(d, h->x.mx, (size_t)ms->nx * (size_t)h->n);
            b->x.ion = mech_copy(d, h->x.ion, (size_t)ms->nnode * (size_t)ms->nion * OLIVE_ION_NF * (size_t)h->n);
        }
    }
    if (lib) link_mechanisms(s, d, lib);
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
        uint64_t *chunk = chunked ? g->chunk.spk : nullptr;
        unsigned long long *nchunk = chunked ? g->chunk.n : nullptr;
        if (b->shape.mset) {   /* the kernel linked with the mechanisms: the same arguments, by address */
            dev_block bb = *b;
            spk_cable_sites st = d->sites;
            double tt = t, ddt = dt;
            int64_t sstep = step, qq = q;
            void *args[] = {&bb, &st, (void *)&cur, &tt, &ddt, &g->v, &d->sm, &d->sh, &d->sn, &g->ge, &g->gi, &d->vprev,
                            &d->ref, &g->flags, &g->spk, &g->nspk, &g->bad, &sstep, &chunk, &nchunk, &qq};
            CK(cudaLaunchKernel((const void *)d->k_mechs, dim3((unsigned)((b->n + 127) / 128)), dim3(128), args, 0, g->st));
            continue;
        }
        k_cable_update<<<(unsigned)((b->n + 127) / 128), 128, 0, g->st>>>(
            *b, d->sites, cur, t, dt, g->v, g->cable->sm, g->cable->sh, g->cable->sn, g->ge, g->gi, d->vprev, d->ref, g->flags, g->spk, g->nspk, g->bad,
            step, chunk, nchunk, q);
        CK_LAUNCH("k_cable_update");
    }
}

void spk_cable_cuda_fetch(sim_t *s, spk_cuda *g, int all)
{
    double *dev[3] = {g->cable->sm, g->cable->sh, g->cable->sn};
    for (int v = 0; v < 3; v++)
        CK(cudaMemcpyAsync(s->state[1 + v], dev[v], (size_t)g->n * sizeof(double), cudaMemcpyDeviceToHost, g->st));
    const struct spk_cable *e = s->spk->cable;
    if (all) {   /* a state file: everything a cell's record holds (spk_cable_state.c) */
        const size_t n = (size_t)s->plan.nlocal;
        CK(cudaMemcpyAsync(e->vprev, g->cable->vprev, n * sizeof(double), cudaMemcpyDeviceToHost, g->st));
        CK(cudaMemcpyAsync(e->ref, g->cable->ref, n * sizeof(int32_t), cudaMemcpyDeviceToHost, g->st));
        if (e->sites.ptr)
            CK(cudaMemcpyAsync(e->sites.in, g->ring.site_in, (size_t)e->nsite * sizeof(double), cudaMemcpyDeviceToHost, g->st));
        for (int i = 0; i < e->nblocks; i++) {
            const spk_cable_block *h = &e->b[i];
            const dev_block *b = &g->cable->b[i];
            const size_t syn = (size_t)h->shape.nsyn * (size_t)h->n * sizeof(double);
            CK(cudaMemcpyAsync(h->x.syn_g, b->x.syn_g, syn, cudaMemcpyDeviceToHost, g->st));
            CK(cudaMemcpyAsync(h->x.syn_a, b->x.syn_a, syn, cudaMemcpyDeviceToHost, g->st));
        }
    }
    if (!all && !s->cfg->rec.ncomp_vars && !s->cfg->rec.ncomp_mech) return;
    /* compartment reports and states: every node of every block into the host blocks */
    for (int i = 0; i < e->nblocks; i++) {
        const spk_cable_block *h = &e->b[i];
        const dev_block *b = &g->cable->b[i];
        const size_t bytes = (size_t)h->shape.n * (size_t)h->n * sizeof(double);
        CK(cudaMemcpyAsync(h->x.v, b->x.v, bytes, cudaMemcpyDeviceToHost, g->st));
        CK(cudaMemcpyAsync(h->x.m, b->x.m, bytes, cudaMemcpyDeviceToHost, g->st));
        CK(cudaMemcpyAsync(h->x.h, b->x.h, bytes, cudaMemcpyDeviceToHost, g->st));
        CK(cudaMemcpyAsync(h->x.n, b->x.n, bytes, cudaMemcpyDeviceToHost, g->st));
        if ((all || s->cfg->rec.ncomp_mech) && h->shape.mset) {   /* NMODL variables: the mechanisms' and the ions' arrays */
            const olive_mech_set *ms = h->shape.mset;
            CK(cudaMemcpyAsync(h->x.mx, b->x.mx, (size_t)ms->nx * (size_t)h->n * sizeof(double), cudaMemcpyDeviceToHost, g->st));
            CK(cudaMemcpyAsync(h->x.ion, b->x.ion, (size_t)ms->nnode * (size_t)ms->nion * OLIVE_ION_NF * (size_t)h->n *
                               sizeof(double), cudaMemcpyDeviceToHost, g->st));
        }
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
    for (int k = 0; k < d->nmem; k++) CK(cudaFree(d->mem[k]));
    if (d->lib) CK(cudaLibraryUnload(d->lib));
    free(d->b);
    free(d);
    g->cable = nullptr;
}
