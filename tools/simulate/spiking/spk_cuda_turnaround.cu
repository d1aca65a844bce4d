/* The rows of a large network turned around into per-source lists on the
 * device (spk.h's dev.rows): the host reads the rows and uploads them
 * (4 bytes a synapse for the sources, more where weights or delays vary),
 * where the host's two passes over every synapse (spk_setup.c) cost seconds
 * at 1e9 synapses and its lists 18 bytes a synapse to copy.
 *
 * The lists are the host's, entry for entry: every synapse gets its place x
 * in (target, projection, index) order (one warp a row), its record (target,
 * receptor, weight) and delay at x, and its source as the key of x; a stable
 * radix sort by source then leaves each source's places in x order, the
 * order setup_lists gives its lists. The synapse hash's terms (spk_restart.c)
 * are summed on the way. */
#include <cub/cub.cuh>
#include <hdf5.h>
#include <mpi.h>   /* (C++ headers: before spk_cuda.h's extern "C") */
#include "mix64.h"
#include "spk_cuda.h"
#include "spk_sort.cuh"

/* Projection rows [0, n): row r's synapses to places base[r] + i. */
__global__ void k_ta_place(int64_t n, const int64_t *row_ptr, const int64_t *base, const int32_t *col, const double *w,
                           double wconst, const uint16_t *dl, uint16_t dconst, int rec, int64_t row0, uint32_t *key,
                           uint32_t *val, spk_out *recs, uint16_t *rdl, uint32_t *per_source, unsigned long long *hash)
{
    const int64_t r = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x & 31;
    unsigned long long h = 0;
    if (r < n) {
        for (int64_t e = row_ptr[r] + lane, x = base[r] + lane; e < row_ptr[r + 1]; e += 32, x += 32) {
            const int32_t g = col[e];
            const double we = w ? w[e] : wconst;
            const uint16_t d = dl ? dl[e] : dconst;
            key[x] = (uint32_t)g;
            val[x] = (uint32_t)x;
            recs[x] = spk_out{(int32_t)r, rec, we};
            rdl[x] = d;
            atomicAdd(&per_source[g], 1u);
            h += olive_synapse_hash_term((uint64_t)g, (uint64_t)(row0 + r), (uint64_t)rec, d,
                                         (uint64_t)__double_as_longlong(we));
        }
    }
    /* (a sum mod 2^64: any order) */
    for (int o = 16; o > 0; o /= 2) h += __shfl_down_sync(0xffffffffu, h, o);
    if (lane == 0 && h) atomicAdd(hash, h);
}

__global__ void k_ta_gather(int64_t m, const uint32_t *val, const spk_out *recs, const uint16_t *rdl, spk_out *out,
                            uint16_t *out_delay)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= m) return;
    const uint32_t x = val[i];
    out[i] = recs[x];
    out_delay[i] = rdl[x];
}

