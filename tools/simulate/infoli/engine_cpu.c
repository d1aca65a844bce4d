/* The CPU engine: OpenMP threads over the rows of each rank (kernel_cpu.c),
 * the halo exchange overlapped with the interior rows. */
#include "sim.h"
#include "util.h"

/* One step: exchange the halo while the interior rows compute. Two
 * barriers a step where a rank has no boundary rows (one rank): after every
 * current, before any cell is updated in place (a current reads its
 * neighbours' voltages), and the region's end. */
static void cpu_step(sim_t *s, int64_t step)
{
    sim_pulse *active = s->active;
    int nactive = sim_active_pulses(&s->cfg->stim, step, active);
    /* I_app is rebuilt while pulses or noise are on, and once more to clear
     * the last pulse: decided here, so that every thread takes the same
     * branch without a barrier to agree on it */
    const int rebuild_iapp = nactive > 0 || s->io.iapp_dirty || s->io.nz.on;
    s->io.iapp_dirty = nactive > 0 || s->io.nz.on;
    MPI_Request req = MPI_REQUEST_NULL;
    double t0 = olive_now(), tx = 0;
    const int64_t nboundary = s->plan.nboundary;
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
        if (nboundary > 0) {
            sim_currents(s, s->plan.boundary, nboundary);
#pragma omp barrier
        }
        sim_update(s, step, active, nactive, rebuild_iapp);
    }
    s->t.exchange += tx;
    s->t.compute += olive_now() - t0 - tx;
}

/* The state lives on the host: nothing to fetch or free; set up: the kernels' instruction set. */
static void cpu_setup(sim_t *s) { sim_simd_select(s); }
static void cpu_fetch(sim_t *s, int all) { (void)s; (void)all; }
static double cpu_energy_j(sim_t *s, int *owner) { (void)s; *owner = 0; return -1; }
static void cpu_free(sim_t *s) { (void)s; }

const sim_engine sim_engine_cpu = {"cpu", 0, 1, cpu_setup, cpu_step, cpu_fetch, cpu_energy_j, cpu_free, NULL, NULL, NULL, NULL};
