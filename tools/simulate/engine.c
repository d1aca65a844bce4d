/* The engine table: which model family runs a network (its set-up, its
 * tear-down, its CPU and CUDA engines). A new family is one line here;
 * setup.c's sim_engine_choose picks among a family's engines by --backend. */
#include "sim.h"
#include "cellmodel.h"

#ifdef OLIVE_HAVE_CUDA
#define CUDA_ENGINE(e) (e)
#else
#define CUDA_ENGINE(e) NULL
#endif

static int is_infoli(const olive_cell_model *m) { return m == &olive_model_infoli; }
static int is_any(const olive_cell_model *m) { (void)m; return 1; }

/* The CUDA engine of spiking networks takes both integrate-and-fire and cable
 * cells; it runs a restart or a checkpoint of point models on one rank
 * (spk_delivery.c's spk_cuda_restart_unfit says where not: there the CPU). */
static const sim_family families[] = {
    {"infoli", is_infoli, sim_setup_infoli, NULL, &sim_engine_cpu, CUDA_ENGINE(&sim_engine_cuda), NULL, NULL},
    /* cable cells: the spiking core with the cable kind of cell (cable/) */
    {"cable", olive_model_is_cable, sim_setup_spiking, sim_free_spiking, &sim_engine_cable_cpu,
     CUDA_ENGINE(&sim_engine_spiking_cuda), spk_cuda_restart_unfit, &spk_cable_kind},
    /* point models, built in or a plugin's (point_model.h): one CPU engine;
     * a plugin runs on the CUDA engine where it has a GPU image (setup.c's
     * sim_engine_choose; cli.c refuses --backend cuda without) */
    {"spiking", is_any, sim_setup_spiking, sim_free_spiking, &sim_engine_point_cpu, CUDA_ENGINE(&sim_engine_spiking_cuda),
     spk_cuda_restart_unfit, NULL},
};

void sim_setup(sim_t *s, sim_config *cfg)
{
    const sim_family *f = families;
    while (!f->takes(cfg->run.model)) f++;   /* the last line takes every model */
    f->setup(s, cfg, f);
}
