/* The cable kernel of cells with NMODL mechanisms: not an object of
 * olive-simulate but LTO-IR embedded in it (the Makefile's bin2c), which it
 * links with a mechanism library's GPU image when it loads the library
 * (spk_cable_cuda.cu): the mechanisms' device functions, olive_mech_*_v1
 * (cable_mech.h), are then inlined into the very cell step the CPU runs
 * (spk_cable_cell_step, cable.h, cable_mechs_step.h). */
#define OLIVE_CABLE_MECHS_DEVICE 1
#include "spk_cable_kernel.cuh"

extern "C" __global__ void olive_cable_update_mechs(SPK_CABLE_KERNEL_PARAMS)
{
    spk_cable_update_cell(b, st, cur, t, dt, v, m, h, hn, ge, gi, vprev, ref, flags, spk, nspk, bad, step, chunk, nchunk, q);
}
