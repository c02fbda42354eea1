/* Tenant weights ([tenants] weights) and weighted max-min entitlements.
 *
 * The weights are resolved once per run, from the configuration and the whole workload, before
 * the emulation starts (dike_coord_init); every policy and the /tenants table use that one array. */
#ifndef DIKE_TENANTS_H
#define DIKE_TENANTS_H

#include <stddef.h>
#include <stdint.h>
#include "dike/base.h"
#include "dike/config.h"
#include "dike/workload.h"

/** How [tenants] weights gives the weights. */
enum dike_weights_mode {
    DIKE_WEIGHTS_EQUAL = 0,  /**< `equal` (or empty): every tenant weighs 1 */
    DIKE_WEIGHTS_DEMAND = 1, /**< `demand`: the tenant's share of the workload's GPU-seconds */
    DIKE_WEIGHTS_FILE = 2,   /**< `file:PATH`: a CSV of `tenant,weight` rows */
    DIKE_WEIGHTS_LIST = 3    /**< `name:weight,...`: listed tenants; the others weigh 1 */
};

/** Mode of a [tenants] weights value (syntax only, see dike_tenant_weights_check). */
int dike_tenant_weights_mode(const char *value);

/** Syntax check of a [tenants] weights value, independent of any workload: a known mode, a
 *  non-empty file path, list entries `name:weight` with a positive finite weight and each name at
 *  most once. 0, or DIKE_EINVAL with a reason (no key prefix) in @p why. */
int dike_tenant_weights_check(const char *value, char *why, size_t whylen);

/** Resolve [tenants] weights of @p c against the tenants of @p w into @p weight (w->ntenants
 *  entries, each positive and finite). Reads the file of `file:PATH`. Errors name where the value
 *  was set (c->tenants_weights_at: "exp.ini:7" or "--set '...'") or the file and line of a bad
 *  row, then "[tenants] weights": an unknown tenant, a bad or empty file. */
int dike_tenant_weights_resolve(const dike_config *c, const dike_workload *w, double *weight,
                                dike_err *e);

/** Sort @p order (n claimant indices) by ratio[i] ascending, ties by index: an insertion sort, so
 *  O(n) when the order is nearly sorted already, as it is between consecutive decisions. */
void dike_tenant_order(size_t n, uint32_t *order, const double *ratio);

/** Weighted max-min water-filling of @p capacity over the @p n claimants listed in @p order, which
 *  must be sorted by demand / weight (dike_tenant_order): claimant i gets
 *  out[i] = min(demand[i], level x weight[i]), one level for all, so that the sum is
 *  min(capacity, sum of demand). Exact, O(n). Arrays are indexed by claimant; weights must be
 *  > 0, demands >= 0; only the listed claimants' out[] are written. */
void dike_tenant_entitle(size_t n, const uint32_t *order, const double *weight, const double *demand,
                         double capacity, double *out);

#endif
