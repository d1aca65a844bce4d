/* An Allen Cell Types "fit" JSON file, or bmtk's dynamics_params of that
 * (perisomatic) form, as the biophysics statements of cable_mechs.h, in the
 * order bmtk's set_params_peri applies it in NEURON: for olive-genconn
 * --biophysics FILE.json and the node types of --import-circuit (biophys_swc). */
#include "spiking_net.h"
#include "json.h"
#include "util.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct { char *s; size_t n, cap; const char *file; } text_buf;

static void put(text_buf *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text_buf *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int k = vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= t->cap - t->n)
        olive_usage_error("--biophysics %s: the biophysics are longer than %zu characters", t->file, t->cap - 1);
    t->n += (size_t)k;
}

static const gc_json *need(const char *file, const gc_json *o, const char *key, gc_json_kind kind)
{
    const gc_json *v = gc_json_get(o, key);
    if (!v || v->kind != kind)
        olive_usage_error("--biophysics %s: expected '%s' (%s) in an Allen fit / bmtk dynamics_params object", file, key,
                          gc_json_kind_name(kind));
    return v;
}

/* A section group name of the file as cable_mechs.h's: soma, axon, dend, apic. */
static const char *group(const char *file, const char *s)
{
    static const char *const ok[] = {"soma", "axon", "dend", "apic", "all"};
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++)
        if (!strcmp(s, ok[k])) return s;
    olive_usage_error("--biophysics %s: section '%s' is not soma, axon, dend or apic", file, s);
}

/* Allen's perisomatic fit as set_params_peri applies it: Ra and cm, pas
 * everywhere with e_pas, then the genome's mechanisms and values in order,
 * then the reversal potentials of conditions. */
static void from_json(const char *file, text_buf *t)
{
    gc_json *j = gc_json_read(file);
    const gc_json *passive = need(file, j, "passive", GC_JSON_ARR), *cond = need(file, j, "conditions", GC_JSON_ARR);
    const gc_json *genome = need(file, j, "genome", GC_JSON_ARR);
    if (passive->n < 1 || passive->item[0].kind != GC_JSON_OBJ || cond->n < 1 || cond->item[0].kind != GC_JSON_OBJ)
        olive_usage_error("--biophysics %s: 'passive' and 'conditions' must each hold an object", file);
    const gc_json *pa = &passive->item[0];
    put(t, "# from %s (Allen Cell Types perisomatic fit, bmtk's set_params_peri)\n", file);
    put(t, "all Ra = %.17g\n", need(file, pa, "ra", GC_JSON_NUM)->num);
    const gc_json *cm = need(file, pa, "cm", GC_JSON_ARR);
    for (int k = 0; k < cm->n; k++)
        put(t, "%s cm = %.17g\n", group(file, need(file, &cm->item[k], "section", GC_JSON_STR)->str),
            need(file, &cm->item[k], "cm", GC_JSON_NUM)->num);
    put(t, "all insert pas\nall e_pas = %.17g\n", need(file, pa, "e_pas", GC_JSON_NUM)->num);
    for (int k = 0; k < genome->n; k++) {
        const gc_json *g = &genome->item[k];
        const char *sec = group(file, need(file, g, "section", GC_JSON_STR)->str);
        const char *mech = need(file, g, "mechanism", GC_JSON_STR)->str;
        if (mech[0]) put(t, "%s insert %s\n", sec, mech);
        put(t, "%s %s = %.17g\n", sec, need(file, g, "name", GC_JSON_STR)->str, need(file, g, "value", GC_JSON_NUM)->num);
    }
    const gc_json *erev = gc_json_get(&cond->item[0], "erev");
    for (int k = 0; erev && erev->kind == GC_JSON_ARR && k < erev->n; k++) {
        const gc_json *e = &erev->item[k];
        const char *sec = group(file, need(file, e, "section", GC_JSON_STR)->str);
        for (int q = 0; q < e->n; q++)
            if (strcmp(e->key[q], "section") && e->item[q].kind == GC_JSON_NUM)
                put(t, "%s %s = %.17g\n", sec, e->key[q], e->item[q].num);
    }
    gc_json_free(j);
}

size_t gc_biophysics_of_fit(const char *file, char *text, size_t cap)
{
    text_buf t = {text, 0, cap, file};
    text[0] = 0;
    from_json(file, &t);
    return t.n;
}

