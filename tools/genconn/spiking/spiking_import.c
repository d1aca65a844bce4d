/* --import-synapses EDGES.h5 [--import-edge-types TYPES.csv]: chemical
 * synapses from a SONATA edges file (spiking_sonata.c says what is read);
 * for biophys_swc, a bmtk BioNet circuit's edges files too: exp2syn edge
 * types (their tau1, tau2, erev become the target populations' Exp2Syn of
 * the receptor the reversal potential says) and synapse sites
 * (afferent_section_id, afferent_section_pos: sections in BioNet's order,
 * which is biophys_swc's). */
#include "spiking_net.h"
#include "h5util.h"
#include "json.h"
#include "memcheck.h"
#include "plasticity_io.h"
#include "util.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_TYPES 256
/* An exp2syn of this reversal potential or above is excitatory (receptor
 * ge), below it inhibitory (gi): AMPA/NMDA near 0 mV, GABA near -70 mV. */
#define GC_EXP2SYN_EXCITATORY (-30.0)
typedef struct {
    int64_t id;
    double w, d;            /* NAN: not in the table */
    char receptor[32], name[OLIVE_NAME_LEN];
    olive_plasticity plast;  /* from model_template and dynamics_params (rule NONE: static_synapse) */
    int exp2syn;             /* bmtk's exp2syn (biophys_swc): NEURON's Exp2Syn of tau1, tau2, erev */
    double tau1, tau2, erev;
} edge_type;

/* bmtk's exp2syn dynamics_params (e.g. its AMPA_ExcToExc.json): tau1, tau2
 * (ms), erev (mV), and level_of_detail "exp2syn" if given; nothing else. */
static void read_exp2syn(const char *csv, int lineno, const char *file, const char *dir, edge_type *e)
{
    char path[8192];
    if (!strcmp(file, "NULL")) olive_die("%s: line %d: an exp2syn edge type needs dynamics_params (tau1, tau2, erev)", csv, lineno);
    if (file[0] == '/' || !dir[0]) snprintf(path, sizeof path, "%s", file);
    else snprintf(path, sizeof path, "%s/%s", dir, file);
    if (access(path, R_OK) != 0)
        olive_die("%s: line %d: dynamics_params '%s': %s cannot be read (%s)", csv, lineno, file, path, strerror(errno));
    olive_check_regular_file(path);
    gc_json *j = gc_json_read(path);
    if (j->kind != GC_JSON_OBJ) olive_die("%s: an exp2syn's dynamics_params is a JSON %s, not an object", path, gc_json_kind_name(j->kind));
    double *dst[3] = {&e->tau1, &e->tau2, &e->erev};
    static const char *const names[3] = {"tau1", "tau2", "erev"};
    int seen[3] = {0};
    for (int k = 0; k < j->n; k++) {
        if (!strcmp(j->key[k], "level_of_detail")) {
            if (j->item[k].kind != GC_JSON_STR || strcasecmp(j->item[k].str, "exp2syn"))
                olive_die("%s: level_of_detail is not \"exp2syn\" (the edge type's model_template)", path);
            continue;
        }
        int q = 0;
        while (q < 3 && strcmp(j->key[k], names[q])) q++;
        if (q == 3) olive_die("%s: \"%s\" is not a parameter of exp2syn (olive reads tau1, tau2, erev)", path, j->key[k]);
        if (j->item[k].kind != GC_JSON_NUM) olive_die("%s: \"%s\" is a JSON %s, not a number", path, j->key[k], gc_json_kind_name(j->item[k].kind));
        *dst[q] = j->item[k].num;
        seen[q] = 1;
    }
    gc_json_free(j);
    for (int q = 0; q < 3; q++)
        if (!seen[q]) olive_die("%s: exp2syn needs \"%s\"", path, names[q]);
    if (!(e->tau1 > 0) || !(e->tau2 > e->tau1))
        olive_die("%s: exp2syn needs 0 < tau1 < tau2 (it has tau1 %g, tau2 %g ms)", path, e->tau1, e->tau2);
    e->exp2syn = 1;
}


/* A plastic edge type's parameters: NEST's defaults, then those of its
 * dynamics_params file (an object of NEST's parameter names; tau_minus,
 * which NEST keeps on the target neuron, is olive's per projection). */
