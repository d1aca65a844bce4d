/* olive-analyze plot: the options every plot kind reads (parsed in plot.c),
 * and the kinds drawn in their own files. */
#ifndef OLIVE_ANALYZE_PLOT_H
#define OLIVE_ANALYZE_PLOT_H
#include "analyze.h"
#include "plotaxes.h"

enum { RASTER, TRACE, RATE, HEATMAP, COMPARTMENTS };
#define ANA_PLOT_MAX_POPS 64
#define MAX_TRACES 16

typedef struct {
    const char *dir, *output, *variable, *title, *population;
    const char *network;     /* --network: the populations' file (NULL: the run's) */
    int kind, has_cells, force, width, height, rates;
    int64_t a, b;            /* --cells A:B (has_cells) */
    double t0, t1, bin, offset;   /* t0, t1: NaN for the whole run */
} ana_plot_opts;

/* plotheat.c: --kind heatmap of the report o->dir/o->variable into title[tn];
 * --kind compartments of o->dir/<variable>_compartments.h5. */
void ana_plot_heatmap(const ana_plot_opts *o, cairo_t *cr, char *title, size_t tn);

/* plotraster.c: --kind raster (with --rates: a rate panel under it), --kind rate. */
void ana_plot_raster(const ana_plot_opts *o, cairo_t *cr, char *title, size_t tn);
void ana_plot_rate(const ana_plot_opts *o, cairo_t *cr, char *title, size_t tn);

/* plotpops.c: a population, cells first..first+count-1. */
typedef struct {
    char name[64];
    int64_t first, count;
} ana_plot_pop;
/* A stimulus pulse over [t0, t1] ms, cells first..last-1 (last -1: every cell). */
typedef struct {
    double t0, t1;
    int64_t first, last;
} ana_plot_pulse;
/* The network's populations, sorted by first (at most max; 0 when the network
 * has none or, with a warning, when the run's network file is not found). */
int ana_plot_network_pops(const ana_plot_opts *o, const ana_run *run, ana_plot_pop *pops, int max);
/* The run's pulses (its recorded --pulse options and --stimulus file) into
 * *out (allocated; free it); returns how many. */
int ana_plot_pulses(const ana_run *run, ana_plot_pulse **out);

#endif
