/* The JSON reader of the SONATA files olive-genconn imports (circuit
 * configs, dynamics_params): the whole file as a tree of values, parsed by
 * json-c in its strict mode (UTF-8 checked, at most 64 levels deep). A syntax
 * fault dies naming the file, the line and what json-c expected; a value the
 * tree cannot hold (NaN, Infinity, a number beyond a double, an integer
 * beyond 2^53, \u0000 in a string) dies naming the file and the value's key
 * path. A key given twice in one object keeps its last value, as json-c,
 * Python's json (bmtk) and libsonata do; json-c cannot tell it. */
#ifndef OLIVE_GC_JSON_H
#define OLIVE_GC_JSON_H

typedef enum { GC_JSON_NULL, GC_JSON_BOOL, GC_JSON_NUM, GC_JSON_STR, GC_JSON_ARR, GC_JSON_OBJ } gc_json_kind;

typedef struct gc_json {
    gc_json_kind kind;
    double num;               /* NUM; BOOL: 0 or 1 */
    char *str;                /* STR */
    int n;                    /* ARR, OBJ: the number of items */
    char **key;               /* OBJ: the items' keys (each once) */
    struct gc_json *item;     /* ARR, OBJ */
} gc_json;

/* The file's value (dies on a fault); text: parse a string instead (path
 * names it in messages). */
gc_json *gc_json_read(const char *path);
gc_json *gc_json_parse(const char *path, const char *text);
void gc_json_free(gc_json *v);
/* The value of key in object o (NULL when o is not an object or lacks it). */
const gc_json *gc_json_get(const gc_json *o, const char *key);
const char *gc_json_kind_name(gc_json_kind k);

#endif
