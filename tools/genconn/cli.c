/* Command line of olive-genconn: every option validated (and every option
 * that would be silently ignored refused) before any work is done. */
#include "genconn.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef OLIVE_HAVE_CUDA
#define GC_BACKENDS_BUILT "cpu, cuda"
#else
#define GC_BACKENDS_BUILT "cpu only"
#endif

/* The options of the gap-junction command line, --help's lines of them and
 * the parser's cases (none repeatable). */
enum {
    GC_OPT_DIMS = GC_NCOMMON, GC_OPT_GENERATOR, GC_OPT_DENSITY, GC_OPT_FIXED_DEGREE, GC_OPT_SIGMA, GC_OPT_CONDUCTANCE,
    GC_OPT_CONDUCTANCE_BITS, GC_OPT_GCAL, GC_OPT_SYMMETRIC, GC_OPT_IMPORT, GC_OPT_IMPORT_FORMAT, GC_OPT_TRANSPOSE,
    GC_OPT_DROP_SELF, GC_OPT_IMPORT_ATTRIBUTE, GC_OPT_IMPORT_POPULATION, GC_OPT_DUPLICATES, GC_OPT_PROGRESS,
    GC_OPT_BLOCK_ROWS, GC_OPT_BACKEND, GC_NOPTS
};
static const olive_opt gc_opts[] = {
    [GC_OPT_OUTPUT] = {"--output", "-o", OLIVE_OPT_VALUE, 0, "NET.h5", "output file (refused if it exists, unless --force)"},
    [GC_OPT_MODEL] = {"--model", NULL, OLIVE_OPT_VALUE, 0, "lif_cuba|lif_coba",
                      "a spiking network of integrate-and-fire cells and chemical\n"
                      "  synapses instead (its options: olive-genconn --model lif_cuba --help)"},
    [GC_OPT_CELLS] = {"--cells", NULL, OLIVE_OPT_VALUE, 0, "N",
                      "N cells on an N x 1 x 1 lattice (import: the cell count, default\n"
                      "  the largest id + 1, matrix: N; ids >= N are refused)"},
    [GC_OPT_DIMS] = {"--dims", NULL, OLIVE_OPT_VALUE, 0, "X[xY[xZ]]", "cells on an X x Y x Z lattice (X*Y*Z cells)"},
    [GC_OPT_GENERATOR] = {"--generator", NULL, OLIVE_OPT_VALUE, 0, "NAME",
                          "uniform: every other cell is a partner with p = K/(N-1)\n"
                          "  (degree Binomial(N-1, p), mean K)\n"
                          "gaussian: exactly K distinct partners per cell, drawn with\n"
                          "  probability ∝ exp(-d²/(2 sigma²)), d the lattice distance (no wrap)\n"
                          "grid: the 8-neighbour (Moore) mesh on X x Y, Z = 1, no wrap"},
    [GC_OPT_DENSITY] = {"--density", NULL, OLIVE_OPT_VALUE, 0, "K",
                        "partners per cell (default 10; 0 allowed; an integer for\n  gaussian and --fixed-degree)"},
    [GC_OPT_FIXED_DEGREE] = {"--fixed-degree", NULL, OLIVE_OPT_FLAG, 0, NULL, "uniform: exactly K distinct partners per cell"},
    [GC_OPT_SIGMA] = {"--sigma", NULL, OLIVE_OPT_VALUE, 0, "S", "gaussian width in lattice units (default 5)"},
    [GC_OPT_SEED] = {"--seed", NULL, OLIVE_OPT_VALUE, 0, "S", "random seed, 0 <= S < 2^63 (default 1)"},
    [GC_OPT_CONDUCTANCE] = {"--conductance", NULL, OLIVE_OPT_VALUE, 0, "W | A:B",
                            "constant W, or uniform in [A, B] per junction (default 0.04);\n"
                            "  import: W for edges lines without a conductance (and sonata\n"
                            "  files without the attribute)"},
    [GC_OPT_CONDUCTANCE_BITS] = {"--conductance-bits", NULL, OLIVE_OPT_VALUE, 0, "B",
                                 "0 (constant), 4, 8, 16 (quantised codes), 32 (float32)\n"
                                 "  or 64 (float64: every value exactly as drawn)\n"
                                 "  (default 0 for a constant, 8 for a range; import: 0 where all\n"
                                 "  junctions are equal, else 32; 64 keeps the file's values exactly,\n"
                                 "  as the original InfOli code reads them; 4/8/16 quantise between\n"
                                 "  the smallest and largest conductance, the error reported)"},
    [GC_OPT_GCAL] = {"--gcal", NULL, OLIVE_OPT_VALUE, 0, "V | A:B", "g_CaL per cell, constant or uniform in [A, B] (default 0.68)"},
    [GC_OPT_SYMMETRIC] = {"--symmetric", NULL, OLIVE_OPT_FLAG, 0, NULL, "add the mirror of every junction (w_ij = w_ji)"},
    [GC_OPT_IMPORT] = {"--import", NULL, OLIVE_OPT_VALUE, 0, "FILE", "read the junctions from FILE instead of generating them"},
    [GC_OPT_IMPORT_FORMAT] = {"--import-format", NULL, OLIVE_OPT_VALUE, 0, "F",
                              "edges: lines 'source target [conductance]' (spaces, tabs or\n"
                              "  commas; '#' comments; the target receives from the source)\n"
                              "matrix: N lines of N numbers (the original InfOli\n"
                              "  cellConnections.txt), entry (i, j) != 0 is a junction\n"
                              "  from cell i (the sender) into cell j with that conductance\n"
                              "sonata: a SONATA edges file (source_node_id, target_node_id)"},
    [GC_OPT_TRANSPOSE] = {"--transpose", NULL, OLIVE_OPT_FLAG, 0, NULL, "matrix: line i is the receiving cell instead"},
    [GC_OPT_DROP_SELF] = {"--drop-self", NULL, OLIVE_OPT_FLAG, 0, NULL,
                          "drop self junctions (cell to itself), printing how many;\n"
                          "  without it an import holding one is refused"},
    [GC_OPT_IMPORT_ATTRIBUTE] = {"--import-attribute", NULL, OLIVE_OPT_VALUE, 0, "NAME",
                                 "sonata: the conductance dataset /edges/POP/0/NAME (default\n"
                                 "  conductance, else syn_weight)"},
    [GC_OPT_IMPORT_POPULATION] = {"--import-population", NULL, OLIVE_OPT_VALUE, 0, "NAME",
                                  "sonata: the edge population (default: the only one)"},
    [GC_OPT_DUPLICATES] = {"--duplicates", NULL, OLIVE_OPT_VALUE, 0, "reject|sum",
                           "a junction listed twice is an error (default) or has the\n"
                           "  sum of the conductances"},
    [GC_OPT_EXPORT_SONATA] = {"--export-sonata", NULL, OLIVE_OPT_VALUE, 0, "PREFIX",
                              "also write PREFIX_nodes.h5 and PREFIX_edges.h5 (SONATA,\n"
                              "  population io, edge attribute conductance)"},
    [GC_OPT_FORCE] = {"--force", NULL, OLIVE_OPT_FLAG, 0, NULL, "replace an existing output file"},
    [GC_OPT_VERBOSE] = {"--verbose", "-v", OLIVE_OPT_FLAG, 0, NULL, "details and timings on stderr"},
    [GC_OPT_PROGRESS] = {"--progress", NULL, OLIVE_OPT_FLAG, 0, NULL, "show progress even when stderr is not a terminal"},
    [GC_OPT_QUIET] = {"--quiet", "-q", OLIVE_OPT_FLAG, 0, NULL, "print nothing but errors"},
    [GC_OPT_BLOCK_ROWS] = {"--block-rows", NULL, OLIVE_OPT_VALUE, 0, "N",
                           "rows per generation block (tuning; never changes the file)"},
    [GC_OPT_BACKEND] = {"--backend", NULL, OLIVE_OPT_VALUE, 0, "auto|cpu|cuda",
                        "where uniform and gaussian rows and conductances are made: cuda on the GPU\n"
                        "  (node-local rank % devices under mpirun), auto (default) on\n"
                        "  the GPU when built with CUDA and a device is present; the file\n"
                        "  is bit-identical either way (this build: " GC_BACKENDS_BUILT ")"},
    [GC_OPT_HELP] = {"--help", "-h", OLIVE_OPT_FLAG, 0, ", --version", ""},
    [GC_OPT_VERSION] = {"--version", NULL, OLIVE_OPT_FLAG, 0, NULL, NULL},
};
_Static_assert(sizeof gc_opts / sizeof gc_opts[0] == GC_NOPTS, "an option without its entry");

