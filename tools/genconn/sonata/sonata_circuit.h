/* A SONATA circuit config read for the importers (sonata_circuit.c). */
#ifndef OLIVE_GC_SONATA_CIRCUIT_H
#define OLIVE_GC_SONATA_CIRCUIT_H
#include "json.h"
#include <limits.h>

typedef struct {
    const char *path;            /* the circuit config */
    char dir[PATH_MAX];          /* its directory */
    gc_json *root;
    const gc_json *manifest;
} gc_circuit;

/* Reads config (a JSON object) or dies naming it. */
void gc_circuit_open(const char *config, gc_circuit *c);
void gc_circuit_close(gc_circuit *c);
/* One value of the config (what names it in messages), its manifest
 * variables ($NAME, ${NAME}, ${configdir}) replaced, a relative path taken
 * from the config's directory, into out[PATH_MAX]. */
void gc_circuit_resolve(const gc_circuit *c, const char *what, const char *s, char *out);
/* The string member key of object o (NULL if absent; dies if not a string). */
const char *gc_circuit_str(const gc_circuit *c, const gc_json *o, const char *key, const char *where);

#endif
