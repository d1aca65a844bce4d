#include "state.h"
#include <strings.h>

const char *const olive_var_names[OLIVE_NVARS] = {
    "v_dend", "q", "r", "s", "ca", "i_cah",
    "g_cal", "v_soma", "m", "h", "k", "l", "n", "p", "x_s",
    "v_axon", "m_a", "h_a", "x_a",
};

const char *const olive_var_units[OLIVE_NVARS] = {
    "mV", "1", "1", "1", "1", "uA/cm2",
    "mS/cm2", "mV", "1", "1", "1", "1", "1", "1", "1",
    "mV", "1", "1", "1",
};

const double olive_var_initial[OLIVE_NVARS] = {
    -60.0, 0.0337836, 0.0112788, 0.0049291, 3.7152, 0.5,
    0.68, -60.0, 1.0127807, 0.3596066, 0.7423159, 0.0321349, 0.2369847, 0.2369847, 0.1,
    -60.0, 0.003596066, 0.9, 0.2369847,
};

int olive_var_by_name(const char *name)
{
    for (int i = 0; i < OLIVE_NVARS; i++)
        if (strcasecmp(name, olive_var_names[i]) == 0) return i;
    return -1;
}
