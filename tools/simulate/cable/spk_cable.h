/* Cable-cell networks (hh_traub, hh_cable): the blocks of cells that the CPU
 * engine (spk_cable.c) and the CUDA engine (spk_cable_cuda.cu) step, and the
 * one step of one cell both run (OLIVE_HD), so CPU and GPU give the same bits. */
#ifndef OLIVE_SPK_CABLE_H
#define OLIVE_SPK_CABLE_H
#include <stdint.h>
#include "hostdev.h"
#include "cable.h"
#include "cable_model.h"
#include "sim.h"
#include "synfile.h"
#include <hdf5.h>

#ifdef __cplusplus
extern "C" {   /* (spk_cable_cuda.cu defines some: the C files name them) */
#endif
/* spk_cable.c: the cells of cable-cell models (cable_model.h) and the CPU
 * engine that steps them. The cable cells of the rank: templates, synapse
 * sites (spk_sites.c) from the rank's synapses syn, states at v0. */
void spk_cable_setup(sim_t *s, const olive_synapses *syn);
/* Synapse sites (a projection's site_section, site_x; docs/FORMAT.md): per
 * block of cells (population pop[i]) one synapse per (node, receptor) its
 * rows' synapses use, added to the template in (node, receptor) order, so
 * a cell's synapses keep one order on every rank; per row a channel per
 * synapse it uses, and cable->chan for the synapse lists (sim_spk's sites.chan). */
void spk_sites_setup(sim_t *s, const olive_synapses *syn, const olive_population *const *pop);
void spk_sites_free(struct spk_cable *e);
/* cable->chan, once the synapse lists have used it (and s's view of it; s NULL: none). */
void spk_sites_chan_free(sim_t *s, struct spk_cable *e);
void spk_cable_free(sim_t *s);
/* spk_cable_state.c: the cells' whole state (every compartment, mechanism,
 * synapse and site) into /state/cable_x and cable_len of a state file's
 * group g (their part of its checksum), and back at a restart (any rank
 * count; dies naming a missing or foreign record): the kind's write_state
 * and restore_state (spk.h). */
uint64_t spk_cable_write_state(sim_t *s, const char *path, hid_t g, hid_t xfer);
uint64_t spk_cable_restore(sim_t *s, const char *path, hid_t f);
/* Element reports: own cell r's compartments (its segment nodes in node
 * order): how many; element k's section index and position (centre x); the
 * values of variable var (v, m, h or n) of all of them into out. */
int spk_cable_nelements(const sim_t *s, int64_t r);
void spk_cable_element(const sim_t *s, int64_t r, int k, uint32_t *section, float *pos);
void spk_cable_element_values(const sim_t *s, int var, int64_t r, double *out);
/* NMODL variable k of --record-compartments (var OLIVE_NVARS + k of the
 * element values, NaN where a compartment has no such ion or mechanism):
 * its unit. */
const char *spk_cable_mech_var_unit(const sim_t *s, int k);
/* spk_cable_cuda.cu: cable cells on the CUDA engine (struct spk_cell_kind's cuda_*):
 * the device bytes they need beyond the engine's own; their shapes and
 * states on the device (after the common state); steps 1 and 2 of step (q:
 * the step in a chunk; cur: device pulse currents or null); m, h, n into
 * s->state (enqueued on g->st); the device memory freed. */
struct spk_cuda;
double spk_cable_cuda_bytes(const sim_t *s);
void spk_cable_cuda_setup(sim_t *s, struct spk_cuda *g);
void spk_cable_cuda_update(sim_t *s, struct spk_cuda *g, int64_t step, int64_t q, const double *cur);
void spk_cable_cuda_fetch(sim_t *s, struct spk_cuda *g, int all);
void spk_cable_cuda_free(struct spk_cuda *g);
#ifdef __cplusplus
}
#endif

/* What a kernel needs of a population's template besides the shape. */
typedef struct {
    int soma, rule, ref_steps;   /* rule: enum olive_spike_rule; ref_steps: round(t_ref / dt) */
    double V_th, I_e, pulse_to_nA;
} spk_cable_cellrule;

/* The own cells of one population: rows [r0, r0 + n) of the rank, nodes
 * interleaved (node j of cell c at j * n + c). */
typedef struct {
    int64_t r0, n;
    olive_cable_template t;
    olive_cable_shape shape;
    olive_cable_state x;
    spk_cable_cellrule cr;
    int nelem;         /* the compartments a cell reports (its segment nodes, in node order) */
    int *elem_node;
} spk_cable_block;

/* spk_cable.c: the block of own row r, or NULL (a spike source). */
const spk_cable_block *spk_cable_block_of(const sim_t *s, int64_t r);

