/* Plastic synapses on the CUDA engine (C++, for spk_cuda.h and spk_sb.h;
 * set up by spk_cuda_plastic.cu). The physics is plasticity.h, the CPU
 * engine's source (spk_plastic.c), so each update gives the CPU's bits:
 * - a synapse's update runs where its event is sent (k_sb_scatter, device
 *   push with static buckets), by the one thread that sends it; a source
 *   fires at most once a step and steps run in order, so a synapse sees its
 *   spikes in time order, as on the CPU;
 * - a cell with stdp inputs records its spikes (step, Kminus) where its
 *   update finds them, before the step's events are sent, in a ring of the
 *   newest `cap` (OLIVE_GPU_STDP_HISTORY); an update that would need a
 *   spike the ring dropped sets `overflow`, and the run stops, named
 *   (spk_plastic_cuda_check), rather than differ from the CPU. */
#ifndef OLIVE_SPK_PLASTIC_CUH
#define OLIVE_SPK_PLASTIC_CUH
#include <stdint.h>
#include "plasticity.h"
#include "spk.h"

struct spk_plastic_dev {
    const int16_t *proj;            /* per synapse (list order): its projection if plastic, else -1 */
    olive_plast_state *st;          /* per synapse */
    const olive_plasticity *rule;   /* per projection */
    spk_out *out;                   /* the synapses: stdp writes its weights back */
    const double *tau_minus;        /* per cell: 0 without stdp inputs */
    int64_t *hstep;                 /* per cell: cap entries, spike j at j % cap */
    double *hkm;
    int64_t *hcount;                /* per cell: spikes recorded */
    int64_t *hdropped;              /* per cell: the step of the newest spike overwritten, or OLIVE_POST_NONE */
    double *kminus, *last_t;        /* per cell: Kminus after its last spike, and that spike's time (ms) */
    int64_t cap;
    double dt;
    int *overflow;
};

/* Cell r's spike of step `step` into its ring (its update's thread). */
static __device__ __forceinline__ void spk_plastic_dev_post(const spk_plastic_dev &p, int64_t r, int64_t step)
{
    const double tm = p.tau_minus[r];
    if (tm == 0) return;
    const double km = olive_stdp_kminus_after(p.kminus[r], p.last_t[r], step, p.dt, tm);
    const int64_t c = p.hcount[r], at = r * p.cap + c % p.cap;
    if (c >= p.cap) p.hdropped[r] = p.hstep[at];
    p.hstep[at] = step;
    p.hkm[at] = km;
    p.hcount[r] = c + 1;
    p.kminus[r] = km;
    p.last_t[r] = olive_plast_time(step, p.dt);
}

/* The event of synapse e (to target, delay d steps, weight w as stored) of
 * a spike of step `step`: the synapse's update; returns the weight it
 * delivers. */
static __device__ __forceinline__ double spk_plastic_dev_event(const spk_plastic_dev &p, int64_t e, int64_t step, int d,
                                                           int32_t target, double w)
{
    const int j = p.proj[e];
    if (j < 0) return w;
    const olive_plasticity rule = p.rule[j];
    olive_plast_state st = p.st[e];
    const int stdp = olive_plast_uses_post(rule.rule);
    olive_post_history h = {nullptr, nullptr, 0, 0, 0, OLIVE_POST_NONE, nullptr};
    if (stdp) {   /* (the target's spikes: a ring kept for stdp inputs only) */
        const int64_t c = p.hcount[target], n = c < p.cap ? c : p.cap;
        h = {p.hstep + target * p.cap, p.hkm + target * p.cap, n, c < p.cap ? 0 : c % p.cap, p.cap, p.hdropped[target],
             p.overflow};
    }
    double nw = w;
    const double out = olive_plast_pre(&rule, p.dt, step, d, h, &nw, &st);   /* (plasticity.h: CPU's dispatch too) */
    if (stdp) p.out[e].w = nw;
    p.st[e] = st;
    return out;
}

#endif
