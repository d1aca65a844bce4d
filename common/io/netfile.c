#include "netfile.h"
#include "h5util.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

size_t olive_cond_bytes(int bits, int64_t n)
{
    switch (bits) {
    case 0: return 0;
    case 4: return (size_t)((n + 1) / 2);
    case 8: return (size_t)n;
    case 16: return (size_t)n * 2;
    case 32: return (size_t)n * 4;
    default: return (size_t)n * 8;
    }
}

void olive_cond_set(int bits, void *cond, int64_t e, uint32_t code, double w)
{
    switch (bits) {
    case 4: {
        uint8_t *b = (uint8_t *)cond + (e >> 1);
        int sh = (int)(e & 1) * 4;
        *b = (uint8_t)((*b & ~(15 << sh)) | ((code & 15) << sh));
        break;
    }
    case 8: ((uint8_t *)cond)[e] = (uint8_t)code; break;
    case 16: ((uint16_t *)cond)[e] = (uint16_t)code; break;
    case 32: ((float *)cond)[e] = (float)w; break;
    case 64: ((double *)cond)[e] = w; break;
    default: break;
    }
}

static hid_t cond_mtype(int bits)
{
    switch (bits) {
    case 4: case 8: return H5T_NATIVE_UINT8;
    case 16: return H5T_NATIVE_UINT16;
    case 32: return H5T_NATIVE_FLOAT;
    default: return H5T_NATIVE_DOUBLE;
    }
}

static hid_t cond_ftype(int bits)
{
    switch (bits) {
    case 4: case 8: return H5T_STD_U8LE;
    case 16: return H5T_STD_U16LE;
    case 32: return H5T_IEEE_F32LE;
    default: return H5T_IEEE_F64LE;
    }
}

/* The fault of row r (its row_ptr step and ids), or NULL; msg receives the text. */
static const char *row_fault(const olive_network *n, int64_t r, char *msg, size_t len)
{
    int64_t a = n->row_ptr[r], b = n->row_ptr[r + 1];
    int64_t cell = n->row0 + r;
    if (b < a) {
        snprintf(msg, len, "row_ptr decreases at row %lld", (long long)cell);
        return msg;
    }
    /* A row_ptr that rises past the junction count and falls back later
     * would have the loop below read col out of bounds. */
    if (a < 0 || b > n->nnz) {
        snprintf(msg, len, "row_ptr[%lld] = %lld is outside [0, %lld junctions]", (long long)(cell + 1),
                 (long long)(b + n->e0), (long long)(n->nnz + n->e0));
        return msg;
    }
    for (int64_t e = a; e < b; e++) {
        int64_t c = n->col[e];
        if (c < 0 || c >= n->count) {
            snprintf(msg, len, "col[%lld] = %lld in row %lld is out of range [0, %lld)", (long long)(n->e0 + e),
                     (long long)c, (long long)cell, (long long)n->count);
            return msg;
        }
        if (c == cell) {
            snprintf(msg, len, "self junction in row %lld", (long long)cell);
            return msg;
        }
        if (e > a && c <= n->col[e - 1]) {
            snprintf(msg, len, "row %lld is not strictly ascending (col %lld after %lld: %s)", (long long)cell,
                     (long long)c, (long long)n->col[e - 1], c == n->col[e - 1] ? "duplicate junction" : "unsorted");
            return msg;
        }
    }
    return NULL;
}

