/* Axes with nice ticks (1, 2, 5 x 10^k) for the PNG plots. */
#ifndef ANA_NO_CAIRO
#include "plotaxes.h"
#include <math.h>
#include <stdio.h>

static const double palette[][3] = {
    {0.12, 0.47, 0.71}, {1.00, 0.50, 0.05}, {0.17, 0.63, 0.17}, {0.84, 0.15, 0.16},
    {0.58, 0.40, 0.74}, {0.55, 0.34, 0.29}, {0.89, 0.47, 0.76}, {0.50, 0.50, 0.50},
    {0.74, 0.74, 0.13}, {0.09, 0.75, 0.81},
};

void ana_axes_color(int i, double rgb[3])
{
    const double *c = palette[i % (int)(sizeof palette / sizeof palette[0])];
    rgb[0] = c[0];
    rgb[1] = c[1];
    rgb[2] = c[2];
}

static void widen(double *lo, double *hi)
{
    if (*hi > *lo) return;
    double d = fabs(*lo) > 0 ? fabs(*lo) * 0.05 : 1;
    *lo -= d;
    *hi += d;
}

void ana_axes_setup(ana_axes *a, cairo_t *cr, int width, int height, double x0, double x1, double y0, double y1)
{
    widen(&x0, &x1);
    widen(&y0, &y1);
    a->cr = cr;
    a->width = width;
    a->height = height;
    a->x0 = x0; a->x1 = x1; a->y0 = y0; a->y1 = y1;
    double m = width < height ? width : height;
    a->font = m / 40 < 10 ? 10 : m / 40 > 28 ? 28 : m / 40;
    a->left = 6.5 * a->font;
    a->right = width - 2.0 * a->font;
    a->top = 3.0 * a->font;
    a->bottom = height - 4.0 * a->font;
    a->legend_n = 0;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
}

double ana_axes_x(const ana_axes *a, double x) { return a->left + (x - a->x0) / (a->x1 - a->x0) * (a->right - a->left); }
double ana_axes_y(const ana_axes *a, double y) { return a->bottom - (y - a->y0) / (a->y1 - a->y0) * (a->bottom - a->top); }

void ana_axes_clip(const ana_axes *a)
{
    cairo_save(a->cr);
    cairo_rectangle(a->cr, a->left, a->top, a->right - a->left, a->bottom - a->top);
    cairo_clip(a->cr);
}

void ana_axes_unclip(const ana_axes *a) { cairo_restore(a->cr); }

static double nice_step(double range, double target)
{
    double raw = range / target, p = pow(10, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * p;
}

/* Text with its anchor at (x, y): ax, ay in 0..1 (0 left/top, 1 right/bottom). */
static void text_at(cairo_t *cr, double x, double y, double ax, double ay, const char *s)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    cairo_move_to(cr, x - e.x_bearing - ax * e.width, y - e.y_bearing - ay * e.height);
    cairo_show_text(cr, s);
}

static void tick_label(char *buf, size_t n, double v, double step)
{
    if (fabs(v) < step * 1e-9) v = 0;
    snprintf(buf, n, "%.6g", v);
}

void ana_axes_draw(ana_axes *a, const char *title, const char *xlabel, const char *ylabel)
{
    cairo_t *cr = a->cr;
    char buf[64];
    cairo_set_font_size(cr, a->font);
    cairo_set_line_width(cr, 1);
    /* x ticks and grid */
    double sx = nice_step(a->x1 - a->x0, (a->right - a->left) / (7 * a->font));
    for (double k = ceil(a->x0 / sx); k * sx <= a->x1 + sx * 1e-9; k++) {
        double v = k * sx, px = floor(ana_axes_x(a, v)) + 0.5;
        cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
        cairo_move_to(cr, px, a->top);
        cairo_line_to(cr, px, a->bottom);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_move_to(cr, px, a->bottom);
        cairo_line_to(cr, px, a->bottom + 0.4 * a->font);
        cairo_stroke(cr);
        tick_label(buf, sizeof buf, v, sx);
        text_at(cr, px, a->bottom + 0.6 * a->font, 0.5, 0, buf);
    }
    /* y ticks and grid */
    double sy = nice_step(a->y1 - a->y0, (a->bottom - a->top) / (3 * a->font));
    for (double k = ceil(a->y0 / sy); k * sy <= a->y1 + sy * 1e-9; k++) {
        double v = k * sy, py = floor(ana_axes_y(a, v)) + 0.5;
        cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
        cairo_move_to(cr, a->left, py);
        cairo_line_to(cr, a->right, py);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_move_to(cr, a->left - 0.4 * a->font, py);
        cairo_line_to(cr, a->left, py);
        cairo_stroke(cr);
        tick_label(buf, sizeof buf, v, sy);
        text_at(cr, a->left - 0.6 * a->font, py, 1, 0.5, buf);
    }
    /* frame */
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_rectangle(cr, floor(a->left) + 0.5, floor(a->top) + 0.5, floor(a->right - a->left), floor(a->bottom - a->top));
    cairo_stroke(cr);
    /* axis titles and title */
    text_at(cr, (a->left + a->right) / 2, a->height - 0.4 * a->font, 0.5, 1, xlabel);
    cairo_save(cr);
    cairo_translate(cr, 0.5 * a->font, (a->top + a->bottom) / 2);
    cairo_rotate(cr, -M_PI / 2);
    text_at(cr, 0, 0, 0.5, 0, ylabel);
    cairo_restore(cr);
    cairo_set_font_size(cr, a->font * 1.15);
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    text_at(cr, (a->left + a->right) / 2, 0.8 * a->font, 0.5, 0, title);
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, a->font);
}

void ana_axes_bar_ticks(const ana_axes *a, double x, double lo, double hi)
{
    cairo_t *cr = a->cr;
    char buf[64];
    if (!(hi > lo)) { lo -= 0.5; hi += 0.5; }   /* a constant value: its tick in the middle */
    const double span = a->bottom - a->top, step = nice_step(hi - lo, span / (2.5 * a->font));
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    for (double k = ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k++) {
        double v = k * step, py = floor(a->bottom - (v - lo) / (hi - lo) * span) + 0.5;
        cairo_move_to(cr, x, py);
        cairo_line_to(cr, x + 0.4 * a->font, py);
        cairo_stroke(cr);
        tick_label(buf, sizeof buf, v, step);
        text_at(cr, x + 0.6 * a->font, py, 0, 0.5, buf);
    }
}

void ana_axes_legend(ana_axes *a, const char *label, const double rgb[3])
{
    cairo_t *cr = a->cr;
    cairo_set_font_size(cr, a->font * 0.9);
    /* in the margin above the plot area, right to left: a legend inside it
     * hid the spikes under it (the demo's raster) */
    double y = a->top - 0.9 * a->font, x = a->right - 8 * (1 + a->legend_n++) * a->font;
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    cairo_set_line_width(cr, 2);
    cairo_move_to(cr, x, y);
    cairo_line_to(cr, x + 1.5 * a->font, y);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text_at(cr, x + 2 * a->font, y, 0, 0.5, label);
    cairo_set_font_size(cr, a->font);
}
#endif
