/* olive_conn_draw: the rows of a projection from its rule (conn_rule.h).
 * Every draw is keyed by what it decides (the target, the source for an
 * out-degree, or the pair's number for a fixed total), never by the order of
 * work, so a block of rows drawn on one rank equals the same rows of the
 * whole projection. O(synapses) for p and indegree; a fixed total and an
 * out-degree draw all their pairs and keep the rows asked for. */
#include "conn_rule.h"
#include "rng.h"
#include "rng_normal.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void value_failed(const olive_conn *c, const char *what, const olive_value *v, uint64_t j)
{
    olive_die("%s: the %s of a synapse of cell %llu fell outside [%g, %g] in %d draws", c->what, what,
              (unsigned long long)j, v->lo, v->hi, OLIVE_NORMAL_MAX_ATTEMPTS);
}

/* The delay (ms) and weight of synapse (j, at): target j's synapse at place
 * at of its row, or draw at of source j for an out-degree (conn_synapse.h:
 * both normal, they share a counter). want: bit 0 the delay, bit 1 the weight. */
static void draw_values(const olive_conn *c, int want, uint64_t j, uint32_t at, double *d, double *w)
{
    const int ok = olive_syn_wanted(want, &c->d, &c->w, c->seed, c->key, (uint32_t)j, at, d, w);
    if ((want & 1) && !(ok & 1)) value_failed(c, "delay", &c->d, j);
    if ((want & 2) && !(ok & 2)) value_failed(c, "weight", &c->w, j);
}

/* Sort a row's n sources (all in [c->s0, c->s1)) ascending: insertion for
 * short rows, else least-significant-digit radix on the offset from s0, a
 * byte a pass (as many as the source range needs), through tmp (n entries).
 * qsort's callbacks were a third of drawing the microcircuit. */
static void sort_sources(const olive_conn *c, int32_t *v, int64_t n, int32_t *tmp)
{
    if (n <= 48) {
        for (int64_t i = 1; i < n; i++) {
            int32_t x = v[i];
            int64_t j = i;
            for (; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
            v[j] = x;
        }
        return;
    }
    const uint32_t span = (uint32_t)(c->s1 - c->s0 - 1);
    int32_t *from = v, *to = tmp;
    for (int shift = 0; shift < 32 && (shift == 0 || (span >> shift)); shift += 8) {
        int64_t count[257] = {0};
        for (int64_t i = 0; i < n; i++) count[(((uint32_t)(from[i] - c->s0)) >> shift & 255) + 1]++;
        for (int b = 0; b < 256; b++) count[b + 1] += count[b];
        for (int64_t i = 0; i < n; i++) to[count[((uint32_t)(from[i] - c->s0)) >> shift & 255]++] = from[i];
        int32_t *t = from;
        from = to;
        to = t;
    }
    if (from != v) memcpy(v, from, (size_t)n * sizeof(int32_t));
}

/* A growing list of sources (one block of rows, or of pairs). */
typedef struct {
    int32_t *v, *t;   /* sources; targets where kept (fixed total, out-degree) */
    uint32_t *d;      /* out-degree: the source's draw number */
    int64_t n, cap;
} list32;

static void push(list32 *l, int32_t src, int32_t tgt, int with_target)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->v = olive_realloc(l->v, (size_t)l->cap * sizeof(int32_t), "synapses");
        if (with_target) l->t = olive_realloc(l->t, (size_t)l->cap * sizeof(int32_t), "synapses");
        if (with_target > 1) l->d = olive_realloc(l->d, (size_t)l->cap * sizeof(uint32_t), "synapses");
    }
    if (with_target) l->t[l->n] = tgt;
    l->v[l->n++] = src;
}