static void read_synapse_params(const char *csv, int lineno, const char *tmpl, const char *file, const char *dir,
                                olive_plasticity *pl)
{
    if (!strcmp(file, "NULL")) return;   /* NEST's defaults */
    char path[8192];
    if (file[0] == '/' || !dir[0]) snprintf(path, sizeof path, "%s", file);
    else snprintf(path, sizeof path, "%s/%s", dir, file);
    if (access(path, R_OK) != 0)
        olive_die("%s: line %d: dynamics_params '%s': %s cannot be read (%s); --import-synaptic-models DIR says where "
                  "the files are", csv, lineno, file, path, strerror(errno));
    olive_check_regular_file(path);
    gc_json *j = gc_json_read(path);
    if (j->kind != GC_JSON_OBJ)
        olive_die("%s: the dynamics_params of edge type line %d of %s (%s) is a JSON %s, not an object of parameters",
                  path, lineno, csv, tmpl, gc_json_kind_name(j->kind));
    for (int k = 0; k < j->n; k++) {
        if (j->item[k].kind != GC_JSON_NUM)
            olive_die("%s: \"%s\" is a JSON %s, not a number", path, j->key[k], gc_json_kind_name(j->item[k].kind));
        if (!olive_plast_set(pl, j->key[k], j->item[k].num))
            olive_die("%s: \"%s\" is not a parameter of %s (olive reads %s)", path, j->key[k], tmpl,
                      olive_plast_par_list(pl->rule));
    }
    gc_json_free(j);
    const char *bad = olive_plast_fault(pl);
    if (bad) olive_die("%s: %s: %s", path, tmpl, bad);
}

/* The edge types table: whitespace-separated, a header naming the columns,
 * then one line per type (at least one; each id once). */
static int read_types(const char *path, const char *models_dir, int bio, edge_type *t)
{
    /* dynamics_params files: in models_dir (bmtk's components.synaptic_models_dir), else beside the table */
    char dir[4096];
    if (models_dir) snprintf(dir, sizeof dir, "%s", models_dir);
    else {
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash) *slash = 0; else dir[0] = 0;
    }
    olive_check_regular_file(path);   /* a FIFO would block open() */
    FILE *f = fopen(path, "r");
    if (!f) olive_die("%s: cannot open the edge types file", path);
    char line[4096], *tok[65];
    int col_id = -1, col_w = -1, col_d = -1, col_r = -1, col_n = -1, col_t = -1, col_p = -1, col_wf = -1, ncols = 0, n = 0;
    for (int lineno = 1; fgets(line, sizeof line, f); lineno++) {
        if (!strchr(line, '\n') && !feof(f)) olive_die("%s: line %d: longer than %d characters, or a NUL byte", path, lineno,
                                                     (int)sizeof line - 2);
        int k = 0;
        for (char *save = NULL, *s = strtok_r(line, " \t\r\n", &save); s && k < 65; s = strtok_r(NULL, " \t\r\n", &save)) tok[k++] = s;
        if (k == 0) continue;
        if (k > 64) olive_die("%s: line %d has more than 64 columns", path, lineno);
        if (ncols == 0) {
            ncols = k;
            for (int c = 0; c < k; c++) {
                if (!strcmp(tok[c], "edge_type_id")) col_id = c;
                else if (!strcmp(tok[c], "syn_weight")) col_w = c;
                else if (!strcmp(tok[c], "delay")) col_d = c;
                else if (!strcmp(tok[c], "receptor")) col_r = c;
                else if (!strcmp(tok[c], "projection")) col_n = c;
                else if (!strcmp(tok[c], "model_template")) col_t = c;
                else if (!strcmp(tok[c], "dynamics_params")) col_p = c;
                else if (!strcmp(tok[c], "weight_function")) col_wf = c;
            }
            if (col_id < 0) olive_die("%s: the header has no column edge_type_id", path);
            continue;
        }
        if (k != ncols) olive_die("%s: line %d has %d columns, the header %d", path, lineno, k, ncols);
        if (n == MAX_TYPES) olive_die("%s: more than %d edge types", path, MAX_TYPES);
        edge_type *e = &t[n++];
        e->id = olive_parse_int(path, tok[col_id], 0, INT32_MAX);
        for (int q = 0; q < n - 1; q++)
            if (t[q].id == e->id) olive_die("%s: line %d: edge_type_id %lld is given twice", path, lineno, (long long)e->id);
        e->w = col_w >= 0 && strcmp(tok[col_w], "NULL") ? olive_parse_double(path, tok[col_w], -1e9, 1e9) : NAN;
        e->d = col_d >= 0 && strcmp(tok[col_d], "NULL") ? olive_parse_double(path, tok[col_d], -1e9, 1e9) : NAN;
        snprintf(e->receptor, sizeof e->receptor, "%s", col_r >= 0 ? tok[col_r] : "");
        if (col_n >= 0) {
            const char *bad = olive_name_fault(tok[col_n]);
            if (bad) olive_die("%s: line %d: projection name '%s' %s", path, lineno, tok[col_n], bad);
            snprintf(e->name, sizeof e->name, "%s", tok[col_n]);
        }
        if (col_wf >= 0 && strcmp(tok[col_wf], "NULL") && tok[col_wf][0])
            olive_die("%s: line %d: weight_function '%s': bmtk calls a Python function of that name on every edge; "
                      "olive cannot, and does not drop it (write the weights it gives into syn_weight)", path, lineno,
                      tok[col_wf]);
        memset(&e->plast, 0, sizeof e->plast);
        e->exp2syn = 0;
        if (bio && col_t >= 0 && !strcasecmp(tok[col_t], "exp2syn"))
            read_exp2syn(path, lineno, col_p >= 0 ? tok[col_p] : "NULL", dir, e);
        else if (col_t >= 0 && strcmp(tok[col_t], "NULL")) {
            const char *tm = tok[col_t];
            if (!strncmp(tm, "nest:", 5)) tm += 5;
            const int rule = olive_plast_rule_of_nest(tm);   /* (plasticity_rules.h's table) */
            if (rule < 0)
                olive_die("%s: line %d: model_template '%s' is not a synapse model olive runs (%s)", path, lineno,
                          tok[col_t], olive_plast_nest_list());
            if (rule != OLIVE_PLAST_NONE) {
                olive_plast_defaults(rule, &e->plast);
                read_synapse_params(path, lineno, tm, col_p >= 0 ? tok[col_p] : "NULL", dir, &e->plast);
            }
        }
    }
    if (ferror(f)) olive_die("%s: read error", path);
    fclose(f);
    if (ncols == 0) olive_die("%s: the edge types file is empty (a header naming the columns, edge_type_id among them, "
                              "then one line per edge type)", path);
    if (n == 0) olive_die("%s: no edge types: only the header", path);
    return n;
}

