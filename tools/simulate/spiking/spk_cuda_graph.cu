/* A chunk of the device push path's steps as one CUDA graph (spk_cuda.h).
 *
 * Why: a step of the microcircuit is two dependent kernels, and each
 * boundary between kernels costs ~3 us with programmatic dependent launch,
 * ~1.5 us when the same kernels are replayed from a graph (olive-launchprobe,
 * docs/MICROCIRCUIT.md): a third of a ~9 us step.
 *
 * How: the chunk's launches, exactly those device_push_steps would enqueue,
 * are captured from a capture stream (the kernels, their arguments and their
 * programmatic edges as the stream would have them), and either update one
 * of two executable graphs that take turns (cudaGraphExecUpdate: the same
 * kernels, other arguments) or, where the shape changed, instantiate it
 * anew; it is uploaded on the capture stream while the other one runs. The
 * graph is launched into the engine's stream like any kernel, so the spikes,
 * sums and state are those of the plain launches: the same kernels in the
 * same order with the same arguments.
 *
 * Capturing costs host time (~1-2 us a launch), during which the device
 * would wait; so the chunk after is captured ahead, while this one runs,
 * and kept if the next call asks for it. Capturing changes the host's view of
 * the step loop (the rotating spike lists, the Poisson draws' first step,
 * pending adds): the state before is put back after an ahead capture, and the
 * state after it taken when its graph is used.
 *
 * Not captured (the plain launches instead): a chunk with a pulse current
 * (the host fills k->cur each step and copies it from pageable memory),
 * cable cells, plastic synapses and projections drawn at each spike (their
 * host bookkeeping runs between launches). OLIVE_GPU_GRAPH=1 turns graphs on,
 * =0 off (the default until measured on a GPU). */
#define OMPI_SKIP_MPICXX 1
#include <hdf5.h>
#include <mpi.h>
#include <string.h>
#include "spk_cuda.h"

/* What device_push_steps' enqueueing changes on the host (the rest of g,
 * and s, it only reads). */
struct spk_graph_host {
    int32_t *spk;
    unsigned int *nspk;
    struct spk_pass_dev pass;
    struct spk_window_dev win;
    unsigned char *dp;         /* a copy of *g->dp (spk_devpush_state_bytes) */
};

struct spk_graph {
    cudaStream_t cap;
    /* two executable graphs taking turns: the chunk ahead is captured into
     * the one not running, and uploaded while the other runs */
    cudaGraphExec_t exec[2];
    int last;                  /* the one launched last */
    int ready;                 /* exec[last ^ 1] holds chunk [first, first + count), captured ahead */
    int64_t first, count;
    struct spk_graph_host before, after;
    size_t dp_bytes;
    /* counts and host time, for -v */
    cudaEvent_t uploaded;      /* recorded on cap after an upload: the launch waits for it */
    int64_t launched, ahead_used, ahead_lost, updated, instantiated;
    double t_capture;
};

static void host_save(const spk_cuda *g, struct spk_graph_host *h, size_t dp_bytes)
{
    h->spk = g->spk;
    h->nspk = g->nspk;
    h->pass = g->pass;
    h->win = g->win;
    memcpy(h->dp, g->dp, dp_bytes);
}

static void host_load(spk_cuda *g, const struct spk_graph_host *h, size_t dp_bytes)
{
    g->spk = h->spk;
    g->nspk = h->nspk;
    g->pass = h->pass;
    g->win = h->win;
    memcpy(g->dp, h->dp, dp_bytes);
}

void spk_graph_setup(sim_t *s, spk_cuda *g)
{
    if (spk_env_digit("OLIVE_GPU_GRAPH", 0, 1) != 1) return;
    if (g->mode != SPK_DEVICE_PUSH || !g->dp || g->cable || g->pl || g->rules || g->pass.owned) return;
    spk_graph *G = (spk_graph *)olive_calloc(1, sizeof *G, "CUDA graph");
    G->dp_bytes = spk_devpush_state_bytes();
    G->before.dp = (unsigned char *)olive_calloc(1, G->dp_bytes, "CUDA graph");
    G->after.dp = (unsigned char *)olive_calloc(1, G->dp_bytes, "CUDA graph");
    CK(cudaStreamCreateWithFlags(&G->cap, cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&G->uploaded, cudaEventDisableTiming));
    g->graph = G;
    (void)s;
}

/* Whether steps [first, first + count) may be captured: no pulse current
 * on any of them (s->active is scratch). */
static int chunk_capturable(sim_t *s, int64_t first, int64_t count)
{
    for (int64_t q = 0; q < count; q++)
        if (sim_active_pulses(&s->cfg->stim, first + q, s->active)) return 0;
    return 1;
}

/* The chunk's launches captured into G->exec[e], uploaded on the capture
 * stream (an updated graph is uploaded again; ahead of its launch, that
 * overlaps the chunk running). */
