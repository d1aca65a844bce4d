/* libFuzzer: the --restart state-file header check (tools/simulate/
 * restart.c sim_restart_check_header) on arbitrary bytes, for a run of 6
 * cells x 100 steps in double precision with RGJ. An accepted state must
 * start before the run's end. */
#include "fuzz_h5common.h"
#include "sim.h"
#include "model.h"
#include <string.h>

/* restart.c's MPI failure path lives in setup.c, which the harness does not
 * link. */
void sim_mpi_fail(const char *what, int rc) { (void)rc; olive_die("MPI call failed: %s", what); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file("fuzz_state", data, size);
    if (!path) return 0;
    static sim_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.restart_path = path;
    cfg.net_path = "net.h5";
    cfg.steps = 100;
    cfg.gj = OLIVE_GJ_RGJ;
    if (setjmp(fuzz_back) == 0) {
        sim_restart_check_header(&cfg, 6);
        if (cfg.start_step < 0 || cfg.start_step >= cfg.steps) abort();
    } else {
        fuzz_close_everything();
    }
    unlink(path);
    return 0;
}
