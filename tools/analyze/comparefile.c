/* Comparing two HDF5 files dataset by dataset, for olive-analyze compare:
 * every numeric dataset of either file, element by element as doubles;
 * floating-point ones within a tolerance, integer ones exactly. Attributes
 * (provenance: timings, command line) are not compared. */
#include "comparefile.h"
#include "h5util.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char **name;
    int n, cap;
    const char *population;   /* non-NULL: other populations' spikes and reports left out */
} name_list;

/* 1 when dataset name (no leading '/') lies under /spikes or /report in a population other than l's. */
static int other_population(const name_list *l, const char *name)
{
    if (!l->population || (strncmp(name, "spikes/", 7) && strncmp(name, "report/", 7))) return 0;
    const size_t n = strlen(l->population);
    return strncmp(name + 7, l->population, n) != 0 || name[7 + n] != '/';
}

static herr_t collect(hid_t g, const char *name, const H5L_info_t *info, void *arg)
{
    (void)info;
    name_list *l = arg;
    if (!ana_h5_is_dataset(g, name) || other_population(l, name)) return 0;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 32;
        l->name = realloc(l->name, (size_t)l->cap * sizeof *l->name);
        if (!l->name) olive_die("out of memory (dataset names)");
    }
    size_t len = strlen(name) + 2;
    l->name[l->n] = olive_malloc(len, "dataset name");
    snprintf(l->name[l->n++], len, "/%s", name);
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void list_datasets(const char *path, hid_t f, const char *population, name_list *l)
{
    memset(l, 0, sizeof *l);
    l->population = population;
    if (H5Lvisit(f, H5_INDEX_NAME, H5_ITER_INC, collect, l) < 0) ana_error("%s: cannot list its datasets", path);
    qsort(l->name, (size_t)l->n, sizeof *l->name, by_name);
}

static int has_name(const name_list *l, const char *name)
{
    return bsearch(&name, l->name, (size_t)l->n, sizeof *l->name, by_name) != NULL;
}

static void free_list(name_list *l)
{
    for (int i = 0; i < l->n; i++) free(l->name[i]);
    free(l->name);
}

/* Shape and class of a dataset; rank -1 when it is not numeric. */
static int shape(hid_t d, hsize_t *dims, H5T_class_t *cls)
{
    hid_t t = H5Dget_type(d);
    *cls = H5Tget_class(t);
    H5Tclose(t);
    hid_t sp = H5Dget_space(d);
    int rank = H5Sget_simple_extent_ndims(sp);
    if (rank > 0 && rank <= 8) H5Sget_simple_extent_dims(sp, dims, NULL);
    H5Sclose(sp);
    if (rank > 8) rank = -2;
    return (*cls == H5T_FLOAT || *cls == H5T_INTEGER) ? rank : -1;
}

/* Rows [r0, r0+nr) of d (all of it for a scalar) as doubles. */
static void read_rows(const char *file, hid_t d, const char *name, int rank, int64_t r0, int64_t nr,
                      const hsize_t *dims, double *buf)
{
    hid_t fs = H5Dget_space(d), ms;
    if (rank == 0) {
        ms = H5Screate(H5S_SCALAR);
    } else {
        hsize_t off[8] = {0}, cnt[8];
        for (int i = 0; i < rank; i++) cnt[i] = dims[i];
        off[0] = (hsize_t)r0;
        cnt[0] = (hsize_t)nr;
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL);
        ms = H5Screate_simple(rank, cnt, NULL);
    }
    herr_t st = H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, buf);
    H5Sclose(ms);
    H5Sclose(fs);
    if (st < 0) ana_error("%s: cannot read dataset %s", file, name);
}

