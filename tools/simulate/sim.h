/* olive-simulate: configuration and run-time state shared by its files. */
#ifndef OLIVE_SIM_H
#define OLIVE_SIM_H
#include <mpi.h>
#include <stdint.h>
#include "cellmodel.h"
#include "netfile.h"
#include "noise.h"
#include "partition.h"
#include "poisson_spec.h"
#include "state.h"

/* CPU backend: rows whose junction sums run side by side (independent add chains). */
#define SIM_ROW_LANES 8
/* Junction slots of a group taken a round (two 64-byte vectors of terms: two
 * independent chains of the term's operations), by precision. */
#define SIM_GROUP_UNROLL(T) ((int)(128 / (SIM_ROW_LANES * sizeof(T))))

/* A list of rows laid out for the CPU junction pass (junction_groups.c): the
 * rows in groups of SIM_ROW_LANES, each group's junctions slot by slot. */
typedef struct {
    int64_t nrows, ngroups;
    int32_t *row;            /* ngroups x SIM_ROW_LANES: each lane's row (lanes past nrows repeat the group's first) */
    int32_t *nj;             /* ngroups x SIM_ROW_LANES: each lane's junctions (0: its current is +0.0) */
    int64_t *gslot;          /* ngroups + 1: group g's slots [gslot[g], gslot[g + 1]), a multiple of the unroll */
    int32_t *col;            /* slots x SIM_ROW_LANES: slot j's column in each lane (padding: the lane's own row) */
    void *cond;              /* the same slots' conductance codes or values (the network's bits); NULL for bits 0 */
    size_t bytes;            /* memory held */
} sim_jgroups;

typedef struct {
    int64_t step0, step1;    /* active on steps step0 <= i < step1 */
    double amp;              /* uA/cm2 */
    int64_t first, last;     /* cells first <= id < last; last = -1: all */
} sim_pulse;


enum sim_backend { SIM_BACKEND_AUTO = 0, SIM_BACKEND_CPU = 1, SIM_BACKEND_CUDA = 2 };

/* The options of a run (cli.c), one struct per concern, gathered in
 * sim_config. A model family's set-up and engines read the run, the stimuli,
 * the recording and the options of their own family, never another family's;
 * a new family with options of its own adds its struct here. */

/* The run: files, model, duration, precision, engine, seed and restart (every family). */
typedef struct {
    const char *net_path, *map_path, *out_path;
    const olive_cell_model *model;  /* of the network's cells (cellmodel.h) */
    double dt;               /* ms: OLIVE_DT for InfOli, /synapses dt for a spiking network */
    int single;              /* --precision single: the state and the arithmetic in float (InfOli only so far) */
    int64_t steps;
    int64_t start_step;      /* the first step of this run: the restart state's step, else 0 */
    int force, threads, verbose;
    int backend;             /* enum sim_backend as asked; sim_t.cuda says what runs */
    uint64_t seed;           /* --seed: the noise, the random initial potentials, the Poisson inputs */
    int64_t checkpoint_every;  /* --checkpoint-every N (0: none) */
    const char *restart_path;  /* --restart STATE.h5 (NULL: start at step 0) */
    int open_ended;          /* a session opened without --steps/--time: steps is a horizon (2^40) */
    const char **params;     /* --param SPEC, as given (spiking families: spk_params.c) */
    int nparams;
    char *param_overrides;   /* what they set, "POP.NAME=VALUE,..." (provenance); NULL before set-up */
} sim_run_config;

/* Stimuli: --pulse and the pulse table of --stimulus (stimulus.c), every
 * family; the stimulus file's Poisson rate changes (spiking families). */
/* A --poisson input's rate from step `step` on (a stimulus file's /poisson_rates row). */
typedef struct { int64_t step; int input; double rate_hz; } sim_rate_change;

typedef struct {
    const char *path;        /* --stimulus FILE.h5 (NULL: none) */
    sim_pulse *pulses;
    int npulses;
    sim_rate_change *rates;  /* by step (file order within a step) */
    int nrates;
} sim_stim_config;

/* InfOli's options: gap junctions, noise, random initial potentials, spike threshold. */
typedef struct {
    int gj;                  /* enum olive_gj_kind */
    /* --noise MEAN,SIGMA,TAU: an Ornstein-Uhlenbeck current per cell (common/models/noise.h) */
    int noise_on;
    double noise_mean, noise_sigma, noise_tau;
    int init_random;         /* --init-voltage LO:HI given */
    double init_lo, init_hi; /* mV */
    double spike_threshold;  /* --spike-threshold: the upward V_axon crossing that counts as a spike (mV) */
} sim_infoli_config;

