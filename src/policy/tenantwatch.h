/* Which tenants' estimates may have changed since the last look (internal; dike, srtf, the tenant
 * queue). Under scheduler.duration_knowledge = none a completion changes its tenant's estimates
 * (and those of tenants with no finished job yet), and in the emulating mode a stopped job's work
 * report changes its tenant's: dike_sched_est_version counts both per tenant. A policy that keeps
 * estimate-dependent state per job revisits only the tenants listed here. */
#ifndef DIKE_TENANTWATCH_H
#define DIKE_TENANTWATCH_H

#include <stdint.h>
#include "dike/sched.h"

typedef struct dike_tenantwatch {
    uint32_t *moved;  /**< the tenants of the last dike_tenantwatch_moved */
    uint64_t *seen;   /**< scratch for dike_sched_est_moved, a bit per tenant */
    uint32_t ntenants;
    uint64_t epoch;   /**< dike_sched_est_epoch at the last look */
    dike_est_mark mark; /**< dike_sched_est_mark at the last look */
    int ok;           /**< a look was taken since the start or a reset (0: the next lists them all) */
} dike_tenantwatch;

void dike_tenantwatch_init(dike_tenantwatch *w, uint32_t ntenants);
void dike_tenantwatch_free(dike_tenantwatch *w);
/** The next look lists every tenant (state rebuilt, e.g. after a checkpoint restore). */
static inline void dike_tenantwatch_reset(dike_tenantwatch *w)
{
    w->ok = 0;
}
/** The tenants whose dike_sched_est_version moved since the last look, in w->moved (ascending);
 *  returns how many. At once 0 when dike_sched_est_epoch did not move either; every tenant at the
 *  first look and after dike_tenantwatch_reset. Otherwise dike_sched_est_moved's list: it leaves
 *  out only tenants that never submitted a job, and costs O(listed + tenants / 64), not O(tenants)
 *  (until 2026-12-06 every tenant's version was compared at every look). */
uint32_t dike_tenantwatch_moved(dike_tenantwatch *w, const dike_sched *s);

#endif
