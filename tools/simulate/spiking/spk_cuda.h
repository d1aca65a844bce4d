/* The device state of the CUDA spiking engine, shared by its delivery
 * strategies (C++, included by .cu files only; which one runs:
 * spk_delivery.c, the one place that chooses):
 *   host push (spk_cuda.cu): every window's spikes go through the host, their
 *     events are numbered, sorted by (slot, target) and summed; any rank
 *     count (the exchange needs the host), any network size; projections
 *     drawn at each spike (spk_cuda_rules.cu) and synapse sites take it;
 *   device push (spk_cuda_devpush.cu): one rank, larger networks: each step's
 *     events bucketed by target on the device (static buckets: a list per
 *     target through per-synapse links, spk_sb.h; else dynamic ones), each
 *     bucket put in (source, synapse) order and summed; no host round trip
 *     within a chunk of steps;
 *   fused (spk_cuda_fused.cu): one rank, small networks: many steps per
 *     launch, each target pulls its due events from a history of spike flags.
 * The one-rank paths visit the host once per chunk of steps (spk_cuda_chunk.cu)
 * for the spikes. All add every target's events in the CPU engine's order
 * (spk.h), so all give the CPU's bits. A point model's cells, built in or a
 * plugin's, are stepped by its cell functions linked into olive's kernels
 * (spk_cuda_plugin.cu); cable cells by their kind's (spk_cable_cuda.cu).
 * A strategy's own device state is a struct of its
 * file (device push's g->dp, fused's g->fu); what several use is below. */
#ifndef OLIVE_SPK_CUDA_H
#define OLIVE_SPK_CUDA_H
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
/* Before spk.h: headers that include C++ ones may not be given C linkage. */
#include "rng.h"
#include "noise.h"
#include "lif.h"   /* (olive_binomial_factors: the Poisson inputs) */
#include "poisson_input.h"
extern "C" {
#include "spk.h"
#include "spk_plastic.cuh"
#include "util.h"
}
#include "cuda_check.h"
#include "spk_sb.h"
#include "spk_plugin_gpu.h"

/* The events of a window of the host push path (spk_cuda.cu; projections
 * drawn at each spike, spk_cuda_rules.cu, use it too): its spikes, their
 * events' keys and values for the sort, CUB's scratch, and this step's spike
 * list on the host. */
struct spk_window_dev {
    int64_t *sp, *deg, *off;   /* window events */
    int64_t sp_cap;
    uint64_t *key_in, *key_out;
    int64_t *val_in, *val_out;
    int64_t ev_cap;
    void *tmp;
    size_t tmp_bytes;
    int key_bits;
    unsigned int *h_nspk;
    int32_t *h_spk;
    int64_t guess;             /* spikes read back with the count (twice the last step's): one round trip, not two */
    /* the last step's on_spike, left to the next update pass (its
     * reset_first), or to spk_cuda.cu's reset_flush where the host reads or changes
     * the cells first */
    int reset_pending;
    int64_t reset_step;
    /* the last step's step 3 (its due sums and Poisson inputs), left to the
     * next update pass as well (olive_plugin_update_due), or to the flush */
    int due_pending;
    int64_t due_step;
};

/* The spikes of a chunk of steps (the one-rank strategies, spk_cuda_chunk.cu). */
struct spk_chunk_dev {
    uint64_t *spk;             /* (step - first) << 32 | cell of a chunk */
    unsigned long long *n;
    int64_t cap;               /* entries; a chunk has at most cap / n steps */
    int64_t guess;             /* entries copied with the chunk's counts, before the count is known */
    uint64_t *h_spk;
    unsigned long long *h_n;
    unsigned long long *ev, *h_ev;     /* synaptic events per step of the chunk */
    int64_t pend_events, pend_spikes;  /* of the exchange window not complete yet */
    double t_enqueue, t_collect;       /* device push: the host's time queueing chunks, waiting at their ends */
};

/* How device push's step pass runs (spk_devpush_setup decides once; the
 * step loop in spk_cuda.cu follows it). */
