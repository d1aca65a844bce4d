/* --import-circuit CONFIG.json (docs/FORMAT.md, "SONATA"): the biophysical
 * nodes of a SONATA circuit as hh_swc populations. The circuit config's
 * manifest and components give the directories; the nodes file (one node
 * population) and its node types table give, per node, the node type, the
 * model_type (biophysical only), the morphology (a node attribute of group 0
 * or a node types column: NAME is $morphologies_dir/NAME.swc) and the
 * dynamics_params (a node types column: an Allen Cell Types "perisomatic"
 * JSON file in biophysical_neuron_models_dir, read by sonata_dynamics.c).
 * Nodes of one node type and morphology make one population; populations
 * are contiguous id ranges, so a file that interleaves them is refused. */
#include "spiking_net.h"
#include "json.h"
#include "sonata_circuit.h"
#include "h5util.h"
#include "util.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLS 64

/* ---- the node types table: space-separated, "quoted" fields, a header ---- */
typedef struct {
    int ncols, n;
    char *name[MAX_COLS];
    int64_t *id;
    char **cell;                 /* n rows x ncols; NULL: NULL or empty */
} type_table;

/* The fields of line into f (at most MAX_COLS + 1; quotes removed, "" inside
 * a quoted field is a quote); the count, -1 for an unclosed quote. */
static int fields(char *line, char **f)
{
    int k = 0;
    char *s = line;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
        if (!*s || k > MAX_COLS) return k;
        char *w = s;
        f[k++] = w;
        if (*s == '"') {
            for (s++;; s++) {
                if (!*s) return -1;
                if (*s == '"' && s[1] == '"') { *w++ = '"'; s++; }
                else if (*s == '"') { s++; break; }
                else *w++ = *s;
            }
        } else {
            while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') *w++ = *s++;
        }
        const int more = *s != 0;
        *w = 0;
        if (more) s++;
        if (!more) return k;
    }
}

static int col_of(const type_table *t, const char *name)
{
    for (int c = 0; c < t->ncols; c++)
        if (!strcmp(t->name[c], name)) return c;
    return -1;
}

static const char *type_cell(const type_table *t, int row, const char *name)
{
    int c = col_of(t, name);
    return c < 0 ? NULL : t->cell[(size_t)row * (size_t)t->ncols + (size_t)c];
}

static void read_node_types(const char *path, const char *population, type_table *t)
{
    olive_check_regular_file(path);
    FILE *f = fopen(path, "r");
    if (!f) olive_die("%s: cannot open the node types file: %s", path, strerror(errno));
    char *line = NULL, *fv[MAX_COLS + 1];
    size_t cap = 0;
    int lineno = 0, cap_rows = 0, col_id = -1, col_pop = -1;
    memset(t, 0, sizeof *t);
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        int k = fields(line, fv);
        if (k < 0) olive_die("%s: line %d: a quoted field is not closed", path, lineno);
        if (k == 0) continue;
        if (k > MAX_COLS) olive_die("%s: line %d has more than %d columns", path, lineno, MAX_COLS);
        if (t->ncols == 0) {
            t->ncols = k;
            for (int c = 0; c < k; c++) t->name[c] = strdup(fv[c]);
            col_id = col_of(t, "node_type_id");
            col_pop = col_of(t, "population");
            if (col_id < 0) olive_die("%s: the header has no column node_type_id", path);
            continue;
        }
        if (k != t->ncols) olive_die("%s: line %d has %d columns, the header %d", path, lineno, k, t->ncols);
        if (col_pop >= 0 && strcmp(fv[col_pop], population)) continue;   /* another population's types */
        char *end;
        errno = 0;
        long long id = strtoll(fv[col_id], &end, 10);
        if (*end || end == fv[col_id] || errno || id < 0)
            olive_die("%s: line %d: node_type_id '%s' is not a non-negative integer", path, lineno, fv[col_id]);
        for (int r = 0; r < t->n; r++)
            if (t->id[r] == id) olive_die("%s: line %d: node_type_id %lld is given twice", path, lineno, id);
        if (t->n == cap_rows) {
            cap_rows = cap_rows ? 2 * cap_rows : 16;
            t->id = olive_realloc(t->id, (size_t)cap_rows * sizeof *t->id, "node types");
            t->cell = olive_realloc(t->cell, (size_t)cap_rows * (size_t)t->ncols * sizeof *t->cell, "node types");
        }
        t->id[t->n] = id;
        for (int c = 0; c < k; c++)
            t->cell[(size_t)t->n * (size_t)k + (size_t)c] = !fv[c][0] || !strcmp(fv[c], "NULL") ? NULL : strdup(fv[c]);
        t->n++;
    }
    if (ferror(f)) olive_die("%s: read error", path);
    free(line);
    fclose(f);
    if (t->ncols == 0) olive_die("%s: the node types file is empty (a header naming node_type_id, then a line per node type)", path);
}

