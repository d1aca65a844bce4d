/* olive-simulate: the InfOli network over MPI ranks and OpenMP threads. */
#include "sim.h"
#include "h5util.h"
#include "model.h"
#include "util.h"
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int world_size = 1;

static void abort_others(int code)
{
    if (world_size > 1) MPI_Abort(MPI_COMM_WORLD, code);
    MPI_Finalize();
}

/* One step: exchange the halo while the interior rows compute. */
static void step_once(sim_t *s, int64_t step)
{
    sim_pulse *active = s->active;
    int nactive = sim_active_pulses(s->cfg, step, active);
    MPI_Request req = MPI_REQUEST_NULL;
    double t0 = olive_now(), tx = 0;
#pragma omp parallel
    {
#pragma omp master
        {
            double a = olive_now();
            sim_exchange_begin(s, &req);
            tx += olive_now() - a;
        }
        sim_currents(s, s->plan.interior, s->plan.ninterior);
#pragma omp master
        {
            double a = olive_now();
            sim_exchange_end(s, &req);
            tx += olive_now() - a;
        }
#pragma omp barrier
        sim_currents(s, s->plan.boundary, s->plan.nboundary);
        sim_update(s, step, active, nactive);
    }
    s->t.exchange += tx;
    s->t.compute += olive_now() - t0 - tx;
    sim_swap(s);
}

#ifdef OLIVE_HAVE_CUDA
/* One step on the GPU (backend_cuda.cu times exchange and compute itself),
 * then spikes and non-finite values come back every few steps. */
static void step_cuda(sim_t *s, int64_t step)
{
    int nactive = sim_active_pulses(s->cfg, step, s->active);
    sim_cuda_step(s, step, s->active, nactive);
    sim_cuda_poll(s, step);
}
#endif

/* A non-finite value anywhere stops every rank. Checked every 64 steps (one
 * small allreduce) but the first bad step and cell are reported exactly.
 * Rank 0 owns the temporary output: it reports, removes it and aborts the
 * job; the other ranks wait for that instead of aborting first. */
static void stop_if_not_finite(sim_t *s)
{
    int64_t step = s->bad_step < 0 ? INT64_MAX : s->bad_step, first;
    SIM_CHECK_MPI(MPI_Allreduce(&step, &first, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD));
    if (first == INT64_MAX) return;
    int64_t cell = s->bad_step == first ? s->bad_cell : INT64_MAX, cell_min;
    SIM_CHECK_MPI(MPI_Allreduce(&cell, &cell_min, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD));
    if (s->rank == 0)
        olive_die("non-finite membrane potential at step %lld (t = %g ms) in cell %lld; stopping",
                  (long long)first, (double)(first + 1) * OLIVE_DT, (long long)cell_min);
    MPI_Barrier(MPI_COMM_WORLD); /* never returns: rank 0 aborts the job */
    exit(1);
}

int main(int argc, char **argv)
{
    double t_start = olive_now();
    olive_set_program(argv[0]);
    olive_set_cmdline(argc, argv);
    int provided;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "olive-simulate: error: MPI_Init failed\n");
        return 1;
    }
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    olive_set_exit_hook(abort_others);
    olive_h5_quiet();
    sim_config cfg;
    sim_parse_args(argc, argv, &cfg);
    sim_t s;
    sim_setup(&s, &cfg);

    /* Rank 0 owns the temporary output directory; everyone writes into it. */
    char tmp[4096] = "";
    if (s.rank == 0) {
        snprintf(tmp, sizeof tmp, "%s", olive_atomic_begin(cfg.out_path, cfg.force));
        if (mkdir(tmp, 0777) != 0) olive_die("%s: cannot create the output directory", tmp);
    }
    SIM_CHECK_MPI(MPI_Bcast(tmp, sizeof tmp, MPI_CHAR, 0, MPI_COMM_WORLD));
    if (cfg.nrecord > 0 && (int64_t)sizeof(float) * (cfg.rec_b - cfg.rec_a) * (cfg.steps / cfg.record_every) > (INT64_C(1) << 40))
        olive_warn("the reports will need more than 1 TiB; consider --record-every or --record-cells");
    double t_io = olive_now();
    sim_output *out = sim_output_open(&s, tmp);
    s.t.io += olive_now() - t_io;

    int64_t spikes_before = 0;
    s.t.energy_j = -1;
