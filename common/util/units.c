/* Amplitudes with units on the command line ("50pA", "0.5nA", "6uA/cm2",
 * "2mV", "3nS"), converted to the unit a model takes. */
#include "util.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Each spelling: its kind and its power of ten against the kind's first
 * unit. Conversions scale by a power of ten that is exact as a double and
 * divide where the power is negative, so that 175pA is the double nearest
 * 0.175 nA (a product by 1e-3, itself inexact, gives 0.17500000000000002). */
static const struct {
    const char *name, *kind;
    int exp10;
} units[] = {
    {"pA", "current", 0},  {"nA", "current", 3},  {"uA", "current", 6},
    {"uA/cm2", "current density", 0}, {"uA/cm^2", "current density", 0}, {"uA/cm²", "current density", 0},
    {"mV", "voltage", 0},
    {"nS", "conductance", 0}, {"uS", "conductance", 3},
};
#define NUNITS ((int)(sizeof units / sizeof units[0]))

static int unit_index(const char *name)
{
    for (int i = 0; i < NUNITS; i++)
        if (!strcmp(units[i].name, name)) return i;
    return -1;
}

double olive_parse_with_unit(const char *opt, const char *s, const char **unit)
{
    char *end;
    errno = 0;
    if (!s || !*s) olive_usage_error("%s needs a number", opt);
    const double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v))
        olive_usage_error("%s: '%s' is not a finite number (with an optional unit, e.g. 50pA)", opt, s);
    *unit = NULL;
    if (!*end) return v;
    const int u = unit_index(end);
    if (u < 0)
        olive_usage_error("%s: '%s': unknown unit '%s' (units: pA nA uA, uA/cm2 (or uA/cm^2), mV, nS uS; "
                          "no space between number and unit)", opt, s, end);
    *unit = units[u].name;
    return v;
}

double olive_convert_unit(const char *opt, const char *s, double v, const char *from, const char *to, const char *model)
{
    if (!from || !strcmp(from, to)) return v;
    const int f = unit_index(from), t = unit_index(to);
    if (t < 0 || strcmp(units[f].kind, units[t].kind))
        olive_usage_error("%s: '%s' is a %s; model %s takes a %s in %s here%s", opt, s, units[f].kind, model,
                          t < 0 ? "value" : units[t].kind, to,
                          !strcmp(units[f].kind, "current density") && t >= 0 && !strcmp(units[t].kind, "current")
                              ? " (olive does not know the membrane area: give the current)" : "");
    const int d = units[f].exp10 - units[t].exp10;
    const double scale = pow(10, abs(d));   /* exact: 10^k for k <= 22 is a double */
    return d >= 0 ? v * scale : v / scale;
}

double olive_parse_amount(const char *opt, const char *s, const char *to, const char *model, double lo, double hi)
{
    const char *from = NULL;
    const double raw = olive_parse_with_unit(opt, s, &from);   /* before from is read: argument order is unspecified */
    const double v = olive_convert_unit(opt, s, raw, from, to, model);
    if (!isfinite(v) || v < lo || v > hi) olive_usage_error("%s: %s is out of range [%g, %g] %s", opt, s, lo, hi, to);
    return v;
}
