/* The CUDA engine's side of a point model (point_model.h: a built-in one or
 * a plugin's, one path): the model's GPU image (LTO-IR of its three cell
 * functions, plugin_cell.h, made by `olive-model build` for a plugin, by the
 * Makefile for the built-in models) is linked with olive's kernels
 * (spk_plugin_kernels.cu, embedded here as LTO-IR) into one image for this
 * GPU (spk_cuda_link.h), loaded with the CUDA runtime's library API; its
 * kernels (spk_plugin_gpu.h) are the update, threshold, reset and the fused
 * strategy's steps. Delivery is the engine's own (spk_cuda.cu,
 * spk_cuda_devpush.cu), each receptor's sum multiplied by the cell's factor
 * (rscale, spk_plugin_scale: the CPU engine's value, NULL where every one is
 * 1) as the CPU engine does. The state lives on the device as nvars arrays
 * (var-major, as on the host). */
#define OMPI_SKIP_MPICXX 1
#include <hdf5.h>
#include <mpi.h>
#include "spk_cuda.h"
#include "spk_cuda_link.h"
#include "spk_plugin_gpu.h"
#include "spk_plugin_kernels.fatbin.h"   /* spk_plugin_kernels_ltoir[], 8-byte words (the Makefile: nvcc -dlto, bin2c) */
#include "util.h"

struct spk_plugin_cuda {
    const olive_model_plugin *pl;
    const char *where;         /* the plugin's path, or the built-in model's source */
    cudaLibrary_t lib;
    cudaKernel_t k_update, k_condition, k_on_spike, k_tail_update, k_tail_free, k_fused, k_update_due, k_owned, k_owned_few;
    int nvars;
    double *x[OLIVE_NVARS];    /* the state */
    double **state;            /* device copy of x[] */
    double *pcoef;             /* the coefficient sets */
    double *dummy;             /* receptor 1 of a one-receptor model (never read) */
};

double spk_plugin_cuda_bytes(const sim_t *s)
{
    const olive_model_plugin *pl = s->spk->point;
    int32_t sets = 0;   /* (the coefficient sets: one a population, or more with per-cell parameters) */
    for (int64_t r = 0; r < s->plan.nlocal; r++) sets = s->spk->coef_of[r] + 1 > sets ? s->spk->coef_of[r] + 1 : sets;
    return (double)s->plan.nlocal * 8.0 * (pl->model.nvars + 3) + (double)sets * (double)pl->ncoef * 8.0;
}

static cudaKernel_t kernel(spk_plugin_cuda *p, const char *name)
{
    cudaKernel_t k;
    cudaError_t e = cudaLibraryGetKernel(&k, p->lib, name);
    if (e != cudaSuccess)
        olive_die("internal: model %s: the linked image has no kernel %s (%s)", p->pl->model.name, name,
                  cudaGetErrorString(e));
    return k;
}

/* olive's plugin kernels and the model's cell functions, linked for this
 * GPU and loaded (one image: the model's functions inlined in the kernels). */