/* ---- the nodes file ---- */

/* The strings of dataset where/name (fixed or variable length, or an
 * enumeration: integers indexing @library/name), one per element; NULL when
 * the group has no such dataset. *len: the element count. */
static char **read_strings(const char *path, hid_t g, const char *where, const char *name, int64_t *len)
{
    if (!olive_h5_exists(g, name)) return NULL;
    *len = olive_h5_len1(path, g, name);
    char **out = olive_calloc((size_t)*len + 1, sizeof *out, "node attributes");
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT), ft = d >= 0 ? H5Dget_type(d) : -1;
    if (ft < 0) olive_die("%s: %s/%s: cannot open the dataset", path, where, name);
    char lib[300];
    snprintf(lib, sizeof lib, "@library/%s", name);
    if (H5Tget_class(ft) == H5T_INTEGER && olive_h5_exists(g, lib)) {
        int64_t nl, *idx = olive_malloc((size_t)*len * 8 + 8, "node attributes");
        char err[256], lw[400];
        if (olive_h5_read_checked(d, H5T_NATIVE_INT64, 0, *len, NULL, idx, err, sizeof err) < 0)
            olive_die("%s: %s/%s%s%s", path, where, name, err[0] == '[' ? "" : " ", err);
        snprintf(lw, sizeof lw, "%s/@library", where);
        hid_t lg = H5Gopen2(g, "@library", H5P_DEFAULT);
        char **names = read_strings(path, lg, lw, name, &nl);
        for (int64_t i = 0; i < *len; i++) {
            if (idx[i] < 0 || idx[i] >= nl)
                olive_die("%s: %s/%s[%lld] = %lld is not an index of %s/%s (%lld names)", path, where, name, (long long)i,
                          (long long)idx[i], lw, name, (long long)nl);
            out[i] = strdup(names[idx[i]]);
        }
        for (int64_t i = 0; i < nl; i++) free(names[i]);
        free(names);
        free(idx);
        H5Gclose(lg);
    } else if (H5Tget_class(ft) == H5T_STRING) {
        hid_t mt = H5Tcopy(H5T_C_S1);
        const int var = H5Tis_variable_str(ft) > 0;
        size_t size = var ? 0 : H5Tget_size(ft);
        if (size > 65536) olive_die("%s: %s/%s: strings of %zu bytes", path, where, name, size);
        H5Tset_size(mt, var ? H5T_VARIABLE : size + 1);
        H5Tset_strpad(mt, H5T_STR_NULLTERM);
        H5Tset_cset(mt, H5Tget_cset(ft));   /* HDF5 converts no UTF-8 to ASCII */
        char **vs = var ? olive_calloc((size_t)*len + 1, sizeof *vs, "node attributes") : NULL;
        char *fs = var ? NULL : olive_calloc((size_t)*len * (size + 1) + 1, 1, "node attributes");
        if (H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, var ? (void *)vs : (void *)fs) < 0)
            olive_die("%s: %s/%s: cannot read the strings", path, where, name);
        for (int64_t i = 0; i < *len; i++) {
            out[i] = strdup(var ? (vs[i] ? vs[i] : "") : fs + (size_t)i * (size + 1));
            if (var && vs[i]) H5free_memory(vs[i]);
        }
        free(vs);
        free(fs);
        H5Tclose(mt);
    } else {
        olive_die("%s: %s/%s is not strings (nor integers with %s/@library/%s)", path, where, name, where, name);
    }
    H5Tclose(ft);
    H5Dclose(d);
    return out;
}

