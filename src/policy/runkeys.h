/* Per tenant, its running jobs ordered by two thresholds of the tenant's estimate (internal; dike
 * under `none`).
 *
 * Under scheduler.duration_knowledge = none a job's estimate is its tenant's, which moves at each
 * of the tenant's completions. A policy that keeps, per running job, state that is valid only
 * while the estimate stays within a range [lo, hi] (dike's node bounds) keeps the job here with
 * hi and lo as keys, and after a move to E revisits only the jobs with hi <= E or lo >= E, the two
 * heap tops, instead of every running job of the tenant. Each tenant's jobs are numbered 0..n-1
 * at init, so the heaps are dike_idheap's (O(log n) per change, memory O(jobs) in all). */
#ifndef DIKE_RUNKEYS_H
#define DIKE_RUNKEYS_H

#include <stddef.h>
#include <stdint.h>
#include "policy/idheap.h"

typedef struct dike_runkeys {
    uint32_t ntenants;
    uint32_t *lid;     /**< per job: its number among its tenant's jobs */
    uint32_t **gid;    /**< per tenant: number -> job index */
    double **hi, **lo; /**< per tenant, per number: the keys (lo stored negated: a min-heap) */
    dike_idheap *hh, *hl; /**< per tenant: least hi first; largest lo first */
} dike_runkeys;

/** @p tenant_of gives each of the @p njobs jobs' tenant (< @p ntenants). */
void dike_runkeys_init(dike_runkeys *k, size_t njobs, uint32_t ntenants, const uint32_t *tenant_of);
void dike_runkeys_free(dike_runkeys *k);
/** Set job @p j's keys (adding it if absent). */
void dike_runkeys_set(dike_runkeys *k, uint32_t j, uint32_t tenant, double hi, double lo);
/** Remove job @p j, if present. */
void dike_runkeys_remove(dike_runkeys *k, uint32_t j, uint32_t tenant);
/** A job of @p tenant whose range no longer holds estimate @p e (hi <= e or lo >= e, each with the
 *  relative tolerance @p tol on the safe side), or UINT32_MAX; it stays a member. */
uint32_t dike_runkeys_out(const dike_runkeys *k, uint32_t tenant, double e, double tol);
/** Any job of @p tenant, or UINT32_MAX if it has none. */
uint32_t dike_runkeys_any(const dike_runkeys *k, uint32_t tenant);

#endif
