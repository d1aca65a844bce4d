/* Loading cell models compiled outside olive (model_plugin.h): dlopen, the
 * ABI and the descriptor checked before anything uses them, so that a bad
 * plugin is refused by name rather than crashing a run. */
#include "model_plugin.h"
#include "model_places.h"
#include "state.h"
#include "util.h"
#include <ctype.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PLUGINS 16

/* Plugins stay loaded for the life of the process: their models are
 * pointed to from populations and configurations. */
static struct {
    char path[PATH_MAX];
    const olive_model_plugin *p;
} loaded[MAX_PLUGINS];
static int nloaded;

static int fail(char *why, int whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, int whylen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, (size_t)whylen, fmt, ap);
    va_end(ap);
    return 0;
}

/* A name as the network file and --record take it: [A-Za-z_][A-Za-z0-9_.]*. */
static int name_ok(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
    for (s++; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '.')) return 0;
    return 1;
}

/* Names list[0..n) all valid and distinct; else a message naming the first bad one. */
static int names_ok(const char *path, const char *what, const char *const *list, int n, char *why, int whylen)
{
    if (n > 0 && !list) return fail(why, whylen, "%s: not an olive model plugin: no %s names", path, what);
    for (int i = 0; i < n; i++) {
        if (!name_ok(list[i]))
            return fail(why, whylen, "%s: %s %d: name '%s' is not a name ([A-Za-z_][A-Za-z0-9_.]*)", path, what, i,
                        list[i] ? list[i] : "(null)");
        for (int j = 0; j < i; j++)
            if (!strcmp(list[i], list[j])) return fail(why, whylen, "%s: %s '%s' is named twice", path, what, list[i]);
    }
    return 1;
}

static int check_vars(const char *path, const olive_cell_model *m, char *why, int whylen)
{
    if (m->nvars < 1 || m->nvars > OLIVE_NVARS)
        return fail(why, whylen, "%s: model %s has %d state variables (1 to %d)", path, m->name, m->nvars, OLIVE_NVARS);
    if (!names_ok(path, "state variable", m->var_names, m->nvars, why, whylen)) return 0;
    if (!m->var_units || !m->var_initial) return fail(why, whylen, "%s: model %s: no units or initial values of its variables", path, m->name);
    for (int v = 0; v < m->nvars; v++) {
        if (!m->var_units[v]) return fail(why, whylen, "%s: variable %s has no unit", path, m->var_names[v]);
        if (!isfinite(m->var_initial[v])) return fail(why, whylen, "%s: variable %s: initial value not finite", path, m->var_names[v]);
    }
    if (m->spike_var < 0 || m->spike_var >= m->nvars)
        return fail(why, whylen, "%s: model %s: spike_var %d is not a variable (0 to %d)", path, m->name, m->spike_var, m->nvars - 1);
    if (m->gap_var != -1) return fail(why, whylen, "%s: model %s: gap_var %d: plugins have no gap junctions (-1)", path, m->name, m->gap_var);
    return 1;
}

static int check_params(const char *path, const olive_cell_model *m, char *why, int whylen)
{
    if (m->nparams < 0 || m->nparams > 80)   /* synfile.h's OLIVE_MAX_PARAMS */
        return fail(why, whylen, "%s: model %s has %d parameters (0 to 80)", path, m->name, m->nparams);
    if (m->nparams && !m->params) return fail(why, whylen, "%s: model %s: no parameter table", path, m->name);
    const char *names[80];
    for (int k = 0; k < m->nparams; k++) {
        names[k] = m->params[k].name;
        if (names[k] && (!m->params[k].unit || !isfinite(m->params[k].def)))
            return fail(why, whylen, "%s: parameter %s: no unit or a default that is not finite", path, names[k]);
        if (names[k] && olive_model_var(m, names[k]) >= 0)
            return fail(why, whylen, "%s: parameter %s has the name of a state variable", path, names[k]);
    }
    return names_ok(path, "parameter", names, m->nparams, why, whylen);
}

