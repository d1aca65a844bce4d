/* --order-free-sums (olive-simulate): every synaptic weight rounded to a
 * multiple of 2^-F, so that every sum of a cell's events is exact and
 * therefore the same in any order of addition. Then no engine has to keep
 * the events of a step in one order: the CUDA engine adds them into the
 * delay ring with atomics as they are sent, beside the next step's update,
 * and still gives the CPU engine's bits.
 *
 * Why F keeps the sums exact: each weight becomes k 2^-F with an integer
 * |k| <= wmax 2^F + 1/2. A slot of the ring (one cell, receptor and due
 * step) takes each synapse into the cell at most once (its source fires at
 * most once a step, its delay is fixed), so every partial sum is j 2^-F with
 * |j| <= indeg (wmax 2^F + 1/2), and a double holds every such j exactly
 * while |j| <= 2^53. F = 51 - e, where indeg x wmax < 2^e, leaves
 * |j| < 2^51 + 2^31. The same F on every rank and engine: it is made from the
 * network's largest in-degree and largest |weight|, maxima that no order or
 * partition changes. Compiled for the host and the device (one definition
 * of the rounding). */
#ifndef OLIVE_WEIGHT_QUANTUM_H
#define OLIVE_WEIGHT_QUANTUM_H
#include <math.h>
#include <stdint.h>
#include "hostdev.h"

/* F for a network whose largest in-degree is indeg and largest |weight| wmax
 * (0 when either is 0: nothing to round). */
OLIVE_HD int olive_weight_quantum_bits(int64_t indeg, double wmax)
{
    if (indeg <= 0 || !(wmax > 0)) return 0;
    int e = 0;
    (void)frexp((double)indeg * wmax, &e);   /* indeg x wmax < 2^e */
    return 51 - e;
}

/* w rounded to the nearest multiple of 2^-bits (ties to even); +0.0 for -0.0,
 * so that a weight rounded to zero adds nothing, not a signed zero. */
OLIVE_HD double olive_weight_quantize(double w, int bits)
{
    return ldexp(rint(ldexp(w, bits)), -bits) + 0.0;
}

#endif

