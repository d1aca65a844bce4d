/* Setup of a run: this rank's rows, the exchange plan, the communicator and
 * the initial state. */
#include "sim.h"
#include "model_plugin.h"
#include "point_model.h"
#ifdef OLIVE_HAVE_CUDA
#include "spk_cuda_link.h"
#endif
#include "h5util.h"
#include "mapfile.h"
#include "memcheck.h"
#include "netcontent.h"
#include "model.h"
#include "util.h"
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void check_memory(sim_t *s, const olive_network *hdr, int64_t r0, int64_t r1);

void sim_mpi_fail(const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    olive_die("MPI call failed: %s: %s", what, msg);
}

/* Every rank learns what the others need from it (their receive lists). */
static void exchange_needs(sim_t *s)
{
    olive_plan *p = &s->plan;
    int P = s->size;
    int *need_count = olive_calloc((size_t)P, sizeof(int), "need counts");
    SIM_CHECK_MPI(MPI_Alltoall(p->recv_count, 1, MPI_INT, need_count, 1, MPI_INT, MPI_COMM_WORLD));
    int *need_displ = olive_calloc((size_t)P, sizeof(int), "need displs");
    int64_t total = 0;
    for (int q = 0; q < P; q++) { need_displ[q] = (int)total; total += need_count[q]; }
    int64_t *need = olive_malloc((size_t)total * sizeof(int64_t) + 1, "need lists");
    SIM_CHECK_MPI(MPI_Alltoallv(p->halo_ids, p->recv_count, p->recv_displ, MPI_INT64_T,
                                need, need_count, need_displ, MPI_INT64_T, MPI_COMM_WORLD));
    int64_t **lists = olive_malloc((size_t)P * sizeof(int64_t *), "need lists");
    for (int q = 0; q < P; q++) lists[q] = need + need_displ[q];
    olive_plan_set_sends(p, lists, need_count);
    free(lists); free(need); free(need_displ); free(need_count);
}

/* A map read from a file must agree between ranks: what rank r sends to q,
 * in order, is exactly q's halo segment from r (two swapped send entries or
 * an entry replaced by another in-range cell pass every per-rank check and
 * would give a wrong run). Every rank sends the global ids of its send lists
 * and compares what it receives with its halo lists; the lowest rank with a
 * mismatch names it and the run stops on every rank. */
