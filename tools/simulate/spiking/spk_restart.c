/* Checkpoint and restart of spiking networks (CPU engine): the state file
 * holds, besides the cells' variables, the spikes still in flight, i.e. the
 * spikes of the last max-delay steps before the state's step. A restart
 * queues again those whose events fall due at or after that step, in the
 * order the unbroken run queued them (spike step, then source id, then the
 * source's synapses), so every sum, and so the whole run, keeps its bits.
 * Poisson inputs and spike sources depend on (seed, cell, step) only. */
#include "spk.h"
#include "mix64.h"
#include "h5util.h"
#include "model_plugin.h"
#include "netcontent.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A plugin's model: the state's plugin is this run's (the same name built
 * from another source steps otherwise). */
static void check_plugin_hash(const sim_config *cfg, const char *p, hid_t f)
{
    const olive_model_plugin *pl = olive_plugin_of(cfg->run.model);
    if (!pl) return;
    char hash[80] = "";
    if (!olive_h5_get_str_opt(p, f, "model_hash", hash, sizeof hash)) olive_die("%s: root attribute 'model_hash' is missing", p);
    if (strcmp(hash, pl->hash))
        olive_die("%s: the state was computed with the plugin of hash %s, this run's %s (%s) has hash %s", p, hash,
                  cfg->run.model->name, olive_plugin_path(pl), pl->hash);
}

void spk_restart_check_header(sim_config *cfg, int64_t count)
{
    const char *p = cfg->run.restart_path;
    hid_t g;
    hid_t f = sim_state_open(p, &g);
    char model[64] = "", method[64] = "", prec[32] = "";
    if (!olive_h5_get_str_opt(p, f, "model", model, sizeof model)) olive_die("%s: root attribute 'model' is missing", p);
    if (strcmp(model, cfg->run.model->name))
        olive_die("%s: the state is of a %s network, %s is a %s network", p, model, cfg->run.net_path, cfg->run.model->name);
    if (!olive_h5_get_str_opt(p, f, "method", method, sizeof method)) olive_die("%s: root attribute 'method' is missing", p);
    if (strcmp(method, sim_method_name(cfg)))
        olive_die("%s: the state was computed with --method %s, this run has %s (continuing would not be the same run)",
                  p, method, sim_method_name(cfg));
    check_plugin_hash(cfg, p, f);
    if (!olive_h5_get_str_opt(p, g, "precision", prec, sizeof prec) || strcmp(prec, "double"))
        olive_die("%s: /state precision is '%s', spiking networks run in double", p, prec);
    const int64_t step = olive_h5_get_i64(p, g, "/state", "step");
    const int64_t cells = olive_h5_get_i64(p, f, "/", "cells");
    const double dt = olive_h5_get_f64(p, f, "/", "dt");
    if (step < 0) olive_die("%s: /state step = %lld is negative", p, (long long)step);
    if (cells != count)
        olive_die("%s: the state has %lld cells, the network %s has %lld (another network)", p, (long long)cells,
                  cfg->run.net_path, (long long)count);
    if (dt != cfg->run.dt) olive_die("%s: the state's dt is %g ms, the network's %g ms", p, dt, cfg->run.dt);
    for (int v = 0; v < cfg->run.model->nvars; v++) {
        char name[64];
        snprintf(name, sizeof name, "state/%s", cfg->run.model->var_names[v]);
        if (!olive_h5_exists(f, name)) olive_die("%s: dataset /%s is missing", p, name);
        if (olive_h5_len1(p, f, name) != count)
            olive_die("%s: /%s does not have one value per cell (%lld)", p, name, (long long)count);
        H5T_class_t cls;
        size_t sz;
        olive_h5_dtype_info(p, f, name, &cls, &sz);
        if (cls != H5T_FLOAT || sz != 8) olive_die("%s: /%s is not float64", p, name);
    }
    if (!olive_h5_exists(f, "state/in_flight_step") || !olive_h5_exists(f, "state/in_flight_cell"))
        olive_die("%s: /state/in_flight_step and /state/in_flight_cell are missing (the spikes still in flight; a "
                  "state written before olive 0.9 cannot continue a spiking network)", p);
    if (step >= cfg->run.steps)
        olive_usage_error("%s: the state is at step %lld (t = %g ms) but the run ends at step %lld: --steps/--time "
                          "give the end of the whole run, which must come after the state",
                          p, (long long)step, (double)step * cfg->run.dt, (long long)cfg->run.steps);
    H5Gclose(g);
    H5Fclose(f);
    cfg->run.start_step = step;
}

