/* Simulation output in SONATA layout (docs/FORMAT.md): one report file per
 * recorded variable written collectively frame block by frame block, the
 * spikes gathered to rank 0, the final state, provenance on every file. */
#include "sim.h"
#include "spk.h"
#include "report.h"
#include "weights.h"
#include "spike_split.h"
#include "h5util.h"
#include "model.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

/* Files: the reports (slot v of a recorded variable), spikes, state, weights. */
#define SLOT_SPIKES OLIVE_NVARS
#define SLOT_STATE (OLIVE_NVARS + 1)
#define SLOT_WEIGHTS (OLIVE_NVARS + 2)
#define NSLOTS (OLIVE_NVARS + 3)

struct sim_output {
    char dir[4096];
    int in_place;              /* checkpoint mode: each file claimed on its own in dir */
    char path[NSLOTS][4096];   /* where each file is written */
    int64_t frames, frame_chunk, frames_done, buffered;
    hid_t xfer;
    const olive_cell_model *model;
    /* The reports of the recorded variables, and of --record-compartments
     * (cable cells: VAR_compartments.h5); NULL: not recorded. */
    sim_report *rep[OLIVE_NVARS], *comp[OLIVE_NVARS + 8];   /* comp[OLIVE_NVARS + k]: NMODL variable k */
    sim_weights *wts;          /* --record-weights: weights.h5, or NULL */
};

static const char *slot_name(const sim_output *o, int slot, char *buf, size_t n)
{
    snprintf(buf, n, "%s.h5", slot < OLIVE_NVARS ? o->model->var_names[slot] : slot == SLOT_SPIKES ? "spikes" :
                              slot == SLOT_STATE ? "state" : "weights");
    return buf;
}

/* Decide where file slot is written (every rank gets the same path): in the
 * temporary directory, dir/NAME; in checkpoint mode a temporary name of its
 * own beside dir/NAME, claimed by rank 0 (an existing file is replaced: the
 * --restart state, or this run's last checkpoint). */
static const char *claim(sim_output *o, sim_t *s, int slot)
{
    char name[64], final[4200];
    snprintf(final, sizeof final, "%s/%s", o->dir, slot_name(o, slot, name, sizeof name));
    if (strlen(final) >= sizeof o->path[slot] - 48) olive_die("%s: output path too long", o->dir);
    if (!o->in_place) memcpy(o->path[slot], final, strlen(final) + 1);   /* fits: checked above */
    else {
        if (s->rank == 0) snprintf(o->path[slot], sizeof o->path[slot], "%s", olive_atomic_begin(final, 1));
        SIM_CHECK_MPI(MPI_Bcast(o->path[slot], sizeof o->path[slot], MPI_CHAR, 0, MPI_COMM_WORLD));
        if (s->rank != 0) olive_atomic_share(o->path[slot]);
    }
    return o->path[slot];
}

sim_output *sim_output_open(sim_t *s, const char *dir, int in_place)
{
    sim_config *c = s->cfg;
    sim_output *o = olive_calloc(1, sizeof *o, "output");
    snprintf(o->dir, sizeof o->dir, "%s", dir);
    o->in_place = in_place;
    o->model = c->run.model;
    /* Frames after steps i with (i+1) % K == 0, start_step <= i < steps: the
     * time axis continues on restart. */
    o->frames = c->run.steps / c->rec.every - c->run.start_step / c->rec.every;
    o->xfer = olive_h5_xfer(MPI_COMM_WORLD);
    /* Chunks of up to 64 frames (and about 4 MiB: report.c); frames are buffered a chunk row at a time. */
    o->frame_chunk = o->frames < 64 ? (o->frames > 0 ? o->frames : 1) : 64;
    for (int v = 0; v < c->run.model->nvars; v++)
        if (c->rec.vars[v]) o->rep[v] = sim_report_open(s, claim(o, s, v), v, 0, o->frames, o->frame_chunk, o->xfer);
    if ((c->rec.ncomp_vars || c->rec.ncomp_mech) && in_place) olive_die("internal: compartment reports in checkpoint mode");
    for (int v = 0; v < c->run.model->nvars; v++) {
        if (!c->rec.comp_vars[v]) continue;
        char path[4200];
        snprintf(path, sizeof path, "%s/%s_compartments.h5", dir, c->run.model->var_names[v]);
        o->comp[v] = sim_report_open(s, path, v, 1, o->frames, o->frame_chunk, o->xfer);
    }
    for (int k = 0; k < c->rec.ncomp_mech; k++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s_compartments.h5", dir, c->rec.comp_mech[k]);
        o->comp[OLIVE_NVARS + k] = sim_report_open(s, path, OLIVE_NVARS + k, 1, o->frames, o->frame_chunk, o->xfer);
    }
    if (c->rec.nweights) o->wts = sim_weights_open(s, claim(o, s, SLOT_WEIGHTS), o->xfer);
    return o;
}

