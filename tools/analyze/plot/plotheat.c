/* olive-analyze plot --kind heatmap: a report as an image, cells (up) against
 * time (across), the value as a colour (viridis), with a colour bar (ticks
 * and labels); --kind compartments: a compartment report's columns (the
 * compartments of the cells asked for) against time the same way. Frames
 * and cells are averaged into at most one pixel each (a million cells or
 * frames make a plot-sized picture), read a block of frames at a time. */
#ifndef ANA_NO_CAIRO
#include "analyze.h"
#include "plot.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Viridis at five stops, linear in between (colour-blind safe, monotone in
 * lightness, so it also reads in grey). */
static void viridis(double u, double rgb[3])
{
    static const double stop[5][3] = {{0.267, 0.005, 0.329}, {0.229, 0.322, 0.546}, {0.128, 0.567, 0.551},
                                      {0.369, 0.789, 0.383}, {0.993, 0.906, 0.144}};
    u = u < 0 ? 0 : u > 1 ? 1 : u;
    double x = u * 4;
    int i = x >= 4 ? 3 : (int)x;
    double f = x - i;
    for (int c = 0; c < 3; c++) rgb[c] = stop[i][c] + f * (stop[i + 1][c] - stop[i][c]);
}

typedef struct {
    int64_t k0, nk, nc;
    int w, h;            /* grid: w time bins x h cell bins */
    double *sum;         /* [h][w] */
    int64_t *count;
} heat_grid;

static void add_frame(int64_t k, const double *row, void *arg)
{
    heat_grid *g = arg;
    const int x = (int)((k - g->k0) * g->w / g->nk);
    for (int64_t c = 0; c < g->nc; c++) {
        if (!isfinite(row[c])) continue;
        const int y = (int)(c * g->h / g->nc);
        g->sum[(size_t)y * g->w + x] += row[c];
        g->count[(size_t)y * g->w + x]++;
    }
}

/* The colour bar right of the plot area: lo at the bottom, hi at the top. */
static void colour_bar(const ana_axes *ax, double lo, double hi, const char *units)
{
    cairo_t *cr = ax->cr;
    const double x = ax->right + 1.0 * ax->font, w = 1.2 * ax->font, steps = 64;
    const double top = ax->top, bottom = ax->bottom, step = (bottom - top) / steps;
    for (int i = 0; i < steps; i++) {
        double rgb[3];
        viridis((i + 0.5) / steps, rgb);
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        cairo_rectangle(cr, x, bottom - (i + 1) * step, w, step + 0.5);
        cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, floor(x) + 0.5, floor(top) + 0.5, floor(w), floor(bottom - top));
    cairo_stroke(cr);
    cairo_set_font_size(cr, ax->font * 0.8);
    ana_axes_bar_ticks(ax, x + w, lo, hi);
    /* The units above the bar. */
    if (units && *units) {
        cairo_move_to(cr, x, top - 0.5 * ax->font);
        cairo_show_text(cr, units);
    }
    cairo_set_font_size(cr, ax->font);
}