/* A spike in flight and its entry in the file. */
typedef struct { int64_t step, cell, entry; } flight;

static int cmp_flight(const void *a, const void *b)
{
    const flight *x = a, *y = b;
    if (x->step != y->step) return (x->step > y->step) - (x->step < y->step);
    if (x->cell != y->cell) return (x->cell > y->cell) - (x->cell < y->cell);
    return (x->entry > y->entry) - (x->entry < y->entry);
}

/* One in-flight dataset: integers only (HDF5 would truncate floats), m values. */
static int64_t *read_flight_column(const char *path, hid_t f, const char *name, int64_t m)
{
    H5T_class_t cls;
    size_t sz;
    olive_h5_dtype_info(path, f, name, &cls, &sz);
    if (cls != H5T_INTEGER) olive_die("%s: /%s is not an integer dataset (step and cell numbers are integers)", path, name);
    int64_t *v = olive_malloc((size_t)m * sizeof(int64_t) + 8, "spikes in flight");
    olive_h5_read_slab1(path, f, name, H5T_NATIVE_INT64, 0, m, v);
    return v;
}

sim_spike *spk_read_in_flight(const char *p, hid_t f, int64_t k0, int64_t ncells, int64_t max_delay, int64_t *m_out,
                              uint64_t *hash)
{
    const int64_t m = olive_h5_len1(p, f, "state/in_flight_step");
    if (olive_h5_len1(p, f, "state/in_flight_cell") != m)
        olive_die("%s: /state/in_flight_step and /state/in_flight_cell differ in length", p);
    /* each cell spikes at most once a step: a longer list is not a state */
    if (max_delay < 0 || m > ncells * (max_delay > k0 ? k0 : max_delay))
        olive_die("%s: /state/in_flight_step holds %lld spikes, more than %lld cells can fire in the %lld steps before "
                  "step %lld", p, (long long)m, (long long)ncells, (long long)(max_delay > k0 ? k0 : max_delay), (long long)k0);
    int64_t *st = read_flight_column(p, f, "state/in_flight_step", m);
    int64_t *ce = read_flight_column(p, f, "state/in_flight_cell", m);
    *hash = sim_state_hash("state/in_flight_step", 0, m, st, 8) + sim_state_hash("state/in_flight_cell", 0, m, ce, 8);
    flight *fl = olive_malloc((size_t)m * sizeof(flight) + 8, "spikes in flight");
    for (int64_t i = 0; i < m; i++) {
        if (st[i] < 0) olive_die("%s: /state/in_flight_step[%lld] = %lld is negative", p, (long long)i, (long long)st[i]);
        if (st[i] < k0 - max_delay || st[i] >= k0)
            olive_die("%s: /state/in_flight_step[%lld] = %lld is not a step of the %lld before the state's step %lld "
                      "(a spike in flight)", p, (long long)i, (long long)st[i], (long long)max_delay, (long long)k0);
        if (ce[i] < 0 || ce[i] >= ncells)
            olive_die("%s: /state/in_flight_cell[%lld] = %lld is not a cell (0 .. %lld: negative or out of range)", p, (long long)i,
                      (long long)ce[i], (long long)ncells - 1);
        fl[i] = (flight){st[i], ce[i], i};
    }
    free(st);
    free(ce);
    qsort(fl, (size_t)m, sizeof *fl, cmp_flight);
    sim_spike *sp = olive_malloc((size_t)m * sizeof(sim_spike) + 8, "spikes in flight");
    for (int64_t i = 0; i < m; i++) {
        /* delivered twice, it would double its events */
        if (i > 0 && fl[i].step == fl[i - 1].step && fl[i].cell == fl[i - 1].cell)
            olive_die("%s: /state/in_flight_step and /state/in_flight_cell entries %lld and %lld are the same spike "
                      "(step %lld, cell %lld)", p, (long long)fl[i - 1].entry, (long long)fl[i].entry,
                      (long long)fl[i].step, (long long)fl[i].cell);
        sp[i] = (sim_spike){fl[i].step, fl[i].cell};
    }
    free(fl);
    *m_out = m;
    return sp;
}

