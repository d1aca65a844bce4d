/* A procedural projection in the network file: its rule as attributes of
 * the projection's group, in place of the row_ptr / col / weight / delay
 * datasets (docs/FORMAT.md). */
#include "conn_attrs.h"
#include "h5util.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const kind_names[] = {"p", "indegree", "total", "outdegree", "total_out"};
_Static_assert(sizeof kind_names / sizeof *kind_names == OLIVE_CONN_NKINDS, "a rule kind without its name");

static const char *const conn_attrs[] = {"procedural", "procedural_n", "procedural_p", "autapses", "seed", "key",
                                         "source_cells", "target_cells", "weight_uniform", "weight_normal",
                                         "delay_uniform_ms", "delay_normal_ms", NULL};

int olive_conn_attr_known(const char *name) { return olive_h5_name_listed(name, conn_attrs); }

/* A varying value as attribute base_uniform[2] or base_normal[4]; a
 * constant is the projection's own weight / delay attribute. */
static void write_value(const char *path, hid_t pg, const char *uniform, const char *normal, const olive_value *v)
{
    if (!olive_value_varies(v)) return;
    if (v->normal) {
        const double x[4] = {v->mean, v->sd, v->lo, v->hi};
        olive_h5_attr_f64v(path, pg, normal, x, 4);
    } else {
        const double x[2] = {v->a, v->b};
        olive_h5_attr_f64v(path, pg, uniform, x, 2);
    }
}

void olive_conn_write(const char *path, hid_t pg, const olive_conn *c)
{
    olive_h5_attr_str(path, pg, "procedural", kind_names[c->kind]);
    if (c->kind == OLIVE_CONN_P) olive_h5_attr_f64(path, pg, "procedural_p", c->p);
    else olive_h5_attr_i64(path, pg, "procedural_n", c->k);
    olive_h5_attr_i64(path, pg, "autapses", c->autapses);
    olive_h5_attr_i64(path, pg, "seed", (int64_t)c->seed);
    olive_h5_attr_i64(path, pg, "key", c->key);
    const int64_t src[2] = {c->s0, c->s1}, tgt[2] = {c->t0, c->t1};
    olive_h5_attr_i64v(path, pg, "source_cells", src, 2);
    olive_h5_attr_i64v(path, pg, "target_cells", tgt, 2);
    write_value(path, pg, "weight_uniform", "weight_normal", &c->w);
    write_value(path, pg, "delay_uniform_ms", "delay_normal_ms", &c->d);
}

/* v from attribute uniform or normal, or the constant k (both absent). */
static void read_value(const char *path, hid_t pg, const char *where, const char *uniform, const char *normal, double k,
                       olive_value *v)
{
    memset(v, 0, sizeof *v);
    const int hu = olive_h5_has_attr(pg, uniform), hn = olive_h5_has_attr(pg, normal);
    if (hu && hn) olive_die("%s: %s has both %s and %s", path, where, uniform, normal);
    if (hn) {
        double x[4];
        olive_h5_get_f64v(path, pg, where, normal, x, 4);
        v->normal = 1;
        v->mean = x[0], v->sd = x[1], v->lo = x[2], v->hi = x[3];
        v->a = v->lo, v->b = v->hi;
    } else if (hu) {
        double x[2];
        olive_h5_get_f64v(path, pg, where, uniform, x, 2);
        v->a = x[0], v->b = x[1];
        if (!(v->a < v->b)) olive_die("%s: %s %s = [%g, %g] is not a range A < B", path, where, uniform, v->a, v->b);
    } else {
        v->a = v->b = k;
    }
}

int olive_conn_read(const char *path, hid_t pg, const char *where, int64_t count, double dt, olive_conn *c)
{
    char kind[32];
    if (!olive_h5_get_str_opt(path, pg, "procedural", kind, sizeof kind)) return 0;
    memset(c, 0, sizeof *c);
    snprintf(c->what, sizeof c->what, "%s: %s (procedural)", path, where);
    c->kind = -1;
    for (int i = 0; i < (int)(sizeof kind_names / sizeof *kind_names); i++)
        if (!strcmp(kind, kind_names[i])) c->kind = i;
    if (c->kind < 0) olive_die("%s: %s procedural = '%s' is not p, indegree, total, outdegree or total_out", path, where, kind);
    if (c->kind == OLIVE_CONN_P) c->p = olive_h5_get_f64(path, pg, where, "procedural_p");
    else c->k = olive_h5_get_i64(path, pg, where, "procedural_n");
    const int64_t aut = olive_h5_get_i64(path, pg, where, "autapses");
    if (aut != 0 && aut != 1) olive_die("%s: %s autapses = %lld is not 0 or 1", path, where, (long long)aut);
    c->autapses = (int)aut;
    c->seed = (uint64_t)olive_h5_get_i64(path, pg, where, "seed");
    const int64_t key = olive_h5_get_i64(path, pg, where, "key");
    if (key < 0 || key > UINT32_MAX) olive_die("%s: %s key = %lld is not a 32-bit key", path, where, (long long)key);
    c->key = (uint32_t)key;
    int64_t r[2];
    olive_h5_get_i64v(path, pg, where, "source_cells", r, 2);
    c->s0 = r[0], c->s1 = r[1];
    olive_h5_get_i64v(path, pg, where, "target_cells", r, 2);
    c->t0 = r[0], c->t1 = r[1];
    c->count = count;
    c->dt = dt;
    /* the constants are the ordinary attributes (weight; delay in steps) */
    const double w = olive_h5_has_attr(pg, "weight") ? olive_h5_get_f64(path, pg, where, "weight") : NAN;
    const double d = olive_h5_has_attr(pg, "delay") ? (double)olive_h5_get_i64(path, pg, where, "delay") * dt : NAN;
    read_value(path, pg, where, "weight_uniform", "weight_normal", w, &c->w);
    read_value(path, pg, where, "delay_uniform_ms", "delay_normal_ms", d, &c->d);
    if (olive_h5_exists(pg, "row_ptr") || olive_h5_exists(pg, "col") || olive_h5_exists(pg, "weight") ||
        olive_h5_exists(pg, "delay"))
        olive_die("%s: %s is procedural but also holds synapse datasets", path, where);
    const char *fault = olive_conn_fault(c);
    if (fault) olive_die("%s: %s: a procedural rule with %s", path, where, fault);
    return 1;
}
