/* olive-analyze plot: the options every plot kind reads (parsed in plot.c),
 * and the kinds drawn in their own files. */
#ifndef OLIVE_ANALYZE_PLOT_H
#define OLIVE_ANALYZE_PLOT_H
#include "plotaxes.h"

enum { RASTER, TRACE, RATE, HEATMAP };
#define MAX_TRACES 16

typedef struct {
    const char *dir, *output, *variable, *title, *population;
    int kind, has_cells, force, width, height;
    int64_t a, b;            /* --cells A:B (has_cells) */
    double t0, t1, bin, offset;   /* t0, t1: NaN for the whole run */
} ana_plot_opts;

/* plotheat.c: --kind heatmap of the report o->dir/o->variable into title[tn]. */
void ana_plot_heatmap(const ana_plot_opts *o, cairo_t *cr, char *title, size_t tn);

#endif
