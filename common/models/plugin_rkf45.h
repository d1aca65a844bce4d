/* The adaptive Runge-Kutta-Fehlberg 4(5) of NESTML-generated plugins
 * (python/olive/nestml/generator.py), as NEST integrates its non-linear
 * models through GSL: gsl_odeiv_step_rkf45 + gsl_odeiv_control_y_new(atol,
 * rtol) + gsl_odeiv_evolve_apply in a loop over one simulation step, the
 * last internal step size carried to the next step (NEST's
 * IntegrationStep_). The coefficients, the error estimate, the evaluation
 * order of every sum and the step rules are GSL's (ode-initval/rkf45.c,
 * cstd.c, evolve.c); GSL's pow() is olive_pow_d here, so that CPU and GPU
 * give the same bits (hence not GSL's last bits).
 *
 * Per cell: local arrays, no static data, no allocation (nvcc compiles the
 * same text). The generated code evaluates the right-hand sides; these
 * helpers do the rest. k holds the six stages of n variables: k[s * n + i].
 * The caller defines olive_pow_d (olive_exp_d(b * olive_log_d(a))). */
#ifndef OLIVE_PLUGIN_RKF45_H
#define OLIVE_PLUGIN_RKF45_H
#include "hostdev.h"

/* Tries (accepted and rejected internal steps) allowed in one simulation
 * step: past it the cell is failed (its variables NaN: step() returns 0). */
#define OLIVE_RKF45_MAX_TRIES 10000
/* The least internal step, as a fraction of the simulation step (GSL's
 * users bound it: gsl_odeiv2_driver_set_hmin): a step size the control
 * shrinks below it fails the cell at once, so that tolerances no double can
 * meet (gsl_abs_error_tol = 1e-300) cost a few tries, not OLIVE_RKF45_MAX_TRIES. */
#define OLIVE_RKF45_H_MIN 1e-12

/* ytmp: the argument of stage s (0..5) of a step h from y (GSL's rows). */
OLIVE_HD void olive_rkf45_stage_arg(int s, int n, double h, const double *y, const double *k, double *ytmp)
{
    for (int i = 0; i < n; i++) {
        const double *K = k + i;
        switch (s) {
        case 0: ytmp[i] = y[i]; break;
        case 1: ytmp[i] = y[i] + (1.0 / 4.0) * h * K[0]; break;
        case 2: ytmp[i] = y[i] + h * ((3.0 / 32.0) * K[0] + (9.0 / 32.0) * K[n]); break;
        case 3: ytmp[i] = y[i] + h * ((1932.0 / 2197.0) * K[0] + (-7200.0 / 2197.0) * K[n] + (7296.0 / 2197.0) * K[2 * n]); break;
        case 4:
            ytmp[i] = y[i] + h * ((8341.0 / 4104.0) * K[0] + (-32832.0 / 4104.0) * K[n] + (29440.0 / 4104.0) * K[2 * n]
                                  + (-845.0 / 4104.0) * K[3 * n]);
            break;
        default:
            ytmp[i] = y[i] + h * ((-6080.0 / 20520.0) * K[0] + (41040.0 / 20520.0) * K[n] + (-28352.0 / 20520.0) * K[2 * n]
                                  + (9295.0 / 20520.0) * K[3 * n] + (-5643.0 / 20520.0) * K[4 * n]);
            break;
        }
    }
}

/* The step's result y = y0 + h * d (GSL's 5th-order weights c1..c6) and
 * yerr, the difference of the 4th- and 5th-order results (GSL's ec[]). */
OLIVE_HD void olive_rkf45_finish(int n, double h, const double *y0, const double *k, double *y, double *yerr)
{
    for (int i = 0; i < n; i++) {
        const double *K = k + i;
        const double d = (902880.0 / 7618050.0) * K[0] + (3953664.0 / 7618050.0) * K[2 * n] + (3855735.0 / 7618050.0) * K[3 * n]
                         + (-1371249.0 / 7618050.0) * K[4 * n] + (277020.0 / 7618050.0) * K[5 * n];
        y[i] = y0[i] + h * d;
        yerr[i] = h * ((1.0 / 360.0) * K[0] + (-128.0 / 4275.0) * K[2 * n] + (-2197.0 / 75240.0) * K[3 * n]
                       + (1.0 / 50.0) * K[4 * n] + (2.0 / 55.0) * K[5 * n]);
    }
}

/* GSL's standard control with a_y = 1, a_dydt = 0 (gsl_odeiv_control_y_new)
 * for a method of order 5: *h becomes the next step size; returns -1 where
 * the step must shrink (GSL_ODEIV_HADJ_DEC), 1 where it grows, 0 else. */
OLIVE_HD int olive_rkf45_hadjust(int n, const double *y, const double *yerr, double eps_abs, double eps_rel, double *h)
{
    const double S = 0.9, h_old = *h;
    double rmax = 2.2250738585072014e-308;   /* DBL_MIN */
    for (int i = 0; i < n; i++) {
        /* GSL: eps_rel * (a_y * |y| + a_dydt * |h_old y'|) + eps_abs, the same bits for a_y = 1, a_dydt = 0 */
        const double D0 = eps_rel * fabs(y[i]) + eps_abs;
        const double r = fabs(yerr[i]) / fabs(D0);
        rmax = r > rmax ? r : rmax;          /* GSL_MAX_DBL: a NaN r is passed over, as in GSL */
    }
    if (rmax > 1.1) {
        double r = S / olive_pow_d(rmax, 1.0 / 5);
        if (r < 0.2) r = 0.2;
        *h = r * h_old;
        return -1;
    }
    if (rmax < 0.5) {
        double r = S / olive_pow_d(rmax, 1.0 / (5 + 1.0));
        if (r > 5.0) r = 5.0;
        if (r < 1.0) r = 1.0;
        *h = r * h_old;
        return 1;
    }
    return 0;
}

/* After the try of a step h_old ending at t (gsl_odeiv_evolve_apply): is
 * the try rejected? It is where the control shrank the step and the smaller
 * step still moves t; else *h, where the control wanted a decrease that does
 * not hold, goes back to h_old. */
OLIVE_HD int olive_rkf45_reject(int status, double t, double h_old, double *h)
{
    if (status < 0) {
        if (fabs(*h) < fabs(h_old) && t + *h != t) return 1;
        *h = h_old;
    }
    return 0;
}
#endif