void spk_turnaround_device(sim_t *s, spk_cuda *g)
{
    struct sim_spk *k = s->spk;
    olive_synapses *syn = k->dev.rows;
    const int64_t n = s->plan.nlocal, N = g->N, m = k->nsyn;
    const double t0 = olive_now();
    if (m >= (int64_t)UINT32_MAX) olive_die("internal: %lld synapses for the device turn-around (< 2^32)", (long long)m);
    uint32_t *key = dev_alloc<uint32_t>((size_t)m, "the turn-around"), *key2 = dev_alloc<uint32_t>((size_t)m, "the turn-around");
    uint32_t *val = dev_alloc<uint32_t>((size_t)m, "the turn-around"), *val2 = dev_alloc<uint32_t>((size_t)m, "the turn-around");
    spk_out *recs = dev_alloc<spk_out>((size_t)m, "the turn-around");
    uint16_t *rdl = dev_alloc<uint16_t>((size_t)m, "the turn-around");
    uint32_t *per_source = dev_alloc<uint32_t>((size_t)N, "the turn-around");
    unsigned long long *hash = dev_alloc<unsigned long long>(1, "the turn-around");
    CK(cudaMemset(per_source, 0, (size_t)N * sizeof(uint32_t)));
    CK(cudaMemset(hash, 0, sizeof(unsigned long long)));
    /* base[r]: the places before row r's synapses of projection j (every
     * projection's rows before r, then the earlier projections' row r) */
    int64_t *base = (int64_t *)olive_malloc((size_t)(n + 1) * sizeof(int64_t), "the turn-around");
    for (int64_t r = 0; r < n; r++) {
        int64_t b = 0;
        for (int j = 0; j < syn->n; j++) b += syn->proj[j].row_ptr[r];
        base[r] = b;
    }
    int64_t *d_base = dev_alloc<int64_t>((size_t)n + 1, "the turn-around");
    int64_t *d_ptr = dev_alloc<int64_t>((size_t)n + 1, "the turn-around");
    for (int j = 0; j < syn->n; j++) {
        olive_projection *p = &syn->proj[j];
        if (p->nnz == 0) continue;
        CK(cudaMemcpy(d_base, base, (size_t)n * sizeof(int64_t), cudaMemcpyHostToDevice));
        /* rows drawn on the device (spk_cuda_draw.cu) are there already */
        const spk_drawn_rows *dr = spk_drawn_of(s, j);
        if (!dr) CK(cudaMemcpy(d_ptr, p->row_ptr, (size_t)(n + 1) * sizeof(int64_t), cudaMemcpyHostToDevice));
        int32_t *col = dr ? dr->col : dev_copy(p->col, (size_t)p->nnz, "the turn-around");
        double *w = dr ? dr->w : p->weight ? dev_copy(p->weight, (size_t)p->nnz, "the turn-around") : nullptr;
        uint16_t *dl = dr ? dr->d : p->delay ? dev_copy(p->delay, (size_t)p->nnz, "the turn-around") : nullptr;
        k_ta_place<<<spk_blocks(n * 32, 256), 256>>>(n, dr ? dr->row_ptr : d_ptr, d_base, col, w, p->weight_value, dl,
                                                     (uint16_t)p->delay_value, k->dev.rows_rec[j], s->plan.row0, key, val,
                                                     recs, rdl, per_source, hash);
        CK_LAUNCH("k_ta_place");
        if (!dr) {
            CK(cudaFree(col));
            CK(cudaFree(w));
            CK(cudaFree(dl));
        }
        for (int64_t r = 0; r < n; r++) base[r] += p->row_ptr[r + 1] - p->row_ptr[r];
    }
    CK(cudaDeviceSynchronize());
    spk_drawn_free(s);   /* (placed: the drawn rows go) */
    const double t1 = olive_now();
    /* the rows are on the device: the host's copy goes */
    olive_syn_free(syn);
    free(syn);
    k->dev.rows = nullptr;
    free(base);
    CK(cudaFree(d_base));
    CK(cudaFree(d_ptr));
    int bits = 1;
    while (bits < 32 && ((uint64_t)N >> bits)) bits++;
    cub::DoubleBuffer<uint32_t> keys(key, key2), vals(val, val2);
    spk_sort_pairs(keys, vals, m, bits);
    g->out = dev_alloc<spk_out>((size_t)m, "synapses");
    g->out_delay = dev_alloc<uint16_t>((size_t)m, "synapses");
    k_ta_gather<<<spk_blocks(m, 256), 256>>>(m, vals.Current(), recs, rdl, g->out, g->out_delay);
    CK_LAUNCH("k_ta_gather");
    g->out_ptr = dev_alloc<int64_t>((size_t)N + 1, "synapses");
    spk_pointers_of_counts(per_source, g->out_ptr, N);
    unsigned long long h = 0;
    CK(cudaMemcpy(&h, hash, sizeof h, cudaMemcpyDeviceToHost));
    k->dev.hash = h;
    void *f[] = {key, key2, val, val2, recs, rdl, per_source, hash};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) CK(cudaFree(f[i]));
    free(k->dev.rows_rec);
    k->dev.rows_rec = nullptr;
    CK(cudaDeviceSynchronize());
    olive_info("rank %d: per-source rows on the device: upload and places %.3f s, sort and lists %.3f s", s->rank, t1 - t0,
               olive_now() - t1);
}
