/* olive-analyze compare: are two runs (or two HDF5 files) the same within a
 * tolerance? Exit status like cmp: 0 equal, 1 different, 2 cannot compare. */
#include "comparefile.h"
#include "h5util.h"
#include "util.h"
#include <dirent.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char compare_help[] =
    "Usage: olive-analyze compare A B [--tolerance X] [--variables LIST] [--population NAME] [--csv] [--quiet]\n"
    "\n"
    "Compare two olive-simulate output directories, or two HDF5 files. For\n"
    "directories: spikes.h5 (required in both) and every other .h5 file\n"
    "present in both (the reports <variable>.h5 and state.h5); a file in only\n"
    "one of them is listed but not a difference. Within a file every numeric\n"
    "dataset is compared value by value: floating-point values are equal when\n"
    "|a - b| <= X (two NaNs are equal), integers (node ids, mappings) must\n"
    "match exactly; a dataset in one file only or of another shape (e.g. a\n"
    "different spike count) is a difference. Attributes (provenance, timings)\n"
    "are not compared.\n"
    "\n"
    "Prints a line per file (equal or different), a line per dataset that is\n"
    "not identical, and the largest absolute difference with where it is: the\n"
    "variable, frame and time, and cell for reports; the spike number, time\n"
    "and cell for spikes; the cell for state.h5. --csv gives every dataset.\n"
    "\n"
    "  --tolerance X      largest absolute difference taken as equal (default 0: exact)\n"
    "  --variables LIST   compare only these, comma-separated: spikes, state or a\n"
    "                     report variable (v_axon, ...); each must be in both\n"
    "  --population NAME  only this population's spikes and reports (default: every\n"
    "                     population; state.h5 is compared whole)\n"
    "  --csv              CSV: file,dataset,values,differing,max_abs_diff,where,a,b,status\n"
    "  -q, --quiet        print nothing, only the exit status\n"
    "  -h, --help         this help\n"
    "\n"
    "Exit status: 0 equal (within X), 1 different, 2 error (a missing file or\n"
    "directory, spikes.h5 missing from a directory, a directory compared with\n"
    "a file, an unreadable or corrupt file).\n";

typedef struct {
    const char *a, *b, *variables;
    ana_cmp_opts cmp;
} compare_opts;

