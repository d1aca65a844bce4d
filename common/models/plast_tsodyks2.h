/* tsodyks2 (plasticity_rules.h): NEST's tsodyks2_synapse (Maass & Markram
 * 2002: x, u). Its state: s[0] = x, s[2] = u. A synapse that has seen no
 * spike (last -1) reads it as NEST's "none yet". Included by plasticity.h
 * after the common part. */
#ifndef OLIVE_PLAST_TSODYKS2_H
#define OLIVE_PLAST_TSODYKS2_H

/* Parameter indices, in the order of OLIVE_PLAST_TSODYKS2_PARS. */
enum { OLIVE_TSO2_U, OLIVE_TSO2_U0, OLIVE_TSO2_X, OLIVE_TSO2_TAU_REC, OLIVE_TSO2_TAU_FAC };
/* NEST 3's names, units and defaults (tsodyks2_synapse). */
#define OLIVE_PLAST_TSODYKS2_PARS {"U", "", 0.5}, {"u", "", 0.5}, {"x", "", 1.0}, {"tau_rec", "ms", 800.0}, {"tau_fac", "ms", 0.0},

/* tsodyks2_synapse::send: x and u moved on (not at the first spike); returns
 * x u w (*w stays). */
OLIVE_HD double olive_plast_tsodyks2_pre(const double *par, double dt, int64_t s, int d, olive_post_history hist,
                                         double *w, olive_plast_state *st)
{
    (void)d;
    (void)hist;
    if (st->last >= 0) {
        const double h = olive_plast_time(s, dt) - olive_plast_time(st->last, dt);
        const double tau_fac = par[OLIVE_TSO2_TAU_FAC], U = par[OLIVE_TSO2_U];
        const double x_decay = olive_exp_d(-h / par[OLIVE_TSO2_TAU_REC]);
        const double u_decay = (tau_fac == 0) ? 0.0 : olive_exp_d(-h / tau_fac);
        const double x = st->s[0], u = st->s[2];
        st->s[0] = 1. + (x - x * u - 1.) * x_decay;
        st->s[2] = U + u * (1. - U) * u_decay;
    }
    st->last = s;
    return st->s[0] * st->s[2] * *w;
}

/* NEST's checks (tsodyks2_synapse's set_status). */
static inline const char *olive_plast_tsodyks2_fault(const double *q)
{
    if (q[OLIVE_TSO2_U] < 0 || q[OLIVE_TSO2_U] > 1) return "U must be in [0, 1]";
    if (q[OLIVE_TSO2_U0] < 0 || q[OLIVE_TSO2_U0] > 1) return "u must be in [0, 1]";
    if (q[OLIVE_TSO2_X] < 0 || q[OLIVE_TSO2_X] > 1) return "x must be in [0, 1]";
    if (!(q[OLIVE_TSO2_TAU_REC] > 0)) return "tau_rec must be > 0 ms";
    if (q[OLIVE_TSO2_TAU_FAC] < 0) return "tau_fac must be >= 0 ms";
    return NULL;
}

static inline const char *olive_plast_tsodyks2_weight_fault(const double *q, double w) { (void)q; (void)w; return NULL; }

static inline void olive_plast_tsodyks2_initial(const double *q, olive_plast_state *st)
{
    st->s[0] = q[OLIVE_TSO2_X];
    st->s[2] = q[OLIVE_TSO2_U0];
}

#endif
