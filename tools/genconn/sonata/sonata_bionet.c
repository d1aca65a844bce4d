/* A bmtk BioNet circuit for biophys_swc beyond its biophysical nodes
 * (sonata_nodes.c): the spike trains of its virtual nodes (--import-spikes
 * SPIKES.h5, a SONATA spikes file: /spikes/POP/timestamps in ms and
 * node_ids) as spike_source_array populations named POP, written into the
 * network file, and the edges files the circuit config lists (which
 * spiking_import.c reads). docs/IMPORT-EXPORT.md, "A bmtk BioNet network". */
#include "spiking_net.h"
#include "sonata_circuit.h"
#include "h5util.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The trains of population pop of spikes file path (group g) as per-cell
 * sorted times of n cells: *ptr (n + 1), *times. */
static void read_trains(const char *path, hid_t g, const char *pop, int64_t n, int64_t **ptr, double **times)
{
    char where[300];
    snprintf(where, sizeof where, "/spikes/%s", pop);
    for (int k = 0; k < 2; k++)
        if (!olive_h5_exists(g, k ? "node_ids" : "timestamps")) olive_die("%s: %s has no %s", path, where, k ? "node_ids" : "timestamps");
    const int64_t m = olive_h5_len1(path, g, "timestamps");
    if (olive_h5_len1(path, g, "node_ids") != m) olive_die("%s: %s: node_ids and timestamps differ in length", path, where);
    int64_t *id = olive_malloc((size_t)m * 8 + 8, "spike trains");
    double *t = olive_malloc((size_t)m * 8 + 8, "spike trains");
    hid_t d = H5Dopen2(g, "node_ids", H5P_DEFAULT);
    char err[256];
    if (d < 0 || olive_h5_read_checked(d, H5T_NATIVE_INT64, 0, m, NULL, id, err, sizeof err) < 0)
        olive_die("%s: %s/node_ids%s", path, where, d < 0 ? ": cannot open" : err);
    H5Dclose(d);
    olive_h5_read_slab1(path, g, "timestamps", H5T_NATIVE_DOUBLE, 0, m, t);
    int64_t *p = olive_calloc((size_t)n + 1, sizeof *p, "spike trains");
    for (int64_t i = 0; i < m; i++) {
        if (id[i] < 0 || id[i] >= n)
            olive_die("%s: %s/node_ids[%lld] = %lld: population %s has %lld nodes", path, where, (long long)i, (long long)id[i],
                      pop, (long long)n);
        if (!isfinite(t[i]) || t[i] < 0)
            olive_die("%s: %s/timestamps[%lld] = %g is not a time >= 0 ms", path, where, (long long)i, t[i]);
        p[id[i] + 1]++;
    }
    for (int64_t c = 0; c < n; c++) p[c + 1] += p[c];
    double *out = olive_malloc((size_t)m * 8 + 8, "spike trains");
    int64_t *fill = olive_malloc((size_t)n * 8 + 8, "spike trains");
    memcpy(fill, p, (size_t)n * 8);
    for (int64_t i = 0; i < m; i++) out[fill[id[i]]++] = t[i];
    for (int64_t c = 0; c < n; c++)   /* each train in time order (a file sorted by id keeps no time order) */
        for (int64_t a = p[c] + 1; a < p[c + 1]; a++)
            for (int64_t b = a; b > p[c] && out[b] < out[b - 1]; b--) { const double x = out[b]; out[b] = out[b - 1]; out[b - 1] = x; }
    free(id); free(t); free(fill);
    *ptr = p;
    *times = out;
}