static int check_receptors(const char *path, const olive_model_plugin *p, char *why, int whylen)
{
    const olive_cell_model *m = &p->model;
    if (m->nreceptors < 0 || m->nreceptors > OLIVE_NVARS)
        return fail(why, whylen, "%s: model %s has %d receptors (0 to %d)", path, m->name, m->nreceptors, OLIVE_NVARS);
    if (m->nreceptors && (!m->receptors || !m->receptor_names || !p->receptor_scale))
        return fail(why, whylen, "%s: model %s: receptors without variables, names or scales", path, m->name);
    if (!names_ok(path, "receptor", m->receptor_names, m->nreceptors, why, whylen)) return 0;
    for (int r = 0; r < m->nreceptors; r++) {
        if (m->receptors[r] < 0 || m->receptors[r] >= m->nvars)
            return fail(why, whylen, "%s: receptor %s: variable %d is not a variable (0 to %d)", path, m->receptor_names[r],
                        m->receptors[r], m->nvars - 1);
        if (!isfinite(p->receptor_scale[r]))
            return fail(why, whylen, "%s: receptor %s: scale not finite", path, m->receptor_names[r]);
        if (p->receptor_coef && (p->receptor_coef[r] < -1 || p->receptor_coef[r] >= p->ncoef))
            return fail(why, whylen, "%s: receptor %s: coefficient %d is not -1 or one of the %d coefficients", path,
                        m->receptor_names[r], p->receptor_coef[r], p->ncoef);
    }
    if (!m->weight_unit) return fail(why, whylen, "%s: model %s has no weight_unit", path, m->name);
    return 1;
}

/* Everything the engines and the file reader rely on. */
static int check_plugin(const char *path, const olive_model_plugin *p, char *why, int whylen)
{
    if (p->abi != OLIVE_PLUGIN_ABI)
        return fail(why, whylen, "%s: plugin ABI %d, but this olive loads ABI %d (rebuild the model: olive-model build)", path,
                    p->abi, OLIVE_PLUGIN_ABI);
    const olive_cell_model *m = &p->model;
    if (!name_ok(m->name)) return fail(why, whylen, "%s: model name '%s' is not a name", path, m->name ? m->name : "(null)");
    if (olive_model_find(m->name))
        return fail(why, whylen, "%s: model name '%s' is a built-in model's (rename the model)", path, m->name);
    if (!p->hash || !*p->hash || strlen(p->hash) > 128 || strspn(p->hash, "0123456789abcdef") != strlen(p->hash))
        return fail(why, whylen, "%s: model %s: hash '%s' is not lower-case hex of 1 to 128 digits", path, m->name,
                    p->hash ? p->hash : "(null)");
    if (!check_vars(path, m, why, whylen) || !check_params(path, m, why, whylen) || !check_receptors(path, p, why, whylen))
        return 0;
    if (!(m->dt_default > 0 && m->dt_default <= 10))
        return fail(why, whylen, "%s: model %s: dt_default %g ms is not in (0, 10]", path, m->name, m->dt_default);
    if (p->ncoef < 0) return fail(why, whylen, "%s: model %s: ncoef %d is negative", path, m->name, p->ncoef);
    if (!p->coef_make || !p->init || !p->step || !p->condition || !p->on_spike)
        return fail(why, whylen, "%s: model %s: a function (coef_make, init, step, condition, on_spike) is missing", path,
                    m->name);
    if (!p->cuda_fatbin != !p->cuda_fatbin_size)
        return fail(why, whylen, "%s: model %s: cuda_fatbin and cuda_fatbin_size disagree (one is empty)", path, m->name);
    if (p->cuda_fatbin && p->gpu_pass_blocks != 1 && p->gpu_pass_blocks != 3)
        return fail(why, whylen, "%s: model %s: gpu_pass_blocks %d is not 1 or 3", path, m->name, p->gpu_pass_blocks);
    return 1;
}

static int plugins_enabled;
void olive_plugins_enable(void) { plugins_enabled = 1; }

/* dlopen of the file open at fd (the very file checked, not whatever the path
 * names a moment later), its descriptor checked; NULL with *why set. */
