/* SWC morphologies (issue 19) into sections with 3-d points (cable_cell.h).
 *
 * A line is "id type x y z radius parent" (um); '#' starts a comment. Ids
 * are unique and positive, a parent is -1 (the root) or an id given before.
 * The root must be a soma point (type 1). Sections, as olive cuts them
 * (docs/FORMAT.md, "Morphologies"; scripts/neuron_cable_compare.py builds
 * the same ones in NEURON with pt3dadd):
 *   soma: the type-1 points, an unbranched chain from the root; a single
 *     soma point becomes a cylinder along x of length and diameter 2r;
 *   the rest: unbranched runs of points of one type, cut at branch points
 *     and where the type changes; a section's 3-d points are its own
 *     points, preceded by its parent's point unless that parent is in the
 *     soma; it attaches to the end (1) of its parent section, or, on the
 *     soma, at the arc position of its parent point (0.5 for a one-point
 *     soma);
 *   order: depth first from the soma, children in the order of their ids;
 *   names: soma, axon[k], dend[k] (types 3 and others), apic[k] (type 4).
 * Segments: nseg = 2 floor((L / seg_length + 0.9) / 2) + 1 (odd, at most
 * seg_length long), or with seg_length <= 0 NEURON's d_lambda rule
 * (stdlib.hoc's geom_nseg: d_lambda 0.1 of the AC length constant at
 * 100 Hz, from the 3-d points). Mechanisms: hh on soma and axon, pas (g 1e-4 S/cm2,
 * e -65 mV) on dendrites; Ra 100 ohm cm, cm 1 uF/cm2. */
#ifndef OLIVE_SWC_H
#define OLIVE_SWC_H
#include "cable_cell.h"

typedef struct {
    int nsec;
    olive_section *sec;
    double *points;   /* the arcs and diameters the sections point into */
} olive_morphology;

/* Reads PATH; dies naming the file, line and fault on a bad one. */
void olive_swc_read(const char *path, double seg_length, olive_morphology *m);
void olive_morphology_free(olive_morphology *m);

#endif
