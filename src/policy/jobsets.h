/* A policy's active jobs split by what a decision reads (internal): the running jobs, and the
 * queued jobs bucketed by gang size, so that a fill between rounds looks only at queued jobs whose
 * gang fits in the free GPUs. Unordered: the policies that use it rank what they read
 * (dike_reallocate_ranked, dike_fill_ranked). O(1) add and remove. */
#ifndef DIKE_POLICY_JOBSETS_H
#define DIKE_POLICY_JOBSETS_H

#include <stddef.h>
#include <stdint.h>
#include "dike/sched.h"

/** Jobs in no order, with swap removal. */
typedef struct dike_jobset {
    dike_job **jobs; /**< members */
    size_t n, cap;   /**< members, room */
} dike_jobset;

typedef struct dike_jobsets {
    dike_jobset running; /**< jobs holding GPUs */
    uint32_t nsizes;     /**< distinct gang sizes in the workload */
    uint32_t *sizes;     /**< those sizes, increasing */
    dike_jobset *queued; /**< per gang size (index in sizes): queued jobs */
    size_t nqueued;      /**< queued jobs, all sizes */
    int32_t *slot;       /**< per job index: its place in its set, -1 in none */
} dike_jobsets;

/** Empty sets for the gang sizes of @p w. */
void dike_jobsets_init(dike_jobsets *js, const dike_workload *w);
void dike_jobsets_free(dike_jobsets *js);
/** Add an active job to the set of its state (queued or running). */
void dike_jobsets_add(dike_jobsets *js, dike_job *j);
/** Remove a job from the set of @p running (1) or the queued ones (0). */
void dike_jobsets_remove(dike_jobsets *js, dike_job *j, int running);
/** The job changed state: @p started (queued -> running) or not (running -> queued). */
void dike_jobsets_moved(dike_jobsets *js, dike_job *j, int started);

#endif
