/* libFuzzer: olive-analyze's spike-file reader (tools/analyze/spikefile.c,
 * spikestats.c, spikeload.c) on arbitrary bytes: open, scan, load. Loaded
 * spikes must be finite times. */
#include "fuzz_h5common.h"
#include "analyze.h"
#include <math.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file("fuzz_spikes", data, size);
    if (!path) return 0;
    static ana_spikes sp;
    static ana_spike_scan sc;
    static ana_spike_list l;
    memset(&sp, 0, sizeof sp);
    if (setjmp(fuzz_back) == 0) {
        ana_spikes_open(&sp, path, NULL);
        ana_spikes_scan(&sp, 1, &sc);
        ana_spikes_load(&sp, &l);
        for (int64_t i = 0; i < l.n; i++)
            if (!isfinite(l.t[i])) abort();
        ana_spike_list_free(&l);
        ana_spike_scan_free(&sc);
        ana_spikes_close(&sp);
    } else {
        fuzz_close_everything();
    }
    unlink(path);
    return 0;
}
