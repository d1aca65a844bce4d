/* Command line of olive-genconn for spiking networks (--model lif_cuba|lif_coba|hh_traub|hh_cable). */
#include "spiking_net.h"
#include "genconn.h"
#include "model_plugin.h"
#include "model_places.h"
#include "plasticity_io.h"
#include "cable_model.h"
#include "popparam.h"
#include "rng_normal.h"
#include "util.h"
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gc_spiking_requested(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--model")) return strcmp(argv[i + 1], "infoli") != 0;
    return 0;
}

/* Words of a table in --help, wrapped before column 105: lead, then each
 * word after sep, a continuation line starting with cont. */
static void put_words(const char *lead, const char *const *w, int n, const char *sep, const char *cont)
{
    int col = printf("%s", lead);
    for (int i = 0; i < n; i++) {
        if (i && col + (int)(strlen(sep) + strlen(w[i])) > 104) {
            printf("%.*s\n", (int)strcspn(sep, " "), sep);   /* (a separator's mark ends the line, its space does not) */
            col = printf("%s", cont);
        } else if (i) {
            col += printf("%s", sep);
        }
        col += printf("%s", w[i]);
    }
    printf("\n");
}

/* Each built-in spiking model's parameters, from the model table. */
static void usage_model_params(void)
{
    const char *names[32];
    const int n = olive_spiking_model_list(names, 32);
    for (int i = 0; i < n; i++) {
        const olive_cell_model *m = olive_model_find(names[i]);
        const char *w[64];
        int k = 0;
        for (int j = 0; j < m->nparams && k < 64; j++)   /* (hh_swc's TYPE.NAME: after the list, in words) */
            if (!strchr(m->params[j].name, '.')) w[k++] = m->params[j].name;
        char lead[96];
        snprintf(lead, sizeof lead, "                               %s: ", m->name);
        put_words(lead, w, k, " ", "                                 ");
    }
}

/* The plasticity rules and their parameters, from the rules' table. */
static void usage_plasticity(void)
{
    const char *rules[OLIVE_PLAST_NRULES];
    for (int r = 1; r < OLIVE_PLAST_NRULES; r++) rules[r - 1] = olive_plast_rule_name(r);
    put_words("                               plasticity=", rules, OLIVE_PLAST_NRULES - 1, "|",
              "                                 ");
    printf("                                 with parameters by NEST's names (its defaults where left out;\n"
           "                                 docs/MODELS.md):\n");
    for (int r = 1; r < OLIVE_PLAST_NRULES; r++) {
        const char *w[32];
        int k = 0;
        for (; k < olive_plast_npar(r) && k < 32; k++) w[k] = olive_plast_par_name(r, k);
        char lead[96];
        snprintf(lead, sizeof lead, "                                 %s: ", olive_plast_rule_name(r));
        put_words(lead, w, k, ", ", "                                   ");
    }
}

/* The options of the spiking command line, --help's lines of them and the
 * parser's cases. */