const char *olive_net_check(const olive_network *n)
{
    static char msg[256];
    int64_t rows = n->row1 - n->row0;
    if (n->row_ptr[0] != 0) return "row_ptr does not start at 0";
    /* Rows checked in parallel (a billion junctions take seconds serially);
     * the lowest faulty row is reported, as a serial scan would. */
    int64_t first = rows;
#pragma omp parallel for schedule(dynamic, 4096) reduction(min : first)
    for (int64_t r = 0; r < rows; r++) {
        char m[256];
        if (r < first && row_fault(n, r, m, sizeof m)) first = r;
    }
    if (first < rows) return row_fault(n, first, msg, sizeof msg);
    if (n->row_ptr[rows] != n->nnz) return "row_ptr does not end at the number of junctions";
    if (!isfinite(n->offset) || !isfinite(n->scale)) return "conductance offset or scale is not finite";
    if (n->bits >= 32) {
        for (int64_t e = 0; e < n->nnz; e++) {
            const double w = olive_net_w(n, e);
            if (!isfinite(w) || w < 0) {
                snprintf(msg, sizeof msg, "conductance[%lld] = %g is not a finite non-negative number",
                         (long long)e, w);
                return msg;
            }
        }
    } else {
        double maxw = n->offset + (n->bits ? ((1u << n->bits) - 1) * n->scale : 0.0);
        if (n->offset < 0 || maxw < 0 || !isfinite(maxw))
            return "conductance offset/scale give negative or infinite conductances";
    }
    if (n->g_cal)
        for (int64_t r = 0; r < rows; r++)
            if (!isfinite(n->g_cal[r]) || n->g_cal[r] < 0) {
                snprintf(msg, sizeof msg, "g_CaL[%lld] = %g is not a finite non-negative number",
                         (long long)(n->row0 + r), n->g_cal[r]);
                return msg;
            }
    return NULL;
}

