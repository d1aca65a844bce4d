/* Reading a SONATA report: /report/<population>/data [frames, n] (any float
 * or integer type), mapping/node_ids [n] and mapping/time [3] = start, stop,
 * step. Every fault dies (exit 2) naming the file and the dataset. */
#include "analyze.h"
#include "h5util.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

void ana_report_path(char *out, size_t n, const char *arg, const char *var)
{
    struct stat st;
    if (stat(arg, &st) != 0) ana_error("%s: no such file or directory", arg);
    if (S_ISDIR(st.st_mode)) {
        ana_fmt(out, n, "%s/%s.h5", arg, var);
        if (stat(out, &st) != 0)
            ana_error("%s: no such file (no report of '%s' in %s; record it with olive-simulate --record %s)", out,
                      var, arg, var);
    } else {
        ana_fmt(out, n, "%s", arg);
    }
}

const char *ana_default_variable(const char *arg, const char *infoli_var)
{
    char a[4200], b[4200];
    struct stat st;
    ana_fmt(a, sizeof a, "%s/%s.h5", arg, infoli_var);
    ana_fmt(b, sizeof b, "%s/v.h5", arg);
    /* a spiking network's run (lif_cuba, lif_coba) reports v */
    if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode) && stat(a, &st) != 0 && stat(b, &st) == 0) return "v";
    return infoli_var;
}

