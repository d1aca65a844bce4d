/* Element reports of cable cells (--record-compartments; docs/FORMAT.md):
 * <var>_compartments.h5, a SONATA compartment report with one column per
 * compartment of every recorded cell, element_ids = the section index and
 * element_pos = the compartment's centre along it, as NEURON's reports in
 * bmtk. Written collectively beside the per-cell reports, with their frame
 * schedule (output.c calls in). */
#include "output_elements.h"
#include "h5util.h"
#include "spk.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

struct sim_elements {
    int nv, var[OLIVE_NVARS];
    char path[OLIVE_NVARS][4200];
    hid_t file[OLIVE_NVARS], dset[OLIVE_NVARS];
    void *buf[OLIVE_NVARS];   /* frame_chunk rows of ncol values */
    int64_t ncol, col0, ntotal, frame_chunk;
    int64_t lrec0, ncells;     /* this rank's recorded cells: local rows [lrec0, lrec0 + ncells) */
    size_t el;
    double *row;
};

sim_elements *sim_elements_open(sim_t *s, const char *dir, int64_t frames, int64_t frame_chunk, int64_t lrec0,
                                int64_t ncells, int64_t cell0, int64_t nrec, hid_t xfer)
{
    const sim_config *c = s->cfg;
    if (!c->rec.ncomp_vars) return NULL;
    sim_elements *e = olive_calloc(1, sizeof *e, "element reports");
    e->frame_chunk = frame_chunk;
    e->lrec0 = lrec0;
    e->ncells = ncells;
    e->el = c->rec.as_double ? sizeof(double) : sizeof(float);
    /* this rank's columns: the compartments of its recorded cells */
    int maxel = 1;
    for (int64_t i = 0; i < ncells; i++) {
        const int k = spk_cable_nelements(s, lrec0 + i);
        e->ncol += k;
        if (k > maxel) maxel = k;
    }
    SIM_CHECK_MPI(MPI_Exscan(&e->ncol, &e->col0, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    if (s->rank == 0) e->col0 = 0;
    SIM_CHECK_MPI(MPI_Allreduce(&e->ncol, &e->ntotal, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    e->row = olive_malloc((size_t)maxel * sizeof(double), "element reports");
    /* the mapping, the same in every file */
    uint64_t *ids = olive_malloc((size_t)(ncells + 1) * sizeof(uint64_t), "mapping");
    uint64_t *ptr = olive_malloc((size_t)(ncells + 1) * sizeof(uint64_t), "mapping");
    uint32_t *sec = olive_malloc((size_t)(e->ncol + 1) * sizeof(uint32_t), "mapping");
    float *pos = olive_malloc((size_t)(e->ncol + 1) * sizeof(float), "mapping");
    int64_t at = 0;
    for (int64_t i = 0; i < ncells; i++) {
        ids[i] = (uint64_t)(s->plan.row0 + lrec0 + i);
        ptr[i] = (uint64_t)(e->col0 + at);
        const int k = spk_cable_nelements(s, lrec0 + i);
        for (int q = 0; q < k; q++, at++) spk_cable_element(s, lrec0 + i, q, &sec[at], &pos[at]);
    }
    ptr[ncells] = (uint64_t)e->ntotal;   /* the last entry: written by the rank holding the last cell */
    const int64_t nptr = ncells + (ncells > 0 && cell0 + ncells == nrec ? 1 : 0);
    hid_t ftype = c->rec.as_double ? H5T_IEEE_F64LE : H5T_IEEE_F32LE;
    for (int v = 0; v < c->run.model->nvars; v++) {
        if (!c->rec.comp_vars[v]) continue;
        const int j = e->nv++;
        e->var[j] = v;
        snprintf(e->path[j], sizeof e->path[j], "%s/%s_compartments.h5", dir, c->run.model->var_names[v]);
        const char *path = e->path[j];
        hid_t f = e->file[j] = olive_h5_create_par(path, MPI_COMM_WORLD);
        char grp[128];
        snprintf(grp, sizeof grp, "report/%s", c->rec.population);
        hid_t g = olive_h5_group(path, f, grp);
        hsize_t dims[2] = {(hsize_t)frames, (hsize_t)e->ntotal}, maxdims[2] = {frames > 0 ? H5S_UNLIMITED : 0, (hsize_t)e->ntotal};
        hsize_t ccols = (hsize_t)((4 << 20) / ((int64_t)e->el * frame_chunk));
        if (ccols > (hsize_t)e->ntotal) ccols = (hsize_t)e->ntotal;
        if (ccols < 1) ccols = 1;
        hsize_t chunk[2] = {(hsize_t)frame_chunk, ccols};
        hid_t space = H5Screate_simple(2, dims, maxdims), dcpl = H5Pcreate(H5P_DATASET_CREATE);
        if (space < 0 || dcpl < 0 || (frames > 0 && H5Pset_chunk(dcpl, 2, chunk) < 0))
            olive_die("%s: cannot set up /%s/data", path, grp);
        e->dset[j] = H5Dcreate2(g, "data", ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        if (e->dset[j] < 0) olive_die("%s: cannot create /%s/data (disk full?)", path, grp);
        olive_h5_close(path, dcpl, "a dataset creation property list");
        olive_h5_close(path, space, "a dataspace");
        olive_h5_attr_str(path, e->dset[j], "units", c->run.model->var_units[v]);
        hid_t m = olive_h5_group(path, g, "mapping");
        hid_t d_ids = olive_h5_dset1(path, m, "node_ids", H5T_STD_U64LE, nrec, 0);
        hid_t d_ptr = olive_h5_dset1(path, m, "index_pointers", H5T_STD_U64LE, nrec + 1, 0);
        if (H5Lcreate_hard(m, "index_pointers", m, "index_pointer", H5P_DEFAULT, H5P_DEFAULT) < 0)
            olive_die("%s: cannot link /%s/mapping/index_pointer", path, grp);
        hid_t d_el = olive_h5_dset1(path, m, "element_ids", H5T_STD_U32LE, e->ntotal, 0);
        hid_t d_pos = olive_h5_dset1(path, m, "element_pos", H5T_IEEE_F32LE, e->ntotal, 0);
        olive_h5_write_slab1(path, d_ids, H5T_NATIVE_UINT64, cell0, ncells, ids, xfer);
        olive_h5_write_slab1(path, d_ptr, H5T_NATIVE_UINT64, cell0, nptr, ptr, xfer);
        olive_h5_write_slab1(path, d_el, H5T_NATIVE_UINT32, e->col0, e->ncol, sec, xfer);
        olive_h5_write_slab1(path, d_pos, H5T_NATIVE_FLOAT, e->col0, e->ncol, pos, xfer);
        sim_report_time(s, path, m, frames, 1, xfer);
        olive_h5_close(path, d_ids, "mapping/node_ids");
        olive_h5_close(path, d_ptr, "mapping/index_pointers");
        olive_h5_close(path, d_el, "mapping/element_ids");
        olive_h5_close(path, d_pos, "mapping/element_pos");
        olive_h5_close(path, m, "group mapping");
        olive_h5_close(path, g, "the report group");
        e->buf[j] = olive_malloc((size_t)(frame_chunk * e->ncol) * e->el + e->el, "element frame buffer");
    }
    free(ids); free(ptr); free(sec); free(pos);
    return e;
}

void sim_elements_frame(sim_elements *e, sim_t *s, int64_t buffered)
{
    if (!e) return;
    for (int j = 0; j < e->nv; j++) {
        char *dst = (char *)e->buf[j] + (size_t)(buffered * e->ncol) * e->el;
        int64_t at = 0;
        for (int64_t i = 0; i < e->ncells; i++) {
            const int64_t r = e->lrec0 + i;
            const int k = spk_cable_nelements(s, r);
            spk_cable_element_values(s, e->var[j], r, e->row);
            for (int q = 0; q < k; q++, at++) {
                if (e->el == sizeof(double)) ((double *)dst)[at] = e->row[q];
                else ((float *)dst)[at] = (float)e->row[q];
            }
        }
    }
}

void sim_elements_flush(sim_elements *e, sim_t *s, int64_t frames_done, int64_t buffered, hid_t xfer)
{
    if (!e) return;
    for (int j = 0; j < e->nv; j++) {
        const char *path = e->path[j];
        hid_t fs = H5Dget_space(e->dset[j]);
        hsize_t off[2] = {(hsize_t)frames_done, (hsize_t)e->col0}, cnt[2] = {(hsize_t)buffered, (hsize_t)e->ncol};
        hid_t ms = H5Screate_simple(2, cnt, NULL);
        if (fs < 0 || ms < 0) olive_die("%s: cannot set up the write of frames", path);
        herr_t sel = e->ncol > 0 ? H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL)
                                 : (H5Sselect_none(fs) < 0 ? -1 : H5Sselect_none(ms));
        if (sel < 0) olive_die("%s: cannot select the frames to write", path);
        hid_t mt = e->el == sizeof(double) ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
        if (H5Dwrite(e->dset[j], mt, ms, fs, xfer, e->buf[j]) < 0)
            olive_die("%s: writing the compartment report failed (disk full?)", path);
        olive_h5_close(path, ms, "a dataspace");
        olive_h5_close(path, fs, "a dataspace");
    }
    (void)s;
}

void sim_elements_close(sim_elements *e, sim_t *s, int64_t frames, int cut, hid_t xfer)
{
    if (!e) return;
    for (int j = 0; j < e->nv; j++) {
        const char *path = e->path[j];
        if (cut) {   /* stopped early: the frames done, and the time axis to match */
            hsize_t dims[2] = {(hsize_t)frames, (hsize_t)e->ntotal};
            if (H5Dset_extent(e->dset[j], dims) < 0) olive_die("%s: cannot cut the report to %lld frames", path, (long long)frames);
            sim_report_time(s, path, e->file[j], frames, 0, xfer);
        }
        sim_write_provenance(s, e->file[j], path);
        olive_h5_close(path, e->dset[j], "the report data");
        olive_h5_close_file(path, e->file[j]);
        free(e->buf[j]);
    }
    free(e->row);
    free(e);
}
