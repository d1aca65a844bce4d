/* The built-in point models (common/models/lif_models.c, point_model.h):
 * - every integrate-and-fire model has a descriptor for every --method,
 *   whose model is the model table's entry (names, units, parameters,
 *   receptors: one text) and whose coefficients are lif.c's olive_lif_coef;
 *   a method the model does not take is refused by its coef_make with
 *   olive_lif_coef_make's message;
 * - the descriptor's CPU loops give, cell by cell, the bits of lif.h's
 *   olive_lif_step, threshold and reset called directly (what the CPU
 *   engine ran before the models were descriptors), with and without a
 *   current, for every model and method it takes, over 2000 steps of 37
 *   cells with events added to their receptors;
 * - the per-cell functions the GPU image holds (plugin_cell.h: olive_cell_load,
 *   olive_cell_step, ..., on one cell's values, compiled here for the host
 *   from the same text) give those bits too, the events added to the
 *   receptors through olive_cell_receptor / olive_cell_set_receptor. */
#include "lif_models.c"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int fail;

static void check(int ok, const char *fmt, const char *a, const char *b)
{
    if (!ok) {
        printf("FAIL: ");
        printf(fmt, a, b);
        printf("\n");
        fail = 1;
    }
}

static int same_model(const olive_cell_model *a, const olive_cell_model *b)
{
    if (strcmp(a->name, b->name) || a->nvars != b->nvars || a->nparams != b->nparams ||
        a->nreceptors != b->nreceptors || a->spike_var != b->spike_var || strcmp(a->weight_unit, b->weight_unit) ||
        a->weights_nonnegative != b->weights_nonnegative || a->dt_default != b->dt_default)
        return 0;
    for (int v = 0; v < a->nvars; v++)
        if (strcmp(a->var_names[v], b->var_names[v]) || strcmp(a->var_units[v], b->var_units[v]) ||
            a->var_initial[v] != b->var_initial[v])
            return 0;
    for (int p = 0; p < a->nparams; p++)
        if (strcmp(a->params[p].name, b->params[p].name) || a->params[p].def != b->params[p].def) return 0;
    for (int q = 0; q < a->nreceptors; q++)
        if (a->receptors[q] != b->receptors[q]) return 0;
    return 1;
}

enum { NCELL = 37, NSTEP = 2000 };

/* Three runs of the same cells from the same start: the descriptor's loops
 * (x), lif.h called directly (y), the GPU image's per-cell functions (z). */
