/* A projection's connectivity rule: which sources each target receives from,
 * and the weight and delay of every synapse, drawn from keys (seed,
 * projection key, target or pair number, draw, stream) so that any subset of
 * rows comes out the same however and wherever it is drawn. olive-genconn
 * draws whole projections into the network file; a procedural projection
 * (--procedural, docs/FORMAT.md) stores only this rule, and every reader
 * (olive-simulate's ranks, olive-analyze) draws the rows it needs. */
#ifndef OLIVE_CONN_RULE_H
#define OLIVE_CONN_RULE_H
#include <stdint.h>
#include "synapses.h"
#include "conn_synapse.h"   /* olive_value, one synapse's draws */

/* outdegree: each source draws k targets (the rule NEST names fixed_outdegree), every
 * draw keyed by its source, so a source's synapses can be drawn at its
 * spike (the CUDA engine's projections on the fly). total_out: k synapses in
 * all (NEST's fixed_total_number, multapses and autapses allowed) drawn
 * source by source: each source's count from the multinomial (k uniform
 * source draws, keyed by their number), then its targets as an out-degree's
 * draws: the same law as total, and drawable at a spike too. */
enum olive_conn_kind { OLIVE_CONN_P, OLIVE_CONN_INDEGREE, OLIVE_CONN_TOTAL, OLIVE_CONN_OUTDEGREE, OLIVE_CONN_TOTAL_OUT };
#define OLIVE_CONN_NKINDS 5

/* 1 when v is drawn per synapse (stored as a dataset, not an attribute). */
static inline int olive_value_varies(const olive_value *v) { return v->a != v->b; }

typedef struct olive_conn {
    int kind;                 /* enum olive_conn_kind */
    double p;                 /* OLIVE_CONN_P: each pair with probability p */
    int64_t k;                /* in-degree, out-degree, or the total number of pairs */
    int autapses;
    olive_value w, d;         /* weight; delay in ms, rounded to steps of dt */
    double dt;
    uint64_t seed;
    uint32_t key;             /* the projection's number in the draws */
    int64_t s0, s1, t0, t1;   /* sources [s0, s1), targets [t0, t1) */
    int64_t count;            /* cells in the network */
    char what[1400];          /* who asked, for messages ("--projection SPEC", "FILE: /synapses/NAME") */
} olive_conn;

/* The synapses of targets [row0, row1) into p (row_ptr, col, and weight and
 * delay datasets where they vary, else weight_value and delay_value; e0 and
 * nnz_total left to the caller). A draw that cannot be kept (a normal outside
 * its bounds in every attempt, a delay beyond the delay buffer) is fatal,
 * named by c->what. */
void olive_conn_draw(const olive_conn *c, int64_t row0, int64_t row1, olive_projection *p);
/* total_out: each source's synapse count, counts[g - s0] for g in [s0, s1)
 * (the histogram of the k keyed source draws; threads add in any order,
 * the counts are integers). */
void olive_conn_source_counts(const olive_conn *c, uint32_t *counts);
/* The least and the greatest delay (steps) c's draws can give (a normal's
 * infinite bound: its farthest draw, OLIVE_NORMAL_Z_MAX); a greatest delay
 * beyond OLIVE_MAX_DELAY comes out as OLIVE_MAX_DELAY (a draw beyond it is
 * refused where it is made). */
void olive_conn_delay_range(const olive_conn *c, int64_t *dmin, int64_t *dmax);
/* The synapses targets [row0, row1) receive: exact for indegree; for total,
 * outdegree and p their expectation. */
double olive_conn_expected(const olive_conn *c, int64_t row0, int64_t row1);
/* NULL when c is a rule olive_conn_draw can draw (ranges inside the network,
 * p in [0, 1], k >= 0, a source to draw, values ordered and finite where they
 * must be), else the fault. */
const char *olive_conn_fault(const olive_conn *c);

#endif
