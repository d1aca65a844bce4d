#include "h5util.h"
#include "util.h"
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void olive_h5_quiet(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

/* 0 by default: pip's libsonata and h5py-less readers often come without
 * the deflate filter, and SONATA output must open everywhere. */
int olive_h5_deflate;

void olive_h5_fail(const char *file, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    olive_die("%s: %s", file, msg);
}

/* The POSIX descriptor HDF5 reads the file of object o through (the sec2
 * driver, olive's default), if the file has no user block (H5Dget_offset
 * then counts from its first byte); -1 otherwise. Reading through HDF5's own
 * descriptor, not the file's name, cannot pick up another file renamed over
 * the name meanwhile. Valid while o is open. */
static int direct_fd(hid_t o)
{
    int fd = -1;
    hid_t fid = H5Iget_file_id(o);
    if (fid < 0) return -1;
    hid_t fcpl = H5Fget_create_plist(fid), fapl = H5Fget_access_plist(fid);
    hsize_t ublock = 1;
    void *handle = NULL;
    if (fcpl >= 0 && fapl >= 0 && H5Pget_driver(fapl) == H5FD_SEC2 && H5Pget_userblock(fcpl, &ublock) >= 0 &&
        ublock == 0 && H5Fget_vfd_handle(fid, fapl, &handle) >= 0 && handle)
        fd = *(int *)handle;
    if (fapl >= 0) H5Pclose(fapl);
    if (fcpl >= 0) H5Pclose(fcpl);
    H5Fclose(fid);
    return fd;
}

/* pread bytes [0, bytes) of data from file offset base, 8 MiB pieces on
 * every OpenMP thread (reads of one file run in parallel in the kernel;
 * writes would not: they serialise on the inode's lock). Returns 0 on any
 * failure. */
static int pread_parallel(int fd, void *data, size_t bytes, off_t base)
{
    const size_t piece = (size_t)8 << 20;
    const int64_t npieces = (int64_t)((bytes + piece - 1) / piece);
    int bad = 0;
#pragma omp parallel for schedule(dynamic, 4)
    for (int64_t k = 0; k < npieces; k++) {
        size_t at = (size_t)k * piece, len = bytes - at < piece ? bytes - at : piece;
        while (len > 0) {
            ssize_t got = pread(fd, (char *)data + at, len, base + (off_t)at);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) {
#pragma omp atomic write
                bad = 1;
                break;
            }
            at += (size_t)got;
            len -= (size_t)got;
        }
    }
    return !bad;
}

hid_t olive_h5_open_read(const char *path)
{
    olive_check_regular_file(path);
    htri_t is = H5Fis_hdf5(path);
    if (is <= 0) olive_die("%s: not an HDF5 file", path);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) olive_die("%s: cannot open as HDF5", path);
    return f;
}

void olive_h5_close(const char *file, hid_t id, const char *what)
{
    if (id == H5P_DEFAULT) return;
    herr_t st;
    switch (H5Iget_type(id)) {
    case H5I_FILE: st = H5Fclose(id); break;
    case H5I_GROUP: st = H5Gclose(id); break;
    case H5I_DATASET: st = H5Dclose(id); break;
    case H5I_ATTR: st = H5Aclose(id); break;
    case H5I_DATASPACE: st = H5Sclose(id); break;
    case H5I_DATATYPE: st = H5Tclose(id); break;
    case H5I_GENPROP_LST: st = H5Pclose(id); break;
    default: st = -1;
    }
    /* A dataset's last small writes wait in HDF5's sieve buffer and reach
     * the disk only at its close: a full disk shows here first. */
    if (st < 0) olive_h5_fail(file, "closing %s failed (disk full or I/O error)", what);
}

void olive_h5_close_file(const char *file, hid_t f)
{
    ssize_t open_objs = H5Fget_obj_count(f, H5F_OBJ_DATASET | H5F_OBJ_GROUP | H5F_OBJ_DATATYPE | H5F_OBJ_ATTR);
    if (open_objs != 0)
        olive_h5_fail(file, "internal: %lld objects still open when closing the file", (long long)open_objs);
    if (H5Fflush(f, H5F_SCOPE_LOCAL) < 0) olive_h5_fail(file, "writing the file failed (disk full or I/O error)");
    olive_h5_close(file, f, "the file");
}