static void run(const olive_cell_model *m, int method, const olive_model_plugin *d)
{
    double par[64];
    for (int p = 0; p < m->nparams; p++) par[p] = m->params[p].def;
    par[olive_model_param(m, "t_ref")] = 2;   /* (refractory steps too) */
    double coef[64];
    if (d->ncoef > 64 || d->coef_make(par, 0.1, coef)) return;   /* (refusals: checked by the caller) */
    olive_lif_coef c;
    check(olive_lif_coef_make(m, par, 0.1, method, &c) == NULL, "%s %s: lif.h's coefficients refused", m->name,
          olive_lif_method_name(method));
    double buf[3][OLIVE_LIF_ALPHA_NVARS][NCELL];
    double *x[3][OLIVE_LIF_ALPHA_NVARS];
    for (int k = 0; k < 3; k++)
        for (int v = 0; v < m->nvars; v++) {
            x[k][v] = buf[k][v];
            for (int r = 0; r < NCELL; r++) buf[k][v][r] = m->var_initial[v];
        }
    for (int k = 0; k < 3; k++)
        for (int r = 0; r < NCELL; r++) {
            double init[OLIVE_LIF_ALPHA_NVARS];
            par[m->nparams - 1] = -65 + 0.5 * r;   /* v0 */
            d->init(par, init);
            for (int v = 0; v < m->nvars; v++) x[k][v][r] = init[v];
        }
    const int alpha = m->nvars == OLIVE_LIF_ALPHA_NVARS, *rec = m->receptors;
    unsigned char fx[NCELL], fy[NCELL];
    double I[NCELL];
    long long differ = 0, spikes = 0;
    for (int t = 0; t < NSTEP; t++) {
        const int with = t % 3 == 0;
        for (int r = 0; r < NCELL; r++) I[r] = with ? 0.3 * (r % 7) + (m == &olive_model_lif_cuba ? 0 : 60) : 0;
        d->step(coef, 0, NCELL, with ? I : NULL, x[0]);
        d->condition(coef, 0, NCELL, x[0], fx);
        for (int r = 0; r < NCELL; r++) {
            olive_lif_step(&c, with ? I[r] : 0, &x[1][0][r], &x[1][1][r], &x[1][2][r], &x[1][3][r],
                           alpha ? &x[1][4][r] : NULL, alpha ? &x[1][5][r] : NULL);
            fy[r] = (unsigned char)olive_lif_spikes(&c, x[1][0][r], x[1][3][r]);
            double z[OLIVE_LIF_ALPHA_NVARS] = {0}, z0[OLIVE_LIF_ALPHA_NVARS] = {0};   /* (as the engine's kernels call them) */
            olive_cell_load(coef, x[2], r, z, z0);
            olive_cell_step(coef, z, with ? I[r] : 0, with);
            differ += fx[r] != fy[r] || olive_cell_condition(coef, z) != fy[r];
            olive_cell_store(coef, x[2], r, z, z0);
            spikes += fy[r];
        }
        for (int r = 0; r < NCELL; r++) {   /* step 3: events into the receptors, then the resets */
            const double w = (r * 7 + t) % 11 == 0 ? 2.5 : 0;
            for (int k = 0; k < 2; k++) x[k][rec[0]][r] += w, x[k][rec[1]][r] -= w / 3;
            if (fx[r]) d->on_spike(coef, r, x[0]);
            if (fy[r]) olive_lif_reset(&c, &x[1][0][r], &x[1][3][r]);
            double z[OLIVE_LIF_ALPHA_NVARS] = {0}, z0[OLIVE_LIF_ALPHA_NVARS] = {0};
            olive_cell_load(coef, x[2], r, z, z0);
            olive_cell_set_receptor(coef, z, 0, olive_cell_receptor(coef, z, 0) + w);
            olive_cell_set_receptor(coef, z, 1, olive_cell_receptor(coef, z, 1) - w / 3);
            if (fy[r]) olive_cell_on_spike(coef, z);
            olive_cell_store(coef, x[2], r, z, z0);
        }
        for (int v = 0; v < m->nvars; v++)
            for (int r = 0; r < NCELL; r++)
                differ += memcmp(&x[0][v][r], &x[1][v][r], 8) != 0 || memcmp(&x[2][v][r], &x[1][v][r], 8) != 0;
    }
    printf("%-15s %-18s %6lld spikes, %lld values differ\n", m->name, olive_lif_method_name(method), spikes, differ);
    check(differ == 0, "%s %s: the descriptor's loops or the GPU image's functions differ from lif.h", m->name,
          olive_lif_method_name(method));
    check(spikes > 0, "%s %s: no spike (the test would not see a reset)", m->name, olive_lif_method_name(method));
}

int main(void)
{
    const olive_cell_model *models[] = {&olive_model_lif_cuba, &olive_model_lif_coba, &olive_model_lif_cuba_alpha,
                                        &olive_model_lif_coba_alpha};
    const int methods[] = {OLIVE_METHOD_EXACT, OLIVE_METHOD_EULER, OLIVE_METHOD_EXPEULER};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++) {
            const olive_cell_model *m = models[i];
            const char *mn = olive_lif_method_name(methods[j]);
            const olive_model_plugin *d = olive_point_model(m, methods[j]);
            check(d != NULL, "%s %s: no descriptor", m->name, mn);
            if (!d) continue;
            check(same_model(&d->model, m), "%s %s: the descriptor's model is not the table's", m->name, mn);
            check(d->ncoef * sizeof(double) >= sizeof(olive_lif_coef), "%s %s: the set holds no olive_lif_coef", m->name, mn);
            double par[64], coef[64];
            for (int p = 0; p < m->nparams; p++) par[p] = m->params[p].def;
            olive_lif_coef c;
            const char *want = olive_lif_coef_make(m, par, 0.1, methods[j], &c), *got = d->coef_make(par, 0.1, coef);
            check((want == NULL) == (got == NULL) && (!want || !strcmp(want, got)), "%s %s: coef_make's verdict differs from lif.h's",
                  m->name, mn);
            if (want) printf("%-15s %-18s refused: %s\n", m->name, mn, got ? got : "(not refused)");
            run(m, methods[j], d);
        }
    check(olive_point_model(&olive_model_infoli, -1) == NULL, "%s%s: InfOli is no point model", "", "");
    check(olive_point_model(&olive_model_hh_cable, -1) == NULL, "%s%s: hh_cable is no point model", "", "");
    printf(fail ? "FAILED\n" : "all point-model checks passed\n");
    return fail;
}
