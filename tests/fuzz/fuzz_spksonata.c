/* libFuzzer: the SONATA import of a spiking network's synapses
 * (tools/genconn/spiking/spiking_import.c, olive-genconn --model lif_cuba
 * --import-synapses EDGES.h5) on arbitrary bytes written to a temporary file
 * (tests/fuzz/fuzz_h5common.h: olive_die jumps back here). What it accepts
 * must be what olive-simulate relies on (common/io/synfile.h): per projection a
 * monotone row_ptr from 0 to its synapse count, sources in range and
 * ascending per row, finite weights, delays in [0, 65535]. The network's
 * size comes from the input's length (16 or 500 cells). */
#include "fuzz_h5common.h"
#include "spiking_net.h"
#include <math.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file("fuzz_spksonata", data, size);
    if (!path) return 0;
    static gc_spk_config cfg;        /* static: a longjmp must not leave them in a dead frame */
    static olive_synapses syn;
    memset(&cfg, 0, sizeof cfg);
    cfg.model = &olive_model_lif_cuba;
    cfg.count = size % 2 ? 16 : 500;
    cfg.dt = 0.1;
    cfg.import_synapses = path;
    olive_syn_free(&syn);            /* what an input that died left */
    if (setjmp(fuzz_back) == 0) {
        gc_spk_import(&cfg, &syn);
        fuzz_check_projections(&syn, cfg.count, 1);
        olive_syn_free(&syn);
    } else {
        fuzz_close_everything();
    }
    unlink(path);
    return 0;
}
