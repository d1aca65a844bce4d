/* --param: one override of a population's cell parameter, as olive-genconn
 * and olive-simulate take it (one parser, one set of refusals). */
#ifndef OLIVE_POPPARAM_H
#define OLIVE_POPPARAM_H
#include <stddef.h>
#include "synfile.h"

/* Applies spec to pops. spec is POP.NAME=VALUE or NAME=VALUE@POP (population
 * POP) or NAME=VALUE (every population whose model has NAME). The parameter
 * takes VALUE for the whole population: param[k] set and a per-cell dataset
 * of it no longer read (percell[k] = 0); hit[i] = 1 for every population
 * changed. The resolved name (NAME) goes into name. Refused through
 * olive_usage_error naming opt and spec: no '=', VALUE not a number in
 * [-1e9, 1e9], an unknown population (the populations listed), a parameter
 * its model lacks (the model's parameters listed), or a POP.NAME that also
 * reads as a parameter of every population (ambiguous). The model's own
 * checks of the values (ranges, a cell it can build) stay with its set-up,
 * as for a value read from the file. */
void olive_pops_param_apply(const char *opt, const char *spec, olive_populations *pops, int hit[OLIVE_MAX_POPS],
                            char *name, size_t name_len);

#endif
