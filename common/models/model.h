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
/* The gates read a compartment's voltage only within +-2000 mV (OLIVE_GATE_V):
 * beyond, the voltage is taken as blown up and the gates see NaN, so the
 * cell's voltages come out NaN and the engine stops the run naming it, at
 * the step after the one that sent it there (the step at which the clamped
 * exponentials' overflow made it NaN before).
 * Within, every gate exponential's argument lies in [-708, 709] (the
 * widest, (Vd + 80)/4, reaches 520), so the exponentials need no clamps of
 * their own (olive_exp_inrange_d) and give the very bits of the clamped
 * olive_exp_d (tests/unit/test_gate_hold.c). Three tests a cell instead of
 * 22 clamps (each four compares and two selects in the vector loop, a sixth
 * of its instructions). NaN compares false and passes through. The true arm
 * copysign(NaN, v) is not a constant, which keeps GCC from folding the
 * select into every later use of the voltage. */
#define OLIVE_EXP olive_exp_inrange_d
#define OLIVE_EXP_PLUS olive_exp_inrange_plus_d   /* c + exp(x), one fused multiply-add */
#define OLIVE_GATE_V(v) (fabs(v) > 2000.0 ? copysign((double)NAN, (v)) : (v))
#define OLIVE_FABS fabs
#define OLIVE_FMA fma
#include "model_body.h"
#undef OLIVE_REAL
#undef OLIVE_FN
#undef OLIVE_EXP
#undef OLIVE_EXP_PLUS
#undef OLIVE_GATE_V
#undef OLIVE_FABS
#undef OLIVE_FMA

#define OLIVE_REAL float
#define OLIVE_FN(name) name##_f
/* Single precision: float's exp overflows past 88, where the range would
 * have to be +-250 mV; its exponentials keep their own clamps instead. */
#define OLIVE_EXP olive_exp_f
#define OLIVE_EXP_PLUS olive_exp_plus_f
#define OLIVE_GATE_V(v) (v)
#define OLIVE_FABS fabsf
#define OLIVE_FMA fmaf
#include "model_body.h"
#undef OLIVE_REAL
#undef OLIVE_FN
#undef OLIVE_EXP
#undef OLIVE_EXP_PLUS
#undef OLIVE_GATE_V
#undef OLIVE_FABS
#undef OLIVE_FMA

#endif
