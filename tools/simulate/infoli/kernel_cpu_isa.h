/* The CPU step kernel's loops for one precision and one instruction set;
 * included by kernel_cpu.c for each (REAL double or float; KIFN the names
 * and KISA_ATTR the target of the set: x86-64-v4, v3 or the build's
 * default). kernel_cpu_body.h's driver calls the set sim_simd_select chose.
 * Every set gives the same bits: plain IEEE arithmetic without
 * contraction, and fastexp.h's fma() exact with or without the FMA
 * instruction (tests/test_simd_paths.sh). */

/* Gap-junction terms of local row r into term[0..n), in a SIMD loop. BITS
 * and GJ are compile-time constants at each call site, so every combination
 * gets its own loop. The loop runs on to a whole number of 64-byte vectors:
 * the terms past n come from the next row or the zeroed padding
 * (OLIVE_JUNCTION_PAD) and are never used. Returns n. */
static inline __attribute__((always_inline)) int64_t KIFN(junction_terms)(
    const olive_plan *p, const REAL *vd, const void *cond, const REAL *lut, REAL w0,
    int64_t r, REAL *term, const int bits, const int gj)
{
    const int64_t e0 = p->lrow_ptr[r], n = p->lrow_ptr[r + 1] - e0;
    const int64_t lanes = 64 / (int64_t)sizeof(REAL);
    const int64_t nv = (n + lanes - 1) / lanes * lanes;
    _Static_assert(64 / sizeof(REAL) <= OLIVE_JUNCTION_PAD, "padding shorter than a vector");
    const int32_t *lcol = p->lcol + e0;
    const REAL vi = vd[r];
#pragma omp simd
    for (int64_t j = 0; j < nv; j++) {
        const int64_t e = e0 + j;
        REAL w;
        if (bits == 0) w = w0;
        else if (bits == 4) w = lut[(((const uint8_t *)cond)[e >> 1] >> ((e & 1) * 4)) & 15];
        else if (bits == 8) w = lut[((const uint8_t *)cond)[e]];
        else if (bits == 16) w = lut[((const uint16_t *)cond)[e]];
        else if (bits == 32) w = (REAL)((const float *)cond)[e];
        else w = (REAL)((const double *)cond)[e];
        term[j] = MFN(olive_gj_term)(gj, w, vi - vd[lcol[j]]);
    }
    return n;
}

/* The 8 x 8 block of terms t[l][j0..j0+7] of 8 rows (row l at t + l * stride)
 * added to the rows' sums a[l] in the order j0, j0 + 1, ..., j0 + 7: the block
 * turned around in registers (three rounds of shuffles), so that each add
 * takes the next term of all 8 rows at once. The same additions in the same
 * order as a[l] = a[l] + t[l][j] one by one, which read the terms back one
 * at a time (a fifth of the pass at 100 junctions a cell). */
static inline __attribute__((always_inline)) void KIFN(add_block)(KFN(rowvec) *a, const REAL *t, int64_t stride)
{
    _Static_assert(SIM_ROW_LANES == 8, "the block is turned around as 8 x 8");
    typedef KFN(rowvec) V;
    typedef KFN(rowmask) M;
    V r[8], p[8], q[8], u[8];
    for (int l = 0; l < 8; l++) memcpy(&r[l], t + l * stride, sizeof(V));
    for (int l = 0; l < 8; l += 2) {   /* pairs of rows: (r0[0] r1[0] r0[2] r1[2] ...), (r0[1] r1[1] ...) */
        p[l] = __builtin_shuffle(r[l], r[l + 1], (M){0, 8, 2, 10, 4, 12, 6, 14});
        p[l + 1] = __builtin_shuffle(r[l], r[l + 1], (M){1, 9, 3, 11, 5, 13, 7, 15});
    }
    for (int l = 0; l < 8; l += 4)     /* fours: (r0..r3 [k], r0..r3 [k + 4]) */
        for (int k = 0; k < 2; k++) {
            q[l + k] = __builtin_shuffle(p[l + k], p[l + k + 2], (M){0, 1, 8, 9, 4, 5, 12, 13});
            q[l + k + 2] = __builtin_shuffle(p[l + k], p[l + k + 2], (M){2, 3, 10, 11, 6, 7, 14, 15});
        }
    for (int k = 0; k < 4; k++) {       /* u[k] = (r0[k] r1[k] ... r7[k]) */
        u[k] = __builtin_shuffle(q[k], q[k + 4], (M){0, 1, 2, 3, 8, 9, 10, 11});
        u[k + 4] = __builtin_shuffle(q[k], q[k + 4], (M){4, 5, 6, 7, 12, 13, 14, 15});
    }
    for (int k = 0; k < 8; k++) *a = *a + u[k];
}

/* Each row's terms are summed one by one in stored order (the same bits for
 * any split of the rows), but SIM_ROW_LANES rows at a time: their sums are
 * independent chains, so the adds overlap instead of waiting on each other.
 * Rows shorter than the group's longest are padded with +0.0 terms to a
 * whole block, which leave a sum unchanged (a sum that starts at +0.0 is
 * never -0.0); the buffer's padding (OLIVE_JUNCTION_PAD) holds the block. */
