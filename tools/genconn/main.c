/* olive-genconn: generate a gap-junction network and write the network file.
 * Phases: structure (generate.c, symmetric.c), conductances (conductance.c;
 * cond_cuda.cu on a GPU), g_CaL (gcal.c), then one atomic write (netfile.c). */
#include "genconn.h"
#include "spiking_net.h"
#include "h5util.h"
#include "partition.h"
#include <mpi.h>
#include "util.h"
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Refuse before generating for minutes what could not be written anyway. */
static void check_output(const gc_config *cfg)
{
    if (!cfg->force && olive_path_exists(cfg->out_path))
        olive_usage_error("%s exists; use --force to overwrite it", cfg->out_path);
    if (cfg->export_prefix) {
        gc_export x;
        gc_export_paths(cfg->export_prefix, &x);
        const char *outs[GC_EXPORT_FILES + 1] = {cfg->out_path}, *ins[1] = {cfg->import_path};
        for (int k = 0; k < GC_EXPORT_FILES; k++) {
            if (!cfg->force && olive_path_exists(x.path[k]))
                olive_usage_error("%s exists; use --force to overwrite it", x.path[k]);
            outs[k + 1] = x.path[k];
        }
        /* -o X_edges.h5 --export-sonata X: one file, twice; refused before any work. */
        olive_check_outputs(outs, GC_EXPORT_FILES + 1, ins, 1);
        char *c2 = strdup(x.path[GC_EXP_EDGES]);
        const char *d2 = dirname(c2);
        if (access(d2, W_OK | X_OK) != 0) olive_die("%s: cannot write in directory %s", x.path[GC_EXP_EDGES], d2);
        free(c2);
    }
    if (cfg->import_path && olive_same_path(cfg->import_path, cfg->out_path))
        olive_usage_error("-o %s is the --import file itself", cfg->out_path);
    char *copy = strdup(cfg->out_path);
    const char *dir = dirname(copy);
    if (access(dir, W_OK | X_OK) != 0) olive_die("%s: cannot write in directory %s", cfg->out_path, dir);
    free(copy);
}

static int world_size = 1;

/* After an error (the temporaries are removed already): stop the other
 * ranks. No MPI_Finalize: it shuts HDF5 down, which would flush and close
 * again a file whose close just failed (disk full), and crash there. */
static void abort_others(int code)
{
    if (world_size > 1) MPI_Abort(MPI_COMM_WORLD, code);
}

/* --import: one process reads and writes (rank 0 under mpirun; the others
 * only wait), since the input is one sequential stream. */
