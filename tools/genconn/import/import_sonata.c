/* --import-format sonata: a SONATA edges file. /edges/<population>/
 * source_node_id and target_node_id (integers, one entry per edge), the
 * conductance from /edges/<population>/0/<attribute> (default `conductance`,
 * falling back to `syn_weight`); edge_group_id, when present, must be 0
 * everywhere (one attribute group), and edge_group_index, when present,
 * says where each edge's attribute row is. Read in chunks of CHUNK edges, so
 * the memory is that of the sink's junction list only. Never exits: every
 * fault comes back as -1 with the dataset named in s->err. */
#include "import.h"
#include "h5util.h"
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 65536

#define MAX_EDGE_TYPES 4096

typedef struct {
    hid_t f, edges, pop, grp0, src, tgt, gid, gidx, attr;
    char where[300];          /* "/edges/<population>" */
    char attr_name[600];
    /* The attribute from the edge types table instead (bmtk keeps constant
     * syn_weight there): edge_type_id per edge, value per type. */
    hid_t etype;
    int ntypes;
    int64_t type_id[MAX_EDGE_TYPES];
    double type_w[MAX_EDGE_TYPES];
} sonata;

static int fault(gc_sink *s, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fault(gc_sink *s, const char *path, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(s->err, sizeof s->err, "%s: %s", path, msg);
    return -1;
}

static void close_all(sonata *z)
{
    hid_t d[] = {z->attr, z->gidx, z->gid, z->tgt, z->src, z->etype};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        if (d[i] >= 0) H5Dclose(d[i]);
    if (z->grp0 >= 0) H5Gclose(z->grp0);
    if (z->pop >= 0) H5Gclose(z->pop);
    if (z->edges >= 0) H5Gclose(z->edges);
    if (z->f >= 0) H5Fclose(z->f);
}

static int link_exists(hid_t loc, const char *name)
{
    return H5Lexists(loc, name, H5P_DEFAULT) > 0;
}

/* H5I_GROUP, H5I_DATASET, ... of the object loc/name (H5I_BADID if none). */
static H5I_type_t object_type(hid_t loc, const char *name)
{
    hid_t o = H5Oopen(loc, name, H5P_DEFAULT);
    if (o < 0) return H5I_BADID;
    H5I_type_t t = H5Iget_type(o);
    H5Oclose(o);
    return t;
}

/* Open the 1-D numeric dataset loc/name (integers when want_int); -1 with the
 * fault reported (dataset named as where/name). */
static hid_t open_1d(gc_sink *s, const char *path, hid_t loc, const char *where, const char *name, int want_int,
                     int64_t *len)
{
    if (!link_exists(loc, name)) return fault(s, path, "%s/%s: dataset missing", where, name);
    if (object_type(loc, name) != H5I_DATASET)
        return fault(s, path, "%s/%s: not a dataset", where, name);
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0) return fault(s, path, "%s/%s: cannot open the dataset", where, name);
    hid_t t = H5Dget_type(d), sp = H5Dget_space(d);
    H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    int nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    hsize_t dim = 0;
    if (nd == 1) H5Sget_simple_extent_dims(sp, &dim, NULL);
    if (t >= 0) H5Tclose(t);
    if (sp >= 0) H5Sclose(sp);
    const char *bad = NULL;
    if (want_int && cls != H5T_INTEGER) bad = "has the wrong type (expected integers)";
    else if (!want_int && cls != H5T_INTEGER && cls != H5T_FLOAT) bad = "has the wrong type (expected numbers)";
    else if (nd != 1) bad = "must be one-dimensional";
    if (bad) {
        H5Dclose(d);
        return fault(s, path, "%s/%s: %s", where, name, bad);
    }
    *len = (int64_t)dim;
    return d;
}

/* Read elements [off, off + n) (pts NULL) or pts[0, n) of dataset
 * where/ds (where alone when ds is NULL), checked (integers stored as
 * integers, each fitting mtype); 0, or -1 with the fault. */
