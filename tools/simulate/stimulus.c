/* Injected current: --pulse options and the --stimulus pulse table. */
#include "sim.h"
#include "model_plugin.h"
#include "h5util.h"
#include "model.h"
#include "util.h"
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The limits of a pulse, the same for --pulse and a stimulus file: times
 * up to 1e12 ms (a step beyond the int64 steps is never reached); an
 * amplitude beyond 1e6 uA/cm2 is a unit mistake, not a stimulus. */
#define PULSE_MS_MAX 1e12
#define PULSE_AMP_MAX 1e6
#define PULSE_CELL_MAX (INT64_C(1) << 40)
#define PULSE_COUNT_MAX (1 << 20)

/* The model's step and the model (cli.c sets them before any pulse is read). */
static double pulse_dt = OLIVE_DT;
static const olive_cell_model *pulse_model = &olive_model_infoli;
void sim_stimulus_set_dt(double dt) { pulse_dt = dt; }
void sim_stimulus_set_model(const olive_cell_model *m) { pulse_model = m; }

const char *sim_pulse_unit(const olive_cell_model *m)
{
    /* a plugin's: its continuous input port's (NULL: none, --pulse refused) */
    const olive_model_plugin *pl = olive_plugin_of(m);
    if (pl) {
        if (!pl->current_unit)
            olive_usage_error("--pulse: model %s has no current input (the plugin declares no current_unit)", m->name);
        return pl->current_unit;
    }
    /* a pulse adds to I_e (its unit); InfOli's goes into the dendrite per area */
    const int p = olive_model_param(m, "I_e");
    return p < 0 ? "uA/cm2" : m->params[p].unit;
}
static int64_t ms_to_step(double ms) { return olive_ms_to_step_or_never(olive_usage_error, "pulse time", ms, pulse_dt); }

static void append(sim_stim_config *st, sim_pulse p)
{
    if (st->npulses >= PULSE_COUNT_MAX) olive_usage_error("more than %d pulses", PULSE_COUNT_MAX);
    /* Capacity doubles at each power of two: a file's million pulses cost
     * 20 reallocations, not a million. */
    int n = st->npulses;
    if ((n & (n - 1)) == 0) {
        st->pulses = realloc(st->pulses, (size_t)(n ? 2 * n : 1) * sizeof *st->pulses);
        if (!st->pulses) olive_die("out of memory for pulses");
    }
    st->pulses[st->npulses++] = p;
}

void sim_add_pulse_arg(sim_stim_config *st, const char *arg)
{
    char buf[256], *fields[6], *save = NULL;
    int n = 0;
    if (strlen(arg) >= sizeof buf) olive_usage_error("--pulse: '%s' is too long", arg);
    snprintf(buf, sizeof buf, "%s", arg);
    /* strtok would merge empty fields; split by hand so "1::6" is refused. */
    char *p = buf;
    fields[n++] = p;
    for (; *p; p++)
        if (*p == ':') {
            *p = 0;
            if (n == 6) olive_usage_error("--pulse: '%s' has too many fields (START:STOP:AMP[:FIRST:LAST])", arg);
            fields[n++] = p + 1;
        }
    (void)save;
    if (n != 3 && n != 5) olive_usage_error("--pulse: '%s' must be START_MS:STOP_MS:AMP[:FIRST:LAST]", arg);
    double start = olive_parse_double("--pulse START", fields[0], 0, PULSE_MS_MAX);
    double stop = olive_parse_double("--pulse STOP", fields[1], 0, PULSE_MS_MAX);
    double amp = olive_parse_amount("--pulse AMP", fields[2], sim_pulse_unit(pulse_model), pulse_model->name,
                                    -PULSE_AMP_MAX, PULSE_AMP_MAX);
    /* -v shows the amplitude as the run takes it (175pA: 0.175 nA, the nearest double) */
    olive_info("--pulse %s: AMP %.17g %s", arg, amp, sim_pulse_unit(pulse_model));
    if (stop < start) olive_usage_error("--pulse: '%s' stops (%g ms) before it starts (%g ms)", arg, stop, start);
    sim_pulse pl = {ms_to_step(start), ms_to_step(stop), amp, 0, -1};
    if (n == 5) {
        pl.first = olive_parse_int("--pulse FIRST", fields[3], 0, PULSE_CELL_MAX);
        pl.last = olive_parse_int("--pulse LAST", fields[4], 1, PULSE_CELL_MAX);
        if (pl.last <= pl.first) olive_usage_error("--pulse: '%s' has LAST <= FIRST", arg);
    }
    append(st, pl);
}

