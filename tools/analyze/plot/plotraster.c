/* olive-analyze plot --kind raster and --kind rate: spikes coloured by
 * population (with a legend), the stimulus pulses as shaded bands, and the
 * population rates, under the raster with --rates or alone.
 *
 * Two layouts of populations are read: one spike population of global cell
 * ids ("io", olive's output) coloured by the network's /cells/populations
 * ranges, or one spike population per network population (SONATA: node ids
 * counted from 0 in each), whose spikes are drawn at first + id. */
#ifndef ANA_NO_CAIRO
#include "analyze.h"
#include "h5util.h"
#include "plot.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double stim_rgb[3] = {1.0, 0.87, 0.70};   /* light orange, under the spikes */

typedef struct {
    ana_run run;
    ana_spike_list l;       /* node: the row, a global cell id */
    ana_plot_pop pops[ANA_PLOT_MAX_POPS];
    int npop;               /* 0: one colour, no legend */
    int64_t a, b;           /* rows shown */
    double t0, t1;
    ana_plot_pulse *pulses;
    int npulse;
} raster_data;

static int find_pop(const ana_plot_pop *pops, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(pops[i].name, name)) return i;
    return -1;
}

/* Append the spikes of one spike population, rows shifted by offset. */
static void append_spikes(raster_data *d, const char *population, uint64_t offset, ana_spike_scan *sc)
{
    ana_spikes sp;
    ana_spikes_open(&sp, d->run.spikes_path, population);
    ana_spike_list l;
    ana_spikes_scan(&sp, 0, sc);
    ana_spikes_load(&sp, &l);
    ana_spikes_close(&sp);
    d->l.t = olive_realloc(d->l.t, (size_t)(d->l.n + l.n) * sizeof(double) + 8, "spike times");
    d->l.node = olive_realloc(d->l.node, (size_t)(d->l.n + l.n) * sizeof(uint64_t) + 8, "node ids");
    memcpy(d->l.t + d->l.n, l.t, (size_t)l.n * sizeof(double));
    for (int64_t i = 0; i < l.n; i++) d->l.node[d->l.n + i] = l.node[i] + offset;
    d->l.n += l.n;
    ana_spike_list_free(&l);
}

/* One spike population of global ids (o->population: a network population
 * restricts the rows to its range). */
static void load_global(const ana_plot_opts *o, raster_data *d, const ana_plot_pop *net, int nnet, int only,
                        const char *spike_pop)
{
    ana_spike_scan sc;
    append_spikes(d, only >= 0 ? NULL : o->population, 0, &sc);
    ana_run_resolve(&d->run, spike_pop, &sc);
    ana_spike_scan_free(&sc);
    int64_t end = nnet ? net[nnet - 1].first + net[nnet - 1].count : 0;
    if (nnet && end != d->run.cells)
        ana_error("%s: the network's populations hold %lld cells but the run %s has %lld (%s): not this run's "
                  "network? (--network)", o->network ? o->network : "network file", (long long)end,
                  d->run.spikes_path, (long long)d->run.cells, d->run.cells_from);
    d->npop = only >= 0 ? 1 : nnet;
    memcpy(d->pops, only >= 0 ? net + only : net, (size_t)d->npop * sizeof *net);
}

/* olive-simulate's spike groups carry their population's place in the
 * network (attributes first_cell and cells): 1 when group name has them. */
static int output_pop(const char *path, const char *name, int64_t *first, int64_t *count)
{
    char group[300];
    ana_fmt(group, sizeof group, "/spikes/%s", name);
    hid_t f = ana_h5_open(path), g = H5Gopen2(f, group, H5P_DEFAULT);
    const int has = g >= 0 && olive_h5_has_attr(g, "first_cell") && olive_h5_has_attr(g, "cells");
    if (has) {
        *first = olive_h5_get_i64(path, g, group, "first_cell");
        *count = olive_h5_get_i64(path, g, group, "cells");
        if (*first < 0 || *count < 0)
            ana_error("%s: %s has first_cell = %lld, cells = %lld (negative)", path, group, (long long)*first, (long long)*count);
    }
    if (g >= 0) H5Gclose(g);
    H5Fclose(f);
    return has;
}

/* Several spike populations (or one named as a network population): node ids
 * per population, stacked at the first cell of each (the spike group's
 * first_cell, else the network's, else after the previous one). */