enum {
    SPK_OPT_POPULATION = GC_NCOMMON, SPK_OPT_SOURCE_POISSON, SPK_OPT_PARAM, SPK_OPT_MORPHOLOGY, SPK_OPT_BIOPHYSICS, SPK_OPT_MECHANISMS, SPK_OPT_SYNAPSE_MECHANISM, SPK_OPT_MODEL_PATH,
    SPK_OPT_V0, SPK_OPT_PROJECTION, SPK_OPT_IMPORT_SYNAPSES, SPK_OPT_IMPORT_EDGE_TYPES, SPK_OPT_IMPORT_SYNAPTIC_MODELS,
    SPK_OPT_IMPORT_CIRCUIT, SPK_OPT_IMPORT_NODE_POPULATION, SPK_OPT_IMPORT_SPIKES, SPK_OPT_DT, SPK_OPT_PROCEDURAL,
    SPK_OPT_PROJECTIONS, SPK_OPT_MERGE, SPK_NOPTS
};
static const olive_opt spk_opts[] = {
    [GC_OPT_OUTPUT] = {"--output", "-o", OLIVE_OPT_VALUE, 0, "NET.h5", "output file (refused if it exists, unless --force)"},
    [GC_OPT_MODEL] = {"--model", NULL, OLIVE_OPT_VALUE, 0, "M",
                      "a built-in model (below; docs/MODELS.md; the alpha forms: NEST's\n"
                      "  iaf_psc_alpha and iaf_cond_alpha; hh_traub: NEST's hh_cond_exp_traub;\n"
                      "  hh_cable: NEURON's ball-and-stick; hh_swc: a cell of an SWC file)\n"
                      "  or a plugin: PATH.so, or the NAME of one in --model-path,\n"
                      "  OLIVE_MODEL_PATH or the model cache (docs/MODELS.md); built in:"},
    [SPK_OPT_MODEL_PATH] = {"--model-path", NULL, OLIVE_OPT_VALUE, 1, "DIR|FILE.so",
                            "where a plugin's NAME is looked for first (repeatable)"},
    [GC_OPT_CELLS] = {"--cells", NULL, OLIVE_OPT_VALUE, 0, "N", "one population 'all' of N cells"},
    [SPK_OPT_POPULATION] = {"--population", NULL, OLIVE_OPT_VALUE, 1, "NAME:N",
                            "a population of N cells (ids follow in the order given)"},
    [SPK_OPT_SOURCE_POISSON] = {"--source-poisson", NULL, OLIVE_OPT_VALUE, 1, "NAME:N:RATE[:START[:DURATION]]",
                                "a population of N Poisson spike sources (Hz, ms; PyNN's\n"
                                "  SpikeSourcePoisson), ids in the order given with --population"},
    [SPK_OPT_PARAM] = {"--param", NULL, OLIVE_OPT_VALUE, 1, "NAME=VALUE[@POP]",
                       "a model parameter, for every population or POP only (also\n"
                       "  POP.NAME=VALUE; spike sources: rate start duration), of:"},
    [SPK_OPT_MORPHOLOGY] = {"--morphology", NULL, OLIVE_OPT_VALUE, 1, "FILE[@POP]",
                            "hh_swc, biophys_swc: the SWC file of every population, or of POP"},
    [SPK_OPT_BIOPHYSICS] = {"--biophysics", NULL, OLIVE_OPT_VALUE, 1, "FILE[@POP]",
                            "biophys_swc: the cells' biophysics: an Allen Cell Types fit JSON\n"
                            "  (perisomatic), or olive's statements (docs/MODELS.md)"},
    [SPK_OPT_MECHANISMS] = {"--mechanisms", NULL, OLIVE_OPT_VALUE, 1, "NAME[@POP]",
                            "biophys_swc: the NMODL mechanism library (olive-model build DIR)"},
    [SPK_OPT_SYNAPSE_MECHANISM] = {"--synapse-mechanism", NULL, OLIVE_OPT_VALUE, 1, "REC=NAME[@POP]",
                                   "biophys_swc: receptor REC's (ge, gi) synapses at sites are the\n"
                                   "  library's POINT_PROCESS NAME (NEURON's Exp2Syn ...), not olive's own"},
    [SPK_OPT_V0] = {"--v0", NULL, OLIVE_OPT_VALUE, 1, "A:B[@POP] | normal:MEAN:SD[@POP]",
                    "initial potentials per cell, uniform in [A, B) mV or normal (mV)"},
    [SPK_OPT_PROJECTION] = {"--projection", NULL, OLIVE_OPT_VALUE, 1, "SPEC",
                            "from=POP,to=POP,RULE,weight=VALUE,delay=VALUE,receptor=ge|gi\n"
                            "  [,name=NAME][,autapses=yes|no][,sites=SITES]; POP may be 'all';\n"
                            "  RULE: p=P (every ordered pair once with probability P),\n"
                            "  indegree=K (K sources per target, drawn with replacement),\n"
                            "  total=N (N synapses, each a target and a source drawn uniformly\n"
                            "  with replacement: NEST's fixed_total_number, multapses allowed),\n"
                            "  outdegree=K (K targets per source, drawn with replacement: the rule\n"
                            "  NEST names fixed_outdegree; procedural: the CUDA engine draws\n"
                            "  them at each spike instead of storing them),\n"
                            "  total_out=N (N synapses as total=, drawn source by source: each\n"
                            "  source's count from the multinomial, then its targets; autapses\n"
                            "  allowed; procedural: drawn at each spike too, the multi-area model);\n"
                            "  weight in mV (lif_cuba), nS (lif_coba, hh_traub) or uS (hh_cable),\n"
                            "  delays in ms rounded to the nearest step of --dt;\n"
                            "  VALUE: X (constant), A:B (uniform in [A, B) per synapse) or\n"
                            "  normal:MEAN:SD[:LOW:HIGH] (normal per synapse, drawn again while\n"
                            "  outside [LOW, HIGH], as NEST's redraw; LOW/HIGH may be -inf/inf;\n"
                            "  a normal delay needs LOW > 0, e.g. NEST's microcircuit:\n"
                            "  weight=normal:87.8:8.78:0:inf,delay=normal:1.5:0.75:0.1:inf)\n"
                            "  sites= (hh_swc, hh_cable): where on its target each synapse sits:\n"
                            "    TYPES[:DMIN:DMAX] uniform over the length of the sections of\n"
                            "    TYPES (soma+axon+dend+apic+custom) at path distance DMIN..DMAX um\n"
                            "    from soma(0.5) (default 0:inf), e.g. sites=dend+apic:50:300;\n"
                            "    @FILE uniform among FILE's lines 'SECTION_NAME X' (dend[3] 0.25)"},
    [SPK_OPT_PROJECTIONS] = {"--projections", NULL, OLIVE_OPT_VALUE, 1, "FILE",
                             "--projection SPEC for every line of FILE ('#' starts a comment;\n"
                             "  blank lines skipped): a network of thousands of projections, as\n"
                             "  the multi-area model's (examples/multiarea); errors name FILE and line"},
    [SPK_OPT_MERGE] = {"--merge-projections", NULL, OLIVE_OPT_FLAG, 0, NULL,
                       "write the drawn projections as one per receptor (named after it,\n"
                       "  each synapse's weight and delay kept): the same synapses, a file and\n"
                       "  a run that do not grow with the number of projections (not with\n"
                       "  --procedural, sites= or plasticity=)"},
    [SPK_OPT_IMPORT_SYNAPSES] = {"--import-synapses", NULL, OLIVE_OPT_VALUE, 0, "EDGES.h5",
                                 "the synapses of a SONATA edges file (one population), one\n"
                                 "  projection per edge_type_id: syn_weight and delay (ms) per edge\n"
                                 "  in group 0, or from the edge types file; receptor from its\n"
                                 "  'receptor' column, else (lif_cuba) by the weight's sign"},
    [SPK_OPT_IMPORT_EDGE_TYPES] = {"--import-edge-types", NULL, OLIVE_OPT_VALUE, 0, "CSV",
                                   "the SONATA edge types table of --import-synapses; a model_template\n"
                                   "  of NEST's (stdp_synapse, stdp_nn_symm_synapse, tsodyks_synapse,\n"
                                   "  tsodyks2_synapse; static_synapse) makes the type's projection\n"
                                   "  plastic, its parameters from the JSON file of its dynamics_params"},
    [SPK_OPT_IMPORT_SYNAPTIC_MODELS] = {"--import-synaptic-models", NULL, OLIVE_OPT_VALUE, 0, "DIR",
                                        "where those JSON files are (bmtk's synaptic_models_dir;\n"
                                        "  default: the edge types file's directory)"},
    [SPK_OPT_IMPORT_CIRCUIT] = {"--import-circuit", NULL, OLIVE_OPT_VALUE, 0, "CONFIG.json",
                                "hh_swc, biophys_swc: the populations of a SONATA circuit's\n"
                                "  biophysical nodes (instead of --cells/--population): one per node\n"
                                "  type and morphology, SWC files from morphologies_dir, parameters\n"
                                "  from the node types' dynamics_params (Allen perisomatic form;\n"
                                "  hh_swc: pas, hh; biophys_swc: any mechanism of --mechanisms);\n"
                                "  --param and --morphology apply on top; biophys_swc: also the\n"
                                "  config's edges (bmtk BioNet's exp2syn synapses at their\n"
                                "  afferent_section_id/pos) and --import-spikes"},
    [SPK_OPT_IMPORT_SPIKES] = {"--import-spikes", NULL, OLIVE_OPT_VALUE, 1, "SPIKES.h5",
                               "biophys_swc: a SONATA spikes file whose /spikes/POP trains drive\n"
                               "  the circuit's virtual node population POP (spike_source_array\n"
                               "  cells after the imported ones; repeatable)"},
    [SPK_OPT_IMPORT_NODE_POPULATION] = {"--import-node-population", NULL, OLIVE_OPT_VALUE, 0, "NAME",
                                        "the node population of --import-circuit (when it has several)"},
    [GC_OPT_EXPORT_SONATA] = {"--export-sonata", NULL, OLIVE_OPT_VALUE, 0, "PREFIX",
                              "also write PREFIX_nodes.h5, PREFIX_edges.h5 (syn_weight, delay\n"
                              "  in ms), PREFIX_node_types.csv, PREFIX_edge_types.csv (receptor,\n"
                              "  projection) and PREFIX_circuit_config.json"},
    [SPK_OPT_PROCEDURAL] = {"--procedural", NULL, OLIVE_OPT_FLAG, 0, NULL,
                            "store each --projection as its rule and seed alone (no synapses in\n"
                            "  NET.h5): every reader draws the rows it needs, the same synapses\n"
                            "  the file would hold (not with sites= or --export-sonata)"},
    [SPK_OPT_DT] = {"--dt", NULL, OLIVE_OPT_VALUE, 0, "MS",
                    "the step the delays are counted in (default: the model's, 0.1 ms\n"
                    "  for lif_*, 0.01 for hh_traub, 0.025 for hh_cable and hh_swc)"},
    [GC_OPT_SEED] = {"--seed", NULL, OLIVE_OPT_VALUE, 0, "S", "random seed, 0 <= S < 2^63 (default 1)"},
    [GC_OPT_FORCE] = {"--force", NULL, OLIVE_OPT_FLAG, 0, NULL, "overwrite NET.h5"},
    [GC_OPT_QUIET] = {"--quiet", "-q", OLIVE_OPT_FLAG, 0, NULL, "print nothing but errors"},
    [GC_OPT_VERBOSE] = {"--verbose", "-v", OLIVE_OPT_FLAG, 0, NULL, "details and timings on stderr"},
    [GC_OPT_HELP] = {"--help", "-h", OLIVE_OPT_FLAG, 0, ", --version", ""},
    [GC_OPT_VERSION] = {"--version", NULL, OLIVE_OPT_FLAG, 0, NULL, NULL},
};
_Static_assert(sizeof spk_opts / sizeof spk_opts[0] == SPK_NOPTS, "an option without its entry");

