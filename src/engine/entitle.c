/* Every run records each tenant's entitlement over time, whatever the policy: the weighted max-min
 * water-filling of the GPUs that are up over the active tenants' demand (GPUs of their queued and
 * running jobs), with the run's tenant weights (SPEC §5.1, the same definition Dike schedules by).
 * It changes only when a demand or the GPUs up change, so it is recomputed at most once per
 * timestamp, after that timestamp's events and before the decision, and its time integral is exact
 * (piecewise constant between changes, closed per tenant when its value changes).
 *
 * The active tenants are kept in a treap ordered by demand / weight (ties: index), each subtree
 * with the sums of its demands and weights. Demands are whole GPUs; when the weights are whole
 * numbers too and the sums stay below 2^52 (`equal` weights, the default, and most weight files),
 * every quantity of the water-filling (dike_tenant_entitle) but its last division is an exact
 * integer, whatever order it is summed in. The first tenant the level does not cover is then found
 * by one descent of the treap (the test is monotone along the order: a covered tenant raises the
 * level for the rest, an uncovered one would lower it), and only the tenants whose value can
 * change are visited: those above the level now or at the last update, and those whose demand
 * changed. The values are the same doubles the whole water-filling gives. Per changed timestamp
 * that is O(changed x log A + uncovered) instead of O(A), A = active tenants (until 2026-12-06 the
 * whole water-filling ran at every contended timestamp: 100,000 jobs of 10,000 tenants under fifo
 * took 2.6 s against 0.09 s with 4 tenants, docs/performance.md). With other weights (e.g.
 * `demand`, fractions) the treap gives the order and the whole water-filling runs, as before.
 * With few tenants the treap costs more than it saves (fifo, 100,000 jobs: 10-25 % more engine
 * time at 16-128 tenants, even at 256), so below engine.entitle_tree_tenants tenants in the
 * workload (default 256) the active tenants are a sorted array instead, re-sorted by insertion at
 * each contended update, and the whole water-filling runs: the same values either way. */
#include "engine/coord.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dike/tenants.h"

/* ---- the treap by (ratio, index) ---- */

static int before(const dike_sched *s, uint32_t a, uint32_t b)
{
    return s->ent_ratio[a] < s->ent_ratio[b] || (s->ent_ratio[a] == s->ent_ratio[b] && a < b);
}

static uint32_t prio(uint32_t t)
{
    uint64_t h = (t + 1) * UINT64_C(0x9E3779B97F4A7C15);
    h ^= h >> 31;
    h *= UINT64_C(0xBF58476D1CE4E5B9);
    return (uint32_t)(h >> 32);
}

static void pull(dike_sched *s, int32_t x)
{
    int32_t l = s->ent_left[x], r = s->ent_right[x];
    s->ent_sumd[x] = s->tenant_demand[x] + (l >= 0 ? s->ent_sumd[l] : 0) + (r >= 0 ? s->ent_sumd[r] : 0);
    s->ent_sumw[x] = s->tenant_weight[x] + (l >= 0 ? s->ent_sumw[l] : 0) + (r >= 0 ? s->ent_sumw[r] : 0);
}

/* Split @p x into the nodes before tenant @p t (in *a) and the rest (in *b). */
static void split(dike_sched *s, int32_t x, uint32_t t, int32_t *a, int32_t *b)
{
    if (x < 0) {
        *a = *b = -1;
        return;
    }
    if (before(s, (uint32_t)x, t)) {
        split(s, s->ent_right[x], t, &s->ent_right[x], b);
        *a = x;
    } else {
        split(s, s->ent_left[x], t, a, &s->ent_left[x]);
        *b = x;
    }
    pull(s, x);
}

static int32_t merge(dike_sched *s, int32_t a, int32_t b)
{
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    if (prio((uint32_t)a) >= prio((uint32_t)b)) {
        s->ent_right[a] = merge(s, s->ent_right[a], b);
        pull(s, a);
        return a;
    }
    s->ent_left[b] = merge(s, a, s->ent_left[b]);
    pull(s, b);
    return b;
}