static void capture(sim_t *s, spk_cuda *g, int64_t first, int64_t count, spk_enqueue_fn enqueue, int e)
{
    spk_graph *G = g->graph;
    const double t0 = olive_now();
    cudaStream_t st = g->st;
    g->st = G->cap;
    CK(cudaStreamBeginCapture(G->cap, cudaStreamCaptureModeThreadLocal));
    enqueue(s, first, count);
    cudaGraph_t graph = nullptr;
    CK(cudaStreamEndCapture(G->cap, &graph));
    g->st = st;
    int fresh = !G->exec[e];
    if (G->exec[e]) {
        cudaGraphExecUpdateResultInfo info;
        if (cudaGraphExecUpdate(G->exec[e], graph, &info) == cudaSuccess) {
            G->updated++;
        } else {   /* (another shape: a shorter chunk, another path) */
            (void)cudaGetLastError();
            CK(cudaGraphExecDestroy(G->exec[e]));
            G->exec[e] = nullptr;
            fresh = 1;
        }
    }
    if (fresh) {
        CK(cudaGraphInstantiate(&G->exec[e], graph, 0));
        G->instantiated++;
    }
    CK(cudaGraphDestroy(graph));
    CK(cudaGraphUpload(G->exec[e], G->cap));
    G->t_capture += olive_now() - t0;
}

int spk_graph_steps(sim_t *s, spk_cuda *g, int64_t first, int64_t count, spk_enqueue_fn enqueue)
{
    spk_graph *G = g->graph;
    if (!G) return 0;
    if (G->ready && (G->first != first || G->count != count)) {   /* (the guess was wrong: the state is as before it) */
        G->ready = 0;
        G->ahead_lost++;
    }
    const int e = G->last ^ 1;   /* (not the one launched last, which may still run) */
    if (G->ready) {
        host_load(g, &G->after, G->dp_bytes);
        G->ready = 0;
        G->ahead_used++;
    } else {
        if (!chunk_capturable(s, first, count)) return 0;
        capture(s, g, first, count, enqueue, e);
    }
    /* (the upload on the capture stream first) */
    CK(cudaEventRecord(G->uploaded, G->cap));
    CK(cudaStreamWaitEvent(g->st, G->uploaded, 0));
    CK(cudaGraphLaunch(G->exec[e], g->st));
    G->last = e;
    G->launched++;
    return 1;
}

/* The step loop's next chunk from `first` as it would likely choose it
 * (a guess after session/step_loop.c's step_is_looked_at: up to the
 * engine's most, ending at the next check every SIM_CHECK_STEPS steps, report
 * frame or the run's end; a checkpoint, a weights frame or a rate change may
 * cut it shorter: then the capture ahead is not used, which costs time only). */
int64_t spk_next_chunk_guess(const sim_t *s, const spk_cuda *g, int64_t first)
{
    const sim_config *c = s->cfg;
    int64_t n = spk_chunk_max(g);
    const int64_t to_check = SIM_CHECK_STEPS - first % SIM_CHECK_STEPS, to_end = c->run.steps - first;
    n = to_check < n ? to_check : n;
    n = to_end < n ? to_end : n;
    if (c->rec.nvars + c->rec.ncomp_vars > 0) {
        const int64_t to_frame = c->rec.every - first % c->rec.every;
        n = to_frame < n ? to_frame : n;
    }
    return n;
}

void spk_graph_ahead(sim_t *s, spk_cuda *g, int64_t first, spk_enqueue_fn enqueue)
{
    spk_graph *G = g->graph;
    if (!G || G->ready) return;
    const int64_t count = spk_next_chunk_guess(s, g, first);
    if (count <= 0 || !chunk_capturable(s, first, count)) return;
    host_save(g, &G->before, G->dp_bytes);
    capture(s, g, first, count, enqueue, G->last ^ 1);
    host_save(g, &G->after, G->dp_bytes);
    host_load(g, &G->before, G->dp_bytes);
    G->ready = 1;
    G->first = first;
    G->count = count;
}

void spk_graph_forget(spk_cuda *g)
{
    spk_graph *G = g->graph;
    if (!G || !G->ready) return;
    G->ready = 0;
    G->ahead_lost++;
}

void spk_graph_free(sim_t *s, spk_cuda *g)
{
    spk_graph *G = g->graph;
    if (!G) return;
    olive_info("rank %d: CUDA engine: %lld chunks launched as graphs (%lld captured ahead and used, %lld ahead and "
               "not used; %lld updates, %lld instantiations), %.3f s capturing",
               s->rank, (long long)G->launched, (long long)G->ahead_used, (long long)G->ahead_lost, (long long)G->updated,
               (long long)G->instantiated, G->t_capture);
    for (int e = 0; e < 2; e++)
        if (G->exec[e]) CK(cudaGraphExecDestroy(G->exec[e]));
    CK(cudaEventDestroy(G->uploaded));
    CK(cudaStreamDestroy(G->cap));
    free(G->before.dp);
    free(G->after.dp);
    free(G);
    g->graph = nullptr;
}
