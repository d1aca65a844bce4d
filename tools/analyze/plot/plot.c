/* olive-analyze plot: a raster, trace, population-rate or heat-map plot as
 * PNG, SVG or PDF (cairo, loaded when a plot is drawn: cairo_load.h). */
#include "analyze.h"
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include "util.h"
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifndef ANA_NO_CAIRO
#include "plot.h"

static const char plot_help[] =
    "Usage: olive-analyze plot OUTDIR -o FIG.png --kind raster|trace|rate|heatmap|compartments\n"
    "                          [--cells A:B] [--t0 MS] [--t1 MS] [--variable NAME] [--bin MS]\n"
    "                          [--offset V] [--rates] [--network NET.h5] [--width PX] [--height PX]\n"
    "                          [--title TEXT] [--force]\n"
    "\n"
    "  raster  one dot per spike: time (ms) against cell (OUTDIR/spikes.h5), coloured by\n"
    "          population (legend); the run's --pulse/--stimulus pulses as shaded bands\n"
    "  trace   the recorded values of a few cells over time (OUTDIR/<variable>.h5,\n"
    "          v_axon by default), one line and legend entry per cell\n"
    "  rate    the population rate over time bins: spikes / cells / bin width (Hz)\n"
    "  heatmap a report as an image: cells against time, the value as a colour\n"
    "          (OUTDIR/<variable>.h5; frames and cells averaged into pixels)\n"
    "  compartments  a compartment report (OUTDIR/<variable>_compartments.h5, v by\n"
    "          default) as an image: the compartments of the cells of --cells (default\n"
    "          the first recorded cell) against time\n"
    "\n"
    "  -o, --output FIG      the figure to write, PNG, SVG or PDF by its extension\n"
    "                        (.png, .svg, .pdf; written under a temporary name and\n"
    "                        renamed when complete; refused if it exists, unless --force)\n"
    "  --kind KIND           raster, trace, rate, heatmap or compartments\n"
    "  --cells A:B           cells A..B-1 (raster, rate: default all; trace: default the\n"
    "                        first 4 recorded, at most 16)\n"
    "  --t0 MS, --t1 MS      time range (default the whole run)\n"
    "  --variable NAME       trace, heatmap: the report to plot (default v_axon)\n"
    "  --offset V            trace: shift trace i up by i*V (units of the variable) so\n"
    "                        that overlapping traces stay apart (default 0)\n"
    "  --bin MS              rate, --rates: bin width (default 5)\n"
    "  --rates               raster: the population rates in a panel under it\n"
    "  --network NET.h5      raster, rate: the network file whose /cells/populations colour\n"
    "                        the spikes (default: the one the run's provenance names)\n"
    "  --width PX, --height PX  image size (default 1000 x 600; 200..10000)\n"
    "  --title TEXT          title (default: what is plotted and from where)\n"
    "  --population NAME     population (default: the only one; raster, rate: also a\n"
    "                        population of the network, its cells only)\n"
    "  --force               replace an existing FIG.png\n"
    "  -h, --help            this help\n"
    "\n"
    "Exit status: 0 success, 2 error.\n";

