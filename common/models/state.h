/* The 19 state values of one InfOli cell (MODEL.md), their names as used by
 * --record and in the report files, units, and initial values. */
#ifndef OLIVE_STATE_H
#define OLIVE_STATE_H

enum olive_var {
    OV_V_DEND, OV_Q, OV_R, OV_S, OV_CA, OV_I_CAH,           /* dendrite */
    OV_G_CAL, OV_V_SOMA, OV_M, OV_H, OV_K, OV_L, OV_N, OV_P, OV_X_S, /* soma */
    OV_V_AXON, OV_M_A, OV_H_A, OV_X_A,                      /* axon */
    OLIVE_NVARS
};

/* Lower-case names used on the command line and as report file names. */
extern const char *const olive_var_names[OLIVE_NVARS];
/* Units attribute of each report. */
extern const char *const olive_var_units[OLIVE_NVARS];
/* MODEL.md initial values. */
extern const double olive_var_initial[OLIVE_NVARS];

/* Index of a variable by name (case-insensitive), or -1. */
int olive_var_by_name(const char *name);

#endif