/* File access of every file olive writes: H5F_CLOSE_SEMI makes H5Fclose fail
 * while an object is still open, where the default (weak) close reports
 * success and defers the real close, and its write errors, to the exit. */
static hid_t write_fapl(const char *path, MPI_Comm comm, int parallel)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    /* A command line past 60 kB (thousands of --param options, a sweep's)
     * does not fit the 64 KiB attribute header of HDF5's earliest format, in
     * which olive writes its files: such a run writes HDF5 1.8's format,
     * whose dense attribute storage takes it (every HDF5 since 2008 reads it). */
    const int long_provenance = strlen(olive_cmdline()) > 60000;
    if (fapl < 0 || H5Pset_fclose_degree(fapl, H5F_CLOSE_SEMI) < 0 ||
        (long_provenance && H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0) ||
        (parallel && H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0))
        olive_h5_fail(path, "cannot set up the file access property list");
    return fapl;
}

static hid_t create_with(const char *path, MPI_Comm comm, int parallel)
{
    hid_t fapl = write_fapl(path, comm, parallel);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    olive_h5_close(path, fapl, "the file access property list");
    if (f < 0) olive_die("%s: cannot create%s (disk full, or no permission?)", path, parallel ? " (parallel HDF5)" : "");
    return f;
}

hid_t olive_h5_create(const char *path) { return create_with(path, MPI_COMM_SELF, 0); }

hid_t olive_h5_create_par(const char *path, MPI_Comm comm)
{
    int size;
    if (MPI_Comm_size(comm, &size) != MPI_SUCCESS) olive_die("%s: MPI_Comm_size failed", path);
    return create_with(path, comm, size > 1);
}

hid_t olive_h5_xfer(MPI_Comm comm)
{
    int size;
    if (MPI_Comm_size(comm, &size) != MPI_SUCCESS) olive_die("MPI_Comm_size failed");
    if (size == 1) return H5P_DEFAULT;
    hid_t x = H5Pcreate(H5P_DATASET_XFER);
    if (x < 0 || H5Pset_dxpl_mpio(x, H5FD_MPIO_COLLECTIVE) < 0)
        olive_die("cannot set up a collective transfer property list");
    return x;
}

int olive_h5_exists(hid_t loc, const char *name)
{
    /* H5Lexists fails on a missing intermediate group: walk the path. */
    char buf[512];
    snprintf(buf, sizeof buf, "%s", name);
    for (char *p = buf; ; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (buf[0] && H5Lexists(loc, buf, H5P_DEFAULT) <= 0) return 0;
            if (!c) break;
            *p = c;
        }
    }
    return 1;
}

hid_t olive_h5_group(const char *file, hid_t loc, const char *name)
{
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    if (lcpl < 0 || H5Pset_create_intermediate_group(lcpl, 1) < 0)
        olive_h5_fail(file, "cannot set up the creation of group %s", name);
    hid_t g = H5Gcreate2(loc, name, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    olive_h5_close(file, lcpl, "a link creation property list");
    if (g < 0) olive_h5_fail(file, "cannot create group %s", name);
    return g;
}

static void write_attr(const char *file, hid_t obj, const char *name, hid_t type, int n, const void *v)
{
    hsize_t dim = (hsize_t)n;
    hid_t space = n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &dim, NULL);
    if (space < 0) olive_h5_fail(file, "cannot make the dataspace of attribute %s", name);
    htri_t there = H5Aexists(obj, name);
    if (there < 0 || (there > 0 && H5Adelete(obj, name) < 0)) olive_h5_fail(file, "cannot replace attribute %s", name);
    hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0 || H5Awrite(a, type, v) < 0)
        olive_h5_fail(file, "cannot write attribute %s (%d value%s, %zu bytes a value: HDF5 refused it, or the disk is full)",
                      name, n ? n : 1, n > 1 ? "s" : "", H5Tget_size(type));
    olive_h5_close(file, a, name);
    olive_h5_close(file, space, "an attribute dataspace");
}

