/* olive-simulate: a network of one model family (engine.c's table: InfOli, spiking,
 * cable cells) over MPI ranks and OpenMP threads. */
#include "sim.h"
#include "spk.h"
#include "h5util.h"
#include "model.h"
#include "util.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int world_size = 1;
/* Checkpoint mode: OUTDIR itself (rank 0 removes it on failure when nothing
 * is in it), and the step of the last checkpoint written (-1: none). */
static const char *ckpt_dir;
static int64_t ckpt_last = -1;

/* After an error (the temporaries are removed already): stop the other
 * ranks. No MPI_Finalize: it shuts HDF5 down, which would flush and close
 * again a file whose close just failed (disk full), and crash there. */
static void abort_others(int code)
{
    if (ckpt_dir && ckpt_last < 0) rmdir(ckpt_dir); /* only when empty */
    if (world_size > 1) MPI_Abort(MPI_COMM_WORLD, code);
}

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

static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
}

/* Checkpoint mode: OUTDIR exists from the start. A new one is created
 * (exclusively: a second run to it fails here); an existing one (--force)
 * must be an olive output directory, and is emptied except for the
 * --restart file, which a newer checkpoint replaces only atomically. */
static void prepare_checkpoint_dir(const sim_config *cfg)
{
    const char *dir = cfg->run.out_path;
    if (mkdir(dir, 0777) == 0) return;
    if (errno != EEXIST) olive_die("%s: cannot create the output directory: %s", dir, strerror(errno));
    if (!cfg->run.force) olive_usage_error("%s exists; use --force to overwrite it", dir);
    char foreign[256];
    if (!olive_is_output_dir(dir, foreign, sizeof foreign))
        olive_usage_error("%s is not an olive output directory (it holds '%s'); it is not emptied, even with --force",
                          dir, foreign);
    char keep[PATH_MAX] = "";
    if (cfg->run.restart_path && !realpath(cfg->run.restart_path, keep)) keep[0] = 0;
    DIR *d = opendir(dir);
    if (!d) olive_die("%s: cannot read the directory", dir);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char path[PATH_MAX + 256], real[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (keep[0] && realpath(path, real) && !strcmp(real, keep)) continue;
        struct stat st;
        /* only olive's files: anything put here since the check above stays */
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && strstr(e->d_name, ".h5") && unlink(path) != 0)
            olive_die("%s: cannot remove: %s", path, strerror(errno));
    }
    closedir(d);
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
static void write_checkpoint(sim_t *s, sim_output *out, int64_t step)
{
    double t0 = olive_now();
    s->engine->fetch(s, 1);
    if (!state_finite(s)) {
        if (s->rank == 0)
            olive_warn("step %lld: the state is not finite; no checkpoint written (the last good one is kept)",
                       (long long)step);
        return;
    }
    sim_output_checkpoint_spikes(out, s, step);
    char final[4096], tmp[4096] = "";
    snprintf(final, sizeof final, "%s/state.h5", s->cfg->run.out_path);
    if (s->rank == 0) snprintf(tmp, sizeof tmp, "%s", olive_atomic_begin(final, 1));
    SIM_CHECK_MPI(MPI_Bcast(tmp, sizeof tmp, MPI_CHAR, 0, MPI_COMM_WORLD));
    if (s->rank != 0) olive_atomic_share(tmp);
    sim_write_state(s, tmp, step, "checkpoint");
    SIM_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (s->rank == 0) {
        olive_atomic_commit(tmp); /* flushed to the disk, and OUTDIR with it */
        ckpt_last = step;
        olive_info("checkpoint %s at step %lld (%.3f s)", final, (long long)step, olive_now() - t0);
    }
    s->t.io += olive_now() - t0;
}

/* A non-finite value anywhere stops every rank. Checked every SIM_CHECK_STEPS steps (one
 * small allreduce) but the first bad step and cell are reported exactly.
 * Rank 0 owns the temporary output: it reports, removes it and aborts the
 * job; the other ranks wait for that instead of aborting first. The same
 * allreduce agrees on a caught signal: returns its number, or 0. */
