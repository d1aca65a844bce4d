/* olive-analyze spikes: re-detect spikes from a report with another
 * threshold, printed as a table or written as a SONATA spike file. */
#include "analyze.h"
#include "h5util.h"
#include "util.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char spikes_help[] =
    "Usage: olive-analyze spikes OUTDIR|REPORT.h5 [--threshold MV] [--variable NAME]\n"
    "                            [-o SPIKES.h5 [--force]] [--csv] [--population NAME]\n"
    "\n"
    "Re-detect spikes from a recorded report (OUTDIR/<variable>.h5, or any\n"
    "SONATA report file). A spike is an upward crossing between consecutive\n"
    "frames: value at frame k-1 < threshold <= value at frame k; its time is\n"
    "the time of frame k. With --record-every 1 (and --record-precision double)\n"
    "this is exactly olive-simulate's own detection; with coarser recording the\n"
    "times are those of the frames. The first frame has no predecessor and\n"
    "never holds a spike.\n"
    "\n"
    "  --threshold MV     threshold (default 0)\n"
    "  --variable NAME    the report to read in OUTDIR (default v_axon)\n"
    "  -o, --output FILE  write a SONATA spike file (sorted by time; written\n"
    "                     under a temporary name, renamed when complete)\n"
    "  --force            replace an existing output file\n"
    "  --compress[=LEVEL] deflate the spike file (level 1-9, default 4; off by\n"
    "                     default so that readers without the filter open it)\n"
    "  --csv              print time_ms,node_id lines instead of a table\n"
    "  --population NAME  report population (default: the only one)\n"
    "  -h, --help         this help\n"
    "\n"
    "Without -o the spikes are printed, one per line, sorted by time then node.\n"
    "Exit status: 0 success, 2 error.\n";

typedef struct {
    const char *dir, *variable, *output, *population;
    double threshold;
    int csv, force;
} spikes_opts;

static void parse(int argc, char **argv, spikes_opts *o)
{
    static const struct option longopts[] = {
        {"threshold", required_argument, NULL, 't'}, {"variable", required_argument, NULL, 'v'},
        {"output", required_argument, NULL, 'o'},    {"force", no_argument, NULL, 'F'},
        {"csv", no_argument, NULL, 'c'},             {"population", required_argument, NULL, 'p'},
        {"compress", optional_argument, NULL, 'z'},  {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->variable = NULL;   /* ana_default_variable once OUTDIR is known */
    opterr = 0;
    optind = 1;
    int c;
    ana_check_options("spikes", argc, argv, longopts, ":ho:");
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 't': o->threshold = olive_parse_double("--threshold", optarg, -1e9, 1e9); break;
        case 'v': o->variable = optarg; break;
        case 'o': o->output = optarg; break;
        case 'F': o->force = 1; break;
        case 'z': olive_h5_deflate = optarg ? (int)olive_parse_int("--compress", optarg, 1, 9) : 4; break;
        case 'c': o->csv = 1; break;
        case 'p': o->population = optarg; break;
        case 'h': fputs(spikes_help, stdout); exit(ANA_EXIT_OK);
        case ':': ana_usage_error("spikes", "option %s needs a value", argv[optind - 1]);
        default: ana_usage_error("spikes", "unknown option %s", argv[optind - 1]);
        }
    }
    if (optind >= argc) ana_usage_error("spikes", "missing OUTDIR (an olive-simulate output directory or a report file)");
    if (optind + 1 < argc) ana_usage_error("spikes", "unexpected argument '%s'", argv[optind + 1]);
    if (o->output && !o->force && olive_path_exists(o->output))
        ana_usage_error("spikes", "%s exists; use --force to overwrite it", o->output);
    o->dir = argv[optind];
    if (!o->variable) o->variable = ana_default_variable(o->dir, "v_axon");
}

static void push(ana_spike_list *l, int64_t *cap, double t, uint64_t node)
{
    if (l->n == *cap) {
        *cap = *cap ? 2 * *cap : 4096;
        l->t = realloc(l->t, (size_t)*cap * sizeof *l->t);
        l->node = realloc(l->node, (size_t)*cap * sizeof *l->node);
        if (!l->t || !l->node) olive_die("out of memory (spikes)");
    }
    l->t[l->n] = t;
    l->node[l->n++] = node;
}

/* Upward crossings of thr in every column, frame block by frame block. */
static void detect(const ana_report *r, double thr, ana_spike_list *l)
{
    memset(l, 0, sizeof *l);
    int64_t cap = 0, nb = ana_report_block(r, r->n);
    double *buf = olive_malloc((size_t)(nb * r->n) * sizeof(double) + 8, "report block");
    double *prev = olive_malloc((size_t)r->n * sizeof(double) + 8, "previous frame");
    for (int64_t k0 = 0; k0 < r->frames; k0 += nb) {
        int64_t nk = r->frames - k0 < nb ? r->frames - k0 : nb;
        ana_report_read(r, k0, nk, 0, r->n, buf);
        for (int64_t k = 0; k < nk; k++) {
            const double *cur = buf + k * r->n;
            if (k0 + k > 0) {
                double t = ana_report_time(r, k0 + k);
                for (int64_t c = 0; c < r->n; c++)
                    if (prev[c] < thr && cur[c] >= thr) push(l, &cap, t, r->nodes[c]);
            }
            memcpy(prev, cur, (size_t)r->n * sizeof(double));
        }
    }
    free(buf);
    free(prev);
    ana_spike_list_sort_time(l);
}

int ana_spikes_main(int argc, char **argv)
{
    spikes_opts o;
    parse(argc, argv, &o);
    char path[4096];
    ana_report_path(path, sizeof path, o.dir, o.variable);
    ana_report r;
    ana_report_open(&r, path, o.population);
    ana_spike_list l;
    detect(&r, o.threshold, &l);
    if (o.output) {
        ana_spikes_write(o.output, o.force, r.population, &l, r.file, path, o.threshold);
        if (!olive_quiet) printf("%lld spikes (threshold %g %s, %s) written to %s\n", (long long)l.n, o.threshold,
               r.units[0] ? r.units : "mV", path, o.output);
    } else {
        static const int w[2] = {14, 10};
        static const char *const names[2] = {"time_ms", "node_id"};
        ana_cols_header(stdout, o.csv, 2, w, names);
        for (int64_t i = 0; i < l.n; i++) {
            char t[64], n[32];
            snprintf(t, sizeof t, "%.10g", l.t[i]);
            snprintf(n, sizeof n, "%llu", (unsigned long long)l.node[i]);
            ana_cols_row(stdout, o.csv, 2, w, t, n);
        }
    }
    ana_flush_stdout("the spikes");
    ana_spike_list_free(&l);
    ana_report_close(&r);
    return ANA_EXIT_OK;
}