void olive_h5_attr_str(const char *file, hid_t obj, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0 || H5Tset_size(t, strlen(value) + 1) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0)
        olive_h5_fail(file, "cannot make the string type of attribute %s", name);
    write_attr(file, obj, name, t, 0, value);
    olive_h5_close(file, t, "a string type");
}

void olive_h5_attr_i64(const char *file, hid_t obj, const char *name, int64_t value)
{ write_attr(file, obj, name, H5T_NATIVE_INT64, 0, &value); }
void olive_h5_attr_f64(const char *file, hid_t obj, const char *name, double value)
{ write_attr(file, obj, name, H5T_NATIVE_DOUBLE, 0, &value); }
void olive_h5_attr_i64v(const char *file, hid_t obj, const char *name, const int64_t *v, int n)
{ write_attr(file, obj, name, H5T_NATIVE_INT64, n, v); }
void olive_h5_attr_f64v(const char *file, hid_t obj, const char *name, const double *v, int n)
{ write_attr(file, obj, name, H5T_NATIVE_DOUBLE, n, v); }

/* An attribute HDF5 cannot even look up (a damaged header) counts as there,
 * so that reading it names the fault instead of a default standing in. */
int olive_h5_has_attr(hid_t obj, const char *name) { return H5Aexists(obj, name) != 0; }

static int check_int_range(const void *wide, int wsigned, int64_t n, hid_t mtype, int64_t off, const hsize_t *pts,
                           char *err, size_t errlen);
static const char *type_fault(hid_t ft, hid_t mtype);
static int int_fits(hid_t ft, hid_t mtype);
enum { OLIVE_H5_ATTR_MAX = 16 };

/* Open attribute name of obj, dying when it is missing or unreadable. */
static hid_t open_attr(const char *file, hid_t obj, const char *objname, const char *name)
{
    const htri_t there = H5Aexists(obj, name);
    if (there == 0) olive_h5_fail(file, "%s: attribute '%s' is missing", objname, name);
    hid_t a = there > 0 ? H5Aopen(obj, name, H5P_DEFAULT) : -1;
    if (a < 0) olive_h5_fail(file, "%s: attribute '%s' cannot be read (damaged attribute header?)", objname, name);
    return a;
}

/* Read a numeric attribute with n elements (n = 1 accepts a scalar). */
static void read_attr(const char *file, hid_t obj, const char *objname, const char *name, hid_t mtype, int n, void *v)
{
    hid_t a = open_attr(file, obj, objname, name);
    hid_t sp = H5Aget_space(a);
    hssize_t npts = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    hid_t ft = H5Aget_type(a);
    if (npts != n) olive_h5_fail(file, "%s: attribute '%s' has %lld values, expected %d", objname, name, (long long)npts, n);
    if (ft < 0) olive_h5_fail(file, "%s: attribute '%s': cannot read its type (damaged?)", objname, name);
    /* HDF5 would truncate a float into an integer (bits 8.9 -> 8, steps
     * 100.7 -> 100): an integer attribute must be stored as one. */
    const char *bad = type_fault(ft, mtype);
    if (bad) olive_h5_fail(file, "%s: attribute '%s' %s", objname, name, bad);
    char err[160];
    if (H5Tget_class(mtype) == H5T_INTEGER && !int_fits(ft, mtype)) {
        /* HDF5 would clamp a uint64 above INT64_MAX: read it as stored and check */
        uint64_t u[OLIVE_H5_ATTR_MAX];
        if (n > OLIVE_H5_ATTR_MAX) olive_h5_fail(file, "internal: attribute '%s' of %d values", name, n);
        if (H5Aread(a, H5T_NATIVE_UINT64, u) < 0) olive_h5_fail(file, "%s: cannot read attribute '%s'", objname, name);
        if (check_int_range(u, 0, n, mtype, 0, NULL, err, sizeof err) < 0)
            olive_h5_fail(file, "%s: attribute '%s'%s", objname, name, err);
    }
    if (H5Aread(a, mtype, v) < 0) olive_h5_fail(file, "%s: cannot read attribute '%s'", objname, name);
    H5Tclose(ft);
    H5Sclose(sp);
    H5Aclose(a);
}

