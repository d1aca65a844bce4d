/* Errors, messages, argument parsing and atomic output shared by every program. */
#ifndef OLIVE_UTIL_H
#define OLIVE_UTIL_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define OLIVE_VERSION "0.1.0"

/* Set once by each program (argv[0] basename) for messages. */
void olive_set_program(const char *argv0);
const char *olive_program(void);
/* The command line as one string, for provenance. */
void olive_set_cmdline(int argc, char **argv);
const char *olive_cmdline(void);

/* Print "PROGRAM: error: ..." and exit(1); registered temporary outputs are
 * removed first so that no partial output survives. */
void olive_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Usage error: message plus a hint to --help, exit(2). */
void olive_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* The end of every program's --help: where its documentation is (doc, a
 * file of docs/), its man page, and where to ask. */
void olive_help_footer(const char *program, const char *doc);
/* Called by olive_die/olive_usage_error after cleanup, before exit (an MPI
 * program aborts the other ranks here). */
void olive_set_exit_hook(void (*hook)(int code));
/* A context ("FILE line N") the next errors' messages start with; NULL ends it. */
void olive_error_context(const char *ctx);
/* The text of the last error olive_die or olive_usage_error reported ("": none). */
const char *olive_last_error(void);
/* 0: errors are kept (olive_last_error) but not printed (a library's caller shows them). */
void olive_set_error_print(int on);
/* What olive_die and olive_usage_error call first (a signal's death wins)
 * and before exiting (temporaries removed): atomic.c sets them. */
void olive_set_error_cleanup(void (*first)(void), void (*cleanup)(void));
/* 1: an error is a refusal of a check that has changed nothing yet (libolive:
 * a session's input checked before it acts): where an exit hook is set,
 * the error keeps its text and goes to the hook, the outputs left alone. */
void olive_set_errors_soft(int on);
void olive_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Verbose messages, printed when olive_verbose is set. */
extern int olive_verbose;
/* -q: nothing but errors (no summary lines, warnings or progress). */
extern int olive_quiet;
void olive_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void *olive_malloc(size_t bytes, const char *what) __attribute__((returns_nonnull));
void *olive_calloc(size_t n, size_t size, const char *what) __attribute__((returns_nonnull));
void *olive_realloc(void *old, size_t bytes, const char *what) __attribute__((returns_nonnull));
/* A large array filled by many threads at once: 2 MB-aligned and advised
 * onto huge pages where the kernel offers them (transparent_hugepage
 * "madvise", Debian's and Ubuntu's default), so that its first touch takes
 * one page fault per 2 MB instead of per 4 kB (16 threads faulting 4 kB
 * pages serialise in the kernel). Freed by free(). */
void *olive_malloc_huge(size_t bytes, const char *what) __attribute__((returns_nonnull));
/* memcpy on every OpenMP thread (256 KiB pieces): one core's copy rate is a
 * fraction of the memory's (staging for a GPU, spreading a device's results
 * into host arrays, whose first touch it spreads too). */
void olive_memcpy_parallel(void *dst, const void *src, size_t bytes);

/* Strict number parsing: the whole string must be a number in range. The
 * option name is used in the error message. */
long long olive_parse_int(const char *opt, const char *s, long long lo, long long hi);
double olive_parse_double(const char *opt, const char *s, double lo, double hi);
/* "V" or "A:B" (A <= B). Returns 1 for a range, 0 for a single value (b = a). */
int olive_parse_range(const char *opt, const char *s, double lo, double hi, double *a, double *b);

/* Times and delays in ms as whole steps of dt (> 0), rounded to the nearest
 * step (halves away from zero, as llround): every ms -> steps conversion
 * goes through these, so that none overflows or wraps. olive_ms_to_steps
 * gives OLIVE_STEPS_OK and *steps when the steps lie in [lo, hi]; else
 * OLIVE_STEPS_NAN, _LOW or _HIGH (infinities included), *steps untouched. */