static void parse(int argc, char **argv, compare_opts *o)
{
    static const struct option longopts[] = {
        {"tolerance", required_argument, NULL, 't'}, {"variables", required_argument, NULL, 'V'},
        {"csv", no_argument, NULL, 'c'},             {"quiet", no_argument, NULL, 'q'},
        {"population", required_argument, NULL, 'p'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    opterr = 0;
    optind = 1;
    int c;
    ana_check_options("compare", argc, argv, longopts, ":hq");
    while ((c = getopt_long(argc, argv, ":hq", longopts, NULL)) != -1) {
        switch (c) {
        case 't': o->cmp.tolerance = olive_parse_double("--tolerance", optarg, 0, INFINITY); break;
        case 'V': o->variables = optarg; break;
        case 'p': o->cmp.population = optarg; break;
        case 'c': o->cmp.csv = 1; break;
        case 'q': o->cmp.quiet = 1; break;
        case 'h': fputs(compare_help, stdout); exit(ANA_EXIT_OK);
        case ':': ana_usage_error("compare", "option %s needs a value", argv[optind - 1]);
        default: ana_usage_error("compare", "unknown option %s", argv[optind - 1]);
        }
    }
    if (olive_quiet) o->cmp.quiet = 1;   /* -q taken by olive-analyze itself (main.c) */
    if (argc - optind < 2) ana_usage_error("compare", "need two runs to compare: A B (directories or HDF5 files)");
    if (argc - optind > 2) ana_usage_error("compare", "unexpected argument '%s'", argv[optind + 2]);
    o->a = argv[optind];
    o->b = argv[optind + 1];
}

/* Value of element i of the 1-D dataset name in f, NAN when unavailable. */
static double value_at(hid_t f, const char *file, const char *name, int64_t i)
{
    if (!ana_h5_is_dataset(f, name)) return NAN;
    ana_dset d;
    ana_dset_open(&d, file, f, name);
    double v = NAN;
    if (i >= 0 && i < d.len) ana_dset_read(&d, H5T_NATIVE_DOUBLE, i, 1, &v);
    ana_dset_close(&d);
    return v;
}

/* Where flat index res->index lies, in words. */
static void describe(const char *file, hid_t f, const ana_cmp_result *res, char *out, size_t n)
{
    const char *ds = res->dataset;
    int64_t row = res->rowlen > 0 ? res->index / res->rowlen : 0, col = res->rowlen > 0 ? res->index % res->rowlen : 0;
    char base[512], other[600];
    ana_fmt(base, sizeof base, "%s", ds);
    char *slash = strrchr(base, '/');
    if (slash) *slash = 0;
    const char *leaf = slash ? slash + 1 : ds;
    if (!strncmp(ds, "/report/", 8) && !strcmp(leaf, "data") && res->rank == 2) {
        ana_fmt(other, sizeof other, "%s/mapping/time", base);
        double start = value_at(f, file, other, 0), step = value_at(f, file, other, 2);
        double t = start == step ? (double)(row + 1) * step : start + (double)row * step;
        /* the column's cell: index_pointers[i] <= col < index_pointers[i + 1]
         * (one column per cell, or a cell's compartments in an element report) */
        ana_fmt(other, sizeof other, "%s/mapping/index_pointers", base);
        int64_t lo = 0, hi = col;   /* index_pointers[i] >= i */
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo + 1) / 2;
            if (value_at(f, file, other, mid) <= (double)col) lo = mid; else hi = mid - 1;
        }
        const double first = value_at(f, file, other, lo), next = value_at(f, file, other, lo + 1);
        ana_fmt(other, sizeof other, "%s/mapping/node_ids", base);
        const double cell = value_at(f, file, other, first == first ? lo : col);
        if (first == first && next - first > 1) {
            ana_fmt(other, sizeof other, "%s/mapping/element_ids", base);
            ana_fmt(out, n, "frame %lld (t = %.10g ms), cell %.0f, compartment %lld (element id %.0f)", (long long)row, t,
                    cell, (long long)(col - (int64_t)first), value_at(f, file, other, col));
        } else {
            ana_fmt(out, n, "frame %lld (t = %.10g ms), cell %.0f", (long long)row, t, cell);
        }
    } else if (!strncmp(ds, "/spikes/", 8) && (!strcmp(leaf, "timestamps") || !strcmp(leaf, "node_ids"))) {
        ana_fmt(other, sizeof other, "%s/timestamps", base);
        double t = value_at(f, file, other, row);
        ana_fmt(other, sizeof other, "%s/node_ids", base);
        double cell = value_at(f, file, other, row);
        ana_fmt(out, n, "spike %lld (t = %.10g ms in A), cell %.0f", (long long)row, t, cell);
    } else if (!strncmp(ds, "/state/in_flight_", 17)) {
        ana_fmt(out, n, "spike in flight %lld", (long long)row);
    } else if (!strncmp(ds, "/state/", 7) && res->rank == 1) {
        ana_fmt(out, n, "cell %lld", (long long)row);
    } else if (res->rank >= 2) {
        ana_fmt(out, n, "row %lld, element %lld", (long long)row, (long long)col);
    } else {
        ana_fmt(out, n, "element %lld", (long long)row);
    }
}

typedef struct {
    int file_sets, file_diff;   /* per file: datasets, of which different */
    int64_t file_values;
    int ndiff_sets, first;
    double worst;
    char worst_where[1200];
    int have_worst;
} summary_state;