static void tree_insert(dike_sched *s, uint32_t t)
{
    int32_t a, b;
    s->ent_left[t] = s->ent_right[t] = -1;
    pull(s, (int32_t)t);
    split(s, s->ent_root, t, &a, &b);
    s->ent_root = merge(s, merge(s, a, (int32_t)t), b);
    s->ent_in[t] = 1;
}

/* Tenant @p t leaves; its key (ent_ratio[t]) must still be the one it was inserted with. */
static int32_t erase(dike_sched *s, int32_t x, uint32_t t)
{
    if (x == (int32_t)t)
        return merge(s, s->ent_left[x], s->ent_right[x]);
    if (before(s, t, (uint32_t)x))
        s->ent_left[x] = erase(s, s->ent_left[x], t);
    else
        s->ent_right[x] = erase(s, s->ent_right[x], t);
    pull(s, x);
    return x;
}

static void tree_erase(dike_sched *s, uint32_t t)
{
    s->ent_root = erase(s, s->ent_root, t);
    s->ent_in[t] = 0;
}

/* The tenants of subtree @p x in order, from the first not before @p from (-1: all), into
 * ent_unew. */
static void collect(dike_sched *s, int32_t x, int32_t from)
{
    while (x >= 0) {
        if (from >= 0 && before(s, (uint32_t)x, (uint32_t)from)) {
            x = s->ent_right[x];
            continue;
        }
        collect(s, s->ent_left[x], from);
        s->ent_unew[s->ent_nunew++] = (uint32_t)x;
        x = s->ent_right[x];
        from = -1; /* everything right of a node not before @p from is not before it either */
    }
}

/* ---- the record ---- */

/* A tenant's entitlement becomes @p v at now: its integral is closed lazily, per tenant, only when
 * the value changes. */
static void ent_set(dike_sched *s, uint32_t t, double v)
{
    if (v == s->ent[t])
        return;
    s->ent_gpu_s[t] += s->ent[t] * dike_time_to_s(s->now - s->ent_since[t]);
    s->ent[t] = v;
    s->ent_since[t] = s->now;
}

void dike_ent_init(dike_sched *s)
{
    size_t nt = (size_t)s->w->ntenants + 1;
    s->ent_tree = s->w->ntenants >= (uint64_t)s->cfg->engine_entitle_tree_tenants;
    s->ent_active = dike_xcalloc(nt, sizeof *s->ent_active);
    s->ent_nactive = 0;
    s->tenant_demand = dike_xcalloc(nt, sizeof *s->tenant_demand);
    s->ent_ratio = dike_xcalloc(nt, sizeof *s->ent_ratio);
    s->ent = dike_xcalloc(nt, sizeof *s->ent);
    s->ent_since = dike_xcalloc(nt, sizeof *s->ent_since);
    s->ent_gpu_s = dike_xcalloc(nt, sizeof *s->ent_gpu_s);
    s->ent_out = dike_xcalloc(nt, sizeof *s->ent_out);
    s->ent_changed = dike_xcalloc(nt, sizeof *s->ent_changed);
    s->ent_flag = dike_xcalloc(nt, sizeof *s->ent_flag);
    s->ent_left = dike_xcalloc(nt, sizeof *s->ent_left);
    s->ent_right = dike_xcalloc(nt, sizeof *s->ent_right);
    s->ent_sumd = dike_xcalloc(nt, sizeof *s->ent_sumd);
    s->ent_sumw = dike_xcalloc(nt, sizeof *s->ent_sumw);
    s->ent_in = dike_xcalloc(nt, sizeof *s->ent_in);
    s->ent_u = dike_xcalloc(nt, sizeof *s->ent_u);
    s->ent_unew = dike_xcalloc(nt, sizeof *s->ent_unew);
    s->ent_root = -1;
    s->ent_nu = s->ent_nunew = 0;
}

