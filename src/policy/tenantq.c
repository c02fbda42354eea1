/* Job queue whose keys move with the tenants' estimates (tenantq.h says why and how). */
#include "policy/tenantq.h"
#include "base/idlist.h"

#include <math.h>
#include <stdlib.h>

enum { TQ_NONE = 0, TQ_OWN = 1, TQ_SHARED = 2, TQ_STABLE = 3, TQ_FIXED = 4 };

void dike_tenantq_init(dike_tenantq *tq, size_t njobs, uint32_t ntenants, dike_tenantq_key_fn key,
                       dike_tenantq_shared_fn shared, void *ctx)
{
    size_t n = njobs ? njobs : 1;
    tq->slot = dike_jobq_slots(n);
    tq->hslot = dike_jobq_slots(n); /* the side queues never hold one job twice: one array */
    dike_jobq_init(&tq->q, tq->slot);
    tq->ntenants = ntenants;
    size_t nt = ntenants ? ntenants : 1;
    tq->side = dike_xcalloc(nt, sizeof *tq->side);
    for (uint32_t t = 0; t < ntenants; t++)
        dike_jobq_init(&tq->side[t], tq->hslot);
    tq->tslot = dike_jobq_slots(n);
    tq->stable = dike_xcalloc(nt, sizeof *tq->stable);
    for (uint32_t t = 0; t < ntenants; t++)
        dike_jobq_init(&tq->stable[t], tq->tslot);
    tq->skey = dike_xcalloc(nt, sizeof *tq->skey);
    tq->nown = dike_xcalloc(nt, sizeof *tq->nown);
    tq->head = dike_xcalloc(nt, sizeof *tq->head);
    for (uint32_t t = 0; t < ntenants; t++)
        tq->head[t] = -1;
    tq->next = dike_xcalloc(n, sizeof *tq->next);
    tq->prev = dike_xcalloc(n, sizeof *tq->prev);
    tq->kind = dike_xcalloc(n, sizeof *tq->kind);
    tq->jobp = dike_xcalloc(n, sizeof *tq->jobp);
    dike_tenantwatch_init(&tq->watch, ntenants);
    tq->key = key;
    tq->shared = shared;
    tq->stable_fn = NULL;
    tq->level = NULL;
    tq->unit = NULL;
    tq->ctx = ctx;
}

void dike_tenantq_set_scaled(dike_tenantq *tq, dike_tenantq_unit_fn unit)
{
    tq->unit = unit;
}

void dike_tenantq_set_stable(dike_tenantq *tq, dike_tenantq_stable_fn stable, dike_tenantq_level_fn level)
{
    tq->stable_fn = stable && level ? stable : NULL;
    tq->level = stable && level ? level : NULL;
}

void dike_tenantq_free(dike_tenantq *tq)
{
    dike_jobq_free(&tq->q);
    for (uint32_t t = 0; t < tq->ntenants; t++) {
        dike_jobq_free(&tq->side[t]);
        dike_jobq_free(&tq->stable[t]);
    }
    free(tq->side);
    free(tq->stable);
    free(tq->tslot);
    free(tq->slot);
    free(tq->hslot);
    free(tq->skey);
    free(tq->nown);
    dike_tenantwatch_free(&tq->watch);
    free(tq->head);
    free(tq->next);
    free(tq->prev);
    free(tq->kind);
    free(tq->jobp);
}

/* The first (lowest index) of side queue @p q's members of @p gpus GPUs, or NULL. */
static dike_job *side_first(const dike_jobq *q, uint32_t gpus)
{
    uint32_t bi = dike_gang_lower_bound(q->b, q->nb, sizeof *q->b, gpus);
    return bi < q->nb && q->b[bi].gpus == gpus ? dike_jobq_bucket_head(q, bi) : NULL;
}

/* The key of tenant @p t's shared members of @p gpus GPUs. */
static double group_key(const dike_tenantq *tq, uint32_t t, uint32_t gpus)
{
    return tq->unit ? tq->skey[t] * gpus : tq->skey[t];
}

/* The shared key of tenant @p t that shared member @p j gives. */
static double shared_of(const dike_tenantq *tq, const dike_sched *s, const dike_job *j)
{
    return tq->unit ? tq->unit(tq->ctx, s, j) : tq->key(tq->ctx, s, j);
}