void gc_spk_import_spike_trains(gc_spk_config *cfg)
{
    for (int f = 0; f < cfg->nimport_spikes; f++) {
        const char *path = cfg->import_spikes[f];
        olive_check_regular_file(path);
        hid_t h = olive_h5_open_read(path), sg = olive_h5_exists(h, "spikes") ? H5Gopen2(h, "spikes", H5P_DEFAULT) : -1;
        H5G_info_t info;
        if (sg < 0 || H5Gget_info(sg, &info) < 0) olive_die("%s: no /spikes group: not a SONATA spikes file", path);
        for (hsize_t k = 0; k < info.nlinks; k++) {
            char pop[256];
            const ssize_t len = H5Lget_name_by_idx(sg, ".", H5_INDEX_NAME, H5_ITER_INC, k, pop, sizeof pop, H5P_DEFAULT);
            if (len < 0 || (size_t)len >= OLIVE_NAME_LEN) olive_die("%s: /spikes: a population name too long or unreadable", path);
            const char *bad = olive_name_fault(pop);
            if (bad) olive_die("%s: /spikes/%s: as a population name, '%s' %s", path, pop, pop, bad);
            for (int i = 0; i < cfg->pops.n; i++)
                if (!strcmp(cfg->pops.pop[i].name, pop))
                    olive_die("%s: /spikes/%s: the network has a population %s already (a second file of its trains, or a "
                              "node type's pop_name)", path, pop, pop);
            if (cfg->pops.n == OLIVE_MAX_POPS) olive_die("%s: more than %d populations", path, OLIVE_MAX_POPS);
            const int64_t n = gc_circuit_virtual_nodes(cfg->import_circuit, pop);
            olive_population *p = &cfg->pops.pop[cfg->pops.n];
            memset(p, 0, sizeof *p);
            snprintf(p->name, sizeof p->name, "%.63s", pop);
            p->model = &olive_model_spike_source_array;
            p->count = n;
            hid_t g = H5Gopen2(sg, pop, H5P_DEFAULT);
            read_trains(path, g, pop, n, &cfg->array_ptr[cfg->pops.n], &cfg->array_times[cfg->pops.n]);
            H5Gclose(g);
            olive_info("%s: population %s: %lld virtual nodes, %lld spikes", path, pop, (long long)n,
                       (long long)cfg->array_ptr[cfg->pops.n][n]);
            cfg->pops.n++;
        }
        H5Gclose(sg);
        H5Fclose(h);
    }
}

int gc_circuit_edge_files(const char *config, int max, char (*edges)[4096], char (*types)[4096], char *models_dir)
{
    gc_circuit c;
    gc_circuit_open(config, &c);
    const gc_json *list = gc_json_get(gc_json_get(c.root, "networks"), "edges");
    const char *sd = gc_circuit_str(&c, gc_json_get(c.root, "components"), "synaptic_models_dir", "components");
    models_dir[0] = 0;
    if (sd) gc_circuit_resolve(&c, "synaptic_models_dir", sd, models_dir);
    const int n = list && list->kind == GC_JSON_ARR ? list->n : 0;
    if (n > max) olive_die("%s: networks.edges lists %d files; olive imports at most %d", c.path, n, max);
    for (int i = 0; i < n; i++) {
        char where[64];
        snprintf(where, sizeof where, "networks.edges[%d]", i);
        const char *e = gc_circuit_str(&c, &list->item[i], "edges_file", where), *t = gc_circuit_str(&c, &list->item[i], "edge_types_file", where);
        if (!e || !t) olive_die("%s: %s needs edges_file and edge_types_file", c.path, where);
        gc_circuit_resolve(&c, "edges_file", e, edges[i]);
        gc_circuit_resolve(&c, "edge_types_file", t, types[i]);
    }
    gc_circuit_close(&c);
    return n;
}

void gc_spk_write_spike_trains(const char *path, int64_t file, const gc_spk_config *cfg)
{
    for (int i = 0; i < cfg->pops.n; i++) {
        const olive_population *p = &cfg->pops.pop[i];
        if (!cfg->array_ptr[i]) continue;
        char where[160];
        snprintf(where, sizeof where, "cells/populations/%s", p->name);
        hid_t g = H5Gopen2((hid_t)file, where, H5P_DEFAULT);
        if (g < 0) olive_die("%s: cannot open /%s", path, where);
        olive_h5_write1(path, g, "spike_times", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, cfg->array_ptr[i][p->count], cfg->array_times[i], 0);
        olive_h5_write1(path, g, "spike_times_ptr", H5T_STD_I64LE, H5T_NATIVE_INT64, p->count + 1, cfg->array_ptr[i], 0);
        olive_h5_close(path, g, "a population group");
    }
}

