/* Shared by the libFuzzer harnesses: the junction list a parser fills, then
 * the rows built from it, checked for the invariants the network file needs.
 * A parser that returns an error must say why; one that accepts must only
 * have handed over junctions that the rows can hold. abort() marks a bug. */
#ifndef OLIVE_FUZZ_COMMON_H
#define OLIVE_FUZZ_COMMON_H
#include "import.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_JUNCTIONS (1 << 18)
#define FUZZ_MAX_CELLS (1 << 18)

static inline void fuzz_sink(gc_sink *s, gc_edge_list *l, int64_t cells)
{
    memset(s, 0, sizeof *s);
    gc_edge_list_init(l);
    l->limit = FUZZ_MAX_JUNCTIONS;
    s->cells = cells;
    s->w_default = 0.04;
    s->add = gc_edge_list_add;
    s->ctx = l;
}

/* After the parser returned rc: check the message or build and check rows. */
static inline void fuzz_finish(int rc, gc_sink *s, gc_edge_list *l, int64_t count, int dup_sum)
{
    if (rc != 0) {
        if (!s->err[0] || !memchr(s->err, 0, sizeof s->err)) abort();   /* refused without a reason */
        gc_edge_list_free(l);
        return;
    }
    for (int64_t e = 0; e < l->n; e++)
        if (l->tgt[e] == l->src[e] || l->tgt[e] < 0 || l->src[e] < 0 || !(l->w[e] >= 0) || !isfinite(l->w[e])) abort();
    if (count <= 0) count = l->max_id + 1;
    if (l->max_id >= count) abort();
    if (count > FUZZ_MAX_CELLS) { gc_edge_list_free(l); return; }
    const int64_t n = l->n;
    gc_csr c;
    char err[256];
    if (gc_edges_to_csr(l, count, dup_sum, &c, err, sizeof err) != 0) {
        /* only a refused duplicate, or a sum of duplicates that overflows, may fail */
        if (c.dup_target < 0 || (dup_sum && !strstr(err, "overflows"))) abort();
        return;
    }
    if (c.row_ptr[0] != 0 || c.row_ptr[count] != c.nnz || c.nnz + c.merged != n) abort();
    for (int64_t i = 0; i < count; i++) {
        if (c.row_ptr[i + 1] < c.row_ptr[i]) abort();
        for (int64_t e = c.row_ptr[i]; e < c.row_ptr[i + 1]; e++) {
            if (c.col[e] < 0 || c.col[e] >= count || c.col[e] == i || !(c.w[e] >= 0) || !isfinite(c.w[e])) abort();
            if (e > c.row_ptr[i] && c.col[e] <= c.col[e - 1]) abort();
        }
    }
    gc_csr_free(&c);
}

/* A FILE reading exactly the fuzzer's bytes (fmemopen refuses size 0). */
static inline FILE *fuzz_file(const uint8_t *data, size_t size)
{
    static char empty[1];
    return size ? fmemopen((void *)data, size, "r") : fmemopen(empty, 1, "r");
}
#endif
