/* libFuzzer: the network-file reader (common/netfile.c olive_net_read) on
 * arbitrary bytes written to a temporary file. olive_die exits; here the
 * exit hook (util.h) jumps back instead, and every HDF5 object the reader
 * left open is closed. What the reader allocated before dying is lost (run
 * with detect_leaks=0). A network it accepts must pass olive_net_check and
 * decode to finite conductances. Run with
 * ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=256 so
 * that a file declaring billions of cells gets a clean "out of memory". */
#include "netfile.h"
#include "util.h"
#include <hdf5.h>
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static jmp_buf back;
static void jump_back(int code) { longjmp(back, code ? code : 1); }

static void close_everything(void)
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0]) {
        olive_set_program("fuzz_netfile");
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        olive_set_exit_hook(jump_back);
        snprintf(path, sizeof path, "/tmp/olive-fuzz-net-%ld.h5", (long)getpid());
    }
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    static olive_network net;   /* static: a longjmp must not leave it in a dead frame */
    memset(&net, 0, sizeof net);
    if (setjmp(back) == 0) {
        olive_net_read(path, &net);
        if (olive_net_check(&net)) abort();     /* the reader accepted what the check refuses */
        for (int64_t e = 0; e < net.nnz; e++) {
            double w = olive_net_w(&net, e);
            if (!isfinite(w) || w < 0) abort();
        }
        olive_net_free(&net);
    } else {
        close_everything();
    }
    unlink(path);
    return 0;
}
