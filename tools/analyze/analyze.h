/* olive-analyze: declarations shared by its files.
 *
 * Exit status (cmp-style, so `compare` can use it): 0 success (or "equal"),
 * 1 "different" (compare only), 2 any error. Every error path exits 2:
 * ana_error() does so directly, and the exit hook set by ana_errors_init()
 * turns the exit(1) of common/'s olive_die() into 2 as well. A subcommand
 * returns its status from its main function. */
#ifndef OLIVE_ANALYZE_H
#define OLIVE_ANALYZE_H
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>

enum { ANA_EXIT_OK = 0, ANA_EXIT_DIFFERENT = 1, ANA_EXIT_ERROR = 2 };

/* errors.c */
void ana_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* snprintf that may truncate silently (labels and messages only). */
void ana_fmt(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Usage error of subcommand sub (NULL: the program): message, then a hint to
 * its --help; exit 2. */
void ana_usage_error(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
void ana_errors_init(void);          /* first thing in main() */

/* h5read.c: checked access to 1-D datasets, messages name file and dataset. */
typedef struct {
    const char *file;      /* for messages */
    char name[512];        /* full path inside the file, for messages */
    hid_t dset;
    int64_t len;
    H5T_class_t cls;       /* H5T_INTEGER or H5T_FLOAT */
    int is_signed;         /* integer types */
    size_t size;           /* bytes per stored element */
} ana_dset;
/* Open the 1-D dataset at path name under loc; dies (exit 2) when it is
 * missing, not a dataset, not 1-D or not numeric. */
void ana_dset_open(ana_dset *d, const char *file, hid_t loc, const char *name);
/* Read elements [off, off+n) converted to mtype. */
void ana_dset_read(const ana_dset *d, hid_t mtype, int64_t off, int64_t n, void *buf);
void ana_dset_close(ana_dset *d);
/* 1 when the path exists under loc and is a group (resp. a dataset). */
int ana_h5_is_group(hid_t loc, const char *name);
int ana_h5_is_dataset(hid_t loc, const char *name);
/* Open an HDF5 file read-only; dies (exit 2) naming the fault. */
hid_t ana_h5_open(const char *path);
/* Names of the direct children of group name that are groups,
 * at most max of them; returns how many there are (may exceed max). */
int ana_h5_subgroups(const char *file, hid_t loc, const char *name, char (*out)[256], int max);

/* spikefile.c: a SONATA spike file, /spikes/<population>/{timestamps,node_ids}
 * (also the legacy /spikes/{timestamps,gids} layout, population ""). */
typedef struct {
    char path[4096];
    char population[256];
    hid_t file;
    ana_dset ts, ids;
    int64_t n;             /* spikes */
    double to_ms;          /* factor from the stored unit to ms */
    char sorting[32];      /* group attribute "sorting", "" when absent */
} ana_spikes;
/* population NULL: the only one in the file. */
void ana_spikes_open(ana_spikes *s, const char *path, const char *population);
/* Spikes [off, off+n): times in ms (validated finite), node ids (validated >= 0). */
void ana_spikes_read(const ana_spikes *s, int64_t off, int64_t n, double *t_ms, uint64_t *node);
void ana_spikes_close(ana_spikes *s);
#define ANA_SPIKE_CHUNK (1 << 20)

/* spikestats.c: passes over the spikes, ANA_SPIKE_CHUNK at a time. */
typedef struct {
    int64_t count;
    int64_t max_node;        /* -1 without spikes */
    double t_min, t_max;     /* ms; 0 without spikes */
    int nfirst;              /* first spikes kept, ordered by (time, node) */
    double *first_t;
    uint64_t *first_node;
} ana_spike_scan;
void ana_spikes_scan(const ana_spikes *s, int want_first, ana_spike_scan *sc);
void ana_spike_scan_free(ana_spike_scan *sc);
/* Second pass: returns how many distinct cells spiked (ids must be < cells)
 * and, when nbins > 0, histograms the times over [0, duration] in nbins
 * equal bins (bin b: [b, b+1) * duration/nbins, the last bin closed); spikes
 * before 0 or after duration are counted in *outside, not binned. */
int64_t ana_spikes_bin(const ana_spikes *s, int64_t cells, double duration_ms, int nbins, int64_t *bins,
                       int64_t *outside);
/* Left edge of bin b (b = nbins gives duration). */
double ana_bin_edge(double duration_ms, int nbins, int b);

/* runinfo.c: what a run directory says about itself. */
typedef struct {
    char dir[4096];          /* directory holding the files */
    char spikes_path[4096];
    char report_path[4096];  /* "" when no report was used */
    int64_t cells;           /* -1 unknown */
    char cells_from[256];
    double duration_ms;      /* < 0 unknown */
    char duration_from[256];
    /* provenance: root attributes of the spike file; has_* = present */
    int has_cells, has_steps, has_dt, has_world_size, has_time_total, has_threads;
    int64_t attr_cells, steps, world_size, threads;
    double dt, time_total_s;
    char olive_version[32], backend[32], precision[32], gj[32], command[1024];
} ana_run;
/* arg: an output directory (spikes.h5 inside) or a spike file itself. Finds
 * the spike file and reads the provenance; dies (exit 2) naming what is
 * missing. */
void ana_run_open(ana_run *r, const char *arg);
/* Settle cells and duration: root attributes, else a report of the run
 * (<var>.h5 beside the spike file, v_axon.h5 first), else the spikes
 * themselves (largest node id + 1, last spike time); unknown (-1) when there
 * is nothing to go on. */
void ana_run_resolve(ana_run *r, const char *population, const ana_spike_scan *sc);

/* table.c: key/value tables printed as aligned text or CSV. */
typedef struct {
    char *key, *label, *value, *unit, *note;
} ana_row;
typedef struct {
    ana_row *rows;
    int n, cap;
} ana_table;
/* key: CSV key (NULL: text only); label: text label (NULL: CSV only); unit:
 * printed after the value in text (may be NULL); note: text-only remark in
 * parentheses (may be NULL). An empty value prints as "-" in text. */
void ana_table_add(ana_table *t, const char *key, const char *label, const char *unit, const char *note,
                   const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void ana_table_print_text(const ana_table *t, FILE *out);
/* header: print a "key,value" line first. */
void ana_table_print_csv(const ana_table *t, FILE *out, int header);
void ana_table_free(ana_table *t);
/* One CSV field, quoted when needed (RFC 4180). */
void ana_csv_field(FILE *out, const char *s);

/* subcommands */
int ana_summary_main(int argc, char **argv);

#endif
