/* Synapse sites on cable cells (docs/FORMAT.md, site_section and
 * site_x). A synapse with a site acts on a point synapse at the node of
 * (section, x), as NEURON's h.ExpSyn(sec(x)) does. Synapses of one cell
 * onto one node and receptor share one synapse object (the sum is linear,
 * as several NetCons onto one ExpSyn), so a block's template gets one object
 * per (node, receptor) that its rows use. The rank's rows differ, so the set
 * differs between ranks, but the objects are added in (node, receptor)
 * order: a cell's objects keep one relative order everywhere, and an object
 * no synapse of a cell reaches stays at g = 0, adding exactly 0 to its node:
 * a cell's bits do not depend on the rank count.
 * Delivery: the synapse's event goes to a channel (row, object) of the
 * ring, beyond the rows (target nlocal + channel), and the next step adds
 * the channel's sum to its object (spk_cable_cell_step). */
#include "spk.h"
#include "spk_cable.h"
#include "util.h"
#include <stdlib.h>

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Sort a[0..n) and drop repeats; returns the count left. */
static int64_t sort_unique(int64_t *a, int64_t n)
{
    if (n <= 1) return n;
    qsort(a, (size_t)n, sizeof *a, cmp_i64);
    int64_t m = 1;
    for (int64_t i = 1; i < n; i++)
        if (a[i] != a[m - 1]) a[m++] = a[i];
    return m;
}

/* The (node, receptor) key of held synapse e of projection p into row r
 * (a cell of block b, population pop); dies naming a site the cell lacks. */
static int64_t site_key(const sim_t *s, const spk_cable_block *b, const olive_population *pop, const olive_projection *p,
                        int rec, int64_t r, int64_t e)
{
    const int node = olive_cable_site_node(&b->t, p->site_sec[e], p->site_x[e]);
    if (node < 0)
        olive_die("%s: /synapses/%s: site_section: synapse %lld sits on section %d of cell %lld (population %s), "
                  "which has %d sections", s->cfg->run.net_path, p->name, (long long)(p->e0 + e), (int)p->site_sec[e],
                  (long long)(s->plan.row0 + r), pop->name, b->t.nsec);
    return (int64_t)node * 2 + rec;
}