static const olive_model_plugin *load_fd(int fd, const char *path, char *why, int whylen)
{
    if (nloaded == MAX_PLUGINS) {
        close(fd);
        return fail(why, whylen, "%s: more than %d plugins in one run", path, MAX_PLUGINS), NULL;
    }
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    void *h = dlopen(access(self, R_OK) == 0 ? self : path, RTLD_NOW | RTLD_LOCAL);
    /* The fd stays open while the plugin is loaded (for the process's life):
     * dlopen knows an object by the name it was opened by, and a later
     * plugin opened at a reused fd number would be handed this one (a
     * process that loads several: libolive's sessions). */
    if (!h) {
        close(fd);
        return fail(why, whylen, "%s: not a loadable plugin: %s", path, dlerror()), NULL;
    }
    olive_model_plugin_fn fn;
    void *sym = dlsym(h, OLIVE_PLUGIN_SYMBOL);
    memcpy(&fn, &sym, sizeof fn);   /* (ISO C has no cast from void * to a function pointer) */
    if (!fn) {
        dlclose(h);
        close(fd);
        return fail(why, whylen, "%s: not an olive model plugin (no symbol %s)", path, OLIVE_PLUGIN_SYMBOL), NULL;
    }
    const olive_model_plugin *p = fn();
    if (!p || !check_plugin(path, p, why, whylen)) {
        if (!p) fail(why, whylen, "%s: %s() returned no plugin", path, OLIVE_PLUGIN_SYMBOL);
        dlclose(h);
        close(fd);
        return NULL;
    }
    for (int i = 0; i < nloaded; i++)   /* two files of one model name: which one a file means is unclear */
        if (!strcmp(loaded[i].p->model.name, p->model.name) && loaded[i].p != p) {
            fail(why, whylen, "%s: model %s is also loaded from %s", path, p->model.name, loaded[i].path);
            dlclose(h);
            close(fd);
            return NULL;
        }
    for (int i = 0; i < nloaded; i++)
        if (loaded[i].p == p) { close(fd); return p; }
    snprintf(loaded[nloaded].path, sizeof loaded[nloaded].path, "%s", path);
    loaded[nloaded++].p = p;
    return p;
}

const olive_model_plugin *olive_plugin_load_file(const char *file, char *why, int whylen)
{
    char path[PATH_MAX];
    const char *bad;
    if (!realpath(file, path)) return fail(why, whylen, "%s: no such plugin file", file), NULL;
    for (int i = 0; i < nloaded; i++)
        if (!strcmp(loaded[i].path, path)) return loaded[i].p;
    const int fd = olive_model_open_candidate(path, &bad);
    if (fd < 0) return fail(why, whylen, "%s: cannot load it as a plugin: %s", file, bad), NULL;
    return load_fd(fd, path, why, whylen);
}

const olive_model_plugin *olive_plugin_find(const char *name, const char *hash, char *why, int whylen)
{
    for (int i = 0; i < nloaded; i++)
        if (!strcmp(loaded[i].p->model.name, name) && (!hash || !strcmp(loaded[i].p->hash, hash))) return loaded[i].p;
    if (!name_ok(name) || strlen(name) > 63)
        return fail(why, whylen, "model name '%s' is not a name ([A-Za-z_][A-Za-z0-9_.]*, at most 63 characters)", name),
               NULL;
    olive_model_place places[OLIVE_MODEL_PLACES_MAX];
    const int np = olive_model_places(places, OLIVE_MODEL_PLACES_MAX);
    char note[3000] = "";
    for (int i = 0; i < np; i++) {
        const olive_model_place *pl = &places[i];
        if (pl->is_file) {   /* a FILE.so the user named: loaded, and taken when it holds the model */
            const olive_model_plugin *p = olive_plugin_load_file(pl->path, why, whylen);
            if (!p) return NULL;
            if (!strcmp(p->model.name, name) && (!hash || !strcmp(p->hash, hash))) return p;
            if (!strcmp(p->model.name, name)) olive_model_note_add(note, sizeof note, "; %s (%s) has hash %s", pl->path, pl->from, p->hash);
            continue;
        }
        char so[PATH_MAX], have[160];
        const int fd = olive_model_place_open(pl, name, hash, so, sizeof so, have, sizeof have, note, sizeof note);
        if (fd < 0) continue;
        const olive_model_plugin *p = load_fd(fd, so, why, whylen);
        if (!p) return NULL;
        if (strcmp(p->model.name, name) || strcmp(p->hash, have))
            return fail(why, whylen, "%s holds model %s of hash %s, not what %s.hash beside it says (%s %s)", so,
                        p->model.name, p->hash, name, name, have), NULL;
        return p;
    }
    return fail(why, whylen, "model '%s'%s%s is neither built in (%s) nor in a place olive loads plugins from "
                "(--model-path, OLIVE_MODEL_PATH, the model cache)%s. Build it with olive-model build MODEL.nestml "
                "(into the model cache), or give the directory of its NAME.so and NAME.hash with --model-path DIR or "
                "OLIVE_MODEL_PATH=DIR; olive never loads a path written in a file",
                name, hash ? " of hash " : "", hash ? hash : "", olive_model_names(), note), NULL;
}

