/* The CPU backend: OpenMP over rows, one specialised loop per precision,
 * conductance packing and gap-junction model. */
#include "sim.h"
#include "model.h"
#include "util.h"
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

static void sim_note_spike(sim_t *s, int64_t step, int64_t cell)
{
    int t = omp_get_thread_num();
    if (s->tspike_n[t] == s->tspike_cap[t]) {
        s->tspike_cap[t] = s->tspike_cap[t] ? 2 * s->tspike_cap[t] : 1024;
        s->tspikes[t] = realloc(s->tspikes[t], (size_t)s->tspike_cap[t] * sizeof(sim_spike));
        if (!s->tspikes[t]) olive_die("out of memory recording spikes");
    }
    s->tspikes[t][s->tspike_n[t]++] = (sim_spike){step, cell};
}

static void sim_note_bad(sim_t *s, int64_t step, int64_t cell)
{
#pragma omp critical(olive_bad)
    if (s->bad_step < 0 || step < s->bad_step || (step == s->bad_step && cell < s->bad_cell)) {
        s->bad_step = step;
        s->bad_cell = cell;
    }
}

/* Cells per call of the SIMD update (each call also prefetches the next
 * chunk): up to 4096 (150 KiB of double state, so a chunk and the next fit
 * in L2; +10% at 1M cells against 512-cell chunks, whose prefetches come too
 * late), but small enough that every thread gets a chunk. */
#define SIM_CHUNK_MAX 4096
#define SIM_CHUNK_MIN 512
static int64_t sim_chunk(int64_t ncells, int nthreads)
{
    int64_t c = (ncells + nthreads - 1) / nthreads;
    c = (c + 63) / 64 * 64;
    return c > SIM_CHUNK_MAX ? SIM_CHUNK_MAX : c < SIM_CHUNK_MIN ? SIM_CHUNK_MIN : c;
}
/* Column indices ahead (in entries) that the junction pass prefetches. */
#define SIM_COL_AHEAD 256
/* How it asks for them (sim_simd_select): non-temporal on AMD, where that
 * left L2 to the voltages (+3 % at 65536 cells x 100 junctions, one thread,
 * EPYC); into L2 elsewhere: on an Intel Xeon (Sapphire Rapids class) the
 * non-temporal lines were fetched again every step, and asking for L2 made
 * the pass 10 % faster at 4096 cells and 27 % at 65536
 * (docs/results/col_prefetch_2026-12-06_vm-intel.txt). */
static int sim_col_nta;
/* V_dend entries ahead whose voltages it prefetches, where V_dend's bytes
 * (own and halo cells) exceed SIM_VD_NEAR. */
#define SIM_VD_AHEAD 32
#define SIM_VD_NEAR (128 * 1024)
/* X-macro over the 19 state variables (enum olive_var order). */
#define OLIVE_VAR_LIST(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) \
    X(14) X(15) X(16) X(17) X(18)
_Static_assert(OLIVE_NVARS == 19, "OLIVE_VAR_LIST must list every state variable");

/* The instruction set of the loops below, chosen at run time
 * (sim_simd_select): x86-64-v4 (AVX-512), x86-64-v3 (AVX2) or the build's
 * default; the same bits from each (kernel_cpu_isa.h). */
enum { SIM_SIMD_BASE, SIM_SIMD_AVX2, SIM_SIMD_AVX512 };
static int sim_simd = SIM_SIMD_BASE;

#define REAL double
#define KMASK int64_t   /* an integer of REAL's width (vector shuffles' masks) */
#define KFN(name) name##_d
#define MFN(name) name##_d
#include "kernel_cpu_body.h"
#undef REAL
#undef KMASK
#undef KFN
#undef MFN

#define REAL float
#define KMASK int32_t
#define KFN(name) name##_f
#define MFN(name) name##_f
#include "kernel_cpu_body.h"
#undef REAL
#undef KMASK
#undef KFN
#undef MFN

/* The widest set this CPU runs, or OLIVE_SIMD=avx512|avx2|base (tests and
 * comparisons: every set gives the same bits); one asked for that the CPU
 * lacks is refused. */
void sim_simd_select(const sim_t *s)
{
    __builtin_cpu_init();
    const int v4 = __builtin_cpu_supports("x86-64-v4") != 0, v3 = __builtin_cpu_supports("x86-64-v3") != 0;
    const char *e = getenv("OLIVE_SIMD");
    if (e && *e) {
        if (!strcmp(e, "avx512")) sim_simd = SIM_SIMD_AVX512;
        else if (!strcmp(e, "avx2")) sim_simd = SIM_SIMD_AVX2;
        else if (!strcmp(e, "base")) sim_simd = SIM_SIMD_BASE;
        else olive_die("OLIVE_SIMD='%s': expected avx512, avx2 or base", e);
        if ((sim_simd == SIM_SIMD_AVX512 && !v4) || (sim_simd == SIM_SIMD_AVX2 && !v3))
            olive_die("OLIVE_SIMD=%s: this CPU lacks that instruction set (x86-64-%s)", e,
                      sim_simd == SIM_SIMD_AVX512 ? "v4" : "v3");
    } else {
        sim_simd = v4 ? SIM_SIMD_AVX512 : v3 ? SIM_SIMD_AVX2 : SIM_SIMD_BASE;
    }
    sim_col_nta = __builtin_cpu_is("amd") != 0;
    if (s->rank == 0)
        olive_info("CPU kernels: %s", sim_simd == SIM_SIMD_AVX512 ? "AVX-512 (x86-64-v4)" :
                   sim_simd == SIM_SIMD_AVX2 ? "AVX2 (x86-64-v3)" : "the build's default instruction set");
}

int sim_no_junction_pass(const sim_t *s)
{
    return s->cfg->infoli.gj == OLIVE_GJ_NGJ || s->plan.lrow_ptr[s->plan.nlocal] == 0;
}

/* Both must be called inside an omp parallel region (they use omp for).
 * sim_currents ends without a barrier: its caller places the one that must
 * come before any cell is updated (engine_cpu.c). */
void sim_currents(sim_t *s, int part)
{
    const int32_t *rows = part ? s->plan.boundary : s->plan.interior;
    const int64_t nrows = part ? s->plan.nboundary : s->plan.ninterior;
    if (sim_no_junction_pass(s)) {
        /* --gj ngj, or no junction on this rank: every current is +0.0, the
         * sum of no terms, without the junction pass's work per row (11 % of
         * a step of 4096 uncoupled cells on one thread) */
        float *icf = s->cfg->run.single ? (float *)s->io.ic : NULL;
        double *icd = s->cfg->run.single ? NULL : (double *)s->io.ic;
#pragma omp for schedule(static) nowait
        for (int64_t i = 0; i < nrows; i++) {
            if (icf) icf[rows[i]] = 0.0f;
            else icd[rows[i]] = 0.0;
        }
        return;
    }
    if (s->cfg->run.single) currents_f(s, &s->io.jg[part]);
    else currents_d(s, &s->io.jg[part]);
}

void sim_update(sim_t *s, int64_t step, const sim_pulse *active, int nactive, int rebuild_iapp)
{
    if (s->cfg->run.single) update_f(s, step, active, nactive, rebuild_iapp);
    else update_d(s, step, active, nactive, rebuild_iapp);
}

void sim_update_steps(sim_t *s, int64_t first, int64_t count)
{
    if (s->cfg->run.single) update_own_f(s, first, count);
    else update_own_d(s, first, count);
}
