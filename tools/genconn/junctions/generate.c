/* The generation driver: cuts the cells into blocks of rows, lets OpenMP
 * threads generate the blocks independently (each row depends on the seed and
 * its cell id only, so the result cannot depend on the thread count or the
 * block size), then concatenates the blocks into one CSR. With --backend
 * cuda (or auto on a GPU host) the uniform and gaussian rows are made by
 * gen_cuda.cu from the same row source (gen_rows.h), bit-identically, and the
 * conductances of every generator by cond_cuda.cu (cond_rows.h). */
#include "genconn.h"
#include "util.h"
#include <math.h>
#include <mpi.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Expected junctions per row, for sizing blocks and buffers. */
static double expected_degree(const gc_config *cfg)
{
    return cfg->gen == GC_GRID ? 8.0 : cfg->density;
}

static void gauss_die(const gc_config *cfg, int64_t cell, int64_t found, int64_t attempts)
{
    olive_die("gaussian: cell %lld found only %lld of its %lld partners in %lld draws: the lattice "
              "within reach of sigma = %g holds too few cells; use a larger --sigma or a smaller --density",
              (long long)cell, (long long)found, (long long)cfg->density, (long long)attempts, cfg->sigma);
}

void gc_gauss_fail(const gc_config *cfg, int64_t cell)
{
    gc_gauss *g = gc_gauss_new(cfg);
    gc_rows r;
    gc_rows_init(&r, cell, cell + 1, (int64_t)cfg->density);
    if (gc_gauss_rows(cfg, g, cell, cell + 1, &r) == 0) olive_die("gaussian: cell %lld failed on the GPU but not on the CPU", (long long)cell);
    gauss_die(cfg, r.fail_cell, r.fail_found, r.fail_attempts);
}

/* The node-local rank (for the device of this rank); collective. */
static int node_local_rank(void)
{
    MPI_Comm node;
    int local = 0;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        olive_die("MPI_Comm_split_type failed");
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    return local;
}

/* The node-local rank whose device this process uses (local % devices), or
 * -1 for the CPU: --backend cuda, or auto with a device present. Decided once
 * (the first call is collective: every rank makes it, in gc_generate). */
int gc_cuda_local_rank(const gc_config *cfg)
{
    static int decided = 0, local = -1;
    if (decided) return local;
    decided = 1;
    if (cfg->backend == GC_BACKEND_CPU) return local = -1;
    int l = node_local_rank();   /* every rank calls it: collective */
#ifdef OLIVE_HAVE_CUDA
    int ndev = gc_cuda_device_count();
    if (cfg->backend == GC_BACKEND_CUDA && ndev == 0)
        olive_die("--backend cuda: no CUDA device found (or no driver); use --backend cpu or auto");
    local = ndev > 0 ? l : -1;
#else
    (void)l;
    if (cfg->backend == GC_BACKEND_CUDA)   /* cli.c refuses it already; kept for safety */
        olive_die("--backend cuda: this olive-genconn was built without CUDA");
    local = -1;
#endif
    return local;
}

void gc_generate(const gc_config *cfg, olive_network *net)
{
    int local = gc_cuda_local_rank(cfg);
    if (local >= 0 && cfg->gen == GC_GRID)
        olive_info("grid: generated on the CPU (no randomness, 8 ids a row)");
    else if (local >= 0) {
#ifdef OLIVE_HAVE_CUDA
        gc_generate_cuda(cfg, net, local);
        return;
#endif
    }
    olive_info("generating on the CPU (%d OpenMP threads)", omp_get_max_threads());
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
            gauss_die(cfg, blk[b].fail_cell, blk[b].fail_found, blk[b].fail_attempts);

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
