#include "cellmodel.h"
#include "lif.h"
#include "model.h"
#include "state.h"
#include <stdio.h>
#include <string.h>

/* InfOli: the 19 variables of state.h; no synaptic receptors yet. */
const olive_cell_model olive_model_infoli = {
    "infoli", "three-compartment inferior-olive cell (De Gruijl et al. 2012), MODEL.md",
    OLIVE_NVARS, olive_var_names, olive_var_units, olive_var_initial,
    0, NULL, OV_V_AXON, OV_V_DEND, 0, NULL, "", 0, OLIVE_DT, 1, NULL,
};

int olive_model_is_lif(const olive_cell_model *m)
{
    return m == &olive_model_lif_cuba || m == &olive_model_lif_coba || m == &olive_model_lif_cuba_alpha ||
           m == &olive_model_lif_coba_alpha;
}

#define NP(a) ((int)(sizeof a / sizeof a[0]))

/* Hodgkin-Huxley cells stepped as NEURON steps them (common/models/cable.h; the
 * population's cell built by cable_model.c). The variables are the soma's;
 * ge and gi are the conductances of the two exponential synapses. */
static const char *const hh_names[6] = {"v", "m", "h", "n", "ge", "gi"};
static const char *const traub_units[6] = {"mV", "1", "1", "1", "nS", "nS"};
static const char *const cable_units[6] = {"mV", "1", "1", "1", "uS", "uS"};
static const double hh_initial[6] = {-60, 0, 0, 0, 0, 0};
static const int hh_receptors[2] = {4, 5};

/* NEST's hh_cond_exp_traub with the parameters of NEST's hh_coba.py
 * (Brette et al. 2007, benchmark 3) as defaults, in NEST's units; area: the
 * membrane the conductances and C_m are spread over (only its ratios to them
 * matter). Spikes as NEST's: at the peak of v above V_T + 30 mV, at most one
 * per t_ref. */
static const olive_param_desc traub_params[] = {
    {"g_Na", "nS", 20000}, {"g_K", "nS", 6000}, {"g_L", "nS", 10}, {"C_m", "pF", 200},
    {"E_Na", "mV", 50}, {"E_K", "mV", -90}, {"E_L", "mV", -60}, {"V_T", "mV", -63},
    {"E_e", "mV", 0}, {"E_i", "mV", -80}, {"tau_e", "ms", 5}, {"tau_i", "ms", 10},
    {"t_ref", "ms", 2}, {"I_e", "pA", 0}, {"area", "um2", 20000}, {"v0", "mV", -60},
};
/* NEURON's ball-and-stick: a soma cylinder with hh.mod, a dendrite of
 * dend_nseg segments with pas, the two ExpSyns at dend(syn_x), spikes as a
 * NetCon's: v(soma(0.5)) crossing V_th upwards. NEURON's units. hh.mod's
 * rates from its table (hh_tables 1, NEURON's default) or formulas (0).
 * Synapses at sites (a projection's site_section, site_x: docs/FORMAT.md)
 * are ExpSyns (tau_rise_X 0) or Exp2Syns (tau1 = tau_rise_X, tau2 = tau_X). */
static const olive_param_desc cable_params[] = {
    {"soma_L", "um", 20}, {"soma_diam", "um", 20}, {"soma_Ra", "ohm cm", 35.4},
    {"dend_L", "um", 200}, {"dend_diam", "um", 1}, {"dend_nseg", "1", 5}, {"dend_Ra", "ohm cm", 100},
    {"cm", "uF/cm2", 1}, {"gnabar", "S/cm2", .12}, {"gkbar", "S/cm2", .036}, {"gl", "S/cm2", .0003},
    {"el", "mV", -54.3}, {"ena", "mV", 50}, {"ek", "mV", -77}, {"g_pas", "S/cm2", .001}, {"e_pas", "mV", -65},
    {"celsius", "degC", 6.3}, {"syn_x", "1", .5}, {"tau_e", "ms", 2}, {"E_e", "mV", 0}, {"tau_i", "ms", 5},
    {"E_i", "mV", -80}, {"V_th", "mV", 10}, {"I_e", "nA", 0}, {"v0", "mV", -65}, {"hh_tables", "1", 1},
    {"tau_rise_e", "ms", 0}, {"tau_rise_i", "ms", 0},
};

/* The biophysics of one section type of an SWC cell, as NEURON users set
 * it (sec.Ra, sec.cm, insert hh / pas and their parameters); hh and pas:
 * 1 inserted, 0 not. */
#define SWC_TYPE_PARAMS(T, HH, PAS)                                                                              \
    {T ".Ra", "ohm cm", 100}, {T ".cm", "uF/cm2", 1}, {T ".hh", "1", HH}, {T ".gnabar", "S/cm2", .12},          \
    {T ".gkbar", "S/cm2", .036}, {T ".gl", "S/cm2", .0003}, {T ".el", "mV", -54.3}, {T ".ena", "mV", 50},       \
    {T ".ek", "mV", -77}, {T ".pas", "1", PAS}, {T ".g_pas", "S/cm2", 1e-4}, {T ".e_pas", "mV", -65}

