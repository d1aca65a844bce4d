/* olive-simulate for networks of integrate-and-fire cells with delayed
 * chemical synapses (SPIKING.md). The step schedule is Brian2's:
 *   1. every cell's state update (lif.h);  2. threshold -> spikes of step i;
 *   3. delivery of every event due at step i (spikes of step i - d, delay d
 *      steps, d >= 0) into its target's receptor, by target, then in the
 *      target's synapse order (source id, projection, synapse index), so the
 *      sums never depend on ranks, threads or backend;  4. reset.
 * Spikes cross ranks once every D steps (D the smallest delay; every step
 * when a delay is 0), all ranks' spikes to all ranks (MPI_Allgatherv). */
#ifndef OLIVE_SPK_H
#define OLIVE_SPK_H
#include "sim.h"
#include "lif.h"
#include "synfile.h"

/* One synapse seen from its source: the target (local index), its place in
 * the target's synapse order with the receptor in the lowest bit, weight, delay. */
typedef struct {
    int32_t target;
    uint32_t key;            /* order << 1 | receptor */
    double w;
} spk_out;

/* An event due at some step: the synapse's target, key and weight. */
typedef spk_out spk_event;

typedef struct {
    spk_event *ev;
    int64_t n, cap;
} spk_slot;

struct sim_spk {
    olive_populations pops;
    olive_lif_coef *coef;    /* coefficient sets */
    int32_t *coef_of;        /* per own cell: its set */
    /* Outgoing synapses of every source cell of the network into this rank's
     * cells: out[out_ptr[g] .. out_ptr[g+1]) with delays out_delay. */
    int64_t *out_ptr;
    spk_out *out;
    uint16_t *out_delay;
    int64_t nsyn;            /* synapses into this rank's cells */
    int64_t nsyn_total;
    int D;                   /* exchange period in steps (min delay; 1 when it is 0) */
    int zero_delay;          /* some delay is 0: exchange and deliver within the step */
    int L;                   /* delay ring: max delay + 1 slots */
    spk_slot *ring;
    int64_t *mark;           /* per thread: spikes in tspikes[t] already exchanged */
    int64_t window0;         /* first step of the current exchange window */
    /* delivery scratch */
    int64_t *count;          /* nlocal + 1 */
    spk_event *sorted;
    int64_t sorted_cap;
    int64_t events;          /* delivered events (this rank) */
    int64_t poisson_events;
    int64_t exchanged;       /* spikes received in exchanges */
    sim_poisson *poisson;    /* cfg's, with steps and receptor indices resolved */
    int *poisson_rec;
};

/* spk_deliver.c */
/* Exchange the spikes of the window and queue their events (collective). */
void spk_exchange(sim_t *s, int64_t step);
/* Step 3 for step i: the events due, then the Poisson inputs. */
void spk_deliver(sim_t *s, int64_t step);

#endif
