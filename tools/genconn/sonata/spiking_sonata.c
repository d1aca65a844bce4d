/* SONATA for spiking networks (docs/IMPORT-EXPORT.md):
 *
 * --export-sonata PREFIX writes PREFIX_nodes.h5 (population "io":
 * node_type_id = population index), PREFIX_edges.h5 (population "io": every
 * projection's synapses in file order, edge_type_id = projection index,
 * /edges/io/0/syn_weight and /edges/io/0/delay in ms), PREFIX_node_types.csv
 * (pop_name, model_template nest:iaf_psc_exp or nest:iaf_cond_exp),
 * PREFIX_edge_types.csv (projection name and receptor per edge type) and
 * PREFIX_circuit_config.json. hh_swc populations are biophysical node
 * types with their morphology and PREFIX_POP_dynamics.json (below), which
 * --import-circuit reads back (sonata_nodes.c).
 *
 * --import-synapses EDGES.h5 reads such a file (or bmtk's): one projection
 * per edge_type_id, syn_weight and delay per edge or, when the edges file has
 * none, from the edge types file's columns (bmtk keeps them there), the
 * receptor from its 'receptor' column, else from the sign of the weight
 * (lif_cuba: >= 0 ge, < 0 gi). */
#include "spiking_net.h"
#include "h5util.h"
#include "plasticity_io.h"
#include "util.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void write_text(const char *final, const char *tmp, const char *text)
{
    FILE *f = fopen(tmp, "w");
    if (!f) olive_die("%s: cannot write: %s", final, strerror(errno));
    if (fputs(text, f) == EOF || fflush(f) != 0) olive_die("%s: write failed: %s", final, strerror(errno));
    if (fclose(f) != 0) olive_die("%s: closing failed: %s", final, strerror(errno));
}

