/* A growable block of CSR rows: a generator appends ids row after row without
 * knowing its degrees in advance (uniform degrees are random). */
#include "genconn.h"
#include "util.h"
#include <stdlib.h>

void gc_rows_init(gc_rows *b, int64_t row0, int64_t row1, int64_t cap_hint)
{
    b->row0 = row0;
    b->row1 = row1;
    b->row_ptr = olive_malloc((size_t)(row1 - row0 + 1) * sizeof(int64_t), "row pointers");
    b->row_ptr[0] = 0;
    b->cap = cap_hint > 16 ? cap_hint : 16;
    b->col = olive_malloc((size_t)b->cap * sizeof(int32_t), "neighbour ids");
    b->nnz = 0;
    b->fail_cell = -1;
    b->fail_found = b->fail_attempts = 0;
}

int32_t *gc_rows_reserve(gc_rows *b, int64_t extra)
{
    if (b->nnz + extra > b->cap) {
        int64_t cap = b->cap * 2;
        if (cap < b->nnz + extra) cap = b->nnz + extra;
        int32_t *c = realloc(b->col, (size_t)cap * sizeof(int32_t));
        if (!c) olive_die("out of memory growing a block of %lld neighbour ids", (long long)cap);
        b->col = c;
        b->cap = cap;
    }
    return b->col;
}

void gc_rows_free(gc_rows *b)
{
    free(b->row_ptr);
    free(b->col);
    b->row_ptr = NULL;
    b->col = NULL;
}