/* The synapse sites of the rank's cells (spk_sites.c): row r's channels
 * ptr[r] .. ptr[r + 1], channel k feeding synapse obj[k] of its cell with
 * the weight in[k] the delivery summed (the next step adds it as events and
 * clears it). ptr NULL: no sites. */
typedef struct {
    const int64_t *ptr;
    const int32_t *obj;
    double *in;
} spk_cable_sites;

struct spk_cable {
    int nblocks;
    spk_cable_block *b;
    spk_cable_sites sites;
    int64_t nsite;     /* channels */
    int nchan_proj;
    int32_t **chan;    /* while the synapses are set up: per projection, per held synapse its channel (NULL: no sites) */
    int64_t *chan_row; /* per channel its own row (sim_spk's sites.row) */
    double *vprev;     /* per own cell: the soma's v before the step (OLIVE_SPIKE_PEAK) */
    int32_t *ref;      /* per own cell: refractory steps left (PEAK) / above threshold (CROSSING) */
    /* --record-compartments' NMODL variables: an ion's field (ion >= 0) or a
     * mechanism's variable (mech: the library's index, var its index) */
    struct { int ion, field, mech, var; } rec[8];
};

/* Before cell c's step from t (row r of the rank, of a block of nb cells):
 * the synaptic conductances ge[r], gi[r], the weights its sites received
 * (st: obj >= 0 olive's synapse obj, < 0 the NMODL point instance -1 - obj)
 * and the pulse current cur[r] (cur may be null). */
OLIVE_HD void spk_cable_cell_pre(const olive_cable_shape *sh, const olive_cable_state *x, const spk_cable_cellrule *cr,
                                 spk_cable_sites st, int64_t c, int64_t nb, int64_t r, const double *cur, const double *ge,
                                 const double *gi, double t, double dt)
{
    x->syn_g[c] = ge[r];
    x->syn_g[nb + c] = gi[r];
    if (st.ptr)   /* the events delivered after the last step, as NEURON's NET_RECEIVE (summed per step) */
        for (int64_t k = st.ptr[r]; k < st.ptr[r + 1]; k++) {
            if (st.in[k] == 0) continue;
            if (st.obj[k] < 0) {
                olive_mechs_net(sh->mset, -1 - st.obj[k], st.in[k], x->v, x->mx, x->ion, c, nb, t, dt);
                st.in[k] = 0;
                continue;
            }
            const int64_t at = (int64_t)st.obj[k] * nb + c;
            olive_expsyn_event(&sh->syn[st.obj[k]], &x->syn_g[at], &x->syn_a[at], st.in[k]);
            st.in[k] = 0;
        }
    x->clamp_amp[c] = cur ? cr->I_e + cur[r] * cr->pulse_to_nA : cr->I_e;
}

/* After it: the soma's v, m, h, n into v[r] ..., ge[r], gi[r]; whether it spikes. */
OLIVE_HD int spk_cable_cell_post(const olive_cable_state *x, const spk_cable_cellrule *cr, int64_t c, int64_t nb, int64_t r,
                                 double *v, double *m, double *h, double *n, double *ge, double *gi, double *vprev,
                                 int32_t *ref)
{
    ge[r] = x->syn_g[c];
    gi[r] = x->syn_g[nb + c];
    const int64_t at = (int64_t)cr->soma * nb + c;
    const double u = x->v[at];
    v[r] = u;
    m[r] = x->m[at];
    h[r] = x->h[at];
    n[r] = x->n[at];
    int spike = 0;
    if (cr->rule == OLIVE_SPIKE_CROSSING) {   /* NEURON's NetCon */
        const int above = u > cr->V_th;
        spike = above && !ref[r];
        ref[r] = above;
    } else {   /* NEST's hh_cond_exp_traub: refractory count down, else threshold and maximum */
        if (ref[r] > 0) ref[r]--;
        else if (u >= cr->V_th && vprev[r] > u) { spike = 1; ref[r] = cr->ref_steps; }
        vprev[r] = u;
    }
    return spike;
}

/* Step cell c (row r) of a block from t to t + dt (a GPU thread's cell);
 * returns whether it spikes. */
OLIVE_HD int spk_cable_cell_step(const olive_cable_shape *sh, const olive_cable_state *x, const spk_cable_cellrule *cr,
                                 spk_cable_sites st, int64_t c, int64_t nb, int64_t r, const double *cur, double t,
                                 double dt, double *v, double *m, double *h, double *n, double *ge, double *gi,
                                 double *vprev, int32_t *ref)
{
    spk_cable_cell_pre(sh, x, cr, st, c, nb, r, cur, ge, gi, t, dt);
    olive_cable_cell_step(sh, x, c, nb, t, dt);
    return spk_cable_cell_post(x, cr, c, nb, r, v, m, h, n, ge, gi, vprev, ref);
}

#endif