static inline __attribute__((always_inline)) void KIFN(currents_of)(
    sim_t *s, const int32_t *rows, int64_t nrows, const int bits, const int gj)
{
    const olive_plan *p = &s->plan;
    const REAL *vd = s->state[OV_V_DEND];
    const REAL *lut = s->io.wlut;
    const REAL w0 = (REAL)s->net.offset;
    const void *cond = s->net.cond;
    const int64_t stride = s->io.tbuf_stride;
    REAL *ic = s->io.ic;
    REAL *term = (REAL *)s->io.tbuf[omp_get_thread_num()];
    _Static_assert(SIM_ROW_LANES <= OLIVE_JUNCTION_PAD, "a block past the longest row outruns the padding");
#pragma omp for schedule(static) nowait
    for (int64_t g = 0; g < nrows; g += SIM_ROW_LANES) {
        const int m = nrows - g < SIM_ROW_LANES ? (int)(nrows - g) : SIM_ROW_LANES;
        int64_t n[SIM_ROW_LANES], maxn = 0;
        for (int l = 0; l < m; l++) {
            /* The column indices stream from memory at a row's worth of
             * lines at a time, which the hardware prefetchers follow late:
             * ask for a row SIM_LCOL_AHEAD rows ahead (+12-17% at 65536
             * cells x 100 junctions, no change when they fit in cache). */
            if (g + l + SIM_LCOL_AHEAD < nrows) {
                const int64_t r2 = rows[g + l + SIM_LCOL_AHEAD];
                const char *c0 = (const char *)(p->lcol + p->lrow_ptr[r2]);
                const char *c1 = (const char *)(p->lcol + p->lrow_ptr[r2 + 1]);
                for (const char *c = c0; c < c1 + 64; c += 64) __builtin_prefetch(c, 0, 3);
            }
            n[l] = KIFN(junction_terms)(p, vd, cond, lut, w0, rows[g + l], term + l * stride, bits, gj);
            maxn = n[l] > maxn ? n[l] : maxn;
        }
        for (int l = m; l < SIM_ROW_LANES; l++) n[l] = 0;
        const int64_t nb = (maxn + SIM_ROW_LANES - 1) / SIM_ROW_LANES * SIM_ROW_LANES;
        for (int l = 0; l < SIM_ROW_LANES; l++)
            for (int64_t j = n[l]; j < nb; j++) term[l * stride + j] = (REAL)0;
        KFN(rowvec) a = {0};
        for (int64_t j = 0; j < nb; j += SIM_ROW_LANES) KIFN(add_block)(&a, term + j, stride);
        for (int l = 0; l < m; l++) ic[rows[g + l]] = a[l];
    }
}

static void KISA_ATTR KIFN(currents)(sim_t *s, const int32_t *rows, int64_t nrows)
{
#define KCASE(B, G) KIFN(currents_of)(s, rows, nrows, B, G)
#define KBITS(G) switch (s->net.bits) { \
    case 0: KCASE(0, G); break; case 4: KCASE(4, G); break; case 8: KCASE(8, G); break; \
    case 16: KCASE(16, G); break; case 32: KCASE(32, G); break; default: KCASE(64, G); break; }
    if (s->cfg->infoli.gj == OLIVE_GJ_RGJ) { KBITS(OLIVE_GJ_RGJ); }
    else { KBITS(OLIVE_GJ_SGJ); }
#undef KCASE
#undef KBITS
}

/* Cells [a, b), in place: each cell's 19 values are loaded, stepped and
 * stored back (one copy of the state: a third less memory traffic than
 * reading one buffer and writing another, whose lines the stores must first
 * fetch). The 19 arrays come in as separate restrict parameters (GCC
 * honours restrict on parameters, and 19 x 19 alias checks would otherwise
 * stop vectorisation). flag: bit 0 spike, bit 1 non-finite. */
#define KPARAM(v) , REAL *restrict x##v
__attribute__((noinline)) KISA_ATTR
static void KIFN(update_range)(int64_t a, int64_t b, int64_t pf, const REAL *restrict ic, const REAL *restrict iapp,
                              REAL thr, unsigned char *restrict flag OLIVE_VAR_LIST(KPARAM))
{
    /* 19 arrays are more streams than the hardware prefetchers follow, so
     * beyond the caches the loop would wait on memory: ask for the next
     * chunk (the pf cells [b, b + pf): the thread's own, see KFN(update))
     * array by array before this one. */
    for (int64_t line = 0; line < pf * (int64_t)sizeof(REAL); line += 64) {
#define KFETCH(v) __builtin_prefetch((const char *)(x##v + b) + line, 1, 3);
        OLIVE_VAR_LIST(KFETCH)
#undef KFETCH
    }
    /* The cells in blocks of 64 whose flags go first to integers of REAL's
     * width: a char stored in the vector loop made GCC take 64 cells an
     * iteration (a 64-byte vector of chars), 8 vectors of every variable,
     * a loop body larger than the instruction cache, and spills. */
    for (int64_t k0 = a; k0 < b; k0 += 64) {
        const int64_t nk = b - k0 < 64 ? b - k0 : 64;
        KMASK fl[64];
        for (int64_t j = 0; j < nk; j++) {
            const int64_t k = k0 + j;
            REAL in[OLIVE_NVARS], out[OLIVE_NVARS];
#define KLOAD(v) in[v] = x##v[k];
#define KSTORE(v) x##v[k] = out[v];
            OLIVE_VAR_LIST(KLOAD)
            MFN(olive_cell_step)(in, out, iapp[k], ic[k]);
            OLIVE_VAR_LIST(KSTORE)
#undef KLOAD
#undef KSTORE
            /* x - x is 0 for a finite x and NaN otherwise: a branch-free test. */
            REAL z = (out[OV_V_DEND] - out[OV_V_DEND]) + (out[OV_V_SOMA] - out[OV_V_SOMA]) +
                     (out[OV_V_AXON] - out[OV_V_AXON]);
            fl[j] = ((in[OV_V_AXON] < thr) & (out[OV_V_AXON] >= thr)) | ((z == z) ? 0 : 2);
        }
        for (int64_t j = 0; j < nk; j++) flag[k0 + j] = (unsigned char)fl[j];
    }
}
#undef KPARAM

