/* The multi-compartment cell (common/models/cable.h, cable_cell.c).
 *   test_cable                 self-checks: the Hines solve against dense
 *                              Gaussian elimination on random trees; hh's
 *                              resting state; NEURON's node layout.
 *   test_cable trace CELL OUT [formula]  the voltage traces of CELL (ball_stick
 *                              or branched, the cells of scripts/neuron_cable_compare.py)
 *                              every step, "%.17g" per column, for the comparison
 *                              with NEURON (tests/test_cable_neuron.sh); hh's rates
 *                              from its table (NEURON's default), or with formula
 *                              its formulas. CELL swc:FILE (segments of at most
 *                              20 um), swcdl:FILE (d_lambda) or swcbio:FILE (per-type
 *                              biophysics, swcbio_params): an SWC file read by
 *                              common/models/swc.c as hh_swc reads it, every segment's
 *                              voltage, after a first line "# t NAME(x) ..."
 *                              naming each (scripts/neuron_swc_compare.py).
 *   test_cable net CONNS OUT   the network of scripts/neuron_cable_compare.py
 *                              --net: ball-and-stick cells with an ExpSyn on the
 *                              dendrite, connections "src tgt weight delay" per
 *                              line of CONNS, NEURON's NetCon semantics; writes
 *                              "time cell" per spike. (A driver for the
 *                              comparison: olive-simulate does not run these
 *                              cells yet.)
 *   test_cable net2 CONNS OUT  the same with an Exp2Syn (tau1 0.5, tau2 3 ms). */
#include "cable.h"
#include "cable_cell.h"
#include "cable_model.h"
#include "swc.h"
#include "synfile.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(cond, ...) do { if (!(cond)) { failures++; printf("FAIL: " __VA_ARGS__); printf("\n"); } } while (0)

/* The cells both sides build (keep in step with scripts/neuron_cable_compare.py). */
typedef struct { int sec; double x; } probe;

static int make_cell(const char *name, olive_section *s, double *celsius, olive_iclamp *clamp, probe *pr, int *npr)
{
    if (!strcmp(name, "ball_stick")) {
        s[0] = olive_section_default("soma");
        s[0].L = 20; s[0].diam = 20; s[0].mechs = OLIVE_MECH_HH;
        s[1] = olive_section_default("dend");
        s[1].L = 200; s[1].diam = 1; s[1].nseg = 21; s[1].Ra = 100; s[1].mechs = OLIVE_MECH_PAS;
        s[1].g_pas = .001; s[1].e_pas = -65; s[1].parent = 0; s[1].parent_x = 1;
        *celsius = 6.3;
        *clamp = (olive_iclamp){0, 5, 50, .2};   /* node filled in later: soma(0.5) */
        pr[0] = (probe){0, .5}; pr[1] = (probe){1, .5}; pr[2] = (probe){1, 1};
        *npr = 3;
        return 2;
    }
    if (!strcmp(name, "branched")) {
        s[0] = olive_section_default("soma");
        s[0].L = 15; s[0].diam = 15; s[0].mechs = OLIVE_MECH_HH;
        s[1] = olive_section_default("dend1");
        s[1].L = 150; s[1].diam = 2; s[1].nseg = 15; s[1].Ra = 120; s[1].mechs = OLIVE_MECH_HH | OLIVE_MECH_PAS;
        s[1].gnabar = .03; s[1].g_pas = .0002; s[1].e_pas = -65; s[1].parent = 0; s[1].parent_x = 1;
        s[2] = olive_section_default("dend2");
        s[2].L = 100; s[2].diam = 1; s[2].nseg = 9; s[2].Ra = 120; s[2].mechs = OLIVE_MECH_PAS;
        s[2].g_pas = .0005; s[2].e_pas = -65; s[2].parent = 1; s[2].parent_x = 1;
        s[3] = olive_section_default("dend3");
        s[3].L = 80; s[3].diam = .8; s[3].nseg = 7; s[3].Ra = 120; s[3].mechs = OLIVE_MECH_PAS;
        s[3].g_pas = .0005; s[3].e_pas = -65; s[3].parent = 1; s[3].parent_x = 1;
        s[4] = olive_section_default("axon");
        s[4].L = 300; s[4].diam = .5; s[4].nseg = 31; s[4].Ra = 100; s[4].mechs = OLIVE_MECH_HH;
        s[4].parent = 0; s[4].parent_x = 0;
        *celsius = 16;
        *clamp = (olive_iclamp){0, 2, 80, .3};
        pr[0] = (probe){0, .5}; pr[1] = (probe){1, .5}; pr[2] = (probe){2, 1}; pr[3] = (probe){3, .3};
        pr[4] = (probe){4, .9};
        *npr = 5;
        return 5;
    }
    olive_die("test_cable: unknown cell '%s' (ball_stick, branched)", name);
    return 0;
}

