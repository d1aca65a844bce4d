#include "util.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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
    cmdline_str = olive_malloc(n, "command line");
    cmdline_str[0] = 0;
    for (int i = 0; i < argc; i++) {
        if (i) strcat(cmdline_str, " ");
        strcat(cmdline_str, argv[i]);
    }
}

const char *olive_cmdline(void) { return cmdline_str ? cmdline_str : ""; }

/* ---- temporary outputs removed on failure (the registry is below) ---- */
static void remove_tmp_outputs(void);

static void (*exit_hook)(int);
void olive_set_exit_hook(void (*hook)(int)) { exit_hook = hook; }

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
    if (olive_quiet) return;
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

void *olive_realloc(void *old, size_t bytes, const char *what)
{
    void *p = realloc(old, bytes ? bytes : 1);
    if (!p) olive_die("out of memory allocating %zu bytes for %s", bytes, what);
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

void olive_check_regular_file(const char *path)
{
    /* Opening a FIFO blocks until a writer comes (and a device or a
     * directory is no input file either): look before opening. */
    struct stat st;
    if (stat(path, &st) != 0) olive_die("%s: cannot open: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) olive_die("%s: is a directory, not a file", path);
    if (!S_ISREG(st.st_mode))
        olive_die("%s: is not a regular file (a FIFO, socket or device); olive reads only regular files", path);
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

/* ---- durable files ---- */

static void fsync_one(const char *path, int flags)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | flags);
    if (fd < 0) olive_die("%s: cannot open to flush it to the disk: %s", path, strerror(errno));
    /* EINVAL: the file system cannot sync this kind of file; nothing to wait for. */
    if (fsync(fd) != 0 && errno != EINVAL) {
        int e = errno;
        close(fd);
        olive_die("%s: flushing to the disk failed (disk full or I/O error): %s", path, strerror(e));
    }
    close(fd);
}

void olive_sync_path(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) olive_die("%s: cannot flush it to the disk: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d) olive_die("%s: cannot read the directory: %s", path, strerror(errno));
        struct dirent *e;
        while ((e = readdir(d))) {
            char sub[PATH_MAX];
            if (snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) >= (int)sizeof sub) continue;
            struct stat es;
            if (lstat(sub, &es) == 0 && S_ISREG(es.st_mode)) fsync_one(sub, 0);
        }
        closedir(d);
        fsync_one(path, O_DIRECTORY);
    } else if (S_ISREG(st.st_mode)) {
        fsync_one(path, 0);
    }
}

/* The directory holding path ("." for a bare name) into buf. */
static void parent_dir(const char *path, char *buf, size_t n)
{
    snprintf(buf, n, "%s", path);
    char *slash = strrchr(buf, '/');
    while (slash && slash > buf && slash[1] == 0) { *slash = 0; slash = strrchr(buf, '/'); } /* trailing '/' */
    if (!slash) snprintf(buf, n, ".");
    else if (slash == buf) buf[1] = 0;
    else *slash = 0;
}

/* A rename is durable only once the directory holding the name is. */
static void sync_parent(const char *path)
{
    char dir[PATH_MAX];
    parent_dir(path, dir, sizeof dir);
    fsync_one(dir, O_DIRECTORY);
}

/* ---- paths: the same file under two names ---- */

/* path with its directory resolved (symbolic links, '.', '..'), so that two
 * spellings of one place compare equal; path itself when the directory does
 * not exist. */
static void canonical(const char *path, char *out, size_t n)
{
    char dir[PATH_MAX], real[PATH_MAX];
    parent_dir(path, dir, sizeof dir);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    int len = -1;
    if (*base && realpath(dir, real)) len = snprintf(out, n, "%s/%s", strcmp(real, "/") ? real : "", base);
    if (len < 0 || (size_t)len >= n) snprintf(out, n, "%s", path);
}

int olive_same_path(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char ca[PATH_MAX], cb[PATH_MAX];
    canonical(a, ca, sizeof ca);
    canonical(b, cb, sizeof cb);
    return strcmp(ca, cb) == 0;
}

void olive_check_outputs(const char *const *outputs, int nout, const char *const *inputs, int nin)
{
    for (int i = 0; i < nout; i++) {
        if (!outputs[i]) continue;
        for (int j = i + 1; j < nout; j++)
            if (outputs[j] && olive_same_path(outputs[i], outputs[j]))
                olive_usage_error("two outputs of this run would be written to one path: %s and %s",
                                  outputs[i], outputs[j]);
        for (int j = 0; j < nin; j++)
            if (inputs[j] && olive_same_path(outputs[i], inputs[j]))
                olive_usage_error("the output %s is the input %s itself", outputs[i], inputs[j]);
    }
}

