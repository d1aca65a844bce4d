/* The seal of a state file (state.h5): a checksum over its datasets and
 * the attributes a restart reads, written with the state (output.c,
 * spk_restart.c) and checked before a restart uses it (infoli/restart.c,
 * spk_restart.c). Below the engines and the output: it knows the file's
 * layout, not who writes it. */
#include "sim.h"
#include "h5util.h"
#include "netcontent.h"
#include "util.h"

/* The attributes a restart reads (here and in spk_restart.c), sealed by the
 * checksum as (present, value): a flipped step, dt or hash is another run. */
static const struct { int in_state; const char *name; char kind; } sealed_attrs[] = {
    {0, "cells", 'i'}, {0, "network_crc", 'i'}, {0, "network_content_hash", 'i'}, {0, "gj", 's'},
    {0, "model", 's'}, {0, "method", 's'}, {0, "dt", 'f'}, {1, "step", 'i'}, {1, "precision", 's'},
    {1, "synapses", 'i'}, {1, "synapse_hash", 'i'}, {1, "max_delay_steps", 'i'}};

uint64_t sim_state_hash(const char *name, int64_t first, int64_t n, const void *data, size_t el)
{
    return olive_hash_values(olive_hash_name(name), first, n, data, el);
}

/* The checksum of a file whose datasets sum to sum: 63 bits (an int64 attribute). */
static int64_t state_checksum(const char *path, hid_t f, uint64_t sum)
{
    hid_t g = H5Gopen2(f, "state", H5P_DEFAULT);
    if (g < 0) olive_die("%s: /state is not a group", path);
    uint64_t h = olive_mix64(sum);
    for (size_t a = 0; a < sizeof sealed_attrs / sizeof *sealed_attrs; a++) {
        hid_t obj = sealed_attrs[a].in_state ? g : f;
        const char *name = sealed_attrs[a].name;
        uint64_t v = 0, present = (uint64_t)olive_h5_has_attr(obj, name);
        char str[256] = "";
        if (present && sealed_attrs[a].kind == 'i') v = (uint64_t)olive_h5_get_i64(path, obj, sealed_attrs[a].in_state ? "/state" : "/", name);
        if (present && sealed_attrs[a].kind == 'f') v = olive_bits_of(olive_h5_get_f64(path, obj, sealed_attrs[a].in_state ? "/state" : "/", name));
        if (present && sealed_attrs[a].kind == 's' && olive_h5_get_str_opt(path, obj, name, str, sizeof str)) v = olive_hash_name(str);
        h = olive_mix64(olive_mix64(olive_mix64(h ^ olive_hash_name(name)) ^ present) ^ v);
    }
    H5Gclose(g);
    return (int64_t)(h >> 1);
}

void sim_state_seal(const char *path, int64_t f, uint64_t part)
{
    uint64_t sum = 0;
    SIM_CHECK_MPI(MPI_Allreduce(&part, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
    const int64_t c = state_checksum(path, f, sum);
    hid_t g = H5Gopen2(f, "state", H5P_DEFAULT);
    if (g < 0) olive_die("%s: cannot open /state", path);
    olive_h5_attr_i64(path, g, "checksum", c);
    olive_h5_close(path, g, "group /state");
}

void sim_state_require_checksum(const char *path, int64_t state_group)
{
    if (!olive_h5_has_attr(state_group, "checksum"))
        olive_die("%s: /state has no 'checksum' attribute (a state written before olive checksummed its states, "
                  "or not by olive): refused, since a damaged state would continue into another run", path);
}

void sim_state_check_sum(const char *path, int64_t f, uint64_t sum)
{
    hid_t g = H5Gopen2(f, "state", H5P_DEFAULT);
    if (g < 0) olive_die("%s: /state is not a group", path);
    sim_state_require_checksum(path, g);
    const int64_t stored = olive_h5_get_i64(path, g, "/state", "checksum");
    H5Gclose(g);
    const int64_t have = state_checksum(path, f, sum);
    if (stored != have)
        olive_die("%s: /state checksum %016llx does not match the file's contents (%016llx): the state was damaged "
                  "or changed after olive wrote it; refused", path, (unsigned long long)stored, (unsigned long long)have);
}

void sim_state_verify(sim_t *s, const char *path, int64_t f, uint64_t part)
{
    uint64_t sum = 0;
    SIM_CHECK_MPI(MPI_Allreduce(&part, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
    if (s->rank == 0) sim_state_check_sum(path, f, sum);   /* dies, and so aborts the job, on a mismatch */
    SIM_CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

int64_t sim_state_open(const char *path, int64_t *state_group)
{
    hid_t f = olive_h5_open_read(path);
    if (!olive_h5_exists(f, "state")) olive_die("%s: not an olive state file (no /state group)", path);
    hid_t g = H5Gopen2(f, "state", H5P_DEFAULT);
    if (g < 0) olive_die("%s: /state is not a group", path);
    sim_state_require_checksum(path, g);
    *state_group = g;
    return f;
}