struct spk_pass_dev {
    /* static buckets (spk_sb.h): the previous step's tail and this step's
     * update in one pass; the spike lists alternate */
    int sb;
    /* sb_atomic (--order-free-sums, static buckets, no delay of 0 steps):
     * every sum is exact, so a step's events are added into their slots
     * with atomics in any order (k_sb_atomic), by a kernel that runs beside
     * the next step's pass; no lists. Three spike lists rotate: the pass
     * fills one, the kernel beside it sends the one before, and the pass
     * clears the one before that. */
    int sb_atomic;
    /* a plugin's pass may take its FREE form (spk_plugin_kernels.cu) on steps
     * without a current: sb_atomic, and the Poisson inputs drawn ahead or none */
    int plugin_free;
    int sums_ahead;            /* FREE: the due sums read with their flag (a pass of one wave) */
    /* the owned form (spk_cuda_owned.cu): a chunk in one cooperative
     * launch, each block summing its cells' events in shared memory */
    int owned;
    int32_t *spk_prev;         /* the previous step's spike list */
    unsigned int *nspk_prev;
    int32_t *spk_third;
    unsigned int *nspk_third;
};

/* The delay ring of the push strategies: its targets and slots. */
struct spk_ring_dev {
    int64_t nt;                /* targets: n rows, then synapse sites' channels (spk_sites.c; host push) */
    double *acc;               /* L slots x 2 receptors x nt */
    unsigned char *touched;    /* L x nt */
    int neg0;                  /* empty slots hold -0.0, not 0 (host push with --order-free-sums: k_deliver;
                                  device push's order-free pass of one wave: spk_cuda.cu's ring_setup) */
    double *site_in;           /* per channel: the weight delivered for the next step (spk_cable.h) */
};

/* The inputs covering each of the n own cells, in input order: entry
 * q * n + r of the result (malloc'd) is input j << 1 | its receptor, or -1
 * past the cell's last; *per the most a cell has. NULL: no input covers an
 * own cell, or too many inputs for 15 bits. */
int16_t *spk_poisson_cover(const sim_t *s, int64_t n, int *per);

/* The --poisson inputs on the device. */
struct spk_poisson_dev {
    sim_poisson *in;
    int *rec;
    int16_t *cover;            /* host push with many inputs: spk_poisson_cover's, and its per */
    int per;
    double *fac;               /* per input its binomial factors (lif.h's olive_binomial_factors) */
    unsigned long long *count; /* events so far */
};

/* Spike sources (spike_source.h): their rows and a device copy. */
struct spk_sources_dev {
    int64_t n;
    int32_t *rows;
    olive_sources src;
};

struct spk_cuda {
    cudaStream_t st;
    int64_t n, N;
    int mode;                  /* the delivery strategy: SPK_HOST_PUSH, ... (spk_delivery.c) */
    int pdl;                   /* programmatic dependent launch of the step loop's kernels (spk_launch) */
    /* the cells: ge, gi the receptors' variables (events add to them; a
     * point model's are its own, spk_cuda_plugin.cu); v, ref cable cells' */
    double *v, *ge, *gi, *ref, *cur;
    unsigned char *flags;
    int32_t *coef_of;
    unsigned long long *bad;   /* first non-finite local cell, or ~0 */
    unsigned long long *h_bad;
    /* the synapses, as out_ptr, out, out_delay of sim_spk (push strategies) */
    int64_t *out_ptr;
    spk_out *out;
    uint16_t *out_delay;
    struct spk_ring_dev ring;
    int32_t *spk;              /* this step's spiking cells (local) */
    unsigned int *nspk;
    struct spk_poisson_dev poisson;
    struct spk_sources_dev sources;
    struct spk_window_dev win;           /* host push */
    struct spk_chunk_dev chunk;          /* the one-rank strategies */
    struct spk_pass_dev pass;            /* device push */
    struct spk_devpush_dev *dp;          /* device push's buckets (spk_cuda_devpush.cu), else NULL */
    struct spk_fused_dev *fu;            /* fused's incoming lists and history (spk_cuda_fused.cu), else NULL */
    struct spk_owned_dev *ow;            /* device push's owned form (spk_cuda_owned.cu), else NULL */
    /* projections drawn at each spike (spk_cuda_rules.cu), else NULL */
    struct spk_rules_cuda *rules;
    /* the device state of the cell kind (cable cells: spk_cable_cuda.cu), NULL for point models */
    struct spk_cable_cuda *cable;
    /* a point model's cells (spk_cuda_plugin.cu), else NULL (cable cells);
     * ge, gi are its receptor variables and rscale (2 x n) each cell's
     * receptor factors, NULL where every factor is 1 */
    struct spk_plugin_cuda *plugin;
    double *rscale;
    /* plastic synapses (spk_cuda_plastic.cu): their device view (in device
     * memory), and the host's bookkeeping; null without */
    spk_plastic_dev *pl;
    struct spk_plastic_cuda *plh;
    /* device push: chunks launched as CUDA graphs (spk_cuda_graph.cu), else NULL */
    struct spk_graph *graph;
};

