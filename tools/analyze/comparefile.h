/* olive-analyze compare: comparing files dataset by dataset (comparefile.c)
 * and describing where a difference lies (compare.c). */
#ifndef OLIVE_ANALYZE_COMPAREFILE_H
#define OLIVE_ANALYZE_COMPAREFILE_H
#include "analyze.h"

typedef struct {
    double tolerance;   /* floating-point datasets: equal when |a - b| <= tolerance */
    int csv, quiet;
    const char *population;   /* non-NULL: only /spikes/<population> and /report/<population> of spikes and reports */
} ana_cmp_opts;

typedef struct {
    char dataset[512];
    char message[256];      /* shape mismatch, only in A/B, not compared */
    int different, skipped, rank;
    int64_t values, differing, rowlen;
    double max_diff;        /* largest |a - b| (inf when one is NaN) */
    int64_t index;          /* where, as a flat index (row = index / rowlen) */
    double a, b;            /* the values there */
} ana_cmp_result;

/* Compare every dataset of files fa and fb; report() is called once per
 * dataset (a: file fa, open, for describing locations). Returns 1 when any
 * dataset differs (beyond the tolerance, in shape, or present in one file
 * only), 0 when equal; errors exit 2. */
int ana_compare_files(const ana_cmp_opts *o, const char *fa, const char *fb, const char *label,
                      void (*report)(const ana_cmp_opts *o, const char *label, const char *fa, hid_t a,
                                     const ana_cmp_result *res, void *arg),
                      void *arg);

#endif
