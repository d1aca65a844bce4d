/* libFuzzer: the spiking parts of the network file (common/io/synfile.c:
 * olive_pops_present, olive_pops_read, olive_pops_read_percell,
 * olive_spike_times_read, olive_syn_read_rows) on arbitrary
 * bytes written to a temporary file (tests/fuzz/fuzz_h5common.h: olive_die
 * jumps back here). What the readers accept must hold what olive-simulate
 * relies on: populations tiling the cells with known models and finite
 * parameters; per projection a monotone row_ptr ending at its synapse count,
 * sources in range and ascending per row, finite weights, delays in
 * [0, 65535]. Run with ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=256. */
#include "fuzz_h5common.h"
#include "netfile.h"
#include "synfile.h"
#include <math.h>
#include <string.h>

/* The per-cell datasets of population p (parameters, spike times), read as
 * olive-simulate reads them; what comes back must be finite and in order. */
static void read_cells(const char *path, const olive_population *p)
{
    static double *v;      /* static: freed on the next input after a longjmp */
    static int64_t *ptr;
    free(v); free(ptr);
    v = NULL; ptr = NULL;
    for (int k = 0; k < p->model->nparams; k++) {
        if (!p->percell[k]) continue;
        v = olive_realloc(v, (size_t)p->count * sizeof *v, "fuzz");
        olive_pops_read_percell(path, p, k, p->first, p->first + p->count, v);
        for (int64_t c = 0; c < p->count; c++) if (!isfinite(v[c])) abort();
    }
    if (p->model != &olive_model_spike_source_array) return;
    ptr = olive_malloc((size_t)(p->count + 1) * sizeof *ptr, "fuzz");
    olive_spike_times_read(path, p, p->first, p->first + p->count, ptr, NULL);
    for (int64_t c = 0; c < p->count; c++) if (ptr[c + 1] < ptr[c] || ptr[0] < 0) abort();
    v = olive_realloc(v, (size_t)(ptr[p->count] - ptr[0]) * sizeof *v + 8, "fuzz");
    olive_spike_times_read(path, p, p->first, p->first + p->count, ptr, v);
    for (int64_t e = 0; e < ptr[p->count] - ptr[0]; e++) if (!isfinite(v[e])) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file("fuzz_synfile", data, size);
    if (!path) return 0;
    static olive_network hdr;       /* static: a longjmp must not leave them in a dead frame */
    static olive_populations pops;
    static olive_synapses syn;
    memset(&syn, 0, sizeof syn);
    if (setjmp(fuzz_back) == 0) {
        olive_net_read_header(path, &hdr);
        const olive_cell_model *m;
        olive_pops_present(path, &m);
        olive_pops_read(path, hdr.count, &pops);
        int64_t next = 0;
        for (int i = 0; i < pops.n; i++) {
            if (pops.pop[i].first != next || pops.pop[i].count < 1 || !pops.pop[i].model) abort();
            for (int k = 0; k < pops.pop[i].model->nparams; k++)
                if (!isfinite(pops.pop[i].param[k])) abort();
            next += pops.pop[i].count;
        }
        if (next != hdr.count) abort();
        for (int i = 0; i < pops.n; i++) read_cells(path, &pops.pop[i]);
        if (olive_syn_read_rows(path, hdr.count, 0, hdr.count, &syn)) {
            if (!(syn.dt > 0)) abort();
            fuzz_check_projections(&syn, hdr.count, 0);
            olive_syn_free(&syn);
        }
    } else {
        fuzz_close_everything();
    }
    unlink(path);
    return 0;
}
