/* spikes.h5's columns (tools/simulate/output/spike_split.c) against a plain
 * reference: every spike of a cell in a population, sorted by (step, cell)
 * with qsort, then listed population by population. Inputs in the orders
 * the engines give (steps rising with cells in any order within a step, as
 * the CUDA engine's atomics leave them; several sorted lists one after
 * another, as threads and ranks give them), a run of few spikes over many
 * steps, cells outside every population (before, between, after), a
 * population with hundreds of spikes a step, no spikes; on 1, 2 and 3
 * threads. tests/test_spike_columns.sh checks the files the programs write. */
#include "../../tools/simulate/output/spike_split.c"
#include <omp.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(c, ...) do { if (!(c)) { printf("FAIL: " __VA_ARGS__); printf("\n"); failures++; } } while (0)

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_u64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* populations [10, 110), [110, 111), [200, 5200) (cells 111-199 in none), [5200, 5300) */
static sim_outpop pops[4];
static const int npops = 4;

static int cmp_ref(const void *a, const void *b)
{
    const sim_spike *x = a, *y = b;
    if (x->step != y->step) return x->step < y->step ? -1 : 1;
    return (x->cell > y->cell) - (x->cell < y->cell);
}

/* sp[0..n) against the reference, on each thread count */
static void check(const char *what, const sim_spike *sp, int64_t n)
{
    sim_spike *ref = malloc((size_t)n * sizeof *ref + 8);
    memcpy(ref, sp, (size_t)n * sizeof *ref);
    qsort(ref, (size_t)n, sizeof *ref, cmp_ref);
    for (int threads = 1; threads <= 3; threads++) {
        omp_set_num_threads(threads);
        sim_spike *in = malloc((size_t)n * sizeof *in + 8);
        memcpy(in, sp, (size_t)n * sizeof *in);
        sim_spike_columns c;
        sim_spike_columns_make(pops, npops, in, n, &c);   /* (takes in) */
        int64_t bad = 0, k = 0;
        for (int p = 0; p < npops; p++) {
            int64_t at = c.off[p];
            for (int64_t i = 0; i < n; i++) {
                const int64_t cell = ref[i].cell;
                if (cell < pops[p].first || cell >= pops[p].first + pops[p].count) continue;
                if (at >= c.off[p + 1] || c.step[at] != ref[i].step || c.id[at] != (uint64_t)(cell - pops[p].first)) bad++;
                at++;
                k++;
            }
            if (at != c.off[p + 1]) bad++;
        }
        CHECK(bad == 0 && c.off[npops] == k, "%s, %d thread(s): %lld spikes differ from the reference (%lld listed, %lld kept)",
              what, threads, (long long)bad, (long long)c.off[npops], (long long)k);
        if (threads == 1) printf("%s: %lld spikes, %lld in populations, as the reference on 1-3 threads\n", what, (long long)n,
                                 (long long)k);
        sim_spike_columns_free(&c);
    }
    free(ref);
}

int main(void)
{
    const int64_t firsts[4] = {10, 110, 200, 5200}, counts[4] = {100, 1, 5000, 100};
    for (int p = 0; p < npops; p++) {
        snprintf(pops[p].name, sizeof pops[p].name, "p%d", p);
        pops[p].first = firsts[p];
        pops[p].count = counts[p];
    }
    const int64_t n = 400000;
    sim_spike *sp = malloc((size_t)n * sizeof *sp);

    /* steps rising, cells in any order within a step (the CUDA engine);
     * cells 0-5399, so some fall before, between and after the populations;
     * ~500 spikes a step in population p2 */
    for (int64_t i = 0; i < n; i++) sp[i] = (sim_spike){i / 600, (int64_t)(next_u64() % 5400)};
    check("steps rising, cells unordered", sp, n);

    /* three lists one after another, each in (step, cell) order (threads or
     * ranks): a counting sort over the steps */
    for (int64_t i = 0; i < n; i++) sp[i] = (sim_spike){(int64_t)(next_u64() % 3000), (int64_t)(next_u64() % 5400)};
    for (int part = 0; part < 3; part++)
        qsort(sp + n * part / 3, (size_t)(n * (part + 1) / 3 - n * part / 3), sizeof *sp, cmp_ref);
    check("three sorted lists", sp, n);

    /* every order at once, and repeated (step, cell) pairs */
    for (int64_t i = 0; i < n; i++) sp[i] = (sim_spike){(int64_t)(next_u64() % 50), (int64_t)(next_u64() % 300)};
    check("random, repeated pairs", sp, n);

    /* few spikes over more steps than spikes beyond 2^20: a comparison sort */
    for (int64_t i = 0; i < 5000; i++) sp[i] = (sim_spike){(int64_t)(next_u64() % 40000000), (int64_t)(next_u64() % 5400)};
    check("sparse steps", sp, 5000);

    /* a first step far from 0, in order */
    for (int64_t i = 0; i < 1000; i++) sp[i] = (sim_spike){INT64_C(1) << 40 | (i / 10), 10 + i % 100};
    check("late steps", sp, 1000);

    check("no spikes", sp, 0);
    free(sp);
    if (failures) return 1;
    printf("test_spike_columns: all passed\n");
    return 0;
}