void dike_ent_weights_ready(dike_sched *s)
{
    /* The descent needs every product of the water-filling exact: a demand times the weights
     * left, at most (all GPUs asked) x (all weight), and the GPUs left times a weight. */
    const double lim = 4503599627370496.0; /* 2^52 */
    double wsum = 0, wmax = 0, dsum = 0;
    int whole = 1;
    for (uint32_t t = 0; t < s->w->ntenants; t++) {
        double w = s->tenant_weight[t];
        whole &= w == floor(w);
        wsum += w;
        wmax = w > wmax ? w : wmax;
    }
    for (size_t i = 0; i < s->w->njobs; i++)
        dsum += s->w->jobs[i].num_gpus;
    double cap = (double)s->cl->total_gpus;
    s->ent_exact = whole && wsum < lim && dsum < lim && (wsum <= 1 || dsum < lim / wsum) &&
                   (wmax <= 1 || cap < lim / wmax);
}

void dike_ent_free(dike_sched *s)
{
    free(s->tenant_demand);
    free(s->ent_ratio);
    free(s->ent);
    free(s->ent_since);
    free(s->ent_gpu_s);
    free(s->ent_out);
    free(s->ent_changed);
    free(s->ent_flag);
    free(s->ent_left);
    free(s->ent_right);
    free(s->ent_sumd);
    free(s->ent_sumw);
    free(s->ent_in);
    free(s->ent_u);
    free(s->ent_unew);
    free(s->ent_active);
}

/* Tenant @p t's demand changes by @p delta GPUs (its place in the order is fixed at the update). */
void dike_ent_demand(dike_sched *s, uint32_t t, double delta)
{
    if (!s->ent_tree && s->tenant_demand[t] == 0 && delta > 0)
        s->ent_active[s->ent_nactive++] = t; /* sorted into place at the next update */
    s->tenant_demand[t] += delta;
    s->ent_total += delta;
    s->ent_dirty = 1;
    if (!s->ent_flag[t]) {
        s->ent_flag[t] = 1;
        s->ent_changed[s->ent_nchanged++] = t;
    }
    if (s->tenant_demand[t] > 0)
        return;
    ent_set(s, t, 0);
    if (!s->ent_tree) {
        uint32_t k = 0;
        while (s->ent_active[k] != t)
            k++;
        memmove(&s->ent_active[k], &s->ent_active[k + 1], (s->ent_nactive - k - 1) * sizeof *s->ent_active);
        s->ent_nactive--;
    }
}

/* The uncovered tenants now, exactly as dike_tenant_entitle finds them: into ent_unew, with
 * their value; the covered ones get their demand where it can have changed. */
static void update_exact(dike_sched *s, double cap)
{
    int32_t x = s->ent_root, first = -1;
    double W = x >= 0 ? s->ent_sumw[x] : 0, D0 = 0, W0 = 0, leftk = 0, rest = 0;
    while (x >= 0) {
        int32_t l = s->ent_left[x];
        double Dp = D0 + (l >= 0 ? s->ent_sumd[l] : 0), Wp = W0 + (l >= 0 ? s->ent_sumw[l] : 0);
        double left = cap - Dp > 0 ? cap - Dp : 0;
        if (s->tenant_demand[x] * (W - Wp) <= left * s->tenant_weight[x]) { /* covered */
            D0 = Dp + s->tenant_demand[x];
            W0 = Wp + s->tenant_weight[x];
            x = s->ent_right[x];
        } else {
            first = x;
            leftk = left;
            rest = W - Wp;
            x = l;
        }
    }
    s->ent_nunew = 0;
    if (first >= 0)
        collect(s, s->ent_root, first);
    for (uint32_t k = 0; k < s->ent_nunew; k++) {
        uint32_t t = s->ent_unew[k];
        ent_set(s, t, leftk * s->tenant_weight[t] / rest);
        s->ent_flag[t] |= 2;
    }
    for (uint32_t k = 0; k < s->ent_nu; k++) /* uncovered at the last update */
        if (!(s->ent_flag[s->ent_u[k]] & 2) && s->ent_in[s->ent_u[k]])
            ent_set(s, s->ent_u[k], s->tenant_demand[s->ent_u[k]]);
    for (uint32_t k = 0; k < s->ent_nchanged; k++)
        if (!(s->ent_flag[s->ent_changed[k]] & 2) && s->ent_in[s->ent_changed[k]])
            ent_set(s, s->ent_changed[k], s->tenant_demand[s->ent_changed[k]]);
    for (uint32_t k = 0; k < s->ent_nunew; k++) {
        s->ent_flag[s->ent_unew[k]] &= (uint8_t)~2;
        s->ent_u[k] = s->ent_unew[k];
    }
    s->ent_nu = s->ent_nunew;
}