const olive_model_plugin *olive_plugin_load(const char *name, char *why, int whylen)
{
    const size_t len = strlen(name);
    if (strchr(name, '/') || (len > 3 && !strcmp(name + len - 3, ".so"))) return olive_plugin_load_file(name, why, whylen);
    return olive_plugin_find(name, NULL, why, whylen);
}

const olive_model_plugin *olive_plugin_of(const olive_cell_model *m)
{
    for (int i = 0; i < nloaded; i++)
        if (&loaded[i].p->model == m) return loaded[i].p;
    return NULL;
}

const char *olive_plugin_path(const olive_model_plugin *p)
{
    for (int i = 0; i < nloaded; i++)
        if (loaded[i].p == p) return loaded[i].path;
    return NULL;
}

/* A built-in model of that name; dies when there is none and no hash says
 * whose plugin's it is. NULL: a plugin's. */
static const olive_cell_model *built_in(const char *file, const char *where, const char *name, const char *hash)
{
    const olive_cell_model *m = olive_model_find(name);
    if (m) return m;
    if (!hash || !*hash) {
        if (!strcmp(where, "/cells"))   /* (the wording of the messages before plugins) */
            olive_die("%s: /cells model '%s' is unknown (known: %s; a plugin's model needs the attribute model_hash)", file,
                      name, olive_model_names());
        olive_die("%s: %s: unknown model '%s' (known: %s; a plugin's model needs the attribute model_hash)", file, where,
                  name, olive_model_names());
    }
    if (!plugins_enabled)
        olive_die("%s: %s: model %s is a plugin's, and this program runs no model's code", file, where, name);
    return NULL;
}

const olive_cell_model *olive_model_lookup(const char *file, const char *where, const char *name, const char *hash)
{
    const olive_cell_model *m = built_in(file, where, name, hash);
    if (m) return m;
    for (int i = 0; i < nloaded; i++)
        if (!strcmp(loaded[i].p->model.name, name) && !strcmp(loaded[i].p->hash, hash)) return &loaded[i].p->model;
    olive_die("internal: %s: %s: model %s was not resolved before the file was read (olive_model_resolve)", file, where,
              name);
}

const olive_cell_model *olive_model_resolve(const char *file, const char *where, const char *name, const char *hash)
{
    const olive_cell_model *m = built_in(file, where, name, hash);
    if (m) return m;
    char why[PATH_MAX + 4096];
    const olive_model_plugin *p = olive_plugin_find(name, hash, why, sizeof why);
    if (!p) olive_die("%s: %s: %s", file, where, why);
    return &p->model;
}

const char *olive_plugin_gpu_refusal(const olive_model_plugin *p)
{
    if (!p->cuda_fatbin) return "it was built without nvcc (no GPU image): build it again where nvcc is found";
    if (p->model.nreceptors > 2) return "it has more than 2 receptors (the CUDA engine's ring holds 2 a target)";
    if (p->model.nreceptors == 2 && p->model.receptors[0] == p->model.receptors[1])
        return "its two receptors add to one variable (the CUDA engine keeps one sum per receptor variable)";
    return NULL;
}
