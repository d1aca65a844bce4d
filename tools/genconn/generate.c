/* The generation driver: cuts the cells into blocks of rows, lets OpenMP
 * threads generate the blocks independently (each row depends on the seed and
 * its cell id only, so the result cannot depend on the thread count or the
 * block size), then concatenates the blocks into one CSR. */
#include "genconn.h"
#include "util.h"
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Expected junctions per row, for sizing blocks and buffers. */
static double expected_degree(const gc_config *cfg)
{
    return cfg->gen == GC_GRID ? 8.0 : cfg->density;
}

void gc_generate(const gc_config *cfg, olive_network *net)
{
    /* This process's rows [R0, R1) (all of them without MPI). */
    const int64_t R0 = net->row0, N = net->row1 - net->row0;
    const double deg = expected_degree(cfg);
    /* About 2^18 junctions a block: big enough to amortise the scheduling,
     * small enough to balance two threads and to show progress. */
    int64_t rows = cfg->block_rows;
    if (rows <= 0) {
        rows = (int64_t)(262144.0 / (deg + 1.0));
        if (rows < 16) rows = 16;
        if (rows > 65536) rows = 65536;
    }
    const int64_t nblocks = (N + rows - 1) / rows;
    gc_rows *blk = olive_calloc((size_t)nblocks, sizeof *blk, "blocks");
    gc_gauss *gauss = cfg->gen == GC_GAUSSIAN ? gc_gauss_new(cfg) : NULL;
    /* Room for the mean plus a few standard deviations of a binomial degree,
     * so that growing a block is rare. */
    const double per_row = deg + 4.0 * sqrt(deg) + 1.0;
    int64_t done = 0;

#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t b = 0; b < nblocks; b++) {
        int64_t r0 = R0 + b * rows, r1 = r0 + rows < R0 + N ? r0 + rows : R0 + N;
        gc_rows_init(&blk[b], r0, r1, (int64_t)(per_row * (double)(r1 - r0)));
        switch (cfg->gen) {
        case GC_UNIFORM: gc_uniform_rows(cfg, r0, r1, &blk[b]); break;
        case GC_GAUSSIAN: gc_gauss_rows(cfg, gauss, r0, r1, &blk[b]); break;
        case GC_GRID: gc_grid_rows(cfg, r0, r1, &blk[b]); break;
        }
        int64_t d;
#pragma omp atomic capture
        d = ++done;
        if (omp_get_thread_num() == 0) olive_progress("generating", (double)d / (double)nblocks);
    }
    olive_progress_done();
    gc_gauss_free(gauss);

    /* Report the lowest failing row (the same one whatever the schedule). */
    for (int64_t b = 0; b < nblocks; b++)
        if (blk[b].fail_cell >= 0)
            olive_die("gaussian: cell %lld found only %lld of its %lld partners in %lld draws: the lattice "
                      "within reach of sigma = %g holds too few cells; use a larger --sigma or a smaller --density",
                      (long long)blk[b].fail_cell, (long long)blk[b].fail_found, (long long)cfg->density,
                      (long long)blk[b].fail_attempts, cfg->sigma);

    /* Concatenate: block offsets by a prefix sum, then copy in parallel. */
    int64_t *off = olive_malloc((size_t)(nblocks + 1) * sizeof(int64_t), "block offsets");
    off[0] = 0;
    for (int64_t b = 0; b < nblocks; b++) off[b + 1] = off[b] + blk[b].nnz;
    const int64_t nnz = off[nblocks];
    net->row_ptr = olive_malloc((size_t)(N + 1) * sizeof(int64_t), "row_ptr");
    net->col = olive_malloc((size_t)nnz * sizeof(int32_t), "col");
    net->row_ptr[N] = nnz;
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t b = 0; b < nblocks; b++) {
        gc_rows *k = &blk[b];
        for (int64_t r = k->row0; r < k->row1; r++) net->row_ptr[r - R0] = off[b] + k->row_ptr[r - k->row0];
        memcpy(net->col + off[b], k->col, (size_t)k->nnz * sizeof(int32_t));
        gc_rows_free(k);
    }
    free(off);
    free(blk);
    net->nnz = net->nnz_total = nnz;   /* main.c sums nnz_total over ranks */
}
