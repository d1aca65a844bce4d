/* Setup of a run: this rank's rows, the exchange plan, the communicator and
 * the initial state. */
#include "sim.h"
#include "mapfile.h"
#include "model.h"
#include "util.h"
#include <omp.h>
#include <stdlib.h>
#include <string.h>

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

/* A distributed-graph communicator over the ranks this rank talks to, with
 * the counts compacted to those neighbours (MPI_Neighbor_alltoallv). */
static void make_graph(sim_t *s)
{
    olive_plan *p = &s->plan;
    int P = s->size, nin = 0, nout = 0;
    int *src = olive_malloc((size_t)P * sizeof(int), "graph"), *dst = olive_malloc((size_t)P * sizeof(int), "graph");
    s->nbr_recv_count = olive_malloc((size_t)P * sizeof(int), "graph");
    s->nbr_recv_displ = olive_malloc((size_t)P * sizeof(int), "graph");
    s->nbr_send_count = olive_malloc((size_t)P * sizeof(int), "graph");
    s->nbr_send_displ = olive_malloc((size_t)P * sizeof(int), "graph");
    for (int q = 0; q < P; q++) {
        if (p->recv_count[q] > 0) {
            src[nin] = q;
            s->nbr_recv_count[nin] = p->recv_count[q];
            s->nbr_recv_displ[nin++] = p->recv_displ[q];
        }
        if (p->send_count[q] > 0) {
            dst[nout] = q;
            s->nbr_send_count[nout] = p->send_count[q];
            s->nbr_send_displ[nout++] = p->send_displ[q];
        }
    }
    s->nbr_in = nin;
    s->nbr_out = nout;
    /* Explicit unit weights: gcc -Werror rejects the MPI_UNWEIGHTED sentinel pointer. */
    int *ones = olive_malloc((size_t)P * sizeof(int), "graph");
    for (int q = 0; q < P; q++) ones[q] = 1;
    SIM_CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, src, ones, nout, dst, ones,
                                                 MPI_INFO_NULL, 0, &s->graph));
    free(ones);
    free(src);
    free(dst);
}

static void alloc_state(sim_t *s)
{
    size_t el = s->cfg->single ? sizeof(float) : sizeof(double);
    int64_t n = s->plan.nlocal, nh = s->plan.nhalo;
    for (int v = 0; v < OLIVE_NVARS; v++) {
        int64_t len = v == OV_V_DEND ? n + nh : n;
        s->cur[v] = olive_malloc((size_t)len * el + el, "state");
        s->nxt[v] = olive_malloc((size_t)len * el + el, "state");
        /* First touch by the threads that will compute these rows. */
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < len; i++) {
            double x = olive_var_initial[v];
            if (v == OV_G_CAL && s->net.g_cal && i < n) x = s->net.g_cal[i];
            if (s->cfg->single) { ((float *)s->cur[v])[i] = (float)x; ((float *)s->nxt[v])[i] = (float)x; }
            else { ((double *)s->cur[v])[i] = x; ((double *)s->nxt[v])[i] = x; }
        }
    }
    s->sendbuf = olive_malloc((size_t)s->plan.nsend * el + el, "send buffer");
    s->ic = olive_calloc((size_t)n + 1, el, "currents");
    s->iapp = olive_calloc((size_t)n + 1, el, "currents");
    s->flags = olive_calloc((size_t)n + 1, 1, "flags");
    if (s->net.bits >= 4 && s->net.bits <= 16) {
        int ncode = 1 << s->net.bits;
        s->wlut = olive_malloc((size_t)ncode * el, "conductance table");
        for (int c = 0; c < ncode; c++) {
            double w = s->net.offset + (double)c * s->net.scale;
            if (s->cfg->single) ((float *)s->wlut)[c] = (float)w; else ((double *)s->wlut)[c] = w;
        }
    }
}

/* Which backend runs: --backend cuda needs a GPU on every rank; auto takes
 * cuda only when every rank sees one (all ranks run the same backend). */
