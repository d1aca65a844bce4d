/* SWC morphologies (issue 19, 32) into sections with 3-d points
 * (cable_cell.h), read exactly as NEURON 9's Import3d reads them
 * (Import3d_SWC_read, Import3d_GUI.instantiate; docs/FORMAT.md,
 * "Morphologies", gives every rule): the same sections (cut at branch points,
 * type changes and jumps in the file; NeuroMorpho's three-point soma and a
 * one-point soma as a sphere of three 3-d points along x; children of
 * interior soma points at soma(0.5)), names (soma[k], axon[k], dend[k],
 * apic[k], dend_T[k]) in Import3d's order, and 3-d points as NEURON stores
 * them (floats). tests/test_cable_neuron.sh compares with NEURON.
 * Segments: nseg = 2 floor((L / seg_length + 0.9) / 2) + 1 (odd, at most
 * seg_length long), or with seg_length <= 0 NEURON's d_lambda rule
 * (stdlib.hoc's geom_nseg: d_lambda 0.1 of the AC length constant at
 * 100 Hz, from the 3-d points). Mechanisms: hh on soma and axon sections,
 * pas (g 1e-4 S/cm2, e -65 mV) on the others; Ra 100 ohm cm, cm 1 uF/cm2. */
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