/* The non-default biophysics per section type of the swcbio cell (hh_swc's
 * parameters; keep in step with BIO in scripts/neuron_swc_compare.py). */
static const struct { const char *name; double value; } swcbio_params[] = {
    {"celsius", 16}, {"seg_length", 0}, {"d_lambda", .05}, {"d_lambda_freq", 200},
    {"soma.Ra", 80}, {"soma.cm", 1.5}, {"soma.gnabar", .2}, {"soma.el", -60},
    {"axon.Ra", 150}, {"axon.cm", .8}, {"axon.gkbar", .05}, {"axon.pas", 1}, {"axon.g_pas", 2e-4},
    {"axon.e_pas", -70}, {"axon.ena", 55},
    {"dend.Ra", 200}, {"dend.cm", 2}, {"dend.hh", 1}, {"dend.gnabar", .02}, {"dend.gkbar", .01}, {"dend.gl", 1e-4},
    {"dend.g_pas", 5e-5}, {"dend.e_pas", -60}, {"dend.ek", -80},
    {"apic.Ra", 120}, {"apic.cm", .9}, {"apic.e_pas", -68}, {"apic.g_pas", 2e-4},
    {"custom.Ra", 90}, {"custom.cm", 1.2}, {"custom.hh", 1}, {"custom.gkbar", .02}, {"custom.g_pas", 3e-5},
};

/* The SWC cell of CELL (swc:FILE, swcdl:FILE, swcbio:FILE) as hh_swc makes
 * it, its sections into mo; returns its celsius. */
static double swc_cell(const char *cell, olive_morphology *mo)
{
    double p[OLIVE_MAX_PARAMS];
    const olive_cell_model *m = &olive_model_hh_swc;
    for (int k = 0; k < m->nparams; k++) p[k] = m->params[k].def;
    const char *file = strchr(cell, ':') + 1;
    if (!strncmp(cell, "swcbio:", 7))
        for (size_t k = 0; k < sizeof swcbio_params / sizeof swcbio_params[0]; k++)
            p[olive_model_param(m, swcbio_params[k].name)] = swcbio_params[k].value;
    else
        p[olive_model_param(m, "seg_length")] = cell[3] == 'd' ? 0 : 20;
    olive_swc_setup su;
    const char *fault = olive_hh_swc_setup(p, &su);
    if (fault) olive_die("test_cable: %s: %s", cell, fault);
    olive_swc_read(file, &su, mo);
    return p[olive_model_param(m, "celsius")];
}

/* CELL's traces; formula: hh's rates from its formulas (NEURON's
 * usetable_hh = 0), else from its table. */
