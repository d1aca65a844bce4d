/* olive-genconn --biophysics FILE[@POP], --mechanisms NAME[@POP] and
 * --synapse-mechanism REC=NAME[@POP] for
 * biophys_swc populations: a cell's biophysics as cable_mechs.h's statements,
 * from an Allen Cell Types "fit" JSON file or bmtk's dynamics_params (the
 * perisomatic form, as bmtk's set_params_peri applies it), or a text of
 * those statements as is; and the NMODL mechanism library they use, found
 * in the places the user chose and recorded by name and hash. */
#include "spiking_net.h"
#include "genconn.h"
#include "cable_mechs.h"
#include "json.h"
#include "util.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { char *s; size_t n, cap; const char *file; } text_buf;

static void read_text(const char *file, text_buf *t)
{
    FILE *f = fopen(file, "r");
    if (!f) olive_usage_error("--biophysics %s: cannot open it: %s", file, strerror(errno));
    t->n = fread(t->s, 1, t->cap - 1, f);
    const int more = fgetc(f) != EOF, bad = ferror(f);
    fclose(f);
    if (bad) olive_usage_error("--biophysics %s: cannot read it", file);
    if (more) olive_usage_error("--biophysics %s: longer than %zu characters", file, t->cap - 1);
    t->s[t->n] = 0;
    if (strlen(t->s) != t->n) olive_usage_error("--biophysics %s: not a text file", file);
}

/* FILE[@POP] or NAME[@POP]: the value and the population it names (NULL: all). */
static const char *split_at(const char *v, char *buf, size_t n, const char *opt)
{
    if ((size_t)snprintf(buf, n, "%s", v) >= n) olive_usage_error("%s %s: too long", opt, v);
    char *at = strrchr(buf, '@');
    if (!at) return NULL;
    *at = 0;
    return at + 1;
}

/* Appends line to population p's biophysics. */
static void biophysics_add(olive_population *p, const char *line, const char *opt)
{
    const size_t n = strlen(p->biophysics), k = strlen(line);
    if (n + k + 2 >= sizeof p->biophysics)
        olive_usage_error("%s: population %s: its biophysics would be longer than %zu characters", opt, p->name,
                          sizeof p->biophysics - 1);
    snprintf(p->biophysics + n, sizeof p->biophysics - n, "%s%s\n", n && p->biophysics[n - 1] != '\n' ? "\n" : "", line);
}

