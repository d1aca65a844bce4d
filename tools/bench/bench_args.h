/* Comma-separated positive integers of a benchmark option (tools/bench). */
#ifndef OLIVE_BENCH_ARGS_H
#define OLIVE_BENCH_ARGS_H
#include <stdio.h>
#include <stdlib.h>

static int bench_parse_list(const char *prog, const char *s, long *out, int max)
{
    int n = 0;
    char *end;
    while (*s && n < max) {
        out[n++] = strtol(s, &end, 10);
        if (end == s || out[n - 1] <= 0) { fprintf(stderr, "%s: bad list '%s'\n", prog, s); exit(2); }
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

#endif