static void load_stacked(const ana_plot_opts *o, raster_data *d, const ana_plot_pop *net, int nnet,
                         char (*names)[256], int nspk)
{
    int64_t end = 0, spikes = 0;
    ana_spike_scan all = {0, -1, 0, 0, 0, NULL, NULL};
    for (int i = 0; i < nspk; i++) {
        if (o->population && strcmp(o->population, names[i])) continue;
        int k = find_pop(net, nnet, names[i]);
        ana_spike_scan sc;
        int64_t ofirst = 0, ocount = 0;
        const int own = output_pop(d->run.spikes_path, names[i], &ofirst, &ocount);
        int64_t first = own ? ofirst : k >= 0 ? net[k].first : end;
        append_spikes(d, names[i], (uint64_t)first, &sc);
        int64_t count = own ? ocount : k >= 0 ? net[k].count : sc.max_node + 1;
        if (sc.max_node >= count)
            ana_error("%s: population '%s' has a spike of node %lld but %lld cells", d->run.spikes_path, names[i],
                      (long long)sc.max_node, (long long)count);
        ana_plot_pop *p = &d->pops[d->npop++];
        ana_fmt(p->name, sizeof p->name, "%s", names[i]);
        p->first = first;
        p->count = count;
        if (first + count > end) end = first + count;
        spikes += sc.count;
        if (sc.count && sc.t_max > all.t_max) all.t_max = sc.t_max;
        ana_spike_scan_free(&sc);
    }
    all.count = spikes;
    all.max_node = end - 1;
    ana_run_resolve(&d->run, "", &all);
    if (d->run.cells < end) d->run.cells = end;
}

static void load(const ana_plot_opts *o, raster_data *d)
{
    memset(d, 0, sizeof *d);
    ana_run_open(&d->run, o->dir);
    char names[ANA_PLOT_MAX_POPS][256];
    hid_t f = ana_h5_open(d->run.spikes_path);
    int nspk = ana_h5_is_group(f, "/spikes") ? ana_h5_subgroups(d->run.spikes_path, f, "/spikes", names, ANA_PLOT_MAX_POPS) : 0;
    H5Fclose(f);
    if (nspk > ANA_PLOT_MAX_POPS) ana_error("%s: %d populations under /spikes; a raster shows at most %d",
                                           d->run.spikes_path, nspk, ANA_PLOT_MAX_POPS);
    /* The output's own populations (olive-simulate's spike groups say where
     * each lies) need no network file unless --network names one. */
    int own = nspk > 1 && !o->network;
    for (int i = 0; own && i < nspk; i++) {
        int64_t first, count;
        own = output_pop(d->run.spikes_path, names[i], &first, &count);
    }
    ana_plot_pop net[ANA_PLOT_MAX_POPS];
    int nnet = own ? 0 : ana_plot_network_pops(o, &d->run, net, ANA_PLOT_MAX_POPS);
    int asked = -1;   /* o->population as a spike population */
    for (int i = 0; o->population && i < nspk; i++)
        if (!strcmp(names[i], o->population)) asked = i;
    const int stacked = nspk > 1 || (nspk == 1 && find_pop(net, nnet, names[0]) >= 0);
    /* --population exc of a run written as one population 'io': exc's rows. */
    const int only = !stacked && o->population && asked < 0 ? find_pop(net, nnet, o->population) : -1;
    if (stacked && o->population && asked < 0) {
        ana_spikes sp;   /* dies naming the file's populations */
        ana_spikes_open(&sp, d->run.spikes_path, o->population);
    }
    if (stacked) load_stacked(o, d, net, nnet, names, nspk);
    else load_global(o, d, net, nnet, only, nspk == 1 ? names[0] : "");
    if (d->run.cells <= 0)
        ana_error("%s: the number of cells is unknown (no cells attribute, report or spikes)", d->run.spikes_path);
    const int one = only >= 0 || (stacked && o->population && d->npop == 1);   /* --population: its rows */
    d->a = o->has_cells ? o->a : one ? d->pops[0].first : 0;
    d->b = o->has_cells ? o->b : one ? d->pops[0].first + d->pops[0].count : d->run.cells;
    if (d->a >= d->run.cells)
        ana_usage_error("plot", "--cells %lld:%lld: the run has %lld cells", (long long)d->a, (long long)d->b,
                        (long long)d->run.cells);
    if (d->b > d->run.cells) d->b = d->run.cells;
    d->t0 = isnan(o->t0) ? 0 : o->t0;
    d->t1 = isnan(o->t1) ? (d->run.duration_ms > 0 ? d->run.duration_ms : 1) : o->t1;
    if (!(d->t0 < d->t1)) ana_usage_error("plot", "empty time range [%g, %g] ms", d->t0, d->t1);
    d->npulse = ana_plot_pulses(&d->run, &d->pulses);
}

