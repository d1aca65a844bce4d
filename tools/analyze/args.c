/* Option values and column output shared by the subcommands. */
#include "analyze.h"
#include "util.h"
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int parse_i64(const char *s, int64_t *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || end == s || *end || x < 0) return 0;
    *v = x;
    return 1;
}

void ana_parse_cells(const char *sub, const char *opt, const char *s, int64_t *a, int64_t *b)
{
    const char *colon = strchr(s, ':');
    char first[64];
    if (!colon) {
        if (!parse_i64(s, a) || *a == INT64_MAX) ana_usage_error(sub, "%s: '%s' is not a cell id or a range A:B", opt, s);
        *b = *a + 1;
        return;
    }
    if ((size_t)(colon - s) >= sizeof first) ana_usage_error(sub, "%s: '%s' is not a range A:B", opt, s);
    memcpy(first, s, (size_t)(colon - s));
    first[colon - s] = 0;
    if (!parse_i64(first, a) || !parse_i64(colon + 1, b))
        ana_usage_error(sub, "%s: '%s' is not a range A:B of cell ids (A < B, cells A..B-1)", opt, s);
    if (*a >= *b) ana_usage_error(sub, "%s: empty range '%s' (need A < B: cells A..B-1)", opt, s);
}

void ana_cols_header(FILE *out, int csv, int n, const int *width, const char *const *names)
{
    for (int i = 0; i < n; i++) {
        if (csv) {
            if (i) fputc(',', out);
            ana_csv_field(out, names[i]);
        } else {
            fprintf(out, "%s%*s", i ? "  " : "", width[i], names[i]);
        }
    }
    fputc('\n', out);
}

void ana_cols_row(FILE *out, int csv, int n, const int *width, ...)
{
    va_list ap;
    va_start(ap, width);
    for (int i = 0; i < n; i++) {
        const char *f = va_arg(ap, const char *);
        if (csv) {
            if (i) fputc(',', out);
            ana_csv_field(out, f);
        } else {
            fprintf(out, "%s%*s", i ? "  " : "", width[i], f[0] ? f : "-");
        }
    }
    va_end(ap);
    fputc('\n', out);
}

void ana_flush_stdout(const char *what)
{
    if (fflush(stdout) != 0 || ferror(stdout)) ana_error("writing %s to standard output failed", what);
}

void ana_check_options(const char *sub, int argc, char **argv, const struct option *longopts, const char *shortopts)
{
    olive_opt opts[64];
    char names[64][40], aliases[64][3];
    int n = 0;
    for (const struct option *l = longopts; l->name && n < 64; l++, n++) {
        snprintf(names[n], sizeof names[n], "--%s", l->name);
        opts[n] = (olive_opt){.name = names[n], .value = l->has_arg == required_argument ? OLIVE_OPT_VALUE :
                              l->has_arg == optional_argument ? OLIVE_OPT_OPTIONAL : OLIVE_OPT_FLAG};
        /* the short form getopt takes for it: "-o" for --output */
        const char *c = isalpha(l->val) ? strchr(shortopts, l->val) : NULL;
        if (c) { snprintf(aliases[n], sizeof aliases[n], "-%c", l->val); opts[n].alias = aliases[n]; }
    }
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--list-options")) olive_check_options_or_die(2, (char *[]){argv[0], argv[i], NULL}, opts, n);
    char msg[512];
    if (olive_check_options(argc, argv, opts, n, 1, msg, sizeof msg)) ana_usage_error(sub, "%s", msg);
}
