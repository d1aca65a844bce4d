/* CPU step kernel for one precision; included by kernel_cpu.c with
 * REAL = double and float; its loops are compiled for each instruction set
 * (kernel_cpu_isa.h) and one is chosen at run time. The physics is olive_cell_step (common/models/model.h).
 *
 * A step has two passes. (1) Gap-junction currents of a list of rows
 * (interior rows while the halo exchange is in flight, then boundary rows):
 * 8 rows at a time, slot by slot (junction_groups.c), each row's terms summed
 * one by one in stored order, so the sum is the same for any split of the rows. (2) The cell updates of all rows
 * 0..nlocal-1 as one SIMD loop across cells. Every operation is plain IEEE
 * arithmetic (exp included, common/math/fastexp.h) without contraction, so vector
 * lanes and scalar remainders give the same bits. */

/* SIM_ROW_LANES values of REAL, one from each row of a group (GCC's vector
 * extension: the same source for every instruction set). */
typedef REAL KFN(rowvec) __attribute__((vector_size(SIM_ROW_LANES * sizeof(REAL))));

/* The loops, once for each instruction set (kernel_cpu_isa.h) */
#define KISA_ATTR __attribute__((target("arch=x86-64-v4")))
#define KIFN(name) KFN(name##_v4)
#include "kernel_cpu_isa.h"
#undef KISA_ATTR
#undef KIFN
#define KISA_ATTR __attribute__((target("arch=x86-64-v3")))
#define KIFN(name) KFN(name##_v3)
#include "kernel_cpu_isa.h"
#undef KISA_ATTR
#undef KIFN
#define KISA_ATTR
#define KIFN(name) KFN(name##_base)
#include "kernel_cpu_isa.h"
#undef KISA_ATTR
#undef KIFN

/* The instruction set's loops (sim_simd_select's choice). */
#define KPARAM(v) , REAL *restrict x##v
static void KFN(update_range_simd)(int64_t a, int64_t b, int64_t pf, const REAL *restrict ic, const REAL *restrict iapp,
                                   REAL thr, unsigned char *restrict flag OLIVE_VAR_LIST(KPARAM))
{
#define KPASS(v) , x##v
    if (sim_simd == SIM_SIMD_AVX512) KFN(update_range_v4)(a, b, pf, ic, iapp, thr, flag OLIVE_VAR_LIST(KPASS));
    else if (sim_simd == SIM_SIMD_AVX2) KFN(update_range_v3)(a, b, pf, ic, iapp, thr, flag OLIVE_VAR_LIST(KPASS));
    else KFN(update_range_base)(a, b, pf, ic, iapp, thr, flag OLIVE_VAR_LIST(KPASS));
#undef KPASS
}
#undef KPARAM

static void KFN(currents)(sim_t *s, const sim_jgroups *jg)
{
    if (sim_simd == SIM_SIMD_AVX512) KFN(currents_v4)(s, jg);
    else if (sim_simd == SIM_SIMD_AVX2) KFN(currents_v3)(s, jg);
    else KFN(currents_base)(s, jg);
}

static void KFN(update_own)(sim_t *s, int64_t first, int64_t count);

static void KFN(update)(sim_t *s, int64_t step, const sim_pulse *active, int nactive, int rebuild_iapp)
{
    const int64_t n = s->plan.nlocal, row0 = s->plan.row0;
    REAL *iapp = s->io.iapp;
    /* I_app per cell: the active pulses summed in their order, then the
     * cell's noise current, which steps on to the next step's value (in the
     * same order as the CUDA backend). Rebuilt only while pulses or noise
     * are on (zero otherwise): rebuild_iapp, the same on every thread. */
    if (rebuild_iapp) {
        REAL *noise = (REAL *)s->io.noise;
        const olive_noise *nz = &s->io.nz;
#pragma omp for schedule(static)
        for (int64_t r = 0; r < n; r++) {
            REAL x = (REAL)0;
            for (int q = 0; q < nactive; q++)
                if (row0 + r >= active[q].first && (active[q].last < 0 || row0 + r < active[q].last))
                    x = x + (REAL)active[q].amp;
            if (nz->on) {
                x = x + noise[r];
                noise[r] = MFN(olive_ou_next)(nz, noise[r], row0 + r, step);
            }
            iapp[r] = x;
        }
    }
    KFN(update_own)(s, step, 1);
}

/* Steps [first, first + count) of the thread's own run of chunks, chunk by
 * chunk: each chunk takes all the steps while its state stays in L2, and
 * only the last step asks for the next chunk. For cells that read nothing
 * but their own values (no junction term, I_app the same +0.0 at every
 * step: engine_cpu.c decides), a cell's steps are the very operations in the
 * very order of step-by-step updates, so the same bits; beyond L2 the state
 * no longer streams through memory once a step. The spikes of a chunk come
 * step by step, chunk after chunk; they are sorted where they are used. */
static void KFN(update_own)(sim_t *s, int64_t first, int64_t count)
{
    const int64_t n = s->plan.nlocal, row0 = s->plan.row0;
#define KARG(v) , (REAL *)s->state[v]
    /* The thread's own run of chunks, so that a chunk's prefetch of the next
     * (update_range) stays in the thread's cells: a prefetch for writing into
     * another thread's chunk takes its lines away while that thread works on
     * them (2 threads on 4096 cells ran at 1.06x one). */
    const int T = omp_get_num_threads(), me = omp_get_thread_num();
    const int64_t chunk = sim_chunk(n, T), nch = (n + chunk - 1) / chunk;
    const int64_t own_end = nch * (me + 1) / T * chunk < n ? nch * (me + 1) / T * chunk : n;
    for (int64_t a = nch * me / T * chunk; a < own_end; a += chunk) {
        const int64_t b = a + chunk < n ? a + chunk : n, pf = (own_end - b < b - a ? own_end - b : b - a);
        for (int64_t step = first; step < first + count; step++) {
            KFN(update_range_simd)(a, b, step + 1 == first + count ? pf : 0, (const REAL *)s->io.ic, (const REAL *)s->io.iapp,
                                   (REAL)s->cfg->infoli.spike_threshold, s->flags OLIVE_VAR_LIST(KARG));
            for (int64_t k = a; k < b; k++) {
                if (!s->flags[k]) continue;
                if (s->flags[k] & 1) sim_note_spike(s, step, row0 + k);
                if (s->flags[k] & 2) sim_note_bad(s, step, row0 + k);
            }
        }
    }
#undef KARG
}