/* A cell of an SWC file (common/models/swc.h), the two ExpSyns at section
 * syn_sec's syn_x; segments of at most seg_length um (0: NEURON's d_lambda
 * rule, d_lambda of the length constant at d_lambda_freq Hz); hh.mod's rates
 * from its table (hh_tables 1, NEURON's default) or its formulas (0). The
 * biophysics per section type (soma: SWC type 1, axon 2, dend 3, apic 4,
 * custom the others): by default hh on soma and axon, pas on the rest.
 * Synapses at sites as hh_cable's (tau_rise_e, tau_rise_i). */
static const olive_param_desc swc_params[] = {
    {"seg_length", "um", 20}, {"celsius", "degC", 6.3}, {"syn_sec", "1", 0}, {"syn_x", "1", .5},
    {"tau_e", "ms", 2}, {"E_e", "mV", 0}, {"tau_i", "ms", 5}, {"E_i", "mV", -80}, {"V_th", "mV", 10},
    {"I_e", "nA", 0}, {"v0", "mV", -65}, {"d_lambda", "1", .1}, {"d_lambda_freq", "Hz", 100}, {"hh_tables", "1", 1},
    SWC_TYPE_PARAMS("soma", 1, 0), SWC_TYPE_PARAMS("axon", 1, 0), SWC_TYPE_PARAMS("dend", 0, 1),
    SWC_TYPE_PARAMS("apic", 0, 1), SWC_TYPE_PARAMS("custom", 0, 1),
    {"tau_rise_e", "ms", 0}, {"tau_rise_i", "ms", 0},
};

const olive_cell_model olive_model_hh_traub = {
    "hh_traub", "single-compartment Traub-Miles Hodgkin-Huxley cell, exponential conductances (NEST's hh_cond_exp_traub, "
    "Brette et al. 2007 benchmark 3)",
    6, hh_names, traub_units, hh_initial, NP(traub_params), traub_params, 0, -1, 2, hh_receptors, "nS", 1, 0.01, 0, NULL,
};
const olive_cell_model olive_model_hh_cable = {
    "hh_cable", "ball-and-stick cell: hh soma, passive dendrite, ExpSyn synapses (NEURON's hh, pas, ExpSyn, fixed step)",
    6, hh_names, cable_units, hh_initial, NP(cable_params), cable_params, 0, -1, 2, hh_receptors, "uS", 1, 0.025, 0, NULL,
};

const olive_cell_model olive_model_hh_swc = {
    "hh_swc", "a cell of an SWC morphology: hh soma and axon, passive dendrites, ExpSyn synapses (NEURON's fixed step)",
    6, hh_names, cable_units, hh_initial, NP(swc_params), swc_params, 0, -1, 2, hh_receptors, "uS", 1, 0.025, 0, NULL,
};

/* A cell of an SWC file whose biophysics (per section type: Ra, cm,
 * mechanisms compiled from NMODL and their parameters, reversal
 * potentials) come with the population (cable_mechs.h), built as bmtk's
 * BioNet builds an Allen Cell Types cell: segments 1 + 2 int(L / (2 dL)),
 * the axon replaced by a stub of two 30-um sections (axon_stub 1; 0 keeps
 * the reconstruction's), NEURON's celsius; the ExpSyns as hh_swc's. */
static const olive_param_desc biophys_params[] = {
    {"dL", "um", 20}, {"axon_stub", "1", 1}, {"celsius", "degC", 34}, {"syn_sec", "1", 0}, {"syn_x", "1", .5},
    {"tau_e", "ms", 2}, {"E_e", "mV", 0}, {"tau_i", "ms", 5}, {"E_i", "mV", -80}, {"V_th", "mV", -15},
    {"I_e", "nA", 0}, {"v0", "mV", -65}, {"tau_rise_e", "ms", 0}, {"tau_rise_i", "ms", 0}, {"hh_tables", "1", 1},
};
const olive_cell_model olive_model_biophys_swc = {
    "biophys_swc", "a cell of an SWC morphology with mechanisms compiled from NMODL (olive-model build), set up as "
    "bmtk BioNet sets up Allen Cell Types cells (NEURON's fixed step)",
    6, hh_names, cable_units, hh_initial, NP(biophys_params), biophys_params, 0, -1, 2, hh_receptors, "uS", 1, 0.025, 0,
    NULL,
};

/* Spike sources (spike_source.h): populations that only spike, beside the
 * network's neurons (PyNN's SpikeSourcePoisson and SpikeSourceArray). A
 * Poisson source spikes with probability rate dt on each step of
 * (start, start + duration]; an array source at its times (per-cell
 * datasets spike_times and spike_times_ptr, docs/FORMAT.md). */
