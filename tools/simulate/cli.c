/* Command line of olive-simulate: every option validated before any work. */
#include "sim.h"
#include "model_plugin.h"
#include "model_places.h"
#include "lif.h"
#include "synfile.h"
#include "h5util.h"
#include "model.h"
#include "util.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef OLIVE_HAVE_CUDA
#define SIM_BACKENDS_BUILT "cpu, cuda"
#else
#define SIM_BACKENDS_BUILT "cpu"
#endif

/* --help: this text, the option lines of sim_opts (olive_print_options), the units. */
static const char usage_head[] =
    "Usage: olive-simulate NET.h5 -o OUTDIR (--steps N | --time MS) [options]\n"
    "\n"
    "Simulates the network of NET.h5 and writes OUTDIR in SONATA layout: spikes.h5, one\n"
    "<variable>.h5 report per recorded variable, and state.h5. An InfOli network (docs/MODEL.md)\n"
    "or one of integrate-and-fire cells with chemical synapses (lif_cuba, lif_coba, and with alpha\n"
    "synapses lif_cuba_alpha, lif_coba_alpha: olive-genconn\n"
    "--model; docs/MODELS.md, docs/FORMAT.md), or of Hodgkin-Huxley cells stepped as NEURON steps\n"
    "them (hh_traub: NEST's hh_cond_exp_traub; hh_cable: a ball-and-stick; CPU engine; docs/FORMAT.md).\n"
    "Run under mpirun -np P to split the cells over P\n"
    "ranks; results are identical for any P.\n"
    "\n";
static const char usage_tail[] =
    "\n"
    "Units. A bare amplitude is in the model's unit; one with a unit (pA nA uA, uA/cm2 or\n"
    "uA/cm^2, mV, nS uS; no space) is converted exactly, and a unit of another kind is refused:\n"
    "  model                       --pulse AMP    --poisson weight   --noise MEAN,SIGMA\n"
    "  infoli                      uA/cm2         -                  uA/cm2\n"
    "  lif_cuba, lif_cuba_alpha    mV             mV                 -\n"
    "  lif_coba, lif_coba_alpha    pA             nS                 -\n"
    "  hh_traub                    pA             nS                 -\n"
    "  hh_cable, hh_swc            nA             uS                 -\n";

/* The options of olive-simulate: one entry each in sim_opts below, whose
 * index the parser switches on. */
enum {
    SIM_OPT_OUTPUT,
    SIM_OPT_STEPS,
    SIM_OPT_TIME,
    SIM_OPT_GJ,
    SIM_OPT_PULSE,
    SIM_OPT_STIMULUS,
    SIM_OPT_PARAM,
    SIM_OPT_METHOD,
    SIM_OPT_POISSON,
    SIM_OPT_NOISE,
    SIM_OPT_INIT_VOLTAGE,
    SIM_OPT_SEED,
    SIM_OPT_RECORD,
    SIM_OPT_RECORD_COMPARTMENTS,
    SIM_OPT_RECORD_EVERY,
    SIM_OPT_RECORD_CELLS,
    SIM_OPT_RECORD_PRECISION,
    SIM_OPT_RECORD_WEIGHTS,
    SIM_OPT_RECORD_WEIGHTS_EVERY,
    SIM_OPT_NO_SPIKES,
    SIM_OPT_COMPRESS,
    SIM_OPT_PRECISION,
    SIM_OPT_BACKEND,
    SIM_OPT_SPIKE_THRESHOLD,
    SIM_OPT_POPULATION,
    SIM_OPT_MAP,
    SIM_OPT_THREADS,
    SIM_OPT_CHECKPOINT_EVERY,
    SIM_OPT_MODEL_PATH,
    SIM_OPT_RESTART,
    SIM_OPT_ORDER_FREE_SUMS,
    SIM_OPT_FORCE,
    SIM_OPT_VERBOSE,
    SIM_OPT_PROGRESS,
    SIM_OPT_QUIET,
    SIM_OPT_HELP,
    SIM_OPT_VERSION,
    SIM_NOPTS
};

/* The options, and --help's lines of them: the pre-pass refuses the others,
 * with "did you mean", and a non-repeatable one given twice. --record-cells
 * merges repeats itself. */
