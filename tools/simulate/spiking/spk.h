/* olive-simulate for networks of integrate-and-fire cells with delayed
 * chemical synapses (docs/MODELS.md). The step schedule is Brian2's:
 *   1. every cell's state update (lif.h);  2. threshold -> spikes of step i;
 *   3. delivery of every event due at step i (spikes of step i - d, delay d
 *      steps, d >= 0) into its target's receptor;  4. reset.
 * Events are summed per target, receptor and due step as the spikes arrive,
 * in one fixed order: by exchange window, then spike step, then source id,
 * then the source's synapses in (target id, projection, synapse index) order; at step 3 the sum is added to the receptor
 * variable. No sum depends on the rank or thread count: the windows are the
 * network's, not the partition's.
 * Spikes cross ranks once every D steps (D the smallest delay; every step
 * when a delay is 0), all ranks' spikes to all ranks (MPI_Allgatherv). */
#ifndef OLIVE_SPK_H
#define OLIVE_SPK_H
#include "sim.h"
#include <hdf5.h>
#include "lif.h"
#include "model_plugin.h"
#include "synfile.h"
#include "spike_source.h"
#include "plasticity.h"

/* Below this many cells on a rank the per-step loops run on one thread: a
 * parallel region costs more than a few thousand LIF updates (with
 * OMP_WAIT_POLICY=passive, tens of microseconds a step), and a small network
 * run for a long time would be slower on more threads. One thread or many
 * give the same bits (tests/test_spiking_ranks.sh). */
#define SPK_PARALLEL_MIN_CELLS 2048

/* One synapse seen from its source: the target (local index), the receptor
 * (0 or 1) and the weight. */
typedef struct {
    int32_t target;
    int32_t receptor;
    double w;
} spk_out;

/* One slot of the delay ring: the input due at one step, summed per target
 * and receptor, and the targets that have any. */
typedef struct {
    double *acc[OLIVE_NVARS]; /* per receptor (nacc of them), nlocal each */
    unsigned char *touched;  /* nlocal */
    int32_t *list;           /* the touched targets */
    int64_t n;
} spk_slot;