/* --help: the options in this order; the built-in models, their parameters
 * and the plasticity rules after their options' lines, from their tables
 * (a new model or rule is listed without an edit here). */
static const int spk_help_order[] = {
    GC_OPT_OUTPUT, GC_OPT_MODEL, SPK_OPT_MODEL_PATH, GC_OPT_CELLS, SPK_OPT_POPULATION, SPK_OPT_SOURCE_POISSON,
    SPK_OPT_PARAM, SPK_OPT_MORPHOLOGY, SPK_OPT_BIOPHYSICS, SPK_OPT_MECHANISMS, SPK_OPT_SYNAPSE_MECHANISM, SPK_OPT_V0, SPK_OPT_PROJECTION, SPK_OPT_PROJECTIONS, SPK_OPT_MERGE, SPK_OPT_IMPORT_SYNAPSES,
    SPK_OPT_IMPORT_EDGE_TYPES, SPK_OPT_IMPORT_SYNAPTIC_MODELS, SPK_OPT_IMPORT_CIRCUIT, SPK_OPT_IMPORT_NODE_POPULATION,
    SPK_OPT_IMPORT_SPIKES, GC_OPT_EXPORT_SONATA, SPK_OPT_PROCEDURAL, SPK_OPT_DT, GC_OPT_SEED, GC_OPT_FORCE, GC_OPT_QUIET, GC_OPT_VERBOSE,
    GC_OPT_HELP, GC_OPT_VERSION,
};

static void usage(void)
{
    printf("Usage: olive-genconn -o NET.h5 --model MODEL (--cells N | --population NAME:N...) "
           "[--projection SPEC]... [options]\n"
           "\n"
           "Generates a spiking network (docs/MODELS.md): populations of integrate-and-fire or Hodgkin-Huxley cells and\n"
           "projections of delayed chemical synapses, written as an olive network file\n"
           "(docs/FORMAT.md). The same seed gives a bit-identical file.\n"
           "\n");
    for (size_t k = 0; k < sizeof spk_help_order / sizeof spk_help_order[0]; k++) {
        const int id = spk_help_order[k];
        olive_print_option(&spk_opts[id], 29);
        if (id == GC_OPT_MODEL) {
            const char *names[32];
            put_words("                                 ", names, olive_spiking_model_list(names, 32), ", ",
                      "                                 ");
        } else if (id == SPK_OPT_PARAM) {
            usage_model_params();
            printf("                               and hh_swc's per section type\n"
                   "                                 (soma axon dend apic custom) TYPE.Ra TYPE.cm TYPE.hh TYPE.gnabar\n"
                   "                                 TYPE.gkbar TYPE.gl TYPE.el TYPE.ena TYPE.ek TYPE.pas TYPE.g_pas\n"
                   "                                 TYPE.e_pas (e.g. dend.g_pas=5e-5; hh, pas: 1 inserted, 0 not)\n"
                   "                               hh_tables: hh's rates from NEURON's table (1, NEURON's default)\n"
                   "                                 or from its formulas (0: usetable_hh = 0)\n");
        } else if (id == SPK_OPT_PROJECTION) {
            usage_plasticity();
        }
    }
    olive_print_repeatable(spk_opts, SPK_NOPTS);
    olive_help_footer("olive-genconn", "docs/MODELS.md, docs/FORMAT.md, docs/IMPORT-EXPORT.md");
}

static int find_pop(const gc_spk_config *cfg, const char *name)
{
    for (int i = 0; i < cfg->pops.n; i++)
        if (!strcmp(cfg->pops.pop[i].name, name)) return i;
    return -1;
}

static void check_name(const char *opt, const char *name)
{
    /* the file's rule (olive_name_fault, which olive-simulate applies), and the separators of these options */
    const char *bad = olive_name_fault(name);
    if (bad || strpbrk(name, ",:=@ "))
        olive_usage_error("%s: '%s' is not a valid name (1-63 characters, none of / , : = @ or space%s%s)", opt, name,
                          bad ? "; it " : "", bad ? bad : "");
}

/* "A" or "A:B" into a, b (b = a for a constant). */
static void parse_value_or_range(const char *opt, const char *what, const char *v, double lo, double hi, double *a, double *b)
{
    if (strchr(v, ':')) {
        if (!olive_parse_range(opt, v, lo, hi, a, b) || !(*a <= *b))
            olive_usage_error("%s: %s '%s' must be A:B with A <= B", opt, what, v);
    } else {
        *a = *b = olive_parse_double(opt, v, lo, hi);
    }
}

/* A truncation bound of normal:...: a number, or inf / -inf for none. */
static double parse_bound(const char *opt, const char *s)
{
    if (!strcmp(s, "inf") || !strcmp(s, "+inf")) return INFINITY;
    if (!strcmp(s, "-inf")) return -INFINITY;
    return olive_parse_double(opt, s, -1e9, 1e9);
}

/* "normal:MEAN:SD[:LOW:HIGH]" (arg the projection, for the messages) into
 * x: normal(MEAN, SD) redrawn outside [LOW, HIGH] (default -inf:inf);
 * SD = 0 is the constant MEAN. */
