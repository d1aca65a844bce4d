#include "mapfile.h"
#include "h5util.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

/* Layout: per-rank variable-length parts are concatenated in rank order into
 * one dataset each, with an int64[P+1] offsets dataset beside it:
 *   /bounds int64[P+1]
 *   /halo/ids int64 + /halo/offsets      (receive lists, ascending ids)
 *   /halo/counts int32[P*P]              (row r: halo cells rank r gets from each rank)
 *   /send/local int32 + /send/offsets    (send lists, local indices, by destination)
 *   /send/counts int32[P*P]
 *   /rows/lcol int32[nnz]                (junction neighbours as local indices, network order)
 *   /rows/order int32[count]             (per rank: interior rows, then boundary rows)
 *   /rows/ninterior int64[P]                                                           */

static void write_concat_i64(const char *path, hid_t g, const char *name, int P, const olive_plan *plans,
                             int64_t (*len)(const olive_plan *), const int64_t *(*data)(const olive_plan *))
{
    int64_t *off = olive_malloc((size_t)(P + 1) * sizeof(int64_t), "offsets");
    off[0] = 0;
    for (int r = 0; r < P; r++) off[r + 1] = off[r] + len(&plans[r]);
    hid_t d = olive_h5_dset1(path, g, name, H5T_STD_I64LE, off[P], 0);
    for (int r = 0; r < P; r++) olive_h5_write_slab1(path, d, H5T_NATIVE_INT64, off[r], len(&plans[r]), data(&plans[r]), H5P_DEFAULT);
    olive_h5_close(path, d, name);
    olive_h5_write1(path, g, "offsets", H5T_STD_I64LE, H5T_NATIVE_INT64, P + 1, off, 0);
    free(off);
}

static int64_t halo_len(const olive_plan *p) { return p->nhalo; }
static const int64_t *halo_data(const olive_plan *p) { return p->halo_ids; }

void olive_map_write(const char *path, const char *net_path, uint32_t crc, int64_t count, int64_t nnz,
                     int balance, const int64_t *bounds, int P, const olive_plan *plans, double time_dispersal_s,
                     int force)
{
    const char *tmp = olive_atomic_begin(path, force);
    hid_t f = olive_h5_create(tmp);
    olive_h5_attr_str(path, f, "format", "olive-map");
    olive_h5_attr_i64(path, f, "format_version", 1);
    olive_h5_attr_str(path, f, "olive_version", OLIVE_VERSION);
    olive_h5_attr_str(path, f, "network", net_path);
    olive_h5_attr_i64(path, f, "network_crc", crc);
    olive_h5_attr_i64(path, f, "ranks", P);
    olive_h5_attr_i64(path, f, "cells", count);
    olive_h5_attr_i64(path, f, "junctions", nnz);
    olive_h5_attr_str(path, f, "balance", balance == OLIVE_BALANCE_JUNCTIONS ? "junctions" : "cells");
    olive_h5_attr_str(path, f, "command", olive_cmdline());
    olive_h5_attr_f64(path, f, "time_dispersal_s", time_dispersal_s);
    olive_h5_write1(path, f, "bounds", H5T_STD_I64LE, H5T_NATIVE_INT64, P + 1, bounds, 0);

    hid_t g = olive_h5_group(path, f, "halo");
    write_concat_i64(path, g, "ids", P, plans, halo_len, halo_data);
    int32_t *counts = olive_malloc((size_t)P * (size_t)P * sizeof(int32_t), "counts");
    for (int r = 0; r < P; r++) for (int q = 0; q < P; q++) counts[(size_t)r * P + q] = plans[r].recv_count[q];
    olive_h5_write1(path, g, "counts", H5T_STD_I32LE, H5T_NATIVE_INT32, (int64_t)P * P, counts, 0);
    olive_h5_close(path, g, "group /halo");

    g = olive_h5_group(path, f, "send");
    int64_t *off = olive_malloc((size_t)(P + 1) * sizeof(int64_t), "offsets");
    off[0] = 0;
    for (int r = 0; r < P; r++) off[r + 1] = off[r] + plans[r].nsend;
    hid_t d = olive_h5_dset1(path, g, "local", H5T_STD_I32LE, off[P], 0);
    for (int r = 0; r < P; r++) olive_h5_write_slab1(path, d, H5T_NATIVE_INT32, off[r], plans[r].nsend, plans[r].send_local, H5P_DEFAULT);
    olive_h5_close(path, d, "dataset /send/local");
    olive_h5_write1(path, g, "offsets", H5T_STD_I64LE, H5T_NATIVE_INT64, P + 1, off, 0);
    for (int r = 0; r < P; r++) for (int q = 0; q < P; q++) counts[(size_t)r * P + q] = plans[r].send_count[q];
    olive_h5_write1(path, g, "counts", H5T_STD_I32LE, H5T_NATIVE_INT32, (int64_t)P * P, counts, 0);
    olive_h5_close(path, g, "group /send");
    free(counts);

    g = olive_h5_group(path, f, "rows");
    d = olive_h5_dset1(path, g, "lcol", H5T_STD_I32LE, nnz, 0);
    int64_t e0 = 0;
    for (int r = 0; r < P; r++) {
        int64_t n = plans[r].lrow_ptr[plans[r].nlocal];
        olive_h5_write_slab1(path, d, H5T_NATIVE_INT32, e0, n, plans[r].lcol, H5P_DEFAULT);
        e0 += n;
    }
    olive_h5_close(path, d, "dataset /rows/lcol");
    d = olive_h5_dset1(path, g, "order", H5T_STD_I32LE, count, 0);
    int64_t *nint = olive_malloc((size_t)P * sizeof(int64_t), "ninterior");
    for (int r = 0; r < P; r++) {
        olive_h5_write_slab1(path, d, H5T_NATIVE_INT32, bounds[r], plans[r].ninterior, plans[r].interior, H5P_DEFAULT);
        olive_h5_write_slab1(path, d, H5T_NATIVE_INT32, bounds[r] + plans[r].ninterior, plans[r].nboundary,
                             plans[r].boundary, H5P_DEFAULT);
        nint[r] = plans[r].ninterior;
    }
    olive_h5_close(path, d, "dataset /rows/order");
    olive_h5_write1(path, g, "ninterior", H5T_STD_I64LE, H5T_NATIVE_INT64, P, nint, 0);
    free(nint);
    free(off);
    olive_h5_close(path, g, "group /rows");
    olive_h5_close_file(path, f);
    olive_atomic_commit(tmp);
}