static void read_header(const char *path, hid_t f, olive_network *net)
{
    char fmt[64] = "";
    memset(net, 0, sizeof *net);
    if (!olive_h5_get_str_opt(path, f, "format", fmt, sizeof fmt))
        olive_die("%s: not an olive network file (root attribute 'format' is missing)", path);
    if (strcmp(fmt, "olive-network") != 0)
        olive_die("%s: format is '%s', expected 'olive-network'", path, fmt);
    int64_t ver = olive_h5_get_i64(path, f, "/", "format_version");
    if (ver != 1) olive_die("%s: format_version %lld is not supported (this olive reads 1)", path, (long long)ver);
    if (!olive_h5_exists(f, "cells")) olive_die("%s: group /cells is missing", path);
    if (!olive_h5_exists(f, "gap_junctions")) olive_die("%s: group /gap_junctions is missing", path);
    hid_t cells = H5Gopen2(f, "cells", H5P_DEFAULT);
    hid_t gj = H5Gopen2(f, "gap_junctions", H5P_DEFAULT);
    if (cells < 0 || gj < 0) olive_die("%s: /cells or /gap_junctions is not a group", path);
    static const char *const cells_known[] = {"g_CaL", "populations", NULL};
    static const char *const gj_known[] = {"row_ptr", "col", "conductance", NULL};
    olive_h5_refuse_unknown_links(path, cells, "/cells", olive_h5_name_listed, cells_known,
                                  "read by olive (known: g_CaL, populations)");
    olive_h5_refuse_unknown_links(path, gj, "/gap_junctions", olive_h5_name_listed, gj_known,
                                  "read by olive (known: row_ptr, col, conductance)");
    net->count = olive_h5_get_i64(path, cells, "/cells", "count");
    if (net->count < 1) olive_die("%s: /cells count = %lld, must be >= 1", path, (long long)net->count);
    if (net->count > INT32_MAX)
        olive_die("%s: %lld cells; this build supports at most %d", path, (long long)net->count, INT32_MAX);
    olive_h5_get_i64v(path, cells, "/cells", "dims", net->dims, 3);
    for (int i = 0; i < 3; i++)
        if (net->dims[i] < 1) olive_die("%s: /cells dims[%d] = %lld, must be >= 1", path, i, (long long)net->dims[i]);
    /* Each factor <= count <= 2^31 and the partial product checked first, so
     * no product can overflow (found by tests/fuzz/fuzz_netfile). */
    if (net->dims[0] > net->count || net->dims[1] > net->count || net->dims[2] > net->count ||
        net->dims[0] * net->dims[1] > net->count || net->dims[0] * net->dims[1] * net->dims[2] != net->count)
        olive_die("%s: /cells dims %lldx%lldx%lld do not multiply to count %lld", path, (long long)net->dims[0],
                  (long long)net->dims[1], (long long)net->dims[2], (long long)net->count);
    if (olive_h5_exists(cells, "g_CaL") && olive_h5_len1(path, cells, "g_CaL") != net->count)
        olive_die("%s: /cells/g_CaL has %lld values for %lld cells", path,
                  (long long)olive_h5_len1(path, cells, "g_CaL"), (long long)net->count);

    int64_t bits = olive_h5_get_i64(path, gj, "/gap_junctions", "bits");
    if (bits != 0 && bits != 4 && bits != 8 && bits != 16 && bits != 32 && bits != 64)
        olive_die("%s: /gap_junctions bits = %lld, must be 0, 4, 8, 16, 32 or 64", path, (long long)bits);
    net->bits = (int)bits;
    net->offset = olive_h5_get_f64(path, gj, "/gap_junctions", "offset");
    net->scale = olive_h5_get_f64(path, gj, "/gap_junctions", "scale");
    if (olive_h5_len1(path, gj, "row_ptr") != net->count + 1)
        olive_die("%s: /gap_junctions/row_ptr has %lld entries, expected count+1 = %lld", path,
                  (long long)olive_h5_len1(path, gj, "row_ptr"), (long long)net->count + 1);
    H5T_class_t cls;
    size_t sz;
    olive_h5_dtype_info(path, gj, "row_ptr", &cls, &sz);
    if (cls != H5T_INTEGER) olive_die("%s: /gap_junctions/row_ptr must be an integer dataset", path);
    net->nnz_total = olive_h5_len1(path, gj, "col");
    olive_h5_dtype_info(path, gj, "col", &cls, &sz);
    if (cls != H5T_INTEGER) olive_die("%s: /gap_junctions/col must be an integer dataset", path);
    if (net->bits) {
        if (!olive_h5_exists(gj, "conductance"))
            olive_die("%s: /gap_junctions/conductance is missing (bits = %d)", path, net->bits);
        /* values: one per junction, two per byte at 4 bits */
        int64_t want = net->bits == 4 ? (net->nnz_total + 1) / 2 : net->nnz_total;
        int64_t len = olive_h5_len1(path, gj, "conductance");
        if (len != want)
            olive_die("%s: /gap_junctions/conductance has %lld values, expected %lld for %lld junctions at %d bits",
                      path, (long long)len, (long long)want, (long long)net->nnz_total, net->bits);
        olive_h5_dtype_info(path, gj, "conductance", &cls, &sz);
        int want_float = net->bits >= 32;
        if ((want_float && cls != H5T_FLOAT) || (!want_float && cls != H5T_INTEGER) ||
            sz * 8 != (size_t)(net->bits == 4 ? 8 : net->bits))
            olive_die("%s: /gap_junctions/conductance has the wrong element type for bits = %d", path, net->bits);
        /* Codes are unsigned: HDF5 would clamp a negative int8/int16 code
         * to 0 where numpy reads it negative. */
        if (!want_float && !olive_h5_dset_unsigned(path, gj, "conductance"))
            olive_die("%s: /gap_junctions/conductance holds signed integers; codes of %d bits must be stored "
                      "unsigned (uint%d)", path, net->bits, net->bits == 4 ? 8 : net->bits);
    }
    else if (olive_h5_exists(gj, "conductance"))
        olive_die("%s: /gap_junctions/conductance is there but bits = 0 (every junction 1 mS/cm2) would ignore it",
                  path);
    olive_h5_get_str_opt(path, gj, "generator", net->generator, sizeof net->generator);
    olive_h5_get_str_opt(path, gj, "command", net->command, sizeof net->command);
    if (olive_h5_has_attr(gj, "seed")) net->seed = (uint64_t)olive_h5_get_i64(path, gj, "/gap_junctions", "seed");
    if (olive_h5_has_attr(gj, "density")) net->density = olive_h5_get_f64(path, gj, "/gap_junctions", "density");
    if (olive_h5_has_attr(gj, "sigma")) net->sigma = olive_h5_get_f64(path, gj, "/gap_junctions", "sigma");
    if (olive_h5_has_attr(gj, "symmetric")) net->symmetric = (int)olive_h5_get_i64(path, gj, "/gap_junctions", "symmetric");
    H5Gclose(cells);
    H5Gclose(gj);
}

