/* The cells of the cable-cell models from their parameters (cable_model.h). */
#include "cable_model.h"
#include "swc.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static double par(const olive_cell_model *m, const double *p, const char *name)
{
    const int k = olive_model_param(m, name);
    if (k < 0) olive_die("internal: model %s has no parameter %s", m->name, name);
    return p[k];
}

/* Every named parameter positive (a static message naming the first that is not). */
static const char *positive(const olive_cell_model *m, const double *p, const char *const *names)
{
    static char msg[128];
    for (; *names; names++)
        if (!(par(m, p, *names) > 0) || !isfinite(par(m, p, *names))) {
            snprintf(msg, sizeof msg, "parameter %s = %g must be positive", *names, par(m, p, *names));
            return msg;
        }
    return NULL;
}

/* The sections of t's cell without their 3-d points (the sites' nodes). */
static void keep_sections(olive_cable_template *t, const olive_section *sec, int nsec)
{
    t->sec = olive_malloc((size_t)nsec * sizeof *sec, "cable cells");
    for (int k = 0; k < nsec; k++) {
        t->sec[k] = sec[k];
        t->sec[k].npt = 0;
        t->sec[k].arc = t->sec[k].pd = NULL;
    }
    t->nsec = nsec;
}

/* NEST's point cell: one cylinder of the given area (L = diam), the
 * conductances (nS) and capacitance (pF) spread over it. */
static const char *make_traub(const olive_cell_model *m, const double *p, olive_cable_template *t)
{
    static const char *const pos[] = {"C_m", "area", "tau_e", "tau_i", NULL};
    const char *fault = positive(m, p, pos);
    if (fault) return fault;
    if (!(par(m, p, "g_Na") >= 0 && par(m, p, "g_K") >= 0 && par(m, p, "g_L") >= 0 && par(m, p, "t_ref") >= 0))
        return "g_Na, g_K, g_L and t_ref must not be negative";
    const double A = par(m, p, "area"), to_S_cm2 = 1e-1 / A;   /* nS over A um2 -> S/cm2 */
    olive_section s = olive_section_default("soma");
    s.L = s.diam = sqrt(A / PI);
    s.cm = par(m, p, "C_m") * 1e2 / A;   /* pF -> uF/cm2 */
    s.mechs = OLIVE_MECH_TRAUB;
    s.gnabar = par(m, p, "g_Na") * to_S_cm2;
    s.gkbar = par(m, p, "g_K") * to_S_cm2;
    s.gl = par(m, p, "g_L") * to_S_cm2;
    s.el = par(m, p, "E_L");
    s.ena = par(m, p, "E_Na");
    s.ek = par(m, p, "E_K");
    s.vt = par(m, p, "V_T");
    olive_cable_build(&t->cell, &s, 1, 6.3);
    t->soma = olive_cable_node(&t->cell, &s, 0, .5);
    olive_cable_add_syn(&t->cell, (olive_expsyn){t->soma, par(m, p, "tau_e"), par(m, p, "E_e"), 0, 0, 1});
    olive_cable_add_syn(&t->cell, (olive_expsyn){t->soma, par(m, p, "tau_i"), par(m, p, "E_i"), 0, 0, 1});
    t->rule = OLIVE_SPIKE_PEAK;
    t->V_th = par(m, p, "V_T") + 30;
    t->t_ref = par(m, p, "t_ref");
    t->I_e = par(m, p, "I_e") * 1e-3;
    t->pulse_to_nA = 1e-3;
    return NULL;
}

