/* olive-analyze isi: inter-spike-interval histogram and statistics. */
#include "analyze.h"
#include "util.h"
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char isi_help[] =
    "Usage: olive-analyze isi OUTDIR|SPIKES.h5 [--bins N] [--max MS] [--csv] [--population NAME]\n"
    "\n"
    "Inter-spike intervals: for every cell, the differences between its\n"
    "consecutive spikes (in time order), pooled over all cells. Prints their\n"
    "count, mean, standard deviation (population SD, dividing by the count),\n"
    "coefficient of variation CV = SD / mean, minimum, maximum, and a\n"
    "histogram of N equal bins over [0, MS] (bin k: [k, k+1) * MS/N, the last\n"
    "bin closed; intervals above MS are counted apart).\n"
    "\n"
    "  --bins N           histogram bins (default 20, 0: none)\n"
    "  --max MS           upper end of the histogram (default: the largest interval)\n"
    "  --csv              key,value lines (bin_K_start_ms, bin_K_stop_ms, bin_K_count)\n"
    "  --population NAME  population under /spikes (default: the only one)\n"
    "  -h, --help         this help\n"
    "\n"
    "Exit status: 0 success, 2 error.\n";

typedef struct {
    const char *dir, *population;
    int csv, nbins;
    double max;
} isi_opts;

static void parse(int argc, char **argv, isi_opts *o)
{
    static const struct option longopts[] = {
        {"bins", required_argument, NULL, 'b'}, {"max", required_argument, NULL, 'm'},
        {"csv", no_argument, NULL, 'c'},        {"population", required_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},       {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->nbins = 20;
    opterr = 0;
    optind = 1;
    int c;
    ana_check_options("isi", argc, argv, longopts, ":h");
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'b': o->nbins = (int)olive_parse_int("--bins", optarg, 0, 100000); break;
        case 'm': o->max = olive_parse_double("--max", optarg, 1e-12, 1e15); break;
        case 'c': o->csv = 1; break;
        case 'p': o->population = optarg; break;
        case 'h': fputs(isi_help, stdout); exit(ANA_EXIT_OK);
        case ':': ana_usage_error("isi", "option %s needs a value", argv[optind - 1]);
        default: ana_usage_error("isi", "unknown option %s", argv[optind - 1]);
        }
    }
    if (optind >= argc) ana_usage_error("isi", "missing OUTDIR (an olive-simulate output directory or a spike file)");
    if (optind + 1 < argc) ana_usage_error("isi", "unexpected argument '%s'", argv[optind + 1]);
    o->dir = argv[optind];
}

