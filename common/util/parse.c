/* Numbers from the command line and from files: integers, reals and
 * ranges checked against their bounds, ms -> steps, --opt=value split. */
#include "util.h"
#include <errno.h>
#include <limits.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int olive_ms_to_steps(double ms, double dt, int64_t lo, int64_t hi, int64_t *steps)
{
    const double x = round(ms / dt);
    if (x != x) return OLIVE_STEPS_NAN;
    /* [-2^63, 2^63) holds every int64 and nothing beyond: the cast is defined */
    if (!(x >= -0x1p63)) return OLIVE_STEPS_LOW;
    if (!(x < 0x1p63)) return OLIVE_STEPS_HIGH;
    const int64_t v = (int64_t)x;
    if (v < lo) return OLIVE_STEPS_LOW;
    if (v > hi) return OLIVE_STEPS_HIGH;
    *steps = v;
    return OLIVE_STEPS_OK;
}

int64_t olive_ms_to_steps_or_die(olive_die_fn die, const char *what, double ms, double dt, int64_t lo, int64_t hi)
{
    int64_t v = 0;
    const int rc = olive_ms_to_steps(ms, dt, lo, hi, &v);
    if (rc == OLIVE_STEPS_NAN) die("%s = %g ms is not a number of steps of %g ms", what, ms, dt);
    if (rc != OLIVE_STEPS_OK)
        die("%s = %g ms is %.15g steps of %g ms, outside %lld..%lld", what, ms, round(ms / dt), dt, (long long)lo,
            (long long)hi);
    return v;
}

int64_t olive_ms_to_step_or_never(olive_die_fn die, const char *what, double ms, double dt)
{
    int64_t v = 0;
    if (olive_ms_to_steps(ms, dt, 0, OLIVE_STEP_NEVER, &v) == OLIVE_STEPS_HIGH) return OLIVE_STEP_NEVER;
    return olive_ms_to_steps_or_die(die, what, ms, dt, 0, OLIVE_STEP_NEVER);
}

long long olive_parse_int(const char *opt, const char *s, long long lo, long long hi)
{
    char *end;
    errno = 0;
    if (!s || !*s) olive_usage_error("%s needs an integer", opt);
    long long v = strtoll(s, &end, 10);
    if (*end || errno) olive_usage_error("%s: '%s' is not an integer", opt, s);
    if (v < lo || v > hi) olive_usage_error("%s: %s is out of range [%lld, %lld]", opt, s, lo, hi);
    return v;
}

double olive_parse_double(const char *opt, const char *s, double lo, double hi)
{
    char *end;
    errno = 0;
    if (!s || !*s) olive_usage_error("%s needs a number", opt);
    double v = strtod(s, &end);
    if (*end || errno || !isfinite(v)) olive_usage_error("%s: '%s' is not a finite number", opt, s);
    if (v < lo || v > hi) olive_usage_error("%s: %s is out of range [%g, %g]", opt, s, lo, hi);
    return v;
}

int olive_parse_range(const char *opt, const char *s, double lo, double hi, double *a, double *b)
{
    const char *colon = s ? strchr(s, ':') : NULL;
    if (!colon) { *a = *b = olive_parse_double(opt, s, lo, hi); return 0; }
    char first[128];
    size_t n = (size_t)(colon - s);
    if (n >= sizeof first) olive_usage_error("%s: '%s' is too long", opt, s);
    memcpy(first, s, n);
    first[n] = 0;
    *a = olive_parse_double(opt, first, lo, hi);
    *b = olive_parse_double(opt, colon + 1, lo, hi);
    if (*a > *b) olive_usage_error("%s: range %s is empty (A > B)", opt, s);
    return 1;
}
/* The split argument vector, held here for the program's life (reachable,
 * so leak checkers do not count it). */
static char **volatile split_argv;

void olive_split_equals(int *argc, char ***argv, const char *const *keep)
{
    int n = 0;
    for (int i = 1; i < *argc; i++) n += (*argv)[i][0] == '-' && (*argv)[i][1] == '-' && strchr((*argv)[i], '=');
    if (!n) return;
    char **out = olive_malloc((size_t)(*argc + n + 1) * sizeof *out, "arguments");
    int k = 0;
    out[k++] = (*argv)[0];
    for (int i = 1; i < *argc; i++) {
        char *a = (*argv)[i], *eq = a[0] == '-' && a[1] == '-' ? strchr(a, '=') : NULL;
        int kept = 0;
        for (const char *const *o = keep; eq && o && *o; o++)
            kept |= strlen(*o) == (size_t)(eq - a) && !strncmp(a, *o, (size_t)(eq - a));
        if (!eq || kept || !strcmp(a, "--")) { out[k++] = a; continue; }
        *eq = 0;               /* argv's strings are the program's to modify */
        out[k++] = a;
        out[k++] = eq + 1;
    }
    out[k] = NULL;
    *argc = k;
    *argv = split_argv = out;
}

const char *olive_number_fault(double v)
{
    if (!isfinite(v)) return "is not finite";
    if (v != 0 && fabs(v) < DBL_MIN) return "is subnormal (nonzero and below 2.2e-308 in size: not a number olive takes)";
    return NULL;
}
