/* libFuzzer: the --restart state-file readers on arbitrary bytes, each
 * input tried as both kinds of state:
 * - InfOli (tools/simulate/infoli/restart.c sim_restart_check_header), for a run of
 *   6 cells x 100 steps in double precision with RGJ; an accepted state must
 *   start before the run's end;
 * - spiking (spk_restart.c: spk_restart_check_header, then the spikes in
 *   flight, spk_read_in_flight), for a lif_cuba run of 6 cells x 1000 steps
 *   at dt 0.1 ms whose longest delay is 25 steps (the seed corpus's
 *   spiking6.h5: 8 spikes in flight); accepted spikes must be sorted, in
 *   range and unique. Then the checksum is checked against the file.
 * The checksum is checked last by the readers too (after every other
 * validation, which therefore names what it finds), so a fuzzed file that
 * no longer matches its checksum still reaches all the validation before:
 * no fuzzing build flag or checksum fix-up is needed. */
#include "fuzz_h5common.h"
#include "sim.h"
#include "spk.h"
#include "h5util.h"
#include "model.h"
#include <string.h>

/* restart.c's MPI failure path lives in setup.c, and the event queue in
 * spk_deliver.c, which the harness does not link (neither is reached). */
void sim_mpi_fail(const char *what, int rc) { (void)rc; olive_die("MPI call failed: %s", what); }
int64_t spk_queue_spike(sim_t *s, int64_t g, int64_t sstep, int64_t min_due)
{
    (void)s; (void)g; (void)sstep; (void)min_due;
    abort();
}

static void infoli(const char *path)
{
    static sim_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.run.restart_path = path;
    cfg.run.net_path = "net.h5";
    cfg.run.steps = 100;
    cfg.infoli.gj = OLIVE_GJ_RGJ;
    sim_restart_check_header(&cfg, 6);
    if (cfg.run.start_step < 0 || cfg.run.start_step >= cfg.run.steps) abort();
}

static void spiking(const char *path)
{
    static sim_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.run.restart_path = path;
    cfg.run.net_path = "net.h5";
    cfg.run.model = &olive_model_lif_cuba;
    cfg.spiking.method = OLIVE_METHOD_EXACT;
    cfg.run.dt = 0.1;
    cfg.run.steps = 1000;
    spk_restart_check_header(&cfg, 6);
    const int64_t k0 = cfg.run.start_step;
    if (k0 < 0 || k0 >= cfg.run.steps) abort();
    hid_t f = olive_h5_open_read(path);
    int64_t m;
    uint64_t hash;
    sim_spike *sp = spk_read_in_flight(path, f, k0, 6, 25, &m, &hash);
    for (int64_t i = 0; i < m; i++) {
        if (sp[i].step < k0 - 25 || sp[i].step >= k0 || sp[i].cell < 0 || sp[i].cell >= 6) abort();
        if (i > 0 && (sp[i].step < sp[i - 1].step || (sp[i].step == sp[i - 1].step && sp[i].cell <= sp[i - 1].cell)))
            abort();
    }
    free(sp);
    /* the variables' part of the checksum, as spk_restart_load makes it */
    double v[6];
    for (int q = 0; q < cfg.run.model->nvars; q++) {
        char name[64];
        snprintf(name, sizeof name, "state/%s", cfg.run.model->var_names[q]);
        olive_h5_read_slab1(path, f, name, H5T_NATIVE_DOUBLE, 0, 6, v);
        hash += sim_state_hash(name, 0, 6, v, 8);
    }
    sim_state_check_sum(path, f, hash);
    H5Fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file("fuzz_state", data, size);
    if (!path) return 0;
    if (setjmp(fuzz_back) == 0) infoli(path);
    else fuzz_close_everything();
    if (setjmp(fuzz_back) == 0) spiking(path);
    else fuzz_close_everything();
    unlink(path);
    return 0;
}