static const olive_opt sim_opts[] = {
    [SIM_OPT_OUTPUT] = {"--output", "-o", OLIVE_OPT_VALUE, 0, "OUTDIR",
     "output directory (refused if it exists, unless --force)"},
    [SIM_OPT_STEPS] = {"--steps", NULL, OLIVE_OPT_VALUE, 0, "N | --time MS",
     "duration (dt = 0.05 ms for InfOli; a spiking network's dt is its\nfile's /synapses dt, 0.1 ms from olive-genconn by default)"},
    [SIM_OPT_TIME] = {"--time", NULL, OLIVE_OPT_VALUE, 0, NULL,
     NULL},
    [SIM_OPT_GJ] = {"--gj", NULL, OLIVE_OPT_VALUE, 0, "rgj|sgj|ngj",
     "gap-junction model (default rgj)"},
    [SIM_OPT_PULSE] = {"--pulse", NULL, OLIVE_OPT_VALUE, 1, "START:STOP:AMP[:FIRST:LAST]",
     "AMP on steps round(START/dt) <= i < round(STOP/dt), cells\nFIRST <= id < LAST (default all); repeatable. AMP is in the\nmodel's unit (table below: InfOli into the dendrite, lif_cuba*\nas I_e, hh_cable into the soma as an IClamp) or carries one:\n50pA, 0.5nA, 6uA/cm2, 2mV"},
    [SIM_OPT_STIMULUS] = {"--stimulus", NULL, OLIVE_OPT_VALUE, 0, "FILE.h5",
     "pulse table (docs/FORMAT.md)"},
    [SIM_OPT_PARAM] = {"--param", NULL, OLIVE_OPT_VALUE, 1, "POP.NAME=VALUE",
     "a cell parameter of population POP for this run only, instead\nof the network file's (NAME=VALUE: every population that has\nNAME; NAME=VALUE@POP as olive-genconn's); repeatable; checked as\nthe file's values are; recorded in the outputs' attribute\nparam_overrides (a --restart may change them). The names are\nolive-genconn --help's (lif_*, hh_traub, hh_cable, hh_swc;\nspike_source_poisson: rate start duration); InfOli has none"},
    [SIM_OPT_METHOD] = {"--method", NULL, OLIVE_OPT_VALUE, 0, "M",
     "lif_cuba*: exact (default) or euler; lif_coba*:\nexponential_euler (default) or euler"},
    [SIM_OPT_POISSON] = {"--poisson", NULL, OLIVE_OPT_VALUE, 1, "rate=HZ,weight=W,receptor=ge|gi[,n=N][,cells=A:B|POP][,time=START:STOP]",
     "spiking networks: N Poisson inputs of HZ into each cell A <= id < B\nor of population POP (default all; per population: one --poisson\neach, the microcircuit's background) from START to STOP ms, each event adding W to the\nreceptor (the model's unit below, or with one: 2nS, 0.002uS);\ndrawn per (seed, cell, step); repeatable"},
    [SIM_OPT_NOISE] = {"--noise", NULL, OLIVE_OPT_VALUE, 0, "MEAN,SIGMA,TAU",
     "Ornstein-Uhlenbeck input current per cell into the dendrite:\nmean and standard deviation in uA/cm2, correlation time in ms"},
    [SIM_OPT_INIT_VOLTAGE] = {"--init-voltage", NULL, OLIVE_OPT_VALUE, 0, "LO:HI",
     "random initial V_dend, V_soma, V_axon per cell, uniform in\n[LO, HI] mV (default: every cell starts at -60 mV)"},
    [SIM_OPT_SEED] = {"--seed", NULL, OLIVE_OPT_VALUE, 0, "N",
     "seed of --noise and --init-voltage (default 1); the numbers\ndepend only on (seed, cell, step): any rank count, thread\ncount or backend, and a restart, give the same run"},
    [SIM_OPT_RECORD] = {"--record", NULL, OLIVE_OPT_VALUE, 0, "VARS|all|none",
     "comma-separated variables into VAR.h5 (default none: spikes only,\nas in NEST and Brian2). InfOli: v_dend q r s ca i_cah g_cal\nv_soma m h k l n p x_s v_axon m_a h_a x_a; spiking networks:\nv ge gi ref (plugins: their variables)"},
    [SIM_OPT_RECORD_COMPARTMENTS] = {"--record-compartments", NULL, OLIVE_OPT_VALUE, 0, "VARS",
     "cable cells (hh_traub, hh_cable, hh_swc, biophys_swc): v, m,\nh, n of every compartment into VAR_compartments.h5 (SONATA element\nreport); biophys_swc: also NMODL variables (ina, cai, eca ...,\nNAME_SUFFIX of a mechanism: m_NaTs)"},
    [SIM_OPT_RECORD_EVERY] = {"--record-every", NULL, OLIVE_OPT_VALUE, 0, "K",
     "one frame every K steps (default 1)"},
    [SIM_OPT_RECORD_CELLS] = {"--record-cells", NULL, OLIVE_OPT_VALUE, 1, "[VAR=]SET",
     "record the cells of SET (default all): a comma-separated list\nof ids 17, ranges A:B (A <= id < B), population names exc and\nexc[A:B] (ids within exc); VAR=SET: the cells of variable VAR\n(and records VAR); repeatable: the union"},
    [SIM_OPT_RECORD_PRECISION] = {"--record-precision", NULL, OLIVE_OPT_VALUE, 0, "single|double",
     "report values (default single)"},
    [SIM_OPT_RECORD_WEIGHTS] = {"--record-weights", NULL, OLIVE_OPT_VALUE, 1, "PROJ[:A:B]",
     "plastic projection PROJ's synapses A <= i < B (their index in\nthe projection, file order; default all) into weights.h5, the\nweights as state.h5 would hold them after each frame's step\n(float64; docs/FORMAT.md); repeatable"},
    [SIM_OPT_RECORD_WEIGHTS_EVERY] = {"--record-weights-every", NULL, OLIVE_OPT_VALUE, 0, "K",
     "one weights frame every K steps (a multiple of the exchange\nwindow, the least delay, which is the default)"},
    [SIM_OPT_NO_SPIKES] = {"--no-spikes", NULL, OLIVE_OPT_FLAG, 0, NULL,
     "write no spikes.h5 (runs without spike recording, as in the\nmicrocircuit's benchmark recipe): the spikes are still kept in\nmemory (state.h5's events in flight need the last ones) and\ncounted"},
    [SIM_OPT_COMPRESS] = {"--compress", NULL, OLIVE_OPT_OPTIONAL, 0, "[=LEVEL]",
     "deflate the reports and spikes (level 1-9, default 4);\noff by default: readers without the filter (pip's\nlibsonata) could not open them"},
    [SIM_OPT_PRECISION] = {"--precision", NULL, OLIVE_OPT_VALUE, 0, "double|single arithmetic of the run (default double)",
     ""},
    [SIM_OPT_BACKEND] = {"--backend", NULL, OLIVE_OPT_VALUE, 0, "auto|cpu|cuda",
     "cuda: one GPU per rank (CUDA builds); auto: cuda when built\nwith CUDA and every rank sees a GPU, else cpu (default auto)"},
    [SIM_OPT_SPIKE_THRESHOLD] = {"--spike-threshold", NULL, OLIVE_OPT_VALUE, 0, "MV",
     "V_axon upward crossing that counts as a spike (default 0)"},
    [SIM_OPT_POPULATION] = {"--population", NULL, OLIVE_OPT_VALUE, 0, "NAME",
     "rename the output's population (single-population networks;\ndefault: the network's names, io for InfOli)"},
    [SIM_OPT_MAP] = {"--map", NULL, OLIVE_OPT_VALUE, 0, "MAP.h5",
     "dispersal map from olive-disperse (default: built in memory)"},
    [SIM_OPT_THREADS] = {"--threads", NULL, OLIVE_OPT_VALUE, 0, "N",
     "OpenMP threads per rank (default: OMP_NUM_THREADS, else from the\nwork and the load: 8192 own cells a thread at least, the cores\nother work keeps busy left alone)"},
    [SIM_OPT_CHECKPOINT_EVERY] = {"--checkpoint-every", NULL, OLIVE_OPT_VALUE, 0, "N",
     "write OUTDIR/state.h5 every N steps (atomically); OUTDIR then\nexists from the start and keeps the last good checkpoint"},
    [SIM_OPT_MODEL_PATH] = {"--model-path", NULL, OLIVE_OPT_VALUE, 1, "DIR|FILE.so",
     "where a plugin model the network names is looked for first\n(repeatable; then OLIVE_MODEL_PATH, then the model cache;\ndocs/MODELS.md): never at a path written in the network file"},
    [SIM_OPT_RESTART] = {"--restart", NULL, OLIVE_OPT_VALUE, 0, "STATE.h5",
     "continue from a state file (a checkpoint or a finished run):\nthe time axis continues; --steps/--time is the end of the whole run\n(spiking networks: the CPU engine, spikes in flight included)"},
    [SIM_OPT_ORDER_FREE_SUMS] = {"--order-free-sums", NULL, OLIVE_OPT_FLAG, 0, NULL,
     "spiking networks with static synapses: every weight rounded to a\nmultiple of 2^-F, F = 51 - e where largest in-degree x largest\n|weight| < 2^e (-v prints F), which keeps every sum of a cell's\nevents exact, so that no sum depends on the order of its events:\nthe CUDA engine then adds them as they come, beside the next\nstep's update; refused where a projection's weights would change\nby more than 2^-24 of its largest |weight| (docs/MODELS.md)"},
    [SIM_OPT_FORCE] = {"--force", NULL, OLIVE_OPT_FLAG, 0, NULL,
     "replace an existing OUTDIR"},
    [SIM_OPT_VERBOSE] = {"--verbose", "-v", OLIVE_OPT_FLAG, 0, NULL,
     "per-phase timings and details on stderr"},
    [SIM_OPT_PROGRESS] = {"--progress", NULL, OLIVE_OPT_FLAG, 0, NULL,
     "show progress even when stderr is not a terminal"},
    [SIM_OPT_QUIET] = {"--quiet", "-q", OLIVE_OPT_FLAG, 0, NULL,
     "print nothing but errors"},
    [SIM_OPT_HELP] = {"--help", "-h", OLIVE_OPT_FLAG, 0, ", --version",
     ""},
    [SIM_OPT_VERSION] = {"--version", NULL, OLIVE_OPT_FLAG, 0, NULL,
     NULL},
};
_Static_assert(sizeof sim_opts / sizeof sim_opts[0] == SIM_NOPTS, "an option without its entry");

