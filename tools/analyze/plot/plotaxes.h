/* Axes for olive-analyze plot (plotaxes.c): a plot area with a frame, nice
 * ticks with labels, axis titles and a title, drawn with cairo. */
#ifndef OLIVE_ANALYZE_PLOTAXES_H
#define OLIVE_ANALYZE_PLOTAXES_H
#include "cairo_load.h"
#include <stdint.h>
#include <stddef.h>

typedef struct {
    cairo_t *cr;
    int width, height;
    double font;                       /* font size, px */
    double x0, x1, y0, y1;             /* data ranges */
    double left, right, top, bottom;   /* plot area, px */
    int legend_n;
} ana_axes;

/* White background and the plot area for data ranges [x0, x1] x [y0, y1]
 * (an empty range is widened). */
void ana_axes_setup(ana_axes *a, cairo_t *cr, int width, int height, double x0, double x1, double y0, double y1);
/* Grid, frame, tick marks and labels, axis titles and the title. */
void ana_axes_draw(ana_axes *a, const char *title, const char *xlabel, const char *ylabel);
double ana_axes_x(const ana_axes *a, double x);
double ana_axes_y(const ana_axes *a, double y);
/* Restrict drawing to the plot area (ana_axes_unclip undoes it). */
void ana_axes_clip(const ana_axes *a);
void ana_axes_unclip(const ana_axes *a);
/* Colour i of a fixed palette. */
void ana_axes_color(int i, double rgb[3]);
/* Ticks and labels (1-2-5 steps) right of a colour bar whose right edge is at
 * x, spanning the plot area's height: lo at the bottom, hi at the top. */
void ana_axes_bar_ticks(const ana_axes *a, double x, double lo, double hi);
/* One more legend entry (above the plot area, right to left: never over the data). */
void ana_axes_legend(ana_axes *a, const char *label, const double rgb[3]);

#endif
