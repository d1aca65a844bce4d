/* One SONATA report file (docs/FORMAT.md): a variable of the recorded cells,
 * one population group per network population holding recorded cells, node
 * ids local to the population. A per-cell report has one column per cell; a
 * compartment report (--record-compartments, cable cells) one per
 * compartment. Written collectively, frame block by frame block (report.c). */
#ifndef OLIVE_REPORT_H
#define OLIVE_REPORT_H
#include "sim.h"
#include <hdf5.h>

typedef struct sim_report sim_report;

/* The report of variable var (its cells: cfg->rec.cells[var]) created at
 * path (collective): frames of frame_chunk rows. */
sim_report *sim_report_open(sim_t *s, const char *path, int var, int compartments, int64_t frames, int64_t frame_chunk,
                            hid_t xfer);
/* The present state into buffered row `buffered`. */
void sim_report_frame(sim_report *r, sim_t *s, int64_t buffered);
/* The buffered rows at frame frames_done (collective). */
void sim_report_flush(sim_report *r, int64_t frames_done, int64_t buffered, hid_t xfer);
/* Provenance, the extent cut to frames when cut (a stopped run), closed and freed (collective). */
void sim_report_close(sim_report *r, sim_t *s, int64_t frames, int cut, hid_t xfer);

#endif