/* A kernel of the device push path's step (the tail and update pass, the
 * scatter), launched with programmatic dependent launch where the device
 * has it (g->pdl): it may start while the kernel before it ends, and waits
 * for it (spike_tail.cuh's spk_pdl_wait) before it touches anything that
 * kernel writes: first, or, for work that needs nothing of it (sb_add's
 * adds, k_sb_atomic), at its end, so that its completion still implies
 * that kernel's. */
static inline void spk_launch(const spk_cuda *g, const void *kernel, unsigned grid, unsigned block, void **args,
                              const char *what)
{
    cudaLaunchConfig_t c = {};
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    c.gridDim = dim3(grid);
    c.blockDim = dim3(block);
    c.stream = g->st;
    c.attrs = at;
    c.numAttrs = g->pdl ? 1 : 0;
    CK(cudaLaunchKernelExC(&c, kernel, args));
    CK_LAUNCH(what);
}

/* An engine switch read from the environment (comparisons, tests, tuning):
 * one digit in lo..hi, or -1 where NAME is unset or empty; anything else
 * stops the run with a message naming it. */
static inline int spk_env_digit(const char *name, int lo, int hi)
{
    const char *v = getenv(name);
    if (!v || !*v) return -1;
    if (strlen(v) != 1 || v[0] < '0' + lo || v[0] > '0' + hi)
        olive_die(hi == lo + 1 ? "%s='%s': expected %d or %d" : "%s='%s': expected %d to %d", name, v, lo, hi);
    return v[0] - '0';
}

/* Blocks of per threads covering n (at least one). */
static inline unsigned spk_blocks(int64_t n, int per) { return (unsigned)((n + per - 1) / per > 0 ? (n + per - 1) / per : 1); }

template <class T> static T *dev_alloc(size_t count, const char *what)
{
    void *p = nullptr;
    cudaError_t e = cudaMalloc(&p, count * sizeof(T) + sizeof(T));
    if (e != cudaSuccess) olive_die("CUDA engine: cannot allocate %zu bytes of device memory for %s: %s",
                                    count * sizeof(T), what, cudaGetErrorString(e));
    return (T *)p;
}

template <class T> static T *dev_copy(const T *src, size_t count, const char *what)
{
    T *p = dev_alloc<T>(count, what);
    if (count) CK(cudaMemcpy(p, src, count * sizeof(T), cudaMemcpyHostToDevice));
    return p;
}

/* Room for `more` spikes in s->tspikes[0] (the GPU engines' one list). */
static inline void spk_tspikes_reserve(sim_t *s, int64_t more)
{
    if (s->tspike_n[0] + more <= s->tspike_cap[0]) return;
    s->tspike_cap[0] = 2 * (s->tspike_n[0] + more) + 1024;
    s->tspikes[0] = (sim_spike *)olive_realloc(s->tspikes[0], (size_t)s->tspike_cap[0] * sizeof(sim_spike), "spikes");
}