static void free_data(raster_data *d)
{
    ana_spike_list_free(&d->l);
    free(d->pulses);
}

/* Colour of group g: population g, or the one colour of a raster without populations. */
static void group_rgb(const raster_data *d, int g, double rgb[3])
{
    if (d->npop) ana_axes_color(g, rgb);
    else rgb[0] = 0.1, rgb[1] = 0.1, rgb[2] = 0.4;
}

/* Rows [lo, hi) of group g (every row without populations). */
static void group_rows(const raster_data *d, int g, int64_t *lo, int64_t *hi)
{
    *lo = d->npop ? d->pops[g].first : d->a;
    *hi = d->npop ? d->pops[g].first + d->pops[g].count : d->b;
    if (*lo < d->a) *lo = d->a;
    if (*hi > d->b) *hi = d->b;
}

/* The pulses as bands over their time windows and cells (rows). */
static void draw_pulses(const raster_data *d, const ana_axes *ax, int rows)
{
    cairo_t *cr = ax->cr;
    cairo_set_source_rgb(cr, stim_rgb[0], stim_rgb[1], stim_rgb[2]);
    for (int i = 0; i < d->npulse; i++) {
        const ana_plot_pulse *p = &d->pulses[i];
        double y0 = ax->top, y1 = ax->bottom;
        if (rows) {
            y0 = ana_axes_y(ax, (double)(p->last < 0 ? d->run.cells : p->last) - 0.5);
            y1 = ana_axes_y(ax, (double)p->first - 0.5);
        }
        double x0 = ana_axes_x(ax, p->t0), x1 = ana_axes_x(ax, p->t1);
        cairo_rectangle(cr, x0, y0, x1 - x0 > 1 ? x1 - x0 : 1, y1 - y0);
    }
    cairo_fill(cr);
}

static int64_t draw_spikes(const raster_data *d, const ana_axes *ax)
{
    cairo_t *cr = ax->cr;
    double h = (ax->bottom - ax->top) / (double)(d->b - d->a), dot = 0.6 * ax->font / 4 + 1;
    if (h > dot) h = dot;
    if (h < 1) h = 1;
    int64_t shown = 0;
    for (int g = 0; g < (d->npop ? d->npop : 1); g++) {
        double rgb[3];
        int64_t lo, hi;
        group_rgb(d, g, rgb);
        group_rows(d, g, &lo, &hi);
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        for (int64_t i = 0; i < d->l.n; i++) {
            if (d->l.node[i] < (uint64_t)lo || d->l.node[i] >= (uint64_t)hi || d->l.t[i] < d->t0 || d->l.t[i] > d->t1)
                continue;
            double x = ana_axes_x(ax, d->l.t[i]), y = ana_axes_y(ax, (double)d->l.node[i]);
            cairo_rectangle(cr, x - dot / 2, y - h / 2, dot, h);
            shown++;
        }
        cairo_fill(cr);
    }
    return shown;
}

static void legend(const raster_data *d, ana_axes *ax)
{
    for (int g = 0; g < d->npop; g++) {
        double rgb[3];
        group_rgb(d, g, rgb);
        ana_axes_legend(ax, d->pops[g].name, rgb);
    }
    if (d->npulse) ana_axes_legend(ax, "stimulus", stim_rgb);
}

/* Rates per group in Hz per cell: hz[g * bins.n + k]; returns the largest. */
static double group_rates(const raster_data *d, const ana_bins *bins, double *hz)
{
    int ng = d->npop ? d->npop : 1;
    double top = 0;
    int64_t *count = olive_calloc((size_t)bins->n, sizeof(int64_t), "bins");
    for (int g = 0; g < ng; g++) {
        int64_t lo, hi;
        group_rows(d, g, &lo, &hi);
        memset(count, 0, (size_t)bins->n * sizeof(int64_t));
        for (int64_t i = 0; i < d->l.n; i++) {
            if (d->l.node[i] < (uint64_t)lo || d->l.node[i] >= (uint64_t)hi) continue;
            int k = ana_bins_find(bins, d->l.t[i]);
            if (k >= 0) count[k]++;
        }
        for (int k = 0; k < bins->n; k++) {
            double w = ana_bins_edge(bins, k + 1) - ana_bins_edge(bins, k);
            double v = w > 0 && hi > lo ? (double)count[k] / (double)(hi - lo) / (w / 1000.0) : 0;
            hz[(size_t)g * bins->n + k] = v;
            if (v > top) top = v;
        }
    }
    free(count);
    return top;
}