void olive_map_read_header(const char *path, olive_map_header *h)
{
    memset(h, 0, sizeof *h);
    hid_t f = olive_h5_open_read(path);
    char fmt[64] = "", bal[32] = "";
    if (!olive_h5_get_str_opt(path, f, "format", fmt, sizeof fmt) || strcmp(fmt, "olive-map") != 0)
        olive_die("%s: not an olive dispersal map (root attribute format must be 'olive-map')", path);
    if (olive_h5_get_i64(path, f, "/", "format_version") != 1) olive_die("%s: format_version must be 1", path);
    int64_t P = olive_h5_get_i64(path, f, "/", "ranks");
    if (P < 1 || P > (1 << 20)) olive_die("%s: ranks = %lld is not valid", path, (long long)P);
    h->P = (int)P;
    h->count = olive_h5_get_i64(path, f, "/", "cells");
    h->nnz = olive_h5_get_i64(path, f, "/", "junctions");
    h->network_crc = (uint32_t)olive_h5_get_i64(path, f, "/", "network_crc");
    if (olive_h5_has_attr(f, "time_dispersal_s")) h->time_dispersal_s = olive_h5_get_f64(path, f, "/", "time_dispersal_s");
    olive_h5_get_str_opt(path, f, "network", h->network, sizeof h->network);
    olive_h5_get_str_opt(path, f, "balance", bal, sizeof bal);
    h->balance = strcmp(bal, "junctions") == 0 ? OLIVE_BALANCE_JUNCTIONS : OLIVE_BALANCE_CELLS;
    if (olive_h5_len1(path, f, "bounds") != P + 1) olive_die("%s: /bounds must have ranks+1 entries", path);
    h->bounds = olive_malloc((size_t)(P + 1) * sizeof(int64_t), "bounds");
    olive_h5_read_slab1(path, f, "bounds", H5T_NATIVE_INT64, 0, P + 1, h->bounds);
    if (h->bounds[0] != 0 || h->bounds[P] != h->count) olive_die("%s: /bounds does not cover the cells", path);
    for (int r = 0; r < P; r++)
        if (h->bounds[r + 1] <= h->bounds[r]) olive_die("%s: /bounds is not strictly increasing at rank %d", path, r);
    H5Fclose(f);
}

static void read_part(const char *path, hid_t f, const char *grp, int rank, hid_t mtype, size_t el, void **out, int64_t *n)
{
    char name[64];
    int64_t off[2];
    snprintf(name, sizeof name, "%s/offsets", grp);
    olive_h5_read_slab1(path, f, name, H5T_NATIVE_INT64, rank, 2, off);
    snprintf(name, sizeof name, "%s/%s", grp, strcmp(grp, "halo") == 0 ? "ids" : "local");
    if (off[1] < off[0] || off[1] > olive_h5_len1(path, f, name)) olive_die("%s: /%s/offsets are corrupt", path, grp);
    *n = off[1] - off[0];
    *out = olive_malloc((size_t)*n * el + el, grp);
    olive_h5_read_slab1(path, f, name, mtype, off[0], *n, *out);
}

