/* Queued jobs indexed by a bound on their rho_hat, for themis's fills (internal).
 *
 * A fill between rounds starts queued jobs in order of rho_hat (policy/rho.h), worst first, with
 * the tenants behind first. rho_hat moves with the clock, and not alike for every job, so no
 * order survives from one fill to the next, and rating every fitting queued job made each fill
 * O(queue): 71 s at the 100,000-job backlog, no result at 1,000,000. This index answers a fill
 * with the same order from a few jobs.
 *
 * Under `oracle` and `noisy` a queued job's estimated work left R and length T do not change
 * while it waits (`none`: see FRESH in rhoindex.c), and at one decision every job of one shape (gang size, GPU type) has the same
 * placement rate r and the same scale M = max(1, g N / G). So
 *
 *   rho_hat x M = z(t) = (t - submit) / T + (R / T) / r = kappa(t0) + u (t - t0) + phi (1/r - 1),
 *
 * with u = 1/T, phi = R/T and kappa(t0) = (t0 - submit) u + phi fixed for the job once t0 is.
 * Jobs are kept in buckets of one shape, one group (behind or not) and close u and phi, each a
 * max-heap of kappa at the bucket's own t0. A bucket's top bounds every member from above:
 * kappa + u_max (t - t0) + phi_max (1/r - 1). A fill pops jobs best bound first, rates each
 * exactly as themis does (dike_rho_hat_at, the same arithmetic), and hands out a job once no
 * bound left could beat it: the order, ties and rounding included, is the full ranking's. When
 * a bucket's spread of u has let its bound drift by 1/16 of z, it is rekeyed at t0 = now. */
#ifndef DIKE_POLICY_RHOINDEX_H
#define DIKE_POLICY_RHOINDEX_H

#include <stddef.h>
#include <stdint.h>
#include "dike/sched.h"
#include "policy/common.h"
#include "policy/jobsets.h"

typedef struct dike_rhobucket dike_rhobucket;
typedef struct dike_rhoside dike_rhoside;

typedef struct dike_rhoindex {
    int valid;                 /**< 0: rebuild before the next fill (rounds move the groups) */
    const dike_jobsets *js;    /**< the policy's sets (queued jobs by gang size) */
    uint32_t *bucket_of;       /**< per job: its bucket, UINT32_MAX when in none */
    uint32_t *pos;             /**< per job: its slot in the bucket's heap */
    double *kappa;             /**< per job: kappa at its bucket's t0 */
    uint8_t *grp;              /**< per job: its group when it was added */
    dike_rhobucket *b;         /**< buckets */
    uint32_t nb, capb;
    uint64_t *hkey;            /**< open hash: bucket key -> id */
    uint32_t *hval;
    uint32_t hcap;
    uint32_t **live;           /**< per gang size index: its non-empty buckets */
    uint32_t *nlive, *caplive;
    int bulk;                  /**< inside dike_rhoindex_build: append now, order at the end */
    int merged;                /**< this fill keys every job as group 0 (every tenant behind) */
    /* one fill */
    dike_ranked *pool;         /**< rated jobs not yet handed out, a min-heap by (key, idx) */
    size_t npool, cappool;
    uint32_t *bh;              /**< buckets by bound, a min-heap (least bound on top) */
    double *bub;               /**< per bucket: its bound on rho_hat this fill */
    uint32_t nbh;
    dike_job **out;            /**< jobs handed out this fill (put back unless started) */
    size_t nout, capout;
    double *rate, *scale;      /**< per (gang size, type): r and M this fill */
    /* `none` */
    int none;                  /**< scheduler.duration_knowledge = none */
    uint32_t ntenants;
    double *done;              /**< per job: its work done, us (fixed while it waits) */
    uint32_t *dpos;            /**< per job: its slot in its tenant's side */
    dike_rhoside *sides;       /**< per tenant: jobs within (0) and past (1) its estimate */
    uint64_t *tver;            /**< per tenant: dike_sched_est_version at the last resync */
} dike_rhoindex;

void dike_rhoindex_init(dike_rhoindex *x, dike_sched *s, const dike_jobsets *js);
void dike_rhoindex_free(dike_rhoindex *x);
/** Drop every job: the next fill rebuilds from the sets. */
void dike_rhoindex_invalidate(dike_rhoindex *x);
/** Put every queued job of the sets in, group[tenant] (0 first) its group. */
void dike_rhoindex_build(dike_rhoindex *x, dike_sched *s, const uint8_t *group);
/** A job became queued (arrival, eviction): add it in group @p grp. No-op while invalid. */
void dike_rhoindex_add(dike_rhoindex *x, dike_sched *s, dike_job *j, int grp);
/** A job is no longer queued (started, finished). No-op while invalid or not a member. */
void dike_rhoindex_remove(dike_rhoindex *x, dike_job *j);

/** Start a fill: jobs whose gang fits in @p fit GPUs, rated at the capacity now; @p merged: one
 *  group (every tenant behind: key -rho_hat), else group 0 (key -rho_hat) before group 1 (key
 *  1e15 - rho_hat), as themis's build_order keys them. */
void dike_rhoindex_begin(dike_rhoindex *x, dike_sched *s, uint64_t fit, int merged);
/** The next job in order among those whose gang fits in @p budget GPUs, NULL when none is left.
 *  It is out of the index until dike_rhoindex_end. */
dike_job *dike_rhoindex_next(dike_rhoindex *x, dike_sched *s, uint64_t budget);
/** End the fill: the jobs handed out and still queued go back in. */
void dike_rhoindex_end(dike_rhoindex *x, dike_sched *s);

#endif
