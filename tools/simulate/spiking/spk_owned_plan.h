/* The owned form's bookkeeping of due steps (spk_cuda_owned.cu says what the
 * form is): where an event goes (a block's window, its far queue or the
 * ring), what enters the window in an iteration, what a chunk's start takes
 * from the ring and its end gives back. One source, compiled into the
 * kernel (spk_plugin_kernels.cu, where the adds are atomics in shared and
 * global memory) and into tests/unit/test_owned_plan.c, which runs the
 * kernel's schedule for one block on the CPU (plain adds) against every
 * event's due step and the ring device push leaves between chunks.
 *
 * The schedule: iteration t of a chunk [first, first + count) (t = first +
 * q, q = 0 .. count) sends step t - 1's spikes (q > 0), lets step
 * owned_entering(t) into the window, takes step t - 1's sums into its
 * cells (q > 0) and steps them (q < count). The window then holds due
 * steps t - 1 .. t + W - 2, so an event of delay d < W goes to it at once;
 * later ones wait in the queue of their due step (or, past its room, in the
 * ring) until their step enters. */
#ifndef OLIVE_SPK_OWNED_PLAN_H
#define OLIVE_SPK_OWNED_PLAN_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "hostdev.h"

typedef struct spk_owned_plan {
    int64_t n;                 /* cells (the ring's rows) */
    int W;                     /* due steps a block's window holds (2 .. L) */
    int L;                     /* the delay ring's slots (the longest delay + 1) */
    int SL;                    /* the far queues' slots: a power of two >= L */
    int PB, NW;                /* cells a block; 32-cell words of its due flags */
    int bits;                  /* the weights are multiples of 2^-bits (--order-free-sums) */
    uint32_t fqcap;            /* far events a (block, slot) queue holds; more go to the ring */
    unsigned long long *fq;    /* per (block, slot) fqcap far events (owned_far_event) */
    double *acc;               /* the delay ring (L x 2 x n, empty sums -0.0), as device push's */
} spk_owned_plan;

/* A block's shared memory: the window's sums [W][2][PB] (integers in units
 * of 2^-bits, two's complement), due flags [W][NW], the far queues' counts
 * [SL] and whether the ring may hold a due step's sums [SL]. */
typedef struct spk_owned_block {
    unsigned long long *win;
    uint32_t *dueb, *fqn, *ringed;
} spk_owned_block;

#ifdef __CUDA_ARCH__
#define OWNED_ADD64(p, v) atomicAdd((p), (unsigned long long)(v))
#define OWNED_OR32(p, v) atomicOr((p), (v))
#define OWNED_TAKE32(p) atomicAdd((p), 1u)
#define OWNED_ADDF(p, v) atomicAdd((p), (v))
#define OWNED_LOAD(p) __ldcg(p)
#else
#define OWNED_ADD64(p, v) (*(p) += (unsigned long long)(v))
#define OWNED_OR32(p, v) (*(p) |= (v))
#define OWNED_TAKE32(p) ((*(p))++)
#define OWNED_ADDF(p, v) (*(p) += (v))
#define OWNED_LOAD(p) (*(p))
#endif

/* Due steps a window holds in room bytes of shared memory (at most L:
 * then no event is far), and the far queues' slots. */
OLIVE_HD int owned_window(int64_t room, int PB, int L)
{
    const int64_t per = 16 * (int64_t)PB + 4 * (int64_t)((PB + 31) / 32), w = room / per;
    return w < L ? (int)w : L;
}
OLIVE_HD int owned_queue_slots(int L)
{
    int SL = 1;
    while (SL < L) SL <<= 1;
    return SL;
}

/* The step entering the window in iteration t, and the one that entered in
 * the iteration before (its queue is empty: its count and flag are reset). */
OLIVE_HD int64_t owned_entering(int64_t t, int W) { return t + W - 2; }
OLIVE_HD int64_t owned_entered_before(int64_t t, int W) { return t + W - 3; }

/* A weight in units of 2^-bits, and back (exact: weights and sums are
 * multiples of 2^-bits below 2^53 of them, weight_quantum.h). */
OLIVE_HD long long owned_fixed(double w, int bits) { return (long long)ldexp(w, bits); }
OLIVE_HD double owned_value(long long j, int bits) { return ldexp((double)j, -bits); }

/* A due sum of the ring (bits of a double): -0.0 is none */
OLIVE_HD int owned_ring_empty(double x) { return x == 0.0 && signbit(x); }

OLIVE_HD void owned_mark(const spk_owned_plan *p, const spk_owned_block *k, uint32_t ws, uint32_t rec, uint32_t cell,
                         long long j)
{
    OWNED_ADD64(&k->win[(ws * 2 + rec) * (uint32_t)p->PB + cell], j);
    OWNED_OR32(&k->dueb[ws * (uint32_t)p->NW + (cell >> 5)], 1u << (cell & 31));
}

/* One event of weight j (units of 2^-bits) to cell `cell` of block b, of a
 * spike of step t1 (tw = t1 % W), due d >= 1 steps later: into the window,
 * the far queue of its due step, or, past the queue's room, the ring. */
