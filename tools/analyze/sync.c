/* olive-analyze sync: population synchrony of the subthreshold oscillation
 * (Kuramoto order parameter from crossing-based phases, phase.c) and a
 * simple spike-time coincidence measure. */
#include "phase.h"
#include "util.h"
#include <complex.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char sync_help[] =
    "Usage: olive-analyze sync OUTDIR|REPORT.h5 [--variable NAME] [--cells A:B] [--t0 MS] [--t1 MS]\n"
    "                          [--hysteresis F] [--window MS] [--series [--every K]] [--csv]\n"
    "\n"
    "Synchrony of the subthreshold oscillation: the Kuramoto order parameter\n"
    "R(t) = |mean_j exp(i phi_j(t))| over the cells, 1 when all oscillate in\n"
    "phase, about 1/sqrt(cells) for random phases, and its time average.\n"
    "\n"
    "Phases: each cell's trace (OUTDIR/<variable>.h5) within [t0, t1] has mean\n"
    "m and SD s; its upward crossings of m (x[k-1] < m <= x[k], time by linear\n"
    "interpolation, counted only after the trace went below m - F*s) mark\n"
    "phase 0, 2pi, 4pi, ...; in between the phase grows linearly in time.\n"
    "Cells with fewer than 2 crossings are not oscillating and left out. R(t)\n"
    "is evaluated at the frames where every oscillating cell has a phase\n"
    "(from the latest first crossing to the earliest last crossing).\n"
    "\n"
    "Spikes (OUTDIR/spikes.h5, or spikes.h5 beside REPORT.h5, when present):\n"
    "the fraction of spikes that have a spike of another cell within +-W ms,\n"
    "over the same cells and time span as R: the report's cells (or --cells),\n"
    "from one frame interval before the first frame to the last one (or\n"
    "[t0, t1] when given).\n"
    "\n"
    "  --variable NAME    report to read (default v_dend)\n"
    "  --cells A:B        cells A..B-1 only (default all recorded cells)\n"
    "  --t0 MS, --t1 MS   time window (default the whole report)\n"
    "  --hysteresis F     fraction of the SD (default 0.1)\n"
    "  --window MS        spike coincidence window W (default 2)\n"
    "  --series           print R(t) per frame (time_ms, R) instead of the summary\n"
    "  --every K          with --series, every K-th frame (default 1)\n"
    "  --csv              key,value lines (with --series: time_ms,R lines)\n"
    "  --population NAME  population (default: the only one)\n"
    "  -h, --help         this help\n"
    "\n"
    "Exit status: 0 success, 2 error.\n";

typedef struct {
    const char *dir, *variable, *population;
    int64_t a, b, every;
    int has_cells, csv, series;
    double t0, t1, hyst, window;
} sync_opts;