static int trace(const char *name, const char *out_path, int formula)
{
    olive_section sbuf[8], *s = sbuf;
    olive_iclamp clamp;
    probe pr[8];
    int npr, nsec;
    double celsius;
    olive_morphology morph = {0};
    if (!strncmp(name, "swc:", 4) || !strncmp(name, "swcdl:", 6) || !strncmp(name, "swcbio:", 7)) {
        celsius = swc_cell(name, &morph);
        s = morph.sec;
        nsec = morph.nsec;
        clamp = (olive_iclamp){0, 5, 60, .5};
        npr = 0;
    } else {
        nsec = make_cell(name, s, &celsius, &clamp, pr, &npr);
    }
    olive_cable_cell c;
    olive_cable_build(&c, s, nsec, celsius);
    clamp.node = olive_cable_node(&c, s, 0, .5);
    if (formula) olive_cable_use_hh_table(&c, 0);
    olive_cable_add_clamp(&c, clamp);
    int fixed[8], *node = fixed;
    for (int k = 0; k < npr; k++) node[k] = olive_cable_node(&c, s, pr[k].sec, pr[k].x);
    FILE *f = fopen(out_path, "w");
    if (!f) olive_die("%s: cannot write", out_path);
    if (!npr) {   /* an SWC cell: every segment node, named */
        node = malloc((size_t)c.n * sizeof *node);
        fprintf(f, "# t");
        for (int i = 0; i < c.n; i++)
            if (c.xpos[i] >= 0) {
                node[npr++] = i;
                fprintf(f, " %s(%.17g)", s[c.section[i]].name, c.xpos[i]);
            }
        fputc('\n', f);
    }
    const double dt = .025, tstop = 100;
    olive_cable_init(&c, -65);
    const int steps = (int)lround(tstop / dt);
    double t = 0;
    for (int i = 0; i <= steps; i++) {
        fprintf(f, "%.17g", t);
        for (int k = 0; k < npr; k++) fprintf(f, " %.17g", c.v[node[k]]);
        fputc('\n', f);
        if (i == steps) break;
        olive_cable_step(&c, t, dt);
        t += dt;   /* NEURON: t += dt/2 twice */
    }
    if (fclose(f) != 0) olive_die("%s: write failed", out_path);
    olive_cable_free(&c);
    olive_morphology_free(&morph);
    if (node != fixed) free(node);
    return 0;
}

/* x' = b for a random tree, by dense elimination. */
static void check_hines(unsigned seed)
{
    srand(seed);
    const int n = 2 + rand() % 60;
    int *parent = malloc((size_t)n * sizeof(int));
    double *a = malloc((size_t)n * 8), *b = malloc((size_t)n * 8), *d = malloc((size_t)n * 8), *rhs = malloc((size_t)n * 8);
    double *M = calloc((size_t)n * n, 8), *y = malloc((size_t)n * 8);
    for (int i = 0; i < n; i++) {
        parent[i] = i == 0 ? -1 : rand() % i;
        a[i] = -(0.1 + rand() / (double)RAND_MAX);
        b[i] = -(0.1 + rand() / (double)RAND_MAX);
        d[i] = 0.5 + rand() / (double)RAND_MAX;
        rhs[i] = y[i] = rand() / (double)RAND_MAX - 0.5;
    }
    for (int i = 0; i < n; i++) {   /* diagonal dominance as in a cable: d -= a, b */
        if (parent[i] >= 0) { d[i] -= b[i]; d[parent[i]] -= a[i]; }
    }
    for (int i = 0; i < n; i++) {
        M[i * n + i] = d[i];
        if (parent[i] >= 0) { M[parent[i] * n + i] = a[i]; M[i * n + parent[i]] = b[i]; }
    }
    olive_hines_solve(n, 1, 1, parent, a, b, d, rhs);
    for (int k = 0; k < n; k++)   /* Gaussian elimination without pivoting (dominant diagonal) */
        for (int i = k + 1; i < n; i++) {
            const double f = M[i * n + k] / M[k * n + k];
            if (f == 0) continue;
            for (int j = k; j < n; j++) M[i * n + j] -= f * M[k * n + j];
            y[i] -= f * y[k];
        }
    for (int i = n - 1; i >= 0; i--) {
        for (int j = i + 1; j < n; j++) y[i] -= M[i * n + j] * y[j];
        y[i] /= M[i * n + i];
    }
    double err = 0;
    for (int i = 0; i < n; i++) err = fmax(err, fabs(rhs[i] - y[i]));
    CHECK(err < 1e-12, "Hines solve on a random tree of %d nodes (seed %u): max difference %g from dense elimination", n,
          seed, err);
    free(parent); free(a); free(b); free(d); free(rhs); free(M); free(y);
}

/* NEURON's fixed-step network semantics: at the start of every step the
 * threshold of every source is checked at the present t (a crossing from at
 * or below to above sends an event at t + delay), then every event due by
 * t + dt/2 is delivered (ExpSyn: g += w), then the cells step. */
typedef struct { double t; int cell; double w; } net_event;

static int cmp_event(const void *x, const void *y)
{
    const net_event *a = x, *b = y;
    return (a->t > b->t) - (a->t < b->t);
}

