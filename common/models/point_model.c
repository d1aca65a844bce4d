/* The registry of point models (point_model.h): a plugin's descriptor, or
 * a built-in model's from the tables of the built-in sources. */
#include "point_model.h"
#include <stddef.h>

/* The built-in sources' tables: a new built-in point model adds its own. */
static const olive_point_entry *const builtin_tables[] = {olive_lif_points};

const olive_model_plugin *olive_point_model(const olive_cell_model *m, int method)
{
    const olive_model_plugin *p = olive_plugin_of(m);
    if (p) return p;
    for (size_t t = 0; t < sizeof builtin_tables / sizeof builtin_tables[0]; t++)
        for (const olive_point_entry *e = builtin_tables[t]; e->model; e++)
            if (e->model == m && (e->method == method || e->method < 0)) return e->desc;
    return NULL;
}
