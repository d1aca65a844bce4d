/* What a raster draws besides the spikes: the network's populations (their
 * cell ranges, from the network file: --network, else the one the run's
 * provenance names) and the stimulus (the --pulse windows of the run's
 * command line and the pulses of its --stimulus file). */
#ifndef ANA_NO_CAIRO
#include "analyze.h"
#include "plot.h"
#include "h5util.h"
#include "util.h"
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A path recorded at simulation time, relative to the directory olive-simulate
 * ran in: tried as it is, then beside the run directory (the usual layout,
 * net.h5 next to run/). Returns 0 when neither exists. */
static int find_recorded(const ana_run *run, const char *recorded, char *out, size_t n)
{
    struct stat st;
    if (!recorded[0]) return 0;
    ana_fmt(out, n, "%s", recorded);
    if (stat(out, &st) == 0) return 1;
    if (recorded[0] == '/') return 0;
    char dir[4096];
    ana_fmt(dir, sizeof dir, "%s", run->dir);
    ana_fmt(out, n, "%s/%s", dirname(dir), recorded);
    return stat(out, &st) == 0;
}

static int by_first(const void *a, const void *b)
{
    const ana_plot_pop *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

/* /cells/populations/<name> first and count of the network file path, sorted
 * by first and checked to tile the cells; 0 when it has none (InfOli). */
static int read_network_pops(const char *path, ana_plot_pop *pops, int max)
{
    hid_t f = ana_h5_open(path);
    int n = 0;
    if (ana_h5_is_group(f, "/cells/populations")) {
        char names[ANA_PLOT_MAX_POPS][256];
        n = ana_h5_subgroups(path, f, "/cells/populations", names, max);
        if (n > max) ana_error("%s: /cells/populations has %d populations; a raster shows at most %d", path, n, max);
        for (int i = 0; i < n; i++) {
            char obj[300];
            ana_fmt(obj, sizeof obj, "/cells/populations/%s", names[i]);
            hid_t g = H5Gopen2(f, obj, H5P_DEFAULT);
            if (g < 0) ana_error("%s: cannot open %s", path, obj);
            ana_fmt(pops[i].name, sizeof pops[i].name, "%s", names[i]);
            pops[i].first = olive_h5_get_i64(path, g, obj, "first");
            pops[i].count = olive_h5_get_i64(path, g, obj, "count");
            H5Gclose(g);
            if (pops[i].first < 0 || pops[i].count < 0)
                ana_error("%s: %s: first = %lld, count = %lld (must not be negative)", path, obj,
                          (long long)pops[i].first, (long long)pops[i].count);
        }
        qsort(pops, (size_t)n, sizeof *pops, by_first);
        for (int i = 0, end = 0; i < n; end = (int)(pops[i].first + pops[i].count), i++)
            if (pops[i].first != end)
                ana_error("%s: /cells/populations/%s starts at cell %lld, expected %d (the populations must tile "
                          "the cells in id order)", path, pops[i].name, (long long)pops[i].first, end);
    }
    H5Fclose(f);
    return n;
}

int ana_plot_network_pops(const ana_plot_opts *o, const ana_run *run, ana_plot_pop *pops, int max)
{
    if (o->network) return read_network_pops(o->network, pops, max);
    char recorded[4096] = "", path[8192];
    hid_t f = ana_h5_open(run->spikes_path);
    olive_h5_get_str_opt(run->spikes_path, f, "network", recorded, sizeof recorded);
    H5Fclose(f);
    if (!recorded[0]) return 0;   /* not an olive run: no populations to show */
    if (!find_recorded(run, recorded, path, sizeof path)) {
        olive_warn("%s: the network file '%s' (root attribute network) is not found; populations are not shown "
                   "(give --network NET.h5)", run->spikes_path, recorded);
        return 0;
    }
    return read_network_pops(path, pops, max);
}

/* The pulses of a stimulus file (docs/FORMAT.md): start_ms, stop_ms and the
 * optional cell ranges. */
static void read_stimulus(const char *path, ana_plot_pulse **out, int *n)
{
    hid_t f = ana_h5_open(path);
    ana_dset d[4];
    static const char *const names[4] = {"/pulses/start_ms", "/pulses/stop_ms", "/pulses/first_cell", "/pulses/last_cell"};
    int have[4];
    for (int i = 0; i < 4; i++)
        if ((have[i] = i < 2 || ana_h5_is_dataset(f, names[i]))) ana_dset_open(&d[i], path, f, names[i]);
    int64_t m = d[0].len;
    for (int i = 1; i < 4; i++)
        if (have[i] && d[i].len != m)
            ana_error("%s: %s has %lld values, %s has %lld (one per pulse)", path, names[i], (long long)d[i].len,
                      names[0], (long long)m);
    double *v = olive_malloc((size_t)(4 * m) * sizeof(double) + 8, "pulses");
    for (int i = 0; i < 4; i++) {
        if (!have[i]) continue;
        ana_dset_read(&d[i], H5T_NATIVE_DOUBLE, 0, m, v + i * m);
        ana_dset_close(&d[i]);
    }
    H5Fclose(f);
    *out = olive_realloc(*out, (size_t)(*n + m + 1) * sizeof **out, "pulses");
    for (int64_t k = 0; k < m; k++)
        (*out)[(*n)++] = (ana_plot_pulse){v[k], v[m + k], have[2] ? (int64_t)v[2 * m + k] : 0,
                                         have[3] ? (int64_t)v[3 * m + k] : -1};
    free(v);
}

/* One --pulse START:STOP:AMP[:FIRST:LAST] of the command line (AMP, maybe
 * with a unit, is not needed); 0 when it does not parse. */
static int parse_pulse(const char *s, ana_plot_pulse *p)
{
    char *end;
    p->t0 = strtod(s, &end);
    if (end == s || *end != ':') return 0;
    p->t1 = strtod(end + 1, &end);
    if (*end != ':') return 0;
    p->first = 0;
    p->last = -1;
    const char *c = strchr(end + 1, ':');
    if (c) {
        p->first = strtoll(c + 1, &end, 10);
        if (*end != ':') return 0;
        p->last = strtoll(end + 1, &end, 10);
        if (*end) return 0;
    }
    return p->t1 >= p->t0;
}

int ana_plot_pulses(const ana_run *run, ana_plot_pulse **out)
{
    /* The command line as olive-simulate recorded it: its arguments joined by
     * spaces (a pulse has no space in it). */
    hid_t f = ana_h5_open(run->spikes_path);
    char *cmd = olive_calloc(1, 1 << 16, "command line");
    olive_h5_get_str_opt(run->spikes_path, f, "command", cmd, 1 << 16);
    H5Fclose(f);
    int n = 0;
    *out = olive_malloc(sizeof **out, "pulses");
    const char *prev = "";
    for (char *save = NULL, *tok = strtok_r(cmd, " ", &save); tok; prev = tok, tok = strtok_r(NULL, " ", &save)) {
        const char *value = !strcmp(prev, "--pulse") ? tok : !strncmp(tok, "--pulse=", 8) ? tok + 8 : NULL;
        if (value) {
            *out = olive_realloc(*out, (size_t)(n + 1) * sizeof **out, "pulses");
            if (parse_pulse(value, &(*out)[n])) n++;
            else olive_warn("%s: --pulse %s of the recorded command is not START:STOP:AMP[:FIRST:LAST]; not shown",
                            run->spikes_path, value);
        }
        const char *stim = !strcmp(prev, "--stimulus") ? tok : !strncmp(tok, "--stimulus=", 11) ? tok + 11 : NULL;
        char path[8192];
        if (stim && find_recorded(run, stim, path, sizeof path)) read_stimulus(path, out, &n);
        else if (stim) olive_warn("%s: the stimulus file '%s' of the recorded command is not found; its pulses are "
                                  "not shown", run->spikes_path, stim);
    }
    free(cmd);
    return n;
}
#endif