void ana_plot_heatmap(const ana_plot_opts *p, cairo_t *cr, char *title, size_t tn)
{
    char path[4096], var[300];
    const int comp = p->kind == COMPARTMENTS;
    ana_fmt(var, sizeof var, "%s%s", p->variable, comp ? "_compartments" : "");
    ana_report_path(path, sizeof path, p->dir, var);
    ana_report r;
    ana_report_open_as(&r, path, p->population, comp);
    if (r.n == 0) ana_error("%s: %s has no column", path, r.name);
    int64_t *cols, nc;
    /* compartments: the first recorded cell's unless --cells */
    const int64_t a = p->has_cells ? p->a : comp ? (int64_t)r.nodes[0] : 0;
    const int64_t b = p->has_cells ? p->b : comp ? a + 1 : INT64_MAX;
    nc = ana_report_columns(&r, a, b, &cols);
    if (nc == 0) ana_error("%s: no recorded cell in the range asked for", path);
    int64_t k0, k1;
    ana_report_window(&r, isnan(p->t0) ? -INFINITY : p->t0, isnan(p->t1) ? INFINITY : p->t1, &k0, &k1);
    if (k1 <= k0) ana_error("%s: no frame in the time range", path);
    ana_axes ax;
    const double t0 = ana_report_time(&r, k0), t1 = ana_report_time(&r, k1 - 1);
    /* y: cell ids, or the compartments' places in the report (columns) */
    const double c0 = comp ? (double)cols[0] : (double)r.nodes[cols[0]];
    const double c1 = comp ? (double)cols[nc - 1] + 1 : (double)r.nodes[cols[nc - 1]] + 1;
    ana_axes_setup(&ax, cr, p->width, p->height, t0, t1, c0, c1);
    ax.right -= 6 * ax.font;   /* room for the colour bar and its labels */
    heat_grid g = {k0, k1 - k0, nc, 0, 0, NULL, NULL};
    const double pw = ax.right - ax.left, ph = ax.bottom - ax.top;
    g.w = g.nk < (int64_t)pw ? (int)g.nk : (int)pw;
    g.h = nc < (int64_t)ph ? (int)nc : (int)ph;
    if (g.w < 1) g.w = 1;
    if (g.h < 1) g.h = 1;
    g.sum = olive_calloc((size_t)g.w * (size_t)g.h, sizeof(double), "heat map");
    g.count = olive_calloc((size_t)g.w * (size_t)g.h, sizeof(int64_t), "heat map");
    ana_report_each_frame(&r, cols, nc, k0, k1, add_frame, &g);
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < (size_t)g.w * (size_t)g.h; i++)
        if (g.count[i]) {
            g.sum[i] /= (double)g.count[i];
            if (g.sum[i] < lo) lo = g.sum[i];
            if (g.sum[i] > hi) hi = g.sum[i];
        }
    if (!(lo <= hi)) lo = hi = 0;
    const double span = hi > lo ? hi - lo : 1;
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, g.w, g.h);
    if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) ana_error("cannot create a %dx%d heat map", g.w, g.h);
    cairo_surface_flush(img);
    unsigned char *px = cairo_image_surface_get_data(img);
    const int stride = cairo_image_surface_get_stride(img);
    for (int y = 0; y < g.h; y++)
        for (int x = 0; x < g.w; x++) {
            /* Image row 0 is the top: the highest cells. */
            const size_t i = (size_t)(g.h - 1 - y) * g.w + x;
            double rgb[3] = {1, 1, 1};   /* no finite value: white */
            if (g.count[i]) viridis((g.sum[i] - lo) / span, rgb);
            uint32_t v = (uint32_t)(rgb[0] * 255 + 0.5) << 16 | (uint32_t)(rgb[1] * 255 + 0.5) << 8 |
                         (uint32_t)(rgb[2] * 255 + 0.5);
            memcpy(px + (size_t)y * stride + 4 * (size_t)x, &v, 4);
        }
    cairo_surface_mark_dirty(img);
    cairo_save(cr);
    cairo_translate(cr, ax.left, ax.top);
    cairo_scale(cr, pw / g.w, ph / g.h);
    cairo_set_source_surface(cr, img, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_rectangle(cr, 0, 0, g.w, g.h);
    cairo_fill(cr);
    cairo_restore(cr);
    cairo_surface_destroy(img);
    if (comp)
        ana_fmt(title, tn, "%s of %lld compartments of cells %llu-%llu (%s)", p->variable, (long long)nc,
                (unsigned long long)r.nodes[cols[0]], (unsigned long long)r.nodes[cols[nc - 1]], path);
    else
        ana_fmt(title, tn, "%s of cells %.0f-%.0f (%s)", p->variable, c0, c1 - 1, path);
    ana_axes_draw(&ax, p->title ? p->title : title, "time (ms)", comp ? "compartment (report column)" : "cell");
    colour_bar(&ax, lo, lo + span, r.units);
    free(g.sum);
    free(g.count);
    free(cols);
    ana_report_close(&r);
}
#endif
