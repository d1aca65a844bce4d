/* olive-analyze's exit status: every error exits 2 (cmp-style; see
 * analyze.h). ana_error() exits 2 itself; common/'s olive_die() would exit 1,
 * which for analyze means "different", so an exit hook makes it 2 as well. */
#include "analyze.h"
#include "util.h"
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

static void exit_hook(int code)
{
    (void)code;
    fflush(NULL);
    _exit(ANA_EXIT_ERROR);
}

void ana_errors_init(void) { olive_set_exit_hook(exit_hook); }

void ana_error(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "%s: error: ", olive_program());
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(ANA_EXIT_ERROR);
}

void ana_usage_error(const char *sub, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "%s: error: ", olive_program());
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s%s%s --help'.\n", olive_program(), sub ? " " : "", sub ? sub : "");
    exit(ANA_EXIT_ERROR);
}

void ana_fmt(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, n, fmt, ap);
    va_end(ap);
}
