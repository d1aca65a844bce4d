/* Membrane mechanisms compiled from NMODL (`olive-model build FILE.mod ...`,
 * python/olive/nmodl): the interface between a mechanism library and the
 * cable engine (cable.h). One library holds the density mechanisms (SUFFIX)
 * and point processes (POINT_PROCESS: synapses) of the .mod files built
 * together, as nrnivmodl's one library of a folder.
 *
 * The library exports OLIVE_MECHS_SYMBOL, a function returning a const
 * olive_mech_library that lives as long as the library. Its code is ONE C
 * source written by the translator (NAME.olive.c beside NAME.so), compiled
 * with olive's own exp/log (the same bits on CPU and GPU), -ffp-contract=off.
 *
 * One instance of mechanism m sits on one node of one cell. The engine calls,
 * per instance, with a context (olive_mech_ctx) pointing at its data:
 *   init   NEURON's INITIAL (after the node's ions are at their initial values);
 *   cur    NEURON's nrn_cur: the BREAKPOINT's currents at v + 0.001 and at v,
 *          rhs -= i(v), d += (i(v + 0.001) - i(v)) / 0.001 (mA/cm2), each
 *          ion current it writes added to its node's ion (at v);
 *   state  NEURON's nrn_state: the SOLVE'd DERIVATIVE block by cnexp with the
 *          new v, then the concentrations it writes into its node's ions;
 *   net    a point process's NET_RECEIVE with the weight w of the events it
 *          received since the last step, summed (the translator accepts only
 *          blocks that add w times a constant to variables, where that sum is
 *          NEURON's result).
 * A point process's currents are in nA: the engine scales its rhs and d by
 * 1e2 / area of its node (mA/cm2), as NEURON's nrn_cur does.
 * A PROCEDURE or FUNCTION with a TABLE reads its values from the
 * mechanism's tables (ctx.tab), interpolated as NEURON does.
 * The engine keeps NEURON's ion rules (ion_style as nrn_promote sets it): per
 * node and ion, the current summed from zero at each step, the reversal
 * potential from the Nernst equation where a mechanism writes the inside
 * concentration (and, at init, where one reads a concentration), else the
 * section's value (ena ... or the ion's default). */
#ifndef OLIVE_CABLE_MECH_H
#define OLIVE_CABLE_MECH_H
#include "hostdev.h"
#include "fastexp.h"
#include "fastlog.h"
#include <math.h>
#include <stddef.h>

#define OLIVE_MECHS_ABI 3
#define OLIVE_MECHS_SYMBOL "olive_cable_mechs_v1"

/* An ion's fields at a node: field f of the ion in slot s at io[(s * OLIVE_ION_NF + f) * is]. */
enum { OLIVE_ION_E, OLIVE_ION_I, OLIVE_ION_CI, OLIVE_ION_CO, OLIVE_ION_NF };
/* How a mechanism uses an ion (bits of olive_mech_ion.use): NMODL's USEION READ/WRITE. */
enum {
    OLIVE_ION_READ_E = 1, OLIVE_ION_WRITE_E = 2, OLIVE_ION_READ_I = 4, OLIVE_ION_WRITE_I = 8,
    OLIVE_ION_READ_CI = 16, OLIVE_ION_WRITE_CI = 32, OLIVE_ION_READ_CO = 64, OLIVE_ION_WRITE_CO = 128
};

/* What one call sees of its instance. */
typedef struct {
    const double *p; long pld;   /* its RANGE parameters: parameter k at p[k * pld] */
    double *x; long ld;          /* its variables (states, RANGE assigned, currents): k at x[k * ld] */
    double *io; long is;         /* its node's ions (the library's slots) */
    double v, celsius, dt, t;
    const double *tab;           /* its mechanism's TABLEs at this celsius (table below); NULL if it has none */
} olive_mech_ctx;

typedef struct { int slot; int use; } olive_mech_ion;   /* a library ion slot and OLIVE_ION_* bits */

typedef struct {
    const char *name;                 /* SUFFIX */
    const char *file;                 /* the .mod file's name (messages) */
    int nparam;                       /* RANGE parameters, set per section as NAME_SUFFIX */
    const char *const *param_names;
    const double *param_default;
    int nvar;                         /* per-instance variables: STATEs, then RANGE ASSIGNEDs and currents */
    const char *const *var_names;
    int nstate;                       /* the first nstate variables are STATEs */
    int nion;
    const olive_mech_ion *ions;
    int ntab;                         /* doubles of its TABLEs (NMODL's TABLE statements); 0: none */
    int point;                        /* a POINT_PROCESS (a synapse: currents in nA, NET_RECEIVE), else SUFFIX */
} olive_mech_desc;

