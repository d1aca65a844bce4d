/* libFuzzer: the network-file reader (common/io/netfile.c olive_net_read) on
 * arbitrary bytes written to a temporary file (tests/fuzz/fuzz_h5common.h:
 * olive_die jumps back here, the objects the reader left open are closed,
 * what it allocated is lost: run with detect_leaks=0). A network it accepts
 * must pass olive_net_check and decode to finite conductances. Run with
 * ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=256 so
 * that a file declaring billions of cells gets a clean "out of memory". */
#include "fuzz_h5common.h"
#include "netfile.h"
#include <math.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file("fuzz_netfile", data, size);
    if (!path) return 0;
    static olive_network net;   /* static: a longjmp must not leave it in a dead frame */
    memset(&net, 0, sizeof net);
    if (setjmp(fuzz_back) == 0) {
        olive_net_read(path, &net);
        if (olive_net_check(&net)) abort();     /* the reader accepted what the check refuses */
        for (int64_t e = 0; e < net.nnz; e++) {
            double w = olive_net_w(&net, e);
            if (!isfinite(w) || w < 0) abort();
        }
        olive_net_free(&net);
    } else {
        fuzz_close_everything();
    }
    unlink(path);
    return 0;
}