/* The spiking families' options (integrate-and-fire, cable): method and Poisson inputs. */
typedef struct {
    int method;              /* lif: enum olive_lif_method (-1: none, InfOli and cable cells) */
    sim_poisson *poisson;
    char (*poisson_pop)[64];  /* per input: cells=POP's population name (resolved at set-up), or "" */
    int npoisson;
    int order_free;          /* --order-free-sums: weights rounded so that every sum of events is exact (spk_quantum.c) */
} sim_spiking_config;

/* A set of cells: sorted, disjoint, non-adjacent ranges [r[i][0], r[i][1]) of global ids. */
typedef struct {
    int64_t (*r)[2];
    int n;
} sim_cellset;

/* One --record-cells argument: SET, or VAR=SET (var >= 0) for one variable. */
typedef struct {
    const char *arg, *set;
    int var;
} sim_cellarg;

/* A population of the output: the network's (InfOli files: one, "io"). */
typedef struct {
    char name[64];
    int64_t first, count;    /* global ids first <= id < first + count; output node ids count from 0 */
} sim_outpop;

/* --record-weights PROJ[:A:B]: synapses a <= e < b of projection proj (b < 0: to its last). */
typedef struct { const char *arg; char *proj; int64_t a, b; } sim_weightarg;

/* Recording: which variables of which cells, how often, in what precision, under what name. */
typedef struct {
    int as_double;           /* --record-precision double */
    int vars[OLIVE_NVARS];   /* which variables are recorded */
    int nvars;               /* how many of vars[] are set */
    int comp_vars[OLIVE_NVARS];  /* cable cells: variables recorded in every compartment (--record-compartments) */
    int ncomp_vars;
    /* biophys_swc: NMODL variables recorded in every compartment (an ion's ina,
     * cai, eca ...; a mechanism's NAME_SUFFIX), the cells of v's set; their
     * report's var is OLIVE_NVARS + k (spk_cable.c resolves the names) */
    char comp_mech[8][64];
    int ncomp_mech;
    int64_t every;           /* one frame every `every` steps */
    sim_cellarg *cell_args;  /* --record-cells, as given (resolved by sim_record_resolve) */
    int ncell_args;
    sim_cellset cells[OLIVE_NVARS];  /* per variable: the recorded cells (sim_record_resolve) */
    char population[64];     /* --population: the name of a single-population network's output ("": its own) */
    sim_outpop *pops;        /* the output's SONATA populations (sim_record_resolve) */
    int npops;
    sim_weightarg *weights;  /* --record-weights PROJ[:A:B] (weights.h5: output/weights.c) */
    int nweights;
    int64_t weights_every;   /* --record-weights-every K (0: the exchange window, the least delay) */
    int no_spikes;           /* --no-spikes: no spikes.h5 (the spikes are still kept and counted) */
} sim_record_config;

typedef struct {
    sim_run_config run;
    sim_stim_config stim;
    sim_infoli_config infoli;
    sim_spiking_config spiking;
    sim_record_config rec;
} sim_config;

/* Whether a run starts from a state or writes checkpoints: the engines that
 * keep events in flight then take a path whose events a state holds. */
static inline int sim_restart_or_checkpoint(const sim_config *c)
{
    return c->run.restart_path != NULL || c->run.checkpoint_every != 0;
}

/* Per-phase wall-clock seconds (make the bottleneck visible). */
typedef struct {
    /* Dispersal time, from the map file (0: no map). Generation time is not
     * stored in the network file, so the same seed gives the same bytes. */
    double dispersal;
    double setup, exchange, compute, io, total;
    /* Of exchange: the seconds inside MPI calls (waiting for the other ranks
     * included); the rest is packing, copies and waiting for the device. */
    double mpi;
    double energy_j;         /* GPU energy of the step loop, all GPUs; < 0: not measured */
} sim_timings;

typedef struct { int64_t step; int64_t cell; } sim_spike;

/* The step loop looks at non-finite values and signals after every
 * SIM_CHECK_STEPS steps (main.c); the CUDA engine runs the steps between as
 * one chunk and takes its spikes once: at 64, each chunk's end cost the
 * microcircuit's loop 5 % (H200, docs/results/microcircuit_2026-11-28c_h200_chunks.txt). */