static void link_image(spk_plugin_cuda *p)
{
    const olive_model_plugin *pl = p->pl;
    const spk_link_input in[] = {
        {spk_plugin_kernels_ltoir, sizeof spk_plugin_kernels_ltoir, "olive's plugin kernels"},
        {pl->cuda_fatbin, pl->cuda_fatbin_size, pl->model.name},
    };
    const char *tail = pl->gpu_pass_blocks == 3 ? SPK_PLUGIN_KERNEL_TAIL_UPDATE_B3 : SPK_PLUGIN_KERNEL_TAIL_UPDATE_B1;
    const char *fused = pl->gpu_pass_blocks == 3 ? SPK_PLUGIN_KERNEL_FUSED_B4 : SPK_PLUGIN_KERNEL_FUSED;
    const char *const used[] = {SPK_PLUGIN_KERNEL_UPDATE, SPK_PLUGIN_KERNEL_CONDITION, SPK_PLUGIN_KERNEL_ON_SPIKE, tail,
                                SPK_PLUGIN_KERNEL_TAIL_FREE, fused, SPK_PLUGIN_KERNEL_UPDATE_DUE,
                                SPK_PLUGIN_KERNEL_OWNED, SPK_PLUGIN_KERNEL_OWNED_FEW, nullptr};
    char why[4096];
    int sm;
    double secs = 0;
    switch (spk_cuda_link_load(in, 2, used, &p->lib, &sm, &secs, why, sizeof why)) {
    case 0: break;
    case SPK_LINK_NO_LINKER:
        olive_die("--backend cuda: model %s (%s): its cell functions are linked into olive's kernels at load time, "
                  "and %s", pl->model.name, p->where, why);
    case SPK_LINK_FAILED:
        olive_die("%s: model %s: its GPU image and olive's kernels cannot be linked for this GPU (sm_%d): %s. A model's "
                  "image is built for OLIVE_CUDA_ARCH (sm_90 unless set) or an earlier GPU: build it again for this one "
                  "(OLIVE_CUDA_ARCH=sm_%d olive-model build ... --force)", p->where, pl->model.name, sm, why, sm);
    default:
        olive_die("%s: model %s: cannot load the linked GPU image (%s)", p->where, pl->model.name, why);
    }
    olive_info("CUDA engine: model %s's cell functions linked into olive's kernels for sm_%d (%.2f s)", pl->model.name,
               sm, secs);
}

void spk_plugin_cuda_setup(sim_t *s, spk_cuda *g)
{
    struct sim_spk *k = s->spk;
    const olive_model_plugin *pl = k->point;
    const char *where = k->plugin ? olive_plugin_path(pl) : pl->origin;
    const char *why = olive_plugin_gpu_refusal(pl);
    if (why) olive_die("--backend cuda: %s: model %s (%s): %s", s->cfg->run.net_path, pl->model.name, where, why);
    spk_plugin_cuda *p = (spk_plugin_cuda *)olive_calloc(1, sizeof *p, "CUDA engine");
    g->plugin = p;
    p->pl = pl;
    p->where = where;
    link_image(p);
    p->k_update = kernel(p, SPK_PLUGIN_KERNEL_UPDATE);
    p->k_condition = kernel(p, SPK_PLUGIN_KERNEL_CONDITION);
    p->k_on_spike = kernel(p, SPK_PLUGIN_KERNEL_ON_SPIKE);
    p->k_tail_update =
        kernel(p, pl->gpu_pass_blocks == 3 ? SPK_PLUGIN_KERNEL_TAIL_UPDATE_B3 : SPK_PLUGIN_KERNEL_TAIL_UPDATE_B1);
    p->k_tail_free = kernel(p, SPK_PLUGIN_KERNEL_TAIL_FREE);
    p->k_fused = kernel(p, pl->gpu_pass_blocks == 3 ? SPK_PLUGIN_KERNEL_FUSED_B4 : SPK_PLUGIN_KERNEL_FUSED);
    p->k_update_due = kernel(p, SPK_PLUGIN_KERNEL_UPDATE_DUE);
    p->k_owned = kernel(p, SPK_PLUGIN_KERNEL_OWNED);
    p->k_owned_few = kernel(p, SPK_PLUGIN_KERNEL_OWNED_FEW);
    /* (how many of the step's other kernels fit beside the pass depends on
     * its registers: said in -v, for the speed comparisons) */
    cudaFuncAttributes fa, ff;
    if (cudaFuncGetAttributes(&fa, (const void *)p->k_tail_update) == cudaSuccess &&
        cudaFuncGetAttributes(&ff, (const void *)p->k_tail_free) == cudaSuccess)
        olive_info("CUDA engine: the model's step pass: %d registers a thread (%d in its FREE form)", fa.numRegs, ff.numRegs);
    else
        (void)cudaGetLastError();
    const int64_t n = g->n;
    p->nvars = pl->model.nvars;
    for (int v = 0; v < p->nvars; v++) p->x[v] = dev_copy((const double *)s->state[v], (size_t)n, "the state");
    p->state = dev_copy(p->x, (size_t)p->nvars, "the state");
    int32_t sets = 0;
    for (int64_t r = 0; r < n; r++) sets = k->coef_of[r] + 1 > sets ? k->coef_of[r] + 1 : sets;
    p->pcoef = dev_copy(k->pcoef, (size_t)sets * (size_t)pl->ncoef, "coefficients");
    g->coef_of = dev_copy(k->coef_of, (size_t)n, "coefficients");
    /* each cell's receptor factors, as the CPU engine computes them; none
     * where all are 1 (the built-in models': a sum times 1 is the sum) */
    double *rs = (double *)olive_malloc(2 * (size_t)n * sizeof(double) + 8, "receptor factors");
    int ones = 1;
    for (int q = 0; q < 2; q++)
        for (int64_t r = 0; r < n; r++) {
            rs[q * n + r] = q < pl->model.nreceptors ? spk_plugin_scale(k, q, r) : 1.0;
            ones &= rs[q * n + r] == 1.0;
        }
    g->rscale = ones ? nullptr : dev_copy(rs, 2 * (size_t)n, "receptor factors");
    free(rs);
    /* the engine's receptor arrays are the model's receptor variables */
    p->dummy = dev_alloc<double>((size_t)n, "the state");
    CK(cudaMemset(p->dummy, 0, (size_t)n * sizeof(double)));
    const int nr = pl->model.nreceptors;
    g->ge = nr > 0 ? p->x[pl->model.receptors[0]] : p->dummy;
    g->gi = nr > 1 ? p->x[pl->model.receptors[1]] : p->dummy;
}

