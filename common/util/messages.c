/* The program's name and command line, and its messages: errors that
 * stop it (removing its unfinished outputs), warnings, information. */
#include "util.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char prog_name[64] = "olive";
static char *cmdline_str;
int olive_verbose;
int olive_quiet;

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
    cmdline_str = malloc(n);   /* (not olive_malloc: memory.c stands above this file) */
    if (!cmdline_str) olive_die("out of memory keeping the command line");
    cmdline_str[0] = 0;
    for (int i = 0; i < argc; i++) {
        if (i) strcat(cmdline_str, " ");
        strcat(cmdline_str, argv[i]);
    }
}

const char *olive_cmdline(void) { return cmdline_str ? cmdline_str : ""; }

/* The temporary outputs are removed on failure: atomic.c, once it holds
 * one, hands its clean-up here (this file stays below it). */
static void (*error_first)(void), (*error_cleanup)(void);
void olive_set_error_cleanup(void (*first)(void), void (*cleanup)(void))
{
    error_first = first;
    error_cleanup = cleanup;
}

static void (*exit_hook)(int);
void olive_set_exit_hook(void (*hook)(int)) { exit_hook = hook; }
static int errors_soft;
void olive_set_errors_soft(int on) { errors_soft = on; }
/* Whether this error leaves the outputs alone (olive_set_errors_soft, with a hook to return through). */
static int soft(void) { return errors_soft && exit_hook; }

/* The last error's text, for a library caller (libolive's sessions turn an
 * error into a return value; their callers show this). */
static char last_error[8192];
const char *olive_last_error(void) { return last_error; }
static int print_errors = 1;
void olive_set_error_print(int on) { print_errors = on; }

/* Where the error arose when the message itself cannot say (a line of a
 * file of options): "CONTEXT: " before the message; NULL: nothing. */
static char error_context[4096];
void olive_error_context(const char *ctx) { snprintf(error_context, sizeof error_context, "%s", ctx ? ctx : ""); }

static void keep_error(const char *fmt, va_list ap)
{
    const size_t n = error_context[0] ? (size_t)snprintf(last_error, sizeof last_error, "%s: ", error_context) : 0;
    vsnprintf(last_error + (n < sizeof last_error ? n : 0), sizeof last_error - (n < sizeof last_error ? n : 0), fmt, ap);
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
    if (error_first && !soft()) error_first();
    fflush(stdout);
    va_start(ap, fmt);
    keep_error(fmt, ap);
    va_end(ap);
    if (print_errors && !soft()) fprintf(stderr, "%s: error: %s\n", prog_name, last_error);
    if (error_cleanup && !soft()) error_cleanup();
    if (exit_hook) exit_hook(1);
    quick_exit_after_error(1);
}

void olive_usage_error(const char *fmt, ...)
{
    va_list ap;
    if (error_first && !soft()) error_first();
    va_start(ap, fmt);
    keep_error(fmt, ap);
    va_end(ap);
    if (print_errors && !soft()) fprintf(stderr, "%s: error: %s\nTry '%s --help'.\n", prog_name, last_error, prog_name);
    if (error_cleanup && !soft()) error_cleanup();
    if (exit_hook) exit_hook(2);
    quick_exit_after_error(2);
}

/* "PROGRAM: KIND message" on stderr. */
static void message(const char *kind, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: %s", prog_name, kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void olive_warn(const char *fmt, ...)
{
    if (olive_quiet) return;
    va_list ap;
    va_start(ap, fmt);
    message("warning: ", fmt, ap);
    va_end(ap);
}

void olive_help_footer(const char *program, const char *doc)
{
    printf("\nDocumentation: %s and README.md in olive's source (after make install: PREFIX/share/doc/olive),\n"
           "man %s. Questions and bugs: olive's issue tracker (README.md, \"Getting help and citing\").\n",
           doc, program);
}

void olive_info(const char *fmt, ...)
{
    if (!olive_verbose) return;
    va_list ap;
    va_start(ap, fmt);
    message("", fmt, ap);
    va_end(ap);
}
