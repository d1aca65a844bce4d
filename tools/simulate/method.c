/* The integration method an output records (attribute method) and a
 * restart checks: in a file of its own, below the engines and the output,
 * as the state readers (infoli/restart.c, spk_restart.c) need it without
 * the rest of the output code (the fuzz harness of state files links those
 * readers alone). */
#include "sim.h"
#include "lif.h"
#include "model_plugin.h"

const char *sim_method_name(const sim_config *c)
{
    return c->run.model == &olive_model_infoli ? "euler"
           : olive_model_is_cable(c->run.model) ? "neuron_fixed_step"
           : olive_plugin_of(c->run.model) ? "plugin"   /* its own step; --method is refused */
           : olive_lif_method_name(c->spiking.method);
}