static int64_t *read_ints(const char *path, hid_t g, const char *where, const char *name, int64_t n)
{
    if (!olive_h5_exists(g, name)) return NULL;
    if (olive_h5_len1(path, g, name) != n)
        olive_die("%s: %s/%s has %lld entries for %lld nodes", path, where, name, (long long)olive_h5_len1(path, g, name), (long long)n);
    int64_t *v = olive_malloc((size_t)n * 8 + 8, "nodes");
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    char err[256];
    if (d < 0 || olive_h5_read_checked(d, H5T_NATIVE_INT64, 0, n, NULL, v, err, sizeof err) < 0)
        olive_die("%s: %s/%s%s%s", path, where, name, d < 0 || err[0] == '[' ? "" : " ", d < 0 ? ": cannot open" : err);
    H5Dclose(d);
    return v;
}

/* One node attribute of group 0 (strings, n0 rows), or NULL. */
typedef struct { char **v; int64_t n; const char *name; } node_attr;

static const char *attr_or_type(const node_attr *a, int64_t row, const type_table *t, int trow)
{
    if (a->v) return a->v[row][0] && strcmp(a->v[row], "NULL") ? a->v[row] : NULL;
    return type_cell(t, trow, a->name);
}

typedef struct { int trow; const char *morph; int64_t first, count; } group;

/* The nodes file's population: one, the one named, or refused. */
static void choose_population(const gc_circuit *c, const char *want, char *nodes, char *types, char *pop, const gc_json **entry)
{
    const gc_json *nets = gc_json_get(gc_json_get(c->root, "networks"), "nodes");
    if (!nets || nets->kind != GC_JSON_ARR || nets->n == 0)
        olive_die("%s: no networks.nodes list (the nodes files of the circuit)", c->path);
    int found = 0;
    char first[600] = "";
    for (int i = 0; i < nets->n; i++) {
        char where[64], nf[PATH_MAX];
        snprintf(where, sizeof where, "networks.nodes[%d]", i);
        const char *s = gc_circuit_str(c, &nets->item[i], "nodes_file", where);
        if (!s) olive_die("%s: %s has no nodes_file", c->path, where);
        gc_circuit_resolve(c, "nodes_file", s, nf);
        hid_t f = olive_h5_open_read(nf), g = olive_h5_exists(f, "nodes") ? H5Gopen2(f, "nodes", H5P_DEFAULT) : -1;
        H5G_info_t gi;
        if (g < 0 || H5Gget_info(g, &gi) < 0) olive_die("%s: no /nodes group: not a SONATA nodes file", nf);
        for (hsize_t k = 0; k < gi.nlinks; k++) {
            char name[256];
            ssize_t len = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, k, name, sizeof name, H5P_DEFAULT);
            if (len < 0 || (size_t)len >= sizeof name) olive_die("%s: cannot read the name of population %llu", nf, (unsigned long long)k);
            if (want && strcmp(want, name)) continue;
            if (found++) olive_die("%s: node populations '%s' and '%s' (%s): olive imports one; choose it with "
                                   "--import-node-population NAME", c->path, first, name, nf);
            snprintf(first, sizeof first, "%s", name);
            snprintf(pop, 256, "%s", name);
            memcpy(nodes, nf, PATH_MAX);
            const char *t = gc_circuit_str(c, &nets->item[i], "node_types_file", where);
            if (!t) olive_die("%s: %s has no node_types_file", c->path, where);
            gc_circuit_resolve(c, "node_types_file", t, types);
            *entry = &nets->item[i];
        }
        H5Gclose(g);
        H5Fclose(f);
    }
    if (!found) olive_die("%s: no node population%s%s in its nodes files", c->path, want ? " named " : "", want ? want : "");
}

