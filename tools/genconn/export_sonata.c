/* --export-sonata PREFIX: the network as SONATA files, for NEURON, NEST,
 * Arbor or bmtk (docs/IMPORT-EXPORT.md).
 *
 * PREFIX_nodes.h5:  /nodes/io/node_id (uint64), node_type_id (uint32, 0),
 *                   node_group_id (uint32, 0), node_group_index (uint64),
 *                   /nodes/io/0/g_CaL (float64) and x, y, z (lattice position).
 * PREFIX_edges.h5:  /edges/io/source_node_id, target_node_id (uint64, attribute
 *                   node_population = "io"), edge_type_id (uint32, 0),
 *                   edge_group_id (uint32, 0), edge_group_index (uint64),
 *                   /edges/io/0/conductance (float64, mS/cm²).
 * Both carry the root attributes magic = 0x0A7A and version = [0, 1].
 * One edge per junction, in the network's order (sorted by target, then
 * source); conductances decoded from the packing, so offset + code·scale
 * exactly. Each rank writes its own rows (collective parallel HDF5). */
#include "genconn.h"
#include "h5util.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

#define POP "io"

void gc_export_paths(const char *prefix, gc_export *x)
{
    memset(x, 0, sizeof *x);
    if (strlen(prefix) + 16 > sizeof x->nodes) olive_usage_error("--export-sonata: '%s' is too long", prefix);
    snprintf(x->nodes, sizeof x->nodes, "%s_nodes.h5", prefix);
    snprintf(x->edges, sizeof x->edges, "%s_edges.h5", prefix);
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
    begin_tmp(x->nodes, force, x->nodes_tmp, rank, comm);
    begin_tmp(x->edges, force, x->edges_tmp, rank, comm);
    write_nodes(net, x->nodes, x->nodes_tmp, comm);
    write_edges(net, x->edges, x->edges_tmp, comm);
}

void gc_export_commit(gc_export *x, MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (MPI_Barrier(comm) != MPI_SUCCESS) olive_die("%s: MPI_Barrier failed", x->edges);
    if (rank == 0) {
        olive_atomic_commit(x->nodes_tmp);
        olive_atomic_commit(x->edges_tmp);
    }
}
