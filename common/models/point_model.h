/* The one kind of point model the spiking engine runs. A point model is a
 * descriptor of model_plugin.h (olive_model_plugin): its variables,
 * parameters, receptors, coefficients and the cell functions of model_plugin.h's
 * schedule (step, condition, on_spike). A plugin brings its own (a NESTML
 * model built by olive-model, or one written by hand); a built-in model is a
 * source in common/models that defines its descriptors (lif_models.c: one
 * per integration method) and lists them in a table, named once below. The
 * CPU engine calls only these functions, whatever the model
 * (spk_engine.c's one loop), so a new built-in point model is a new source,
 * its table here and its line in cellmodel.c's model table.
 *
 * The CUDA engine links the model's GPU image (its cell functions,
 * plugin_cell.h) into its own kernels at load time, a plugin's and a
 * built-in one's alike (the Makefile makes the built-in sources' images). */
#ifndef OLIVE_POINT_MODEL_H
#define OLIVE_POINT_MODEL_H
#include "cellmodel.h"
#include "model_plugin.h"

/* One built-in descriptor: model m integrated by method (lif.h's enum
 * olive_lif_method; -1: any, the model has one integration). */
typedef struct {
    const olive_cell_model *model;
    int method;
    const olive_model_plugin *desc;
} olive_point_entry;

/* lif_models.c: the integrate-and-fire models, ended by a NULL model. */
extern const olive_point_entry olive_lif_points[];

/* The descriptor that runs model m with method (cfg->spiking.method): a
 * plugin's own (method -1), or a built-in one; NULL: m is no point model
 * (InfOli, cable cells, spike sources). */
const olive_model_plugin *olive_point_model(const olive_cell_model *m, int method);

#endif
