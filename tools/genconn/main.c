/* olive-genconn: generate a gap-junction network and write the network file.
 * Phases: structure (generate.c, symmetric.c), conductances (conductance.c),
 * g_CaL (gcal.c), then one atomic write (netfile.c). */
#include "genconn.h"
#include "h5util.h"
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
    char *copy = strdup(cfg->out_path);
    const char *dir = dirname(copy);
    if (access(dir, W_OK | X_OK) != 0) olive_die("%s: cannot write in directory %s", cfg->out_path, dir);
    free(copy);
}

int main(int argc, char **argv)
{
    double t0 = olive_now();
    olive_set_program(argv[0]);
    olive_set_cmdline(argc, argv);
    olive_h5_quiet();
    gc_config cfg;
    gc_parse_args(argc, argv, &cfg);
    check_output(&cfg);

    olive_network net;
    memset(&net, 0, sizeof net);
    net.count = cfg.count;
    memcpy(net.dims, cfg.dims, sizeof net.dims);
    net.row0 = 0;
    net.row1 = cfg.count;

    gc_generate(&cfg, &net);
    double t_gen = olive_now();
    olive_info("generated %lld junctions in %.3f s", (long long)net.nnz, t_gen - t0);
    if (cfg.symmetric) {
        int64_t before = net.nnz;
        gc_symmetrize(&net);
        olive_info("symmetric: %lld junctions -> %lld in %.3f s", (long long)before, (long long)net.nnz,
                   olive_now() - t_gen);
    }
    double t_sym = olive_now();
    double maxerr = gc_conductance(&cfg, &net);
    if (cfg.w_range || cfg.bits)
        fprintf(stderr, "%s: conductance %s [%g, %g] at %d bits (offset %g, scale %g): largest quantisation error %.3g\n",
                olive_program(), cfg.w_range ? "uniform in" : "constant", cfg.w_a, cfg.w_b, cfg.bits,
                net.offset, net.scale, maxerr);
    gc_gcal(&cfg, &net);
    double t_cond = olive_now();
    olive_info("conductances and g_CaL in %.3f s", t_cond - t_sym);

    snprintf(net.generator, sizeof net.generator, "%s", gc_generator_name(cfg.gen));
    net.seed = cfg.seed;
    net.density = cfg.density;
    net.sigma = cfg.sigma;
    net.symmetric = cfg.symmetric;
    snprintf(net.command, sizeof net.command, "%s", olive_cmdline());
    olive_net_write(cfg.out_path, &net, cfg.force);
    double t_end = olive_now();
    olive_info("written in %.3f s", t_end - t_cond);

    printf("%s: %lld cells, %lld junctions, mean degree %.3f, %.3f s (generation %.3f s, write %.3f s), "
           "%.3g junctions/s\n",
           cfg.out_path, (long long)net.count, (long long)net.nnz, (double)net.nnz / (double)net.count,
           t_end - t0, t_cond - t0, t_end - t_cond, (double)net.nnz / (t_end - t0));
    olive_net_free(&net);
    return 0;
}
