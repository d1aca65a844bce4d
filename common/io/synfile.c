#include "synfile.h"
#include "conn_attrs.h"
#include "plasticity_attrs.h"
#include "memcheck.h"
#include "model_plugin.h"
#include "h5util.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *olive_name_fault(const char *name)
{
    if (!name[0]) return "is empty";
    if (strlen(name) >= OLIVE_NAME_LEN) return "is longer than 63 characters";
    if (!strcmp(name, ".") || !strcmp(name, "..")) return "is not a name";
    /* HDF5 would take a slash as a path: a/b makes a group a holding b */
    if (strchr(name, '/')) return "holds a '/'";
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        if (*c < 0x20 || *c == 0x7f) return "holds a control character";
    return NULL;
}

/* Names of the links in group g, in name order (at most max), each a valid
 * population or projection name. */
static int list_links(const char *path, hid_t g, const char *what, char (*names)[OLIVE_NAME_LEN], int max)
{
    H5G_info_t info;
    if (H5Gget_info(g, &info) < 0) olive_die("%s: cannot list %s", path, what);
    if (info.nlinks > (hsize_t)max) olive_die("%s: %s has %llu entries; olive reads at most %d", path, what,
                                              (unsigned long long)info.nlinks, max);
    for (hsize_t i = 0; i < info.nlinks; i++) {
        ssize_t len = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, names[i], OLIVE_NAME_LEN, H5P_DEFAULT);
        if (len < 0) olive_die("%s: cannot read the names in %s", path, what);
        if (len >= OLIVE_NAME_LEN) olive_die("%s: a name in %s is longer than %d characters", path, what, OLIVE_NAME_LEN - 1);
        const char *bad = olive_name_fault(names[i]);
        if (bad) olive_die("%s: %s: the name '%s' %s", path, what, names[i], bad);
    }
    return (int)info.nlinks;
}

/* The names of g's links (what), malloc'd: projections may be thousands. */
#define OLIVE_MAX_PROJECTIONS (1 << 20)
static char (*links_of(const char *path, hid_t g, const char *what, int *n))[OLIVE_NAME_LEN]
{
    H5G_info_t info;
    if (H5Gget_info(g, &info) < 0) olive_die("%s: cannot list %s", path, what);
    if (info.nlinks > (hsize_t)OLIVE_MAX_PROJECTIONS)
        olive_die("%s: %s has %llu entries; olive reads at most %d", path, what, (unsigned long long)info.nlinks,
                  OLIVE_MAX_PROJECTIONS);
    char (*names)[OLIVE_NAME_LEN] = olive_malloc(((size_t)info.nlinks + 1) * OLIVE_NAME_LEN, "projection names");
    *n = list_links(path, g, what, names, OLIVE_MAX_PROJECTIONS);
    return names;
}

/* Die when an attribute of obj (group where) has a damaged header. HDF5
 * 1.10 crashes listing attributes by index (H5Aget_name_by_idx,
 * H5Aiterate2, H5Aopen_by_idx) when one of them is damaged, where a lookup
 * by name fails cleanly: the lookup of a name no attribute has decodes every
 * one of them. Call before looking anything up, so that the fault is not
 * blamed on the attribute looked up. */
static void attrs_readable(const char *path, hid_t obj, const char *where)
{
    if (H5Aexists(obj, "\x01(no such attribute)") != 0)
        olive_die("%s: %s: its attributes cannot be read (a damaged attribute header)", path, where);
}

/* Die naming the first attribute of obj (group where, attrs_readable) that
 * known() does not accept. Only names are read: the values of the
 * attributes olive knows are read (type and size checked first) by the
 * getters of h5util.c. */
static void refuse_unknown_attrs(const char *path, hid_t obj, const char *where, int (*known)(const char *, const void *),
                                 const void *ctx, const char *what)
{
    H5O_info_t oi;
    if (H5Oget_info2(obj, &oi, H5O_INFO_NUM_ATTRS) < 0) olive_die("%s: %s: cannot list its attributes", path, where);
    for (hsize_t a = 0; a < oi.num_attrs; a++) {
        char an[128];
        ssize_t len = H5Aget_name_by_idx(obj, ".", H5_INDEX_NAME, H5_ITER_INC, a, an, sizeof an, H5P_DEFAULT);
        if (len < 0) olive_die("%s: %s: cannot read the name of its attribute %llu (damaged?)", path, where,
                               (unsigned long long)a);
        if (len >= (ssize_t)sizeof an || !known(an, ctx))
            olive_die("%s: %s: attribute '%s' is not %s", path, where, an, what);
    }
}

/* What a population group may hold besides the model's parameters. */
static int pop_attr_known(const char *name, const void *ctx)
{
    const olive_population *p = ctx;
    static const char *const common[] = {"model", "first", "count", NULL};
    static const char *const plugin[] = {"model_hash", "model_path", NULL};
    return olive_h5_name_listed(name, common) || olive_model_param(p->model, name) >= 0 ||
           (olive_plugin_of(p->model) && olive_h5_name_listed(name, plugin)) ||
           (!strcmp(name, "morphology") && olive_model_needs_morphology(p->model)) ||
           (olive_model_needs_mechanisms(p->model) && olive_h5_name_listed(name, (const char *const[]){
                "biophysics", "mechanisms", "mechanisms_hash", NULL}));
}

