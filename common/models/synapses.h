/* A spiking network's populations and projections in memory: what the
 * network file's readers fill (io/synfile.c), the connectivity rules draw
 * (connect/), olive-genconn writes and olive-simulate runs. Types only. */
#ifndef OLIVE_SYNAPSES_H
#define OLIVE_SYNAPSES_H
#include <stdint.h>
#include "cellmodel.h"
#include "plasticity.h"

#define OLIVE_MAX_POPS 256
#define OLIVE_MAX_PARAMS 80   /* hh_swc: 74 (12 per section type) */
#define OLIVE_NAME_LEN 64
#define OLIVE_MAX_DELAY 65535   /* steps: delays are stored as uint16 */

typedef struct {
    char name[OLIVE_NAME_LEN];
    const olive_cell_model *model;
    int64_t first, count;                 /* cells first <= id < first + count */
    double param[OLIVE_MAX_PARAMS];       /* the model's parameters, in its order */
    int percell[OLIVE_MAX_PARAMS];        /* a per-cell dataset overrides param[k] */
    char morphology[1024];                /* hh_swc: the SWC file (attribute `morphology`; a relative path is
                                             relative to the network file's directory), else empty */
    /* biophys_swc: the cell's biophysics (attribute `biophysics`: cable_mechs.h's
     * statements) and the NMODL mechanism library they name (attributes
     * `mechanisms`, `mechanisms_hash`: found only in the places the user chose) */
    char biophysics[4096];
    char mechanisms[OLIVE_NAME_LEN], mechanisms_hash[72];
} olive_population;

typedef struct {
    int n;
    olive_population pop[OLIVE_MAX_POPS];
} olive_populations;

typedef struct {
    char name[OLIVE_NAME_LEN], receptor[32];
    char source[OLIVE_NAME_LEN], target[OLIVE_NAME_LEN], rule[128]; /* provenance */
    int64_t nnz_total;
    int64_t row0, row1, e0, nnz;          /* rows held: targets [row0, row1), synapses [e0, e0 + nnz) */
    int64_t *row_ptr;                     /* row1 - row0 + 1, local (row_ptr[0] == 0) */
    int32_t *col;                         /* source ids, ascending per row (repeats allowed) */
    double *weight;                       /* NULL: every synapse has weight_value */
    double weight_value;
    uint16_t *delay;                      /* steps; NULL: every synapse has delay_value */
    int64_t delay_value;
    /* Synapse sites on cable cells (datasets site_section, site_x):
     * held synapse e sits on the target's section site_sec[e] (olive's,
     * i.e. Import3d's, section order; 0 the soma) at site_x[e] in [0, 1].
     * NULL: no sites, every synapse at the model's syn_sec / syn_x. */
    int32_t *site_sec;
    double *site_x;
    char sites[256];                      /* provenance: the rule that drew the sites (attribute `sites`), or "" */
    olive_plasticity plast;               /* the synapses' plasticity (attribute `plasticity`): rule NONE static */
    /* Writers: non-NULL writes the projection as this rule alone (a
     * procedural projection, conn_rule.h), no synapse datasets. Readers
     * draw a procedural projection's rows and leave this NULL. */
    const struct olive_conn *procedural;
    /* Readers told to keep rules (olive_syn_keep_rules): a procedural
     * projection left undrawn (no rows held: row_ptr and col NULL), its rule
     * here (olive_syn_free frees it); else NULL. */
    struct olive_conn *kept;
} olive_projection;

typedef struct {
    double dt;                            /* ms: the unit of the delays */
    int n;
    olive_projection *proj;
} olive_synapses;

#endif
