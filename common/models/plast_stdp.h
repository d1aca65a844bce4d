/* stdp (plasticity_rules.h): NEST's stdp_synapse, pair-based, all-to-all:
 * traces Kplus on the synapse and Kminus on the target, weight dependence
 * mu_plus / mu_minus (0 additive, 1 multiplicative, else power law), with
 * NEST's convention that the whole delay is dendritic; the facilitation by
 * the target's spikes since the last presynaptic spike is made at the next
 * one, as NEST does. Its state: s[0] = Kplus. Included by plasticity.h after
 * the common part (olive_plast_state, olive_post_history, ...). */
#ifndef OLIVE_PLAST_STDP_H
#define OLIVE_PLAST_STDP_H

/* Parameter indices, in the order of OLIVE_PLAST_STDP_PARS. */
enum { OLIVE_STDP_TAU_PLUS, OLIVE_STDP_LAMBDA, OLIVE_STDP_ALPHA, OLIVE_STDP_MU_PLUS, OLIVE_STDP_MU_MINUS, OLIVE_STDP_WMAX,
       OLIVE_STDP_TAU_MINUS };
/* NEST 3's names, units and defaults (stdp_synapse, its target's tau_minus). */
#define OLIVE_PLAST_STDP_PARS                                                                                             \
    {"tau_plus", "ms", 20.0}, {"lambda", "", 0.01}, {"alpha", "", 1.0}, {"mu_plus", "", 1.0}, {"mu_minus", "", 1.0},     \
        {"Wmax", "weight", 100.0}, {"tau_minus", "ms", 20.0},

/* stdp_synapse's facilitate_ and depress_, as NEST writes them. */
OLIVE_HD double olive_stdp_facilitate(const double *par, double w, double kplus)
{
    const double wmax = par[OLIVE_STDP_WMAX];
    const double norm_w = (w / wmax) + (par[OLIVE_STDP_LAMBDA] * olive_plast_pow(1.0 - (w / wmax), par[OLIVE_STDP_MU_PLUS]) * kplus);
    return norm_w < 1.0 ? norm_w * wmax : wmax;
}

OLIVE_HD double olive_stdp_depress(const double *par, double w, double kminus)
{
    const double wmax = par[OLIVE_STDP_WMAX];
    const double norm_w =
        (w / wmax) - (par[OLIVE_STDP_ALPHA] * par[OLIVE_STDP_LAMBDA] * olive_plast_pow(w / wmax, par[OLIVE_STDP_MU_MINUS]) * kminus);
    return norm_w > 0.0 ? norm_w * wmax : 0.0;
}

/* Kminus of the target after its spike of step p, given the one before
 * (kminus, at time last_t ms; NEST starts from Kminus 0 at -1 ms). */
OLIVE_HD double olive_stdp_kminus_after(double kminus, double last_t, int64_t p, double dt, double tau_minus)
{
    const double tau_minus_inv = 1. / tau_minus;
    return kminus * olive_exp_d((last_t - olive_plast_time(p, dt)) * tau_minus_inv) + 1.0;
}

/* stdp_synapse::send for a presynaptic spike of step s through a synapse of
 * weight *w, delay d steps, state st, into a target with history h: the
 * facilitation by the target's spikes of steps (last - d, s - d], the
 * depression by its trace just before step s - d, then the traces moved
 * on. Returns the weight the spike delivers (the new *w). nn:
 * stdp_nn_symm_synapse::send, the same with the traces 1 (Kplus not kept,
 * the nearest spike's exp(-dt / tau_minus) for Kminus): 1.0 * x is x. */
OLIVE_HD double olive_stdp_pre(const double *par, double dt, int64_t s, int d, olive_post_history h, double *w,
                               olive_plast_state *st, int nn)
{
    const double t_spike = olive_plast_time(s, dt), t_last = olive_plast_time(st->last, dt);
    const double dendritic_delay = (double)d * dt;
    const double tau_plus = par[OLIVE_STDP_TAU_PLUS];
    double weight = *w;
    if (h.dropped != OLIVE_POST_NONE && h.dropped > st->last - d) *h.overflow = 1;   /* (a spike of the range dropped) */
    int64_t i = olive_post_after(h, st->last - d);
    for (; i < h.n && h.step[olive_post_index(h, i)] <= s - d; i++) {
        const double minus_dt = t_last - (olive_plast_time(h.step[olive_post_index(h, i)], dt) + dendritic_delay);
        weight = olive_stdp_facilitate(par, weight, (nn ? 1.0 : st->s[0]) * olive_exp_d(minus_dt / tau_plus));
    }
    /* NEST's get_K_value(t_spike - d): the latest spike strictly before it */
    const int64_t k = olive_post_after(h, s - d - 1) - 1;
    double kv = 0.;
    if (k >= 0) {
        const double t = t_spike - dendritic_delay;
        const int64_t j = olive_post_index(h, k);
        kv = (nn ? 1.0 : h.kminus[j]) * olive_exp_d((olive_plast_time(h.step[j], dt) - t) * (1. / par[OLIVE_STDP_TAU_MINUS]));
    } else if (h.dropped != OLIVE_POST_NONE && h.dropped < s - d) {
        *h.overflow = 1;   /* (that spike was dropped) */
    }
    weight = olive_stdp_depress(par, weight, kv);
    if (!nn) st->s[0] = st->s[0] * olive_exp_d((t_last - t_spike) / tau_plus) + 1.0;
    st->last = s;
    *w = weight;
    return weight;
}

/* The rule's entry points (plasticity_rules.h's names): the update at a
 * presynaptic spike, NEST's checks of the parameters and of a weight, the
 * state before the first spike. */
OLIVE_HD double olive_plast_stdp_pre(const double *par, double dt, int64_t s, int d, olive_post_history h, double *w,
                                     olive_plast_state *st)
{
    return olive_stdp_pre(par, dt, s, d, h, w, st, 0);
}

static inline const char *olive_plast_stdp_fault(const double *q)
{
    if (!(q[OLIVE_STDP_TAU_PLUS] > 0)) return "tau_plus must be > 0 ms";
    if (!(q[OLIVE_STDP_TAU_MINUS] > 0)) return "tau_minus must be > 0 ms";
    if (q[OLIVE_STDP_WMAX] == 0) return "Wmax must not be 0";
    if (q[OLIVE_STDP_MU_PLUS] < 0 || q[OLIVE_STDP_MU_MINUS] < 0) return "mu_plus and mu_minus must be >= 0";
    return NULL;
}

/* NEST: "Weight and Wmax must have same sign." */
static inline const char *olive_plast_stdp_weight_fault(const double *q, double w)
{
    return (w >= 0) != (q[OLIVE_STDP_WMAX] >= 0) ? "a weight and Wmax must have the same sign (NEST's stdp_synapse)" : NULL;
}

static inline void olive_plast_stdp_initial(const double *q, olive_plast_state *st) { (void)q; (void)st; }

#endif
