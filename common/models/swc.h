/* SWC morphologies into sections with 3-d points
 * (cable_cell.h), read exactly as NEURON 9's Import3d reads them
 * (Import3d_SWC_read, Import3d_GUI.instantiate; docs/FORMAT.md,
 * "Morphologies", gives every rule): the same sections (cut at branch points,
 * type changes and jumps in the file; NeuroMorpho's three-point soma and a
 * one-point soma as a sphere of three 3-d points along x; children of
 * interior soma points at soma(0.5)), names (soma[k], axon[k], dend[k],
 * apic[k], dend_T[k]) in Import3d's order, and 3-d points as NEURON stores
 * them (floats). tests/test_cable_neuron.sh compares with NEURON.
 * Each section gets the biophysics of its SWC type and its nseg from them
 * (olive_swc_setup). */
#ifndef OLIVE_SWC_H
#define OLIVE_SWC_H
#include "cable_cell.h"

typedef struct {
    int nsec;
    olive_section *sec;
    double *points;   /* the arcs and diameters the sections point into */
} olive_morphology;

/* How sections are set up by their SWC type: the biophysics (Ra, cm, mechs
 * and the mechanisms' parameters; the rest of each olive_section unused) of
 * each type group (bio[olive_swc_group(type)]), and nseg by
 * olive_section_nseg's rule (segments of at most seg_length um, or with
 * seg_length 0 d_lambda at d_lambda_freq Hz from the section's own Ra and
 * cm). hh_swc's parameters give one: olive_hh_swc_setup (cable_model.h). */
typedef struct {
    olive_section bio[5];   /* custom (SWC types other than 1-4), soma, axon, dend (basal), apic */
    double seg_length, d_lambda, d_lambda_freq;
} olive_swc_setup;

static inline int olive_swc_group(int type) { return type >= 1 && type <= 4 ? type : 0; }

/* Reads PATH; dies naming the file, line and fault on a bad one (a
 * section needing more than 32767 segments by setup's rule is one). */
void olive_swc_read(const char *path, const olive_swc_setup *setup, olive_morphology *m);
void olive_morphology_free(olive_morphology *m);

#endif
