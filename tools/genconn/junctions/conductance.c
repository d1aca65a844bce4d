/* Conductances. A constant W costs nothing (bits 0: offset = W, no dataset).
 * A range A:B draws each junction's w uniformly in [A, B] from the Philox
 * counter (receiver, sender, 0, CONDUCTANCE) — keyed by the pair, not by the
 * junction's position, so the value survives any reordering or splitting of
 * the rows; with --symmetric by (min, max) so that w_ij = w_ji. The value is
 * then quantised: code = round((w - A)/scale), scale = (B - A)/(2^bits - 1),
 * or stored as float32 at bits 32. The per-junction computation is
 * gc_cond_junction (cond_rows.h), which cond_cuda.cu runs on the GPU when the
 * rows are made there (--backend cuda, or auto on a GPU host): the same codes,
 * the same packing and the same largest error. */
#include "genconn.h"
#include "cond_rows.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>

double gc_conductance(const gc_config *cfg, olive_network *net)
{
    const int bits = cfg->bits;
    net->bits = bits;
    if (bits == 0) {
        net->offset = cfg->w_a;
        net->scale = 0;
        net->cond = NULL;
        return 0;
    }
    const int64_t N = net->row1 - net->row0, nnz = net->nnz;  /* this process's rows */
    net->cond = olive_calloc(olive_cond_bytes(bits, nnz) + 1, 1, "conductances");
    if (bits >= 32) { net->offset = 0; net->scale = 1; }
    else {
        net->offset = cfg->w_a;
        net->scale = (cfg->w_b - cfg->w_a) / (double)((1u << bits) - 1);
    }
    gc_cond_par p;
    p.seed = cfg->seed;
    p.w_a = cfg->w_a;
    p.w_b = cfg->w_b;
    p.offset = net->offset;
    p.scale = net->scale;
    p.maxcode = bits >= 32 ? 0 : (1u << bits) - 1;
    p.bits = bits;
    p.w_range = cfg->w_range;
    p.symmetric = cfg->symmetric;
#ifdef OLIVE_HAVE_CUDA
    {
        /* Collective (every rank asks): the GPU when the rows were made there. */
        int local = gc_cuda_local_rank(cfg);
        if (local >= 0 && nnz > 0) return gc_conductance_cuda(&p, net, local);
    }
#endif
    /* Two junctions share a byte at 4 bits, and a row boundary may split a
     * byte between threads: draw the codes into whole bytes first, pack after. */
    uint8_t *nibble = bits == 4 ? olive_malloc((size_t)nnz + 1, "4-bit codes") : NULL;
    double maxerr = 0;
#pragma omp parallel for schedule(dynamic, 4096) reduction(max : maxerr)
    for (int64_t i = 0; i < N; i++)
        for (int64_t e = net->row_ptr[i]; e < net->row_ptr[i + 1]; e++) {
            double f, err;
            uint32_t code = gc_cond_junction(&p, net->row0 + i, net->col[e], &f, &err);
            if (nibble) nibble[e] = (uint8_t)code;
            else olive_cond_set(bits, net->cond, e, code, f);
            if (err > maxerr) maxerr = err;
        }
    if (nibble) {
        uint8_t *packed = net->cond;
#pragma omp parallel for schedule(static)
        for (int64_t k = 0; k < (nnz + 1) / 2; k++) {
            uint8_t lo = nibble[2 * k], hi = 2 * k + 1 < nnz ? nibble[2 * k + 1] : 0;
            packed[k] = (uint8_t)(lo | hi << 4);   /* even junction in the low nibble */
        }
        free(nibble);
    }
    return maxerr;
}