/* A session set a parameter (sim_set_param): the coefficient sets again,
 * in stream order before the next step's kernels. */
void spk_plugin_cuda_coef_changed(sim_t *s, spk_cuda *g)
{
    const struct sim_spk *k = s->spk;
    int32_t sets = 0;
    for (int64_t r = 0; r < g->n; r++) sets = k->coef_of[r] + 1 > sets ? k->coef_of[r] + 1 : sets;
    CK(cudaMemcpyAsync(g->plugin->pcoef, k->pcoef, (size_t)sets * (size_t)g->plugin->pl->ncoef * sizeof(double),
                       cudaMemcpyHostToDevice, g->st));
}

spk_plugin_args spk_plugin_cuda_args(const spk_cuda *g, int64_t step, int64_t q, const double *cur, int chunked,
                                     int condition)
{
    const spk_plugin_cuda *p = g->plugin;
    spk_plugin_args a;
    a.n = g->n;
    a.step = step;
    a.q = q;
    a.ncoef = p->pl->ncoef;
    a.coef = p->pcoef;
    a.coef_of = g->coef_of;
    a.cur = cur;
    a.state = p->state;
    a.flags = g->flags;
    a.spk = g->spk;
    a.nspk = g->nspk;
    a.chunk = chunked ? g->chunk.spk : nullptr;
    a.nchunk = chunked ? g->chunk.n : nullptr;
    a.bad = g->bad;
    a.pl = g->pl;
    a.condition = condition;
    a.reset_first = 0;
    return a;
}

cudaKernel_t spk_plugin_cuda_fused_kernel(const spk_cuda *g) { return g->plugin->k_fused; }
cudaKernel_t spk_plugin_cuda_owned_kernel(const spk_cuda *g, int few) { return few ? g->plugin->k_owned_few : g->plugin->k_owned; }