/* Compare one dataset present in both files; fills res. */
static void compare_dataset(const ana_cmp_opts *o, const char *fa, hid_t a, const char *fb, hid_t b,
                            const char *name, ana_cmp_result *res)
{
    memset(res, 0, sizeof *res);
    ana_fmt(res->dataset, sizeof res->dataset, "%s", name);
    hid_t da = H5Dopen2(a, name, H5P_DEFAULT), db = H5Dopen2(b, name, H5P_DEFAULT);
    if (da < 0) ana_error("%s: cannot open dataset %s", fa, name);
    if (db < 0) ana_error("%s: cannot open dataset %s", fb, name);
    hsize_t dims_a[8] = {0}, dims_b[8] = {0};
    H5T_class_t ca, cb;
    int ra = shape(da, dims_a, &ca), rb = shape(db, dims_b, &cb);
    if (ra < 0 || rb < 0) {
        res->skipped = 1;
        ana_fmt(res->message, sizeof res->message, "not compared (not numeric)");
        H5Dclose(da);
        H5Dclose(db);
        return;
    }
    int same = ra == rb;
    for (int i = 0; same && i < ra; i++) same = dims_a[i] == dims_b[i];
    if (!same) {
        char sa[128] = "", sb[128] = "";
        for (int i = 0; i < ra; i++) ana_fmt(sa + strlen(sa), sizeof sa - strlen(sa), "%s%llu", i ? "x" : "", (unsigned long long)dims_a[i]);
        for (int i = 0; i < rb; i++) ana_fmt(sb + strlen(sb), sizeof sb - strlen(sb), "%s%llu", i ? "x" : "", (unsigned long long)dims_b[i]);
        res->different = 1;
        ana_fmt(res->message, sizeof res->message, "shapes differ: [%s] in A, [%s] in B", sa, sb);
        H5Dclose(da);
        H5Dclose(db);
        return;
    }
    double tol = (ca == H5T_FLOAT || cb == H5T_FLOAT) ? o->tolerance : 0;
    int64_t rows = ra == 0 ? 1 : (int64_t)dims_a[0], rowlen = 1;
    for (int i = 1; i < ra; i++) rowlen *= (int64_t)dims_a[i];
    int64_t nb = ((int64_t)1 << 22) / (rowlen > 0 ? rowlen : 1);
    if (nb < 1) nb = 1;
    double *va = olive_malloc((size_t)(nb * rowlen) * sizeof(double) + 8, "values");
    double *vb = olive_malloc((size_t)(nb * rowlen) * sizeof(double) + 8, "values");
    res->rank = ra;
    res->rowlen = rowlen;
    for (int64_t r0 = 0; r0 < rows && rowlen > 0; r0 += nb) {
        int64_t nr = rows - r0 < nb ? rows - r0 : nb;
        read_rows(fa, da, name, ra, r0, nr, dims_a, va);
        read_rows(fb, db, name, rb, r0, nr, dims_b, vb);
        for (int64_t i = 0; i < nr * rowlen; i++) {
            double x = va[i], y = vb[i], d;
            if (x == y || (isnan(x) && isnan(y))) d = 0;
            else d = isnan(x) || isnan(y) ? INFINITY : fabs(x - y);
            if (isnan(d)) d = INFINITY;   /* inf - inf */
            res->values++;
            if (d > tol) res->differing++;
            if (d > res->max_diff) {
                res->max_diff = d;
                res->index = r0 * rowlen + i;
                res->a = x;
                res->b = y;
            }
        }
        if (rows > nb) olive_progress("comparing", (double)(r0 + nr) / (double)rows);
    }
    if (rows > nb) olive_progress_done();
    res->different = res->differing > 0;
    free(va);
    free(vb);
    H5Dclose(da);
    H5Dclose(db);
}

int ana_compare_files(const ana_cmp_opts *o, const char *fa, const char *fb, const char *label,
                      void (*report)(const ana_cmp_opts *o, const char *label, const char *fa, hid_t a,
                                     const ana_cmp_result *res, void *arg),
                      void *arg)
{
    hid_t a = ana_h5_open(fa), b = ana_h5_open(fb);
    name_list la, lb;
    list_datasets(fa, a, o->population, &la);
    list_datasets(fb, b, o->population, &lb);
    int different = 0;
    ana_cmp_result res;
    for (int i = 0; i < la.n; i++) {
        if (!has_name(&lb, la.name[i])) {
            memset(&res, 0, sizeof res);
            ana_fmt(res.dataset, sizeof res.dataset, "%s", la.name[i]);
            res.different = 1;
            ana_fmt(res.message, sizeof res.message, "only in A");
        } else {
            compare_dataset(o, fa, a, fb, b, la.name[i], &res);
        }
        different |= res.different;
        report(o, label, fa, a, &res, arg);
    }
    for (int i = 0; i < lb.n; i++) {
        if (has_name(&la, lb.name[i])) continue;
        memset(&res, 0, sizeof res);
        ana_fmt(res.dataset, sizeof res.dataset, "%s", lb.name[i]);
        res.different = 1;
        ana_fmt(res.message, sizeof res.message, "only in B");
        different = 1;
        report(o, label, fa, a, &res, arg);
    }
    free_list(&la);
    free_list(&lb);
    H5Fclose(a);
    H5Fclose(b);
    return different;
}