/* A component directory: the population's own (networks.nodes[i].populations.POP.KEY), else components.KEY. */
static int component_dir(const gc_circuit *c, const gc_json *entry, const char *pop, const char *key, char *out)
{
    const char *s = gc_circuit_str(c, gc_json_get(gc_json_get(entry, "populations"), pop), key, "the population");
    if (!s) s = gc_circuit_str(c, gc_json_get(c->root, "components"), key, "components");
    if (!s) return 0;
    gc_circuit_resolve(c, key, s, out);
    return 1;
}

/* The populations' names: the node type's pop_name where it is a valid
 * name (else type_ID); a name several runs would share gets _ID, and _K for
 * the K-th morphology of one node type. */
static void name_groups(const char *types, const type_table *t, const group *gr, int ng, olive_populations *pops)
{
    static char base[OLIVE_MAX_POPS][OLIVE_NAME_LEN];
    for (int i = 0; i < ng; i++) {
        const char *pn = type_cell(t, gr[i].trow, "pop_name");
        if (pn && strlen(pn) < OLIVE_NAME_LEN && !olive_name_fault(pn) && !strpbrk(pn, ",:=@ ") && strcmp(pn, "all"))
            snprintf(base[i], OLIVE_NAME_LEN, "%s", pn);
        else
            snprintf(base[i], OLIVE_NAME_LEN, "type_%lld", (long long)t->id[gr[i].trow]);
    }
    for (int i = 0; i < ng; i++) {
        int same = 0, k = 0, runs = 0;
        for (int j = 0; j < ng; j++) {
            same += !strcmp(base[j], base[i]);
            runs += gr[j].trow == gr[i].trow;
            k += j < i && gr[j].trow == gr[i].trow;
        }
        char *name = pops->pop[i].name;
        const long long id = (long long)t->id[gr[i].trow];
        if (same == 1) memcpy(name, base[i], OLIVE_NAME_LEN);
        else if (runs == 1) snprintf(name, OLIVE_NAME_LEN, "%.40s_%lld", base[i], id);
        else snprintf(name, OLIVE_NAME_LEN, "%.30s_%lld_%d", base[i], id, k);
    }
    for (int i = 0; i < ng; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(pops->pop[i].name, pops->pop[j].name))
                olive_die("%s: two populations would be named '%s' (nodes %lld and %lld); give the node types distinct pop_name values",
                          types, pops->pop[i].name, (long long)gr[j].first, (long long)gr[i].first);
}

/* The SWC file of morphology name m (NAME.swc in dir, or NAME when it ends in .swc), checked, absolute. */
static void morphology_path(const gc_circuit *c, const char *types, int64_t tid, int have_dir, const char *dir, const char *m,
                            char *out, size_t n)
{
    char p[PATH_MAX * 2], full[PATH_MAX];
    const size_t len = strlen(m);
    const char *ext = len >= 4 && !strcmp(m + len - 4, ".swc") ? "" : ".swc";
    if (m[0] == '/') snprintf(p, sizeof p, "%s%s", m, ext);
    else if (!have_dir)
        olive_die("%s: node type %lld: morphology '%s', but %s has no components.morphologies_dir", types, (long long)tid, m, c->path);
    else snprintf(p, sizeof p, "%s/%s%s", dir, m, ext);
    if (!realpath(p, full)) olive_die("%s: node type %lld: morphology '%s' is %s: %s", types, (long long)tid, m, p, strerror(errno));
    if ((size_t)snprintf(out, n, "%s", full) >= n) olive_die("%s: node type %lld: the morphology path is too long", types, (long long)tid);
}

/* bio: biophys_swc, whose cell is bmtk's aibs_perisomatic one (the axon
 * replaced by its stub: axon_stub 1); hh_swc builds the SWC as it is. */