static void parse(int argc, char **argv, sync_opts *o)
{
    static const struct option longopts[] = {
        {"variable", required_argument, NULL, 'v'}, {"cells", required_argument, NULL, 'C'},
        {"t0", required_argument, NULL, '0'},       {"t1", required_argument, NULL, '1'},
        {"hysteresis", required_argument, NULL, 'y'}, {"window", required_argument, NULL, 'w'},
        {"series", no_argument, NULL, 's'},         {"every", required_argument, NULL, 'e'},
        {"csv", no_argument, NULL, 'c'},            {"population", required_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->variable = NULL;   /* ana_default_variable once OUTDIR is known */
    o->t0 = -INFINITY;
    o->t1 = INFINITY;
    o->hyst = 0.1;
    o->window = 2;
    o->every = 1;
    opterr = 0;
    optind = 1;
    int c;
    ana_check_options("sync", argc, argv, longopts, ":h");
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'v': o->variable = optarg; break;
        case 'C': ana_parse_cells("sync", "--cells", optarg, &o->a, &o->b); o->has_cells = 1; break;
        case '0': o->t0 = olive_parse_double("--t0", optarg, -1e15, 1e15); break;
        case '1': o->t1 = olive_parse_double("--t1", optarg, -1e15, 1e15); break;
        case 'y': o->hyst = olive_parse_double("--hysteresis", optarg, 0, 10); break;
        case 'w': o->window = olive_parse_double("--window", optarg, 0, 1e12); break;
        case 's': o->series = 1; break;
        case 'e': o->every = olive_parse_int("--every", optarg, 1, INT64_MAX / 2); break;
        case 'c': o->csv = 1; break;
        case 'p': o->population = optarg; break;
        case 'h': fputs(sync_help, stdout); exit(ANA_EXIT_OK);
        case ':': ana_usage_error("sync", "option %s needs a value", argv[optind - 1]);
        default: ana_usage_error("sync", "unknown option %s", argv[optind - 1]);
        }
    }
    if (optind >= argc) ana_usage_error("sync", "missing OUTDIR (an olive-simulate output directory or a report file)");
    if (optind + 1 < argc) ana_usage_error("sync", "unexpected argument '%s'", argv[optind + 1]);
    if (!(o->t0 < o->t1)) ana_usage_error("sync", "--t0 %g must be below --t1 %g", o->t0, o->t1);
    o->dir = argv[optind];
    if (!o->variable) o->variable = ana_default_variable(o->dir, "v_dend");
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Fraction of spikes with a spike of another cell within +-w ms, over the
 * same cells (the report columns the phases use) and the same time span
 * [lo, hi] as the order parameter, so both numbers describe one thing. */
static void spike_sync(const char *path, const sync_opts *o, ana_table *t, const ana_report *r,
                       const int64_t *cols, int64_t nc, double lo, double hi)
{
    uint64_t *ids = olive_malloc((size_t)nc * sizeof(uint64_t) + 8, "cell ids");
    for (int64_t i = 0; i < nc; i++) ids[i] = r->nodes[cols[i]];
    qsort(ids, (size_t)nc, sizeof *ids, cmp_u64);
    ana_spikes sp;
    ana_spikes_open(&sp, path, o->population ? o->population : (r->population[0] ? r->population : NULL));
    ana_spike_list l;
    ana_spikes_load(&sp, &l);
    int64_t n = 0;
    for (int64_t i = 0; i < l.n; i++) {   /* keep the chosen cells and window */
        if (!bsearch(&l.node[i], ids, (size_t)nc, sizeof *ids, cmp_u64)) continue;
        if (l.t[i] < lo || l.t[i] > hi) continue;
        l.t[n] = l.t[i];
        l.node[n++] = l.node[i];
    }
    free(ids);
    l.n = n;
    ana_spike_list_sort_time(&l);
    int64_t coincident = 0;
    for (int64_t i = 0; i < n; i++) {
        int found = 0;
        for (int64_t j = i - 1; j >= 0 && l.t[i] - l.t[j] <= o->window && !found; j--) found = l.node[j] != l.node[i];
        for (int64_t j = i + 1; j < n && l.t[j] - l.t[i] <= o->window && !found; j++) found = l.node[j] != l.node[i];
        coincident += found;
    }
    ana_table_add(t, "spike_file", "spike file", NULL, NULL, "%s", path);
    ana_table_add(t, "spikes", "spikes", NULL, "of those cells, in the window", "%lld", (long long)n);
    ana_table_add(t, "spike_window_ms", "coincidence window", "ms", NULL, "%.6g", o->window);
    if (n > 0)
        ana_table_add(t, "spike_sync", "spike coincidence", NULL, "fraction of spikes with another cell's within the window",
                      "%.6g", (double)coincident / (double)n);
    else ana_table_add(t, "spike_sync", "spike coincidence", NULL, "no spikes", "%s", "");
    ana_spike_list_free(&l);
    ana_spikes_close(&sp);
}

static int spikes_beside(const char *arg, char *out, size_t n)
{
    struct stat st;
    if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) ana_fmt(out, n, "%s/spikes.h5", arg);
    else {
        const char *slash = strrchr(arg, '/');
        if (slash) ana_fmt(out, n, "%.*s/spikes.h5", (int)(slash - arg), arg);
        else ana_fmt(out, n, "spikes.h5");
    }
    return stat(out, &st) == 0;
}

