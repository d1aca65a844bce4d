/* SONATA reports (report.h): per population a dataset [frames, columns]
 * and its mapping. A compartment report of cable cells has one column per
 * compartment of each recorded cell, element_ids = the section index and
 * element_pos = the compartment's centre along it, as NEURON's reports in
 * bmtk; a per-cell report one column per cell (element 0 at 0.5). */
#include "report.h"
#include "h5util.h"
#include "spk.h"
#include "spk_cable.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

/* The recorded cells of one population. */
typedef struct {
    const sim_outpop *pop;
    hid_t dset;
    int64_t nrec, cell0, ncells;      /* its recorded cells; this rank's: the cell0-th on, ncells of them */
    int64_t ntotal, col0, ncol;       /* columns: all; this rank's first and count */
    int64_t (*rows)[2];               /* this rank's recorded cells: local row ranges */
    int nrows;
    void *buf;                        /* frame_chunk rows of ncol values */
} rep_block;

struct sim_report {
    int var, compartments, nb;
    int grow;                         /* an open horizon: the data grow with each flush */
    char path[4200];
    hid_t file;
    rep_block *b;
    size_t el;
    int64_t frame_chunk;
    double *row;                      /* a cell's compartment values */
};

static int cell_columns(const sim_report *r, const sim_t *s, int64_t row)
{
    return r->compartments ? spk_cable_nelements(s, row) : 1;
}