void spk_restart_load(sim_t *s)
{
    struct sim_spk *k = s->spk;
    const sim_config *cfg = s->cfg;
    const char *p = cfg->run.restart_path;
    const int64_t k0 = cfg->run.start_step, n = s->plan.nlocal;
    hid_t f = olive_h5_open_read(p);
    hid_t g = H5Gopen2(f, "state", H5P_DEFAULT);
    if (g < 0) olive_die("%s: /state is not a group", p);
    const int64_t nsyn = olive_h5_get_i64(p, g, "/state", "synapses");
    const int64_t hash = olive_h5_get_i64(p, g, "/state", "synapse_hash");
    H5Gclose(g);
    if (nsyn != k->nsyn_total)
        olive_die("%s: the state belongs to a network of %lld synapses, %s has %lld (another network)", p,
                  (long long)nsyn, cfg->run.net_path, (long long)k->nsyn_total);
    if (hash != spk_synapse_hash(s))
        olive_die("%s: the state belongs to a network with other synapses (sources, targets, weights or delays) "
                  "than %s (synapse hash %016llx, the network's %016llx); a restart must use the network the state "
                  "was computed on", p, cfg->run.net_path, (unsigned long long)hash, (unsigned long long)spk_synapse_hash(s));
    int64_t bad = -1;
    uint64_t part = 0;   /* this rank's rows of the datasets, for the checksum */
    for (int v = 0; v < cfg->run.model->nvars; v++) {
        char name[64];
        snprintf(name, sizeof name, "state/%s", cfg->run.model->var_names[v]);
        olive_h5_read_slab1(p, f, name, H5T_NATIVE_DOUBLE, s->plan.row0, n, s->state[v]);
        part += sim_state_hash(name, s->plan.row0, n, s->state[v], 8);
        for (int64_t i = 0; i < n && bad < 0; i++)
            if (!isfinite(((double *)s->state[v])[i])) bad = (int64_t)v << 40 | (s->plan.row0 + i);
    }
    uint64_t flight_hash;
    k->restart.restored = spk_read_in_flight(p, f, k0, s->net.count, k->L - 1, &k->restart.nrestored, &flight_hash);
    if (s->rank == 0) part += flight_hash;   /* every rank read all of them */
    int64_t first = bad < 0 ? INT64_MAX : bad, all;
    SIM_CHECK_MPI(MPI_Allreduce(&first, &all, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD));
    if (all != INT64_MAX) {
        if (all == first)
            olive_die("%s: /state/%s of cell %lld is not finite (a damaged state)", p, cfg->run.model->var_names[all >> 40],
                      (long long)(all & ((INT64_C(1) << 40) - 1)));
        MPI_Barrier(MPI_COMM_WORLD); /* the rank holding the cell reports and aborts */
        exit(1);
    }
    /* plastic synapses: their states and the events they queued (the
     * weights a spike carried are gone), not a replay of the spikes */
    if (k->plastic) spk_plastic_restore(s, p, f, &part);
    if (s->family->cells && s->family->cells->restore_state)   /* cable cells: compartments, synapses, sites */
        part += s->family->cells->restore_state(s, p, f);
    /* Last, so that the checks above name what they find in a changed file. */
    sim_state_verify(s, p, f, part);
    H5Fclose(f);
    for (int64_t i = 0; i < k->restart.nrestored && !k->plastic; i++) spk_queue_spike(s, k->restart.restored[i].cell, k->restart.restored[i].step, k0);
}