static int net(const char *conns_path, const char *out_path, int exp2)
{
    enum { NCELLS = 100, NDRIVEN = 10 };
    const double dt = .025, tstop = 100, thresh = 10;
    FILE *f = fopen(conns_path, "r");
    if (!f) olive_die("%s: cannot read", conns_path);
    int nconn = 0, cap = 1024, *src = malloc(cap * sizeof(int)), *tgt = malloc(cap * sizeof(int));
    double *w = malloc(cap * sizeof(double)), *delay = malloc(cap * sizeof(double));
    int a, b;
    double x, y;
    while (fscanf(f, "%d %d %lf %lf", &a, &b, &x, &y) == 4) {
        if (nconn == cap) {
            cap *= 2;
            src = olive_realloc(src, cap * sizeof(int), "conns"); tgt = olive_realloc(tgt, cap * sizeof(int), "conns");
            w = olive_realloc(w, cap * sizeof(double), "conns"); delay = olive_realloc(delay, cap * sizeof(double), "conns");
        }
        if (a < 0 || a >= NCELLS || b < 0 || b >= NCELLS || !(y > 0)) olive_die("%s: bad connection %d %d %g %g", conns_path, a, b, x, y);
        src[nconn] = a; tgt[nconn] = b; w[nconn] = x; delay[nconn] = y; nconn++;
    }
    fclose(f);
    olive_section s[2] = {olive_section_default("soma"), olive_section_default("dend")};
    s[0].L = 20; s[0].diam = 20; s[0].mechs = OLIVE_MECH_HH;
    s[1].L = 200; s[1].diam = 1; s[1].nseg = 5; s[1].Ra = 100; s[1].mechs = OLIVE_MECH_PAS;
    s[1].g_pas = .001; s[1].e_pas = -65; s[1].parent = 0;
    olive_cable_cell *cell = olive_calloc(NCELLS, sizeof *cell, "cells");
    int flag[NCELLS] = {0}, soma = 0;
    for (int k = 0; k < NCELLS; k++) {
        olive_cable_build(&cell[k], s, 2, 6.3);
        soma = olive_cable_node(&cell[k], s, 0, .5);
        if (exp2) olive_cable_add_syn(&cell[k], (olive_expsyn){olive_cable_node(&cell[k], s, 1, .5), 3, 0, .5, 0, 0});
        else olive_cable_add_syn(&cell[k], (olive_expsyn){olive_cable_node(&cell[k], s, 1, .5), 2, 0, 0, 0, 0});
        if (k < NDRIVEN) olive_cable_add_clamp(&cell[k], (olive_iclamp){soma, 1 + k, 100, .25});
        olive_cable_init(&cell[k], -65);
    }
    int nq = 0, qcap = 1024;
    net_event *q = malloc(qcap * sizeof *q);
    FILE *out = fopen(out_path, "w");
    if (!out) olive_die("%s: cannot write", out_path);
    double t = 0;
    while (t < tstop - dt / 2) {
        for (int k = 0; k < NCELLS; k++) {
            if (cell[k].v[soma] > thresh) {
                if (!flag[k]) {
                    flag[k] = 1;
                    fprintf(out, "%.17g %d\n", t, k);
                    for (int e = 0; e < nconn; e++) {
                        if (src[e] != k) continue;
                        if (nq == qcap) q = olive_realloc(q, (qcap *= 2) * sizeof *q, "events");
                        q[nq++] = (net_event){t + delay[e], tgt[e], w[e]};
                    }
                }
            } else {
                flag[k] = 0;
            }
        }
        qsort(q, nq, sizeof *q, cmp_event);   /* stable enough: equal times add to one g in any order */
        int used = 0;
        while (used < nq && q[used].t <= t + .5 * dt) { olive_cable_syn_event(&cell[q[used].cell], 0, q[used].w); used++; }
        memmove(q, q + used, (nq - used) * sizeof *q);
        nq -= used;
        for (int k = 0; k < NCELLS; k++) olive_cable_step(&cell[k], t, dt);
        t += .5 * dt;   /* as NEURON: two halves */
        t += .5 * dt;
    }
    if (fclose(out) != 0) olive_die("%s: write failed", out_path);
    for (int k = 0; k < NCELLS; k++) olive_cable_free(&cell[k]);
    free(cell); free(q); free(src); free(tgt); free(w); free(delay);
    return 0;
}

