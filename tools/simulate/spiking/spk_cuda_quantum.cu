/* --order-free-sums on lists made on the device (the turn-around,
 * spk_cuda_turnaround.cu): F from the largest in-degree and |weight| (maxima:
 * the host's would be the same), then every weight rounded as
 * spk_quantum.c rounds the host's lists (weight_quantum.h, one definition).
 * The synapse hash was made from the weights as read, on the way. */
#include <cub/cub.cuh>
#include <hdf5.h>
#include <mpi.h>   /* (C++ headers: before spk_cuda.h's extern "C") */
#include "spk_cuda.h"
#include "weight_quantum.h"

/* Per target its in-degree (cnt), and the largest |weight| as its bits (a
 * non-negative double orders as its bits do): one atomic a warp. */
__global__ void k_q_survey(int64_t nsyn, const spk_out *out, uint32_t *cnt, unsigned long long *wbits)
{
    const int64_t T = (int64_t)gridDim.x * blockDim.x;
    unsigned long long m = 0;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < nsyn; e += T) {
        atomicAdd(&cnt[out[e].target], 1u);
        const unsigned long long b = (unsigned long long)__double_as_longlong(fabs(out[e].w));
        m = b > m ? b : m;
    }
    for (int o = 16; o > 0; o /= 2) {
        const unsigned long long x = __shfl_down_sync(0xffffffffu, m, o);
        m = x > m ? x : m;
    }
    if ((threadIdx.x & 31) == 0 && m) atomicMax(wbits, m);
}

__global__ void k_q_round(int64_t nsyn, spk_out *out, int bits)
{
    const int64_t T = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < nsyn; e += T)
        out[e].w = olive_weight_quantize(out[e].w, bits);
}

void spk_quantize_device(sim_t *s, spk_cuda *g)
{
    const int64_t nsyn = s->spk->nsyn, nt = g->ring.nt;
    uint32_t *cnt = dev_alloc<uint32_t>((size_t)nt + 1, "--order-free-sums");
    unsigned long long *wbits = dev_alloc<unsigned long long>(1, "--order-free-sums");
    uint32_t *dmax = dev_alloc<uint32_t>(1, "--order-free-sums");
    CK(cudaMemset(cnt, 0, ((size_t)nt + 1) * sizeof(uint32_t)));
    CK(cudaMemset(wbits, 0, sizeof *wbits));
    if (nsyn) {
        k_q_survey<<<4096, 256, 0, g->st>>>(nsyn, g->out, cnt, wbits);
        CK_LAUNCH("k_q_survey");
    }
    size_t bytes = 0;
    CK(cub::DeviceReduce::Max(nullptr, bytes, cnt, dmax, nt + 1, g->st));
    void *tmp = nullptr;
    CK(cudaMalloc(&tmp, bytes + 1));
    CK(cub::DeviceReduce::Max(tmp, bytes, cnt, dmax, nt + 1, g->st));
    uint32_t d = 0;
    unsigned long long wb = 0;
    CK(cudaMemcpyAsync(&d, dmax, sizeof d, cudaMemcpyDeviceToHost, g->st));
    CK(cudaMemcpyAsync(&wb, wbits, sizeof wb, cudaMemcpyDeviceToHost, g->st));
    CK(cudaStreamSynchronize(g->st));
    double wmax;
    memcpy(&wmax, &wb, sizeof wmax);
    const int bits = spk_quantum_bits(s, (int64_t)d, wmax);
    if (nsyn) {
        k_q_round<<<4096, 256, 0, g->st>>>(nsyn, g->out, bits);
        CK_LAUNCH("k_q_round");
    }
    CK(cudaStreamSynchronize(g->st));
    void *d2[] = {cnt, wbits, dmax, tmp};
    for (size_t i = 0; i < sizeof d2 / sizeof d2[0]; i++) CK(cudaFree(d2[i]));
}