void sim_output_weights(sim_output *o, sim_t *s)
{
    double t0 = olive_now();
    sim_weights_frame(o->wts, s, o->xfer);
    s->t.io += olive_now() - t0;
}

static void flush_frames(sim_output *o)
{
    for (int v = 0; v < OLIVE_NVARS + 8; v++) {
        if (v < OLIVE_NVARS && o->rep[v]) sim_report_flush(o->rep[v], o->frames_done, o->buffered, o->xfer);
        if (o->comp[v]) sim_report_flush(o->comp[v], o->frames_done, o->buffered, o->xfer);
    }
    o->frames_done += o->buffered;
    o->buffered = 0;
}

void sim_output_frame(sim_output *o, sim_t *s)
{
    double t0 = olive_now();
    for (int v = 0; v < OLIVE_NVARS + 8; v++) {
        if (v < OLIVE_NVARS && o->rep[v]) sim_report_frame(o->rep[v], s, o->buffered);
        if (o->comp[v]) sim_report_frame(o->comp[v], s, o->buffered);
    }
    if (++o->buffered == o->frame_chunk || o->frames_done + o->buffered == o->frames) flush_frames(o);
    s->t.io += olive_now() - t0;
}

/* Every rank's spikes on rank 0, in rank order (the order does not matter:
 * spike_split.c sorts them); NULL on the other ranks. Each thread's list is
 * sent point to point in pieces of at most 2^26 spikes, so that no count
 * outgrows MPI's int however many spikes a run has. */