/* The tail of cell r in memory: its inputs (a point model's reset is its
 * on_spike kernel's, spk_cuda_plugin.cu). */
static __device__ __forceinline__ void spk_tail_cell(const spk_tail_args &a, int64_t r)
{
    double d0 = a.ge[r], d1 = a.gi[r];
    const double e0 = d0, e1 = d1;
    spk_tail_inputs(a, r, a.sb.head ? a.sb.head[r] : SPK_END, d0, d1);
    if (__double_as_longlong(d0) != __double_as_longlong(e0)) a.ge[r] = d0;
    if (__double_as_longlong(d1) != __double_as_longlong(e1)) a.gi[r] = d1;
}

/* spk_cuda.cu: the rank's device (its rank on the node), as the engine's
 * set-up and the set-up's device work before it pick it. */
void spk_select_device(void);
/* spk_cuda.cu: the host push path's buffers: room for m spikes and E
 * events of a window; CUB's scratch of bytes. */
void spk_grow_window(spk_cuda *g, int64_t m, int64_t E);
void spk_ensure_tmp(spk_cuda *g, size_t bytes);

/* spk_cuda_rules.cu: projections drawn at each spike (sim_spk's rules) */
/* Their rules on the device. */
void spk_rules_setup(sim_t *s, spk_cuda *g);
/* The window's m spikes (all: (step - window0) << 32 | cell, sorted; on the
 * device in g->win.sp): their synapses drawn, their events summed into the
 * ring's slots in the CPU engine's order; the counts read a window later
 * (spk_rules_flush: also before the host reads the cells). */
void spk_rules_window(sim_t *s, spk_cuda *g, const int64_t *all, int64_t m);
void spk_rules_flush(sim_t *s, spk_cuda *g);   /* the last window's counts (spk_cuda_rules.cu) */
void spk_rules_free(spk_cuda *g);

/* spk_cuda_fused.cu */
/* The delivery path for this run: one rank takes fused when reading every
 * synapse every step is cheap, else device push; several ranks host push.
 * OLIVE_GPU_DELIVERY=host|device|fused overrides (tests, benchmarks). */
/* Its device memory (after the common state is on the device). */
void spk_fused_setup(sim_t *s, spk_cuda *g);
/* Steps [first, first + count): count at most spk_chunk_max. */
void spk_fused_steps(sim_t *s, spk_cuda *g, int64_t first, int64_t count);
void spk_fused_free(spk_cuda *g);

/* spk_cuda_chunk.cu: the spikes of a chunk of steps, for the one-rank paths */
/* Room for every cell spiking on each of up to SIM_CHECK_STEPS steps, within max_entries,
 * and per-step event counters (the fused path gets a device copy of out_ptr
 * for them). */
void spk_chunk_setup(const sim_t *s, spk_cuda *g, int64_t max_entries);
int64_t spk_chunk_max(const spk_cuda *g);
/* At the end of the chunk [first, first + count): its spikes into
 * s->tspikes[0], the events counted as the CPU engine counts them, the first
 * non-finite value (waits for the device). */
void spk_chunk_collect(sim_t *s, spk_cuda *g, int64_t first, int64_t count);
void spk_chunk_free(spk_cuda *g);

/* spk_cuda_plugin.cu: a point model's cells (built in or a plugin's) */
/* Device bytes beyond the engine's own. */
double spk_plugin_cuda_bytes(const sim_t *s);
/* Its GPU image loaded, the state and coefficients on the device, g->ge,
 * g->gi its receptor variables, g->coef_of, g->rscale. */
void spk_plugin_cuda_setup(sim_t *s, spk_cuda *g);
/* Step 1 (with 2 unless inputs_before_condition) of every own cell; cur:
 * device pulse currents or null; chunked: the chunk's spike list too;
 * reset_first: the previous step's step 4 first, in the same pass. */
/* The host push path's update pass taking in the step before's due sums and
 * Poisson inputs first (olive_plugin_update_due), and its reset where
 * reset_first; not for a model whose inputs come before its condition. */