static int pop_dset_known(const char *name, const void *ctx)
{
    const olive_population *p = ctx;
    static const char *const times[] = {"spike_times", "spike_times_ptr", NULL};
    return olive_model_param(p->model, name) >= 0 ||
           (p->model == &olive_model_spike_source_array && olive_h5_name_listed(name, times));
}

/* The model named by group obj's attribute model (name): built in, or a
 * plugin's, recorded by name and model_hash (docs/FORMAT.md), which the
 * program resolved before reading (olive_pops_model_refs): the reader looks
 * it up and never loads code. The attribute model_path that earlier olive
 * versions wrote is read past: a path in a file is never loaded. */
static const olive_cell_model *read_model(const char *path, hid_t obj, const char *where, const char *name)
{
    char hash[160] = "";
    olive_h5_get_str_opt(path, obj, "model_hash", hash, sizeof hash);
    return olive_model_lookup(path, where, name, hash);
}

/* Group obj's model reference into r (0: it names none). */
static int model_ref(const char *path, hid_t obj, const char *where, olive_model_ref *r)
{
    memset(r, 0, sizeof *r);
    if (!olive_h5_get_str_opt(path, obj, "model", r->name, sizeof r->name)) return 0;
    olive_h5_get_str_opt(path, obj, "model_hash", r->hash, sizeof r->hash);
    snprintf(r->where, sizeof r->where, "%s", where);
    return 1;
}

int olive_pops_model_refs(const char *path, olive_model_ref *refs, int max)
{
    hid_t f = olive_h5_open_read(path);
    int n = 0;
    if (olive_h5_exists(f, "cells/populations")) {
        hid_t c = H5Gopen2(f, "cells", H5P_DEFAULT);
        if (c < 0) olive_die("%s: cannot open /cells", path);
        if (n < max && model_ref(path, c, "/cells", &refs[n]) && strcmp(refs[n].name, "mixed")) n++;
        H5Gclose(c);
        hid_t g = H5Gopen2(f, "cells/populations", H5P_DEFAULT);
        if (g < 0) olive_die("%s: /cells/populations is not a group", path);
        static char names[OLIVE_MAX_POPS][OLIVE_NAME_LEN];
        const int np = list_links(path, g, "/cells/populations", names, OLIVE_MAX_POPS);
        for (int i = 0; i < np && n < max; i++) {
            char where[160];
            snprintf(where, sizeof where, "/cells/populations/%s", names[i]);
            hid_t pg = H5Gopen2(g, names[i], H5P_DEFAULT);
            if (pg < 0) olive_die("%s: %s is not a group", path, where);
            attrs_readable(path, pg, where);
            n += model_ref(path, pg, where, &refs[n]);
            H5Gclose(pg);
        }
        H5Gclose(g);
    }
    H5Fclose(f);
    return n;
}

/* The plugin attributes of group obj, when model m is a plugin's. */
static void write_model_plugin(const char *path, hid_t obj, const olive_cell_model *m)
{
    const olive_model_plugin *p = olive_plugin_of(m);
    if (!p) return;
    olive_h5_attr_str(path, obj, "model_hash", p->hash);
}

int olive_pops_present(const char *path, const olive_cell_model **model)
{
    hid_t f = olive_h5_open_read(path);
    int has = olive_h5_exists(f, "cells/populations");
    *model = &olive_model_infoli;
    if (has) {
        hid_t c = H5Gopen2(f, "cells", H5P_DEFAULT);
        char name[64] = "";
        if (c < 0) olive_die("%s: cannot open /cells", path);
        if (!olive_h5_get_str_opt(path, c, "model", name, sizeof name))
            olive_die("%s: /cells has populations but no attribute 'model'", path);
        *model = strcmp(name, "mixed") ? read_model(path, c, "/cells", name) : NULL;
        if (*model && olive_model_is_source(*model))
            olive_die("%s: /cells model '%s': the model of the network's neurons, not of its spike sources", path, name);
        H5Gclose(c);
    }
    H5Fclose(f);
    return has;
}