/* --help: the sections' options in this order (every option once). */
static const int gc_generate_opts[] = {GC_OPT_OUTPUT, GC_OPT_MODEL, GC_OPT_CELLS, GC_OPT_DIMS, GC_OPT_GENERATOR,
                                       GC_OPT_DENSITY, GC_OPT_FIXED_DEGREE, GC_OPT_SIGMA, GC_OPT_SEED,
                                       GC_OPT_CONDUCTANCE, GC_OPT_CONDUCTANCE_BITS, GC_OPT_GCAL, GC_OPT_SYMMETRIC};
static const int gc_import_opts[] = {GC_OPT_IMPORT, GC_OPT_IMPORT_FORMAT, GC_OPT_TRANSPOSE, GC_OPT_DROP_SELF,
                                     GC_OPT_IMPORT_ATTRIBUTE, GC_OPT_IMPORT_POPULATION, GC_OPT_DUPLICATES};
static const int gc_other_opts[] = {GC_OPT_EXPORT_SONATA, GC_OPT_FORCE, GC_OPT_VERBOSE, GC_OPT_PROGRESS, GC_OPT_QUIET,
                                    GC_OPT_BLOCK_ROWS, GC_OPT_BACKEND, GC_OPT_HELP, GC_OPT_VERSION};

static void print_section(const int *ids, int n)
{
    for (int i = 0; i < n; i++) olive_print_option(&gc_opts[ids[i]], 29);
}