static void choose_population(ana_report *r, const char *population, char *group, size_t gsize)
{
    if (!ana_h5_is_group(r->file, "/report"))
        ana_error("%s: group /report is missing (not a SONATA report)", r->path);
    static char pops[64][256];
    int n = ana_h5_subgroups(r->path, r->file, "/report", pops, 64);
    char list[1024] = "";
    for (int i = 0; i < n && i < 64; i++) ana_fmt(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", pops[i]);
    if (population) {
        ana_fmt(group, gsize, "/report/%s", population);
        if (!ana_h5_is_group(r->file, group))
            ana_error("%s: population '%s' not found (group %s is missing; populations: %s)", r->path, population, group,
                      n ? list : "none");
        ana_fmt(r->population, sizeof r->population, "%s", population);
        return;
    }
    if (n == 0) ana_error("%s: no population under /report (expected /report/<population>/data)", r->path);
    if (n > 1) ana_error("%s: %d populations under /report (%s): choose one with --population", r->path, n, list);
    ana_fmt(r->population, sizeof r->population, "%s", pops[0]);
    ana_fmt(group, gsize, "/report/%s", pops[0]);
}

/* A compartment report's columns are compartments: cell i's are
 * index_pointers[i] .. index_pointers[i+1]-1. nodes (one per cell) becomes
 * one per column, the cell of each compartment. */
static void expand_compartments(ana_report *r, const char *group, int64_t cells)
{
    char name[700];
    ana_fmt(name, sizeof name, "%s/mapping/index_pointers", group);
    if (!ana_h5_is_dataset(r->file, name)) ana_error("%s: dataset %s is missing (not a compartment report)", r->path, name);
    ana_dset d;
    ana_dset_open(&d, r->path, r->file, name);
    if (d.cls != H5T_INTEGER) ana_error("%s: dataset %s must hold integers", r->path, name);
    if (d.len != cells + 1)
        ana_error("%s: %s has %lld entries, expected %lld (one more than mapping/node_ids)", r->path, name,
                  (long long)d.len, (long long)(cells + 1));
    int64_t *ptr = olive_malloc((size_t)(cells + 1) * sizeof(int64_t), "index pointers");
    ana_dset_read(&d, H5T_NATIVE_INT64, 0, cells + 1, ptr);
    ana_dset_close(&d);
    if (ptr[0] != 0 || ptr[cells] != r->n)
        ana_error("%s: %s runs from %lld to %lld, expected 0 to %lld (the columns of %s)", r->path, name,
                  (long long)ptr[0], (long long)ptr[cells], (long long)r->n, r->name);
    uint64_t *per_column = olive_malloc((size_t)r->n * sizeof(uint64_t) + 8, "node ids");
    for (int64_t i = 0; i < cells; i++) {
        if (ptr[i + 1] < ptr[i])
            ana_error("%s: %s[%lld] = %lld is below the entry before it", r->path, name, (long long)(i + 1),
                      (long long)ptr[i + 1]);
        for (int64_t j = ptr[i]; j < ptr[i + 1]; j++) per_column[j] = r->nodes[i];
    }
    free(ptr);
    free(r->nodes);
    r->nodes = per_column;
}

void ana_report_open(ana_report *r, const char *path, const char *population)
{
    ana_report_open_as(r, path, population, 0);
}

void ana_report_open_as(ana_report *r, const char *path, const char *population, int compartments)
{
    memset(r, 0, sizeof *r);
    ana_fmt(r->path, sizeof r->path, "%s", path);
    r->file = ana_h5_open(path);
    char group[512], name[700];
    choose_population(r, population, group, sizeof group);

    ana_fmt(r->name, sizeof r->name, "%s/data", group);
    if (!ana_h5_is_dataset(r->file, r->name)) ana_error("%s: dataset %s is missing", path, r->name);
    r->data = H5Dopen2(r->file, r->name, H5P_DEFAULT);
    if (r->data < 0) ana_error("%s: cannot open dataset %s", path, r->name);
    hid_t sp = H5Dget_space(r->data);
    int rank = H5Sget_simple_extent_ndims(sp);
    hsize_t dims[2] = {0, 0};
    if (rank == 2) H5Sget_simple_extent_dims(sp, dims, NULL);
    H5Sclose(sp);
    if (rank != 2) ana_error("%s: dataset %s must be 2-D [frames, cells] (it has rank %d)", path, r->name, rank);
    hid_t t = H5Dget_type(r->data);
    H5T_class_t cls = H5Tget_class(t);
    H5Tclose(t);
    if (cls != H5T_FLOAT && cls != H5T_INTEGER) ana_error("%s: dataset %s must be numeric", path, r->name);
    r->frames = (int64_t)dims[0];
    r->n = (int64_t)dims[1];
    olive_h5_get_str_opt(path, r->data, "units", r->units, sizeof r->units);

    ana_dset d;
    ana_fmt(name, sizeof name, "%s/mapping/node_ids", group);
    ana_dset_open(&d, path, r->file, name);
    if (d.cls != H5T_INTEGER) ana_error("%s: dataset %s must hold integers (node ids)", path, name);
    if (d.len != r->n && !compartments)
        ana_error("%s: %s has %lld entries but %s has %lld columns (one column per cell is supported)", path, name,
                  (long long)d.len, r->name, (long long)r->n);
    const int64_t cells = d.len;
    r->nodes = olive_malloc((size_t)cells * sizeof(uint64_t) + 8, "node ids");
    if (d.is_signed) {
        ana_dset_read(&d, H5T_NATIVE_INT64, 0, cells, r->nodes);
        for (int64_t i = 0; i < cells; i++)
            if ((int64_t)r->nodes[i] < 0)
                ana_error("%s: %s[%lld] = %lld is negative, not a node id", path, name, (long long)i,
                          (long long)(int64_t)r->nodes[i]);
    } else {
        ana_dset_read(&d, H5T_NATIVE_UINT64, 0, cells, r->nodes);
    }
    ana_dset_close(&d);
    if (compartments) expand_compartments(r, group, cells);

    ana_fmt(name, sizeof name, "%s/mapping/time", group);
    ana_dset_open(&d, path, r->file, name);
    if (d.len != 3) ana_error("%s: %s has %lld values, expected 3 (start, stop, step)", path, name, (long long)d.len);
    double tm[3];
    ana_dset_read(&d, H5T_NATIVE_DOUBLE, 0, 3, tm);
    char units[64] = "ms";
    olive_h5_get_str_opt(path, d.dset, "units", units, sizeof units);
    ana_dset_close(&d);
    double scale = strcasecmp(units, "s") == 0 ? 1000.0 : 1.0;
    if (!isfinite(tm[0]) || !isfinite(tm[1]) || !isfinite(tm[2]) || !(tm[2] > 0))
        ana_error("%s: %s = (%g, %g, %g) is not (start, stop, step) with a positive step", path, name, tm[0], tm[1],
                  tm[2]);
    r->start = tm[0] * scale;
    r->stop = tm[1] * scale;
    r->step = tm[2] * scale;
}

double ana_report_time(const ana_report *r, int64_t k)
{
    if (r->start == r->step) return (double)(k + 1) * r->step;
    return r->start + (double)k * r->step;
}

void ana_report_read(const ana_report *r, int64_t k0, int64_t nk, int64_t c0, int64_t nc, double *buf)
{
    if (nk <= 0 || nc <= 0) return;
    hid_t fs = H5Dget_space(r->data);
    hsize_t off[2] = {(hsize_t)k0, (hsize_t)c0}, cnt[2] = {(hsize_t)nk, (hsize_t)nc};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL);
    hid_t ms = H5Screate_simple(2, cnt, NULL);
    herr_t st = H5Dread(r->data, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, buf);
    H5Sclose(ms);
    H5Sclose(fs);
    if (st < 0) ana_error("%s: cannot read frames %lld..%lld of dataset %s (corrupt data?)", r->path, (long long)k0,
                          (long long)(k0 + nk - 1), r->name);
}

