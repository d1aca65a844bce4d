/* olive-junctiontiles: InfOli's gap-junction sums on the GPU two ways, on a
 * random network of N cells with K junctions each (uniform, distinct,
 * ascending columns; 8-bit conductance codes), timed and compared bit for
 * bit (issue 58: 80 % of the bandwidth floor at 100 and 1000 junctions).
 *
 *   rows  - the CUDA engine's form (tools/simulate/infoli/backend_cuda.cu's
 *           k_currents): a thread a row, sliced ELL, each neighbour's
 *           voltage gathered from L2: a 32-byte sector for 8 bytes.
 *   tiles - one block an SM owns up to 8192 rows, their sums and voltages
 *           in shared memory; it walks all voltages tile by tile (6144 a
 *           tile, two buffers, the next one copied while this one is used).
 *           A tile's junctions of the block come as row segments (a row's
 *           junctions whose neighbours fall in the tile), sorted by length
 *           and dealt 32 to a warp, a lane a segment: the lane adds its
 *           segment's terms to its row's sum in order, so every row's
 *           terms are added in stored order (the same bits as rows), and
 *           the lanes of a warp carry nearly equal work.
 *
 * Usage: olive-junctiontiles N K [reps]  (prints one line of each form and
 * PASS/FAIL of the bitwise comparison). */
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>

#define BENCH_NAME "olive-junctiontiles"
#include "bench_cuda.h"
#include "model.h"
#include "junction_tiles.cuh"

/* ---- rows: the engine's form ---- */
__global__ void __launch_bounds__(256) k_rows(const double *vd, int64_t n, int k, const int32_t *col,
                                              const uint8_t *code, const double *lut, double *ic)
{
    const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n) return;
    const int64_t base = (r >> 5) * 32 * (int64_t)k + (r & 31);
    const double vi = vd[r];
    double a = 0;
    int j = 0;
    for (; j + 4 <= k; j += 4) {
        double t[4];
#pragma unroll
        for (int u = 0; u < 4; u++) {
            const int64_t e = base + 32 * (int64_t)(j + u);
            t[u] = olive_gj_term_d(OLIVE_GJ_RGJ, lut[code[e]], vi - vd[col[e]]);
        }
#pragma unroll
        for (int u = 0; u < 4; u++) a = a + t[u];
    }
    for (; j < k; j++) {
        const int64_t e = base + 32 * (int64_t)j;
        a = a + olive_gj_term_d(OLIVE_GJ_RGJ, lut[code[e]], vi - vd[col[e]]);
    }
    ic[r] = a;
}

/* ---- host ---- */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33;
    return x;
}

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: olive-junctiontiles N K [reps]\n"); return 2; }
    const int64_t n = atoll(argv[1]);
    const int k = atoi(argv[2]), reps = argc > 3 ? atoi(argv[3]) : 20;
    if (n < 64 || n > ((int64_t)1 << 31) || k < 1 || k >= n || reps < 1) { fprintf(stderr, "olive-junctiontiles: bad N/K\n"); return 2; }
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    /* the network, CSR, ascending distinct columns, no self */
    const size_t nnz = (size_t)n * k;
    std::vector<int32_t> col(nnz);
    std::vector<uint8_t> code(nnz);
    std::vector<int64_t> rp(n + 1);
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t r = 0; r < n; r++) {
        int32_t *c = &col[(size_t)r * k];
        uint64_t s = mix((uint64_t)r * 0x9e3779b97f4a7c15ULL + 12345);
        int m = 0;
        while (m < k) {
            for (int i = m; i < k; i++) { s = mix(s + 1); int64_t x = (int64_t)(s % (uint64_t)(n - 1)); c[i] = (int32_t)(x >= r ? x + 1 : x); }
            std::sort(c, c + k);
            m = (int)(std::unique(c, c + k) - c);
        }
        for (int i = 0; i < k; i++) code[(size_t)r * k + i] = (uint8_t)(mix(s + 77 + i) & 255);
    }
    for (int64_t r = 0; r <= n; r++) rp[r] = r * k;
    std::vector<double> v(n), lut(256);
    for (int64_t i = 0; i < n; i++) v[i] = -70.0 + 25.0 * (double)(mix(i + 999) >> 11) * (1.0 / 9007199254740992.0);
    for (int i = 0; i < 256; i++) lut[i] = 0.01 + 0.04 * i / 255.0;
    /* rows: sliced ELL (every row K long) */
    std::vector<int32_t> ecol((size_t)(n + 31) / 32 * 32 * k);   /* the last slice padded to 32 rows */
    std::vector<uint8_t> ecode(ecol.size());
