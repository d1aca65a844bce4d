/* Wall-clock time and the progress line on stderr. */
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double olive_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int olive_progress_forced;
static int progress_shown;          /* a \r line is on the terminal */
static double progress_t0, progress_last;
static char progress_what[64];

/* "1 h 02 min", "3 min 05 s", "42 s" */
static void format_duration(char *buf, size_t n, double s)
{
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(buf, n, "%ld h %02ld min", t / 3600, t / 60 % 60);
    else if (t >= 60) snprintf(buf, n, "%ld min %02ld s", t / 60, t % 60);
    else snprintf(buf, n, "%ld s", t);
}

void olive_progress_extra(const char *what, double fraction, const char *extra)
{
    if (olive_quiet) return;
    const int tty = isatty(STDERR_FILENO);
    if (!tty && !olive_progress_forced) return;
    const double now = olive_now();
    if (strncmp(what, progress_what, sizeof progress_what - 1) != 0) {
        /* A new phase: its own clock. */
        snprintf(progress_what, sizeof progress_what, "%s", what);
        progress_t0 = now;
        progress_last = -1;
    }
    /* A terminal line is redrawn 4 times a second; a log (--progress with
     * stderr in a file, e.g. a SLURM job) gets a line every 10 s. */
    const double every = tty ? 0.25 : 10.0;
    if (progress_last >= 0 && now - progress_last < every && fraction < 1.0) return;
    if (progress_last < 0 && fraction <= 0.0 && !tty) { progress_last = now; return; }
    progress_last = now;
    const double elapsed = now - progress_t0;
    char took[32], left[48] = "";
    format_duration(took, sizeof took, elapsed);
    if (fraction > 0.0 && fraction < 1.0 && elapsed >= 1.0) {
        char d[32];
        format_duration(d, sizeof d, elapsed * (1.0 - fraction) / fraction);
        snprintf(left, sizeof left, ", %s left", d);
    }
    fprintf(stderr, "%s%s: %s %5.1f%% (%s%s%s%s)%s", tty ? "\r" : "", olive_program(), what, 100.0 * fraction, took, left,
            extra ? ", " : "", extra ? extra : "", tty ? "\033[K" : "\n");
    progress_shown = tty;
}

void olive_progress(const char *what, double fraction)
{
    olive_progress_extra(what, fraction, NULL);
}

void olive_progress_done(void)
{
    if (progress_shown) { fputc('\n', stderr); progress_shown = 0; }
    progress_what[0] = 0;
}
