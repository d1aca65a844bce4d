/* A run of olive-simulate held in memory (olive_session.h's public side,
 * main.c's program side): its configuration, state, outputs and step loop. */
#ifndef OLIVE_SIM_SESSION_H
#define OLIVE_SIM_SESSION_H
#include "olive_session.h"
#include "sim.h"
#include <setjmp.h>

/* A variable's report frames kept for the caller: the rank's recorded
 * cells' values a frame (cols of them, from the local ranges r). */
typedef struct { double *v; int64_t n, cap, cols; int64_t (*r)[2]; int nr; } sim_frames;

struct olive_session {
    sim_config cfg;
    sim_t s;
    sim_output *out;
    int program;             /* olive-simulate itself: errors exit, the run is one piece */
    int argc;
    char **argv;             /* a copy: cfg keeps pointers into it */
    char outdir[4096];       /* where the outputs are written until committed */
    int64_t k0;              /* the first step (a restart's) */
    int64_t step;            /* the steps done, from 0 */
    int64_t ckpt_last;       /* checkpoint mode: the step of the last checkpoint (-1: none) */
    int64_t *taken;          /* per thread: the spikes olive_session_spikes handed out */
    int64_t next_rate;       /* the first of cfg.stim.rates not applied yet */
    double energy_j;         /* GPU energy of the runs so far (< 0: not measured) */
    double t_open;
    /* per variable: the report frames not taken yet (olive_session_frames),
     * the rank's recorded cells' values a frame (library sessions only) */
    sim_frames frames[OLIVE_NVARS];
    /* the plastic projections' synapses olive_session_weights read (made
     * once a projection: a selection walks every synapse) */
    struct sim_weight_cache *weights;
    int nweights;
    int broken;              /* an error happened: only close may follow */
    int stop_sig;            /* the signal that stopped the last run (0: none) */
};

/* session.c: open (the set-up and the outputs opened) and close (the outputs
 * written and committed, everything freed; *nspikes, ev[2]: the run's
 * spikes and events on rank 0, for the program's summary). Program mode:
 * errors exit as olive-simulate's do. */
olive_session *sim_session_open(int argc, char **argv, int program);
void sim_session_close(olive_session *x, int64_t *nspikes, int64_t ev[2]);
void sim_session_free(olive_session *x);
/* The exit hook of errors: an empty checkpoint directory removed, the other
 * ranks stopped (MPI_Abort). */
void sim_session_abort_others(int code);
/* session_data.c: what olive_session.h's readers do (errors: olive_die). */
void sim_session_keep_frame(olive_session *x);   /* after a recorded step: the frame kept for the caller */
int64_t sim_session_recorded(olive_session *x, int v, int64_t *cells, int64_t cap);
int64_t sim_session_frames(olive_session *x, int v, double *data, int64_t cap);
void sim_session_frames_free(olive_session *x);
int64_t sim_session_spikes(olive_session *x, int64_t *steps, int64_t *cells, int64_t cap);
int64_t sim_session_get(olive_session *x, const char *name, double *out, int64_t cap);
int64_t sim_session_weights(olive_session *x, const char *proj, int64_t *index, double *w, int64_t cap);
/* step_loop.c: run to step `to` (<= cfg.run.steps): the steps, the frames,
 * weights and checkpoints they owe, the checks; the signal that stopped it
 * early, or 0. */
int sim_session_run_to(olive_session *x, int64_t to);
/* SIGTERM and SIGINT noted for the step loop (program: for the whole run). */
void sim_session_catch_signals(void);
/* session_data.c: apply the stimulus file's rate changes due at step i. */
void sim_session_rates_due(olive_session *x, int64_t i);
/* The step of the next rate change after step i (INT64_MAX: none). */
int64_t sim_session_next_rate_step(const olive_session *x);

#endif
