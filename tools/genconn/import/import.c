/* olive-genconn --import: run the parser of the chosen format into the
 * compact junction list, sort it into rows, pack the conductances, and fill
 * the network. Faults of the input die here, naming the file and the line
 * or dataset (the parsers themselves never exit: tests/fuzz calls them). */
#include "genconn.h"
#include "import.h"
#include "util.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *gc_import_format_name(gc_import_format f)
{
    return f == GC_IMPORT_EDGES ? "edges" : f == GC_IMPORT_MATRIX ? "matrix" : "sonata";
}

static int run_parser(const gc_config *cfg, gc_sink *s, int64_t *matrix_n)
{
    const char *path = cfg->import_path;
    olive_check_regular_file(path); /* a FIFO would block fopen() */
    if (cfg->import_format == GC_IMPORT_SONATA)
        return gc_import_sonata(path, cfg->import_population, cfg->import_attribute, s);
    FILE *f = fopen(path, "r");
    if (!f) olive_die("%s: cannot open: %s", path, strerror(errno));
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    int rc = cfg->import_format == GC_IMPORT_EDGES ? gc_import_edges(f, path, s) : gc_import_matrix(f, path, s, matrix_n);
    fclose(f);
    return rc;
}

/* After a duplicate is refused: read the input again to say where the two
 * copies are. */
typedef struct { int32_t t, s; int64_t pos[2]; int found; } dup_find;

static int find_dup(gc_sink *s, int32_t target, int32_t source, double w, int64_t pos)
{
    dup_find *d = s->ctx;
    (void)w;
    if (target == d->t && source == d->s) {
        d->pos[d->found++] = pos;
        if (d->found == 2) { snprintf(s->err, sizeof s->err, "found"); return 1; }
    }
    return 0;
}

static void die_duplicate(const gc_config *cfg, int32_t t, int32_t src)
{
    dup_find d = {t, src, {-1, -1}, 0};
    gc_sink s;
    memset(&s, 0, sizeof s);
    s.cells = cfg->count;
    s.w_default = cfg->w_a;
    s.have_w_default = 1;
    s.matrix_transpose = cfg->import_transpose;
    s.drop_self = cfg->drop_self;
    s.add = find_dup;
    s.ctx = &d;
    int64_t n;
    run_parser(cfg, &s, &n);
    char where[96] = "";
    if (d.found == 2)
        snprintf(where, sizeof where, cfg->import_format == GC_IMPORT_SONATA ? " edges %lld and %lld:" : " lines %lld and %lld:",
                 (long long)d.pos[0], (long long)d.pos[1]);
    olive_die("%s:%s duplicate junction into cell %d from cell %d (--duplicates reject, the default; "
              "--duplicates sum adds their conductances up)", cfg->import_path, where, t, src);
}

/* 1 when every junction i <- j has its mirror j <- i with the same stored
 * conductance. */
static int is_symmetric(const olive_network *n)
{
    for (int64_t i = 0; i < n->count; i++)
        for (int64_t e = n->row_ptr[i]; e < n->row_ptr[i + 1]; e++) {
            int32_t j = n->col[e];
            int64_t lo = n->row_ptr[j], hi = n->row_ptr[j + 1];
            while (lo < hi) {
                int64_t m = lo + (hi - lo) / 2;
                if (n->col[m] < i) lo = m + 1;
                else hi = m;
            }
            if (lo == n->row_ptr[j + 1] || n->col[lo] != i || olive_net_w(n, lo) != olive_net_w(n, e)) return 0;
        }
    return 1;
}

void gc_import(const gc_config *cfg, olive_network *net)
{
    const char *path = cfg->import_path;
    double t0 = olive_now();
    gc_edge_list list;
    gc_edge_list_init(&list);
    gc_sink s;
    memset(&s, 0, sizeof s);
    s.cells = cfg->count;
    s.w_default = cfg->w_a;
    s.have_w_default = cfg->have_w;
    s.matrix_transpose = cfg->import_transpose;
    s.drop_self = cfg->drop_self;
    s.add = gc_edge_list_add;
    s.ctx = &list;
    int64_t matrix_n = 0;
    if (run_parser(cfg, &s, &matrix_n) < 0) olive_die("%s", s.err);
    if (s.dropped_self)
        olive_warn("%s: dropped %lld self junction(s) (--drop-self)", path, (long long)s.dropped_self);
    const int64_t parsed = list.n;
    int64_t count = cfg->count > 0 ? cfg->count
                  : cfg->import_format == GC_IMPORT_MATRIX ? matrix_n : list.max_id + 1;
    if (count < 1) olive_die("%s: no junctions, so no cell count: give --cells N", path);
    double t_parse = olive_now();
    olive_info("%s: %lld junctions parsed in %.3f s (%s)", path, (long long)parsed, t_parse - t0,
               gc_import_format_name(cfg->import_format));

    gc_csr csr;
    char err[512];
    if (gc_edges_to_csr(&list, count, cfg->dup_sum, &csr, err, sizeof err) < 0) {
        if (csr.dup_target >= 0 && !cfg->dup_sum) die_duplicate(cfg, csr.dup_target, csr.dup_source);
        olive_die("%s: %s", path, err);
    }
    if (csr.merged)
        fprintf(stderr, "%s: %s: %lld duplicate junctions summed (--duplicates sum)\n", olive_program(), path,
                (long long)csr.merged);
    net->count = count;
    if (cfg->count > 0) memcpy(net->dims, cfg->dims, sizeof net->dims);
    else { net->dims[0] = count; net->dims[1] = net->dims[2] = 1; }
    net->row0 = 0;
    net->row1 = count;
    net->e0 = 0;
    net->row_ptr = csr.row_ptr;
    net->col = csr.col;
    net->nnz = net->nnz_total = csr.nnz;
    gc_pack_info info;
    if (gc_pack_conductance(net, csr.w, cfg->bits, cfg->w_a, &info, err, sizeof err) < 0) olive_die("%s: %s", path, err);
    free(csr.w);
    if (info.bits || info.min != info.max)
        fprintf(stderr, "%s: %s: conductances in [%.9g, %.9g] at %d bits (offset %g, scale %g): largest quantisation error %.3g\n",
                olive_program(), path, info.min, info.max, info.bits, net->offset, net->scale, info.maxerr);
    snprintf(net->generator, sizeof net->generator, "import-%s", gc_import_format_name(cfg->import_format));
    net->seed = cfg->seed;
    net->density = (double)net->nnz / (double)count;
    net->sigma = 0;
    net->symmetric = is_symmetric(net);
    olive_info("%s: %lld junctions in rows, %lld cells, in %.3f s", path, (long long)net->nnz, (long long)count,
               olive_now() - t_parse);
}