void olive_net_read_header(const char *path, olive_network *net)
{
    hid_t f = olive_h5_open_read(path);
    read_header(path, f, net);
    H5Fclose(f);
}

void olive_net_read_rows(const char *path, int64_t row0, int64_t row1, olive_network *net)
{
    hid_t f = olive_h5_open_read(path);
    read_header(path, f, net);
    if (row0 < 0 || row1 > net->count || row0 > row1)
        olive_die("%s: internal: row range [%lld, %lld) outside the network", path, (long long)row0, (long long)row1);
    net->row0 = row0;
    net->row1 = row1;
    int64_t rows = row1 - row0;
    hid_t gj = H5Gopen2(f, "gap_junctions", H5P_DEFAULT);
    int64_t ends[2];
    olive_h5_read_slab1(path, gj, "row_ptr", H5T_NATIVE_INT64, 0, 1, &ends[0]);
    olive_h5_read_slab1(path, gj, "row_ptr", H5T_NATIVE_INT64, net->count, 1, &ends[1]);
    if (ends[0] != 0) olive_die("%s: /gap_junctions/row_ptr[0] = %lld, must be 0", path, (long long)ends[0]);
    if (ends[1] != net->nnz_total)
        olive_die("%s: /gap_junctions/row_ptr[count] = %lld but col has %lld entries", path,
                  (long long)ends[1], (long long)net->nnz_total);
    net->row_ptr = olive_malloc((size_t)(rows + 1) * sizeof(int64_t), "row_ptr");
    olive_h5_read_slab1(path, gj, "row_ptr", H5T_NATIVE_INT64, row0, rows + 1, net->row_ptr);
    int64_t e0 = net->row_ptr[0], e1 = net->row_ptr[rows];
    if (e0 < 0 || e1 < e0 || e1 > net->nnz_total)
        olive_die("%s: /gap_junctions/row_ptr is not monotone between rows %lld and %lld", path,
                  (long long)row0, (long long)row1);
    for (int64_t r = 0; r <= rows; r++) net->row_ptr[r] -= e0;
    net->e0 = e0;
    net->nnz = e1 - e0;
    net->col = olive_malloc((size_t)net->nnz * sizeof(int32_t) + 1, "col");
    H5T_class_t col_class;
    size_t col_size;
    olive_h5_dtype_info(path, gj, "col", &col_class, &col_size);
    if (col_class == H5T_INTEGER && col_size == 4) {
        /* int32 ids as stored: no conversion (HDF5 converts at ~0.5 GB/s),
         * straight into col; olive_net_check below catches bad ids. */
        const int64_t piece = INT64_C(1) << 28;
        for (int64_t s = 0; s < net->nnz; s += piece) {
            int64_t n = net->nnz - s < piece ? net->nnz - s : piece;
            olive_h5_read_slab1(path, gj, "col", H5T_NATIVE_INT32, e0 + s, n, net->col + s);
        }
    } else {
        /* Other types read as int64 in pieces, so an out-of-range id is
         * caught, not clamped. */
        const int64_t piece = 1 << 20;
        int64_t *buf = olive_malloc((size_t)piece * sizeof(int64_t), "col buffer");
        for (int64_t s = 0; s < net->nnz; s += piece) {
            int64_t n = net->nnz - s < piece ? net->nnz - s : piece;
            olive_h5_read_slab1(path, gj, "col", H5T_NATIVE_INT64, e0 + s, n, buf);
            for (int64_t i = 0; i < n; i++) {
                if (buf[i] < 0 || buf[i] >= net->count)
                    olive_die("%s: invalid network: col[%lld] = %lld is out of range [0, %lld)", path,
                              (long long)(e0 + s + i), (long long)buf[i], (long long)net->count);
                net->col[s + i] = (int32_t)buf[i];
            }
        }
        free(buf);
    }
    if (net->bits) {
        net->cond = olive_calloc(olive_cond_bytes(net->bits, net->nnz + OLIVE_JUNCTION_PAD), 1, "conductances");
        if (net->bits == 4) {
            int64_t b0 = e0 / 2, b1 = (e1 + 1) / 2;
            uint8_t *raw = olive_malloc((size_t)(b1 - b0) + 1, "conductances");
            olive_h5_read_slab1(path, gj, "conductance", H5T_NATIVE_UINT8, b0, b1 - b0, raw);
            for (int64_t e = 0; e < net->nnz; e++) {
                int64_t g = e0 + e;
                olive_cond_set(4, net->cond, e, (raw[g / 2 - b0] >> ((g & 1) * 4)) & 15, 0);
            }
            free(raw);
        } else {
            olive_h5_read_slab1(path, gj, "conductance", cond_mtype(net->bits), e0, net->nnz, net->cond);
        }
    }
    hid_t cells = H5Gopen2(f, "cells", H5P_DEFAULT);
    if (olive_h5_exists(cells, "g_CaL")) {
        net->g_cal = olive_malloc((size_t)rows * sizeof(double) + 1, "g_CaL");
        olive_h5_read_slab1(path, cells, "g_CaL", H5T_NATIVE_DOUBLE, row0, rows, net->g_cal);
    }
    H5Gclose(cells);
    H5Gclose(gj);
    H5Fclose(f);
    const char *fault = olive_net_check(net);
    if (fault) olive_die("%s: invalid network: %s", path, fault);
}