static void parse(int argc, char **argv, ana_plot_opts *o)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'}, {"kind", required_argument, NULL, 'k'},
        {"cells", required_argument, NULL, 'C'},  {"t0", required_argument, NULL, '0'},
        {"t1", required_argument, NULL, '1'},     {"variable", required_argument, NULL, 'v'},
        {"bin", required_argument, NULL, 'b'},    {"width", required_argument, NULL, 'W'},
        {"height", required_argument, NULL, 'H'}, {"title", required_argument, NULL, 'T'},
        {"population", required_argument, NULL, 'p'}, {"force", no_argument, NULL, 'F'},
        {"offset", required_argument, NULL, 'O'}, {"rates", no_argument, NULL, 'R'},
        {"network", required_argument, NULL, 'N'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->kind = -1;
    o->variable = NULL;   /* ana_default_variable once OUTDIR is known */
    o->t0 = NAN;
    o->t1 = NAN;
    o->bin = 5;
    o->width = 1000;
    o->height = 600;
    opterr = 0;
    optind = 1;
    int c;
    ana_check_options("plot", argc, argv, longopts, ":ho:");
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': o->output = optarg; break;
        case 'k':
            if (!strcmp(optarg, "raster")) o->kind = RASTER;
            else if (!strcmp(optarg, "trace")) o->kind = TRACE;
            else if (!strcmp(optarg, "rate")) o->kind = RATE;
            else if (!strcmp(optarg, "heatmap")) o->kind = HEATMAP;
            else if (!strcmp(optarg, "compartments")) o->kind = COMPARTMENTS;
            else ana_usage_error("plot", "--kind: '%s' is not raster, trace, rate, heatmap or compartments", optarg);
            break;
        case 'C': ana_parse_cells("plot", "--cells", optarg, &o->a, &o->b); o->has_cells = 1; break;
        case '0': o->t0 = olive_parse_double("--t0", optarg, -1e15, 1e15); break;
        case '1': o->t1 = olive_parse_double("--t1", optarg, -1e15, 1e15); break;
        case 'v': o->variable = optarg; break;
        case 'b': o->bin = olive_parse_double("--bin", optarg, 1e-9, 1e15); break;
        case 'W': o->width = (int)olive_parse_int("--width", optarg, 200, 10000); break;
        case 'H': o->height = (int)olive_parse_int("--height", optarg, 200, 10000); break;
        case 'T': o->title = optarg; break;
        case 'p': o->population = optarg; break;
        case 'F': o->force = 1; break;
        case 'R': o->rates = 1; break;
        case 'N': o->network = optarg; break;
        case 'O': o->offset = olive_parse_double("--offset", optarg, -1e6, 1e6); break;
        case 'h': fputs(plot_help, stdout); exit(ANA_EXIT_OK);
        case ':': ana_usage_error("plot", "option %s needs a value", argv[optind - 1]);
        default: ana_usage_error("plot", "unknown option %s", argv[optind - 1]);
        }
    }
    if (optind >= argc) ana_usage_error("plot", "missing OUTDIR (an olive-simulate output directory)");
    if (optind + 1 < argc) ana_usage_error("plot", "unexpected argument '%s'", argv[optind + 1]);
    if (!o->output) ana_usage_error("plot", "missing -o FIG.png");
    if (o->kind < 0) ana_usage_error("plot", "missing --kind raster|trace|rate|heatmap|compartments");
    if (o->offset != 0 && o->kind != TRACE) ana_usage_error("plot", "--offset applies to --kind trace only");
    if (o->rates && o->kind != RASTER) ana_usage_error("plot", "--rates applies to --kind raster only");
    if (o->network && o->kind != RASTER && o->kind != RATE)
        ana_usage_error("plot", "--network applies to --kind raster and rate only");
    if (!isnan(o->t0) && !isnan(o->t1) && !(o->t0 < o->t1)) ana_usage_error("plot", "--t0 %g must be below --t1 %g", o->t0, o->t1);
    if (o->kind == TRACE && o->has_cells && o->b - o->a > MAX_TRACES)
        ana_usage_error("plot", "--cells %lld:%lld is %lld cells; a trace plot shows at most %d", (long long)o->a,
                        (long long)o->b, (long long)(o->b - o->a), MAX_TRACES);
    if (o->output && !o->force && olive_path_exists(o->output))
        ana_usage_error("plot", "%s exists; use --force to overwrite it", o->output);
    o->dir = argv[optind];
    if (!o->variable) o->variable = o->kind == COMPARTMENTS ? "v" : ana_default_variable(o->dir, "v_axon");
}

typedef struct {
    const ana_report *r;
    int64_t nc, k0, n;
    double *v;   /* [frame][column] */
} trace_data;

static void keep_frame(int64_t k, const double *row, void *arg)
{
    trace_data *d = arg;
    memcpy(d->v + (k - d->k0) * d->nc, row, (size_t)d->nc * sizeof(double));
}