static void usage(void)
{
    printf("Usage: olive-genconn -o NET.h5 (--cells N | --dims X[xY[xZ]]) --generator NAME [options]\n"
           "   or: olive-genconn -o NET.h5 --import FILE --import-format edges|matrix|sonata [options]\n"
           "   or: olive-genconn -o NET.h5 --model MODEL (--cells N | --population NAME:N...) "
           "[--projection SPEC]... [options]\n"
           "\n"
           "Generates a gap-junction network of N cells, or imports one, and writes it as an olive\n"
           "network file (docs/FORMAT.md). The same seed gives a bit-identical file.\n"
           "\n");
    print_section(gc_generate_opts, OLIVE_NOPTS(gc_generate_opts));
    printf("\nImport (docs/IMPORT-EXPORT.md; --cells, --dims, --conductance and --conductance-bits as above):\n");
    print_section(gc_import_opts, OLIVE_NOPTS(gc_import_opts));
    printf("\n");
    print_section(gc_other_opts, OLIVE_NOPTS(gc_other_opts));
    printf("\nPrints one summary line on stdout. Exit status: 0 done, 1 error, 2 usage error.\n");
    olive_help_footer("olive-genconn", "docs/TUTORIAL.md, docs/FORMAT.md, docs/IMPORT-EXPORT.md");
}

const char *gc_generator_name(gc_generator g)
{
    return g == GC_UNIFORM ? "uniform" : g == GC_GAUSSIAN ? "gaussian" : "grid";
}

/* "X", "XxY" or "XxYxZ", each a positive integer, product < 2^31. */
static void parse_dims(const char *s, int64_t dims[3])
{
    char buf[128];
    if (strlen(s) >= sizeof buf) olive_usage_error("--dims: '%s' is too long", s);
    snprintf(buf, sizeof buf, "%s", s);
    int n = 0;
    dims[0] = dims[1] = dims[2] = 1;
    char *p = buf;
    for (;;) {
        char *x = strchr(p, 'x');
        if (x) *x = 0;
        if (n == 3) olive_usage_error("--dims: '%s' has more than three sizes (X[xY[xZ]])", s);
        dims[n++] = olive_parse_int("--dims", p, 1, INT32_MAX);
        if (!x) break;
        p = x + 1;
    }
    if (dims[0] * dims[1] > INT32_MAX || dims[0] * dims[1] * dims[2] > INT32_MAX)
        olive_usage_error("--dims: %s makes more than %d cells", s, INT32_MAX);
}

