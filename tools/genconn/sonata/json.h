/* A small JSON reader for the SONATA files olive-genconn imports (circuit
 * configs, dynamics_params): the whole file as a tree of values. Faults die
 * naming the file, the line and what was expected. */
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
