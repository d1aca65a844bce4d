/* A projection's rule as the CUDA kernels read it (spk_cuda_rules.cu draws
 * an out-degree's synapses at each spike, spk_cuda_draw.cu any rule's at
 * set-up): conn_rule.h's olive_conn without its message text, and the
 * projection's receptor. C++, after spk_cuda.h. */
#ifndef OLIVE_SPK_RULES_CUH
#define OLIVE_SPK_RULES_CUH
#include "conn_rule.h"   /* (after spk_cuda.h: hdf5.h, MPI's C++ headers, outside extern "C"; its struct and inlines only) */

struct spk_rule_dev {
    uint64_t seed;
    uint32_t key;
    int kind, autapses, rec, wvar, dvar;
    int64_t k, s0, s1, t0, t1, dconst;
    int64_t cnt_off;          /* total_out: its sources' counts from here (spk_rules_cuda); -1: k a source */
    double p, dt, rdt, wconst;   /* rdt: 1 / dt (olive_delay_steps) */
    olive_value w, d;
};

static inline spk_rule_dev spk_rule_dev_of(const olive_conn *c, int rec)
{
    spk_rule_dev q;
    memset(&q, 0, sizeof q);
    q.seed = c->seed;
    q.key = c->key;
    q.kind = c->kind;
    q.autapses = c->autapses;
    q.rec = rec != 0;
    q.k = c->k;
    q.p = c->p;
    q.s0 = c->s0, q.s1 = c->s1, q.t0 = c->t0, q.t1 = c->t1;
    q.w = c->w;
    q.d = c->d;
    q.dt = c->dt;
    q.rdt = 1.0 / c->dt;
    q.wvar = olive_value_varies(&c->w);
    q.dvar = olive_value_varies(&c->d);
    q.wconst = c->w.a;
    q.dconst = olive_ms_to_steps_or_die(olive_die, "delay", c->d.a, c->dt, 0, OLIVE_MAX_DELAY);
    q.cnt_off = -1;
    return q;
}

#endif
