/* Conductances on the GPU for olive-genconn (when the rows are made there:
 * --backend cuda, or auto on a GPU host). Each junction's value is
 * gc_cond_junction (cond_rows.h), the very function conductance.c runs on the
 * CPU; with -fmad=false and IEEE division and floor it rounds as on the CPU,
 * so the codes, the 4-bit packing and the largest quantisation error (a max,
 * exact in any order) are bit-identical to the CPU's.
 *
 * The host CSR (row_ptr, col) is processed in chunks of junctions [e0, e1)
 * that start at even offsets, so that a chunk's 4-bit codes fill whole bytes
 * (only the last chunk may end on a half byte, packed with a zero high nibble
 * as on the CPU). A chunk's rows are those that hold one of its junctions; a
 * row split between two chunks is clipped to each. G = 1..32 threads per row
 * (G about the mean degree), the receiver id row0 + the row. Two streams,
 * each with its pinned upload and download buffers: while the device works on
 * one chunk the host stages the next chunk's ids and stores the previous
 * chunk's codes. */
#define OMPI_SKIP_MPICXX 1
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>
extern "C" {
#include "genconn.h"
#include "util.h"
}
#include "cond_rows.h"

#include "cuda_check.h"

/* Junctions per chunk (even): 128 MiB of ids and at most as much output.
 * OLIVE_GENCONN_COND_CHUNK=n (even, >= 2) sets another size, for testing
 * chunk boundaries (scripts/gpu-genconn-check.sh); the file never changes. */
#define COND_CHUNK (INT64_C(1) << 25)
static int64_t cond_chunk(void)
{
    const char *s = getenv("OLIVE_GENCONN_COND_CHUNK");
    if (!s || !*s) return COND_CHUNK;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (*end || v < 2 || v % 2) olive_die("OLIVE_GENCONN_COND_CHUNK=%s: not an even number >= 2", s);
    return (int64_t)v;
}

static unsigned blocks_for(int64_t threads, int per_block)
{
    int64_t b = (threads + per_block - 1) / per_block;
    if (b > INT32_MAX) olive_die("CUDA: %lld threads are too many for one launch", (long long)threads);
    return (unsigned)(b > 0 ? b : 1);
}

/* Rows [0, nrows) of the chunk: rp[r] = row_ptr[ra + r] (global junction
 * offsets), col[e - e0] = sender of junction e; the receiver of row r is
 * recv0 + r. out[e - e0] = the code (T = uint8_t, uint16_t) or the float32
 * value (T = float); maxbits: the largest error's bits (non-negative doubles
 * order as their bit patterns). */
template <typename T>
__global__ void k_cond(gc_cond_par p, int64_t recv0, int64_t nrows, int G, const int64_t *rp, int64_t e0,
                       int64_t e1, const int32_t *col, T *out, unsigned long long *maxbits)
{
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t r = t / G;
    const int lane = (int)(t % G);
    double m = 0;
    if (r < nrows) {
        int64_t lo = rp[r], hi = rp[r + 1];
        if (lo < e0) lo = e0;
        if (hi > e1) hi = e1;
        const int64_t recv = recv0 + r;
        for (int64_t e = lo + lane; e < hi; e += G) {
            double f, err;
            const uint32_t code = gc_cond_junction(&p, recv, col[e - e0], &f, &err);
            if constexpr (std::is_floating_point<T>::value) out[e - e0] = (T)f;
            else out[e - e0] = (T)code;
            if (err > m) m = err;
        }
    }
    for (int o = 16; o > 0; o >>= 1) m = fmax(m, __shfl_xor_sync(0xffffffffu, m, o));
    if ((threadIdx.x & 31) == 0 && m > 0) atomicMax(maxbits, (unsigned long long)__double_as_longlong(m));
}

/* Two 4-bit codes a byte, the even junction in the low nibble. */
__global__ void k_pack4(const uint8_t *code, int64_t n, uint8_t *packed)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= (n + 1) / 2) return;
    const uint8_t lo = code[2 * k], hi = 2 * k + 1 < n ? code[2 * k + 1] : 0;
    packed[k] = (uint8_t)(lo | hi << 4);
}