struct spk_cuda;
struct sim_spk {
    olive_populations pops;
    /* the point model's descriptor (point_model.h: a plugin's or a built-in
     * one), whose cell functions the CPU engine runs; NULL: cable cells */
    const olive_model_plugin *point;
    const olive_model_plugin *plugin;   /* the model's plugin (model_plugin.h), or NULL (built in) */
    double *pcoef;           /* the point model's coefficient sets, point->ncoef doubles each */
    int nacc;                /* receptors of the delay ring: the point model's, else 2 */
    int32_t *coef_of;        /* per own cell: its set */
    /* Outgoing synapses of every source cell of the network into this rank's
     * cells: out[out_ptr[g] .. out_ptr[g+1]) with delays out_delay. */
    int64_t *out_ptr;
    spk_out *out;
    uint16_t *out_delay;
    int64_t nsyn;            /* synapses into this rank's cells (stored: out) */
    /* Projections drawn on the fly at each spike instead (the CUDA engine,
     * outdegree and total_out rules: spk_cuda_rules.cu), in the file's order:
     * their rules and receptors; then no projection is stored. */
    struct {
        struct olive_conn *conn;
        int *rec;
        int n;
        int64_t nsyn;        /* their synapses into this rank's cells (spk_rules_survey) */
        /* total_out rules: each source's count (conn_rule.h), rule j's from
         * counts[cnt_off[j]] (-1: an outdegree); made by spk_rules_survey */
        uint32_t *counts;
        int64_t *cnt_off, ncounts;
        /* their largest in-degree into one of the rank's cells and largest
         * |weight| (spk_rules_survey), --order-free-sums' grid (spk_quantum.c) */
        int64_t indeg_max;
        double wmax;
    } drawn;
    /* Synapses the CUDA engine makes on the device at set-up */
    struct {
        /* the part of the synapse hash (spk_restart.c) of synapses the host
         * does not hold: drawn at each spike, or turned around on the device */
        uint64_t hash;
        /* one rank, a large network: the rows as read, turned around on the
         * device (spk_cuda_turnaround.cu) instead of into out here (out,
         * out_ptr, out_delay stay NULL); the engine frees them */
        olive_synapses *rows;
        int *rows_rec;       /* per projection: its receptor */
        int rows_wanted;     /* 1 yes, 0 no, -1 by size (OLIVE_GPU_TURNAROUND: spk_setup.c) */
        int draw;            /* procedural projections drawn on the device at set-up (OLIVE_GPU_DRAW) */
        void *drawn;         /* their rows there (spk_cuda_draw.cu), until the turn-around takes them */
    } dev;
    int64_t ntarget;         /* the ring's targets: the rank's rows, then the synapse sites' channels (spk_sites.c) */
    int64_t nsyn_total;
    int D;                   /* exchange period in steps (min delay; 1 when it is 0) */
    int zero_delay;          /* some delay is 0: exchange and deliver within the step */
    int L;                   /* max delay + 1 (the CUDA engines' ring; the spikes a state keeps) */
    int slots;               /* the CPU ring: L slots, or the run's steps when fewer (spk_setup.c) */
    int64_t end;             /* the run's last step + 1: events due there or later are not queued */
    spk_slot *ring;
    int64_t *mark;           /* per thread: spikes in tspikes[t] already exchanged */
    int64_t window0;         /* first step of the current exchange window */
    int64_t events;          /* delivered events (this rank) */
    int64_t poisson_events;
    int64_t exchanged;       /* spikes received in exchanges */
    double *cur;             /* per own cell: the pulse current of this step */
    struct {
        sim_poisson *in;     /* cfg's, with steps and receptor indices resolved */
        int *rec;
        double *fac;         /* per input its OLIVE_BINOMIAL_FACTORS (lif.h): the draws' factors made once */
    } poisson;
    struct spk_cable *cable; /* the cell kind's own state (cable/: spk_cable.c), else NULL; never read here */
    struct spk_cuda *cuda;   /* the CUDA engine's device state (spk_cuda.h), else NULL */
    /* Synapse sites: delivery targets after the rank's cells that the cell
     * kind adds (cable/spk_sites.c): n channels, in the weight each received
     * for the next step; chan, while the lists are built, per projection per
     * held synapse its channel (NULL: no sites); row, per channel its own
     * row (the synapse hash names the cell, whatever the rank count). */
    struct {
        int64_t n;
        double *in;
        int32_t *const *chan;
        const int64_t *row;
    } sites;
    /* Spike-source rows (spike_source.h; kind NONE for neurons, whose
     * coef_of is >= 0; sources have coef_of -1) and their list. */
    struct {
        olive_sources src;
        int32_t *rows;
        int64_t n;
    } sources;
    struct {
        /* a restart's spikes in flight (spk_restart.c), sorted by step,
         * cell: kept for the checkpoints that follow */
        sim_spike *restored;
        int64_t nrestored;
        /* a restart of a plastic network: own spikes of the state's window
         * not yet exchanged (steps [window0, start)), sent at the first
         * exchange */
        sim_spike *carry;
        int64_t ncarry;
    } restart;
    struct spk_plastic *plastic;   /* plastic synapses' states (spk_plastic.c), or NULL: every synapse static */
    const int16_t *plastic_proj;   /* with it, per list entry: its plastic projection, -1 static (the exchange's test) */
    int plastic_net;         /* some projection is plastic (known before the synapses are read) */
    int16_t *list_proj;      /* plastic networks: per list entry its projection, and its index in the */
    int64_t *list_index;     /* projection's rows (setup_lists; spk_plastic_setup takes them) */
    int64_t syn_hash;        /* of the synapses (spk_restart.c), once made */
    int syn_hash_done;
    struct {
        int order_free;      /* --order-free-sums: the weights are multiples of 2^-bits (weight_quantum.h) */
        int bits;
        struct spk_wq_scale *scale;   /* per projection the scale of its weights (spk_quantum.c), or NULL */
        int nproj;
    } wq;
};

