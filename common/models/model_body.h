/* The InfOli cell model of MODEL.md: the ONE source of the physics.
 *
 * This body is included by model.h twice, once with OLIVE_REAL = double and once
 * with float, and compiled by gcc for the CPU backend and by nvcc for the CUDA
 * backend. Do not include it directly.
 *
 * The equations are MODEL.md's, written for the divider: a division by a
 * constant is a multiplication by its reciprocal (RCP_), and a gate whose
 * time constant is 1/(a+b) is stepped as x += dt*(a - x*(a+b)), which is
 * MODEL.md's dt*(x_inf - x)/tau with x_inf = a/(a+b) multiplied out. That
 * leaves 18 divisions per cell instead of about 50 (a SIMD division costs
 * as much as ten multiplications). These are rounding-level changes (the
 * MODEL.md table is still met to about 1e-12, tests/test_reference_cell.sh);
 * every backend runs these very operations, so CPU, GPU, any rank count and
 * any SIMD width still give the same bits. Single precision runs the same
 * expressions with float constants. The gates read vdg, vsg, vag: the
 * voltages within the range where their exponentials stay finite, NaN
 * beyond (model.h's OLIVE_GATE_V); the currents read the voltages. */

#define R_ OLIVE_REAL
#define C_(x) ((R_)(x))
#define RCP_(x) ((R_)(1.0 / (x)))   /* a constant's reciprocal, folded at compile time */

/* Removable singularities: 0/0 at Vd = -8.5 (b_r) and V = -25 (a_x).
 * Written as selects, not branches, so a loop over cells stays one SIMD
 * loop (the 0/0 lane is computed and discarded). */
OLIVE_HD R_ OLIVE_FN(olive_beta_r)(R_ vd)
{
    R_ u = vd + C_(8.5);
    R_ b = C_(0.02) * u / (OLIVE_EXP(u * RCP_(5)) - C_(1));
    return OLIVE_FABS(u) < C_(1e-6) ? C_(0.1) : b;
}

OLIVE_HD R_ OLIVE_FN(olive_alpha_x)(R_ v)
{
    R_ u = v + C_(25);
    R_ a = C_(0.13) * u / (C_(1) - OLIVE_EXP(-u * RCP_(10)));
    return OLIVE_FABS(u) < C_(1e-6) ? C_(1.3) : a;
}

/* One x_a / x_s gate step: x += dt*(a/(a+b) - x)*(a+b), i.e. dt*(a - x*(a+b)). */
OLIVE_HD R_ OLIVE_FN(olive_x_gate)(R_ x, R_ v)
{
    R_ a = OLIVE_FN(olive_alpha_x)(v);
    R_ b = C_(1.69) * OLIVE_EXP(C_(-0.0125) * (v + C_(35)));
    return C_(OLIVE_DT) * (a - x * (a + b)) + x;
}

/* Gap-junction current term of one junction, V = Vd_i - Vd_j.
 * kind: OLIVE_GJ_RGJ, OLIVE_GJ_SGJ (NGJ never calls this). */
OLIVE_HD R_ OLIVE_FN(olive_gj_term)(int kind, R_ w, R_ v)
{
    if (kind == OLIVE_GJ_SGJ) return w * v;
    /* The argument is <= 0: the exp without the upper clamp, same bits. */
    R_ f = C_(0.8) * OLIVE_FN(olive_exp_nonpos)((v * v) * RCP_(-100)) + C_(0.2);
    return w * f * v;
}

/* Advance one cell by one step. in[] holds the step-i state (OLIVE_NVARS
 * values, enum olive_var order), out[] receives step i+1; in and out may not
 * alias. i_app: injected current, i_c: summed gap-junction current. */
