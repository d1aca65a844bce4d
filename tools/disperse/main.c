/* olive-disperse: the dispersal map of a network for P ranks (docs/FORMAT.md):
 * contiguous blocks, receive and send lists, rows in local index space, the
 * interior/boundary split. O(junctions log junctions) time, O(junctions) memory. */
#include "mapfile.h"
#include "h5util.h"
#include "netfile.h"
#include "memcheck.h"
#include "partition.h"
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Rank r's rows of the whole network, as the row-block reader would give them. */
static void block_view(const olive_network *net, int64_t r0, int64_t r1, olive_network *v)
{
    *v = *net;
    v->row0 = r0;
    v->row1 = r1;
    v->row_ptr = olive_malloc((size_t)(r1 - r0 + 1) * sizeof(int64_t), "row_ptr");
    for (int64_t i = 0; i <= r1 - r0; i++) v->row_ptr[i] = net->row_ptr[r0 + i] - net->row_ptr[r0];
    v->col = net->col + net->row_ptr[r0];
    v->nnz = net->row_ptr[r1] - net->row_ptr[r0];
    v->e0 = net->row_ptr[r0];
    v->g_cal = NULL;
    v->cond = NULL;
}

/* The options, --help's lines of them (none repeatable) and the parser's cases. */
enum {
    D_OPT_RANKS,
    D_OPT_OUTPUT,
    D_OPT_BALANCE,
    D_OPT_FORCE,
    D_OPT_VERBOSE,
    D_OPT_QUIET,
    D_OPT_PROGRESS,
    D_OPT_HELP,
    D_OPT_VERSION,
    D_NOPTS
};
static const olive_opt disperse_opts[] = {
    [D_OPT_RANKS] = {"--ranks", NULL, OLIVE_OPT_VALUE, 0, "P",
     "number of MPI ranks (blocks) to split the cells over"},
    [D_OPT_OUTPUT] = {"--output", "-o", OLIVE_OPT_VALUE, 0, "MAP.h5",
     "the dispersal map to write (refused if it exists,\nunless --force)"},
    [D_OPT_BALANCE] = {"--balance", NULL, OLIVE_OPT_VALUE, 0, "KIND",
     "cells: equal cell counts (default); junctions: equal\njunctions + cells per rank"},
    [D_OPT_FORCE] = {"--force", NULL, OLIVE_OPT_FLAG, 0, NULL,
     "replace an existing MAP.h5"},
    [D_OPT_VERBOSE] = {"--verbose", "-v", OLIVE_OPT_FLAG, 0, NULL,
     "more messages on stderr"},
    [D_OPT_QUIET] = {"--quiet", "-q", OLIVE_OPT_FLAG, 0, NULL,
     "nothing but errors"},
    [D_OPT_PROGRESS] = {"--progress", NULL, OLIVE_OPT_FLAG, 0, NULL,
     "progress lines even when stderr is not a terminal"},
    [D_OPT_HELP] = {"--help", "-h", OLIVE_OPT_FLAG, 0, NULL,
     "this help"},
    [D_OPT_VERSION] = {"--version", NULL, OLIVE_OPT_FLAG, 0, NULL,
     "print the version"},
};
_Static_assert(sizeof disperse_opts / sizeof disperse_opts[0] == D_NOPTS, "an option without its entry");

/* --help (help2man's layout for make man: Usage line, description, one option a line). */
static const char usage_head[] =
    "Usage: olive-disperse NET.h5 --ranks P -o MAP.h5 [--balance cells|junctions] [OPTIONS]\n"
    "\n"
    "Splits the cells of NET.h5 into P contiguous blocks (balanced by cell count, or by\n"
    "junctions + cells) and writes, per rank, the cells it receives from each other rank,\n"
    "the cells it sends, its rows in local index space and its interior/boundary rows.\n"
    "olive-simulate --map MAP.h5 under mpirun -np P reads only its own part.\n"
    "\n";
static const char usage_tail[] =
    "\n"
    "Exit status: 0 success, 1 error, 2 bad command line.\n";

static void usage(void)
{
    fputs(usage_head, stdout);
    olive_print_options(disperse_opts, OLIVE_NOPTS(disperse_opts), 24);
    fputs(usage_tail, stdout);
    olive_help_footer("olive-disperse", "docs/FORMAT.md");
}

/* The command line. */
typedef struct {
    const char *net_path, *out;
    int P, balance, force;
} disperse_args;

