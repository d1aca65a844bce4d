/* libFuzzer: the matrix parser (tools/genconn/import/import_matrix.c) on arbitrary
 * bytes, then the rows built from what it accepted. */
#include "fuzz_common.h"
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gc_sink s;
    gc_edge_list l;
    fuzz_sink(&s, &l, 0);
    FILE *f = fuzz_file(data, size);
    if (!f) return 0;
    int64_t n = -1;
    int rc = gc_import_matrix(f, "fuzz.mat", &s, &n);
    fclose(f);
    if (rc == 0 && (n < 1 || l.max_id >= n)) abort();
    fuzz_finish(rc, &s, &l, rc == 0 ? n : 0, 0);
    return 0;
}