void olive_net_read(const char *path, olive_network *net)
{
    olive_network hdr;
    olive_net_read_header(path, &hdr);
    olive_net_read_rows(path, 0, hdr.count, net);
}

static void write_attrs(const char *path, hid_t f, hid_t cells, hid_t gj, const olive_network *net);

void olive_net_write(const char *path, const olive_network *net, int force)
{
    olive_net_write_ex(path, net, force, NULL, NULL);
}

void olive_net_write_ex(const char *path, const olive_network *net, int force,
                        void (*extra)(const char *path, int64_t file, void *ctx), void *ctx)
{
    const char *fault = olive_net_check(net);
    if (fault) olive_die("%s: internal: refusing to write an invalid network: %s", path, fault);
    const char *tmp = olive_atomic_begin(path, force);
    hid_t f = olive_h5_create(tmp);
    hid_t cells = olive_h5_group(path, f, "cells");
    hid_t gj = olive_h5_group(path, f, "gap_junctions");
    write_attrs(path, f, cells, gj, net);
    if (net->g_cal)
        olive_h5_write1(path, cells, "g_CaL", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, net->count, net->g_cal, 0);
    olive_h5_write1(path, gj, "row_ptr", H5T_STD_I64LE, H5T_NATIVE_INT64, net->count + 1, net->row_ptr, 0);
    olive_h5_write1(path, gj, "col", H5T_STD_I32LE, H5T_NATIVE_INT32, net->nnz, net->col, 0);
    if (net->bits) {
        int64_t n = net->bits == 4 ? (net->nnz + 1) / 2 : net->nnz;
        olive_h5_write1(path, gj, "conductance", cond_ftype(net->bits), cond_mtype(net->bits), n, net->cond, 0);
    }
    olive_h5_close(path, gj, "group /gap_junctions");
    olive_h5_close(path, cells, "group /cells");
    if (extra) extra(path, f, ctx);
    olive_h5_close_file(path, f);
    olive_atomic_commit(tmp);
}

#define NET_CHECK_MPI(call) do { if ((call) != MPI_SUCCESS) olive_die("%s: MPI call failed: %s", path, #call); } while (0)

