/* Option values and column output shared by the subcommands. */
#include "analyze.h"
#include <errno.h>
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
