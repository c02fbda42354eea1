/* Per tenant, running jobs by two thresholds of the tenant's estimate (runkeys.h). */
#include "policy/runkeys.h"

#include <math.h>
#include <stdlib.h>

#include "dike/base.h"

void dike_runkeys_init(dike_runkeys *k, size_t njobs, uint32_t ntenants, const uint32_t *tenant_of)
{
    k->ntenants = ntenants;
    k->lid = dike_xcalloc(njobs ? njobs : 1, sizeof *k->lid);
    uint32_t *n = dike_xcalloc(ntenants ? ntenants : 1, sizeof *n);
    for (size_t j = 0; j < njobs; j++)
        k->lid[j] = n[tenant_of[j]]++;
    k->gid = dike_xcalloc(ntenants ? ntenants : 1, sizeof *k->gid);
    k->hi = dike_xcalloc(ntenants ? ntenants : 1, sizeof *k->hi);
    k->lo = dike_xcalloc(ntenants ? ntenants : 1, sizeof *k->lo);
    k->hh = dike_xcalloc(ntenants ? ntenants : 1, sizeof *k->hh);
    k->hl = dike_xcalloc(ntenants ? ntenants : 1, sizeof *k->hl);
    for (uint32_t t = 0; t < ntenants; t++) {
        k->gid[t] = dike_xcalloc(n[t] ? n[t] : 1, sizeof *k->gid[t]);
        k->hi[t] = dike_xcalloc(n[t] ? n[t] : 1, sizeof *k->hi[t]);
        k->lo[t] = dike_xcalloc(n[t] ? n[t] : 1, sizeof *k->lo[t]);
        dike_idheap_init(&k->hh[t], n[t], k->hi[t]);
        dike_idheap_init(&k->hl[t], n[t], k->lo[t]);
    }
    for (size_t j = 0; j < njobs; j++)
        k->gid[tenant_of[j]][k->lid[j]] = (uint32_t)j;
    free(n);
}

void dike_runkeys_free(dike_runkeys *k)
{
    for (uint32_t t = 0; t < k->ntenants; t++) {
        dike_idheap_free(&k->hh[t]);
        dike_idheap_free(&k->hl[t]);
        free(k->gid[t]);
        free(k->hi[t]);
        free(k->lo[t]);
    }
    free(k->gid);
    free(k->hi);
    free(k->lo);
    free(k->hh);
    free(k->hl);
    free(k->lid);
}

void dike_runkeys_set(dike_runkeys *k, uint32_t j, uint32_t tenant, double hi, double lo)
{
    uint32_t i = k->lid[j];
    dike_idheap *hh = &k->hh[tenant], *hl = &k->hl[tenant];
    if (dike_idheap_has(hh, i)) {
        k->hi[tenant][i] = hi;
        k->lo[tenant][i] = -lo;
        dike_idheap_update(hh, i);
        dike_idheap_update(hl, i);
        return;
    }
    k->hi[tenant][i] = hi;
    k->lo[tenant][i] = -lo;
    dike_idheap_push(hh, i);
    dike_idheap_push(hl, i);
}

void dike_runkeys_remove(dike_runkeys *k, uint32_t j, uint32_t tenant)
{
    uint32_t i = k->lid[j];
    if (!dike_idheap_has(&k->hh[tenant], i))
        return;
    dike_idheap_remove(&k->hh[tenant], i);
    dike_idheap_remove(&k->hl[tenant], i);
}

uint32_t dike_runkeys_out(const dike_runkeys *k, uint32_t tenant, double e, double tol)
{
    uint32_t i = dike_idheap_top(&k->hh[tenant]);
    if (i != DIKE_IDHEAP_NONE && k->hi[tenant][i] <= e * (1 + tol))
        return k->gid[tenant][i];
    i = dike_idheap_top(&k->hl[tenant]);
    if (i != DIKE_IDHEAP_NONE && -k->lo[tenant][i] >= e * (1 - tol))
        return k->gid[tenant][i];
    return UINT32_MAX;
}

uint32_t dike_runkeys_any(const dike_runkeys *k, uint32_t tenant)
{
    uint32_t i = dike_idheap_top(&k->hh[tenant]);
    return i == DIKE_IDHEAP_NONE ? UINT32_MAX : k->gid[tenant][i];
}
