/* The InfOli model for both precisions and both backends.
 * olive_cell_step_d / olive_cell_step_f advance one cell; olive_gj_term_d/_f
 * give one junction's contribution to I_c. See model_body.h. */
#ifndef OLIVE_MODEL_H
#define OLIVE_MODEL_H
#include <math.h>
#include "hostdev.h"
#include "fastexp.h"
#include "state.h"

#define OLIVE_DT 0.05          /* ms */
#define OLIVE_G_INT 0.13
#define OLIVE_P1 0.25
#define OLIVE_P2 0.15

enum olive_gj_kind { OLIVE_GJ_RGJ = 0, OLIVE_GJ_SGJ = 1, OLIVE_GJ_NGJ = 2 };

#define OLIVE_REAL double
#define OLIVE_FN(name) name##_d
#define OLIVE_EXP olive_exp_d
#define OLIVE_FABS fabs
#include "model_body.h"
#undef OLIVE_REAL
#undef OLIVE_FN
#undef OLIVE_EXP
#undef OLIVE_FABS

#define OLIVE_REAL float
#define OLIVE_FN(name) name##_f
#define OLIVE_EXP olive_exp_f
#define OLIVE_FABS fabsf
#include "model_body.h"
#undef OLIVE_REAL
#undef OLIVE_FN
#undef OLIVE_EXP
#undef OLIVE_FABS

#endif
