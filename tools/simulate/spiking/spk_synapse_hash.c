/* The fingerprint of a spiking network's synapses, which a state file
 * records and a restart must match (spk_restart.c), taken once the lists
 * are built (spk_plastic.c, spk_quantum.c: of the weights as read). Below
 * every other file of spiking/ that uses it: it reads the lists only. */
#include "spk.h"
#include "mix64.h"
#include "netcontent.h"

/* A hash of the network's synapses (source, target, receptor, weight,
 * delay), what a restart must match beyond the counts: each synapse adds
 * mix(...) mod 2^64, so the sum does not depend on the rank or thread count.
 * Made from the outgoing lists at the first state written or read. */
int64_t spk_synapse_hash(sim_t *s)
{
    struct sim_spk *k = s->spk;
    if (k->syn_hash_done) return k->syn_hash;
    uint64_t part = 0, sum = 0;
    const int64_t N = s->net.count, row0 = s->plan.row0;
#pragma omp parallel for schedule(dynamic, 4096) reduction(+ : part)
    for (int64_t g = 0; g < N; g++)
        for (int64_t e = k->out_ptr ? k->out_ptr[g] : 0; k->out_ptr && e < k->out_ptr[g + 1]; e++) {
            const spk_out *o = &k->out[e];
            /* a site's channel (beyond the rows) counts as its cell: the same terms on any rank count */
            const int64_t t = o->target >= s->plan.nlocal && k->sites.row ? k->sites.row[o->target - s->plan.nlocal] : o->target;
            part += olive_synapse_hash_term((uint64_t)g, (uint64_t)(row0 + t), (uint64_t)o->receptor,
                                            k->out_delay[e], olive_bits_of(o->w));
        }
    part += k->dev.hash;   /* synapses drawn at each spike or turned around on the device: the same terms */
    SIM_CHECK_MPI(MPI_Allreduce(&part, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
    /* --order-free-sums (weight_quantum.h): its F too, so that a state is restarted with the weights that made it */
    if (k->wq.order_free) sum ^= olive_mix64(UINT64_C(0x6f726465722d6672) + (uint64_t)(int64_t)k->wq.bits);
    k->syn_hash = (int64_t)(olive_mix64(sum ^ (uint64_t)k->nsyn_total) >> 1);   /* fits an int64 attribute */
    k->syn_hash_done = 1;
    return k->syn_hash;
}
