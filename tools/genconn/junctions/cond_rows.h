/* A junction's conductance, one source for the CPU (conductance.c, gcc C11)
 * and the GPU (cond_cuda.cu, nvcc): w is drawn from the Philox counter
 * (receiver, sender, 0, CONDUCTANCE), with --symmetric from (min, max) of the
 * pair so that w_ij = w_ji, then quantised to code = round((w - offset) /
 * scale) clamped to [0, 2^bits - 1], or stored as float32 at bits 32. Only
 * +, -, *, /, floor, fabs and conversions, each rounded as IEEE says on both
 * sides (the build uses -ffp-contract=off and nvcc -fmad=false), so the
 * codes and the quantisation errors are bit-identical on the CPU and the GPU. */
#ifndef OLIVE_COND_ROWS_H
#define OLIVE_COND_ROWS_H
#include <stdint.h>
#include <math.h>
#include "hostdev.h"
#include "rng.h"

/* What every junction's value depends on besides its pair. */
typedef struct gc_cond_par {
    uint64_t seed;
    double w_a, w_b;         /* the range [w_a, w_b] (w_range), else the constant w_a */
    double offset, scale;    /* w = offset + code * scale (bits < 32) */
    uint32_t maxcode;        /* 2^bits - 1 (bits < 32) */
    int bits, w_range, symmetric;
} gc_cond_par;

/* The drawn conductance of junction (recv <- send). */
OLIVE_HD double gc_cond_w(const gc_cond_par *p, int64_t recv, int64_t send)
{
    if (!p->w_range) return p->w_a;
    int64_t a = recv, b = send;
    if (p->symmetric && b < a) { a = send; b = recv; }
    double u, unused;
    olive_uniform2(p->seed, (uint32_t)a, (uint32_t)b, 0, OLIVE_STREAM_CONDUCTANCE, &u, &unused);
    return p->w_a + u * (p->w_b - p->w_a);
}

/* The stored value of junction (recv <- send): the code (bits < 32; 0 at
 * bits 32 and 64) is returned, the value (bits 32: rounded to float32;
 * bits 64: the drawn double) goes to *f, and the quantisation error
 * |stored w - drawn w| to *err. */
OLIVE_HD uint32_t gc_cond_junction(const gc_cond_par *p, int64_t recv, int64_t send, double *f, double *err)
{
    const double w = gc_cond_w(p, recv, send);
    if (p->bits >= 32) {
        *f = p->bits == 32 ? (double)(float)w : w;
        *err = fabs(*f - w);
        return 0;
    }
    uint32_t code = 0;
    if (p->scale > 0) {
        double x = floor((w - p->offset) / p->scale + 0.5);
        code = x <= 0 ? 0 : x >= p->maxcode ? p->maxcode : (uint32_t)x;
    }
    *f = 0;
    *err = fabs(p->offset + (double)code * p->scale - w);
    return code;
}

#endif
