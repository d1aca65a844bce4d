/* Plastic synapses on the host (plasticity.c): the rules' parameters by
 * name (in the network file: io/plasticity_attrs.h). */
#ifndef OLIVE_PLASTICITY_IO_H
#define OLIVE_PLASTICITY_IO_H
#include "plasticity.h"

/* The rule named (static, or a name of plasticity_rules.h's table), or -1. */
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
/* The names of a rule's state variables s[0..2] in a state file (NULL:
 * the rule does not use that one): stdp's trace Kplus; tsodyks' x, y, u
 * (plasticity_rules.h's table). */
void olive_plast_state_names(int rule, const char *names[3]);
/* A synapse's state before its first spike (NEST's initial values). */
void olive_plast_initial(const olive_plasticity *p, olive_plast_state *st);
/* NEST's synapse model of a rule (static_synapse for none), and the rule of
 * one (-1: none olive runs). */
const char *olive_plast_nest_name(int rule);
int olive_plast_rule_of_nest(const char *name);
/* "static_synapse, stdp_synapse, ..." for messages. */
const char *olive_plast_nest_list(void);
/* The largest valid value of a rule's state variables (a state file's check). */
double olive_plast_state_max(int rule);

#endif
