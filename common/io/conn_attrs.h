/* A procedural projection's rule as attributes of its group in the network
 * file (conn_attrs.c; docs/FORMAT.md, "Procedural projections"). */
#ifndef OLIVE_CONN_ATTRS_H
#define OLIVE_CONN_ATTRS_H
#include <hdf5.h>
#include "conn_rule.h"

/* The rule as attributes of projection group pg, and back: 0 when pg holds
 * no rule (attribute `procedural` absent), 1 when *c holds it, validated
 * against a network of count cells and delay step dt (a bad one is fatal,
 * naming path and where). */
void olive_conn_write(const char *path, hid_t pg, const olive_conn *c);
int olive_conn_read(const char *path, hid_t pg, const char *where, int64_t count, double dt, olive_conn *c);
/* The attributes olive_conn_write may write, for readers that refuse unknown ones. */
int olive_conn_attr_known(const char *name);

#endif
