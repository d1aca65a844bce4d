/* Phases of oscillating traces from their upward mean-crossings.
 *
 * Per cell: the mean m and SD s of its trace over the window; an upward
 * crossing is a pair of frames with x[k-1] < m <= x[k], timed by linear
 * interpolation between them, and counted only when the trace has been
 * below m - hyst*s since the last one (hysteresis against noise). Between
 * successive crossings c_j <= t < c_{j+1} the phase grows linearly:
 * phi(t) = 2*pi*(t - c_j)/(c_{j+1} - c_j); outside [c_first, c_last) it is
 * undefined. Two passes over the report, memory O(cells + crossings). */
#include "phase.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void push(ana_crossings *c, double t)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 16;
        c->t = realloc(c->t, (size_t)c->cap * sizeof *c->t);
        if (!c->t) olive_die("out of memory (crossings)");
    }
    c->t[c->n++] = t;
}

typedef struct {
    const ana_report *r;
    int64_t nc, count;
    double *mean, *m2, *prev, *prev_t, hyst;
    int *armed;
    ana_crossings *out;
} pass_state;

static void moments(int64_t k, const double *row, void *arg)
{
    (void)k;
    pass_state *p = arg;
    p->count++;
    for (int64_t i = 0; i < p->nc; i++) {   /* Welford */
        double d = row[i] - p->mean[i];
        p->mean[i] += d / (double)p->count;
        p->m2[i] += d * (row[i] - p->mean[i]);
    }
}

static void crossings(int64_t k, const double *row, void *arg)
{
    pass_state *p = arg;
    double t = ana_report_time(p->r, k);
    for (int64_t i = 0; i < p->nc; i++) {
        double m = p->mean[i], x = row[i];
        if (x < m - p->hyst * p->m2[i]) p->armed[i] = 1;   /* m2 holds the SD now */
        if (p->armed[i] && p->count > 0 && p->prev[i] < m && x >= m) {
            double tp = p->prev_t[i];
            push(&p->out[i], tp + (m - p->prev[i]) / (x - p->prev[i]) * (t - tp));
            p->armed[i] = 0;
        }
        p->prev[i] = x;
        p->prev_t[i] = t;
    }
    p->count = 1;
}

void ana_phase_crossings(const ana_report *r, const int64_t *cols, int64_t nc, int64_t k0, int64_t k1, double hyst,
                         ana_crossings *out, double *mean, double *sd)
{
    memset(out, 0, (size_t)nc * sizeof *out);
    if (nc <= 0 || k1 <= k0) return;
    pass_state p = {.r = r, .nc = nc, .mean = mean, .hyst = hyst, .out = out};
    p.m2 = sd;
    for (int64_t i = 0; i < nc; i++) mean[i] = sd[i] = 0;
    ana_report_each_frame(r, cols, nc, k0, k1, moments, &p);
    for (int64_t i = 0; i < nc; i++) sd[i] = sqrt(sd[i] / (double)p.count);
    p.prev = olive_malloc((size_t)nc * sizeof(double), "previous values");
    p.prev_t = olive_malloc((size_t)nc * sizeof(double), "previous times");
    p.armed = olive_calloc((size_t)nc, sizeof(int), "hysteresis");
    p.count = 0;
    ana_report_each_frame(r, cols, nc, k0, k1, crossings, &p);
    free(p.prev);
    free(p.prev_t);
    free(p.armed);
}

int ana_phase_at(const ana_crossings *c, double t, int64_t *cursor, double *phi)
{
    if (c->n < 2 || t < c->t[0] || t >= c->t[c->n - 1]) return 0;
    int64_t j = *cursor;
    if (j < 0 || j >= c->n - 1 || t < c->t[j]) j = 0;
    while (j < c->n - 2 && t >= c->t[j + 1]) j++;
    *cursor = j;
    *phi = 2 * M_PI * (t - c->t[j]) / (c->t[j + 1] - c->t[j]);
    return 1;
}

void ana_crossings_free(ana_crossings *c, int64_t n)
{
    for (int64_t i = 0; i < n; i++) free(c[i].t);
}