/* Which of population p's cells this rank records, and their columns. */
static void block_cells(sim_report *r, sim_t *s, rep_block *b, int *maxel)
{
    const sim_cellset *set = &s->cfg->rec.cells[r->var < OLIVE_NVARS ? r->var : 0];   /* (NMODL variables: v's cells) */
    const int64_t pf = b->pop->first, pl = pf + b->pop->count;
    const int64_t a = pf > s->plan.row0 ? pf : s->plan.row0, z = pl < s->plan.row1 ? pl : s->plan.row1;
    b->nrec = sim_cellset_count(set, pf, pl);
    if (z > a) {
        b->nrows = sim_cellset_slice(set, a, z, &b->rows);
        b->cell0 = sim_cellset_count(set, pf, a);
    }
    for (int i = 0; i < b->nrows; i++) {
        b->rows[i][0] += a - s->plan.row0;
        b->rows[i][1] += a - s->plan.row0;
        b->ncells += b->rows[i][1] - b->rows[i][0];
        for (int64_t q = b->rows[i][0]; q < b->rows[i][1]; q++) {
            const int k = cell_columns(r, s, q);
            b->ncol += k;
            if (k > *maxel) *maxel = k;
        }
    }
    if (!r->compartments) { b->ntotal = b->nrec; b->col0 = b->cell0; return; }
    SIM_CHECK_MPI(MPI_Exscan(&b->ncol, &b->col0, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    if (s->rank == 0) b->col0 = 0;
    SIM_CHECK_MPI(MPI_Allreduce(&b->ncol, &b->ntotal, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
}

static void create_data(sim_report *r, sim_t *s, rep_block *b, hid_t g, const char *grp, int64_t frames)
{
    const char *path = r->path;
    hsize_t ccols = (hsize_t)((4 << 20) / ((int64_t)r->el * r->frame_chunk));
    if (ccols > (hsize_t)b->ntotal) ccols = (hsize_t)b->ntotal;
    if (ccols < 1) ccols = 1;
    /* a session with an open horizon: no frames yet, each flush grows it (sim_report_flush) */
    const hsize_t now = s->cfg->run.open_ended ? 0 : (hsize_t)frames;
    hsize_t dims[2] = {now, (hsize_t)b->ntotal}, chunk[2] = {(hsize_t)r->frame_chunk, ccols};
    /* Extendible in frames, so a run stopped by a signal can cut the reports to the frames done. */
    hsize_t maxdims[2] = {frames > 0 ? H5S_UNLIMITED : 0, (hsize_t)b->ntotal};
    hid_t space = H5Screate_simple(2, dims, maxdims), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (space < 0 || dcpl < 0) olive_die("%s: cannot set up /%s/data", path, grp);
    if (frames > 0 && (H5Pset_chunk(dcpl, 2, chunk) < 0 ||
                       (olive_h5_deflate > 0 && H5Pset_deflate(dcpl, (unsigned)olive_h5_deflate) < 0)))
        olive_die("%s: cannot set up the chunks of /%s/data", path, grp);
    hid_t ftype = r->el == sizeof(double) ? H5T_IEEE_F64LE : H5T_IEEE_F32LE;
    b->dset = H5Dcreate2(g, "data", ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (b->dset < 0) olive_die("%s: cannot create /%s/data (disk full?)", path, grp);
    olive_h5_close(path, dcpl, "a dataset creation property list");
    olive_h5_close(path, space, "a dataspace");
    olive_h5_attr_str(path, b->dset, "units",
                      r->var < OLIVE_NVARS ? s->cfg->run.model->var_units[r->var] : spk_cable_mech_var_unit(s, r->var - OLIVE_NVARS));
}

/* mapping/: node ids (local to the population), index pointers, elements, time. */
static void write_mapping(sim_report *r, sim_t *s, rep_block *b, hid_t g, const char *grp, int64_t frames, hid_t xfer)
{
    const char *path = r->path;
    hid_t m = olive_h5_group(path, g, "mapping");
    hid_t d_ids = olive_h5_dset1(path, m, "node_ids", H5T_STD_U64LE, b->nrec, 0);
    hid_t d_ptr = olive_h5_dset1(path, m, "index_pointers", H5T_STD_U64LE, b->nrec + 1, 0);
    /* bmtk's CompartmentReport reads the singular name: one dataset, two links. */
    if (H5Lcreate_hard(m, "index_pointers", m, "index_pointer", H5P_DEFAULT, H5P_DEFAULT) < 0)
        olive_die("%s: cannot link /%s/mapping/index_pointer", path, grp);
    hid_t d_el = olive_h5_dset1(path, m, "element_ids", H5T_STD_U32LE, b->ntotal, 0);
    hid_t d_pos = olive_h5_dset1(path, m, "element_pos", H5T_IEEE_F32LE, b->ntotal, 0);
    uint64_t *ids = olive_malloc((size_t)(b->ncells + 1) * sizeof(uint64_t), "mapping");
    uint64_t *ptr = olive_malloc((size_t)(b->ncells + 1) * sizeof(uint64_t), "mapping");
    uint32_t *sec = olive_calloc((size_t)b->ncol + 1, sizeof(uint32_t), "mapping");
    float *pos = olive_malloc((size_t)(b->ncol + 1) * sizeof(float), "mapping");
    int64_t at = 0, c = 0;
    for (int i = 0; i < b->nrows; i++)
        for (int64_t q = b->rows[i][0]; q < b->rows[i][1]; q++, c++) {
            ids[c] = (uint64_t)(s->plan.row0 + q - b->pop->first);
            ptr[c] = (uint64_t)(b->col0 + at);
            const int k = cell_columns(r, s, q);
            for (int e = 0; e < k; e++, at++) {
                if (r->compartments) spk_cable_element(s, q, e, &sec[at], &pos[at]);
                else pos[at] = 0.5f;   /* bmtk reads each value's position: a whole compartment, its middle */
            }
        }
    ptr[c] = (uint64_t)b->ntotal;   /* the last entry: written by the rank holding the last cell */
    const int64_t nptr = b->ncells + (b->ncells > 0 && b->cell0 + b->ncells == b->nrec ? 1 : 0);
    olive_h5_write_slab1(path, d_ids, H5T_NATIVE_UINT64, b->cell0, b->ncells, ids, xfer);
    olive_h5_write_slab1(path, d_ptr, H5T_NATIVE_UINT64, b->cell0, nptr, ptr, xfer);
    olive_h5_write_slab1(path, d_el, H5T_NATIVE_UINT32, b->col0, b->ncol, sec, xfer);
    olive_h5_write_slab1(path, d_pos, H5T_NATIVE_FLOAT, b->col0, b->ncol, pos, xfer);
    free(ids); free(ptr); free(sec); free(pos);
    sim_report_time(s, path, m, b->pop->name, frames, s->cfg->rec.every, 1, xfer);
    olive_h5_close(path, d_ids, "mapping/node_ids");
    olive_h5_close(path, d_ptr, "mapping/index_pointers");
    olive_h5_close(path, d_el, "mapping/element_ids");
    olive_h5_close(path, d_pos, "mapping/element_pos");
    olive_h5_close(path, m, "group mapping");
}

sim_report *sim_report_open(sim_t *s, const char *path, int var, int compartments, int64_t frames, int64_t frame_chunk,
                            hid_t xfer)
{
    const sim_config *c = s->cfg;
    sim_report *r = olive_calloc(1, sizeof *r, "report");
    r->var = var;
    r->compartments = compartments;
    r->grow = c->run.open_ended;
    r->frame_chunk = frame_chunk;
    r->el = c->rec.as_double ? sizeof(double) : sizeof(float);
    snprintf(r->path, sizeof r->path, "%s", path);
    r->file = olive_h5_create_par(path, MPI_COMM_WORLD);
    r->b = olive_calloc((size_t)c->rec.npops, sizeof *r->b, "report");
    int maxel = 1;
    for (int p = 0; p < c->rec.npops; p++) {
        rep_block *b = &r->b[r->nb];
        b->pop = &c->rec.pops[p];
        block_cells(r, s, b, &maxel);
        if (b->nrec == 0) { free(b->rows); memset(b, 0, sizeof *b); continue; }   /* no group: none recorded */
        r->nb++;
        char grp[128];
        snprintf(grp, sizeof grp, "report/%s", b->pop->name);
        hid_t g = olive_h5_group(path, r->file, grp);
        create_data(r, s, b, g, grp, frames);
        write_mapping(r, s, b, g, grp, frames, xfer);
        olive_h5_close(path, g, "the report group");
        b->buf = olive_malloc((size_t)(frame_chunk * b->ncol) * r->el + r->el, "frame buffer");
    }
    r->row = olive_malloc((size_t)maxel * sizeof(double), "report");
    return r;
}

static void put(const sim_report *r, void *dst, int64_t at, double x)
{
    if (r->el == sizeof(double)) ((double *)dst)[at] = x; else ((float *)dst)[at] = (float)x;
}

void sim_report_frame(sim_report *r, sim_t *s, int64_t buffered)
{
    const int single = s->cfg->run.single;
    for (int j = 0; j < r->nb; j++) {
        const rep_block *b = &r->b[j];
        char *dst = (char *)b->buf + (size_t)(buffered * b->ncol) * r->el;
        int64_t at = 0;
        for (int i = 0; i < b->nrows; i++)
            for (int64_t q = b->rows[i][0]; q < b->rows[i][1]; q++) {
                if (!r->compartments) {
                    put(r, dst, at++, single ? (double)((float *)s->state[r->var])[q] : ((double *)s->state[r->var])[q]);
                    continue;
                }
                const int k = spk_cable_nelements(s, q);
                spk_cable_element_values(s, r->var, q, r->row);
                for (int e = 0; e < k; e++) put(r, dst, at++, r->row[e]);
            }
    }
}

void sim_report_flush(sim_report *r, int64_t frames_done, int64_t buffered, hid_t xfer)
{
    const char *path = r->path;
    for (int j = 0; j < r->nb; j++) {
        const rep_block *b = &r->b[j];
        if (r->grow) {   /* (collective: every rank flushes the same frames) */
            hsize_t dims[2] = {(hsize_t)(frames_done + buffered), (hsize_t)b->ntotal};
            if (H5Dset_extent(b->dset, dims) < 0) olive_die("%s: cannot grow the report to %lld frames", path, (long long)dims[0]);
        }
        hid_t fs = H5Dget_space(b->dset);
        hsize_t off[2] = {(hsize_t)frames_done, (hsize_t)b->col0}, cnt[2] = {(hsize_t)buffered, (hsize_t)b->ncol};
        hid_t ms = H5Screate_simple(2, cnt, NULL);
        if (fs < 0 || ms < 0) olive_die("%s: cannot set up the write of frames", path);
        herr_t sel = b->ncol > 0 ? H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL)
                                 : (H5Sselect_none(fs) < 0 ? -1 : H5Sselect_none(ms));
        if (sel < 0) olive_die("%s: cannot select the frames to write", path);
        hid_t mt = r->el == sizeof(double) ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
        if (H5Dwrite(b->dset, mt, ms, fs, xfer, b->buf) < 0)
            olive_die("%s: writing the report of population %s failed (disk full?)", path, b->pop->name);
        olive_h5_close(path, ms, "a dataspace");
        olive_h5_close(path, fs, "a dataspace");
    }
}

void sim_report_close(sim_report *r, sim_t *s, int64_t frames, int cut, hid_t xfer)
{
    const char *path = r->path;
    for (int j = 0; j < r->nb; j++) {
        rep_block *b = &r->b[j];
        if (cut) {   /* stopped early: the frames done, and the time axis to match */
            hsize_t dims[2] = {(hsize_t)frames, (hsize_t)b->ntotal};
            if (H5Dset_extent(b->dset, dims) < 0) olive_die("%s: cannot cut the report to %lld frames", path, (long long)frames);
            sim_report_time(s, path, r->file, b->pop->name, frames, s->cfg->rec.every, 0, xfer);
        }
        olive_h5_close(path, b->dset, "the report data");
        free(b->buf);
        free(b->rows);
    }
    sim_write_provenance(s, r->file, path);
    olive_h5_close_file(path, r->file);
    free(r->b);
    free(r->row);
    free(r);
}