static void trace(const ana_plot_opts *o, cairo_t *cr, char *title, size_t tn)
{
    char path[4096];
    ana_report_path(path, sizeof path, o->dir, o->variable);
    ana_report r;
    ana_report_open(&r, path, o->population);
    int64_t *cols, nc;
    if (o->has_cells) {
        nc = ana_report_columns(&r, o->a, o->b, &cols);
        if (nc == 0) ana_error("%s: none of cells %lld..%lld is recorded", path, (long long)o->a, (long long)(o->b - 1));
    } else {
        nc = r.n < 4 ? r.n : 4;
        cols = olive_malloc((size_t)(nc + 1) * sizeof(int64_t), "columns");
        for (int64_t i = 0; i < nc; i++) cols[i] = i;
        if (nc == 0) ana_error("%s: %s has no recorded cell", path, r.name);
    }
    int64_t k0, k1;
    ana_report_window(&r, isnan(o->t0) ? -INFINITY : o->t0, isnan(o->t1) ? INFINITY : o->t1, &k0, &k1);
    if (k1 <= k0) ana_error("%s: no frame in the time range", path);
    trace_data d = {&r, nc, k0, k1 - k0, NULL};
    d.v = olive_malloc((size_t)(d.n * nc) * sizeof(double), "traces");
    ana_report_each_frame(&r, cols, nc, k0, k1, keep_frame, &d);
    /* A spike of V_axon lasts about 1 ms: frames further apart can miss it. */
    if (r.frames > 1 && r.step > 0.5 && (!strcmp(o->variable, "v_axon") || !strcmp(o->variable, "v_soma")))
        olive_warn("%s: frames are %g ms apart (--record-every %.0f): spikes (about 1 ms wide) can fall between "
                   "frames and not show; record with --record-every 10 or less (0.5 ms) to see every spike",
                   path, r.step, r.step / 0.05);
    /* --offset: trace c drawn c*offset higher (the legend says so). */
    for (int64_t k = 0; k < d.n && o->offset != 0; k++)
        for (int64_t c = 0; c < nc; c++) d.v[k * nc + c] += (double)c * o->offset;
    double lo = INFINITY, hi = -INFINITY;
    for (int64_t i = 0; i < d.n * nc; i++)
        if (isfinite(d.v[i])) { if (d.v[i] < lo) lo = d.v[i]; if (d.v[i] > hi) hi = d.v[i]; }
    if (!(lo <= hi)) lo = hi = 0;
    double pad = (hi - lo) * 0.05;
    double t0 = isnan(o->t0) ? ana_report_time(&r, k0) : o->t0, t1 = isnan(o->t1) ? ana_report_time(&r, k1 - 1) : o->t1;
    ana_axes ax;
    ana_axes_setup(&ax, cr, o->width, o->height, t0, t1, lo - pad, hi + pad);
    ana_axes_clip(&ax);
    cairo_set_line_width(cr, 1.3);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    for (int64_t c = 0; c < nc; c++) {
        double rgb[3];
        ana_axes_color((int)c, rgb);
        /* Slightly transparent: where traces overlap, each still shows. */
        cairo_set_source_rgba(cr, rgb[0], rgb[1], rgb[2], nc > 1 ? 0.75 : 1.0);
        int pen = 0;
        for (int64_t k = 0; k < d.n; k++) {
            double v = d.v[k * nc + c];
            if (!isfinite(v)) { pen = 0; continue; }
            double x = ana_axes_x(&ax, ana_report_time(&r, k0 + k)), y = ana_axes_y(&ax, v);
            if (pen) cairo_line_to(cr, x, y);
            else cairo_move_to(cr, x, y);
            pen = 1;
        }
        cairo_stroke(cr);
    }
    ana_axes_unclip(&ax);
    char ylabel[400];
    ana_fmt(ylabel, sizeof ylabel, "%s (%s)", o->variable, r.units[0] ? r.units : "?");
    ana_fmt(title, tn, "%s of %lld cell%s (%s)", o->variable, (long long)nc, nc == 1 ? "" : "s", path);
    ana_axes_draw(&ax, o->title ? o->title : title, "time (ms)", ylabel);
    for (int64_t c = 0; c < nc; c++) {
        double rgb[3];
        char label[64];
        ana_axes_color((int)c, rgb);
        if (o->offset != 0)
            ana_fmt(label, sizeof label, "cell %llu (%+g)", (unsigned long long)r.nodes[cols[c]], (double)c * o->offset);
        else
            ana_fmt(label, sizeof label, "cell %llu", (unsigned long long)r.nodes[cols[c]]);
        ana_axes_legend(&ax, label, rgb);
    }
    free(d.v);
    free(cols);
    ana_report_close(&r);
}

/* cairo's PNG writer into a descriptor of our own, so that a failed write
 * keeps its errno (cairo says only "error while writing to output stream"). */
typedef struct { int fd, err; } png_sink;

static cairo_status_t png_write(void *closure, const unsigned char *data, unsigned int len)
{
    png_sink *k = closure;
    while (len > 0) {
        ssize_t n = write(k->fd, data, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) { k->err = n < 0 ? errno : EIO; return CAIRO_STATUS_WRITE_ERROR; }
        data += n;
        len -= (unsigned)n;
    }
    return CAIRO_STATUS_SUCCESS;
}

