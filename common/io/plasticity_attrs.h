/* A projection's plasticity rule as attributes of its group in the network
 * file (plasticity_attrs.c; docs/FORMAT.md). */
#ifndef OLIVE_PLASTICITY_ATTRS_H
#define OLIVE_PLASTICITY_ATTRS_H
#include <hdf5.h>
#include "plasticity_io.h"

/* p into projection group pg (nothing for a static one), and back (rule
 * NONE when the group has no `plasticity`; a bad rule is fatal, named). */
void olive_plast_write(const char *path, hid_t pg, const olive_plasticity *p);
void olive_plast_read(const char *path, hid_t pg, const char *where, olive_plasticity *p);
/* 1 when name is an attribute a projection of rule p may carry. */
int olive_plast_attr_known(const char *name, const olive_plasticity *p);

#endif