static void report(const ana_cmp_opts *o, const char *label, const char *fa, hid_t a, const ana_cmp_result *res,
                   void *arg)
{
    summary_state *s = arg;
    char where[600] = "";
    if (res->values > 0 && res->max_diff > 0) describe(fa, a, res, where, sizeof where);
    s->ndiff_sets += res->different;
    s->file_sets++;
    s->file_diff += res->different;
    s->file_values += res->values;
    if (res->values > 0 && res->max_diff > 0 && (!s->have_worst || res->max_diff > s->worst)) {
        s->have_worst = 1;
        s->worst = res->max_diff;
        ana_fmt(s->worst_where, sizeof s->worst_where, "%s %s at %s (A %.10g, B %.10g)", label, res->dataset, where,
                res->a, res->b);
    }
    if (o->quiet) return;
    const char *status = res->skipped ? "skipped" : res->different ? "different" : "equal";
    if (o->csv) {
        if (s->first) {
            puts("file,dataset,values,differing,max_abs_diff,where,a,b,status");
            s->first = 0;
        }
        ana_csv_field(stdout, label);
        putchar(',');
        ana_csv_field(stdout, res->dataset);
        if (res->message[0]) printf(",,,,,,,");
        else {
            printf(",%lld,%lld,%.10g,", (long long)res->values, (long long)res->differing, res->max_diff);
            ana_csv_field(stdout, where);
            if (res->max_diff > 0) printf(",%.10g,%.10g,", res->a, res->b);
            else printf(",,,");
        }
        ana_csv_field(stdout, res->message[0] ? res->message : status);
        putchar('\n');
        return;
    }
    if (!res->message[0] && res->max_diff == 0) return;   /* identical: only in the file's line */
    printf("  %-9s %s %s", status, label, res->dataset);
    if (res->message[0]) printf(": %s", res->message);
    else if (res->differing > 0)
        printf(": %lld of %lld values differ, max |diff| %.6g at %s (A %.10g, B %.10g)", (long long)res->differing,
               (long long)res->values, res->max_diff, where, res->a, res->b);
    else if (res->max_diff > 0)
        printf(": %lld values, max |diff| %.6g at %s (within tolerance)", (long long)res->values, res->max_diff, where);
    putchar('\n');
}

/* One line per file after its datasets. */
static void file_line(const ana_cmp_opts *o, summary_state *s, const char *label, int different)
{
    if (!o->quiet && !o->csv)
        printf("%-9s %s: %d dataset%s, %lld values%s\n", different ? "different" : "equal", label, s->file_sets,
               s->file_sets == 1 ? "" : "s", (long long)s->file_values,
               different ? "" : o->tolerance > 0 ? " (within the tolerance)" : " (identical)");
    s->file_sets = s->file_diff = 0;
    s->file_values = 0;
}

static int is_dir(const char *p)
{
    struct stat st;
    if (stat(p, &st) != 0) ana_error("%s: no such file or directory", p);
    return S_ISDIR(st.st_mode);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The .h5 files of a directory (unfinished *.tmp-* left out), sorted. */
static int list_h5(const char *dir, char ***out)
{
    DIR *d = opendir(dir);
    if (!d) ana_error("%s: cannot read the directory", dir);
    int n = 0, cap = 16;
    char **names = olive_malloc((size_t)cap * sizeof *names, "file names");
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 4 || strcmp(e->d_name + l - 3, ".h5") != 0 || strstr(e->d_name, ".tmp-")) continue;
        if (n == cap) names = realloc(names, (size_t)(cap *= 2) * sizeof *names);
        if (!names) olive_die("out of memory listing %s", dir);
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, by_name);
    *out = names;
    return n;
}

static int in_list(char **names, int n, const char *name)
{
    return bsearch(&name, names, (size_t)n, sizeof *names, by_name) != NULL;
}

