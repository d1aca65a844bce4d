/* The state file of an InfOli --restart (spiking networks: spk_restart.c):
 * its header checked against the run before any work, then this rank's
 * cells loaded once the network is read (checked against the network's
 * structure and content). */
#include "sim.h"
#include "h5util.h"
#include "model.h"
#include "netcontent.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *gj_name(int gj) { return gj == OLIVE_GJ_RGJ ? "rgj" : gj == OLIVE_GJ_SGJ ? "sgj" : "ngj"; }

void sim_restart_check_header(const sim_config *cfg, int64_t count)
{
    sim_config *c = (sim_config *)cfg;
    const char *p = cfg->run.restart_path;
    hid_t g;
    hid_t f = sim_state_open(p, &g);
    int64_t step = olive_h5_get_i64(p, g, "/state", "step");
    char prec[32] = "", gj[32] = "";
    if (!olive_h5_get_str_opt(p, g, "precision", prec, sizeof prec))
        olive_die("%s: /state attribute 'precision' is missing", p);
    if (!olive_h5_get_str_opt(p, f, "gj", gj, sizeof gj)) olive_die("%s: root attribute 'gj' is missing", p);
    int64_t cells = olive_h5_get_i64(p, f, "/", "cells");
    (void)olive_h5_get_i64(p, f, "/", "network_crc"); /* checked against the network once it is read */
    if (step < 0) olive_die("%s: /state step = %lld is negative", p, (long long)step);
    if (cells != count)
        olive_die("%s: the state has %lld cells, the network %s has %lld (another network)", p, (long long)cells,
                  cfg->run.net_path, (long long)count);
    if (strcmp(prec, "double") && strcmp(prec, "single"))
        olive_die("%s: /state precision '%s' is not double or single", p, prec);
    if (strcmp(prec, cfg->run.single ? "single" : "double"))
        olive_die("%s: the state is in %s precision, this run in %s (--precision %s continues it)", p, prec,
                  cfg->run.single ? "single" : "double", prec);
    if (strcmp(gj, gj_name(cfg->infoli.gj)))
        olive_die("%s: the state was computed with --gj %s, this run has --gj %s (continuing would not be the same run)",
                  p, gj, gj_name(cfg->infoli.gj));
    size_t want = cfg->run.single ? 4 : 8;
    for (int v = 0; v < OLIVE_NVARS; v++) {
        char name[64];
        snprintf(name, sizeof name, "state/%s", olive_var_names[v]);
        if (!olive_h5_exists(f, name)) olive_die("%s: dataset /%s is missing", p, name);
        int64_t n = olive_h5_len1(p, f, name);
        if (n != count) olive_die("%s: /%s has %lld values for %lld cells", p, name, (long long)n, (long long)count);
        H5T_class_t cls;
        size_t sz;
        olive_h5_dtype_info(p, f, name, &cls, &sz);
        if (cls != H5T_FLOAT || sz != want)
            olive_die("%s: /%s is not float%d (the state's precision is %s)", p, name, (int)(8 * want), prec);
    }
    if (olive_h5_exists(f, "state/i_noise")) {
        int64_t n = olive_h5_len1(p, f, "state/i_noise");
        H5T_class_t cls;
        size_t sz;
        olive_h5_dtype_info(p, f, "state/i_noise", &cls, &sz);
        if (n != count || cls != H5T_FLOAT || sz != want)
            olive_die("%s: /state/i_noise is not %lld float%d values", p, (long long)count, (int)(8 * want));
        if (!cfg->infoli.noise_on)
            olive_warn("%s: the state carries a noise current, and this run has no --noise: the noise stops here", p);
    } else if (cfg->infoli.noise_on) {
        olive_info("%s: the state has no noise current; the noise starts at step %lld", p, (long long)step);
    }
    if (step >= cfg->run.steps)
        olive_usage_error("%s: the state is at step %lld (t = %g ms) but the run ends at step %lld: --steps/--time "
                          "give the end of the whole run, which must come after the state",
                          p, (long long)step, (double)step * OLIVE_DT, (long long)cfg->run.steps);
    H5Gclose(g);
    H5Fclose(f);
    c->run.start_step = step;
}