/* The simulation config's parts of a bmtk BioNet config (--import-circuit,
 * biophys_swc), as BioNet reads them: conditions.celsius and v_init,
 * run.spike_threshold and dL become the imported cells' celsius, v0, V_th
 * and dL (a --param given wins: applied after), run.dt the network's dt
 * (unless --dt), the inputs of input_type spikes (module sonata or h5) the
 * virtual nodes' trains (unless --import-spikes); another input type is
 * refused by name. (run.tstop is olive-simulate's --time.) */

/* A number of the config (NULL object or key: absent, 0; else it must be a finite number). */
static int sim_num(const gc_circuit *c, const gc_json *o, const char *where, const char *key, double *out)
{
    const gc_json *v = gc_json_get(o, key);
    if (!v) return 0;
    if (v->kind != GC_JSON_NUM || !isfinite(v->num))
        olive_die("%s: %s.%s is %s, not a number", c->path, where, key, gc_json_kind_name(v->kind));
    *out = v->num;
    return 1;
}

void gc_circuit_sim_config(gc_spk_config *cfg, int dt_given)
{
    static char files[8][PATH_MAX];
    gc_circuit c;
    gc_circuit_open(cfg->import_circuit, &c);
    const gc_json *run = gc_json_get(c.root, "run"), *cond = gc_json_get(c.root, "conditions");
    /* run and conditions: the populations' defaults (a --param given wins: applied after) */
    static const struct { const char *where, *key, *param; } map[] = {
        {"conditions", "celsius", "celsius"}, {"conditions", "v_init", "v0"}, {"run", "spike_threshold", "V_th"},
        {"run", "dL", "dL"},
    };
    for (size_t k = 0; k < sizeof map / sizeof map[0]; k++) {
        double v;
        if (!sim_num(&c, map[k].where[0] == 'c' ? cond : run, map[k].where, map[k].key, &v)) continue;
        const int q = olive_model_param(cfg->model, map[k].param);
        for (int i = 0; q >= 0 && i < cfg->pops.n; i++)
            if (!olive_model_is_source(cfg->pops.pop[i].model)) cfg->pops.pop[i].param[q] = v;
        olive_info("%s: %s.%s = %g: %s of the imported cells", c.path, map[k].where, map[k].key, v, map[k].param);
    }
    double dt;
    if (!dt_given && sim_num(&c, run, "run", "dt", &dt)) {
        if (!(dt > 0)) olive_die("%s: run.dt = %g is not a time step > 0 ms", c.path, dt);
        cfg->dt = dt;
    }
    /* inputs: the spike trains of the virtual nodes, unless --import-spikes named them */
    const gc_json *in = gc_json_get(c.root, "inputs");
    for (int k = 0; in && in->kind == GC_JSON_OBJ && k < in->n; k++) {
        const gc_json *x = &in->item[k];
        char where[300];
        snprintf(where, sizeof where, "inputs.%.200s", in->key[k]);
        const char *type = gc_circuit_str(&c, x, "input_type", where), *module = gc_circuit_str(&c, x, "module", where);
        if (!type || strcmp(type, "spikes"))
            olive_die("%s: %s: input_type %s is not read by olive (spike trains are: input_type spikes, module sonata; "
                      "give a current with olive-simulate --pulse or --param I_e)", c.path, where, type ? type : "(none)");
        if (!module || (strcmp(module, "sonata") && strcmp(module, "h5")))
            olive_die("%s: %s: module %s: olive reads SONATA spike files (module sonata or h5)", c.path, where,
                      module ? module : "(none)");
        const char *file = gc_circuit_str(&c, x, "input_file", where);
        if (!file) olive_die("%s: %s has no input_file", c.path, where);
        if (cfg->nimport_spikes_given) continue;   /* --import-spikes named the trains */
        if (cfg->nimport_spikes == 8) olive_die("%s: more than 8 spike inputs", c.path);
        const int j = cfg->nimport_spikes++;
        gc_circuit_resolve(&c, where, file, files[j]);
        cfg->import_spikes[j] = files[j];
    }
    gc_circuit_close(&c);
}