static void check_model(const char *types, int64_t tid, int64_t node, const char *mt, const char *tmpl, const char *proc, int bio)
{
    if (!mt) olive_die("%s: node type %lld (node %lld) has no model_type", types, (long long)tid, (long long)node);
    if (strcmp(mt, "biophysical"))
        olive_die("%s: node type %lld (node %lld) has model_type '%s'; olive imports biophysical nodes (hh_swc cells) only",
                  types, (long long)tid, (long long)node, mt);
    if (tmpl && strcmp(tmpl, "ctdb:Biophys1.hoc") && strcmp(tmpl, "ctdb:Biophys1"))
        olive_die("%s: node type %lld: model_template '%s': olive reads dynamics_params of the Allen perisomatic form "
                  "(ctdb:Biophys1.hoc or none), not a template's own code", types, (long long)tid, tmpl);
    if (bio && (!proc || strcmp(proc, "aibs_perisomatic")))
        olive_die("%s: node type %lld: model_processing '%s': biophys_swc builds the cell as bmtk's aibs_perisomatic "
                  "does (Allen's axon stub, the fit's set_params_peri)", types, (long long)tid, proc ? proc : "NULL");
    if (!bio && proc && strcmp(proc, "fullaxon"))
        olive_die("%s: node type %lld: model_processing '%s': olive builds the cell of the SWC file as it is (fullaxon); "
                  "it does not rebuild the axon as bmtk's aibs_perisomatic does", types, (long long)tid, proc);
}

/* A nodes file's population as read: per node its type, id, group and
 * group-0 row, and group 0's string attributes. */
typedef struct {
    const char *path;
    char where[300];
    int64_t N;
    int64_t *tid, *nid, *gid, *gidx;
    node_attr a[4];   /* morphology, model_type, model_template, model_processing */
} node_table;

static void read_nodes(const char *nodes, const char *pop, node_table *x)
{
    *x = (node_table){.path = nodes,
                      .a = {{NULL, 0, "morphology"}, {NULL, 0, "model_type"}, {NULL, 0, "model_template"},
                            {NULL, 0, "model_processing"}}};
    const char *where = x->where;
    hid_t f = olive_h5_open_read(nodes);
    snprintf(x->where, sizeof x->where, "/nodes/%s", pop);
    hid_t g = H5Gopen2(f, where, H5P_DEFAULT);
    if (g < 0) olive_die("%s: %s is not a group", nodes, where);
    if (!olive_h5_exists(g, "node_type_id")) olive_die("%s: %s/node_type_id: dataset missing", nodes, where);
    const int64_t N = x->N = olive_h5_len1(nodes, g, "node_type_id");
    if (N == 0 || N > INT32_MAX) olive_die("%s: %s holds %lld nodes; olive imports 1 to %d", nodes, where, (long long)N, INT32_MAX);
    x->tid = read_ints(nodes, g, where, "node_type_id", N);
    x->nid = read_ints(nodes, g, where, "node_id", N);
    x->gid = read_ints(nodes, g, where, "node_group_id", N);
    x->gidx = read_ints(nodes, g, where, "node_group_index", N);
    if (olive_h5_exists(g, "0")) {
        char w0[320];
        snprintf(w0, sizeof w0, "%s/0", where);
        hid_t g0 = H5Gopen2(g, "0", H5P_DEFAULT);
        if (olive_h5_exists(g0, "dynamics_params"))
            olive_die("%s: %s/dynamics_params: parameters per node; an olive population shares one parameter set "
                      "(give them per node type, in the node types' dynamics_params)", nodes, w0);
        for (int k = 0; k < 4; k++) x->a[k].v = read_strings(nodes, g0, w0, x->a[k].name, &x->a[k].n);
        H5Gclose(g0);
    }
    H5Gclose(g);
    H5Fclose(f);
}

/* The nodes checked and cut into runs of one (node type, morphology), each
 * a contiguous range of ids; returns their number. */