static void crosscheck_map(sim_t *s, const char *map_path, const int64_t *bounds)
{
    olive_plan *p = &s->plan;
    int P = s->size;
    char fault[512] = "";
    int *got_count = olive_calloc((size_t)P, sizeof(int), "map check");
    SIM_CHECK_MPI(MPI_Alltoall(p->send_count, 1, MPI_INT, got_count, 1, MPI_INT, MPI_COMM_WORLD));
    for (int q = 0; q < P && !fault[0]; q++)
        if (got_count[q] != p->recv_count[q])
            snprintf(fault, sizeof fault, "rank %d sends %d cells to rank %d, whose halo expects %d from it", q,
                     got_count[q], s->rank, p->recv_count[q]);
    int bad = fault[0] != 0, anybad = 0;
    SIM_CHECK_MPI(MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    if (!anybad) {
        int64_t *ids = olive_malloc((size_t)p->nsend * sizeof(int64_t) + 8, "map check");
        for (int64_t i = 0; i < p->nsend; i++) ids[i] = p->row0 + p->send_local[i];
        int64_t *got = olive_malloc((size_t)p->nhalo * sizeof(int64_t) + 8, "map check");
        SIM_CHECK_MPI(MPI_Alltoallv(ids, p->send_count, p->send_displ, MPI_INT64_T, got, p->recv_count,
                                    p->recv_displ, MPI_INT64_T, MPI_COMM_WORLD));
        for (int q = 0; q < P && !fault[0]; q++)
            for (int i = 0; i < p->recv_count[q]; i++) {
                int64_t want = p->halo_ids[p->recv_displ[q] + i], sent = got[p->recv_displ[q] + i];
                if (want < bounds[q] || want >= bounds[q + 1]) {
                    snprintf(fault, sizeof fault, "rank %d's halo lists cell %lld under rank %d, which does not own it",
                             s->rank, (long long)want, q);
                    break;
                }
                if (sent != want) {
                    snprintf(fault, sizeof fault, "rank %d's send list to rank %d has cell %lld at position %d, "
                             "where rank %d's halo has cell %lld", q, s->rank, (long long)sent, i, s->rank,
                             (long long)want);
                    break;
                }
            }
        free(ids);
        free(got);
    }
    free(got_count);
    int me = fault[0] ? s->rank : P, first = P;
    SIM_CHECK_MPI(MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (first == P) return;
    if (first == s->rank) olive_die("%s: the ranks' lists do not match: %s", map_path, fault);
    MPI_Barrier(MPI_COMM_WORLD); /* the reporting rank aborts every rank */
    exit(1);
}

/* A distributed-graph communicator over the ranks this rank talks to, with
 * the counts compacted to those neighbours (MPI_Neighbor_alltoallv). */
static void make_graph(sim_t *s)
{
    olive_plan *p = &s->plan;
    int P = s->size, nin = 0, nout = 0;
    int *src = olive_malloc((size_t)P * sizeof(int), "graph"), *dst = olive_malloc((size_t)P * sizeof(int), "graph");
    s->io.nbr_recv_count = olive_malloc((size_t)P * sizeof(int), "graph");
    s->io.nbr_recv_displ = olive_malloc((size_t)P * sizeof(int), "graph");
    s->io.nbr_send_count = olive_malloc((size_t)P * sizeof(int), "graph");
    s->io.nbr_send_displ = olive_malloc((size_t)P * sizeof(int), "graph");
    for (int q = 0; q < P; q++) {
        if (p->recv_count[q] > 0) {
            src[nin] = q;
            s->io.nbr_recv_count[nin] = p->recv_count[q];
            s->io.nbr_recv_displ[nin++] = p->recv_displ[q];
        }
        if (p->send_count[q] > 0) {
            dst[nout] = q;
            s->io.nbr_send_count[nout] = p->send_count[q];
            s->io.nbr_send_displ[nout++] = p->send_displ[q];
        }
    }
    s->io.nbr_in = nin;
    s->io.nbr_out = nout;
    /* Explicit unit weights: gcc -Werror rejects the MPI_UNWEIGHTED sentinel pointer. */
    int *ones = olive_malloc((size_t)P * sizeof(int), "graph");
    for (int q = 0; q < P; q++) ones[q] = 1;
    SIM_CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, src, ones, nout, dst, ones,
                                                 MPI_INFO_NULL, 0, &s->io.graph));
    free(ones);
    free(src);
    free(dst);
}

/* State array number k (of OLIVE_NVARS) starts k x 192 bytes past a
 * 64-byte boundary. Large arrays come from mmap, page-aligned, so without
 * this the 19 arrays of a cell would all start on the same cache set and
 * their streams would evict each other in the 8-way caches. */
#define SIM_STAGGER 192
static void *alloc_staggered(sim_t *s, int k, size_t bytes)
{
    s->state_raw[k] = olive_malloc(bytes + 64 + (size_t)SIM_STAGGER * OLIVE_NVARS, "state");
    uintptr_t at = ((uintptr_t)s->state_raw[k] + 63) & ~(uintptr_t)63;
    return (void *)(at + (uintptr_t)SIM_STAGGER * (uintptr_t)k);
}

static void alloc_state(sim_t *s)
{
    size_t el = s->cfg->run.single ? sizeof(float) : sizeof(double);
    int64_t n = s->plan.nlocal, nh = s->plan.nhalo;
    for (int v = 0; v < OLIVE_NVARS; v++) {
        int64_t len = v == OV_V_DEND ? n + nh : n;
        s->state[v] = alloc_staggered(s, v, (size_t)len * el + el);
        /* First touch by the threads that will compute these rows. */
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < len; i++) {
            double x = olive_var_initial[v];
            if (v == OV_G_CAL && s->net.g_cal && i < n) x = s->net.g_cal[i];
            if (s->cfg->run.single) ((float *)s->state[v])[i] = (float)x;
            else ((double *)s->state[v])[i] = x;
        }
    }
    s->io.sendbuf = olive_malloc((size_t)s->plan.nsend * el + el, "send buffer");
    s->io.ic = olive_calloc((size_t)n + 1, el, "currents");
    s->io.iapp = olive_calloc((size_t)n + 1, el, "currents");
    s->flags = olive_calloc((size_t)n + 1, 1, "flags");
    if (s->net.bits >= 4 && s->net.bits <= 16) {
        int ncode = 1 << s->net.bits;
        s->io.wlut = olive_malloc((size_t)ncode * el, "conductance table");
        for (int c = 0; c < ncode; c++) {
            double w = s->net.offset + (double)c * s->net.scale;
            if (s->cfg->run.single) ((float *)s->io.wlut)[c] = (float)w; else ((double *)s->io.wlut)[c] = w;
        }
    }
}

