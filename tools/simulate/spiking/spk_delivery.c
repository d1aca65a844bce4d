/* Which delivery strategy of the CUDA engine carries a run's spikes to their
 * targets: the one place that chooses (spk_cuda.cu asks at set-up).
 *
 * The strategies, in the order they are preferred (each file holds its own
 * kernels and device state):
 *   fused        spk_cuda_fused.cu: many steps per launch, each target pulls
 *                its due events from a history of spike flags;
 *   device push  spk_cuda_devpush.cu: each step's events bucketed by target
 *                on the device (static or dynamic buckets, its own choice),
 *                or added by atomics with --order-free-sums, or, with
 *                OLIVE_GPU_OWNED, a chunk in one launch with each block
 *                summing its cells' events in shared memory
 *                (spk_cuda_owned.cu);
 *   host push    spk_cuda.cu: every window's spikes through the host, their
 *                events numbered, sorted by (slot, target) and summed.
 * Each says why it cannot carry a run (unfit: a reason, NULL when it can)
 * and, where it can, why another would serve better (worse). The first
 * strategy neither unfit nor worse runs; OLIVE_GPU_DELIVERY=fused|device|host
 * forces one (comparisons, tests), refused with the reason where it is
 * unfit. -v names the strategy and why each one above it was passed over.
 * A new strategy: its file, one line in `strategies` below. All give the
 * CPU engine's bits (spk.h's order of every target's events). */
#include "spk.h"
#include "util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reading all synapses every step costs about what device push's host round
 * trip does at this size (16 bytes a synapse, ~2 TB/s, ~60 us). */
static const int64_t FUSED_MAX_SYNAPSES = INT64_C(8) << 20;

static const char *one_rank_unfit(const sim_t *s)
{
    if (s->size > 1) return "several ranks exchange their spikes through the host";
    if (s->spk->sites.n > 0) return "synapse sites (site_section) have their channels in host push's ring";
    if (s->spk->drawn.n) return "projections drawn at each spike (spk_cuda_rules.cu) come as host push's sorted events";
    return NULL;
}

/* A restart continues from the events queued by the spikes still in flight
 * (spk_restart.c puts them into the CPU engine's ring): device push takes
 * them into its own ring, which a chunk of its steps leaves holding every
 * event due later and nothing else (spk_cuda.cu's restart_ring). */
const char *spk_cuda_restart_unfit(const sim_t *s)
{
    if (s->size > 1) return "on several ranks the spikes go through host push, which does not take a restart's events yet";
    if (olive_model_is_cable(s->cfg->run.model)) return "cable cells' sites and compartments are restored on the CPU engine";
    if (s->spk->plastic_net) return "plastic synapses' queued events stay on the device, not in state.h5";
    if (s->spk->nacc > 2) return "the device's ring holds two receptors";
    return NULL;
}

/* Fused and host push step aside for a restart or checkpoints: device push's
 * ring is what a state's events in flight go into (scripts/gpu-checkpoint-check.sh). */
static const char *state_unfit(const sim_t *s)
{
    return sim_restart_or_checkpoint(s->cfg) ? "a restart or a checkpoint takes device push, whose ring holds the events in flight"
                                             : NULL;
}

static const char *fused_unfit(const sim_t *s)
{
    const char *why = one_rank_unfit(s);
    if (!why) why = state_unfit(s);
    if (why) return why;
    if (s->spk->dev.rows) return "the lists were made on the device, in device push's form";
    if (s->spk->plastic) return "plastic synapses are updated where device push makes their events";
    if (!s->spk->point) return "the fused kernel steps point models, not cable cells";
    if (s->spk->sources.n) return "spike sources fire in the push strategies' update only";
    if (s->spk->point->inputs_before_condition)
        return "the model's inputs come before its condition, and the fused kernel tests it right after the update";
    if (s->cfg->stim.npulses > SPK_FUSED_MAX_PULSES) return "more pulses than the fused kernel looks at";
    /* the spike history is (max delay + 2) x cells bytes: at most 1 GiB */
    if ((double)(s->spk->L + 1) * (double)s->plan.nlocal > (double)(INT64_C(1) << 30))
        return "its spike history ((max delay + 2) x cells bytes) would pass 1 GiB";
    return NULL;
}

static const char *fused_worse(const sim_t *s)
{
    return s->spk->nsyn > FUSED_MAX_SYNAPSES ? "more than 2^23 synapses: reading them all every step costs more" : NULL;
}

static const char *device_unfit(const sim_t *s) { return one_rank_unfit(s); }

static const char *host_unfit(const sim_t *s)
{
    const char *why = state_unfit(s);
    if (why) return why;
    /* (projections drawn at each spike are host push's, whatever made the other lists) */
    return s->spk->dev.rows && !s->spk->drawn.n ? "the lists were made on the device, in device push's form" : NULL;
}

static const char *never(const sim_t *s)
{
    (void)s;
    return NULL;
}

typedef struct {
    const char *name, *env;   /* its name, and OLIVE_GPU_DELIVERY's word for it */
    int mode;                 /* SPK_FUSED, SPK_DEVICE_PUSH, SPK_HOST_PUSH (spk.h) */
    const char *(*unfit)(const sim_t *s);
    const char *(*worse)(const sim_t *s);
} spk_strategy;

static const spk_strategy strategies[] = {
    {"fused", "fused", SPK_FUSED, fused_unfit, fused_worse},
    {"device push", "device", SPK_DEVICE_PUSH, device_unfit, never},
    {"host push", "host", SPK_HOST_PUSH, host_unfit, never},
};
enum { NSTRATEGIES = sizeof strategies / sizeof strategies[0] };

int spk_delivery_mode(const sim_t *s)
{
    const char *env = getenv("OLIVE_GPU_DELIVERY");
    if (env && *env) {
        for (int i = 0; i < NSTRATEGIES; i++) {
            if (strcmp(env, strategies[i].env)) continue;
            const char *why = strategies[i].unfit(s);
            if (why) olive_die("%s: OLIVE_GPU_DELIVERY=%s: %s cannot carry this run: %s", s->cfg->run.net_path, env,
                               strategies[i].name, why);
            olive_info("CUDA engine: %s delivery (OLIVE_GPU_DELIVERY=%s)", strategies[i].name, env);
            return strategies[i].mode;
        }
        olive_die("OLIVE_GPU_DELIVERY='%s': expected fused, device or host", env);
    }
    char passed[1024] = "";
    for (int i = 0; i < NSTRATEGIES; i++) {
        const char *why = strategies[i].unfit(s);
        if (!why) why = strategies[i].worse(s);
        if (why) {
            snprintf(passed + strlen(passed), sizeof passed - strlen(passed), "; not %s: %s", strategies[i].name, why);
            continue;
        }
        olive_info("CUDA engine: %s delivery%s", strategies[i].name, passed);
        return strategies[i].mode;
    }
    olive_die("internal: no delivery strategy of the CUDA engine takes this run%s", passed);
}