/* NEURON's ball-and-stick (scripts/neuron_cable_compare.py builds the same). */
static const char *make_ball_stick(const olive_cell_model *m, const double *p, olive_cable_template *t)
{
    static const char *const pos[] = {"soma_L", "soma_diam", "soma_Ra", "dend_L", "dend_diam", "dend_Ra",
                                      "tau_e", "tau_i", NULL};
    const char *fault = positive(m, p, pos);
    if (fault) return fault;
    const double nseg = par(m, p, "dend_nseg"), x = par(m, p, "syn_x");
    if (!(nseg >= 1 && nseg <= 32767 && nseg == floor(nseg))) return "dend_nseg must be a whole number in 1..32767";
    if (!(x >= 0 && x <= 1)) return "syn_x must be in [0, 1]";
    if (!(par(m, p, "cm") >= 0)) return "cm must not be negative";
    olive_section s[2] = {olive_section_default("soma"), olive_section_default("dend")};
    s[0].type = 1;   /* SWC's soma and basal dendrite: sites= names them soma, dend */
    s[1].type = 3;
    s[0].L = par(m, p, "soma_L"); s[0].diam = par(m, p, "soma_diam"); s[0].Ra = par(m, p, "soma_Ra");
    s[0].mechs = OLIVE_MECH_HH;
    s[1].L = par(m, p, "dend_L"); s[1].diam = par(m, p, "dend_diam"); s[1].Ra = par(m, p, "dend_Ra");
    s[1].nseg = (int)nseg; s[1].parent = 0; s[1].mechs = OLIVE_MECH_PAS;
    s[1].g_pas = par(m, p, "g_pas"); s[1].e_pas = par(m, p, "e_pas");
    for (int k = 0; k < 2; k++) {
        s[k].cm = par(m, p, "cm");
        s[k].gnabar = par(m, p, "gnabar"); s[k].gkbar = par(m, p, "gkbar"); s[k].gl = par(m, p, "gl");
        s[k].el = par(m, p, "el"); s[k].ena = par(m, p, "ena"); s[k].ek = par(m, p, "ek");
    }
    olive_cable_build(&t->cell, s, 2, par(m, p, "celsius"));
    keep_sections(t, s, 2);
    t->soma = olive_cable_node(&t->cell, s, 0, .5);
    const int at = olive_cable_node(&t->cell, s, 1, x);
    olive_cable_add_syn(&t->cell, (olive_expsyn){at, par(m, p, "tau_e"), par(m, p, "E_e"), 0, 0, 0});
    olive_cable_add_syn(&t->cell, (olive_expsyn){at, par(m, p, "tau_i"), par(m, p, "E_i"), 0, 0, 0});
    t->rule = OLIVE_SPIKE_CROSSING;
    t->V_th = par(m, p, "V_th");
    t->t_ref = 0;
    t->I_e = par(m, p, "I_e");
    t->pulse_to_nA = 1;
    return NULL;
}

/* A 0/1 switch parameter (a static message when it is neither). */
static const char *switch_fault(const olive_cell_model *m, const double *p, const char *name)
{
    static char msg[128];
    const double v = par(m, p, name);
    if (v == 0 || v == 1) return NULL;
    snprintf(msg, sizeof msg, "parameter %s = %g must be 0 or 1", name, v);
    return msg;
}

/* The section types of an SWC cell with their own biophysics (parameters
 * TYPE.Ra ...: cellmodel.c): SWC type codes 1-4, the rest custom. */
static const char *const swc_types[] = {"custom", "soma", "axon", "dend", "apic"};

/* The value of TYPE.field for type group g. */
static double type_par(const olive_cell_model *m, const double *p, int g, const char *field)
{
    char name[64];
    snprintf(name, sizeof name, "%s.%s", swc_types[g], field);
    return par(m, p, name);
}

/* Every type group's biophysics in range (a static message naming the first
 * parameter that is not). */
static const char *swc_biophysics_fault(const olive_cell_model *m, const double *p)
{
    static char msg[160];
    static const char *const nonneg[] = {"cm", "gnabar", "gkbar", "gl", "g_pas"};
    for (int g = 0; g < 5; g++) {
        char name[64];
        snprintf(name, sizeof name, "%s.Ra", swc_types[g]);
        const char *fault = positive(m, p, (const char *const[]){name, NULL});
        for (int k = 0; !fault && k < 2; k++) {
            snprintf(name, sizeof name, "%s.%s", swc_types[g], k ? "pas" : "hh");
            fault = switch_fault(m, p, name);
        }
        if (fault) return fault;
        for (size_t k = 0; k < sizeof nonneg / sizeof nonneg[0]; k++)
            if (!(type_par(m, p, g, nonneg[k]) >= 0)) {
                snprintf(msg, sizeof msg, "parameter %s.%s = %g must not be negative", swc_types[g], nonneg[k],
                         type_par(m, p, g, nonneg[k]));
                return msg;
            }
    }
    return NULL;
}

