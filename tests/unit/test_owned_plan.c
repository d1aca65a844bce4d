/* The CUDA engine's owned form (tools/simulate/spiking/spk_cuda_owned.cu)
 * moves every event through a block's window, its far queues and the delay
 * ring, and hands the ring back to device push between chunks. Its kernel
 * cannot run here; its bookkeeping can: this runs the kernel's schedule,
 * with spk_owned_plan.h's very functions, for several blocks on the CPU
 * (plain adds for atomics), on random spikes and delays, with queues small
 * enough that bursts spill into the ring, chunks of random length, some
 * run instead as device push runs them (every event added into its ring
 * slot at once), and windows from 2 due steps to the whole ring; and
 * asserts that
 *  - every cell takes, on every step, exactly the sums and the due flag of
 *    the events due then (each event's weight added where its spike's step
 *    plus its delay says, exact sums in units of 2^-bits);
 *  - between chunks the ring holds what device push's would: each due
 *    step's sums in its slot (-0.0 where no event), nothing else. */
#include "spiking/spk_owned_plan.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail;
static uint64_t rng = 88172645463325252ULL;
static uint32_t rnd(uint32_t m)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % m);
}

typedef struct { uint32_t target, rec, d; long long j; } syn;

enum { B = 3, BITS = 20, STEPS = 700, MAXSYN = 40 };

static double as_sum(double x) { return owned_ring_empty(x) ? 0.0 : x; }

