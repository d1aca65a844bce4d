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

static void usage(void)
{
    printf("Usage: olive-genconn -o NET.h5 (--cells N | --dims X[xY[xZ]]) --generator NAME [options]\n"
           "   or: olive-genconn -o NET.h5 --import FILE --import-format edges|matrix|sonata [options]\n"
           "   or: olive-genconn -o NET.h5 --model MODEL (--cells N | --population NAME:N...) "
           "[--projection SPEC]... [options]\n"
           "\n"
           "Generates a gap-junction network of N cells, or imports one, and writes it as an olive\n"
           "network file (docs/FORMAT.md). The same seed gives a bit-identical file.\n"
           "\n"
           "  -o, --output NET.h5        output file (refused if it exists, unless --force)\n"
           "  --model lif_cuba|lif_coba  a spiking network of integrate-and-fire cells and chemical\n"
           "                               synapses instead (its options: olive-genconn --model lif_cuba --help)\n"
           "  --cells N                  N cells on an N x 1 x 1 lattice\n"
           "  --dims X[xY[xZ]]           cells on an X x Y x Z lattice (X*Y*Z cells)\n"
           "  --generator NAME           uniform: every other cell is a partner with p = K/(N-1)\n"
           "                               (degree Binomial(N-1, p), mean K)\n"
           "                             gaussian: exactly K distinct partners per cell, drawn with\n"
           "                               probability ∝ exp(-d²/(2 sigma²)), d the lattice distance (no wrap)\n"
           "                             grid: the 8-neighbour (Moore) mesh on X x Y, Z = 1, no wrap\n"
           "  --density K                partners per cell (default 10; 0 allowed; an integer for\n"
           "                               gaussian and --fixed-degree)\n"
           "  --fixed-degree             uniform: exactly K distinct partners per cell\n"
           "  --sigma S                  gaussian width in lattice units (default 5)\n"
           "  --seed S                   random seed, 0 <= S < 2^63 (default 1)\n"
           "  --conductance W | A:B      constant W, or uniform in [A, B] per junction (default 0.04)\n"
           "  --conductance-bits B       0 (constant), 4, 8, 16 (quantised codes), 32 (float32)\n"
           "                               or 64 (float64: every value exactly as drawn)\n"
           "                               (default 0 for a constant, 8 for a range)\n"
           "  --gcal V | A:B             g_CaL per cell, constant or uniform in [A, B] (default 0.68)\n"
           "  --symmetric                add the mirror of every junction (w_ij = w_ji)\n"
           "\n"
           "Import (docs/IMPORT-EXPORT.md):\n"
           "  --import FILE              read the junctions from FILE instead of generating them\n"
           "  --import-format F          edges: lines 'source target [conductance]' (spaces, tabs or\n"
           "                               commas; '#' comments; the target receives from the source)\n"
           "                             matrix: N lines of N numbers (the original InfOli\n"
           "                               cellConnections.txt), entry (i, j) != 0 is a junction\n"
           "                               from cell i (the sender) into cell j with that conductance\n"
           "  --transpose                matrix: line i is the receiving cell instead\n"
           "  --drop-self                drop self junctions (cell to itself), printing how many;\n"
           "                               without it an import holding one is refused\n"
           "                             sonata: a SONATA edges file (source_node_id, target_node_id)\n"
           "  --import-attribute NAME    sonata: the conductance dataset /edges/POP/0/NAME (default\n"
           "                               conductance, else syn_weight)\n"
           "  --import-population NAME   sonata: the edge population (default: the only one)\n"
           "  --duplicates reject|sum    a junction listed twice is an error (default) or has the\n"
           "                               sum of the conductances\n"
           "  --cells N / --dims ...     the cell count (default: the largest id + 1; matrix: N);\n"
           "                               ids >= N are refused\n"
           "  --conductance W            edges lines without a conductance (and sonata files without\n"
           "                               the attribute) get W (default 0.04)\n"
           "  --conductance-bits B       0 (all junctions equal: the default then), 32 (float32: the\n"
           "                               default otherwise), 64 (float64: the file's values exactly,\n"
           "                               as the original InfOli code reads them), or 4/8/16\n"
           "                               (quantised between the smallest and largest conductance;\n"
           "                               the error is reported)\n"
           "\n"
           "  --export-sonata PREFIX     also write PREFIX_nodes.h5 and PREFIX_edges.h5 (SONATA,\n"
           "                               population io, edge attribute conductance)\n"
           "  --force                    replace an existing output file\n"
           "  -v, --verbose              details and timings on stderr\n"
           "  --progress                 show progress even when stderr is not a terminal\n"
           "  -q, --quiet                print nothing but errors\n"
           "  --block-rows N             rows per generation block (tuning; never changes the file)\n"
           "  --backend auto|cpu|cuda    where uniform and gaussian rows and conductances are made: cuda on the GPU\n"
           "                               (node-local rank %% devices under mpirun), auto (default) on\n"
           "                               the GPU when built with CUDA and a device is present; the file\n"
           "                               is bit-identical either way (this build: %s)\n"
           "  -h, --help, --version\n"
           "\n"
           "Prints one summary line on stdout. Exit status: 0 done, 1 error, 2 usage error.\n", GC_BACKENDS_BUILT);
    olive_help_footer("olive-genconn", "docs/TUTORIAL.md, docs/FORMAT.md, docs/IMPORT-EXPORT.md");
}

