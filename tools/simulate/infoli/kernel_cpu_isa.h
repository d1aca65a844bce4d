/* The CPU step kernel's loops for one precision and one instruction set;
 * included by kernel_cpu.c for each (REAL double or float; KIFN the names
 * and KISA_ATTR the target of the set: x86-64-v4, v3 or the build's
 * default). kernel_cpu_body.h's driver calls the set sim_simd_select chose.
 * Every set gives the same bits: plain IEEE arithmetic without
 * contraction, and fastexp.h's fma() exact with or without the FMA
 * instruction (tests/test_simd_engine.sh). */

/* The gap-junction currents of a list's rows, from its group layout
 * (junction_groups.c): a group's SIM_ROW_LANES rows take their junctions slot
 * by slot, U slots (two 64-byte vectors of terms) a round, each vector of
 * terms added straight into the 8 rows' sums. Each row's terms are summed
 * one by one in stored order: the same bits for any split of the rows, on
 * every instruction set. BITS and GJ are compile-time constants at each call
 * site, so every combination gets its own loop. */
static inline __attribute__((always_inline)) void KIFN(currents_of)(sim_t *s, const sim_jgroups *G, const int bits,
                                                                      const int gj)
{
    enum { L = SIM_ROW_LANES, U = SIM_GROUP_UNROLL(REAL), NS = L * U };
    const REAL *restrict vd = s->state[OV_V_DEND];
    const REAL *restrict lut = s->io.wlut;
    const REAL w0 = (REAL)s->net.offset;
    const int32_t *restrict col = G->col;
    const void *cond = G->cond;
    REAL *restrict ic = s->io.ic;
    const int far = (s->plan.nlocal + s->plan.nhalo) * (int64_t)sizeof(REAL) > SIM_VD_NEAR;
    const int64_t kend = G->gslot[G->ngroups] * L;
#pragma omp for schedule(static) nowait
    for (int64_t g = 0; g < G->ngroups; g++) {
        const int32_t *row = G->row + g * L;
        /* each lane's own V_dend, once for each of the round's U slots */
        REAL vi[NS];
        for (int l = 0; l < NS; l++) vi[l] = vd[row[l % L]];
        KFN(rowvec) a = {0};
        for (int64_t k0 = G->gslot[g] * L; k0 < G->gslot[g + 1] * L; k0 += NS) {
            REAL t[NS];
            /* the columns stream from memory once they outgrow the caches:
             * ask ahead (+8 % at 65536 cells x 100 junctions on one thread),
             * with the hint that suits the CPU (sim_col_nta, kernel_cpu.c) */
            if (sim_col_nta) __builtin_prefetch(col + k0 + SIM_COL_AHEAD, 0, 0);
            else __builtin_prefetch(col + k0 + SIM_COL_AHEAD, 0, 2);
            /* and the voltages the round after next reads, where they are
             * many: a random read beyond L1, too late once it is due
             * (+5-8 % at 65536 cells; at 4096 they fit in L1 and asking
             * costs 2 %) */
            if (far && k0 + SIM_VD_AHEAD + NS <= kend)
                for (int l = 0; l < NS; l++) __builtin_prefetch(vd + col[k0 + SIM_VD_AHEAD + l], 0, 3);
#pragma omp simd
            for (int l = 0; l < NS; l++) {
                const int64_t k = k0 + l;
                REAL w;
                if (bits == 0) w = w0;
                else if (bits == 4) w = lut[(((const uint8_t *)cond)[k >> 1] >> ((k & 1) * 4)) & 15];
                else if (bits == 8) w = lut[((const uint8_t *)cond)[k]];
                else if (bits == 16) w = lut[((const uint16_t *)cond)[k]];
                else if (bits == 32) w = (REAL)((const float *)cond)[k];
                else w = (REAL)((const double *)cond)[k];
                t[l] = MFN(olive_gj_term)(gj, w, vi[l] - vd[col[k]]);
            }
            for (int u = 0; u < U; u++) {
                KFN(rowvec) tv;
                memcpy(&tv, t + u * L, sizeof tv);
                a = a + tv;
            }
        }
        const int m = G->nrows - g * L < L ? (int)(G->nrows - g * L) : L;
        /* a row without junctions: +0.0, the sum of no terms (its lane's
         * padding would give NaN where its own V_dend is not finite) */
        for (int l = 0; l < m; l++) ic[row[l]] = G->nj[g * L + l] ? a[l] : (REAL)0;
    }
}

static void KISA_ATTR KIFN(currents)(sim_t *s, const sim_jgroups *jg)
{
#define KCASE(B, G) KIFN(currents_of)(s, jg, B, G)
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