int ana_isi_main(int argc, char **argv)
{
    isi_opts o;
    parse(argc, argv, &o);
    ana_run run;
    ana_run_open(&run, o.dir);
    ana_spikes sp;
    ana_spikes_open(&sp, run.spikes_path, o.population);
    ana_spike_list l;
    ana_spikes_load(&sp, &l);
    ana_spike_list_sort_node(&l);

    /* Intervals in place: isi[m] for consecutive spikes of one cell. */
    double *isi = olive_malloc((size_t)l.n * sizeof(double) + 8, "intervals");
    int64_t m = 0, cells = 0, cells2 = 0;
    double sum = 0, mn = 0, mx = 0;
    for (int64_t i = 0; i < l.n; i++) {
        if (i == 0 || l.node[i] != l.node[i - 1]) {
            cells++;
            if (i + 1 < l.n && l.node[i + 1] == l.node[i]) cells2++;
            continue;
        }
        double d = l.t[i] - l.t[i - 1];
        if (m == 0 || d < mn) mn = d;
        if (m == 0 || d > mx) mx = d;
        isi[m++] = d;
        sum += d;
    }
    double mean = m ? sum / (double)m : 0, ss = 0;
    for (int64_t i = 0; i < m; i++) ss += (isi[i] - mean) * (isi[i] - mean);
    double sd = m ? sqrt(ss / (double)m) : 0;

    double hi = o.max > 0 ? o.max : mx;
    int nbins = m > 0 && hi > 0 ? o.nbins : 0;
    ana_bins bins;
    ana_bins_count(&bins, 0, hi, nbins);
    int64_t *count = olive_calloc((size_t)nbins + 1, sizeof(int64_t), "histogram");
    int64_t above = 0;
    for (int64_t i = 0; i < m; i++) {
        int k = ana_bins_find(&bins, isi[i]);
        if (k >= 0) count[k]++;
        else above++;
    }

    ana_table t = {0};
    ana_table_add(&t, "file", "spike file", NULL, NULL, "%s", run.spikes_path);
    ana_table_add(&t, "spikes", "spikes", NULL, NULL, "%lld", (long long)l.n);
    ana_table_add(&t, "cells_spiking", "cells that spiked", NULL, NULL, "%lld", (long long)cells);
    ana_table_add(&t, "cells_with_isi", "cells with 2+ spikes", NULL, NULL, "%lld", (long long)cells2);
    ana_table_add(&t, "intervals", "intervals", NULL, NULL, "%lld", (long long)m);
    if (m > 0) {
        ana_table_add(&t, "mean_ms", "mean", "ms", NULL, "%.10g", mean);
        ana_table_add(&t, "sd_ms", "SD", "ms", NULL, "%.10g", sd);
        ana_table_add(&t, "cv", "CV", NULL, "SD / mean", "%.6g", mean > 0 ? sd / mean : 0.0);
        ana_table_add(&t, "min_ms", "shortest", "ms", NULL, "%.10g", mn);
        ana_table_add(&t, "max_ms", "longest", "ms", NULL, "%.10g", mx);
    } else {
        ana_table_add(&t, "mean_ms", "mean", NULL, "no cell spiked twice", "%s", "");
        ana_table_add(&t, "sd_ms", NULL, NULL, NULL, "%s", "");
        ana_table_add(&t, "cv", NULL, NULL, NULL, "%s", "");
    }
    if (o.csv) {
        ana_table_add(&t, "bins", NULL, NULL, NULL, "%d", nbins);
        for (int k = 0; k < nbins; k++) {
            char key[64];
            snprintf(key, sizeof key, "bin_%d_start_ms", k + 1);
            ana_table_add(&t, key, NULL, NULL, NULL, "%.10g", ana_bins_edge(&bins, k));
            snprintf(key, sizeof key, "bin_%d_stop_ms", k + 1);
            ana_table_add(&t, key, NULL, NULL, NULL, "%.10g", ana_bins_edge(&bins, k + 1));
            snprintf(key, sizeof key, "bin_%d_count", k + 1);
            ana_table_add(&t, key, NULL, NULL, NULL, "%lld", (long long)count[k]);
        }
        if (nbins > 0) ana_table_add(&t, "above_max", NULL, NULL, NULL, "%lld", (long long)above);
        ana_table_print_csv(&t, stdout, 1);
    } else {
        ana_table_print_text(&t, stdout);
        if (nbins > 0) {
            int64_t top = 1;
            for (int k = 0; k < nbins; k++) if (count[k] > top) top = count[k];
            printf("\nintervals (%d bins of %.6g ms):\n", nbins, hi / nbins);
            for (int k = 0; k < nbins; k++) {
                int bar = (int)((40 * count[k] + top / 2) / top);
                if (count[k] > 0 && bar == 0) bar = 1;
                printf("%12.6g - %12.6g ms  %10lld", ana_bins_edge(&bins, k), ana_bins_edge(&bins, k + 1),
                       (long long)count[k]);
                if (bar) printf("  %.*s", bar, "########################################");
                putchar('\n');
            }
            if (above) printf("(%lld intervals above %.10g ms not binned)\n", (long long)above, hi);
        }
    }
    ana_flush_stdout("the intervals");
    ana_table_free(&t);
    free(count);
    free(isi);
    ana_spike_list_free(&l);
    ana_spikes_close(&sp);
    return ANA_EXIT_OK;
}
