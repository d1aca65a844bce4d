/* weights.h5 (--record-weights; docs/FORMAT.md): the weights of chosen
 * plastic synapses every K steps, a SONATA-style element report whose
 * elements are synapses: per recorded projection /report/PROJ/data
 * [frames, synapses] and its mapping (the target cells as node_ids with
 * index_pointers, each synapse's index in the projection as element_ids,
 * its source cell as source_ids). A frame holds the weights state.h5 would
 * hold had the run stopped after that frame's step. Frames fall on the ends
 * of exchange windows (K a multiple of the least delay): there the CPU
 * engine has made every update of the spikes so far, and the CUDA engine,
 * which makes them as it sends a step's events, the same ones. */
#include "weights.h"
#include "h5util.h"
#include "plasticity_io.h"
#include "spk.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
    spk_weight_sel sel;
    char name[64];
    hid_t dset;
    int64_t ncol;          /* this rank's columns (sel.n), from column sel.e0 - first */
    int64_t first;         /* the first recorded synapse of the projection (A) */
    double *buf;           /* frame_chunk rows of ncol */
} wproj;

struct sim_weights {
    char path[4200];
    hid_t file;
    int np;
    wproj *p;
    int64_t every, frames, frame_chunk, frames_done, buffered;
    int grow;              /* an open horizon: the data grow with each flush */
};

static void write_u64(const char *path, hid_t g, const char *name, int64_t total, int64_t off, int64_t n,
                      const uint64_t *v, hid_t xfer)
{
    hid_t d = olive_h5_dset1(path, g, name, H5T_STD_U64LE, total, 0);
    olive_h5_write_slab1(path, d, H5T_NATIVE_UINT64, off, n, v, xfer);
    olive_h5_close(path, d, name);
}

/* mapping/: node_ids (the targets, global cell ids, each once: columns go
 * by target), index_pointers, element_ids, source_ids, time. */