int64_t olive_h5_get_i64(const char *file, hid_t obj, const char *objname, const char *name)
{ int64_t v; read_attr(file, obj, objname, name, H5T_NATIVE_INT64, 1, &v); return v; }
double olive_h5_get_f64(const char *file, hid_t obj, const char *objname, const char *name)
{ double v; read_attr(file, obj, objname, name, H5T_NATIVE_DOUBLE, 1, &v); return v; }
void olive_h5_get_i64v(const char *file, hid_t obj, const char *objname, const char *name, int64_t *v, int n)
{ read_attr(file, obj, objname, name, H5T_NATIVE_INT64, n, v); }

void olive_h5_get_f64v(const char *file, hid_t obj, const char *objname, const char *name, double *v, int n)
{ read_attr(file, obj, objname, name, H5T_NATIVE_DOUBLE, n, v); }

int olive_h5_get_str_opt(const char *file, hid_t obj, const char *name, char *buf, size_t n)
{
    const htri_t there = H5Aexists(obj, name);
    if (there == 0) return 0;
    hid_t a = there > 0 ? H5Aopen(obj, name, H5P_DEFAULT) : -1;
    if (a < 0) olive_h5_fail(file, "attribute '%s' cannot be read (damaged attribute header?)", name);
    hid_t ft = H5Aget_type(a);
    if (ft < 0 || H5Tget_class(ft) != H5T_STRING) olive_h5_fail(file, "attribute '%s' is not a string", name);
    /* a damaged header may declare gigabytes; olive's strings are short */
    if (H5Tis_variable_str(ft) <= 0 && H5Tget_size(ft) > (1u << 24))
        olive_h5_fail(file, "attribute '%s': a string of %zu bytes (damaged?)", name, H5Tget_size(ft));
    int ok;
    if (H5Tis_variable_str(ft) > 0) {
        char *s = NULL;
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, H5T_VARIABLE);
        H5Tset_cset(mt, H5Tget_cset(ft)); /* h5py writes UTF-8 */
        ok = H5Aread(a, mt, &s) >= 0;
        if (ok) { snprintf(buf, n, "%s", s ? s : ""); H5free_memory(s); }
        H5Tclose(mt);
    } else {
        /* One byte more than stored: a NULLTERM memory type of the stored
         * size would give up the last character of a string stored without
         * a terminator (NULLPAD, SPACEPAD, or just full: 'olive-networ'). */
        size_t sz = H5Tget_size(ft);
        char *tmp = olive_calloc(sz + 2, 1, "attribute");
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, sz + 1);
        H5Tset_strpad(mt, H5T_STR_NULLTERM);
        H5Tset_cset(mt, H5Tget_cset(ft));
        ok = H5Aread(a, mt, tmp) >= 0;
        tmp[sz + 1] = 0;
        if (ok) snprintf(buf, n, "%s", tmp);
        free(tmp);
        H5Tclose(mt);
    }
    H5Tclose(ft);
    H5Aclose(a);
    if (!ok) olive_h5_fail(file, "cannot read attribute '%s'", name);
    return 1;
}

hid_t olive_h5_dset1(const char *file, hid_t loc, const char *name, hid_t ftype, int64_t n, int64_t chunk)
{
    hsize_t dim = (hsize_t)n;
    hid_t space = H5Screate_simple(1, &dim, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (space < 0 || dcpl < 0) olive_h5_fail(file, "cannot set up dataset %s", name);
    if (chunk > 0 && n > 0) {
        hsize_t c = (hsize_t)(chunk < n ? chunk : n);
        if (H5Pset_chunk(dcpl, 1, &c) < 0 || (olive_h5_deflate > 0 && H5Pset_deflate(dcpl, (unsigned)olive_h5_deflate) < 0))
            olive_h5_fail(file, "cannot set up the chunks of dataset %s", name);
    }
    hid_t d = H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d < 0) olive_h5_fail(file, "cannot create dataset %s (disk full?)", name);
    olive_h5_close(file, dcpl, "a dataset creation property list");
    olive_h5_close(file, space, "a dataspace");
    return d;
}

