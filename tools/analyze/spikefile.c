/* Reading a SONATA spike file: /spikes/<population>/timestamps (ms) and
 * /spikes/<population>/node_ids, equal lengths. Also accepted: node ids named
 * gids, and the legacy layout with both datasets directly in /spikes. */
#include "analyze.h"
#include "h5util.h"
#include "util.h"
#include <math.h>
#include <string.h>
#include <strings.h>

#define MAX_POPS 64

static void choose_population(ana_spikes *s, const char *population, char *group, size_t gsize)
{
    const char *path = s->path;
    if (!ana_h5_is_group(s->file, "/spikes"))
        ana_error("%s: group /spikes is missing (not a SONATA spike file)", path);
    static char pops[MAX_POPS][256];
    int npop = ana_h5_subgroups(path, s->file, "/spikes", pops, MAX_POPS);
    char list[1024] = "";
    for (int i = 0; i < npop && i < MAX_POPS; i++) {
        size_t l = strlen(list);
        ana_fmt(list + l, sizeof list - l, "%s%s", i ? ", " : "", pops[i]);
    }
    if (population) {
        snprintf(group, gsize, "/spikes/%s", population);
        if (!ana_h5_is_group(s->file, group))
            ana_error("%s: population '%s' not found (group %s is missing; populations: %s)", path, population,
                      group, npop ? list : "none");
        snprintf(s->population, sizeof s->population, "%s", population);
        return;
    }
    if (npop == 1) {
        snprintf(s->population, sizeof s->population, "%s", pops[0]);
        snprintf(group, gsize, "/spikes/%s", pops[0]);
        return;
    }
    if (npop == 0 && ana_h5_is_dataset(s->file, "/spikes/timestamps")) {
        s->population[0] = 0;   /* legacy SONATA layout */
        snprintf(group, gsize, "/spikes");
        return;
    }
    if (npop == 0)
        ana_error("%s: no population under /spikes (expected /spikes/<population>/timestamps and node_ids)", path);
    ana_error("%s: %d populations under /spikes (%s): choose one with --population", path, npop, list);
}

int ana_spikes_populations(const char *path, char (*names)[256], int max)
{
    hid_t f = ana_h5_open(path);
    int n = ana_h5_is_group(f, "/spikes") ? ana_h5_subgroups(path, f, "/spikes", names, max) : 0;
    H5Fclose(f);
    return n < max ? n : max;
}

/* The group attribute 'sorting': the SONATA spec's enum over uint8 (none 0,
 * by_id 1, by_time 2; libsonata writes it so), or a string (olive before
 * 0.2, and other writers). */
static void read_sorting(ana_spikes *s, hid_t g)
{
    if (!olive_h5_has_attr(g, "sorting")) return;
    hid_t a = H5Aopen(g, "sorting", H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1;
    H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    if (t >= 0) H5Tclose(t);
    if (a >= 0) H5Aclose(a);
    if (cls == H5T_STRING) {
        olive_h5_get_str_opt(s->path, g, "sorting", s->sorting, sizeof s->sorting);
        return;
    }
    if (cls != H5T_ENUM && cls != H5T_INTEGER)
        ana_error("%s: attribute 'sorting' of the spike group is neither a SONATA enum nor a string", s->path);
    static const char *const names[3] = {"none", "by_id", "by_time"};
    int64_t v = olive_sonata_sorting_read(s->path, g);
    if (v < 0 || v > 2)
        ana_error("%s: attribute 'sorting' = %lld is not a SONATA sorting (0 none, 1 by_id, 2 by_time)", s->path,
                  (long long)v);
    snprintf(s->sorting, sizeof s->sorting, "%s", names[v]);
}

void ana_spikes_open(ana_spikes *s, const char *path, const char *population)
{
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    s->file = ana_h5_open(path);
    char group[512], name[600];
    choose_population(s, population, group, sizeof group);

    snprintf(name, sizeof name, "%s/timestamps", group);
    ana_dset_open(&s->ts, s->path, s->file, name);
    snprintf(name, sizeof name, "%s/node_ids", group);
    if (!olive_h5_exists(s->file, name)) {
        char legacy[600];
        snprintf(legacy, sizeof legacy, "%s/gids", group);
        if (olive_h5_exists(s->file, legacy)) snprintf(name, sizeof name, "%s", legacy);
    }
    ana_dset_open(&s->ids, s->path, s->file, name);
    if (s->ids.cls != H5T_INTEGER)
        ana_error("%s: dataset %s must hold integers (node ids), it holds floating-point numbers", path, name);
    if (s->ts.len != s->ids.len)
        ana_error("%s: %s has %lld entries but %s has %lld (they must match, one per spike)", path, s->ts.name,
                  (long long)s->ts.len, s->ids.name, (long long)s->ids.len);
    s->n = s->ts.len;

    char units[64] = "ms";
    olive_h5_get_str_opt(path, s->ts.dset, "units", units, sizeof units);
    if (strcasecmp(units, "ms") == 0) s->to_ms = 1.0;
    else if (strcasecmp(units, "s") == 0) s->to_ms = 1000.0;
    else {
        olive_warn("%s: %s has units '%s'; reading it as ms", path, s->ts.name, units);
        s->to_ms = 1.0;
    }
    hid_t g = H5Gopen2(s->file, group, H5P_DEFAULT);
    if (g >= 0) {
        read_sorting(s, g);
        H5Gclose(g);
    }
}

void ana_spikes_read(const ana_spikes *s, int64_t off, int64_t n, double *t_ms, uint64_t *node)
{
    ana_dset_read(&s->ts, H5T_NATIVE_DOUBLE, off, n, t_ms);
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(t_ms[i]))
            ana_error("%s: %s[%lld] is %g, not a finite time", s->path, s->ts.name, (long long)(off + i), t_ms[i]);
        t_ms[i] *= s->to_ms;
    }
    if (s->ids.is_signed) {
        /* Read as int64 into the same buffer and reject negative ids. */
        int64_t *v = (int64_t *)node;
        ana_dset_read(&s->ids, H5T_NATIVE_INT64, off, n, v);
        for (int64_t i = 0; i < n; i++)
            if (v[i] < 0)
                ana_error("%s: %s[%lld] = %lld is negative, not a node id", s->path, s->ids.name,
                          (long long)(off + i), (long long)v[i]);
    } else {
        ana_dset_read(&s->ids, H5T_NATIVE_UINT64, off, n, node);
    }
    /* A file of several chunks is read in passes: each shows its progress. */
    if (s->n > ANA_SPIKE_CHUNK) {
        olive_progress("reading spikes", (double)(off + n) / (double)s->n);
        if (off + n >= s->n) olive_progress_done();
    }
}

void ana_spikes_close(ana_spikes *s)
{
    ana_dset_close(&s->ts);
    ana_dset_close(&s->ids);
    if (s->file > 0) H5Fclose(s->file);
    s->file = 0;
}
