/* Job queue whose keys move with the tenants' estimates (internal; sjf, srtf, dike).
 *
 * Under scheduler.duration_knowledge = none a waiting job's estimate is its tenant's mean finished
 * duration, so it changes when a job of that tenant finishes (or, before the tenant has history,
 * when any job does: dike_sched_est_version). Re-keying the whole queue at every completion is
 * O(queue) per completion: with a backlog of 100,000 jobs it was most of sjf's and srtf's time
 * (docs/performance.md, "`none` at scale").
 *
 * This queue keeps two kinds of member:
 * - a *shared* job's key is its tenant's shared key (every such job of a tenant has the same
 *   one: sjf's estimated length under `none`, srtf's estimated remaining work of a job that has
 *   never run). Per tenant they wait in a side queue ordered by job index, one heap per gang size,
 *   and only the first of each is in the ordered queue. A change of the shared key moves those
 *   few firsts, not every job. The shared key may also be one per GPU (dike's GPU-time order:
 *   dike_tenantq_set_scaled): a group's key is then the tenant's shared key times its gang size.
 * - an *own* job has a key of its own; it is in the ordered queue, and in its tenant's list so
 *   that a change of the tenant's estimates re-keys it alone. An own job whose key does not
 *   depend on the tenant's estimate while that stays at or below a threshold (srtf under `none`:
 *   a job that has done at least the estimate is expected to run as long again, whatever the
 *   estimate) waits instead in its tenant's heap by threshold, and is re-keyed only once the
 *   estimate exceeds it. One whose threshold is +INFINITY keeps its key as long as it waits, and
 *   is in the ordered queue alone.
 * The ordered queue's order is exactly (key, job index) over all members: the hidden members of
 * a group share their first's key and come after it by index. So the policies' decisions are the
 * ones a whole-queue re-key gives. */
#ifndef DIKE_TENANTQ_H
#define DIKE_TENANTQ_H

#include <stdint.h>
#include "dike/sched.h"
#include "policy/jobq.h"
#include "policy/tenantwatch.h"

/** A member's key (its tenant's shared key for a shared member). */
typedef double (*dike_tenantq_key_fn)(void *ctx, const dike_sched *s, const dike_job *j);
/** 1 if @p j's key is its tenant's shared key (it depends on nothing but the tenant). */
typedef int (*dike_tenantq_shared_fn)(void *ctx, const dike_sched *s, const dike_job *j);
/** For an own member: the largest level of its tenant's estimate up to which its key stays what it
 *  is now, -INFINITY if it may change with any change of the tenant's estimates, +INFINITY if it
 *  never changes while the member waits. */
typedef double (*dike_tenantq_stable_fn)(void *ctx, const dike_sched *s, const dike_job *j);
/** The level of @p j's tenant's estimate that stable_fn's thresholds are compared with (the same
 *  for every job of the tenant). */
typedef double (*dike_tenantq_level_fn)(void *ctx, const dike_sched *s, const dike_job *j);
/** A shared member's key per GPU (dike_tenantq_set_scaled): its key is this times its GPUs. */
typedef double (*dike_tenantq_unit_fn)(void *ctx, const dike_sched *s, const dike_job *j);

typedef struct dike_tenantq {
    dike_jobq q;         /**< ordered: own members and the first of each shared group */
    int32_t *slot;       /**< per job: its place in q */
    int32_t *hslot;      /**< per job: its place in its tenant's side queue */
    dike_jobq *side;     /**< per tenant: its shared members, all keyed 0 (by job index) */
    double *skey;        /**< per tenant: the shared key (per GPU if unit is set) */
    int32_t *head;       /**< per tenant: first own member re-keyed at every change, -1 if none */
    int32_t *next, *prev; /**< per job: the tenant's list of such members */
    dike_jobq *stable;   /**< per tenant: own members keyed by their threshold (stable_fn) */
    int32_t *tslot;      /**< per job: its place in its tenant's stable heap */
    uint8_t *kind;       /**< per job: 0 not queued, 1 own, 2 shared, 3 own and stable, 4 own and
                              never re-keyed */
    dike_job **jobp;     /**< per job index: the job while it is an own member */
    size_t *nown;        /**< per tenant: own members in its list (re-keyed at every change) */
    dike_tenantwatch watch; /**< the tenants whose estimates moved (all at the first look) */
    uint32_t ntenants;
    dike_tenantq_key_fn key;
    dike_tenantq_shared_fn shared;
    dike_tenantq_stable_fn stable_fn;
    dike_tenantq_level_fn level;
    dike_tenantq_unit_fn unit; /**< NULL: a shared key is the same for every gang size */
    void *ctx;
} dike_tenantq;

/** An empty queue for @p njobs jobs of @p ntenants tenants. @p shared may be NULL (every member
 *  own). */
void dike_tenantq_init(dike_tenantq *tq, size_t njobs, uint32_t ntenants, dike_tenantq_key_fn key,
                       dike_tenantq_shared_fn shared, void *ctx);
/** Let own members whose key is stable below a threshold of the tenant's estimate wait apart
 *  (both functions non-NULL; before the first push). */
void dike_tenantq_set_stable(dike_tenantq *tq, dike_tenantq_stable_fn stable, dike_tenantq_level_fn level);
/** Shared keys per GPU: a shared member's key is @p unit times its GPUs, and the key function
 *  must give exactly that product for it (before the first push). */
void dike_tenantq_set_scaled(dike_tenantq *tq, dike_tenantq_unit_fn unit);
void dike_tenantq_free(dike_tenantq *tq);
/** Enqueue @p j with the key @p key gives it now. A shared member's key becomes its tenant's
 *  shared key (the tenant's other shared members move with it). */
void dike_tenantq_push(dike_tenantq *tq, const dike_sched *s, dike_job *j);
/** Dequeue @p j (fatal if it is not queued). */
void dike_tenantq_remove(dike_tenantq *tq, dike_job *j);
/** The best member, or NULL. */
static inline dike_job *dike_tenantq_min(const dike_tenantq *tq)
{
    return dike_jobq_min(&tq->q);
}
/** The key of queued job @p j now: its own, or its tenant's shared key. */
double dike_tenantq_key(const dike_tenantq *tq, const dike_job *j);
/** Re-key tenant @p t's members with the key function: the shared key from one shared member,
 *  every own member by itself, except the stable ones whose threshold the tenant's level has not
 *  passed. */
void dike_tenantq_refresh_tenant(dike_tenantq *tq, const dike_sched *s, uint32_t t);
/** Before a decision: if dike_sched_est_epoch moved, re-key the tenants whose
 *  dike_sched_est_version moved since their last refresh: member by member (O(log size) each), or,
 *  when their own members are so many that this would cost more than re-keying everything, the
 *  whole ordered queue at once (O(size)). Either gives the same keys. */
void dike_tenantq_refresh(dike_tenantq *tq, const dike_sched *s);
/** The same for the @p n tenants in @p moved, whose estimates may have changed. */
void dike_tenantq_refresh_moved(dike_tenantq *tq, const dike_sched *s, const uint32_t *moved, uint32_t n);
/** Start queued members in order through @p start (which must dequeue what it starts):
 *  backfill = 0: stop at the first that does not start; 1: fill-in, the best member that fits
 *  (dike_jobq_fill). */
void dike_tenantq_start_in_order(dike_tenantq *tq, dike_sched *s, int backfill, dike_jobq_start_fn start,
                                 void *ctx);

#endif