typedef struct { uint64_t tgt, src; double w; int64_t d; int32_t sec; double x; } edge;

static int cmp_edge(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    if (x->tgt != y->tgt) return x->tgt < y->tgt ? -1 : 1;
    return (x->src > y->src) - (x->src < y->src);
}

/* A SONATA edges file's one population, as read. */
typedef struct {
    const char *path;
    char pop[256];
    int64_t E;
    uint64_t *src, *tgt;
    int64_t *type;       /* edge_type_id, or 0 */
    double *w, *d;       /* group 0's syn_weight and delay, or NULL */
    int64_t *gi;         /* edge_group_index, or NULL: edge e is row e */
    int32_t *sec;        /* group 0's afferent_section_id and afferent_section_pos, or NULL */
    double *x;
    int64_t src0, tgt0, nsrc, ntgt;   /* the olive ids of the source and target node populations */
} sonata_edges;

/* Group 0's weights and delays, and where each edge's row is. */
static void read_group0(sonata_edges *x, hid_t g)
{
    const char *path = x->path;
    const int64_t E = x->E;
    if (!olive_h5_exists(g, "0/syn_weight") && !olive_h5_exists(g, "0/delay") && !x->sec) return;
    if (olive_h5_exists(g, "edge_group_id")) {
        int64_t *gid = olive_malloc((size_t)E * 8 + 8, "import");
        olive_h5_read_slab1(path, g, "edge_group_id", H5T_NATIVE_INT64, 0, E, gid);
        for (int64_t e = 0; e < E; e++)
            if (gid[e] != 0) olive_die("%s: edge %lld is in group %lld; olive reads group 0 only", path, (long long)e, (long long)gid[e]);
        free(gid);
    }
    hid_t g0 = H5Gopen2(g, "0", H5P_DEFAULT);
    int64_t n0 = olive_h5_exists(g0, "syn_weight") ? olive_h5_len1(path, g0, "syn_weight")
               : olive_h5_exists(g0, "delay") ? olive_h5_len1(path, g0, "delay") : olive_h5_len1(path, g0, "afferent_section_id");
    if (olive_h5_exists(g, "edge_group_index")) {
        x->gi = olive_malloc((size_t)E * 8 + 8, "import");
        olive_h5_read_slab1(path, g, "edge_group_index", H5T_NATIVE_INT64, 0, E, x->gi);
        for (int64_t e = 0; e < E; e++)
            if (x->gi[e] < 0 || x->gi[e] >= n0) olive_die("%s: edge_group_index[%lld] = %lld is outside group 0's %lld rows",
                                                          path, (long long)e, (long long)x->gi[e], (long long)n0);
    } else if (n0 != E) olive_die("%s: group 0 has %lld rows for %lld edges and no edge_group_index", path,
                                  (long long)n0, (long long)E);
    if (olive_h5_exists(g0, "syn_weight")) {
        x->w = olive_malloc((size_t)n0 * 8 + 8, "import");
        olive_h5_read_slab1(path, g0, "syn_weight", H5T_NATIVE_DOUBLE, 0, n0, x->w);
    }
    if (olive_h5_exists(g0, "delay")) {
        x->d = olive_malloc((size_t)n0 * 8 + 8, "import");
        olive_h5_read_slab1(path, g0, "delay", H5T_NATIVE_DOUBLE, 0, n0, x->d);
    }
    if (x->sec) {   /* (marked wanted by read_edges) */
        for (int k = 0; k < 2; k++)
            if (olive_h5_len1(path, g0, k ? "afferent_section_pos" : "afferent_section_id") != n0)
                olive_die("%s: /edges/%s/0/%s has not the %lld rows of group 0", path, x->pop,
                          k ? "afferent_section_pos" : "afferent_section_id", (long long)n0);
        x->sec = olive_realloc(x->sec, (size_t)n0 * 4 + 4, "import");
        x->x = olive_malloc((size_t)n0 * 8 + 8, "import");
        hid_t d = H5Dopen2(g0, "afferent_section_id", H5P_DEFAULT);
        char err[256];
        if (d < 0 || olive_h5_read_checked(d, H5T_NATIVE_INT32, 0, n0, NULL, x->sec, err, sizeof err) < 0)
            olive_die("%s: /edges/%s/0/afferent_section_id%s", path, x->pop, d < 0 ? ": cannot open" : err);
        H5Dclose(d);
        olive_h5_read_slab1(path, g0, "afferent_section_pos", H5T_NATIVE_DOUBLE, 0, n0, x->x);
        for (int64_t r = 0; r < n0; r++) {
            if (x->sec[r] < 0) olive_die("%s: /edges/%s/0/afferent_section_id[%lld] = %d is negative", path, x->pop, (long long)r, x->sec[r]);
            if (!(x->x[r] >= 0 && x->x[r] <= 1))
                olive_die("%s: /edges/%s/0/afferent_section_pos[%lld] = %g is not in [0, 1]", path, x->pop, (long long)r, x->x[r]);
        }
    }
    H5Gclose(g0);
}

