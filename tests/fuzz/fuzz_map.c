/* libFuzzer: the dispersal-map reader (common/io/mapfile.c) on arbitrary bytes:
 * the header, then every rank's plan against a fixed 6-cell network (a ring
 * with chords) when the header describes that network. An accepted plan
 * must only index cells it holds (own + halo) and list valid rows. */
#include "fuzz_h5common.h"
#include "mapfile.h"
#include <string.h>

static olive_network ring;   /* rows 0..5, each row's neighbours ascending */

static void make_ring(void)
{
    static int64_t row_ptr[7];
    static int32_t col[18];
    int64_t e = 0;
    for (int r = 0; r < 6; r++) {
        row_ptr[r] = e;
        int n[3] = {(r + 5) % 6, (r + 1) % 6, (r + 3) % 6};
        for (int a = 0; a < 3; a++)        /* sort the three */
            for (int b = a + 1; b < 3; b++)
                if (n[b] < n[a]) { int t = n[a]; n[a] = n[b]; n[b] = t; }
        for (int a = 0; a < 3; a++) col[e++] = n[a];
    }
    row_ptr[6] = e;
    ring.count = 6;
    ring.nnz = ring.nnz_total = e;
    ring.row_ptr = row_ptr;
    ring.col = col;
}

/* The rows of one rank, as olive-simulate would hold them. */
static void rows_of(int64_t r0, int64_t r1, olive_network *n)
{
    *n = ring;
    n->row0 = r0;
    n->row1 = r1;
    n->e0 = ring.row_ptr[r0];
    n->nnz = ring.row_ptr[r1] - n->e0;
    static int64_t rp[7];
    for (int64_t r = r0; r <= r1; r++) rp[r - r0] = ring.row_ptr[r] - n->e0;
    n->row_ptr = rp;
    n->col = ring.col + n->e0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file("fuzz_map", data, size);
    if (!path) return 0;
    if (!ring.count) make_ring();
    static olive_map_header h;
    static olive_plan p;
    memset(&h, 0, sizeof h);
    memset(&p, 0, sizeof p);
    if (setjmp(fuzz_back) == 0) {
        olive_map_read_header(path, &h);
        if (h.P < 1 || h.bounds[0] != 0 || h.bounds[h.P] != h.count) abort();
        if (h.count == 6 && h.nnz == ring.nnz_total && h.P <= 6) {
            for (int r = 0; r < h.P; r++) {
                olive_network n;
                rows_of(h.bounds[r], h.bounds[r + 1], &n);
                olive_map_read_plan(path, &h, r, &n, &p);
                for (int64_t e = 0; e < n.nnz; e++)
                    if (p.lcol[e] < 0 || p.lcol[e] >= p.nlocal + p.nhalo) abort();
                for (int64_t i = 0; i < p.ninterior + p.nboundary; i++)
                    if (p.interior[i] < 0 || p.interior[i] >= p.nlocal) abort();
                olive_plan_free(&p);
                memset(&p, 0, sizeof p);
            }
        }
        olive_map_header_free(&h);
    } else {
        fuzz_close_everything();
    }
    unlink(path);
    return 0;
}