void sim_restart_load(sim_t *s)
{
    const sim_config *cfg = s->cfg;
    const char *p = cfg->run.restart_path;
    hid_t f = olive_h5_open_read(p);
    int64_t crc = olive_h5_get_i64(p, f, "/", "network_crc");
    if (crc != (int64_t)s->net_crc)
        olive_die("%s: the state belongs to another network (structure checksum %08llx, %s has %08x)", p,
                  (unsigned long long)crc, cfg->run.net_path, s->net_crc);
    /* The structure alone is not the run: other conductances or g_CaL
     * continue another network (state files before 0.2 lack the hash; their
     * g_CaL is still checked below). */
    if (olive_h5_has_attr(f, "network_content_hash")) {
        int64_t h = olive_h5_get_i64(p, f, "/", "network_content_hash");
        if (h != (int64_t)s->net_content)
            olive_die("%s: the state belongs to a network with other conductances or g_CaL than %s (content hash "
                      "%016llx, the network's %016llx); a restart must use the network the state was computed on",
                      p, cfg->run.net_path, (unsigned long long)h, (unsigned long long)s->net_content);
    }
    int64_t n = s->plan.nlocal, bad = -1;
    const size_t el = cfg->run.single ? 4 : 8;
    uint64_t part = 0;   /* this rank's rows of the datasets, for the checksum */
    for (int v = 0; v < OLIVE_NVARS; v++) {
        char name[64];
        snprintf(name, sizeof name, "state/%s", olive_var_names[v]);
        olive_h5_read_slab1(p, f, name, cfg->run.single ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE, s->plan.row0, n, s->state[v]);
        part += sim_state_hash(name, s->plan.row0, n, s->state[v], el);
        for (int64_t i = 0; i < n && bad < 0; i++) {
            double x = cfg->run.single ? (double)((float *)s->state[v])[i] : ((double *)s->state[v])[i];
            if (!isfinite(x)) bad = (int64_t)v << 40 | (s->plan.row0 + i);
        }
    }
    /* The noise current goes on from the state's (same seed: the same draws
     * as the unbroken run); read without --noise too, for the checksum. */
    if (olive_h5_exists(f, "state/i_noise")) {
        void *nz = s->io.nz.on ? s->io.noise : olive_malloc((size_t)n * el + 8, "noise current");
        olive_h5_read_slab1(p, f, "state/i_noise", cfg->run.single ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE, s->plan.row0, n, nz);
        part += sim_state_hash("state/i_noise", s->plan.row0, n, nz, el);
        for (int64_t i = 0; i < n && bad < 0 && s->io.nz.on; i++) {
            double x = cfg->run.single ? (double)((float *)nz)[i] : ((double *)nz)[i];
            if (!isfinite(x)) bad = (int64_t)OLIVE_NVARS << 40 | (s->plan.row0 + i);
        }
        if (nz != s->io.noise) free(nz);
    }
    /* g_CaL is a state variable but a property of the network: the state's
     * must be the network's (in the run's precision), never silently kept. */
    for (int64_t i = 0; i < n && bad < 0; i++) {
        double want = s->net.g_cal ? s->net.g_cal[i] : olive_var_initial[OV_G_CAL];
        double have = cfg->run.single ? (double)((float *)s->state[OV_G_CAL])[i] : ((double *)s->state[OV_G_CAL])[i];
        if (cfg->run.single ? (float)want != (float)have : want != have) bad = INT64_C(1) << 62 | (s->plan.row0 + i);
    }
    int64_t first = bad < 0 ? INT64_MAX : bad, all;
    SIM_CHECK_MPI(MPI_Allreduce(&first, &all, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD));
    if (all != INT64_MAX) {
        if (all == first && (all >> 62))
            olive_die("%s: the state's g_CaL of cell %lld differs from the network's in %s; a restart must use the "
                      "network the state was computed on", p, (long long)(all & ((INT64_C(1) << 40) - 1)), cfg->run.net_path);
        if (all == first)
            olive_die("%s: /state/%s of cell %lld is not finite (a damaged state)", p,
                      (all >> 40) == OLIVE_NVARS ? "i_noise" : olive_var_names[all >> 40],
                      (long long)(all & ((INT64_C(1) << 40) - 1)));
        MPI_Barrier(MPI_COMM_WORLD); /* the rank holding the cell reports and aborts */
        exit(1);
    }
    /* Last, so that the checks above name what they find in a changed file. */
    sim_state_verify(s, p, f, part);
    H5Fclose(f);
}

