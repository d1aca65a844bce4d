/* Writing a SONATA spike file (the layout olive-simulate writes, docs/FORMAT.md)
 * under a temporary name, renamed when complete. */
#include "analyze.h"
#include "h5util.h"
#include "util.h"

void ana_spikes_write(const char *path, int force, const char *population, const ana_spike_list *l,
                      hid_t attrs_from, const char *source, double threshold_mv)
{
    const char *outs[1] = {path}, *ins[1] = {source};
    olive_check_outputs(outs, 1, ins, 1);
    const char *tmp = olive_atomic_begin(path, force);
    hid_t f = olive_h5_create(tmp);
    char grp[300];
    ana_fmt(grp, sizeof grp, "spikes/%s", population);
    hid_t g = olive_h5_group(path, f, grp);
    olive_sonata_sorting_write(path, g, OLIVE_SORTING_BY_TIME);
    int64_t chunk = l->n > 0 ? (l->n < 65536 ? l->n : 65536) : 0;
    hid_t d = olive_h5_dset1(path, g, "timestamps", H5T_IEEE_F64LE, l->n, chunk);
    olive_h5_write_slab1(path, d, H5T_NATIVE_DOUBLE, 0, l->n, l->t, H5P_DEFAULT);
    olive_h5_attr_str(path, d, "units", "ms");
    olive_h5_close(path, d, "dataset timestamps");
    d = olive_h5_dset1(path, g, "node_ids", H5T_STD_U64LE, l->n, chunk);
    olive_h5_write_slab1(path, d, H5T_NATIVE_UINT64, 0, l->n, l->node, H5P_DEFAULT);
    olive_h5_close(path, d, "dataset node_ids");
    olive_h5_close(path, g, "the spikes group");
    olive_h5_attr_str(path, f, "olive_version", OLIVE_VERSION);
    olive_h5_attr_str(path, f, "command", olive_cmdline());
    olive_h5_attr_str(path, f, "source", source);
    olive_h5_attr_f64(path, f, "threshold_mv", threshold_mv);
    olive_h5_attr_i64(path, f, "spike_count", l->n);
    if (attrs_from >= 0) {
        if (olive_h5_has_attr(attrs_from, "cells"))
            olive_h5_attr_i64(path, f, "cells", olive_h5_get_i64(source, attrs_from, "/", "cells"));
        if (olive_h5_has_attr(attrs_from, "steps") && olive_h5_has_attr(attrs_from, "dt")) {
            olive_h5_attr_i64(path, f, "steps", olive_h5_get_i64(source, attrs_from, "/", "steps"));
            olive_h5_attr_f64(path, f, "dt", olive_h5_get_f64(source, attrs_from, "/", "dt"));
        }
    }
    olive_h5_close_file(path, f);
    olive_atomic_commit(tmp);
}