static void parse_normal(const char *arg, const char *what, const char *v, gc_value *x)
{
    char buf[256], *f[6], opt[300];
    int nf = 0;
    snprintf(opt, sizeof opt, "--projection %s: %s", arg, what);
    snprintf(buf, sizeof buf, "%s", v + strlen("normal:"));
    for (char *p = buf, *t; nf < 6 && (t = strsep(&p, ":"));) f[nf++] = t;
    if (nf != 2 && nf != 4)
        olive_usage_error("--projection %s: %s '%s' must be normal:MEAN:SD or normal:MEAN:SD:LOW:HIGH", arg, what, v);
    x->mean = olive_parse_double(opt, f[0], -1e9, 1e9);
    x->sd = olive_parse_double(opt, f[1], -1e9, 1e9);
    x->lo = nf == 4 ? parse_bound(opt, f[2]) : -INFINITY;
    x->hi = nf == 4 ? parse_bound(opt, f[3]) : INFINITY;
    if (x->sd < 0) olive_usage_error("--projection %s: %s '%s': the standard deviation %g is negative", arg, what, v, x->sd);
    if (!(x->lo < x->hi)) olive_usage_error("--projection %s: %s '%s': LOW %g is not below HIGH %g", arg, what, v, x->lo, x->hi);
    if (x->sd == 0) {
        if (x->mean < x->lo || x->mean > x->hi)
            olive_usage_error("--projection %s: %s '%s': SD 0 gives MEAN, outside [LOW, HIGH]", arg, what, v);
        x->a = x->b = x->mean;
        return;
    }
    const double kept = olive_normal_kept(x->mean, x->sd, x->lo, x->hi);
    if (!(kept >= OLIVE_NORMAL_MIN_KEPT))
        olive_usage_error("--projection %s: %s '%s': only %.3g of the distribution lies in [LOW, HIGH] (at least %g "
                          "needed, or the redraws would not end: move the bounds or the mean)", arg, what, v, kept,
                          OLIVE_NORMAL_MIN_KEPT);
    x->normal = 1;
    x->a = x->lo;
    x->b = x->hi;
}

/* weight= or delay= of projection arg: constant, uniform A:B or normal:... */
static void parse_value(const char *arg, const char *what, const char *v, gc_value *x)
{
    memset(x, 0, sizeof *x);
    if (!strncmp(v, "normal:", 7)) parse_normal(arg, what, v, x);
    else parse_value_or_range("--projection", what, v, -1e9, 1e9, &x->a, &x->b);
}

/* The longest delay (ms) projection p can draw, for the delay buffer: an
 * unbounded normal's 8.3 SD above the mean (passed with probability 5e-17
 * per synapse; a draw beyond is refused when it is made). */
static double longest_delay(const gc_proj_spec *p)
{
    return isfinite(p->d.b) ? p->d.b : p->d.mean + 8.3 * p->d.sd;
}

static void parse_projection(gc_spk_config *cfg, const char *arg)
{
    if (cfg->nproj == cfg->proj_cap) {
        if (cfg->proj_cap >= (1 << 24)) olive_usage_error("--projection: at most %d projections", 1 << 24);
        cfg->proj_cap = cfg->proj_cap ? 2 * cfg->proj_cap : 64;
        cfg->proj = olive_realloc(cfg->proj, (size_t)cfg->proj_cap * sizeof *cfg->proj, "projections");
    }
    gc_proj_spec *p = &cfg->proj[cfg->nproj++];
    memset(p, 0, sizeof *p);
    p->autapses = 1;
    p->rule = -1;
    int have_w = 0, have_d = 0, npar = 0;
    struct { char name[32]; double v; } par[OLIVE_PLAST_MAXPAR * 2];   /* the rule's parameters, set once it is known */
    if (strlen(arg) >= sizeof p->spec) olive_usage_error("--projection: '%s' is too long", arg);
    snprintf(p->spec, sizeof p->spec, "%s", arg);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", arg);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) olive_usage_error("--projection %s: '%s' is not KEY=VALUE", arg, tok);
        *eq = 0;
        const char *k = tok, *v = eq + 1;
        if (!strcmp(k, "from") || !strcmp(k, "to") || !strcmp(k, "name")) {
            check_name("--projection", v);
            snprintf(!strcmp(k, "from") ? p->from : !strcmp(k, "to") ? p->to : p->name, OLIVE_NAME_LEN, "%s", v);
        } else if (!strcmp(k, "p") || !strcmp(k, "indegree") || !strcmp(k, "total") || !strcmp(k, "outdegree") ||
                   !strcmp(k, "total_out")) {
            if (p->rule >= 0)
                olive_usage_error("--projection %s: give one rule (p=, indegree=, total=, outdegree= or total_out=)", arg);
            if (!strcmp(k, "p")) { p->rule = GC_RULE_P; p->p = olive_parse_double("--projection p", v, 0, 1); }
            else {
                char what[40];
                snprintf(what, sizeof what, "--projection %s", k);
                p->rule = !strcmp(k, "indegree") ? GC_RULE_INDEGREE : !strcmp(k, "total") ? GC_RULE_TOTAL
                          : !strcmp(k, "total_out") ? GC_RULE_TOTAL_OUT : GC_RULE_OUTDEGREE;
                p->k = olive_parse_int(what, v, 0, p->rule == GC_RULE_TOTAL || p->rule == GC_RULE_TOTAL_OUT ? INT64_C(1) << 40
                                                                                                         : INT32_MAX);
            }
        } else if (!strcmp(k, "weight")) {
            parse_value(arg, "weight", v, &p->w);
            have_w = 1;
        } else if (!strcmp(k, "delay")) {
            parse_value(arg, "delay", v, &p->d);
            if (p->d.normal && !(p->d.lo > 0))
                olive_usage_error("--projection %s: delay '%s' can be <= 0 ms: give normal:MEAN:SD:LOW:HIGH with LOW > 0 "
                                  "(NEST's microcircuit redraws below the resolution: LOW = --dt)", arg, v);
            if (p->d.a < 0) olive_usage_error("--projection %s: delay '%s' is negative (delays are >= 0 ms)", arg, v);
            have_d = 1;
        } else if (!strcmp(k, "receptor")) {
            snprintf(p->receptor, sizeof p->receptor, "%s", v);
            if (olive_model_receptor(cfg->model, v) < 0)
                olive_usage_error("--projection %s: model %s has no receptor '%s' (it has %s)", arg, cfg->model->name, v,
                                  olive_model_receptor_list(cfg->model));
        } else if (!strcmp(k, "autapses")) {
            if (!strcmp(v, "yes")) p->autapses = 1;
            else if (!strcmp(v, "no")) p->autapses = 0;
            else olive_usage_error("--projection %s: autapses='%s' is not yes or no", arg, v);
        } else if (!strcmp(k, "sites")) {
            if (!*v || !strcmp(v, "@")) olive_usage_error("--projection %s: sites= needs TYPES[:DMIN:DMAX] or @FILE", arg);
            snprintf(p->sites, sizeof p->sites, "%s", v);
        } else if (!strcmp(k, "plasticity")) {
            const int r = olive_plast_rule_of(v);
            if (r < 0) olive_usage_error("--projection %s: plasticity='%s' is not stdp, stdp_nn_symm, tsodyks, tsodyks2 or static", arg, v);
            olive_plast_defaults(r, &p->plast);
        } else if (olive_plast_is_par(k)) {
            if (npar == (int)(sizeof par / sizeof *par)) olive_usage_error("--projection %s: too many parameters", arg);
            snprintf(par[npar].name, sizeof par[npar].name, "%s", k);
            char what[64];
            snprintf(what, sizeof what, "--projection %s", k);
            par[npar++].v = olive_parse_double(what, v, -1e300, 1e300);
        } else {
            olive_usage_error("--projection %s: unknown key '%s' (from, to, p, indegree, total, outdegree, weight, delay, "
                              "receptor, name, autapses, sites, plasticity and its parameters)", arg, k);
        }
    }
    for (int i = 0; i < npar; i++)
        if (!olive_plast_set(&p->plast, par[i].name, par[i].v))
            olive_usage_error("--projection %s: %s is not a parameter of plasticity=%s%s%s", arg, par[i].name,
                              olive_plast_rule_name(p->plast.rule), p->plast.rule ? " (it has " : "",
                              p->plast.rule ? olive_plast_par_list(p->plast.rule) : " (give plasticity=RULE first)");
    if (p->plast.rule) {
        const char *bad = olive_plast_fault(&p->plast);
        if (bad) olive_usage_error("--projection %s: plasticity=%s: %s", arg, olive_plast_rule_name(p->plast.rule), bad);
        const char *wbad = olive_plast_weight_fault(&p->plast, p->w.a);
        if (wbad) olive_usage_error("--projection %s: the weights: %s", arg, wbad);
    }
    if (!p->from[0] || !p->to[0]) olive_usage_error("--projection %s: needs from=POP and to=POP", arg);
    if (p->rule < 0) olive_usage_error("--projection %s: needs a rule: p=P, indegree=K, total=N, outdegree=K or total_out=N", arg);
    if (!have_w) olive_usage_error("--projection %s: needs weight=W, weight=A:B or weight=normal:MEAN:SD", arg);
    if (!have_d) olive_usage_error("--projection %s: needs delay=MS, delay=A:B or delay=normal:MEAN:SD:LOW:HIGH", arg);
    if (!p->receptor[0]) olive_usage_error("--projection %s: needs receptor=ge or receptor=gi", arg);
    if (cfg->model->weights_nonnegative && p->w.a < 0)
        olive_usage_error("--projection %s: a weight of %s is a conductance (nS) and cannot be negative%s",
                          arg, cfg->model->name, p->w.normal ? " (give normal:MEAN:SD:0:inf)" : "");
}

