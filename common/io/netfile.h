/* The network file (docs/FORMAT.md "Network file"): cells, per-cell g_CaL, and the
 * gap junctions as compressed sparse rows by receiving cell with bit-packed
 * conductances. Readers validate everything they rely on. */
#ifndef OLIVE_NETFILE_H
#define OLIVE_NETFILE_H
#include <stdint.h>
#include <stddef.h>
#include <mpi.h>

typedef struct {
    int64_t count;          /* cells in the whole network */
    int64_t dims[3];
    /* The rows held in memory: cells [row0, row1) of the network. */
    int64_t row0, row1;
    double *g_cal;          /* g_CaL of rows [row0,row1); NULL when the file has none (0.68) */
    int64_t *row_ptr;       /* row1-row0+1 entries, local: row_ptr[0] == 0 */
    int32_t *col;           /* neighbour ids (global), ascending per row */
    int64_t nnz;            /* junctions held */
    int64_t e0;             /* global index of the first junction held */
    int64_t nnz_total;      /* junctions in the whole network */
    int bits;               /* 0, 4, 8, 16 (codes), 32 (float32), 64 (float64) */
    double offset, scale;   /* w = offset + code*scale (bits 4/8/16); bits 0: w = offset */
    void *cond;             /* packed codes of the junctions held; float32 / float64 values for bits 32 / 64; NULL for 0 */
    /* How the network was made (free-form provenance). */
    char generator[32];
    uint64_t seed;
    double density, sigma;
    int symmetric;
    char command[1024];        /* as read (shortened to fit) */
    const char *command_full;  /* writers: the whole command when set (olive_cmdline()), else command */
} olive_network;

/* Zeroed junction slots allocated after the last junction held (col, cond,
 * and the simulator's local columns): a SIMD loop over a row may then run to
 * a whole number of 64-byte vectors, reading but never using the slots past
 * the row's end, instead of finishing in a scalar loop. */
#define OLIVE_JUNCTION_PAD 16

/* Conductance of stored junction e (0-based within the held rows). */
static inline double olive_net_w(const olive_network *n, int64_t e)
{
    switch (n->bits) {
    case 0: return n->offset;
    case 4: return n->offset + (double)((((const uint8_t *)n->cond)[e >> 1] >> ((e & 1) * 4)) & 15) * n->scale;
    case 8: return n->offset + (double)((const uint8_t *)n->cond)[e] * n->scale;
    case 16: return n->offset + (double)((const uint16_t *)n->cond)[e] * n->scale;
    case 32: return (double)((const float *)n->cond)[e];
    default: return ((const double *)n->cond)[e];
    }
}

/* Bytes of packed conductance storage for n junctions at bits. */
size_t olive_cond_bytes(int bits, int64_t n);
/* Store code (or, for bits 32 and 64, the value w, as float32 or float64) of junction e. */
void olive_cond_set(int bits, void *cond, int64_t e, uint32_t code, double w);

/* Read the whole network (validating every part). */
void olive_net_read(const char *path, olive_network *net);
/* Read only rows [row0, row1) (validated), plus the header. */
void olive_net_read_rows(const char *path, int64_t row0, int64_t row1, olive_network *net);
/* Read only the header (count, dims, nnz_total, bits...). */
void olive_net_read_header(const char *path, olive_network *net);

/* Write a complete network held in memory (row0 = 0, row1 = count) to path
 * atomically; refuses to overwrite unless force. */
void olive_net_write(const char *path, const olive_network *net, int force);
/* The same, calling extra(path, file, ctx) before the file is closed (the
 * populations and synapses of a spiking network go into the same file). */
void olive_net_write_ex(const char *path, const olive_network *net, int force,
                        void (*extra)(const char *path, int64_t file, void *ctx), void *ctx);

/* Write a network whose rows are split over the ranks of comm, each rank
 * holding its contiguous block [row0, row1) (blocks in rank order, nnz_total
 * set to the global count on every rank): one file, written collectively
 * with parallel HDF5, identical to what olive_net_write makes of the whole. */
void olive_net_write_par(const char *path, const olive_network *net, int force, MPI_Comm comm);

/* Checks of the in-memory rows; returns NULL or a static message naming the
 * first fault. */
const char *olive_net_check(const olive_network *net);

/* CRC-32 of the structure of the held rows (bytes: how many bytes it
 * covered). The network's checksum is olive_crc_finish(CRC of all rows in
 * order, count); blocks combine with olive_crc_combine(crc_a, crc_b, bytes_b). */
uint32_t olive_net_structure_crc(const olive_network *net, uint64_t *bytes);
uint32_t olive_crc_combine(uint32_t a, uint32_t b, uint64_t bytes_b);
uint32_t olive_crc_finish(uint32_t crc, int64_t count);

void olive_net_free(olive_network *net);

#endif
