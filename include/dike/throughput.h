/* Throughput by model class: speed per (model class, GPU type, GPU count, consolidated or not),
 * derived from Gavel's measurements (docs/throughput.md). Jobs without a model class, and GPU
 * types or classes the table does not cover, keep the cluster's own model: speed(type) x locality. */
#ifndef DIKE_THROUGHPUT_H
#define DIKE_THROUGHPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dike/cluster.h"
#include "dike/workload.h"

/** GPU types measured by Gavel; V100 is the reference type (speed 1). */
enum { DIKE_TPUT_K80 = 0, DIKE_TPUT_P100 = 1, DIKE_TPUT_V100 = 2, DIKE_TPUT_NTYPES = 3 };
#define DIKE_TPUT_REF DIKE_TPUT_V100
/** Measured gang sizes: 1, 2, 4, 8 GPUs (index i is 2^i GPUs). */
#define DIKE_TPUT_NSCALES 4

/** One model class of the table (generated: src/model/throughput_gavel.c). */
typedef struct dike_tput_class {
    const char *name;       /**< class name in traces and in workload.model_assignment, e.g. "resnet50-bs64" */
    const char *gavel_name; /**< Gavel's job name, e.g. "ResNet-50 (batch size 64)" */
    double ref[DIKE_TPUT_NSCALES]; /**< steps/s on the reference type (V100, consolidated) at 1, 2, 4,
                                        8 GPUs; 0 = not measured */
    double rel[DIKE_TPUT_NTYPES][DIKE_TPUT_NSCALES][2]; /**< steps/s divided by ref, per GPU type and
                                        scale, [0] consolidated (one server), [1] unconsolidated
                                        (spread over servers); 0 = not measured */
} dike_tput_class;

extern const dike_tput_class dike_tput_gavel[]; /**< the table, sorted by name family then batch */
extern const size_t dike_tput_gavel_n;          /**< its number of classes */

/** "k80", "p100", "v100". */
const char *dike_tput_type_name(int type);
/** Class index of @p name (case-insensitive), or -1. */
int dike_tput_class_find(const char *name);
/** Table GPU type of a cluster GPU type name, or -1: the name is k80, p100 or v100 (any case),
 *  alone or followed by a non-digit suffix ("V100M32", "p100-pcie"; not "v1000"). */
int dike_tput_type_find(const char *gpu_type);
/** Scale index of a gang of @p gpus (>= 1) GPUs: the largest measured size not above it
 *  (1 -> 0, 2-3 -> 1, 4-7 -> 2, 8 and more -> 3). */
int dike_tput_scale_index(uint32_t gpus);
/** Gavel's measured steps/s (rel x ref) for class @p cls on table type @p type with 2^scale_index
 *  GPUs; 0 when not measured. */
double dike_tput_measured(int cls, int type, int scale_index, bool consolidated);

/** Rate of a job of workload model @p model (index into w->models, -1 = none) on @p gpus GPUs of
 *  cluster type @p type at locality @p level, relative to its best placement on the reference
 *  type. Uses the table when the workload is bound to it (dike_workload_bind_throughput) and both
 *  the class and the GPU type are in it; otherwise exactly dike_cluster_rate(). */
double dike_tput_rate(const dike_cluster *cl, const dike_workload *w, int model, int type,
                      uint32_t gpus, int level);

/** Resolve the workload's model names and the cluster's GPU types against the table named
 *  @p table ("gavel", or "none" to leave the workload unbound). */
int dike_workload_bind_throughput(dike_workload *w, const dike_cluster *cl, const char *table,
                                  dike_err *e);

#endif
