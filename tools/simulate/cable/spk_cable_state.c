/* Checkpoint and restart of cable cells: each cell's whole state (every
 * node's v, m, h, n, its NMODL mechanisms' variables and ions, its synapses'
 * states, the weights its sites received for the next step, the spike
 * rule's memory) as one record of doubles, the records of all cells in
 * /state/cable_x in cell order, their lengths in /state/cable_len.
 *
 * A record holds what belongs to the cell whatever the rank count: a
 * block's synapse objects differ between ranks (one per (node, receptor)
 * that the rank's cells use), so a record carries the objects of its own
 * sites only, in its channels' order (the same on every rank); an object
 * no synapse of the cell reaches is at its initial state, as a restart's
 * set-up leaves it. The records sit beside the state's per-cell variables
 * and under its checksum (state_seal.c), and a restart on any rank count
 * continues the run bit for bit. */
#include "spk.h"
#include "spk_cable.h"
#include "h5util.h"
#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Walks the record of own cell c (row r of the rank) of block b: into buf
 * (put), or from it (!put), or only counts (buf NULL); its length. */
static int64_t cell_record(const struct spk_cable *e, const spk_cable_block *b, int64_t c, int64_t r, double *buf, int put)
{
    int64_t at = 0;
    const int64_t nb = b->n;
#define REC(x)                                 \
    do {                                       \
        if (buf && put) buf[at] = (x);         \
        else if (buf) (x) = buf[at];           \
        at++;                                  \
    } while (0)
    for (int i = 0; i < b->shape.n; i++) {
        REC(b->x.v[i * nb + c]);
        REC(b->x.m[i * nb + c]);
        REC(b->x.h[i * nb + c]);
        REC(b->x.n[i * nb + c]);
    }
    const olive_mech_set *ms = b->shape.mset;
    if (ms) {
        for (int k = 0; k < ms->nuse; k++) {   /* density mechanisms: every instance (the synapses' below) */
            const olive_mech_use *u = &ms->use[k];
            if (u->mfact) continue;
            const long len = (long)u->ninst * ms->lib->mech[u->m].nvar;
            for (long q = 0; q < len; q++) REC(b->x.mx[(u->x0 + q) * nb + c]);
        }
        const long nio = (long)ms->nnode * ms->nion * OLIVE_ION_NF;
        for (long q = 0; q < nio; q++) REC(b->x.ion[q * nb + c]);
    }
    for (int k = 0; k < 2 && k < b->shape.nsyn; k++) {   /* the soma's synapses of ge, gi (no site) */
        REC(b->x.syn_g[k * nb + c]);
        REC(b->x.syn_a[k * nb + c]);
    }
    for (int64_t q = e->sites.ptr ? e->sites.ptr[r] : 0; e->sites.ptr && q < e->sites.ptr[r + 1]; q++) {
        const int32_t o = e->sites.obj[q];
        if (o >= 0) {
            REC(b->x.syn_g[(int64_t)o * nb + c]);
            REC(b->x.syn_a[(int64_t)o * nb + c]);
        } else {   /* an NMODL synapse: its variables */
            const olive_mech_use *u = &ms->use[ms->pt[2 * (-1 - o)]];
            const int j = ms->pt[2 * (-1 - o) + 1];
            for (int v = 0; v < ms->lib->mech[u->m].nvar; v++) REC(b->x.mx[(u->x0 + (long)v * u->ninst + j) * nb + c]);
        }
        REC(e->sites.in[q]);
    }
    REC(e->vprev[r]);
    double ref = e->ref[r];
    REC(ref);
    if (buf && !put) e->ref[r] = (int32_t)ref;
#undef REC
    return at;
}

/* The own rows' record lengths into len; their sum. */
static int64_t record_lengths(const sim_t *s, int64_t *len)
{
    const struct spk_cable *e = s->spk->cable;
    int64_t sum = 0;
    for (int64_t r = 0; r < s->plan.nlocal; r++) {
        const spk_cable_block *b = spk_cable_block_of(s, r);
        len[r] = b ? cell_record(e, b, r - b->r0, r, NULL, 1) : 0;
        sum += len[r];
    }
    return sum;
}