static int want_cuda(sim_t *s)
{
    if (s->cfg->backend == SIM_BACKEND_CPU) return 0;
#ifdef OLIVE_HAVE_CUDA
    int mine = sim_cuda_device_count() > 0, all = 0;
    SIM_CHECK_MPI(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (s->cfg->backend == SIM_BACKEND_CUDA && !mine)
        olive_die("--backend cuda: rank %d sees no CUDA device (no GPU, no driver, or CUDA_VISIBLE_DEVICES hides them)",
                  s->rank);
    if (s->cfg->backend == SIM_BACKEND_CUDA && !all) {
        MPI_Barrier(MPI_COMM_WORLD); /* the rank without a device reports and aborts */
        exit(1);
    }
    return all;
#else
    return 0;
#endif
}

void sim_setup(sim_t *s, sim_config *cfg)
{
    double t0 = olive_now();
    memset(s, 0, sizeof *s);
    s->cfg = cfg;
    s->bad_step = s->bad_cell = -1;
    SIM_CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &s->rank));
    SIM_CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &s->size));
    if (cfg->threads) omp_set_num_threads(cfg->threads);
    else if (!getenv("OMP_NUM_THREADS")) {
        /* Share the node's cores among the ranks on it: oversubscribed
         * OpenMP threads spin against each other and run 100x slower. */
        MPI_Comm node;
        int local = 1;
        SIM_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
        SIM_CHECK_MPI(MPI_Comm_size(node, &local));
        MPI_Comm_free(&node);
        int t = omp_get_num_procs() / local;
        omp_set_num_threads(t > 0 ? t : 1);
    }
    s->nthreads = omp_get_max_threads();
    s->tspikes = olive_calloc((size_t)s->nthreads, sizeof(sim_spike *), "spikes");
    s->tspike_n = olive_calloc((size_t)s->nthreads, sizeof(int64_t), "spikes");
    s->tspike_cap = olive_calloc((size_t)s->nthreads, sizeof(int64_t), "spikes");

    olive_network hdr;
    olive_net_read_header(cfg->net_path, &hdr);
    if (s->size > hdr.count)
        olive_die("%s: %lld cells cannot be split over %d ranks (at most one rank per cell)", cfg->net_path,
                  (long long)hdr.count, s->size);
    sim_check_pulses(cfg, hdr.count);
    if (cfg->rec_b > hdr.count)
        olive_usage_error("--record-cells %lld:%lld: the network has %lld cells", (long long)cfg->rec_a,
                          (long long)cfg->rec_b, (long long)hdr.count);
    if (cfg->rec_b < 0) { cfg->rec_a = 0; cfg->rec_b = hdr.count; }
    olive_map_header map;
    int64_t *bounds;
    if (cfg->map_path) {
        olive_map_read_header(cfg->map_path, &map);
        if (map.P != s->size)
            olive_die("%s: the map was made for %d ranks, this run has %d (make one with olive-disperse --ranks %d)",
                      cfg->map_path, map.P, s->size, s->size);
        if (map.count != hdr.count || map.nnz != hdr.nnz_total)
            olive_die("%s: the map was made for another network (%lld cells, %lld junctions; %s has %lld and %lld)",
                      cfg->map_path, (long long)map.count, (long long)map.nnz, cfg->net_path, (long long)hdr.count,
                      (long long)hdr.nnz_total);
        bounds = map.bounds;
    } else {
        bounds = olive_malloc((size_t)(s->size + 1) * sizeof(int64_t), "bounds");
        olive_block_bounds(hdr.count, NULL, s->size, OLIVE_BALANCE_CELLS, bounds);
    }
    double t_read = olive_now();
    olive_net_read_rows(cfg->net_path, bounds[s->rank], bounds[s->rank + 1], &s->net);
    t_read = olive_now() - t_read;
    double t_plan = olive_now();
    if (cfg->map_path) s->t.dispersal = map.time_dispersal_s;
    if (cfg->map_path) {
        olive_map_read_plan(cfg->map_path, &map, s->rank, &s->net, &s->plan);
    } else {
        olive_plan_build_local(&s->net, bounds, s->size, s->rank, &s->plan);
        exchange_needs(s);
        free(bounds);
    }
    make_graph(s);
    t_plan = olive_now() - t_plan;

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
    if (cfg->map_path) {
        if (map.network_crc != s->net_crc)
            olive_die("%s: the map was made for another network (structure checksum %08x, %s has %08x)",
                      cfg->map_path, map.network_crc, cfg->net_path, s->net_crc);
        olive_map_header_free(&map);
    }
    free(crcs);
    free(lens);
    t_crc = olive_now() - t_crc;

    int cuda = want_cuda(s);
    alloc_state(s);
#ifdef OLIVE_HAVE_CUDA
    double t_dev = olive_now();
    if (cuda) sim_cuda_setup(s);
    if (cuda) olive_info("rank %d: set-up: network read %.3f s, plan %.3f s, checksum %.3f s, device %.3f s", s->rank,
                         t_read, t_plan, t_crc, olive_now() - t_dev);
#else
    (void)cuda;
#endif
    if (!s->cuda) olive_info("rank %d: set-up: network read %.3f s, plan %.3f s, checksum %.3f s", s->rank, t_read, t_plan,
                             t_crc);
    s->active = olive_malloc((size_t)(cfg->npulses + 1) * sizeof(sim_pulse), "pulses");
    int64_t maxdeg = 0;
    for (int64_t r = 0; r < s->plan.nlocal; r++)
        if (s->plan.lrow_ptr[r + 1] - s->plan.lrow_ptr[r] > maxdeg) maxdeg = s->plan.lrow_ptr[r + 1] - s->plan.lrow_ptr[r];
    s->tbuf = olive_malloc((size_t)s->nthreads * sizeof(void *), "term buffers");
    for (int t = 0; t < s->nthreads; t++) s->tbuf[t] = olive_malloc((size_t)(maxdeg + 1) * sizeof(double), "term buffer");
    s->t.setup = olive_now() - t0;
    olive_info("rank %d: cells [%lld, %lld), %lld junctions, %lld halo cells, %lld interior / %lld boundary rows, %d threads",
               s->rank, (long long)s->plan.row0, (long long)s->plan.row1, (long long)s->net.nnz,
               (long long)s->plan.nhalo, (long long)s->plan.ninterior, (long long)s->plan.nboundary, s->nthreads);
}

void sim_free(sim_t *s)
{
#ifdef OLIVE_HAVE_CUDA
    if (s->cuda) sim_cuda_free(s);
#endif
    for (int v = 0; v < OLIVE_NVARS; v++) { free(s->cur[v]); free(s->nxt[v]); }
    for (int t = 0; t < s->nthreads; t++) free(s->tspikes[t]);
    free(s->tspikes); free(s->tspike_n); free(s->tspike_cap);
    free(s->wlut); free(s->sendbuf); free(s->active);
    for (int t = 0; t < s->nthreads; t++) free(s->tbuf[t]);
    free(s->tbuf);
    free(s->ic); free(s->iapp); free(s->flags);
    free(s->nbr_send_count); free(s->nbr_send_displ); free(s->nbr_recv_count); free(s->nbr_recv_displ);
    if (s->graph != MPI_COMM_NULL) MPI_Comm_free(&s->graph);
    olive_plan_free(&s->plan);
    olive_net_free(&s->net);
}
