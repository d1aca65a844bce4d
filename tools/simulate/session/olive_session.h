/* libolive: an olive simulation held in memory, run in pieces.
 *
 * A session is olive-simulate's run kept alive: it is opened with
 * olive-simulate's own command line (the network file, -o OUTDIR and any
 * option of `olive-simulate --help`; --steps/--time optional, then the
 * horizon is open), run for any number of steps at a time, read and changed
 * between runs, and closed, which writes OUTDIR as olive-simulate would have
 * for the steps run (spikes.h5, state.h5, the reports). The same options
 * and the same sequence of runs and changes give the same bits as
 * olive-simulate run with those options and the changes as a stimulus file
 * (docs/PYTHON.md "Simulation"), on every engine (CPU threads, CUDA) and
 * rank count.
 *
 * Errors: a function that fails returns a negative value (or NULL) and
 * olive_session_error() says why, in olive-simulate's words; the session is
 * then broken, and only olive_session_close may follow (it frees nothing a
 * failed call may have left half made). On several MPI ranks an error stops
 * the job, as olive-simulate's do. Under MPI every rank makes the same calls
 * in the same order (they are collective), each reading its own cells. */
#ifndef OLIVE_SESSION_H
#define OLIVE_SESSION_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct olive_session olive_session;

/* The version of this interface (a change of any signature raises it). */
#define OLIVE_SESSION_API 2
int olive_session_api(void);

/* argv as olive-simulate's (argv[0]: the name messages start with). MPI is
 * initialised here where the caller has not (and finalised at exit). NULL
 * on error (olive_session_error()). */
olive_session *olive_session_open(int argc, const char *const *argv);
/* Run steps more steps (at most to --steps/--time where given). 0: done;
 * SIGINT or SIGTERM's number: a signal (Ctrl-C) stopped it at a step
 * boundary (every 256 steps at most), the session usable; < 0: an error. */
int olive_session_run(olive_session *s, int64_t steps);
/* The steps run so far (from 0: a --restart's state's step included), the
 * step in ms, and the horizon (--steps, or 2^40 where open). */
int64_t olive_session_step(const olive_session *s);
double olive_session_dt(const olive_session *s);
int64_t olive_session_horizon(const olive_session *s);
/* This rank's cells: global ids [*first, *first + *count). */
void olive_session_cells(const olive_session *s, int64_t *first, int64_t *count);
/* The spikes of this rank's cells found since the last call (in time order,
 * then by cell): their number; with buffers (NULL: count only, nothing
 * taken) the steps (a spike in step i is at (i + 1) dt) and cells. */
int64_t olive_session_spikes(olive_session *s, int64_t *steps, int64_t *cells, int64_t cap);
/* Variable `name` of the model (V_m, g_ex, ...) of this rank's cells, now,
 * into out[count]: returns count, or < 0. */
int64_t olive_session_get(olive_session *s, const char *name, double *out, int64_t cap);
/* --record's variable `name`: this rank's recorded cells (global ids, into
 * cells; NULL: count only): their number (0: not recorded), or < 0. */
int64_t olive_session_recorded(olive_session *s, const char *name, int64_t *cells, int64_t cap);
/* Its report frames (one every --record-every steps, as the report file's)
 * since the last call, each a row of the recorded cells' values, into data
 * (frames x cells; NULL: count only, nothing taken): their number, or < 0. */
int64_t olive_session_frames(olive_session *s, const char *name, double *data, int64_t cap);
/* The weights now of this rank's synapses of plastic projection `proj`
 * into w, and their indices in the projection into index (each NULL
 * allowed: the indices stay the same from call to call, the order being
 * the engine's memory order): their number (both NULL: count only), or < 0.
 * Equal on the CPU and the GPU at the end of an exchange window (a multiple
 * of the least delay). */
int64_t olive_session_weights(olive_session *s, const char *proj, int64_t *index, double *w, int64_t cap);
/* --poisson input `input` (0: the first given) at rate_hz from the next
 * step on (as a stimulus file's /poisson_rates row at this step's time). */
int olive_session_set_poisson_rate(olive_session *s, int input, double rate_hz);
/* A cell parameter from the next step on: SPEC as olive-simulate's --param
 * ("POP.NAME=VALUE", "NAME=VALUE@POP", "NAME=VALUE"). Spiking point-model
 * populations whose parameters are one set for the population (not per
 * cell, not a spike source); an initial value (v0) changes nothing once the
 * run has begun. 0, or -1 with olive_session_error() saying why, the
 * session unchanged and going on (a malformed SPEC too, on one rank; on
 * several it stops the job as other errors do). The outputs'
 * param_overrides note "SPEC from step N". */
int olive_session_set_param(olive_session *s, const char *spec);
/* Write OUTDIR and free the session: 0, or < 0 (the outputs are then not
 * there). Every session is closed, a broken one too (then nothing is
 * written). */
int olive_session_close(olive_session *s);
/* Why the last call failed ("": it did not). */
const char *olive_session_error(void);

#ifdef __cplusplus
}
#endif
#endif
