/* The places a model plugin may be loaded from, and the checks that make a
 * place one the user chose (model_places.h). */
#include "model_places.h"
#include "util.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static olive_model_place user[16];
static int nuser;

/* Others than the owner may not write it, and its owner is the user or root. */
static const char *owner_fault(const struct stat *st)
{
    if (st->st_mode & (S_IWGRP | S_IWOTH)) return "others than its owner can write it (chmod go-w)";
    if (st->st_uid != getuid() && st->st_uid != 0) return "another user owns it";
    return NULL;
}

const char *olive_model_dir_fault(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0) return "no such directory";
    if (!S_ISDIR(st.st_mode)) return "not a directory";
    return owner_fault(&st);
}

int olive_model_open_candidate(const char *path, const char **why)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0) { *why = errno == ENOENT ? "no such file" : "cannot be opened"; return -1; }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        *why = "not a regular file";
        return -1;
    }
    if ((*why = owner_fault(&st))) { close(fd); return -1; }
    return fd;
}

int olive_model_read_hash(const char *dir, const char *name, char *hash, size_t n)
{
    char path[PATH_MAX];
    const char *why;
    if (snprintf(path, sizeof path, "%s/%s.hash", dir, name) >= (int)sizeof path) return 0;
    int fd = olive_model_open_candidate(path, &why);
    if (fd < 0) return 0;
    char buf[256];
    ssize_t len = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (len <= 0) return 0;
    buf[len] = 0;
    size_t k = strspn(buf, "0123456789abcdef");
    if (k == 0 || k > 128 || k >= n || (buf[k] && !isspace((unsigned char)buf[k]))) return 0;
    memcpy(hash, buf, k);
    hash[k] = 0;
    return 1;
}

void olive_model_path_reset(void) { nuser = 0; }

void olive_model_path_add(const char *p)
{
    struct stat st;
    if (!p || !*p) olive_usage_error("--model-path: empty path");
    if (nuser == (int)(sizeof user / sizeof user[0])) olive_usage_error("--model-path: more than %d given", nuser);
    if (stat(p, &st) != 0) olive_usage_error("--model-path %s: no such file or directory", p);
    if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
        olive_usage_error("--model-path %s: neither a directory nor a plugin file (NAME.so)", p);
    const char *bad = S_ISDIR(st.st_mode) ? olive_model_dir_fault(p) : owner_fault(&st);
    if (bad) olive_usage_error("--model-path %s: %s, so it is not a place to load code from", p, bad);
    if (!realpath(p, user[nuser].path)) olive_usage_error("--model-path %s: cannot resolve the path", p);
    user[nuser].is_file = S_ISREG(st.st_mode);
    user[nuser++].from = "--model-path";
}

static int add(olive_model_place *out, int n, int max, const char *path, size_t len, const char *from)
{
    if (n >= max || len == 0 || len >= sizeof out[n].path) return n;
    memcpy(out[n].path, path, len);
    out[n].path[len] = 0;
    out[n].is_file = 0;
    out[n].from = from;
    return n + 1;
}

int olive_model_places(olive_model_place *out, int max)
{
    int n = 0;
    for (int i = 0; i < nuser && n < max; i++) out[n++] = user[i];
    const char *mp = getenv("OLIVE_MODEL_PATH");
    for (const char *s = mp; s && *s;) {
        const size_t len = strcspn(s, ":");
        n = add(out, n, max, s, len, "OLIVE_MODEL_PATH");
        s += len + (s[len] == ':');
    }
    const char *cache = getenv("OLIVE_MODEL_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char dir[PATH_MAX];
    int len = cache && *cache ? snprintf(dir, sizeof dir, "%s", cache)
            : xdg && *xdg     ? snprintf(dir, sizeof dir, "%s/olive/models", xdg)
            : home && *home   ? snprintf(dir, sizeof dir, "%s/.cache/olive/models", home) : 0;
    if (len > 0 && len < (int)sizeof dir) n = add(out, n, max, dir, (size_t)len, "the model cache");
    return n;
}

void olive_model_note_add(char *note, size_t n, const char *fmt, ...)
{
    if (!note) return;
    const size_t len = strlen(note);
    if (len + 1 >= n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note + len, n - len, fmt, ap);
    va_end(ap);
}

int olive_model_place_open(const olive_model_place *pl, const char *name, const char *hash, char *so, size_t son,
                           char *have, size_t haven, char *note, size_t noten)
{
    const char *bad = olive_model_dir_fault(pl->path);
    if (bad) {
        if (strcmp(bad, "no such directory")) olive_model_note_add(note, noten, "; %s (%s) is passed over: %s", pl->path, pl->from, bad);
        return -1;
    }
    if (snprintf(so, son, "%s/%s.so", pl->path, name) >= (int)son || access(so, F_OK) != 0) return -1;
    if (!olive_model_read_hash(pl->path, name, have, haven)) {
        olive_model_note_add(note, noten, "; %s (%s) has no %s.hash beside it (which model it holds is unknown)", so, pl->from, name);
        return -1;
    }
    if (hash && strcmp(have, hash)) {
        olive_model_note_add(note, noten, "; %s (%s) is of hash %s", so, pl->from, have);
        return -1;
    }
    const int fd = olive_model_open_candidate(so, &bad);
    if (fd < 0) olive_model_note_add(note, noten, "; %s (%s) is passed over: %s", so, pl->from, bad);
    return fd;
}
