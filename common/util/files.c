/* Files and paths: regular-file checks, trees removed, durable writes
 * (fsync of a file and its directory), the same file under two names. */
#include "util.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
void olive_sync_parent(const char *path)
{
    char dir[PATH_MAX];
    parent_dir(path, dir, sizeof dir);
    fsync_one(dir, O_DIRECTORY);
}

/* ---- paths: the same file under two names ---- */

/* path with its directory resolved (symbolic links, '.', '..'), so that two
 * spellings of one place compare equal; path itself when the directory does
 * not exist. */
void olive_canonical_path(const char *path, char *out, size_t n)
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
    olive_canonical_path(a, ca, sizeof ca);
    olive_canonical_path(b, cb, sizeof cb);
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
