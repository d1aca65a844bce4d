/* What genconn's spiking projections hold in memory until the file is
 * written (the memory checks of spiking_gen.c and spiking_import.c). */
#include "spiking_net.h"

/* Bytes per synapse: its source, and its weight and delay when they are
 * drawn or given per synapse. */
double gc_spk_held_per_synapse(int weights, int delays, int sites)
{
    return 4 + (weights ? 8 : 0) + (delays ? 2 : 0) + (sites ? 12 : 0);
}

double gc_spk_held_bytes(const olive_synapses *syn, int64_t count)
{
    double b = 0;
    for (int k = 0; k < syn->n; k++)
        b += 8.0 * ((double)count + 1) +
             (double)syn->proj[k].nnz * gc_spk_held_per_synapse(!!syn->proj[k].weight, !!syn->proj[k].delay, !!syn->proj[k].site_sec);
    return b;
}