#pragma omp parallel for
    for (int64_t r = 0; r < n; r++)
        for (int j = 0; j < k; j++) {
            const size_t e = (size_t)(r >> 5) * 32 * k + (r & 31) + 32 * (size_t)j;
            ecol[e] = col[(size_t)r * k + j];
            ecode[e] = code[(size_t)r * k + j];
        }
    double *d_v, *d_lut, *d_ic1, *d_ic2;
    int32_t *d_col, *d_ecol;
    uint8_t *d_code, *d_ecode;
    int64_t *d_rp;
    CK(cudaMalloc(&d_v, n * 8)); CK(cudaMalloc(&d_lut, 256 * 8));
    CK(cudaMalloc(&d_ic1, n * 8)); CK(cudaMalloc(&d_ic2, n * 8));
    CK(cudaMalloc(&d_ecol, ecol.size() * 4)); CK(cudaMalloc(&d_ecode, ecode.size()));
    CK(cudaMemcpy(d_v, v.data(), n * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_lut, lut.data(), 256 * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_ecol, ecol.data(), ecol.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_ecode, ecode.data(), ecode.size(), cudaMemcpyHostToDevice));
    /* tiles: the layout built on the device from the CSR rows, as the engine builds it */
    CK(cudaMalloc(&d_col, nnz * 4)); CK(cudaMalloc(&d_code, nnz)); CK(cudaMalloc(&d_rp, (n + 1) * 8));
    CK(cudaMemcpy(d_col, col.data(), nnz * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_code, code.data(), nnz, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_rp, rp.data(), (n + 1) * 8, cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    jt_layout T;
    CK(cudaEventRecord(e0));
    const int built = jt_build<8>(NULL, n, d_rp, d_col, d_code, n, p.multiProcessorCount, 0, &T);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    float build_ms;
    CK(cudaEventElapsedTime(&build_ms, e0, e1));
    if (built != 0) { fprintf(stderr, "olive-junctiontiles: jt_build refused the network\n"); return 1; }
    CK(cudaFree(d_col)); CK(cudaFree(d_code)); CK(cudaFree(d_rp));
    const size_t smem = jt_smem_bytes<double>();
    CK(cudaFuncSetAttribute(k_tile_currents<double, 8, OLIVE_GJ_RGJ>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    float best[2] = {1e30f, 1e30f};
    for (int round = 0; round < 2; round++)
        for (int form = 0; form < 2; form++) {
            CK(cudaEventRecord(e0));
            for (int r = 0; r < reps; r++) {
                if (form == 0) k_rows<<<(unsigned)((n + 255) / 256), 256>>>(d_v, n, k, d_ecol, d_ecode, d_lut, d_ic1);
                else k_tile_currents<double, 8, OLIVE_GJ_RGJ><<<(unsigned)T.nblocks, 1024, smem>>>(d_v, T, NULL, d_lut, 0.0, d_ic2);
            }
            CK(cudaGetLastError());
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            best[form] = std::min(best[form], ms / reps);
        }
    std::vector<double> ic1(n), ic2(n);
    CK(cudaMemcpy(ic1.data(), d_ic1, n * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ic2.data(), d_ic2, n * 8, cudaMemcpyDeviceToHost));
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) bad += memcmp(&ic1[i], &ic2[i], 8) != 0;
    printf("%s N %lld K %d: rows %.3f ms, tiles %.3f ms (%.2fx); layout built in %.1f ms, %.2f GB (entries %.3f x the junctions' 4 bytes), %d blocks of %lld rows, %d tiles\n",
           p.name, (long long)n, k, best[0], best[1], best[0] / best[1], build_ms, T.bytes / 1e9, T.bytes / (4.0 * nnz),
           T.nblocks, (long long)T.rows_per_block, T.ntiles);
    printf("%s tiles = rows bit for bit (%lld of %lld sums differ)\n", bad ? "FAIL" : "PASS", (long long)bad, (long long)n);
    return bad ? 1 : 0;
}