static int stop_if_not_finite(sim_t *s)
{
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
        if (ckpt_last >= 0)
            snprintf(kept, sizeof kept, "; the last good checkpoint %s/state.h5 (step %lld) is kept",
                     s->cfg->run.out_path, (long long)ckpt_last);
        olive_die("non-finite membrane potential at step %lld (t = %g ms) in cell %lld%s%s%s; stopping%s",
                  (long long)first, (double)(first + 1) * s->cfg->run.dt, (long long)cell_min, s->bad_what[0] ? " (" : "",
                  s->bad_what, s->bad_what[0] ? ")" : "", kept);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* never returns: rank 0 aborts the job */
    exit(1);
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

/* Whether the loop below acts after step i: a report frame, the checks
 * every SIM_CHECK_STEPS steps, a checkpoint, the last step. */
static int step_is_looked_at(const sim_config *cfg, int64_t i)
{
    return (cfg->rec.nvars + cfg->rec.ncomp_vars > 0 && (i + 1) % cfg->rec.every == 0) || (i + 1) % SIM_CHECK_STEPS == 0 ||
           (cfg->rec.nweights && (i + 1) % cfg->rec.weights_every == 0) ||
           i + 1 == cfg->run.steps || (cfg->run.checkpoint_every && (i + 1) % cfg->run.checkpoint_every == 0);
}

/* The step loop from step k0: each engine step (or chunk of steps), the
 * frames, weights and checkpoints it owes, the checks every SIM_CHECK_STEPS
 * steps; *end: the step it stopped after. The signal that stopped it, or 0. */
static int run_steps(sim_t *s, sim_output *out, int64_t k0, int64_t *end_out)
{
    const sim_config *cfg = s->cfg;
    int64_t end = cfg->run.steps;
    int stop_sig = 0;
    s->t.energy_j = -1;
    int energy_owner = 0;
    const double energy0 = s->engine->energy_j(s, &energy_owner);
    const double t_loop = olive_now();
    const int64_t max_chunk = s->engine->steps ? s->engine->max_steps(s) : 1;
    for (int64_t i = k0; i < cfg->run.steps; i++) {
        /* An engine that runs several steps at once gets the steps up to the
         * next one whose end is looked at: i is then the chunk's last step. */
        const int64_t i0 = i;
        while (i - i0 + 1 < max_chunk && !step_is_looked_at(cfg, i)) i++;
        int record = (i + 1) % cfg->rec.every == 0 && cfg->rec.nvars + cfg->rec.ncomp_vars > 0;
        if (i > i0) s->engine->steps(s, i0, i - i0 + 1);
        else s->engine->step(s, i);
        if (record) s->engine->fetch(s, 0);
        int last = i + 1 == cfg->run.steps;
        /* Signals are acted on only at multiples of SIM_CHECK_STEPS steps: the CUDA
         * backend has collected every spike there. */
        if ((i + 1) % SIM_CHECK_STEPS == 0 || last) stop_sig = stop_if_not_finite(s);
        if (last) stop_sig = 0; /* finished anyway */
        if (record) sim_output_frame(out, s);
        if (cfg->rec.nweights && (i + 1) % cfg->rec.weights_every == 0) sim_output_weights(out, s);
        if (cfg->run.checkpoint_every && !last && !stop_sig && (i + 1) % cfg->run.checkpoint_every == 0) {
            if (s->engine->exact_nonfinite) stop_if_not_finite(s); /* the step and cell named exactly */
            write_checkpoint(s, out, i + 1);
        }
        if (s->rank == 0) show_progress(i + 1, k0, cfg->run.steps, t_loop, cfg->run.dt);
        if (stop_sig) { end = i + 1; break; }
    }
    s->engine->fetch(s, 1); /* the final state, for state.h5 (waits for the last step) */
    if (s->engine->gpu) {   /* every rank alike: the allreduces below are collective */
        double e1 = s->engine->energy_j(s, &energy_owner);
        /* Every rank's GPU must have a counter; each GPU counted once. */
        double mine[2] = {energy0 >= 0 && e1 >= energy0 ? (energy_owner ? e1 - energy0 : 0) : -1, 0}, sum = 0, lo = 0;
        mine[1] = mine[0];
        SIM_CHECK_MPI(MPI_Allreduce(&mine[0], &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        SIM_CHECK_MPI(MPI_Allreduce(&mine[1], &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
        s->t.energy_j = lo < 0 ? -1 : sum;
    }
    *end_out = end;
    return stop_sig;
}

/* Rank 0: what the run did (cells, steps, spikes, events, speed; -v the
 * phases' timings) and, stopped by a signal, how to continue it. */
static void report_run(const sim_t *s, int64_t k0, int64_t end, int64_t nspikes, const int64_t ev[2], int stop_sig)
{
    double cs = (double)s->net.count * (double)(end - k0);
    char how[64];
    if (s->engine->gpu) snprintf(how, sizeof how, "%d rank(s) x 1 GPU (%s)", s->size, s->engine->name);
    else snprintf(how, sizeof how, "%d rank(s) x %d thread(s)", s->size, s->nthreads);
    if (!olive_quiet) printf("olive-simulate: %lld cells x %lld steps (%g ms%s), %lld spikes, %s, "
           "%.3f s total, %.3g cell-steps/s in the step loop\n",
           (long long)s->net.count, (long long)(end - k0), (double)(end - k0) * s->cfg->run.dt,
           k0 > 0 ? ", continued from a state file" : "", (long long)nspikes,
           how, s->t.total, cs / (s->t.compute + s->t.exchange > 0 ? s->t.compute + s->t.exchange : 1e-9));
    if (s->spk && !olive_quiet)
        printf("olive-simulate: %lld synaptic events (%.3g per s in the step loop), %lld Poisson input events\n",
               (long long)ev[0], (double)ev[0] / (s->t.compute + s->t.exchange > 0 ? s->t.compute + s->t.exchange : 1e-9),
               (long long)ev[1]);
    if (s->t.energy_j >= 0 && !olive_quiet)
        printf("olive-simulate: GPU energy of the step loop %.1f J, %.3g J per cell-step\n", s->t.energy_j,
               s->t.energy_j / cs);
    olive_info("timings (slowest rank): dispersal %.3f s (from the map), "
               "setup %.3f s, exchange %.3f s (MPI %.3f s), compute %.3f s, io %.3f s, total %.3f s",
               s->t.dispersal, s->t.setup, s->t.exchange, s->t.mpi, s->t.compute, s->t.io, s->t.total);
    if (stop_sig) {
        fflush(stdout);
        fprintf(stderr, "%s: stopped by %s after step %lld of %lld (t = %g ms); %s holds the run so far and its "
                "state: continue with --restart %s/state.h5 (same --steps/--time)\n", olive_program(),
                stop_sig == SIGTERM ? "SIGTERM" : stop_sig == SIGINT ? "SIGINT" : "a signal", (long long)end,
                (long long)s->cfg->run.steps, (double)end * s->cfg->run.dt, s->cfg->run.out_path, s->cfg->run.out_path);
    }
}

/* What sim_parse_args allocated. */
static void free_config(sim_config *cfg)
{
    free(cfg->stim.pulses);
    free(cfg->spiking.poisson);
    free(cfg->spiking.poisson_pop);
    free(cfg->run.params);
    for (int w = 0; w < cfg->rec.nweights; w++) free(cfg->rec.weights[w].proj);
    free(cfg->rec.weights);
}

int main(int argc, char **argv)
{
    olive_omp_passive_wait(argv);
    double t_start = olive_now();
    olive_set_program(argv[0]);
    olive_set_cmdline(argc, argv);
    int provided;
    olive_mpi_singleton_fast();
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "olive-simulate: error: MPI_Init failed\n");
        return 1;
    }
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    olive_set_exit_hook(abort_others);
    olive_h5_quiet();
    sim_config cfg;
    static const char *const keep[] = {"--compress", NULL};
    olive_split_equals(&argc, &argv, keep);
    sim_parse_args(argc, argv, &cfg);
    const char *outs[1] = {cfg.run.out_path}, *ins[4] = {cfg.run.net_path, cfg.run.map_path, cfg.stim.path, cfg.run.restart_path};
    olive_check_outputs(outs, 1, ins, 4);
    catch_signals();
    sim_t s;
    sim_setup(&s, &cfg);

    /* Rank 0 owns the output. Normally a temporary directory
     * OUTDIR.tmp-PID-N, renamed when complete. With --checkpoint-every,
     * OUTDIR itself (the checkpoints must outlive a killed job at a known
     * path), each file written under a temporary name of its own and
     * renamed when complete (output.c). */
    char tmp[4096] = "";
    if (s.rank == 0) {
        if (cfg.run.checkpoint_every) {
            prepare_checkpoint_dir(&cfg);
            ckpt_dir = cfg.run.out_path;
            snprintf(tmp, sizeof tmp, "%s", cfg.run.out_path);
        } else {
            snprintf(tmp, sizeof tmp, "%s", olive_atomic_begin_dir(cfg.run.out_path, cfg.run.force));
        }
    }
    SIM_CHECK_MPI(MPI_Bcast(tmp, sizeof tmp, MPI_CHAR, 0, MPI_COMM_WORLD));
    if (s.rank != 0 && !cfg.run.checkpoint_every) olive_atomic_share(tmp);
    int64_t k0 = cfg.run.start_step, nsteps = cfg.run.steps - k0;
    double report_bytes = 0;
    for (int v = 0; v < cfg.run.model->nvars; v++)
        if (cfg.rec.vars[v]) report_bytes += (double)sizeof(float) * (double)sim_cellset_count(&cfg.rec.cells[v], 0, INT64_MAX);
    if (report_bytes * (double)(nsteps / cfg.rec.every) > 0x1p40)
        olive_warn("the reports will need more than 1 TiB; consider --record-every or --record-cells");
    if (k0 > 0 && s.rank == 0)
        olive_info("restarting from %s at step %lld (t = %g ms)", cfg.run.restart_path, (long long)k0, (double)k0 * cfg.run.dt);
    double t_io = olive_now();
    sim_output *out = sim_output_open(&s, tmp, cfg.run.checkpoint_every != 0);
    s.t.io += olive_now() - t_io;

    int64_t spikes_before = 0, end = cfg.run.steps;
    const int stop_sig = run_steps(&s, out, k0, &end);
    if (s.rank == 0) olive_progress_done();
    for (int t = 0; t < s.nthreads; t++) spikes_before += s.tspike_n[t];
    s.t.total = olive_now() - t_start;
    sim_output_close(out, &s, end, stop_sig ? "interrupted" : "final");
    SIM_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int64_t nspikes = 0;
    SIM_CHECK_MPI(MPI_Reduce(&spikes_before, &nspikes, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD));
    s.t.total = olive_now() - t_start;
    int64_t ev_mine[2] = {s.spk ? s.spk->events : 0, s.spk ? s.spk->poisson_events : 0}, ev[2] = {0, 0};
    SIM_CHECK_MPI(MPI_Reduce(ev_mine, ev, 2, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD));
    if (s.rank == 0) {
        sim_output_commit(out, &s); /* checkpoint mode: each file, flushed */
        if (!cfg.run.checkpoint_every) olive_atomic_commit(tmp); /* the directory, flushed */
        ckpt_last = end;
        report_run(&s, k0, end, nspikes, ev, stop_sig);
    } else {
        sim_output_commit(out, &s);
    }
    SIM_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* committed before any rank exits */
    sim_free(&s);
    free_config(&cfg);
    MPI_Finalize();
    /* Stopped by a signal: the status of a job killed by it (143 for
     * SIGTERM, 130 for SIGINT), so that scripts see the run is not done. */
    return stop_sig ? 128 + stop_sig : 0;
}