void spk_plugin_cuda_update_due(sim_t *s, spk_cuda *g, const spk_due_args *due, int64_t step, const double *cur,
                                int reset_first);
void spk_plugin_cuda_update(sim_t *s, spk_cuda *g, int64_t step, int64_t q, const double *cur, int chunked,
                            int reset_first);
/* Static buckets: the previous step's tail (its step 4 too) and step's
 * update in one pass (spk_plugin_kernels.cu's olive_plugin_tail_update_*). */
void spk_plugin_cuda_tail_update(sim_t *s, spk_cuda *g, const spk_tail_args *tail, int64_t step, int64_t q,
                                 const double *cur);
/* A plugin whose inputs come before its condition (inputs_before_condition,
 * model_plugin.h): steps 1, 3, 2, 4. */
int spk_plugin_cuda_late(const spk_cuda *g);
/* Step 2 alone (inputs_before_condition). */
void spk_plugin_cuda_condition(sim_t *s, spk_cuda *g, int64_t step, int64_t q, int chunked);
/* Step 4: the flagged cells' onCondition body. */
void spk_plugin_cuda_on_spike(sim_t *s, spk_cuda *g, int64_t step);
/* The state into s->state (enqueued on g->st). */
void spk_plugin_cuda_fetch(sim_t *s, spk_cuda *g);
/* The cells' kernel arguments of a step (its q-th of a chunk; cur: device
 * pulse currents or null; chunked: the chunk's spike list too). */
spk_plugin_args spk_plugin_cuda_args(const spk_cuda *g, int64_t step, int64_t q, const double *cur, int chunked,
                                     int condition);
/* The fused strategy's kernel (olive_plugin_fused) of the linked image. */
cudaKernel_t spk_plugin_cuda_fused_kernel(const spk_cuda *g);
/* Device push's owned form's kernel (olive_plugin_owned; few: _few's blocks of SPK_OWNED_THREADS_FEW). */
cudaKernel_t spk_plugin_cuda_owned_kernel(const spk_cuda *g, int few);
void spk_plugin_cuda_free(spk_cuda *g);
/* A session set a parameter: the device's coefficient sets copied again. */
void spk_plugin_cuda_coef_changed(sim_t *s, spk_cuda *g);

/* spk_cuda_plastic.cu: plastic synapses (spk_plastic.cuh) */
/* Their states, rules and the cells' spike rings on the device (after
 * spk_devpush_setup: device push with static buckets only, else fatal). */
void spk_plastic_cuda_setup(sim_t *s, spk_cuda *g);
/* Dies if an update needed a spike a ring dropped. */
void spk_plastic_cuda_check(spk_cuda *g);
/* The weights, states and spike histories back into the host's tables
 * (spk_plastic.c), for state.h5. */
void spk_plastic_cuda_fetch(sim_t *s, spk_cuda *g);
/* The host path: room for a window's E events as its plastic synapses make
 * them (k_events), on the device. */
spk_out *spk_plastic_cuda_event_buffer(spk_cuda *g, int64_t E);
/* The weights of list entries x[0 .. n) into w (a weights.h5 frame). */
void spk_plastic_cuda_weights(spk_cuda *g, const int64_t *x, int64_t n, double *w);
void spk_plastic_cuda_free(spk_cuda *g);

/* spk_cuda_devpush.cu */
void spk_devpush_setup(sim_t *s, spk_cuda *g);
/* The events of this step's spikes (g->spk, g->nspk) into the ring's slots.
 * Enqueued on g->st, nothing waited for. */
void spk_devpush_events(sim_t *s, spk_cuda *g, int64_t step);
/* The Poisson hits of steps [first, first + count) drawn ahead (if set up):
 * before the chunk's steps, or taken from the draws spk_devpush_poisson_next
 * made while the chunk before ran, where they were for just these steps. */
void spk_devpush_poisson_ahead(sim_t *s, spk_cuda *g, int64_t first, int64_t count);
/* After a chunk's launches: the draws of the chunk likely next, from step
 * `next` (spk_next_chunk_guess), beside it. */