static int node_runs(const node_table *x, const char *types, const type_table *t, group *gr, int bio)
{
    const char *nodes = x->path, *where = x->where;
    const node_attr *a = x->a;
    int ng = 0, trow = -1;
    for (int64_t i = 0; i < x->N; i++) {
        if (x->nid && x->nid[i] != i)
            olive_die("%s: %s/node_id[%lld] = %lld: olive's cell ids are the node ids, in order (0, 1, ...)", nodes, where,
                      (long long)i, (long long)x->nid[i]);
        if (x->gid && x->gid[i] != 0)
            olive_die("%s: %s/node_group_id[%lld] = %lld: olive reads group 0 only", nodes, where, (long long)i, (long long)x->gid[i]);
        const int64_t row = x->gidx ? x->gidx[i] : i;
        for (int k = 0; k < 4; k++)
            if (a[k].v && (row < 0 || row >= a[k].n))
                olive_die("%s: %s/node_group_index[%lld] = %lld is outside %s/0/%s (%lld rows)", nodes, where, (long long)i,
                          (long long)row, where, a[k].name, (long long)a[k].n);
        const int64_t tid = x->tid[i];
        if (trow < 0 || t->id[trow] != tid) {
            trow = -1;
            for (int r = 0; r < t->n; r++) if (t->id[r] == tid) trow = r;
            if (trow < 0) olive_die("%s: %s/node_type_id[%lld] = %lld is not in %s", nodes, where, (long long)i, (long long)tid, types);
        }
        check_model(types, tid, i, attr_or_type(&a[1], row, t, trow), attr_or_type(&a[2], row, t, trow),
                    attr_or_type(&a[3], row, t, trow), bio);
        const char *m = attr_or_type(&a[0], row, t, trow);
        if (!m) olive_die("%s: node type %lld (node %lld) has no morphology (a node attribute or a node types column)", types,
                          (long long)tid, (long long)i);
        if (ng && gr[ng - 1].trow == trow && !strcmp(gr[ng - 1].morph, m)) { gr[ng - 1].count++; continue; }
        for (int q = 0; q < ng; q++)
            if (gr[q].trow == trow && !strcmp(gr[q].morph, m))
                olive_die("%s: %s: node %lld (node type %lld, morphology '%s') is not next to nodes %lld-%lld of its node type "
                          "and morphology: olive's populations are contiguous id ranges; order the nodes by node type", nodes,
                          where, (long long)i, (long long)tid, m, (long long)gr[q].first, (long long)(gr[q].first + gr[q].count - 1));
        if (ng == OLIVE_MAX_POPS) olive_die("%s: %s: more than %d (node type, morphology) runs", nodes, where, OLIVE_MAX_POPS);
        gr[ng++] = (group){trow, m, i, 1};
    }
    return ng;
}