/* The index of v in the sorted a[0..n) (present). */
static int64_t find_sorted(const int64_t *a, int64_t n, int64_t v)
{
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (a[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

void spk_sites_setup(sim_t *s, const olive_synapses *syn, const olive_population *const *pop)
{
    struct spk_cable *e = s->spk->cable;
    const sim_config *c = s->cfg;
    const int64_t n = s->plan.nlocal;
    int any = 0, rec[OLIVE_MAX_POPS];
    for (int j = 0; j < syn->n; j++) {
        any |= syn->proj[j].site_sec != NULL;
        rec[j] = olive_model_receptor(c->run.model, syn->proj[j].receptor);
        if (rec[j] < 0)
            olive_die("%s: /synapses/%s: model %s has no receptor '%s' (it has ge, gi)", c->run.net_path, syn->proj[j].name,
                      c->run.model->name, syn->proj[j].receptor);
    }
    if (!any) return;
    int64_t *ptr = olive_calloc((size_t)n + 1, sizeof(int64_t), "synapse sites");
    int32_t *obj = NULL;
    e->chan = olive_calloc((size_t)syn->n, sizeof(int32_t *), "synapse sites");
    e->nchan_proj = syn->n;
    for (int j = 0; j < syn->n; j++)
        if (syn->proj[j].site_sec) e->chan[j] = olive_malloc((size_t)syn->proj[j].nnz * sizeof(int32_t) + 4, "synapse sites");
    int64_t nchan = 0;
    for (int i = 0; i < e->nblocks; i++) {
        spk_cable_block *b = &e->b[i];
        const int64_t r0 = b->r0, r1 = b->r0 + b->n;
        /* the block's (node, receptor) keys, sorted: its new synapse objects */
        int64_t nk = 0, cap = 0;
        for (int j = 0; j < syn->n; j++)
            if (syn->proj[j].site_sec) cap += syn->proj[j].row_ptr[r1] - syn->proj[j].row_ptr[r0];
        if (cap == 0) continue;
        if (b->t.nsec == 0)
            olive_die("%s: population %s: synapses with sites (site_section, site_x) target it, but a %s cell has "
                      "no sections (sites need hh_cable or hh_swc)", c->run.net_path, pop[i]->name, c->run.model->name);
        int64_t *keys = olive_malloc((size_t)cap * sizeof(int64_t), "synapse sites");
        for (int j = 0; j < syn->n; j++) {
            const olive_projection *p = &syn->proj[j];
            if (!p->site_sec) continue;
            for (int64_t r = r0; r < r1; r++)
                for (int64_t x = p->row_ptr[r]; x < p->row_ptr[r + 1]; x++) keys[nk++] = site_key(s, b, pop[i], p, rec[j], r, x);
        }
        nk = sort_unique(keys, nk);
        if (nk > INT32_MAX - b->t.cell.nsyn)
            olive_die("%s: population %s: %lld synapse sites: too many", c->run.net_path, pop[i]->name, (long long)nk);
        /* key q's object: olive's synapse (>= 0) or an NMODL point instance (< 0) */
        int32_t *oid = olive_malloc((size_t)nk * sizeof(int32_t) + 4, "synapse sites");
        for (int64_t q = 0; q < nk; q++) oid[q] = olive_cable_add_site_syn(&b->t, (int)(keys[q] / 2), (int)(keys[q] % 2));
        /* per row: the objects it uses (as key indices), sorted: its channels */
        int64_t *mine = olive_malloc((size_t)cap * sizeof(int64_t), "synapse sites");
        for (int64_t r = r0; r < r1; r++) {
            int64_t m = 0;
            for (int j = 0; j < syn->n; j++) {
                const olive_projection *p = &syn->proj[j];
                if (!p->site_sec) continue;
                for (int64_t x = p->row_ptr[r]; x < p->row_ptr[r + 1]; x++)
                    mine[m++] = find_sorted(keys, nk, site_key(s, b, pop[i], p, rec[j], r, x));
            }
            m = sort_unique(mine, m);
            if (nchan + m > INT32_MAX - n) olive_die("%s: more than 2^31 synapse sites on rank %d", c->run.net_path, s->rank);
            obj = olive_realloc(obj, (size_t)(nchan + m) * sizeof(int32_t) + 4, "synapse sites");
            for (int64_t q = 0; q < m; q++) obj[nchan + q] = oid[mine[q]];
            ptr[r + 1] = m;   /* a count: summed below (rows ascend, so channels are numbered in row order) */
            for (int j = 0; j < syn->n; j++) {
                const olive_projection *p = &syn->proj[j];
                if (!p->site_sec) continue;
                for (int64_t x = p->row_ptr[r]; x < p->row_ptr[r + 1]; x++) {
                    const int64_t o = find_sorted(keys, nk, site_key(s, b, pop[i], p, rec[j], r, x));
                    e->chan[j][x] = (int32_t)(nchan + find_sorted(mine, m, o));
                }
            }
            nchan += m;
        }
        free(mine);
        free(oid);
        free(keys);
    }
    for (int64_t r = 0; r < n; r++) ptr[r + 1] += ptr[r];
    e->nsite = nchan;
    s->spk->sites.n = nchan;      /* the core's view of the sites (spk.h) */
    s->spk->sites.chan = e->chan;
    e->sites = (spk_cable_sites){ptr, obj ? obj : olive_malloc(4, "synapse sites"),
                                 olive_calloc((size_t)nchan + 1, sizeof(double), "synapse sites")};
    s->spk->sites.in = e->sites.in;
    int64_t *row = olive_malloc((size_t)nchan * sizeof(int64_t) + 8, "synapse sites");
    for (int64_t r = 0; r < n; r++)
        for (int64_t k = ptr[r]; k < ptr[r + 1]; k++) row[k] = r;
    e->chan_row = row;
    s->spk->sites.row = row;
}

void spk_sites_free(struct spk_cable *e)
{
    free((void *)e->sites.ptr);
    free((void *)e->sites.obj);
    free(e->sites.in);
    free(e->chan_row);
    e->chan_row = NULL;
    e->sites = (spk_cable_sites){NULL, NULL, NULL};
    spk_sites_chan_free(NULL, e);
}

void spk_sites_chan_free(sim_t *s, struct spk_cable *e)
{
    for (int j = 0; e->chan && j < e->nchan_proj; j++) free(e->chan[j]);
    free(e->chan);
    e->chan = NULL;
    if (s) s->spk->sites.chan = NULL;
}