static void read_rates(sim_stim_config *st, const char *path, hid_t f);
static void read_pulses(sim_stim_config *st, const char *path, hid_t f);

void sim_read_stimulus(sim_stim_config *st, const char *path)
{
    hid_t f = olive_h5_open_read(path);
    char fmt[64] = "";
    if (!olive_h5_get_str_opt(path, f, "format", fmt, sizeof fmt) || strcmp(fmt, "olive-stimulus") != 0)
        olive_die("%s: not an olive stimulus file (root attribute format must be 'olive-stimulus')", path);
    if (olive_h5_get_i64(path, f, "/", "format_version") != 1) olive_die("%s: format_version must be 1", path);
    const int has_rates = olive_h5_exists(f, "poisson_rates");
    if (!olive_h5_exists(f, "pulses") && !has_rates) olive_die("%s: group /pulses is missing (and there is no /poisson_rates)", path);
    if (has_rates) read_rates(st, path, f);
    if (olive_h5_exists(f, "pulses")) read_pulses(st, path, f);
    H5Fclose(f);
}

/* /poisson_rates: rows (input, start_ms, rate_hz), each --poisson input
 * `input` (0: the first given) at rate_hz from the step of start_ms on;
 * kept by step, file order within a step (the last row of a step wins). */
static int by_key(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

static void read_rates(sim_stim_config *st, const char *path, hid_t f)
{
    const int64_t n = olive_h5_len1(path, f, "poisson_rates/start_ms");
    if (n > PULSE_COUNT_MAX) olive_die("%s: %lld rows in /poisson_rates; at most %d are supported", path, (long long)n, PULSE_COUNT_MAX);
    if (olive_h5_len1(path, f, "poisson_rates/input") != n || olive_h5_len1(path, f, "poisson_rates/rate_hz") != n)
        olive_die("%s: /poisson_rates/input, start_ms and rate_hz must have the same length", path);
    double *start = olive_malloc((size_t)n * 16 + 8, "stimulus"), *rate = start + n;
    int64_t *input = olive_malloc((size_t)n * 8 + 8, "stimulus");
    olive_h5_read_slab1(path, f, "poisson_rates/start_ms", H5T_NATIVE_DOUBLE, 0, n, start);
    olive_h5_read_slab1(path, f, "poisson_rates/rate_hz", H5T_NATIVE_DOUBLE, 0, n, rate);
    olive_h5_read_slab1(path, f, "poisson_rates/input", H5T_NATIVE_INT64, 0, n, input);
    st->rates = olive_malloc((size_t)n * sizeof *st->rates + 8, "stimulus");
    for (int64_t i = 0; i < n; i++) {
        if (!(start[i] >= 0 && start[i] <= PULSE_MS_MAX))
            olive_die("%s: /poisson_rates row %lld: start_ms %g: need 0 <= start_ms <= %g", path, (long long)i, start[i], PULSE_MS_MAX);
        if (!(rate[i] >= 0 && rate[i] <= 1e6))
            olive_die("%s: /poisson_rates row %lld: rate_hz %g: need 0 <= rate_hz <= 1e6", path, (long long)i, rate[i]);
        if (input[i] < 0 || input[i] > INT32_MAX)
            olive_die("%s: /poisson_rates row %lld: input %lld is not an input's number", path, (long long)i, (long long)input[i]);
        /* (file order kept within a step: the sort below is stable by position) */
        st->rates[i] = (sim_rate_change){ms_to_step(start[i]), (int)input[i], rate[i]};
    }
    /* stable: sort (step, row) pairs */
    int64_t (*key)[2] = olive_malloc((size_t)n * sizeof *key + 8, "stimulus");
    for (int64_t i = 0; i < n; i++) { key[i][0] = st->rates[i].step; key[i][1] = i; }
    qsort(key, (size_t)n, sizeof *key, by_key);
    sim_rate_change *sorted = olive_malloc((size_t)n * sizeof *sorted + 8, "stimulus");
    for (int64_t i = 0; i < n; i++) sorted[i] = st->rates[key[i][1]];
    free(st->rates);
    free(key);
    st->rates = sorted;
    st->nrates = (int)n;
    free(start);
    free(input);
}

static void read_pulses(sim_stim_config *st, const char *path, hid_t f)
{
    int64_t n = olive_h5_len1(path, f, "pulses/start_ms");
    /* Every step looks at every pulse (sim_active_pulses): a million is
     * already more than a stimulus protocol needs. */
    if (n > PULSE_COUNT_MAX)
        olive_die("%s: %lld pulses; at most %d are supported", path, (long long)n, PULSE_COUNT_MAX);
    if (olive_h5_len1(path, f, "pulses/stop_ms") != n || olive_h5_len1(path, f, "pulses/amplitude") != n)
        olive_die("%s: /pulses/start_ms, stop_ms and amplitude must have the same length", path);
    int has_first = olive_h5_exists(f, "pulses/first_cell"), has_last = olive_h5_exists(f, "pulses/last_cell");
    if ((has_first && olive_h5_len1(path, f, "pulses/first_cell") != n) ||
        (has_last && olive_h5_len1(path, f, "pulses/last_cell") != n))
        olive_die("%s: /pulses/first_cell and last_cell must have the length of start_ms", path);
    double *start = olive_malloc((size_t)n * 24 + 8, "stimulus"), *stop = start + n, *amp = stop + n;
    int64_t *first = olive_malloc((size_t)n * 16 + 8, "stimulus"), *last = first + n;
    olive_h5_read_slab1(path, f, "pulses/start_ms", H5T_NATIVE_DOUBLE, 0, n, start);
    olive_h5_read_slab1(path, f, "pulses/stop_ms", H5T_NATIVE_DOUBLE, 0, n, stop);
    olive_h5_read_slab1(path, f, "pulses/amplitude", H5T_NATIVE_DOUBLE, 0, n, amp);
    if (has_first) olive_h5_read_slab1(path, f, "pulses/first_cell", H5T_NATIVE_INT64, 0, n, first);
    if (has_last) olive_h5_read_slab1(path, f, "pulses/last_cell", H5T_NATIVE_INT64, 0, n, last);
    for (int64_t i = 0; i < n; i++) {
        if (!(start[i] >= 0 && start[i] <= PULSE_MS_MAX) || !(stop[i] >= start[i] && stop[i] <= PULSE_MS_MAX))
            olive_die("%s: pulse %lld: start_ms %g, stop_ms %g: need 0 <= start <= stop <= %g ms", path,
                      (long long)i, start[i], stop[i], PULSE_MS_MAX);
        if (!(fabs(amp[i]) <= PULSE_AMP_MAX))
            olive_die("%s: pulse %lld: amplitude %g is not a finite number in [-%g, %g] %s", path,
                      (long long)i, amp[i], PULSE_AMP_MAX, PULSE_AMP_MAX, sim_pulse_unit(pulse_model));
        sim_pulse p = {ms_to_step(start[i]), ms_to_step(stop[i]), amp[i], has_first ? first[i] : 0,
                       has_last ? last[i] : -1};
        if (p.first < 0 || p.first > PULSE_CELL_MAX || (has_last && (p.last <= p.first || p.last > PULSE_CELL_MAX)))
            olive_die("%s: pulse %lld: cells [%lld, %lld) is not a valid range", path, (long long)i,
                      (long long)p.first, (long long)p.last);
        append(st, p);
    }
    free(start);
    free(first);
}

void sim_check_pulses(const sim_stim_config *st, int64_t count)
{
    for (int i = 0; i < st->npulses; i++) {
        const sim_pulse *p = &st->pulses[i];
        if (p->first >= count || p->last > count)
            olive_usage_error("pulse %d: cells [%lld, %lld) outside the network's %lld cells", i + 1,
                              (long long)p->first, (long long)p->last, (long long)count);
    }
}

int sim_active_pulses(const sim_stim_config *st, int64_t step, sim_pulse *out)
{
    int n = 0;
    for (int i = 0; i < st->npulses; i++)
        if (st->pulses[i].step0 <= step && step < st->pulses[i].step1) out[n++] = st->pulses[i];
    return n;
}

int sim_pulses_during(const sim_stim_config *st, int64_t first, int64_t count)
{
    for (int i = 0; i < st->npulses; i++)
        if (st->pulses[i].step0 < first + count && first < st->pulses[i].step1) return 1;
    return 0;
}

/* --poisson rate=HZ,weight=W,receptor=R[,n=N][,cells=A:B|POP][,time=START:STOP]:
 * the times are turned into steps, a population into its cells, once the
 * network is known. */
void sim_add_poisson_arg(sim_spiking_config *sp, const char *arg)
{
    char buf[256];
    if (strlen(arg) >= sizeof buf) olive_usage_error("--poisson: '%s' is too long", arg);
    snprintf(buf, sizeof buf, "%s", arg);
    sim_poisson p = {0, 0, "", 1, 0, -1, 0, 0, 0, -1, "", 0, 0};
    int have_rate = 0, have_w = 0;
    char pop[64] = "";
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) olive_usage_error("--poisson %s: '%s' is not KEY=VALUE", arg, tok);
        *eq = 0;
        const char *k = tok, *v = eq + 1;
        double a, b;
        if (!strcmp(k, "rate")) { p.rate_hz = olive_parse_double("--poisson rate", v, 0, 1e6); have_rate = 1; }
        else if (!strcmp(k, "weight")) {
            /* the number and unit read here; converted once the model is known (spk_setup.c) */
            const char *unit;
            p.weight = olive_parse_with_unit("--poisson weight", v, &unit);
            if (strlen(v) >= sizeof p.weight_text) olive_usage_error("--poisson weight: '%s' is too long", v);
            snprintf(p.weight_text, sizeof p.weight_text, "%s", v);
            have_w = 1;
        }
        else if (!strcmp(k, "receptor")) snprintf(p.receptor, sizeof p.receptor, "%s", v);
        else if (!strcmp(k, "n")) p.n = olive_parse_int("--poisson n", v, 1, INT32_MAX);
        else if (!strcmp(k, "cells") && (isalpha((unsigned char)*v) || *v == '_')) {   /* a population */
            if (strlen(v) >= sizeof pop) olive_usage_error("--poisson %s: population name '%s' is too long", arg, v);
            snprintf(pop, sizeof pop, "%s", v);
        } else if (!strcmp(k, "cells")) {
            if (!olive_parse_range("--poisson cells", v, 0, 9.0e15, &a, &b) || a != floor(a) || b != floor(b) || b <= a)
                olive_usage_error("--poisson %s: cells '%s' must be A:B with integers A < B", arg, v);
            p.first = (int64_t)a;
            p.last = (int64_t)b;
        } else if (!strcmp(k, "time")) {
            if (!olive_parse_range("--poisson time", v, 0, PULSE_MS_MAX, &a, &b) || b < a)
                olive_usage_error("--poisson %s: time '%s' must be START:STOP in ms with START <= STOP", arg, v);
            p.start_ms = a;
            p.stop_ms = b;
        } else olive_usage_error("--poisson %s: unknown key '%s' (rate, weight, receptor, n, cells, time)", arg, k);
    }
    if (!have_rate || !have_w || !p.receptor[0])
        olive_usage_error("--poisson %s: needs rate=HZ, weight=W and receptor=NAME", arg);
    sp->poisson = realloc(sp->poisson, (size_t)(sp->npoisson + 1) * sizeof *sp->poisson);
    if (!sp->poisson) olive_die("out of memory for --poisson");
    sp->poisson_pop = realloc(sp->poisson_pop, (size_t)(sp->npoisson + 1) * sizeof *sp->poisson_pop);
    if (!sp->poisson_pop) olive_die("out of memory for --poisson");
    memcpy(sp->poisson_pop[sp->npoisson], pop, sizeof pop);
    sp->poisson[sp->npoisson++] = p;
}