static int read_sel(gc_sink *s, const char *path, const char *where, const char *ds, hid_t d, hid_t mtype,
                    int64_t off, int64_t n, const hsize_t *pts, void *buf)
{
    char err[256];
    if (olive_h5_read_checked(d, mtype, off, n, pts, buf, err, sizeof err) == 0) return 0;
    return fault(s, path, "%s%s%s%s%s", where, ds ? "/" : "", ds ? ds : "", err[0] == '[' ? "" : " ", err);
}

/* Choose the population: the one named, or the only one there is. */
static int open_population(gc_sink *s, const char *path, sonata *z, const char *population)
{
    char name[256];
    if (!link_exists(z->f, "edges")) return fault(s, path, "/edges: missing (not a SONATA edges file)");
    z->edges = H5Gopen2(z->f, "edges", H5P_DEFAULT);
    if (z->edges < 0) return fault(s, path, "/edges: not a group");
    if (population) {
        if (!*population || strchr(population, '/') || strlen(population) >= sizeof name)
            return fault(s, path, "'%s' is not a population name", population);
        snprintf(name, sizeof name, "%s", population);
        if (!link_exists(z->edges, name)) return fault(s, path, "/edges/%s: population missing", name);
    } else {
        H5G_info_t gi;
        if (H5Gget_info(z->edges, &gi) < 0) return fault(s, path, "/edges: cannot list the populations");
        if (gi.nlinks == 0) return fault(s, path, "/edges: no population in the file");
        ssize_t k = H5Lget_name_by_idx(z->edges, ".", H5_INDEX_NAME, H5_ITER_INC, 0, name, sizeof name, H5P_DEFAULT);
        if (k < 0 || (size_t)k >= sizeof name) return fault(s, path, "/edges: cannot read the population's name");
        if (gi.nlinks > 1)
            return fault(s, path, "/edges holds %llu populations ('%s', ...); choose one with --import-population",
                         (unsigned long long)gi.nlinks, name);
    }
    snprintf(z->where, sizeof z->where, "/edges/%s", name);
    if (object_type(z->edges, name) != H5I_GROUP)
        return fault(s, path, "%s: population missing (not a group)", z->where);
    z->pop = H5Gopen2(z->edges, name, H5P_DEFAULT);
    if (z->pop < 0) return fault(s, path, "%s: cannot open the population", z->where);
    return 0;
}

/* bmtk's edge types table beside an edges file X_edges.h5: X_edge_types.csv,
 * space-separated with a header line naming the columns. When it has
 * edge_type_id and the attribute (or syn_weight), every edge takes its
 * type's value. Returns 1 when the table gives the attribute, 0 when there
 * is no such table or column, -1 with the fault. */
static int read_edge_types(gc_sink *s, const char *path, sonata *z, const char *attribute)
{
    size_t n = strlen(path);
    if (n < 9 || strcmp(path + n - 9, "_edges.h5") != 0 || n + 16 > 4096) return 0;
    char csv[4096];
    snprintf(csv, sizeof csv, "%.*s_edge_types.csv", (int)(n - 9), path);
    FILE *f = fopen(csv, "r");
    if (!f) return 0;
    char line[4096], *tok, *save;
    int col_id = -1, col_w = -1, ncol = 0, rc = 0;
    const char *want = attribute ? attribute : "syn_weight";
    if (!fgets(line, sizeof line, f)) { fclose(f); return 0; }
    for (tok = strtok_r(line, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save), ncol++) {
        if (!strcmp(tok, "edge_type_id")) col_id = ncol;
        if (!strcmp(tok, want) || (!attribute && !strcmp(tok, "conductance") && col_w < 0)) col_w = ncol;
    }
    if (col_id < 0 || col_w < 0) { fclose(f); return 0; }
    int64_t row = 1;
    while (fgets(line, sizeof line, f)) {
        row++;
        int c = 0, have = 0;
        double w = 0;
        int64_t id = -1;
        for (tok = strtok_r(line, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save), c++) {
            char *end;
            if (c == col_id) { id = strtoll(tok, &end, 10); have |= (*end == 0) ? 1 : 0; }
            if (c == col_w) { w = strtod(tok, &end); have |= (*end == 0 && isfinite(w) && w >= 0) ? 2 : 0; }
        }
        if (c == 0) continue;                              /* a blank line */
        if (have != 3 || id < 0) { rc = fault(s, csv, "line %lld: edge_type_id and %s must be a type id and a "
                                                      "finite non-negative number", (long long)row, want); break; }
        if (z->ntypes == MAX_EDGE_TYPES) { rc = fault(s, csv, "more than %d edge types", MAX_EDGE_TYPES); break; }
        z->type_id[z->ntypes] = id;
        z->type_w[z->ntypes++] = w;
    }
    fclose(f);
    if (rc < 0) return -1;
    int64_t ne;
    if ((z->etype = open_1d(s, path, z->pop, z->where, "edge_type_id", 1, &ne)) < 0) return -1;
    snprintf(z->attr_name, sizeof z->attr_name, "%.300s (column %.200s)", csv, want);
    return 1;
}