static int run(int PB, int n, int L, int W, uint32_t fqcap, int beside)
{
    const int SL = owned_queue_slots(L), NW = (PB + 31) / 32;
    syn (*out)[MAXSYN] = calloc((size_t)n, sizeof *out);
    int *deg = calloc((size_t)n, sizeof *deg);
    for (int c = 0; c < n; c++) {
        deg[c] = 1 + (int)rnd(MAXSYN);
        for (int e = 0; e < deg[c]; e++)
            out[c][e] = (syn){rnd((uint32_t)n), rnd(2), 1 + rnd((uint32_t)L - 1), (long long)rnd(2001) - 1000};
    }
    /* what every cell should take at each step: sums (from +0.0) and whether any event is due */
    const int64_t T = STEPS + L + 2;
    double *ref = calloc((size_t)(T * 2 * n), sizeof *ref);
    unsigned char *refdue = calloc((size_t)(T * n), 1), *fired = calloc((size_t)(T * n), 1);
    for (int64_t s = 0; s < STEPS; s++)
        for (int c = 0; c < n; c++) {
            /* a burst now and then (spills past small queues), else sparse */
            fired[s * n + c] = s % 97 == 13 ? rnd(2) : rnd(25) == 0;
            if (!fired[s * n + c]) continue;
            for (int e = 0; e < deg[c]; e++) {
                const syn y = out[c][e];
                ref[((s + y.d) * 2 + y.rec) * n + y.target] += owned_value(y.j, BITS);
                refdue[(s + y.d) * n + y.target] = 1;
            }
        }
    spk_owned_plan p = {n, W, L, SL, PB, NW, BITS, fqcap, NULL, NULL};
    p.fq = calloc((size_t)B * SL * fqcap, sizeof *p.fq);
    p.acc = malloc((size_t)L * 2 * n * sizeof *p.acc);
    for (int64_t x = 0; x < (int64_t)L * 2 * n; x++) p.acc[x] = -0.0;
    spk_owned_block blk[B];
    for (int b = 0; b < B; b++) {
        blk[b].win = calloc((size_t)W * 2 * PB, sizeof *blk[b].win);
        blk[b].dueb = calloc((size_t)W * NW, sizeof *blk[b].dueb);
        blk[b].fqn = calloc((size_t)SL, sizeof *blk[b].fqn);
        blk[b].ringed = calloc((size_t)SL, sizeof *blk[b].ringed);
    }
    double *exp = malloc((size_t)L * 2 * n * sizeof *exp);
    unsigned char *expdue = malloc((size_t)L * n);
    int bad = 0, chunks = 0, owned_chunks = 0;
    long long taken = 0;
    /* a cell's take of step D checked against the reference */
    #define CHECK_TAKE(D, cell, due, s0, s1)                                                                          \
        do {                                                                                                          \
            const int64_t d_ = (D);                                                                                   \
            if ((due) != refdue[d_ * n + (cell)] ||                                                                   \
                ((due) && ((s0) != ref[(d_ * 2) * n + (cell)] || (s1) != ref[(d_ * 2 + 1) * n + (cell)]))) {         \
                if (bad++ < 5)                                                                                        \
                    printf("  step %lld cell %d: took due %d sums %g %g, expected due %d sums %g %g\n", (long long)d_, \
                           (cell), (due), (s0), (s1), refdue[d_ * n + (cell)], ref[(d_ * 2) * n + (cell)],              \
                           ref[(d_ * 2 + 1) * n + (cell)]);                                                           \
            }                                                                                                         \
            taken += (due);                                                                                           \
        } while (0)
    for (int64_t first = 0; first < STEPS;) {
        int64_t count = 1 + (int64_t)rnd(40);
        if (first + count > STEPS) count = STEPS - first;
        const int64_t last = first + count - 1;
        const int owned = rnd(4) != 0;
        chunks++;
        owned_chunks += owned;
        if (!owned) {   /* device push: the spikes' events into their ring slots, each step's tail from its slot */
            for (int64_t t = first; t <= last; t++) {
                for (int c = 0; c < n; c++) {   /* (step t - 1's spikes, sent beside step t's pass) */
                    if (t == first || !fired[(t - 1) * n + c]) continue;
                    for (int e = 0; e < deg[c]; e++) {
                        const syn y = out[c][e];
                        p.acc[(2 * ((t - 1 + y.d) % L) + y.rec) * n + y.target] += owned_value(y.j, BITS);
                    }
                }
                if (t == first) continue;
                for (int r = 0; r < n; r++) {
                    double *a0 = p.acc + (2 * ((t - 1) % L)) * n + r;
                    const int due = !owned_ring_empty(a0[0]) || !owned_ring_empty(a0[n]);
                    CHECK_TAKE(t - 1, r, due, as_sum(a0[0]), as_sum(a0[n]));
                    a0[0] = a0[n] = -0.0;
                }
            }
            for (int c = 0; c < n; c++)   /* the chunk's end: the last step's events, its tail */
                for (int e = 0; fired[last * n + c] && e < deg[c]; e++) {
                    const syn y = out[c][e];
                    p.acc[(2 * ((last + y.d) % L) + y.rec) * n + y.target] += owned_value(y.j, BITS);
                }
            for (int r = 0; r < n; r++) {
                double *a0 = p.acc + (2 * (last % L)) * n + r;
                const int due = !owned_ring_empty(a0[0]) || !owned_ring_empty(a0[n]);
                CHECK_TAKE(last, r, due, as_sum(a0[0]), as_sum(a0[n]));
                a0[0] = a0[n] = -0.0;
            }
        } else {   /* the owned kernel's schedule, block by block (one thread at a time) */
            for (int b = 0; b < B; b++) {
                memset(blk[b].win, 0, (size_t)W * 2 * PB * sizeof *blk[b].win);
                memset(blk[b].dueb, 0, (size_t)W * NW * sizeof *blk[b].dueb);
                for (int x = 0; x < SL; x++) blk[b].fqn[x] = 0, blk[b].ringed[x] = 1;
                for (int64_t D = first; D < owned_entering(first, W); D++)
                    for (int cell = 0; cell < PB; cell++) owned_enter_ring(&p, &blk[b], (uint32_t)b, D, (uint32_t)cell);
            }
            for (int64_t q = 0; q <= count; q++) {
                const int64_t t = first + q;
                for (int b = 0; b < B; b++) {
                    spk_owned_block *k = &blk[b];
                    const uint32_t prev = (uint32_t)owned_entered_before(t, W) & (uint32_t)(SL - 1);
                    k->fqn[prev] = 0;
                    k->ringed[prev] = 0;
                    for (int pass = 0; pass < 2; pass++) {
                        if ((pass == 0) == (beside != 0)) {   /* the cells' takes of step t - 1 */
                            if (q == 0) continue;
                            const uint32_t ws = (uint32_t)((t - 1) % W);
                            for (int wd = 0; wd < NW; wd++) {
                                const uint32_t word = k->dueb[ws * NW + wd];
                                for (int cell = wd * 32; cell < wd * 32 + 32 && cell < PB; cell++) {
                                    const int r = b * PB + cell;
                                    double s0 = 0, s1 = 0;
                                    const int due = owned_take(&p, k, ws, word, (uint32_t)cell, &s0, &s1);
                                    if (r < n) CHECK_TAKE(t - 1, r, due, s0, s1);
                                }
                                k->dueb[ws * NW + wd] = 0;
                            }
                        } else {   /* the sends of step t - 1's spikes, the step entering */
                            for (int c = 0; q > 0 && c < n; c++) {
                                if (!fired[(t - 1) * n + c]) continue;
                                for (int e = 0; e < deg[c]; e++) {
                                    const syn y = out[c][e];
                                    if ((int)y.target / PB != b) continue;   /* (the block's group) */
                                    owned_event(&p, k, (uint32_t)b, t - 1, (uint32_t)((t - 1) % W), y.d, y.rec,
                                                y.target - (uint32_t)(b * PB), y.j);
                                }
                            }
                            const int64_t E = owned_entering(t, W);
                            owned_enter_queue(&p, k, (uint32_t)b, E, 0, 1);
                            for (int cell = 0; cell < PB; cell++) owned_enter_ring(&p, k, (uint32_t)b, E, (uint32_t)cell);
                        }
                    }
                }
            }
            for (int b = 0; b < B; b++) {
                for (int cell = 0; cell < PB; cell++) owned_give_window(&p, &blk[b], (uint32_t)b, last, (uint32_t)cell);
                owned_give_queues(&p, &blk[b], (uint32_t)b, last, 0, 1);
            }
        }
        /* between chunks: device push's ring, the events of the spikes so
         * far due after `last` in their slots */
        memset(exp, 0, (size_t)L * 2 * n * sizeof *exp);
        memset(expdue, 0, (size_t)L * n);
        for (int64_t sp = last - L + 2 > 0 ? last - L + 2 : 0; sp <= last; sp++)
            for (int c = 0; c < n; c++)
                for (int e = 0; fired[sp * n + c] && e < deg[c]; e++) {
                    const syn y = out[c][e];
                    if (sp + y.d <= last) continue;
                    exp[(((sp + y.d) % L) * 2 + y.rec) * n + y.target] += owned_value(y.j, BITS);
                    expdue[((sp + y.d) % L) * n + y.target] = 1;
                }
        for (int64_t D = last + 1; D < last + L; D++)
            for (int r = 0; r < n; r++) {
                const double *a0 = p.acc + (2 * (D % L)) * n + r, *x0 = exp + (2 * (D % L)) * n + r;
                const int due = !owned_ring_empty(a0[0]) || !owned_ring_empty(a0[n]);
                const int want = expdue[(D % L) * n + r];
                if (due != want || (want && (as_sum(a0[0]) != x0[0] || as_sum(a0[n]) != x0[n]))) {
                    if (bad++ < 5) printf("  after step %lld (%s chunk from %lld): the ring's step %lld, cell %d: due %d %g %g, expected %d %g %g\n", (long long)last,
                                          owned ? "owned" : "device push", (long long)first, (long long)D, r, due, a0[0], a0[n], want, x0[0], x0[n]);
                }
            }
        for (int r = 0; r < n; r++)
            if (!owned_ring_empty(p.acc[(2 * (last % L)) * n + r]) || !owned_ring_empty(p.acc[(2 * (last % L) + 1) * n + r]))
                if (bad++ < 5) printf("  after step %lld: its slot not emptied (cell %d)\n", (long long)last, r);
        first = last + 1;
    }
    printf("%s %d cells (%d blocks of %d), ring of %d, window %d, queues of %u, %s: %d chunks (%d owned), %lld due takes\n",
           bad ? "FAIL" : "ok  ", n, B, PB, L, W, fqcap, beside ? "steps beside the sends" : "sends first", chunks, owned_chunks,
           taken);
    fail += bad != 0;
    for (int b = 0; b < B; b++) {
        free(blk[b].win);
        free(blk[b].dueb);
        free(blk[b].fqn);
        free(blk[b].ringed);
    }
    free(p.fq);
    free(p.acc);
    free(ref);
    free(refdue);
    free(exp);
    free(expdue);
    free(fired);
    free(out);
    free(deg);
    return bad;
}

