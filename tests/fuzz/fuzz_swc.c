/* libFuzzer: the SWC reader (common/models/swc.c) and the cell built from what it
 * accepts (common/models/cable_cell.c) on arbitrary bytes written to a temporary
 * file (tests/fuzz/fuzz_h5common.h: olive_die jumps back here). The first
 * byte picks the segment rule (even: 20 um, odd: d_lambda). What is accepted
 * must hold what the solver relies on: parents before children, 3-d points
 * with positive diameters and non-decreasing arcs, positive lengths, nseg >= 1,
 * and a tree of nodes with parent < i, positive areas and finite couplings. */
#include "fuzz_h5common.h"
#include "swc.h"
#include <math.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const char *path = fuzz_input_file("fuzz_swc", data + 1, size - 1);
    if (!path) return 0;
    static olive_morphology m;   /* static: a longjmp must not leave them in a dead frame */
    static olive_cable_cell c;
    static olive_swc_setup su;   /* hh_swc's default biophysics are not needed: Ra 100 keeps nseg near hh_swc's */
    su = (olive_swc_setup){.seg_length = data[0] & 1 ? 0 : 20, .d_lambda = .1, .d_lambda_freq = 100};
    for (int g = 0; g < 5; g++) {
        su.bio[g] = olive_section_default("");
        su.bio[g].Ra = 100;
        su.bio[g].mechs = g == 1 || g == 2 ? OLIVE_MECH_HH : OLIVE_MECH_PAS;
    }
    if (setjmp(fuzz_back) == 0) {
        olive_swc_read(path, &su, &m);
        if (m.nsec < 1 || m.sec[0].parent != -1) abort();
        for (int s = 0; s < m.nsec; s++) {
            const olive_section *x = &m.sec[s];
            if ((s && (x->parent < 0 || x->parent >= s)) || x->npt < 2 || !(x->L > 0) || x->nseg < 1) abort();
            for (int k = 0; k < x->npt; k++)
                if (!(x->pd[k] > 0) || (k && !(x->arc[k] >= x->arc[k - 1]))) abort();
        }
        olive_cable_build(&c, m.sec, m.nsec, 6.3);
        for (int i = 1; i < c.n; i++)
            if (c.parent[i] < 0 || c.parent[i] >= i || !(c.area[i] > 0) || !isfinite(c.a[i]) || !isfinite(c.b[i])) abort();
        olive_cable_free(&c);
        olive_morphology_free(&m);
    }
    return 0;
}
