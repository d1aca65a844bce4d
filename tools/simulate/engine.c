/* Which engine runs a simulation: --backend cpu, cuda or auto (cuda when this
 * build has it and every rank sees a GPU; all ranks run the same engine). */
#include "sim.h"
#include "cellmodel.h"
#include "util.h"

const sim_engine *sim_engine_choose(sim_t *s)
{
    /* a spiking network (s->spk) has engines of its own */
    const sim_engine *cpu = s->spk ? &sim_engine_lif_cpu : &sim_engine_cpu;
    if (s->spk && olive_model_is_cable(s->cfg->model)) cpu = &sim_engine_cable_cpu;   /* (the CUDA engine takes both) */
    if (s->cfg->backend == SIM_BACKEND_CPU) return cpu;
    if (s->spk && (s->cfg->restart_path || s->cfg->checkpoint_every)) {
        /* the CUDA engines keep their events in flight on the device */
        if (s->cfg->backend == SIM_BACKEND_CUDA)
            olive_die("--backend cuda: %s of a spiking network runs on the CPU engine only, so far (--backend cpu)",
                      s->cfg->restart_path ? "--restart" : "--checkpoint-every");
        return cpu;
    }
#ifdef OLIVE_HAVE_CUDA
    int mine = sim_cuda_device_count() > 0, all = 0;
    SIM_CHECK_MPI(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (s->cfg->backend == SIM_BACKEND_CUDA && !mine)
        olive_die("--backend cuda: rank %d sees no CUDA device (no GPU, no driver, or CUDA_VISIBLE_DEVICES hides them)",
                  s->rank);
    if (s->cfg->backend == SIM_BACKEND_CUDA && !all) {
        MPI_Barrier(MPI_COMM_WORLD); /* the rank without a device reports and aborts */
        exit(1);
    }
    return all ? (s->spk ? &sim_engine_lif_cuda : &sim_engine_cuda) : cpu;
#else
    return cpu;
#endif
}
