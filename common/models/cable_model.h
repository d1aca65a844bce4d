/* The cell of a population of a cable-cell model (hh_traub, hh_cable;
 * cellmodel.c lists their parameters): its sections built from the
 * population's parameter values, its two exponential synapses (receptors ge,
 * gi: synapse 0 and 1), an always-on clamp at the soma carrying I_e and the
 * --pulse currents (its amplitude set per cell and step), and how a spike is
 * detected. */
#ifndef OLIVE_CABLE_MODEL_H
#define OLIVE_CABLE_MODEL_H
#include "cable_cell.h"
#include "cellmodel.h"
#include "swc.h"
#include "cable_mechs.h"

enum olive_spike_rule {
    OLIVE_SPIKE_CROSSING,   /* NEURON's NetCon: v goes from <= V_th to > V_th */
    OLIVE_SPIKE_PEAK        /* NEST's hh_cond_exp_traub: v >= V_th and below the step before's, not refractory */
};

typedef struct {
    olive_cable_cell cell;     /* the template: shape, synapses, the clamp */
    int soma;                  /* the node whose v is the cell's v */
    int rule;                  /* enum olive_spike_rule */
    double V_th;               /* mV */
    double t_ref;              /* ms (OLIVE_SPIKE_PEAK) */
    double I_e;                /* nA, always on */
    double pulse_to_nA;        /* --pulse amplitudes (the model's current unit) to nA */
    double v0;
    /* The sections (their nseg, parent, parent_x: where a site's node is;
     * no 3-d points) and the rise times of the synapses at sites (ms per
     * receptor; 0: ExpSyn). nsec 0: a cell without sites (hh_traub). */
    olive_section *sec;
    int nsec;
    double tau_rise[2];
    olive_mech_set *mset;      /* biophys_swc: its NMODL mechanisms (cable_mechs.h), else NULL */
} olive_cable_template;

/* hh_swc's parameter values p as the SWC reader's setup: each section
 * type's biophysics (TYPE.Ra, TYPE.cm, TYPE.hh ...) and the nseg rule
 * (seg_length, d_lambda, d_lambda_freq); NULL, or a static message naming
 * a value out of range. */
const char *olive_hh_swc_setup(const double *p, olive_swc_setup *su);

/* The template of model m (olive_model_is_cable) with parameter values p in
 * m's order (and, for hh_swc and biophys_swc, the SWC file morphology: a bad
 * file dies naming it, the line and the fault; for biophys_swc the
 * biophysics text and its mechanism library lib: NULL builds the sections
 * alone); NULL, or a static message naming the faulty parameter. */
const char *olive_cable_template_make(const olive_cell_model *m, const double *p, const char *morphology,
                                      const char *biophysics, const olive_mech_library *lib, olive_cable_template *t);
void olive_cable_template_free(olive_cable_template *t);
/* The node of a synapse site (section sec, position x in [0, 1]) as NEURON
 * places a point process at sec(x); -1 when the cell has no section sec. */
int olive_cable_site_node(const olive_cable_template *t, int sec, double x);
/* A synapse of receptor rec (0: ge, 1: gi) on node: synapse rec's time
 * constant and reversal, an Exp2Syn when the receptor's rise time is set;
 * returns its index among the cell's synapses; or, where the biophysics
 * make the receptor an NMODL point process (synapse ge NAME), an instance
 * of it: -1 - its point instance index (cable_mechs.h). */
int olive_cable_add_site_syn(olive_cable_template *t, int node, int rec);

#endif