int main(int argc, char **argv)
{
    olive_set_program("test_cable");
    if ((argc == 4 || (argc == 5 && !strcmp(argv[4], "formula"))) && !strcmp(argv[1], "trace"))
        return trace(argv[2], argv[3], argc == 5);
    if (argc == 4 && !strcmp(argv[1], "net")) return net(argv[2], argv[3], 0);
    if (argc == 4 && !strcmp(argv[1], "net2")) return net(argv[2], argv[3], 1);
    if (argc != 1) olive_die("usage: test_cable [trace CELL OUT [formula] | net CONNS OUT | net2 CONNS OUT]");
    for (unsigned seed = 1; seed <= 200; seed++) check_hines(seed);
    /* hh at -65 mV, 6.3 C: NEURON 9.0.2's rates_hh(-65) with usetable_hh = 0 */
    const olive_hh_rates r = olive_hh_rates_at(-65, 1);
    CHECK(fabs(r.minf - 0.0529324852572496) < 1e-14, "hh minf(-65) = %.15g", r.minf);
    CHECK(fabs(r.hinf - 0.59612075350846) < 1e-14, "hh hinf(-65) = %.15g", r.hinf);
    CHECK(fabs(r.ninf - 0.317676914060697) < 1e-14, "hh ninf(-65) = %.15g", r.ninf);
    CHECK(fabs(r.mtau - 0.236766878685688) < 1e-14, "hh mtau(-65) = %.15g", r.mtau);
    /* hh.mod's table: its rows are the formulas at -100, -99, ... 100 mV; between
     * them the linear interpolation; the ends held outside; NaN passed on */
    olive_hh_table tb;
    olive_hh_table_fill(&tb, 1);
    const olive_hh_rates t65 = olive_hh_rates_lookup(&tb, -65), t_lo = olive_hh_rates_lookup(&tb, -150);
    const olive_hh_rates t_mid = olive_hh_rates_lookup(&tb, -64.75), r64 = olive_hh_rates_at(-64, 1);
    CHECK(t65.minf == r.minf && t65.ntau == r.ntau, "table at -65 = the formulas");
    CHECK(t_lo.htau == olive_hh_rates_at(-100, 1).htau, "table below -100 mV holds its first row");
    CHECK(t_mid.hinf == r.hinf + .25 * (r64.hinf - r.hinf), "table at -64.75: a quarter of the way to -64");
    CHECK(isnan(olive_hh_rates_lookup(&tb, NAN).mtau), "table at NaN");
    /* vtrap's limit branch is continuous */
    CHECK(fabs(olive_hh_vtrap(1e-9, 10) - olive_hh_vtrap(2e-5, 10)) < 2e-5, "vtrap near 0");
    /* NEURON's layout of a soma with a 3-segment dendrite: root, soma, soma(1), 3 dend, dend(1) */
    olive_section s[2] = {olive_section_default("soma"), olive_section_default("dend")};
    s[0].L = s[0].diam = 10;
    s[1].nseg = 3; s[1].parent = 0; s[1].diam = 1;
    olive_cable_cell c;
    olive_cable_build(&c, s, 2, 6.3);
    CHECK(c.n == 7, "node count %d, expected 7", c.n);
    CHECK(c.parent[1] == 0 && c.parent[2] == 1 && c.parent[3] == 2 && c.parent[6] == 5, "parents");
    CHECK(fabs(c.area[1] - M_PI * 100) < 1e-12 && c.area[2] == 1e2 && c.area[0] == 1e2, "areas");
    /* dend seg 0 hangs off soma(1): its ri is its half segment, 1e-2 Ra (L/6) / (pi/4) */
    const double ri = 1e-2 * 35.4 * (100. / 6) / (M_PI / 4);
    CHECK(fabs(c.b[3] - (-1e2 / ri / c.area[3])) < 1e-12 * fabs(c.b[3]), "b of the first dendrite node");
    CHECK(olive_cable_node(&c, s, 1, 0) == 2 && olive_cable_node(&c, s, 1, .5) == 4 && olive_cable_node(&c, s, 1, 1) == 6,
          "node_index");
    olive_cable_free(&c);
    if (failures) { printf("%d failure(s)\n", failures); return 1; }
    printf("test_cable: all checks passed\n");
    return 0;
}
