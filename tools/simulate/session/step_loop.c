/* A session's step loop: the engine's steps (or chunks of steps), the
 * report frames, weights and checkpoints they owe, the checks for
 * non-finite values and signals every SIM_CHECK_STEPS steps, the rate
 * changes due. olive-simulate runs it once to --steps; a library session
 * once per olive_session_run. */
#include "sim_session.h"
#include "util.h"
#include <signal.h>
#include <stdio.h>
#include <string.h>

/* SIGTERM (SLURM's time limit, scancel) and SIGINT: noted here, acted on by
 * every rank at the same step boundary (the every-SIM_CHECK_STEPS-steps check). A second
 * signal stops at once. */
static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
    if (got_signal) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    got_signal = sig;
}

static struct sigaction before[2];   /* the caller's handlers (a library session restores them) */

void sim_session_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, &before[0]);
    sigaction(SIGINT, &sa, &before[1]);
}

static void restore_signals(void)
{
    sigaction(SIGTERM, &before[0], NULL);
    sigaction(SIGINT, &before[1], NULL);
}

/* Every value of the state is finite (all ranks agree). */
static int state_finite(sim_t *s)
{
    int bad = 0;
    for (int v = 0; v < s->cfg->run.model->nvars && !bad; v++)
        for (int64_t i = 0; i < s->plan.nlocal; i++) {
            double x = s->cfg->run.single ? (double)((float *)s->state[v])[i] : ((double *)s->state[v])[i];
            if (x - x != 0) { bad = 1; break; }
        }
    int any = 0;
    SIM_CHECK_MPI(MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    return !any;
}

/* OUTDIR/state.h5 after step steps: written as state.h5.tmp-PID, flushed,
 * renamed over the previous checkpoint; OUTDIR/spikes.h5 with the spikes so
 * far the same way just before it, so that a killed job keeps them (their
 * end_step is never below the state's step). Never a state with a
 * non-finite value: the previous checkpoint stays. */
static void write_checkpoint(olive_session *x, int64_t step)
{
    sim_t *s = &x->s;
    double t0 = olive_now();
    s->engine->fetch(s, 1);
    if (!state_finite(s)) {
        if (s->rank == 0)
            olive_warn("step %lld: the state is not finite; no checkpoint written (the last good one is kept)",
                       (long long)step);
        return;
    }
    sim_output_checkpoint_spikes(x->out, s, step);
    char final[4096], tmp[4096] = "";
    snprintf(final, sizeof final, "%s/state.h5", s->cfg->run.out_path);
    if (s->rank == 0) snprintf(tmp, sizeof tmp, "%s", olive_atomic_begin(final, 1));
    SIM_CHECK_MPI(MPI_Bcast(tmp, sizeof tmp, MPI_CHAR, 0, MPI_COMM_WORLD));
    if (s->rank != 0) olive_atomic_share(tmp);
    sim_write_state(s, tmp, step, "checkpoint");
    SIM_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (s->rank == 0) {
        olive_atomic_commit(tmp); /* flushed to the disk, and OUTDIR with it */
        x->ckpt_last = step;
        olive_info("checkpoint %s at step %lld (%.3f s)", final, (long long)step, olive_now() - t0);
    }
    s->t.io += olive_now() - t0;
}

/* A non-finite value anywhere stops every rank. Checked every SIM_CHECK_STEPS steps (one
 * small allreduce) but the first bad step and cell are reported exactly.
 * Rank 0 owns the temporary output: it reports, removes it and aborts the
 * job; the other ranks wait for that instead of aborting first. The same
 * allreduce agrees on a caught signal: returns its number, or 0. */
static int stop_if_not_finite(olive_session *x)
{
    sim_t *s = &x->s;
    int64_t mine[2] = {s->bad_step < 0 ? INT64_MAX : s->bad_step, -(int64_t)got_signal}, all[2];
    SIM_CHECK_MPI(MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD));
    int64_t first = all[0];
    if (first == INT64_MAX) return (int)-all[1];
    int64_t cell = s->bad_step == first ? s->bad_cell : INT64_MAX, cell_min;
    SIM_CHECK_MPI(MPI_Allreduce(&cell, &cell_min, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD));
    /* what became non-finite, from the rank that owns that cell */
    int owner = cell == cell_min ? s->rank : INT32_MAX, owner_min;
    SIM_CHECK_MPI(MPI_Allreduce(&owner, &owner_min, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (owner_min != INT32_MAX)
        SIM_CHECK_MPI(MPI_Bcast(s->bad_what, (int)sizeof s->bad_what, MPI_CHAR, owner_min, MPI_COMM_WORLD));
    if (s->rank == 0) {
        char kept[4200] = "";
        if (x->ckpt_last >= 0)
            snprintf(kept, sizeof kept, "; the last good checkpoint %s/state.h5 (step %lld) is kept",
                     s->cfg->run.out_path, (long long)x->ckpt_last);
        olive_die("non-finite membrane potential at step %lld (t = %g ms) in cell %lld%s%s%s; stopping%s",
                  (long long)first, (double)(first + 1) * s->cfg->run.dt, (long long)cell_min, s->bad_what[0] ? " (" : "",
                  s->bad_what, s->bad_what[0] ? ")" : "", kept);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* never returns: rank 0 aborts the job */
    olive_die("stopped with rank 0 (a non-finite value)");
}

/* Progress with the simulated time and its rate (looked at 5 times a
 * second at most: formatting every step would cost more than a small step). */
static void show_progress(int64_t done, int64_t first, int64_t end, double t0, double dt)
{
    static double last;
    const double now = olive_now();
    if (now - last < 0.2 && done < end) return;
    last = now;
    char extra[96];
    const double ms = (double)(done - first) * dt;
    snprintf(extra, sizeof extra, "t = %.1f ms, %.3g ms simulated per s", (double)done * dt,
             now > t0 ? ms / (now - t0) : 0.0);
    olive_progress_extra("simulating", (double)(done - first) / (double)(end - first), extra);
}

/* Whether the loop acts after step i (of a run to step `to`): a report
 * frame, the checks every SIM_CHECK_STEPS steps, a checkpoint, a rate
 * change due at the next step, the run's last step. */
static int step_is_looked_at(const olive_session *x, int64_t i, int64_t to, int64_t next_rate)
{
    const sim_config *cfg = &x->cfg;
    return (cfg->rec.nvars + cfg->rec.ncomp_vars > 0 && (i + 1) % cfg->rec.every == 0) || (i + 1) % SIM_CHECK_STEPS == 0 ||
           (cfg->rec.nweights && (i + 1) % cfg->rec.weights_every == 0) || i + 1 == to || i + 1 == next_rate ||
           (cfg->run.checkpoint_every && (i + 1) % cfg->run.checkpoint_every == 0);
}

/* The GPU energy of [e0, now) summed over the ranks (each GPU once), or -1
 * where some rank's GPU has no counter (collective). */
static double energy_since(sim_t *s, double e0, int owner)
{
    double e1 = s->engine->energy_j(s, &owner);
    double mine[2] = {e0 >= 0 && e1 >= e0 ? (owner ? e1 - e0 : 0) : -1, 0}, sum = 0, lo = 0;
    mine[1] = mine[0];
    SIM_CHECK_MPI(MPI_Allreduce(&mine[0], &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    SIM_CHECK_MPI(MPI_Allreduce(&mine[1], &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
    return lo < 0 ? -1 : sum;
}

int sim_session_run_to(olive_session *x, int64_t to)
{
    sim_t *s = &x->s;
    const sim_config *cfg = &x->cfg;
    if (!x->program) {   /* a library's caller's handlers stand between runs */
        got_signal = 0;
        sim_session_catch_signals();
    }
    const int64_t k0 = x->step;
    int stop_sig = 0;
    s->loop_end = to;
    int energy_owner = 0;
    const double energy0 = s->engine->energy_j(s, &energy_owner);
    const double t_loop = olive_now();
    const int64_t max_chunk = s->engine->steps ? s->engine->max_steps(s) : 1;
    for (int64_t i = k0; i < to; i++) {
        sim_session_rates_due(x, i);
        const int64_t next_rate = sim_session_next_rate_step(x);
        /* An engine that runs several steps at once gets the steps up to the
         * next one whose end is looked at: i is then the chunk's last step. */
        const int64_t i0 = i;
        while (i - i0 + 1 < max_chunk && !step_is_looked_at(x, i, to, next_rate)) i++;
        int record = (i + 1) % cfg->rec.every == 0 && cfg->rec.nvars + cfg->rec.ncomp_vars > 0;
        if (i > i0) s->engine->steps(s, i0, i - i0 + 1);
        else s->engine->step(s, i);
        x->step = i + 1;
        if (record) s->engine->fetch(s, 0);
        const int end = i + 1 == to, last = i + 1 == cfg->run.steps;
        /* Signals are acted on only at multiples of SIM_CHECK_STEPS steps: the CUDA
         * backend has collected every spike there. */
        if ((i + 1) % SIM_CHECK_STEPS == 0 || end) stop_sig = stop_if_not_finite(x);
        if (last) stop_sig = 0; /* finished anyway */
        if (record) sim_output_frame(x->out, s);
        if (record && !x->program) sim_session_keep_frame(x);
        if (cfg->rec.nweights && (i + 1) % cfg->rec.weights_every == 0) sim_output_weights(x->out, s);
        if (cfg->run.checkpoint_every && !last && !stop_sig && (i + 1) % cfg->run.checkpoint_every == 0) {
            if (s->engine->exact_nonfinite) stop_if_not_finite(x); /* the step and cell named exactly */
            write_checkpoint(x, i + 1);
        }
        if (s->rank == 0 && (x->program || olive_verbose)) show_progress(i + 1, k0, to, t_loop, cfg->run.dt);
        if (stop_sig) break;
    }
    if (s->engine->gpu) {   /* every rank alike: the allreduces are collective */
        const double e = energy_since(s, energy0, energy_owner);
        x->energy_j = x->energy_j < 0 || e < 0 ? -1 : x->energy_j + e;
        s->t.energy_j = x->energy_j;
    } else {
        s->t.energy_j = -1;
    }
    if (!x->program) restore_signals();
    x->stop_sig = stop_sig;
    return stop_sig;
}
