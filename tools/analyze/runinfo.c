/* Where a run's files are and what they say about the run: the spike file,
 * provenance (root attributes, docs/FORMAT.md), the cell count and the
 * simulated duration, each with the source it came from. */
#include "analyze.h"
#include "h5util.h"
#include "util.h"
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void ana_run_open(ana_run *r, const char *arg)
{
    memset(r, 0, sizeof *r);
    r->cells = -1;
    r->duration_ms = -1;
    struct stat st;
    if (stat(arg, &st) != 0) ana_error("%s: no such file or directory", arg);
    if (S_ISDIR(st.st_mode)) {
        snprintf(r->dir, sizeof r->dir, "%s", arg);
        snprintf(r->spikes_path, sizeof r->spikes_path, "%s/spikes.h5", arg);
        if (stat(r->spikes_path, &st) != 0)
            ana_error("%s: no such file (is %s an olive-simulate output directory?)", r->spikes_path, arg);
    } else {
        snprintf(r->spikes_path, sizeof r->spikes_path, "%s", arg);
        const char *slash = strrchr(arg, '/');
        if (slash) snprintf(r->dir, sizeof r->dir, "%.*s", (int)(slash - arg), arg);
        else snprintf(r->dir, sizeof r->dir, ".");
        if (!r->dir[0]) snprintf(r->dir, sizeof r->dir, "/");
    }

    const char *p = r->spikes_path;
    hid_t f = ana_h5_open(p);
    if ((r->has_cells = olive_h5_has_attr(f, "cells"))) r->attr_cells = olive_h5_get_i64(p, f, "/", "cells");
    if ((r->has_steps = olive_h5_has_attr(f, "steps"))) r->steps = olive_h5_get_i64(p, f, "/", "steps");
    if ((r->has_dt = olive_h5_has_attr(f, "dt"))) r->dt = olive_h5_get_f64(p, f, "/", "dt");
    if ((r->has_world_size = olive_h5_has_attr(f, "world_size"))) r->world_size = olive_h5_get_i64(p, f, "/", "world_size");
    if ((r->has_threads = olive_h5_has_attr(f, "threads"))) r->threads = olive_h5_get_i64(p, f, "/", "threads");
    if ((r->has_time_total = olive_h5_has_attr(f, "time_total_s")))
        r->time_total_s = olive_h5_get_f64(p, f, "/", "time_total_s");
    olive_h5_get_str_opt(p, f, "olive_version", r->olive_version, sizeof r->olive_version);
    olive_h5_get_str_opt(p, f, "backend", r->backend, sizeof r->backend);
    olive_h5_get_str_opt(p, f, "precision", r->precision, sizeof r->precision);
    olive_h5_get_str_opt(p, f, "gj", r->gj, sizeof r->gj);
    olive_h5_get_str_opt(p, f, "model", r->model, sizeof r->model);
    olive_h5_get_str_opt(p, f, "method", r->method, sizeof r->method);
    olive_h5_get_str_opt(p, f, "command", r->command, sizeof r->command);
    olive_h5_get_str_opt(p, f, "param_overrides", r->param_overrides, sizeof r->param_overrides);
    H5Fclose(f);
    if (r->has_cells && r->attr_cells < 0) ana_error("%s: root attribute cells = %lld is negative", p, (long long)r->attr_cells);
    if (r->has_steps && r->steps < 0) ana_error("%s: root attribute steps = %lld is negative", p, (long long)r->steps);
    if (r->has_dt && !(r->dt > 0)) ana_error("%s: root attribute dt = %g is not positive", p, r->dt);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Report files beside the spike file: *.h5 other than spikes.h5 and state.h5
 * (and unfinished *.tmp-*), v_axon.h5 first, then by name. */
static int list_reports(const ana_run *r, char ***out)
{
    DIR *d = opendir(r->dir);
    int n = 0, cap = 8;
    char **names = olive_malloc((size_t)cap * sizeof *names, "file names");
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t l = strlen(e->d_name);
            if (l < 4 || strcmp(e->d_name + l - 3, ".h5") != 0 || strstr(e->d_name, ".tmp-")) continue;
            if (!strcmp(e->d_name, "spikes.h5") || !strcmp(e->d_name, "state.h5")) continue;
            if (n == cap) names = realloc(names, (size_t)(cap *= 2) * sizeof *names);
            if (!names) olive_die("out of memory listing %s", r->dir);
            names[n++] = strdup(e->d_name);
        }
        closedir(d);
    }
    qsort(names, (size_t)n, sizeof *names, by_name);
    for (int i = 1; i < n; i++)
        if (!strcmp(names[i], "v_axon.h5")) { char *t = names[i]; memmove(names + 1, names, (size_t)i * sizeof *names); names[0] = t; }
    *out = names;
    return n;
}

/* Use the first report with /report/<population>/mapping (or the only
 * population there) for whichever of cells and duration is still unknown. */
