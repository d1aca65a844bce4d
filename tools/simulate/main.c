/* olive-simulate: a network of one model family (engine.c's table: InfOli,
 * spiking, cable cells) over MPI ranks and OpenMP threads. The program is
 * one session (session/) run to its end; libolive runs the same in pieces. */
#include "sim_session.h"
#include "spk.h"
#include "h5util.h"
#include "util.h"
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>


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

/* Before libgomp starts, where it is linked in statically (the Makefile
 * does so for this program where the compiler has libgomp.a): constructors
 * of priority 101 run before those of the default priority, libgomp's among
 * them, and glibc hands them the program's arguments (--threads). Saves the
 * second start olive_omp_short_wait makes otherwise (7-12 ms of a 0.2 s run,
 * docs/BENCHMARKS.md), and a debugger or profiler sees one process. */
__attribute__((constructor(101))) static void short_spin_early(int argc, char **argv, char **envp)
{
    (void)argc;
    (void)envp;
    if (argv && !olive_gomp_shared()) olive_omp_short_spin_env(argv);
}

int main(int argc, char **argv)
{
    olive_omp_short_wait(argv);
    olive_set_program(argv[0]);
    olive_set_cmdline(argc, argv);
    int provided;
    olive_mpi_singleton_fast();
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "olive-simulate: error: MPI_Init failed\n");
        return 1;
    }
    olive_set_exit_hook(sim_session_abort_others);
    olive_h5_quiet();
    olive_session *x = sim_session_open(argc, argv, 1);
    const int stop_sig = sim_session_run_to(x, x->cfg.run.steps);
    if (x->s.rank == 0) olive_progress_done();
    int64_t nspikes = 0, ev[2] = {0, 0};
    sim_session_close(x, &nspikes, ev);
    if (x->s.rank == 0) report_run(&x->s, x->k0, x->step, nspikes, ev, stop_sig);
    sim_session_free(x);
    MPI_Finalize();
    /* Stopped by a signal: the status of a job killed by it (143 for
     * SIGTERM, 130 for SIGINT), so that scripts see the run is not done. */
    return stop_sig ? 128 + stop_sig : 0;
}