#define SIM_CHECK_STEPS 256

typedef struct sim_t sim_t;
/* An engine: how the cells of a rank are stepped (CPU threads, one GPU). The
 * step loop (main.c) and set-up see only this; a new backend is a new
 * sim_engine and a line in engine.c. */
typedef struct {
    const char *name;                 /* "cpu", "cuda": provenance attribute `backend` */
    int gpu;                          /* one GPU per rank (for messages) */
    int exact_nonfinite;              /* the first non-finite step and cell are known after every step */
    void (*setup)(sim_t *s);          /* after the host state is initialised (and a restart loaded) */
    void (*step)(sim_t *s, int64_t step);  /* step -> step + 1, the halo exchange included */
    void (*fetch)(sim_t *s, int all); /* the state into s->state for output: all, or the recorded cells */
    double (*energy_j)(sim_t *s, int *owner);  /* energy counter in J, -1: none (owner: count this one) */
    void (*free)(sim_t *s);
    /* Optional (NULL: one step() per step): steps [first, first + count) in
     * one go, count <= max_steps(s); the step loop asks for chunks that end
     * where it must look at the state (reports, checks, checkpoints). */
    void (*steps)(sim_t *s, int64_t first, int64_t count);
    int64_t (*max_steps)(sim_t *s);
    /* Optional (NULL: the host's k->out): the weights of list entries x[0 .. n) into w.
     * x is a selection's index, unchanged while the engine lives (the CUDA
     * engine keeps its copy of the last one by its address). */
    void (*weights)(sim_t *s, const int64_t *x, int64_t n, double *w);
    /* Optional (NULL: the engine reads the host's): the host's --poisson
     * inputs (s->spk->poisson) changed between steps; copy them in. */
    void (*inputs_changed)(sim_t *s);
} sim_engine;
extern const sim_engine sim_engine_cpu;   /* engine_cpu.c */
extern const sim_engine sim_engine_point_cpu;  /* spk_engine.c: point models (point_model.h: built in or a plugin's), chemical synapses */
extern const sim_engine sim_engine_cable_cpu;  /* spk_cable.c: cable cells (hh_traub, hh_cable), chemical synapses */
extern const struct spk_cell_kind spk_cable_kind;  /* spk_cable.c: cable cells as the spiking core carries them */
#ifdef OLIVE_HAVE_CUDA
extern const sim_engine sim_engine_cuda;  /* engine_cuda.c */
extern const sim_engine sim_engine_spiking_cuda;  /* spk_cuda.cu */
#endif
/* A model family: how a network of its cells is set up and torn down, and
 * the engines that step it. engine.c's table holds one line per family; a
 * new family is a room of its own, a line there and its models in
 * common/models/cellmodel.c. */
typedef struct sim_family sim_family;
struct sim_family {
    const char *name;
    int (*takes)(const olive_cell_model *model);  /* the first family whose takes() says yes runs a model */
    /* The whole set-up: sim_setup_common(s, cfg, family) first. */
    void (*setup)(sim_t *s, sim_config *cfg, const sim_family *family);
    void (*free)(sim_t *s);           /* what setup allocated beyond sim_t's own arrays; NULL: nothing */
    const sim_engine *cpu, *cuda;     /* cuda NULL: none (a build without CUDA) */
    /* Why its CUDA engine cannot run this --restart or --checkpoint-every
     * (then the CPU engine runs it, or --backend cuda is refused), NULL when
     * it can; the function itself NULL: always. */
    const char *(*cuda_restart_unfit)(const sim_t *s);
    const struct spk_cell_kind *cells; /* a kind of cell the spiking core carries (spk.h), NULL: none */
};
/* setup.c: the engine --backend asks for among s->family's (collective: every rank the same). */
const sim_engine *sim_engine_choose(sim_t *s);

/* What an InfOli network's run holds beyond the cells' state (setup.c,
 * infoli/): the halo exchange of V_dend, the junctions' terms and currents,
 * the injected current and the noise. A spiking network's own part is
 * sim_spk (spiking/spk.h). */
