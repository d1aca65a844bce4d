/* Shared by the harnesses of olive's HDF5 readers: the input bytes go to a
 * temporary file; olive_die exits, so the exit hook (util.h) jumps back to
 * the harness instead, which then closes every HDF5 object the reader left
 * open. What the reader allocated before dying is lost (run with
 * detect_leaks=0). */
#ifndef OLIVE_FUZZ_H5COMMON_H
#define OLIVE_FUZZ_H5COMMON_H
#include "util.h"
#include <hdf5.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static jmp_buf fuzz_back;
static void fuzz_jump_back(int code) { longjmp(fuzz_back, code ? code : 1); }

static inline void fuzz_close_everything(void)
{
    ssize_t n = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
    if (n <= 0) return;
    hid_t *ids = malloc((size_t)n * sizeof *ids);
    if (!ids) return;
    n = H5Fget_obj_ids(H5F_OBJ_ALL, H5F_OBJ_ALL, (size_t)n, ids);
    for (ssize_t i = 0; i < n; i++) {     /* objects first, files last */
        H5I_type_t t = H5Iget_type(ids[i]);
        if (t == H5I_DATASET) H5Dclose(ids[i]);
        else if (t == H5I_GROUP) H5Gclose(ids[i]);
        else if (t == H5I_ATTR) H5Aclose(ids[i]);
        else if (t == H5I_DATATYPE) H5Tclose(ids[i]);
    }
    for (ssize_t i = 0; i < n; i++)
        if (H5Iget_type(ids[i]) == H5I_FILE) H5Fclose(ids[i]);
    free(ids);
}

/* The input as a file; its path (the same for every input of a process). */
static inline const char *fuzz_input_file(const char *name, const uint8_t *data, size_t size)
{
    static char path[96];
    if (!path[0]) {
        olive_set_program(name);
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        olive_set_exit_hook(fuzz_jump_back);
        snprintf(path, sizeof path, "/tmp/olive-%s-%ld.h5", name, (long)getpid());
    }
    FILE *f = fopen(path, "wb");
    if (!f) return NULL;
    if (fwrite(data, 1, size, f) != size) { fclose(f); return NULL; }
    if (fclose(f) != 0) return NULL;
    return path;
}

/* What olive-simulate relies on in the projections a reader accepted
 * (common/io/synfile.h): per projection a monotone row_ptr from 0 to its
 * synapse count, sources in [0, count) and ascending per row, finite
 * weights, delays in [0, OLIVE_MAX_DELAY]; anything else aborts. */
#include "synfile.h"
#include <math.h>
static inline void fuzz_check_projections(const olive_synapses *syn, int64_t count, int names_checked)
{
    for (int j = 0; j < syn->n; j++) {
        const olive_projection *p = &syn->proj[j];
        if ((names_checked && olive_name_fault(p->name)) || p->row_ptr[0] != 0 || p->row_ptr[count] != p->nnz) abort();
        for (int64_t r = 0; r < count; r++) {
            if (p->row_ptr[r + 1] < p->row_ptr[r]) abort();
            for (int64_t e = p->row_ptr[r]; e < p->row_ptr[r + 1]; e++) {
                if (p->col[e] < 0 || p->col[e] >= count) abort();
                if (e > p->row_ptr[r] && p->col[e] < p->col[e - 1]) abort();
                if (!isfinite(olive_syn_w(p, e))) abort();
                if (olive_syn_d(p, e) < 0 || olive_syn_d(p, e) > OLIVE_MAX_DELAY) abort();
            }
        }
    }
}

#endif