/* One step line per group (the population's colour). */
static void draw_rates(const raster_data *d, const ana_axes *ax, const ana_bins *bins, const double *hz)
{
    cairo_t *cr = ax->cr;
    cairo_set_line_width(cr, 1.5);
    for (int g = 0; g < (d->npop ? d->npop : 1); g++) {
        double rgb[3] = {0.12, 0.47, 0.71};
        if (d->npop) group_rgb(d, g, rgb);
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        const double *v = hz + (size_t)g * bins->n;
        cairo_move_to(cr, ana_axes_x(ax, d->t0), ana_axes_y(ax, 0));
        for (int k = 0; k < bins->n; k++) {
            cairo_line_to(cr, ana_axes_x(ax, ana_bins_edge(bins, k)), ana_axes_y(ax, v[k]));
            cairo_line_to(cr, ana_axes_x(ax, ana_bins_edge(bins, k + 1)), ana_axes_y(ax, v[k]));
        }
        cairo_line_to(cr, ana_axes_x(ax, d->t1), ana_axes_y(ax, 0));
        cairo_stroke(cr);
    }
}

/* The rate axes over [top, bottom] of the figure (already set up), drawn. */
static void rate_panel(const ana_plot_opts *o, const raster_data *d, ana_axes *rx, const char *title)
{
    ana_bins bins;
    ana_bins_width(&bins, d->t0, d->t1, o->bin, 1000000);
    double *hz = olive_malloc((size_t)(d->npop ? d->npop : 1) * (size_t)bins.n * sizeof(double), "rates");
    double top = group_rates(d, &bins, hz);
    rx->y0 = 0;
    rx->y1 = top > 0 ? top * 1.08 : 1;
    ana_axes_clip(rx);
    draw_pulses(d, rx, 0);
    draw_rates(d, rx, &bins, hz);
    ana_axes_unclip(rx);
    ana_axes_draw(rx, title, "time (ms)", "rate (Hz per cell)");
    free(hz);
}

void ana_plot_raster(const ana_plot_opts *o, cairo_t *cr, char *title, size_t tn)
{
    raster_data d;
    load(o, &d);
    ana_axes ax, rx;
    ana_axes_setup(&ax, cr, o->width, o->height, d.t0, d.t1, (double)d.a - 0.5, (double)d.b - 0.5);
    if (o->rates) {
        /* The rate panel below: a third of the height, and room for the
         * raster's tick labels between the two. */
        rx = ax;
        const double split = ax.top + 0.68 * (ax.bottom - ax.top);
        ax.bottom = split - 1.2 * ax.font;
        rx.top = split + 1.0 * ax.font;
    }
    ana_axes_clip(&ax);
    draw_pulses(&d, &ax, 1);
    int64_t shown = draw_spikes(&d, &ax);
    ana_axes_unclip(&ax);
    ana_fmt(title, tn, "Spike raster: %lld spikes of cells %lld-%lld (%s)", (long long)shown, (long long)d.a,
            (long long)(d.b - 1), d.run.spikes_path);
    ana_axes_draw(&ax, o->title ? o->title : title, o->rates ? "" : "time (ms)", "cell (node id)");
    legend(&d, &ax);
    if (o->rates) rate_panel(o, &d, &rx, "");
    free_data(&d);
}

void ana_plot_rate(const ana_plot_opts *o, cairo_t *cr, char *title, size_t tn)
{
    raster_data d;
    load(o, &d);
    ana_axes ax;
    ana_axes_setup(&ax, cr, o->width, o->height, d.t0, d.t1, 0, 1);
    ana_fmt(title, tn, "Population rate of cells %lld-%lld, %g ms bins (%s)", (long long)d.a, (long long)(d.b - 1),
            o->bin, d.run.spikes_path);
    rate_panel(o, &d, &ax, o->title ? o->title : title);
    legend(&d, &ax);
    free_data(&d);
}
#endif
