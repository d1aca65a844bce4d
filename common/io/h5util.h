/* Thin, checked wrappers around the HDF5 C API. Every failure dies with a
 * message naming the file and the object; HDF5's own error stack printing is
 * switched off so users see one clear line. */
#ifndef OLIVE_H5UTIL_H
#define OLIVE_H5UTIL_H
#include <hdf5.h>
#include <stdint.h>

/* Deflate level (1-9) of chunked output datasets; 0 (the default): none,
 * so that readers built without the deflate filter open them. */
extern int olive_h5_deflate;

/* Switch off HDF5's automatic error printing (call once at start). */
void olive_h5_quiet(void);

/* Check an HDF5 return value (negative is failure). */
#define OLIVE_H5CHECK(expr, file, ...) do { if ((expr) < 0) olive_h5_fail((file), __VA_ARGS__); } while (0)
void olive_h5_fail(const char *file, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

hid_t olive_h5_open_read(const char *path);       /* dies with a clear message */
/* Create (truncating) a file to write; its H5Fclose fails while any object
 * in it is still open (H5F_CLOSE_SEMI). */
hid_t olive_h5_create(const char *path);
/* Close any HDF5 object (dataset, group, attribute, dataspace, datatype,
 * property list, file; H5P_DEFAULT is skipped), dying on failure with the
 * file and what was closed named: closes write what HDF5 buffered. */
void olive_h5_close(const char *file, hid_t id, const char *what);
/* The end of every file olive writes: no object may be left open (internal
 * error), then flush and close, every step checked. The file is flushed to
 * the disk by olive_atomic_commit. Collective for a parallel file. */
void olive_h5_close_file(const char *file, hid_t f);
/* Create collectively on comm (MPI-IO driver when comm has several ranks). */
hid_t olive_h5_create_par(const char *path, MPI_Comm comm);
/* Transfer property list for collective writes on comm (H5P_DEFAULT for one rank). */
hid_t olive_h5_xfer(MPI_Comm comm);

int olive_h5_exists(hid_t loc, const char *name);  /* link exists (path of groups allowed) */
hid_t olive_h5_group(const char *file, hid_t loc, const char *name);  /* create, with parents */

/* Attributes. The getters die when the attribute is missing or has the wrong
 * shape; the _opt variants return 0 when missing. */
void olive_h5_attr_str(const char *file, hid_t obj, const char *name, const char *value);
void olive_h5_attr_i64(const char *file, hid_t obj, const char *name, int64_t value);
void olive_h5_attr_f64(const char *file, hid_t obj, const char *name, double value);
void olive_h5_attr_i64v(const char *file, hid_t obj, const char *name, const int64_t *v, int n);
void olive_h5_attr_f64v(const char *file, hid_t obj, const char *name, const double *v, int n);
int64_t olive_h5_get_i64(const char *file, hid_t obj, const char *objname, const char *name);
double olive_h5_get_f64(const char *file, hid_t obj, const char *objname, const char *name);
void olive_h5_get_i64v(const char *file, hid_t obj, const char *objname, const char *name, int64_t *v, int n);
void olive_h5_get_f64v(const char *file, hid_t obj, const char *objname, const char *name, double *v, int n);
/* String attribute into buf (truncated to n-1). Returns 0 when missing. */
int olive_h5_get_str_opt(const char *file, hid_t obj, const char *name, char *buf, size_t n);
int olive_h5_has_attr(hid_t obj, const char *name);

/* Dataset helpers for 1-D data. */
/* Create a 1-D dataset of n elements of file type ftype; chunk > 0 makes it
 * chunked (and deflate-compressed when olive_h5_deflate > 0), 0 contiguous. */
hid_t olive_h5_dset1(const char *file, hid_t loc, const char *name, hid_t ftype, int64_t n, int64_t chunk);
/* Write a whole 1-D dataset in one call (create + write + close). */
void olive_h5_write1(const char *file, hid_t loc, const char *name, hid_t ftype, hid_t mtype,
                     int64_t n, const void *data, int64_t chunk);
/* Write elements [off, off+n) of an open 1-D dataset (n may be 0). xfer:
 * H5P_DEFAULT or a collective transfer list. */
void olive_h5_write_slab1(const char *file, hid_t dset, hid_t mtype, int64_t off, int64_t n,
                          const void *data, hid_t xfer);
/* Length of a 1-D dataset; dies if it is not 1-D. */
int64_t olive_h5_len1(const char *file, hid_t loc, const char *name);
/* Read elements [off, off+n) of the 1-D dataset name. */
void olive_h5_read_slab1(const char *file, hid_t loc, const char *name, hid_t mtype, int64_t off,
                         int64_t n, void *data);
/* Read elements [off, off + n) (pts NULL) or pts[0, n) of the open 1-D
 * dataset d as mtype, checked: an integer mtype takes integers only (HDF5
 * would truncate 2.7 to 2) and every value must fit it (HDF5 would clamp -1
 * into an unsigned type to 0); a float mtype takes any number. Returns 0,
 * or -1 with the fault in err, worded to follow the dataset's name
 * ("[3] = -1 is negative; ...", "is stored as a floating-point number; ..."). */
int olive_h5_read_checked(hid_t d, hid_t mtype, int64_t off, int64_t n, const hsize_t *pts, void *data, char *err,
                          size_t errlen);
/* Size in bytes and class of the stored element type of a dataset. */
/* The spike group attribute 'sorting' as SONATA defines it: an enum over
 * uint8, none 0, by_id 1, by_time 2 (libsonata refuses a string). */
enum { OLIVE_SORTING_NONE = 0, OLIVE_SORTING_BY_ID = 1, OLIVE_SORTING_BY_TIME = 2 };
void olive_sonata_sorting_write(const char *file, hid_t group, int value);
int64_t olive_sonata_sorting_read(const char *file, hid_t group);  /* the stored integer */
/* 1 when the dataset's stored type is an unsigned integer. */
int olive_h5_dset_unsigned(const char *file, hid_t loc, const char *name);
void olive_h5_dtype_info(const char *file, hid_t loc, const char *name, H5T_class_t *cls, size_t *size);
/* A dataset or group is either read or refused: die naming the first link of
 * group g (path `where`) that known(name, ctx) does not accept ("FILE:
 * WHERE/NAME is not WHAT"). Only link names are read (safe on a damaged
 * attribute header). olive_h5_name_listed: known() for a NULL-terminated
 * list of names (ctx), also usable on its own. */
void olive_h5_refuse_unknown_links(const char *file, hid_t g, const char *where,
                                   int (*known)(const char *, const void *), const void *ctx, const char *what);
int olive_h5_name_listed(const char *name, const void *list);

#endif