static void usage(void)
{
    fputs(usage_head, stdout);
    olive_print_options(sim_opts, OLIVE_NOPTS(sim_opts), 28);
    fputs(usage_tail, stdout);
    olive_print_repeatable(sim_opts, OLIVE_NOPTS(sim_opts));
    olive_help_footer("olive-simulate", "docs/SPEC-simulate-output.md, docs/MODELS.md");
}

/* The index of the model's variable name, refused naming opt, the closest
 * name and the variables there are. */
static int model_var(const olive_cell_model *m, const char *opt, const char *name)
{
    int v = m == &olive_model_infoli ? olive_var_by_name(name) : olive_model_var(m, name);
    if (v < 0) {
        char names[512] = "", hint[96];
        for (int k = 0; k < m->nvars; k++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? " " : "", m->var_names[k]);
        olive_usage_error("%s: model %s has no variable '%s'%s (it has: %s)", opt, m->name, name,
                          olive_did_you_mean(hint, sizeof hint, name, m->var_names, m->nvars), names);
    }
    return v;
}

static void parse_record(sim_config *cfg, const char *list)
{
    const olive_cell_model *m = cfg->run.model;
    memset(cfg->rec.vars, 0, sizeof cfg->rec.vars);
    cfg->rec.nvars = 0;
    if (strcmp(list, "none") == 0) return;
    if (strcmp(list, "all") == 0) {
        for (int v = 0; v < m->nvars; v++) cfg->rec.vars[v] = 1;
        cfg->rec.nvars = m->nvars;
        return;
    }
    char *copy = strdup(list), *save = NULL;
    if (!copy) olive_die("out of memory reading --record");
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int v = model_var(m, "--record", tok);
        if (!cfg->rec.vars[v]) { cfg->rec.vars[v] = 1; cfg->rec.nvars++; }
    }
    free(copy);
    if (cfg->rec.nvars == 0) olive_usage_error("--record: empty list (use 'none' to record spikes only)");
}