/* The file's one edge population, checked, beside the projections syn
 * already holds (its memory foreseen). */
/* Where the node population of dataset name (source_node_id, target_node_id)
 * lies among olive's cells: map's entry for its node_population attribute,
 * or (no map) every cell. */
static void node_pop_at(const gc_spk_config *cfg, const sonata_edges *x, hid_t g, const char *name, const gc_node_map *map,
                        int64_t *first, int64_t *count)
{
    *first = 0;
    *count = cfg->count;
    if (!map) return;
    char pop[256] = "";
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    const int have = d >= 0 && olive_h5_get_str_opt(x->path, d, "node_population", pop, sizeof pop);
    if (d >= 0) H5Dclose(d);
    if (!have) olive_die("%s: /edges/%s/%s has no attribute node_population (which node population its ids number)", x->path,
                         x->pop, name);
    for (int k = 0; k < map->n; k++)
        if (!strcmp(map->sonata[k], pop)) {
            *first = map->first[k];
            *count = map->count[k];
            return;
        }
    olive_die("%s: /edges/%s: the %s nodes are in node population '%s', which is not imported (the cells are '%s'%s)",
              x->path, x->pop, strcmp(name, "source_node_id") ? "target" : "source", pop, map->sonata[0],
              map->n > 1 ? " and the virtual populations of --import-spikes" : "; virtual nodes take --import-spikes");
}

