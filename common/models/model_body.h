/* The InfOli cell model of MODEL.md: the ONE source of the physics.
 *
 * This body is included by model.h twice, once with OLIVE_REAL = double and once
 * with float, and compiled by gcc for the CPU backend and by nvcc for the CUDA
 * backend. Do not include it directly.
 *
 * The equations are MODEL.md's, written for the vector units:
 * - a division by a constant is a multiplication by its reciprocal (RCP_),
 *   a gate whose time constant is 1/(a+b) is stepped as
 *   x += dt*(a - x*(a+b)), which is MODEL.md's dt*(x_inf - x)/tau with
 *   x_inf = a/(a+b) multiplied out, and dt/tau where tau is k e^(c v + d)
 *   is the one exponential e^(-c v - d - ln k + ln dt): 15 divisions per
 *   cell instead of ~50;
 * - every a*b + c is one fused multiply-add (FMA_: fma(), correctly rounded
 *   on every path: the FMA instruction on AVX2/AVX-512 and the GPU, glibc's
 *   exact fma elsewhere), an exponential's argument c*(v + d) is
 *   FMA_(v, c, c*d), a constant factor k of an exponential is + ln k in its
 *   argument, and c + exp(x) is the exponential's last multiply-add
 *   (OLIVE_EXP_PLUS, fastexp.h). The AVX-512 loop is bound by its vector
 *   operations, most of them the 22 exponentials': 617 -> 534 a vector of
 *   8 cells, +10-18 % cell-steps/s on one core (BENCHMARKS.md).
 * These are rounding-level changes (the MODEL.md table is still met to about
 * 1e-12, tests/test_reference_cell.sh); every backend runs these very
 * operations, so CPU, GPU, any rank count and any SIMD width still give the
 * same bits. Single precision runs the same expressions with float
 * constants. The gates read vdg, vsg, vag: the voltages within the range
 * where their exponentials stay finite, NaN beyond (model.h's
 * OLIVE_GATE_V); the currents read the voltages. */

#define R_ OLIVE_REAL
#define C_(x) ((R_)(x))
#define RCP_(x) ((R_)(1.0 / (x)))   /* a constant's reciprocal, folded at compile time */
#define FMA_ OLIVE_FMA               /* fma or fmaf (model.h) */
#define LN_DT_ (-2.995732273553991)   /* ln OLIVE_DT: dt folded into an exponential */

/* Removable singularities: 0/0 at Vd = -8.5 (b_r) and V = -25 (a_x).
 * Written as selects, not branches, so a loop over cells stays one SIMD
 * loop (the 0/0 lane is computed and discarded). */
OLIVE_HD R_ OLIVE_FN(olive_beta_r)(R_ vd)
{
    R_ u = vd + C_(8.5);
    R_ b = C_(0.02) * u / OLIVE_EXP_PLUS(u * RCP_(5), C_(-1));
    return OLIVE_FABS(u) < C_(1e-6) ? C_(0.1) : b;
}

OLIVE_HD R_ OLIVE_FN(olive_alpha_x)(R_ v)
{
    R_ u = v + C_(25);
    R_ a = C_(-0.13) * u / OLIVE_EXP_PLUS(-u * RCP_(10), C_(-1));   /* 0.13 u/(1 - e) */
    return OLIVE_FABS(u) < C_(1e-6) ? C_(1.3) : a;
}

/* One x_a / x_s gate step: x += dt*(a/(a+b) - x)*(a+b), i.e. dt*(a - x*(a+b)),
 * with b = 1.69 exp(-0.0125 (v + 35)). */
OLIVE_HD R_ OLIVE_FN(olive_x_gate)(R_ x, R_ v)
{
    R_ a = OLIVE_FN(olive_alpha_x)(v);
    R_ a_b = OLIVE_EXP_PLUS(FMA_(v, C_(-0.0125), C_(-0.0125 * 35 + 0.5247285289349821)), a);   /* a + b: + ln 1.69 */
    return FMA_(C_(OLIVE_DT), FMA_(-x, a_b, a), x);
}

/* Gap-junction current term of one junction, V = Vd_i - Vd_j.
 * kind: OLIVE_GJ_RGJ, OLIVE_GJ_SGJ (NGJ never calls this). */
