/* NMODL mechanisms on cable cells (cable_mechs.h): loading a library from the
 * trusted places, a cell's biophysics, and NEURON's ion rules. */
#include "cable_mechs.h"
#include "cable_mechs_step.h"
#include "model_places.h"
#include "util.h"
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_LIBS 16
static struct { char path[PATH_MAX + 80]; const olive_mech_library *lib; } libs[MAX_LIBS];
static int nlibs;

static const olive_mech_library *load(const char *so, int fd, const char *want_hash, char *why, int whylen)
{
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    void *h = dlopen(access(self, R_OK) == 0 ? self : so, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        close(fd);
        snprintf(why, (size_t)whylen, "%s: not a loadable mechanism library: %s", so, dlerror());
        return NULL;
    }
    olive_mech_library_fn fn;
    void *sym = dlsym(h, OLIVE_MECHS_SYMBOL);
    memcpy(&fn, &sym, sizeof fn);
    const olive_mech_library *lib = fn ? fn() : NULL;
    if (!lib || lib->abi != OLIVE_MECHS_ABI || (want_hash && strcmp(lib->hash, want_hash))) {
        snprintf(why, (size_t)whylen, "%s: %s", so,
                 !lib ? "not an olive mechanism library (no " OLIVE_MECHS_SYMBOL ")"
                 : lib->abi != OLIVE_MECHS_ABI ? "built for another mechanism interface: build it again with olive-model build"
                                               : "holds other mechanisms than its .hash file says");
        dlclose(h);
        close(fd);
        return NULL;
    }
    if (nlibs < MAX_LIBS) {   /* (fd kept open: dlopen knows the object by that name) */
        snprintf(libs[nlibs].path, sizeof libs[nlibs].path, "%s", so);
        libs[nlibs++].lib = lib;
    }
    return lib;
}