/* The options given, for the checks after the loop. */
typedef struct {
    int cells, dims, gen, density, sigma, format, attr, pop, dup, seed, backend;
    int bits;   /* --conductance-bits, or -1 */
} gc_seen;

static int parse_backend(const char *b)
{
    static const char *const names[] = {"auto", "cpu", "cuda"};
    static const int backends[] = {GC_BACKEND_AUTO, GC_BACKEND_CPU, GC_BACKEND_CUDA};
    const int k = olive_parse_choice("--backend", b, names, 3);
    if (backends[k] != GC_BACKEND_CUDA) return backends[k];
#ifndef OLIVE_HAVE_CUDA
    olive_die("--backend cuda: this olive-genconn was built without CUDA (rebuild with nvcc on the PATH "
              "or in /usr/local/cuda/bin; `olive-genconn --version` lists the backends built in)");
#endif
    return GC_BACKEND_CUDA;
}

/* Option id of the lattice, the generator or the values, its value v:
 * taken, 1; else 0. */
static int parse_generator_option(int id, const char *v, gc_config *cfg, gc_seen *h)
{
    const char *a = gc_opts[id].name;
    switch (id) {
    case GC_OPT_CELLS:
        cfg->count = olive_parse_int(a, v, 1, INT32_MAX);
        cfg->dims[0] = cfg->count;
        cfg->dims[1] = cfg->dims[2] = 1;
        h->cells = 1;
        break;
    case GC_OPT_DIMS: parse_dims(v, cfg->dims); h->dims = 1; break;
    case GC_OPT_GENERATOR: {
        static const char *const names[] = {"uniform", "gaussian", "grid"};
        static const gc_generator gens[] = {GC_UNIFORM, GC_GAUSSIAN, GC_GRID};
        cfg->gen = gens[olive_parse_choice(a, v, names, 3)];
        h->gen = 1;
        break;
    }
    case GC_OPT_DENSITY: cfg->density = olive_parse_double(a, v, 0, INT32_MAX); h->density = 1; break;
    case GC_OPT_SIGMA:
        cfg->sigma = olive_parse_double(a, v, 0, 1e9);
        if (cfg->sigma <= 0) olive_usage_error("--sigma: %s must be positive", v);
        h->sigma = 1;
        break;
    case GC_OPT_SEED: cfg->seed = (uint64_t)olive_parse_int(a, v, 0, INT64_MAX); h->seed = 1; break;
    case GC_OPT_CONDUCTANCE:
        cfg->w_range = olive_parse_range(a, v, 0, 1e6, &cfg->w_a, &cfg->w_b);
        cfg->have_w = 1;
        break;
    case GC_OPT_CONDUCTANCE_BITS:
        h->bits = (int)olive_parse_int(a, v, 0, 64);
        if (h->bits != 0 && h->bits != 4 && h->bits != 8 && h->bits != 16 && h->bits != 32 && h->bits != 64)
            olive_usage_error("--conductance-bits: %s is not 0, 4, 8, 16, 32 or 64", v);
        break;
    case GC_OPT_GCAL: cfg->gcal_range = olive_parse_range(a, v, 0, 1e6, &cfg->gcal_a, &cfg->gcal_b); break;
    case GC_OPT_SYMMETRIC: cfg->symmetric = 1; break;
    case GC_OPT_FIXED_DEGREE: cfg->fixed_degree = 1; break;
    case GC_OPT_BACKEND: cfg->backend = parse_backend(v); h->backend = 1; break;
    case GC_OPT_BLOCK_ROWS: cfg->block_rows = olive_parse_int(a, v, 1, INT32_MAX); break;
    default: return 0;
    }
    return 1;
}

