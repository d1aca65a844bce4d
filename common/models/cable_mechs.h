/* NMODL mechanisms placed on the nodes of a cable cell (cable_mech.h's
 * libraries): which instances sit where, their parameters, the ions of each
 * node, and the host calls the CPU engine makes at each of cable.h's steps.
 *
 * A cell's biophysics is a text of statements, one per line, as NEURON
 * users set a cell up (docs/MODELS.md, "Mechanisms from NMODL"):
 *   TYPE Ra = 100 | TYPE cm = 1          axial resistance, capacitance
 *   TYPE insert SUFFIX                   a mechanism of the library (or pas)
 *   TYPE NAME_SUFFIX = VALUE             a RANGE parameter (g_pas, e_pas too)
 *   TYPE eION = VALUE                    a reversal potential (ena, ek, ...)
 *   synapse REC NAME                     receptor REC's synapses (at sites) are
 *                                        the library's POINT_PROCESS NAME
 *   synapse REC PARAM = VALUE            a RANGE parameter of them (tau1, e ...)
 * TYPE: soma, axon, dend, apic or all; REC: ge or gi; later statements win,
 * as in NEURON.
 * olive-genconn writes it from an Allen Cell Types "fit" JSON file or bmtk's
 * dynamics_params (set_params_peri's rules). */
#ifndef OLIVE_CABLE_MECHS_H
#define OLIVE_CABLE_MECHS_H
#include "cable_mech.h"

#define OLIVE_BIO_TYPES 5   /* custom (0), soma, axon, dend, apic: SWC type codes */

/* One mechanism in use: its instances (one per node that has it). */
typedef struct {
    int m;                  /* the library's index */
    int ninst;
    int *node;              /* per instance */
    double *p;              /* RANGE parameter k of instance j at p[k * ninst + j] */
    long x0;                /* variable k of instance j: row x0 + k * ninst + j of a cell's mechanism state */
    double *tab;            /* its TABLEs at the set's celsius (lib->table); NULL: none */
    double *mfact;          /* a point process: per instance 1e2 / its node's area (nA -> mA/cm2); else NULL */
} olive_mech_use;

/* Per node and ion slot (ion_style bits): used there; e by Nernst at init;
 * e by Nernst at every step (a mechanism writes the inside concentration). */
enum { OLIVE_ION_USED = 1, OLIVE_ION_EINIT = 2, OLIVE_ION_EADV = 4 };

typedef struct olive_mech_set {
    const olive_mech_library *lib;
    int nuse;
    olive_mech_use *use;    /* in the library's order (NEURON's mechanism order) */
    long nx;                /* mechanism state rows per cell */
    int nnode, nion;
    unsigned char *ion_style;   /* [node * nion + s] */
    double *ion0;               /* [(node * nion + s) * OLIVE_ION_NF + f]: the initial e, -, ci, co */
    double *charge;             /* per ion slot (the library's: a GPU copy of the set needs no library) */
    /* The (node, ion) pairs in use (node * nion + slot), and those whose e
     * advances: what a step visits of the ions (a cell's few channelled nodes,
     * not every node) */
    int nused, nadv;
    int *used, *adv;
    double celsius;
    /* Synapses from NMODL (POINT_PROCESS): receptor r's mechanism psyn[r]
     * (-1: olive's own ExpSyn/Exp2Syn), its parameter values (pv: name,
     * value, receptor in type), and the instances placed (olive_mech_set_add_point):
     * point instance k is instance pt[2k + 1] of use pt[2k]. */
    int psyn[2];
    int npv, npt, ptcap;
    struct olive_bio_value *pv;
    int *pt;
} olive_mech_set;

/* The parsed biophysics: per type group, Ra, cm (NaN: not set), the
 * mechanisms inserted and the values set. */
typedef struct olive_bio_value { char name[64]; double value; int type; } olive_bio_value;
#define OLIVE_BIO_SYN0 (OLIVE_BIO_TYPES + 1)   /* a value's type: synapse parameter of receptor type - OLIVE_BIO_SYN0 */
typedef struct {
    double Ra[OLIVE_BIO_TYPES], cm[OLIVE_BIO_TYPES];
    unsigned long long insert[OLIVE_BIO_TYPES];   /* bit m: library mechanism m; bit 63: pas */
    int syn[2];                                   /* receptor r's point process + 1 (0: olive's own synapse) */
    int nval;
    olive_bio_value *val;
} olive_biophysics;
#define OLIVE_BIO_PAS 63

#ifdef __cplusplus
extern "C" {
#endif
/* The library NAME of hash HASH (NULL: any) from the places the user chose
 * (model_places.h), loaded once; NULL with *why set. */
const olive_mech_library *olive_mechs_find(const char *name, const char *hash, char *why, int whylen);
/* Parses text against library lib; NULL, or a static message naming the line and the fault. */
const char *olive_biophysics_parse(const char *text, const olive_mech_library *lib, olive_biophysics *b);
void olive_biophysics_free(olive_biophysics *b);
/* The set of a cell of n nodes whose node i lies in a section of type group
 * group[i] (-1: a zero-area node, no membrane). NULL, or a static message
 * (a value no mechanism of that group has). */
const char *olive_mech_set_make(const olive_mech_library *lib, const olive_biophysics *b, int n, const int *group,
                                double celsius, olive_mech_set **out);
void olive_mech_set_free(olive_mech_set *ms);
/* A synapse of receptor rec on node (of area um2) when the set's receptor
 * is an NMODL point process: its point instance index (>= 0), its
 * parameters as the biophysics set them; -1: the receptor is olive's own. */
int olive_mech_set_add_point(olive_mech_set *ms, int rec, int node, double area);

/* Host: NEURON's finitialize of cell c of a layout of stride (cable.h),
 * after v is set: the ions at their initial values, the INITIAL blocks. (The
 * step's calls are cable_mechs_step.h's, for every engine.) */
void olive_mechs_init(const olive_mech_set *ms, const double *v, double *mx, double *ion, long c, long stride, double dt);
/* After init: the name of a point process of cell c whose current is not
 * exactly 0 (a synapse that no event has reached yet), or NULL. */
const char *olive_mechs_points_quiet(const olive_mech_set *ms, const double *v, double *mx, double *ion, long c, long stride,
                                     double dt);
#ifdef __cplusplus
}
#endif

#endif