static int cmp_by_cell(const void *a, const void *b)
{
    const sim_spike *x = a, *y = b;
    if (x->cell != y->cell) return (x->cell > y->cell) - (x->cell < y->cell);
    return (x->step > y->step) - (x->step < y->step);
}

uint64_t spk_write_in_flight(sim_t *s, const char *path, hid_t g, int64_t step, hid_t xfer)
{
    struct sim_spk *k = s->spk;
    const int64_t from = step - (k->L - 1);   /* older spikes have no event left to deliver */
    const int64_t row0 = s->plan.row0, row1 = s->plan.row1;
    /* This rank's cells' spikes, those a restart brought in included, sorted
     * by cell then step: the ranks' blocks of cells follow each other, so the
     * file is the same for any rank count. */
    int64_t m = 0;
    for (int64_t i = 0; i < k->restart.nrestored; i++)
        m += k->restart.restored[i].step >= from && k->restart.restored[i].cell >= row0 && k->restart.restored[i].cell < row1;
    for (int t = 0; t < s->nthreads; t++)
        for (int64_t i = 0; i < s->tspike_n[t]; i++) m += s->tspikes[t][i].step >= from && s->tspikes[t][i].step < step;
    sim_spike *sp = olive_malloc((size_t)m * sizeof(sim_spike) + 8, "spikes in flight");
    int64_t j = 0;
    for (int64_t i = 0; i < k->restart.nrestored; i++)
        if (k->restart.restored[i].step >= from && k->restart.restored[i].cell >= row0 && k->restart.restored[i].cell < row1) sp[j++] = k->restart.restored[i];
    for (int t = 0; t < s->nthreads; t++)
        for (int64_t i = 0; i < s->tspike_n[t]; i++)
            if (s->tspikes[t][i].step >= from && s->tspikes[t][i].step < step) sp[j++] = s->tspikes[t][i];
    qsort(sp, (size_t)m, sizeof(sim_spike), cmp_by_cell);
    int64_t *st = olive_malloc((size_t)m * sizeof(int64_t) + 8, "spikes in flight");
    int64_t *ce = olive_malloc((size_t)m * sizeof(int64_t) + 8, "spikes in flight");
    for (int64_t i = 0; i < m; i++) { st[i] = sp[i].step; ce[i] = sp[i].cell; }
    free(sp);
    int64_t off = 0, total = 0;
    SIM_CHECK_MPI(MPI_Exscan(&m, &off, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    if (s->rank == 0) off = 0;   /* MPI_Exscan leaves rank 0's undefined */
    SIM_CHECK_MPI(MPI_Allreduce(&m, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    const char *names[2] = {"in_flight_step", "in_flight_cell"};
    int64_t *data[2] = {st, ce};
    uint64_t part = 0;
    for (int q = 0; q < 2; q++) {
        hid_t d = olive_h5_dset1(path, g, names[q], H5T_STD_I64LE, total, 0);
        /* (an empty dataset has no storage to write to; total is every rank's) */
        if (total > 0) olive_h5_write_slab1(path, d, H5T_NATIVE_INT64, off, m, data[q], xfer);
        char what[64];
        snprintf(what, sizeof what, "dataset /state/%s", names[q]);
        olive_h5_close(path, d, what);
        part += sim_state_hash(what + 9, off, m, data[q], 8);   /* "state/NAME" */
    }
    olive_h5_attr_i64(path, g, "synapses", k->nsyn_total);
    olive_h5_attr_i64(path, g, "synapse_hash", spk_synapse_hash(s));
    olive_h5_attr_i64(path, g, "max_delay_steps", k->L - 1);
    free(st);
    free(ce);
    return part;
}
