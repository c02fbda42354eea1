/* Which tenants' estimates may have changed (tenantwatch.h). */
#include "policy/tenantwatch.h"

#include <stdlib.h>

void dike_tenantwatch_init(dike_tenantwatch *w, uint32_t ntenants)
{
    w->ntenants = ntenants;
    w->moved = dike_xcalloc(ntenants ? ntenants : 1, sizeof *w->moved);
    w->seen = dike_xcalloc(ntenants / 64 + 1, sizeof *w->seen);
    w->epoch = 0;
    w->ok = 0;
}

void dike_tenantwatch_free(dike_tenantwatch *w)
{
    free(w->moved);
    free(w->seen);
    w->moved = NULL;
    w->seen = NULL;
}

uint32_t dike_tenantwatch_moved(dike_tenantwatch *w, const dike_sched *s)
{
    uint64_t e = dike_sched_est_epoch(s);
    if (w->ok && e == w->epoch)
        return 0;
    w->epoch = e;
    dike_est_mark now = dike_sched_est_mark(s);
    uint32_t n = 0;
    if (!w->ok)
        for (uint32_t t = 0; t < w->ntenants; t++)
            w->moved[n++] = t;
    else
        n = dike_sched_est_moved(s, w->mark, w->moved, w->seen);
    w->mark = now;
    w->ok = 1;
    return n;
}
