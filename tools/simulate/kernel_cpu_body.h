/* CPU step kernel for one precision; included by kernel_cpu.c with
 * REAL = double and float. The physics is olive_cell_step (common/model.h). */

/* Gap-junction current of local row r, summed in stored order. BITS and GJ
 * are compile-time constants at each call site, so every combination gets
 * its own specialised loop. */
static inline __attribute__((always_inline)) REAL KFN(junction_current)(
    const olive_plan *p, const REAL *vd, const void *cond, const REAL *lut, REAL w0,
    int64_t r, const int bits, const int gj)
{
    REAL vi = vd[r], ic = (REAL)0;
    for (int64_t e = p->lrow_ptr[r]; e < p->lrow_ptr[r + 1]; e++) {
        REAL w;
        if (bits == 0) w = w0;
        else if (bits == 4) w = lut[(((const uint8_t *)cond)[e >> 1] >> ((e & 1) * 4)) & 15];
        else if (bits == 8) w = lut[((const uint8_t *)cond)[e]];
        else if (bits == 16) w = lut[((const uint16_t *)cond)[e]];
        else w = (REAL)((const float *)cond)[e];
        ic = ic + MFN(olive_gj_term)(gj, w, vi - vd[p->lcol[e]]);
    }
    return ic;
}

static inline __attribute__((always_inline)) void KFN(rows)(
    sim_t *s, const int32_t *rows, int64_t nrows, int64_t step, const sim_pulse *active, int nactive,
    const int bits, const int gj)
{
    const olive_plan *p = &s->plan;
    REAL *const *cur = (REAL *const *)s->cur;
    REAL *const *nxt = (REAL *const *)s->nxt;
    const REAL *lut = s->wlut;
    const REAL w0 = (REAL)s->net.offset;
    const void *cond = s->net.cond;
    const REAL thr = (REAL)s->cfg->threshold;
    const int64_t row0 = p->row0;
#pragma omp for schedule(static)
    for (int64_t k = 0; k < nrows; k++) {
        int64_t r = rows[k];
        REAL in[OLIVE_NVARS], out[OLIVE_NVARS];
        for (int v = 0; v < OLIVE_NVARS; v++) in[v] = cur[v][r];
        REAL ic = gj == OLIVE_GJ_NGJ ? (REAL)0 : KFN(junction_current)(p, cur[OV_V_DEND], cond, lut, w0, r, bits, gj);
        REAL iapp = (REAL)0;
        for (int a = 0; a < nactive; a++)
            if (row0 + r >= active[a].first && (active[a].last < 0 || row0 + r < active[a].last))
                iapp = iapp + (REAL)active[a].amp;
        MFN(olive_cell_step)(in, out, iapp, ic);
        for (int v = 0; v < OLIVE_NVARS; v++) nxt[v][r] = out[v];
        if (in[OV_V_AXON] < thr && out[OV_V_AXON] >= thr) sim_note_spike(s, step, row0 + r);
        if (!isfinite(out[OV_V_DEND]) || !isfinite(out[OV_V_SOMA]) || !isfinite(out[OV_V_AXON]))
            sim_note_bad(s, step, row0 + r);
    }
}

static void KFN(dispatch)(sim_t *s, const int32_t *rows, int64_t nrows, int64_t step,
                          const sim_pulse *active, int nactive)
{
#define KCASE(B, G) KFN(rows)(s, rows, nrows, step, active, nactive, B, G)
#define KBITS(G) switch (s->net.bits) { \
    case 0: KCASE(0, G); break; case 4: KCASE(4, G); break; case 8: KCASE(8, G); break; \
    case 16: KCASE(16, G); break; default: KCASE(32, G); break; }
    switch (s->cfg->gj) {
    case OLIVE_GJ_RGJ: KBITS(OLIVE_GJ_RGJ); break;
    case OLIVE_GJ_SGJ: KBITS(OLIVE_GJ_SGJ); break;
    default: KCASE(0, OLIVE_GJ_NGJ); break;
    }
#undef KCASE
#undef KBITS
}