static const olive_param_desc poisson_src_params[] = {
    {"rate", "Hz", 1}, {"start", "ms", 0}, {"duration", "ms", 1e10},
};
const olive_cell_model olive_model_spike_source_poisson = {
    "spike_source_poisson", "Poisson spike source (PyNN's SpikeSourcePoisson)",
    0, NULL, NULL, NULL, NP(poisson_src_params), poisson_src_params, -1, -1, 0, NULL, "", 0, 0.1, 0, NULL,
};
const olive_cell_model olive_model_spike_source_array = {
    "spike_source_array", "spike source at given times (PyNN's SpikeSourceArray)",
    0, NULL, NULL, NULL, 0, NULL, -1, -1, 0, NULL, "", 0, 0.1, 0, NULL,
};

static const olive_cell_model *const all_models[] = {&olive_model_infoli, &olive_model_lif_cuba, &olive_model_lif_coba,
                                                     &olive_model_lif_cuba_alpha, &olive_model_lif_coba_alpha,
                                                     &olive_model_hh_traub, &olive_model_hh_cable, &olive_model_hh_swc,
                                                     &olive_model_biophys_swc, &olive_model_spike_source_poisson, &olive_model_spike_source_array};

const olive_cell_model *olive_model_find(const char *name)
{
    for (size_t k = 0; k < sizeof all_models / sizeof all_models[0]; k++)
        if (!strcmp(all_models[k]->name, name)) return all_models[k];
    return NULL;
}

/* "a, b, c" of the table's models that keep(m) takes, or "a, b or c" (or_last). */
static void join_names(char *buf, size_t n, int (*keep)(const olive_cell_model *), int or_last)
{
    size_t nk = 0, total = 0;
    for (size_t k = 0; k < sizeof all_models / sizeof all_models[0]; k++) total += keep(all_models[k]) != 0;
    buf[0] = 0;
    for (size_t k = 0; k < sizeof all_models / sizeof all_models[0]; k++) {
        if (!keep(all_models[k])) continue;
        const char *sep = nk == 0 ? "" : (or_last && nk + 1 == total) ? " or " : ", ";
        snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", sep, all_models[k]->name);
        nk++;
    }
}

static int any_model(const olive_cell_model *m) { (void)m; return 1; }

static int spiking_neuron(const olive_cell_model *m) { return m != &olive_model_infoli && !olive_model_is_source(m); }

const char *olive_model_names(void)
{
    static char buf[512];
    if (!buf[0]) join_names(buf, sizeof buf, any_model, 0);
    return buf;
}

const char *olive_spiking_model_names(void)
{
    static char buf[512];
    if (!buf[0]) join_names(buf, sizeof buf, spiking_neuron, 1);
    return buf;
}

int olive_spiking_model_list(const char **names, int max)
{
    int n = 0;
    for (size_t k = 0; k < sizeof all_models / sizeof all_models[0] && n < max; k++)
        if (spiking_neuron(all_models[k])) names[n++] = all_models[k]->name;
    return n;
}

int olive_model_is_cable(const olive_cell_model *m)
{
    return m == &olive_model_hh_traub || m == &olive_model_hh_cable || m == &olive_model_hh_swc ||
           m == &olive_model_biophys_swc;
}

int olive_model_needs_morphology(const olive_cell_model *m)
{
    return m == &olive_model_hh_swc || m == &olive_model_biophys_swc;
}

int olive_model_needs_mechanisms(const olive_cell_model *m) { return m == &olive_model_biophys_swc; }

int olive_model_is_source(const olive_cell_model *m)
{
    return m == &olive_model_spike_source_poisson || m == &olive_model_spike_source_array;
}

int olive_model_var(const olive_cell_model *m, const char *name)
{
    for (int v = 0; v < m->nvars; v++)
        if (!strcmp(m->var_names[v], name)) return v;
    return -1;
}

int olive_model_param(const olive_cell_model *m, const char *name)
{
    for (int p = 0; p < m->nparams; p++)
        if (!strcmp(m->params[p].name, name)) return p;
    return -1;
}

int olive_model_receptor(const olive_cell_model *m, const char *name)
{
    for (int r = 0; r < m->nreceptors; r++)
        if (!strcmp(m->receptor_names ? m->receptor_names[r] : m->var_names[m->receptors[r]], name)) return r;
    return -1;
}

const char *olive_model_receptor_list(const olive_cell_model *m)
{
    static char buf[512];
    size_t used = 0;
    buf[0] = 0;
    for (int r = 0; r < m->nreceptors && used < sizeof buf - 64; r++)
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s", r ? ", " : "",
                                 m->receptor_names ? m->receptor_names[r] : m->var_names[m->receptors[r]]);
    return m->nreceptors ? buf : "none";
}
