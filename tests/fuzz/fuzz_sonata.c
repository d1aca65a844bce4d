/* libFuzzer: the SONATA importer (tools/genconn/import/import_sonata.c): the bytes
 * are written to a temporary file and opened with HDF5, as olive-genconn
 * --import-format sonata would. Byte 0 of the input is part of the file, so
 * --cells and --duplicates come from the length instead. Crashes inside the
 * HDF5 library itself (damaged files) are HDF5's, reported upstream, not ours. */
#include "fuzz_common.h"
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0]) {
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        snprintf(path, sizeof path, "/tmp/olive-fuzz-sonata-%ld.h5", (long)getpid());
    }
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    gc_sink s;
    gc_edge_list l;
    int64_t cells = size % 3 == 0 ? 16 : 0;
    fuzz_sink(&s, &l, cells);
    s.have_w_default = size & 1;
    int rc = gc_import_sonata(path, NULL, size % 5 == 0 ? "syn_weight" : NULL, &s);
    fuzz_finish(rc, &s, &l, cells, size & 2);
    unlink(path);
    return 0;
}
