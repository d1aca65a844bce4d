/* --poisson inputs changed during a run: a rate set between a session's
 * runs, or a stimulus file's /poisson_rates row at its step. The draws stay
 * keyed by (seed, cell, step, input): a rate changed at step i gives the
 * same events as any run with that rate from step i, on every engine. */
#include "spk.h"
#include "lif.h"
#include "poisson_input.h"
#include "util.h"
#include <math.h>

void spk_poisson_rate_check(const sim_poisson *p, double rate_hz, double dt, const char *what)
{
    if (!(rate_hz >= 0) || !isfinite(rate_hz)) olive_usage_error("%s: rate %g Hz: not a finite rate >= 0", what, rate_hz);
    if (!(rate_hz * 1e-3 * dt <= 1))
        olive_usage_error("%s rate %g Hz: more than one event per input and step of %g ms", what, rate_hz, dt);
    if ((double)p->n * rate_hz * 1e-3 * dt > 50)
        olive_usage_error("%s n=%lld rate=%g: %g events per cell and step of %g ms; at most 50 (fewer inputs, or "
                          "one input with their summed rate)", what, (long long)p->n, rate_hz,
                          (double)p->n * rate_hz * 1e-3 * dt, dt);
}

void sim_set_poisson_rate(sim_t *s, int j, double rate_hz, const char *what)
{
    const sim_config *c = s->cfg;
    if (!s->spk || j < 0 || j >= c->spiking.npoisson)
        olive_usage_error("%s: Poisson input %d: the run has %d --poisson input(s)", what, j, s->spk ? c->spiking.npoisson : 0);
    sim_poisson *p = &s->spk->poisson.in[j];
    spk_poisson_rate_check(p, rate_hz, c->run.dt, what);
    p->rate_hz = rate_hz;
    olive_poisson_prepare(p, c->run.dt);
    olive_binomial_factors(p->n, p->prob, s->spk->poisson.fac + (size_t)j * OLIVE_BINOMIAL_FACTORS);
    if (s->engine->inputs_changed) s->engine->inputs_changed(s);
}