/* spk_engine.c */
/* The summed --pulse current of every own cell at step (k->cur), or NULL
 * when no pulse is on. */
const double *spk_pulse_currents(sim_t *s, int64_t step);
/* A spike of cell at step, by thread t. */
void spk_add_spike(sim_t *s, int t, int64_t step, int64_t cell);
/* After step 2 of step: the exchange, when step ends a window. */
void spk_window_end(sim_t *s, int64_t step);

/* spk_delivery.c: the CUDA engine's delivery strategy for this run (the one
 * place that chooses; -v says which and why those before it were passed
 * over; OLIVE_GPU_DELIVERY=fused|device|host forces one). */
enum { SPK_HOST_PUSH, SPK_DEVICE_PUSH, SPK_FUSED };
#define SPK_FUSED_MAX_PULSES 256   /* the pulses the fused kernel looks at per cell and step */
int spk_delivery_mode(const sim_t *s);

/* A kind of cell the spiking core carries beside the point models (cable/:
 * cable cells), given by its family's row in engine.c (sim_family.cells):
 * the core calls these and never names the kind. */
struct spk_cuda;
struct spk_cell_kind {
    /* Its cells, and its synapse sites (sim_spk's sites: n, in, chan)
     * from the rank's synapses syn, before the lists are built. */
    void (*setup)(sim_t *s, const olive_synapses *syn);
    void (*lists_built)(sim_t *s);   /* sites.chan was used: it may go */
    void (*free)(sim_t *s);
    /* The cells' own state in a state file's group g (their part of its
     * checksum), and back at a restart from file f (the part read); NULL:
     * the common variables say it all. */
    uint64_t (*write_state)(sim_t *s, const char *path, hid_t g, hid_t xfer);
    uint64_t (*restore_state)(sim_t *s, const char *path, hid_t f);
    /* The CUDA engine's (spk_cuda.cu): its device bytes, set-up, the update of
     * step (q: the ring slot; cur: the pulse current or NULL), the state read
     * back, the device memory freed. NULL in a build without CUDA. */
    double (*cuda_bytes)(const sim_t *s);
    void (*cuda_setup)(sim_t *s, struct spk_cuda *g);
    void (*cuda_update)(sim_t *s, struct spk_cuda *g, int64_t step, int64_t q, const double *cur);
    void (*cuda_fetch)(sim_t *s, struct spk_cuda *g, int all);   /* all: for a state file, everything */
    void (*cuda_free)(struct spk_cuda *g);
};

/* spk_deliver.c */
/* Every rank's spikes of the current window, (step - window0) << 32 | cell,
 * sorted (collective); the caller frees the list. */
int64_t *spk_gather_window(sim_t *s, int64_t *total);
/* Exchange the spikes of the window and queue their events (collective). */
void spk_exchange(sim_t *s, int64_t step);
/* Step 3 for step i: the events due, then the Poisson inputs. */
void spk_deliver(sim_t *s, int64_t step);
/* Queue the events of source cell g's spike at step sstep that fall due at
 * or after step min_due (into this rank's cells); returns their number. */
int64_t spk_queue_spike(sim_t *s, int64_t g, int64_t sstep, int64_t min_due);

/* A point model's receptor q's factor for own cell r (model_plugin.h): an
 * event of weight w adds factor * w. */
double spk_plugin_scale(const struct sim_spk *k, int q, int64_t r);

/* spk_restart.c: --restart and the spikes in flight of state files. */
void spk_restart_check_header(sim_config *cfg, int64_t count);  /* sets cfg->run.start_step */
void spk_restart_load(sim_t *s);  /* the cells' variables, and the events still due */
/* Writes /state/in_flight_*; returns this rank's part of the checksum. */
uint64_t spk_write_in_flight(sim_t *s, const char *path, hid_t state_group, int64_t step, hid_t xfer);
/* The spikes in flight of state file f (path) at step k0 of a network of
 * ncells cells whose longest delay is max_delay steps, validated (integers,
 * each a spike of a cell in [k0 - max_delay, k0), no spike twice) and sorted
 * by step then cell; *hash gets their checksum part. Dies naming the
 * dataset and entry of a bad one. */