/* The file names to compare in two directories. */
static int choose_files(const compare_opts *o, char ***files, int quiet)
{
    char **na, **nb;
    int ca = list_h5(o->a, &na), cb = list_h5(o->b, &nb), n = 0;
    char **sel = olive_malloc((size_t)(ca + cb + 64) * sizeof *sel, "file names");
    if (o->variables) {
        char *list = strdup(o->variables), *save = NULL;
        for (char *v = strtok_r(list, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
            char name[300];
            ana_fmt(name, sizeof name, "%s.h5", !strcmp(v, "spikes") ? "spikes" : !strcmp(v, "state") ? "state" : v);
            if (!in_list(na, ca, name)) ana_error("%s/%s: no such file (--variables %s)", o->a, name, v);
            if (!in_list(nb, cb, name)) ana_error("%s/%s: no such file (--variables %s)", o->b, name, v);
            if (n < ca + cb + 64) sel[n++] = strdup(name);
        }
        free(list);
    } else {
        if (!in_list(na, ca, "spikes.h5")) ana_error("%s/spikes.h5: no such file (is %s an olive-simulate output directory?)", o->a, o->a);
        if (!in_list(nb, cb, "spikes.h5")) ana_error("%s/spikes.h5: no such file (is %s an olive-simulate output directory?)", o->b, o->b);
        for (int i = 0; i < ca; i++) {
            if (in_list(nb, cb, na[i])) sel[n++] = strdup(na[i]);
            else if (!quiet) printf("only in A: %s/%s (not compared)\n", o->a, na[i]);
        }
        for (int i = 0; i < cb; i++)
            if (!in_list(na, ca, nb[i]) && !quiet) printf("only in B: %s/%s (not compared)\n", o->b, nb[i]);
    }
    for (int i = 0; i < ca; i++) free(na[i]);
    for (int i = 0; i < cb; i++) free(nb[i]);
    free(na);
    free(nb);
    *files = sel;
    return n;
}

/* --population NAME: refused (naming the populations there are) unless both spike files hold it. */
static void require_population(const compare_opts *o, int dirs)
{
    for (int k = 0; k < 2; k++) {
        char path[4096];
        const char *run = k ? o->b : o->a;
        if (dirs) ana_fmt(path, sizeof path, "%s/spikes.h5", run); else ana_fmt(path, sizeof path, "%s", run);
        hid_t f = ana_h5_open(path);
        const int spikes = ana_h5_is_group(f, "/spikes");
        H5Fclose(f);
        if (!dirs && !spikes) continue;   /* a report or state file: its own datasets */
        ana_spikes sp;
        ana_spikes_open(&sp, path, o->cmp.population);
        ana_spikes_close(&sp);
    }
}

int ana_compare_main(int argc, char **argv)
{
    compare_opts o;
    parse(argc, argv, &o);
    int da = is_dir(o.a), db = is_dir(o.b);
    if (da != db) ana_error("cannot compare %s (a %s) with %s (a %s)", o.a, da ? "directory" : "file", o.b, db ? "directory" : "file");
    summary_state s = {.first = 1};
    int different = 0;
    if (o.cmp.population) require_population(&o, da);
    if (da) {
        char **files;
        int n = choose_files(&o, &files, o.cmp.quiet || o.cmp.csv);
        /* Open every file first, so that an unreadable one is an error (2)
         * before anything is reported different. */
        for (int i = 0; i < n; i++) {
            char pa[4096], pb[4096];
            ana_fmt(pa, sizeof pa, "%s/%s", o.a, files[i]);
            ana_fmt(pb, sizeof pb, "%s/%s", o.b, files[i]);
            H5Fclose(ana_h5_open(pa));
            H5Fclose(ana_h5_open(pb));
        }
        for (int i = 0; i < n; i++) {
            char pa[4096], pb[4096];
            ana_fmt(pa, sizeof pa, "%s/%s", o.a, files[i]);
            ana_fmt(pb, sizeof pb, "%s/%s", o.b, files[i]);
            int d = ana_compare_files(&o.cmp, pa, pb, files[i], report, &s);
            file_line(&o.cmp, &s, files[i], d);
            different |= d;
            free(files[i]);
        }
        free(files);
    } else {
        if (o.variables) ana_usage_error("compare", "--variables needs two directories");
        H5Fclose(ana_h5_open(o.a));
        H5Fclose(ana_h5_open(o.b));
        const char *slash = strrchr(o.a, '/');
        different = ana_compare_files(&o.cmp, o.a, o.b, slash ? slash + 1 : o.a, report, &s);
        file_line(&o.cmp, &s, slash ? slash + 1 : o.a, different);
    }
    if (!o.cmp.quiet && !o.cmp.csv) {
        if (different) printf("different: %d dataset%s differ%s", s.ndiff_sets, s.ndiff_sets == 1 ? "" : "s",
                              s.ndiff_sets == 1 ? "s" : "");
        else printf("equal");
        printf(" (tolerance %g)", o.cmp.tolerance);
        if (s.have_worst) printf("; largest absolute difference %.6g in %s", s.worst, s.worst_where);
        putchar('\n');
    }
    ana_flush_stdout("the comparison");
    return different ? ANA_EXIT_DIFFERENT : ANA_EXIT_OK;
}