/* The conductance dataset, or none (-1 with no fault: use s->w_default). */
static int open_attribute(gc_sink *s, const char *path, sonata *z, const char *attribute, int64_t *len)
{
    char where0[320];
    snprintf(where0, sizeof where0, "%s/0", z->where);
    const char *names[2] = {attribute ? attribute : "conductance", attribute ? NULL : "syn_weight"};
    if (link_exists(z->pop, "0")) {
        if (object_type(z->pop, "0") != H5I_GROUP)
            return fault(s, path, "%s: not a group", where0);
        z->grp0 = H5Gopen2(z->pop, "0", H5P_DEFAULT);
        if (z->grp0 < 0) return fault(s, path, "%s: cannot open the group", where0);
        for (int i = 0; i < 2; i++)
            if (names[i] && !strchr(names[i], '/') && link_exists(z->grp0, names[i])) {
                snprintf(z->attr_name, sizeof z->attr_name, "%s/%.250s", where0, names[i]);
                z->attr = open_1d(s, path, z->grp0, where0, names[i], 0, len);
                return z->attr < 0 ? -1 : 0;
            }
    }
    int t = read_edge_types(s, path, z, attribute);
    if (t != 0) return t < 0 ? -1 : 0;
    if (s->have_w_default) return 0;
    if (attribute) return fault(s, path, "%s/%s: dataset missing (--import-attribute)", where0, attribute);
    return fault(s, path, "%s/conductance: dataset missing (and no %s/syn_weight); name the attribute with "
                 "--import-attribute, or give every junction --conductance W", where0, where0);
}

/* Check one id of edge e; 0 or -1 with the fault. */
static int check_id(gc_sink *s, const char *path, const sonata *z, const char *ds, int64_t e, int64_t v)
{
    if (v < 0) return fault(s, path, "%s/%s[%lld] = %lld: negative cell id", z->where, ds, (long long)e, (long long)v);
    if (v > GC_IMPORT_MAX_ID)
        return fault(s, path, "%s/%s[%lld] = %lld: cell id too large (at most %d)", z->where, ds, (long long)e,
                     (long long)v, GC_IMPORT_MAX_ID);
    if (s->cells > 0 && v >= s->cells)
        return fault(s, path, "%s/%s[%lld] = %lld: cell id out of range: --cells is %lld", z->where, ds, (long long)e,
                     (long long)v, (long long)s->cells);
    return 0;
}

/* The population's datasets opened and their lengths checked: n edges, na
 * values of the attribute (if one). 0, or -1 with the fault in s. */
