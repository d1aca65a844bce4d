/* The spiking parts of the network file (docs/FORMAT.md):
 * populations under /cells/populations (name, id range, model, parameters,
 * optional per-cell values) and chemical synapses under /synapses, one group
 * per projection, compressed sparse rows by target. Readers validate what
 * they rely on and name the file and the fault. */
#ifndef OLIVE_SYNFILE_H
#define OLIVE_SYNFILE_H
#include <hdf5.h>
#include <stdint.h>
#include "synapses.h"   /* the populations and projections in memory */


/* NULL when name may name a population or projection (what writers and
 * readers agree on: 1-63 characters, no '/', no control characters, not
 * "." or ".."), else the fault ("holds a '/'"). */
const char *olive_name_fault(const char *name);
/* A model a network file names: where (/cells, or a population's group),
 * its name and the hash of the plugin that has it ("" for a built-in). */
typedef struct {
    char where[160];
    char name[64];
    char hash[160];
} olive_model_ref;
/* The models path names (at most max; the first is /cells' own when it
 * names one): what a program resolves (model_plugin.h's
 * olive_model_resolve) before it reads the populations, whose reader only
 * looks the models up. A file without populations: none (InfOli). */
int olive_pops_model_refs(const char *path, olive_model_ref *refs, int max);
/* 1 when path's cells carry populations (a network of a model other than the
 * plain InfOli file), and the model of the populations into *model
 * (NULL when they mix models). */
int olive_pops_present(const char *path, const olive_cell_model **model);
/* The populations of a network of count cells (validated: known model and
 * parameters, ranges tiling [0, count) in order). A file without them: one
 * population "io" of InfOli. */
void olive_pops_read(const char *path, int64_t count, olive_populations *out);
/* Per-cell values of parameter k of population p for its cells [a, b) (global ids). */
void olive_pops_read_percell(const char *path, const olive_population *p, int k, int64_t a, int64_t b, double *out);
/* A spike_source_array population's cells [a, b): ptr (b - a + 1 entries
 * of its spike_times_ptr, indices into its spike_times) and, unless times
 * is NULL, their spike times (ms, ptr[b - a] - ptr[0] of them), validated
 * (ptr non-decreasing from 0 to the length of spike_times; times finite and
 * non-decreasing per cell). */
void olive_spike_times_read(const char *path, const olive_population *p, int64_t a, int64_t b, int64_t *ptr, double *times);
/* Write the populations into open file f; percell[p][k]: count values or NULL. */
void olive_pops_write(const char *path, hid_t f, const olive_populations *pops, double *const (*percell)[OLIVE_MAX_PARAMS]);

/* The step of the delays (/synapses dt), or def when the file has no synapses. */
double olive_syn_dt(const char *path, double def);
/* 1 when some projection of path is plastic (its name into name[n]), else 0. */
int olive_syn_plastic(const char *path, char *name, size_t n);
/* Every projection's rows [row0, row1) of a network of count cells; 0 when
 * the file has no /synapses. */
int olive_syn_read_rows(const char *path, int64_t count, int64_t row0, int64_t row1, olive_synapses *out);
/* The reads that follow leave undrawn the procedural projections whose
 * rule's kind (conn_rule.h) is in the mask kinds (bit 1 << kind): their
 * rows empty, the rule in proj.kept (the CUDA engine's projections drawn on
 * the fly). 0, the default: every rule drawn. */
void olive_syn_keep_rules(unsigned kinds);
/* Write whole projections (row0 = 0, row1 = count) into open file f. */
void olive_syn_write(const char *path, hid_t f, const olive_synapses *syn);
void olive_syn_free(olive_synapses *syn);
/* Weight and delay of held synapse e of projection p. */
static inline double olive_syn_w(const olive_projection *p, int64_t e) { return p->weight ? p->weight[e] : p->weight_value; }
static inline int64_t olive_syn_d(const olive_projection *p, int64_t e) { return p->delay ? p->delay[e] : p->delay_value; }

#endif