/* Option id of --import or --export-sonata, its value v: taken, 1; else 0. */
static int parse_import_option(int id, const char *v, gc_config *cfg, gc_seen *h)
{
    const char *a = gc_opts[id].name;
    switch (id) {
    case GC_OPT_IMPORT:
        if (!*v) olive_usage_error("--import: empty file name");
        cfg->import_path = v;
        break;
    case GC_OPT_TRANSPOSE: cfg->import_transpose = 1; break;
    case GC_OPT_DROP_SELF: cfg->drop_self = 1; break;
    case GC_OPT_IMPORT_FORMAT: {
        static const char *const names[] = {"edges", "matrix", "sonata"};
        static const int formats[] = {GC_IMPORT_EDGES, GC_IMPORT_MATRIX, GC_IMPORT_SONATA};
        cfg->import_format = formats[olive_parse_choice(a, v, names, 3)];
        h->format = 1;
        break;
    }
    case GC_OPT_IMPORT_ATTRIBUTE:
        if (!*v || strchr(v, '/')) olive_usage_error("--import-attribute: '%s' is not a dataset name", v);
        cfg->import_attribute = v;
        h->attr = 1;
        break;
    case GC_OPT_IMPORT_POPULATION:
        if (!*v || strchr(v, '/')) olive_usage_error("--import-population: '%s' is not a population name", v);
        cfg->import_population = v;
        h->pop = 1;
        break;
    case GC_OPT_DUPLICATES: {
        static const char *const names[] = {"reject", "sum"};
        cfg->dup_sum = olive_parse_choice(a, v, names, 2);
        h->dup = 1;
        break;
    }
    case GC_OPT_EXPORT_SONATA:
        if (!*v) olive_usage_error("--export-sonata: empty prefix");
        cfg->export_prefix = v;
        break;
    default: return 0;
    }
    return 1;
}

/* Without --import: the import's options refused. With it: the generator's
 * options mean nothing and are refused; the cell count and bits settled. */
static void check_import(gc_config *cfg, const gc_seen *h)
{
    if (!cfg->import_path) {
        if (h->format) olive_usage_error("--import-format needs --import FILE");
        if (h->attr || h->pop) olive_usage_error("--import-attribute and --import-population need --import FILE");
        if (h->dup) olive_usage_error("--duplicates applies to --import only");
        if (cfg->drop_self || cfg->import_transpose) olive_usage_error("--drop-self and --transpose apply to --import only");
        return;
    }
    if (!h->format) olive_usage_error("--import needs --import-format edges|matrix|sonata");
    if (h->gen) olive_usage_error("give either --generator or --import, not both");
    if (h->density || h->sigma || cfg->fixed_degree || cfg->symmetric)
        olive_usage_error("--density, --sigma, --fixed-degree and --symmetric apply to generators, not to --import");
    if (cfg->block_rows) olive_usage_error("--block-rows applies to generators, not to --import");
    if (h->backend) olive_usage_error("--backend applies to generators, not to --import");
    if (cfg->import_transpose && cfg->import_format != GC_IMPORT_MATRIX)
        olive_usage_error("--transpose applies to --import-format matrix only");
    if ((h->attr || h->pop) && cfg->import_format != GC_IMPORT_SONATA)
        olive_usage_error("--import-attribute and --import-population apply to --import-format sonata only");
    if (cfg->w_range)
        olive_usage_error("--conductance with --import is the one value of junctions the file gives none; "
                          "a range %g:%g does not apply", cfg->w_a, cfg->w_b);
    if (h->seed && !cfg->gcal_range) olive_usage_error("--seed with --import applies to --gcal A:B only");
    if (h->cells && h->dims) olive_usage_error("give at most one of --cells N and --dims X[xY[xZ]]");
    cfg->count = h->cells || h->dims ? cfg->dims[0] * cfg->dims[1] * cfg->dims[2] : 0;
    if (cfg->gcal_range && cfg->gcal_a == cfg->gcal_b) cfg->gcal_range = 0;
    cfg->bits = h->bits;   /* -1: chosen from the values (import_pack.c) */
    cfg->density = cfg->sigma = 0;
}

/* A generated network: its lattice, generator and values settled. Options
 * that mean nothing for the chosen generator are refused rather than
 * silently ignored: a typo in a job script should not go unnoticed. */