/* Tenant @p t's shared key becomes @p k: its groups' firsts move in the ordered queue. */
static void set_shared(dike_tenantq *tq, uint32_t t, double k)
{
    if (k == tq->skey[t])
        return;
    tq->skey[t] = k;
    const dike_jobq *side = &tq->side[t];
    for (uint32_t bi = 0; bi < side->nb; bi++)
        if (side->b[bi].n)
            dike_jobq_update(&tq->q, dike_jobq_bucket_head(side, bi), group_key(tq, t, side->b[bi].gpus));
}

/* Tenant lists of the own members re-keyed at every change of the tenant's estimates. */
static void list_add(dike_tenantq *tq, const dike_job *j)
{
    uint32_t t = j->spec->tenant;
    tq->kind[j->idx] = TQ_OWN;
    dike_idlist_push(&tq->head[t], tq->next, tq->prev, (int32_t)j->idx);
    tq->nown[t]++;
}

static void list_del(dike_tenantq *tq, const dike_job *j)
{
    uint32_t t = j->spec->tenant;
    dike_idlist_unlink(&tq->head[t], tq->next, tq->prev, (int32_t)j->idx);
    tq->nown[t]--;
}

void dike_tenantq_push(dike_tenantq *tq, const dike_sched *s, dike_job *j)
{
    uint32_t t = j->spec->tenant, g = j->spec->num_gpus;
    if (tq->kind[j->idx] != TQ_NONE)
        dike_fatal("tenantq: job %u is queued already", j->idx);
    if (tq->shared && tq->shared(tq->ctx, s, j)) {
        set_shared(tq, t, shared_of(tq, s, j));
        dike_job *f = side_first(&tq->side[t], g);
        dike_jobq_push(&tq->side[t], j, 0);
        if (side_first(&tq->side[t], g) == j) { /* it comes first in its group: it is seen */
            if (f)
                dike_jobq_remove(&tq->q, f);
            dike_jobq_push(&tq->q, j, group_key(tq, t, g));
        }
        tq->kind[j->idx] = TQ_SHARED;
        return;
    }
    dike_jobq_push(&tq->q, j, tq->key(tq->ctx, s, j));
    tq->jobp[j->idx] = j;
    double thr = tq->stable_fn ? tq->stable_fn(tq->ctx, s, j) : -INFINITY;
    if (thr == INFINITY) { /* its key never changes while it waits */
        tq->kind[j->idx] = TQ_FIXED;
        return;
    }
    if (thr > -INFINITY && thr >= tq->level(tq->ctx, s, j)) {
        dike_jobq_push(&tq->stable[t], j, thr);
        tq->kind[j->idx] = TQ_STABLE;
        return;
    }
    list_add(tq, j);
}

void dike_tenantq_remove(dike_tenantq *tq, dike_job *j)
{
    uint32_t t = j->spec->tenant, g = j->spec->num_gpus;
    int32_t i = (int32_t)j->idx;
    switch (tq->kind[i]) {
    case TQ_SHARED: {
        int first = side_first(&tq->side[t], g) == j;
        dike_jobq_remove(&tq->side[t], j);
        if (first) { /* the next of its group is seen in its place */
            dike_jobq_remove(&tq->q, j);
            dike_job *f = side_first(&tq->side[t], g);
            if (f)
                dike_jobq_push(&tq->q, f, group_key(tq, t, g));
        }
        break;
    }
    case TQ_OWN:
        dike_jobq_remove(&tq->q, j);
        list_del(tq, j);
        break;
    case TQ_STABLE:
        dike_jobq_remove(&tq->q, j);
        dike_jobq_remove(&tq->stable[t], j);
        break;
    case TQ_FIXED:
        dike_jobq_remove(&tq->q, j);
        break;
    default:
        dike_fatal("tenantq: job %u is not queued", j->idx);
    }
    tq->kind[i] = TQ_NONE;
}

double dike_tenantq_key(const dike_tenantq *tq, const dike_job *j)
{
    if (tq->kind[j->idx] == TQ_SHARED)
        return group_key(tq, j->spec->tenant, j->spec->num_gpus);
    if (tq->kind[j->idx] == TQ_NONE)
        dike_fatal("tenantq: job %u is not queued", j->idx);
    return dike_jobq_key(&tq->q, j); /* fatal if not queued */
}

/* The shared key of tenant @p t from one of its shared members, if it has any. */
static void refresh_shared(dike_tenantq *tq, const dike_sched *s, uint32_t t)
{
    const dike_jobq *side = &tq->side[t];
    for (uint32_t bi = 0; bi < side->nb; bi++)
        if (side->b[bi].n) {
            set_shared(tq, t, shared_of(tq, s, dike_jobq_bucket_head(side, bi)));
            return;
        }
}

