/* Atomic outputs: each written under a temporary name and renamed onto its
 * final name when complete; temporaries removed on failure and on signals. */
#include "util.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
static volatile sig_atomic_t dying_by;   /* the signal being handled, 0: none */

static void remove_tmp_files_and_die(int sig)
{
    dying_by = sig;
    for (int i = 0; i < nouts; i++)
        if (outs[i].tmp && !outs[i].is_dir) unlink(outs[i].tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* The handler may run on another thread (an MPI or OpenMP one) while this
 * one still writes: its removal then fails this thread's write, whose error
 * must not win the race to exit with 1 -- the program dies by the signal. */
void olive_atomic_die_if_signalled(void)
{
    const int sig = dying_by;
    if (sig) {
        signal(sig, SIG_DFL);
        raise(sig);
        for (;;) pause();
    }
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

void olive_atomic_forget_committed(void)
{
    int k = 0;
    for (int i = 0; i < nouts; i++) {
        if (outs[i].tmp) outs[k++] = outs[i];
        else free(outs[i].final);
    }
    nouts = k;
}

static const char *claim(const char *final, int force, int is_dir)
{
    char canon[PATH_MAX];
    olive_canonical_path(final, canon, sizeof canon);
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
    /* The removal on signals is in place before the file exists, and the
     * signals wait while it is created and recorded: one arriving between the
     * creation and the record left the file behind. */
    static int registered;
    if (!registered) {
        atexit(olive_atomic_remove_tmps);
        remove_tmps_on_signals();
        olive_set_error_cleanup(olive_atomic_die_if_signalled, olive_atomic_remove_tmps);
        registered = 1;
    }
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    sigprocmask(SIG_BLOCK, &stop, &old);
    for (;;) {
/* GCC with -fsanitize=undefined warns of a null destination here though
 * olive_malloc never returns NULL (it dies first). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-truncation"
        snprintf(tmp, n, "%s.tmp-%ld-%u", final, (long)getpid(), tmp_seq++);
#pragma GCC diagnostic pop
        /* Recorded before it exists: this thread blocks the signals, but
         * another one (OpenMP's workers, started earlier) may take one while
         * the file is being created, and its handler must find the name (a
         * name not created yet fails to unlink harmlessly). Seen in CI: a
         * SIGTERM then left sig-genconn.h5.tmp-PID-0 behind. */
        e->tmp = tmp;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        int ok = is_dir ? mkdir(tmp, 0777) == 0 : 0;
        if (!is_dir) {
            int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            if (fd >= 0) { close(fd); ok = 1; }
        }
        if (ok) break;
        const int err = errno;
        e->tmp = NULL;
        if (err != EEXIST) olive_die("%s: cannot create %s: %s", final, tmp, strerror(err));
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
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
    olive_set_error_cleanup(olive_atomic_die_if_signalled, olive_atomic_remove_tmps);
    shared_tmps[nshared] = strdup(tmp);
    if (!shared_tmps[nshared]) olive_die("out of memory");
    nshared++;
}

void olive_atomic_remove_tmps(void)
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
    olive_sync_parent(e->final);
    /* final is this run's now: a later output of the same name (the next
     * checkpoint) replaces exactly it. */
    struct stat st;
    if (lstat(e->final, &st) != 0) olive_die("%s: gone right after the rename: %s", e->final, strerror(errno));
    e->had = 1;
    e->dev = st.st_dev;
    e->ino = st.st_ino;
}
