/* A session's life: open (olive-simulate's set-up and its outputs opened)
 * and close (the outputs finished and committed, everything freed). main.c
 * is the program over these; olive_session.c the library's door. */
#include "sim_session.h"
#include "model.h"
#include "model_places.h"
#include "spk.h"
#include "util.h"
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The session the exit hook cleans up for (one at a time in a process). */
static olive_session *current;

/* After an error (the temporaries are removed already): stop the other
 * ranks. No MPI_Finalize: it shuts HDF5 down, which would flush and close
 * again a file whose close just failed (disk full), and crash there. */
void sim_session_abort_others(int code)
{
    int size = 1, up = 0;
    if (current && current->cfg.run.checkpoint_every && current->ckpt_last < 0 && current->s.rank == 0)
        rmdir(current->outdir); /* only when empty */
    MPI_Initialized(&up);
    if (up) MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1) MPI_Abort(MPI_COMM_WORLD, code);
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

/* Rank 0 owns the output. Normally a temporary directory OUTDIR.tmp-PID-N,
 * renamed when complete. With --checkpoint-every, OUTDIR itself (the
 * checkpoints must outlive a killed job at a known path), each file written
 * under a temporary name of its own and renamed when complete (output.c). */
static void open_outputs(olive_session *x)
{
    sim_config *cfg = &x->cfg;
    sim_t *s = &x->s;
    if (s->rank == 0) {
        if (cfg->run.checkpoint_every) {
            prepare_checkpoint_dir(cfg);
            snprintf(x->outdir, sizeof x->outdir, "%s", cfg->run.out_path);
        } else {
            snprintf(x->outdir, sizeof x->outdir, "%s", olive_atomic_begin_dir(cfg->run.out_path, cfg->run.force));
        }
    }
    SIM_CHECK_MPI(MPI_Bcast(x->outdir, sizeof x->outdir, MPI_CHAR, 0, MPI_COMM_WORLD));
    if (s->rank != 0 && !cfg->run.checkpoint_every) olive_atomic_share(x->outdir);
    const int64_t nsteps = cfg->run.steps - x->k0;
    double report_bytes = 0;
    for (int v = 0; v < cfg->run.model->nvars; v++)
        if (cfg->rec.vars[v]) report_bytes += (double)sizeof(float) * (double)sim_cellset_count(&cfg->rec.cells[v], 0, INT64_MAX);
    if (!cfg->run.open_ended && report_bytes * (double)(nsteps / cfg->rec.every) > 0x1p40)
        olive_warn("the reports will need more than 1 TiB; consider --record-every or --record-cells");
    if (x->k0 > 0 && s->rank == 0)
        olive_info("restarting from %s at step %lld (t = %g ms)", cfg->run.restart_path, (long long)x->k0,
                   (double)x->k0 * cfg->run.dt);
    const double t_io = olive_now();
    x->out = sim_output_open(s, x->outdir, cfg->run.checkpoint_every != 0);
    s->t.io += olive_now() - t_io;
}

/* The stimulus file's rate changes name inputs the run has, at rates they take. */
static void check_rates(const olive_session *x)
{
    const sim_stim_config *st = &x->cfg.stim;
    for (int i = 0; i < st->nrates; i++) {
        const int j = st->rates[i].input, n = x->s.spk ? x->cfg.spiking.npoisson : 0;
        if (j >= n)
            olive_usage_error("%s: /poisson_rates: input %d: the run has %d --poisson input(s)", st->path, j, n);
        char what[4200];
        snprintf(what, sizeof what, "%s: /poisson_rates: input %d at step %lld:", st->path, j, (long long)st->rates[i].step);
        spk_poisson_rate_check(&x->s.spk->poisson.in[j], st->rates[i].rate_hz, x->cfg.run.dt, what);
    }
}