sim_spike *spk_read_in_flight(const char *path, hid_t f, int64_t k0, int64_t ncells, int64_t max_delay, int64_t *m,
                              uint64_t *hash);

/* spk_cuda_rules.cu (CUDA builds): the synapses of the rules (k->drawn.conn)
 * into the rank's cells drawn once on the device at set-up, as the spikes
 * will draw them: their count, least and greatest delay (steps; 0 synapses:
 * dmin > dmax) and their part of the synapse hash. A delay or weight that
 * cannot be drawn is fatal, named. */
void spk_rules_survey(sim_t *s, int64_t *count, int64_t *dmin, int64_t *dmax, uint64_t *hash);

/* spk_cuda_turnaround.cu (CUDA builds): k->dev.rows into the device's
 * per-source lists (as setup_synapses makes them: the same lists), their
 * hash part into k->dev.hash; the rows freed. */
struct spk_cuda;
void spk_turnaround_device(sim_t *s, struct spk_cuda *g);
/* spk_cuda_draw.cu (CUDA builds): the rows of syn's kept rules (proj.kept)
 * drawn on the device (k->dev.drawn), each such projection's row_ptr and
 * nnz set on the host (no synapses there); the least and greatest delay
 * drawn (dmin > dmax: none). A value that cannot be drawn is fatal, named. */
void spk_draw_device(sim_t *s, olive_synapses *syn, const int *rec, int64_t *dmin, int64_t *dmax);
/* Projection j's rows on the device, or NULL where it was not drawn there. */
typedef struct {
    int64_t nnz;
    int64_t *row_ptr;        /* device: n + 1 */
    int32_t *col;
    double *w;               /* NULL: the constant */
    uint16_t *d;             /* NULL: the constant */
} spk_drawn_rows;
const spk_drawn_rows *spk_drawn_of(const sim_t *s, int j);
void spk_drawn_free(sim_t *s);

/* spk_quantum.c: --order-free-sums on the host's lists (k->out): F from
 * the largest in-degree and |weight| of every rank's, the synapse hash
 * made from the weights as read, then every weight rounded. */
void spk_quantize_host(sim_t *s);
/* F from the rank's largest in-degree and |weight|, the same on every rank
 * (MPI_MAX); logged. */
int spk_quantum_bits(sim_t *s, int64_t indeg, double wmax);
/* Per projection of syn its largest |weight| (every rank's), kept for the
 * precision check of spk_quantum_bits; freed by spk_quantum_free. */
void spk_quantum_scales(sim_t *s, const olive_synapses *syn);
void spk_quantum_free(sim_t *s);

/* spk_setup.c: k->dev.rows turned around on the host after all (the device
 * lacks the memory), and freed. */
void spk_lists_on_host(sim_t *s);

/* spk_plastic.c: plastic synapses (plasticity.h) on the CPU engine. */
/* 1 when some projection of syn is plastic. */
int spk_plastic_any(const olive_synapses *syn);
/* After the per-source lists are made from syn (the host's): the states
 * of the plastic synapses, the tables of their projections; k->plastic
 * stays NULL when every projection is static. */
void spk_plastic_setup(sim_t *s, const olive_synapses *syn);
/* After step 2 of step: the spikes of the cells with stdp inputs into their
 * histories (before the exchange reads them). */
void spk_plastic_post(sim_t *s, int64_t step);
/* A spike of step sstep through list entry x (delay d steps): a plastic
 * synapse's update; returns the weight the event carries. */
double spk_plastic_pre(struct sim_spk *k, int64_t x, int64_t sstep, int d, double dt);
/* /state/plastic/PROJ/...: every plastic synapse's weight and state in the
 * file's synapse order; the stdp targets' spike histories, the events
 * queued and not yet due, the exchange window (collective); returns this
 * rank's checksum part. */