static void check_generator(gc_config *cfg, const gc_seen *h)
{
    if (h->cells == h->dims) olive_usage_error("give exactly one of --cells N and --dims X[xY[xZ]]");
    if (!h->gen) olive_usage_error("no generator given (--generator uniform|gaussian|grid)");
    cfg->count = cfg->dims[0] * cfg->dims[1] * cfg->dims[2];
    const int64_t N = cfg->count;
    if (h->sigma && cfg->gen != GC_GAUSSIAN) olive_usage_error("--sigma applies to --generator gaussian only");
    if (cfg->fixed_degree && cfg->gen != GC_UNIFORM)
        olive_usage_error("--fixed-degree applies to --generator uniform only (gaussian degrees are always exact)");
    if (cfg->gen == GC_GRID) {
        if (h->density) olive_usage_error("--density does not apply to --generator grid (Moore neighbourhood: up to 8)");
        if (cfg->dims[2] != 1) olive_usage_error("--generator grid needs a 2-D lattice (--dims XxY), got Z = %lld", (long long)cfg->dims[2]);
        cfg->density = 0;
    } else {
        if (cfg->density > (double)(N - 1))
            olive_usage_error("--density %g exceeds N-1 = %lld (each cell has only N-1 possible partners)%s",
                              cfg->density, (long long)(N - 1), h->density ? "" : "; give a smaller --density");
        if ((cfg->gen == GC_GAUSSIAN || cfg->fixed_degree) && cfg->density != floor(cfg->density))
            olive_usage_error("--density %g must be an integer for %s", cfg->density,
                              cfg->fixed_degree ? "--fixed-degree" : "--generator gaussian");
    }
    if (cfg->gen != GC_GAUSSIAN) cfg->sigma = 0;
    /* A degenerate range A:A is a constant. */
    if (cfg->w_range && cfg->w_a == cfg->w_b) cfg->w_range = 0;
    if (cfg->gcal_range && cfg->gcal_a == cfg->gcal_b) cfg->gcal_range = 0;
    int bits = h->bits < 0 ? (cfg->w_range ? 8 : 0) : h->bits;
    if (bits == 0 && cfg->w_range)
        olive_usage_error("--conductance %g:%g is a range; it needs --conductance-bits 4, 8, 16, 32 or 64", cfg->w_a, cfg->w_b);
    cfg->bits = bits;
}

void gc_parse_args(int argc, char **argv, gc_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->density = 10;
    cfg->sigma = 5;
    cfg->seed = 1;
    cfg->w_a = cfg->w_b = 0.04;
    cfg->gcal_a = cfg->gcal_b = 0.68;
    gc_seen h = {.bits = -1};
    olive_check_options_or_die(argc, argv, gc_opts, OLIVE_NOPTS(gc_opts));
    for (int i = 1; i < argc; i++) {
        const char *v;
        const int id = olive_take_option(argc, argv, &i, gc_opts, GC_NOPTS, &v);
        if (id < 0) olive_usage_error("unexpected argument '%s'", argv[i]);
        if (parse_generator_option(id, v, cfg, &h) || parse_import_option(id, v, cfg, &h)) continue;
        switch (id) {
        case GC_OPT_HELP: usage(); exit(0);
        case GC_OPT_VERSION: printf("olive-genconn %s (backends: %s)\n", OLIVE_VERSION, GC_BACKENDS_BUILT); exit(0);
        case GC_OPT_OUTPUT:
            if (!*v) olive_usage_error("-o: empty file name");
            cfg->out_path = v;
            break;
        case GC_OPT_MODEL:   /* (any other model went to spiking_cli.c) */
            if (strcmp(v, "infoli")) olive_usage_error("--model: '%s' is not a model", v);
            break;
        case GC_OPT_FORCE: cfg->force = 1; break;
        case GC_OPT_VERBOSE: olive_verbose = 1; break;
        case GC_OPT_QUIET: olive_quiet = 1; break;
        case GC_OPT_PROGRESS: olive_progress_forced = 1; break;
        default: olive_die("internal: option %s has no case", gc_opts[id].name);
        }
    }
    if (!cfg->out_path) olive_usage_error("no output file given (-o NET.h5)");
    check_import(cfg, &h);
    if (!cfg->import_path) check_generator(cfg, &h);
}
