/* libFuzzer: the SONATA import of a spiking network's synapses
 * (tools/genconn/spiking_import.c, olive-genconn --model lif_cuba
 * --import-synapses EDGES.h5) on arbitrary bytes written to a temporary file
 * (tests/fuzz/fuzz_h5common.h: olive_die jumps back here). What it accepts
 * must be what olive-simulate relies on (common/synfile.h): per projection a
 * monotone row_ptr from 0 to its synapse count, sources in range and
 * ascending per row, finite weights, delays in [0, 65535]. The network's
 * size comes from the input's length (16 or 500 cells). */
#include "fuzz_h5common.h"
#include "spiking.h"
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
        for (int j = 0; j < syn.n; j++) {
            const olive_projection *p = &syn.proj[j];
            if (olive_name_fault(p->name) || p->row_ptr[0] != 0 || p->row_ptr[cfg.count] != p->nnz) abort();
            for (int64_t r = 0; r < cfg.count; r++) {
                if (p->row_ptr[r + 1] < p->row_ptr[r]) abort();
                for (int64_t e = p->row_ptr[r]; e < p->row_ptr[r + 1]; e++) {
                    if (p->col[e] < 0 || p->col[e] >= cfg.count) abort();
                    if (e > p->row_ptr[r] && p->col[e] < p->col[e - 1]) abort();
                    if (!isfinite(olive_syn_w(p, e))) abort();
                    if (olive_syn_d(p, e) < 0 || olive_syn_d(p, e) > OLIVE_MAX_DELAY) abort();
                }
            }
        }
        olive_syn_free(&syn);
    } else {
        fuzz_close_everything();
    }
    unlink(path);
    return 0;
}