static void read_edges(const gc_spk_config *cfg, const olive_synapses *syn, const char *path, const gc_node_map *map,
                       sonata_edges *x)
{
    memset(x, 0, sizeof *x);
    x->path = path;
    hid_t f = olive_h5_open_read(path);
    if (!olive_h5_exists(f, "edges")) olive_die("%s: no /edges group: not a SONATA edges file", path);
    hid_t eg = H5Gopen2(f, "edges", H5P_DEFAULT);
    H5G_info_t info;
    if (eg < 0 || H5Gget_info(eg, &info) < 0) olive_die("%s: cannot list /edges", path);
    if (info.nlinks != 1) olive_die("%s: /edges holds %llu populations; olive imports a file with one", path,
                                    (unsigned long long)info.nlinks);
    if (H5Lget_name_by_idx(eg, ".", H5_INDEX_NAME, H5_ITER_INC, 0, x->pop, sizeof x->pop, H5P_DEFAULT) < 0)
        olive_die("%s: cannot read the population name", path);
    hid_t g = H5Gopen2(eg, x->pop, H5P_DEFAULT);
    if (g < 0) olive_die("%s: /edges/%s is not a group", path, x->pop);
    const int64_t E = x->E = olive_h5_len1(path, g, "source_node_id");
    if (olive_h5_len1(path, g, "target_node_id") != E)
        olive_die("%s: /edges/%s: source_node_id and target_node_id differ in length", path, x->pop);
    /* per edge: ids, type, weight, delay, group index, the sort record and
     * the projection's synapse; beside the projections generated before */
    char what[160];
    snprintf(what, sizeof what, "%lld edges", (long long)E);
    olive_require_memory(path, gc_spk_held_bytes(syn, cfg->count) + 94.0 * (double)E + 16.0 * ((double)cfg->count + 1), what);
    x->src = olive_malloc((size_t)E * 8 + 8, "import");
    x->tgt = olive_malloc((size_t)E * 8 + 8, "import");
    x->type = olive_calloc((size_t)E + 1, sizeof(int64_t), "import");
    olive_h5_read_slab1(path, g, "source_node_id", H5T_NATIVE_UINT64, 0, E, x->src);
    olive_h5_read_slab1(path, g, "target_node_id", H5T_NATIVE_UINT64, 0, E, x->tgt);
    if (olive_h5_exists(g, "edge_type_id")) olive_h5_read_slab1(path, g, "edge_type_id", H5T_NATIVE_INT64, 0, E, x->type);
    for (int64_t e = 0; e < E; e++)
        if (x->type[e] < 0)
            olive_die("%s: dataset /edges/%s/edge_type_id[%lld] = %lld is negative", path, x->pop, (long long)e,
                      (long long)x->type[e]);
    node_pop_at(cfg, x, g, "source_node_id", map, &x->src0, &x->nsrc);
    node_pop_at(cfg, x, g, "target_node_id", map, &x->tgt0, &x->ntgt);
    /* Synapse sites: biophys_swc's sections are bmtk BioNet's (its cell.all
     * order, Allen's axon stub last), so afferent_section_id names the same
     * section; for other models they are not dropped in silence: SONATA's
     * section ids are not olive's Import3d order there. */
    const int bio = olive_model_needs_mechanisms(cfg->model);
    if (bio && olive_h5_exists(g, "0/afferent_section_id") != olive_h5_exists(g, "0/afferent_section_pos"))
        olive_die("%s: /edges/%s/0: afferent_section_id and afferent_section_pos go together", path, x->pop);
    if (bio && olive_h5_exists(g, "0/afferent_section_id")) x->sec = olive_malloc(4, "import");
    if (bio && map && !x->sec)
        olive_die("%s: /edges/%s has no afferent_section_id/afferent_section_pos: bmtk BioNet then draws each synapse's "
                  "site when it runs, with its own random numbers, which olive cannot draw alike; give the sites in the "
                  "file (bmtk's builder: add_properties with rand_syn_locations)", path, x->pop);
    for (int k = 0; k < 2 && !bio; k++) {
        const char *site = k ? "afferent_section_pos" : "afferent_section_id";
        char at[96];
        snprintf(at, sizeof at, "0/%s", site);
        if (olive_h5_exists(g, at))
            olive_die("%s: /edges/%s/0/%s: olive-genconn does not import synapse sites from SONATA (its section ids "
                      "are not mapped onto olive's section order); remove them, or draw sites with --projection ...,sites=",
                      path, x->pop, site);
    }
    read_group0(x, g);
    H5Gclose(g);
    H5Gclose(eg);
    H5Fclose(f);
}