/* --record-cells VAR=SET: VAR is recorded, on the cells of SET (resolved
 * against the network's populations by sim_record_resolve). */
static void parse_record_cells_var(sim_config *cfg, sim_cellarg *ca)
{
    const char *eq = strchr(ca->arg, '=');
    if (!eq) return;
    char name[64];
    if ((size_t)(eq - ca->arg) >= sizeof name) olive_usage_error("--record-cells %s: no such variable", ca->arg);
    snprintf(name, sizeof name, "%.*s", (int)(eq - ca->arg), ca->arg);
    char opt[128];
    snprintf(opt, sizeof opt, "--record-cells %.80s", ca->arg);
    ca->var = model_var(cfg->run.model, opt, name);
    ca->set = eq + 1;
    if (!cfg->rec.vars[ca->var]) { cfg->rec.vars[ca->var] = 1; cfg->rec.nvars++; }
}

/* --backend cuda: refused in a build without CUDA (first: whatever the
 * model, that is what the user must change) and for a plugin the CUDA
 * engine cannot run (no GPU image). */
static void check_backend(const sim_config *cfg)
{
    if (cfg->run.backend != SIM_BACKEND_CUDA) return;
#ifndef OLIVE_HAVE_CUDA
    olive_die("--backend cuda: this olive-simulate was built without CUDA (rebuild with nvcc on the PATH "
              "or in /usr/local/cuda/bin; `olive-simulate --version` lists the backends built in)");
#endif
    const olive_model_plugin *p = olive_plugin_of(cfg->run.model);
    const char *why = p ? olive_plugin_gpu_refusal(p) : NULL;
    if (why)
        olive_usage_error("--backend cuda: %s: model %s is a plugin (%s) the CUDA engine cannot run: %s (--backend cpu "
                          "or auto)", cfg->run.net_path, cfg->run.model->name, olive_plugin_path(p), why);
}

/* --record-compartments v,m,h,n: cable cells' node variables in every compartment. */
static void parse_record_compartments(sim_config *cfg, const char *list)
{
    if (!olive_model_is_cable(cfg->run.model))
        olive_usage_error("--record-compartments applies to networks of cable cells (hh_traub, hh_cable, hh_swc, "
                          "biophys_swc), not %s",
                          cfg->run.model->name);
    char *copy = strdup(list), *save = NULL;
    if (!copy) olive_die("out of memory reading --record-compartments");
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const int v = olive_model_var(cfg->run.model, tok);
        if ((v < 0 || v > 3) && olive_model_needs_mechanisms(cfg->run.model) && strlen(tok) < sizeof cfg->rec.comp_mech[0] &&
            strspn(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == strlen(tok)) {
            int k = 0;   /* an NMODL variable: its name is checked against the library at set-up */
            while (k < cfg->rec.ncomp_mech && strcmp(cfg->rec.comp_mech[k], tok)) k++;
            if (k == cfg->rec.ncomp_mech) {
                if (k == 8) olive_usage_error("--record-compartments: at most 8 NMODL variables");
                snprintf(cfg->rec.comp_mech[cfg->rec.ncomp_mech++], sizeof cfg->rec.comp_mech[0], "%s", tok);
            }
            continue;
        }
        if (v < 0 || v > 3)
            olive_usage_error("--record-compartments: '%s' is not v, m, h or n%s", tok,
                              olive_model_needs_mechanisms(cfg->run.model)
                                  ? ", an ion's variable (ina, cai, eca ...) or a mechanism's NAME_SUFFIX" : "");
        if (!cfg->rec.comp_vars[v]) { cfg->rec.comp_vars[v] = 1; cfg->rec.ncomp_vars++; }
    }
    free(copy);
    if (!cfg->rec.ncomp_vars && !cfg->rec.ncomp_mech) olive_usage_error("--record-compartments: empty list");
}