static void sonata_root(const char *path, hid_t f)
{
    uint32_t magic = 0x0A7A, version[2] = {0, 1};
    hsize_t two = 2;
    hid_t s1 = H5Screate(H5S_SCALAR), s2 = H5Screate_simple(1, &two, NULL);
    hid_t a = H5Acreate2(f, "magic", H5T_STD_U32LE, s1, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0 || H5Awrite(a, H5T_NATIVE_UINT32, &magic) < 0) olive_h5_fail(path, "cannot write attribute magic");
    olive_h5_close(path, a, "magic");
    a = H5Acreate2(f, "version", H5T_STD_U32LE, s2, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0 || H5Awrite(a, H5T_NATIVE_UINT32, version) < 0) olive_h5_fail(path, "cannot write attribute version");
    olive_h5_close(path, a, "version");
    olive_h5_close(path, s1, "a dataspace");
    olive_h5_close(path, s2, "a dataspace");
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

enum { X_NODES, X_EDGES, X_NODE_TYPES, X_EDGE_TYPES, X_CONFIG, X_FILES };
static const char *const suffix[X_FILES] = {"_nodes.h5", "_edges.h5", "_node_types.csv", "_edge_types.csv",
                                            "_circuit_config.json"};

/* a + b into out[4096] (checked: a path that long is refused). */
static void join(char *out, const char *a, const char *b)
{
    const size_t la = strlen(a), lb = strlen(b);
    if (la + lb >= 4096) olive_usage_error("--export-sonata: '%s' is too long", a);
    memcpy(out, a, la);
    memcpy(out + la, b, lb + 1);
}

/* hh_swc export: each population a biophysical node type, its SWC file
 * named in the directory holding them all (morphologies_dir, without the
 * .swc that SONATA appends) and its parameters in PREFIX_POP_dynamics.json
 * (sonata_dynamics.c), so that --import-circuit gives the same populations. */
#define MAX_DYN (OLIVE_MAX_POPS + 512)   /* the node types' and the plastic edge types' files */
static char dyn_tmp[MAX_DYN][4096];
static int ndyn;


static void write_text(const char *final, const char *tmp, const char *text);

/* A plastic projection's parameters as PREFIX_PROJ_synapse.json (NEST's
 * names; tau_minus, NEST's on the neuron, is olive's per projection): its
 * edge type's dynamics_params, which --import-edge-types reads back. */
static const char *synapse_params(const gc_spk_config *cfg, const olive_projection *p, char *dyn)
{
    if ((size_t)snprintf(dyn, 4096, "%s_%s_synapse.json", cfg->export_prefix, p->name) >= 4096)
        olive_usage_error("--export-sonata: '%s' is too long", cfg->export_prefix);
    if (ndyn == MAX_DYN) olive_usage_error("--export-sonata: more than %d plastic projections", MAX_DYN - OLIVE_MAX_POPS);
    join(dyn_tmp[ndyn], olive_atomic_begin(dyn, cfg->force), "");
    char text[2048];
    int len = snprintf(text, sizeof text, "{");
    for (int k = 0; k < olive_plast_npar(p->plast.rule); k++)
        len += snprintf(text + len, sizeof text - (size_t)len, "%s\"%s\": %.17g", k ? ", " : "",
                        olive_plast_par_name(p->plast.rule, k), p->plast.par[k]);
    snprintf(text + len, sizeof text - (size_t)len, "}\n");
    write_text(dyn, dyn_tmp[ndyn++], text);
    return base_name(dyn);
}

static void json_escape(char *out, size_t n, const char *s)
{
    size_t k = 0;
    for (; *s && k + 8 < n; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') { out[k++] = '\\'; out[k++] = (char)c; }
        else if (c < 0x20) k += (size_t)snprintf(out + k, n - k, "\\u%04x", c);
        else out[k++] = (char)c;
    }
    if (*s) olive_die("--export-sonata: the path '%.100s...' is too long", s);
    out[k] = 0;
}

/* A node types field: quoted (a quote doubled) when it holds a space or a quote. */
static void csv_field(char *out, size_t n, const char *s)
{
    if (!strpbrk(s, " \t\"")) { snprintf(out, n, "%s", s); return; }
    size_t k = 0;
    out[k++] = '"';
    for (; *s && k + 3 < n; s++) {
        if (*s == '"') out[k++] = '"';
        out[k++] = *s;
    }
    if (*s) olive_die("--export-sonata: the name '%.100s...' is too long", s);
    out[k++] = '"';
    out[k] = 0;
}

/* The longest directory holding every population's SWC file (into dir). */
static void morphology_dir(const gc_spk_config *cfg, char *dir)
{
    dir[0] = 0;
    for (int p = 0; p < cfg->pops.n; p++) {
        const char *m = cfg->pops.pop[p].morphology;
        if (!m[0]) continue;
        if (!dir[0]) {
            snprintf(dir, 4096, "%s", m);
            *strrchr(dir, '/') = 0;
        }
        while (strncmp(m, dir, strlen(dir)) || m[strlen(dir)] != '/') *strrchr(dir, '/') = 0;
    }
}

static int biophysical_types(const gc_spk_config *cfg, const char *types, char *text, size_t cap, char *mdir)
{
    morphology_dir(cfg, mdir);
    const size_t skip = strlen(mdir) + 1;
    if (!mdir[0]) snprintf(mdir, 4096, "/");
    int len = snprintf(text, cap, "node_type_id model_type model_template pop_name morphology dynamics_params\n");
    for (int p = 0; p < cfg->pops.n; p++) {
        const olive_population *pp = &cfg->pops.pop[p];
        if (olive_model_is_source(pp->model)) {   /* spike sources: virtual nodes */
            len += snprintf(text + len, cap - (size_t)len, "%d virtual NULL %s NULL NULL\n", p, pp->name);
            continue;
        }
        const size_t ml = strlen(pp->morphology);
        if (ml < 4 || strcmp(pp->morphology + ml - 4, ".swc"))
            olive_die("%s: population %s: SONATA names a morphology without its extension, .swc; %s does not end in .swc",
                      types, pp->name, pp->morphology);
        char name[2048], morph[2100], dyn[4096];
        snprintf(name, sizeof name, "%.*s", (int)(ml - 4 - skip), pp->morphology + skip);
        csv_field(morph, sizeof morph, name);
        if ((size_t)snprintf(dyn, sizeof dyn, "%s_%s_dynamics.json", cfg->export_prefix, pp->name) >= sizeof dyn)
            olive_usage_error("--export-sonata: '%s' is too long", cfg->export_prefix);
        join(dyn_tmp[ndyn], olive_atomic_begin(dyn, cfg->force), "");
        char *dt = gc_sonata_dynamics_text(cfg->model, pp->param);
        write_text(dyn, dyn_tmp[ndyn++], dt);
        free(dt);
        len += snprintf(text + len, cap - (size_t)len, "%d biophysical ctdb:Biophys1.hoc %s %s %s\n", p, pp->name, morph,
                        base_name(dyn));
    }
    return len;
}

void gc_spk_export_paths(const char *prefix, char (*paths)[4096])
{
    for (int k = 0; k < X_FILES; k++) join(paths[k], prefix, suffix[k]);
}

/* The nodes file: population io, each cell's type its population. */
static void write_nodes(const gc_spk_config *cfg, const char *final, const char *tmp)
{
    const int64_t N = cfg->count;
    hid_t f = olive_h5_create(tmp);
    sonata_root(final, f);
    hid_t g = olive_h5_group(final, f, "nodes/io");
    uint64_t *u64 = olive_malloc((size_t)N * sizeof(uint64_t) + 8, "export");
    uint32_t *u32 = olive_malloc((size_t)N * sizeof(uint32_t) + 4, "export");
    for (int64_t i = 0; i < N; i++) u64[i] = (uint64_t)i;
    olive_h5_write1(final, g, "node_id", H5T_STD_U64LE, H5T_NATIVE_UINT64, N, u64, 0);
    olive_h5_write1(final, g, "node_group_index", H5T_STD_U64LE, H5T_NATIVE_UINT64, N, u64, 0);
    for (int p = 0; p < cfg->pops.n; p++)
        for (int64_t i = 0; i < cfg->pops.pop[p].count; i++) u32[cfg->pops.pop[p].first + i] = (uint32_t)p;
    olive_h5_write1(final, g, "node_type_id", H5T_STD_U32LE, H5T_NATIVE_UINT32, N, u32, 0);
    memset(u32, 0, (size_t)N * sizeof(uint32_t));
    olive_h5_write1(final, g, "node_group_id", H5T_STD_U32LE, H5T_NATIVE_UINT32, N, u32, 0);
    hid_t g0 = olive_h5_group(final, g, "0");
    olive_h5_close(final, g0, "group /nodes/io/0");
    olive_h5_close(final, g, "group /nodes/io");
    olive_h5_close_file(final, f);
    free(u64);
    free(u32);
}

/* The edges file: projection by projection, each in its (target, source) order. */
static void write_edges(const gc_spk_config *cfg, const olive_synapses *syn, const char *final, const char *tmp)
{
    const int64_t N = cfg->count;
    int64_t E = 0;
    for (int j = 0; j < syn->n; j++) E += syn->proj[j].nnz;
    uint64_t *src = olive_malloc((size_t)E * sizeof(uint64_t) + 8, "export"), *tgt = olive_malloc((size_t)E * sizeof(uint64_t) + 8, "export");
    uint32_t *type = olive_malloc((size_t)E * sizeof(uint32_t) + 4, "export");
    double *w = olive_malloc((size_t)E * sizeof(double) + 8, "export"), *d = olive_malloc((size_t)E * sizeof(double) + 8, "export");
    int64_t e = 0;
    for (int j = 0; j < syn->n; j++) {
        const olive_projection *p = &syn->proj[j];
        for (int64_t r = 0; r < N; r++)
            for (int64_t k = p->row_ptr[r]; k < p->row_ptr[r + 1]; k++, e++) {
                src[e] = (uint64_t)p->col[k];
                tgt[e] = (uint64_t)r;
                type[e] = (uint32_t)j;
                w[e] = olive_syn_w(p, k);
                d[e] = (double)olive_syn_d(p, k) * syn->dt;
            }
    }
    hid_t f = olive_h5_create(tmp);
    sonata_root(final, f);
    hid_t g = olive_h5_group(final, f, "edges/io");
    olive_h5_write1(final, g, "source_node_id", H5T_STD_U64LE, H5T_NATIVE_UINT64, E, src, 0);
    olive_h5_write1(final, g, "target_node_id", H5T_STD_U64LE, H5T_NATIVE_UINT64, E, tgt, 0);
    hid_t ds = H5Dopen2(g, "source_node_id", H5P_DEFAULT), dt = H5Dopen2(g, "target_node_id", H5P_DEFAULT);
    if (ds < 0 || dt < 0) olive_h5_fail(final, "cannot reopen the node id datasets");
    olive_h5_attr_str(final, ds, "node_population", "io");
    olive_h5_attr_str(final, dt, "node_population", "io");
    olive_h5_close(final, ds, "source_node_id");
    olive_h5_close(final, dt, "target_node_id");
    olive_h5_write1(final, g, "edge_type_id", H5T_STD_U32LE, H5T_NATIVE_UINT32, E, type, 0);
    for (int64_t i = 0; i < E; i++) { src[i] = (uint64_t)i; type[i] = 0; }
    olive_h5_write1(final, g, "edge_group_index", H5T_STD_U64LE, H5T_NATIVE_UINT64, E, src, 0);
    olive_h5_write1(final, g, "edge_group_id", H5T_STD_U32LE, H5T_NATIVE_UINT32, E, type, 0);
    hid_t g0 = olive_h5_group(final, g, "0");
    olive_h5_write1(final, g0, "syn_weight", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, E, w, 0);
    olive_h5_write1(final, g0, "delay", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, E, d, 0);
    olive_h5_close(final, g0, "group /edges/io/0");
    olive_h5_close(final, g, "group /edges/io");
    olive_h5_close_file(final, f);
    free(src); free(tgt); free(type); free(w); free(d);
}

/* The node and edge types files (CSV, space-separated); returns whether a
 * projection is plastic; mdir: the morphologies' directory (biophysical). */
static int write_types(const gc_spk_config *cfg, const olive_synapses *syn, char (*path)[4096], char (*tmp)[4096],
                       char mdir[4096])
{
    size_t cap = 256 + (size_t)cfg->pops.n * 2400 + (size_t)syn->n * 4500;   /* (a line: names and a file name) */
    char *text = olive_malloc(cap, "export");
    const int bio = olive_model_needs_morphology(cfg->model);
    int len = bio ? biophysical_types(cfg, path[X_NODE_TYPES], text, cap, mdir)
                  : snprintf(text, cap, "node_type_id model_type model_template pop_name\n");
    for (int p = 0; p < cfg->pops.n && !bio; p++)
        len += snprintf(text + len, cap - (size_t)len, "%d point_neuron %s %s\n", p,
                        cfg->model == &olive_model_lif_coba         ? "nest:iaf_cond_exp"
                        : cfg->model == &olive_model_lif_cuba_alpha ? "nest:iaf_psc_alpha"
                        : cfg->model == &olive_model_lif_coba_alpha ? "nest:iaf_cond_alpha"
                        : cfg->model == &olive_model_hh_traub       ? "nest:hh_cond_exp_traub"
                                                                    : "nest:iaf_psc_exp", cfg->pops.pop[p].name);
    write_text(path[X_NODE_TYPES], tmp[X_NODE_TYPES], text);
    len = snprintf(text, cap, "edge_type_id model_template receptor projection dynamics_params\n");
    int plastic = 0;
    for (int j = 0; j < syn->n; j++) {
        const olive_projection *p = &syn->proj[j];
        char dyn[4096];
        plastic |= p->plast.rule != OLIVE_PLAST_NONE;
        len += snprintf(text + len, cap - (size_t)len, "%d %s %s %s %s\n", j, olive_plast_nest_name(p->plast.rule), p->receptor,
                        p->name, p->plast.rule != OLIVE_PLAST_NONE ? synapse_params(cfg, p, dyn) : "NULL");
    }
    write_text(path[X_EDGE_TYPES], tmp[X_EDGE_TYPES], text);
    free(text);
    return plastic;
}

/* The circuit config (JSON) naming the four files. */
static void write_config(const gc_spk_config *cfg, char (*path)[4096], char (*tmp)[4096], int plastic, const char *mdir)
{
    const int bio = olive_model_needs_morphology(cfg->model);
    char json[24576], comp[8400] = "";
    if (bio) {
        char esc[8192];
        json_escape(esc, sizeof esc, mdir);
        snprintf(comp, sizeof comp, "  \"components\": {\"morphologies_dir\": \"%s\", \"biophysical_neuron_models_dir\": \"$BASE_DIR\"%s},\n",
                 esc, plastic ? ", \"synaptic_models_dir\": \"$BASE_DIR\"" : "");
    } else if (plastic) {
        snprintf(comp, sizeof comp, "  \"components\": {\"synaptic_models_dir\": \"$BASE_DIR\"},\n");
    }
    snprintf(json, sizeof json,
             "{\n  \"manifest\": {\"$BASE_DIR\": \".\"},\n%s  \"networks\": {\n"
             "    \"nodes\": [{\"nodes_file\": \"$BASE_DIR/%s\", \"node_types_file\": \"$BASE_DIR/%s\",\n"
             "               \"populations\": {\"io\": {\"type\": \"%s\"}}}],\n"
             "    \"edges\": [{\"edges_file\": \"$BASE_DIR/%s\", \"edge_types_file\": \"$BASE_DIR/%s\",\n"
             "               \"populations\": {\"io\": {\"type\": \"chemical\"}}}]\n  }\n}\n",
             comp, base_name(path[X_NODES]), base_name(path[X_NODE_TYPES]), bio ? "biophysical" : "point_neuron",
             base_name(path[X_EDGES]), base_name(path[X_EDGE_TYPES]));
    write_text(path[X_CONFIG], tmp[X_CONFIG], json);
}

void gc_spk_export_sonata(const gc_spk_config *cfg, const olive_synapses *syn, char (*tmp)[4096])
{
    char path[X_FILES][4096];
    gc_spk_export_paths(cfg->export_prefix, path);
    for (int k = 0; k < X_FILES; k++) join(tmp[k], olive_atomic_begin(path[k], cfg->force), "");
    write_nodes(cfg, path[X_NODES], tmp[X_NODES]);
    write_edges(cfg, syn, path[X_EDGES], tmp[X_EDGES]);
    char mdir[4096] = "";
    const int plastic = write_types(cfg, syn, path, tmp, mdir);
    write_config(cfg, path, tmp, plastic, mdir);
}

void gc_spk_export_commit(char (*tmp)[4096])
{
    for (int k = 0; k < X_FILES; k++) olive_atomic_commit(tmp[k]);
    for (int k = 0; k < ndyn; k++) olive_atomic_commit(dyn_tmp[k]);
}
