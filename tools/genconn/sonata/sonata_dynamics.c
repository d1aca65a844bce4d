/* The dynamics_params of a SONATA node type for hh_swc cells, in the Allen
 * Cell Types "perisomatic" form that bmtk's set_params_peri applies in
 * NEURON: "passive" (ra and e_pas for every section, cm per section type;
 * pas inserted everywhere), "conditions" (celsius, v_init, ena and ek per
 * section type), "genome" (per section type: g_pas, e_pas, cm, Ra, ena, ek
 * with mechanism "", hh's gnabar_hh gkbar_hh gl_hh el_hh with mechanism
 * "hh", which inserts hh), and olive's own "olive" (hh_swc parameters by
 * name, applied last; --export-sonata writes there what the rest cannot
 * say). A mechanism olive does not have is refused, never dropped;
 * "fitting" (how the fit was made) is not physics and is skipped. */
#include "spiking_net.h"
#include "json.h"
#include "util.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define NSEC 5
static const char *const sec_names[NSEC] = {"soma", "axon", "dend", "apic", "custom"};

typedef struct {
    const char *path;
    long long tid;
    const olive_cell_model *m;
    double *p;
    int hh_set[NSEC];        /* an hh parameter was given on this section type */
} ctx;

static void set(const ctx *c, const char *sec, const char *name, double v)
{
    char k[64];
    snprintf(k, sizeof k, "%s%s%s", sec ? sec : "", sec ? "." : "", name);
    const int i = olive_model_param(c->m, k);
    if (i < 0) olive_die("%s: node type %lld: %s has no parameter %s", c->path, c->tid, c->m->name, k);
    c->p[i] = v;
}

static void set_all(const ctx *c, const char *name, double v)
{
    for (int s = 0; s < NSEC; s++) set(c, sec_names[s], name, v);
}

/* Only the keys listed (NULL-terminated) in object o (where names it). */
static void only_keys(const ctx *c, const gc_json *o, const char *where, const char *const *keys)
{
    if (o->kind != GC_JSON_OBJ) olive_die("%s: node type %lld: %s is %s, not an object", c->path, c->tid, where, gc_json_kind_name(o->kind));
    for (int i = 0; i < o->n; i++) {
        int ok = 0;
        for (int k = 0; keys[k]; k++) ok |= !strcmp(o->key[i], keys[k]);
        if (!ok) olive_die("%s: node type %lld: %s: '%s' is not something olive's hh_swc has; refused rather than dropped",
                           c->path, c->tid, where, o->key[i]);
    }
}

static double number(const ctx *c, const gc_json *o, const char *key, const char *where)
{
    const gc_json *v = gc_json_get(o, key);
    if (!v || v->kind != GC_JSON_NUM)
        olive_die("%s: node type %lld: %s.%s is %s, not a number", c->path, c->tid, where, key, v ? gc_json_kind_name(v->kind) : "missing");
    return v->num;
}

static const char *text(const ctx *c, const gc_json *o, const char *key, const char *where, const char *dflt)
{
    const gc_json *v = gc_json_get(o, key);
    if (!v && dflt) return dflt;
    if (!v || v->kind != GC_JSON_STR)
        olive_die("%s: node type %lld: %s.%s is %s, not a string", c->path, c->tid, where, key, v ? gc_json_kind_name(v->kind) : "missing");
    return v->str;
}

/* The index in sec_names of an entry's section (NEURON's names: soma axon dend apic). */
static int section(const ctx *c, const gc_json *o, const char *where)
{
    const char *s = text(c, o, "section", where, NULL);
    for (int k = 0; k < NSEC - 1; k++)
        if (!strcmp(s, sec_names[k])) return k;
    olive_die("%s: node type %lld: %s: section '%s' is not soma, axon, dend or apic", c->path, c->tid, where, s);
}

/* "passive" and "conditions": a list of one object (the Allen form) or the object. */
static const gc_json *single(const ctx *c, const gc_json *root, const char *key)
{
    const gc_json *v = gc_json_get(root, key);
    if (v && v->kind == GC_JSON_ARR) {
        if (v->n != 1) olive_die("%s: node type %lld: %s holds %d entries; olive reads one", c->path, c->tid, key, v->n);
        v = &v->item[0];
    }
    return v;
}

static void passive(const ctx *c, const gc_json *o)
{
    static const char *const keys[] = {"ra", "cm", "e_pas", NULL};
    only_keys(c, o, "passive", keys);
    if (gc_json_get(o, "ra")) set_all(c, "Ra", number(c, o, "ra", "passive"));
    if (gc_json_get(o, "e_pas")) set_all(c, "e_pas", number(c, o, "e_pas", "passive"));
    const gc_json *cm = gc_json_get(o, "cm");
    if (!cm) return;
    if (cm->kind != GC_JSON_ARR) olive_die("%s: node type %lld: passive.cm is not a list", c->path, c->tid);
    for (int i = 0; i < cm->n; i++) {
        static const char *const ck[] = {"section", "cm", NULL};
        char where[64];
        snprintf(where, sizeof where, "passive.cm[%d]", i);
        only_keys(c, &cm->item[i], where, ck);
        set(c, sec_names[section(c, &cm->item[i], where)], "cm", number(c, &cm->item[i], "cm", where));
    }
}

