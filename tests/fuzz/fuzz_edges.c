/* libFuzzer: the edges parser (tools/genconn/import/import_edges.c) on arbitrary
 * bytes, then the rows built from what it accepted. The first byte chooses
 * --cells (0: from the ids) and --duplicates. */
#include "fuzz_common.h"
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t cells = size ? data[0] % 64 : 0;
    int dup_sum = size && (data[0] & 64);
    gc_sink s;
    gc_edge_list l;
    fuzz_sink(&s, &l, cells);
    FILE *f = fuzz_file(data, size);
    if (!f) return 0;
    int rc = gc_import_edges(f, "fuzz.txt", &s);
    if (size == 0 && rc == 0) abort();   /* an empty file is refused */
    fclose(f);
    fuzz_finish(rc, &s, &l, cells, dup_sum);
    return 0;
}