/* Every option of usage(), none repeatable (tests/test_cli_conventions.sh
 * holds the two together); the pre-pass refuses the others. */
static const olive_opt gc_opts[] = {
    GC_COMMON_OPTS,
    {"--dims", NULL, OLIVE_OPT_VALUE, 0, NULL, NULL}, {"--generator", NULL, OLIVE_OPT_VALUE, 0, NULL, NULL},
    {"--density", NULL, OLIVE_OPT_VALUE, 0, NULL, NULL}, {"--fixed-degree", NULL, OLIVE_OPT_FLAG, 0, NULL, NULL},
    {"--sigma", NULL, OLIVE_OPT_VALUE, 0, NULL, NULL}, {"--conductance", NULL, OLIVE_OPT_VALUE, 0, NULL, NULL},
    {"--conductance-bits", NULL, OLIVE_OPT_VALUE, 0, NULL, NULL}, {"--gcal", NULL, OLIVE_OPT_VALUE, 0, NULL, NULL},
    {"--symmetric", NULL, OLIVE_OPT_FLAG, 0, NULL, NULL}, {"--import", NULL, OLIVE_OPT_VALUE, 0, NULL, NULL},
    {"--import-format", NULL, OLIVE_OPT_VALUE, 0, NULL, NULL}, {"--transpose", NULL, OLIVE_OPT_FLAG, 0, NULL, NULL},
    {"--drop-self", NULL, OLIVE_OPT_FLAG, 0, NULL, NULL}, {"--import-attribute", NULL, OLIVE_OPT_VALUE, 0, NULL, NULL},
    {"--import-population", NULL, OLIVE_OPT_VALUE, 0, NULL, NULL}, {"--duplicates", NULL, OLIVE_OPT_VALUE, 0, NULL, NULL},
    {"--progress", NULL, OLIVE_OPT_FLAG, 0, NULL, NULL}, {"--block-rows", NULL, OLIVE_OPT_VALUE, 0, NULL, NULL},
    {"--backend", NULL, OLIVE_OPT_VALUE, 0, NULL, NULL},
};

static const char *need_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) olive_usage_error("%s needs a value", argv[*i]);
    return argv[++*i];
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

/* An option of the lattice, the generator or the values (argv[*i]): taken,
 * 1; else 0. */
static int parse_generator_option(int argc, char **argv, int *i, gc_config *cfg, gc_seen *h)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--cells")) {
        cfg->count = olive_parse_int(a, need_value(argc, argv, i), 1, INT32_MAX);
        cfg->dims[0] = cfg->count;
        cfg->dims[1] = cfg->dims[2] = 1;
        h->cells = 1;
    } else if (!strcmp(a, "--dims")) {
        parse_dims(need_value(argc, argv, i), cfg->dims);
        h->dims = 1;
    } else if (!strcmp(a, "--generator")) {
        static const char *const names[] = {"uniform", "gaussian", "grid"};
        static const gc_generator gens[] = {GC_UNIFORM, GC_GAUSSIAN, GC_GRID};
        cfg->gen = gens[olive_parse_choice(a, need_value(argc, argv, i), names, 3)];
        h->gen = 1;
    } else if (!strcmp(a, "--density")) {
        cfg->density = olive_parse_double(a, need_value(argc, argv, i), 0, INT32_MAX);
        h->density = 1;
    } else if (!strcmp(a, "--sigma")) {
        const char *v = need_value(argc, argv, i);
        cfg->sigma = olive_parse_double(a, v, 0, 1e9);
        if (cfg->sigma <= 0) olive_usage_error("--sigma: %s must be positive", v);
        h->sigma = 1;
    } else if (!strcmp(a, "--seed")) {
        cfg->seed = (uint64_t)olive_parse_int(a, need_value(argc, argv, i), 0, INT64_MAX);
        h->seed = 1;
    } else if (!strcmp(a, "--conductance")) {
        cfg->w_range = olive_parse_range(a, need_value(argc, argv, i), 0, 1e6, &cfg->w_a, &cfg->w_b);
        cfg->have_w = 1;
    } else if (!strcmp(a, "--conductance-bits")) {
        const char *v = need_value(argc, argv, i);
        h->bits = (int)olive_parse_int(a, v, 0, 64);
        if (h->bits != 0 && h->bits != 4 && h->bits != 8 && h->bits != 16 && h->bits != 32 && h->bits != 64)
            olive_usage_error("--conductance-bits: %s is not 0, 4, 8, 16, 32 or 64", v);
    } else if (!strcmp(a, "--gcal")) {
        cfg->gcal_range = olive_parse_range(a, need_value(argc, argv, i), 0, 1e6, &cfg->gcal_a, &cfg->gcal_b);
    } else if (!strcmp(a, "--symmetric")) {
        cfg->symmetric = 1;
    } else if (!strcmp(a, "--fixed-degree")) {
        cfg->fixed_degree = 1;
    } else if (!strcmp(a, "--backend")) {
        cfg->backend = parse_backend(need_value(argc, argv, i));
        h->backend = 1;
    } else if (!strcmp(a, "--block-rows")) {
        cfg->block_rows = olive_parse_int(a, need_value(argc, argv, i), 1, INT32_MAX);
    } else {
        return 0;
    }
    return 1;
}