/* Type group g's biophysics (its parameters' values) into s. */
static void swc_biophysics(const olive_cell_model *m, const double *p, int g, olive_section *s)
{
    s->Ra = type_par(m, p, g, "Ra");
    s->cm = type_par(m, p, g, "cm");
    s->mechs = (type_par(m, p, g, "hh") == 1 ? OLIVE_MECH_HH : 0) | (type_par(m, p, g, "pas") == 1 ? OLIVE_MECH_PAS : 0);
    s->gnabar = type_par(m, p, g, "gnabar"); s->gkbar = type_par(m, p, g, "gkbar"); s->gl = type_par(m, p, g, "gl");
    s->el = type_par(m, p, g, "el"); s->ena = type_par(m, p, g, "ena"); s->ek = type_par(m, p, g, "ek");
    s->g_pas = type_par(m, p, g, "g_pas"); s->e_pas = type_par(m, p, g, "e_pas");
}

const char *olive_hh_swc_setup(const double *p, olive_swc_setup *su)
{
    const olive_cell_model *m = &olive_model_hh_swc;
    static const char *const pos[] = {"tau_e", "tau_i", "d_lambda", "d_lambda_freq", NULL};
    const char *fault = positive(m, p, pos);
    if (!fault) fault = swc_biophysics_fault(m, p);
    if (fault) return fault;
    su->seg_length = par(m, p, "seg_length");
    if (!(su->seg_length >= 0)) return "seg_length must not be negative (0: the d_lambda rule)";
    su->d_lambda = par(m, p, "d_lambda");
    su->d_lambda_freq = par(m, p, "d_lambda_freq");
    for (int g = 0; g < 5; g++) swc_biophysics(m, p, g, &su->bio[g]);
    return NULL;
}

/* A cell of an SWC file (swc.h cuts it into sections and gives each the
 * biophysics of its type and its nseg from them). */
/* The cell of an SWC model (hh_swc, biophys_swc) from its sections mo, at
 * the population's celsius: built, its sections kept, its soma node; the
 * node of the synapse site syn_sec/syn_x, or -1 with *fault set. */
static int swc_cell(const olive_cell_model *m, const double *p, const olive_morphology *mo, olive_cable_template *t,
                    const char **fault)
{
    const double ks = par(m, p, "syn_sec");
    if (!(ks >= 0 && ks < mo->nsec && ks == floor(ks))) {
        *fault = "syn_sec must be the index of one of the cell's sections (0: the soma)";
        return -1;
    }
    olive_cable_build(&t->cell, mo->sec, mo->nsec, par(m, p, "celsius"));
    keep_sections(t, mo->sec, mo->nsec);
    t->soma = olive_cable_node(&t->cell, mo->sec, 0, .5);
    return olive_cable_node(&t->cell, mo->sec, (int)ks, par(m, p, "syn_x"));
}

/* An SWC model's synapses at node at (its ExpSyns of ge and gi; Exp2Syns
 * where tau_rise is set, olive_cable_template_make) and its spike rule. */
static void swc_synapses(const olive_cell_model *m, const double *p, olive_cable_template *t, int at)
{
    olive_cable_add_syn(&t->cell, (olive_expsyn){at, par(m, p, "tau_e"), par(m, p, "E_e"), 0, 0, 0});
    olive_cable_add_syn(&t->cell, (olive_expsyn){at, par(m, p, "tau_i"), par(m, p, "E_i"), 0, 0, 0});
    t->rule = OLIVE_SPIKE_CROSSING;
    t->V_th = par(m, p, "V_th");
    t->I_e = par(m, p, "I_e");
    t->pulse_to_nA = 1;
}

static const char *make_swc(const olive_cell_model *m, const double *p, const char *morphology, olive_cable_template *t)
{
    olive_swc_setup su;
    const char *fault = olive_hh_swc_setup(p, &su);
    if (fault) return fault;
    const double x = par(m, p, "syn_x");
    if (!(x >= 0 && x <= 1)) return "syn_x must be in [0, 1]";
    if (!morphology || !morphology[0]) return "no morphology (an SWC file) given";
    olive_morphology mo;
    olive_swc_read(morphology, &su, &mo);
    const int at = swc_cell(m, p, &mo, t, &fault);
    olive_morphology_free(&mo);
    if (fault) return fault;
    swc_synapses(m, p, t, at);
    return NULL;
}

