/* Conductances of imported junctions into the network file's packing
 * (docs/FORMAT.md "Network file"): bits 0 when every junction has the same
 * conductance (the default then), bits 32 keeps each value as float32 (the
 * default otherwise), bits 4/8/16 quantise between the smallest and largest
 * value found: offset = min, scale = (max - min)/(2^bits - 1),
 * code = round((w - min)/scale). */
#include "genconn.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>

int gc_pack_conductance(olive_network *net, const double *w, int bits, double w_default, gc_pack_info *info,
                        char *err, size_t errlen)
{
    const int64_t nnz = net->nnz;
    double lo = nnz ? w[0] : w_default, hi = lo;
    for (int64_t e = 1; e < nnz; e++) {
        if (w[e] < lo) lo = w[e];
        if (w[e] > hi) hi = w[e];
    }
    info->min = lo;
    info->max = hi;
    info->maxerr = 0;
    if (bits < 0) bits = lo == hi ? 0 : 32;
    info->bits = net->bits = bits;
    net->cond = NULL;
    if (bits == 0) {
        if (lo != hi) {
            snprintf(err, errlen, "the conductances range over [%.17g, %.17g]: --conductance-bits 0 needs one value "
                     "for every junction; use 4, 8, 16 or 32", lo, hi);
            return -1;
        }
        net->offset = lo;
        net->scale = 0;
        return 0;
    }
    net->cond = olive_calloc(olive_cond_bytes(bits, nnz) + 1, 1, "conductances");
    double maxerr = 0;
    if (bits >= 32) {
        /* Values, not codes: float32, or float64 (exact: what the file gave). */
        net->offset = 0;
        net->scale = 1;
        for (int64_t e = 0; e < nnz; e++) {
            double f = bits == 32 ? (double)(float)w[e] : w[e];
            if (!isfinite(f)) {
                snprintf(err, errlen, "conductance %.17g does not fit in float32 (--conductance-bits 32); use 64", w[e]);
                return -1;
            }
            olive_cond_set(bits, net->cond, e, 0, f);
            double d = fabs(f - w[e]);
            if (d > maxerr) maxerr = d;
        }
    } else {
        const uint32_t maxcode = (1u << bits) - 1;
        net->offset = lo;
        net->scale = (hi - lo) / (double)maxcode;
        if (!isfinite(net->scale)) {
            snprintf(err, errlen, "conductances range over [%.17g, %.17g], too wide to quantise", lo, hi);
            return -1;
        }
        for (int64_t e = 0; e < nnz; e++) {
            uint32_t code = 0;
            if (net->scale > 0) {
                double x = floor((w[e] - lo) / net->scale + 0.5);
                code = x <= 0 ? 0 : x >= maxcode ? maxcode : (uint32_t)x;
            }
            olive_cond_set(bits, net->cond, e, code, 0);
            double d = fabs(net->offset + (double)code * net->scale - w[e]);
            if (d > maxerr) maxerr = d;
        }
    }
    info->maxerr = maxerr;
    return 0;
}
