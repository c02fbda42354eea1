/* Which tenants' estimates may have changed (tenantwatch.h). */
#include "policy/tenantwatch.h"

#include <stdlib.h>

void dike_tenantwatch_init(dike_tenantwatch *w, uint32_t ntenants)
{
    w->ntenants = ntenants;
    w->ver = dike_xcalloc(ntenants ? ntenants : 1, sizeof *w->ver);
    w->moved = dike_xcalloc(ntenants ? ntenants : 1, sizeof *w->moved);
    w->epoch = 0;
    w->ok = 0;
}

void dike_tenantwatch_free(dike_tenantwatch *w)
{
    free(w->ver);
    free(w->moved);
    w->ver = NULL;
    w->moved = NULL;
}

uint32_t dike_tenantwatch_moved(dike_tenantwatch *w, const dike_sched *s)
{
    uint64_t e = dike_sched_est_epoch(s);
    if (w->ok && e == w->epoch)
        return 0;
    w->epoch = e;
    uint32_t n = 0;
    for (uint32_t t = 0; t < w->ntenants; t++) {
        uint64_t v = dike_sched_est_version(s, t);
        if (w->ok && v == w->ver[t])
            continue;
        w->ver[t] = v;
        w->moved[n++] = t;
    }
    w->ok = 1;
    return n;
}
