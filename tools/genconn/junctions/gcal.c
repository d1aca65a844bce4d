/* Per-cell g_CaL. The model's default 0.68 is what a reader assumes when the
 * dataset is absent, so it is not written; any other constant is; a range
 * A:B draws each cell's value from the counter (cell, 0, 0, GCAL), which
 * makes it independent of how the cells are split. */
#include "genconn.h"
#include "rng.h"
#include "util.h"

#define GCAL_DEFAULT 0.68

void gc_gcal(const gc_config *cfg, olive_network *net)
{
    net->g_cal = NULL;
    if (!cfg->gcal_range && cfg->gcal_a == GCAL_DEFAULT) return;
    const int64_t N = net->row1 - net->row0;  /* this process's cells */
    net->g_cal = olive_malloc((size_t)N * sizeof(double), "g_CaL");
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < N; k++) {
        int64_t i = net->row0 + k;
        if (!cfg->gcal_range) { net->g_cal[k] = cfg->gcal_a; continue; }
        double u, unused;
        olive_uniform2(cfg->seed, (uint32_t)i, (uint32_t)((uint64_t)i >> 32), 0, OLIVE_STREAM_GCAL, &u, &unused);
        net->g_cal[k] = cfg->gcal_a + u * (cfg->gcal_b - cfg->gcal_a);
    }
}
