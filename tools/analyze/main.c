/* olive-analyze: read an olive-simulate output directory (or any SONATA spike
 * file) and report on it. One subcommand per file; this file only dispatches.
 * To add one: write tools/analyze/<name>.c with int ana_<name>_main(int argc,
 * char **argv) (argv[0] is the subcommand's name), declare it in analyze.h
 * and fill in its row below. */
#include "analyze.h"
#include "h5util.h"
#include "util.h"
#include <string.h>

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);   /* NULL: planned, not yet implemented */
    const char *what;
} subcommand;

static const subcommand subcommands[] = {
    {"summary", ana_summary_main, "cells, duration, spike count, mean rate, first spikes, histogram"},
    {"spikes", ana_spikes_main, "re-detect spikes from a report with another threshold"},
    {"rates", ana_rates_main, "firing rate per cell and over time"},
    {"isi", ana_isi_main, "inter-spike-interval histogram"},
    {"sync", ana_sync_main, "population synchrony (order parameter of the subthreshold oscillation)"},
    {"compare", ana_compare_main, "compare two runs within a tolerance (exit 0 equal, 1 different, 2 error)"},
    {"plot", ana_plot_main, "raster, trace, rate or heatmap as PNG, SVG or PDF (loads libcairo)"},
};
#define NSUB ((int)(sizeof subcommands / sizeof subcommands[0]))

static void help(void)
{
    printf("Usage: olive-analyze SUBCOMMAND [OPTIONS] OUTDIR\n"
           "   or: olive-analyze SUBCOMMAND --help\n"
           "\n"
           "Analyse the output of olive-simulate (a directory with spikes.h5 and\n"
           "<variable>.h5 reports, SONATA layout) or any SONATA spike file.\n"
           "\n"
           "Subcommands:\n");
    for (int i = 0; i < NSUB; i++)
        printf("  %-8s  %s%s\n", subcommands[i].name, subcommands[i].what, subcommands[i].run ? "" : " (planned)");
    printf("\n"
           "Tables go to standard output as aligned text, or key,value CSV with --csv.\n"
           "Exit status: 0 success (compare: equal), 1 compare: different, 2 error.\n"
           "\n"
           "  -q, --quiet   no warnings and no summary lines of files written (plot,\n"
           "                spikes -o); errors and the results asked for still print\n"
           "  --progress    progress of long passes even when stderr is not a terminal\n"
           "  --help        this help\n"
           "  --version     print the version\n");
    olive_help_footer("olive-analyze", "docs/ANALYZE.md");
}

int main(int argc, char **argv)
{
    ana_errors_init();
    olive_set_program(argv[0]);
    olive_set_cmdline(argc, argv);
    olive_h5_quiet();
    /* -q/--quiet anywhere: no warnings and no "written to" lines (the
     * tables and values a subcommand is asked for are its output and stay). */
    int n = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) olive_quiet = 1;
        else if (!strcmp(argv[i], "--progress")) olive_progress_forced = 1;
        else argv[n++] = argv[i];
    }
    argc = n;
    argv[argc] = NULL;
    if (argc < 2) ana_usage_error(NULL, "missing subcommand (summary, ...)");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        help();
        return ANA_EXIT_OK;
    }
    if (!strcmp(cmd, "--version")) {
        printf("olive-analyze %s\n", OLIVE_VERSION);
        return ANA_EXIT_OK;
    }
    for (int i = 0; i < NSUB; i++) {
        if (strcmp(cmd, subcommands[i].name) != 0) continue;
        if (!subcommands[i].run) ana_error("subcommand '%s' is not implemented yet in this version", cmd);
        return subcommands[i].run(argc - 1, argv + 1);
    }
    const char *names[NSUB];
    for (int i = 0; i < NSUB; i++) names[i] = subcommands[i].name;
    char hint[96];
    ana_usage_error(NULL, "unknown subcommand '%s'%s", cmd, olive_did_you_mean(hint, sizeof hint, cmd, names, NSUB));
}
