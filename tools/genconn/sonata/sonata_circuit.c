/* A SONATA circuit config (bmtk's circuit_config.json, or a config holding
 * its "manifest", "components" and "networks"): its manifest variables and
 * paths, for the importers of its nodes and edges (docs/FORMAT.md, "SONATA"). */
#include "sonata_circuit.h"
#include "util.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gc_circuit_open(const char *config, gc_circuit *c)
{
    char real[PATH_MAX];
    memset(c, 0, sizeof *c);
    c->path = config;
    if (!realpath(config, real)) olive_die("%s: cannot open the circuit config: %s", config, strerror(errno));
    snprintf(c->dir, sizeof c->dir, "%s", real);
    *strrchr(c->dir, '/') = 0;
    c->root = gc_json_read(config);
    if (c->root->kind != GC_JSON_OBJ) olive_die("%s: the circuit config is %s, not an object", config, gc_json_kind_name(c->root->kind));
    c->manifest = gc_json_get(c->root, "manifest");
}

void gc_circuit_close(gc_circuit *c)
{
    gc_json_free(c->root);
    c->root = NULL;
}

/* One value of the config (what names it in messages), its manifest
 * variables ($NAME, ${NAME}, ${configdir}) replaced, a relative path taken
 * from the config's directory, into out[PATH_MAX]. */
void gc_circuit_resolve(const gc_circuit *c, const char *what, const char *s, char *out)
{
    char a[PATH_MAX], b[PATH_MAX];
    if (snprintf(a, sizeof a, "%s", s) >= (int)sizeof a) olive_die("%s: %s: path too long", c->path, what);
    for (int round = 0; strchr(a, '$'); round++) {
        if (round == 32) olive_die("%s: %s '%s': the manifest's variables refer to each other without end", c->path, what, s);
        char *d = strchr(a, '$'), name[256];
        const int braced = d[1] == '{';
        size_t len = 0;
        const char *v = d + 1 + braced;
        while ((v[len] >= 'A' && v[len] <= 'Z') || (v[len] >= 'a' && v[len] <= 'z') || (v[len] >= '0' && v[len] <= '9') || v[len] == '_') len++;
        if (len == 0 || len > 200 || (braced && v[len] != '}'))
            olive_die("%s: %s '%s': a '$' that does not start a variable ($NAME or ${NAME})", c->path, what, s);
        snprintf(name, sizeof name, "$%.*s", (int)len, v);
        const gc_json *m = gc_json_get(c->manifest, name);
        const char *val = !strcmp(name, "$configdir") ? c->dir : m && m->kind == GC_JSON_STR ? m->str : NULL;
        if (!val) olive_die("%s: %s '%s': the manifest has no string %s", c->path, what, s, name);
        *d = 0;
        if (snprintf(b, sizeof b, "%s%s%s", a, val, v + len + braced) >= (int)sizeof b)
            olive_die("%s: %s: path too long", c->path, what);
        memcpy(a, b, sizeof a);
    }
    if (!a[0]) olive_die("%s: %s is empty", c->path, what);
    if (a[0] == '/') memcpy(out, a, sizeof a);
    else if (snprintf(out, PATH_MAX, "%s/%s", c->dir, a) >= PATH_MAX) olive_die("%s: %s: path too long", c->path, what);
}

const char *gc_circuit_str(const gc_circuit *c, const gc_json *o, const char *key, const char *where)
{
    const gc_json *v = gc_json_get(o, key);
    if (!v) return NULL;
    if (v->kind != GC_JSON_STR) olive_die("%s: %s.%s is %s, not a string", c->path, where, key, gc_json_kind_name(v->kind));
    return v->str;
}