static int cmp_type(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The sections of mo in the order of NEURON's `all` list after bmtk's
 * Biophys1.hoc (Import3d_GUI.instantiate creates them type by type, in
 * ascending SWC type, each type in file order): the index a SONATA edge's
 * afferent_section_id means. With stub (bmtk's fix_axon_peri) the axon
 * (sections of SWC type 2 and what hangs from them) is left out and two
 * sections of 30 um, diameter 1 um, appended: the first at soma(0.5), the
 * second at its 1 end. NULL, or a message (a section before its parent). */
static const char *bmtk_order(olive_morphology *mo, int stub, const olive_section *axon_bio)
{
    const int ns = mo->nsec;
    int *at = olive_malloc((size_t)ns * sizeof(int), "sections"), *types = olive_malloc((size_t)ns * sizeof(int), "sections");
    olive_section *sec = olive_malloc(((size_t)ns + 2) * sizeof *sec, "sections");
    for (int k = 0; k < ns; k++) {
        const int pk = mo->sec[k].parent;
        at[k] = (stub && mo->sec[k].type == 2) || (pk >= 0 && at[pk] == -2) ? -2 : -1;   /* -2: left out */
        types[k] = mo->sec[k].type;
    }
    qsort(types, (size_t)ns, sizeof(int), cmp_type);
    int n = 0;
    const char *fault = NULL;
    for (int u = 0; u < ns; u++) {
        if (u && types[u] == types[u - 1]) continue;
        for (int k = 0; k < ns; k++) {
            if (mo->sec[k].type != types[u] || at[k] == -2) continue;
            at[k] = n;
            sec[n] = mo->sec[k];
            const int pk = mo->sec[k].parent;
            if (pk >= 0 && at[pk] < 0) fault = "a section comes before its parent in NEURON's order (a custom type "
                                               "attached below another)";
            sec[n].parent = pk >= 0 ? at[pk] : -1;
            n++;
        }
    }
    for (int a = 0; stub && a < 2; a++) {
        olive_section x = *axon_bio;
        snprintf(x.name, sizeof x.name, "axon[%d]", a);
        x.type = 2;
        x.L = 30;
        x.diam = 1;
        x.npt = 0;
        x.arc = x.pd = NULL;
        x.parent = a ? n - 1 : 0;
        x.parent_x = a ? 1 : .5;
        sec[n++] = x;
    }
    free(at);
    free(types);
    free(mo->sec);
    mo->sec = sec;
    mo->nsec = n;
    return fault;
}

/* A biophys_swc cell: the SWC file's sections with the biophysics' Ra, cm
 * and pas, bmtk's nseg rule and axon stub, then the NMODL mechanisms of
 * lib on every segment node (none when lib is NULL: the sections alone). */
static const char *make_biophys(const olive_cell_model *m, const double *p, const char *morphology,
                                const char *biophysics, const olive_mech_library *lib, olive_cable_template *t)
{
    static const char *const pos[] = {"tau_e", "tau_i", "dL", NULL};
    const char *fault = positive(m, p, pos);
    if (fault) return fault;
    const double x = par(m, p, "syn_x"), dL = par(m, p, "dL");
    if (!(x >= 0 && x <= 1)) return "syn_x must be in [0, 1]";
    if ((fault = switch_fault(m, p, "axon_stub"))) return fault;
    if (!morphology || !morphology[0]) return "no morphology (an SWC file) given";
    olive_biophysics bio;
    olive_biophysics bare;
    memset(&bare, 0, sizeof bare);
    for (int g = 0; g < OLIVE_BIO_TYPES; g++) bare.Ra[g] = bare.cm[g] = NAN;
    if (lib) {
        if ((fault = olive_biophysics_parse(biophysics ? biophysics : "", lib, &bio))) return fault;
    } else {
        bio = bare;
    }
    olive_swc_setup su;
    memset(&su, 0, sizeof su);
    su.seg_length = 1e9;   /* one segment a section here; bmtk's rule below */
    for (int g = 0; g < OLIVE_BIO_TYPES; g++) {
        olive_section *b = &su.bio[g];
        *b = olive_section_default("");
        if (!isnan(bio.Ra[g])) b->Ra = bio.Ra[g];
        if (!isnan(bio.cm[g])) b->cm = bio.cm[g];
        b->mechs = bio.insert[g] >> OLIVE_BIO_PAS & 1 ? OLIVE_MECH_PAS : 0;
        for (int k = 0; k < bio.nval; k++)
            if (bio.val[k].type == OLIVE_BIO_TYPES || bio.val[k].type == g) {
                if (!strcmp(bio.val[k].name, "g_pas")) b->g_pas = bio.val[k].value;
                if (!strcmp(bio.val[k].name, "e_pas")) b->e_pas = bio.val[k].value;
            }
    }
    olive_morphology mo;
    olive_swc_read(morphology, &su, &mo);
    if ((fault = bmtk_order(&mo, par(m, p, "axon_stub") == 1, &su.bio[2]))) {
        olive_morphology_free(&mo);
        olive_biophysics_free(&bio);
        return fault;
    }
    for (int k = 0; k < mo.nsec; k++) {   /* bmtk's Morphology.set_segment_dl */
        const double n = 1 + 2 * floor(mo.sec[k].L / (2 * dL));
        if (!(n <= 32767)) {
            olive_morphology_free(&mo);
            olive_biophysics_free(&bio);
            return "dL is too small: a section would need more than 32767 segments";
        }
        mo.sec[k].nseg = (int)n;
    }
    const int at = swc_cell(m, p, &mo, t, &fault);
    if (!fault && lib) {
        int *group = olive_malloc((size_t)t->cell.n * sizeof(int), "mechanisms");
        for (int i = 0; i < t->cell.n; i++)
            group[i] = t->cell.xpos[i] >= 0 ? olive_swc_group(mo.sec[t->cell.section[i]].type) : -1;
        fault = olive_mech_set_make(lib, &bio, t->cell.n, group, par(m, p, "celsius"), &t->mset);
        free(group);
    }
    olive_morphology_free(&mo);
    olive_biophysics_free(&bio);
    if (fault) return fault;
    swc_synapses(m, p, t, at);
    return NULL;
}

const char *olive_cable_template_make(const olive_cell_model *m, const double *p, const char *morphology,
                                      const char *biophysics, const olive_mech_library *lib, olive_cable_template *t)
{
    memset(t, 0, sizeof *t);
    for (int k = 0; k < m->nparams; k++)
        if (!isfinite(p[k])) return "a parameter is not a finite number";
    const char *fault = m == &olive_model_hh_traub ? make_traub(m, p, t)
                        : m == &olive_model_hh_cable ? make_ball_stick(m, p, t)
                        : m == &olive_model_hh_swc   ? make_swc(m, p, morphology, t)
                        : m == &olive_model_biophys_swc ? make_biophys(m, p, morphology, biophysics, lib, t)
                                                        : "not a cable-cell model";
    if (fault) return fault;
    if (m != &olive_model_hh_traub) {   /* hh.mod's rates: its table (NEURON's default) or its formulas */
        for (int r = 0; r < 2 && !fault; r++) {
            t->tau_rise[r] = par(m, p, r ? "tau_rise_i" : "tau_rise_e");
            if (!(t->tau_rise[r] >= 0)) fault = r ? "tau_rise_i must not be negative (0: ExpSyn)"
                                                  : "tau_rise_e must not be negative (0: ExpSyn)";
        }
        if (!fault) fault = switch_fault(m, p, "hh_tables");
        if (fault) {
            olive_cable_template_free(t);
            return fault;
        }
        olive_cable_use_hh_table(&t->cell, par(m, p, "hh_tables") == 1);
    }
    /* the soma clamp: on from t = 0 for ever, its amplitude per cell and step */
    olive_cable_add_clamp(&t->cell, (olive_iclamp){t->soma, 0, INFINITY, 0});
    t->v0 = par(m, p, "v0");
    return NULL;
}

void olive_cable_template_free(olive_cable_template *t)
{
    olive_mech_set_free(t->mset);
    t->mset = NULL;
    olive_cable_free(&t->cell);
    free(t->sec);
    t->sec = NULL;
}

int olive_cable_site_node(const olive_cable_template *t, int sec, double x)
{
    if (sec < 0 || sec >= t->nsec || !(x >= 0 && x <= 1)) return -1;
    return olive_cable_node(&t->cell, t->sec, sec, x);
}

int olive_cable_add_site_syn(olive_cable_template *t, int node, int rec)
{
    if (t->mset && t->mset->psyn[rec] >= 0)   /* the biophysics' NMODL synapse (cable_mechs.h) */
        return -1 - olive_mech_set_add_point(t->mset, rec, node, t->cell.area[node]);
    olive_expsyn y = t->cell.syn[rec];   /* the model's synapse of that receptor: tau, e */
    y.node = node;
    y.tau1 = t->tau_rise[rec];
    y.factor = 0;
    return olive_cable_add_syn(&t->cell, y);
}