/* The edge types present, in ascending order (one projection each). */
static int edge_type_ids(const sonata_edges *x, int64_t tids[MAX_TYPES])
{
    int nt = 0;
    for (int64_t e = 0; e < x->E; e++) {
        int k = 0;
        while (k < nt && tids[k] != x->type[e]) k++;
        if (k == nt) {
            if (nt == MAX_TYPES) olive_die("%s: more than %d edge types", x->path, MAX_TYPES);
            tids[nt++] = x->type[e];
        }
    }
    for (int a = 1; a < nt; a++)
        for (int b = a; b > 0 && tids[b] < tids[b - 1]; b--) { int64_t t = tids[b]; tids[b] = tids[b - 1]; tids[b - 1] = t; }
    return nt;
}

/* The edges of type tid into es, each with its weight and delay (from the
 * file, else the edge type et) checked, sorted by target then source;
 * returns their number. */
static int64_t edges_of_type(const gc_spk_config *cfg, const sonata_edges *x, const char *types_path, int64_t tid,
                             const edge_type *et, edge *es)
{
    const char *path = x->path;
    int64_t m = 0;
    for (int64_t e = 0; e < x->E; e++) {
        if (x->type[e] != tid) continue;
        if (x->src[e] >= (uint64_t)x->nsrc || x->tgt[e] >= (uint64_t)x->ntgt) {
            if (x->nsrc == cfg->count && x->ntgt == cfg->count)
                olive_die("%s: edge %lld joins cells %llu -> %llu; the network has %lld cells", path, (long long)e,
                          (unsigned long long)x->src[e], (unsigned long long)x->tgt[e], (long long)cfg->count);
            olive_die("%s: edge %lld joins nodes %llu -> %llu; its source population has %lld nodes, its target %lld", path,
                      (long long)e, (unsigned long long)x->src[e], (unsigned long long)x->tgt[e], (long long)x->nsrc,
                      (long long)x->ntgt);
        }
        const int64_t at = x->gi ? x->gi[e] : e;
        double we = x->w ? x->w[at] : et ? et->w : NAN, de = x->d ? x->d[at] : et ? et->d : NAN;
        if (!isfinite(we)) olive_die("%s: edge %lld has no finite syn_weight (in the edges file or the edge types)", path, (long long)e);
        if (!isfinite(de)) olive_die("%s: edge %lld has no finite delay (in the edges file or the edge types)", path, (long long)e);
        if (de < 0) olive_die("%s: edge %lld has a negative delay (%g ms)", path, (long long)e, de);
        char what[600];   /* the field the delay came from */
        if (x->d) snprintf(what, sizeof what, "%s: /edges/%s/0/delay[%lld] (edge %lld; the delay buffer)", path, x->pop,
                           (long long)at, (long long)e);
        else snprintf(what, sizeof what, "%s: edge type %lld: delay (edge %lld; the delay buffer)",
                      types_path, (long long)tid, (long long)e);
        const int64_t steps = olive_ms_to_steps_or_die(olive_die, what, de, cfg->dt, 0, OLIVE_MAX_DELAY);
        es[m++] = (edge){x->tgt0 + x->tgt[e], x->src0 + x->src[e], we, steps, x->sec ? x->sec[at] : 0, x->sec ? x->x[at] : 0};
    }
    qsort(es, (size_t)m, sizeof(edge), cmp_edge);
    return m;
}

/* Projection p (the type tid's, after `before` others in syn) from its m
 * sorted edges: its name (the types table's, else PREFIX_TID, where prefix
 * is a circuit's edge population, else type_TID), receptor (the type's, an
 * exp2syn's by its erev, else the weights' sign), plasticity, rows and sites. */
