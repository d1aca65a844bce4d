/* --export-sonata PREFIX: the network as SONATA files, for NEURON, NEST,
 * bmtk or libsonata (docs/IMPORT-EXPORT.md).
 *
 * PREFIX_nodes.h5:  /nodes/io/node_id (uint64), node_type_id (uint32, 0),
 *                   node_group_id (uint32, 0), node_group_index (uint64),
 *                   /nodes/io/0/g_CaL (float64) and x, y, z (lattice position).
 * PREFIX_edges.h5:  /edges/io/source_node_id, target_node_id (uint64, attribute
 *                   node_population = "io"), edge_type_id (uint32, 0),
 *                   edge_group_id (uint32, 0), edge_group_index (uint64),
 *                   /edges/io/0/conductance (float64, mS/cm²).
 *                   /edges/io/indices/{target_to_source,source_to_target}/
 *                   {node_id_to_ranges, range_to_edge_id} (uint64 [.,2]: the
 *                   SONATA edge index libsonata's afferent/efferent queries use).
 * PREFIX_node_types.csv, PREFIX_edge_types.csv: the one node and edge type.
 * PREFIX_circuit_config.json: the SONATA circuit config naming those four.
 * Both .h5 files carry the root attributes magic = 0x0A7A and version = [0, 1].
 * One edge per junction, in the network's order (sorted by target, then
 * source); conductances decoded from the packing, so offset + code·scale
 * exactly. Each rank writes its own rows (collective parallel HDF5). */
#include "genconn.h"
#include "h5util.h"
#include "util.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define POP "io"

static const char *const export_suffix[GC_EXPORT_FILES] = {"_nodes.h5", "_edges.h5", "_node_types.csv",
                                                           "_edge_types.csv", "_circuit_config.json"};

void gc_export_paths(const char *prefix, gc_export *x)
{
    memset(x, 0, sizeof *x);
    if (strlen(prefix) + 32 > sizeof x->path[0]) olive_usage_error("--export-sonata: '%s' is too long", prefix);
    for (int k = 0; k < GC_EXPORT_FILES; k++) snprintf(x->path[k], sizeof x->path[k], "%s%s", prefix, export_suffix[k]);
}

/* The last component of a path (the config names its files relative to
 * itself: they lie in one directory). */
static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* A small text file, written whole, every call checked. */
static void write_text(const char *final, const char *tmp, const char *text)
{
    FILE *f = fopen(tmp, "w");
    if (!f) olive_die("%s: cannot write: %s", final, strerror(errno));
    if (fputs(text, f) == EOF || fflush(f) != 0) olive_die("%s: write failed: %s", final, strerror(errno));
    if (fclose(f) != 0) olive_die("%s: closing failed: %s", final, strerror(errno));
}

static void write_side_files(const gc_export *x)
{
    write_text(x->path[GC_EXP_NODE_TYPES], x->tmp[GC_EXP_NODE_TYPES],
               "node_type_id model_type model_name pop_name\n0 point_neuron infoli io\n");
    write_text(x->path[GC_EXP_EDGE_TYPES], x->tmp[GC_EXP_EDGE_TYPES],
               "edge_type_id model_type\n0 gap_junction\n");
    char json[24576];
    snprintf(json, sizeof json,
             "{\n"
             "  \"manifest\": {\"$BASE_DIR\": \".\"},\n"
             "  \"networks\": {\n"
             "    \"nodes\": [{\"nodes_file\": \"$BASE_DIR/%s\", \"node_types_file\": \"$BASE_DIR/%s\",\n"
             "               \"populations\": {\"" POP "\": {\"type\": \"point_neuron\"}}}],\n"
             "    \"edges\": [{\"edges_file\": \"$BASE_DIR/%s\", \"edge_types_file\": \"$BASE_DIR/%s\",\n"
             "               \"populations\": {\"" POP "\": {\"type\": \"electrical\"}}}]\n"
             "  }\n"
             "}\n",
             base_name(x->path[GC_EXP_NODES]), base_name(x->path[GC_EXP_NODE_TYPES]), base_name(x->path[GC_EXP_EDGES]),
             base_name(x->path[GC_EXP_EDGE_TYPES]));
    write_text(x->path[GC_EXP_CONFIG], x->tmp[GC_EXP_CONFIG], json);
}

/* A uint32 attribute of n values (0: a scalar): SONATA's types, which the
 * int64 setters of h5util do not write. */
static void attr_u32(const char *path, hid_t f, const char *name, const uint32_t *v, hsize_t n)
{
    hid_t sp = n ? H5Screate_simple(1, &n, NULL) : H5Screate(H5S_SCALAR);
    if (sp < 0) olive_h5_fail(path, "cannot make the dataspace of attribute %s", name);
    hid_t a = H5Acreate2(f, name, H5T_STD_U32LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0 || H5Awrite(a, H5T_NATIVE_UINT32, v) < 0) olive_h5_fail(path, "cannot write attribute %s", name);
    olive_h5_close(path, a, name);
    olive_h5_close(path, sp, "an attribute dataspace");
}

