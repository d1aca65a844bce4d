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
/* The populations under /spikes of the file at path (at most max): how many. */
int ana_spikes_populations(const char *path, char (*names)[256], int max);
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
    char olive_version[32], backend[32], precision[32], gj[32], model[32], method[32], command[1024];
    char param_overrides[1024];   /* olive-simulate --param: POP.NAME=VALUE,... ('' none) */
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

/* bins.c: histogram bins over [lo, hi]: bin k is [edge(k), edge(k+1)), the
 * last one closed. By width: edges lo + k*width, the last bin ends at hi (and
 * may be shorter); by count: n equal bins, edges lo + (hi - lo)*k/n. */
typedef struct {
    double lo, hi, width;
    int n, by_width;
} ana_bins;
/* Dies (exit 2) when there would be more than max bins. */
void ana_bins_width(ana_bins *b, double lo, double hi, double width, int max);
void ana_bins_count(ana_bins *b, double lo, double hi, int n);
double ana_bins_edge(const ana_bins *b, int k);
/* The bin holding x, -1 when x is outside [lo, hi] (or not a number). */
int ana_bins_find(const ana_bins *b, double x);

/* spikeload.c: every spike of a file in memory, and per-cell passes. */
typedef struct {
    int64_t n;
    double *t;       /* ms */
    uint64_t *node;
} ana_spike_list;
void ana_spikes_load(const ana_spikes *s, ana_spike_list *l);
void ana_spike_list_free(ana_spike_list *l);
/* Sort by (time, node) or by (node, time). */
void ana_spike_list_sort_time(ana_spike_list *l);
void ana_spike_list_sort_node(ana_spike_list *l);
/* Spikes per cell: counts[c] for c < cells; dies naming the spike when a node
 * id is >= cells. */
void ana_spikes_per_cell(const ana_spikes *s, int64_t cells, int64_t *counts);

/* spikewrite.c: write a SONATA spike file atomically (final name only when
 * complete; refuses an existing file unless force). Spikes must already be
 * sorted by time; root attributes cells/steps/dt are copied from attrs_from
 * (an open file, or -1) when it has them. */
void ana_spikes_write(const char *path, int force, const char *population, const ana_spike_list *l,
                      hid_t attrs_from, const char *source, double threshold_mv);

/* report.c: a SONATA report, /report/<pop>/data [frames, n] with
 * mapping/node_ids (n) and mapping/time (start, stop, step). */
typedef struct {
    char path[4096];
    char population[256];
    char name[600];        /* the data dataset, for messages */
    hid_t file, data;
    int64_t frames, n;
    uint64_t *nodes;       /* node id of each column */
    double start, stop, step;   /* ms */
    char units[64];        /* of the data, "" when absent */
} ana_report;
/* Path of the report of variable var: arg/var.h5 for a directory, arg itself
 * for a file. */
void ana_report_path(char *out, size_t n, const char *arg, const char *var);
/* The report a subcommand reads when --variable is not given: infoli_var, or
 * v for the run of a spiking network (no infoli_var.h5, a v.h5). */
const char *ana_default_variable(const char *arg, const char *infoli_var);
void ana_report_open(ana_report *r, const char *path, const char *population);
/* compartments: a compartment report (<variable>_compartments.h5), one column
 * per compartment; nodes[c] is then the cell of column c. */
void ana_report_open_as(ana_report *r, const char *path, const char *population, int compartments);
/* Time of frame k in ms: start + k*step ((k+1)*step when start = step, as
 * olive writes it, so that times equal olive's (i+1)*dt exactly). */
double ana_report_time(const ana_report *r, int64_t k);
/* Frames [k0, k0+nk), columns [c0, c0+nc) as doubles, row-major nk x nc. */
void ana_report_read(const ana_report *r, int64_t k0, int64_t nk, int64_t c0, int64_t nc, double *buf);
/* Frames per block so that a block of nc columns is about 4M values. */
int64_t ana_report_block(const ana_report *r, int64_t nc);
/* First frame at or after t0 and one past the last frame at or before t1. */
void ana_report_window(const ana_report *r, double t0, double t1, int64_t *k0, int64_t *k1);
/* Columns whose node id is in [a, b): their indices into cols (allocated),
 * returns how many. */
int64_t ana_report_columns(const ana_report *r, int64_t a, int64_t b, int64_t **cols);
/* Calls fn(k, row, arg) for each frame k in [k0, k1), row holding the values
 * of columns cols[0..nc) (read a block of frames at a time over the span of
 * columns they cover). */
void ana_report_each_frame(const ana_report *r, const int64_t *cols, int64_t nc, int64_t k0, int64_t k1,
                           void (*fn)(int64_t k, const double *row, void *arg), void *arg);
void ana_report_close(ana_report *r);

/* args.c: option values shared by the subcommands. */
/* "A:B" (cells A..B-1) or "A" (cell A alone), 0 <= A < B. */
void ana_parse_cells(const char *sub, const char *opt, const char *s, int64_t *a, int64_t *b);
/* The pre-pass of a subcommand's options (util.h's olive_check_options with
 * getopt_long's unique prefixes): an unknown option, with "did you mean", or
 * one given twice is a usage error; --list-options prints them. */
struct option;
void ana_check_options(const char *sub, int argc, char **argv, const struct option *longopts, const char *shortopts);
/* Columns: text with a header line, fields right-aligned to width[i]; or CSV. */
void ana_cols_header(FILE *out, int csv, int n, const int *width, const char *const *names);
void ana_cols_row(FILE *out, int csv, int n, const int *width, ...);   /* n const char* fields */
/* Flush stdout or die (exit 2) naming what was being written. */
void ana_flush_stdout(const char *what);

/* subcommands */
int ana_summary_main(int argc, char **argv);
int ana_spikes_main(int argc, char **argv);
int ana_rates_main(int argc, char **argv);
int ana_isi_main(int argc, char **argv);
int ana_sync_main(int argc, char **argv);
int ana_compare_main(int argc, char **argv);
int ana_plot_main(int argc, char **argv);

#endif