int main(void)
{
    /* the window's size from shared memory: the microcircuit's 585 cells a
     * block in an H100's 227 KB opt-in beside 64 queue counts, and no more
     * than the ring */
    const int w = owned_window(232448 - 8 * 64 - 1024, 585, 58);
    if (w != 24) { printf("FAIL the microcircuit's window: %d due steps, expected 24\n", w); fail++; }
    if (owned_window(1 << 20, 10, 7) != 7 || owned_queue_slots(58) != 64 || owned_queue_slots(64) != 64) {
        printf("FAIL window or queue slots\n");
        fail++;
    }
    /* cells a block, cells, ring slots, window, queue room, steps beside the sends */
    run(40, 110, 9, 2, 1, 0);      /* the smallest window: every event but delay 1 far; queues of 1 spill */
    run(40, 110, 9, 5, 3, 1);
    run(40, 120, 9, 9, 4, 0);      /* the whole ring in the window: nothing far */
    run(70, 200, 30, 7, 2, 1);     /* two words of flags a block, the last one part-filled */
    run(70, 200, 30, 12, 64, 0);   /* queues that never spill */
    run(33, 90, 2, 2, 1, 1);       /* delays of one step only */
    printf(fail ? "test_owned_plan: FAILED\n" : "test_owned_plan: all passed\n");
    return fail != 0;
}