/* --noise MEAN,SIGMA,TAU: finite mean, sigma >= 0, tau > 0 (bounds keep the
 * current physiological and the decay factor away from underflow). */
static void parse_noise(sim_infoli_config *io, const char *v)
{
    char *copy = strdup(v), *save = NULL;
    if (!copy) olive_die("out of memory reading --noise");
    const char *part[3] = {NULL, NULL, NULL};
    int n = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == 3) { n = 4; break; }
        part[n++] = tok;
    }
    if (n != 3) olive_usage_error("--noise: '%s' must be MEAN,SIGMA,TAU (uA/cm2, uA/cm2, ms)", v);
    io->noise_mean = olive_parse_amount("--noise MEAN", part[0], "uA/cm2", "infoli", -1000, 1000);
    io->noise_sigma = olive_parse_amount("--noise SIGMA", part[1], "uA/cm2", "infoli", 0, 1000);
    io->noise_tau = olive_parse_double("--noise TAU", part[2], 0, 1e6);
    if (!(io->noise_tau > 0)) olive_usage_error("--noise: TAU must be more than 0 ms (got '%s')", part[2]);
    io->noise_on = 1;
    free(copy);
}

/* OUTDIR: not empty, no trailing '/' (stripped: the temporary name goes
 * beside it), and its parent directory exists and is writable. */
static void check_output_path(const char *out)
{
    if (!*out) olive_usage_error("-o: empty output directory name");
    char *p = (char *)out; /* points into argv: stripping in place is fine */
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/') p[--n] = 0;
    if (!strcmp(p, "/") || !strcmp(p, ".") || !strcmp(p, ".."))
        olive_usage_error("-o %s: name a new directory, not '%s'", p, p);
    char parent[4096];
    const char *slash = strrchr(p, '/');
    if (!slash) snprintf(parent, sizeof parent, ".");
    else if (slash == p) snprintf(parent, sizeof parent, "/");
    else snprintf(parent, sizeof parent, "%.*s", (int)(slash - p), p);
    struct stat st;
    if (stat(parent, &st) != 0 || !S_ISDIR(st.st_mode))
        olive_usage_error("-o %s: the parent directory %s does not exist", p, parent);
    if (access(parent, W_OK | X_OK) != 0)
        olive_usage_error("-o %s: the parent directory %s is not writable", p, parent);
    if (stat(p, &st) == 0 && !S_ISDIR(st.st_mode))
        olive_usage_error("-o %s: exists and is not a directory", p);
}

/* --record-weights PROJ[:A:B] */
static void parse_record_weights(sim_config *cfg, const char *v, int argc)
{
    if (!cfg->rec.weights) cfg->rec.weights = olive_calloc((size_t)argc, sizeof *cfg->rec.weights, "arguments");
    sim_weightarg *w = &cfg->rec.weights[cfg->rec.nweights++];
    w->arg = v;
    w->a = 0;
    w->b = -1;
    const char *colon = strchr(v, ':');
    const size_t len = colon ? (size_t)(colon - v) : strlen(v);
    if (len == 0 || len >= 64 || memchr(v, '/', len))
        olive_usage_error("--record-weights: '%s' does not start with a projection's name (1-63 characters, no '/')", v);
    w->proj = olive_malloc(len + 1, "arguments");
    memcpy(w->proj, v, len);
    w->proj[len] = 0;
    if (colon) {
        char *end;
        errno = 0;
        long long a = strtoll(colon + 1, &end, 10), b = -1;
        int ok = errno == 0 && end != colon + 1 && *end == ':' && a >= 0;
        if (ok) {
            const char *bs = end + 1;
            b = strtoll(bs, &end, 10);
            ok = errno == 0 && end != bs && *end == 0 && b > a;
        }
        if (!ok) olive_usage_error("--record-weights %s: after the projection's name, ':A:B' with 0 <= A < B (synapses A <= i < B)", v);
        w->a = a;
        w->b = b;
    }
    for (int q = 0; q + 1 < cfg->rec.nweights; q++)
        if (!strcmp(cfg->rec.weights[q].proj, w->proj))
            olive_usage_error("--record-weights %s: projection %s is named twice (one range a projection)", v, w->proj);
}