uint64_t spk_plastic_write(sim_t *s, const char *path, hid_t state_group, int64_t step, hid_t xfer);
/* A restart of a plastic network from state file f (path) at step k0
 * (spikes in flight read: k->restart.restored): the states, histories and queued
 * events, the window and its spikes not yet exchanged (k->restart.carry), validated;
 * adds this rank's checksum part of what it read to *part. */
void spk_plastic_restore(sim_t *s, const char *path, hid_t f, uint64_t *part);
/* The synapse hash of the network's (the file's) weights: made at set-up,
 * before plastic weights change (spk_restart.c). */
int64_t spk_synapse_hash(sim_t *s);
void spk_plastic_free(struct sim_spk *k);
/* spk_inputs.c: a --poisson input's rate (Hz) checked for the step (what:
 * where it comes from, for the message; a usage error). */
void spk_poisson_rate_check(const sim_poisson *p, double rate_hz, double dt, const char *what);
/* --poisson input j's rate from the next step on, on the host and in the
 * engine's copies (sim_engine.inputs_changed). */
void sim_set_poisson_rate(sim_t *s, int j, double rate_hz, const char *what);
/* spk_params.c: SPEC ("POP.NAME=VALUE", as --param) set in memory from step
 * on: 0, or -1 with the reason in why where the run cannot take it in
 * memory (nothing changed then); a malformed SPEC stops as --param's does.
 * The caller then tells the engine (sim_engine.inputs_changed). */
int sim_set_param(sim_t *s, const char *spec, int64_t step, char *why, size_t why_len);
/* spk_params.c: whether population p's coefficient sets are per cell (a
 * parameter of its cells' own that the coefficients read). */
int spk_pop_percell(const struct sim_spk *k, const olive_population *p);
/* A weight report's synapses (output/weights.c): synapses a <= e < b of
 * plastic projection `name` (e: its index in the projection, file order),
 * this rank's of them (e0 <= e < e0 + n: ranks hold whole cells, so their
 * parts follow each other), each one's list entry, target and source cell.
 * Returns 0, or a fault for the caller's message: -1 no such projection,
 * -2 a static one, -3 b beyond its synapses (total set). Collective. */
typedef struct {
    int proj, rule;
    int64_t total, e0, n;
    int64_t *x, *target, *source;
} spk_weight_sel;
/* "a, b" the names of the plastic projections (into buf), or "none". */
const char *spk_plastic_names(const sim_t *s, char *buf, size_t n);
int spk_plastic_select(sim_t *s, const char *name, int64_t a, int64_t b, spk_weight_sel *sel);
/* The host's tables, for the CUDA engine (spk_cuda_plastic.cu): per list
 * entry its projection (-1: static) and state, per projection its rule, per
 * own cell its tau_minus (0: no stdp input). */
typedef struct {
    int nproj;
    const olive_plasticity *rule;
    const int16_t *proj_of;
    olive_plast_state *st;
    const double *tau_minus;
} spk_plastic_view;
void spk_plastic_view_of(const struct sim_spk *k, spk_plastic_view *v);
/* After a GPU run: own cell r's kept spikes (n, oldest first), the step of
 * the newest its ring dropped (OLIVE_POST_NONE: none), its Kminus and last
 * spike time; cap: the ring's size (for messages). */
void spk_plastic_set_history(struct sim_spk *k, int64_t r, const int64_t *step, const double *kminus, int64_t n,
                             int64_t dropped, double kminus_now, double last_t, int64_t cap);

/* spk_params.c: --param applied to the populations just read (sets the
 * run's param_overrides). */
void spk_params_apply(sim_config *cfg, olive_populations *pops);
/* A population's parameters the model refuses (fault): named after its
 * --param overrides when it has any, else after the network file. */
void spk_pop_refuse(const sim_config *cfg, const olive_population *p, const char *fault) __attribute__((noreturn));

#endif
