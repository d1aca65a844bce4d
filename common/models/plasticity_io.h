/* Plastic synapses on the host (plasticity.c): the rules' parameters by
 * name, and a projection's rule in the network file (docs/FORMAT.md: the
 * group's attribute `plasticity` and one `plasticity_NAME` per parameter). */
#ifndef OLIVE_PLASTICITY_IO_H
#define OLIVE_PLASTICITY_IO_H
#include <hdf5.h>
#include "plasticity.h"

/* The rule named (static, stdp, tsodyks, tsodyks2), or -1. */
int olive_plast_rule_of(const char *name);
const char *olive_plast_rule_name(int rule);
int olive_plast_npar(int rule);
const char *olive_plast_par_name(int rule, int k);
/* "tau_plus, lambda, ..." for messages. */
const char *olive_plast_par_list(int rule);
/* rule with NEST's defaults. */
void olive_plast_defaults(int rule, olive_plasticity *p);
/* Parameter name of p's rule set to v; 0 when the rule has no such parameter. */
int olive_plast_set(olive_plasticity *p, const char *name, double v);
/* 1 when name is a parameter of some rule. */
int olive_plast_is_par(const char *name);
/* NULL when p's parameters are ones NEST accepts, else the fault. */
const char *olive_plast_fault(const olive_plasticity *p);
/* NULL when a synapse of weight w may have rule p, else the fault. */
const char *olive_plast_weight_fault(const olive_plasticity *p, double w);
/* A synapse's state before its first spike (NEST's initial values). */
void olive_plast_initial(const olive_plasticity *p, olive_plast_state *st);
/* p into projection group pg (nothing for a static one), and back (rule
 * NONE when the group has no `plasticity`; a bad rule is fatal, named). */
void olive_plast_write(const char *path, hid_t pg, const olive_plasticity *p);
void olive_plast_read(const char *path, hid_t pg, const char *where, olive_plasticity *p);
/* 1 when name is an attribute a projection of rule p may carry. */
int olive_plast_attr_known(const char *name, const olive_plasticity *p);

#endif