static void check_restart_path(const char *path)
{
    struct stat st;
    if (!*path) olive_usage_error("--restart: empty file name");
    if (stat(path, &st) != 0) olive_usage_error("--restart %s: no such file", path);
    if (!S_ISREG(st.st_mode)) olive_usage_error("--restart %s: not a regular file", path);
}

/* The options that apply to the network's model, now that it is known:
 * those of another family refused by name; a spiking model's default --method. */
static void check_options_apply(sim_config *cfg, int have_gj, int have_threshold)
{
    const int lif = cfg->run.model != &olive_model_infoli;
    if (lif) {
        const char *bad = have_gj ? "--gj" : cfg->infoli.noise_on ? "--noise" : cfg->infoli.init_random ? "--init-voltage" :
                          cfg->run.single ? "--precision single" :
                          cfg->run.map_path ? "--map" : have_threshold ? "--spike-threshold" : NULL;
        if (bad)
            olive_usage_error("%s does not apply to %s (a %s network): %s", bad, cfg->run.net_path, cfg->run.model->name,
                              have_threshold ? "the threshold is the parameter V_th of the network file" :
                              "it is an option of InfOli networks only, for now");
        if (olive_model_is_cable(cfg->run.model) && cfg->spiking.method >= 0)
            olive_usage_error("--method does not apply to %s (a %s network): its cells step as NEURON's fixed step "
                              "does (backward Euler, exponential Euler for the gates)", cfg->run.net_path, cfg->run.model->name);
        if (olive_plugin_of(cfg->run.model) && cfg->spiking.method >= 0)
            olive_usage_error("--method does not apply to %s (a %s network): a plugin's model brings its own integration",
                              cfg->run.net_path, cfg->run.model->name);
        if (cfg->spiking.method < 0 && !olive_model_is_cable(cfg->run.model))
            cfg->spiking.method = cfg->run.model == &olive_model_lif_cuba || cfg->run.model == &olive_model_lif_cuba_alpha
                              ? OLIVE_METHOD_EXACT : OLIVE_METHOD_EXPEULER;
    } else {
        if (cfg->spiking.method >= 0)
            olive_usage_error("--method applies to lif_cuba and lif_coba networks (InfOli steps with forward Euler)");
        if (cfg->spiking.npoisson) olive_usage_error("--poisson applies to networks with chemical synapses (lif_cuba, lif_coba)");
        if (cfg->spiking.order_free)
            olive_usage_error("--order-free-sums applies to networks with chemical synapses (an InfOli network's gap "
                              "junctions are summed in one order already)");
        if (cfg->rec.nweights) olive_usage_error("--record-weights applies to networks with plastic synapses (docs/MODELS.md)");
        if (cfg->run.nparams)
            olive_usage_error("--param %s: %s is an InfOli network, whose cells have no parameters in the network file "
                              "(their conductances are the file's; see --gj, --noise)", cfg->run.params[0], cfg->run.net_path);
    }
}

/* The options the checks after the command line's loop need. */
typedef struct {
    const char *record, *compartments;   /* --record, --record-compartments */
    const char **pulses;                 /* --pulse, parsed once dt is known */
    int npulses, gj, threshold;
    double time_ms;                      /* --time, or -1 */
} sim_seen;

/* Option id of the model, its inputs or its start, its value v: taken, 1;
 * else 0. */
static int parse_model_option(int id, const char *v, sim_config *cfg, sim_seen *h)
{
    const char *a = sim_opts[id].name;
    switch (id) {
    case SIM_OPT_GJ: {
        static const char *const names[] = {"rgj", "sgj", "ngj"};
        static const int models[] = {OLIVE_GJ_RGJ, OLIVE_GJ_SGJ, OLIVE_GJ_NGJ};
        cfg->infoli.gj = models[olive_parse_choice(a, v, names, 3)];
        h->gj = 1;
        break;
    }
    case SIM_OPT_PULSE: h->pulses[h->npulses++] = v; break;
    case SIM_OPT_METHOD:
        cfg->spiking.method = olive_lif_method_parse(v);
        if (cfg->spiking.method < 0) olive_usage_error("--method: '%s' is not exact, euler or exponential_euler", v);
        break;
    case SIM_OPT_POISSON: sim_add_poisson_arg(&cfg->spiking, v); break;
    case SIM_OPT_STIMULUS: cfg->stim.path = v; break;
    case SIM_OPT_PARAM:
        cfg->run.params = olive_realloc(cfg->run.params, (size_t)(cfg->run.nparams + 1) * sizeof(char *), "--param");
        cfg->run.params[cfg->run.nparams++] = v;
        break;
    case SIM_OPT_NOISE: parse_noise(&cfg->infoli, v); break;
    case SIM_OPT_SEED: cfg->run.seed = (uint64_t)olive_parse_int(a, v, 0, INT64_MAX); break;
    case SIM_OPT_INIT_VOLTAGE: {
        sim_infoli_config *io = &cfg->infoli;
        if (!olive_parse_range(a, v, -200, 200, &io->init_lo, &io->init_hi) || io->init_hi < io->init_lo)
            olive_usage_error("--init-voltage: '%s' must be LO:HI in mV with -200 <= LO <= HI <= 200", v);
        io->init_random = 1;
        break;
    }
    case SIM_OPT_SPIKE_THRESHOLD:
        cfg->infoli.spike_threshold = olive_parse_double(a, v, -1e6, 1e6);
        h->threshold = 1;
        break;
    case SIM_OPT_ORDER_FREE_SUMS: cfg->spiking.order_free = 1; break;
    default: return 0;
    }
    return 1;
}

