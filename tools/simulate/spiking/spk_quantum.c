/* --order-free-sums on the host (weight_quantum.h says what and why): the
 * rank's per-source lists, as the CPU engine and the CUDA engine's copy
 * take them. The CUDA engine rounds the lists it makes on the device itself
 * (spk_cuda_quantum.cu), with the same F and the same rounding. */
#include "spk.h"
#include "util.h"
#include "weight_quantum.h"
#include <math.h>
#include <stdlib.h>

int spk_quantum_bits(sim_t *s, int64_t indeg, double wmax)
{
    struct sim_spk *k = s->spk;
    int64_t dall = 0;
    double wall = 0;
    SIM_CHECK_MPI(MPI_Allreduce(&indeg, &dall, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD));
    SIM_CHECK_MPI(MPI_Allreduce(&wmax, &wall, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    k->wq_bits = olive_weight_quantum_bits(dall, wall);
    if (dall > 0 && wall > 0)
        olive_info("--order-free-sums: weights rounded to multiples of 2^%d (largest in-degree %lld, largest |weight| %g)",
                   -k->wq_bits, (long long)dall, wall);
    else
        olive_info("--order-free-sums: no synapse with a weight other than 0: nothing to round");
    return k->wq_bits;
}

void spk_quantize_host(sim_t *s)
{
    struct sim_spk *k = s->spk;
    if (!k->order_free) return;
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
