/* Simulation output in SONATA layout (docs/FORMAT.md): one report file per
 * recorded variable written collectively frame block by frame block, the
 * spikes gathered to rank 0, the final state, provenance on every file. */
#include "sim.h"
#include "spk.h"
#include "output_elements.h"
#include "h5util.h"
#include "model.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

/* Files: the reports (slot v of a recorded variable), spikes, state. */
#define SLOT_SPIKES OLIVE_NVARS
#define SLOT_STATE (OLIVE_NVARS + 1)
#define NSLOTS (OLIVE_NVARS + 2)

struct sim_output {
    char dir[4096];
    int in_place;              /* checkpoint mode: each file claimed on its own in dir */
    char path[NSLOTS][4096];   /* where each file is written */
    int64_t frames, frame_chunk, frames_done, buffered;
    int64_t nrec, col0, ncol, lrec0;  /* all recorded cells; this rank's columns and first local row */
    hid_t file[OLIVE_NVARS], dset[OLIVE_NVARS];
    void *buf[OLIVE_NVARS];
    size_t el;
    hid_t xfer;
    const olive_cell_model *model;
    sim_elements *elem;        /* --record-compartments (output_elements.c), or NULL */
};

static const char *slot_name(const sim_output *o, int slot, char *buf, size_t n)
{
    snprintf(buf, n, "%s.h5", slot < OLIVE_NVARS ? o->model->var_names[slot] : slot == SLOT_SPIKES ? "spikes" : "state");
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
    o->nrec = c->rec.last - c->rec.first;
    int64_t a = c->rec.first > s->plan.row0 ? c->rec.first : s->plan.row0;
    int64_t b = c->rec.last < s->plan.row1 ? c->rec.last : s->plan.row1;
    o->ncol = b > a ? b - a : 0;
    o->col0 = b > a ? a - c->rec.first : 0;
    o->lrec0 = b > a ? a - s->plan.row0 : 0;
    o->el = c->rec.as_double ? sizeof(double) : sizeof(float);
    o->xfer = olive_h5_xfer(MPI_COMM_WORLD);
    /* Chunks of up to 64 frames and ~4 MiB; frames are buffered a chunk row at a time. */
    o->frame_chunk = o->frames < 64 ? (o->frames > 0 ? o->frames : 1) : 64;
    int64_t ccols = (int64_t)(4 << 20) / ((int64_t)o->el * o->frame_chunk);
    if (ccols > o->nrec) ccols = o->nrec;
    if (ccols < 1) ccols = 1;
    hid_t ftype = c->rec.as_double ? H5T_IEEE_F64LE : H5T_IEEE_F32LE;
    for (int v = 0; v < s->cfg->run.model->nvars; v++) {
        if (!c->rec.vars[v]) continue;
        const char *path = claim(o, s, v);
        hid_t f = o->file[v] = olive_h5_create_par(path, MPI_COMM_WORLD);
        char grp[128];
        snprintf(grp, sizeof grp, "report/%s", c->rec.population);
        hid_t g = olive_h5_group(path, f, grp);
        hsize_t dims[2] = {(hsize_t)o->frames, (hsize_t)o->nrec}, chunk[2] = {(hsize_t)o->frame_chunk, (hsize_t)ccols};
        /* Extendible in frames, so a run stopped by a signal can cut the reports to the frames done. */
        hsize_t maxdims[2] = {o->frames > 0 ? H5S_UNLIMITED : 0, (hsize_t)o->nrec};
        hid_t space = H5Screate_simple(2, dims, maxdims);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        if (space < 0 || dcpl < 0) olive_die("%s: cannot set up /%s/data", path, grp);
        if (o->frames > 0 && (H5Pset_chunk(dcpl, 2, chunk) < 0 ||
                              (olive_h5_deflate > 0 && H5Pset_deflate(dcpl, (unsigned)olive_h5_deflate) < 0)))
            olive_die("%s: cannot set up the chunks of /%s/data", path, grp);
        o->dset[v] = H5Dcreate2(g, "data", ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        if (o->dset[v] < 0) olive_die("%s: cannot create /%s/data (disk full?)", path, grp);
        olive_h5_close(path, dcpl, "a dataset creation property list");
        olive_h5_close(path, space, "a dataspace");
        olive_h5_attr_str(path, o->dset[v], "units", s->cfg->run.model->var_units[v]);
        hid_t m = olive_h5_group(path, g, "mapping");
        hid_t d_ids = olive_h5_dset1(path, m, "node_ids", H5T_STD_U64LE, o->nrec, 0);
        hid_t d_ptr = olive_h5_dset1(path, m, "index_pointers", H5T_STD_U64LE, o->nrec + 1, 0);
        /* bmtk's CompartmentReport reads the singular name: one dataset, two links. */
        if (H5Lcreate_hard(m, "index_pointers", m, "index_pointer", H5P_DEFAULT, H5P_DEFAULT) < 0)
            olive_die("%s: cannot link /%s/mapping/index_pointer", path, grp);
        hid_t d_el = olive_h5_dset1(path, m, "element_ids", H5T_STD_U32LE, o->nrec, 0);
        /* bmtk also wants each element's position along its section: every
         * recorded value is a whole compartment, its middle is 0.5. */
        hid_t d_pos = olive_h5_dset1(path, m, "element_pos", H5T_IEEE_F32LE, o->nrec, 0);
        uint64_t *ids = olive_malloc((size_t)(o->ncol + 1) * sizeof(uint64_t), "mapping");
        uint32_t *zeros = olive_calloc((size_t)o->ncol + 1, sizeof(uint32_t), "mapping");
        for (int64_t i = 0; i <= o->ncol; i++) ids[i] = (uint64_t)(c->rec.first + o->col0 + i);
        olive_h5_write_slab1(path, d_ids, H5T_NATIVE_UINT64, o->col0, o->ncol, ids, o->xfer);
        for (int64_t i = 0; i <= o->ncol; i++) ids[i] = (uint64_t)(o->col0 + i);
        /* index_pointers has one more entry: the rank holding the last column writes it. */
        int64_t nptr = o->ncol + (o->ncol > 0 && o->col0 + o->ncol == o->nrec ? 1 : 0);
        olive_h5_write_slab1(path, d_ptr, H5T_NATIVE_UINT64, o->col0, nptr, ids, o->xfer);
        olive_h5_write_slab1(path, d_el, H5T_NATIVE_UINT32, o->col0, o->ncol, zeros, o->xfer);
        float *half = olive_malloc((size_t)(o->ncol + 1) * sizeof(float), "mapping");
        for (int64_t i = 0; i <= o->ncol; i++) half[i] = 0.5f;
        olive_h5_write_slab1(path, d_pos, H5T_NATIVE_FLOAT, o->col0, o->ncol, half, o->xfer);
        free(half);
        free(ids);
        free(zeros);
        sim_report_time(s, path, m, o->frames, 1, o->xfer);
        olive_h5_close(path, d_ids, "mapping/node_ids");
        olive_h5_close(path, d_ptr, "mapping/index_pointers");
        olive_h5_close(path, d_el, "mapping/element_ids");
        olive_h5_close(path, d_pos, "mapping/element_pos");
        olive_h5_close(path, m, "group mapping");
        olive_h5_close(path, g, "the report group");
        o->buf[v] = olive_malloc((size_t)(o->frame_chunk * o->ncol) * o->el + o->el, "frame buffer");
    }
    if (c->rec.ncomp_vars && in_place) olive_die("internal: compartment reports in checkpoint mode");
    o->elem = sim_elements_open(s, dir, o->frames, o->frame_chunk, o->lrec0, o->ncol, o->col0, o->nrec, o->xfer);
    return o;
}

static void flush_frames(sim_output *o, sim_t *s)
{
    for (int v = 0; v < s->cfg->run.model->nvars; v++) {
        if (!s->cfg->rec.vars[v]) continue;
        const char *path = o->path[v];
        hid_t fs = H5Dget_space(o->dset[v]);
        hsize_t off[2] = {(hsize_t)o->frames_done, (hsize_t)o->col0}, cnt[2] = {(hsize_t)o->buffered, (hsize_t)o->ncol};
        hid_t ms = H5Screate_simple(2, cnt, NULL);
        if (fs < 0 || ms < 0) olive_die("%s: cannot set up the write of frames", path);
        herr_t sel = o->ncol > 0 ? H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL)
                                 : (H5Sselect_none(fs) < 0 ? -1 : H5Sselect_none(ms));
        if (sel < 0) olive_die("%s: cannot select the frames to write", path);
        hid_t mt = s->cfg->rec.as_double ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
        if (H5Dwrite(o->dset[v], mt, ms, fs, o->xfer, o->buf[v]) < 0)
            olive_die("%s: writing the %s report failed (disk full?)", path, s->cfg->run.model->var_names[v]);
        olive_h5_close(path, ms, "a dataspace");
        olive_h5_close(path, fs, "a dataspace");
    }
    sim_elements_flush(o->elem, s, o->frames_done, o->buffered, o->xfer);
    o->frames_done += o->buffered;
    o->buffered = 0;
}

