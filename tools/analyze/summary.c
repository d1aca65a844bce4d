/* olive-analyze summary: a one-screen overview of a run's spikes. */
#include "analyze.h"
#include "util.h"
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char summary_help[] =
    "Usage: olive-analyze summary OUTDIR|SPIKES.h5 [--csv] [--population NAME] [--bins N] [--first N]\n"
    "\n"
    "Summarise the spikes of a run: cells, duration, spike count, cells that\n"
    "spiked, mean rate (spikes / cells / duration), the first spikes, a spike\n"
    "histogram over time, and the run's provenance when the file has it.\n"
    "\n"
    "OUTDIR is an olive-simulate output directory (its spikes.h5 is read); any\n"
    "SONATA spike file (/spikes/<population>/timestamps + node_ids) works too.\n"
    "Cells come from the root attribute 'cells', else a report's\n"
    "mapping/node_ids, else the largest node id + 1; the duration from the\n"
    "root attributes steps x dt, else a report's mapping/time, else the last\n"
    "spike. The output says which.\n"
    "\n"
    "  --csv              key,value lines (with a key,value header) instead of text\n"
    "  --population NAME  population under /spikes (default: the only one; with several\n"
    "                     and no --population, one row per population: cells, duration,\n"
    "                     spikes, cells that spiked, mean rate)\n"
    "  --bins N           histogram bins over [0, duration] (default 10, 0: none)\n"
    "  --first N          how many first spikes to list (default 5)\n"
    "  -h, --help         this help\n"
    "\n"
    "Exit status: 0 success, 2 error.\n";

typedef struct {
    const char *dir, *population;
    int csv, nbins, nfirst;
} summary_opts;

static void parse(int argc, char **argv, summary_opts *o)
{
    static const struct option longopts[] = {
        {"csv", no_argument, NULL, 'c'},
        {"population", required_argument, NULL, 'p'},
        {"bins", required_argument, NULL, 'b'},
        {"first", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->nbins = 10;
    o->nfirst = 5;
    opterr = 0;
    optind = 1;
    int c;
    ana_check_options("summary", argc, argv, longopts, ":h");
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'c': o->csv = 1; break;
        case 'p': o->population = optarg; break;
        case 'b': o->nbins = (int)olive_parse_int("--bins", optarg, 0, 1000); break;
        case 'f': o->nfirst = (int)olive_parse_int("--first", optarg, 0, 1000); break;
        case 'h': fputs(summary_help, stdout); exit(ANA_EXIT_OK);
        case ':': ana_usage_error("summary", "option %s needs a value", argv[optind - 1]);
        default: ana_usage_error("summary", "unknown option %s", argv[optind - 1]);
        }
    }
    if (optind >= argc) ana_usage_error("summary", "missing OUTDIR (an olive-simulate output directory or a spike file)");
    if (optind + 1 < argc) ana_usage_error("summary", "unexpected argument '%s'", argv[optind + 1]);
    o->dir = argv[optind];
}

static void add_provenance(ana_table *t, const ana_run *r)
{
    if (r->olive_version[0]) ana_table_add(t, "olive_version", "olive version", NULL, NULL, "%s", r->olive_version);
    if (r->backend[0]) ana_table_add(t, "backend", "backend", NULL, NULL, "%s", r->backend);
    if (r->precision[0]) ana_table_add(t, "precision", "precision", NULL, NULL, "%s", r->precision);
    if (r->model[0]) ana_table_add(t, "model", "model", NULL, NULL, "%s%s%s%s", r->model, r->method[0] ? " (" : "",
                                   r->method, r->method[0] ? ")" : "");
    if (r->gj[0]) ana_table_add(t, "gj", "gap junctions", NULL, NULL, "%s", r->gj);
    if (r->param_overrides[0]) ana_table_add(t, "param_overrides", "--param", NULL, NULL, "%s", r->param_overrides);
    if (r->has_world_size) ana_table_add(t, "world_size", "world size", NULL, "MPI ranks", "%lld", (long long)r->world_size);
    if (r->has_threads) ana_table_add(t, "threads", "threads", NULL, NULL, "%lld", (long long)r->threads);
    if (r->has_time_total) ana_table_add(t, "time_total_s", "total time", "s", NULL, "%.6g", r->time_total_s);
    if (r->command[0]) ana_table_add(t, "command", "command", NULL, NULL, "%s", r->command);
}

static void print_first_text(const ana_spike_scan *sc)
{
    if (sc->nfirst == 0) return;
    printf("\nfirst %d spike%s:\n%14s  %10s\n", sc->nfirst, sc->nfirst == 1 ? "" : "s", "time (ms)", "node");
    for (int i = 0; i < sc->nfirst; i++)
        printf("%14.10g  %10llu\n", sc->first_t[i], (unsigned long long)sc->first_node[i]);
}

