/* The CUDA engine's host push path with --order-free-sums keeps an empty slot
 * of its delay ring at -0.0 and writes no touched byte as it adds a rule's
 * events (tools/simulate/spiking/spk_cuda.cu, k_deliver): a target is due when
 * touched or when a sum is not -0.0, and a sum left at -0.0 counts as +0.0.
 * What that rests on, in the IEEE arithmetic the GPU shares with this CPU:
 * - a rounded weight (olive_weight_quantize) is never -0.0, whatever it rounds
 *   (negative weights too small for the grid, -0.0 itself, every grid width);
 * - any sequence of rounded weights added to -0.0 gives, with -0.0 read as
 *   +0.0, the bits the CPU engine's sum from +0.0 gives, and is not -0.0
 *   unless the sequence is empty (so no due target is missed, sums that
 *   cancel to zero included). */
#include "weight_quantum.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int fail;

static uint64_t bits_of(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static const uint64_t NEG0 = 0x8000000000000000ULL;

int main(void)
{
    /* 1: no rounded weight is -0.0 */
    const double odd[] = {-0.0, 0.0, -1e-300, -4.9e-324, -1e-12, -0.5e-9, 1e-300, -87.8, 87.8, -351.2};
    long long neg0 = 0, tried = 0;
    for (int bits = 0; bits <= 60; bits++) {
        for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++, tried++) neg0 += bits_of(olive_weight_quantize(odd[i], bits)) == NEG0;
        for (int e = -80; e <= 10; e++, tried += 2) {   /* just below and above half a grid step, negative */
            const double h = ldexp(1.0, -bits - 1);
            neg0 += bits_of(olive_weight_quantize(-h * (1 - ldexp(1.0, e - 90)), bits)) == NEG0;
            neg0 += bits_of(olive_weight_quantize(-ldexp(1.0, e), bits)) == NEG0;
        }
    }
    printf("%lld weights rounded, %lld of them -0.0 (want 0)%s\n", tried, neg0, neg0 ? "  FAIL" : "");
    if (neg0) fail = 1;

    /* 2: sums from -0.0 (the GPU's empty slot) against sums from +0.0 (the CPU's) */
    uint64_t x = 0x2545f4914f6cdd1dULL;
    long long differ = 0, empty_seen = 0, zero_seen = 0, lost = 0;
    for (int t = 0; t < 200000; t++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const int len = (int)(x % 7), bits = 20 + (int)(x >> 8) % 30, kind = (int)(x >> 16) % 3;
        double gpu = -0.0, cpu = 0.0, first = 0;
        for (int i = 0; i < len; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            double w;
            if (kind == 0) w = ((double)(x >> 11) / 9007199254740992.0 - 0.5) * 200.0;   /* mixed signs */
            else if (kind == 1) w = i % 2 ? -first : (first = ((double)(x >> 11) / 9007199254740992.0) * 100.0);   /* +w, -w: cancels */
            else w = i % 2 ? -ldexp(1.0, -bits - 3) : 0.0;   /* weights that round to zero, and zero */
            w = olive_weight_quantize(w, bits);
            gpu = gpu + w;
            cpu = cpu + w;
        }
        const uint64_t g = bits_of(gpu);
        const double read = g == NEG0 ? 0.0 : gpu;
        if (bits_of(read) != bits_of(cpu)) differ++;
        if (len == 0) empty_seen++;
        if (len > 0 && g == NEG0) lost++;   /* events that would not make the target due */
        if (len > 0 && cpu == 0.0) zero_seen++;
    }
    printf("200000 sums (%lld empty, %lld of events summing to 0): %lld differ from the CPU's (want 0), "
           "%lld with events left at -0.0 (want 0)%s\n", empty_seen, zero_seen, differ, lost, differ || lost ? "  FAIL" : "");
    if (differ || lost) fail = 1;
    if (!empty_seen || !zero_seen) {   /* (the cases that matter must occur) */
        printf("FAIL: the draws missed the empty or the cancelling sums\n");
        fail = 1;
    }
    printf(fail ? "FAIL\n" : "PASS\n");
    return fail;
}