const olive_mech_library *olive_mechs_find(const char *name, const char *hash, char *why, int whylen)
{
    for (int i = 0; i < nlibs; i++)
        if (!strcmp(libs[i].lib->name, name) && (!hash || !strcmp(libs[i].lib->hash, hash))) return libs[i].lib;
    for (const char *q = name; *q; q++)
        if (!(*q == '_' || *q == '.' || (*q >= '0' && *q <= '9') || (*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z'))) {
            snprintf(why, (size_t)whylen, "mechanism library name '%s' is not a name", name);
            return NULL;
        }
    olive_model_place places[OLIVE_MODEL_PLACES_MAX];
    const int np = olive_model_places(places, OLIVE_MODEL_PLACES_MAX);
    char note[2000] = "";
    for (int i = 0; i < np; i++) {
        if (places[i].is_file) continue;   /* (a FILE.so named is a model plugin) */
        char so[PATH_MAX + 80], have[160];
        const int fd = olive_model_place_open(&places[i], name, hash, so, sizeof so, have, sizeof have, note, sizeof note);
        if (fd >= 0) return load(so, fd, have, why, whylen);
    }
    snprintf(why, (size_t)whylen,
             "mechanism library '%s'%s%s is not in a place olive loads models from (--model-path DIR, OLIVE_MODEL_PATH, "
             "the model cache)%s: build it with olive-model build DIR_OF_MOD_FILES --name %s; olive never loads a path "
             "written in a file", name, hash ? " of hash " : "", hash ? hash : "", note, name);
    return NULL;
}

/* ---- biophysics */

static int type_group(const char *s)
{
    static const char *const names[] = {"custom", "soma", "axon", "dend", "apic"};
    for (int g = 0; g < OLIVE_BIO_TYPES; g++)
        if (!strcmp(s, names[g])) return g;
    return !strcmp(s, "all") ? OLIVE_BIO_TYPES : -1;
}

static int mech_index(const olive_mech_library *lib, const char *suffix)
{
    if (!strcmp(suffix, "pas")) return OLIVE_BIO_PAS;
    for (int m = 0; m < lib->nmech; m++)
        if (!strcmp(lib->mech[m].name, suffix)) return m;
    return -1;
}

static olive_bio_value *bio_value_add(olive_biophysics *b, const char *name, double v, int type)
{
    b->val = olive_realloc(b->val, (size_t)(b->nval + 1) * sizeof *b->val, "biophysics");
    olive_bio_value *bv = &b->val[b->nval++];
    snprintf(bv->name, sizeof bv->name, "%s", name);
    bv->value = v;
    bv->type = type;
    return bv;
}

/* "REC NAME" or "REC PARAM = VALUE" after "synapse" (olive_biophysics_parse). */
static const char *synapse_line(const char *s, int line, const olive_mech_library *lib, olive_biophysics *b, char *msg,
                                size_t len)
{
    char rec[32], a[64], c[96], rest[8];
    if (sscanf(s, " %31s", rec) != 1 || (strcmp(rec, "ge") && strcmp(rec, "gi")))
        return snprintf(msg, len, "biophysics line %d: synapse: expected the receptor ge or gi", line), msg;
    const int r = rec[1] == 'i';
    s = strstr(s, rec) + strlen(rec);
    if (sscanf(s, " %63[A-Za-z0-9_] = %95s %7s", a, c, rest) == 2) {
        char *end;
        const double v = strtod(c, &end);
        if (*end || !isfinite(v)) return snprintf(msg, len, "biophysics line %d: synapse %s %s = %s is not a finite number", line, rec, a, c), msg;
        bio_value_add(b, a, v, OLIVE_BIO_SYN0 + r);
        return NULL;
    }
    if (sscanf(s, " %63s %7s", a, rest) != 1)
        return snprintf(msg, len, "biophysics line %d: expected 'synapse %s POINT_PROCESS' or 'synapse %s PARAM = VALUE'", line, rec, rec), msg;
    const int m = mech_index(lib, a);
    if (m < 0 || m == OLIVE_BIO_PAS || !lib->mech[m].point)
        return snprintf(msg, len, "biophysics line %d: synapse %s %s: the library %s has no POINT_PROCESS %s", line, rec, a,
                        lib->name, a), msg;
    b->syn[r] = m + 1;
    return NULL;
}

const char *olive_biophysics_parse(const char *text, const olive_mech_library *lib, olive_biophysics *b)
{
    static char msg[320];
    memset(b, 0, sizeof *b);
    for (int g = 0; g < OLIVE_BIO_TYPES; g++) b->Ra[g] = b->cm[g] = NAN;
    int line = 0;
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        char ln[256], t[32], a[64], c[96];
        line++;
        if (len >= sizeof ln) return snprintf(msg, sizeof msg, "biophysics line %d: longer than 255 characters", line), msg;
        memcpy(ln, p, len);
        ln[len] = 0;
        p += len + (e ? 1 : 0);
        char *hash = strchr(ln, '#');
        if (hash) *hash = 0;
        int n = 0;
        if (sscanf(ln, " %31s%n", t, &n) != 1) continue;
        if (!strcmp(t, "synapse")) {   /* synapse REC NAME | synapse REC PARAM = VALUE */
            const char *fault = synapse_line(ln + n, line, lib, b, msg, sizeof msg);
            if (fault) return fault;
            continue;
        }
        const int g = type_group(t);
        if (g < 0) return snprintf(msg, sizeof msg, "biophysics line %d: '%s' is not soma, axon, dend, apic, custom or all", line, t), msg;
        const int lo = g == OLIVE_BIO_TYPES ? 0 : g, hi = g == OLIVE_BIO_TYPES ? OLIVE_BIO_TYPES : g + 1;
        char rest[8];
        if (sscanf(ln + n, " insert %63s %7s", a, rest) == 1) {
            const int m = mech_index(lib, a);
            if (m < 0) return snprintf(msg, sizeof msg, "biophysics line %d: insert %s: the library %s has no mechanism %s", line, a, lib->name, a), msg;
            if (m != OLIVE_BIO_PAS && lib->mech[m].point)
                return snprintf(msg, sizeof msg, "biophysics line %d: insert %s: a POINT_PROCESS (a synapse: 'synapse ge %s' "
                                "places it at the synapse sites)", line, a, a), msg;
            for (int k = lo; k < hi; k++) b->insert[k] |= 1ULL << m;
            continue;
        }
        double v;
        if (sscanf(ln + n, " %63[A-Za-z0-9_] = %95s %7s", a, c, rest) != 2)
            return snprintf(msg, sizeof msg, "biophysics line %d: expected 'TYPE insert SUFFIX' or 'TYPE NAME = VALUE'", line), msg;
        char *end;
        v = strtod(c, &end);
        if (*end || !isfinite(v)) return snprintf(msg, sizeof msg, "biophysics line %d: %s = %s is not a finite number", line, a, c), msg;
        if (!strcmp(a, "Ra") || !strcmp(a, "cm")) {
            if (!(strcmp(a, "Ra") ? v >= 0 : v > 0)) return snprintf(msg, sizeof msg, "biophysics line %d: %s = %g out of range", line, a, v), msg;
            for (int k = lo; k < hi; k++) (a[0] == 'R' ? b->Ra : b->cm)[k] = v;
            continue;
        }
        bio_value_add(b, a, v, g);
    }
    return NULL;
}

void olive_biophysics_free(olive_biophysics *b)
{
    free(b->val);
    b->val = NULL;
    b->nval = 0;
}

/* NEURON's ion defaults (eion.cpp's, the ions' globals): e, ci, co. */
static void ion_defaults(const char *ion, double celsius, double charge, double *e, double *ci, double *co)
{
    (void)celsius;
    if (!strcmp(ion, "na")) { *e = 50; *ci = 10; *co = 140; }
    else if (!strcmp(ion, "k")) { *e = -77; *ci = 54.4; *co = 2.5; }
    else if (!strcmp(ion, "ca")) { *e = 132.4579341637009; *ci = 5e-5; *co = 2; }
    else { *e = 0; *ci = 1; *co = 1; }
    (void)charge;
}

/* Which of the library's parameters a name NAME_SUFFIX is: mechanism *m, parameter *k. */
static int range_param(const olive_mech_library *lib, const char *name, int *m, int *k)
{
    for (int i = 0; i < lib->nmech; i++) {
        const olive_mech_desc *d = &lib->mech[i];
        const size_t ls = strlen(d->name), ln = strlen(name);
        if (ln <= ls + 1 || name[ln - ls - 1] != '_' || strcmp(name + ln - ls, d->name)) continue;
        for (int j = 0; j < d->nparam; j++)
            if (strlen(d->param_names[j]) == ln - ls - 1 && !strncmp(name, d->param_names[j], ln - ls - 1)) {
                *m = i;
                *k = j;
                return 1;
            }
    }
    return 0;
}

static int ion_slot_of_e(const olive_mech_library *lib, const char *name)
{
    for (int s = 0; s < lib->nion; s++)
        if (name[0] == 'e' && !strcmp(name + 1, lib->ions[s].name)) return s;
    return -1;
}

static int point_param(const olive_mech_desc *d, const char *name)
{
    for (int j = 0; j < d->nparam; j++)
        if (!strcmp(d->param_names[j], name)) return j;
    return -1;
}

const char *olive_mech_set_make(const olive_mech_library *lib, const olive_biophysics *b, int n, const int *group,
                                double celsius, olive_mech_set **out)
{
    static char msg[256];
    for (int k = 0; k < b->nval; k++) {   /* every value names something the library (or pas) has */
        int m, j;
        const char *nm = b->val[k].name;
        if (b->val[k].type >= OLIVE_BIO_SYN0) {   /* a synapse's: a RANGE parameter of its receptor's point process */
            const int r = b->val[k].type - OLIVE_BIO_SYN0;
            if (!b->syn[r])
                return snprintf(msg, sizeof msg, "biophysics: synapse %s %s is set, but no 'synapse %s POINT_PROCESS' says "
                                "which mechanism", r ? "gi" : "ge", nm, r ? "gi" : "ge"), msg;
            if (point_param(&lib->mech[b->syn[r] - 1], nm) < 0)
                return snprintf(msg, sizeof msg, "biophysics: synapse %s %s: %s has no RANGE parameter %s", r ? "gi" : "ge", nm,
                                lib->mech[b->syn[r] - 1].name, nm), msg;
            continue;
        }
        if (strcmp(nm, "g_pas") && strcmp(nm, "e_pas") && !range_param(lib, nm, &m, &j) && ion_slot_of_e(lib, nm) < 0)
            return snprintf(msg, sizeof msg, "biophysics: %s is neither g_pas, e_pas, a reversal potential of an ion "
                            "of the library %s nor a RANGE parameter NAME_SUFFIX of one of its mechanisms", nm, lib->name), msg;
    }
    olive_mech_set *ms = olive_calloc(1, sizeof *ms, "mechanisms");
    ms->lib = lib;
    ms->nnode = n;
    ms->nion = lib->nion;
    ms->celsius = celsius;
    ms->use = olive_calloc((size_t)lib->nmech + 1, sizeof *ms->use, "mechanisms");
    ms->ion_style = olive_calloc((size_t)n * (size_t)lib->nion + 1, 1, "mechanisms");
    ms->ion0 = olive_calloc((size_t)n * (size_t)lib->nion * OLIVE_ION_NF + 1, sizeof(double), "mechanisms");
    ms->charge = olive_calloc((size_t)lib->nion + 1, sizeof(double), "mechanisms");
    for (int q = 0; q < lib->nion; q++) ms->charge[q] = lib->ions[q].charge;
    for (int m = 0; m < lib->nmech; m++) {
        const olive_mech_desc *d = &lib->mech[m];
        int cnt = 0;
        for (int i = 0; i < n; i++) cnt += group[i] >= 0 && (b->insert[group[i]] >> m & 1);
        if (d->point) {   /* a synapse's mechanism: its use (in NEURON's order), its instances placed at the sites */
            if (b->syn[0] == m + 1 || b->syn[1] == m + 1) {
                olive_mech_use *u = &ms->use[ms->nuse++];
                u->m = m;
                u->node = olive_calloc(1, sizeof(double), "mechanisms");   /* (a device copy of none copies one) */
                u->p = olive_calloc(1, sizeof(double), "mechanisms");
                u->mfact = olive_calloc(1, sizeof(double), "mechanisms");
                if (d->ntab > 0) {
                    u->tab = olive_malloc((size_t)d->ntab * sizeof(double), "mechanism tables");
                    lib->table(m, celsius, u->tab);
                }
            }
            continue;
        }
        if (!cnt) continue;
        olive_mech_use *u = &ms->use[ms->nuse++];
        u->m = m;
        u->ninst = cnt;
        u->node = olive_malloc((size_t)cnt * sizeof(int), "mechanisms");
        u->p = olive_malloc((size_t)cnt * (size_t)d->nparam * sizeof(double) + 1, "mechanisms");
        u->x0 = ms->nx;
        ms->nx += (long)cnt * d->nvar;
        if (d->ntab > 0) {
            u->tab = olive_malloc((size_t)d->ntab * sizeof(double), "mechanism tables");
            lib->table(m, celsius, u->tab);
        }
        int j = 0;
        for (int i = 0; i < n; i++) {
            if (group[i] < 0 || !(b->insert[group[i]] >> m & 1)) continue;
            u->node[j] = i;
            for (int k = 0; k < d->nparam; k++) u->p[k * cnt + j] = d->param_default[k];
            for (int q = 0; q < b->nval; q++) {   /* the values set, in order (the last wins) */
                const olive_bio_value *bv = &b->val[q];
                int mm, kk;
                if ((bv->type == OLIVE_BIO_TYPES || bv->type == group[i]) && range_param(lib, bv->name, &mm, &kk) && mm == m)
                    u->p[kk * cnt + j] = bv->value;
            }
            /* ions: NEURON's nrn_promote over the mechanisms of the node */
            for (int q = 0; q < d->nion; q++) {
                const int s = d->ions[q].slot, use = d->ions[q].use;
                unsigned char *st = &ms->ion_style[(size_t)i * lib->nion + s];
                *st |= OLIVE_ION_USED;
                if (use & (OLIVE_ION_READ_CI | OLIVE_ION_WRITE_CI | OLIVE_ION_READ_CO | OLIVE_ION_WRITE_CO)) *st |= OLIVE_ION_EINIT;
                if (use & (OLIVE_ION_WRITE_CI | OLIVE_ION_WRITE_CO)) *st |= OLIVE_ION_EADV;
            }
            j++;
        }
    }
    ms->used = olive_malloc((size_t)n * (size_t)lib->nion * sizeof(int) + 1, "mechanisms");
    ms->adv = olive_malloc((size_t)n * (size_t)lib->nion * sizeof(int) + 1, "mechanisms");
    for (int k = 0; k < n * lib->nion; k++) {
        if (ms->ion_style[k] & OLIVE_ION_USED) ms->used[ms->nused++] = k;
        if (ms->ion_style[k] & OLIVE_ION_EADV) ms->adv[ms->nadv++] = k;
    }
    for (int i = 0; i < n; i++)
        for (int s = 0; s < lib->nion; s++) {
            double *z = &ms->ion0[((size_t)i * lib->nion + s) * OLIVE_ION_NF];
            ion_defaults(lib->ions[s].name, celsius, lib->ions[s].charge, &z[OLIVE_ION_E], &z[OLIVE_ION_CI], &z[OLIVE_ION_CO]);
            for (int q = 0; group[i] >= 0 && q < b->nval; q++)
                if ((b->val[q].type == OLIVE_BIO_TYPES || b->val[q].type == group[i]) && ion_slot_of_e(lib, b->val[q].name) == s)
                    z[OLIVE_ION_E] = b->val[q].value;
        }
    for (int r = 0; r < 2; r++) ms->psyn[r] = b->syn[r] - 1;
    for (int k = 0; k < b->nval; k++)
        if (b->val[k].type >= OLIVE_BIO_SYN0) {
            ms->pv = olive_realloc(ms->pv, (size_t)(ms->npv + 1) * sizeof *ms->pv, "mechanisms");
            ms->pv[ms->npv++] = b->val[k];
        }
    *out = ms;
    return NULL;
}

int olive_mech_set_add_point(olive_mech_set *ms, int rec, int node, double area)
{
    const int m = ms->psyn[rec];
    if (m < 0) return -1;
    int k = 0;
    while (ms->use[k].m != m) k++;   /* (olive_mech_set_make made its use) */
    olive_mech_use *u = &ms->use[k];
    const olive_mech_desc *d = &ms->lib->mech[m];
    const int j = u->ninst, nn = j + 1;
    /* its parameters: the defaults, then the values set for this receptor; the layout [k * ninst + j] widens */
    double *p = olive_malloc((size_t)nn * (size_t)d->nparam * sizeof(double) + 1, "mechanisms");
    for (int q = 0; q < d->nparam; q++) {
        for (int i = 0; i < j; i++) p[q * nn + i] = u->p[q * j + i];
        p[q * nn + j] = d->param_default[q];
    }
    for (int q = 0; q < ms->npv; q++)
        if (ms->pv[q].type == OLIVE_BIO_SYN0 + rec) p[point_param(d, ms->pv[q].name) * nn + j] = ms->pv[q].value;
    free(u->p);
    u->p = p;
    u->node = olive_realloc(u->node, (size_t)nn * sizeof(int), "mechanisms");
    u->mfact = olive_realloc(u->mfact, (size_t)nn * sizeof(double), "mechanisms");
    u->node[j] = node;
    u->mfact[j] = 1.e2 / area;
    u->ninst = nn;
    ms->nx = 0;   /* the rows of every use after the change */
    for (int q = 0; q < ms->nuse; q++) {
        ms->use[q].x0 = ms->nx;
        ms->nx += (long)ms->use[q].ninst * ms->lib->mech[ms->use[q].m].nvar;
    }
    if (ms->npt == ms->ptcap) {
        ms->ptcap = ms->ptcap ? 2 * ms->ptcap : 16;
        ms->pt = olive_realloc(ms->pt, (size_t)ms->ptcap * 2 * sizeof(int), "mechanisms");
    }
    ms->pt[2 * ms->npt] = k;
    ms->pt[2 * ms->npt + 1] = j;
    return ms->npt++;
}

void olive_mech_set_free(olive_mech_set *ms)
{
    if (!ms) return;
    for (int k = 0; k < ms->nuse; k++) {
        free(ms->use[k].node); free(ms->use[k].p); free(ms->use[k].tab); free(ms->use[k].mfact);
    }
    free(ms->pv); free(ms->pt); free(ms->use); free(ms->ion_style); free(ms->ion0); free(ms->charge); free(ms->used); free(ms->adv); free(ms);
}

/* ---- NEURON's finitialize of a cell's mechanisms */

void olive_mechs_init(const olive_mech_set *ms, const double *v, double *mx, double *ion, long c, long stride, double dt)
{
    for (int i = 0; i < ms->nnode; i++)
        for (int s = 0; s < ms->nion; s++)
            for (int f = 0; f < OLIVE_ION_NF; f++)
                *olive_mech_ion_at(ms, ion, i, s, f, c, stride) =
                    f == OLIVE_ION_I ? 0 : ms->ion0[((long)i * ms->nion + s) * OLIVE_ION_NF + f];
    int *einit = olive_malloc((size_t)ms->nused * sizeof(int) + 1, "mechanisms"), ne = 0;
    for (int k = 0; k < ms->nused; k++)
        if (ms->ion_style[ms->used[k]] & OLIVE_ION_EINIT) einit[ne++] = ms->used[k];
    olive_mechs_nernst(ms, ion, c, stride, ne, einit);
    free(einit);
    for (int k = 0; k < ms->nuse; k++) {
        const olive_mech_use *u = &ms->use[k];
        for (int j = 0; j < u->ninst; j++) {
            olive_mech_ctx x = olive_mech_ctx_of(ms, u, j, mx, ion, c, stride, v[(long)u->node[j] * stride + c], 0, dt);
            ms->lib->init(u->m, &x);
        }
        olive_mechs_nernst(ms, ion, c, stride, ms->nadv, ms->adv);   /* nrn_wrote_conc */
    }
}

const char *olive_mechs_points_quiet(const olive_mech_set *ms, const double *v, double *mx, double *ion, long c, long stride,
                                     double dt)
{
    for (int k = 0; k < ms->nuse; k++) {
        const olive_mech_use *u = &ms->use[k];
        for (int j = 0; u->mfact && j < u->ninst; j++) {
            olive_mech_ctx x = olive_mech_ctx_of(ms, u, j, mx, ion, c, stride, v[(long)u->node[j] * stride + c], 0, dt);
            double r = 0, g = 0;
            ms->lib->cur(u->m, &x, &r, &g);
            if (r != 0 || g != 0) return ms->lib->mech[u->m].name;
        }
    }
    return NULL;
}