static void print_histogram_text(double duration, int nbins, const int64_t *bins, int64_t outside)
{
    if (nbins <= 0 || !(duration > 0)) return;
    int64_t max = 0;
    int ew = 1, cw = 1;
    char buf[64];
    for (int b = 0; b < nbins; b++) {
        if (bins[b] > max) max = bins[b];
        int l = snprintf(buf, sizeof buf, "%lld", (long long)bins[b]);
        if (l > cw) cw = l;
    }
    for (int b = 0; b <= nbins; b++) {
        int l = snprintf(buf, sizeof buf, "%.6g", ana_bin_edge(duration, nbins, b));
        if (l > ew) ew = l;
    }
    printf("\nspikes over time (%d bins of %.6g ms):\n", nbins, duration / nbins);
    for (int b = 0; b < nbins; b++) {
        int bar = max ? (int)((40 * bins[b] + max / 2) / max) : 0;
        if (bins[b] > 0 && bar == 0) bar = 1;
        printf("%*.6g - %*.6g ms  %*lld", ew, ana_bin_edge(duration, nbins, b), ew,
               ana_bin_edge(duration, nbins, b + 1), cw, (long long)bins[b]);
        if (bar) printf("  %.*s", bar, "########################################");
        putchar('\n');
    }
    if (outside) printf("(%lld spikes outside [0, %.10g] ms not binned)\n", (long long)outside, duration);
}

/* Several populations and no --population: one row per population. */
static void summary_per_population(const summary_opts *o, const char *spikes_path, char (*pops)[256], int npop)
{
    if (o->csv) puts("population,cells,duration_ms,spikes,cells_spiked,mean_rate_hz");
    else printf("%-20s %10s %12s %10s %12s %12s\n", "population", "cells", "duration_ms", "spikes", "cells_spiked",
                "mean_rate_hz");
    for (int p = 0; p < npop; p++) {
        ana_run run;
        ana_run_open(&run, o->dir);
        ana_spikes sp;
        ana_spikes_open(&sp, spikes_path, pops[p]);
        ana_spike_scan sc;
        ana_spikes_scan(&sp, 1, &sc);
        ana_run_resolve(&run, sp.population, &sc);
        int64_t outside = 0, spiked = 0, bin = 0;
        if (sc.count > 0) spiked = ana_spikes_bin(&sp, run.cells, run.duration_ms, 0, &bin, &outside);
        const double rate = run.cells > 0 && run.duration_ms > 0
                                ? (double)sc.count / (double)run.cells / (run.duration_ms / 1000.0) : NAN;
        if (o->csv) {
            ana_csv_field(stdout, pops[p]);
            printf(",%lld,%.10g,%lld,%lld,", (long long)run.cells, run.duration_ms, (long long)sc.count, (long long)spiked);
            if (rate == rate) printf("%.6g", rate);
            putchar('\n');
        } else {
            printf("%-20s %10lld %12.10g %10lld %12lld %12.6g\n", pops[p], (long long)run.cells, run.duration_ms,
                   (long long)sc.count, (long long)spiked, rate);
        }
        ana_spike_scan_free(&sc);
        ana_spikes_close(&sp);
    }
    if (!o->csv) {
        /* the run's provenance (model, --param, command...) once, below the rows */
        ana_run run;
        ana_run_open(&run, o->dir);
        ana_table t = {0};
        add_provenance(&t, &run);
        if (t.n) { putchar('\n'); ana_table_print_text(&t, stdout); }
        ana_table_free(&t);
        printf("\n(one row per population: --population NAME gives one population's details)\n");
    }
    if (fflush(stdout) != 0) ana_error("writing the summary to standard output failed");
}

