/* A projection's plasticity rule in the network file (docs/FORMAT.md: the
 * group's attribute `plasticity` and one `plasticity_NAME` per parameter),
 * written and read through the rules' by-name table (plasticity_io.h). */
#include "plasticity_attrs.h"
#include "h5util.h"
#include "util.h"
#include <stdio.h>
#include <string.h>

/* Attribute `plasticity_NAME` of parameter NAME. */
static void attr_name(char *buf, size_t n, const char *par) { snprintf(buf, n, "plasticity_%s", par); }

void olive_plast_write(const char *path, hid_t pg, const olive_plasticity *p)
{
    if (p->rule == OLIVE_PLAST_NONE) return;
    olive_h5_attr_str(path, pg, "plasticity", olive_plast_rule_name(p->rule));
    for (int k = 0; k < olive_plast_npar(p->rule); k++) {
        char an[96];
        attr_name(an, sizeof an, olive_plast_par_name(p->rule, k));
        olive_h5_attr_f64(path, pg, an, p->par[k]);
    }
}

int olive_plast_attr_known(const char *name, const olive_plasticity *p)
{
    if (!strcmp(name, "plasticity")) return 1;
    if (strncmp(name, "plasticity_", 11)) return 0;
    for (int k = 0; k < olive_plast_npar(p->rule); k++)
        if (!strcmp(name + 11, olive_plast_par_name(p->rule, k))) return 1;
    return 0;
}

void olive_plast_read(const char *path, hid_t pg, const char *where, olive_plasticity *p)
{
    char rule[64] = "";
    memset(p, 0, sizeof *p);
    if (!olive_h5_get_str_opt(path, pg, "plasticity", rule, sizeof rule)) return;
    const int r = olive_plast_rule_of(rule);
    if (r < 0) olive_die("%s: %s: plasticity '%s' is not a rule olive knows (stdp, stdp_nn_symm, tsodyks, tsodyks2, static)", path, where, rule);
    p->rule = r;
    for (int k = 0; k < olive_plast_npar(r); k++) {
        char an[96];
        attr_name(an, sizeof an, olive_plast_par_name(r, k));
        if (!olive_h5_has_attr(pg, an))
            olive_die("%s: %s: plasticity %s needs the attribute '%s' (its parameters: %s)", path, where, rule, an,
                      olive_plast_par_list(r));
        p->par[k] = olive_h5_get_f64(path, pg, where, an);
    }
    const char *bad = olive_plast_fault(p);
    if (bad) olive_die("%s: %s: plasticity %s: %s", path, where, rule, bad);
}