void sim_output_frame(sim_output *o, sim_t *s)
{
    double t0 = olive_now();
    for (int v = 0; v < s->cfg->run.model->nvars; v++) {
        if (!s->cfg->rec.vars[v]) continue;
        char *dst = (char *)o->buf[v] + (size_t)(o->buffered * o->ncol) * o->el;
        for (int64_t i = 0; i < o->ncol; i++) {
            double x = s->cfg->run.single ? (double)((float *)s->state[v])[o->lrec0 + i] : ((double *)s->state[v])[o->lrec0 + i];
            if (s->cfg->rec.as_double) ((double *)dst)[i] = x; else ((float *)dst)[i] = (float)x;
        }
    }
    sim_elements_frame(o->elem, s, o->buffered);
    if (++o->buffered == o->frame_chunk || o->frames_done + o->buffered == o->frames) flush_frames(o, s);
    s->t.io += olive_now() - t0;
}

static int cmp_spike(const void *a, const void *b)
{
    const sim_spike *x = a, *y = b;
    if (x->step != y->step) return x->step < y->step ? -1 : 1;
    return (x->cell > y->cell) - (x->cell < y->cell);
}

/* Gather every rank's spikes on rank 0, sorted by time then cell. */
static sim_spike *gather_spikes(sim_t *s, int64_t *n_out)
{
    int64_t n = 0;
    for (int t = 0; t < s->nthreads; t++) n += s->tspike_n[t];
    int64_t *mine = olive_malloc((size_t)(2 * n) * sizeof(int64_t) + 8, "spikes");
    int64_t k = 0;
    for (int t = 0; t < s->nthreads; t++)
        for (int64_t i = 0; i < s->tspike_n[t]; i++) { mine[k++] = s->tspikes[t][i].step; mine[k++] = s->tspikes[t][i].cell; }
    int cnt = (int)(2 * n);
    if ((int64_t)cnt != 2 * n) olive_die("too many spikes on rank %d to gather", s->rank);
    int *counts = NULL, *displs = NULL;
    int64_t total = 0;
    if (s->rank == 0) {
        counts = olive_malloc((size_t)s->size * sizeof(int), "spikes");
        displs = olive_malloc((size_t)s->size * sizeof(int), "spikes");
    }
    SIM_CHECK_MPI(MPI_Gather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (s->rank == 0)
        for (int q = 0; q < s->size; q++) { displs[q] = (int)total; total += counts[q]; }
    int64_t *all = olive_malloc((size_t)total * sizeof(int64_t) + 8, "spikes");
    SIM_CHECK_MPI(MPI_Gatherv(mine, cnt, MPI_INT64_T, all, counts, displs, MPI_INT64_T, 0, MPI_COMM_WORLD));
    free(mine);
    free(counts);
    free(displs);
    sim_spike *sp = olive_malloc((size_t)(total / 2) * sizeof(sim_spike) + 8, "spikes");
    for (int64_t i = 0; i < total / 2; i++) sp[i] = (sim_spike){all[2 * i], all[2 * i + 1]};
    free(all);
    qsort(sp, (size_t)(total / 2), sizeof *sp, cmp_spike);
    *n_out = total / 2;
    return sp;
}

static void write_spikes(sim_t *s, const sim_output *o)
{
    int64_t n;
    sim_spike *sp = gather_spikes(s, &n);
    if (s->rank == 0) {
        char grp[128];
        const char *path = o->path[SLOT_SPIKES];
        hid_t f = olive_h5_create(path);
        snprintf(grp, sizeof grp, "spikes/%s", s->cfg->rec.population);
        hid_t g = olive_h5_group(path, f, grp);
        olive_sonata_sorting_write(path, g, OLIVE_SORTING_BY_TIME);
        double *ts = olive_malloc((size_t)n * sizeof(double) + 8, "spikes");
        uint64_t *ids = olive_malloc((size_t)n * sizeof(uint64_t) + 8, "spikes");
        for (int64_t i = 0; i < n; i++) { ts[i] = (double)(sp[i].step + 1) * s->cfg->run.dt; ids[i] = (uint64_t)sp[i].cell; }
        hid_t d = olive_h5_dset1(path, g, "timestamps", H5T_IEEE_F64LE, n, n > 0 ? 65536 : 0);
        olive_h5_write_slab1(path, d, H5T_NATIVE_DOUBLE, 0, n, ts, H5P_DEFAULT);
        olive_h5_attr_str(path, d, "units", "ms");
        olive_h5_close(path, d, "dataset timestamps");
        d = olive_h5_dset1(path, g, "node_ids", H5T_STD_U64LE, n, n > 0 ? 65536 : 0);
        olive_h5_write_slab1(path, d, H5T_NATIVE_UINT64, 0, n, ids, H5P_DEFAULT);
        olive_h5_close(path, d, "dataset node_ids");
        free(ts);
        free(ids);
        olive_h5_close(path, g, "the spikes group");
        sim_write_provenance(s, f, path);
        olive_h5_attr_i64(path, f, "spike_count", n);
        olive_h5_close_file(path, f);
    }
    free(sp);
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
    if (s->nz.on) {
        /* The OU current of the coming step: a restart continues it. */
        hid_t d = olive_h5_dset1(path, g, "i_noise", ft, s->net.count, 0);
        olive_h5_write_slab1(path, d, mt, s->plan.row0, s->plan.nlocal, s->noise, xfer);
        part += sim_state_hash("state/i_noise", s->plan.row0, s->plan.nlocal, s->noise, el);
        olive_h5_attr_str(path, d, "units", "uA/cm2");
        olive_h5_close(path, d, "dataset /state/i_noise");
    }
    if (s->spk) part += spk_write_in_flight(s, path, g, step, xfer);   /* what a restart must deliver */
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
    sim_config *c = s->cfg;
    s->end_step = end_step;
    /* Provenance carries the slowest rank's timings. */
    double mine[5] = {s->t.setup, s->t.exchange, s->t.compute, s->t.io, s->t.mpi}, mx[5];
    SIM_CHECK_MPI(MPI_Allreduce(mine, mx, 5, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    s->t.setup = mx[0]; s->t.exchange = mx[1]; s->t.compute = mx[2]; s->t.io = mx[3]; s->t.mpi = mx[4];
    /* Stopped early: the frames done, and the time axis to match. */
    int64_t frames = end_step / c->rec.every - c->run.start_step / c->rec.every;
    if (frames < o->frames && o->buffered > 0) flush_frames(o, s);
    for (int v = 0; v < s->cfg->run.model->nvars; v++) {
        if (!c->rec.vars[v]) continue;
        const char *path = o->path[v];
        if (frames < o->frames) {
            hsize_t dims[2] = {(hsize_t)frames, (hsize_t)o->nrec};
            if (H5Dset_extent(o->dset[v], dims) < 0) olive_die("%s: cannot cut the report to %lld frames", path, (long long)frames);
            sim_report_time(s, path, o->file[v], frames, 0, o->xfer);
        }
        sim_write_provenance(s, o->file[v], path);
        olive_h5_close(path, o->dset[v], "the report data");
        olive_h5_close_file(path, o->file[v]);
        free(o->buf[v]);
        o->buf[v] = NULL;
    }
    sim_elements_close(o->elem, s, frames, frames < o->frames, o->xfer);
    o->elem = NULL;
    claim(o, s, SLOT_SPIKES);
    write_spikes(s, o);
    sim_write_state(s, claim(o, s, SLOT_STATE), end_step, kind);
    olive_h5_close(o->in_place ? o->path[SLOT_STATE] : o->dir, o->xfer, "a transfer property list");
    o->xfer = H5P_DEFAULT;
    s->t.io += olive_now() - t0;
}

void sim_output_commit(sim_output *o, sim_t *s)
{
    if (s->rank == 0 && o->in_place)
        for (int v = 0; v < NSLOTS; v++)
            if (v >= OLIVE_NVARS || (v < s->cfg->run.model->nvars && s->cfg->rec.vars[v])) olive_atomic_commit(o->path[v]);
    free(o);
}