int ana_summary_main(int argc, char **argv)
{
    summary_opts o;
    parse(argc, argv, &o);

    ana_run run;
    ana_run_open(&run, o.dir);
    if (!o.population) {
        static char pops[256][256];
        const int npop = ana_spikes_populations(run.spikes_path, pops, 256);
        if (npop > 1) {
            summary_per_population(&o, run.spikes_path, pops, npop);
            return ANA_EXIT_OK;
        }
    }
    ana_spikes sp;
    ana_spikes_open(&sp, run.spikes_path, o.population);
    ana_spike_scan sc;
    ana_spikes_scan(&sp, o.nfirst > 0 ? o.nfirst : 1, &sc);   /* at least the first spike */
    if (sc.nfirst > o.nfirst) sc.nfirst = o.nfirst;
    double first_t = sc.count ? sc.first_t[0] : 0;
    uint64_t first_node = sc.count ? sc.first_node[0] : 0;
    ana_run_resolve(&run, sp.population, &sc);

    int nbins = run.duration_ms > 0 ? o.nbins : 0;
    int64_t *bins = olive_calloc((size_t)nbins + 1, sizeof(int64_t), "histogram");
    int64_t outside = 0, spiked = 0;
    if (sc.count > 0) spiked = ana_spikes_bin(&sp, run.cells, run.duration_ms, nbins, bins, &outside);

    ana_table t = {0};
    ana_table_add(&t, "file", "spike file", NULL, NULL, "%s", run.spikes_path);
    ana_table_add(&t, "population", "population", NULL, sp.population[0] ? NULL : "legacy layout", "%s",
                  sp.population);
    if (run.cells >= 0) ana_table_add(&t, "cells", "cells", NULL, run.cells_from, "%lld", (long long)run.cells);
    else ana_table_add(&t, "cells", "cells", NULL, "no cells attribute, report or spikes", "%s", "");
    ana_table_add(&t, "cells_source", NULL, NULL, NULL, "%s", run.cells_from);
    if (run.duration_ms >= 0)
        ana_table_add(&t, "duration_ms", "duration", "ms", run.duration_from, "%.10g", run.duration_ms);
    else ana_table_add(&t, "duration_ms", "duration", NULL, "no steps/dt attributes, report or spikes", "%s", "");
    ana_table_add(&t, "duration_source", NULL, NULL, NULL, "%s", run.duration_from);
    ana_table_add(&t, "spikes", "spikes", NULL, NULL, "%lld", (long long)sc.count);
    char pct[64] = "";
    if (run.cells > 0) snprintf(pct, sizeof pct, "%.1f%% of the cells", 100.0 * (double)spiked / (double)run.cells);
    ana_table_add(&t, "cells_spiked", "cells that spiked", NULL, pct, "%lld", (long long)spiked);
    if (run.cells > 0 && run.duration_ms > 0)
        ana_table_add(&t, "mean_rate_hz", "mean rate", "Hz", "spikes / cells / duration", "%.6g",
                      (double)sc.count / (double)run.cells / (run.duration_ms / 1000.0));
    else ana_table_add(&t, "mean_rate_hz", "mean rate", NULL, "needs cells and a duration", "%s", "");
    if (sc.count > 0) {
        ana_table_add(&t, NULL, "first spike", NULL, NULL, "%.10g ms, node %llu", first_t,
                      (unsigned long long)first_node);
        ana_table_add(&t, "first_spike_ms", NULL, NULL, NULL, "%.10g", first_t);
        ana_table_add(&t, "first_spike_node", NULL, NULL, NULL, "%llu", (unsigned long long)first_node);
        ana_table_add(&t, "last_spike_ms", "last spike", "ms", NULL, "%.10g", sc.t_max);
    } else {
        ana_table_add(&t, NULL, "first spike", NULL, NULL, "none");
        ana_table_add(&t, "first_spike_ms", NULL, NULL, NULL, "%s", "");
        ana_table_add(&t, "first_spike_node", NULL, NULL, NULL, "%s", "");
        ana_table_add(&t, "last_spike_ms", NULL, NULL, NULL, "%s", "");
    }
    if (sp.sorting[0]) ana_table_add(&t, "sorting", "sorting", NULL, NULL, "%s", sp.sorting);
    add_provenance(&t, &run);

    if (o.csv) {
        for (int i = 0; i < sc.nfirst; i++) {
            char k[64];
            snprintf(k, sizeof k, "spike_%d_ms", i + 1);
            ana_table_add(&t, k, NULL, NULL, NULL, "%.10g", sc.first_t[i]);
            snprintf(k, sizeof k, "spike_%d_node", i + 1);
            ana_table_add(&t, k, NULL, NULL, NULL, "%llu", (unsigned long long)sc.first_node[i]);
        }
        ana_table_add(&t, "bins", NULL, NULL, NULL, "%d", nbins);
        for (int b = 0; b < nbins; b++) {
            char k[64];
            snprintf(k, sizeof k, "bin_%d_start_ms", b + 1);
            ana_table_add(&t, k, NULL, NULL, NULL, "%.10g", ana_bin_edge(run.duration_ms, nbins, b));
            snprintf(k, sizeof k, "bin_%d_stop_ms", b + 1);
            ana_table_add(&t, k, NULL, NULL, NULL, "%.10g", ana_bin_edge(run.duration_ms, nbins, b + 1));
            snprintf(k, sizeof k, "bin_%d_spikes", b + 1);
            ana_table_add(&t, k, NULL, NULL, NULL, "%lld", (long long)bins[b]);
        }
        if (nbins > 0) ana_table_add(&t, "spikes_outside", NULL, NULL, NULL, "%lld", (long long)outside);
        ana_table_print_csv(&t, stdout, 1);
    } else {
        ana_table_print_text(&t, stdout);
        print_first_text(&sc);
        print_histogram_text(run.duration_ms, nbins, bins, outside);
    }
    if (fflush(stdout) != 0) ana_error("writing the summary to standard output failed");

    ana_table_free(&t);
    free(bins);
    ana_spike_scan_free(&sc);
    ana_spikes_close(&sp);
    return ANA_EXIT_OK;
}