static void fill_projection(const gc_spk_config *cfg, const olive_synapses *syn, int before, const char *path,
                            int64_t tid, const edge_type *et, const edge *es, int64_t m, int sites, const char *prefix,
                            olive_projection *p)
{
    memset(p, 0, sizeof *p);
    if (et && et->name[0]) snprintf(p->name, sizeof p->name, "%s", et->name);
    else if (prefix) snprintf(p->name, sizeof p->name, "%.40s_%lld", prefix, (long long)tid);
    else snprintf(p->name, sizeof p->name, "type_%lld", (long long)tid);
    for (int q = 0; q < before; q++)   /* one group per name in the file */
        if (!strcmp(syn->proj[q].name, p->name))
            olive_die("%s: edge type %lld: a second projection named '%s'", path, (long long)tid, p->name);
    const char *rec = et && et->receptor[0] ? et->receptor : NULL;
    if (!rec && et && et->exp2syn) rec = et->erev >= GC_EXP2SYN_EXCITATORY ? "ge" : "gi";
    if (!rec) {
        if (cfg->model->weights_nonnegative)
            olive_die("%s: edge type %lld has no receptor (a 'receptor' column of --import-edge-types: ge or gi); "
                      "%s weights are conductances, their sign cannot tell", path, (long long)tid, cfg->model->name);
        rec = m > 0 && es[0].w < 0 ? "gi" : "ge";
        for (int64_t i = 0; i < m; i++)
            if ((es[i].w < 0) != (rec[1] == 'i'))
                olive_die("%s: edge type %lld mixes positive and negative weights and has no receptor column", path,
                          (long long)tid);
    }
    if (olive_model_receptor(cfg->model, rec) < 0)
        olive_die("%s: edge type %lld: model %s has no receptor '%s' (it has ge, gi)", path, (long long)tid,
                  cfg->model->name, rec);
    snprintf(p->receptor, sizeof p->receptor, "%s", rec);
    if (et) p->plast = et->plast;
    snprintf(p->source, sizeof p->source, "all");
    snprintf(p->target, sizeof p->target, "all");
    { const char *b = strrchr(path, '/'); snprintf(p->rule, sizeof p->rule, "imported from %.100s", b ? b + 1 : path); }
    p->row1 = cfg->count;
    p->nnz = p->nnz_total = m;
    p->row_ptr = olive_calloc((size_t)cfg->count + 1, sizeof(int64_t), "synapses");
    p->col = olive_malloc((size_t)m * 4 + 4, "synapses");
    p->weight = olive_malloc((size_t)m * 8 + 8, "synapses");
    p->delay = olive_malloc((size_t)m * 2 + 2, "synapses");
    if (sites) {
        p->site_sec = olive_malloc((size_t)m * 4 + 4, "synapses");
        p->site_x = olive_malloc((size_t)m * 8 + 8, "synapses");
        snprintf(p->sites, sizeof p->sites, "afferent_section_id/afferent_section_pos of %.200s", path);
    }
    for (int64_t i = 0; i < m; i++) {
        if (sites) { p->site_sec[i] = es[i].sec; p->site_x[i] = es[i].x; }
        if (cfg->model->weights_nonnegative && es[i].w < 0)
            olive_die("%s: edge type %lld has a weight of %g; a %s weight is a conductance (nS) and cannot be negative",
                      path, (long long)tid, es[i].w, cfg->model->name);
        const char *bad = olive_plast_weight_fault(&p->plast, es[i].w);
        if (bad) olive_die("%s: edge type %lld has a weight of %g: %s", path, (long long)tid, es[i].w, bad);
        p->row_ptr[es[i].tgt + 1]++;
        p->col[i] = (int32_t)es[i].src;
        p->weight[i] = es[i].w;
        p->delay[i] = (uint16_t)es[i].d;
    }
    for (int64_t r = 0; r < cfg->count; r++) p->row_ptr[r + 1] += p->row_ptr[r];
}

/* An exp2syn edge type's tau1, tau2, erev onto the Exp2Syn of receptor rec
 * (tau_rise, tau, E of ge or gi) of every population its m edges reach; a
 * population whose receptor another edge type gave other values is refused. */