/* A --model value that names no built-in model: plugin m (a path, or a
 * name found in OLIVE_MODEL_PATH or the model cache: model_plugin.h); NULL
 * when there is no such file, a usage error naming the fault of a bad one. */
static const olive_cell_model *plugin_model(const char *m)
{
    char why[4600];
    const olive_model_plugin *p = olive_plugin_load(m, why, sizeof why);
    if (!p && (strchr(m, '/') || strstr(m, ".so") || strncmp(why, "model '", 7)))
        olive_usage_error("--model: %s", why);
    return p ? &p->model : NULL;
}

/* The populations' id ranges in order (--cells N: one population "all"),
 * each with the model's defaults (an imported circuit's: its own values). */
static void lay_out_populations(gc_spk_config *cfg, int64_t cells)
{
    if (cells && cfg->pops.n) olive_usage_error("give either --cells N or --population NAME:N, not both");
    if (!cells && !cfg->pops.n) olive_usage_error("no cells: give --cells N or --population NAME:N");
    if (cells) {
        snprintf(cfg->pops.pop[0].name, sizeof cfg->pops.pop[0].name, "all");
        cfg->pops.pop[0].count = cells;
        cfg->pops.n = 1;
    }
    int64_t next = 0;
    for (int i = 0; i < cfg->pops.n; i++) {
        olive_population *p = &cfg->pops.pop[i];
        p->first = next;
        next += p->count;
        if (next > INT32_MAX) olive_usage_error("--population: more than %d cells in all", INT32_MAX);
        if (p->model && olive_model_is_source(p->model)) {   /* --source-poisson: its own parameters, no v0 */
            cfg->v0_a[i] = cfg->v0_b[i] = NAN;
            if (p->param[0] * 1e-3 * cfg->dt > 1)
                olive_usage_error("--source-poisson %s: rate %g Hz is more than one spike per step of %g ms", p->name,
                                  p->param[0], cfg->dt);
            continue;
        }
        if (!cfg->import_circuit) {   /* imported populations hold their circuit's values */
            p->model = cfg->model;
            for (int k = 0; k < cfg->model->nparams; k++) p->param[k] = cfg->model->params[k].def;
        }
        int kv0 = olive_model_param(cfg->model, "v0");   /* (a plugin's model may have none) */
        cfg->v0_a[i] = cfg->v0_b[i] = kv0 >= 0 ? p->param[kv0] : NAN;
    }
    cfg->count = next;
}

/* --morphology FILE[@POP] (stored as an absolute path); every hh_swc
 * population needs one; every cable population's cell is made once here
 * (olive-simulate's check, early). */
static void apply_morphologies(gc_spk_config *cfg, const char *const *morphs, int nmorphs)
{
    for (int j = 0; j < nmorphs; j++) {   /* FILE[@POP]: stored as an absolute path */
        char buf[1024], *at, full[PATH_MAX];
        if (!olive_model_needs_morphology(cfg->model))
            olive_usage_error("--morphology applies to hh_swc and biophys_swc populations, not %s", cfg->model->name);
        if ((size_t)snprintf(buf, sizeof buf, "%s", morphs[j]) >= sizeof buf) olive_usage_error("--morphology: path too long");
        if ((at = strrchr(buf, '@'))) *at++ = 0;
        if (!realpath(buf, full)) olive_usage_error("--morphology %s: cannot open the file: %s", buf, strerror(errno));
        int hit = 0;
        for (int i = 0; i < cfg->pops.n; i++)
            if (!at || !strcmp(at, cfg->pops.pop[i].name)) {
                if ((size_t)snprintf(cfg->pops.pop[i].morphology, sizeof cfg->pops.pop[i].morphology, "%s", full) >=
                    sizeof cfg->pops.pop[i].morphology)
                    olive_usage_error("--morphology %s: path too long", full);
                hit = 1;
            }
        if (!hit) olive_usage_error("--morphology %s: no population '%s'", morphs[j], at);
    }
    if (olive_model_needs_morphology(cfg->model))
        for (int i = 0; i < cfg->pops.n; i++)
            if (!cfg->pops.pop[i].morphology[0] && !olive_model_is_source(cfg->pops.pop[i].model))
                olive_usage_error("population %s: a %s population needs --morphology FILE.swc[@%s]",
                                  cfg->pops.pop[i].name, cfg->model->name, cfg->pops.pop[i].name);
    if (olive_model_is_cable(cfg->model))   /* the cell each population's parameters make (olive-simulate's check, early) */
        for (int i = 0; i < cfg->pops.n; i++) {
            if (olive_model_is_source(cfg->pops.pop[i].model)) continue;
            olive_cable_template t;
            const olive_population *p = &cfg->pops.pop[i];
            const char *fault = olive_cable_template_make(cfg->model, p->param, p->morphology, p->biophysics,
                                                          gc_pop_mechanisms(p), &t);
            if (fault) olive_usage_error("--param: population %s: %s", cfg->pops.pop[i].name, fault);
            olive_cable_template_free(&t);
        }
}