OLIVE_HD void OLIVE_FN(olive_cell_step)(const R_ *in, R_ *out, R_ i_app, R_ i_c)
{
    const R_ dt = C_(OLIVE_DT);
    const R_ vd = in[OV_V_DEND], vs = in[OV_V_SOMA], va = in[OV_V_AXON];
    const R_ vdg = OLIVE_GATE_V(vd), vsg = OLIVE_GATE_V(vs), vag = OLIVE_GATE_V(va);

    /* ---- dendrite: gates ---- */
    R_ q_inf = C_(1) / (C_(1) + OLIVE_EXP((vdg + C_(80)) * RCP_(4)));
    R_ rate_q = OLIVE_EXP(C_(-0.086) * vdg - C_(14.6)) + OLIVE_EXP(C_(0.070) * vdg - C_(1.87));   /* 1/tau_q */
    R_ q = dt * ((q_inf - in[OV_Q]) * rate_q) + in[OV_Q];

    /* r_inf = a/(a+b), tau_r = 5/(a+b): (r_inf - r)/tau_r = (a - r*(a+b))/5 */
    R_ a_r = C_(1.7) / (C_(1) + OLIVE_EXP(-(vdg - C_(5)) * RCP_(13.9)));
    R_ b_r = OLIVE_FN(olive_beta_r)(vdg);
    R_ r = dt * ((a_r - in[OV_R] * (a_r + b_r)) * RCP_(5)) + in[OV_R];

    R_ a_s = C_(0.00002) * in[OV_CA];
    a_s = a_s < C_(0.01) ? a_s : C_(0.01);
    R_ b_s = C_(0.015);
    R_ s = dt * (a_s - in[OV_S] * (a_s + b_s)) + in[OV_S];

    R_ ca = dt * (C_(-3) * in[OV_I_CAH] - C_(0.075) * in[OV_CA]) + in[OV_CA];

    /* ---- dendrite: currents and voltage ---- */
    R_ i_sd = (C_(OLIVE_G_INT) / (C_(1) - C_(OLIVE_P1))) * (vd - vs);
    R_ i_cah = C_(4.5) * r * r * (vd - C_(120));
    R_ i_kca = C_(35) * s * (vd - C_(-75));
    R_ i_ld = C_(0.016) * (vd - C_(10));
    R_ i_h = C_(0.125) * q * (vd - C_(-43));
    R_ vd_new = dt * (-(i_cah + i_sd + i_ld + i_kca + i_c + i_h) + i_app) + vd;   /* C_M = 1 */

    /* ---- soma: gates ---- */
    R_ k_inf = C_(1) / (C_(1) + OLIVE_EXP(-(vsg + C_(61)) * RCP_(4.2)));
    R_ l_inf = C_(1) / (C_(1) + OLIVE_EXP((vsg + C_(85.5)) * RCP_(8.5)));
    /* tau_l = 20*e/(1+E) + 35 = (20*e + 35*(1+E))/(1+E): one division for 1/tau_l */
    R_ one_e = C_(1) + OLIVE_EXP((vsg + C_(84)) * RCP_(7.3));
    R_ tau_l_num = C_(20) * OLIVE_EXP((vsg + C_(160)) * RCP_(30)) + C_(35) * one_e;
    R_ k = dt * (k_inf - in[OV_K]) + in[OV_K];
    R_ l = dt * ((l_inf - in[OV_L]) * one_e / tau_l_num) + in[OV_L];

    R_ m = C_(1) / (C_(1) + OLIVE_EXP((C_(-30) - vsg) * RCP_(5.5)));
    R_ h_inf = C_(1) / (C_(1) + OLIVE_EXP((C_(-70) - vsg) * RCP_(-5.8)));
    R_ tau_h = C_(3) * OLIVE_EXP((C_(-40) - vsg) * RCP_(33));
    R_ h = in[OV_H] + ((h_inf - in[OV_H]) / tau_h) * dt;

    R_ n_inf = C_(1) / (C_(1) + OLIVE_EXP((C_(-3) - vsg) * RCP_(10)));
    R_ p_inf = C_(1) / (C_(1) + OLIVE_EXP((C_(-51) - vsg) * RCP_(-12)));
    R_ rate_n = C_(1) / (C_(5) + (C_(47) * OLIVE_EXP((vsg + C_(50)) * RCP_(900))));   /* 1/tau_n */
    R_ n = dt * ((n_inf - in[OV_N]) * rate_n) + in[OV_N];
    R_ p = dt * ((p_inf - in[OV_P]) * rate_n) + in[OV_P];

    R_ x_s = OLIVE_FN(olive_x_gate)(in[OV_X_S], vsg);

    /* ---- soma: currents and voltage ---- */
    R_ g_cal = in[OV_G_CAL];
    R_ i_ds = (C_(OLIVE_G_INT) / C_(OLIVE_P1)) * (vs - vd);
    R_ i_cal = g_cal * k * k * k * l * (vs - C_(120));
    R_ i_na_s = C_(150) * m * m * m * h * (vs - C_(55));
    R_ i_ls = C_(0.016) * (vs - C_(10));
    R_ i_kdr = C_(9) * n * n * n * n * (vs - C_(-75));
    R_ i_k_s = C_(5) * (x_s * x_s * x_s * x_s) * (vs - C_(-75));
    R_ i_as = (C_(OLIVE_G_INT) / (C_(1) - C_(OLIVE_P2))) * (vs - va);
    R_ vs_new = dt * (-(i_cal + i_ds + i_as + i_na_s + i_ls + i_kdr + i_k_s)) + vs;

    /* ---- axon ---- */
    R_ m_a = C_(1) / (C_(1) + OLIVE_EXP((C_(-30) - vag) * RCP_(5.5)));
    R_ h_inf_a = C_(1) / (C_(1) + OLIVE_EXP((C_(-60) - vag) * RCP_(-5.8)));
    R_ tau_h_a = C_(1.5) * OLIVE_EXP((C_(-40) - vag) * RCP_(33));
    R_ h_a = in[OV_H_A] + ((h_inf_a - in[OV_H_A]) / tau_h_a) * dt;
    R_ x_a = OLIVE_FN(olive_x_gate)(in[OV_X_A], vag);

    R_ i_na_a = C_(240) * m_a * m_a * m_a * h_a * (va - C_(55));
    R_ i_la = C_(0.016) * (va - C_(10));
    R_ i_sa = (C_(OLIVE_G_INT) / C_(OLIVE_P2)) * (va - vs);
    R_ i_k_a = C_(20) * (x_a * x_a * x_a * x_a) * (va - C_(-75));
    R_ va_new = dt * (-(i_k_a + i_sa + i_la + i_na_a)) + va;

    out[OV_V_DEND] = vd_new; out[OV_Q] = q; out[OV_R] = r; out[OV_S] = s;
    out[OV_CA] = ca; out[OV_I_CAH] = i_cah;
    out[OV_G_CAL] = g_cal; out[OV_V_SOMA] = vs_new; out[OV_M] = m; out[OV_H] = h;
    out[OV_K] = k; out[OV_L] = l; out[OV_N] = n; out[OV_P] = p; out[OV_X_S] = x_s;
    out[OV_V_AXON] = va_new; out[OV_M_A] = m_a; out[OV_H_A] = h_a; out[OV_X_A] = x_a;
}

#undef R_
#undef C_
#undef RCP_
