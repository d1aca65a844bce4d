/* olive-genconn --biophysics FILE[@POP] and --mechanisms NAME[@POP] for
 * biophys_swc populations: a cell's biophysics as cable_mechs.h's statements,
 * from an Allen Cell Types "fit" JSON file or bmtk's dynamics_params (the
 * perisomatic form, as bmtk's set_params_peri applies it), or a text of
 * those statements as is; and the NMODL mechanism library they use, found
 * in the places the user chose and recorded by name and hash. */
#include "spiking_net.h"
#include "genconn.h"
#include "cable_mechs.h"
#include "json.h"
#include "util.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

static void read_text(const char *file, text_buf *t)
{
    FILE *f = fopen(file, "r");
    if (!f) olive_usage_error("--biophysics %s: cannot open it: %s", file, strerror(errno));
    t->n = fread(t->s, 1, t->cap - 1, f);
    const int more = fgetc(f) != EOF, bad = ferror(f);
    fclose(f);
    if (bad) olive_usage_error("--biophysics %s: cannot read it", file);
    if (more) olive_usage_error("--biophysics %s: longer than %zu characters", file, t->cap - 1);
    t->s[t->n] = 0;
    if (strlen(t->s) != t->n) olive_usage_error("--biophysics %s: not a text file", file);
}

/* FILE[@POP] or NAME[@POP]: the value and the population it names (NULL: all). */
static const char *split_at(const char *v, char *buf, size_t n, const char *opt)
{
    if ((size_t)snprintf(buf, n, "%s", v) >= n) olive_usage_error("%s %s: too long", opt, v);
    char *at = strrchr(buf, '@');
    if (!at) return NULL;
    *at = 0;
    return at + 1;
}

void gc_apply_biophysics(gc_spk_config *cfg, const char *const *bios, int nbio, const char *const *mechs, int nmech)
{
    if ((nbio || nmech) && !olive_model_needs_mechanisms(cfg->model))
        olive_usage_error("--biophysics and --mechanisms apply to biophys_swc populations, not %s", cfg->model->name);
    for (int j = 0; j < nbio; j++) {
        char buf[4096];
        const char *pop = split_at(bios[j], buf, sizeof buf, "--biophysics");
        static char text[sizeof cfg->pops.pop[0].biophysics];
        text_buf t = {text, 0, sizeof text, buf};
        const size_t len = strlen(buf);
        if (len > 5 && !strcmp(buf + len - 5, ".json")) from_json(buf, &t);
        else read_text(buf, &t);
        int hit = 0;
        for (int i = 0; i < cfg->pops.n; i++)
            if (!pop || !strcmp(pop, cfg->pops.pop[i].name)) {
                memcpy(cfg->pops.pop[i].biophysics, text, t.n + 1);
                hit = 1;
            }
        if (!hit) olive_usage_error("--biophysics %s: no population '%s'", bios[j], pop);
    }
    for (int j = 0; j < nmech; j++) {
        char buf[256], why[3000];
        const char *pop = split_at(mechs[j], buf, sizeof buf, "--mechanisms");
        const olive_mech_library *lib = olive_mechs_find(buf, NULL, why, sizeof why);
        if (!lib) olive_usage_error("--mechanisms %s: %s", mechs[j], why);
        int hit = 0;
        for (int i = 0; i < cfg->pops.n; i++)
            if (!pop || !strcmp(pop, cfg->pops.pop[i].name)) {
                snprintf(cfg->pops.pop[i].mechanisms, sizeof cfg->pops.pop[i].mechanisms, "%s", lib->name);
                snprintf(cfg->pops.pop[i].mechanisms_hash, sizeof cfg->pops.pop[i].mechanisms_hash, "%s", lib->hash);
                hit = 1;
            }
        if (!hit) olive_usage_error("--mechanisms %s: no population '%s'", mechs[j], pop);
    }
    if (!olive_model_needs_mechanisms(cfg->model)) return;
    for (int i = 0; i < cfg->pops.n; i++) {
        const olive_population *p = &cfg->pops.pop[i];
        if (olive_model_is_source(p->model)) continue;
        if (!p->biophysics[0] || !p->mechanisms[0])
            olive_usage_error("population %s: a biophys_swc population needs --biophysics FILE[@%s] (an Allen fit JSON "
                              "file, or olive's statements) and --mechanisms NAME[@%s] (a library olive-model build made)",
                              p->name, p->name, p->name);
    }
}

/* The library of population p (its name and hash), or NULL for other models. */
const olive_mech_library *gc_pop_mechanisms(const olive_population *p)
{
    if (!olive_model_needs_mechanisms(p->model) || !p->mechanisms[0]) return NULL;
    char why[3000];
    const olive_mech_library *lib = olive_mechs_find(p->mechanisms, p->mechanisms_hash, why, sizeof why);
    if (!lib) olive_usage_error("population %s: %s", p->name, why);
    return lib;
}