/* What every family checks against the network's cell count: one rank per
 * cell at most, the pulses' cells, the populations and recorded cells. */
void sim_check_cell_count(const sim_t *s, sim_config *cfg, int64_t count)
{
    if (s->size > count)
        olive_die("%s: %lld cells cannot be split over %d ranks (at most one rank per cell)", cfg->run.net_path,
                  (long long)count, s->size);
    sim_check_pulses(&cfg->stim, count);
    sim_record_resolve(cfg, count);
}

/* How many other threads are running on this machine now: /proc/stat's
 * procs_running less this one, the median of 5 looks 2 ms apart (one look
 * catches a passing process); 0 where it cannot be read. */
static int others_running(void)
{
    int seen[5], n = 0;
    for (int k = 0; k < 5; k++) {
        FILE *f = fopen("/proc/stat", "r");
        if (!f) return 0;
        char line[256];
        int r = -1;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "procs_running %d", &r) == 1) break;
        fclose(f);
        if (r < 1) return 0;
        int i = n++;
        for (; i > 0 && seen[i - 1] > r - 1; i--) seen[i] = seen[i - 1];
        seen[i] = r - 1;
        if (k < 4) nanosleep(&(struct timespec){0, 2000000}, NULL);
    }
    return seen[n / 2];
}

void sim_setup_common(sim_t *s, sim_config *cfg, const sim_family *family)
{
    memset(s, 0, sizeof *s);
    s->cfg = cfg;
    s->family = family;
    s->bad_step = s->bad_cell = -1;
    SIM_CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &s->rank));
    SIM_CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &s->size));
    if (cfg->run.threads) omp_set_num_threads(cfg->run.threads);
    else if (!getenv("OMP_NUM_THREADS")) {
        /* Share the node's cores among the ranks on it: oversubscribed
         * OpenMP threads spin against each other and run 100x slower. */
        MPI_Comm node;
        int local = 1;
        SIM_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
        SIM_CHECK_MPI(MPI_Comm_size(node, &local));
        MPI_Comm_free(&node);
        /* and leave the cores other work keeps busy (a make check beside):
         * threads that wait for a core at every step's barrier cost more
         * than they bring (docs/BENCHMARKS.md, "Threads"); the other ranks
         * of this node, in their own set-up now, are not other work */
        const int busy = others_running() - (local - 1);
        const int free_cores = omp_get_num_procs() - (busy > 0 ? busy : 0);
        int t = free_cores / local;
        omp_set_num_threads(t > 0 ? t : 1);
        if (busy > 0) olive_info("%d other thread(s) running on this machine: %d OpenMP thread(s) a rank", busy, t > 0 ? t : 1);
    }
    s->nthreads = omp_get_max_threads();
    /* mpirun binds each rank to one core by default (Open MPI, 1 or 2
     * ranks): OpenMP threads then share that core, and set-up ran 7-10x
     * slower on the GPU hosts (docs/BENCHMARKS.md). */
    cpu_set_t mask;
    const int allowed = sched_getaffinity(0, sizeof mask, &mask) == 0 ? CPU_COUNT(&mask) : s->nthreads;
    if (s->nthreads > allowed && s->rank == 0)
        olive_warn("%d OpenMP thread(s) per rank, but rank 0 may run on only %d core(s): they will share them; "
                   "under mpirun use --bind-to none or --map-by slot:PE=%d (or fewer threads, --threads)",
                   s->nthreads, allowed, s->nthreads);
    s->tspikes = olive_calloc((size_t)s->nthreads, sizeof(sim_spike *), "spikes");
    s->tspike_n = olive_calloc((size_t)s->nthreads, sizeof(int64_t), "spikes");
    s->tspike_cap = olive_calloc((size_t)s->nthreads, sizeof(int64_t), "spikes");
}

void sim_threads_for_work(sim_t *s, int64_t nlocal, int64_t per_thread)
{
    if (s->cfg->run.threads || getenv("OMP_NUM_THREADS")) return;   /* the user's choice */
    const int64_t most = omp_get_max_threads(), want = nlocal / per_thread;
    const int t = (int)(want < 1 ? 1 : want > most ? most : want);
    if (t == most) return;
    omp_set_num_threads(t);
    s->nthreads = t;   /* (the per-thread lists stay allocated for the first count: more than enough) */
    olive_info("%d OpenMP thread(s) for %lld own cells (at least %lld a thread; --threads N chooses)", t,
               (long long)nlocal, (long long)per_thread);
}