int64_t ana_report_block(const ana_report *r, int64_t nc)
{
    (void)r;
    int64_t b = ((int64_t)1 << 22) / (nc > 0 ? nc : 1);
    return b < 1 ? 1 : b;
}

void ana_report_window(const ana_report *r, double t0, double t1, int64_t *k0, int64_t *k1)
{
    int64_t a = 0, b = r->frames;
    while (a < b && ana_report_time(r, a) < t0) a++;
    while (b > a && ana_report_time(r, b - 1) > t1) b--;
    *k0 = a;
    *k1 = b;
}

int64_t ana_report_columns(const ana_report *r, int64_t a, int64_t b, int64_t **cols)
{
    int64_t n = 0;
    *cols = olive_malloc((size_t)r->n * sizeof(int64_t) + 8, "columns");
    for (int64_t c = 0; c < r->n; c++)
        if (r->nodes[c] >= (uint64_t)a && r->nodes[c] < (uint64_t)b) (*cols)[n++] = c;
    return n;
}

void ana_report_each_frame(const ana_report *r, const int64_t *cols, int64_t nc, int64_t k0, int64_t k1,
                       void (*fn)(int64_t k, const double *row, void *arg), void *arg)
{
    int64_t lo = cols[0], hi = cols[0];
    for (int64_t i = 1; i < nc; i++) {
        if (cols[i] < lo) lo = cols[i];
        if (cols[i] > hi) hi = cols[i];
    }
    int64_t span = hi - lo + 1, nb = ana_report_block(r, span);
    double *buf = olive_malloc((size_t)(nb * span) * sizeof(double) + 8, "report block");
    double *row = olive_malloc((size_t)nc * sizeof(double) + 8, "frame");
    for (int64_t b = k0; b < k1; b += nb) {
        int64_t nk = k1 - b < nb ? k1 - b : nb;
        ana_report_read(r, b, nk, lo, span, buf);
        for (int64_t k = 0; k < nk; k++) {
            for (int64_t i = 0; i < nc; i++) row[i] = buf[k * span + cols[i] - lo];
            fn(b + k, row, arg);
        }
    }
    free(buf);
    free(row);
}

void ana_report_close(ana_report *r)
{
    free(r->nodes);
    r->nodes = NULL;
    if (r->data > 0) H5Dclose(r->data);
    if (r->file > 0) H5Fclose(r->file);
    r->data = r->file = 0;
}
