#include "util.h"
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char prog_name[64] = "olive";
static char *cmdline_str;
int olive_verbose;

void olive_set_program(const char *argv0)
{
    const char *slash = strrchr(argv0, '/');
    snprintf(prog_name, sizeof prog_name, "%s", slash ? slash + 1 : argv0);
}

const char *olive_program(void) { return prog_name; }

void olive_set_cmdline(int argc, char **argv)
{
    size_t n = 1;
    for (int i = 0; i < argc; i++) n += strlen(argv[i]) + 1;
    cmdline_str = olive_malloc(n, "command line");
    cmdline_str[0] = 0;
    for (int i = 0; i < argc; i++) {
        if (i) strcat(cmdline_str, " ");
        strcat(cmdline_str, argv[i]);
    }
}

const char *olive_cmdline(void) { return cmdline_str ? cmdline_str : ""; }

/* ---- temporary outputs removed on failure ---- */
#define MAX_TMP 32
static char *tmp_paths[MAX_TMP];
static int tmp_count;

static void (*exit_hook)(int);
void olive_set_exit_hook(void (*hook)(int)) { exit_hook = hook; }

static void remove_tmp_outputs(void)
{
    for (int i = 0; i < tmp_count; i++)
        if (tmp_paths[i]) { olive_remove_tree(tmp_paths[i]); free(tmp_paths[i]); tmp_paths[i] = NULL; }
    tmp_count = 0;
}

/* After an error the program stops at once: the outputs are already
 * removed, and memory held mid-operation is not a leak (so LeakSanitizer,
 * which runs from atexit, is skipped along with the other atexit handlers). */
static void quick_exit_after_error(int code) __attribute__((noreturn));
static void quick_exit_after_error(int code)
{
    fflush(stdout);
    fflush(stderr);
    _exit(code);
}

void olive_die(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "%s: error: ", prog_name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    remove_tmp_outputs();
    if (exit_hook) exit_hook(1);
    quick_exit_after_error(1);
}

void olive_usage_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: error: ", prog_name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s --help'.\n", prog_name);
    remove_tmp_outputs();
    if (exit_hook) exit_hook(2);
    quick_exit_after_error(2);
}

void olive_warn(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: warning: ", prog_name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void olive_info(const char *fmt, ...)
{
    if (!olive_verbose) return;
    va_list ap;
    fprintf(stderr, "%s: ", prog_name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void *olive_malloc(size_t bytes, const char *what)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) olive_die("out of memory allocating %zu bytes for %s", bytes, what);
    return p;
}

void *olive_calloc(size_t n, size_t size, const char *what)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) olive_die("out of memory allocating %zu x %zu bytes for %s", n, size, what);
    return p;
}

void olive_memcpy_parallel(void *dst, const void *src, size_t bytes)
{
    const size_t piece = (size_t)1 << 18;
    const int64_t npieces = (int64_t)((bytes + piece - 1) / piece);
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < npieces; k++) {
        size_t off = (size_t)k * piece, len = bytes - off < piece ? bytes - off : piece;
        memcpy((char *)dst + off, (const char *)src + off, len);
    }
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

int olive_path_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st; (void)flag; (void)ftw;
    return remove(path);
}

void olive_remove_tree(const char *path)
{
    if (!olive_path_exists(path)) return;
    nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *olive_atomic_begin(const char *final, int force)
{
    if (!force && olive_path_exists(final))
        olive_usage_error("%s exists; use --force to overwrite it", final);
    if (tmp_count == MAX_TMP) olive_die("too many temporary outputs");
    size_t n = strlen(final) + 32;
    char *tmp = olive_malloc(n, "path");
    snprintf(tmp, n, "%s.tmp-%ld", final, (long)getpid());
    olive_remove_tree(tmp);
    tmp_paths[tmp_count++] = tmp;
    static int registered;
    if (!registered) { atexit(remove_tmp_outputs); registered = 1; }
    return tmp;
}

void olive_atomic_commit(const char *tmp)
{
    for (int i = 0; i < tmp_count; i++) {
        if (!tmp_paths[i] || strcmp(tmp_paths[i], tmp) != 0) continue;
        const char *suffix = strrchr(tmp, '.');
        size_t n = (size_t)(suffix - tmp);
        char *final = olive_malloc(n + 1, "path");
        memcpy(final, tmp, n);
        final[n] = 0;
        struct stat st;
        if (stat(final, &st) == 0 && S_ISDIR(st.st_mode)) {
            /* rename() cannot replace a non-empty directory: move it aside first. */
            char aside[4096];
            snprintf(aside, sizeof aside, "%s.old-%ld", final, (long)getpid());
            if (rename(final, aside) != 0) olive_die("cannot replace %s: %s", final, strerror(errno));
            if (rename(tmp, final) != 0) {
                rename(aside, final);
                olive_die("cannot rename %s to %s: %s", tmp, final, strerror(errno));
            }
            olive_remove_tree(aside);
        } else if (rename(tmp, final) != 0) {
            olive_die("cannot rename %s to %s: %s", tmp, final, strerror(errno));
        }
        free(final);
        free(tmp_paths[i]);
        tmp_paths[i] = tmp_paths[--tmp_count];
        return;
    }
    olive_die("internal: %s is not a registered temporary output", tmp);
}

double olive_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int progress_shown;

void olive_progress(const char *what, double fraction)
{
    static double last;
    if (!isatty(STDERR_FILENO)) return;
    double now = olive_now();
    if (progress_shown && now - last < 0.25 && fraction < 1.0) return;
    last = now;
    fprintf(stderr, "\r%s: %s %5.1f%%", prog_name, what, 100.0 * fraction);
    progress_shown = 1;
}

void olive_progress_done(void)
{
    if (progress_shown) { fputc('\n', stderr); progress_shown = 0; }
}

void olive_mpi_singleton_fast(void)
{
    if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK")) return;
    setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);   /* 0: a user's setting wins */
}