static void conditions(const ctx *c, const gc_json *o)
{
    static const char *const keys[] = {"celsius", "v_init", "erev", NULL};
    only_keys(c, o, "conditions", keys);
    if (gc_json_get(o, "celsius")) set(c, NULL, "celsius", number(c, o, "celsius", "conditions"));
    if (gc_json_get(o, "v_init")) set(c, NULL, "v0", number(c, o, "v_init", "conditions"));
    const gc_json *e = gc_json_get(o, "erev");
    if (!e) return;
    if (e->kind != GC_JSON_ARR) olive_die("%s: node type %lld: conditions.erev is not a list", c->path, c->tid);
    for (int i = 0; i < e->n; i++) {
        static const char *const ek[] = {"section", "ena", "ek", NULL};
        char where[64];
        snprintf(where, sizeof where, "conditions.erev[%d]", i);
        only_keys(c, &e->item[i], where, ek);
        const char *s = sec_names[section(c, &e->item[i], where)];
        if (gc_json_get(&e->item[i], "ena")) set(c, s, "ena", number(c, &e->item[i], "ena", where));
        if (gc_json_get(&e->item[i], "ek")) set(c, s, "ek", number(c, &e->item[i], "ek", where));
    }
}

/* One genome entry: a section parameter (mechanism "" or pas) or hh's. */
static void gene(ctx *c, const gc_json *o, int i)
{
    static const char *const keys[] = {"section", "name", "value", "mechanism", NULL};
    static const char *const plain[] = {"g_pas", "e_pas", "cm", "Ra", "ena", "ek", NULL};
    static const char *const hh[][2] = {{"gnabar_hh", "gnabar"}, {"gkbar_hh", "gkbar"}, {"gl_hh", "gl"}, {"el_hh", "el"}};
    char where[64];
    snprintf(where, sizeof where, "genome[%d]", i);
    only_keys(c, o, where, keys);
    const int sk = section(c, o, where);
    const char *s = sec_names[sk], *name = text(c, o, "name", where, NULL), *mech = text(c, o, "mechanism", where, "");
    const double v = number(c, o, "value", where);
    if (!strcmp(mech, "hh") || !strcmp(mech, "")) {
        for (int k = 0; k < 4; k++)
            if (!strcmp(name, hh[k][0])) {
                if (mech[0]) set(c, s, "hh", 1);
                c->hh_set[sk] = 1;
                set(c, s, hh[k][1], v);
                return;
            }
        if (mech[0]) olive_die("%s: node type %lld: %s: '%s' is not a parameter of hh (gnabar_hh, gkbar_hh, gl_hh, el_hh)",
                               c->path, c->tid, where, name);
    }
    if (!strcmp(mech, "") || !strcmp(mech, "pas")) {
        for (int k = 0; plain[k]; k++)
            if (!strcmp(name, plain[k]) && (!mech[0] || k < 2)) {
                set(c, s, name, v);
                return;
            }
        olive_die("%s: node type %lld: %s: '%s'%s%s is not a section parameter olive's hh_swc has (g_pas, e_pas, cm, Ra, "
                  "ena, ek)", c->path, c->tid, where, name, mech[0] ? " of " : "", mech);
    }
    olive_die("%s: node type %lld: %s: mechanism '%s' (%s on %s): olive has hh and pas only; refused rather than "
              "simulated without it", c->path, c->tid, where, mech, name, s);
}

