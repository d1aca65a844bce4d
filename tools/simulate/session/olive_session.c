/* libolive's door (olive_session.h): each call runs the session's own
 * functions with errors caught. olive's code reports an error with
 * olive_die, which in a program ends the process; here the exit hook jumps
 * back to the call, which marks the session broken and returns the failure
 * (the message: olive_session_error). On several ranks the hook stops the
 * job instead (the other ranks may be inside a collective call). */
#include "sim_session.h"
#include "h5util.h"
#include "spk.h"
#include "util.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jmp_buf *trap;   /* the call in progress (NULL: none) */
static char error_text[8192];   /* why the last call failed */

static int soft_check;   /* a check that changes nothing where it fails (olive_set_errors_soft) */

static void on_error(int code)
{
    const int was_soft = soft_check;
    soft_check = 0;
    olive_set_errors_soft(0);
    if (!was_soft) sim_session_abort_others(code);   /* (every rank refuses a soft check alike) */
    snprintf(error_text, sizeof error_text, "%s", olive_last_error());
    if (trap) longjmp(*trap, code);
}

/* Runs `call` with errors caught: on an error, x (when there is one) is
 * broken and the expression `fail` is returned. */
#define CAUGHT(x, fail, call)                                   \
    do {                                                        \
        jmp_buf here_;                                          \
        jmp_buf *const outer_ = trap;                           \
        error_text[0] = 0;                                      \
        if (setjmp(here_)) {                                    \
            trap = outer_;                                      \
            if (x) (x)->broken = 1;                             \
            return fail;                                        \
        }                                                       \
        trap = &here_;                                          \
        call;                                                   \
        trap = outer_;                                          \
    } while (0)

static int refused(const olive_session *x)
{
    if (x && x->broken)
        snprintf(error_text, sizeof error_text, "the session stopped at an earlier error; close it and open another");
    return !x || x->broken;
}

int olive_session_api(void) { return OLIVE_SESSION_API; }

const char *olive_session_error(void) { return error_text; }

static int mpi_started_here;

/* The process's environment as it was before MPI started here: MPI_Init
 * (and olive_mpi_singleton_fast) put variables into it that a program the
 * caller starts later would inherit (an mpirun started from the same Python
 * then failed: its ranks took them for their own job's). */
extern char **environ;

static char **environment_copy(void)
{
    int n = 0;
    while (environ[n]) n++;
    char **copy = calloc((size_t)n + 1, sizeof *copy);
    for (int i = 0; copy && i < n; i++)
        if (!(copy[i] = strdup(environ[i]))) return NULL;   /* (then left as MPI made it) */
    return copy;
}

static int has_name(char *const *list, const char *entry)
{
    const size_t len = strcspn(entry, "=");
    for (int i = 0; list[i]; i++)
        if (!strncmp(list[i], entry, len) && list[i][len] == '=') return 1;
    return 0;
}

static void environment_restore(char **before)
{
    if (!before) return;
    for (int again = 1; again;) {   /* (unsetenv changes environ: start over after each) */
        again = 0;
        for (char **e = environ; *e; e++)
            if (!has_name(before, *e)) {
                char name[256];
                snprintf(name, sizeof name, "%.*s", (int)strcspn(*e, "="), *e);
                unsetenv(name);
                again = 1;
                break;
            }
    }
    for (int i = 0; before[i]; i++) {
        char *eq = strchr(before[i], '=');
        if (!eq) continue;
        *eq = 0;
        const char *now = getenv(before[i]);
        if (!now || strcmp(now, eq + 1)) setenv(before[i], eq + 1, 1);
        free(before[i]);
    }
    free(before);
}

static void finalize_mpi(void)
{
    int done = 0;
    MPI_Finalized(&done);
    if (!done) MPI_Finalize();
}

olive_session *olive_session_open(int argc, const char *const *argv)
{
    int up = 0;
    MPI_Initialized(&up);
    if (!up) {
        int provided;
        char **before = environment_copy();
        olive_mpi_singleton_fast();
        const int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
        environment_restore(before);
        if (rc != MPI_SUCCESS) return NULL;
        if (!mpi_started_here) atexit(finalize_mpi);
        mpi_started_here = 1;
    }
    olive_set_program(argc > 0 ? argv[0] : "olive");
    olive_set_cmdline(argc, (char **)argv);
    olive_set_exit_hook(on_error);
    olive_set_error_print(0);   /* the caller shows olive_session_error() (Python: in its exception) */
    olive_h5_quiet();
    olive_session *volatile x = NULL;
    CAUGHT((olive_session *)NULL, NULL, x = sim_session_open(argc, (char **)argv, 0));
    return x;
}

