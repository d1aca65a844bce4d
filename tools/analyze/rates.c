/* olive-analyze rates: firing rate per cell, or of the population over time
 * bins. */
#include "analyze.h"
#include "util.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char rates_help[] =
    "Usage: olive-analyze rates OUTDIR|SPIKES.h5 [--bin MS] [--cells A:B] [--csv] [--population NAME]\n"
    "\n"
    "Without --bin: one line per cell: cell, spikes, rate (spikes / duration, Hz).\n"
    "With --bin MS: the population rate over time bins of MS ms covering\n"
    "[0, duration] (the last bin ends at the duration and may be shorter; it\n"
    "includes its end): bin start, stop, spikes, rate = spikes / cells / bin\n"
    "width (Hz per cell). Cells and duration are found as by `summary`.\n"
    "\n"
    "  --bin MS           population rate in bins of MS ms\n"
    "  --cells A:B        per-cell table for cells A..B-1 only (and, with --bin,\n"
    "                     the population rate of those cells)\n"
    "  --csv              CSV with a header line (cell,spikes,rate_hz or\n"
    "                     bin_start_ms,bin_stop_ms,spikes,rate_hz)\n"
    "  --population NAME  population under /spikes (default: the only one)\n"
    "  -h, --help         this help\n"
    "\n"
    "The text output starts with '#' lines: cells, duration, spikes, mean rate.\n"
    "Exit status: 0 success, 2 error.\n";

typedef struct {
    const char *dir, *population;
    double bin;
    int csv, has_cells;
    int64_t a, b;
} rates_opts;

static void parse(int argc, char **argv, rates_opts *o)
{
    static const struct option longopts[] = {
        {"bin", required_argument, NULL, 'b'}, {"cells", required_argument, NULL, 'C'},
        {"csv", no_argument, NULL, 'c'},       {"population", required_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},      {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    opterr = 0;
    optind = 1;
    int c;
    ana_check_options("rates", argc, argv, longopts, ":h");
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'b': o->bin = olive_parse_double("--bin", optarg, 1e-9, 1e12); break;
        case 'C': ana_parse_cells("rates", "--cells", optarg, &o->a, &o->b); o->has_cells = 1; break;
        case 'c': o->csv = 1; break;
        case 'p': o->population = optarg; break;
        case 'h': fputs(rates_help, stdout); exit(ANA_EXIT_OK);
        case ':': ana_usage_error("rates", "option %s needs a value", argv[optind - 1]);
        default: ana_usage_error("rates", "unknown option %s", argv[optind - 1]);
        }
    }
    if (optind >= argc) ana_usage_error("rates", "missing OUTDIR (an olive-simulate output directory or a spike file)");
    if (optind + 1 < argc) ana_usage_error("rates", "unexpected argument '%s'", argv[optind + 1]);
    o->dir = argv[optind];
}

static void per_cell(const ana_spikes *sp, const ana_run *run, const rates_opts *o)
{
    int64_t *counts = olive_malloc((size_t)run->cells * sizeof(int64_t) + 8, "spike counts");
    ana_spikes_per_cell(sp, run->cells, counts);
    int64_t a = o->has_cells ? o->a : 0, b = o->has_cells ? o->b : run->cells;
    if (b > run->cells) b = run->cells;
    static const int w[3] = {10, 8, 12};
    static const char *const names[3] = {"cell", "spikes", "rate_hz"};
    ana_cols_header(stdout, o->csv, 3, w, names);
    for (int64_t c = a; c < b; c++) {
        char cs[32], ns[32], rs[64];
        snprintf(cs, sizeof cs, "%lld", (long long)c);
        snprintf(ns, sizeof ns, "%lld", (long long)counts[c]);
        snprintf(rs, sizeof rs, "%.6g", (double)counts[c] / (run->duration_ms / 1000.0));
        ana_cols_row(stdout, o->csv, 3, w, cs, ns, rs);
    }
    free(counts);
}

static void population(const ana_spikes *sp, const ana_run *run, const rates_opts *o)
{
    ana_bins bins;
    ana_bins_width(&bins, 0, run->duration_ms, o->bin, 10000000);
    int64_t *count = olive_calloc((size_t)bins.n, sizeof(int64_t), "bins");
    int64_t a = o->has_cells ? o->a : 0, b = o->has_cells ? o->b : run->cells;
    if (b > run->cells) b = run->cells;
    ana_spike_list l;
    ana_spikes_load(sp, &l);
    for (int64_t i = 0; i < l.n; i++) {
        if (l.node[i] >= (uint64_t)run->cells)
            ana_error("%s: %s[%lld] = %llu is not a cell of a %lld-cell run", sp->path, sp->ids.name, (long long)i,
                      (unsigned long long)l.node[i], (long long)run->cells);
        if (l.node[i] < (uint64_t)a || l.node[i] >= (uint64_t)b) continue;
        int k = ana_bins_find(&bins, l.t[i]);
        if (k >= 0) count[k]++;
    }
    ana_spike_list_free(&l);
    static const int w[4] = {12, 12, 8, 12};
    static const char *const names[4] = {"bin_start_ms", "bin_stop_ms", "spikes", "rate_hz"};
    ana_cols_header(stdout, o->csv, 4, w, names);
    for (int k = 0; k < bins.n; k++) {
        double lo = ana_bins_edge(&bins, k), hi = ana_bins_edge(&bins, k + 1);
        char s0[64], s1[64], ns[32], rs[64];
        snprintf(s0, sizeof s0, "%.10g", lo);
        snprintf(s1, sizeof s1, "%.10g", hi);
        snprintf(ns, sizeof ns, "%lld", (long long)count[k]);
        snprintf(rs, sizeof rs, "%.6g", hi > lo && b > a ? (double)count[k] / (double)(b - a) / ((hi - lo) / 1000.0) : 0.0);
        ana_cols_row(stdout, o->csv, 4, w, s0, s1, ns, rs);
    }
    free(count);
}

int ana_rates_main(int argc, char **argv)
{
    rates_opts o;
    parse(argc, argv, &o);
    ana_run run;
    ana_run_open(&run, o.dir);
    ana_spikes sp;
    ana_spikes_open(&sp, run.spikes_path, o.population);
    ana_spike_scan sc;
    ana_spikes_scan(&sp, 0, &sc);
    ana_run_resolve(&run, sp.population, &sc);
    if (run.cells <= 0) ana_error("%s: the number of cells is unknown (no cells attribute, report or spikes)", run.spikes_path);
    if (!(run.duration_ms > 0)) ana_error("%s: the duration is unknown or 0 (no steps/dt attributes, report or spikes)", run.spikes_path);
    if (o.has_cells && o.a >= run.cells)
        ana_usage_error("rates", "--cells %lld:%lld: the run has %lld cells", (long long)o.a, (long long)o.b,
                        (long long)run.cells);
    if (!o.csv) {
        printf("# %s: %lld cells, %.10g ms, %lld spikes, mean rate %.6g Hz\n", run.spikes_path, (long long)run.cells,
               run.duration_ms, (long long)sc.count, (double)sc.count / (double)run.cells / (run.duration_ms / 1000.0));
    }
    if (o.bin > 0) population(&sp, &run, &o);
    else per_cell(&sp, &run, &o);
    ana_flush_stdout("the rates");
    ana_spike_scan_free(&sc);
    ana_spikes_close(&sp);
    return ANA_EXIT_OK;
}