static void write_attrs(const char *path, hid_t f, hid_t cells, hid_t gj, const olive_network *net)
{
    olive_h5_attr_str(path, f, "format", "olive-network");
    olive_h5_attr_i64(path, f, "format_version", 1);
    olive_h5_attr_str(path, f, "olive_version", OLIVE_VERSION);
    olive_h5_attr_i64(path, cells, "count", net->count);
    olive_h5_attr_i64v(path, cells, "dims", net->dims, 3);
    olive_h5_attr_i64(path, gj, "bits", net->bits);
    olive_h5_attr_f64(path, gj, "offset", net->offset);
    olive_h5_attr_f64(path, gj, "scale", net->scale);
    olive_h5_attr_str(path, gj, "generator", net->generator);
    olive_h5_attr_i64(path, gj, "seed", (int64_t)net->seed);
    olive_h5_attr_f64(path, gj, "density", net->density);
    olive_h5_attr_f64(path, gj, "sigma", net->sigma);
    olive_h5_attr_i64(path, gj, "symmetric", net->symmetric);
    olive_h5_attr_str(path, gj, "command", net->command_full ? net->command_full : net->command);
}

void olive_net_write_par(const char *path, const olive_network *net, int force, MPI_Comm comm)
{
    int rank, size;
    NET_CHECK_MPI(MPI_Comm_rank(comm, &rank));
    NET_CHECK_MPI(MPI_Comm_size(comm, &size));
    if (size == 1) { olive_net_write(path, net, force); return; }
    const char *fault = olive_net_check(net);
    if (fault) olive_die("%s: internal: refusing to write an invalid network: %s", path, fault);
    char tmp[4096] = "";
    if (rank == 0) snprintf(tmp, sizeof tmp, "%s", olive_atomic_begin(path, force));
    NET_CHECK_MPI(MPI_Bcast(tmp, sizeof tmp, MPI_CHAR, 0, comm));
    if (rank != 0) olive_atomic_share(tmp);
    int64_t e0 = 0, nnz = net->nnz, rows = net->row1 - net->row0;
    NET_CHECK_MPI(MPI_Exscan(&nnz, &e0, 1, MPI_INT64_T, MPI_SUM, comm));
    if (rank == 0) e0 = 0;
    hid_t f = olive_h5_create_par(tmp, comm);
    hid_t xfer = olive_h5_xfer(comm);
    hid_t cells = olive_h5_group(path, f, "cells");
    hid_t gj = olive_h5_group(path, f, "gap_junctions");
    write_attrs(path, f, cells, gj, net);
    if (net->g_cal) {
        hid_t d = olive_h5_dset1(path, cells, "g_CaL", H5T_IEEE_F64LE, net->count, 0);
        olive_h5_write_slab1(path, d, H5T_NATIVE_DOUBLE, net->row0, rows, net->g_cal, xfer);
        olive_h5_close(path, d, "dataset /cells/g_CaL");
    }
    int64_t *rp = olive_malloc((size_t)(rows + 1) * sizeof(int64_t), "row_ptr");
    for (int64_t r = 0; r <= rows; r++) rp[r] = net->row_ptr[r] + e0;
    hid_t d = olive_h5_dset1(path, gj, "row_ptr", H5T_STD_I64LE, net->count + 1, 0);
    olive_h5_write_slab1(path, d, H5T_NATIVE_INT64, net->row0, rows + (net->row1 == net->count), rp, xfer);
    olive_h5_close(path, d, "dataset /gap_junctions/row_ptr");
    free(rp);
    d = olive_h5_dset1(path, gj, "col", H5T_STD_I32LE, net->nnz_total, 0);
    olive_h5_write_slab1(path, d, H5T_NATIVE_INT32, e0, nnz, net->col, xfer);
    olive_h5_close(path, d, "dataset /gap_junctions/col");
    if (net->bits == 4) {
        /* Junctions 2k and 2k+1 share byte k; the rank owning junction 2k
         * writes it, taking the high nibble from the next rank with junctions
         * when 2k+1 is that rank's first junction. */
        uint8_t first = nnz > 0 ? (uint8_t)(((const uint8_t *)net->cond)[0] & 15) : 255;
        uint8_t *firsts = olive_malloc((size_t)size, "first codes");
        NET_CHECK_MPI(MPI_Allgather(&first, 1, MPI_UINT8_T, firsts, 1, MPI_UINT8_T, comm));
        int64_t e1 = e0 + nnz, kb = (e0 + 1) / 2, ke = (e1 + 1) / 2;
        uint8_t *bytes = olive_calloc((size_t)(ke - kb) + 1, 1, "packed codes");
        for (int64_t k = kb; k < ke; k++) {
            int64_t lo = 2 * k - e0, hi = lo + 1;
            uint8_t b = (((const uint8_t *)net->cond)[lo >> 1] >> ((lo & 1) * 4)) & 15;
            uint8_t h = 0;
            if (2 * k + 1 < e1) h = (((const uint8_t *)net->cond)[hi >> 1] >> ((hi & 1) * 4)) & 15;
            else if (2 * k + 1 < net->nnz_total)
                for (int q = rank + 1; q < size; q++) if (firsts[q] != 255) { h = firsts[q]; break; }
            bytes[k - kb] = (uint8_t)(b | h << 4);
        }
        d = olive_h5_dset1(path, gj, "conductance", H5T_STD_U8LE, (net->nnz_total + 1) / 2, 0);
        olive_h5_write_slab1(path, d, H5T_NATIVE_UINT8, kb, ke - kb, bytes, xfer);
        olive_h5_close(path, d, "dataset /gap_junctions/conductance");
        free(bytes);
        free(firsts);
    } else if (net->bits) {
        d = olive_h5_dset1(path, gj, "conductance", cond_ftype(net->bits), net->nnz_total, 0);
        olive_h5_write_slab1(path, d, cond_mtype(net->bits), e0, nnz, net->cond, xfer);
        olive_h5_close(path, d, "dataset /gap_junctions/conductance");
    }
    olive_h5_close(path, gj, "group /gap_junctions");
    olive_h5_close(path, cells, "group /cells");
    olive_h5_close(path, xfer, "a transfer property list");
    olive_h5_close_file(path, f);
    NET_CHECK_MPI(MPI_Barrier(comm));
    if (rank == 0) olive_atomic_commit(tmp);
}