void gc_sonata_apply_dynamics(const char *path, int64_t tid, const gc_json *root, const olive_cell_model *m, double *p)
{
    ctx c = {path, (long long)tid, m, p, {0}};
    static const char *const keys[] = {"passive", "conditions", "genome", "fitting", "olive", NULL};
    only_keys(&c, root, "the dynamics_params", keys);
    const gc_json *pv = single(&c, root, "passive"), *cv = single(&c, root, "conditions"), *g = gc_json_get(root, "genome");
    if (pv || g) {   /* set_params_peri: pas in every section, only the genome's mechanisms */
        set_all(&c, "pas", 1);
        set_all(&c, "hh", 0);
    }
    if (pv) passive(&c, pv);
    if (cv) conditions(&c, cv);
    if (g) {
        if (g->kind != GC_JSON_ARR) olive_die("%s: node type %lld: genome is not a list", path, c.tid);
        for (int i = 0; i < g->n; i++) gene(&c, &g->item[i], i);
        for (int s = 0; s < NSEC; s++) {
            char k[32];
            snprintf(k, sizeof k, "%s.hh", sec_names[s]);
            if (c.hh_set[s] && p[olive_model_param(m, k)] == 0)
                olive_die("%s: node type %lld: genome sets hh's parameters on %s, where no entry with mechanism \"hh\" "
                          "inserts hh", path, c.tid, sec_names[s]);
        }
    }
    const gc_json *o = gc_json_get(root, "olive");
    if (o) {
        if (o->kind != GC_JSON_OBJ) olive_die("%s: node type %lld: olive is not an object", path, c.tid);
        for (int i = 0; i < o->n; i++) {
            if (olive_model_param(m, o->key[i]) < 0)
                olive_die("%s: node type %lld: olive.%s is not a parameter of %s", path, c.tid, o->key[i], m->name);
            set(&c, NULL, o->key[i], number(&c, o, o->key[i], "olive"));
        }
    }
}

/* Append to the text t (capacity cap, length *len). */
static void add(char *t, size_t cap, size_t *len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void add(char *t, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap - *len) olive_die("--export-sonata: a dynamics_params text longer than %zu bytes", cap);
    *len += (size_t)n;
}

char *gc_sonata_dynamics_text(const olive_cell_model *m, const double *p)
{
    const size_t cap = 65536;
    char *t = olive_malloc(cap, "export");
    size_t len = 0;
#define V(name) p[olive_model_param(m, name)]
    char k[64];
    add(t, cap, &len, "{\n  \"passive\": [{\"ra\": %.17g, \"e_pas\": %.17g, \"cm\": [", V("soma.Ra"), V("soma.e_pas"));
    for (int s = 0; s < NSEC - 1; s++) {
        snprintf(k, sizeof k, "%s.cm", sec_names[s]);
        add(t, cap, &len, "%s{\"section\": \"%s\", \"cm\": %.17g}", s ? ", " : "", sec_names[s], V(k));
    }
    add(t, cap, &len, "]}],\n  \"conditions\": [{\"celsius\": %.17g, \"v_init\": %.17g, \"erev\": [", V("celsius"), V("v0"));
    for (int s = 0; s < NSEC - 1; s++) {
        char kk[64];
        snprintf(k, sizeof k, "%s.ena", sec_names[s]);
        snprintf(kk, sizeof kk, "%s.ek", sec_names[s]);
        add(t, cap, &len, "%s{\"section\": \"%s\", \"ena\": %.17g, \"ek\": %.17g}", s ? ", " : "", sec_names[s], V(k), V(kk));
    }
    add(t, cap, &len, "]}],\n  \"genome\": [");
    static const char *const hh[][2] = {{"gnabar_hh", "gnabar"}, {"gkbar_hh", "gkbar"}, {"gl_hh", "gl"}, {"el_hh", "el"}};
    for (int s = 0; s < NSEC - 1; s++) {
        snprintf(k, sizeof k, "%s.g_pas", sec_names[s]);
        add(t, cap, &len, "%s\n    {\"section\": \"%s\", \"name\": \"g_pas\", \"value\": %.17g, \"mechanism\": \"\"}", s ? "," : "",
            sec_names[s], V(k));
        snprintf(k, sizeof k, "%s.hh", sec_names[s]);
        if (V(k) == 0) continue;
        for (int h = 0; h < 4; h++) {
            snprintf(k, sizeof k, "%s.%s", sec_names[s], hh[h][1]);
            add(t, cap, &len, ",\n    {\"section\": \"%s\", \"name\": \"%s\", \"value\": %.17g, \"mechanism\": \"hh\"}", sec_names[s],
                hh[h][0], V(k));
        }
    }
#undef V
    add(t, cap, &len, "\n  ]");
    /* what the Allen form cannot say (per-type Ra and e_pas, pas left out,
     * custom sections, olive's own parameters): what reading it back gives
     * compared with p, the differences written under "olive" */
    double q[OLIVE_MAX_PARAMS];
    for (int i = 0; i < m->nparams; i++) q[i] = m->params[i].def;
    add(t, cap, &len, "}");
    gc_json *j = gc_json_parse("--export-sonata (dynamics_params)", t);
    gc_sonata_apply_dynamics("--export-sonata (dynamics_params)", 0, j, m, q);
    gc_json_free(j);
    len--;
    int n = 0;
    for (int i = 0; i < m->nparams; i++)
        if (memcmp(&q[i], &p[i], sizeof q[i]))
            add(t, cap, &len, "%s\"%s\": %.17g", n++ ? ", " : ",\n  \"olive\": {", m->params[i].name, p[i]);
    add(t, cap, &len, "%s\n}\n", n ? "}" : "");
    return t;
}