OLIVE_HD void owned_event(const spk_owned_plan *p, const spk_owned_block *k, uint32_t b, int64_t t1, uint32_t tw,
                          uint32_t d, uint32_t rec, uint32_t cell, long long j)
{
    const uint32_t W = (uint32_t)p->W;
    if (d < W) {
        owned_mark(p, k, tw + d < W ? tw + d : tw + d - W, rec, cell, j);
        return;
    }
    const int64_t due = t1 + d;
    const uint32_t slot = (uint32_t)due & (uint32_t)(p->SL - 1), at = OWNED_TAKE32(&k->fqn[slot]);
    if (at < p->fqcap) {
        p->fq[((size_t)b * (size_t)p->SL + slot) * p->fqcap + at] = (unsigned long long)j << 11 | rec << 10 | cell;
    } else {
        OWNED_ADDF(&p->acc[(2 * (due % p->L) + rec) * p->n + (int64_t)b * p->PB + cell], owned_value(j, p->bits));
        k->ringed[slot] = 1;
    }
}

/* Due step E entering block b's window: its queue's events x, x + step, ...
 * (a thread's share) */
OLIVE_HD void owned_enter_queue(const spk_owned_plan *p, const spk_owned_block *k, uint32_t b, int64_t E, uint32_t x,
                                uint32_t step)
{
    const uint32_t slot = (uint32_t)E & (uint32_t)(p->SL - 1), ws = (uint32_t)(E % p->W);
    const uint32_t m = k->fqn[slot] < p->fqcap ? k->fqn[slot] : p->fqcap;
    for (; x < m; x += step) {
        const unsigned long long ev = OWNED_LOAD(&p->fq[((size_t)b * (size_t)p->SL + slot) * p->fqcap + x]);
        owned_mark(p, k, ws, (uint32_t)(ev >> 10 & 1), (uint32_t)(ev & 1023), (long long)ev >> 11);
    }
}

/* ... and, where the ring may hold some (ringed), cell `cell`'s ring sums
 * of E (emptied) */
OLIVE_HD void owned_enter_ring(const spk_owned_plan *p, const spk_owned_block *k, uint32_t b, int64_t E, uint32_t cell)
{
    const int64_t r = (int64_t)b * p->PB + cell;
    if (!k->ringed[(uint32_t)E & (uint32_t)(p->SL - 1)] || cell >= (uint32_t)p->PB || r >= p->n) return;
    double *a0 = p->acc + (2 * (E % p->L)) * p->n + r, *a1 = a0 + p->n;
    const double x0 = OWNED_LOAD(a0), x1 = OWNED_LOAD(a1);
    if (owned_ring_empty(x0) && owned_ring_empty(x1)) return;
    const uint32_t ws = (uint32_t)(E % p->W);
    owned_mark(p, k, ws, 0, cell, owned_ring_empty(x0) ? 0 : owned_fixed(x0, p->bits));
    owned_mark(p, k, ws, 1, cell, owned_ring_empty(x1) ? 0 : owned_fixed(x1, p->bits));
    *a0 = -0.0;
    *a1 = -0.0;
}

/* Cell `cell`'s sums of due step D (ws = D % W): 1 and s0, s1 (emptied)
 * where it is due, else 0. The flags' word is the caller's (a warp shares
 * it: owned_take reads, the warp's lane 0 clears). */
OLIVE_HD int owned_take(const spk_owned_plan *p, const spk_owned_block *k, uint32_t ws, uint32_t word, uint32_t cell,
                        double *s0, double *s1)
{
    if (!(word >> (cell & 31) & 1)) return 0;
    unsigned long long *w0 = &k->win[(ws * 2) * (uint32_t)p->PB + cell], *w1 = w0 + p->PB;
    *s0 = owned_value((long long)*w0, p->bits);
    *s1 = owned_value((long long)*w1, p->bits);
    *w0 = 0;
    *w1 = 0;
    return 1;
}

/* The chunk's end [.., last]: cell `cell`'s window sums of the steps after
 * `last` back into the ring (their ring sums are empty: taken when they
 * entered, and no later event goes there). */
OLIVE_HD void owned_give_window(const spk_owned_plan *p, const spk_owned_block *k, uint32_t b, int64_t last, uint32_t cell)
{
    const int64_t r = (int64_t)b * p->PB + cell;
    if (cell >= (uint32_t)p->PB || r >= p->n) return;
    for (int64_t D = last + 1; D < last + p->W; D++) {
        const uint32_t ws = (uint32_t)(D % p->W);
        if (!(k->dueb[ws * (uint32_t)p->NW + (cell >> 5)] >> (cell & 31) & 1)) continue;
        double *a0 = p->acc + (2 * (D % p->L)) * p->n + r;
        a0[0] = owned_value((long long)k->win[(ws * 2) * (uint32_t)p->PB + cell], p->bits);
        a0[p->n] = owned_value((long long)k->win[(ws * 2 + 1) * (uint32_t)p->PB + cell], p->bits);
    }
}

/* ... and the far queues' events x, x + step, ... of the steps after the
 * window, added to their ring sums */
OLIVE_HD void owned_give_queues(const spk_owned_plan *p, const spk_owned_block *k, uint32_t b, int64_t last, uint32_t x0,
                                uint32_t step)
{
    for (int64_t D = last + p->W; D < last + p->L; D++) {
        const uint32_t slot = (uint32_t)D & (uint32_t)(p->SL - 1), m = k->fqn[slot] < p->fqcap ? k->fqn[slot] : p->fqcap;
        for (uint32_t x = x0; x < m; x += step) {
            const unsigned long long ev = OWNED_LOAD(&p->fq[((size_t)b * (size_t)p->SL + slot) * p->fqcap + x]);
            const int64_t r = (int64_t)b * p->PB + (int64_t)(ev & 1023);
            OWNED_ADDF(&p->acc[(2 * (D % p->L) + (int64_t)(ev >> 10 & 1)) * p->n + r], owned_value((long long)ev >> 11, p->bits));
        }
    }
}

#endif
