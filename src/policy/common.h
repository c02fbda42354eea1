/* Building blocks shared by the tenant-aware and round-based policies (internal):
 * tenant weights and entitlements, the set of active jobs, and "reallocate to this order". */
#ifndef DIKE_POLICY_COMMON_H
#define DIKE_POLICY_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include "dike/sched.h"

/** Per-tenant bookkeeping a policy keeps. */
typedef struct dike_tenants {
    uint32_t n;          /**< tenants in the workload */
    double *weight;      /**< the run's resolved [tenants] weights (dike_sched_tenant_weights) */
    uint32_t *demand;    /**< GPUs asked by active jobs (queued + running) */
    uint32_t *alloc;     /**< GPUs held by running jobs */
    uint32_t *active;    /**< active jobs */
    double *entitled;    /**< GPUs from the last water-filling */
} dike_tenants;

/** Set up the bookkeeping, with the run's tenant weights (resolved and checked before the run by
 *  the coordinator, for every policy: dike_tenant_weights_resolve). Returns 0. */
int dike_tenants_init(dike_tenants *t, dike_sched *s, dike_err *e);
void dike_tenants_free(dike_tenants *t);
/** Track a job entering / leaving the system and starting / stopping. */
void dike_tenants_arrive(dike_tenants *t, const dike_job *j);
void dike_tenants_leave(dike_tenants *t, const dike_job *j);
void dike_tenants_run(dike_tenants *t, const dike_job *j, int running);

/** Weighted max-min water-filling of @p capacity GPUs over the tenants' demand: every tenant gets
 *  min(demand, share), shares proportional to weight, what a satisfied tenant leaves is refilled
 *  over the others. Result in t->entitled (sums to min(capacity, total demand)). */
void dike_tenants_waterfill(dike_tenants *t, double capacity);
/** Same algorithm on plain arrays (exposed for tests). */
void dike_waterfill(size_t n, const double *weight, const double *demand, double capacity,
                    double *out);

/** Active jobs in arrival order, as a dense array that callers may walk directly (jobs[0..n)).
 *  Each job's arrival stamp is kept by job index (stamp_of); stamps increase along the array, so removal
 *  finds the slot by binary search and closes the gap with one memmove of the slots after it:
 *  no job behind it is touched (the old per-job reindex cost a cache miss per active job). */
typedef struct dike_active {
    dike_job **jobs;  /**< active jobs, arrival order */
    int32_t *stamp;   /**< arrival stamp of jobs[i], strictly increasing */
    size_t n, cap;    /**< jobs, capacity */
    int32_t next;     /**< stamp of the next arrival */
    int32_t *stamp_of;/**< per job index: its arrival stamp (valid while it is in the set) */
    size_t nstamp_of; /**< entries of stamp_of */
} dike_active;

/** Append @p j (it arrives now). O(1) amortised. */
void dike_active_add(dike_active *a, dike_job *j);
/** Remove @p j, keeping the others in arrival order: O(log n) search + a memmove of the tail. */
void dike_active_remove(dike_active *a, dike_job *j);
void dike_active_free(dike_active *a);

/** A job and its sort key (smaller first; ties by job index). */
typedef struct dike_ranked {
    double key;
    dike_job *job;
} dike_ranked;

void dike_ranked_sort(dike_ranked *r, size_t n);

typedef int (*dike_can_preempt_fn)(void *ctx, dike_sched *s, const dike_job *running);

/** Make the running set follow @p order (best first): walk it, keep or start every job whose gang
 *  still fits in the GPUs that are up, and preempt running jobs that fell out of that prefix when
 *  @p can_preempt allows (NULL: never). Running jobs that may not be preempted keep their GPUs
 *  first. Returns the number of preemptions. @p on_start / @p on_stop (may be NULL) tell the
 *  policy what changed. */
size_t dike_reallocate(dike_sched *s, dike_ranked *order, size_t n, dike_can_preempt_fn can_preempt,
                       void *ctx, void (*on_change)(void *ctx, dike_job *j, int started));

/** A can_preempt callback that allows every preemption (lease = one round). */
int dike_preempt_always(void *ctx, dike_sched *s, const dike_job *running);

/** Scratch memory of dike_reallocate_ranked, kept between decisions. */
typedef struct dike_rank_scratch {
    dike_ranked *buf; /**< 2 x the largest order seen */
    size_t cap;       /**< entries in buf */
} dike_rank_scratch;

void dike_rank_scratch_free(dike_rank_scratch *sc);

/** dike_reallocate with every preemption allowed (lease = one round), for an order given unsorted
 *  (@p r is reordered): the same preemptions and starts in the same sequence. The best jobs that
 *  fit in the GPUs that are up are selected, not sorted, so a round costs expected O(n) plus a
 *  sort of the jobs it starts or preempts and a lazy walk past that prefix (policy/rankwalk.h). */
size_t dike_reallocate_ranked(dike_sched *s, dike_ranked *r, size_t n, dike_rank_scratch *sc,
                              void *ctx, void (*on_change)(void *ctx, dike_job *j, int started));
/** dike_fill for an order given unsorted (@p r is reordered): expected O(n), plus a sort of the
 *  jobs it starts. */
void dike_fill_ranked(dike_sched *s, dike_ranked *r, size_t n, void *ctx,
                      void (*on_change)(void *ctx, dike_job *j, int started));

/** Start queued jobs in @p order (best first) while GPUs are free; jobs that do not fit are
 *  skipped (no preemption). */
void dike_fill(dike_sched *s, dike_ranked *order, size_t n, void *ctx,
               void (*on_change)(void *ctx, dike_job *j, int started));

#endif