/* An option of --import or --export-sonata (argv[*i]): taken, 1; else 0. */
static int parse_import_option(int argc, char **argv, int *i, gc_config *cfg, gc_seen *h)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--import")) {
        cfg->import_path = need_value(argc, argv, i);
        if (!*cfg->import_path) olive_usage_error("--import: empty file name");
    } else if (!strcmp(a, "--transpose")) {
        cfg->import_transpose = 1;
    } else if (!strcmp(a, "--drop-self")) {
        cfg->drop_self = 1;
    } else if (!strcmp(a, "--import-format")) {
        static const char *const names[] = {"edges", "matrix", "sonata"};
        static const int formats[] = {GC_IMPORT_EDGES, GC_IMPORT_MATRIX, GC_IMPORT_SONATA};
        cfg->import_format = formats[olive_parse_choice(a, need_value(argc, argv, i), names, 3)];
        h->format = 1;
    } else if (!strcmp(a, "--import-attribute")) {
        cfg->import_attribute = need_value(argc, argv, i);
        if (!*cfg->import_attribute || strchr(cfg->import_attribute, '/'))
            olive_usage_error("--import-attribute: '%s' is not a dataset name", cfg->import_attribute);
        h->attr = 1;
    } else if (!strcmp(a, "--import-population")) {
        cfg->import_population = need_value(argc, argv, i);
        if (!*cfg->import_population || strchr(cfg->import_population, '/'))
            olive_usage_error("--import-population: '%s' is not a population name", cfg->import_population);
        h->pop = 1;
    } else if (!strcmp(a, "--duplicates")) {
        static const char *const names[] = {"reject", "sum"};
        cfg->dup_sum = olive_parse_choice(a, need_value(argc, argv, i), names, 2);
        h->dup = 1;
    } else if (!strcmp(a, "--export-sonata")) {
        cfg->export_prefix = need_value(argc, argv, i);
        if (!*cfg->export_prefix) olive_usage_error("--export-sonata: empty prefix");
    } else {
        return 0;
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
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(); exit(0); }
        else if (!strcmp(a, "--version")) { printf("olive-genconn %s (backends: %s)\n", OLIVE_VERSION, GC_BACKENDS_BUILT); exit(0); }
        else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            cfg->out_path = need_value(argc, argv, &i);
            if (!*cfg->out_path) olive_usage_error("-o: empty file name");
        }
        else if (!strcmp(a, "--model")) {   /* any other model went to spiking_cli.c */
            const char *m = need_value(argc, argv, &i);
            if (strcmp(m, "infoli")) olive_usage_error("--model: '%s' is not a model", m);
        }
        else if (parse_generator_option(argc, argv, &i, cfg, &h) || parse_import_option(argc, argv, &i, cfg, &h)) continue;
        else if (!strcmp(a, "--force")) cfg->force = 1;
        else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) olive_verbose = 1;
        else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) olive_quiet = 1;
        else if (!strcmp(a, "--progress")) olive_progress_forced = 1;
        else if (a[0] == '-') olive_usage_error("unknown option '%s'", a);
        else olive_usage_error("unexpected argument '%s'", a);
    }
    if (!cfg->out_path) olive_usage_error("no output file given (-o NET.h5)");
    check_import(cfg, &h);
    if (!cfg->import_path) check_generator(cfg, &h);
}