/* Row j's sources onto l (rules p and indegree: a row is its own draws). */
static void draw_row(const olive_conn *c, int64_t j, list32 *l)
{
    const int64_t ns = c->s1 - c->s0, before = l->n;
    if (c->kind == OLIVE_CONN_P && c->p > 0) {
        /* Geometric gaps between the sources kept: O(synapses), every pair
         * once (olive's own log: the device draws the same rows) */
        const double lq = olive_log1p_d(-c->p);
        int64_t pos = -1;
        for (uint32_t draw = 0;; draw++) {
            if (c->p >= 1) pos++;
            else {
                const double gap = olive_p_gap(c->seed, c->key, j, draw, lq, OLIVE_STREAM_SYN_PAIRS);
                if (gap >= (double)ns) break;
                pos += 1 + (int64_t)gap;
            }
            if (pos >= ns) break;
            if (!c->autapses && c->s0 + pos == j) continue;
            push(l, (int32_t)(c->s0 + pos), 0, 0);
        }
    } else if (c->kind == OLIVE_CONN_INDEGREE) {
        for (int64_t d = 0; d < c->k; d++)
            push(l, (int32_t)olive_indegree_source(c->seed, c->key, j, (uint32_t)d, c->s0, c->s1, c->autapses,
                                                   OLIVE_STREAM_SYN_PAIRS), 0, 0);
        /* the sort's scratch: room after the row in l (grown by push) */
        const int64_t len = l->n - before;
        for (int64_t i = 0; i < len; i++) push(l, 0, 0, 0);
        sort_sources(c, l->v + before, len, l->v + before + len);
        l->n = before + len;
    }
}


/* Work in blocks on OpenMP threads, each into a list of its own, joined in
 * block order: the same rows for any thread count. */
#define CONN_BLOCKS 256

/* Rows [a, b) (within the targets) of rule p or indegree into p->row_ptr
 * (local to row0) and p->col. */
static void draw_rows(const olive_conn *c, int64_t row0, int64_t a, int64_t b, olive_projection *p)
{
    const int64_t n = b - a;
    const int nblk = n <= 0 ? 0 : n < 4096 ? 1 : CONN_BLOCKS;
    list32 *blk = olive_calloc((size_t)nblk + 1, sizeof(list32), "row blocks");
    int64_t *row_end = olive_calloc((size_t)n + 1, sizeof(int64_t), "rows");   /* within its block */
#pragma omp parallel for schedule(dynamic, 1)
    for (int bi = 0; bi < nblk; bi++)
        for (int64_t j = a + n * bi / nblk; j < a + n * (bi + 1) / nblk; j++) {
            draw_row(c, j, &blk[bi]);
            row_end[j - a] = blk[bi].n;
        }
    int64_t total = 0;
    for (int bi = 0; bi < nblk; bi++) total += blk[bi].n;
    p->col = olive_malloc_huge((size_t)total * sizeof(int32_t) + 4, "synapses");
    int64_t at = 0;
    for (int bi = 0; bi < nblk; bi++) {
        for (int64_t j = a + n * bi / nblk; j < a + n * (bi + 1) / nblk; j++) p->row_ptr[j - row0 + 1] = at + row_end[j - a];
        memcpy(p->col + at, blk[bi].v, (size_t)blk[bi].n * sizeof(int32_t));
        at += blk[bi].n;
        free(blk[bi].v);
    }
    free(blk);
    free(row_end);
    p->nnz = total;
}

/* Rows [a, b) of a fixed total or an out-degree: every pair drawn (blocks
 * of pairs, or of sources, on threads), those with a target in [a, b) kept;
 * each block's count per row gives it its places in the rows (rows filled in
 * block order), and each row of a total is sorted: the same rows for any
 * thread count. An out-degree's rows come out in (source, draw) order, the
 * blocks' order, and *dnum gets each synapse's draw number (its weight's
 * and delay's key). */
