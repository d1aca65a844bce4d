/* olive-genconn --model lif_cuba|lif_coba: a spiking network of populations
 * and projections of chemical synapses (docs/MODELS.md). One process generates
 * (O(synapses) work, every number keyed by the seed, so the file does not
 * depend on how it was made) and writes one file atomically. */
#ifndef OLIVE_GC_SPIKING_H
#define OLIVE_GC_SPIKING_H
#include <stdint.h>
#include "conn_rule.h"
#include "synfile.h"

enum gc_rule {
    GC_RULE_P = OLIVE_CONN_P,
    GC_RULE_INDEGREE = OLIVE_CONN_INDEGREE,
    GC_RULE_TOTAL = OLIVE_CONN_TOTAL,
    GC_RULE_OUTDEGREE = OLIVE_CONN_OUTDEGREE,
    GC_RULE_TOTAL_OUT = OLIVE_CONN_TOTAL_OUT
};

/* The places a projection's synapses may sit on one target population's
 * cells (sites=; spiking_sites.c): spans laid end to end, total long. */
typedef struct gc_site_span gc_site_span;
typedef struct {
    int n;
    gc_site_span *span;
    double total;
} gc_site_table;

/* A weight or delay (ms): olive_value (conn_rule.h). */
typedef olive_value gc_value;
static inline int gc_value_varies(const gc_value *v) { return olive_value_varies(v); }

typedef struct {
    char name[OLIVE_NAME_LEN], from[OLIVE_NAME_LEN], to[OLIVE_NAME_LEN], receptor[32];
    int rule;
    double p;                 /* GC_RULE_P */
    int64_t k;                /* in-degree, out-degree or total */
    gc_value w;               /* weight */
    gc_value d;               /* delay in ms, rounded to steps of dt */
    int autapses;
    char spec[256];           /* as given (provenance attribute rule) */
    char sites[256];          /* sites=VALUE as given, or "" */
    gc_site_table *site;      /* sites=: one table per population (n = 0: not a target), or NULL */
    olive_plasticity plast;   /* plasticity=RULE and its parameters (plasticity_io.h), or rule NONE */
    const char *file;         /* --projections FILE it came from (its line), or NULL: --projection */
    int line;
} gc_proj_spec;

typedef struct {
    const char *out_path;
    const olive_cell_model *model;
    olive_populations pops;
    double v0_a[OLIVE_MAX_POPS], v0_b[OLIVE_MAX_POPS];   /* v0 range per population (a < b: random) */
    double v0_sd[OLIVE_MAX_POPS];   /* > 0: v0 normal(v0_a, v0_sd) per cell instead (NEST's microcircuit) */
    int nproj, proj_cap;
    gc_proj_spec *proj;             /* --projection and --projections' lines, in order */
    int merge;                      /* --merge-projections: one stored projection per receptor */
    double dt;
    uint64_t seed;
    int force;
    int procedural;                 /* --procedural: projections stored as their rule (conn_rule.h) */
    int64_t count;
    const char *export_prefix;      /* --export-sonata PREFIX */
    const char *import_synapses;    /* --import-synapses EDGES.h5 */
    const char *import_edge_types;  /* --import-edge-types TYPES.csv */
    const char *import_synaptic_models;  /* --import-synaptic-models DIR (dynamics_params of plastic edge types) */
    const char *import_circuit;     /* --import-circuit CONFIG.json (its biophysical nodes) */
    const char *import_node_pop;    /* --import-node-population NAME */
    char import_node_pop_name[256]; /* the circuit's node population imported as the cells */
    int nimport_spikes, nimport_spikes_given;
    const char *import_spikes[8];   /* --import-spikes SPIKES.h5: trains of the circuit's virtual nodes */
    /* spike_source_array populations: cell c's spike times at
     * array_times[i][array_ptr[i][c] .. array_ptr[i][c + 1]) (NULL: none) */
    double *array_times[OLIVE_MAX_POPS];
    int64_t *array_ptr[OLIVE_MAX_POPS];
} gc_spk_config;

/* 1 when argv asks for a spiking model (--model other than infoli). */
int gc_spiking_requested(int argc, char **argv);
void gc_spk_parse_args(int argc, char **argv, gc_spk_config *cfg);
/* Generate and write; returns the exit status. */
int gc_spiking_main(int argc, char **argv);
/* The bytes the projections of syn hold (rows and synapses), for the memory
 * checks of what comes after them. */
double gc_spk_held_bytes(const olive_synapses *syn, int64_t count);
double gc_spk_held_per_synapse(int weights, int delays, int sites);
/* Projection number k of cfg into p (whole rows, every target); with
 * --procedural only its rule (p->rule_conn), no synapses. */
