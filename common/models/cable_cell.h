/* A multi-compartment cell built from sections as NEURON builds it:
 * each section of length L, diameter diam, nseg segments; a node at the
 * centre of every segment, a zero-area node at the section's 1 end, and one
 * zero-area root node at the 0 end of the root section. Areas and axial
 * resistances follow NEURON's treeset.c for sections without 3-d points
 * (cylinders): area = pi diam L / nseg, half-segment resistance
 * 1e-2 Ra (L / nseg / 2) / (pi diam^2 / 4) megohm. The physics is cable.h. */
#ifndef OLIVE_CABLE_CELL_H
#define OLIVE_CABLE_CELL_H
#include <stdint.h>
#include "cable.h"

typedef struct {
    char name[32];
    int type;                   /* SWC type code (1 soma, 2 axon, 3 basal, 4 apical, others custom: swc.h) */
    double L, diam, Ra, cm;     /* um, um, ohm cm, uF/cm2 */
    int nseg;
    int parent;                 /* section index, -1 for the root */
    double parent_x;            /* where on the parent its 0 end attaches */
    int mechs;                  /* OLIVE_MECH_* bits */
    double g_pas, e_pas;        /* S/cm2, mV */
    double gnabar, gkbar, gl, el, ena, ek;   /* hh.mod's parameters (and TRAUB's) */
    double vt;                  /* TRAUB's V_T, mV */
    /* Optional 3-d points (npt >= 2): arc length from the 0 end and diameter
     * (um); L is then the last arc, and areas and resistances integrate the
     * piecewise-linear diameter over each half segment (frusta), as NEURON
     * does for sections with pt3d points. */
    int npt;
    const double *arc, *pd;
} olive_section;


typedef struct {
    int n;                      /* nodes */
    int *parent;
    int *section;               /* the section a node belongs to (-1: the root) */
    double *xpos;               /* a segment node: its centre's x along the section; -1: a zero-area end or the root */
    double *area, *cm, *a, *b;
    int *mechs;
    double *g_pas, *e_pas, *gnabar, *gkbar, *gl, *el, *ena, *ek, *vt;
    /* state */
    double *v, *m, *h, *hn;     /* hn: hh's n */
    double *d, *rhs;            /* work */
    double celsius;
    int nclamps;
    olive_iclamp *clamps;
    int nsyn;
    olive_expsyn *syn;
    double *syn_g, *syn_a;      /* uS */
    olive_hh_table *hh_table;   /* hh's rate table at celsius (null: hh's formulas, or no hh node) */
} olive_cable_cell;

/* Build from nsec sections (parents before children); dies on a bad one.
 * hh's rates come from its table (NEURON's default usetable_hh = 1). */
void olive_cable_build(olive_cable_cell *c, const olive_section *sec, int nsec, double celsius);
/* hh's rates from its table (on) or its formulas (NEURON's usetable_hh). */
void olive_cable_use_hh_table(olive_cable_cell *c, int on);
/* nseg of section s as NEURON users set it: segments of at most seg_length
 * um (2 floor((L / seg_length + 0.9) / 2) + 1, odd), or with seg_length 0
 * stdlib.hoc's d_lambda rule (geom_nseg: d_lambda of lambda_f(freq), from the
 * 3-d points and the section's Ra and cm); -1 when over 32767. */
int olive_section_nseg(const olive_section *s, double seg_length, double d_lambda, double freq);
/* The node at x of section s (NEURON's node_index: 0 end, segment, 1 end). */
int olive_cable_node(const olive_cable_cell *c, const olive_section *sec, int s, double x);
/* NEURON's finitialize(v0): v everywhere, hh states at their steady state. */
void olive_cable_init(olive_cable_cell *c, double v0);
/* The steady-state gates of a node with mechanisms mechs at v (HH or TRAUB,
 * HH's from the table tb if not null; m, h, n untouched otherwise). */
void olive_cable_gates_init(int mechs, double v, double q10, double vt, const olive_hh_table *tb, double *m, double *h,
                            double *n);
/* One step from t to t + dt (cable.h). */
void olive_cable_step(olive_cable_cell *c, double t, double dt);
void olive_cable_free(olive_cable_cell *c);
/* A clamp or a synapse on a node; returns its index. A synapse with
 * tau1 > 0 is an Exp2Syn: tau1 is kept below tau as NEURON's INITIAL does
 * (at most 0.9999 tau, at least 1e-9 tau) and its factor set. */
int olive_cable_add_clamp(olive_cable_cell *c, olive_iclamp q);
int olive_cable_add_syn(olive_cable_cell *c, olive_expsyn y);
/* The cell seen as a shape and a state of stride 1 (cable.h). */
olive_cable_shape olive_cable_shape_of(const olive_cable_cell *c);
olive_cable_state olive_cable_state_of(olive_cable_cell *c);
/* An event of weight w (uS) on synapse k: NEURON's NET_RECEIVE, delivered
 * before the step whose midpoint is at or after the event's time. */
static inline void olive_cable_syn_event(olive_cable_cell *c, int k, double w)
{
    olive_expsyn_event(&c->syn[k], &c->syn_g[k], &c->syn_a[k], w);
}
/* The default section: hh.mod and pas defaults, Ra 35.4, cm 1, nseg 1. */
olive_section olive_section_default(const char *name);

#endif