/* --v0 A:B[@POP] or normal:MEAN:SD[@POP]: the initial potentials drawn. */
static void apply_v0(gc_spk_config *cfg, const char *const *v0s, int nv0)
{
    if (nv0 && olive_model_param(cfg->model, "v0") < 0)
        olive_usage_error("--v0: model %s has no parameter v0 (its initial state comes from its parameters)", cfg->model->name);
    for (int j = 0; j < nv0; j++) {
        char buf[128], *at;
        snprintf(buf, sizeof buf, "%s", v0s[j]);
        if ((at = strchr(buf, '@'))) *at++ = 0;
        double a, b, sd = 0;
        if (!strncmp(buf, "normal:", 7)) {   /* MEAN:SD: a then the mean, b the sd */
            if (!olive_parse_range("--v0", buf + 7, -1000, 1000, &a, &b) || !(b > 0))
                olive_usage_error("--v0: '%s' must be normal:MEAN:SD in mV with SD > 0", v0s[j]);
            sd = b;
        } else if (!olive_parse_range("--v0", buf, -1000, 1000, &a, &b) || !(a < b))
            olive_usage_error("--v0: '%s' must be A:B in mV with A < B, or normal:MEAN:SD", v0s[j]);
        int hit = 0;
        for (int i = 0; i < cfg->pops.n; i++)
            if ((!at || !strcmp(at, cfg->pops.pop[i].name)) && !olive_model_is_source(cfg->pops.pop[i].model)) {
                cfg->v0_a[i] = a; cfg->v0_b[i] = sd > 0 ? a : b; cfg->v0_sd[i] = sd; hit = 1;
            }
        if (!hit) olive_usage_error("--v0 %s: no population '%s'", v0s[j], at);
    }
}

/* The options applied once the populations are known. */
typedef struct {
    int64_t cells;
    const char *params[4096], *v0s[OLIVE_MAX_POPS];
    const char **projs, *morphs[OLIVE_MAX_POPS], *bios[OLIVE_MAX_POPS], *mechs[OLIVE_MAX_POPS],
               *synmechs[2 * OLIVE_MAX_POPS];
    int nparams, nv0, nprojs, nmorphs, nbios, nmechs, nsynmechs;
    const char **proj_file;   /* per projection: its --projections FILE, or NULL */
    int *proj_line, proj_cap;
} spk_later;

/* One more projection SPEC, from --projection (file NULL) or a line of a --projections file. */
static void later_projection(spk_later *l, const char *spec, const char *file, int line)
{
    if (l->nprojs == l->proj_cap) {
        if (l->proj_cap >= (1 << 24)) olive_usage_error("--projection: at most %d projections", 1 << 24);
        l->proj_cap = l->proj_cap ? 2 * l->proj_cap : 64;
        l->projs = olive_realloc(l->projs, (size_t)l->proj_cap * sizeof *l->projs, "projections");
        l->proj_file = olive_realloc(l->proj_file, (size_t)l->proj_cap * sizeof *l->proj_file, "projections");
        l->proj_line = olive_realloc(l->proj_line, (size_t)l->proj_cap * sizeof *l->proj_line, "projections");
    }
    l->projs[l->nprojs] = spec;
    l->proj_file[l->nprojs] = file;
    l->proj_line[l->nprojs++] = line;
}

/* --projections FILE: a SPEC a line (kept for the program's life: the
 * specs point into it). */
static void read_projection_file(spk_later *l, const char *file)
{
    FILE *f = fopen(file, "r");
    if (!f) olive_usage_error("--projections %s: cannot open it", file);
    char buf[4096];
    int line = 0;
    while (fgets(buf, sizeof buf, f)) {
        line++;
        const size_t n = strlen(buf);
        if (n == sizeof buf - 1 && buf[n - 1] != '\n' && !feof(f))
            olive_usage_error("--projections %s line %d: longer than %d characters", file, line, (int)sizeof buf - 2);
        char *hash = strchr(buf, '#');
        if (hash) *hash = 0;
        char *a = buf, *b = buf + strlen(buf);
        while (*a == ' ' || *a == '\t') a++;
        while (b > a && (b[-1] == '\n' || b[-1] == '\r' || b[-1] == ' ' || b[-1] == '\t')) b--;
        *b = 0;
        if (!*a) continue;
        for (const char *c = a; *c; c++)
            if (*c == ' ' || *c == '\t')
                olive_usage_error("--projections %s line %d: a blank inside '%s' (one SPEC a line, as --projection "
                                  "takes it)", file, line, a);
        char *spec = strdup(a);
        if (!spec) olive_die("out of memory reading --projections %s", file);
        later_projection(l, spec, file, line);
    }
    if (ferror(f)) olive_usage_error("--projections %s: read error", file);
    fclose(f);
}

static const gc_proj_spec *by_name_of;
static int by_name(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;
    const int c = strcmp(by_name_of[x].name, by_name_of[y].name);
    return c ? c : (x > y) - (x < y);
}

/* --projection SPEC: each parsed, named, checked against the populations and
 * the delay buffer; synapse sites resolved. */
static void add_projections(gc_spk_config *cfg, const spk_later *l)
{
    const char *const *projs = l->projs;
    char ctx[4200];
    for (int j = 0; j < l->nprojs; j++) {
        if (l->proj_file[j]) snprintf(ctx, sizeof ctx, "--projections %s line %d", l->proj_file[j], l->proj_line[j]);
        olive_error_context(l->proj_file[j] ? ctx : NULL);
        parse_projection(cfg, projs[j]);
        gc_proj_spec *p = &cfg->proj[cfg->nproj - 1];
        p->file = l->proj_file[j];
        p->line = l->proj_line[j];
        if (strcmp(p->from, "all") && find_pop(cfg, p->from) < 0)
            olive_usage_error("--projection %s: no population '%s'", projs[j], p->from);
        if (strcmp(p->to, "all") && find_pop(cfg, p->to) < 0)
            olive_usage_error("--projection %s: no population '%s'", projs[j], p->to);
        for (int i = 0; i < cfg->pops.n; i++)   /* a spike source takes no input */
            if (olive_model_is_source(cfg->pops.pop[i].model) && (!strcmp(p->to, "all") || !strcmp(p->to, cfg->pops.pop[i].name)))
                olive_usage_error("--projection %s: its targets include the spike sources of population %s (name the "
                                  "target population)", projs[j], cfg->pops.pop[i].name);
        if (!p->name[0]) {
            char nm[160];
            snprintf(nm, sizeof nm, "%s_to_%s", p->from, p->to);
            if (strlen(nm) >= sizeof p->name) olive_usage_error("--projection %s: give a shorter name=...", projs[j]);
            memcpy(p->name, nm, strlen(nm) + 1);
        }
        if (p->sites[0] && cfg->procedural)
            olive_usage_error("--projection %s: sites= are drawn from the morphologies, which a procedural projection "
                              "does not carry: leave out --procedural", projs[j]);
        if (p->sites[0]) gc_spk_sites_resolve(cfg, p);
        /* the largest delay (d.a >= 0 is checked): every delay drawn fits the uint16 steps */
        char what[400];
        snprintf(what, sizeof what, "--projection %s: delay (the delay buffer)", projs[j]);
        olive_ms_to_steps_or_die(olive_usage_error, what, longest_delay(p), cfg->dt, 0, OLIVE_MAX_DELAY);
        if (cfg->merge && (p->sites[0] || p->plast.rule != OLIVE_PLAST_NONE))
            olive_usage_error("--projection %s: --merge-projections keeps weights and delays only, not sites= or "
                              "plasticity=", projs[j]);
    }
    /* every name once (sorted: thousands of projections) */
    int *order = olive_malloc((size_t)cfg->nproj * sizeof(int) + 1, "projections");
    for (int j = 0; j < cfg->nproj; j++) order[j] = j;
    by_name_of = cfg->proj;
    qsort(order, (size_t)cfg->nproj, sizeof(int), by_name);
    for (int j = 1; j < cfg->nproj; j++)
        if (!strcmp(cfg->proj[order[j - 1]].name, cfg->proj[order[j]].name)) {
            const int q = order[j - 1] > order[j] ? order[j - 1] : order[j];   /* the later one */
            if (l->proj_file[q]) snprintf(ctx, sizeof ctx, "--projections %s line %d", l->proj_file[q], l->proj_line[q]);
            olive_error_context(l->proj_file[q] ? ctx : NULL);
            olive_usage_error("--projection %s: a second projection named '%s' (give name=...)", projs[q], cfg->proj[q].name);
        }
    free(order);
    olive_error_context(NULL);
}