void gc_spk_generate(const gc_spk_config *cfg, int k, olive_projection *p);
/* --merge-projections: syn's projections (each over its target rows) as one per receptor. */
void gc_spk_merge(const gc_spk_config *cfg, olive_synapses *syn);
/* spiking_sonata.c: --export-sonata (written under temporary names, then committed) */
void gc_spk_export_paths(const char *prefix, char (*paths)[4096]);
void gc_spk_export_sonata(const gc_spk_config *cfg, const olive_synapses *syn, char (*tmp)[4096]);
void gc_spk_export_commit(char (*tmp)[4096]);
/* spiking_sites.c: sites= of projection s, checked against the cells of its
 * target populations (a usage error or the list file's fault) */
void gc_spk_sites_resolve(gc_spk_config *cfg, gc_proj_spec *s);
void gc_spk_sites_free(gc_proj_spec *s, int npops);
/* The site of every synapse of p, projection number k of cfg (if it has sites=). */
void gc_spk_sites_draw(const gc_spk_config *cfg, int k, olive_projection *p);
/* spiking_import.c: the projections of a SONATA edges file, appended to syn:
 * --import-synapses's (gc_spk_import), or one of a circuit's: its edge
 * population's source and target node populations at the olive ids of
 * map (NULL: the ids as they are) */
typedef struct { int n; const char *sonata[OLIVE_MAX_POPS]; int64_t first[OLIVE_MAX_POPS], count[OLIVE_MAX_POPS]; } gc_node_map;
void gc_spk_import(gc_spk_config *cfg, olive_synapses *syn);
void gc_spk_import_file(gc_spk_config *cfg, olive_synapses *syn, const char *edges, const char *types, const char *models_dir,
                        const gc_node_map *map);
/* sonata_nodes.c: the hh_swc populations of a SONATA circuit's biophysical
 * nodes (population want, or the only one), parameters and morphologies set */
void gc_spk_import_nodes(const char *config, const char *want, const olive_cell_model *model, olive_populations *pops,
                         char *chosen);
/* The node count of the circuit's node population pop, whose nodes must all be virtual. */
int64_t gc_circuit_virtual_nodes(const char *config, const char *pop);
/* sonata_bionet.c: a bmtk BioNet circuit's other parts for biophys_swc:
 * --import-spikes (spike_source_array populations of its virtual nodes,
 * appended to cfg's populations), the edges files and types tables of the
 * circuit config (their number; models_dir: components.synaptic_models_dir
 * or ""), and the spike trains written into the network file */
void gc_spk_import_spike_trains(gc_spk_config *cfg);
/* spiking_import.c: whether exp2syn edge types gave population pop's
 * receptor rec (0 ge, 1 gi) an Exp2Syn: v = tau1, tau2, erev; from names them. */
int gc_spk_exp2syn_of(int pop, int rec, double *v, const char **from);
/* spiking_biophys.c: after the imports, where a population's receptor is an
 * NMODL point process (--synapse-mechanism), the imported exp2syn's tau1,
 * tau2 and e as its parameters, as BioNet sets them on NEURON's Exp2Syn. */
void gc_apply_point_synapses(gc_spk_config *cfg);
/* bmtk's run, conditions and inputs of --import-circuit's config as the
 * imported network's defaults (sonata_bionet.c); dt_given: --dt was given. */
void gc_circuit_sim_config(gc_spk_config *cfg, int dt_given);
int gc_circuit_edge_files(const char *config, int max, char (*edges)[4096], char (*types)[4096], char *models_dir);
void gc_spk_write_spike_trains(const char *path, int64_t file, const gc_spk_config *cfg);
/* sonata_dynamics.c: a node type's dynamics_params (the parsed JSON root of
 * file path) applied to the parameter values p of model m */
struct gc_json;
void gc_sonata_apply_dynamics(const char *path, int64_t tid, const struct gc_json *root, const olive_cell_model *m, double *p);
/* The dynamics_params text (malloc'd) that gc_sonata_apply_dynamics reads
 * back as the parameter values p, bit for bit */
char *gc_sonata_dynamics_text(const olive_cell_model *m, const double *p);

/* spiking_biophys.c: --biophysics and --mechanisms onto the biophys_swc
 * populations (every one needs both); the library of a population (NULL
 * for other models). */
struct olive_mech_library;
void gc_apply_biophysics(gc_spk_config *cfg, const char *const *bios, int nbio, const char *const *mechs, int nmech,
                         const char *const *synmechs, int nsyn);
/* sonata/allen_fit.c: an Allen fit / bmtk dynamics_params JSON file as the
 * statements (into text[cap]); their length */
size_t gc_biophysics_of_fit(const char *file, char *text, size_t cap);
const struct olive_mech_library *gc_pop_mechanisms(const olive_population *p);

#endif