/* Option id of what is recorded and how, its value v: taken, 1; else 0. */
static int parse_record_option(int id, const char *v, int argc, sim_config *cfg, sim_seen *h)
{
    const char *a = sim_opts[id].name;
    switch (id) {
    case SIM_OPT_RECORD: h->record = v; break;
    case SIM_OPT_RECORD_COMPARTMENTS: h->compartments = v; break;
    case SIM_OPT_RECORD_EVERY: cfg->rec.every = olive_parse_int(a, v, 1, INT64_C(1) << 40); break;
    case SIM_OPT_RECORD_WEIGHTS: parse_record_weights(cfg, v, argc); break;
    case SIM_OPT_RECORD_WEIGHTS_EVERY: cfg->rec.weights_every = olive_parse_int(a, v, 1, INT64_C(1) << 40); break;
    case SIM_OPT_NO_SPIKES: cfg->rec.no_spikes = 1; break;
    case SIM_OPT_RECORD_CELLS: cfg->rec.cell_args[cfg->rec.ncell_args++] = (sim_cellarg){v, v, -1}; break;
    case SIM_OPT_RECORD_PRECISION:
    case SIM_OPT_PRECISION: {
        static const char *const names[] = {"double", "single"};
        const int single = olive_parse_choice(a, v, names, 2);
        if (id == SIM_OPT_PRECISION) cfg->run.single = single; else cfg->rec.as_double = !single;
        break;
    }
    case SIM_OPT_POPULATION:
        if (!*v || strlen(v) >= sizeof cfg->rec.population || strchr(v, '/'))
            olive_usage_error("--population: '%s' is not a valid name (1-63 characters, no '/')", v);
        snprintf(cfg->rec.population, sizeof cfg->rec.population, "%s", v);
        break;
    case SIM_OPT_COMPRESS: olive_h5_deflate = v ? (int)olive_parse_int(a, v, 1, 9) : 4; break;
    default: return 0;
    }
    return 1;
}

/* Option id of the run itself, its value v: taken, 1; else 0. */
static int parse_run_option(int id, const char *v, sim_config *cfg, sim_seen *h)
{
    const char *a = sim_opts[id].name;
    switch (id) {
    case SIM_OPT_OUTPUT: cfg->run.out_path = v; break;
    case SIM_OPT_STEPS: cfg->run.steps = olive_parse_int(a, v, 1, INT64_C(1) << 40); break;
    case SIM_OPT_TIME: h->time_ms = olive_parse_double(a, v, 0, 1e12); break;
    case SIM_OPT_BACKEND: {
        static const char *const names[] = {"auto", "cpu", "cuda"};
        static const int backends[] = {SIM_BACKEND_AUTO, SIM_BACKEND_CPU, SIM_BACKEND_CUDA};
        /* (cuda is checked once the model is known: check_backend) */
        cfg->run.backend = backends[olive_parse_choice(a, v, names, 3)];
        break;
    }
    case SIM_OPT_MAP: cfg->run.map_path = v; break;
    case SIM_OPT_THREADS: cfg->run.threads = (int)olive_parse_int(a, v, 1, 4096); break;
    case SIM_OPT_CHECKPOINT_EVERY: cfg->run.checkpoint_every = olive_parse_int(a, v, 1, INT64_C(1) << 40); break;
    case SIM_OPT_RESTART: cfg->run.restart_path = v; break;
    case SIM_OPT_MODEL_PATH: olive_model_path_add(v); break;
    case SIM_OPT_FORCE: cfg->run.force = 1; break;
    case SIM_OPT_PROGRESS: olive_progress_forced = 1; break;
    case SIM_OPT_VERBOSE: cfg->run.verbose = olive_verbose = 1; break;
    case SIM_OPT_QUIET: olive_quiet = 1; break;
    case SIM_OPT_HELP: usage(); exit(0);
    case SIM_OPT_VERSION: printf("olive-simulate %s (backends: %s)\n", OLIVE_VERSION, SIM_BACKENDS_BUILT); exit(0);
    default: return 0;
    }
    return 1;
}

/* The models the network file names, resolved once (built in, or a
 * plugin's found by name and hash in the places the user chose); the
 * readers then look them up and load nothing. */