/* CRC of rows [r0, r1) of net, and its byte count. */
static uLong rows_crc(const olive_network *net, int64_t r0, int64_t r1, uint64_t *bytes)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    *bytes = 0;
    for (int64_t r = r0; r < r1; r++) {
        int64_t deg = net->row_ptr[r + 1] - net->row_ptr[r];
        crc = crc32(crc, (const Bytef *)&deg, sizeof deg);
        crc = crc32_z(crc, (const Bytef *)(net->col + net->row_ptr[r]), (size_t)deg * sizeof(int32_t));
        *bytes += sizeof deg + (uint64_t)deg * sizeof(int32_t);
    }
    return crc;
}

uint32_t olive_net_structure_crc(const olive_network *net, uint64_t *bytes)
{
    /* CRC over each held row's (int64 degree, int32 ids...), so the CRCs of
     * consecutive row blocks combine (crc32_combine) into the CRC of the
     * whole network whatever the split: the same holds for the blocks of
     * rows that threads checksum here, combined in row order. */
    const int64_t rows = net->row1 - net->row0, nb = 256;
    uLong part[256];
    uint64_t len[256];
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t b = 0; b < nb; b++)
        part[b] = rows_crc(net, rows * b / nb, rows * (b + 1) / nb, &len[b]);
    uLong crc = part[0];
    *bytes = len[0];
    for (int64_t b = 1; b < nb; b++) {
        crc = crc32_combine(crc, part[b], (z_off_t)len[b]);
        *bytes += len[b];
    }
    return (uint32_t)crc;
}

uint32_t olive_crc_combine(uint32_t a, uint32_t b, uint64_t bytes_b)
{
    return (uint32_t)crc32_combine(a, b, (z_off_t)bytes_b);
}

uint32_t olive_crc_finish(uint32_t crc, int64_t count)
{
    return (uint32_t)crc32(crc, (const Bytef *)&count, sizeof count);
}

void olive_net_free(olive_network *net)
{
    free(net->g_cal);
    free(net->row_ptr);
    free(net->col);
    free(net->cond);
    memset(net, 0, sizeof *net);
}
