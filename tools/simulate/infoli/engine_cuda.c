/* The CUDA engine: one GPU per rank (backend_cuda.cu), in builds with nvcc. */
#include "sim.h"

#ifdef OLIVE_HAVE_CUDA
/* One step on the GPU (backend_cuda.cu times exchange and compute itself),
 * then spikes and non-finite values come back every few steps. */
static void cuda_step(sim_t *s, int64_t step)
{
    int nactive = sim_active_pulses(&s->cfg->stim, step, s->active);
    sim_cuda_step(s, step, s->active, nactive);
    sim_cuda_poll(s, step);
}

const sim_engine sim_engine_cuda = {"cuda", 1, 0, sim_cuda_setup, cuda_step, sim_cuda_fetch, sim_cuda_energy_j,
                                    sim_cuda_free, NULL, NULL, NULL, NULL};
#else
/* ISO C wants a declaration in every file. */
typedef int sim_engine_cuda_not_built;
#endif