/* ---- atomic output ----
 * Each output is written under a temporary name of its own, final.tmp-PID-N,
 * created exclusively (never someone else's file), and renamed onto final
 * when complete. What was at final when the output was claimed is remembered
 * (device and inode): only that may be replaced (with --force), and only
 * when it is still there. Anything that appears at final during the run
 * (another run's output, a user's directory) is left alone and the run
 * fails. */
typedef struct {
    char *final, *tmp;  /* tmp: NULL once committed */
    char canon[PATH_MAX];
    int is_dir;
    int had;            /* something was at final: replace exactly it */
    dev_t dev;
    ino_t ino;
} out_entry;

#define MAX_OUT 64
static out_entry outs[MAX_OUT];
static int nouts;
static unsigned tmp_seq;

/* A name in a directory olive wrote (simulate's OUTDIR): its files, or their
 * temporaries left by a killed run. */
static int olive_file_name(const char *name)
{
    size_t n = strlen(name);
    return (n > 3 && !strcmp(name + n - 3, ".h5")) || strstr(name, ".h5.tmp-") != NULL;
}

/* The first entry of directory dir that olive did not write (a directory,
 * a link, a file of another name) into buf; 0 when there is none. */
static int foreign_entry(const char *dir, char *buf, size_t n)
{
    DIR *d = opendir(dir);
    if (!d) { snprintf(buf, n, "(unreadable: %s)", strerror(errno)); return 1; }
    struct dirent *e;
    int found = 0;
    while (!found && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char sub[PATH_MAX];
        struct stat st;
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        if (!olive_file_name(e->d_name) || lstat(sub, &st) != 0 || !S_ISREG(st.st_mode)) {
            snprintf(buf, n, "%s", e->d_name);
            found = 1;
        }
    }
    closedir(d);
    return found;
}

int olive_is_output_dir(const char *dir, char *foreign, size_t n)
{
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return 0;
    char buf[256];
    if (foreign_entry(dir, buf, sizeof buf)) {
        if (foreign) snprintf(foreign, n, "%s", buf);
        return 0;
    }
    return 1;
}

/* What is at final now may be replaced: it is what was there at the claim. */
static void check_replaceable_at_start(const char *final, int is_dir, const struct stat *st)
{
    char buf[256];
    if (is_dir && !S_ISDIR(st->st_mode))
        olive_usage_error("%s exists and is not a directory; it is not replaced by an output directory", final);
    if (!is_dir && S_ISDIR(st->st_mode))
        olive_usage_error("%s is a directory; it is not replaced by an output file", final);
    if (is_dir && !olive_is_output_dir(final, buf, sizeof buf))
        olive_usage_error("%s is not an olive output directory (it holds '%s'); it is not replaced, even with --force",
                          final, buf);
}

/* SIGINT, SIGTERM, SIGHUP in a program that does not catch them itself
 * (genconn, disperse, analyze; simulate stops at a step boundary and commits
 * on its own): the temporary files go with the program, which then dies by
 * the signal as before. Only unlink() here, which a signal handler may call;
 * a temporary directory (simulate's) is left to its own handler. */
