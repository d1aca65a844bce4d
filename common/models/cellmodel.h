/* The cell-model interface: what the pipeline needs to know about a model
 * (its variables with units and initial values, parameters with defaults,
 * which variable spikes and at what threshold, which variable gap junctions
 * couple, which variables synaptic events add to, the step). A new model is a
 * new entry here plus its physics in one OLIVE_HD header (model_body.h for
 * InfOli, lif.h for the integrate-and-fire models). */
#ifndef OLIVE_CELLMODEL_H
#define OLIVE_CELLMODEL_H

typedef struct {
    const char *name, *unit;
    double def;
} olive_param_desc;

typedef struct {
    const char *name;          /* as in the network file (/cells/populations/<p> attribute model) */
    const char *description;
    int nvars;
    const char *const *var_names;   /* --record names, report file names */
    const char *const *var_units;
    const double *var_initial;      /* before any parameter (v0) or restart */
    int nparams;
    const olive_param_desc *params; /* per population (attributes), optionally per cell (datasets) */
    int spike_var;             /* its upward crossing of the threshold is a spike */
    int gap_var;               /* the variable gap junctions couple, -1: none */
    int nreceptors;
    const int *receptors;      /* variables a synaptic event adds its weight to */
    const char *weight_unit;
    int weights_nonnegative;   /* conductance-based receptors: a negative weight is a fault */
    double dt_default;         /* ms */
    int dt_fixed;              /* the model is defined at dt_default only (InfOli) */
    const char *const *receptor_names;   /* the receptors' names, NULL: their variables' names */
} olive_cell_model;

extern const olive_cell_model olive_model_infoli, olive_model_lif_cuba, olive_model_lif_coba;
extern const olive_cell_model olive_model_lif_cuba_alpha, olive_model_lif_coba_alpha;
/* lif_cuba, lif_coba and their alpha forms (common/models/lif.h). */
int olive_model_is_lif(const olive_cell_model *m);
extern const olive_cell_model olive_model_hh_traub, olive_model_hh_cable, olive_model_hh_swc,
    olive_model_biophys_swc;   /* cable_model.c builds their cells */

/* The model of that name, or NULL. */
const olive_cell_model *olive_model_find(const char *name);
/* "infoli, lif_cuba, lif_coba, ...": for messages (from the model table). */
const char *olive_model_names(void);
/* The built-in neuron models of spiking networks (not infoli, no spike
 * source), "lif_cuba, ... or hh_swc", and as a list (at most max; the count). */
const char *olive_spiking_model_names(void);
int olive_spiking_model_list(const char **names, int max);
/* A model whose cells are cable cells (common/models/cable.h): hh_traub, hh_cable. */
int olive_model_is_cable(const olive_cell_model *m);
extern const olive_cell_model olive_model_spike_source_poisson, olive_model_spike_source_array;
/* A spike source (spike_source_poisson, spike_source_array): populations of
 * it may sit beside the populations of a network's neuron model. */
int olive_model_is_source(const olive_cell_model *m);
/* A model whose populations name an SWC file (hh_swc). */
int olive_model_needs_morphology(const olive_cell_model *m);
/* biophys_swc: its populations carry biophysics and an NMODL mechanism library (synapses.h). */
int olive_model_needs_mechanisms(const olive_cell_model *m);
/* Index of variable / parameter / receptor name in model m, or -1. */
int olive_model_var(const olive_cell_model *m, const char *name);
int olive_model_param(const olive_cell_model *m, const char *name);
int olive_model_receptor(const olive_cell_model *m, const char *name);
/* "ge, gi": model m's receptor names, for messages (a static buffer). */
const char *olive_model_receptor_list(const olive_cell_model *m);

#endif
