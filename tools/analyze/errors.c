/* olive-analyze's exit status: every error exits 2 (cmp-style; see
 * analyze.h). common/'s olive_die() would exit 1, which for analyze means
 * "different", so an exit hook makes it 2; ana_error() and ana_usage_error()
 * go through olive_die() too. */
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

/* Both go through olive_die(): it removes unfinished outputs and stops at
 * once (no atexit handlers, so no leak reports for memory held mid-way),
 * and the exit hook makes the status 2. */
void ana_error(const char *fmt, ...)
{
    char msg[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    olive_die("%s", msg);
}

void ana_usage_error(const char *sub, const char *fmt, ...)
{
    char msg[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    olive_die("%s\nTry '%s%s%s --help'.", msg, olive_program(), sub ? " " : "", sub ? sub : "");
}

void ana_fmt(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, n, fmt, ap);
    va_end(ap);
}
