/* A hash of what a network gives a simulation beyond its structure: every
 * junction's conductance and every cell's g_CaL. The structure checksum
 * (netfile.c) is what a dispersal map depends on; a restart depends on this
 * too (a state continued on other conductances is another run).
 *
 * Each junction and cell contributes mix(global index, value) and the
 * contributions are summed mod 2^64: the sum does not depend on how rows are
 * split over ranks or threads (MPI_SUM combines the ranks' parts), and it
 * costs one pass at memory speed. */
#include "netcontent.h"
#include "mix64.h"
#include "state.h"
#include <string.h>

uint64_t olive_mix64(uint64_t x) { return olive_mix64_inline(x); }

uint64_t olive_bits_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

uint64_t olive_hash_values(uint64_t tag, int64_t first, int64_t n, const void *data, size_t el)
{
    uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (int64_t i = 0; i < n; i++) {
        uint64_t b;
        if (el == 4) {
            uint32_t u;
            memcpy(&u, (const char *)data + (size_t)i * 4, 4);
            b = u;
        } else {
            memcpy(&b, (const char *)data + (size_t)i * 8, 8);
        }
        sum += olive_mix64(olive_mix64(tag ^ olive_mix64((uint64_t)(first + i))) ^ b);
    }
    return sum;
}

uint64_t olive_hash_name(const char *name)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) h = (h ^ *c) * UINT64_C(0x100000001b3);
    return olive_mix64(h);
}

#define mix olive_mix64
#define bits_of olive_bits_of

/* The stored code of local junction e (the value's bits at 32 and 64 bits). */
static uint64_t code_of(const olive_network *n, int64_t e)
{
    switch (n->bits) {
    case 4: return (((const uint8_t *)n->cond)[e >> 1] >> ((e & 1) * 4)) & 15;
    case 8: return ((const uint8_t *)n->cond)[e];
    case 16: return ((const uint16_t *)n->cond)[e];
    case 32: { uint32_t u; memcpy(&u, (const float *)n->cond + e, sizeof u); return u; }
    case 64: { uint64_t u; memcpy(&u, (const double *)n->cond + e, sizeof u); return u; }
    default: return 0;
    }
}

uint64_t olive_net_content_part(const olive_network *n)
{
    uint64_t sum = 0;
    const int64_t rows = n->row1 - n->row0;
    if (n->bits) {
#pragma omp parallel for schedule(static) reduction(+ : sum)
        for (int64_t e = 0; e < n->nnz; e++)
            sum += mix(mix((uint64_t)(n->e0 + e)) ^ code_of(n, e));
    }
    const uint64_t cell_tag = UINT64_C(1) << 62;  /* cells and junctions never share an index */
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (int64_t r = 0; r < rows; r++) {
        double g = n->g_cal ? n->g_cal[r] : olive_var_initial[OV_G_CAL];
        sum += mix(mix(cell_tag | (uint64_t)(n->row0 + r)) ^ bits_of(g));
    }
    return sum;
}

uint64_t olive_net_content_finish(uint64_t sum, const olive_network *n)
{
    uint64_t h = mix(sum ^ (uint64_t)n->bits);
    h = mix(h ^ bits_of(n->offset));
    h = mix(h ^ bits_of(n->scale));
    return mix(h ^ (uint64_t)n->count) >> 1;   /* fits an int64 attribute */
}
