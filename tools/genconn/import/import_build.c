/* The imported junctions: appended as (target, source, w) triples, 16 bytes
 * each (int32, int32, float64) in three arrays, then put into compressed
 * sparse rows by target without a second copy: a counting sort by target
 * done in place (each swap puts one junction into its row for good), then
 * each row sorted by (source, w) and duplicates summed or refused.
 * Nothing here exits: allocation failures are returned as errors. */
#include "import.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void gc_edge_list_init(gc_edge_list *l)
{
    memset(l, 0, sizeof *l);
    l->max_id = -1;
}

void gc_edge_list_free(gc_edge_list *l)
{
    free(l->tgt);
    free(l->src);
    free(l->w);
    gc_edge_list_init(l);
}

static int grow(void **p, size_t bytes)
{
    void *q = realloc(*p, bytes);
    if (!q) return -1;
    *p = q;
    return 0;
}

int gc_edge_list_add(gc_sink *s, int32_t target, int32_t source, double w, int64_t pos)
{
    gc_edge_list *l = s->ctx;
    (void)pos;
    if (l->limit > 0 && l->n >= l->limit) {
        snprintf(s->err, sizeof s->err, "more than %lld junctions", (long long)l->limit);
        return -1;
    }
    if (l->n == l->cap) {
        int64_t cap = l->cap ? l->cap + l->cap / 2 : 4096;
        if (grow((void **)&l->tgt, (size_t)cap * sizeof(int32_t)) < 0 ||
            grow((void **)&l->src, (size_t)cap * sizeof(int32_t)) < 0 ||
            grow((void **)&l->w, (size_t)cap * sizeof(double)) < 0) {
            snprintf(s->err, sizeof s->err, "out of memory holding %lld junctions (16 bytes each)", (long long)cap);
            return -1;
        }
        l->cap = cap;
    }
    l->tgt[l->n] = target;
    l->src[l->n] = source;
    l->w[l->n] = w;
    l->n++;
    if (target > l->max_id) l->max_id = target;
    if (source > l->max_id) l->max_id = source;
    return 0;
}

/* ---- sorting one row's (col, w) pairs ---- */
static inline int less(const int32_t *c, const double *w, int64_t i, int64_t j)
{
    return c[i] < c[j] || (c[i] == c[j] && w[i] < w[j]);
}

static inline void swap2(int32_t *c, double *w, int64_t i, int64_t j)
{
    int32_t tc = c[i]; c[i] = c[j]; c[j] = tc;
    double tw = w[i]; w[i] = w[j]; w[j] = tw;
}

static void sift(int32_t *c, double *w, int64_t i, int64_t n)
{
    for (;;) {
        int64_t k = 2 * i + 1;
        if (k >= n) return;
        if (k + 1 < n && less(c, w, k, k + 1)) k++;
        if (!less(c, w, i, k)) return;
        swap2(c, w, i, k);
        i = k;
    }
}

static void heapsort2(int32_t *c, double *w, int64_t n)
{
    for (int64_t i = n / 2; i-- > 0;) sift(c, w, i, n);
    for (int64_t m = n - 1; m > 0; m--) { swap2(c, w, 0, m); sift(c, w, 0, m); }
}

/* Introsort: quicksort (median of three) falling back to heapsort when the
 * depth budget runs out, insertion sort for short parts. */
static void sort2(int32_t *c, double *w, int64_t n, int depth)
{
    while (n > 16) {
        if (depth-- == 0) { heapsort2(c, w, n); return; }
        int64_t m = n / 2;
        if (less(c, w, m, 0)) swap2(c, w, m, 0);
        if (less(c, w, n - 1, 0)) swap2(c, w, n - 1, 0);
        if (less(c, w, n - 1, m)) swap2(c, w, n - 1, m);
        swap2(c, w, m, 1);   /* pivot at 1; c[0] <= pivot <= c[n-1] are sentinels */
        int64_t i = 1, j = n - 1;
        for (;;) {
            do i++; while (less(c, w, i, 1));
            do j--; while (less(c, w, 1, j));
            if (i >= j) break;
            swap2(c, w, i, j);
        }
        swap2(c, w, 1, j);
        /* [0, j) <= pivot at j <= (j, n) */
        if (j < n - 1 - j) { sort2(c, w, j, depth); c += j + 1; w += j + 1; n -= j + 1; }
        else { sort2(c + j + 1, w + j + 1, n - j - 1, depth); n = j; }
    }
    for (int64_t i = 1; i < n; i++)
        for (int64_t k = i; k > 0 && less(c, w, k, k - 1); k--) swap2(c, w, k, k - 1);
}

static void sort_row(int32_t *c, double *w, int64_t n)
{
    int64_t i = 1;
    while (i < n && !less(c, w, i, i - 1)) i++;
    if (i >= n) return;   /* already in order: the usual case for sorted files */
    int depth = 0;
    for (int64_t k = n; k > 1; k >>= 1) depth += 2;
    sort2(c, w, n, depth);
}

/* The n junctions (tgt, src, w) grouped by target in place (a counting
 * sort), their rows' starts into rp (count + 1, zeroed). 0, or -1 with the
 * fault in err. */