static void draw_pairs(const olive_conn *c, int64_t row0, int64_t a, int64_t b, olive_projection *p, uint32_t **dnum)
{
    const int out = c->kind == OLIVE_CONN_OUTDEGREE || c->kind == OLIVE_CONN_TOTAL_OUT;
    uint32_t *kc = NULL;   /* total_out: each source's draws */
    if (c->kind == OLIVE_CONN_TOTAL_OUT) {
        kc = olive_malloc_huge((size_t)(c->s1 - c->s0) * sizeof(uint32_t) + 4, "source counts");
        olive_conn_source_counts(c, kc);
    }
    const int64_t units = out ? c->s1 - c->s0 : c->k;   /* what the blocks split: sources, or pairs */
    const int64_t rows = b - a;
    /* per-block row counts: blocks x rows int32, kept under ~256 MB */
    int nblk = (c->kind == OLIVE_CONN_OUTDEGREE ? (double)c->k * (double)units : kc ? (double)c->k + (double)units
                                                                                    : (double)units) < 65536 ? 1 : CONN_BLOCKS;
    while (nblk > 1 && (double)nblk * (double)rows * 4 > 256e6) nblk /= 2;
    if (c->k <= 0 || units <= 0 || rows <= 0) nblk = 0;
    list32 *blk = olive_calloc((size_t)nblk + 1, sizeof(list32), "pair blocks");
    int32_t *cnt = olive_calloc((size_t)nblk * (size_t)rows + 1, sizeof(int32_t), "pair counts");
#pragma omp parallel for schedule(dynamic, 1)
    for (int bi = 0; bi < nblk; bi++) {
        int32_t *my = cnt + (size_t)bi * (size_t)rows;
        for (int64_t e = units * bi / nblk; e < units * (bi + 1) / nblk; e++) {
            if (out) {   /* source s0 + e's draws */
                const int64_t g = c->s0 + e, kg = kc ? (int64_t)kc[e] : c->k;
                for (int64_t d = 0; d < kg; d++) {
                    const int64_t j = olive_outdegree_target(c->seed, c->key, g, (uint32_t)d, c->t0, c->t1, c->autapses,
                                                             OLIVE_STREAM_SYN_PAIRS);
                    if (j < a || j >= b) continue;
                    push(&blk[bi], (int32_t)g, (int32_t)j, 2);
                    blk[bi].d[blk[bi].n - 1] = (uint32_t)d;
                    my[j - a]++;
                }
                continue;
            }
            int64_t j, src;
            olive_total_pair(c->seed, c->key, e, c->t0, c->t1, c->s0, c->s1, c->autapses, OLIVE_STREAM_SYN_PAIRS, &j, &src);
            if (j >= a && j < b) {
                push(&blk[bi], (int32_t)src, (int32_t)j, 1);
                my[j - a]++;
            }
        }
    }
    /* row j's synapses: block 0's, then block 1's ...; cnt becomes each block's next place */
    for (int64_t j = a; j < b; j++) {
        int64_t at = p->row_ptr[j - row0];
        for (int bi = 0; bi < nblk; bi++) {
            int32_t *x = &cnt[(size_t)bi * (size_t)rows + (size_t)(j - a)];
            const int32_t n = *x;
            *x = (int32_t)(at - p->row_ptr[j - row0]);
            at += n;
        }
        p->row_ptr[j - row0 + 1] = at;
    }
    const int64_t total = p->row_ptr[b - row0];
    p->col = olive_malloc_huge((size_t)total * sizeof(int32_t) + 4, "synapses");
    if (out) *dnum = olive_malloc_huge((size_t)total * sizeof(uint32_t) + 4, "synapses");
#pragma omp parallel for schedule(dynamic, 1)
    for (int bi = 0; bi < nblk; bi++) {
        int32_t *my = cnt + (size_t)bi * (size_t)rows;
        for (int64_t i = 0; i < blk[bi].n; i++) {
            const int64_t r = blk[bi].t[i] - a, at = p->row_ptr[r + a - row0] + my[r]++;
            p->col[at] = blk[bi].v[i];
            if (out) (*dnum)[at] = blk[bi].d[i];
        }
        free(blk[bi].v);
        free(blk[bi].t);
        free(blk[bi].d);
    }
    free(cnt);
    free(blk);
    free(kc);
    p->nnz = total;
    if (out) return;   /* (sorted already) */
#pragma omp parallel
    {
        int64_t cap = 0;
        int32_t *tmp = NULL;
#pragma omp for schedule(dynamic, 64)
        for (int64_t j = a; j < b; j++) {
            const int64_t n = p->row_ptr[j - row0 + 1] - p->row_ptr[j - row0];
            if (n > cap) { cap = n; tmp = olive_realloc(tmp, (size_t)cap * sizeof(int32_t), "a row"); }
            sort_sources(c, p->col + p->row_ptr[j - row0], n, tmp);
        }
        free(tmp);
    }
}