static int open_datasets(gc_sink *s, const char *path, sonata *z, const char *population, const char *attribute,
                         int64_t *n_out, int64_t *na_out)
{
    if (open_population(s, path, z, population) < 0) return -1;
    int64_t n, nt, ng = 0, ngi = 0, na = 0;
    if ((z->src = open_1d(s, path, z->pop, z->where, "source_node_id", 1, &n)) < 0) return -1;
    if ((z->tgt = open_1d(s, path, z->pop, z->where, "target_node_id", 1, &nt)) < 0) return -1;
    if (nt != n)
        return fault(s, path, "%s/source_node_id has %lld entries but %s/target_node_id has %lld", z->where, (long long)n,
                     z->where, (long long)nt);
    if (link_exists(z->pop, "edge_group_id")) {
        if ((z->gid = open_1d(s, path, z->pop, z->where, "edge_group_id", 1, &ng)) < 0) return -1;
        if (ng != n)
            return fault(s, path, "%s/edge_group_id has %lld entries for %lld edges", z->where, (long long)ng, (long long)n);
    }
    if (open_attribute(s, path, z, attribute, &na) < 0) return -1;
    if (z->attr >= 0 && link_exists(z->pop, "edge_group_index")) {
        if ((z->gidx = open_1d(s, path, z->pop, z->where, "edge_group_index", 1, &ngi)) < 0) return -1;
        if (ngi != n)
            return fault(s, path, "%s/edge_group_index has %lld entries for %lld edges", z->where, (long long)ngi, (long long)n);
    } else if (z->attr >= 0 && na != n) {
        return fault(s, path, "%s has %lld values for %lld edges", z->attr_name, (long long)na, (long long)n);
    }
    *n_out = n;
    *na_out = na;
    return 0;
}

/* One chunk's buffers. */
typedef struct {
    int64_t *src, *tgt, *gid, *gidx;
    double *w;
    hsize_t *pts;
} chunk_buf;

/* The conductances of edges [off, off + m) into c->w: the attribute's
 * values (through edge_group_index where there is one), the edge types', or
 * the default. 0, or -1 with the fault in s. */
static int chunk_weights(gc_sink *s, const char *path, const sonata *z, int64_t off, int64_t m, int64_t na, chunk_buf *c)
{
    if (z->attr < 0 && z->etype >= 0) {
        if (read_sel(s, path, z->where, "edge_type_id", z->etype, H5T_NATIVE_INT64, off, m, NULL, c->gidx) < 0) return -1;
        for (int64_t k = 0; k < m; k++) {
            int t = 0;
            while (t < z->ntypes && z->type_id[t] != c->gidx[k]) t++;
            if (t == z->ntypes)
                return fault(s, path, "%s/edge_type_id[%lld] = %lld is not in %s", z->where, (long long)(off + k),
                             (long long)c->gidx[k], z->attr_name);
            c->w[k] = z->type_w[t];
        }
        return 0;
    }
    if (z->attr < 0) {
        for (int64_t k = 0; k < m; k++) c->w[k] = s->w_default;
        return 0;
    }
    if (z->gidx < 0) return read_sel(s, path, z->attr_name, NULL, z->attr, H5T_NATIVE_DOUBLE, off, m, NULL, c->w) < 0 ? -1 : 0;
    if (read_sel(s, path, z->where, "edge_group_index", z->gidx, H5T_NATIVE_INT64, off, m, NULL, c->gidx) < 0) return -1;
    int contiguous = 1;
    for (int64_t k = 0; k < m; k++) {
        if (c->gidx[k] < 0 || c->gidx[k] >= na)
            return fault(s, path, "%s/edge_group_index[%lld] = %lld: outside %s (%lld values)", z->where,
                         (long long)(off + k), (long long)c->gidx[k], z->attr_name, (long long)na);
        c->pts[k] = (hsize_t)c->gidx[k];
        if (k && c->gidx[k] != c->gidx[k - 1] + 1) contiguous = 0;
    }
    return read_sel(s, path, z->attr_name, NULL, z->attr, H5T_NATIVE_DOUBLE, contiguous ? c->gidx[0] : 0, m,
                    contiguous ? NULL : c->pts, c->w) < 0 ? -1 : 0;
}

/* Edges [off, off + m), read and checked, to the sink. 0, or -1 with the
 * fault in s. */
