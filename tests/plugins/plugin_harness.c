/* Drives one cell of an olive model plugin (common/models/model_plugin.h)
 * without olive's engines: plugin_harness PLUGIN.so DT NSTEPS CURRENT.
 * The schedule of model_plugin.h without deliveries: step, condition,
 * on_spike. Prints the variable names, then per step: index, flag, state
 * (%.17g). tests/test_nestml_build.sh checks the numbers. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "model_plugin.h"

static int die(const char *what, const char *why)
{
    fprintf(stderr, "plugin_harness: %s: %s\n", what, why);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 5) return die("usage", "plugin_harness PLUGIN.so DT NSTEPS CURRENT");
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) return die(argv[1], dlerror());
    olive_model_plugin_fn fn;
    *(void **)&fn = dlsym(h, OLIVE_PLUGIN_SYMBOL);
    if (!fn) return die(argv[1], "no " OLIVE_PLUGIN_SYMBOL);
    const olive_model_plugin *p = fn();
    if (p->abi != OLIVE_PLUGIN_ABI) return die(argv[1], "ABI");
    const olive_cell_model *m = &p->model;
    double dt = atof(argv[2]), current = atof(argv[4]);
    long n = atol(argv[3]);
    double *param = calloc((size_t)m->nparams + 1, sizeof *param);
    double *coef = calloc((size_t)p->ncoef + 1, sizeof *coef);
    double *x = calloc((size_t)m->nvars, sizeof *x);
    double **state = calloc((size_t)m->nvars, sizeof *state);
    for (int k = 0; k < m->nparams; k++) param[k] = m->params[k].def;
    const char *why = p->coef_make(param, dt, coef);
    if (why) return die("coef_make", why);
    p->init(param, x);
    for (int v = 0; v < m->nvars; v++) state[v] = &x[v];
    for (int v = 0; v < m->nvars; v++) printf("%s%s", v ? " " : "# step flag ", m->var_names[v]);
    printf("\n");
    double I[1] = { current };
    for (long i = 0; i < n; i++) {
        unsigned char flag = 0;
        if (!p->step(coef, 0, 1, p->current_unit ? I : NULL, state)) return die("step", "a variable became non-finite");
        p->condition(coef, 0, 1, state, &flag);
        if (flag) p->on_spike(coef, 0, state);
        printf("%ld %d", i, flag);
        for (int v = 0; v < m->nvars; v++) printf(" %.17g", x[v]);
        printf("\n");
    }
    free(param); free(coef); free(x); free(state);
    dlclose(h);
    return 0;
}