int ana_sync_main(int argc, char **argv)
{
    sync_opts o;
    parse(argc, argv, &o);
    char path[4096];
    ana_report_path(path, sizeof path, o.dir, o.variable);
    ana_report r;
    ana_report_open(&r, path, o.population);
    int64_t *cols, nc = ana_report_columns(&r, o.has_cells ? o.a : 0, o.has_cells ? o.b : INT64_MAX, &cols);
    if (nc == 0) ana_error("%s: no recorded cell in --cells %lld:%lld", path, (long long)o.a, (long long)o.b);
    int64_t k0, k1;
    ana_report_window(&r, o.t0, o.t1, &k0, &k1);
    if (k1 - k0 < 3) ana_error("%s: %lld frames in the time window, too few for phases", path, (long long)(k1 - k0));

    ana_crossings *cr = olive_malloc((size_t)nc * sizeof *cr, "crossings");
    double *mean = olive_malloc((size_t)nc * sizeof(double), "means");
    double *sd = olive_malloc((size_t)nc * sizeof(double), "SDs");
    ana_phase_crossings(&r, cols, nc, k0, k1, o.hyst, cr, mean, sd);
    int64_t osc = 0;
    double lo = -INFINITY, hi = INFINITY, freq = 0;
    for (int64_t i = 0; i < nc; i++) {
        if (cr[i].n < 2) continue;
        osc++;
        if (cr[i].t[0] > lo) lo = cr[i].t[0];
        if (cr[i].t[cr[i].n - 1] < hi) hi = cr[i].t[cr[i].n - 1];
        freq += 1000.0 * (double)(cr[i].n - 1) / (cr[i].t[cr[i].n - 1] - cr[i].t[0]);
    }

    /* R(t) at the frames where every oscillating cell has a phase. */
    int64_t *cursor = olive_calloc((size_t)nc, sizeof(int64_t), "cursors");
    int64_t used = 0;
    double rsum = 0, rmin = 0, rmax = 0;
    static const int w[2] = {14, 10};
    static const char *const names[2] = {"time_ms", "R"};
    if (o.series) ana_cols_header(stdout, o.csv, 2, w, names);
    for (int64_t k = k0; osc > 0 && k < k1; k++) {
        double t = ana_report_time(&r, k);
        if (t < lo || t >= hi) continue;
        double complex z = 0;
        for (int64_t i = 0; i < nc; i++) {
            double phi;
            if (cr[i].n >= 2 && ana_phase_at(&cr[i], t, &cursor[i], &phi)) z += cexp(I * phi);
        }
        double R = cabs(z) / (double)osc;
        if (used == 0 || R < rmin) rmin = R;
        if (used == 0 || R > rmax) rmax = R;
        rsum += R;
        if (o.series && (k - k0) % o.every == 0) {
            char ts[64], rs[64];
            snprintf(ts, sizeof ts, "%.10g", t);
            snprintf(rs, sizeof rs, "%.6f", R);
            ana_cols_row(stdout, o.csv, 2, w, ts, rs);
        }
        used++;
    }
    if (!o.series) {
        ana_table t = {0};
        ana_table_add(&t, "report", "report", NULL, NULL, "%s", path);
        ana_table_add(&t, "cells", "cells", NULL, NULL, "%lld", (long long)nc);
        ana_table_add(&t, "oscillating", "oscillating cells", NULL, "2+ upward mean-crossings", "%lld", (long long)osc);
        ana_table_add(&t, "frames", "frames", NULL, NULL, "%lld", (long long)(k1 - k0));
        double w0 = ana_report_time(&r, k0), w1 = ana_report_time(&r, k1 - 1);
        ana_table_add(&t, NULL, "frame times", "ms", NULL, "%.10g - %.10g", w0, w1);
        ana_table_add(&t, "t0_ms", NULL, NULL, NULL, "%.10g", w0);
        ana_table_add(&t, "t1_ms", NULL, NULL, NULL, "%.10g", w1);
        if (osc > 0) ana_table_add(&t, "frequency_hz", "mean frequency", "Hz", "crossings per second, mean over cells",
                                   "%.6g", freq / (double)osc);
        else ana_table_add(&t, "frequency_hz", "mean frequency", NULL, "no oscillating cell", "%s", "");
        ana_table_add(&t, "phase_frames", "frames with phases", NULL, "every oscillating cell has a phase", "%lld",
                      (long long)used);
        if (used > 0) {
            ana_table_add(&t, "R_mean", "order parameter R", NULL, "time average; 1 = in phase", "%.6f", rsum / (double)used);
            ana_table_add(&t, "R_min", "R min", NULL, NULL, "%.6f", rmin);
            ana_table_add(&t, "R_max", "R max", NULL, NULL, "%.6f", rmax);
        } else {
            ana_table_add(&t, "R_mean", "order parameter R", NULL, "no frame where every oscillating cell has a phase", "%s", "");
        }
        char sp[4096];
        /* The spikes' window: the frames' span, from the start of the
         * interval the first frame closes (t0/t1 when given). */
        double slo = isfinite(o.t0) ? o.t0 : w0 - r.step, shi = isfinite(o.t1) ? o.t1 : w1;
        if (spikes_beside(o.dir, sp, sizeof sp)) spike_sync(sp, &o, &t, &r, cols, nc, slo, shi);
        if (o.csv) ana_table_print_csv(&t, stdout, 1);
        else ana_table_print_text(&t, stdout);
        ana_table_free(&t);
    }
    ana_flush_stdout("the synchrony");
    free(cursor);
    ana_crossings_free(cr, nc);
    free(cr);
    free(mean);
    free(sd);
    free(cols);
    ana_report_close(&r);
    return ANA_EXIT_OK;
}
