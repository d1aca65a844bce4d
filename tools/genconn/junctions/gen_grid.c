/* grid: the original InfOli mesh, each cell coupled to its 8 Moore
 * neighbours on the X x Y sheet (no wrap: 3 at corners, 5 on edges, 8
 * inside). No randomness. Visiting the offsets with dx outer and dy inner
 * yields ascending ids, since id = x*Y + y and |dy| <= 1 < Y whenever
 * dy != 0 is possible. */
#include "genconn.h"

void gc_grid_rows(const gc_config *cfg, int64_t r0, int64_t r1, gc_rows *out)
{
    const int64_t X = cfg->dims[0], Y = cfg->dims[1];
    for (int64_t i = r0; i < r1; i++) {
        int64_t x = i / Y, y = i % Y;
        int32_t *col = gc_rows_reserve(out, 8);
        for (int dx = -1; dx <= 1; dx++)
            for (int dy = -1; dy <= 1; dy++) {
                int64_t nx = x + dx, ny = y + dy;
                if ((dx || dy) && nx >= 0 && nx < X && ny >= 0 && ny < Y) col[out->nnz++] = (int32_t)(nx * Y + ny);
            }
        out->row_ptr[i - r0 + 1] = out->nnz;
    }
}