void olive_conn_draw(const olive_conn *c, int64_t row0, int64_t row1, olive_projection *p)
{
    const int64_t rows = row1 - row0;
    p->row0 = row0;
    p->row1 = row1;
    p->row_ptr = olive_calloc((size_t)rows + 1, sizeof(int64_t), "synapse rows");
    /* the targets among the rows asked for */
    const int64_t a = c->t0 > row0 ? c->t0 : row0, b = c->t1 < row1 ? c->t1 : row1;
    p->nnz = 0;
    uint32_t *dnum = NULL;   /* out-degree: each synapse's draw number */
    if (b > a) {
        if (c->kind == OLIVE_CONN_TOTAL || c->kind == OLIVE_CONN_OUTDEGREE || c->kind == OLIVE_CONN_TOTAL_OUT)
            draw_pairs(c, row0, a, b, p, &dnum);
        else draw_rows(c, row0, a, b, p);
    } else {
        p->col = olive_malloc(4, "synapses");
    }
    /* rows before the targets hold nothing; rows after them end where the targets' end */
    for (int64_t j = (b > a ? b : row0); j < row1; j++) p->row_ptr[j - row0 + 1] = p->nnz;
    /* Weights and delays: constants cost nothing; ranges and normals one
     * counter per synapse (a normal's redraws more), keyed by its target and
     * place in the row, or for an out-degree by its source and draw (what
     * the CUDA engine draws at a spike). (The arrays, filled by every thread
     * at once, on huge pages: util.h's olive_malloc_huge.) */
    const int vw = olive_value_varies(&c->w), vd = olive_value_varies(&c->d);
    p->weight = vw ? olive_malloc_huge((size_t)p->nnz * sizeof(double) + 8, "weights") : NULL;
    p->delay = vd ? olive_malloc_huge((size_t)p->nnz * sizeof(uint16_t) + 2, "delays") : NULL;
    if (vw || vd) {
#pragma omp parallel for schedule(dynamic, 256)
        for (int64_t j = a; j < b; j++)
            for (int64_t e = p->row_ptr[j - row0]; e < p->row_ptr[j - row0 + 1]; e++) {
                const uint32_t at = dnum ? dnum[e] : (uint32_t)(e - p->row_ptr[j - row0]);
                const uint64_t key = dnum ? (uint64_t)p->col[e] : (uint64_t)j;
                double d = 0, w = 0;
                draw_values(c, vd | vw << 1, key, at, &d, &w);
                if (vw) p->weight[e] = w;
                if (vd) p->delay[e] = (uint16_t)olive_ms_to_steps_or_die(olive_die, "delay", d, c->dt, 0, OLIVE_MAX_DELAY);
            }
    }
    free(dnum);
    p->weight_value = c->w.a;
    p->delay_value = olive_ms_to_steps_or_die(olive_die, "delay", c->d.a, c->dt, 0, OLIVE_MAX_DELAY);
}

void olive_conn_delay_range(const olive_conn *c, int64_t *dmin, int64_t *dmax)
{
    const olive_value *v = &c->d;
    double lo = v->a, hi = v->b;
    if (v->normal) {   /* an infinite bound: the farthest the draws reach */
        const double reach = v->sd * OLIVE_NORMAL_Z_MAX;
        lo = v->lo > v->mean - reach ? v->lo : v->mean - reach;
        hi = v->hi < v->mean + reach ? v->hi : v->mean + reach;
    }
    *dmin = olive_ms_to_steps_or_die(olive_die, "delay", lo > 0 ? lo : 0, c->dt, 0, OLIVE_MAX_DELAY);
    int64_t x = 0;
    *dmax = olive_ms_to_steps(hi, c->dt, 0, OLIVE_MAX_DELAY, &x) == OLIVE_STEPS_OK ? x : OLIVE_MAX_DELAY;
}

