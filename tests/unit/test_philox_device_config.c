/* Random123's Philox4x32-10 built as the CUDA engine builds it (common/math/rng.h:
 * on the device its 32 x 32 -> 64-bit products are the high word, __umulhi,
 * and a low product, instead of one 64-bit product): the same configuration
 * here on the host, with a host function in __umulhi's place, against
 * Random123's published known answers (its kat_vectors file: counter, key ->
 * output) and, for 200,000 random counters and keys, against the rounds
 * written out with 64-bit products (the form Random123's default build, the
 * host's, compiles to). Integers both ways: the same bits. */
#include <stdint.h>
#include <stdio.h>

static inline uint32_t host_umulhi(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
#define R123_USE_64BIT 0
#define R123_USE_MULHILO32_MULHI_INTRIN 1
#define R123_MULHILO32_MULHI_INTRIN host_umulhi
#include <Random123/philox.h>

static int fail;

static void kat(const uint32_t c[4], const uint32_t k[2], const uint32_t want[4])
{
    philox4x32_ctr_t ctr = {{c[0], c[1], c[2], c[3]}};
    philox4x32_key_t key = {{k[0], k[1]}};
    philox4x32_ctr_t r = philox4x32(ctr, key);
    int ok = 1;
    for (int i = 0; i < 4; i++) ok &= r.v[i] == want[i];
    printf("philox4x32-10 ctr %08x %08x %08x %08x key %08x %08x -> %08x %08x %08x %08x%s\n", c[0], c[1], c[2], c[3], k[0],
           k[1], r.v[0], r.v[1], r.v[2], r.v[3], ok ? "" : "  FAIL (want the published answer)");
    if (!ok) fail = 1;
}

int main(void)
{
    /* Random123 1.14, examples/kat_vectors: philox4x32 10 */
    const uint32_t c0[4] = {0, 0, 0, 0}, k0[2] = {0, 0}, w0[4] = {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8};
    const uint32_t c1[4] = {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, k1[2] = {0xffffffff, 0xffffffff},
                   w1[4] = {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd};
    const uint32_t c2[4] = {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, k2[2] = {0xa4093822, 0x299f31d0},
                   w2[4] = {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1};
    kat(c0, k0, w0);
    kat(c1, k1, w1);
    kat(c2, k2, w2);
    /* the 64-bit default, written out for the same counters: a long walk of
     * counters and keys (products with high words of every size) */
    long long differ = 0;
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 200000; i++) {
        uint32_t w[6];
        for (int j = 0; j < 6; j++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            w[j] = (uint32_t)(x >> 16);
        }
        philox4x32_ctr_t ctr = {{w[0], w[1], w[2], w[3]}};
        philox4x32_key_t key = {{w[4], w[5]}};
        philox4x32_ctr_t a = philox4x32(ctr, key);
        /* Philox4x32-10 from its definition with 64-bit products (Salmon et al. 2011) */
        uint32_t v[4] = {w[0], w[1], w[2], w[3]}, k[2] = {w[4], w[5]};
        for (int r = 0; r < 10; r++) {
            if (r) k[0] += 0x9E3779B9u, k[1] += 0xBB67AE85u;
            const uint64_t p0 = (uint64_t)0xD2511F53u * v[0], p1 = (uint64_t)0xCD9E8D57u * v[2];
            const uint32_t n0 = (uint32_t)(p1 >> 32) ^ v[1] ^ k[0], n2 = (uint32_t)(p0 >> 32) ^ v[3] ^ k[1];
            v[1] = (uint32_t)p1, v[3] = (uint32_t)p0, v[0] = n0, v[2] = n2;
        }
        for (int j = 0; j < 4; j++) differ += a.v[j] != v[j];
    }
    printf("200000 random counters and keys: %lld words differ from the 64-bit products' (want 0)%s\n", differ,
           differ ? "  FAIL" : "");
    if (differ) fail = 1;
    printf(fail ? "FAIL\n" : "PASS\n");
    return fail;
}
