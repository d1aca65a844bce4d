/* The interface of a cell model compiled outside olive (a plugin): a shared
 * library that olive-genconn and olive-simulate load by name or path, made
 * by `olive-model build MODEL.nestml` (python/olive/nestml: NESTML's parser
 * and ode-toolbox, then olive's C templates) or written by hand. The library
 * exports one symbol, OLIVE_PLUGIN_SYMBOL, a function returning a pointer to
 * a const olive_model_plugin that lives as long as the library.
 *
 * A plugin's model goes where a built-in spiking model goes (populations in
 * the network file, projections onto its receptors, Poisson inputs, pulses
 * into its current, reports of any state variable, checkpoint and restart):
 * the spiking engine calls the functions below instead of lif.h's.
 *
 * The step of a cell is ONE piece of C, compiled with olive's own exp/log
 * (fastexp.h, fastlog.h: the same bits on CPU and GPU), -ffp-contract=off;
 * the CPU loops below inline it; nvcc compiles the same text (-fmad=false)
 * into the GPU image (cuda_fatbin): the three cell functions of
 * plugin_cell.h, which olive's CUDA engine links into its own kernels when
 * it loads the model (delivery is never compiled into a model).
 *
 * The schedule of one step i (docs/MODELS.md), as NESTML's update,
 * onReceive and onCondition blocks:
 *   1. step(): the update block (integrate_odes() and the rest) of every cell;
 *   2. condition() -> flags: the onCondition test (the spike of step i);
 *   3. delivery: every event due at step i adds receptor_scale[k] * weight
 *      (times coef[receptor_coef[k]] where that is set) to variable
 *      receptors[k] (onReceive's linear form);
 *   4. on_spike(): the onCondition body (reset, refractory count) of each
 *      flagged cell.
 * With inputs_before_condition set (the model's onReceive writes a variable
 * its condition reads, as NEST's order matters there: izhikevich's
 * V_m += w) the order is 1, 3, 2, 4, and a delay of 0 steps is refused;
 * there condition() first runs what the update block does after its spike
 * input (izhikevich's V_m = max(V_min, V_m)), then the test.
 */
#ifndef OLIVE_MODEL_PLUGIN_H
#define OLIVE_MODEL_PLUGIN_H
#include "cellmodel.h"
#include <stddef.h>
#include <stdint.h>

#define OLIVE_PLUGIN_ABI 4   /* 3: the GPU image holds the cell functions only (plugin_cell.h);
                                * 4: they work on one cell's values (plugin_cell.h's _v2) */
#define OLIVE_PLUGIN_SYMBOL "olive_model_plugin_v1"