void dike_ent_update(dike_sched *s)
{
    double cap = (double)dike_sched_gpus_up(s);
    /* the changed tenants to their new place in the order (the array: at its sort below) */
    for (uint32_t k = 0; k < s->ent_nchanged; k++) {
        uint32_t t = s->ent_changed[k];
        if (s->ent_in[t])
            tree_erase(s, t);
        if (s->tenant_demand[t] > 0) {
            s->ent_ratio[t] = s->tenant_demand[t] / s->tenant_weight[t];
            if (s->ent_tree)
                tree_insert(s, t);
        }
    }
    if (s->ent_total <= cap && !s->ent_contended) {
        /* Enough GPUs for every demand, before and now: everyone is entitled to its demand, and
         * only the tenants whose demand changed have a new value. O(changes). */
        for (uint32_t k = 0; k < s->ent_nchanged; k++)
            if (s->tenant_demand[s->ent_changed[k]] > 0)
                ent_set(s, s->ent_changed[k], s->tenant_demand[s->ent_changed[k]]);
    } else if (!s->ent_tree) {
        /* The order changes little between updates: the insertion sort is about O(A). */
        dike_tenant_order(s->ent_nactive, s->ent_active, s->ent_ratio);
        dike_tenant_entitle(s->ent_nactive, s->ent_active, s->tenant_weight, s->tenant_demand, cap,
                            s->ent_out);
        for (uint32_t k = 0; k < s->ent_nactive; k++)
            ent_set(s, s->ent_active[k], s->ent_out[s->ent_active[k]]);
        s->ent_contended = s->ent_total > cap;
    } else if (s->ent_exact) {
        update_exact(s, cap);
        s->ent_contended = s->ent_total > cap;
    } else {
        s->ent_nunew = 0;
        collect(s, s->ent_root, -1);
        dike_tenant_entitle(s->ent_nunew, s->ent_unew, s->tenant_weight, s->tenant_demand, cap, s->ent_out);
        for (uint32_t k = 0; k < s->ent_nunew; k++)
            ent_set(s, s->ent_unew[k], s->ent_out[s->ent_unew[k]]);
        s->ent_contended = s->ent_total > cap;
    }
    for (uint32_t k = 0; k < s->ent_nchanged; k++)
        s->ent_flag[s->ent_changed[k]] = 0;
    s->ent_nchanged = 0;
    s->ent_dirty = 0;
}

void dike_coord_close_entitlements(dike_sched *s)
{
    /* every tenant's entitlement is 0 already when all jobs finished */
    for (uint32_t t = 0; t < s->w->ntenants; t++)
        ent_set(s, t, 0);
}

void dike_coord_entitle_rebuild(dike_sched *s)
{
    s->ent_total = 0;
    s->ent_root = -1;
    s->ent_nactive = 0;
    for (uint32_t t = 0; t < s->w->ntenants; t++) {
        s->ent_in[t] = 0;
        s->ent_total += s->tenant_demand[t];
        if (s->tenant_demand[t] > 0) {
            s->ent_ratio[t] = s->tenant_demand[t] / s->tenant_weight[t];
            if (s->ent_tree)
                tree_insert(s, t);
            else
                s->ent_active[s->ent_nactive++] = t;
        }
    }
    dike_tenant_order(s->ent_nactive, s->ent_active, s->ent_ratio);
    s->ent_nchanged = 0;
    s->ent_dirty = 0;
    /* The level of the last update is not saved: every active tenant counts as above it then, so
     * the next contended update sets each one, as the whole water-filling does. */
    s->ent_nunew = 0;
    collect(s, s->ent_root, -1);
    memcpy(s->ent_u, s->ent_unew, s->ent_nunew * sizeof *s->ent_u);
    s->ent_nu = s->ent_nunew;
}