/* --model NAME: a built-in spiking model, or a plugin's in the places the
 * user chose. */
static void parse_model(gc_spk_config *cfg, const char *m)
{
    cfg->model = olive_model_find(m);
    if (!cfg->model) cfg->model = plugin_model(m);
    if (!cfg->model || cfg->model == &olive_model_infoli || olive_model_is_source(cfg->model)) {
        const char *models[32];   /* (the model table's: cellmodel.c) */
        const int nmodels = olive_spiking_model_list(models, 32);
        char hint[96];
        olive_usage_error("--model: '%s' is not %s%s, nor a plugin's model in --model-path, OLIVE_MODEL_PATH or the "
                          "model cache (olive-model build MODEL.nestml puts it there; docs/MODELS.md)", m,
                          olive_spiking_model_names(), olive_did_you_mean(hint, sizeof hint, m, models, nmodels));
    }
}

/* --population NAME:N */
static void add_population(gc_spk_config *cfg, const char *v)
{
    const char *colon = strrchr(v, ':');
    if (!colon) olive_usage_error("--population: '%s' must be NAME:N", v);
    if (cfg->pops.n == OLIVE_MAX_POPS) olive_usage_error("--population: at most %d populations", OLIVE_MAX_POPS);
    olive_population *p = &cfg->pops.pop[cfg->pops.n];
    if ((size_t)(colon - v) >= sizeof p->name) olive_usage_error("--population: the name in '%s' is too long", v);
    memcpy(p->name, v, (size_t)(colon - v));
    p->name[colon - v] = 0;
    check_name("--population", p->name);
    if (!strcmp(p->name, "all")) olive_usage_error("--population: 'all' names every cell; choose another name");
    if (find_pop(cfg, p->name) >= 0) olive_usage_error("--population: '%s' is given twice", p->name);
    p->count = olive_parse_int("--population", colon + 1, 1, INT32_MAX);
    cfg->pops.n++;
}

/* --source-poisson NAME:N:RATE[:START[:DURATION]] */
static void add_source_poisson(gc_spk_config *cfg, const char *v)
{
    char buf[256], *f[6];
    int nf = 0;
    if ((size_t)snprintf(buf, sizeof buf, "%s", v) >= sizeof buf) olive_usage_error("--source-poisson: '%s' is too long", v);
    for (char *save = NULL, *t = strtok_r(buf, ":", &save); t && nf < 6; t = strtok_r(NULL, ":", &save)) f[nf++] = t;
    if (nf < 3 || nf > 5) olive_usage_error("--source-poisson: '%s' must be NAME:N:RATE[:START[:DURATION]]", v);
    if (cfg->pops.n == OLIVE_MAX_POPS) olive_usage_error("--source-poisson: at most %d populations", OLIVE_MAX_POPS);
    olive_population *p = &cfg->pops.pop[cfg->pops.n];
    if (strlen(f[0]) >= sizeof p->name) olive_usage_error("--source-poisson: the name in '%s' is too long", v);
    snprintf(p->name, sizeof p->name, "%s", f[0]);
    check_name("--source-poisson", p->name);
    if (!strcmp(p->name, "all") || find_pop(cfg, p->name) >= 0)
        olive_usage_error("--source-poisson: '%s' is 'all' or given twice", p->name);
    p->count = olive_parse_int("--source-poisson", f[1], 1, INT32_MAX);
    p->model = &olive_model_spike_source_poisson;
    p->param[0] = olive_parse_double("--source-poisson rate", f[2], 0, 1e6);
    p->param[1] = nf > 3 ? olive_parse_double("--source-poisson start", f[3], 0, 1e12) : 0;
    p->param[2] = nf > 4 ? olive_parse_double("--source-poisson duration", f[4], 0, 1e12) : 1e10;
    cfg->pops.n++;
}

/* Option id of the populations and projections, its value v: taken, 1;
 * else 0. */
static int parse_network_option(int id, const char *v, gc_spk_config *cfg, spk_later *l)
{
    const char *a = spk_opts[id].name;
    switch (id) {
    case GC_OPT_MODEL: parse_model(cfg, v); break;
    case SPK_OPT_MODEL_PATH: break;   /* (taken before the loop) */
    case GC_OPT_CELLS: l->cells = olive_parse_int(a, v, 1, INT32_MAX); break;
    case SPK_OPT_POPULATION: add_population(cfg, v); break;
    case SPK_OPT_SOURCE_POISSON: add_source_poisson(cfg, v); break;
    case SPK_OPT_PARAM:
        if (l->nparams == 4096) olive_usage_error("--param: at most 4096");
        l->params[l->nparams++] = v;
        break;
    case SPK_OPT_MORPHOLOGY:
        if (l->nmorphs == OLIVE_MAX_POPS) olive_usage_error("--morphology: too many");
        l->morphs[l->nmorphs++] = v;
        break;
    case SPK_OPT_BIOPHYSICS:
        if (l->nbios == OLIVE_MAX_POPS) olive_usage_error("--biophysics: too many");
        l->bios[l->nbios++] = v;
        break;
    case SPK_OPT_MECHANISMS:
        if (l->nmechs == OLIVE_MAX_POPS) olive_usage_error("--mechanisms: too many");
        l->mechs[l->nmechs++] = v;
        break;
    case SPK_OPT_SYNAPSE_MECHANISM:
        if (l->nsynmechs == 2 * OLIVE_MAX_POPS) olive_usage_error("--synapse-mechanism: too many");
        l->synmechs[l->nsynmechs++] = v;
        break;
    case SPK_OPT_V0:
        if (l->nv0 == OLIVE_MAX_POPS) olive_usage_error("--v0: too many");
        l->v0s[l->nv0++] = v;
        break;
    case SPK_OPT_PROJECTION:
        later_projection(l, v, NULL, 0);
        break;
    case SPK_OPT_PROJECTIONS: read_projection_file(l, v); break;
    case SPK_OPT_MERGE: cfg->merge = 1; break;
    case SPK_OPT_DT: cfg->dt = olive_parse_double(a, v, 1e-6, 10); break;
    case GC_OPT_SEED: cfg->seed = (uint64_t)olive_parse_int(a, v, 0, INT64_MAX); break;
    case SPK_OPT_PROCEDURAL: cfg->procedural = 1; break;
    default: return 0;
    }
    return 1;
}

