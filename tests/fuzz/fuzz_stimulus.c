/* libFuzzer: the --stimulus reader (tools/simulate/stimulus.c) on arbitrary
 * bytes. A file it accepts must give pulses within --pulse's limits. */
#include "fuzz_h5common.h"
#include "sim.h"
#include <math.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file("fuzz_stimulus", data, size);
    if (!path) return 0;
    static sim_stim_config st;   /* static: a longjmp must not leave it in a dead frame */
    memset(&st, 0, sizeof st);
    if (setjmp(fuzz_back) == 0) {
        sim_read_stimulus(&st, path);
        for (int i = 0; i < st.npulses; i++) {
            const sim_pulse *p = &st.pulses[i];
            if (p->step0 < 0 || p->step1 < p->step0 || !(fabs(p->amp) <= 1e6) || p->first < 0 ||
                (p->last != -1 && p->last <= p->first))
                abort();   /* accepted a pulse the limits refuse */
        }
    } else {
        fuzz_close_everything();
    }
    free(st.pulses);
    unlink(path);
    return 0;
}