#ifdef OLIVE_HAVE_CUDA
    int energy_owner = 0;
    double energy0 = s.cuda ? sim_cuda_energy_j(&s, &energy_owner) : -1;
#endif
    for (int64_t i = 0; i < cfg.steps; i++) {
        int record = (i + 1) % cfg.record_every == 0 && cfg.nrecord > 0;
#ifdef OLIVE_HAVE_CUDA
        if (s.cuda) {
            step_cuda(&s, i);
            if (record) sim_cuda_fetch(&s, 0);
        } else
#endif
            step_once(&s, i);
        if ((i + 1) % 64 == 0 || i + 1 == cfg.steps) stop_if_not_finite(&s);
        if (record) sim_output_frame(out, &s);
        if (s.rank == 0) olive_progress("simulating", (double)(i + 1) / (double)cfg.steps);
    }
#ifdef OLIVE_HAVE_CUDA
    if (s.cuda) {
        sim_cuda_fetch(&s, 1); /* the final state, for state.h5 (waits for the last step) */
        double e1 = sim_cuda_energy_j(&s, &energy_owner);
        /* Every rank's GPU must have a counter; each GPU counted once. */
        double mine[2] = {energy0 >= 0 && e1 >= energy0 ? (energy_owner ? e1 - energy0 : 0) : -1, 0}, sum = 0, lo = 0;
        mine[1] = mine[0];
        SIM_CHECK_MPI(MPI_Allreduce(&mine[0], &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        SIM_CHECK_MPI(MPI_Allreduce(&mine[1], &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
        s.t.energy_j = lo < 0 ? -1 : sum;
    }
#endif
    if (s.rank == 0) olive_progress_done();
    for (int t = 0; t < s.nthreads; t++) spikes_before += s.tspike_n[t];
    s.t.total = olive_now() - t_start;
    sim_output_close(out, &s, tmp);
    SIM_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int64_t nspikes = 0;
    SIM_CHECK_MPI(MPI_Reduce(&spikes_before, &nspikes, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD));
    s.t.total = olive_now() - t_start;
    if (s.rank == 0) {
        olive_atomic_commit(tmp);
        double cs = (double)s.net.count * (double)cfg.steps;
        char how[64];
        if (s.cuda) snprintf(how, sizeof how, "%d rank(s) x 1 GPU (cuda)", s.size);
        else snprintf(how, sizeof how, "%d rank(s) x %d thread(s)", s.size, s.nthreads);
        printf("olive-simulate: %lld cells x %lld steps (%g ms), %lld spikes, %s, "
               "%.3f s total, %.3g cell-steps/s in the step loop\n",
               (long long)s.net.count, (long long)cfg.steps, (double)cfg.steps * OLIVE_DT, (long long)nspikes,
               how, s.t.total, cs / (s.t.compute + s.t.exchange > 0 ? s.t.compute + s.t.exchange : 1e-9));
        if (s.t.energy_j >= 0)
            printf("olive-simulate: GPU energy of the step loop %.1f J, %.3g J per cell-step\n", s.t.energy_j,
                   s.t.energy_j / cs);
        olive_info("timings (slowest rank): dispersal %.3f s (from the map), "
                   "setup %.3f s, exchange %.3f s, compute %.3f s, io %.3f s, total %.3f s",
                   s.t.dispersal, s.t.setup, s.t.exchange, s.t.compute, s.t.io, s.t.total);
    }
    sim_free(&s);
    free(cfg.pulses);
    MPI_Finalize();
    return 0;
}
