/* Policy registry (internal). */
#ifndef DIKE_POLICY_INTERNAL_H
#define DIKE_POLICY_INTERNAL_H
#include <stdlib.h>
#include "dike/sched.h"

/* The built-in policies, in registry order (list-policies, the order of their sections in the
 * resolved configuration): X(name) stands for `const dike_policy dike_policy_<name>`, defined in
 * src/policy/<name>.c. A new policy is its file and one X(...) here, its keys included. */
#define DIKE_POLICY_LIST(X) \
    X(fifo)                 \
    X(sjf)                  \
    X(srtf)                 \
    X(las)                  \
    X(themis)               \
    X(gandiva_fair)         \
    X(drf)                  \
    X(dike)

#define DIKE_POLICY_EXTERN(n) extern const dike_policy dike_policy_##n;
DIKE_POLICY_LIST(DIKE_POLICY_EXTERN)
#undef DIKE_POLICY_EXTERN

/** Tests: 1 = Dike caps its victim-search bounds by the fairness guard from the first attempt on
 *  (where they apply), 0 = only once its walks have proved costly (the default). The schedule is
 *  the same either way; the tests check that the caps never hide a victim. */
void dike_dike_guard_bounds_always(int on);
/** Tests: 0 = under `none` Dike revisits every running job of a tenant whose estimate moved, as
 *  before the ranges of est_refresh; 1 = only those whose range the estimate left (the default).
 *  The schedule is the same either way. */
void dike_dike_keyed_refresh(int on);
/** Under `none` a tenant's estimate E moves at each finish of its jobs. srtf's and Dike's
 *  victim-search bounds leave room for it: a bound (and srtf's early expiry) is taken an eighth
 *  (1 / DIKE_EST_ROOM) of the estimated length away from the exact value, so small moves of E
 *  leave it valid (docs/performance.md). */
#define DIKE_EST_ROOM 8
/** Tests: 0 = under `none` Dike's node bounds are the exact victim measures, as before their
 *  room for the tenant's estimate to rise (DIKE_EST_ROOM); 1 = with that room (the default). The
 *  schedule is the same either way. */
void dike_dike_est_slack(int on);
/** Tests: the same switch for srtf's bounds under `none` (bounds_renew). */
void dike_srtf_keyed_refresh(int on);
/** Tests: how many rate classes srtf gives each GPU type a tree of its own (SRTF_CLASSES, 31, by
 *  default; 0 = one tree per type, as before the classes). Takes effect at the next run's start.
 *  The schedule is the same either way. */
void dike_srtf_rate_classes(unsigned n);
/** Tests: 0 = themis rates every fitting queued job at each fill, as before its rho index; 1 = it
 *  reads them from the index (policy/rhoindex.h) where that applies and the queue is long (the
 *  default); 2 = from the index whatever the queue's length. Takes effect at the next run's start.
 *  The schedule is the same either way. */
void dike_themis_rho_index(int mode);
#endif