olive_session *sim_session_open(int argc, char **argv, int program)
{
    olive_session *x = olive_calloc(1, sizeof *x, "session");
    current = x;
    x->program = program;
    x->t_open = olive_now();
    x->ckpt_last = -1;
    x->energy_j = 0;
    /* cfg keeps pointers into the arguments: the session's own copy */
    x->argc = argc;
    x->argv = olive_calloc((size_t)argc + 1, sizeof *x->argv, "arguments");
    for (int i = 0; i < argc; i++)
        if (!(x->argv[i] = strdup(argv[i]))) olive_die("out of memory keeping the arguments");
    int n = argc;
    char **args = x->argv;
    static const char *const keep[] = {"--compress", NULL};
    olive_split_equals(&n, &args, keep);
    olive_model_path_reset();   /* (a process's earlier sessions' --model-path are not this one's) */
    olive_atomic_forget_committed();   /* (nor their outputs, committed already) */
    sim_parse_args(n, args, &x->cfg, !program);
    sim_config *cfg = &x->cfg;
    const char *outs[1] = {cfg->run.out_path}, *ins[4] = {cfg->run.net_path, cfg->run.map_path, cfg->stim.path, cfg->run.restart_path};
    olive_check_outputs(outs, 1, ins, 4);
    if (program) sim_session_catch_signals();
    sim_setup(&x->s, cfg);
    check_rates(x);
    x->k0 = x->step = cfg->run.start_step;
    x->taken = olive_calloc((size_t)x->s.nthreads, sizeof *x->taken, "session");
    open_outputs(x);
    return x;
}

/* What sim_parse_args allocated. */
static void free_config(sim_config *cfg)
{
    free(cfg->stim.pulses);
    free(cfg->stim.rates);
    free(cfg->spiking.poisson);
    free(cfg->spiking.poisson_pop);
    free(cfg->run.params);
    for (int w = 0; w < cfg->rec.nweights; w++) free(cfg->rec.weights[w].proj);
    free(cfg->rec.weights);
}

void sim_session_close(olive_session *x, int64_t *nspikes_out, int64_t ev_out[2])
{
    sim_t *s = &x->s;
    sim_config *cfg = &x->cfg;
    const int64_t end = x->step;
    int64_t spikes_mine = 0;
    for (int t = 0; t < s->nthreads; t++) spikes_mine += s->tspike_n[t];
    s->engine->fetch(s, 1);   /* the final state, for state.h5 (waits for the last step) */
    s->t.total = olive_now() - x->t_open;
    /* the outputs end where the runs did (an open horizon: there) */
    if (cfg->run.open_ended) cfg->run.steps = end;
    /* (a session's runs stopped by Ctrl-C went on: what it closes is final) */
    sim_output_close(x->out, s, end, x->program && x->stop_sig ? "interrupted" : "final");
    SIM_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int64_t nspikes = 0;
    SIM_CHECK_MPI(MPI_Reduce(&spikes_mine, &nspikes, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD));
    s->t.total = olive_now() - x->t_open;
    int64_t ev_mine[2] = {s->spk ? s->spk->events : 0, s->spk ? s->spk->poisson_events : 0}, ev[2] = {0, 0};
    SIM_CHECK_MPI(MPI_Reduce(ev_mine, ev, 2, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD));
    sim_output_commit(x->out, s); /* checkpoint mode: each file, flushed (rank 0) */
    if (s->rank == 0) {
        if (!cfg->run.checkpoint_every) olive_atomic_commit(x->outdir); /* the directory, flushed */
        x->ckpt_last = end;
    }
    SIM_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* committed before any rank goes on */
    if (nspikes_out) *nspikes_out = nspikes;
    if (ev_out) { ev_out[0] = ev[0]; ev_out[1] = ev[1]; }
}

void sim_session_free(olive_session *x)
{
    sim_session_frames_free(x);
    sim_free(&x->s);
    free_config(&x->cfg);
    for (int i = 0; i < x->argc; i++) free(x->argv[i]);
    free(x->argv);
    free(x->taken);
    if (current == x) current = NULL;
    free(x);
}