static void resolve_models(const char *net)
{
    static olive_model_ref refs[OLIVE_MAX_POPS + 1];
    const int n = olive_pops_model_refs(net, refs, OLIVE_MAX_POPS + 1);
    for (int i = 0; i < n; i++) olive_model_resolve(net, refs[i].where, refs[i].name, refs[i].hash);
}

/* After the loop: the model read from the network file decides the step and
 * which options apply; then what needs them is parsed and checked. */
static void finish_config(sim_config *cfg, sim_seen *h, int session)
{
    if (!cfg->run.net_path) olive_usage_error("no network file given");
    if (!cfg->run.out_path) olive_usage_error("no output directory given (-o OUTDIR)");
    if (cfg->run.steps >= 0 && h->time_ms >= 0) olive_usage_error("give exactly one of --steps and --time");
    if (cfg->run.steps < 0 && h->time_ms < 0) {
        if (!session) olive_usage_error("give exactly one of --steps and --time");
        cfg->run.steps = INT64_C(1) << 40;   /* a session's open horizon */
        cfg->run.open_ended = 1;
    }
    /* The model decides the variables, the step and which options apply; a
     * plugin's is found in the places the user chose (model_places.h). */
    olive_plugins_enable();
    resolve_models(cfg->run.net_path);
    if (olive_pops_present(cfg->run.net_path, &cfg->run.model) && !cfg->run.model)
        olive_die("%s: the populations mix models; one model per network is supported so far", cfg->run.net_path);
    check_backend(cfg);
    cfg->run.dt = olive_syn_dt(cfg->run.net_path, cfg->run.model->dt_default);
    sim_stimulus_set_dt(cfg->run.dt);
    sim_stimulus_set_model(cfg->run.model);
    check_options_apply(cfg, h->gj, h->threshold);
    if (cfg->rec.weights_every && !cfg->rec.nweights) olive_usage_error("--record-weights-every without --record-weights");
    /* Spikes only unless asked, as NEST and Brian2 do: a report of every
     * cell every step is the largest output a run writes. */
    if (h->record) parse_record(cfg, h->record);
    if (h->compartments) parse_record_compartments(cfg, h->compartments);
    for (int k = 0; k < cfg->rec.ncell_args; k++) parse_record_cells_var(cfg, &cfg->rec.cell_args[k]);
    for (int k = 0; k < h->npulses; k++) sim_add_pulse_arg(&cfg->stim, h->pulses[k]);
    if (h->time_ms >= 0) {
        cfg->run.steps = olive_ms_to_steps_or_die(olive_usage_error, "--time", h->time_ms, cfg->run.dt, 1, INT64_C(1) << 40);
    }
    check_output_path(cfg->run.out_path);
    if (cfg->run.restart_path) check_restart_path(cfg->run.restart_path);
    if (cfg->stim.path) sim_read_stimulus(&cfg->stim, cfg->stim.path);
    if (cfg->infoli.init_random && cfg->run.restart_path)
        olive_usage_error("--init-voltage and --restart: a restart continues the state's potentials");
    if (cfg->run.checkpoint_every && (cfg->rec.ncomp_vars || cfg->rec.ncomp_mech))
        olive_usage_error("--record-compartments and --checkpoint-every: compartment reports are not kept across "
                          "checkpoints yet (a run from --restart may record them)");
    if (cfg->run.checkpoint_every && cfg->rec.no_spikes)
        olive_usage_error("--no-spikes and --checkpoint-every: a checkpoint directory keeps its spikes.h5 beside its "
                          "state.h5 (an older one would stay there)");
}

void sim_parse_args(int argc, char **argv, sim_config *cfg, int session)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->infoli.gj = OLIVE_GJ_RGJ;
    cfg->rec.every = 1;
    cfg->spiking.method = -1;
    cfg->run.steps = -1;
    cfg->rec.cell_args = olive_malloc((size_t)argc * sizeof *cfg->rec.cell_args, "arguments");
    cfg->run.seed = 1;
    sim_seen h = {.pulses = olive_malloc((size_t)argc * sizeof(char *), "arguments"), .time_ms = -1};
    olive_check_options_or_die(argc, argv, sim_opts, OLIVE_NOPTS(sim_opts));
    for (int i = 1; i < argc; i++) {
        const char *v;
        const int id = olive_take_option(argc, argv, &i, sim_opts, SIM_NOPTS, &v);
        if (id >= 0) {
            if (!parse_run_option(id, v, cfg, &h) && !parse_model_option(id, v, cfg, &h) &&
                !parse_record_option(id, v, argc, cfg, &h))
                olive_die("internal: option %s has no case", sim_opts[id].name);
        } else if (!cfg->run.net_path) {
            cfg->run.net_path = argv[i];
        } else {
            olive_usage_error("unexpected argument '%s' (one network file only)", argv[i]);
        }
    }
    finish_config(cfg, &h, session);
    free(h.pulses);
}