static void sonata_root(const char *path, hid_t f)
{
    uint32_t magic = 0x0A7A, version[2] = {0, 1};
    attr_u32(path, f, "magic", &magic, 0);
    attr_u32(path, f, "version", version, 2);
}

/* Create the 1-D dataset loc/name of total elements and write this rank's
 * part [off, off+n) of it. */
static hid_t put(const char *path, hid_t loc, const char *name, hid_t ftype, hid_t mtype, int64_t total, int64_t off,
                 int64_t n, const void *data, hid_t xfer)
{
    hid_t d = olive_h5_dset1(path, loc, name, ftype, total, 0);
    olive_h5_write_slab1(path, d, mtype, off, n, data, xfer);
    return d;
}

static void put_close(const char *path, hid_t loc, const char *name, hid_t ftype, hid_t mtype, int64_t total,
                      int64_t off, int64_t n, const void *data, hid_t xfer)
{
    olive_h5_close(path, put(path, loc, name, ftype, mtype, total, off, n, data, xfer), name);
}

static void begin_tmp(const char *final, int force, char *tmp, int rank, MPI_Comm comm)
{
    if (rank == 0) snprintf(tmp, 4096, "%s", olive_atomic_begin(final, force));
    if (MPI_Bcast(tmp, 4096, MPI_CHAR, 0, comm) != MPI_SUCCESS) olive_die("%s: MPI_Bcast failed", final);
    if (rank != 0) olive_atomic_share(tmp);
}

static void write_nodes(const olive_network *net, const char *path, const char *tmp, MPI_Comm comm)
{
    const int64_t rows = net->row1 - net->row0, r0 = net->row0, N = net->count;
    hid_t f = olive_h5_create_par(tmp, comm), xfer = olive_h5_xfer(comm);
    sonata_root(path, f);
    hid_t pop = olive_h5_group(path, f, "nodes/" POP), g0 = olive_h5_group(path, pop, "0");
    uint64_t *u = olive_malloc((size_t)rows * sizeof(uint64_t) + 8, "node ids");
    uint32_t *z = olive_calloc((size_t)rows + 1, sizeof(uint32_t), "node types");
    double *v = olive_malloc((size_t)rows * sizeof(double) + 8, "node values");
    for (int64_t k = 0; k < rows; k++) u[k] = (uint64_t)(r0 + k);
    put_close(path, pop, "node_id", H5T_STD_U64LE, H5T_NATIVE_UINT64, N, r0, rows, u, xfer);
    put_close(path, pop, "node_group_index", H5T_STD_U64LE, H5T_NATIVE_UINT64, N, r0, rows, u, xfer);
    put_close(path, pop, "node_type_id", H5T_STD_U32LE, H5T_NATIVE_UINT32, N, r0, rows, z, xfer);
    put_close(path, pop, "node_group_id", H5T_STD_U32LE, H5T_NATIVE_UINT32, N, r0, rows, z, xfer);
    for (int64_t k = 0; k < rows; k++) v[k] = net->g_cal ? net->g_cal[k] : 0.68;
    put_close(path, g0, "g_CaL", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, N, r0, rows, v, xfer);
    /* Lattice position: id = (x*dims[1] + y)*dims[2] + z. */
    const char *axis[3] = {"x", "y", "z"};
    for (int a = 0; a < 3; a++) {
        for (int64_t k = 0; k < rows; k++) {
            int64_t id = r0 + k;
            int64_t c = a == 0 ? id / (net->dims[1] * net->dims[2]) : a == 1 ? (id / net->dims[2]) % net->dims[1]
                                                                             : id % net->dims[2];
            v[k] = (double)c;
        }
        put_close(path, g0, axis[a], H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, N, r0, rows, v, xfer);
    }
    free(u);
    free(z);
    free(v);
    olive_h5_close(path, g0, "group 0");
    olive_h5_close(path, pop, "a population group");
    olive_h5_close(path, xfer, "a transfer property list");
    olive_h5_close_file(path, f);
}