uint64_t spk_cable_write_state(sim_t *s, const char *path, hid_t g, hid_t xfer)
{
    const struct spk_cable *e = s->spk->cable;
    const int64_t n = s->plan.nlocal;
    int64_t *len = olive_malloc((size_t)n * sizeof(int64_t) + 8, "cable state");
    const int64_t mine = record_lengths(s, len);
    int64_t off = 0, total = 0;
    SIM_CHECK_MPI(MPI_Exscan(&mine, &off, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    if (s->rank == 0) off = 0;   /* (MPI_Exscan leaves rank 0's undefined) */
    SIM_CHECK_MPI(MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
    double *x = olive_malloc((size_t)mine * sizeof(double) + 8, "cable state");
    for (int64_t r = 0, at = 0; r < n; at += len[r], r++) {
        const spk_cable_block *b = spk_cable_block_of(s, r);
        if (b) cell_record(e, b, r - b->r0, r, x + at, 1);
    }
    hid_t d = olive_h5_dset1(path, g, "cable_len", H5T_STD_I64LE, s->net.count, 0);
    olive_h5_write_slab1(path, d, H5T_NATIVE_INT64, s->plan.row0, n, len, xfer);
    olive_h5_close(path, d, "dataset /state/cable_len");
    d = olive_h5_dset1(path, g, "cable_x", H5T_IEEE_F64LE, total, 0);
    olive_h5_write_slab1(path, d, H5T_NATIVE_DOUBLE, off, mine, x, xfer);
    olive_h5_attr_str(path, d, "units", "1");
    olive_h5_close(path, d, "dataset /state/cable_x");
    const uint64_t part = sim_state_hash("state/cable_len", s->plan.row0, n, len, 8) +
                          sim_state_hash("state/cable_x", off, mine, x, 8);
    free(x);
    free(len);
    return part;
}

uint64_t spk_cable_restore(sim_t *s, const char *p, hid_t f)
{
    const struct spk_cable *e = s->spk->cable;
    const int64_t n = s->plan.nlocal, count = s->net.count;
    if (!olive_h5_exists(f, "state/cable_x") || !olive_h5_exists(f, "state/cable_len"))
        olive_die("%s: /state/cable_x or /state/cable_len is missing: a cable network restarts from a state that holds "
                  "its cells' compartments (olive-simulate writes them since 2026-12-03)", p);
    if (olive_h5_len1(p, f, "state/cable_len") != count)
        olive_die("%s: /state/cable_len does not have one value per cell (%lld)", p, (long long)count);
    int64_t *all = olive_malloc((size_t)count * sizeof(int64_t) + 8, "cable state");
    olive_h5_read_slab1(p, f, "state/cable_len", H5T_NATIVE_INT64, 0, count, all);
    int64_t off = 0, total = 0;
    for (int64_t i = 0; i < count; i++) {
        if (all[i] < 0) olive_die("%s: /state/cable_len of cell %lld is negative", p, (long long)i);
        if (i < s->plan.row0) off += all[i];
        total += all[i];
    }
    if (olive_h5_len1(p, f, "state/cable_x") != total)
        olive_die("%s: /state/cable_x holds %lld values, /state/cable_len says %lld", p,
                  (long long)olive_h5_len1(p, f, "state/cable_x"), (long long)total);
    int64_t *len = olive_malloc((size_t)n * sizeof(int64_t) + 8, "cable state");
    const int64_t mine = record_lengths(s, len);
    for (int64_t r = 0; r < n; r++)
        if (len[r] != all[s->plan.row0 + r])
            olive_die("%s: cell %lld's compartments and synapses take %lld values here, %lld in the state: the state "
                      "belongs to cells of another morphology, biophysics or synapse sites", p,
                      (long long)(s->plan.row0 + r), (long long)len[r], (long long)all[s->plan.row0 + r]);
    double *x = olive_malloc((size_t)mine * sizeof(double) + 8, "cable state");
    olive_h5_read_slab1(p, f, "state/cable_x", H5T_NATIVE_DOUBLE, off, mine, x);
    const uint64_t part = sim_state_hash("state/cable_len", s->plan.row0, n, len, 8) +
                          sim_state_hash("state/cable_x", off, mine, x, 8);
    for (int64_t q = 0; q < mine; q++)
        if (!isfinite(x[q])) olive_die("%s: /state/cable_x[%lld] is not finite (a damaged state)", p, (long long)(off + q));
    for (int64_t r = 0, at = 0; r < n; at += len[r], r++) {
        const spk_cable_block *b = spk_cable_block_of(s, r);
        if (b) cell_record(e, b, r - b->r0, r, x + at, 0);
    }
    free(x);
    free(len);
    free(all);
    return part;
}