struct sim_infoli {
    MPI_Comm graph;          /* distributed-graph communicator of the halo exchange */
    void *wlut;              /* conductance per code (bits 4/8/16), in the run's precision */
    void *sendbuf;           /* packed V_dend for other ranks */
    int *nbr_send_count, *nbr_send_displ, *nbr_recv_count, *nbr_recv_displ;
    int nbr_out, nbr_in;
    sim_jgroups jg[2];       /* CPU engine: the interior and the boundary rows' junctions, in groups */
    void *ic, *iapp;         /* per own cell: gap-junction and injected current of this step */
    int iapp_dirty;          /* iapp holds a pulse and must be cleared */
    olive_noise nz;          /* the OU process (nz.on = 0: none) */
    void *noise;             /* per own cell: the OU current of the coming step (run's precision) */
};

struct sim_t {
    sim_config *cfg;
    const sim_family *family;
    const sim_engine *engine;
    int rank, size;
    olive_network net;       /* own rows (global ids) */
    olive_plan plan;
    uint32_t net_crc;        /* structure checksum of the whole network */
    uint64_t net_content;    /* content hash: conductances and g_CaL (netcontent.h) */
    /* State, structure of arrays, one copy updated in place (the junction
     * pass reads every V_dend before the update pass writes any); V_dend has
     * nlocal + nhalo entries so junctions index own cells and halo cells alike. */
    void *state[OLIVE_NVARS];
    void *state_raw[OLIVE_NVARS]; /* the allocations behind state[] (staggered starts, setup.c) */
    /* Spikes found by each thread, merged at the end. */
    sim_spike **tspikes;
    int64_t *tspike_n, *tspike_cap;
    int nthreads;
    int64_t bad_cell, bad_step; /* first non-finite value seen, -1 if none */
    char bad_what[320];      /* what became non-finite there (a variable, a solver), or "": for the message */
    sim_pulse *active;       /* scratch: the pulses active in the current step */
    unsigned char *flags;    /* per own cell: spike / non-finite flags of this step */
    /* InfOli networks: the gap junctions' exchange and currents, the noise */
    struct sim_infoli io;
    /* InfOli's CUDA backend (NULL: CPU; a spiking network's is sim_spk's
     * cuda). state[] then holds host mirrors of the device state, refreshed
     * by sim_cuda_fetch for output. */
    struct sim_cuda *cuda;
    /* Spiking networks (spk.h; NULL for InfOli): synapses, delay buffers, coefficients. */
    struct sim_spk *spk;
    sim_timings t;
    int64_t loop_end;        /* the step the step loop's current run ends after (engines collect there) */
    int64_t end_step;        /* the step the output ends at (provenance) */
};

/* cli.c */
/* session: without --steps/--time the horizon is open (run.open_ended). */
void sim_parse_args(int argc, char **argv, sim_config *cfg, int session);
/* stimulus.c */
void sim_add_pulse_arg(sim_stim_config *st, const char *arg);
void sim_stimulus_set_dt(double dt);   /* the step pulse times are rounded to */
/* The model whose unit a --pulse AMP is in, and that unit (I_e's; InfOli: uA/cm2). */
void sim_stimulus_set_model(const olive_cell_model *m);
const char *sim_pulse_unit(const olive_cell_model *m);
void sim_add_poisson_arg(sim_spiking_config *sp, const char *arg);
void sim_read_stimulus(sim_stim_config *st, const char *path);
void sim_check_pulses(const sim_stim_config *st, int64_t count);
int sim_active_pulses(const sim_stim_config *st, int64_t step, sim_pulse *out);
/* Whether any pulse is on during steps [first, first + count). */
int sim_pulses_during(const sim_stim_config *st, int64_t first, int64_t count);
/* engine.c: the set-up of the family that runs cfg->run.model. */
void sim_setup(sim_t *s, sim_config *cfg);
/* setup.c */
/* Shared by the set-ups: s zeroed, its family, rank, size, threads, spike lists. */
void sim_setup_common(sim_t *s, sim_config *cfg, const sim_family *family);
/* Without --threads or OMP_NUM_THREADS: as many threads as give each at
 * least per_thread of the rank's nlocal cells (at most the default): a step's
 * barrier costs more than a few thousand cells' work, and far more on a busy
 * machine, so a small network runs on one thread. */
void sim_threads_for_work(sim_t *s, int64_t nlocal, int64_t per_thread);
/* InfOli: ~20 ns a cell-step on one core (SIMD): 8192 cells are ~160 us of
 * work a step, well above a barrier's cost even with passive waiting. */
#define SIM_INFOLI_CELLS_PER_THREAD 8192
/* The rank count, pulses and recorded cells against the network's count
 * cells (resolves the populations and recorded cells: sim_record_resolve). */