static void launch(const spk_cuda *g, cudaKernel_t k, spk_plugin_args a, const char *what,
                   spk_tail_args *tail = nullptr)
{
    void *one[] = {&a}, *two[] = {tail, &a};
    void **argv = tail ? two : one;
    const unsigned nb = (unsigned)((g->n + 255) / 256 > 0 ? (g->n + 255) / 256 : 1);
    if (tail) {   /* the tail and update pass: after the scatter, programmatically (spk_launch) */
        spk_launch(g, (const void *)k, nb, 256, argv, what);
        return;
    }
    CK(cudaLaunchKernel((const void *)k, dim3(nb), dim3(256), argv, 0, g->st));
    CK_LAUNCH(what);
}

int spk_plugin_cuda_late(const spk_cuda *g) { return g->plugin && g->plugin->pl->inputs_before_condition; }

void spk_plugin_cuda_update(sim_t *, spk_cuda *g, int64_t step, int64_t q, const double *cur, int chunked,
                            int reset_first)
{
    const int cond = !g->plugin->pl->inputs_before_condition;
    spk_plugin_args a = spk_plugin_cuda_args(g, step, q, cur, chunked, cond);
    a.reset_first = reset_first;
    launch(g, g->plugin->k_update, a, SPK_PLUGIN_KERNEL_UPDATE);
}

void spk_plugin_cuda_update_due(sim_t *, spk_cuda *g, const spk_due_args *due, int64_t step, const double *cur,
                                int reset_first)
{
    spk_plugin_args a = spk_plugin_cuda_args(g, step, 0, cur, 0, 1);
    a.reset_first = reset_first;
    spk_due_args d = *due;
    void *argv[] = {&d, &a};
    CK(cudaLaunchKernel((const void *)g->plugin->k_update_due, dim3(spk_blocks(g->n, 256)), dim3(256), argv, 0, g->st));
    CK_LAUNCH(SPK_PLUGIN_KERNEL_UPDATE_DUE);
}

void spk_plugin_cuda_tail_update(sim_t *, spk_cuda *g, const spk_tail_args *tail, int64_t step, int64_t q,
                                 const double *cur)
{
    spk_tail_args t = *tail;
    /* the pass without lists, draws or current where none is there
     * (spk_plugin_kernels.cu's FREE: the same results, fewer registers) */
    if (g->pass.plugin_free && !cur)
        launch(g, g->plugin->k_tail_free, spk_plugin_cuda_args(g, step, q, cur, 1, 1), SPK_PLUGIN_KERNEL_TAIL_FREE, &t);
    else
        launch(g, g->plugin->k_tail_update, spk_plugin_cuda_args(g, step, q, cur, 1, 1), "olive_plugin_tail_update", &t);
}

void spk_plugin_cuda_condition(sim_t *, spk_cuda *g, int64_t step, int64_t q, int chunked)
{
    launch(g, g->plugin->k_condition, spk_plugin_cuda_args(g, step, q, nullptr, chunked, 1), SPK_PLUGIN_KERNEL_CONDITION);
}

void spk_plugin_cuda_on_spike(sim_t *, spk_cuda *g, int64_t step)
{
    launch(g, g->plugin->k_on_spike, spk_plugin_cuda_args(g, step, 0, nullptr, 0, 0), SPK_PLUGIN_KERNEL_ON_SPIKE);
}

void spk_plugin_cuda_fetch(sim_t *s, spk_cuda *g)
{
    const spk_plugin_cuda *p = g->plugin;
    for (int v = 0; v < p->nvars; v++)
        CK(cudaMemcpyAsync(s->state[v], p->x[v], (size_t)g->n * sizeof(double), cudaMemcpyDeviceToHost, g->st));
}

void spk_plugin_cuda_free(spk_cuda *g)
{
    spk_plugin_cuda *p = g->plugin;
    if (!p) return;
    for (int v = 0; v < p->nvars; v++) CK(cudaFree(p->x[v]));
    CK(cudaFree(p->state));
    CK(cudaFree(p->pcoef));
    CK(cudaFree(p->dummy));
    CK(cudaLibraryUnload(p->lib));
    g->ge = g->gi = nullptr;   /* (the receptor variables freed above) */
    free(p);
    g->plugin = nullptr;
}
