/* Element (compartment) reports of cable cells: output_elements.c. */
#ifndef OLIVE_OUTPUT_ELEMENTS_H
#define OLIVE_OUTPUT_ELEMENTS_H
#include "sim.h"
#include <hdf5.h>

typedef struct sim_elements sim_elements;

/* The files of --record-compartments in dir (collective), or NULL when none
 * is asked for: frames of frame_chunk rows; this rank's recorded cells are
 * local rows [lrec0, lrec0 + ncells), the cell0-th of nrec recorded. */
sim_elements *sim_elements_open(sim_t *s, const char *dir, int64_t frames, int64_t frame_chunk, int64_t lrec0,
                                int64_t ncells, int64_t cell0, int64_t nrec, hid_t xfer);
/* The present state into buffered row `buffered`. */
void sim_elements_frame(sim_elements *e, sim_t *s, int64_t buffered);
/* The buffered rows at frame frames_done (collective). */
void sim_elements_flush(sim_elements *e, sim_t *s, int64_t frames_done, int64_t buffered, hid_t xfer);
/* Provenance, the extent cut to frames when cut (a stopped run), closed and freed (collective). */
void sim_elements_close(sim_elements *e, sim_t *s, int64_t frames, int cut, hid_t xfer);

#endif