static sim_spike *gather_spikes(sim_t *s, int64_t *n_out)
{
    const int64_t piece = INT64_C(1) << 26;
    int64_t n = 0, total = 0;
    for (int t = 0; t < s->nthreads; t++) n += s->tspike_n[t];
    int64_t *counts = s->rank == 0 ? olive_malloc((size_t)s->size * sizeof(int64_t), "spikes") : NULL;
    SIM_CHECK_MPI(MPI_Gather(&n, 1, MPI_INT64_T, counts, 1, MPI_INT64_T, 0, MPI_COMM_WORLD));
    MPI_Datatype spike;   /* sim_spike: two int64 */
    SIM_CHECK_MPI(MPI_Type_contiguous(2, MPI_INT64_T, &spike));
    SIM_CHECK_MPI(MPI_Type_commit(&spike));
    sim_spike *all = NULL;
    if (s->rank != 0) {
        for (int t = 0; t < s->nthreads; t++)
            for (int64_t i = 0; i < s->tspike_n[t]; i += piece) {
                const int64_t m = s->tspike_n[t] - i < piece ? s->tspike_n[t] - i : piece;
                SIM_CHECK_MPI(MPI_Send(s->tspikes[t] + i, (int)m, spike, 0, 7, MPI_COMM_WORLD));
            }
    } else {
        for (int q = 0; q < s->size; q++) total += counts[q];
        all = olive_malloc((size_t)total * sizeof(sim_spike) + 8, "spikes");
        int64_t at = 0;
        for (int t = 0; t < s->nthreads; t++) {
            if (s->tspike_n[t] > 0) memcpy(all + at, s->tspikes[t], (size_t)s->tspike_n[t] * sizeof(sim_spike));
            at += s->tspike_n[t];
        }
        for (int q = 1; q < s->size; q++)
            for (int64_t got = 0; got < counts[q];) {
                MPI_Status st;
                int m;
                SIM_CHECK_MPI(MPI_Probe(q, 7, MPI_COMM_WORLD, &st));
                SIM_CHECK_MPI(MPI_Get_count(&st, spike, &m));
                if (m <= 0 || m > counts[q] - got) olive_die("internal: rank %d sent %d spikes, %lld announced", q, m,
                                                             (long long)(counts[q] - got));
                SIM_CHECK_MPI(MPI_Recv(all + at, m, spike, q, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                at += m;
                got += m;
            }
    }
    SIM_CHECK_MPI(MPI_Type_free(&spike));
    free(counts);
    *n_out = total;
    return all;
}

/* /spikes/POP of population p: its n spikes, steps step[] and local node
 * ids id[] (sorted by time, then node: spike_split.c); its cell count and
 * first global id as the group's attributes `cells` and `first_cell`. */
static void write_pop_spikes(sim_t *s, const char *path, hid_t f, const sim_outpop *p, const int64_t *step,
                             const uint64_t *id, int64_t n)
{
    char grp[128];
    snprintf(grp, sizeof grp, "spikes/%s", p->name);
    hid_t g = olive_h5_group(path, f, grp);
    olive_sonata_sorting_write(path, g, OLIVE_SORTING_BY_TIME);
    olive_h5_attr_i64(path, g, "cells", p->count);
    olive_h5_attr_i64(path, g, "first_cell", p->first);
    double *ts = olive_malloc((size_t)n * sizeof(double) + 8, "spikes");
    for (int64_t i = 0; i < n; i++) ts[i] = (double)(step[i] + 1) * s->cfg->run.dt;
    hid_t d = olive_h5_dset1(path, g, "timestamps", H5T_IEEE_F64LE, n, n > 0 ? 65536 : 0);
    olive_h5_write_slab1(path, d, H5T_NATIVE_DOUBLE, 0, n, ts, H5P_DEFAULT);
    olive_h5_attr_str(path, d, "units", "ms");
    olive_h5_close(path, d, "dataset timestamps");
    d = olive_h5_dset1(path, g, "node_ids", H5T_STD_U64LE, n, n > 0 ? 65536 : 0);
    olive_h5_write_slab1(path, d, H5T_NATIVE_UINT64, 0, n, id, H5P_DEFAULT);
    olive_h5_close(path, d, "dataset node_ids");
    free(ts);
    olive_h5_close(path, g, "the spikes group");
}

static void write_spikes(sim_t *s, const sim_output *o)
{
    int64_t n;
    sim_spike *sp = gather_spikes(s, &n);
    if (s->rank == 0) {
        const char *path = o->path[SLOT_SPIKES];
        hid_t f = olive_h5_create(path);
        sim_spike_columns c;
        sim_spike_columns_make(s->cfg->rec.pops, s->cfg->rec.npops, sp, n, &c);   /* (takes sp) */
        for (int p = 0; p < s->cfg->rec.npops; p++)
            write_pop_spikes(s, path, f, &s->cfg->rec.pops[p], c.step + c.off[p], c.id + c.off[p], c.off[p + 1] - c.off[p]);
        sim_spike_columns_free(&c);
        sim_write_provenance(s, f, path);
        olive_h5_attr_i64(path, f, "spike_count", n);
        olive_h5_close_file(path, f);
    }
}

void sim_output_checkpoint_spikes(sim_output *o, sim_t *s, int64_t step)
{
    const int64_t end = s->end_step;
    s->end_step = step;   /* provenance: the file covers [start_step, step) */
    claim(o, s, SLOT_SPIKES);
    write_spikes(s, o);
    s->end_step = end;
    if (s->rank == 0) olive_atomic_commit(o->path[SLOT_SPIKES]);   /* flushed, then renamed */
}

void sim_write_state(sim_t *s, const char *path, int64_t step, const char *kind)
{
    hid_t f = olive_h5_create_par(path, MPI_COMM_WORLD);
    hid_t g = olive_h5_group(path, f, "state");
    hid_t ft = s->cfg->run.single ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, mt = s->cfg->run.single ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    hid_t xfer = olive_h5_xfer(MPI_COMM_WORLD);
    const size_t el = s->cfg->run.single ? 4 : 8;
    uint64_t part = 0;   /* this rank's rows of the datasets, for the checksum */
    for (int v = 0; v < s->cfg->run.model->nvars; v++) {
        hid_t d = olive_h5_dset1(path, g, s->cfg->run.model->var_names[v], ft, s->net.count, 0);
        olive_h5_write_slab1(path, d, mt, s->plan.row0, s->plan.nlocal, s->state[v], xfer);
        char name[64];
        snprintf(name, sizeof name, "state/%s", s->cfg->run.model->var_names[v]);
        part += sim_state_hash(name, s->plan.row0, s->plan.nlocal, s->state[v], el);
        olive_h5_attr_str(path, d, "units", s->cfg->run.model->var_units[v]);
        char what[64];
        snprintf(what, sizeof what, "dataset /state/%s", s->cfg->run.model->var_names[v]);
        olive_h5_close(path, d, what);
    }
    if (s->io.nz.on) {
        /* The OU current of the coming step: a restart continues it. */
        hid_t d = olive_h5_dset1(path, g, "i_noise", ft, s->net.count, 0);
        olive_h5_write_slab1(path, d, mt, s->plan.row0, s->plan.nlocal, s->io.noise, xfer);
        part += sim_state_hash("state/i_noise", s->plan.row0, s->plan.nlocal, s->io.noise, el);
        olive_h5_attr_str(path, d, "units", "uA/cm2");
        olive_h5_close(path, d, "dataset /state/i_noise");
    }
    if (s->spk) part += spk_write_in_flight(s, path, g, step, xfer);   /* what a restart must deliver */
    if (s->spk) part += spk_plastic_write(s, path, g, step, xfer);      /* plastic synapses' weights and states */
    if (s->spk && s->family->cells && s->family->cells->write_state)   /* cable cells: every compartment */
        part += s->family->cells->write_state(s, path, g, xfer);
    olive_h5_attr_i64(path, g, "step", step);
    olive_h5_attr_f64(path, g, "time_ms", (double)step * s->cfg->run.dt);
    olive_h5_attr_str(path, g, "precision", s->cfg->run.single ? "single" : "double");
    olive_h5_attr_str(path, g, "kind", kind);
    olive_h5_close(path, g, "group /state");
    int64_t end = s->end_step;
    s->end_step = step;
    sim_write_provenance(s, f, path);
    s->end_step = end;
    sim_state_seal(path, f, part);   /* last: it covers the attributes above */
    olive_h5_close(path, xfer, "a transfer property list");
    olive_h5_close_file(path, f);
}

void sim_output_close(sim_output *o, sim_t *s, int64_t end_step, const char *kind)
{
    double t0 = olive_now();
    const sim_config *c = s->cfg;
    s->end_step = end_step;
    /* Provenance carries the slowest rank's timings. */
    double mine[5] = {s->t.setup, s->t.exchange, s->t.compute, s->t.io, s->t.mpi}, mx[5];
    SIM_CHECK_MPI(MPI_Allreduce(mine, mx, 5, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    s->t.setup = mx[0]; s->t.exchange = mx[1]; s->t.compute = mx[2]; s->t.io = mx[3]; s->t.mpi = mx[4];
    /* Stopped early: the frames done, and the time axis to match. */
    int64_t frames = end_step / c->rec.every - c->run.start_step / c->rec.every;
    if (frames < o->frames && o->buffered > 0) flush_frames(o);
    for (int v = 0; v < OLIVE_NVARS + 8; v++) {
        if (v < OLIVE_NVARS && o->rep[v]) sim_report_close(o->rep[v], s, frames, frames < o->frames, o->xfer);
        if (o->comp[v]) sim_report_close(o->comp[v], s, frames, frames < o->frames, o->xfer);
        if (v < OLIVE_NVARS) o->rep[v] = NULL;
        o->comp[v] = NULL;
    }
    if (o->wts) sim_weights_close(o->wts, s, end_step, o->xfer);
    o->wts = NULL;
    if (!c->rec.no_spikes) {
        claim(o, s, SLOT_SPIKES);
        write_spikes(s, o);
    }
    sim_write_state(s, claim(o, s, SLOT_STATE), end_step, kind);
    olive_h5_close(o->in_place ? o->path[SLOT_STATE] : o->dir, o->xfer, "a transfer property list");
    o->xfer = H5P_DEFAULT;
    s->t.io += olive_now() - t0;
}

void sim_output_commit(sim_output *o, sim_t *s)
{
    if (s->rank == 0 && o->in_place)
        for (int v = 0; v < NSLOTS; v++)
            if ((v >= OLIVE_NVARS && (v != SLOT_WEIGHTS || s->cfg->rec.nweights)) ||
                (v < s->cfg->run.model->nvars && s->cfg->rec.vars[v]))
                olive_atomic_commit(o->path[v]);
    free(o);
}