static void parse_args(int argc, char **argv, disperse_args *d)
{
    *d = (disperse_args){.balance = OLIVE_BALANCE_CELLS};
    olive_split_equals(&argc, &argv, NULL);
    olive_check_options_or_die(argc, argv, disperse_opts, OLIVE_NOPTS(disperse_opts));
    for (int i = 1; i < argc; i++) {
        const char *v;
        const int id = olive_take_option(argc, argv, &i, disperse_opts, D_NOPTS, &v);
        switch (id) {
        case D_OPT_HELP: usage(); exit(0);
        case D_OPT_VERSION: printf("olive-disperse %s\n", OLIVE_VERSION); exit(0);
        case D_OPT_RANKS: d->P = (int)olive_parse_int("--ranks", v, 1, 1 << 20); break;
        case D_OPT_OUTPUT: d->out = v; break;
        case D_OPT_BALANCE: {
            static const char *const kinds[] = {"cells", "junctions"};
            static const int balances[] = {OLIVE_BALANCE_CELLS, OLIVE_BALANCE_JUNCTIONS};
            d->balance = balances[olive_parse_choice("--balance", v, kinds, 2)];
            break;
        }
        case D_OPT_FORCE: d->force = 1; break;
        case D_OPT_VERBOSE: olive_verbose = 1; break;
        case D_OPT_QUIET: olive_quiet = 1; break;
        case D_OPT_PROGRESS: olive_progress_forced = 1; break;
        default:   /* (-1: no option) */
            if (d->net_path) olive_usage_error("unexpected argument '%s'", argv[i]);
            d->net_path = argv[i];
        }
    }
    if (!d->net_path) olive_usage_error("no network file given");
    if (!d->out) olive_usage_error("no output file given (-o MAP.h5)");
    if (!d->P) olive_usage_error("--ranks P is required");
    if (!d->force && olive_path_exists(d->out)) olive_usage_error("%s exists; use --force to overwrite it", d->out);
    const char *outs[1] = {d->out}, *ins[1] = {d->net_path};
    olive_check_outputs(outs, 1, ins, 1);
}

/* Each rank's plan of its block [bounds[r], bounds[r+1]), then its send
 * lists: what each rank q receives from r is a slice of q's halo. */
static olive_plan *build_plans(const olive_network *net, const int64_t *bounds, int P)
{
    olive_plan *plans = olive_calloc((size_t)P, sizeof(olive_plan), "plans");
    for (int r = 0; r < P; r++) {
        olive_network v;
        block_view(net, bounds[r], bounds[r + 1], &v);
        olive_plan_build_local(&v, bounds, P, r, &plans[r]);
        free(v.row_ptr);
        olive_progress("building plans", (double)(r + 1) / P);
    }
    olive_progress_done();
    int64_t **need = olive_malloc((size_t)P * sizeof(int64_t *), "need");
    int *need_count = olive_malloc((size_t)P * sizeof(int), "need");
    for (int r = 0; r < P; r++) {
        for (int q = 0; q < P; q++) {
            need[q] = plans[q].halo_ids + plans[q].recv_displ[r];
            need_count[q] = plans[q].recv_count[r];
        }
        olive_plan_set_sends(&plans[r], need, need_count);
    }
    free(need);
    free(need_count);
    return plans;
}

int main(int argc, char **argv)
{
    olive_set_program(argv[0]);
    olive_set_cmdline(argc, argv);
    olive_h5_quiet();
    disperse_args d;
    parse_args(argc, argv, &d);
    const char *net_path = d.net_path;
    const int P = d.P, balance = d.balance;

    double t0 = olive_now();
    olive_network net;
    /* The whole network is read, then the plans hold a second copy of the
     * rows (local ids, halo lists): about 24 bytes per cell and 16 per
     * junction besides the conductances. Checked before anything is
     * allocated from the file's declared sizes. */
    olive_net_read_header(net_path, &net);
    char what[128];
    snprintf(what, sizeof what, "%lld cells, %lld junctions", (long long)net.count, (long long)net.nnz_total);
    olive_require_memory(net_path, 24.0 * (double)net.count + 16.0 * (double)net.nnz_total +
                                       (double)olive_cond_bytes(net.bits, net.nnz_total) + 65536.0 * P, what);
    olive_net_read(net_path, &net);
    if (P > net.count)
        olive_die("%s: %lld cells cannot be split over %d ranks", net_path, (long long)net.count, P);
    double t_read = olive_now() - t0;

    int64_t *bounds = olive_malloc((size_t)(P + 1) * sizeof(int64_t), "bounds");
    olive_block_bounds(net.count, net.row_ptr, P, balance, bounds);
    olive_plan *plans = build_plans(&net, bounds, P);
    uint64_t bytes;
    uint32_t crc = olive_crc_finish(olive_net_structure_crc(&net, &bytes), net.count);
    double t_plan = olive_now() - t0 - t_read;
    olive_map_write(d.out, net_path, crc, net.count, net.nnz, balance, bounds, P, plans, t_read + t_plan, d.force);
    double t_total = olive_now() - t0;

    int64_t halo = 0, maxj = 0, minj = INT64_MAX;
    for (int r = 0; r < P; r++) {
        halo += plans[r].nhalo;
        int64_t j = net.row_ptr[bounds[r + 1]] - net.row_ptr[bounds[r]];
        if (j > maxj) maxj = j;
        if (j < minj) minj = j;
    }
    if (!olive_quiet) printf("olive-disperse: %lld cells, %lld junctions, %d ranks (balance %s): junctions per rank %lld..%lld, "
           "%lld halo cells in all; read %.3f s, plan %.3f s, total %.3f s\n",
           (long long)net.count, (long long)net.nnz, P, balance ? "junctions" : "cells", (long long)minj,
           (long long)maxj, (long long)halo, t_read, t_plan, t_total);
    for (int r = 0; r < P; r++) olive_plan_free(&plans[r]);
    free(plans);
    free(bounds);
    olive_net_free(&net);
    return 0;
}
