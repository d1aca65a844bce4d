/* The CPU engine: OpenMP threads over the rows of each rank (kernel_cpu.c),
 * the halo exchange overlapped with the interior rows. */
#include "sim.h"
#include "model.h"
#include "util.h"
#include <omp.h>
#include <stdlib.h>

/* Whether no cell of this rank gets a junction term (--gj ngj, or a network
 * without junctions on one rank): every I_c is then +0.0 for good. */
static int no_junction_terms(const sim_t *s)
{
    return s->size == 1 && sim_no_junction_pass(s);
}

/* Steps [first, first + count) in one parallel region: the threads stay in
 * it from step to step, meeting at barriers, instead of being started and
 * joined at every step (a few microseconds a step: a fifth of a step of
 * 1024 cells on two threads). Each step: the halo exchange while the
 * interior rows' currents are computed, a barrier (a current reads its
 * neighbours' voltages, which the update then changes in place), the
 * boundary rows and a barrier where a rank has any, the update, and a
 * barrier before the next step's currents. Where no cell has a junction
 * term (no_junction_terms) the currents are +0.0 once for all, and a cell's
 * step reads only its own values: the threads then meet only where I_app
 * is rebuilt (pulses, noise), whose loop splits the rows another way.
 * Each thread works out the step's pulses itself (the same list on every
 * thread), so that no step needs a barrier to share them. */
static void cpu_steps(sim_t *s, int64_t first, int64_t count)
{
    const int64_t nboundary = s->plan.nboundary;
    const int lone = no_junction_terms(s);
    const olive_noise *nz = &s->io.nz;
    const int dirty0 = s->io.iapp_dirty;
    double t0 = olive_now(), tx = 0;
    /* Lone cells whose I_app stays +0.0 over the whole chunk (no pulse in
     * it, no noise, the last pulse's current already cleared) take the
     * chunk's steps a block of cells at a time (sim_update_steps): at 65536
     * uncoupled cells their state no longer streams through memory each step */
    const int blocked = lone && !dirty0 && !nz->on && !sim_pulses_during(&s->cfg->stim, first, count);
#pragma omp parallel
    {
        sim_pulse *active = olive_malloc((size_t)(s->cfg->stim.npulses + 1) * sizeof *active, "pulses");
        int dirty = dirty0;
        if (lone) {
            sim_currents(s, 0);
            if (nboundary > 0) sim_currents(s, 1);
#pragma omp barrier
        }
        if (blocked) sim_update_steps(s, first, count);
        else for (int64_t k = 0; k < count; k++) {
            const int64_t step = first + k;
            const int nactive = sim_active_pulses(&s->cfg->stim, step, active);
            /* I_app is rebuilt while pulses or noise are on, and once more
             * to clear the last pulse: the same choice on every thread */
            const int rebuild_iapp = nactive > 0 || dirty || nz->on;
            dirty = nactive > 0 || nz->on;
            if (!lone) {
                MPI_Request req = MPI_REQUEST_NULL;
#pragma omp master
                {
                    double a = olive_now();
                    sim_exchange_begin(s, &req);
                    tx += olive_now() - a;
                }
                sim_currents(s, 0);
#pragma omp master
                {
                    double a = olive_now();
                    sim_exchange_end(s, &req);
                    tx += olive_now() - a;
                }
#pragma omp barrier
                if (nboundary > 0) {
                    sim_currents(s, 1);
#pragma omp barrier
                }
            } else if (rebuild_iapp && k > 0) {
#pragma omp barrier
                /* (every thread done with the last step's I_app) */
            }
            sim_update(s, step, active, nactive, rebuild_iapp);
            if (!lone && k + 1 < count) {
#pragma omp barrier
            }
        }
#pragma omp master
        s->io.iapp_dirty = dirty;
        free(active);
    }
    s->t.exchange += tx;
    s->t.compute += olive_now() - t0 - tx;
}

static void cpu_step(sim_t *s, int64_t step) { cpu_steps(s, step, 1); }

/* A chunk ends where the step loop looks at the state anyway (checks,
 * reports, checkpoints). */
static int64_t cpu_max_steps(sim_t *s) { (void)s; return SIM_CHECK_STEPS; }

/* Set up: the kernels' instruction set and the junctions laid out in
 * groups of rows (junction_groups.c), unless no cell has a junction term.
 * The plan's column list is then no longer read: its memory goes back. */
static void cpu_setup(sim_t *s)
{
    sim_simd_select(s);
    if (sim_no_junction_pass(s)) return;
    const int unroll = s->cfg->run.single ? SIM_GROUP_UNROLL(float) : SIM_GROUP_UNROLL(double);
    sim_junction_groups_build(s, s->plan.interior, s->plan.ninterior, unroll, &s->io.jg[0]);
    sim_junction_groups_build(s, s->plan.boundary, s->plan.nboundary, unroll, &s->io.jg[1]);
    free(s->plan.lcol);
    s->plan.lcol = NULL;
    const sim_jgroups *g = s->io.jg;
    const double slots = (double)(g[0].gslot[g[0].ngroups] + g[1].gslot[g[1].ngroups]) * SIM_ROW_LANES;
    olive_info("rank %d: junctions in groups of %d rows: %.1f MiB, %.3g slots a junction (padding)", s->rank,
               SIM_ROW_LANES, (double)(g[0].bytes + g[1].bytes) / 1048576.0, s->net.nnz ? slots / (double)s->net.nnz : 0.0);
}

/* The state lives on the host: nothing to fetch. */
static void cpu_fetch(sim_t *s, int all) { (void)s; (void)all; }
static double cpu_energy_j(sim_t *s, int *owner) { (void)s; *owner = 0; return -1; }
static void cpu_free(sim_t *s)
{
    sim_junction_groups_free(&s->io.jg[0]);
    sim_junction_groups_free(&s->io.jg[1]);
}

const sim_engine sim_engine_cpu = {"cpu",         0,    1,    cpu_setup, cpu_step, cpu_fetch, cpu_energy_j,
                                   cpu_free,      cpu_steps, cpu_max_steps, NULL, NULL};