typedef struct {
    const char *name, *charge_src;    /* "ca"; charge_src: "" or the file whose VALENCE gave the charge */
    double charge;
} olive_mech_ion_desc;

typedef struct olive_mech_library {
    int abi;                          /* OLIVE_MECHS_ABI */
    const char *hash;                 /* hex sha256 of the sources and the translator's version */
    const char *name;                 /* the library's name (network files record it and the hash) */
    const char *origin;               /* "CaDynamics.mod ... (nmodl 0.5 parser, olive translator 1)" */
    int nmech;                        /* in the order NEURON would register them (file names sorted) */
    const olive_mech_desc *mech;
    int nion;
    const olive_mech_ion_desc *ions;
    /* Host (CPU engine): mechanism m of instance ctx. */
    void (*init)(int m, olive_mech_ctx *ctx);
    void (*cur)(int m, olive_mech_ctx *ctx, double *rhs, double *d);
    void (*state)(int m, olive_mech_ctx *ctx);
    /* Mechanism m's TABLEs at celsius into tab[ntab], as NEURON's _check_
     * functions fill them (the other DEPENDs are GLOBAL constants here): built
     * once per cell set on the host, read by every engine (ctx.tab). */
    void (*table)(int m, double celsius, double *tab);
    /* The GPU image: an nvcc fatbin of the LTO-IR of the four functions
     * olive_mech_{init,cur,state,net}_v1 (the same source, extern "C" __device__),
     * which olive's CUDA engine links into its cable kernel when it loads
     * the library (cable_mechs_step.h); NULL: the CPU engine only. */
    const unsigned char *cuda_fatbin;
    size_t cuda_fatbin_size;
    void (*net)(int m, olive_mech_ctx *ctx, double w);   /* host: point process m's NET_RECEIVE */
} olive_mech_library;

typedef const olive_mech_library *(*olive_mech_library_fn)(void);

/* NMODL's `a ^ b` (pow) with olive's own exp and log, so every engine gives
 * the same bits: integral powers by multiplication, as libm's pow is exact
 * there; else exp(b log a) (a > 0), NaN for a < 0 with b not integral. */
OLIVE_HD double olive_mech_pow(double a, double b)
{
    if (b == floor(b) && fabs(b) <= 64) {
        double r = 1, base = a;
        long n = (long)fabs(b);
        while (n) {
            if (n & 1) r *= base;
            base *= base;
            n >>= 1;
        }
        return b < 0 ? 1 / r : r;
    }
    if (a == 0) return b > 0 ? 0 : INFINITY;
    if (a < 0) return NAN;
    return olive_exp_d(b * olive_log_d(a));
}

/* a x = b for the n x n matrix a (row-major, destroyed): Gaussian
 * elimination with partial pivoting, x into b (KINETIC and LINEAR blocks;
 * n is small). 0 when a is singular. */
OLIVE_HD int olive_mech_solve(int n, double *a, double *b)
{
    for (int k = 0; k < n; k++) {
        int piv = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(a[i * n + k]) > fabs(a[piv * n + k])) piv = i;
        if (a[piv * n + k] == 0) return 0;
        if (piv != k) {
            for (int j = 0; j < n; j++) { const double t = a[k * n + j]; a[k * n + j] = a[piv * n + j]; a[piv * n + j] = t; }
            const double t = b[k]; b[k] = b[piv]; b[piv] = t;
        }
        for (int i = k + 1; i < n; i++) {
            const double f = a[i * n + k] / a[k * n + k];
            if (f == 0) continue;
            for (int j = k; j < n; j++) a[i * n + j] -= f * a[k * n + j];
            b[i] -= f * b[k];
        }
    }
    for (int k = n - 1; k >= 0; k--) {
        double x = b[k];
        for (int j = k + 1; j < n; j++) x -= a[k * n + j] * b[j];
        b[k] = x / a[k * n + k];
    }
    return 1;
}

/* NEURON's nrn_nernst (mV) at celsius, with NEURON 9's constants (its
 * nrnunits: R 8.3144626181532395 J/(K mol), F 96485.3321233100184 C/mol). */
OLIVE_HD double olive_nernst(double ci, double co, double charge, double celsius)
{
    if (charge == 0) return 0;
    if (ci <= 0) return 1e6;
    if (co <= 0) return -1e6;
    const double ktf = 1000. * 8.3144626181532395 * (celsius + 273.15) / 96485.3321233100184;
    return ktf / charge * olive_log_d(co / ci);
}

#endif