/* Rows [off, off+n) of the uint64 [total, 2] dataset loc/name (n may be 0). */
static void put_pairs(const char *path, hid_t loc, const char *name, int64_t total, int64_t off, int64_t n,
                      const uint64_t *pairs, hid_t xfer)
{
    hsize_t dims[2] = {(hsize_t)total, 2}, o[2] = {(hsize_t)off, 0}, c[2] = {(hsize_t)n, 2};
    hid_t fs = H5Screate_simple(2, dims, NULL);
    hid_t d = fs < 0 ? -1 : H5Dcreate2(loc, name, H5T_STD_U64LE, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t ms = H5Screate_simple(2, c, NULL);
    if (d < 0 || ms < 0) olive_h5_fail(path, "cannot create dataset %s", name);
    herr_t sel = n > 0 ? H5Sselect_hyperslab(fs, H5S_SELECT_SET, o, NULL, c, NULL)
                       : (H5Sselect_none(fs) < 0 ? -1 : H5Sselect_none(ms));
    if (sel < 0 || H5Dwrite(d, H5T_NATIVE_UINT64, ms, fs, xfer, pairs) < 0)
        olive_h5_fail(path, "cannot write dataset %s (disk full?)", name);
    olive_h5_close(path, ms, "a dataspace");
    olive_h5_close(path, fs, "a dataspace");
    olive_h5_close(path, d, name);
}

/* SONATA's edge index. target_to_source: the edges are stored by target, so
 * node n's edges are the one range [row_ptr[n], row_ptr[n+1]); every rank
 * writes its rows. source_to_target: edge ids grouped by source (ascending
 * within a source, runs of consecutive ids merged into one range), built on
 * rank 0 from every rank's sources. */
static void write_indices(const olive_network *net, const char *path, hid_t pop, int64_t e0, hid_t xfer, MPI_Comm comm)
{
    const int64_t rows = net->row1 - net->row0, N = net->count, E = net->nnz_total;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    hid_t t2s = olive_h5_group(path, pop, "indices/target_to_source");
    uint64_t *pr = olive_malloc((size_t)(rows + 1) * 2 * sizeof(uint64_t), "edge index");
    for (int64_t r = 0; r < rows; r++) {
        pr[2 * r] = (uint64_t)(net->row0 + r);
        pr[2 * r + 1] = (uint64_t)(net->row0 + r + 1);
    }
    put_pairs(path, t2s, "node_id_to_ranges", N, net->row0, rows, pr, xfer);
    for (int64_t r = 0; r < rows; r++) {
        pr[2 * r] = (uint64_t)(e0 + net->row_ptr[r]);
        pr[2 * r + 1] = (uint64_t)(e0 + net->row_ptr[r + 1]);
    }
    put_pairs(path, t2s, "range_to_edge_id", N, net->row0, rows, pr, xfer);
    free(pr);
    olive_h5_close(path, t2s, "indices/target_to_source");

    /* Every source id, in edge order, on rank 0. */
    int32_t *src = (int32_t *)net->col;
    int32_t *all = NULL;
    if (size > 1) {
        if (E > INT32_MAX) olive_die("%s: exporting over 2^31 junctions from several ranks is not supported", path);
        int n = (int)net->nnz, *counts = olive_malloc((size_t)size * sizeof(int), "counts");
        int *displs = olive_malloc((size_t)size * sizeof(int), "counts");
        if (MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, comm) != MPI_SUCCESS) olive_die("%s: MPI_Gather failed", path);
        if (rank == 0) {
            int64_t at = 0;
            for (int q = 0; q < size; q++) { displs[q] = (int)at; at += counts[q]; }
            all = olive_malloc((size_t)E * sizeof(int32_t) + 4, "sources");
        }
        if (MPI_Gatherv(net->col, n, MPI_INT32_T, all, counts, displs, MPI_INT32_T, 0, comm) != MPI_SUCCESS)
            olive_die("%s: MPI_Gatherv failed", path);
        free(counts);
        free(displs);
        src = all;
    }
    uint64_t *n2r = NULL, *r2e = NULL;
    int64_t R = 0;
    if (rank == 0) {
        /* Counting sort of the edge ids by source (stable: ascending ids). */
        int64_t *first = olive_calloc((size_t)N + 1, sizeof(int64_t), "source counts");
        for (int64_t e = 0; e < E; e++) first[src[e] + 1]++;
        for (int64_t c = 0; c < N; c++) first[c + 1] += first[c];
        int64_t *order = olive_malloc((size_t)E * sizeof(int64_t) + 8, "source order"), *fill = olive_malloc((size_t)N * sizeof(int64_t) + 8, "fill");
        memcpy(fill, first, (size_t)N * sizeof(int64_t));
        for (int64_t e = 0; e < E; e++) order[fill[src[e]]++] = e;
        free(fill);
        n2r = olive_malloc((size_t)N * 2 * sizeof(uint64_t) + 16, "edge index");
        r2e = olive_malloc((size_t)E * 2 * sizeof(uint64_t) + 16, "edge index");
        for (int64_t c = 0; c < N; c++) {
            n2r[2 * c] = (uint64_t)R;
            for (int64_t k = first[c]; k < first[c + 1]; k++) {
                if (k > first[c] && order[k] == order[k - 1] + 1) { r2e[2 * R - 1]++; continue; }
                r2e[2 * R] = (uint64_t)order[k];
                r2e[2 * R + 1] = (uint64_t)order[k] + 1;
                R++;
            }
            n2r[2 * c + 1] = (uint64_t)R;
        }
        free(first);
        free(order);
    }
    free(all);
    if (MPI_Bcast(&R, 1, MPI_INT64_T, 0, comm) != MPI_SUCCESS) olive_die("%s: MPI_Bcast failed", path);
    hid_t s2t = olive_h5_group(path, pop, "indices/source_to_target");
    put_pairs(path, s2t, "node_id_to_ranges", N, 0, rank == 0 ? N : 0, n2r, xfer);
    put_pairs(path, s2t, "range_to_edge_id", R, 0, rank == 0 ? R : 0, r2e, xfer);
    olive_h5_close(path, s2t, "indices/source_to_target");
    free(n2r);
    free(r2e);
}