void olive_map_read_plan(const char *path, const olive_map_header *h, int rank, const olive_network *net, olive_plan *p)
{
    memset(p, 0, sizeof *p);
    int P = h->P;
    hid_t f = olive_h5_open_read(path);
    p->P = P;
    p->rank = rank;
    p->row0 = h->bounds[rank];
    p->row1 = h->bounds[rank + 1];
    p->nlocal = p->row1 - p->row0;
    read_part(path, f, "halo", rank, H5T_NATIVE_INT64, sizeof(int64_t), (void **)&p->halo_ids, &p->nhalo);
    int64_t nsend;
    read_part(path, f, "send", rank, H5T_NATIVE_INT32, sizeof(int32_t), (void **)&p->send_local, &nsend);
    p->nsend = nsend;
    p->recv_count = olive_malloc((size_t)P * sizeof(int), "counts");
    p->recv_displ = olive_malloc((size_t)P * sizeof(int), "counts");
    p->send_count = olive_malloc((size_t)P * sizeof(int), "counts");
    p->send_displ = olive_malloc((size_t)P * sizeof(int), "counts");
    olive_h5_read_slab1(path, f, "halo/counts", H5T_NATIVE_INT, (int64_t)rank * P, P, p->recv_count);
    olive_h5_read_slab1(path, f, "send/counts", H5T_NATIVE_INT, (int64_t)rank * P, P, p->send_count);
    int64_t rs = 0, ss = 0;
    for (int q = 0; q < P; q++) {
        if (p->recv_count[q] < 0 || p->send_count[q] < 0) olive_die("%s: negative counts for rank %d", path, rank);
        p->recv_displ[q] = (int)rs; rs += p->recv_count[q];
        p->send_displ[q] = (int)ss; ss += p->send_count[q];
    }
    if (rs != p->nhalo || ss != p->nsend) olive_die("%s: rank %d's counts do not match its lists", path, rank);
    for (int64_t i = 0; i < p->nsend; i++)
        if (p->send_local[i] < 0 || p->send_local[i] >= p->nlocal) olive_die("%s: rank %d's send list is out of range", path, rank);
    for (int64_t i = 0; i < p->nhalo; i++)
        if (p->halo_ids[i] < 0 || p->halo_ids[i] >= h->count || (i && p->halo_ids[i] <= p->halo_ids[i - 1]))
            olive_die("%s: rank %d's halo list is not ascending ids of the network", path, rank);

    p->lrow_ptr = olive_malloc((size_t)(p->nlocal + 1) * sizeof(int64_t), "row_ptr");
    memcpy(p->lrow_ptr, net->row_ptr, (size_t)(p->nlocal + 1) * sizeof(int64_t));
    if (olive_h5_len1(path, f, "rows/lcol") != net->nnz_total || olive_h5_len1(path, f, "rows/order") != h->count)
        olive_die("%s: /rows/lcol or /rows/order does not match the network's size", path);
    p->lcol = olive_calloc((size_t)(net->nnz + OLIVE_JUNCTION_PAD), sizeof(int32_t), "lcol");   /* zeroed padding: netfile.h */
    olive_h5_read_slab1(path, f, "rows/lcol", H5T_NATIVE_INT32, net->e0, net->nnz, p->lcol);
    /* A corrupt map must not make the kernel read out of bounds: check that
     * each local index names the same global cell as the network row. */
    for (int64_t e = 0; e < net->nnz; e++) {
        int64_t l = p->lcol[e], g;
        if (l < 0 || l >= p->nlocal + p->nhalo) g = -1;
        else g = l < p->nlocal ? p->row0 + l : p->halo_ids[l - p->nlocal];
        if (g != net->col[e]) olive_die("%s: rank %d's junction %lld does not match the network", path, rank, (long long)e);
    }
    int64_t nint;
    olive_h5_read_slab1(path, f, "rows/ninterior", H5T_NATIVE_INT64, rank, 1, &nint);
    if (nint < 0 || nint > p->nlocal) olive_die("%s: rank %d's interior count is out of range", path, rank);
    int32_t *order = olive_malloc((size_t)p->nlocal * sizeof(int32_t) + 4, "order");
    olive_h5_read_slab1(path, f, "rows/order", H5T_NATIVE_INT32, p->row0, p->nlocal, order);
    char *seen = olive_calloc((size_t)p->nlocal + 1, 1, "order");
    for (int64_t i = 0; i < p->nlocal; i++) {
        if (order[i] < 0 || order[i] >= p->nlocal || seen[order[i]]) olive_die("%s: rank %d's row order is not a permutation", path, rank);
        seen[order[i]] = 1;
    }
    free(seen);
    p->ninterior = nint;
    p->nboundary = p->nlocal - nint;
    p->interior = order;
    p->boundary = olive_malloc((size_t)p->nboundary * sizeof(int32_t) + 4, "boundary");
    memcpy(p->boundary, order + nint, (size_t)p->nboundary * sizeof(int32_t));
    for (int64_t i = 0; i < nint; i++)
        for (int64_t e = p->lrow_ptr[order[i]]; e < p->lrow_ptr[order[i] + 1]; e++)
            if (p->lcol[e] >= p->nlocal) olive_die("%s: rank %d's interior row %d has a foreign neighbour", path, rank, order[i]);
    H5Fclose(f);
}

void olive_map_header_free(olive_map_header *h)
{
    free(h->bounds);
    h->bounds = NULL;
}