static void write_png(cairo_surface_t *surface, const char *tmp, const char *final)
{
    png_sink k = {open(tmp, O_WRONLY | O_TRUNC | O_CLOEXEC), 0};
    if (k.fd < 0) ana_error("%s: cannot open %s: %s", final, tmp, strerror(errno));
    cairo_status_t st = cairo_surface_write_to_png_stream(surface, png_write, &k);
    if (close(k.fd) != 0 && !k.err) k.err = errno;
    if (st != CAIRO_STATUS_SUCCESS || k.err)
        ana_error("%s: cannot write the PNG: %s", final, k.err ? strerror(k.err) : cairo_status_to_string(st));
}

/* The figure format, from the output's extension (cairo draws all three). */
enum plot_format { FMT_PNG, FMT_SVG, FMT_PDF };

static enum plot_format format_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (dot && !strcasecmp(dot, ".png")) return FMT_PNG;
    if (dot && !strcasecmp(dot, ".svg")) return FMT_SVG;
    if (dot && !strcasecmp(dot, ".pdf")) return FMT_PDF;
    ana_usage_error("plot", "%s: unknown figure format '%s' (the extension must be .png, .svg or .pdf)", path,
                    dot ? dot : "");
}

static void draw(const ana_plot_opts *o, cairo_surface_t *surface, char *title, size_t tn)
{
    cairo_t *cr = cairo_create(surface);
    if (o->kind == RASTER) ana_plot_raster(o, cr, title, tn);
    else if (o->kind == RATE) ana_plot_rate(o, cr, title, tn);
    else if (o->kind == HEATMAP || o->kind == COMPARTMENTS) ana_plot_heatmap(o, cr, title, tn);
    else trace(o, cr, title, tn);
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) ana_error("drawing failed: %s", cairo_status_to_string(cairo_status(cr)));
    cairo_destroy(cr);
}

int ana_plot_main(int argc, char **argv)
{
    ana_plot_opts o;
    parse(argc, argv, &o);
    enum plot_format fmt = format_of(o.output);
    ana_cairo_load();
    static const char *const names[3] = {"PNG", "SVG", "PDF"};
    char title[8192];
    const char *outs[1] = {o.output}, *ins[1] = {o.dir};
    if (fmt == FMT_PNG) {
        cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, o.width, o.height);
        if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) ana_error("cannot create a %dx%d image", o.width, o.height);
        draw(&o, surface, title, sizeof title);
        /* Checked after reading the data, so a bad input leaves no file behind. */
        olive_check_outputs(outs, 1, ins, 1);
        const char *tmp = olive_atomic_begin(o.output, o.force);
        write_png(surface, tmp, o.output);
        cairo_surface_destroy(surface);
        olive_atomic_commit(tmp);
    } else {
        /* A vector surface writes as it goes: claim the temporary first (it
         * is removed if the data then turn out bad). */
        olive_check_outputs(outs, 1, ins, 1);
        const char *tmp = olive_atomic_begin(o.output, o.force);
        png_sink k = {open(tmp, O_WRONLY | O_TRUNC | O_CLOEXEC), 0};
        if (k.fd < 0) ana_error("%s: cannot open %s: %s", o.output, tmp, strerror(errno));
        cairo_surface_t *surface = fmt == FMT_SVG
            ? cairo_svg_surface_create_for_stream(png_write, &k, o.width, o.height)
            : cairo_pdf_surface_create_for_stream(png_write, &k, o.width, o.height);
        if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) ana_error("%s: cannot create the %s", o.output, names[fmt]);
        draw(&o, surface, title, sizeof title);
        cairo_surface_finish(surface);
        cairo_status_t st = cairo_surface_status(surface);
        cairo_surface_destroy(surface);
        if (close(k.fd) != 0 && !k.err) k.err = errno;
        if (st != CAIRO_STATUS_SUCCESS || k.err)
            ana_error("%s: cannot write the %s: %s", o.output, names[fmt], k.err ? strerror(k.err) : cairo_status_to_string(st));
        olive_atomic_commit(tmp);
    }
    cairo_debug_reset_static_data();   /* free cairo's font caches (clean leak checks) */
    if (!olive_quiet) printf("%s: %dx%d %s, %s\n", o.output, o.width, o.height, names[fmt], o.title ? o.title : title);
    ana_flush_stdout("the plot summary");
    return ANA_EXIT_OK;
}

#else /* ANA_NO_CAIRO: built without cairo's headers (CAIRO=0) */
int ana_plot_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    ana_error("plot: this olive-analyze was built without cairo (CAIRO=0 or no cairo headers); install "
              "libcairo2-dev (Debian) and rebuild to draw plots");
}
#endif