/* Tenant @p t's own members after its level moved: the stable ones whose threshold the level
 * passed join the list, and list members whose key is stable at the level now leave it for the
 * stable heap. With @p rekey, the list's members get their keys (otherwise the caller re-keyed the
 * whole ordered queue). */
static void own_refresh(dike_tenantq *tq, const dike_sched *s, uint32_t t, int rekey)
{
    if (!tq->stable_fn) {
        for (int32_t i = tq->head[t]; rekey && i >= 0; i = tq->next[i])
            dike_jobq_update(&tq->q, tq->jobp[i], tq->key(tq->ctx, s, tq->jobp[i]));
        return;
    }
    /* The tenant's level now, read from any of its own members. */
    dike_jobq *st = &tq->stable[t];
    dike_job *any = tq->head[t] >= 0 ? tq->jobp[tq->head[t]] : dike_jobq_min(st);
    if (!any)
        return;
    double level = tq->level(tq->ctx, s, any);
    /* stable members whose threshold the level passed: re-keyed from now on */
    dike_job *m;
    while ((m = dike_jobq_min(st)) && dike_jobq_key(st, m) < level) {
        dike_jobq_remove(st, m);
        list_add(tq, m);
    }
    for (int32_t i = tq->head[t], nx; i >= 0; i = nx) {
        nx = tq->next[i];
        dike_job *j = tq->jobp[i];
        if (rekey)
            dike_jobq_update(&tq->q, j, tq->key(tq->ctx, s, j));
        double thr = tq->stable_fn(tq->ctx, s, j);
        if (thr > -INFINITY && thr >= level) { /* stable from now on */
            list_del(tq, j);
            dike_jobq_push(st, j, thr);
            tq->kind[i] = TQ_STABLE;
        }
    }
}

void dike_tenantq_refresh_tenant(dike_tenantq *tq, const dike_sched *s, uint32_t t)
{
    refresh_shared(tq, s, t);
    own_refresh(tq, s, t, 1);
}

static double ordered_key(void *ctx, const dike_sched *s, const dike_job *j)
{
    const dike_tenantq *tq = ctx;
    return tq->key(tq->ctx, s, j);
}

void dike_tenantq_refresh(dike_tenantq *tq, const dike_sched *s)
{
    uint32_t n = dike_tenantwatch_moved(&tq->watch, s);
    if (n)
        dike_tenantq_refresh_moved(tq, s, tq->watch.moved, n);
}

void dike_tenantq_refresh_moved(dike_tenantq *tq, const dike_sched *s, const uint32_t *moved, uint32_t n)
{
    size_t own = 0;
    for (uint32_t k = 0; k < n; k++)
        own += tq->nown[moved[k]];
    /* Either way each re-keyed member's key is computed, and that dominates (an estimate, and for
     * dike a probe cap); member by member adds a heap move per member (O(log size)), the whole
     * pass computes every key and heapifies (O(size)). So the whole pass pays only when most
     * members are re-keyed. (Until 2026-12-04 it was taken from own x log2(size) > size on, which
     * made dike's backlog case under `none` 8 % slower than its own per-tenant refresh.) */
    size_t size = tq->q.size;
    if (2 * own <= size) {
        for (uint32_t k = 0; k < n; k++)
            dike_tenantq_refresh_tenant(tq, s, moved[k]);
        return;
    }
    /* Re-key the ordered queue in one pass (a shared group's first gets its tenant's new shared
     * key from the key function), then note the new shared keys, and move the own members whose
     * stability changed with the level (a stable member the level passed must be re-keyed at the
     * next change too, even if that one takes the path above). */
    dike_jobq_rekey(&tq->q, s, ordered_key, tq);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t t = moved[k];
        const dike_jobq *side = &tq->side[t];
        for (uint32_t bi = 0; bi < side->nb; bi++)
            if (side->b[bi].n) {
                tq->skey[t] = shared_of(tq, s, dike_jobq_bucket_head(side, bi));
                break;
            }
        own_refresh(tq, s, t, 0);
    }
}

void dike_tenantq_start_in_order(dike_tenantq *tq, dike_sched *s, int backfill, dike_jobq_start_fn start,
                                 void *ctx)
{
    if (!backfill) {
        /* Strict order: the head starts or everybody waits (head-of-line blocking). */
        dike_job *j;
        while ((j = dike_tenantq_min(tq)) && start(ctx, s, j))
            ;
        return;
    }
    dike_jobq_fill(&tq->q, s, start, ctx);
}