void gc_spk_import_nodes(const char *config, const char *want, const olive_cell_model *model, olive_populations *pops,
                         char *chosen)
{
    gc_circuit c;
    gc_circuit_open(config, &c);
    static char nodes[PATH_MAX], types[PATH_MAX], mdir[PATH_MAX], bdir[PATH_MAX];
    char pop[256];
    const gc_json *entry = NULL;
    choose_population(&c, want, nodes, types, pop, &entry);
    snprintf(chosen, 256, "%s", pop);
    const int have_mdir = component_dir(&c, entry, pop, "morphologies_dir", mdir);
    const int have_bdir = component_dir(&c, entry, pop, "biophysical_neuron_models_dir", bdir);
    type_table t;
    read_node_types(types, pop, &t);
    node_table x;
    read_nodes(nodes, pop, &x);
    static group gr[OLIVE_MAX_POPS];
    const int ng = node_runs(&x, types, &t, gr, olive_model_needs_mechanisms(model));
    memset(pops, 0, sizeof *pops);
    name_groups(types, &t, gr, ng, pops);
    for (int i = 0; i < ng; i++) {
        olive_population *p = &pops->pop[i];
        const int64_t id = t.id[gr[i].trow];
        p->model = model;
        p->first = gr[i].first;
        p->count = gr[i].count;
        for (int k = 0; k < model->nparams; k++) p->param[k] = model->params[k].def;
        morphology_path(&c, types, id, have_mdir, mdir, gr[i].morph, p->morphology, sizeof p->morphology);
        const char *dyn = type_cell(&t, gr[i].trow, "dynamics_params");
        if (dyn) {
            char dp[PATH_MAX * 2];
            if (dyn[0] == '/') snprintf(dp, sizeof dp, "%s", dyn);
            else if (!have_bdir)
                olive_die("%s: node type %lld: dynamics_params '%s', but %s has no components.biophysical_neuron_models_dir",
                          types, (long long)id, dyn, config);
            else snprintf(dp, sizeof dp, "%s/%s", bdir, dyn);
            if (olive_model_needs_mechanisms(model))   /* biophys_swc: the fit as statements, bmtk's set_params_peri */
                gc_biophysics_of_fit(dp, p->biophysics, sizeof p->biophysics);
            else {
                gc_json *d = gc_json_read(dp);
                gc_sonata_apply_dynamics(dp, id, d, model, p->param);
                gc_json_free(d);
            }
        }
        olive_info("%s: population %s: nodes %lld-%lld, node type %lld, %s", config, p->name, (long long)p->first,
                   (long long)(p->first + p->count - 1), (long long)id, p->morphology);
    }
    pops->n = ng;
    free(x.tid); free(x.nid); free(x.gid); free(x.gidx);
    /* the groups' morphology strings point into x.a[0] or t: freed last */
    for (int k = 0; k < 4; k++) {
        for (int64_t r = 0; x.a[k].v && r < x.a[k].n; r++) free(x.a[k].v[r]);
        free(x.a[k].v);
    }
    for (int r = 0; r < t.n * t.ncols; r++) free(t.cell[r]);
    for (int cidx = 0; cidx < t.ncols; cidx++) free(t.name[cidx]);
    free(t.cell); free(t.id);
    gc_circuit_close(&c);
}

int64_t gc_circuit_virtual_nodes(const char *config, const char *pop)
{
    gc_circuit c;
    gc_circuit_open(config, &c);
    static char nodes[PATH_MAX], types[PATH_MAX];
    char name[256];
    const gc_json *entry = NULL;
    choose_population(&c, pop, nodes, types, name, &entry);
    type_table t;
    read_node_types(types, pop, &t);
    hid_t f = olive_h5_open_read(nodes);
    char where[300];
    snprintf(where, sizeof where, "/nodes/%s", pop);
    hid_t g = H5Gopen2(f, where, H5P_DEFAULT);
    if (g < 0) olive_die("%s: no group %s", nodes, where);
    const int64_t N = olive_h5_len1(nodes, g, "node_type_id");
    int64_t *tid = read_ints(nodes, g, where, "node_type_id", N), *nid = read_ints(nodes, g, where, "node_id", N);
    H5Gclose(g);
    H5Fclose(f);
    for (int64_t i = 0; i < N; i++) {
        if (nid && nid[i] != i)
            olive_die("%s: %s/node_id[%lld] = %lld: olive's cell ids are the node ids, in order (0, 1, ...)", nodes, where,
                      (long long)i, (long long)nid[i]);
        int row = -1;
        for (int r = 0; r < t.n; r++) if (t.id[r] == tid[i]) row = r;
        if (row < 0) olive_die("%s: %s/node_type_id[%lld] = %lld is not in %s", nodes, where, (long long)i, (long long)tid[i], types);
        const char *mt = type_cell(&t, row, "model_type");
        if (!mt || strcmp(mt, "virtual"))
            olive_die("%s: node type %lld of population %s has model_type '%s'; spike trains (--import-spikes) drive "
                      "virtual nodes only", types, (long long)tid[i], pop, mt ? mt : "NULL");
    }
    free(tid); free(nid);
    for (int r = 0; r < t.n * t.ncols; r++) free(t.cell[r]);
    for (int k = 0; k < t.ncols; k++) free(t.name[k]);
    free(t.cell); free(t.id);
    gc_circuit_close(&c);
    return N;
}