static void from_report(ana_run *r, const char *population)
{
    char **names;
    int n = list_reports(r, &names);
    for (int i = 0; i < n && !r->report_path[0]; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", r->dir, names[i]);
        struct stat st;   /* a FIFO named *.h5 would block H5Fis_hdf5 */
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || H5Fis_hdf5(path) <= 0) continue;
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        if (f < 0) continue;
        char group[512] = "";
        if (ana_h5_is_group(f, "/report")) {
            char pops[2][256];
            char want[300];
            snprintf(want, sizeof want, "/report/%s", population);
            /* Only a report of the spikes' own population says anything
             * about them (another population's report lying in the same
             * folder has other cells and maybe another duration). */
            if (population[0]) {
                if (ana_h5_is_group(f, want)) snprintf(group, sizeof group, "%s", want);
            } else if (ana_h5_subgroups(path, f, "/report", pops, 2) == 1)
                snprintf(group, sizeof group, "/report/%s", pops[0]);
        }
        char ids[600], tm[600];
        snprintf(ids, sizeof ids, "%s/mapping/node_ids", group);
        snprintf(tm, sizeof tm, "%s/mapping/time", group);
        if (group[0] && ana_h5_is_dataset(f, ids) && ana_h5_is_dataset(f, tm)) {
            ana_fmt(r->report_path, sizeof r->report_path, "%s", path);
            ana_dset d;
            ana_dset_open(&d, path, f, ids);
            if (r->cells < 0) {
                r->cells = d.len;
                ana_fmt(r->cells_from, sizeof r->cells_from, "length of %s in %s", ids, path);
            }
            ana_dset_close(&d);
            ana_dset_open(&d, path, f, tm);
            if (d.len != 3) ana_error("%s: %s has %lld values, expected 3 (start, stop, step)", path, tm, (long long)d.len);
            double t[3];
            ana_dset_read(&d, H5T_NATIVE_DOUBLE, 0, 3, t);
            ana_dset_close(&d);
            /* olive's reports start one interval in (start = step: frame k is
             * the state at (k+1)*step), others at the start of the run; either
             * way the run covers [0, stop - start] or [0, stop). */
            if (r->duration_ms < 0 && t[1] >= t[0]) {
                r->duration_ms = t[0] == t[2] ? t[1] - t[0] : t[1];
                ana_fmt(r->duration_from, sizeof r->duration_from, "%s (start, stop, step) in %s", tm, path);
            }
        }
        H5Fclose(f);
    }
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
}

/* olive-simulate puts each population's cell count on its spike group
 * (attribute cells of /spikes/<population>); 1 when it is there. */
static int from_population(ana_run *r, const char *population)
{
    if (!population[0]) return 0;
    char group[300];
    snprintf(group, sizeof group, "/spikes/%s", population);
    hid_t f = ana_h5_open(r->spikes_path);
    hid_t g = H5Gopen2(f, group, H5P_DEFAULT);
    int found = g >= 0 && olive_h5_has_attr(g, "cells");
    if (found) {
        r->cells = olive_h5_get_i64(r->spikes_path, g, group, "cells");
        if (r->cells < 0) ana_error("%s: attribute cells = %lld of %s is negative", r->spikes_path, (long long)r->cells, group);
        ana_fmt(r->cells_from, sizeof r->cells_from, "attribute cells of %s", group);
    }
    if (g >= 0) H5Gclose(g);
    H5Fclose(f);
    return found;
}

void ana_run_resolve(ana_run *r, const char *population, const ana_spike_scan *sc)
{
    if (from_population(r, population)) r->has_cells = 1;
    else if (r->has_cells) {
        r->cells = r->attr_cells;
        snprintf(r->cells_from, sizeof r->cells_from, "root attribute cells");
    }
    if (r->has_steps && r->has_dt) {
        r->duration_ms = (double)r->steps * r->dt;
        snprintf(r->duration_from, sizeof r->duration_from, "steps x dt = %lld x %g ms", (long long)r->steps, r->dt);
    }
    if (r->cells < 0 || r->duration_ms < 0) from_report(r, population);
    if (sc->count > 0 && r->cells >= 0 && !r->has_cells && sc->max_node >= r->cells) {
        /* The report covers only some of the cells (--record-cells). */
        r->cells = sc->max_node + 1;
        snprintf(r->cells_from, sizeof r->cells_from, "largest node id + 1; the report covers fewer cells");
    }
    if (r->cells < 0 && sc->count > 0) {
        r->cells = sc->max_node + 1;
        snprintf(r->cells_from, sizeof r->cells_from, "largest node id + 1; no cells attribute or report");
    }
    /* Per-cell tables are allocated from this count: keep it where the
     * allocation size cannot wrap (a spike file's 'cells' of 2^61 did). */
    if (r->cells > ((int64_t)1 << 36))
        ana_error("%s: %lld cells (%s) is too many to count (at most 2^36)", r->spikes_path, (long long)r->cells,
                  r->cells_from);
    if (r->duration_ms < 0 && sc->count > 0) {
        r->duration_ms = sc->t_max;
        snprintf(r->duration_from, sizeof r->duration_from, "last spike time; no steps/dt attributes or report");
    }
}
