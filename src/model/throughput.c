/* Throughput by model class (docs/throughput.md): the Gavel-derived table, and the one rate function
 * the coordinator calls when it places a job. */
#include "dike/throughput.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const type_names[DIKE_TPUT_NTYPES] = {"k80", "p100", "v100"};

const char *dike_tput_type_name(int type)
{
    return type >= 0 && type < DIKE_TPUT_NTYPES ? type_names[type] : "";
}

int dike_tput_class_find(const char *name)
{
    for (size_t i = 0; i < dike_tput_gavel_n; i++)
        if (strcasecmp(dike_tput_gavel[i].name, name) == 0)
            return (int)i;
    return -1;
}

int dike_tput_type_find(const char *gpu_type)
{
    for (int t = 0; t < DIKE_TPUT_NTYPES; t++) {
        size_t n = strlen(type_names[t]);
        if (strncasecmp(gpu_type, type_names[t], n) == 0 && !isdigit((unsigned char)gpu_type[n]))
            return t;
    }
    return -1;
}

int dike_tput_scale_index(uint32_t gpus)
{
    int i = 0;
    while (i + 1 < DIKE_TPUT_NSCALES && gpus >= (2u << i))
        i++;
    return i;
}

double dike_tput_measured(int cls, int type, int scale_index, bool consolidated)
{
    if (cls < 0 || (size_t)cls >= dike_tput_gavel_n || type < 0 || type >= DIKE_TPUT_NTYPES ||
        scale_index < 0 || scale_index >= DIKE_TPUT_NSCALES)
        return 0;
    const dike_tput_class *c = &dike_tput_gavel[cls];
    return c->rel[type][scale_index][consolidated ? 0 : 1] * c->ref[scale_index];
}

/* Duration is defined on the job's best placement of the reference type, so the rate of a
 * placement is speed(class, type, scale) x L(level) / L(best level), with
 *   speed = steps/s on this type, consolidated / steps/s on V100, consolidated, at the largest
 *           measured scale not above the gang (a 16-GPU job uses the 8-GPU ratios);
 *   L     = 1 on one node, u = unconsolidated / consolidated steps/s of this class on this type
 *           within a rack, u x locality_cross_rack / locality_rack across racks (Gavel measured no
 *           inter-rack case; the cluster's own ratio carries over), u capped at 1. A class
 *           measured on one GPU only has no u: the cluster's locality_rack stands in.
 * Anything the table lacks falls back to dike_cluster_rate, unchanged. */
double dike_tput_rate(const dike_cluster *cl, const dike_workload *w, int model, int type,
                      uint32_t gpus, int level)
{
    if (!w || !w->model_class || model < 0 || (uint32_t)model >= w->nmodels || type < 0 ||
        (uint32_t)type >= cl->ntypes)
        return dike_cluster_rate(cl, type, gpus, level);
    int cls = w->model_class[model], tt = w->type_class[type];
    if (cls < 0 || tt < 0)
        return dike_cluster_rate(cl, type, gpus, level);
    const dike_tput_class *c = &dike_tput_gavel[cls];
    int si = dike_tput_scale_index(gpus);
    while (si >= 0 && !(c->rel[tt][si][0] > 0))
        si--;
    if (si < 0)
        return dike_cluster_rate(cl, type, gpus, level);
    double speed = c->rel[tt][si][0];
    int best = dike_cluster_best_level(cl, gpus);
    if (level < best)
        level = best;
    if (level > DIKE_LOC_CROSS)
        level = DIKE_LOC_CROSS;
    if (level == best)
        return speed;
    double u = si > 0 && c->rel[tt][si][1] > 0 ? c->rel[tt][si][1] / speed : cl->loc_factor[DIKE_LOC_RACK];
    if (u > 1)
        u = 1; /* measurement noise (LM at batch 40 on 4 K80s): a spread gang never runs faster */
    double loc[3] = {1.0, u, u * cl->loc_factor[DIKE_LOC_CROSS] / cl->loc_factor[DIKE_LOC_RACK]};
    return speed * loc[level] / loc[best];
}

int dike_workload_bind_throughput(dike_workload *w, const dike_cluster *cl, const char *table,
                                  dike_err *e)
{
    free(w->model_class);
    w->model_class = NULL;
    if (strcmp(table, "none") == 0)
        return 0;
    if (strcmp(table, "gavel") != 0)
        return dike_err_set(e, DIKE_EINVAL, "[cluster] throughput: unknown table '%s' (gavel, none)", table);
    bool any_type = false, any_class = false;
    for (uint32_t t = 0; t < DIKE_MAX_GPU_TYPES; t++) {
        w->type_class[t] = (int8_t)(t < cl->ntypes ? dike_tput_type_find(cl->types[t].name) : -1);
        any_type = any_type || w->type_class[t] >= 0;
    }
    if (!any_type || !w->nmodels)
        return 0; /* nothing to look up: every job keeps speed(type) x locality */
    int16_t *cls = dike_xmalloc(w->nmodels * sizeof *cls);
    for (uint32_t m = 0; m < w->nmodels; m++) {
        cls[m] = (int16_t)dike_tput_class_find(w->models[m]);
        any_class = any_class || cls[m] >= 0;
    }
    if (any_class)
        w->model_class = cls;
    else
        free(cls);
    return 0;
}
