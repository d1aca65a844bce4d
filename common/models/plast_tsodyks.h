/* tsodyks (plasticity_rules.h): NEST's tsodyks_synapse (Tsodyks, Uziel &
 * Markram 2000: resources x, y, z = 1 - x - y, utilisation u). Its state:
 * s = x, y, u. Included by plasticity.h after the common part. */
#ifndef OLIVE_PLAST_TSODYKS_H
#define OLIVE_PLAST_TSODYKS_H

/* Parameter indices, in the order of OLIVE_PLAST_TSODYKS_PARS. */
enum { OLIVE_TSO_U, OLIVE_TSO_TAU_PSC, OLIVE_TSO_TAU_REC, OLIVE_TSO_TAU_FAC, OLIVE_TSO_X, OLIVE_TSO_Y, OLIVE_TSO_U0 };
/* NEST 3's names, units and defaults (tsodyks_synapse). */
#define OLIVE_PLAST_TSODYKS_PARS                                                                                          \
    {"U", "", 0.5}, {"tau_psc", "ms", 3.0}, {"tau_rec", "ms", 800.0}, {"tau_fac", "ms", 0.0}, {"x", "", 1.0},           \
        {"y", "", 0.0}, {"u", "", 0.0},

/* tsodyks_synapse::send: the state moved from the last spike to step s's,
 * the jump u x; returns the weight delivered (u x times the weight *w,
 * which stays). */
OLIVE_HD double olive_plast_tsodyks_pre(const double *par, double dt, int64_t s, int d, olive_post_history hist,
                                        double *w, olive_plast_state *st)
{
    (void)d;
    (void)hist;
    const double h = olive_plast_time(s, dt) - olive_plast_time(st->last, dt);
    const double tau_fac = par[OLIVE_TSO_TAU_FAC], tau_psc = par[OLIVE_TSO_TAU_PSC], tau_rec = par[OLIVE_TSO_TAU_REC];
    const double Puu = (tau_fac == 0.0) ? 0.0 : olive_exp_d(-h / tau_fac);
    const double Pyy = olive_exp_d(-h / tau_psc);
    const double Pzz = olive_plast_expm1(-h / tau_rec);
    const double Pxy = (Pzz * tau_rec - (Pyy - 1.0) * tau_psc) / (tau_psc - tau_rec);
    double x = st->s[0], y = st->s[1], u = st->s[2];
    const double z = 1.0 - x - y;
    u *= Puu;
    x += Pxy * y - Pzz * z;
    y *= Pyy;
    u += par[OLIVE_TSO_U] * (1.0 - u);
    const double delta_y_tsp = u * x;
    x -= delta_y_tsp;
    y += delta_y_tsp;
    st->s[0] = x;
    st->s[1] = y;
    st->s[2] = u;
    st->last = s;
    return delta_y_tsp * *w;
}

/* NEST's checks (tsodyks_synapse's set_status). */
static inline const char *olive_plast_tsodyks_fault(const double *q)
{
    if (q[OLIVE_TSO_U] < 0 || q[OLIVE_TSO_U] > 1) return "U must be in [0, 1]";
    if (q[OLIVE_TSO_U0] < 0 || q[OLIVE_TSO_U0] > 1) return "u must be in [0, 1]";
    if (!(q[OLIVE_TSO_TAU_PSC] > 0) || !(q[OLIVE_TSO_TAU_REC] > 0)) return "tau_psc and tau_rec must be > 0 ms";
    if (q[OLIVE_TSO_TAU_FAC] < 0) return "tau_fac must be >= 0 ms";
    if (q[OLIVE_TSO_TAU_PSC] == q[OLIVE_TSO_TAU_REC]) return "tau_psc must differ from tau_rec (NEST's propagator divides by their difference)";
    if (q[OLIVE_TSO_X] < 0 || q[OLIVE_TSO_Y] < 0 || q[OLIVE_TSO_X] + q[OLIVE_TSO_Y] > 1.0)
        return "x and y must be >= 0 with x + y <= 1";
    return NULL;
}

static inline const char *olive_plast_tsodyks_weight_fault(const double *q, double w) { (void)q; (void)w; return NULL; }

static inline void olive_plast_tsodyks_initial(const double *q, olive_plast_state *st)
{
    st->s[0] = q[OLIVE_TSO_X];
    st->s[1] = q[OLIVE_TSO_Y];
    st->s[2] = q[OLIVE_TSO_U0];
}

#endif
