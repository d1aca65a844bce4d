/* Phases of oscillating report traces (phase.c), for olive-analyze sync. */
#ifndef OLIVE_ANALYZE_PHASE_H
#define OLIVE_ANALYZE_PHASE_H
#include "analyze.h"

typedef struct {
    int64_t n, cap;
    double *t;          /* upward mean-crossing times, ms, ascending */
} ana_crossings;

/* For columns cols[0..nc) over frames [k0, k1): each column's mean and SD
 * (into mean[], sd[]) and its upward mean-crossings (into out[], nc of
 * them), with hysteresis hyst*SD. */
void ana_phase_crossings(const ana_report *r, const int64_t *cols, int64_t nc, int64_t k0, int64_t k1, double hyst,
                         ana_crossings *out, double *mean, double *sd);
/* Phase in [0, 2pi) at time t; 0 when undefined (before the first or from
 * the last crossing on). cursor: an index kept between calls with rising t
 * (start it at 0). */
int ana_phase_at(const ana_crossings *c, double t, int64_t *cursor, double *phi);
void ana_crossings_free(ana_crossings *c, int64_t n);

#endif