/* What the exp2syn edge types gave each population's receptor (tau1, tau2, erev), and where from. */
static struct { int set; double v[3]; char from[300]; } given[OLIVE_MAX_POPS][2];

int gc_spk_exp2syn_of(int pop, int rec, double *v, const char **from)
{
    if (!given[pop][rec].set) return 0;
    memcpy(v, given[pop][rec].v, sizeof given[pop][rec].v);
    *from = given[pop][rec].from;
    return 1;
}

static void apply_exp2syn(gc_spk_config *cfg, const char *path, int64_t tid, const edge_type *et, const char *rec,
                          const edge *es, int64_t m)
{
    const int r = rec[1] == 'i';
    char names[3][16];
    snprintf(names[0], sizeof names[0], "tau_rise_%c", rec[1]);
    snprintf(names[1], sizeof names[1], "tau_%c", rec[1]);
    snprintf(names[2], sizeof names[2], "E_%c", rec[1]);
    const double v[3] = {et->tau1, et->tau2, et->erev};
    for (int i = 0; i < cfg->pops.n; i++) {
        olive_population *p = &cfg->pops.pop[i];
        int hit = 0;
        for (int64_t k = 0; k < m && !hit; k++) hit = (int64_t)es[k].tgt >= p->first && (int64_t)es[k].tgt < p->first + p->count;
        if (!hit) continue;
        if (given[i][r].set && memcmp(given[i][r].v, v, sizeof v))
            olive_die("%s: edge type %lld: exp2syn (tau1 %g, tau2 %g, erev %g) onto population %s, whose %s synapses %s gave "
                      "(tau1 %g, tau2 %g, erev %g): an olive population has one Exp2Syn per receptor (ge: erev >= %g mV, "
                      "else gi)", path, (long long)tid, v[0], v[1], v[2], p->name, rec, given[i][r].from, given[i][r].v[0],
                      given[i][r].v[1], given[i][r].v[2], GC_EXP2SYN_EXCITATORY);
        given[i][r].set = 1;
        memcpy(given[i][r].v, v, sizeof v);
        snprintf(given[i][r].from, sizeof given[i][r].from, "%.250s's edge type %lld", path, (long long)tid);
        for (int q = 0; q < 3; q++) {
            const int k = olive_model_param(p->model, names[q]);
            if (k < 0) olive_die("%s: edge type %lld: model %s has no parameter %s", path, (long long)tid, p->model->name, names[q]);
            p->param[k] = v[q];
        }
    }
}

void gc_spk_import(gc_spk_config *cfg, olive_synapses *syn)
{
    gc_spk_import_file(cfg, syn, cfg->import_synapses, cfg->import_edge_types, cfg->import_synaptic_models, NULL);
}

void gc_spk_import_file(gc_spk_config *cfg, olive_synapses *syn, const char *edges, const char *types_path,
                        const char *models_dir, const gc_node_map *map)
{
    static edge_type types[MAX_TYPES];
    const int bio = olive_model_needs_mechanisms(cfg->model);
    int ntypes = types_path ? read_types(types_path, models_dir, bio, types) : 0;
    sonata_edges x;
    read_edges(cfg, syn, edges, map, &x);
    int64_t tids[MAX_TYPES];
    const int nt = edge_type_ids(&x, tids);
    const int base = syn->n;
    syn->proj = olive_realloc(syn->proj, (size_t)(base + nt + 1) * sizeof(olive_projection), "projections");
    edge *es = olive_malloc((size_t)x.E * sizeof(edge) + sizeof(edge), "import");
    for (int k = 0; k < nt; k++) {
        const edge_type *et = NULL;
        for (int q = 0; q < ntypes; q++) if (types[q].id == tids[k]) et = &types[q];
        const int64_t m = edges_of_type(cfg, &x, types_path, tids[k], et, es);
        fill_projection(cfg, syn, base + k, x.path, tids[k], et, es, m, x.sec != NULL, map && !olive_name_fault(x.pop) ? x.pop : NULL,
                        &syn->proj[base + k]);
        if (et && et->exp2syn) apply_exp2syn(cfg, types_path, tids[k], et, syn->proj[base + k].receptor, es, m);
    }
    syn->n = base + nt;
    free(es); free(x.src); free(x.tgt); free(x.type); free(x.w); free(x.d); free(x.gi); free(x.sec); free(x.x);
}