static void write_mapping(sim_weights *w, sim_t *s, wproj *q, hid_t g, hid_t xfer)
{
    const char *path = w->path;
    const spk_weight_sel *sel = &q->sel;
    hid_t m = olive_h5_group(path, g, "mapping");
    int64_t nn = 0;   /* this rank's distinct targets */
    for (int64_t i = 0; i < sel->n; i++)
        if (i == 0 || sel->target[i] != sel->target[i - 1]) nn++;
    int64_t n0 = 0, ntot = 0, col0 = sel->e0 - q->first, ncols = 0;
    SIM_CHECK_MPI(MPI_Exscan(&nn, &n0, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    if (s->rank == 0) n0 = 0;
    SIM_CHECK_MPI(MPI_Allreduce(&nn, &ntot, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    SIM_CHECK_MPI(MPI_Allreduce(&sel->n, &ncols, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    uint64_t *ids = olive_malloc((size_t)(nn + 1) * sizeof(uint64_t), "weight report");
    uint64_t *ptr = olive_malloc((size_t)(nn + 1) * sizeof(uint64_t), "weight report");
    uint64_t *el = olive_malloc((size_t)(sel->n + 1) * sizeof(uint64_t), "weight report");
    uint64_t *src = olive_malloc((size_t)(sel->n + 1) * sizeof(uint64_t), "weight report");
    for (int64_t i = 0, c = 0; i < sel->n; i++) {
        if (i == 0 || sel->target[i] != sel->target[i - 1]) { ids[c] = (uint64_t)sel->target[i]; ptr[c++] = (uint64_t)(col0 + i); }
        el[i] = (uint64_t)(sel->e0 + i);
        src[i] = (uint64_t)sel->source[i];
    }
    ptr[nn] = (uint64_t)ncols;   /* the closing entry: written by the rank holding the last target */
    const int last = nn > 0 && n0 + nn == ntot;
    write_u64(path, m, "node_ids", ntot, n0, nn, ids, xfer);
    write_u64(path, m, "index_pointers", ntot + 1, n0, nn + last, ptr, xfer);
    write_u64(path, m, "element_ids", ncols, col0, sel->n, el, xfer);
    write_u64(path, m, "source_ids", ncols, col0, sel->n, src, xfer);
    free(ids); free(ptr); free(el); free(src);
    sim_report_time(s, path, m, q->name, w->frames, w->every, 1, xfer);
    olive_h5_close(path, m, "group mapping");
}

static void create_data(sim_weights *w, sim_t *s, wproj *q, hid_t g, int64_t ncols)
{
    const char *path = w->path;
    hsize_t ccols = (hsize_t)((4 << 20) / (8 * w->frame_chunk));
    if (ccols > (hsize_t)ncols) ccols = (hsize_t)ncols;
    if (ccols < 1) ccols = 1;
    /* a session with an open horizon: no frames yet, each flush grows it */
    hsize_t dims[2] = {s->cfg->run.open_ended ? 0 : (hsize_t)w->frames, (hsize_t)ncols}, chunk[2] = {(hsize_t)w->frame_chunk, ccols};
    hsize_t maxdims[2] = {w->frames > 0 ? H5S_UNLIMITED : 0, (hsize_t)ncols};   /* (cut to the frames done on a stop) */
    hid_t space = H5Screate_simple(2, dims, maxdims), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (space < 0 || dcpl < 0) olive_die("%s: cannot set up /report/%s/data", path, q->name);
    if (w->frames > 0 && (H5Pset_chunk(dcpl, 2, chunk) < 0 ||
                          (olive_h5_deflate > 0 && H5Pset_deflate(dcpl, (unsigned)olive_h5_deflate) < 0)))
        olive_die("%s: cannot set up the chunks of /report/%s/data", path, q->name);
    q->dset = H5Dcreate2(g, "data", H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (q->dset < 0) olive_die("%s: cannot create /report/%s/data (disk full?)", path, q->name);
    olive_h5_close(path, dcpl, "a dataset creation property list");
    olive_h5_close(path, space, "a dataspace");
    olive_h5_attr_str(path, q->dset, "units", s->cfg->run.model->weight_unit);
}

sim_weights *sim_weights_open(sim_t *s, const char *path, hid_t xfer)
{
    sim_config *c = s->cfg;
    if (!c->rec.nweights) return NULL;
    const struct sim_spk *k = s->spk;
    const int64_t window = k->zero_delay ? 1 : k->D;
    if (!c->rec.weights_every) c->rec.weights_every = window;
    if (c->rec.weights_every % window)
        olive_usage_error("--record-weights-every %lld: not a multiple of %s's exchange window, %d step(s) (its least "
                          "delay): a weight changes as its spike is exchanged, and only there do the CPU and CUDA "
                          "engines hold the same weights", (long long)c->rec.weights_every, c->run.net_path, (int)window);
    sim_weights *w = olive_calloc(1, sizeof *w, "weight report");
    snprintf(w->path, sizeof w->path, "%s", path);
    w->every = c->rec.weights_every;
    w->grow = c->run.open_ended;
    w->frames = c->run.steps / w->every - c->run.start_step / w->every;
    w->frame_chunk = w->frames < 64 ? (w->frames > 0 ? w->frames : 1) : 64;
    w->np = c->rec.nweights;
    w->p = olive_calloc((size_t)w->np, sizeof *w->p, "weight report");
    for (int i = 0; i < w->np; i++) {
        const sim_weightarg *a = &c->rec.weights[i];
        wproj *q = &w->p[i];
        const int fault = spk_plastic_select(s, a->proj, a->a, a->b, &q->sel);
        char names[1024];
        if (fault == -1)
            olive_usage_error("--record-weights %s: %s has no plastic projection %s (its plastic projections: %s)", a->arg,
                              c->run.net_path, a->proj, spk_plastic_names(s, names, sizeof names));
        if (fault == -2)
            olive_usage_error("--record-weights %s: projection %s of %s is static: its weights are the network file's",
                              a->arg, a->proj, c->run.net_path);
        if (fault == -3)
            olive_usage_error("--record-weights %s: projection %s of %s has %lld synapses (indices 0 .. %lld)", a->arg,
                              a->proj, c->run.net_path, (long long)q->sel.total, (long long)q->sel.total - 1);
        snprintf(q->name, sizeof q->name, "%s", a->proj);
        q->first = a->a;
        q->ncol = q->sel.n;
    }
    w->file = olive_h5_create_par(path, MPI_COMM_WORLD);
    hid_t top = olive_h5_group(path, w->file, "report");
    for (int i = 0; i < w->np; i++) {
        wproj *q = &w->p[i];
        hid_t g = olive_h5_group(path, top, q->name);
        const int64_t ncols = (c->rec.weights[i].b < 0 ? q->sel.total : c->rec.weights[i].b) - q->first;
        olive_h5_attr_str(path, g, "plasticity", olive_plast_rule_name(q->sel.rule));
        olive_h5_attr_i64(path, g, "synapses", q->sel.total);
        create_data(w, s, q, g, ncols);
        write_mapping(w, s, q, g, xfer);
        olive_h5_close(path, g, "a group of /report");
        q->buf = olive_malloc((size_t)(w->frame_chunk * q->ncol) * sizeof(double) + 8, "weight report");
    }
    olive_h5_close(path, top, "group /report");
    return w;
}

static void flush(sim_weights *w, hid_t xfer)
{
    for (int i = 0; i < w->np; i++) {
        const wproj *q = &w->p[i];
        if (w->grow) {   /* (collective: every rank flushes the same frames) */
            hsize_t dims[2];
            hid_t sp = H5Dget_space(q->dset);
            if (sp < 0 || H5Sget_simple_extent_dims(sp, dims, NULL) != 2) olive_die("%s: cannot read a report's extent", w->path);
            olive_h5_close(w->path, sp, "a dataspace");
            dims[0] = (hsize_t)(w->frames_done + w->buffered);
            if (H5Dset_extent(q->dset, dims) < 0) olive_die("%s: cannot grow the report to %lld frames", w->path, (long long)dims[0]);
        }
        hid_t fs = H5Dget_space(q->dset);
        hsize_t off[2] = {(hsize_t)w->frames_done, (hsize_t)(q->sel.e0 - q->first)}, cnt[2] = {(hsize_t)w->buffered, (hsize_t)q->ncol};
        hid_t ms = H5Screate_simple(2, cnt, NULL);
        if (fs < 0 || ms < 0) olive_die("%s: cannot set up the write of frames", w->path);
        herr_t sel = q->ncol > 0 ? H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL)
                                 : (H5Sselect_none(fs) < 0 ? -1 : H5Sselect_none(ms));
        if (sel < 0) olive_die("%s: cannot select the frames to write", w->path);
        if (H5Dwrite(q->dset, H5T_NATIVE_DOUBLE, ms, fs, xfer, q->buf) < 0)
            olive_die("%s: writing the weights of projection %s failed (disk full?)", w->path, q->name);
        olive_h5_close(w->path, ms, "a dataspace");
        olive_h5_close(w->path, fs, "a dataspace");
    }
    w->frames_done += w->buffered;
    w->buffered = 0;
}

void sim_weights_frame(sim_weights *w, sim_t *s, hid_t xfer)
{
    for (int i = 0; i < w->np; i++) {
        wproj *q = &w->p[i];
        double *row = q->buf + w->buffered * q->ncol;
        if (s->engine->weights) s->engine->weights(s, q->sel.x, q->ncol, row);
        else
            for (int64_t j = 0; j < q->ncol; j++) row[j] = s->spk->out[q->sel.x[j]].w;
    }
    if (++w->buffered == w->frame_chunk || w->frames_done + w->buffered == w->frames) flush(w, xfer);
}

void sim_weights_close(sim_weights *w, sim_t *s, int64_t end_step, hid_t xfer)
{
    const int64_t frames = end_step / w->every - s->cfg->run.start_step / w->every;
    if (w->buffered > 0) flush(w, xfer);
    for (int i = 0; i < w->np; i++) {
        wproj *q = &w->p[i];
        if (frames < w->frames) {   /* stopped early: the frames done, and the time axis to match */
            hsize_t dims[2] = {(hsize_t)frames, 0};
            hid_t fs = H5Dget_space(q->dset);
            if (fs < 0 || H5Sget_simple_extent_dims(fs, dims, NULL) != 2) olive_die("%s: cannot read a report's extent", w->path);
            olive_h5_close(w->path, fs, "a dataspace");
            dims[0] = (hsize_t)frames;
            if (H5Dset_extent(q->dset, dims) < 0) olive_die("%s: cannot cut the report to %lld frames", w->path, (long long)frames);
            sim_report_time(s, w->path, w->file, q->name, frames, w->every, 0, xfer);
        }
        olive_h5_close(w->path, q->dset, "the weights' data");
        free(q->buf);
        free(q->sel.x); free(q->sel.target); free(q->sel.source);
    }
    sim_write_provenance(s, w->file, w->path);
    olive_h5_close_file(w->path, w->file);
    free(w->p);
    free(w);
}
