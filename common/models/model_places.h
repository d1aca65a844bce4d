/* Where olive looks for a model plugin by name (docs/MODELS.md, "Where olive
 * finds a model"): only in places the user chose, never at a path a network
 * file, a state file or a circuit config writes.
 *
 *   1. --model-path DIR|FILE.so, in the order given (a FILE.so is one the
 *      user named: loaded as it is);
 *   2. the ':'-separated directories of OLIVE_MODEL_PATH;
 *   3. the model cache: $OLIVE_MODEL_CACHE, else $XDG_CACHE_HOME/olive/models,
 *      else ~/.cache/olive/models (olive-model build creates it 0700).
 *
 * A directory is searched for NAME.so with NAME.hash beside it: the hash file
 * says which model the library holds, so that a library of another model
 * version is passed over (and the search goes on) before it is loaded. A
 * directory or library that others than its owner (or root) can write, or
 * that another user owns, is refused: whoever can write there could choose
 * the code olive runs. A candidate that is not a regular file (a FIFO, a
 * device) is refused without being read. */
#ifndef OLIVE_MODEL_PLACES_H
#define OLIVE_MODEL_PLACES_H
#include <stddef.h>

#define OLIVE_MODEL_PLACES_MAX 64

typedef struct {
    char path[4096];
    int is_file;        /* a FILE.so the user named (--model-path, genconn's --model PATH.so) */
    const char *from;   /* "--model-path", "OLIVE_MODEL_PATH" or "the model cache" */
} olive_model_place;

/* --model-path P: a directory or a FILE.so, checked now (usage error naming P
 * and the fault). Repeatable; searched in the order given. */
/* Forget the places --model-path gave (a new session of libolive reads its own). */
void olive_model_path_reset(void);
void olive_model_path_add(const char *p);
/* The places in search order; returns their number. */
int olive_model_places(olive_model_place *out, int max);
/* NULL when dir may hold code olive loads, else why not ("writable by others"). */
const char *olive_model_dir_fault(const char *dir);
/* Opens path for reading as a plugin candidate: a regular file that only its
 * owner (the user or root) can write. Returns the fd, or -1 with *why set. */
int olive_model_open_candidate(const char *path, const char **why);
/* The hash in DIR/NAME.hash (lower-case hex), or 0 when it is missing or not a hash. */
int olive_model_read_hash(const char *dir, const char *name, char *hash, size_t n);
/* In the directory place pl: NAME.so with NAME.hash beside it (equal to hash
 * unless NULL), opened as a candidate (olive_model_open_candidate): its fd,
 * its path in so and its hash in have. -1 when the place holds none, why
 * appended to note (NULL: not kept) as "; ..." unless there is simply none.
 * The one search of a place for model plugins and mechanism libraries. */
int olive_model_place_open(const olive_model_place *pl, const char *name, const char *hash, char *so, size_t son,
                           char *have, size_t haven, char *note, size_t noten);
/* Appends a formatted note to note[n] (the places looked at, and why each did
 * not hold what was looked for; NULL: none kept). */
void olive_model_note_add(char *note, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
