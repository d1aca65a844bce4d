/* weights.h5: the weights of chosen plastic synapses every K steps
 * (--record-weights; weights.c, docs/FORMAT.md). */
#ifndef OLIVE_WEIGHTS_H
#define OLIVE_WEIGHTS_H
#include "sim.h"
#include <hdf5.h>

typedef struct sim_weights sim_weights;

/* The report at path (collective), or NULL when no --record-weights; sets
 * cfg->rec.weights_every (default: the exchange window) and refuses an
 * interval that is not a multiple of it, or a projection that is not plastic. */
sim_weights *sim_weights_open(sim_t *s, const char *path, hid_t xfer);
/* The weights now, as the frame after this step (collective). */
void sim_weights_frame(sim_weights *w, sim_t *s, hid_t xfer);
/* Cut to the frames of end_step when the run stopped early; provenance; closed, freed (collective). */
void sim_weights_close(sim_weights *w, sim_t *s, int64_t end_step, hid_t xfer);

#endif