static void remove_tmp_files_and_die(int sig)
{
    for (int i = 0; i < nouts; i++)
        if (outs[i].tmp && !outs[i].is_dir) unlink(outs[i].tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void remove_tmps_on_signals(void)
{
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL) continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = remove_tmp_files_and_die;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

static const char *claim(const char *final, int force, int is_dir)
{
    char canon[PATH_MAX];
    canonical(final, canon, sizeof canon);
    out_entry *e = NULL;
    for (int i = 0; i < nouts; i++)
        if (!strcmp(outs[i].canon, canon)) e = &outs[i];
    if (e && e->tmp) olive_die("%s: internal: two outputs of this run are written to this path at once", final);
    if (e && e->is_dir != is_dir) olive_die("%s: internal: written as a file and as a directory", final);
    if (!e) {
        if (nouts == MAX_OUT) olive_die("%s: internal: too many outputs", final);
        e = &outs[nouts++];
        memset(e, 0, sizeof *e);
        e->final = strdup(final);
        if (!e->final) olive_die("out of memory");
        snprintf(e->canon, sizeof e->canon, "%s", canon);
        e->is_dir = is_dir;
        struct stat st;
        if (lstat(final, &st) == 0) {
            if (!force) olive_usage_error("%s exists; use --force to overwrite it", final);
            check_replaceable_at_start(final, is_dir, &st);
            e->had = 1;
            e->dev = st.st_dev;
            e->ino = st.st_ino;
        }
    }
    /* else: this run committed final before (a checkpoint): replace that. */
    size_t n = strlen(final) + 48;
    char *tmp = olive_malloc(n, "path");
    for (;;) {
        snprintf(tmp, n, "%s.tmp-%ld-%u", final, (long)getpid(), tmp_seq++);
        int ok = is_dir ? mkdir(tmp, 0777) == 0 : 0;
        if (!is_dir) {
            int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            if (fd >= 0) { close(fd); ok = 1; }
        }
        if (ok) break;
        if (errno != EEXIST) olive_die("%s: cannot create %s: %s", final, tmp, strerror(errno));
    }
    e->tmp = tmp;
    static int registered;
    if (!registered) { atexit(remove_tmp_outputs); remove_tmps_on_signals(); registered = 1; }
    return tmp;
}

const char *olive_atomic_begin(const char *final, int force) { return claim(final, force, 0); }
const char *olive_atomic_begin_dir(const char *final, int force) { return claim(final, force, 1); }

/* Temporaries that another rank of this run created (parallel files):
 * whichever rank dies first removes them, since MPI_Abort then stops the
 * rank that owns them before it can. */
#define MAX_SHARED 64
static char *shared_tmps[MAX_SHARED];
static int nshared;

void olive_atomic_share(const char *tmp)
{
    /* committed ones (every checkpoint adds one) are gone from their names */
    for (int i = 0; i < nshared && nshared == MAX_SHARED; i++)
        if (!olive_path_exists(shared_tmps[i])) {
            free(shared_tmps[i]);
            shared_tmps[i] = shared_tmps[--nshared];
        }
    if (nshared == MAX_SHARED) olive_die("%s: internal: too many shared temporary outputs", tmp);
    shared_tmps[nshared] = strdup(tmp);
    if (!shared_tmps[nshared]) olive_die("out of memory");
    nshared++;
}

static void remove_tmp_outputs(void)
{
    for (int i = 0; i < nouts; i++)
        if (outs[i].tmp) { olive_remove_tree(outs[i].tmp); free(outs[i].tmp); outs[i].tmp = NULL; }
    for (int i = 0; i < nshared; i++) { olive_remove_tree(shared_tmps[i]); free(shared_tmps[i]); }
    nshared = 0;
}

/* Discard this output and stop: final is not ours to replace. */
static void refuse_commit(out_entry *e, const char *why) __attribute__((noreturn));
static void refuse_commit(out_entry *e, const char *why)
{
    olive_die("%s %s; it is left as it is and this run's output is discarded", e->final, why);
}

/* Nothing was at final at the claim: take the name only if it is still free. */
static void commit_new(out_entry *e)
{
    if (renameat2(AT_FDCWD, e->tmp, AT_FDCWD, e->final, RENAME_NOREPLACE) == 0) return;
    if (errno == EEXIST) refuse_commit(e, "appeared during the run (another run, or someone else, wrote it)");
    if (errno != EINVAL && errno != ENOSYS)
        olive_die("cannot rename %s to %s: %s", e->tmp, e->final, strerror(errno));
    /* No RENAME_NOREPLACE on this file system (NFS, some FUSE): a file's
     * link() fails on an existing name just as atomically; a directory
     * cannot be linked, so it is renamed after a check (rename() itself
     * refuses a non-empty directory, so only an empty one could be lost). */
    if (!e->is_dir) {
        if (link(e->tmp, e->final) != 0) {
            if (errno == EEXIST) refuse_commit(e, "appeared during the run (another run, or someone else, wrote it)");
            olive_die("cannot link %s to %s: %s", e->tmp, e->final, strerror(errno));
        }
        if (unlink(e->tmp) != 0) olive_die("%s: cannot remove: %s", e->tmp, strerror(errno));
        return;
    }
    if (olive_path_exists(e->final)) refuse_commit(e, "appeared during the run (another run, or someone else, wrote it)");
    if (rename(e->tmp, e->final) != 0) {
        if (errno == EEXIST || errno == ENOTEMPTY || errno == ENOTDIR)
            refuse_commit(e, "appeared during the run (another run, or someone else, wrote it)");
        olive_die("cannot rename %s to %s: %s", e->tmp, e->final, strerror(errno));
    }
}

/* path (lstat) is the object claimed for replacement, and still all olive's. */
static const char *replaced_fault(const out_entry *e, const char *path, char *buf, size_t n)
{
    struct stat st;
    char name[256];
    if (lstat(path, &st) != 0) return "disappeared";
    if (st.st_dev != e->dev || st.st_ino != e->ino) return "was replaced by something else during the run";
    if (e->is_dir && !olive_is_output_dir(path, name, sizeof name)) {
        snprintf(buf, n, "now holds '%.200s', which olive did not write", name);
        return buf;
    }
    return NULL;
}

/* Something was at final at the claim (--force): swap the new output in and
 * delete the old one only if it is that same object; otherwise swap back. */
static void commit_replace(out_entry *e)
{
    char buf[512];
    const char *fault;
    if (renameat2(AT_FDCWD, e->tmp, AT_FDCWD, e->final, RENAME_EXCHANGE) == 0) {
        /* e->tmp now names the old object */
        if ((fault = replaced_fault(e, e->tmp, buf, sizeof buf))) {
            if (renameat2(AT_FDCWD, e->tmp, AT_FDCWD, e->final, RENAME_EXCHANGE) != 0) {
                char *at = e->tmp;
                e->tmp = NULL; /* not ours any more: never removed */
                olive_die("%s %s; it is now at %s (swapping back failed: %s)", e->final, fault, at,
                          strerror(errno));
            }
            refuse_commit(e, fault);
        }
        olive_remove_tree(e->tmp);
        return;
    }
    if (errno == ENOENT) { commit_new(e); return; } /* removed meanwhile: a new name */
    if (errno != EINVAL && errno != ENOSYS)
        olive_die("cannot rename %s to %s: %s", e->tmp, e->final, strerror(errno));
    /* No RENAME_EXCHANGE here: check, then replace (a file) or move aside (a directory). */
    if ((fault = replaced_fault(e, e->final, buf, sizeof buf))) refuse_commit(e, fault);
    if (!e->is_dir) {
        if (rename(e->tmp, e->final) != 0) olive_die("cannot rename %s to %s: %s", e->tmp, e->final, strerror(errno));
        return;
    }
    char aside[PATH_MAX];
    snprintf(aside, sizeof aside, "%s.old-%ld-%u", e->final, (long)getpid(), tmp_seq++);
    if (renameat2(AT_FDCWD, e->final, AT_FDCWD, aside, RENAME_NOREPLACE) != 0 &&
        (errno != EINVAL || olive_path_exists(aside) || rename(e->final, aside) != 0))
        olive_die("cannot replace %s: %s", e->final, strerror(errno));
    if (rename(e->tmp, e->final) != 0) {
        int err = errno;
        if (rename(aside, e->final) != 0) olive_die("cannot rename %s to %s (%s); the old output is at %s", e->tmp,
                                                  e->final, strerror(err), aside);
        olive_die("cannot rename %s to %s: %s", e->tmp, e->final, strerror(err));
    }
    olive_remove_tree(aside);
}

void olive_atomic_commit(const char *tmp)
{
    out_entry *e = NULL;
    for (int i = 0; i < nouts; i++)
        if (outs[i].tmp && !strcmp(outs[i].tmp, tmp)) e = &outs[i];
    if (!e) olive_die("internal: %s is not a registered temporary output", tmp);
    olive_sync_path(e->tmp);
    if (e->had) commit_replace(e);
    else commit_new(e);
    free(e->tmp);
    e->tmp = NULL;
    sync_parent(e->final);
    /* final is this run's now: a later output of the same name (the next
     * checkpoint) replaces exactly it. */
    struct stat st;
    if (lstat(e->final, &st) != 0) olive_die("%s: gone right after the rename: %s", e->final, strerror(errno));
    e->had = 1;
    e->dev = st.st_dev;
    e->ino = st.st_ino;
}

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
    fprintf(stderr, "%s%s: %s %5.1f%% (%s%s%s%s)%s", tty ? "\r" : "", prog_name, what, 100.0 * fraction, took, left,
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

void olive_mpi_singleton_fast(void)
{
    if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK")) return;
    setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);   /* 0: a user's setting wins */
    /* A lone process talks to nobody: the ob1 messaging layer (self and
     * shared-memory transports) starts in ~20 ms, where probing UCX for
     * network devices costs ~0.25 s on every start (measured with a bare
     * MPI_Init on Debian 12's Open MPI 4.1). Pipelines and parameter sweeps
     * start olive thousands of times. */
    setenv("OMPI_MCA_pml", "ob1", 0);
    setenv("OMPI_MCA_osc", "^ucx", 0);
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