/* Option id of the SONATA imports and export, its value v: taken, 1; else 0. */
static int parse_sonata_option(int id, const char *v, gc_spk_config *cfg)
{
    switch (id) {
    case GC_OPT_EXPORT_SONATA:
        if (!*v) olive_usage_error("--export-sonata: empty prefix");
        cfg->export_prefix = v;
        break;
    case SPK_OPT_IMPORT_SYNAPSES: cfg->import_synapses = v; break;
    case SPK_OPT_IMPORT_EDGE_TYPES: cfg->import_edge_types = v; break;
    case SPK_OPT_IMPORT_SYNAPTIC_MODELS: cfg->import_synaptic_models = v; break;
    case SPK_OPT_IMPORT_CIRCUIT: cfg->import_circuit = v; break;
    case SPK_OPT_IMPORT_NODE_POPULATION: cfg->import_node_pop = v; break;
    case SPK_OPT_IMPORT_SPIKES:
        if (cfg->nimport_spikes == 8) olive_usage_error("--import-spikes: at most 8 files");
        cfg->import_spikes[cfg->nimport_spikes++] = v;
        cfg->nimport_spikes_given = cfg->nimport_spikes;
        break;
    default: return 0;
    }
    return 1;
}

/* After the loop: the model, the imports and the export checked together;
 * a circuit's populations read. */
static void check_model_and_imports(gc_spk_config *cfg, int64_t cells)
{
    if (!cfg->out_path) olive_usage_error("no output file given (-o NET.h5)");
    if (cfg->import_edge_types && !cfg->import_synapses) olive_usage_error("--import-edge-types needs --import-synapses EDGES.h5");
    if (cfg->import_synaptic_models && !cfg->import_edge_types)
        olive_usage_error("--import-synaptic-models needs --import-edge-types TYPES.csv (its dynamics_params name the files)");
    if (!cfg->model) olive_usage_error("no model given (--model MODEL: %s, or a plugin)", olive_spiking_model_names());
    const int dt_given = cfg->dt >= 0;
    if (cfg->dt < 0) cfg->dt = cfg->model->dt_default;
    if (cfg->export_prefix && cfg->model == &olive_model_hh_cable)
        olive_usage_error("--export-sonata: a %s cell has no SONATA point-neuron template, and olive writes no "
                          "morphology file for it yet", cfg->model->name);
    if (cfg->procedural && cfg->export_prefix)
        olive_usage_error("--export-sonata writes every synapse: leave out --procedural");
    if (cfg->import_node_pop && !cfg->import_circuit) olive_usage_error("--import-node-population needs --import-circuit CONFIG.json");
    if (cfg->import_circuit) {   /* the populations come from the circuit, in its node order */
        if (cells || cfg->pops.n)
            olive_usage_error("--import-circuit gives the populations: leave out --cells, --population and --source-poisson");
        if (!olive_model_needs_morphology(cfg->model))
            olive_usage_error("--import-circuit: biophysical nodes become hh_swc or biophys_swc cells, not %s", cfg->model->name);
        gc_spk_import_nodes(cfg->import_circuit, cfg->import_node_pop, cfg->model, &cfg->pops, cfg->import_node_pop_name);
        if (olive_model_needs_mechanisms(cfg->model)) gc_circuit_sim_config(cfg, dt_given);   /* bmtk's run, conditions, inputs */
        gc_spk_import_spike_trains(cfg);
    }
    if (cfg->nimport_spikes && !(cfg->import_circuit && olive_model_needs_mechanisms(cfg->model)))
        olive_usage_error("--import-spikes drives the virtual nodes of --import-circuit's circuit (--model biophys_swc)");
}

void gc_spk_parse_args(int argc, char **argv, gc_spk_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->dt = -1;   /* the model's default */
    cfg->seed = 1;
    static spk_later l;   /* (static: its lists are large for the stack) */
    memset(&l, 0, sizeof l);
    olive_check_options_or_die(argc, argv, spk_opts, OLIVE_NOPTS(spk_opts));
    olive_plugins_enable();
    for (int i = 1; i + 1 < argc; i++)   /* the places are known before --model looks there */
        if (!strcmp(argv[i], "--model-path")) olive_model_path_add(argv[++i]);
    for (int i = 1; i < argc; i++) {
        const char *v;
        const int id = olive_take_option(argc, argv, &i, spk_opts, SPK_NOPTS, &v);
        if (id < 0) olive_usage_error("unexpected argument '%s'", argv[i]);
        if (parse_network_option(id, v, cfg, &l) || parse_sonata_option(id, v, cfg)) continue;
        switch (id) {
        case GC_OPT_HELP: usage(); exit(0);
        case GC_OPT_VERSION: printf("olive-genconn %s\n", OLIVE_VERSION); exit(0);
        case GC_OPT_OUTPUT: cfg->out_path = v; break;
        case GC_OPT_FORCE: cfg->force = 1; break;
        case GC_OPT_VERBOSE: olive_verbose = 1; break;
        case GC_OPT_QUIET: olive_quiet = 1; break;
        default: olive_die("internal: option %s has no case", spk_opts[id].name);
        }
    }
    check_model_and_imports(cfg, l.cells);
    lay_out_populations(cfg, l.cells);
    for (int j = 0; j < l.nparams; j++) {   /* the same forms and refusals as olive-simulate --param */
        int hit[OLIVE_MAX_POPS] = {0};
        char name[OLIVE_NAME_LEN];
        olive_pops_param_apply("--param", l.params[j], &cfg->pops, hit, name, sizeof name);
        for (int i = 0; i < cfg->pops.n; i++)
            if (hit[i] && !strcmp(name, "v0")) cfg->v0_a[i] = cfg->v0_b[i] = cfg->pops.pop[i].param[olive_model_param(cfg->model, "v0")];
    }
    gc_apply_biophysics(cfg, l.bios, l.nbios, l.mechs, l.nmechs, l.synmechs, l.nsynmechs);
    apply_morphologies(cfg, l.morphs, l.nmorphs);
    apply_v0(cfg, l.v0s, l.nv0);
    add_projections(cfg, &l);
    if (cfg->merge && cfg->procedural)
        olive_usage_error("--merge-projections writes the drawn synapses: leave out --procedural (or the merge)");
    if (cfg->merge && cfg->export_prefix)
        olive_usage_error("--merge-projections: --export-sonata writes a projection an edge type; leave out one of them");
}