void sim_check_cell_count(const sim_t *s, sim_config *cfg, int64_t count);
/* record_sets.c: the output populations (the network's, or --population's one)
 * and each recorded variable's cells from the --record-cells arguments
 * (every cell when none names it), refusing items that name no cell. */
void sim_record_resolve(sim_config *cfg, int64_t count);
/* How many cells of set lie in [a, b). */
int64_t sim_cellset_count(const sim_cellset *set, int64_t a, int64_t b);
/* The ranges of set within [a, b), shifted by -a, into *out (allocated); returns their number. */
int sim_cellset_slice(const sim_cellset *set, int64_t a, int64_t b, int64_t (**out)[2]);
/* The local rows [lo, hi) holding every cell of any recorded variable
 * (lo = hi: none), the span a device copies for output. */
void sim_record_span(const sim_t *s, int64_t *lo, int64_t *hi);
void sim_record_free(sim_config *cfg);
/* The set-up of an InfOli network (the family's setup). */
void sim_setup_infoli(sim_t *s, sim_config *cfg, const sim_family *family);
/* The engine's, the family's and sim_t's own allocations. */
void sim_free(sim_t *s);
/* spk_setup.c: the set-up of a network of spiking cells (integrate-and-fire, cable). */
void sim_setup_spiking(sim_t *s, sim_config *cfg, const sim_family *family);
void sim_free_spiking(sim_t *s);
/* spk_delivery.c: why the CUDA engine cannot run a spiking network's
 * --restart or --checkpoint-every (the family's cuda_restart_unfit). */
const char *spk_cuda_restart_unfit(const sim_t *s);
/* variability.c: random initial potentials and the noise's start (before a restart's state is loaded) */
void sim_setup_variability(sim_t *s);
/* kernel_cpu.c */
/* The CPU kernels' instruction set, chosen once (OLIVE_SIMD, else the widest the CPU runs). */
void sim_simd_select(const sim_t *s);
/* Gap-junction currents into s->io.ic of the interior (part 0) or the boundary (1) rows. */
void sim_currents(sim_t *s, int part);
/* Whether this rank's junction pass has nothing to do: --gj ngj, or no
 * junction on the rank's rows (every current is then +0.0). */
int sim_no_junction_pass(const sim_t *s);
/* junction_groups.c: a list of rows laid out for the CPU junction pass
 * (unroll: SIM_GROUP_UNROLL of the run's precision), and its release. */
void sim_junction_groups_build(const sim_t *s, const int32_t *rows, int64_t nrows, int unroll, sim_jgroups *G);
void sim_junction_groups_free(sim_jgroups *G);
/* Advance every own cell one step, in place (after all currents are in). */
void sim_update(sim_t *s, int64_t step, const sim_pulse *active, int nactive, int rebuild_iapp);
/* Steps [first, first + count) of this thread's cells, chunk by chunk (each
 * chunk all the steps while it stays in cache): only for cells whose step
 * reads nothing but their own values and an I_app that stays +0.0
 * (engine_cpu.c's choice); the same bits as count calls of sim_update. */
void sim_update_steps(sim_t *s, int64_t first, int64_t count);
/* backend_cuda.cu (built with CUDA only: OLIVE_HAVE_CUDA) */
#ifdef OLIVE_HAVE_CUDA
int sim_cuda_device_count(void);         /* 0 when no device or no driver */
void sim_cuda_setup(sim_t *s);           /* after the host state is initialised */
void sim_cuda_step(sim_t *s, int64_t step, const sim_pulse *active, int nactive);
/* After step i: every few steps (and at the last), collect spikes and the first
 * non-finite value from the device into tspikes[0] / bad_step, bad_cell. */
void sim_cuda_poll(sim_t *s, int64_t i);
/* Copy device state to the host mirrors state[]: all: every variable of every
 * own cell; else the recorded variables of the recorded cells. */
void sim_cuda_fetch(sim_t *s, int all);
void sim_cuda_free(sim_t *s);
/* The energy counter (NVML) of this rank's GPU in joules, or -1 when the
 * driver offers none. Only the first rank on each GPU reads it (owner = 1),
 * so that a GPU shared by ranks is counted once. */
double sim_cuda_energy_j(sim_t *s, int *owner);
#endif
/* exchange.c */
void sim_exchange_begin(sim_t *s, MPI_Request *req);
void sim_exchange_end(sim_t *s, MPI_Request *req);
/* output.c */
typedef struct sim_output sim_output;
/* The files go to dir/NAME (dir: a temporary directory), or with in_place
 * (checkpoint mode) to temporary names beside dir/NAME, renamed by
 * sim_output_commit. */