static int add_chunk(gc_sink *s, const char *path, sonata *z, int64_t off, int64_t m, int64_t na, chunk_buf *c)
{
    if (read_sel(s, path, z->where, "source_node_id", z->src, H5T_NATIVE_INT64, off, m, NULL, c->src) < 0 ||
        read_sel(s, path, z->where, "target_node_id", z->tgt, H5T_NATIVE_INT64, off, m, NULL, c->tgt) < 0)
        return -1;
    if (z->gid >= 0) {
        if (read_sel(s, path, z->where, "edge_group_id", z->gid, H5T_NATIVE_INT64, off, m, NULL, c->gid) < 0) return -1;
        for (int64_t k = 0; k < m; k++)
            if (c->gid[k] != 0)
                return fault(s, path, "%s/edge_group_id[%lld] = %lld: only one attribute group (0) is supported", z->where,
                             (long long)(off + k), (long long)c->gid[k]);
    }
    if (chunk_weights(s, path, z, off, m, na, c) < 0) return -1;
    const int64_t *src = c->src, *tgt = c->tgt, *gidx = c->gidx;
    const double *w = c->w;
    for (int64_t k = 0; k < m; k++) {
        int64_t e = off + k;
        if (check_id(s, path, z, "source_node_id", e, src[k]) < 0) return -1;
        if (check_id(s, path, z, "target_node_id", e, tgt[k]) < 0) return -1;
        if (src[k] == tgt[k] && !s->drop_self)
            return fault(s, path, "%s: edge %lld is a self junction (source_node_id = target_node_id = %lld; "
                         "--drop-self drops them)", z->where, (long long)e, (long long)src[k]);
        if (src[k] == tgt[k]) { s->dropped_self++; continue; }
        const char *an = z->attr_name[0] ? z->attr_name : "--conductance";
        if (!isfinite(w[k]))
            return fault(s, path, "%s[%lld] = %g: conductance is not finite", an, (long long)(z->gidx >= 0 ? gidx[k] : e), w[k]);
        if (w[k] < 0)
            return fault(s, path, "%s[%lld] = %g: conductance is negative", an, (long long)(z->gidx >= 0 ? gidx[k] : e), w[k]);
        if (s->add(s, (int32_t)tgt[k], (int32_t)src[k], w[k] == 0 ? 0.0 : w[k], e) != 0) {
            char why[sizeof s->err];
            snprintf(why, sizeof why, "%s", s->err[0] ? s->err : "refused");
            return fault(s, path, "%s: edge %lld: %s", z->where, (long long)e, why);
        }
    }
    return 0;
}

int gc_import_sonata(const char *path, const char *population, const char *attribute, gc_sink *s)
{
    static sonata z;   /* static: the type table is large for the stack */
    memset(&z, 0, sizeof z);
    z.f = z.edges = z.pop = z.grp0 = z.src = z.tgt = z.gid = z.gidx = z.attr = z.etype = -1;
    chunk_buf c = {0};
    int rc = -1;
    s->err[0] = 0;
    FILE *probe = fopen(path, "rb");
    if (!probe) return fault(s, path, "cannot open the file");
    fclose(probe);
    if (H5Fis_hdf5(path) <= 0) return fault(s, path, "not an HDF5 file");
    z.f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (z.f < 0) return fault(s, path, "cannot open as HDF5 (damaged file?)");
    int64_t n = 0, na = 0;
    if (open_datasets(s, path, &z, population, attribute, &n, &na) < 0) goto out;
    c.src = malloc(CHUNK * sizeof *c.src);
    c.tgt = malloc(CHUNK * sizeof *c.tgt);
    c.gid = malloc(CHUNK * sizeof *c.gid);
    c.gidx = malloc(CHUNK * sizeof *c.gidx);
    c.w = malloc(CHUNK * sizeof *c.w);
    c.pts = malloc(CHUNK * sizeof *c.pts);
    if (!c.src || !c.tgt || !c.gid || !c.gidx || !c.w || !c.pts) { fault(s, path, "out of memory"); goto out; }
    for (int64_t off = 0; off < n; off += CHUNK)
        if (add_chunk(s, path, &z, off, n - off < CHUNK ? n - off : CHUNK, na, &c) < 0) goto out;
    rc = 0;
out:
    free(c.src);
    free(c.tgt);
    free(c.gid);
    free(c.gidx);
    free(c.w);
    free(c.pts);
    close_all(&z);
    return rc;
}