static int import_main(const gc_config *cfg, int rank, double t0)
{
    if (rank == 0) {
        olive_network net;
        memset(&net, 0, sizeof net);
        gc_import(cfg, &net);
        double t_imp = olive_now();
        gc_gcal(cfg, &net);
        snprintf(net.command, sizeof net.command, "%s", olive_cmdline());
        net.command_full = olive_cmdline();   /* (the file keeps it whole, however long) */
        gc_export exp;
        if (cfg->export_prefix) gc_export_sonata(cfg->export_prefix, &net, cfg->force, MPI_COMM_SELF, &exp);
        olive_net_write(cfg->out_path, &net, cfg->force);
        if (cfg->export_prefix) gc_export_commit(&exp, MPI_COMM_SELF);
        double t_end = olive_now();
        if (!olive_quiet) printf("%s: %lld cells, %lld junctions, mean degree %.3f, %.3f s (import %.3f s, write %.3f s), "
               "%.3g junctions/s\n", cfg->out_path, (long long)net.count, (long long)net.nnz,
               (double)net.nnz / (double)net.count, t_end - t0, t_imp - t0, t_end - t_imp,
               (double)net.nnz / (t_end - t0));
        olive_net_free(&net);
    }
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv)
{
    double t0 = olive_now();
    olive_set_program(argv[0]);
    olive_set_cmdline(argc, argv);
    /* Under mpirun every rank generates its own block of rows and the file is
     * written collectively; the same seed gives the same file for any P. */
    olive_mpi_singleton_fast();
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "olive-genconn: error: MPI_Init failed\n");
        return 1;
    }
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    olive_set_exit_hook(abort_others);
    olive_h5_quiet();
    gc_config cfg;
    olive_split_equals(&argc, &argv, NULL);
    if (gc_spiking_requested(argc, argv)) {
        /* One process generates a spiking network; the other ranks wait. */
        int rc = rank == 0 ? gc_spiking_main(argc, argv) : 0;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        return rc;
    }
    gc_parse_args(argc, argv, &cfg);
    if (rank == 0) check_output(&cfg);
    if (cfg.import_path) return import_main(&cfg, rank, t0);
    if (world_size > cfg.count)
        olive_usage_error("%lld cells cannot be split over %d ranks", (long long)cfg.count, world_size);

    olive_network net;
    memset(&net, 0, sizeof net);
    net.count = cfg.count;
    memcpy(net.dims, cfg.dims, sizeof net.dims);
    int64_t *bounds = olive_malloc((size_t)(world_size + 1) * sizeof(int64_t), "bounds");
    olive_block_bounds(cfg.count, NULL, world_size, OLIVE_BALANCE_CELLS, bounds);
    net.row0 = bounds[rank];
    net.row1 = bounds[rank + 1];

    gc_generate(&cfg, &net);
    double t_gen = olive_now();
    olive_info("generated %lld junctions in %.3f s", (long long)net.nnz, t_gen - t0);
    if (cfg.symmetric) {
        int64_t before = net.nnz;
        if (world_size > 1) gc_symmetrize_mpi(&net, bounds, world_size);
        else gc_symmetrize(&net);
        olive_info("symmetric: %lld junctions -> %lld in %.3f s", (long long)before, (long long)net.nnz,
                   olive_now() - t_gen);
    }
    double t_sym = olive_now();
    double maxerr_local = gc_conductance(&cfg, &net), maxerr = 0;
    if (MPI_Allreduce(&maxerr_local, &maxerr, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
        olive_die("MPI_Allreduce failed");
    if (rank == 0 && (cfg.w_range || cfg.bits) && !olive_quiet)
        fprintf(stderr, "%s: conductance %s [%g, %g] at %d bits (offset %g, scale %g): largest quantisation error %.3g\n",
                olive_program(), cfg.w_range ? "uniform in" : "constant", cfg.w_a, cfg.w_b, cfg.bits,
                net.offset, net.scale, maxerr);
    double t_w = olive_now();
    gc_gcal(&cfg, &net);
    double t_cond = olive_now();
    olive_info("conductances in %.3f s, g_CaL in %.3f s", t_w - t_sym, t_cond - t_w);

    snprintf(net.generator, sizeof net.generator, "%s", gc_generator_name(cfg.gen));
    net.seed = cfg.seed;
    net.density = cfg.density;
    net.sigma = cfg.sigma;
    net.symmetric = cfg.symmetric;
    snprintf(net.command, sizeof net.command, "%s", olive_cmdline());
    net.command_full = olive_cmdline();   /* (the file keeps it whole, however long) */
    int64_t local = net.nnz;
    if (MPI_Allreduce(&local, &net.nnz_total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS)
        olive_die("MPI_Allreduce failed");
    gc_export exp;
    if (cfg.export_prefix) gc_export_sonata(cfg.export_prefix, &net, cfg.force, MPI_COMM_WORLD, &exp);
    olive_net_write_par(cfg.out_path, &net, cfg.force, MPI_COMM_WORLD);
    if (cfg.export_prefix) gc_export_commit(&exp, MPI_COMM_WORLD);
    double t_end = olive_now();
    olive_info("written in %.3f s", t_end - t_cond);
    net.nnz = net.nnz_total;

    if (rank == 0 && !olive_quiet) printf("%s: %lld cells, %lld junctions, mean degree %.3f, %.3f s (generation %.3f s, write %.3f s), "
           "%.3g junctions/s\n",
           cfg.out_path, (long long)net.count, (long long)net.nnz, (double)net.nnz / (double)net.count,
           t_end - t0, t_cond - t0, t_end - t_cond, (double)net.nnz / (t_end - t0));
    olive_net_free(&net);
    free(bounds);
    MPI_Finalize();
    return 0;
}