enum { OLIVE_STEPS_OK = 0, OLIVE_STEPS_NAN, OLIVE_STEPS_LOW, OLIVE_STEPS_HIGH };
int olive_ms_to_steps(double ms, double dt, int64_t lo, int64_t hi, int64_t *steps);
/* olive_die or olive_usage_error: how a conversion refuses (exit 1 or 2). */
typedef void (*olive_die_fn)(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* The steps, or die("WHAT = X ms is N steps of DT ms, outside LO..HI"): what
 * names the file, the object and the field. */
/* One rule for every number olive takes, whatever path it comes in by (the
 * command line, a network, state or stimulus file): finite, and not
 * subnormal (nonzero below DBL_MIN in size), as strtod refuses those with
 * ERANGE. NULL when v is such a number, else the fault ("is not finite",
 * "is subnormal ..."), to follow the value's name. */
const char *olive_number_fault(double v);
int64_t olive_ms_to_steps_or_die(olive_die_fn die, const char *what, double ms, double dt, int64_t lo, int64_t hi);
/* A moment (ms >= 0) that a run may never reach, as a step: one beyond the
 * int64 steps is OLIVE_STEP_NEVER (no run gets there: at most 2^40 steps);
 * NaN and negative times die as above. */
#define OLIVE_STEP_NEVER INT64_MAX
int64_t olive_ms_to_step_or_never(olive_die_fn die, const char *what, double ms, double dt);

/* Atomic output. olive_atomic_begin claims final: it refuses an existing
 * final unless force is set (and a directory in place of a file), notes what
 * is there, and creates a temporary file final.tmp-PID-N exclusively (the
 * _dir variant: a directory, and what it replaces must be an olive output
 * directory). The temporary is removed (file or directory tree) when the
 * program dies. olive_atomic_commit flushes the temporary to the disk,
 * renames it onto final and flushes the directory. It never replaces what
 * was not at final at the claim: an output that appeared meanwhile (another
 * run) or a directory that gained someone's files makes it fail instead.
 * Committing final again later (a newer checkpoint) replaces the last one. */
const char *olive_atomic_begin(const char *final, int force);
const char *olive_atomic_begin_dir(const char *final, int force);
void olive_atomic_commit(const char *tmp);
/* The other ranks of a parallel write: tmp (rank 0's temporary) is removed
 * by this rank too if it dies first (a file committed meanwhile is gone
 * from tmp anyway). */
void olive_atomic_share(const char *tmp);
/* Forget the outputs committed so far (a process that runs one session after
 * another: libolive): their paths may be written again, and the table of
 * outputs has room for the next session's. */
void olive_atomic_forget_committed(void);
/* Remove the temporaries of the outputs not committed (on an error, at
 * exit and on a signal: olive_die calls it). */
void olive_atomic_remove_tmps(void);
/* A signal handler is removing the temporaries (on another thread): die by
 * that signal now, not by the write error its removal caused. */
void olive_atomic_die_if_signalled(void);
/* A rename made durable: fsync of the directory holding path's name. */
void olive_sync_parent(const char *path);
/* path with its directory resolved (links, '.', '..') into out: two
 * spellings of one place compare equal; path itself when the directory
 * does not exist. */
void olive_canonical_path(const char *path, char *out, size_t n);
/* fsync a file, or a directory and every regular file in it; dies naming
 * the path when the disk refuses. */
void olive_sync_path(const char *path);
/* Only regular files that olive writes (*.h5 and their temporaries) are in
 * directory dir; else 0, and the first other entry's name in foreign. */
int olive_is_output_dir(const char *dir, char *foreign, size_t n);
/* a and b name one file: the same device and inode, or (where one does not
 * exist yet) the same path once their directories are resolved. */
int olive_same_path(const char *a, const char *b);
/* Usage error when two outputs (NULLs skipped) name one path, or an output
 * names an input: checked before any work, so nothing is left behind. */
void olive_check_outputs(const char *const *outputs, int nout, const char *const *inputs, int nin);
/* Remove a path recursively (file or directory); ignores a missing path. */
void olive_remove_tree(const char *path);
int olive_path_exists(const char *path);
/* Dies unless path is an existing regular file (a FIFO would block open()). */
void olive_check_regular_file(const char *path);

/* Call before MPI_Init. Run without a launcher (a singleton), Open MPI
 * starts a helper daemon, which costs 2-3 s per program; unless the user set
 * it, ask for its isolated singleton mode instead (olive never spawns
 * processes) and for the ob1 messaging layer, which starts in ~20 ms
 * instead of UCX's ~0.25 s. Launched ranks (mpirun, srun) are left alone. */
void olive_mpi_singleton_fast(void);
/* OpenMP's idle threads spin briefly, then sleep (GOMP_SPINCOUNT=10000)
 * unless the user set OMP_WAIT_POLICY or GOMP_SPINCOUNT, or one thread runs.
 * olive_omp_short_spin_env sets it (1 where it did): from a constructor that
 * runs before a statically linked libgomp starts. olive_omp_short_wait,
 * first in main: where libgomp is a shared library (it read its
 * environment before main), the process runs itself again with it set. */
int olive_omp_short_spin_env(char **argv);
void olive_omp_short_wait(char **argv);
int olive_gomp_shared(void);   /* libgomp loaded as a shared library */

/* --opt=value as --opt value, so that every program takes both forms (the
 * programs that parse by hand; getopt_long does it itself). Options in keep
 * (NULL-terminated, e.g. "--compress") take an optional value and are left
 * whole. */
void olive_split_equals(int *argc, char ***argv, const char *const *keep);

/* Amplitudes with a unit (units.c): a number and an optional unit of pA nA
 * uA (current), uA/cm2 uA/cm^2 (current density), mV, nS uS (conductance),
 * with no space between. olive_parse_with_unit gives the number and *unit
 * (NULL for a bare number); olive_convert_unit turns v in unit from (NULL:
 * already in to) into to, exactly (a power of ten, divided where it is
 * below one), and refuses a unit of another kind naming opt, the text s,
 * the model and to. olive_parse_amount does both and checks [lo, hi] in to. */
double olive_parse_with_unit(const char *opt, const char *s, const char **unit);
double olive_convert_unit(const char *opt, const char *s, double v, const char *from, const char *to, const char *model);
double olive_parse_amount(const char *opt, const char *s, const char *to, const char *model, double lo, double hi);

/* "Did you mean" (cliopts.c): the name of known[0..n) nearest to word
 * (leading dashes ignored; at most 2 edits for a long word, 1 for a short
 * one, or word a prefix of it), or NULL; olive_did_you_mean writes
 * " (did you mean 'X'?)" or "" into buf and returns buf. */
const char *olive_suggest(const char *word, const char *const *known, int n);
const char *olive_did_you_mean(char *buf, size_t n, const char *word, const char *const *known, int nknown);
/* The index of value among names[0..n) (an option's choices); else a usage
 * error "OPT: 'value' is not a, b or c" with the nearest name suggested. */
int olive_parse_choice(const char *opt, const char *value, const char *const *names, int n);

/* A program's options, one static list per program: the pre-pass checks
 * argv against it and --help prints its option lines from it
 * (olive_print_options), so the two cannot differ. value: whether the
 * option takes the next argument (or --name=V), or a value only as
 * --name=V. */
enum { OLIVE_OPT_FLAG = 0, OLIVE_OPT_VALUE = 1, OLIVE_OPT_OPTIONAL = 2 };
typedef struct {
    const char *name, *alias;   /* "--output", "-o" (alias may be NULL) */
    int value, repeatable;
    const char *arg;            /* --help's name of the value ("OUTDIR"; "[=LEVEL]" follows the name) */
    const char *help;           /* --help's text, lines split by \n; NULL: named in another option's line */
} olive_opt;
/* --help's option lines of opts[0..n), in order, the text from column col
 * (olive_print_option: one option's). */
void olive_print_options(const olive_opt *opts, int n, int col);
void olive_print_option(const olive_opt *o, int col);
/* argv[*i] read against opts (after olive_check_options_or_die and
 * olive_split_equals): its index in opts, its value in *value (the next
 * argument, which *i then passes; an optional one's after '='; NULL for a
 * flag), or -1 for an argument that is no option. */
int olive_take_option(int argc, char **argv, int *i, const olive_opt *opts, int n, const char **value);
/* "Repeatable: --a, --b; any other option given twice is refused." */
void olive_print_repeatable(const olive_opt *opts, int n);
/* The pre-pass before a program reads its options: an unknown option
 * (with "did you mean") or a non-repeatable one given twice gives 1 and a
 * message in msg; prefixes: unique prefixes of long names count (getopt_long). */
int olive_check_options(int argc, char **argv, const olive_opt *opts, int n, int prefixes, char *msg, size_t msgsz);
/* The same, as a usage error; --list-options prints the list and exits 0. */
void olive_check_options_or_die(int argc, char **argv, const olive_opt *opts, int n);
#define OLIVE_NOPTS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Wall-clock seconds (monotonic). */
double olive_now(void);

/* Progress to stderr, only when stderr is a terminal. */
/* Progress of a long phase on stderr: done, time taken, time left (and
 * extra, e.g. a rate). Redrawn on a terminal 4 times a second; where stderr
 * is not a terminal only with olive_progress_forced (--progress), a line
 * every 10 s; never with -q. olive_progress_done ends the phase. */
extern int olive_progress_forced;
void olive_progress(const char *what, double fraction);
void olive_progress_extra(const char *what, double fraction, const char *extra);
void olive_progress_done(void);

#endif