double olive_conn_expected(const olive_conn *c, int64_t row0, int64_t row1)
{
    const int64_t a = c->t0 > row0 ? c->t0 : row0, b = c->t1 < row1 ? c->t1 : row1;
    if (b <= a) return 0;
    const double rows = (double)(b - a), nt = (double)(c->t1 - c->t0), ns = (double)(c->s1 - c->s0);
    if (c->kind == OLIVE_CONN_TOTAL || c->kind == OLIVE_CONN_TOTAL_OUT) return (double)c->k * rows / nt;
    if (c->kind == OLIVE_CONN_OUTDEGREE) return (double)c->k * ns * rows / nt;
    if (c->kind == OLIVE_CONN_INDEGREE) return (double)c->k * rows;
    return c->p * ns * rows;
}

const char *olive_conn_fault(const olive_conn *c)
{
    if (c->kind < 0 || c->kind >= OLIVE_CONN_NKINDS) return "an unknown rule";
    if (!(c->s0 >= 0 && c->s0 < c->s1 && c->s1 <= c->count)) return "a source range outside the network";
    if (!(c->t0 >= 0 && c->t0 < c->t1 && c->t1 <= c->count)) return "a target range outside the network";
    if (c->count > INT32_MAX) return "more cells than a source id holds";
    if (c->kind == OLIVE_CONN_P && !(c->p >= 0 && c->p <= 1)) return "a probability outside [0, 1]";
    if (c->kind != OLIVE_CONN_P && c->k < 0) return "a negative number of synapses";
    if ((c->kind == OLIVE_CONN_TOTAL || c->kind == OLIVE_CONN_TOTAL_OUT) && c->k > ((int64_t)1 << 40))
        return "more than 2^40 synapses";
    if (c->kind == OLIVE_CONN_TOTAL_OUT && !c->autapses)
        return "total_out with autapses=no (its targets are drawn per source: give total=, or allow autapses)";
    if (c->kind == OLIVE_CONN_INDEGREE && c->k > INT32_MAX) return "an in-degree beyond 2^31";
    if (c->kind == OLIVE_CONN_OUTDEGREE && c->k > INT32_MAX) return "an out-degree beyond 2^31";
    const int overlap = c->t0 < c->s1 && c->s0 < c->t1;
    if (!c->autapses && overlap && c->s1 - c->s0 == 1 && (c->kind == OLIVE_CONN_INDEGREE || c->kind == OLIVE_CONN_TOTAL) &&
        c->k > 0)
        return "autapses=no leaves no source for a target";
    if (!c->autapses && overlap && c->t1 - c->t0 == 1 && c->kind == OLIVE_CONN_OUTDEGREE && c->k > 0)
        return "autapses=no leaves no target for a source";
    if (!(c->dt > 0)) return "a step dt that is not positive";
    const olive_value *v[2] = {&c->w, &c->d};
    for (int i = 0; i < 2; i++) {
        if (v[i]->normal) {
            if (!isfinite(v[i]->mean) || !(v[i]->sd > 0) || !isfinite(v[i]->sd) || !(v[i]->lo < v[i]->hi) ||
                v[i]->a != v[i]->lo || v[i]->b != v[i]->hi ||
                !(olive_normal_kept(v[i]->mean, v[i]->sd, v[i]->lo, v[i]->hi) >= OLIVE_NORMAL_MIN_KEPT))
                return i ? "a normal delay with a bad mean, sd or bounds" : "a normal weight with a bad mean, sd or bounds";
        } else if (!isfinite(v[i]->a) || !isfinite(v[i]->b) || v[i]->b < v[i]->a) {
            return i ? "a delay range out of order or not finite" : "a weight range out of order or not finite";
        }
    }
    if (c->d.a < 0) return "a negative delay";
    return NULL;
}

void olive_conn_source_counts(const olive_conn *c, uint32_t *counts)
{
    const int64_t ns = c->s1 - c->s0;
    memset(counts, 0, (size_t)ns * sizeof(uint32_t));
    int over = 0;
#pragma omp parallel for schedule(static) reduction(| : over)
    for (int64_t e = 0; e < c->k; e++) {
        const int64_t g = olive_total_out_source(c->seed, c->key, e, ns, OLIVE_STREAM_SYN_SOURCES);
        uint32_t was;
#pragma omp atomic capture
        was = counts[g]++;
        over |= was == UINT32_MAX;
    }
    if (over) olive_die("%s: a source with 2^32 synapses or more", c->what);
}