void olive_h5_write_slab1(const char *file, hid_t dset, hid_t mtype, int64_t off, int64_t n,
                          const void *data, hid_t xfer)
{
    hid_t fs = H5Dget_space(dset);
    hsize_t o = (hsize_t)off, c = (hsize_t)n;
    hid_t ms = H5Screate_simple(1, &c, NULL);
    if (fs < 0 || ms < 0) olive_h5_fail(file, "cannot set up a write");
    herr_t sel = n > 0 ? H5Sselect_hyperslab(fs, H5S_SELECT_SET, &o, NULL, &c, NULL)
                       : (H5Sselect_none(fs) < 0 ? -1 : H5Sselect_none(ms));
    if (sel < 0) olive_h5_fail(file, "cannot select elements [%lld, %lld) to write", (long long)off, (long long)(off + n));
    if (H5Dwrite(dset, mtype, ms, fs, xfer, data) < 0) olive_h5_fail(file, "write failed (disk full?)");
    olive_h5_close(file, ms, "a dataspace");
    olive_h5_close(file, fs, "a dataspace");
}

void olive_h5_write1(const char *file, hid_t loc, const char *name, hid_t ftype, hid_t mtype,
                     int64_t n, const void *data, int64_t chunk)
{
    hid_t d = olive_h5_dset1(file, loc, name, ftype, n, chunk);
    if (n > 0 && H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
        olive_h5_fail(file, "cannot write dataset %s (disk full?)", name);
    olive_h5_close(file, d, name);
}

int64_t olive_h5_len1(const char *file, hid_t loc, const char *name)
{
    if (!olive_h5_exists(loc, name)) olive_h5_fail(file, "dataset %s is missing", name);
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0) olive_h5_fail(file, "%s is not a dataset", name);
    hid_t sp = H5Dget_space(d);
    int rank = H5Sget_simple_extent_ndims(sp);
    hsize_t dim = 0;
    if (rank != 1) olive_h5_fail(file, "dataset %s must be 1-D (has rank %d)", name, rank);
    H5Sget_simple_extent_dims(sp, &dim, NULL);
    H5Sclose(sp);
    H5Dclose(d);
    return (int64_t)dim;
}

/* Elements [off, off + n) of the open 1-D dataset d read with pread() on
 * every OpenMP thread, when HDF5 would only copy bytes: contiguous storage
 * (every network file olive writes), no filters, no external storage, no
 * user block, and the memory type equal to the file's (no conversion).
 * HDF5's own read runs on one thread, ~1.5 GB/s into fresh memory, which
 * for a 19 GB network file is most of olive-simulate's set-up. Returns 0
 * when the dataset does not qualify (the caller reads through HDF5). */
static int read_direct(hid_t d, hid_t mtype, int64_t off, int64_t n, void *data)
{
    hid_t dcpl = H5Dget_create_plist(d), ft = H5Dget_type(d), fs = H5Dget_space(d);
    haddr_t addr = H5Dget_offset(d);
    hsize_t dim = 0;
    int ok = dcpl >= 0 && ft >= 0 && fs >= 0 && addr != HADDR_UNDEF &&
             H5Pget_layout(dcpl) == H5D_CONTIGUOUS && H5Pget_nfilters(dcpl) == 0 &&
             H5Pget_external_count(dcpl) == 0 && H5Tequal(ft, mtype) > 0 && H5Sget_simple_extent_ndims(fs) == 1 &&
             H5Sget_simple_extent_dims(fs, &dim, NULL) == 1 && off >= 0 && (hsize_t)(off + n) <= dim;
    const size_t el = ft >= 0 ? H5Tget_size(ft) : 0;
    if (fs >= 0) H5Sclose(fs);
    if (ft >= 0) H5Tclose(ft);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (!ok || el == 0) return 0;
    int fd = direct_fd(d);
    if (fd < 0) return 0;
    /* 0 after a short read: HDF5 then reads it and names the fault */
    return pread_parallel(fd, data, (size_t)n * el, (off_t)addr + (off_t)off * (off_t)el);
}

/* Read elements pts[0, n) (or [off, off + n) when pts is NULL) of the open
 * 1-D dataset d through HDF5, converted to mtype. */
