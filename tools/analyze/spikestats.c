/* Passes over a spike file in chunks (bounded memory for any file size):
 * counts, time range, largest node id, the first spikes, distinct cells and
 * a time histogram. */
#include "analyze.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* (t, n) before (t2, n2) in time order, ties by node id. */
static int before(double t, uint64_t n, double t2, uint64_t n2) { return t < t2 || (t == t2 && n < n2); }

/* Keep the k earliest spikes in sc->first_* (sorted), insertion style: cheap
 * for time-sorted input, where every later spike is rejected at once. */
static void keep_first(ana_spike_scan *sc, int k, double t, uint64_t n)
{
    if (k == 0) return;
    if (sc->nfirst == k && !before(t, n, sc->first_t[k - 1], sc->first_node[k - 1])) return;
    int i = sc->nfirst < k ? sc->nfirst++ : k - 1;
    while (i > 0 && before(t, n, sc->first_t[i - 1], sc->first_node[i - 1])) {
        sc->first_t[i] = sc->first_t[i - 1];
        sc->first_node[i] = sc->first_node[i - 1];
        i--;
    }
    sc->first_t[i] = t;
    sc->first_node[i] = n;
}

void ana_spikes_scan(const ana_spikes *s, int want_first, ana_spike_scan *sc)
{
    memset(sc, 0, sizeof *sc);
    sc->max_node = -1;
    sc->first_t = olive_malloc((size_t)want_first * sizeof(double), "first spikes");
    sc->first_node = olive_malloc((size_t)want_first * sizeof(uint64_t), "first spikes");
    int64_t chunk = s->n < ANA_SPIKE_CHUNK ? s->n : ANA_SPIKE_CHUNK;
    double *t = olive_malloc((size_t)chunk * sizeof(double), "spike times");
    uint64_t *id = olive_malloc((size_t)chunk * sizeof(uint64_t), "node ids");
    for (int64_t off = 0; off < s->n; off += chunk) {
        int64_t n = s->n - off < chunk ? s->n - off : chunk;
        ana_spikes_read(s, off, n, t, id);
        for (int64_t i = 0; i < n; i++) {
            if (id[i] > (uint64_t)INT64_MAX / 2)
                ana_error("%s: %s[%lld] = %llu is not a plausible node id", s->path, s->ids.name,
                          (long long)(off + i), (unsigned long long)id[i]);
            if (sc->count == 0 || t[i] < sc->t_min) sc->t_min = t[i];
            if (sc->count == 0 || t[i] > sc->t_max) sc->t_max = t[i];
            if ((int64_t)id[i] > sc->max_node) sc->max_node = (int64_t)id[i];
            sc->count++;
            keep_first(sc, want_first, t[i], id[i]);
        }
    }
    free(t);
    free(id);
}

void ana_spike_scan_free(ana_spike_scan *sc)
{
    free(sc->first_t);
    free(sc->first_node);
    memset(sc, 0, sizeof *sc);
}

double ana_bin_edge(double duration_ms, int nbins, int b)
{
    return b >= nbins ? duration_ms : duration_ms * b / nbins;
}

int64_t ana_spikes_bin(const ana_spikes *s, int64_t cells, double duration_ms, int nbins, int64_t *bins,
                       int64_t *outside)
{
    /* One bit per cell. */
    if (cells > ((int64_t)1 << 36)) ana_error("%s: %lld cells is too many to count", s->path, (long long)cells);
    uint8_t *seen = olive_calloc((size_t)(cells + 7) / 8, 1, "spiking-cell bitmap");
    int64_t distinct = 0;
    for (int b = 0; b < nbins; b++) bins[b] = 0;
    *outside = 0;
    int64_t chunk = s->n < ANA_SPIKE_CHUNK ? s->n : ANA_SPIKE_CHUNK;
    double *t = olive_malloc((size_t)chunk * sizeof(double), "spike times");
    uint64_t *id = olive_malloc((size_t)chunk * sizeof(uint64_t), "node ids");
    for (int64_t off = 0; off < s->n; off += chunk) {
        int64_t n = s->n - off < chunk ? s->n - off : chunk;
        ana_spikes_read(s, off, n, t, id);
        for (int64_t i = 0; i < n; i++) {
            if (id[i] >= (uint64_t)cells)
                ana_error("%s: %s[%lld] = %llu is not a cell of a %lld-cell run", s->path, s->ids.name,
                          (long long)(off + i), (unsigned long long)id[i], (long long)cells);
            uint8_t bit = (uint8_t)(1u << (id[i] & 7));
            if (!(seen[id[i] >> 3] & bit)) { seen[id[i] >> 3] |= bit; distinct++; }
            if (nbins <= 0) continue;
            if (t[i] < 0 || t[i] > duration_ms || !(duration_ms > 0)) { (*outside)++; continue; }
            int b = (int)floor(t[i] * nbins / duration_ms);
            if (b >= nbins) b = nbins - 1;
            /* Agree with the printed edges whatever the rounding above. */
            while (b > 0 && t[i] < ana_bin_edge(duration_ms, nbins, b)) b--;
            while (b < nbins - 1 && t[i] >= ana_bin_edge(duration_ms, nbins, b + 1)) b++;
            bins[b]++;
        }
    }
    free(t);
    free(id);
    free(seen);
    return distinct;
}
