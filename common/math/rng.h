/* Counter-based randomness (Random123 Philox4x32-10) keyed by the seed and
 * counted by (a, b, draw, stream): the same seed gives the same numbers for
 * any number of ranks, any thread schedule, and on the CPU or the GPU. */
#ifndef OLIVE_RNG_H
#define OLIVE_RNG_H
#include <stdint.h>
#if defined(__CUDA_ARCH__) && !defined(R123_USE_64BIT)
/* On the device Philox's 32 x 32 -> 64 bit products as __umulhi and a low
 * product: Random123's default there, a 64-bit product of zero-extended
 * words, left 64-bit multiplies and xors in the kernels that draw
 * synapses at each spike. Integers: the same bits either way. */
#define R123_USE_64BIT 0
#define R123_USE_MULHILO32_MULHI_INTRIN 1
#define R123_MULHILO32_MULHI_INTRIN __umulhi
#endif
#include <Random123/philox.h>
#include "hostdev.h"

/* Streams keep independent uses of one (a, b) pair apart. */
enum olive_stream {
    OLIVE_STREAM_DEGREE = 1,   /* uniform: geometric gaps between partners */
    OLIVE_STREAM_PARTNER = 2,  /* fixed-degree / gaussian partner draws */
    OLIVE_STREAM_CONDUCTANCE = 3,
    OLIVE_STREAM_GCAL = 4,
    /* 5-7: olive-simulate (noise.h); 8-11: chemical synapses and spiking cells */
    OLIVE_STREAM_SYN_PAIRS = 8,    /* which sources a target receives from */
    OLIVE_STREAM_SYN_WEIGHT = 9,
    OLIVE_STREAM_SYN_DELAY = 10,
    OLIVE_STREAM_V0 = 11,          /* random initial potentials written by olive-genconn */
    OLIVE_STREAM_POISSON = 12,     /* olive-simulate --poisson: (cell, step) */
    OLIVE_STREAM_SOURCE = 13,      /* spike_source_poisson cells: (cell, step) */
    OLIVE_STREAM_SYN_SITE = 14,    /* olive-genconn sites=: where on its target a synapse sits */
    OLIVE_STREAM_PYNN_NATIVE = 15,
    OLIVE_STREAM_SYN_SOURCES = 16, /* total_out: the source of each of its k synapses (their counts) */ /* pyNN.olive NativeRNG (python/olive/pynn/native_rng.py draws it in numpy) */
};

/* Four 32-bit words for counter (a, b, draw, stream) under key seed. */
OLIVE_HD philox4x32_ctr_t olive_rng4(uint64_t seed, uint32_t a, uint32_t b, uint32_t draw, uint32_t stream)
{
    philox4x32_ctr_t c = {{a, b, draw, stream}};
    philox4x32_key_t k = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    return philox4x32(c, k);
}

/* Uniform double in the open interval (0, 1), 53 random bits, from two words. */
OLIVE_HD double olive_u01(uint32_t hi, uint32_t lo)
{
    uint64_t x = (((uint64_t)hi << 32) | lo) >> 11;
    return ((double)x + 0.5) * (1.0 / 9007199254740992.0);
}

/* Two uniforms (0,1) for counter (a, b, draw, stream). */
OLIVE_HD void olive_uniform2(uint64_t seed, uint32_t a, uint32_t b, uint32_t draw, uint32_t stream,
                             double *u0, double *u1)
{
    philox4x32_ctr_t r = olive_rng4(seed, a, b, draw, stream);
    *u0 = olive_u01(r.v[0], r.v[1]);
    *u1 = olive_u01(r.v[2], r.v[3]);
}

/* 64 random bits for counter (a, b, draw, stream). */
OLIVE_HD uint64_t olive_bits64(uint64_t seed, uint32_t a, uint32_t b, uint32_t draw, uint32_t stream)
{
    philox4x32_ctr_t r = olive_rng4(seed, a, b, draw, stream);
    return ((uint64_t)r.v[0] << 32) | r.v[1];
}

#endif