static void write_edges(const olive_network *net, const char *path, const char *tmp, MPI_Comm comm)
{
    const int64_t rows = net->row1 - net->row0, nnz = net->nnz, E = net->nnz_total;
    int64_t e0 = 0;
    if (MPI_Exscan(&nnz, &e0, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS) olive_die("%s: MPI_Exscan failed", path);
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) e0 = 0;
    hid_t f = olive_h5_create_par(tmp, comm), xfer = olive_h5_xfer(comm);
    sonata_root(path, f);
    hid_t pop = olive_h5_group(path, f, "edges/" POP), g0 = olive_h5_group(path, pop, "0");
    uint64_t *u = olive_malloc((size_t)nnz * sizeof(uint64_t) + 8, "edge ids");
    /* source_node_id: the sending cell; target_node_id: the receiving one (the row). */
    for (int64_t e = 0; e < nnz; e++) u[e] = (uint64_t)net->col[e];
    hid_t d = put(path, pop, "source_node_id", H5T_STD_U64LE, H5T_NATIVE_UINT64, E, e0, nnz, u, xfer);
    olive_h5_attr_str(path, d, "node_population", POP);
    olive_h5_close(path, d, "a node id dataset");
    for (int64_t r = 0; r < rows; r++)
        for (int64_t e = net->row_ptr[r]; e < net->row_ptr[r + 1]; e++) u[e] = (uint64_t)(net->row0 + r);
    d = put(path, pop, "target_node_id", H5T_STD_U64LE, H5T_NATIVE_UINT64, E, e0, nnz, u, xfer);
    olive_h5_attr_str(path, d, "node_population", POP);
    olive_h5_close(path, d, "a node id dataset");
    for (int64_t e = 0; e < nnz; e++) u[e] = (uint64_t)(e0 + e);
    put_close(path, pop, "edge_group_index", H5T_STD_U64LE, H5T_NATIVE_UINT64, E, e0, nnz, u, xfer);
    free(u);
    uint32_t *z = olive_calloc((size_t)nnz + 1, sizeof(uint32_t), "edge types");
    put_close(path, pop, "edge_type_id", H5T_STD_U32LE, H5T_NATIVE_UINT32, E, e0, nnz, z, xfer);
    put_close(path, pop, "edge_group_id", H5T_STD_U32LE, H5T_NATIVE_UINT32, E, e0, nnz, z, xfer);
    free(z);
    double *w = olive_malloc((size_t)nnz * sizeof(double) + 8, "conductances");
    for (int64_t e = 0; e < nnz; e++) w[e] = olive_net_w(net, e);
    d = put(path, g0, "conductance", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, E, e0, nnz, w, xfer);
    olive_h5_attr_str(path, d, "units", "mS/cm^2");
    olive_h5_close(path, d, "dataset conductance");
    free(w);
    write_indices(net, path, pop, e0, xfer, comm);
    olive_h5_close(path, g0, "group 0");
    olive_h5_close(path, pop, "a population group");
    olive_h5_close(path, xfer, "a transfer property list");
    olive_h5_close_file(path, f);
}

void gc_export_sonata(const char *prefix, const olive_network *net, int force, MPI_Comm comm, gc_export *x)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    gc_export_paths(prefix, x);
    for (int k = 0; k < GC_EXPORT_FILES; k++) begin_tmp(x->path[k], force, x->tmp[k], rank, comm);
    write_nodes(net, x->path[GC_EXP_NODES], x->tmp[GC_EXP_NODES], comm);
    write_edges(net, x->path[GC_EXP_EDGES], x->tmp[GC_EXP_EDGES], comm);
    if (rank == 0) write_side_files(x);
}

void gc_export_commit(gc_export *x, MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (MPI_Barrier(comm) != MPI_SUCCESS) olive_die("%s: MPI_Barrier failed", x->path[GC_EXP_EDGES]);
    if (rank == 0)
        for (int k = 0; k < GC_EXPORT_FILES; k++) olive_atomic_commit(x->tmp[k]);
}
