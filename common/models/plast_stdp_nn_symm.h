/* stdp_nn_symm (plasticity_rules.h): NEST's stdp_nn_symm_synapse, stdp with
 * symmetric nearest-spike pairing: a target's spike pairs with the last
 * presynaptic one only, a presynaptic spike with the target's last (no
 * traces that sum: stdp's arithmetic, plast_stdp.h, with the traces 1).
 * Its parameters, checks and (unused) state are stdp's. */
#ifndef OLIVE_PLAST_STDP_NN_SYMM_H
#define OLIVE_PLAST_STDP_NN_SYMM_H
#include "plast_stdp.h"

#define OLIVE_PLAST_STDP_NN_SYMM_PARS OLIVE_PLAST_STDP_PARS

OLIVE_HD double olive_plast_stdp_nn_symm_pre(const double *par, double dt, int64_t s, int d, olive_post_history h,
                                             double *w, olive_plast_state *st)
{
    return olive_stdp_pre(par, dt, s, d, h, w, st, 1);
}

static inline const char *olive_plast_stdp_nn_symm_fault(const double *q) { return olive_plast_stdp_fault(q); }
static inline const char *olive_plast_stdp_nn_symm_weight_fault(const double *q, double w)
{
    return olive_plast_stdp_weight_fault(q, w);
}
static inline void olive_plast_stdp_nn_symm_initial(const double *q, olive_plast_state *st) { (void)q; (void)st; }

#endif
