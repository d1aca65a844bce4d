/* Checked reading of HDF5 files for olive-analyze: every fault dies with
 * exit status 2 and a message naming the file and the dataset. */
#include "analyze.h"
#include "h5util.h"
#include "util.h"
#include <string.h>
#include <sys/stat.h>

hid_t ana_h5_open(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) ana_error("%s: no such file", path);
    if (S_ISDIR(st.st_mode)) ana_error("%s: is a directory, expected an HDF5 file", path);
    /* A FIFO would block open() until a writer comes. */
    if (!S_ISREG(st.st_mode)) ana_error("%s: is not a regular file (a FIFO, socket or device)", path);
    if (H5Fis_hdf5(path) <= 0) ana_error("%s: not an HDF5 file", path);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) ana_error("%s: cannot open as HDF5 (corrupt or unreadable)", path);
    return f;
}

/* H5I_GROUP, H5I_DATASET, ... of the object at name, or -1 when missing.
 * (H5Oopen + H5Iget_type works alike on HDF5 1.10 and 1.12+.) */
static int object_type(hid_t loc, const char *name)
{
    if (!olive_h5_exists(loc, name)) return -1;
    hid_t o = H5Oopen(loc, name, H5P_DEFAULT);
    if (o < 0) return -1;
    int type = (int)H5Iget_type(o);
    H5Oclose(o);
    return type;
}

int ana_h5_is_group(hid_t loc, const char *name) { return object_type(loc, name) == H5I_GROUP; }
int ana_h5_is_dataset(hid_t loc, const char *name) { return object_type(loc, name) == H5I_DATASET; }

void ana_dset_open(ana_dset *d, const char *file, hid_t loc, const char *name)
{
    memset(d, 0, sizeof *d);
    d->file = file;
    snprintf(d->name, sizeof d->name, "%s", name);
    int type = object_type(loc, name);
    if (type < 0) ana_error("%s: dataset %s is missing", file, name);
    if (type != H5I_DATASET) ana_error("%s: %s is not a dataset", file, name);
    d->dset = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d->dset < 0) ana_error("%s: cannot open dataset %s", file, name);
    hid_t sp = H5Dget_space(d->dset);
    int rank = H5Sget_simple_extent_ndims(sp);
    hsize_t dim = 0;
    if (rank == 1) H5Sget_simple_extent_dims(sp, &dim, NULL);
    H5Sclose(sp);
    if (rank != 1) ana_error("%s: dataset %s must be 1-D (it has rank %d)", file, name, rank);
    d->len = (int64_t)dim;
    hid_t t = H5Dget_type(d->dset);
    d->cls = H5Tget_class(t);
    d->size = H5Tget_size(t);
    d->is_signed = d->cls == H5T_INTEGER && H5Tget_sign(t) == H5T_SGN_2;
    H5Tclose(t);
    if (d->cls != H5T_INTEGER && d->cls != H5T_FLOAT)
        ana_error("%s: dataset %s must be numeric (integer or floating point)", file, name);
}

void ana_dset_read(const ana_dset *d, hid_t mtype, int64_t off, int64_t n, void *buf)
{
    if (n <= 0) return;
    if (off < 0 || off + n > d->len)
        ana_error("%s: internal: read [%lld, %lld) outside dataset %s of %lld", d->file, (long long)off,
                  (long long)(off + n), d->name, (long long)d->len);
    char err[256];
    if (olive_h5_read_checked(d->dset, mtype, off, n, NULL, buf, err, sizeof err) < 0)
        ana_error("%s: dataset %s%s%s", d->file, d->name, err[0] == '[' ? "" : " ", err);
}

void ana_dset_close(ana_dset *d)
{
    if (d->dset > 0) H5Dclose(d->dset);
    d->dset = 0;
}

int ana_h5_subgroups(const char *file, hid_t loc, const char *name, char (*out)[256], int max)
{
    hid_t g = H5Gopen2(loc, name, H5P_DEFAULT);
    if (g < 0) ana_error("%s: cannot open group %s", file, name);
    H5G_info_t info;
    if (H5Gget_info(g, &info) < 0) ana_error("%s: cannot list group %s", file, name);
    int n = 0;
    for (hsize_t i = 0; i < info.nlinks; i++) {
        char child[256];
        ssize_t len = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, child, sizeof child, H5P_DEFAULT);
        if (len < 0) ana_error("%s: cannot list group %s", file, name);
        if ((size_t)len >= sizeof child || object_type(g, child) != H5I_GROUP) continue;
        if (n < max) memcpy(out[n], child, (size_t)len + 1);
        n++;
    }
    H5Gclose(g);
    return n;
}