static int group_by_target(int32_t *tgt, int32_t *src, double *w, int64_t n, int64_t count, int64_t *rp, char *err,
                           size_t errlen)
{
    int64_t *next = malloc((size_t)(count ? count : 1) * sizeof(int64_t));
    if (!next) {
        snprintf(err, errlen, "out of memory for the rows of %lld cells", (long long)count);
        return -1;
    }
    for (int64_t e = 0; e < n; e++) {
        if (tgt[e] < 0 || tgt[e] >= count || src[e] < 0 || src[e] >= count) {
            snprintf(err, errlen, "internal: junction %lld (%d <- %d) outside %lld cells", (long long)e, tgt[e],
                     src[e], (long long)count);
            free(next);
            return -1;
        }
        rp[tgt[e] + 1]++;
    }
    for (int64_t i = 0; i < count; i++) rp[i + 1] += rp[i];
    memcpy(next, rp, (size_t)count * sizeof(int64_t));
    /* In-place counting sort: next[b] is the first slot of row b not yet
     * holding one of its own junctions. */
    for (int64_t b = 0; b < count; b++)
        while (next[b] < rp[b + 1]) {
            int64_t e = next[b];
            int32_t t = tgt[e];
            if (t == b) { next[b]++; continue; }
            int64_t p = next[t]++;
            int32_t tt = tgt[p]; tgt[p] = tgt[e]; tgt[e] = tt;
            int32_t ts = src[p]; src[p] = src[e]; src[e] = ts;
            double tw = w[p]; w[p] = w[e]; w[e] = tw;
        }
    free(next);
    return 0;
}

/* Duplicates (equal sources in a row, adjacent once the rows are sorted)
 * refused, or merged (dup_sum) with their sum checked, the rows compacted;
 * returns the junctions left, or -1 with the fault in err and out. */
static int64_t merge_duplicates(int64_t *rp, int32_t *src, double *w, int64_t count, int dup_sum, gc_csr *out,
                                char *err, size_t errlen)
{
    int64_t k = 0, start = 0;
    for (int64_t i = 0; i < count; i++) {
        int64_t end = rp[i + 1];
        rp[i] = k;
        for (int64_t e = start; e < end; e++) {
            if (e > start && src[e] == src[e - 1]) {
                if (!dup_sum) {
                    out->dup_target = (int32_t)i;
                    out->dup_source = src[e];
                    snprintf(err, errlen, "duplicate junction into cell %lld from cell %d", (long long)i, src[e]);
                    return -1;
                }
                w[k - 1] += w[e];
                out->merged++;
                if (!isfinite(w[k - 1])) {
                    out->dup_target = (int32_t)i;
                    out->dup_source = src[e];
                    snprintf(err, errlen, "the conductances of the duplicate junctions into cell %lld from cell %d "
                             "add up to more than a double holds (the sum overflows)", (long long)i, src[e]);
                    return -1;
                }
                continue;
            }
            src[k] = src[e];
            w[k] = w[e];
            k++;
        }
        start = end;
    }
    rp[count] = k;
    return k;
}

int gc_edges_to_csr(gc_edge_list *l, int64_t count, int dup_sum, gc_csr *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->dup_target = out->dup_source = -1;
    const int64_t n = l->n;
    int32_t *tgt = l->tgt, *src = l->src;
    double *w = l->w;
    if (n == 0) {   /* no junctions: still real (empty) arrays, never NULL + 0 */
        free(tgt); free(src); free(w);
        tgt = malloc(sizeof *tgt);
        src = malloc(sizeof *src);
        w = malloc(sizeof *w);
    }
    l->tgt = l->src = NULL;
    l->w = NULL;
    gc_edge_list_free(l);
    int64_t *rp = calloc((size_t)count + 1, sizeof(int64_t));
    if (!rp || !tgt || !src || !w) {
        snprintf(err, errlen, "out of memory for the rows of %lld cells", (long long)count);
        goto fail;
    }
    if (group_by_target(tgt, src, w, n, count, rp, err, errlen) < 0) goto fail;
    free(tgt);
    tgt = NULL;
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t i = 0; i < count; i++) sort_row(src + rp[i], w + rp[i], rp[i + 1] - rp[i]);
    const int64_t k = merge_duplicates(rp, src, w, count, dup_sum, out, err, errlen);
    if (k < 0) goto fail;
    out->count = count;
    out->nnz = k;
    out->row_ptr = rp;
    out->col = src;
    out->w = w;
    if (k < n && k > 0) {   /* give back what merging freed */
        int32_t *c2 = realloc(src, (size_t)k * sizeof(int32_t));
        double *w2 = realloc(w, (size_t)k * sizeof(double));
        if (c2) out->col = c2;
        if (w2) out->w = w2;
    }
    return 0;
fail:
    free(rp);
    free(tgt);
    free(src);
    free(w);
    return -1;
}

void gc_csr_free(gc_csr *c)
{
    free(c->row_ptr);
    free(c->col);
    free(c->w);
    memset(c, 0, sizeof *c);
}