int olive_session_run(olive_session *x, int64_t steps)
{
    if (refused(x)) return -1;
    if (steps < 0 || steps > x->cfg.run.steps - x->step) {   /* (refused: the session goes on) */
        snprintf(error_text, sizeof error_text, "olive_session_run: %lld steps from step %lld pass the horizon, step %lld "
                 "(--steps/--time)", (long long)steps, (long long)x->step, (long long)x->cfg.run.steps);
        return -1;
    }
    volatile int sig = 0;
    CAUGHT(x, -1, { if (steps > 0) sig = sim_session_run_to(x, x->step + steps); });
    return sig;
}

int64_t olive_session_step(const olive_session *x) { return x ? x->step : -1; }
double olive_session_dt(const olive_session *x) { return x ? x->cfg.run.dt : 0; }
int64_t olive_session_horizon(const olive_session *x) { return x ? x->cfg.run.steps : -1; }

void olive_session_cells(const olive_session *x, int64_t *first, int64_t *count)
{
    *first = x ? x->s.plan.row0 : 0;
    *count = x ? x->s.plan.nlocal : 0;
}

int64_t olive_session_spikes(olive_session *x, int64_t *steps, int64_t *cells, int64_t cap)
{
    if (refused(x)) return -1;
    volatile int64_t n = 0;
    CAUGHT(x, -1, n = sim_session_spikes(x, steps, cells, cap));
    return n;
}

/* The model's variable `name`, or -1 with the message in error_text (the
 * session left as it was: a wrong name is the caller's slip). */
static int variable(const olive_session *x, const char *name)
{
    const olive_cell_model *m = x->cfg.run.model;
    int v = 0;
    while (v < m->nvars && strcmp(m->var_names[v], name)) v++;
    if (v < m->nvars) return v;
    int k = snprintf(error_text, sizeof error_text, "model %s has no variable %s (it has", m->name, name);
    for (int i = 0; i < m->nvars && k > 0 && (size_t)k < sizeof error_text; i++)
        k += snprintf(error_text + k, sizeof error_text - (size_t)k, "%s %s", i ? "," : "", m->var_names[i]);
    if (k > 0 && (size_t)k < sizeof error_text - 1) snprintf(error_text + k, sizeof error_text - (size_t)k, ")");
    return -1;
}

/* The readers of one variable: its recorded cells, frames, values now. */
enum { READ_RECORDED, READ_FRAMES, READ_NOW };

static int64_t read_variable(olive_session *x, const char *name, int what, void *buf, int64_t cap)
{
    if (refused(x)) return -1;
    const volatile int v = variable(x, name);
    if (v < 0) return -1;
    volatile int64_t n = 0;
    CAUGHT(x, -1, n = what == READ_RECORDED ? sim_session_recorded(x, v, buf, cap)
                    : what == READ_FRAMES   ? sim_session_frames(x, v, buf, cap)
                                            : sim_session_get(x, name, buf, cap));
    return n;
}

int64_t olive_session_recorded(olive_session *x, const char *name, int64_t *cells, int64_t cap)
{
    return read_variable(x, name, READ_RECORDED, cells, cap);
}

int64_t olive_session_frames(olive_session *x, const char *name, double *data, int64_t cap)
{
    return read_variable(x, name, READ_FRAMES, data, cap);
}

int64_t olive_session_get(olive_session *x, const char *name, double *out, int64_t cap)
{
    return read_variable(x, name, READ_NOW, out, cap);
}

int64_t olive_session_weights(olive_session *x, const char *proj, int64_t *index, double *w, int64_t cap)
{
    if (refused(x)) return -1;
    volatile int64_t n = 0;
    CAUGHT(x, -1, n = sim_session_weights(x, proj, index, w, cap));
    return n;
}

int olive_session_set_poisson_rate(olive_session *x, int input, double rate_hz)
{
    if (refused(x)) return -1;
    CAUGHT(x, -1, sim_set_poisson_rate(&x->s, input, rate_hz, "olive_session_set_poisson_rate"));
    return 0;
}

int olive_session_set_param(olive_session *x, const char *spec)
{
    if (refused(x)) return -1;
    volatile int r = -1;
    char why[sizeof error_text];
    /* the parse and the checks change nothing where they fail: the outputs stay and the session goes on */
    soft_check = 1;
    olive_set_errors_soft(1);
    CAUGHT((olive_session *)NULL, -1, r = sim_set_param(&x->s, spec, x->step, why, sizeof why));
    soft_check = 0;
    olive_set_errors_soft(0);
    if (r < 0) {
        snprintf(error_text, sizeof error_text, "%s", why);
        return -1;
    }
    CAUGHT(x, -1, if (x->s.engine->inputs_changed) x->s.engine->inputs_changed(&x->s));
    return 0;
}

int olive_session_close(olive_session *x)
{
    if (!x) return 0;
    if (x->broken) return -1;   /* (its memory stays: a failed call may have left it half made) */
    CAUGHT(x, -1, { sim_session_close(x, NULL, NULL); sim_session_free(x); });
    return 0;
}