void gc_apply_biophysics(gc_spk_config *cfg, const char *const *bios, int nbio, const char *const *mechs, int nmech,
                         const char *const *synmechs, int nsyn)
{
    if ((nbio || nmech || nsyn) && !olive_model_needs_mechanisms(cfg->model))
        olive_usage_error("--biophysics, --mechanisms and --synapse-mechanism apply to biophys_swc populations, not %s",
                          cfg->model->name);
    for (int j = 0; j < nbio; j++) {
        char buf[4096];
        const char *pop = split_at(bios[j], buf, sizeof buf, "--biophysics");
        static char text[sizeof cfg->pops.pop[0].biophysics];
        text_buf t = {text, 0, sizeof text, buf};
        const size_t len = strlen(buf);
        if (len > 5 && !strcmp(buf + len - 5, ".json")) t.n = gc_biophysics_of_fit(buf, text, sizeof text);
        else read_text(buf, &t);
        int hit = 0;
        for (int i = 0; i < cfg->pops.n; i++)
            if (!pop || !strcmp(pop, cfg->pops.pop[i].name)) {
                memcpy(cfg->pops.pop[i].biophysics, text, t.n + 1);
                hit = 1;
            }
        if (!hit) olive_usage_error("--biophysics %s: no population '%s'", bios[j], pop);
    }
    for (int j = 0; j < nmech; j++) {
        char buf[256], why[3000];
        const char *pop = split_at(mechs[j], buf, sizeof buf, "--mechanisms");
        const olive_mech_library *lib = olive_mechs_find(buf, NULL, why, sizeof why);
        if (!lib) olive_usage_error("--mechanisms %s: %s", mechs[j], why);
        int hit = 0;
        for (int i = 0; i < cfg->pops.n; i++)
            if (!pop || !strcmp(pop, cfg->pops.pop[i].name)) {
                snprintf(cfg->pops.pop[i].mechanisms, sizeof cfg->pops.pop[i].mechanisms, "%s", lib->name);
                snprintf(cfg->pops.pop[i].mechanisms_hash, sizeof cfg->pops.pop[i].mechanisms_hash, "%s", lib->hash);
                hit = 1;
            }
        if (!hit) olive_usage_error("--mechanisms %s: no population '%s'", mechs[j], pop);
    }
    for (int j = 0; j < nsyn; j++) {   /* (checked with the rest of the biophysics when the cells are made) */
        char buf[256], line[300];
        const char *pop = split_at(synmechs[j], buf, sizeof buf, "--synapse-mechanism");
        char *eq = strchr(buf, '=');
        if (!eq || eq - buf != 2 || (strncmp(buf, "ge", 2) && strncmp(buf, "gi", 2)) || !eq[1])
            olive_usage_error("--synapse-mechanism %s: expected ge=NAME or gi=NAME", synmechs[j]);
        *eq = 0;
        snprintf(line, sizeof line, "synapse %s %s", buf, eq + 1);
        int hit = 0;
        for (int i = 0; i < cfg->pops.n; i++)
            if ((!pop || !strcmp(pop, cfg->pops.pop[i].name)) && !olive_model_is_source(cfg->pops.pop[i].model)) {
                biophysics_add(&cfg->pops.pop[i], line, "--synapse-mechanism");
                hit = 1;
            }
        if (!hit) olive_usage_error("--synapse-mechanism %s: no population '%s'", synmechs[j], pop);
    }
    if (!olive_model_needs_mechanisms(cfg->model)) return;
    for (int i = 0; i < cfg->pops.n; i++) {
        const olive_population *p = &cfg->pops.pop[i];
        if (olive_model_is_source(p->model)) continue;
        if (!p->biophysics[0] || !p->mechanisms[0])
            olive_usage_error("population %s: a biophys_swc population needs --biophysics FILE[@%s] (an Allen fit JSON "
                              "file, or olive's statements) and --mechanisms NAME[@%s] (a library olive-model build made)",
                              p->name, p->name, p->name);
    }
}

void gc_apply_point_synapses(gc_spk_config *cfg)
{
    static const char *const names[3] = {"tau1", "tau2", "e"};
    for (int i = 0; i < cfg->pops.n; i++) {
        olive_population *p = &cfg->pops.pop[i];
        const olive_mech_library *lib = olive_model_is_source(p->model) ? NULL : gc_pop_mechanisms(p);
        if (!lib) continue;
        olive_biophysics b;
        const char *fault = olive_biophysics_parse(p->biophysics, lib, &b);
        if (fault) olive_usage_error("population %s: %s", p->name, fault);
        int syn[2] = {b.syn[0] - 1, b.syn[1] - 1};
        olive_biophysics_free(&b);
        for (int r = 0; r < 2; r++) {
            double v[3];
            const char *from;
            if (syn[r] < 0 || !gc_spk_exp2syn_of(i, r, v, &from)) continue;
            const olive_mech_desc *d = &lib->mech[syn[r]];
            for (int q = 0; q < 3; q++) {
                int has = 0;
                for (int k = 0; k < d->nparam; k++) has |= !strcmp(d->param_names[k], names[q]);
                if (!has)
                    olive_die("%s: an exp2syn synapse model onto population %s, whose %s synapses are %s (%s), which has "
                              "no RANGE parameter %s (BioNet sets an Exp2Syn's tau1, tau2 and e)", from, p->name,
                              r ? "gi" : "ge", d->name, d->file, names[q]);
                char line[160];
                snprintf(line, sizeof line, "synapse %s %s = %.17g", r ? "gi" : "ge", names[q], v[q]);
                biophysics_add(p, line, "--synapse-mechanism");
            }
        }
    }
}

/* The library of population p (its name and hash), or NULL for other models. */
const olive_mech_library *gc_pop_mechanisms(const olive_population *p)
{
    if (!olive_model_needs_mechanisms(p->model) || !p->mechanisms[0]) return NULL;
    char why[3000];
    const olive_mech_library *lib = olive_mechs_find(p->mechanisms, p->mechanisms_hash, why, sizeof why);
    if (!lib) olive_usage_error("population %s: %s", p->name, why);
    return lib;
}
