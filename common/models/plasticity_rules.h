/* The plasticity rules olive runs: one file each (its arithmetic, NEST's
 * parameter names and defaults, checks and initial state) and one line of
 * OLIVE_PLAST_RULES below; everything else (the enum, the CPU engine's and
 * the CUDA kernels' one dispatch, parameter tables, state names, NEST's
 * model names for SONATA) is made from this table. Included by plasticity.h
 * after the common part.
 * A rule file NAME.h gives, for prefix P:
 *   OLIVE_PLAST_<E>_PARS: {"name", "unit", default}, ... (NEST's, in index order);
 *   olive_plast_P_pre(par, dt, step, delay, target history, &w, &state): OLIVE_HD,
 *     the update at a presynaptic spike, returning the weight delivered;
 *   olive_plast_P_fault(par), olive_plast_P_weight_fault(par, w): NULL or NEST's refusal;
 *   olive_plast_P_initial(par, &state): the state before the first spike.
 * A column of the table:
 *   X(E, P, name, NEST's model, post, s0, s1, s2, smax)
 *   E: the enum's OLIVE_PLAST_<E>; P: the files' prefix; name: in files and
 *   on command lines; post: 1 when the update reads the target's spikes and
 *   changes the weight (then parameter OLIVE_STDP_TAU_MINUS is the target's
 *   trace's time constant, as NEST keeps it on the neuron); s0..s2: the
 *   names of state variables s[0..2] in state files (NULL: unused); smax:
 *   their largest valid value (a state file's check). */
#ifndef OLIVE_PLASTICITY_RULES_H
#define OLIVE_PLASTICITY_RULES_H
#include "plast_stdp.h"
#include "plast_tsodyks.h"
#include "plast_tsodyks2.h"
#include "plast_stdp_nn_symm.h"

#define OLIVE_PLAST_RULES(X)                                                                                              \
    X(STDP, stdp, "stdp", "stdp_synapse", 1, "Kplus", NULL, NULL, 1.0 / 0.0)                                           \
    X(TSODYKS, tsodyks, "tsodyks", "tsodyks_synapse", 0, "x", "y", "u", 1.0)                                            \
    X(TSODYKS2, tsodyks2, "tsodyks2", "tsodyks2_synapse", 0, "x", NULL, "u", 1.0)                                       \
    X(STDP_NN_SYMM, stdp_nn_symm, "stdp_nn_symm", "stdp_nn_symm_synapse", 1, "Kplus", NULL, NULL, 1.0 / 0.0)

#endif
