/* Noise and random initial potentials of a run (common/models/noise.h has the
 * equations and the draws): set up once, before the first step. */
#include "sim.h"
#include "model.h"
#include "noise.h"
#include "util.h"
#include <math.h>

/* Random initial V_dend, V_soma, V_axon of every own cell (three independent
 * draws per cell); the halo entries of V_dend are overwritten by the first
 * exchange. */
static void random_potentials(sim_t *s)
{
    const sim_config *c = s->cfg;
    static const int vars[3] = {OV_V_DEND, OV_V_SOMA, OV_V_AXON};
    for (int k = 0; k < 3; k++) {
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < s->plan.nlocal; i++) {
            double v = olive_init_uniform(c->run.seed, s->plan.row0 + i, (uint32_t)k, c->infoli.init_lo, c->infoli.init_hi);
            if (c->run.single) ((float *)s->state[vars[k]])[i] = (float)v;
            else ((double *)s->state[vars[k]])[i] = v;
        }
    }
}

/* The OU constants, and the current of the first step drawn from the
 * stationary distribution N(mean, sigma^2) at (cell, start_step). */
static void start_noise(sim_t *s)
{
    const sim_config *c = s->cfg;
    const double dt = OLIVE_DT;
    s->io.nz.on = 1;
    s->io.nz.seed = c->run.seed;
    s->io.nz.mean = c->infoli.noise_mean;
    s->io.nz.decay = exp(-dt / c->infoli.noise_tau);
    /* 1 - decay^2 = -expm1(-2 dt/tau): accurate when tau >> dt. */
    s->io.nz.amp = c->infoli.noise_sigma * sqrt(-expm1(-2.0 * dt / c->infoli.noise_tau));
    size_t el = c->run.single ? sizeof(float) : sizeof(double);
    s->io.noise = olive_calloc((size_t)s->plan.nlocal + 1, el, "noise currents");
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < s->plan.nlocal; i++) {
        double x = c->infoli.noise_mean +
                   c->infoli.noise_sigma * olive_normal(c->run.seed, s->plan.row0 + i, c->run.start_step, OLIVE_STREAM_NOISE_START);
        if (c->run.single) ((float *)s->io.noise)[i] = (float)x;
        else ((double *)s->io.noise)[i] = x;
    }
}

void sim_setup_variability(sim_t *s)
{
    if (s->cfg->infoli.init_random) random_potentials(s);
    if (s->cfg->infoli.noise_on) start_noise(s);
}