void spk_devpush_poisson_next(sim_t *s, spk_cuda *g, int64_t next);
/* Before the inputs change on g->st: no draws made ahead are used. */
void spk_devpush_poisson_forget(spk_cuda *g);
/* Then steps 3 and 4 (delivery, Poisson, reset) and the counters cleared. */
void spk_devpush_tail(sim_t *s, spk_cuda *g, int64_t step);
/* Static buckets (g->pass.sb): the tail of `step` as an argument block, for
 * spk_cuda.cu to run in one pass with the next step's update; nspk: the
 * step's spike counter, cleared by the tail. */
spk_tail_args spk_devpush_tail_args(sim_t *s, spk_cuda *g, int64_t step, unsigned int *nspk);
/* That tail alone (before a cable cells' update). */
void spk_devpush_tail_launch(spk_cuda *g, const spk_tail_args *tail);
/* sb_atomic: the events of step's spikes (spk, nspk) added into their
 * slots; beside (pdl) the pass launched before it, which it waits for at its
 * end, or after it */
void spk_devpush_atomic(sim_t *s, spk_cuda *g, int64_t step, const int32_t *spk, const unsigned int *nspk, int pdl);
/* spk_cuda_quantum.cu: --order-free-sums on the lists made on the device */
void spk_quantize_device(sim_t *s, spk_cuda *g);
/* sb_add: the events of the last step sent still to add into their slots
 * (a chunk's end), added (nothing without sb_add) */
void spk_devpush_add_last(sim_t *s, spk_cuda *g);
/* After a chunk: dies if a step's events did not fit in the buffer. */
void spk_devpush_check(spk_cuda *g);
/* The Poisson amounts drawn ahead from step first of the chunk (add null: none). */
spk_poisson_ahead spk_devpush_poisson_chunk(const spk_cuda *g, int64_t first);

/* spk_cuda_owned.cu: device push's owned form (OLIVE_GPU_OWNED=1) */
/* Its grouped synapses and queues, and g->pass.owned, where it can take the
 * run (after device push's set-up has chosen its pass); -v says why not. */
void spk_owned_setup(sim_t *s, spk_cuda *g);
/* Steps [first, first + count) in one launch, after their Poisson draws. */
void spk_owned_steps(sim_t *s, spk_cuda *g, int64_t first, int64_t count);
void spk_owned_free(spk_cuda *g);
void spk_devpush_free(spk_cuda *g);
/* The size of device push's host-side state (*g->dp), which a capture ahead
 * saves and restores (spk_cuda_graph.cu). */
size_t spk_devpush_state_bytes(void);

/* spk_cuda_graph.cu: a chunk of device push's steps as one CUDA graph */
/* What enqueues a chunk's launches on g->st (device_push_steps' loop). */
typedef void (*spk_enqueue_fn)(sim_t *s, int64_t first, int64_t count);
/* After spk_devpush_setup: graphs where the path allows (else g->graph stays null). */
void spk_graph_setup(sim_t *s, spk_cuda *g);
/* Steps [first, first + count) launched as one graph (from the capture
 * made ahead if it is that chunk): 1, or 0 where the chunk is not captured
 * (the caller enqueues it itself). */
int spk_graph_steps(sim_t *s, spk_cuda *g, int64_t first, int64_t count, spk_enqueue_fn enqueue);
/* The chunk likely next (from first), captured while the device runs this one. */
void spk_graph_ahead(sim_t *s, spk_cuda *g, int64_t first, spk_enqueue_fn enqueue);
/* The chunk the step loop likely runs next from `first` (a guess: a
 * capture or draws made ahead for other steps are not used). */
int64_t spk_next_chunk_guess(const sim_t *s, const spk_cuda *g, int64_t first);
/* The host reads or changes the run between chunks: no capture ahead kept. */
void spk_graph_forget(spk_cuda *g);
void spk_graph_free(sim_t *s, spk_cuda *g);

#endif
