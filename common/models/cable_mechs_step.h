/* The NMODL mechanisms' part of a cable step (cable.h), written once for
 * every engine: the currents of step 1 (each ion's current summed from zero,
 * its reversal potential by Nernst where it advances) and the states of
 * step 3, for cell c of a layout of stride. Each instance is called through
 * OLIVE_MECH_CALL: on the CPU the library's host functions
 * (olive_mech_library's cur, state); in a CUDA kernel compiled with
 * OLIVE_CABLE_MECHS_DEVICE the library's device functions, linked into the
 * kernel at load time (olive_mech_cur_v1 ...: cable_mech.h's GPU image); in
 * other kernels a set is never given (the engine refuses it first). */
#ifndef OLIVE_CABLE_MECHS_STEP_H
#define OLIVE_CABLE_MECHS_STEP_H
#include "cable_mechs.h"

#if defined(__CUDA_ARCH__) && defined(OLIVE_CABLE_MECHS_DEVICE)
extern "C" __device__ void olive_mech_cur_v1(int m, olive_mech_ctx *c, double *rhs, double *d);
extern "C" __device__ void olive_mech_state_v1(int m, olive_mech_ctx *c);
extern "C" __device__ void olive_mech_net_v1(int m, olive_mech_ctx *c, double w);
#define OLIVE_MECH_CUR(ms, m, x, rhs, d) olive_mech_cur_v1(m, x, rhs, d)
#define OLIVE_MECH_STATE(ms, m, x) olive_mech_state_v1(m, x)
#define OLIVE_MECH_NET(ms, m, x, w) olive_mech_net_v1(m, x, w)
#elif defined(__CUDA_ARCH__)
#define OLIVE_MECH_CUR(ms, m, x, rhs, d) __trap()
#define OLIVE_MECH_STATE(ms, m, x) __trap()
#define OLIVE_MECH_NET(ms, m, x, w) __trap()
#else
#define OLIVE_MECH_CUR(ms, m, x, rhs, d) (ms)->lib->cur(m, x, rhs, d)
#define OLIVE_MECH_STATE(ms, m, x) (ms)->lib->state(m, x)
#define OLIVE_MECH_NET(ms, m, x, w) (ms)->lib->net(m, x, w)
#endif

/* The context of instance j of use u (its parameters, variables, its node's ions). */
OLIVE_HD olive_mech_ctx olive_mech_ctx_of(const olive_mech_set *ms, const olive_mech_use *u, int j, double *mx,
                                          double *ion, long c, long stride, double v, double t, double dt)
{
    const long ni = (long)ms->nion * OLIVE_ION_NF;
    olive_mech_ctx x = {u->p + j, u->ninst, mx + (u->x0 + j) * stride + c, (long)u->ninst * stride,
                        ion + ((long)u->node[j] * ni) * stride + c, stride, v, ms->celsius, dt, t, u->tab};
    return x;
}

OLIVE_HD double *olive_mech_ion_at(const olive_mech_set *ms, double *ion, int node, int s, int f, long c, long stride)
{
    return &ion[(((long)node * ms->nion + s) * OLIVE_ION_NF + f) * stride + c];
}

/* e by Nernst at the (node, ion) pairs of list at (node * nion + slot). */
OLIVE_HD void olive_mechs_nernst(const olive_mech_set *ms, double *ion, long c, long stride, int n, const int *at)
{
    for (int k = 0; k < n; k++) {
        const int i = at[k] / ms->nion, s = at[k] % ms->nion;
        *olive_mech_ion_at(ms, ion, i, s, OLIVE_ION_E, c, stride) =
            olive_nernst(*olive_mech_ion_at(ms, ion, i, s, OLIVE_ION_CI, c, stride),
                         *olive_mech_ion_at(ms, ion, i, s, OLIVE_ION_CO, c, stride), ms->charge[s], ms->celsius);
    }
}

/* Step 1: the ions' own nrn_cur (currents from zero, e where it advances),
 * then every instance's currents into rhs and d (cable.h's arrays). */
OLIVE_HD void olive_mechs_cur(const olive_mech_set *ms, const double *v, double *mx, double *ion, double *rhs, double *d,
                              long c, long stride, double t, double dt)
{
    for (int k = 0; k < ms->nused; k++)
        *olive_mech_ion_at(ms, ion, ms->used[k] / ms->nion, ms->used[k] % ms->nion, OLIVE_ION_I, c, stride) = 0;
    olive_mechs_nernst(ms, ion, c, stride, ms->nadv, ms->adv);
    for (int k = 0; k < ms->nuse; k++) {
        const olive_mech_use *u = &ms->use[k];
        for (int j = 0; j < u->ninst; j++) {
            const long at = (long)u->node[j] * stride + c;
            olive_mech_ctx x = olive_mech_ctx_of(ms, u, j, mx, ion, c, stride, v[at], t, dt);
            if (u->mfact) {   /* a point process: nA, scaled to its node as NEURON's nrn_cur does */
                double r = 0, g = 0;
                OLIVE_MECH_CUR(ms, u->m, &x, &r, &g);
                rhs[at] += r * u->mfact[j];
                d[at] += g * u->mfact[j];
            } else {
                OLIVE_MECH_CUR(ms, u->m, &x, &rhs[at], &d[at]);
            }
        }
    }
}

/* Point instance k (olive_mech_set_add_point) of cell c receives the
 * weight w summed over the events since the last step: its NET_RECEIVE. */
OLIVE_HD void olive_mechs_net(const olive_mech_set *ms, int k, double w, const double *v, double *mx, double *ion, long c,
                              long stride, double t, double dt)
{
    const olive_mech_use *u = &ms->use[ms->pt[2 * k]];
    const int j = ms->pt[2 * k + 1];
    olive_mech_ctx x = olive_mech_ctx_of(ms, u, j, mx, ion, c, stride, v[(long)u->node[j] * stride + c], t, dt);
    OLIVE_MECH_NET(ms, u->m, &x, w);
}

/* Step 3: every instance's states with the new v. (A concentration written
 * here changes e at the next step's start, as NEURON's ion_cur: its e after
 * a step, a report's value, is the step's.) */
OLIVE_HD void olive_mechs_state(const olive_mech_set *ms, const double *v, double *mx, double *ion, long c, long stride,
                                double t, double dt)
{
    for (int k = 0; k < ms->nuse; k++) {
        const olive_mech_use *u = &ms->use[k];
        for (int j = 0; j < u->ninst; j++) {
            olive_mech_ctx x = olive_mech_ctx_of(ms, u, j, mx, ion, c, stride, v[(long)u->node[j] * stride + c], t, dt);
            OLIVE_MECH_STATE(ms, u->m, &x);
        }
    }
}

#endif