/* The row that holds junction e (row_ptr[r] <= e < row_ptr[r + 1]). */
static int64_t row_of(const int64_t *row_ptr, int64_t N, int64_t e)
{
    int64_t lo = 0, hi = N - 1;   /* the first r with row_ptr[r + 1] > e */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (row_ptr[mid + 1] > e) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* The first row at or after r0 that starts at or beyond e. */
static int64_t row_from(const int64_t *row_ptr, int64_t N, int64_t r0, int64_t e)
{
    int64_t lo = r0, hi = N;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (row_ptr[mid] >= e) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

typedef struct {
    cudaStream_t st;
    int64_t *h_rp, *d_rp;
    int32_t *h_col, *d_col;
    uint8_t *h_out, *d_out, *d_code;
    int64_t e0, e1;          /* the chunk in flight (e1 > e0) */
    int busy;
} slot;

static size_t out_offset(int bits, int64_t e) { return bits == 4 ? (size_t)(e / 2) : (size_t)e * (size_t)(bits / 8); }

/* Wait for a slot's chunk and store its values in net->cond. */
static void drain(slot *s, int bits, olive_network *net, double *t_wait, double *t_copy)
{
    if (!s->busy) return;
    double t = olive_now();
    CK(cudaStreamSynchronize(s->st));
    double t2 = olive_now();
    *t_wait += t2 - t;
    olive_memcpy_parallel((uint8_t *)net->cond + out_offset(bits, s->e0), s->h_out, olive_cond_bytes(bits, s->e1 - s->e0));
    *t_copy += olive_now() - t2;
    s->busy = 0;
}

/* A slot's stream and buffers: room for max_rows rows and cap junctions. */
static void slot_alloc(slot *s, int64_t max_rows, int64_t cap, size_t out_bytes, int bits)
{
    CK(cudaStreamCreate(&s->st));
    CK(cudaMallocHost((void **)&s->h_rp, (size_t)(max_rows + 1) * sizeof(int64_t)));
    CK(cudaMallocHost((void **)&s->h_col, (size_t)cap * sizeof(int32_t)));
    CK(cudaMallocHost((void **)&s->h_out, out_bytes));
    CK(cudaMalloc((void **)&s->d_rp, (size_t)(max_rows + 1) * sizeof(int64_t)));
    CK(cudaMalloc((void **)&s->d_col, (size_t)cap * sizeof(int32_t)));
    CK(cudaMalloc((void **)&s->d_out, out_bytes));
    if (bits == 4) CK(cudaMalloc((void **)&s->d_code, (size_t)cap));
}

static void slot_free(slot *s)
{
    if (s->d_code) CK(cudaFree(s->d_code));
    CK(cudaFree(s->d_out));
    CK(cudaFree(s->d_col));
    CK(cudaFree(s->d_rp));
    CK(cudaFreeHost(s->h_out));
    CK(cudaFreeHost(s->h_col));
    CK(cudaFreeHost(s->h_rp));
    CK(cudaStreamDestroy(s->st));
}

/* The conductances of junctions [e0, e1) (rows from recv0, nrows of them,
 * G threads a row) at p.bits on s's stream. */
static void launch_cond(const gc_cond_par &p, slot *s, int64_t recv0, int64_t nrows, int G, int64_t e0, int64_t e1,
                        unsigned long long *d_max)
{
    const int bits = p.bits;
    const int64_t n = e1 - e0;
    const unsigned nb = blocks_for(nrows * G, 256);
    switch (bits) {
    case 4:
        k_cond<uint8_t><<<nb, 256, 0, s->st>>>(p, recv0, nrows, G, s->d_rp, e0, e1, s->d_col, s->d_code, d_max);
        CK_LAUNCH("k_cond<4>");
        k_pack4<<<blocks_for((n + 1) / 2, 256), 256, 0, s->st>>>(s->d_code, n, s->d_out);
        CK_LAUNCH("k_pack4");
        break;
    case 8:
        k_cond<uint8_t><<<nb, 256, 0, s->st>>>(p, recv0, nrows, G, s->d_rp, e0, e1, s->d_col, s->d_out, d_max);
        CK_LAUNCH("k_cond<8>");
        break;
    case 16:
        k_cond<uint16_t><<<nb, 256, 0, s->st>>>(p, recv0, nrows, G, s->d_rp, e0, e1, s->d_col,
                                                (uint16_t *)s->d_out, d_max);
        CK_LAUNCH("k_cond<16>");
        break;
    case 32:
        k_cond<float><<<nb, 256, 0, s->st>>>(p, recv0, nrows, G, s->d_rp, e0, e1, s->d_col, (float *)s->d_out,
                                             d_max);
        CK_LAUNCH("k_cond<32>");
        break;
    case 64:
        k_cond<double><<<nb, 256, 0, s->st>>>(p, recv0, nrows, G, s->d_rp, e0, e1, s->d_col, (double *)s->d_out,
                                              d_max);
        CK_LAUNCH("k_cond<64>");
        break;
    default: olive_die("internal: %d conductance bits on the GPU", bits);
    }
}

extern "C" double gc_conductance_cuda(const gc_cond_par *par, olive_network *net, int local_rank)
{
    double t0 = olive_now();
    const int dev = olive_cuda_select(local_rank);
    const gc_cond_par p = *par;
    const int bits = p.bits;
    const int64_t N = net->row1 - net->row0, nnz = net->nnz;
    const int64_t *row_ptr = net->row_ptr;
    const int64_t CH = cond_chunk();
    /* Chunk sizes: the most rows any chunk touches. */
    int64_t max_rows = 0;
    for (int64_t e0 = 0; e0 < nnz; e0 += CH) {
        const int64_t e1 = e0 + CH < nnz ? e0 + CH : nnz;
        const int64_t ra = row_of(row_ptr, N, e0), rb = row_from(row_ptr, N, ra, e1);
        if (rb - ra > max_rows) max_rows = rb - ra;
    }
    const int64_t cap = CH < nnz ? CH : nnz;
    const size_t out_bytes = olive_cond_bytes(bits, cap);
    slot sl[2];
    memset(sl, 0, sizeof sl);
    for (int k = 0; k < 2; k++) slot_alloc(&sl[k], max_rows, cap, out_bytes, bits);
    unsigned long long *d_max = nullptr;
    CK(cudaMalloc((void **)&d_max, sizeof *d_max));
    CK(cudaMemset(d_max, 0, sizeof *d_max));
    CK(cudaDeviceSynchronize());
    double t1 = olive_now(), t_wait = 0, t_copy = 0;
    int64_t nchunk = 0;
    for (int64_t e0 = 0; e0 < nnz; e0 += CH, nchunk++) {
        slot *s = &sl[nchunk & 1];
        drain(s, bits, net, &t_wait, &t_copy);   /* the chunk before the last */
        const int64_t e1 = e0 + CH < nnz ? e0 + CH : nnz, n = e1 - e0;
        const int64_t ra = row_of(row_ptr, N, e0), rb = row_from(row_ptr, N, ra, e1), nrows = rb - ra;
        double t = olive_now();
        memcpy(s->h_rp, row_ptr + ra, (size_t)(nrows + 1) * sizeof(int64_t));
        olive_memcpy_parallel(s->h_col, net->col + e0, (size_t)n * sizeof(int32_t));
        t_copy += olive_now() - t;
        CK(cudaMemcpyAsync(s->d_rp, s->h_rp, (size_t)(nrows + 1) * sizeof(int64_t), cudaMemcpyHostToDevice, s->st));
        CK(cudaMemcpyAsync(s->d_col, s->h_col, (size_t)n * sizeof(int32_t), cudaMemcpyHostToDevice, s->st));
        /* Threads per row: about the mean degree, a power of two up to a warp. */
        int G = 1;
        while (G < 32 && (int64_t)G * nrows < n) G <<= 1;
        const int64_t recv0 = net->row0 + ra;
        launch_cond(p, s, recv0, nrows, G, e0, e1, d_max);
        CK(cudaMemcpyAsync(s->h_out, s->d_out, olive_cond_bytes(bits, n), cudaMemcpyDeviceToHost, s->st));
        s->e0 = e0;
        s->e1 = e1;
        s->busy = 1;
        olive_progress("conductances", (double)e1 / (double)nnz);
    }
    drain(&sl[nchunk & 1], bits, net, &t_wait, &t_copy);   /* the older one first */
    drain(&sl[(nchunk + 1) & 1], bits, net, &t_wait, &t_copy);
    olive_progress_done();
    unsigned long long mb = 0;
    CK(cudaMemcpy(&mb, d_max, sizeof mb, cudaMemcpyDeviceToHost));
    double maxerr;
    memcpy(&maxerr, &mb, sizeof maxerr);
    CK(cudaFree(d_max));
    for (int k = 0; k < 2; k++) slot_free(&sl[k]);
    double t2 = olive_now();
    olive_info("cuda conductances on device %d: %lld junctions at %d bits in %.3f s (%.3g junctions/s; %lld chunks, "
               "host staging %.3f s, waiting for the device %.3f s; buffers %.3f s before)",
               dev, (long long)nnz, bits, t2 - t1, (double)nnz / (t2 - t1 > 0 ? t2 - t1 : 1e-9), (long long)nchunk,
               t_copy, t_wait, t1 - t0);
    return maxerr;
}