static int read_sel(hid_t d, hid_t mtype, int64_t off, int64_t n, const hsize_t *pts, void *data)
{
    hid_t fs = H5Dget_space(d);
    hsize_t o = (hsize_t)off, c = (hsize_t)n;
    hid_t ms = H5Screate_simple(1, &c, NULL);
    herr_t st = fs < 0 || ms < 0 ? -1
                : pts ? H5Sselect_elements(fs, H5S_SELECT_SET, (size_t)n, pts)
                      : H5Sselect_hyperslab(fs, H5S_SELECT_SET, &o, NULL, &c, NULL);
    if (st >= 0) st = H5Dread(d, mtype, ms, fs, H5P_DEFAULT, data);
    if (ms >= 0) H5Sclose(ms);
    if (fs >= 0) H5Sclose(fs);
    return st < 0 ? -1 : 0;
}

/* The range of the integer memory type mtype. */
static void int_range(hid_t mtype, int64_t *lo, uint64_t *hi)
{
    const unsigned bits = 8u * (unsigned)H5Tget_size(mtype);
    const int sgn = H5Tget_sign(mtype) == H5T_SGN_2;
    *lo = sgn ? (bits >= 64 ? INT64_MIN : -((int64_t)1 << (bits - 1))) : 0;
    *hi = bits >= 64 ? (sgn ? (uint64_t)INT64_MAX : UINT64_MAX) : (((uint64_t)1 << (bits - (unsigned)sgn)) - 1);
}

static const char *int_type_name(hid_t mtype)
{
    static const char *const names[2][4] = {{"uint8", "uint16", "uint32", "uint64"}, {"int8", "int16", "int32", "int64"}};
    const size_t sz = H5Tget_size(mtype);
    return names[H5Tget_sign(mtype) == H5T_SGN_2][sz >= 8 ? 3 : sz >= 4 ? 2 : sz >= 2 ? 1 : 0];
}

/* Check the n values of wide (int64 when wsigned, else uint64) against the
 * range of mtype; 0, or -1 with the first value outside named in err
 * (element index: pts[i], or off + i). */
static int check_int_range(const void *wide, int wsigned, int64_t n, hid_t mtype, int64_t off, const hsize_t *pts,
                           char *err, size_t errlen)
{
    int64_t lo;
    uint64_t hi;
    int_range(mtype, &lo, &hi);
    for (int64_t i = 0; i < n; i++) {
        const long long at = pts ? (long long)pts[i] : (long long)(off + i);
        if (wsigned) {
            const int64_t v = ((const int64_t *)wide)[i];
            if (v >= lo && (v < 0 || (uint64_t)v <= hi)) continue;
            snprintf(err, errlen, "[%lld] = %lld is %s", at, (long long)v,
                     v < 0 && lo == 0 ? "negative; it must be a non-negative integer" : "out of range");
        } else {
            const uint64_t v = ((const uint64_t *)wide)[i];
            if (v <= hi) continue;
            snprintf(err, errlen, "[%lld] = %llu is out of range", at, (unsigned long long)v);
        }
        if (!strstr(err, "negative")) {
            const size_t k = strlen(err);
            snprintf(err + k, errlen - k, " (olive reads it as %s)", int_type_name(mtype));
        }
        return -1;
    }
    return 0;
}

/* NULL when ft is a well-formed number type: an integer of 1, 2, 4 or 8
 * bytes using all its bits, or an IEEE float32/float64; else the fault. A
 * damaged header can declare any size, and HDF5 would read (and convert)
 * that many bytes per value. */
static const char *number_type_fault(hid_t ft)
{
    const H5T_class_t cls = H5Tget_class(ft);
    const size_t sz = H5Tget_size(ft);
    if (cls == H5T_INTEGER) {
        if (sz != 1 && sz != 2 && sz != 4 && sz != 8) return "has an integer type of an unsupported size (damaged?)";
        if (H5Tget_precision(ft) != 8 * sz || H5Tget_offset(ft) != 0) return "has a malformed integer type (damaged?)";
        return NULL;
    }
    if (cls == H5T_FLOAT) {
        const hid_t ieee[] = {H5T_IEEE_F32LE, H5T_IEEE_F32BE, H5T_IEEE_F64LE, H5T_IEEE_F64BE};
        for (size_t i = 0; i < sizeof ieee / sizeof ieee[0]; i++)
            if (H5Tequal(ft, ieee[i]) > 0) return NULL;
        return "has a floating-point type other than IEEE float32 or float64 (damaged?)";
    }
    return "is not numeric";
}