OLIVE_HD R_ OLIVE_FN(olive_gj_term)(int kind, R_ w, R_ v)
{
    if (kind == OLIVE_GJ_SGJ) return w * v;
    /* 0.8 exp(-V^2/100) + 0.2 as exp(-V^2/100 + ln 0.8) + 0.2: one fused
     * multiply-add (the argument is <= 0: the exp without the upper clamp) */
    R_ f = OLIVE_FN(olive_exp_nonpos_plus)(FMA_(v, v * RCP_(-100), C_(-0.2231435513142097)), C_(0.2));
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
    R_ q_inf = C_(1) / OLIVE_EXP_PLUS(FMA_(vdg, RCP_(4), C_(80.0 / 4)), C_(1));   /* (v + 80)/4 */
    /* dt/tau_q = dt (e^(-0.086 v - 14.6) + e^(0.070 v - 1.87)): + ln dt */
    R_ dt_rate_q = OLIVE_EXP_PLUS(FMA_(vdg, C_(0.070), C_(-1.87 + LN_DT_)), OLIVE_EXP(FMA_(vdg, C_(-0.086), C_(-14.6 + LN_DT_))));
    R_ q = FMA_(q_inf - in[OV_Q], dt_rate_q, in[OV_Q]);

    /* r_inf = a/(a+b), tau_r = 5/(a+b): (r_inf - r)/tau_r = (a - r*(a+b))/5 */
    R_ a_r = C_(1.7) / OLIVE_EXP_PLUS(FMA_(vdg, RCP_(-13.9), C_(5 / 13.9)), C_(1));   /* -(v - 5)/13.9 */
    R_ b_r = OLIVE_FN(olive_beta_r)(vdg);
    R_ r = FMA_(FMA_(-in[OV_R], a_r + b_r, a_r), C_(OLIVE_DT / 5), in[OV_R]);

    R_ a_s = C_(0.00002) * in[OV_CA];
    a_s = a_s < C_(0.01) ? a_s : C_(0.01);
    R_ b_s = C_(0.015);
    R_ s = FMA_(dt, FMA_(-in[OV_S], a_s + b_s, a_s), in[OV_S]);

    /* ca + dt*(-3 I_CaH - 0.075 ca) */
    R_ ca = FMA_(C_(-3 * OLIVE_DT), in[OV_I_CAH], FMA_(C_(-0.075 * OLIVE_DT), in[OV_CA], in[OV_CA]));

    /* ---- dendrite: currents and voltage (C_M = 1) ---- */
    R_ i_sd = (C_(OLIVE_G_INT) / (C_(1) - C_(OLIVE_P1))) * (vd - vs);
    R_ i_cah = C_(4.5) * r * r * (vd - C_(120));
    /* the other currents added as they are formed, each its last product:
     * i_kca = 35 s (vd + 75), i_ld = 0.016 (vd - 10), i_h = 0.125 q (vd + 43) */
    R_ i_d = FMA_(C_(35) * s, vd - C_(-75), i_cah + i_sd);
    i_d = FMA_(C_(0.016), vd - C_(10), i_d);
    i_d = FMA_(C_(0.125) * q, vd - C_(-43), i_d);
    R_ vd_new = FMA_(dt, i_app - (i_d + i_c), vd);

    /* ---- soma: gates ---- */
    R_ k_inf = C_(1) / OLIVE_EXP_PLUS(FMA_(vsg, RCP_(-4.2), C_(-61 / 4.2)), C_(1));   /* -(v + 61)/4.2 */
    R_ l_inf = C_(1) / OLIVE_EXP_PLUS(FMA_(vsg, RCP_(8.5), C_(85.5 / 8.5)), C_(1));
    /* tau_l = 20*e/(1+E) + 35 = (20*e + 35*(1+E))/(1+E): one division for 1/tau_l */
    R_ one_e = OLIVE_EXP_PLUS(FMA_(vsg, RCP_(7.3), C_(84 / 7.3)), C_(1));
    R_ tau_l_num = FMA_(C_(35), one_e, OLIVE_EXP(FMA_(vsg, RCP_(30), C_(160.0 / 30 + 2.995732273553991))));   /* 20 e: + ln 20 */
    R_ k = FMA_(dt, k_inf - in[OV_K], in[OV_K]);
    R_ l = FMA_(dt, (l_inf - in[OV_L]) * one_e / tau_l_num, in[OV_L]);

    R_ m = C_(1) / OLIVE_EXP_PLUS(FMA_(vsg, RCP_(-5.5), C_(-30 / 5.5)), C_(1));   /* (-30 - v)/5.5 */
    R_ h_inf = C_(1) / OLIVE_EXP_PLUS(FMA_(vsg, RCP_(5.8), C_(70 / 5.8)), C_(1));   /* (-70 - v)/-5.8 */
    /* dt/tau_h, tau_h = 3 e^((-40 - v)/33): - ln 3 + ln dt */
    R_ dt_rate_h = OLIVE_EXP(FMA_(vsg, RCP_(33), C_(40 / 33.0 - 1.0986122886681098 + LN_DT_)));
    R_ h = FMA_(h_inf - in[OV_H], dt_rate_h, in[OV_H]);

    R_ n_inf = C_(1) / OLIVE_EXP_PLUS(FMA_(vsg, RCP_(-10), C_(-3 / 10.0)), C_(1));   /* (-3 - v)/10 */
    R_ p_inf = C_(1) / OLIVE_EXP_PLUS(FMA_(vsg, RCP_(12), C_(51 / 12.0)), C_(1));   /* (-51 - v)/-12 */
    /* dt/tau_n = 1/((5 + 47 e^((v + 50)/900))/dt): + ln 47 - ln dt */
    R_ dt_rate_n = C_(1) / OLIVE_EXP_PLUS(FMA_(vsg, RCP_(900), C_(50 / 900.0 + 3.8501476017100584 - LN_DT_)), C_(5 / OLIVE_DT));
    R_ n = FMA_(n_inf - in[OV_N], dt_rate_n, in[OV_N]);
    R_ p = FMA_(p_inf - in[OV_P], dt_rate_n, in[OV_P]);

    R_ x_s = OLIVE_FN(olive_x_gate)(in[OV_X_S], vsg);

    /* ---- soma: currents and voltage ---- */
    R_ g_cal = in[OV_G_CAL];
    R_ vk = vs - C_(-75);
    R_ i_s = (C_(OLIVE_G_INT) / C_(OLIVE_P1)) * (vs - vd);                    /* i_ds, then the others added: */
    i_s = FMA_(g_cal * k * k * k * l, vs - C_(120), i_s);                     /* i_cal */
    i_s = FMA_(C_(OLIVE_G_INT) / (C_(1) - C_(OLIVE_P2)), vs - va, i_s);       /* i_as */
    i_s = FMA_(C_(150) * m * m * m * h, vs - C_(55), i_s);                    /* i_na_s */
    i_s = FMA_(C_(0.016), vs - C_(10), i_s);                                  /* i_ls */
    i_s = FMA_(C_(9) * n * n * n * n, vk, i_s);                               /* i_kdr */
    i_s = FMA_(C_(5) * (x_s * x_s * x_s * x_s), vk, i_s);                     /* i_k_s */
    R_ vs_new = FMA_(-dt, i_s, vs);

    /* ---- axon ---- */
    R_ m_a = C_(1) / OLIVE_EXP_PLUS(FMA_(vag, RCP_(-5.5), C_(-30 / 5.5)), C_(1));
    R_ h_inf_a = C_(1) / OLIVE_EXP_PLUS(FMA_(vag, RCP_(5.8), C_(60 / 5.8)), C_(1));   /* (-60 - v)/-5.8 */
    /* dt/tau_h_a, tau_h_a = 1.5 e^((-40 - v)/33): - ln 1.5 + ln dt */
    R_ dt_rate_h_a = OLIVE_EXP(FMA_(vag, RCP_(33), C_(40 / 33.0 - 0.4054651081081644 + LN_DT_)));
    R_ h_a = FMA_(h_inf_a - in[OV_H_A], dt_rate_h_a, in[OV_H_A]);
    R_ x_a = OLIVE_FN(olive_x_gate)(in[OV_X_A], vag);

    R_ i_a = (C_(OLIVE_G_INT) / C_(OLIVE_P2)) * (va - vs);                    /* i_sa, then: */
    i_a = FMA_(C_(20) * (x_a * x_a * x_a * x_a), va - C_(-75), i_a);          /* i_k_a */
    i_a = FMA_(C_(0.016), va - C_(10), i_a);                                  /* i_la */
    i_a = FMA_(C_(240) * m_a * m_a * m_a * h_a, va - C_(55), i_a);            /* i_na_a */
    R_ va_new = FMA_(-dt, i_a, va);

    out[OV_V_DEND] = vd_new; out[OV_Q] = q; out[OV_R] = r; out[OV_S] = s;
    out[OV_CA] = ca; out[OV_I_CAH] = i_cah;
    out[OV_G_CAL] = g_cal; out[OV_V_SOMA] = vs_new; out[OV_M] = m; out[OV_H] = h;
    out[OV_K] = k; out[OV_L] = l; out[OV_N] = n; out[OV_P] = p; out[OV_X_S] = x_s;
    out[OV_V_AXON] = va_new; out[OV_M_A] = m_a; out[OV_H_A] = h_a; out[OV_X_A] = x_a;
}

#undef R_
#undef C_
#undef RCP_
#undef FMA_
#undef LN_DT_
