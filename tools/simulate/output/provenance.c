/* What every output file of a run carries (the reports, the element
 * reports, spikes, state): the provenance attributes and a report's time
 * axis. Its own file so that output.c and output_elements.c both call it
 * and not each other. */
#include "sim.h"
#include "h5util.h"
#include "lif.h"
#include "model.h"
#include "model_plugin.h"
#include "util.h"
#include <stdio.h>

void sim_report_time(sim_t *s, const char *path, hid_t loc, const char *pop, int64_t frames, int64_t every, int create,
                     hid_t xfer)
{
    const sim_config *c = s->cfg;
    const double step_ms = (double)every * c->run.dt;
    const double start_ms = (double)(c->run.start_step / every + 1) * step_ms;
    double tm[3] = {start_ms, start_ms + (double)frames * step_ms, step_ms};
    hid_t d_t;
    if (create) {
        d_t = olive_h5_dset1(path, loc, "time", H5T_IEEE_F64LE, 3, 0);
        olive_h5_attr_str(path, d_t, "units", "ms");
    } else {
        char tname[160];
        snprintf(tname, sizeof tname, "report/%s/mapping/time", pop);
        d_t = H5Dopen2(loc, tname, H5P_DEFAULT);
        if (d_t < 0) olive_die("%s: cannot open /%s", path, tname);
    }
    olive_h5_write_slab1(path, d_t, H5T_NATIVE_DOUBLE, 0, s->rank == 0 ? 3 : 0, tm, xfer);
    olive_h5_close(path, d_t, "mapping/time");
}

void sim_write_provenance(sim_t *s, int64_t hid, const char *file)
{
    sim_config *c = s->cfg;
    olive_h5_attr_str(file, hid, "olive_version", OLIVE_VERSION);
    olive_h5_attr_str(file, hid, "command", olive_cmdline());
    olive_h5_attr_str(file, hid, "network", c->run.net_path);
    olive_h5_attr_i64(file, hid, "network_crc", s->net_crc);
    olive_h5_attr_i64(file, hid, "network_content_hash", (int64_t)s->net_content);
    olive_h5_attr_str(file, hid, "map", c->run.map_path ? c->run.map_path : "");
    olive_h5_attr_i64(file, hid, "world_size", s->size);
    olive_h5_attr_str(file, hid, "backend", s->engine->name);
    olive_h5_attr_str(file, hid, "precision", c->run.single ? "single" : "double");
    olive_h5_attr_str(file, hid, "gj", c->run.model != &olive_model_infoli ? "" :
                      c->infoli.gj == OLIVE_GJ_RGJ ? "rgj" : c->infoli.gj == OLIVE_GJ_SGJ ? "sgj" : "ngj");
    olive_h5_attr_f64(file, hid, "dt", s->cfg->run.dt);
    olive_h5_attr_str(file, hid, "model", c->run.model->name);
    olive_h5_attr_str(file, hid, "method", sim_method_name(c));
    const olive_model_plugin *pl = olive_plugin_of(c->run.model);
    olive_h5_attr_str(file, hid, "model_hash", pl ? pl->hash : "");
    /* This output covers steps [start_step, end_step): steps = their number. */
    olive_h5_attr_i64(file, hid, "steps", s->end_step - c->run.start_step);
    olive_h5_attr_i64(file, hid, "start_step", c->run.start_step);
    olive_h5_attr_i64(file, hid, "end_step", s->end_step);
    olive_h5_attr_str(file, hid, "restart", c->run.restart_path ? c->run.restart_path : "");
    olive_h5_attr_str(file, hid, "param_overrides", c->run.param_overrides ? c->run.param_overrides : "");
    olive_h5_attr_i64(file, hid, "cells", s->net.count);
    char noise[128] = "";
    const sim_infoli_config *io = &c->infoli;
    if (io->noise_on) snprintf(noise, sizeof noise, "%.17g,%.17g,%.17g", io->noise_mean, io->noise_sigma, io->noise_tau);
    olive_h5_attr_str(file, hid, "noise", noise);
    char init[96] = "";
    if (io->init_random) snprintf(init, sizeof init, "%.17g:%.17g", io->init_lo, io->init_hi);
    olive_h5_attr_str(file, hid, "init_voltage", init);
    olive_h5_attr_i64(file, hid, "seed", (int64_t)c->run.seed);
    olive_h5_attr_i64(file, hid, "threads", s->nthreads);
    olive_h5_attr_f64(file, hid, "time_dispersal_s", s->t.dispersal);
    olive_h5_attr_f64(file, hid, "time_setup_s", s->t.setup);
    olive_h5_attr_f64(file, hid, "time_exchange_s", s->t.exchange);
    olive_h5_attr_f64(file, hid, "time_compute_s", s->t.compute);
    olive_h5_attr_f64(file, hid, "time_io_s", s->t.io);
    olive_h5_attr_f64(file, hid, "time_total_s", s->t.total);
    if (s->t.energy_j >= 0) {
        olive_h5_attr_f64(file, hid, "energy_j", s->t.energy_j);
        olive_h5_attr_f64(file, hid, "energy_j_per_cell_step",
                          s->t.energy_j / ((double)s->net.count * (double)(s->end_step - c->run.start_step)));
    }
}