/* What is wrong with reading values of stored type ft as mtype, or NULL:
 * integers must be stored as integers (HDF5 would truncate 2.7 to 2), and
 * numbers as numbers of at most 64 bits. */
static const char *type_fault(hid_t ft, hid_t mtype)
{
    const H5T_class_t cls = H5Tget_class(ft);
    if (H5Tget_class(mtype) == H5T_INTEGER && cls == H5T_FLOAT)
        return "is stored as a floating-point number; it must be an integer";
    return number_type_fault(ft);
}

/* 1 when HDF5 converts every integer of type ft into mtype exactly. */
static int int_fits(hid_t ft, hid_t mtype)
{
    const size_t fs = H5Tget_size(ft), ms = H5Tget_size(mtype);
    const int fsg = H5Tget_sign(ft) == H5T_SGN_2, msg = H5Tget_sign(mtype) == H5T_SGN_2;
    return fsg == msg ? ms >= fs : (!fsg && ms > fs);
}

int olive_h5_read_checked(hid_t d, hid_t mtype, int64_t off, int64_t n, const hsize_t *pts, void *data, char *err,
                          size_t errlen)
{
    err[0] = 0;
    if (n <= 0) return 0;
    hid_t ft = H5Dget_type(d);
    if (ft < 0) { snprintf(err, errlen, "cannot read its type"); return -1; }
    const char *bad = type_fault(ft, mtype);
    const int fsigned = H5Tget_sign(ft) == H5T_SGN_2;
    const int direct = !bad && (H5Tget_class(mtype) != H5T_INTEGER || int_fits(ft, mtype));
    H5Tclose(ft);
    if (bad) { snprintf(err, errlen, "%s", bad); return -1; }
    if (direct) {
        if ((!pts && read_direct(d, mtype, off, n, data)) || read_sel(d, mtype, off, n, pts, data) == 0) return 0;
        snprintf(err, errlen, "cannot be read (corrupt data?)");
        return -1;
    }
    /* Through 64-bit integers of the stored sign, each checked against
     * mtype's range before narrowing: HDF5's own conversion would clamp
     * (-1 into an unsigned id: 0), so a fault would read as a cell. */
    enum { PIECE = 1 << 16 };
    const hid_t wtype = fsigned ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64;
    const size_t msz = H5Tget_size(mtype);
    int64_t *wide = olive_malloc(PIECE * sizeof *wide, "an integer read");
    int rc = 0;
    for (int64_t at = 0; at < n && rc == 0; at += PIECE) {
        const int64_t m = n - at < PIECE ? n - at : PIECE;
        if (read_sel(d, wtype, off + at, m, pts ? pts + at : NULL, wide) < 0) {
            snprintf(err, errlen, "cannot be read (corrupt data?)");
            rc = -1;
        } else if (check_int_range(wide, fsigned, m, mtype, off + at, pts ? pts + at : NULL, err, errlen) < 0) {
            rc = -1;
        } else if (H5Tconvert(wtype, mtype, (size_t)m, wide, NULL, H5P_DEFAULT) < 0) {
            snprintf(err, errlen, "cannot be converted");
            rc = -1;
        } else {
            memcpy((char *)data + (size_t)at * msz, wide, (size_t)m * msz);
        }
    }
    free(wide);
    return rc;
}

void olive_h5_read_slab1(const char *file, hid_t loc, const char *name, hid_t mtype, int64_t off,
                         int64_t n, void *data)
{
    if (n == 0) return;
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0) olive_h5_fail(file, "dataset %s is missing", name);
    char err[256], full[512];
    const int rc = olive_h5_read_checked(d, mtype, off, n, NULL, data, err, sizeof err);
    /* the whole path: a name relative to a group would not say which population or projection */
    if (rc < 0 && H5Iget_name(d, full, sizeof full) <= 0) snprintf(full, sizeof full, "%s", name);
    H5Dclose(d);
    if (rc < 0) olive_h5_fail(file, "dataset %s%s%s", full, err[0] == '[' ? "" : " ", err);
}