/* Which of s->family's engines runs the network: --backend cpu, cuda or
 * auto (cuda when this build has it and every rank sees a GPU; all ranks run
 * the same engine). */
const sim_engine *sim_engine_choose(sim_t *s)
{
    const sim_family *f = s->family;
    if (s->cfg->run.backend == SIM_BACKEND_CPU || !f->cuda) return f->cpu;   /* (no CUDA engine: cli.c refused cuda) */
    const olive_model_plugin *pl = olive_plugin_of(s->cfg->run.model);
    if (pl && olive_plugin_gpu_refusal(pl)) return f->cpu;   /* (auto; cli.c refused cuda) */
    const char *unfit = sim_restart_or_checkpoint(s->cfg) && f->cuda_restart_unfit ? f->cuda_restart_unfit(s) : NULL;
    if (unfit) {
        if (s->cfg->run.backend == SIM_BACKEND_CUDA)
            olive_die("--backend cuda: %s of this network runs on the CPU engine only, so far: %s (--backend cpu)",
                      s->cfg->run.restart_path ? "--restart" : "--checkpoint-every", unfit);
        return f->cpu;
    }
#ifdef OLIVE_HAVE_CUDA
    /* a point model's cell functions are linked into the CUDA engine's
     * kernels at load time (spk_cuda_link.h): without the linker, the CPU */
    char why[512];
    if (olive_point_model(s->cfg->run.model, s->cfg->spiking.method) && !spk_cuda_linker(why, sizeof why)) {
        if (s->cfg->run.backend == SIM_BACKEND_CUDA)
            olive_die("--backend cuda: the CUDA engine links model %s's cell functions into its kernels when it loads "
                      "the model, and %s (--backend cpu)", s->cfg->run.model->name, why);
        olive_info("the CPU engine: the CUDA engine links model %s's cell functions into its kernels when it loads the "
                   "model, and %s", s->cfg->run.model->name, why);
        return f->cpu;
    }
    int mine = sim_cuda_device_count() > 0, all = 0;
    SIM_CHECK_MPI(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (s->cfg->run.backend == SIM_BACKEND_CUDA && !mine)
        olive_die("--backend cuda: rank %d sees no CUDA device (no GPU, no driver, or CUDA_VISIBLE_DEVICES hides them)",
                  s->rank);
    if (s->cfg->run.backend == SIM_BACKEND_CUDA && !all) {
        MPI_Barrier(MPI_COMM_WORLD); /* the rank without a device reports and aborts */
        exit(1);
    }
    return all ? f->cuda : f->cpu;
#else
    return f->cpu;
#endif
}

void sim_setup_infoli(sim_t *s, sim_config *cfg, const sim_family *family)
{
    double t0 = olive_now();
    sim_setup_common(s, cfg, family);

    olive_network hdr;
    olive_net_read_header(cfg->run.net_path, &hdr);
    sim_check_cell_count(s, cfg, hdr.count);
    if (cfg->run.restart_path) sim_restart_check_header(cfg, hdr.count);
    olive_map_header map;
    int64_t *bounds;
    if (cfg->run.map_path) {
        olive_map_read_header(cfg->run.map_path, &map);
        if (map.P != s->size)
            olive_die("%s: the map was made for %d ranks, this run has %d (make one with olive-disperse --ranks %d)",
                      cfg->run.map_path, map.P, s->size, s->size);
        if (map.count != hdr.count || map.nnz != hdr.nnz_total)
            olive_die("%s: the map was made for another network (%lld cells, %lld junctions; %s has %lld and %lld)",
                      cfg->run.map_path, (long long)map.count, (long long)map.nnz, cfg->run.net_path, (long long)hdr.count,
                      (long long)hdr.nnz_total);
        bounds = map.bounds;
    } else {
        bounds = olive_malloc((size_t)(s->size + 1) * sizeof(int64_t), "bounds");
        olive_block_bounds(hdr.count, NULL, s->size, OLIVE_BALANCE_CELLS, bounds);
    }
    check_memory(s, &hdr, bounds[s->rank], bounds[s->rank + 1]);
    double t_read = olive_now();
    olive_net_read_rows(cfg->run.net_path, bounds[s->rank], bounds[s->rank + 1], &s->net);
    t_read = olive_now() - t_read;
    double t_plan = olive_now();
    if (cfg->run.map_path) s->t.dispersal = map.time_dispersal_s;
    if (cfg->run.map_path) {
        olive_map_read_plan(cfg->run.map_path, &map, s->rank, &s->net, &s->plan);
        crosscheck_map(s, cfg->run.map_path, map.bounds);
    } else {
        olive_plan_build_local(&s->net, bounds, s->size, s->rank, &s->plan);
        exchange_needs(s);
        free(bounds);
    }
    make_graph(s);
    t_plan = olive_now() - t_plan;
    sim_threads_for_work(s, s->plan.nlocal, SIM_INFOLI_CELLS_PER_THREAD);

    /* The network checksum, the same for any number of ranks. */
    double t_crc = olive_now();
    uint64_t bytes;
    uint32_t crc = olive_net_structure_crc(&s->net, &bytes);
    uint32_t *crcs = olive_malloc((size_t)s->size * sizeof(uint32_t), "crc");
    uint64_t *lens = olive_malloc((size_t)s->size * sizeof(uint64_t), "crc");
    SIM_CHECK_MPI(MPI_Allgather(&crc, 1, MPI_UINT32_T, crcs, 1, MPI_UINT32_T, MPI_COMM_WORLD));
    SIM_CHECK_MPI(MPI_Allgather(&bytes, 1, MPI_UINT64_T, lens, 1, MPI_UINT64_T, MPI_COMM_WORLD));
    uint32_t all = crcs[0];
    for (int q = 1; q < s->size; q++) all = olive_crc_combine(all, crcs[q], lens[q]);
    s->net_crc = olive_crc_finish(all, hdr.count);
    uint64_t part = olive_net_content_part(&s->net), sum = 0;
    SIM_CHECK_MPI(MPI_Allreduce(&part, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
    s->net_content = olive_net_content_finish(sum, &s->net);
    if (cfg->run.map_path) {
        if (map.network_crc != s->net_crc)
            olive_die("%s: the map was made for another network (structure checksum %08x, %s has %08x)",
                      cfg->run.map_path, map.network_crc, cfg->run.net_path, s->net_crc);
        olive_map_header_free(&map);
    }
    free(crcs);
    free(lens);
    t_crc = olive_now() - t_crc;

    const sim_engine *engine = sim_engine_choose(s);
    alloc_state(s);
    sim_setup_variability(s);
    if (cfg->run.restart_path) sim_restart_load(s);
    double t_eng = olive_now();
    engine->setup(s);
    s->engine = engine;   /* set up: sim_free frees it */
    olive_info("rank %d: set-up: network read %.3f s, plan %.3f s, checksum %.3f s, %s engine %.3f s", s->rank, t_read,
               t_plan, t_crc, engine->name, olive_now() - t_eng);
    s->active = olive_malloc((size_t)(cfg->stim.npulses + 1) * sizeof(sim_pulse), "pulses");
    s->t.setup = olive_now() - t0;
    olive_info("rank %d: cells [%lld, %lld), %lld junctions, %lld halo cells, %lld interior / %lld boundary rows, %d threads",
               s->rank, (long long)s->plan.row0, (long long)s->plan.row1, (long long)s->net.nnz,
               (long long)s->plan.nhalo, (long long)s->plan.ninterior, (long long)s->plan.nboundary, s->nthreads);
}

void sim_free(sim_t *s)
{
    if (s->engine) s->engine->free(s);
    if (s->family && s->family->free) s->family->free(s);
    for (int k = 0; k < OLIVE_NVARS; k++) free(s->state_raw[k]);
    if (s->cfg) sim_record_free(s->cfg);
    for (int t = 0; t < s->nthreads; t++) free(s->tspikes[t]);
    free(s->tspikes); free(s->tspike_n); free(s->tspike_cap);
    free(s->io.wlut); free(s->io.sendbuf); free(s->active);
    free(s->io.ic); free(s->io.iapp); free(s->flags); free(s->io.noise);
    free(s->io.nbr_send_count); free(s->io.nbr_send_displ); free(s->io.nbr_recv_count); free(s->io.nbr_recv_displ);
    if (s->io.graph != MPI_COMM_NULL) MPI_Comm_free(&s->io.graph);
    olive_plan_free(&s->plan);
    olive_net_free(&s->net);
}

/* ---- predicted memory against what the node has ---- */

void sim_predict_memory(const sim_config *cfg, int bits, int64_t count, int64_t nlocal, int64_t nnz,
                        double *host_bytes, double *device_bytes)
{
    double el = cfg->run.single ? 4 : 8, n = (double)nlocal, e = (double)nnz;
    double halo = e < (double)count ? e : (double)count;
    double cond = bits == 0 ? 0 : e * bits / 8.0;
    /* network rows (row_ptr, col, conductances, g_CaL); plan (local rows,
     * halo ids, send lists, interior/boundary, and its count-sized marks);
     * state: 2 x 19 arrays + halo; currents, I_app, flags, send buffer;
     * the CPU engine's junction groups (columns and conductances again,
     * rows padded to their group's longest: about 1.1 x, held beside the
     * plan's columns while it is built). */
    double net = 8 * (n + 1) + 4 * e + cond + 8 * n + 1.1 * (4 * e + cond);
    double plan = 8 * (n + 1) + 4 * e + 8 * halo + 4 * halo + 4 * n + 5 * (double)count;
    double state = 2 * OLIVE_NVARS * n * el + 2 * halo * el + 2 * n * el + n + halo * el;
    double noise = cfg->infoli.noise_on ? n * el : 0;   /* the OU currents */
    *host_bytes = net + plan + state + noise;
    /* The CUDA backend's device copy: 2 x 19 state arrays, the rows (sliced
     * ELL: padded, about 1.5 x), conductances, halo and buffers. */
    *device_bytes = 2 * OLIVE_NVARS * n * el + 1.5 * (4 * e + cond) + 8 * (n + 1) + 3 * halo * el + n * el + noise;
}

/* Before the big allocations: the ranks of each node together must fit in
 * the memory the node has available. */
static void check_memory(sim_t *s, const olive_network *hdr, int64_t r0, int64_t r1)
{
    int64_t ends[2] = {0, 0};
    hid_t f = olive_h5_open_read(s->cfg->run.net_path);
    hid_t gj = H5Gopen2(f, "gap_junctions", H5P_DEFAULT);
    olive_h5_read_slab1(s->cfg->run.net_path, gj, "row_ptr", H5T_NATIVE_INT64, r0, 1, &ends[0]);
    olive_h5_read_slab1(s->cfg->run.net_path, gj, "row_ptr", H5T_NATIVE_INT64, r1, 1, &ends[1]);
    H5Gclose(gj);
    H5Fclose(f);
    int64_t nnz = ends[1] - ends[0];
    if (nnz < 0 || nnz > hdr->nnz_total) nnz = hdr->nnz_total; /* the reader reports the fault itself */
    double host, dev;
    sim_predict_memory(s->cfg, hdr->bits, hdr->count, r1 - r0, nnz, &host, &dev);
    char what[4200];
    snprintf(what, sizeof what, "%s with %lld cells and %lld junctions", s->cfg->run.net_path, (long long)hdr->count,
             (long long)hdr->nnz_total);
    sim_require_node_memory(s, host, dev, what);
}

void sim_require_node_memory(sim_t *s, double host, double dev, const char *what)
{
    MPI_Comm node;
    int local = 1, lrank = 0;
    SIM_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    SIM_CHECK_MPI(MPI_Comm_size(node, &local));
    SIM_CHECK_MPI(MPI_Comm_rank(node, &lrank));
    double need = 0;
    SIM_CHECK_MPI(MPI_Allreduce(&host, &need, 1, MPI_DOUBLE, MPI_SUM, node));
    MPI_Comm_free(&node);
    const char *source = "";
    double avail = olive_available_memory(&source);
    int short_here = lrank == 0 && avail >= 0 && need > avail, any = 0;
    SIM_CHECK_MPI(MPI_Allreduce(&short_here, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    char b1[32], b2[32], b3[32], b4[32];
    olive_info("rank %d: predicted host memory %s (this node's %d rank(s): %s; available %s)%s%s", s->rank,
               olive_fmt_bytes(b1, sizeof b1, host), local, olive_fmt_bytes(b2, sizeof b2, need),
               avail < 0 ? "unknown" : olive_fmt_bytes(b3, sizeof b3, avail),
               dev >= 0 ? "; device memory of the CUDA backend about " : "", dev >= 0 ? olive_fmt_bytes(b4, sizeof b4, dev) : "");
    if (!any) return;
    if (short_here)
        olive_die("not enough memory: %s needs about %s on this node (%d rank(s)), but only %s is available (%s); use "
                  "more nodes or fewer ranks per node", what, olive_fmt_bytes(b1, sizeof b1, need), local,
                  olive_fmt_bytes(b2, sizeof b2, avail), source);
    MPI_Barrier(MPI_COMM_WORLD); /* a node's first rank reports and aborts */
    exit(1);
}