sim_output *sim_output_open(sim_t *s, const char *dir, int in_place);
void sim_output_frame(sim_output *o, sim_t *s);   /* called after every step that records */
void sim_output_weights(sim_output *o, sim_t *s);   /* after every step of a weights frame (weights.h5) */
/* Finish every file after end_step steps (cfg->run.steps, or earlier when a
 * signal stopped the run: the reports are cut to the frames done); kind is
 * "final" or "interrupted" (the /state attribute). */
void sim_output_close(sim_output *o, sim_t *s, int64_t end_step, const char *kind);
/* Checkpoint mode, at the checkpoint of step (collective): OUTDIR/spikes.h5
 * with every spike of [start_step, step), durable (fsync'ed, renamed) before
 * the state of step is: after a kill it reaches at least as far as
 * state.h5. */
void sim_output_checkpoint_spikes(sim_output *o, sim_t *s, int64_t step);
/* Rename every temporary onto its NAME (rank 0; checkpoint mode). */
void sim_output_commit(sim_output *o, sim_t *s);
/* method.c: the run's integration method as the attribute `method`
 * records it ("plugin" for a plugin's model). */
const char *sim_method_name(const sim_config *c);
/* provenance.c: the run's attributes on an output file, and */
void sim_write_provenance(sim_t *s, int64_t hid, const char *file);
/* a report's mapping/time (start, stop, step in ms) for frames, one every
 * `every` steps: created in the mapping group loc, or (create 0) rewritten in
 * group pop of /report of the report file loc (a population's; weights.h5: a projection's). */
void sim_report_time(sim_t *s, const char *path, int64_t loc, const char *pop, int64_t frames, int64_t every, int create,
                     int64_t xfer);
/* The state after step steps of every own cell into path (collective); kind:
 * "final", "checkpoint" or "interrupted". Dies on any failed write or close. */
void sim_write_state(sim_t *s, const char *path, int64_t step, const char *kind);
/* infoli/restart.c: the state file of an InfOli --restart */
/* Check the header of the state file against the run (before any work). */
void sim_restart_check_header(const sim_config *cfg, int64_t count);
/* Check the network checksum and X. */
void sim_restart_load(sim_t *s);
/* Collective: the host bytes of every rank of a node summed against what the
 * node has available; dies naming what (the file and what in it costs) when
 * they do not fit. dev < 0: no device estimate to report. */
void sim_require_node_memory(sim_t *s, double host, double dev, const char *what);
/* state_seal.c: the checksum of a state file, /state attr `checksum`: the sum
 * of olive_hash_values over every dataset a restart reads (tag: its name,
 * index: the global one, so any rank split gives the same sum) mixed with
 * the attributes a restart reads (docs/FORMAT.md). */
uint64_t sim_state_hash(const char *name, int64_t first, int64_t n, const void *data, size_t el);
/* Collective, after the file's other attributes are written: seals it. */
void sim_state_seal(const char *path, int64_t f, uint64_t part);
/* Dies naming the file when /state has no checksum (a state from before
 * checksums, or not olive's). */
void sim_state_require_checksum(const char *path, int64_t state_group);
/* Dies naming the file when the checksum differs from sum (the whole
 * file's datasets: every rank's parts summed). */
void sim_state_check_sum(const char *path, int64_t f, uint64_t sum);
/* A state file opened for a restart's header (the file; its /state group in
 * *state_group): dies naming the file when it is none, or has no checksum. */
int64_t sim_state_open(const char *path, int64_t *state_group);
/* Collective: sums the ranks' parts, rank 0 checks (and aborts the job). */
void sim_state_verify(sim_t *s, const char *path, int64_t f, uint64_t part);
/* Predicted host bytes of this rank (and device bytes of the CUDA backend) for
 * nlocal own cells with nnz junctions in a network of count cells. */
void sim_predict_memory(const sim_config *cfg, int bits, int64_t count, int64_t nlocal, int64_t nnz,
                        double *host_bytes, double *device_bytes);

#define SIM_CHECK_MPI(call) do { int rc_ = (call); if (rc_ != MPI_SUCCESS) sim_mpi_fail(#call, rc_); } while (0)
void sim_mpi_fail(const char *what, int rc) __attribute__((noreturn));

#endif