typedef struct olive_model_plugin {
    int abi;                       /* OLIVE_PLUGIN_ABI */
    const char *hash;              /* hex sha256 of the model's source and generator: the network file records it */
    const char *origin;            /* e.g. "izhikevich_neuron.nestml (NESTML 9.0.0, olive target 1)" */
    /* name (as in the network file's population attribute model), state
     * variables with units and initial values (before init), parameters with
     * units and defaults, spike_var, receptors (the variables spike ports
     * add to), receptor_names (the ports'), weight_unit, dt_default */
    olive_cell_model model;
    const double *receptor_scale;  /* per receptor: an event of weight w adds scale * w */
    const char *current_unit;      /* the unit of --pulse (the continuous input port); NULL: none */
    int inputs_before_condition;   /* the schedule above */
    int ncoef;                     /* doubles per coefficient set */
    /* Host, once per population (or per distinct set of per-cell values):
     * parameter values (model.params order) and dt (ms) -> coef[ncoef]
     * (propagators and constants); NULL, or a message naming the parameter
     * and the fault ("tau_m must be more than 0"). */
    const char *(*coef_make)(const double *param, double dt, double *coef);
    /* Host: the initial state x[nvars] of a cell from its parameter values
     * (NESTML's initial values may be expressions of parameters). */
    void (*init)(const double *param, double *x);
    /* CPU: cells [a, b) sharing coef; state[v][r] var-major; I[r] the pulse
     * current of the step in current_unit (NULL: none). Returns 0 when a
     * variable of some cell became non-finite, else 1. */
    int (*step)(const double *coef, int64_t a, int64_t b, const double *I, double *const *state);
    /* CPU: flags[r] = 1 where the condition holds, else 0. */
    void (*condition)(const double *coef, int64_t a, int64_t b, double *const *state, unsigned char *flags);
    /* CPU: the onCondition body of cell r. */
    void (*on_spike)(const double *coef, int64_t r, double *const *state);
    /* The model's OLIVE_HD functions as C text (for NVRTC; unused so far: NULL). */
    const char *cuda_source;
    /* Per receptor: -1, or the index in coef[] of a factor of its scale, for
     * a scale that depends on parameters (an alpha kernel's e / tau_syn):
     * an event of weight w then adds receptor_scale[k] * coef[i] * w.
     * NULL: every scale is constant. */
    const int *receptor_coef;
    /* The GPU image: an nvcc fatbin holding the LTO-IR of plugin_cell.h's
     * cell functions (olive_cell_step_v2, ...), or NULL: the model runs on
     * the CPU engine only. */
    const unsigned char *cuda_fatbin;
    size_t cuda_fatbin_size;
    /* The occupancy the engine's fused tail-and-update pass may hold the
     * model's update to: 3 blocks of 256 an SM (80 registers: an update by
     * exact propagators fits), or 1 (no cap: a numeric solver's would spill). */
    int gpu_pass_blocks;
} olive_model_plugin;

typedef const olive_model_plugin *(*olive_model_plugin_fn)(void);

/* model_plugin.c (host). Plugins are looked for only in the places the user
 * chose (model_places.h); a path written in a file is never loaded. Each is
 * loaded once per process, its ABI and descriptor checked; NULL with *why set
 * (naming the file and the fault, or the places looked at and how to make the
 * model available).
 *   olive_plugin_load_file: FILE, a plugin the user named (a command-line option);
 *   olive_plugin_find: model NAME of hash HASH (NULL: any) in the places;
 *   olive_plugin_load: a path (with a '/' or ending in .so: load_file), else find. */
const olive_model_plugin *olive_plugin_load_file(const char *file, char *why, int whylen);
const olive_model_plugin *olive_plugin_find(const char *name, const char *hash, char *why, int whylen);
const olive_model_plugin *olive_plugin_load(const char *name, char *why, int whylen);
/* Lets olive_model_resolve load plugins (olive-genconn and olive-simulate
 * call it; a fuzzer or olive-analyze never run a model's code). */
void olive_plugins_enable(void);
/* The plugin whose model is m, or NULL (m built in). */
const olive_model_plugin *olive_plugin_of(const olive_cell_model *m);
/* The absolute path plugin p was loaded from (the network file records it). */
const char *olive_plugin_path(const olive_model_plugin *p);
/* Why plugin p cannot run on the CUDA engine (no GPU image, receptors it
 * cannot hold), or NULL. */
const char *olive_plugin_gpu_refusal(const olive_model_plugin *p);
/* Models are resolved once, by the program, before its readers run: it asks
 * the reader for the names and hashes a network file records
 * (synfile.h's olive_pops_model_refs) and resolves each here.
 * olive_model_resolve: the model a network file's group (where) names, built
 * in, or a plugin's model recorded by name and hash (attribute model_hash),
 * found by olive_plugin_find (which loads it). Dies naming file, where and
 * the fault. */
const olive_cell_model *olive_model_resolve(const char *file, const char *where, const char *name, const char *hash);
/* The same model, built in or among those resolved already: what the
 * readers call; it never loads code (a plugin's model not resolved before is
 * an internal error; in a program that runs no model's code, a refusal). */
const olive_cell_model *olive_model_lookup(const char *file, const char *where, const char *name, const char *hash);

#endif