static int cmp_pop(const void *a, const void *b)
{
    const olive_population *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

/* The population's SWC file: its attribute `morphology`, a relative path
 * taken relative to the network file's directory. */
static void read_morphology(const char *path, hid_t pg, const char *where, olive_population *p)
{
    char m[sizeof p->morphology];
    if (!olive_h5_get_str_opt(path, pg, "morphology", m, sizeof m) || !m[0])
        olive_die("%s: %s: a %s population needs the attribute 'morphology' (an SWC file)", path, where, p->model->name);
    const char *slash = strrchr(path, '/');
    int n;
    if (m[0] == '/' || !slash) n = snprintf(p->morphology, sizeof p->morphology, "%s", m);
    else n = snprintf(p->morphology, sizeof p->morphology, "%.*s/%s", (int)(slash - path), path, m);
    if (n < 0 || (size_t)n >= sizeof p->morphology) olive_die("%s: %s: the morphology path is too long", path, where);
}

/* A biophys_swc population's biophysics text and mechanism library (name
 * and hash: the program finds the library in the places the user chose). */
static void read_mechanisms(const char *path, hid_t pg, const char *where, olive_population *p)
{
    static const char *const need[] = {"biophysics", "mechanisms", "mechanisms_hash"};
    char *dst[] = {p->biophysics, p->mechanisms, p->mechanisms_hash};
    const size_t len[] = {sizeof p->biophysics, sizeof p->mechanisms, sizeof p->mechanisms_hash};
    for (int k = 0; k < 3; k++)
        if (!olive_h5_get_str_opt(path, pg, need[k], dst[k], len[k]) || !dst[k][0])
            olive_die("%s: %s: a %s population needs the attribute '%s' (olive-genconn --biophysics, --mechanisms)", path,
                      where, p->model->name, need[k]);
        else if (strlen(dst[k]) == len[k] - 1)
            olive_die("%s: %s: attribute '%s' is longer than %zu characters", path, where, need[k], len[k] - 2);
}

void olive_pops_read(const char *path, int64_t count, olive_populations *out)
{
    memset(out, 0, sizeof *out);
    hid_t f = olive_h5_open_read(path);
    if (!olive_h5_exists(f, "cells/populations")) {
        out->n = 1;
        snprintf(out->pop[0].name, sizeof out->pop[0].name, "io");
        out->pop[0].model = &olive_model_infoli;
        out->pop[0].count = count;
        H5Fclose(f);
        return;
    }
    hid_t g = H5Gopen2(f, "cells/populations", H5P_DEFAULT);
    if (g < 0) olive_die("%s: /cells/populations is not a group", path);
    static char names[OLIVE_MAX_POPS][OLIVE_NAME_LEN];
    out->n = list_links(path, g, "/cells/populations", names, OLIVE_MAX_POPS);
    if (out->n == 0) olive_die("%s: /cells/populations is empty", path);
    for (int i = 0; i < out->n; i++) {
        olive_population *p = &out->pop[i];
        char where[160], model[64] = "";
        snprintf(where, sizeof where, "/cells/populations/%s", names[i]);
        memcpy(p->name, names[i], sizeof p->name);
        hid_t pg = H5Gopen2(g, names[i], H5P_DEFAULT);
        if (pg < 0) olive_die("%s: %s is not a group", path, where);
        attrs_readable(path, pg, where);
        if (!olive_h5_get_str_opt(path, pg, "model", model, sizeof model))
            olive_die("%s: %s has no attribute 'model'", path, where);
        p->model = read_model(path, pg, where, model);
        if (p->model->nparams > OLIVE_MAX_PARAMS) olive_die("internal: model %s has too many parameters", model);
        if (olive_model_needs_morphology(p->model)) read_morphology(path, pg, where, p);
        if (olive_model_needs_mechanisms(p->model)) read_mechanisms(path, pg, where, p);
        p->first = olive_h5_get_i64(path, pg, where, "first");
        p->count = olive_h5_get_i64(path, pg, where, "count");
        if (p->first < 0 || p->count < 1 || p->first > count - p->count)
            olive_die("%s: %s: cells [%lld, %lld + %lld) are not inside the network's %lld cells", path, where,
                      (long long)p->first, (long long)p->first, (long long)p->count, (long long)count);
        for (int k = 0; k < p->model->nparams; k++) {
            const char *pn = p->model->params[k].name;
            p->param[k] = p->model->params[k].def;
            if (olive_h5_has_attr(pg, pn)) p->param[k] = olive_h5_get_f64(path, pg, where, pn);
            const char *bad = olive_number_fault(p->param[k]);
            if (bad) olive_die("%s: %s: parameter %s %s", path, where, pn, bad);
            if (olive_h5_exists(pg, pn)) {
                if (olive_h5_len1(path, pg, pn) != p->count)
                    olive_die("%s: %s/%s has %lld values for %lld cells", path, where, pn,
                              (long long)olive_h5_len1(path, pg, pn), (long long)p->count);
                p->percell[k] = 1;
            }
        }
        /* Anything else is a typo that would silently use a default, or data that would be ignored. */
        char what[128];
        snprintf(what, sizeof what, "a parameter of model %s", model);
        refuse_unknown_attrs(path, pg, where, pop_attr_known, p, what);
        snprintf(what, sizeof what, "a per-cell parameter of model %s", model);
        olive_h5_refuse_unknown_links(path, pg, where, pop_dset_known, p, what);
        H5Gclose(pg);
    }
    H5Gclose(g);
    H5Fclose(f);
    qsort(out->pop, (size_t)out->n, sizeof out->pop[0], cmp_pop);
    int64_t next = 0;
    for (int i = 0; i < out->n; i++) {
        if (out->pop[i].first != next)
            olive_die("%s: the populations do not tile the cells: population %s starts at %lld, expected %lld", path,
                      out->pop[i].name, (long long)out->pop[i].first, (long long)next);
        next += out->pop[i].count;
    }
    if (next != count) olive_die("%s: the populations cover %lld of the %lld cells", path, (long long)next, (long long)count);
}

void olive_pops_read_percell(const char *path, const olive_population *p, int k, int64_t a, int64_t b, double *out)
{
    hid_t f = olive_h5_open_read(path);
    char where[160];
    snprintf(where, sizeof where, "cells/populations/%s", p->name);
    hid_t g = H5Gopen2(f, where, H5P_DEFAULT);
    if (g < 0) olive_die("%s: cannot open /%s", path, where);
    olive_h5_read_slab1(path, g, p->model->params[k].name, H5T_NATIVE_DOUBLE, a - p->first, b - a, out);
    for (int64_t i = 0; i < b - a; i++) {
        const char *bad = olive_number_fault(out[i]);
        if (bad)
            olive_die("%s: /%s/%s: the value of cell %lld %s", path, where, p->model->params[k].name, (long long)(a + i),
                      bad);
    }
    H5Gclose(g);
    H5Fclose(f);
}

void olive_spike_times_read(const char *path, const olive_population *p, int64_t a, int64_t b, int64_t *ptr, double *times)
{
    hid_t f = olive_h5_open_read(path);
    char where[160];
    snprintf(where, sizeof where, "cells/populations/%s", p->name);
    hid_t g = H5Gopen2(f, where, H5P_DEFAULT);
    if (g < 0) olive_die("%s: cannot open /%s", path, where);
    if (!olive_h5_exists(g, "spike_times_ptr") || !olive_h5_exists(g, "spike_times"))
        olive_die("%s: /%s: a spike_source_array population needs datasets spike_times and spike_times_ptr", path, where);
    const int64_t np = olive_h5_len1(path, g, "spike_times_ptr"), nt = olive_h5_len1(path, g, "spike_times");
    if (np != p->count + 1)
        olive_die("%s: /%s/spike_times_ptr has %lld entries for %lld cells (needs cells + 1)", path, where, (long long)np,
                  (long long)p->count);
    int64_t ends[2];
    olive_h5_read_slab1(path, g, "spike_times_ptr", H5T_NATIVE_INT64, 0, 1, &ends[0]);
    olive_h5_read_slab1(path, g, "spike_times_ptr", H5T_NATIVE_INT64, p->count, 1, &ends[1]);
    if (ends[0] != 0 || ends[1] != nt)
        olive_die("%s: /%s/spike_times_ptr runs from %lld to %lld; it must run from 0 to the %lld spike times", path, where,
                  (long long)ends[0], (long long)ends[1], (long long)nt);
    olive_h5_read_slab1(path, g, "spike_times_ptr", H5T_NATIVE_INT64, a - p->first, b - a + 1, ptr);
    for (int64_t i = 0; i < b - a; i++)
        if (ptr[i + 1] < ptr[i])
            olive_die("%s: /%s/spike_times_ptr decreases at cell %lld", path, where, (long long)(a + i));
    if (times) {
        olive_h5_read_slab1(path, g, "spike_times", H5T_NATIVE_DOUBLE, ptr[0], ptr[b - a] - ptr[0], times);
        for (int64_t i = 0; i < b - a; i++)
            for (int64_t e = ptr[i] - ptr[0]; e < ptr[i + 1] - ptr[0]; e++)
                if (!isfinite(times[e]) || (e > ptr[i] - ptr[0] && times[e] < times[e - 1]))
                    olive_die("%s: /%s/spike_times: cell %lld: time %g is not finite or comes before the one before",
                              path, where, (long long)(a + i), times[e]);
    }
    H5Gclose(g);
    H5Fclose(f);
}

void olive_pops_write(const char *path, hid_t f, const olive_populations *pops, double *const (*percell)[OLIVE_MAX_PARAMS])
{
    hid_t cells = H5Gopen2(f, "cells", H5P_DEFAULT);
    if (cells < 0) olive_die("%s: cannot open /cells", path);
    /* /cells model: the neuron model of every population but the spike sources */
    const olive_cell_model *m = NULL;
    int mixed = 0;
    for (int i = 0; i < pops->n; i++) {
        if (olive_model_is_source(pops->pop[i].model)) continue;
        if (m && pops->pop[i].model != m) mixed = 1;
        m = pops->pop[i].model;
    }
    olive_h5_attr_str(path, cells, "model", m && !mixed ? m->name : "mixed");
    if (m && !mixed) write_model_plugin(path, cells, m);
    for (int i = 0; i < pops->n; i++) {
        const olive_population *p = &pops->pop[i];
        char where[160];
        snprintf(where, sizeof where, "populations/%s", p->name);
        hid_t g = olive_h5_group(path, cells, where);
        olive_h5_attr_str(path, g, "model", p->model->name);
        write_model_plugin(path, g, p->model);
        olive_h5_attr_i64(path, g, "first", p->first);
        olive_h5_attr_i64(path, g, "count", p->count);
        if (p->morphology[0]) olive_h5_attr_str(path, g, "morphology", p->morphology);
        if (olive_model_needs_mechanisms(p->model)) {
            olive_h5_attr_str(path, g, "biophysics", p->biophysics);
            olive_h5_attr_str(path, g, "mechanisms", p->mechanisms);
            olive_h5_attr_str(path, g, "mechanisms_hash", p->mechanisms_hash);
        }
        for (int k = 0; k < p->model->nparams; k++) {
            olive_h5_attr_f64(path, g, p->model->params[k].name, p->param[k]);
            if (percell && percell[i][k])
                olive_h5_write1(path, g, p->model->params[k].name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, p->count,
                                percell[i][k], 0);
        }
        olive_h5_close(path, g, "a population group");
    }
    olive_h5_close(path, cells, "group /cells");
}

/* ---- synapses ---- */

static int proj_attr_known(const char *name, const void *ctx)
{
    if (olive_plast_attr_known(name, ctx)) return 1;
    static const char *const known[] = {"receptor", "source", "target", "rule", "weight", "delay", "sites", NULL};
    (void)ctx;
    return olive_h5_name_listed(name, known) || olive_conn_attr_known(name);
}

static int proj_dset_known(const char *name, const void *ctx)
{
    static const char *const known[] = {"row_ptr", "col", "weight", "delay", "site_section", "site_x", NULL};
    (void)ctx;
    return olive_h5_name_listed(name, known);
}

/* Dataset name of projection pg: one value per synapse, of class want (kind: its words). */
static void check_per_synapse(const char *path, hid_t pg, const char *where, const char *name, int64_t nnz,
                              H5T_class_t want, const char *kind)
{
    H5T_class_t cls;
    size_t sz;
    if (olive_h5_len1(path, pg, name) != nnz)
        olive_die("%s: %s/%s has %lld values for %lld synapses", path, where, name,
                  (long long)olive_h5_len1(path, pg, name), (long long)nnz);
    olive_h5_dtype_info(path, pg, name, &cls, &sz);
    if (cls != want) olive_die("%s: %s/%s must be %s", path, where, name, kind);
}

/* The synapse sites (site_section, site_x; both or neither) of the held
 * synapses, validated as far as the file alone can tell: whether a section
 * exists is the target cell's to say (olive-simulate). */
static void read_sites(const char *path, hid_t pg, const char *where, olive_projection *p)
{
    const int has_s = olive_h5_exists(pg, "site_section"), has_x = olive_h5_exists(pg, "site_x");
    olive_h5_get_str_opt(path, pg, "sites", p->sites, sizeof p->sites);
    if (!has_s && !has_x) return;
    if (!has_s || !has_x)
        olive_die("%s: %s has %s but not %s (synapse sites need both)", path, where,
                  has_s ? "site_section" : "site_x", has_s ? "site_x" : "site_section");
    check_per_synapse(path, pg, where, "site_section", p->nnz_total, H5T_INTEGER, "an integer dataset");
    check_per_synapse(path, pg, where, "site_x", p->nnz_total, H5T_FLOAT, "a float32 or float64 dataset");
    p->site_sec = olive_malloc((size_t)p->nnz * sizeof(int32_t) + 4, "synapse sites");
    p->site_x = olive_malloc((size_t)p->nnz * sizeof(double) + 8, "synapse sites");
    /* int64 first: a value beyond int32 must be refused, not wrapped */
    int64_t *sec = olive_malloc((size_t)p->nnz * sizeof(int64_t) + 8, "synapse sites");
    olive_h5_read_slab1(path, pg, "site_section", H5T_NATIVE_INT64, p->e0, p->nnz, sec);
    olive_h5_read_slab1(path, pg, "site_x", H5T_NATIVE_DOUBLE, p->e0, p->nnz, p->site_x);
    for (int64_t e = 0; e < p->nnz; e++) {
        if (sec[e] < 0 || sec[e] > INT32_MAX)
            olive_die("%s: %s/site_section[%lld] = %lld is not a section index (0: the soma)", path, where,
                      (long long)(p->e0 + e), (long long)sec[e]);
        p->site_sec[e] = (int32_t)sec[e];
        if (!(p->site_x[e] >= 0 && p->site_x[e] <= 1))
            olive_die("%s: %s/site_x[%lld] = %g is not a position in [0, 1]", path, where, (long long)(p->e0 + e),
                      p->site_x[e]);
    }
    free(sec);
}

static unsigned keep_kinds;   /* olive_syn_keep_rules */

void olive_syn_keep_rules(unsigned kinds) { keep_kinds = kinds; }

/* A procedural projection (conn_rule.h): its rows [row0, row1) drawn from
 * the rule; e0 is exact for indegree, the expected number for total and p
 * (it only numbers synapses in messages, and sizes memory). 0 when pg holds
 * synapse datasets instead. */
static int read_procedural(const char *path, hid_t pg, const char *where, int64_t count, double dt, int64_t row0,
                           int64_t row1, olive_projection *p)
{
    static olive_conn c;   /* what[] is large; readers are not re-entered */
    if (!olive_conn_read(path, pg, where, count, dt, &c)) return 0;
    if (olive_h5_exists(pg, "site_section") || olive_h5_exists(pg, "site_x"))
        olive_die("%s: %s: a procedural projection cannot carry synapse sites", path, where);
    p->nnz_total = (int64_t)llround(olive_conn_expected(&c, 0, count));
    if (keep_kinds >> c.kind & 1) {   /* kept undrawn: no rows (row_ptr NULL: thousands of rules), the rule */
        p->row0 = row0;
        p->row1 = row1;
        p->row_ptr = NULL;
        p->col = NULL;
        p->weight_value = c.w.a;
        p->delay_value = olive_value_varies(&c.d) ? 0 : (int64_t)llround(c.d.a / dt);
        p->kept = olive_malloc(sizeof c, "a projection's rule");
        *p->kept = c;
    } else if (row1 > row0) {
        char what[200];
        snprintf(what, sizeof what, "%.160s: synapses of %lld cells", where, (long long)(row1 - row0));
        /* a rule may ask for any number of synapses: refused by name before drawing (big ones only: -v lists each) */
        const double need = olive_conn_expected(&c, row0, row1) * 30 + 8.0 * (double)(row1 - row0);
        if (need > 64.0 * 1048576) olive_require_memory(path, need, what);
        olive_conn_draw(&c, row0, row1, p);
    } else {
        p->row0 = p->row1 = row0;
        p->row_ptr = olive_calloc(1, sizeof(int64_t), "synapse rows");
        p->col = olive_malloc(4, "synapses");
        /* what the rows would hold, for the memory predictions of reads of no rows */
        p->weight = olive_value_varies(&c.w) ? olive_malloc(8, "synapse weights") : NULL;
        p->delay = olive_value_varies(&c.d) ? olive_malloc(2, "synapse delays") : NULL;
        p->weight_value = c.w.a;
        p->delay_value = olive_value_varies(&c.d) ? 0 : (int64_t)llround(c.d.a / dt);
    }
    p->e0 = (int64_t)llround(olive_conn_expected(&c, 0, row0));
    return 1;
}

static void read_projection(const char *path, hid_t g, const char *name, int64_t count, double dt, int64_t row0,
                            int64_t row1, olive_projection *p)
{
    char where[160];
    snprintf(where, sizeof where, "/synapses/%s", name);
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    hid_t pg = H5Gopen2(g, name, H5P_DEFAULT);
    if (pg < 0) olive_die("%s: %s is not a group", path, where);
    attrs_readable(path, pg, where);
    olive_plast_read(path, pg, where, &p->plast);
    refuse_unknown_attrs(path, pg, where, proj_attr_known, &p->plast, "a projection attribute");
    olive_h5_refuse_unknown_links(path, pg, where, proj_dset_known, NULL, "a projection dataset");
    if (!olive_h5_get_str_opt(path, pg, "receptor", p->receptor, sizeof p->receptor))
        olive_die("%s: %s has no attribute 'receptor'", path, where);
    olive_h5_get_str_opt(path, pg, "source", p->source, sizeof p->source);
    olive_h5_get_str_opt(path, pg, "target", p->target, sizeof p->target);
    olive_h5_get_str_opt(path, pg, "rule", p->rule, sizeof p->rule);
    if (read_procedural(path, pg, where, count, dt, row0, row1, p)) {
        H5Gclose(pg);
        return;
    }
    if (olive_h5_len1(path, pg, "row_ptr") != count + 1)
        olive_die("%s: %s/row_ptr has %lld entries, expected count+1 = %lld", path, where,
                  (long long)olive_h5_len1(path, pg, "row_ptr"), (long long)count + 1);
    p->nnz_total = olive_h5_len1(path, pg, "col");
    H5T_class_t cls;
    size_t sz;
    olive_h5_dtype_info(path, pg, "col", &cls, &sz);
    if (cls != H5T_INTEGER) olive_die("%s: %s/col must be an integer dataset", path, where);
    p->row0 = row0;
    p->row1 = row1;
    int64_t rows = row1 - row0;
    p->row_ptr = olive_malloc((size_t)(rows + 1) * sizeof(int64_t), "synapse rows");
    olive_h5_read_slab1(path, pg, "row_ptr", H5T_NATIVE_INT64, row0, rows + 1, p->row_ptr);
    if (row0 == 0 && p->row_ptr[0] != 0) olive_die("%s: %s/row_ptr[0] = %lld, must be 0", path, where, (long long)p->row_ptr[0]);
    p->e0 = p->row_ptr[0];
    for (int64_t r = 0; r < rows; r++)
        if (p->row_ptr[r + 1] < p->row_ptr[r])
            olive_die("%s: %s/row_ptr decreases at row %lld", path, where, (long long)(row0 + r));
    if (p->e0 < 0 || p->row_ptr[rows] > p->nnz_total)
        olive_die("%s: %s/row_ptr runs outside [0, %lld synapses]", path, where, (long long)p->nnz_total);
    if (row1 == count && p->row_ptr[rows] != p->nnz_total)
        olive_die("%s: %s/row_ptr ends at %lld, but col has %lld synapses", path, where,
                  (long long)p->row_ptr[rows], (long long)p->nnz_total);
    for (int64_t r = 0; r <= rows; r++) p->row_ptr[r] -= p->e0;
    p->nnz = p->row_ptr[rows];
    p->col = olive_malloc((size_t)p->nnz * sizeof(int32_t) + 4, "synapse sources");
    olive_h5_read_slab1(path, pg, "col", H5T_NATIVE_INT32, p->e0, p->nnz, p->col);
    for (int64_t r = 0; r < rows; r++)
        for (int64_t e = p->row_ptr[r]; e < p->row_ptr[r + 1]; e++) {
            if (p->col[e] < 0 || p->col[e] >= count)
                olive_die("%s: %s/col[%lld] = %d is not a cell id (the network has %lld cells)", path, where,
                          (long long)(p->e0 + e), p->col[e], (long long)count);
            if (e > p->row_ptr[r] && p->col[e] < p->col[e - 1])
                olive_die("%s: %s: the sources of target %lld are not in ascending order", path, where,
                          (long long)(row0 + r));
        }
    if (olive_h5_exists(pg, "weight")) {
        check_per_synapse(path, pg, where, "weight", p->nnz_total, H5T_FLOAT, "a float32 or float64 dataset");
        p->weight = olive_malloc((size_t)p->nnz * sizeof(double) + 8, "synapse weights");
        olive_h5_read_slab1(path, pg, "weight", H5T_NATIVE_DOUBLE, p->e0, p->nnz, p->weight);
        for (int64_t e = 0; e < p->nnz; e++) {
            const char *bad = olive_number_fault(p->weight[e]);
            if (bad) olive_die("%s: %s/weight[%lld] %s", path, where, (long long)(p->e0 + e), bad);
        }
    } else if (olive_h5_has_attr(pg, "weight")) {
        p->weight_value = olive_h5_get_f64(path, pg, where, "weight");
        const char *bad = olive_number_fault(p->weight_value);
        if (bad) olive_die("%s: %s weight %s", path, where, bad);
    } else {
        olive_die("%s: %s has neither a dataset nor an attribute 'weight'", path, where);
    }
    if (olive_h5_exists(pg, "delay")) {
        check_per_synapse(path, pg, where, "delay", p->nnz_total, H5T_INTEGER, "an integer dataset (steps of dt)");
        int64_t *d = olive_malloc((size_t)p->nnz * sizeof(int64_t) + 8, "synapse delays");
        olive_h5_read_slab1(path, pg, "delay", H5T_NATIVE_INT64, p->e0, p->nnz, d);
        p->delay = olive_malloc((size_t)p->nnz * sizeof(uint16_t) + 2, "synapse delays");
        for (int64_t e = 0; e < p->nnz; e++) {
            if (d[e] < 0 || d[e] > OLIVE_MAX_DELAY)
                olive_die("%s: %s/delay[%lld] = %lld steps is %s", path, where, (long long)(p->e0 + e), (long long)d[e],
                          d[e] < 0 ? "negative" : "beyond the delay buffer (at most 65535 steps)");
            p->delay[e] = (uint16_t)d[e];
        }
        free(d);
    } else if (olive_h5_has_attr(pg, "delay")) {
        p->delay_value = olive_h5_get_i64(path, pg, where, "delay");
        if (p->delay_value < 0 || p->delay_value > OLIVE_MAX_DELAY)
            olive_die("%s: %s delay = %lld steps is %s", path, where, (long long)p->delay_value,
                      p->delay_value < 0 ? "negative" : "beyond the delay buffer (at most 65535 steps)");
    } else {
        olive_die("%s: %s has neither a dataset nor an attribute 'delay'", path, where);
    }
    read_sites(path, pg, where, p);
    H5Gclose(pg);
}

double olive_syn_dt(const char *path, double def)
{
    hid_t f = olive_h5_open_read(path);
    double dt = def;
    if (olive_h5_exists(f, "synapses")) {
        hid_t g = H5Gopen2(f, "synapses", H5P_DEFAULT);
        if (g < 0) olive_die("%s: /synapses is not a group", path);
        dt = olive_h5_get_f64(path, g, "/synapses", "dt");
        if (!(dt > 0) || !(dt <= 10)) olive_die("%s: /synapses dt = %g ms must be in (0, 10]", path, dt);
        H5Gclose(g);
    }
    H5Fclose(f);
    return dt;
}

int olive_syn_plastic(const char *path, char *name, size_t n)
{
    int found = 0;
    hid_t f = olive_h5_open_read(path);
    if (olive_h5_exists(f, "synapses")) {
        hid_t g = H5Gopen2(f, "synapses", H5P_DEFAULT);
        if (g < 0) olive_die("%s: /synapses is not a group", path);
        int np = 0;
        char (*names)[OLIVE_NAME_LEN] = links_of(path, g, "/synapses", &np);
        for (int i = 0; i < np && !found; i++) {
            char where[160];
            snprintf(where, sizeof where, "/synapses/%.63s", names[i]);
            hid_t pg = H5Gopen2(g, names[i], H5P_DEFAULT);
            if (pg < 0) olive_die("%s: %s is not a group", path, where);
            attrs_readable(path, pg, where);
            olive_plasticity pl;
            olive_plast_read(path, pg, where, &pl);
            if (pl.rule != OLIVE_PLAST_NONE) { found = 1; snprintf(name, n, "%.63s", names[i]); }
            H5Gclose(pg);
        }
        free(names);
        H5Gclose(g);
    }
    H5Fclose(f);
    return found;
}

int olive_syn_read_rows(const char *path, int64_t count, int64_t row0, int64_t row1, olive_synapses *out)
{
    memset(out, 0, sizeof *out);
    hid_t f = olive_h5_open_read(path);
    if (!olive_h5_exists(f, "synapses")) { H5Fclose(f); return 0; }
    hid_t g = H5Gopen2(f, "synapses", H5P_DEFAULT);
    if (g < 0) olive_die("%s: /synapses is not a group", path);
    out->dt = olive_h5_get_f64(path, g, "/synapses", "dt");
    if (!(out->dt > 0) || !(out->dt <= 10)) olive_die("%s: /synapses dt = %g ms must be in (0, 10]", path, out->dt);
    char (*names)[OLIVE_NAME_LEN] = links_of(path, g, "/synapses", &out->n);
    out->proj = olive_calloc((size_t)out->n + 1, sizeof(olive_projection), "projections");
    for (int i = 0; i < out->n; i++) read_projection(path, g, names[i], count, out->dt, row0, row1, &out->proj[i]);
    free(names);
    H5Gclose(g);
    H5Fclose(f);
    return 1;
}

void olive_syn_write(const char *path, hid_t f, const olive_synapses *syn)
{
    hid_t g = olive_h5_group(path, f, "synapses");
    olive_h5_attr_f64(path, g, "dt", syn->dt);
    for (int i = 0; i < syn->n; i++) {
        const olive_projection *p = &syn->proj[i];
        hid_t pg = olive_h5_group(path, g, p->name);
        int64_t count = p->row1 - p->row0;
        olive_h5_attr_str(path, pg, "receptor", p->receptor);
        olive_h5_attr_str(path, pg, "source", p->source);
        olive_h5_attr_str(path, pg, "target", p->target);
        olive_h5_attr_str(path, pg, "rule", p->rule);
        olive_plast_write(path, pg, &p->plast);
        if (p->procedural) {   /* the rule alone; the constants as ordinary attributes */
            olive_conn_write(path, pg, p->procedural);
            if (!olive_value_varies(&p->procedural->w)) olive_h5_attr_f64(path, pg, "weight", p->weight_value);
            if (!olive_value_varies(&p->procedural->d)) olive_h5_attr_i64(path, pg, "delay", p->delay_value);
            olive_h5_close(path, pg, "a projection group");
            continue;
        }
        olive_h5_write1(path, pg, "row_ptr", H5T_STD_I64LE, H5T_NATIVE_INT64, count + 1, p->row_ptr, 0);
        olive_h5_write1(path, pg, "col", H5T_STD_I32LE, H5T_NATIVE_INT32, p->nnz, p->col, 0);
        if (p->weight) olive_h5_write1(path, pg, "weight", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, p->nnz, p->weight, 0);
        else olive_h5_attr_f64(path, pg, "weight", p->weight_value);
        if (p->delay) olive_h5_write1(path, pg, "delay", H5T_STD_U16LE, H5T_NATIVE_UINT16, p->nnz, p->delay, 0);
        else olive_h5_attr_i64(path, pg, "delay", p->delay_value);
        if (p->site_sec) {
            olive_h5_write1(path, pg, "site_section", H5T_STD_I32LE, H5T_NATIVE_INT32, p->nnz, p->site_sec, 0);
            olive_h5_write1(path, pg, "site_x", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, p->nnz, p->site_x, 0);
        }
        if (p->sites[0]) olive_h5_attr_str(path, pg, "sites", p->sites);
        olive_h5_close(path, pg, "a projection group");
    }
    olive_h5_close(path, g, "group /synapses");
}

void olive_syn_free(olive_synapses *syn)
{
    for (int i = 0; i < syn->n; i++) {
        free(syn->proj[i].row_ptr);
        free(syn->proj[i].col);
        free(syn->proj[i].weight);
        free(syn->proj[i].delay);
        free(syn->proj[i].site_sec);
        free(syn->proj[i].site_x);
        free(syn->proj[i].kept);
    }
    free(syn->proj);
    memset(syn, 0, sizeof *syn);
}