void olive_h5_dtype_info(const char *file, hid_t loc, const char *name, H5T_class_t *cls, size_t *size)
{
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0) olive_h5_fail(file, "dataset %s is missing", name);
    hid_t t = H5Dget_type(d);
    *cls = H5Tget_class(t);
    *size = H5Tget_size(t);
    H5Tclose(t);
    H5Dclose(d);
}

int olive_h5_dset_unsigned(const char *file, hid_t loc, const char *name)
{
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0) olive_h5_fail(file, "dataset %s is missing", name);
    hid_t t = H5Dget_type(d);
    int u = H5Tget_class(t) == H5T_INTEGER && H5Tget_sign(t) == H5T_SGN_NONE;
    H5Tclose(t);
    H5Dclose(d);
    return u;
}

/* SONATA's spike-sorting enum: uint8 with none = 0, by_id = 1, by_time = 2. */
static hid_t sorting_enum_type(void)
{
    hid_t t = H5Tenum_create(H5T_NATIVE_UINT8);
    if (t < 0) return -1;
    static const char *const names[3] = {"none", "by_id", "by_time"};
    for (uint8_t v = 0; v < 3; v++)
        if (H5Tenum_insert(t, names[v], &v) < 0) { H5Tclose(t); return -1; }
    return t;
}

void olive_sonata_sorting_write(const char *file, hid_t group, int value)
{
    hid_t t = sorting_enum_type();
    if (t < 0) olive_h5_fail(file, "cannot make the SONATA sorting enum type");
    uint8_t v = (uint8_t)value;
    write_attr(file, group, "sorting", t, 0, &v);
    olive_h5_close(file, t, "the sorting enum type");
}

int64_t olive_sonata_sorting_read(const char *file, hid_t group)
{
    hid_t a = H5Aopen(group, "sorting", H5P_DEFAULT);
    if (a < 0) olive_h5_fail(file, "cannot open attribute 'sorting'");
    hid_t ft = H5Aget_type(a), sp = H5Aget_space(a);
    int ok = ft >= 0 && sp >= 0 && H5Sget_simple_extent_npoints(sp) == 1;
    int64_t v = -1;
    if (ok && H5Tget_class(ft) == H5T_ENUM) {
        /* Read through the enum's own integer base, whatever its names. */
        hid_t base = H5Tget_super(ft);
        hid_t mt = base >= 0 ? H5Tget_native_type(base, H5T_DIR_ASCEND) : -1;
        unsigned char buf[16] = {0};
        ok = mt >= 0 && H5Tget_size(mt) <= sizeof buf && H5Aread(a, mt, buf) >= 0 &&
             H5Tconvert(mt, H5T_NATIVE_INT64, 1, buf, NULL, H5P_DEFAULT) >= 0;
        if (ok) memcpy(&v, buf, sizeof v);
        if (mt >= 0) H5Tclose(mt);
        if (base >= 0) H5Tclose(base);
    } else if (ok) {
        ok = H5Aread(a, H5T_NATIVE_INT64, &v) >= 0;
    }
    if (sp >= 0) H5Sclose(sp);
    if (ft >= 0) H5Tclose(ft);
    H5Aclose(a);
    if (!ok) olive_h5_fail(file, "cannot read attribute 'sorting' (one SONATA enum value expected)");
    return v;
}

void olive_h5_refuse_unknown_links(const char *file, hid_t g, const char *where,
                                   int (*known)(const char *, const void *), const void *ctx, const char *what)
{
    H5G_info_t info;
    if (H5Gget_info(g, &info) < 0) olive_die("%s: %s: cannot list its datasets", file, where);
    for (hsize_t i = 0; i < info.nlinks; i++) {
        char ln[128];
        ssize_t len = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, ln, sizeof ln, H5P_DEFAULT);
        if (len < 0) olive_die("%s: %s: cannot read the names of its datasets", file, where);
        if (len >= (ssize_t)sizeof ln || !known(ln, ctx)) olive_die("%s: %s/%s is not %s", file, where, ln, what);
    }
}

int olive_h5_name_listed(const char *name, const void *list)
{
    for (const char *const *l = list; *l; l++)
        if (!strcmp(name, *l)) return 1;
    return 0;
}
