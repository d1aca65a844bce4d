/* --order-free-sums on the host (weight_quantum.h says what and why): the
 * rank's per-source lists, as the CPU engine and the CUDA engine's copy
 * take them. The CUDA engine rounds the lists it makes on the device itself
 * (spk_cuda_quantum.cu), with the same F and the same rounding. */
#include "spk.h"
#include "conn_rule.h"
#include "util.h"
#include "weight_quantum.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The precision every projection keeps: its weights are rounded by at most
 * 2^-OLIVE_WQ_REL_BITS of its largest |weight| (float's precision), or the
 * run is refused. A grid set by one projection of large weights would
 * otherwise round another's small weights away (1e9 beside 1e-6: to 0). */
#define OLIVE_WQ_REL_BITS 24

struct spk_wq_scale {
    char name[OLIVE_NAME_LEN];
    double wmax;
};

/* The scale of a rule's weights (drawn later, on the device). */
static double rule_scale(const olive_value *w)
{
    return w->normal ? fmax(fabs(w->mean), w->sd) : fmax(fabs(w->a), fabs(w->b));
}

void spk_quantum_scales(sim_t *s, const olive_synapses *syn)
{
    struct sim_spk *k = s->spk;
    if (k->wq.order_free && syn->n == 0 && k->drawn.n) {   /* rules drawn at each spike (no rows held) */
        k->wq.scale = olive_calloc((size_t)k->drawn.n, sizeof *k->wq.scale, "--order-free-sums");
        k->wq.nproj = k->drawn.n;
        for (int j = 0; j < k->drawn.n; j++) {
            const char *nm = strstr(k->drawn.conn[j].what, "/synapses/");   /* ("FILE: /synapses/NAME (procedural)") */
            nm = nm ? nm + 10 : k->drawn.conn[j].what;
            snprintf(k->wq.scale[j].name, sizeof k->wq.scale[j].name, "%.*s", (int)strcspn(nm, " "), nm);
            k->wq.scale[j].wmax = rule_scale(&k->drawn.conn[j].w);
        }
        return;
    }
    if (!k->wq.order_free || syn->n == 0) return;
    double *m = olive_calloc((size_t)syn->n, sizeof *m, "--order-free-sums");
    k->wq.scale = olive_calloc((size_t)syn->n, sizeof *k->wq.scale, "--order-free-sums");
    k->wq.nproj = syn->n;
    for (int j = 0; j < syn->n; j++) {
        const olive_projection *p = &syn->proj[j];
        snprintf(k->wq.scale[j].name, sizeof k->wq.scale[j].name, "%s", p->name);
        if (p->kept) {   /* drawn later, on the device: the scale of its weight rule */
            m[j] = rule_scale(&p->kept->w);
        } else if (!p->weight) {
            m[j] = p->nnz > 0 ? fabs(p->weight_value) : 0;
        } else {
            for (int64_t e = 0; e < p->nnz; e++) m[j] = fmax(m[j], fabs(p->weight[e]));
        }
    }
    SIM_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, m, syn->n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    for (int j = 0; j < syn->n; j++) k->wq.scale[j].wmax = m[j];
    free(m);
}

void spk_quantum_free(sim_t *s)
{
    free(s->spk->wq.scale);
    s->spk->wq.scale = NULL;
}

/* Refuses the run when the grid 2^-bits rounds some projection's weights by
 * more than 2^-OLIVE_WQ_REL_BITS of its largest |weight|. */
static void check_precision(sim_t *s, int bits, int64_t indeg, double wmax)
{
    const struct sim_spk *k = s->spk;
    const double err = ldexp(1.0, -bits - 1);   /* the largest rounding error */
    for (int j = 0; j < k->wq.nproj; j++) {
        const double w = k->wq.scale[j].wmax;
        if (w > 0 && err > ldexp(w, -OLIVE_WQ_REL_BITS))
            olive_die("%s: --order-free-sums: projection %s: its weights (largest |weight| %g) would be rounded to "
                      "multiples of 2^%d, the grid that keeps every sum exact for the network's largest in-degree "
                      "%lld and largest |weight| %g: an error of up to %.3g of its largest weight, more than the "
                      "2^-%d that --order-free-sums keeps (run without --order-free-sums, or bring the projections' "
                      "weights closer in size)", s->cfg->run.net_path, k->wq.scale[j].name, w, -bits,
                      (long long)indeg, wmax, err / w, OLIVE_WQ_REL_BITS);
    }
}

int spk_quantum_bits(sim_t *s, int64_t indeg, double wmax)
{
    struct sim_spk *k = s->spk;
    int64_t dall = 0;
    double wall = 0;
    SIM_CHECK_MPI(MPI_Allreduce(&indeg, &dall, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD));
    SIM_CHECK_MPI(MPI_Allreduce(&wmax, &wall, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    k->wq.bits = olive_weight_quantum_bits(dall, wall);
    if (dall > 0 && wall > 0) check_precision(s, k->wq.bits, dall, wall);
    if (dall > 0 && wall > 0)
        olive_info("--order-free-sums: weights rounded to multiples of 2^%d (largest in-degree %lld, largest |weight| %g)",
                   -k->wq.bits, (long long)dall, wall);
    else
        olive_info("--order-free-sums: no synapse with a weight other than 0: nothing to round");
    return k->wq.bits;
}

void spk_quantize_host(sim_t *s)
{
    struct sim_spk *k = s->spk;
    if (!k->wq.order_free) return;
    if (k->drawn.n) {   /* rules drawn at each spike: their survey's maxima; rounded as drawn (spk_cuda_rules.cu) */
        spk_quantum_bits(s, k->drawn.indeg_max, k->drawn.wmax);
        return;
    }
    const int64_t N = s->net.count, m = k->out_ptr ? k->out_ptr[N] : 0;
    uint32_t *deg = olive_calloc((size_t)k->ntarget + 1, sizeof(uint32_t), "--order-free-sums");   /* (the ring's targets) */
    int64_t dmax = 0;
    double wmax = 0;
    for (int64_t e = 0; e < m; e++) {
        if (++deg[k->out[e].target] > dmax) dmax = deg[k->out[e].target];
        if (fabs(k->out[e].w) > wmax) wmax = fabs(k->out[e].w);
    }
    free(deg);
    const int bits = spk_quantum_bits(s, dmax, wmax);
    (void)spk_synapse_hash(s);   /* of the weights as read (the device's lists hash them so too) */
    for (int64_t e = 0; e < m; e++) k->out[e].w = olive_weight_quantize(k->out[e].w, bits);
}
