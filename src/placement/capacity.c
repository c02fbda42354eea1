/* Free-capacity index: per-type free-count buckets, rack counters. */
#include "placement/capacity.h"

#include <stdlib.h>
#include <string.h>

static inline size_t bidx(const dike_capacity *c, int type, uint32_t k)
{
    return (size_t)type * (c->gpn + 1) + k;
}

static inline uint32_t *rack_cnt(dike_capacity *c, uint32_t node)
{
    return &c->rack_cnt[(size_t)dike_cluster_rack(c->cl, node) * (c->gpn + 1) + c->free[node]];
}

static void bucket_insert(dike_capacity *c, uint32_t node)
{
    size_t b = bidx(c, c->type[node], c->free[node]);
    (*rack_cnt(c, node))++;
    uint32_t h = c->head[b];
    c->next[node] = h;
    c->prev[node] = DIKE_NIL;
    if (h != DIKE_NIL)
        c->prev[h] = node;
    c->head[b] = node;
    c->count[b]++;
}

static void bucket_remove(dike_capacity *c, uint32_t node)
{
    size_t b = bidx(c, c->type[node], c->free[node]);
    (*rack_cnt(c, node))--;
    if (c->prev[node] != DIKE_NIL)
        c->next[c->prev[node]] = c->next[node];
    else
        c->head[b] = c->next[node];
    if (c->next[node] != DIKE_NIL)
        c->prev[c->next[node]] = c->prev[node];
    c->count[b]--;
}

dike_capacity *dike_capacity_new(const dike_cluster *cl)
{
    dike_capacity *c = dike_xcalloc(1, sizeof *c);
    c->cl = cl;
    c->gpn = cl->gpus_per_node;
    c->free = dike_xmalloc(cl->nodes * sizeof *c->free);
    c->type = dike_xmalloc(cl->nodes);
    c->next = dike_xmalloc(cl->nodes * sizeof *c->next);
    c->prev = dike_xmalloc(cl->nodes * sizeof *c->prev);
    size_t nb = (size_t)cl->ntypes * (c->gpn + 1);
    c->head = dike_xmalloc(nb * sizeof *c->head);
    c->count = dike_xcalloc(nb, sizeof *c->count);
    for (size_t b = 0; b < nb; b++)
        c->head[b] = DIKE_NIL;
    c->rack_free = dike_xcalloc(cl->nracks, sizeof *c->rack_free);
    c->rack_full = dike_xcalloc(cl->nracks, sizeof *c->rack_full);
    c->rack_cnt = dike_xcalloc((size_t)cl->nracks * (c->gpn + 1), sizeof *c->rack_cnt);
    c->down = dike_xcalloc(cl->nodes, 1);
    /* Insert in reverse so each bucket lists nodes in ascending order at start. */
    for (uint32_t n = cl->nodes; n-- > 0;) {
        c->free[n] = dike_cluster_node_gpus(cl, n);
        c->type[n] = (uint8_t)dike_cluster_node_type(cl, n);
        bucket_insert(c, n);
        c->rack_free[dike_cluster_rack(cl, n)] += c->free[n];
        c->rack_full[dike_cluster_rack(cl, n)]++;
        c->type_free[c->type[n]] += c->free[n];
    }
    c->total_free = cl->total_gpus;
    /* Unconstrained jobs try the fastest type first; ties keep configuration order. */
    for (uint32_t t = 0; t < cl->ntypes; t++)
        c->type_order[t] = (uint8_t)t;
    for (uint32_t i = 1; i < cl->ntypes; i++)
        for (uint32_t j = i; j > 0 && cl->types[c->type_order[j]].speed >
                                          cl->types[c->type_order[j - 1]].speed; j--) {
            uint8_t tmp = c->type_order[j];
            c->type_order[j] = c->type_order[j - 1];
            c->type_order[j - 1] = tmp;
        }
    return c;
}

void dike_capacity_free(dike_capacity *c)
{
    if (!c)
        return;
    free(c->free);
    free(c->type);
    free(c->next);
    free(c->prev);
    free(c->head);
    free(c->count);
    free(c->rack_free);
    free(c->rack_full);
    free(c->rack_cnt);
    free(c->down);
    free(c);
}

void dike_capacity_take(dike_capacity *c, uint32_t node, uint32_t gpus)
{
    if (gpus == 0 || gpus > c->free[node] || c->down[node])
        dike_fatal("capacity: taking %u GPUs from node %u with %u free", gpus, node, c->free[node]);
    uint32_t r = dike_cluster_rack(c->cl, node);
    if (c->free[node] == dike_cluster_node_gpus(c->cl, node))
        c->rack_full[r]--;
    bucket_remove(c, node);
    c->free[node] -= gpus;
    bucket_insert(c, node);
    c->rack_free[r] -= gpus;
    c->type_free[c->type[node]] -= gpus;
    c->total_free -= gpus;
    c->version++;
}

void dike_capacity_give(dike_capacity *c, uint32_t node, uint32_t gpus)
{
    uint32_t cap = dike_cluster_node_gpus(c->cl, node);
    if (gpus == 0 || c->free[node] + gpus > cap || c->down[node])
        dike_fatal("capacity: returning %u GPUs to node %u with %u free of %u", gpus, node,
                   c->free[node], cap);
    uint32_t r = dike_cluster_rack(c->cl, node);
    bucket_remove(c, node);
    c->free[node] += gpus;
    bucket_insert(c, node);
    if (c->free[node] == cap)
        c->rack_full[r]++;
    c->rack_free[r] += gpus;
    c->type_free[c->type[node]] += gpus;
    c->total_free += gpus;
    c->version++;
}

void dike_capacity_set_down(dike_capacity *c, uint32_t node)
{
    uint32_t cap = dike_cluster_node_gpus(c->cl, node);
    if (c->down[node] || c->free[node] != cap)
        dike_fatal("capacity: node %u fails with %u of %u GPUs free (down=%u)", node, c->free[node],
                   cap, c->down[node]);
    uint32_t r = dike_cluster_rack(c->cl, node);
    bucket_remove(c, node);
    c->down[node] = 1;
    c->free[node] = 0; /* rack scans see no room on it */
    c->rack_full[r]--;
    c->rack_free[r] -= cap;
    c->type_free[c->type[node]] -= cap;
    c->total_free -= cap;
    c->version++;
}

void dike_capacity_set_up(dike_capacity *c, uint32_t node)
{
    if (!c->down[node])
        dike_fatal("capacity: node %u repaired but not down", node);
    uint32_t r = dike_cluster_rack(c->cl, node);
    uint32_t cap = dike_cluster_node_gpus(c->cl, node);
    c->down[node] = 0;
    c->free[node] = cap;
    bucket_insert(c, node);
    c->rack_full[r]++;
    c->rack_free[r] += cap;
    c->type_free[c->type[node]] += cap;
    c->total_free += cap;
    c->version++;
}

int dike_slices_level(const dike_cluster *cl, const dike_slice *s, uint32_t n)
{
    if (n <= 1)
        return DIKE_LOC_NODE;
    uint32_t r = dike_cluster_rack(cl, s[0].node);
    for (uint32_t i = 1; i < n; i++)
        if (dike_cluster_rack(cl, s[i].node) != r)
            return DIKE_LOC_CROSS;
    return DIKE_LOC_RACK;
}

int dike_place_single(const dike_capacity *c, int type, uint32_t g, int best_fit, dike_slice *out,
                       uint32_t *nout)
{
    if (g > c->gpn || c->type_free[type] < g)
        return 0;
    for (uint32_t i = 0; i <= c->gpn - g; i++) {
        uint32_t k = best_fit ? g + i : c->gpn - i;
        uint32_t node = dike_capacity_bucket(c, type, k);
        if (node != DIKE_NIL) {
            out[0].node = node;
            out[0].gpus = g;
            *nout = 1;
            return 1;
        }
    }
    return 0;
}

/* Fill out[] from candidate nodes so the gang uses few nodes and leaves few fragments: whole
 * nodes first, largest first, as long as a node's free GPUs do not exceed what is still needed;
 * what is left then goes to the best-fitting unused node. */
uint32_t dike_take_from(const dike_capacity *c, const uint32_t *nodes, uint32_t n,
                                   uint32_t g, dike_slice *out)
{
    uint8_t taken[1024] = {0}; /* n <= nodes_per_rack <= 1024 */
    uint32_t nout = 0, need = g;
    for (uint32_t k = c->gpn; k > 0 && need > 0; k--)
        for (uint32_t i = 0; i < n && need >= k; i++)
            if (c->free[nodes[i]] == k) {
                out[nout].node = nodes[i];
                out[nout].gpus = k;
                nout++;
                taken[i] = 1;
                need -= k;
            }
    if (need > 0) {
        /* Every node with free <= need is taken; the best fit has the fewest free above need. */
        uint32_t best = DIKE_NIL;
        for (uint32_t i = 0; i < n; i++)
            if (!taken[i] && c->free[nodes[i]] > need &&
                (best == DIKE_NIL || c->free[nodes[i]] < c->free[nodes[best]]))
                best = i;
        if (best == DIKE_NIL)
            dike_fatal("placement: rack candidate list cannot hold %u GPUs", g);
        out[nout].node = nodes[best];
        out[nout].gpus = need;
        nout++;
    }
    return nout;
}

uint32_t dike_rack_nodes(const dike_capacity *c, int type, uint32_t r, uint32_t *out)
{
    const dike_cluster *cl = c->cl;
    const dike_gpu_type *t = &cl->types[type];
    uint32_t lo = r * cl->nodes_per_rack, hi = lo + cl->nodes_per_rack, n = 0;
    if (lo < t->first_node) lo = t->first_node;
    if (hi > t->first_node + t->nnodes) hi = t->first_node + t->nnodes;
    for (uint32_t i = lo; i < hi && n < 1024; i++)
        if (c->free[i] > 0)
            out[n++] = i;
    return n;
}

int dike_type_racks(const dike_capacity *c, int type, uint32_t g, uint32_t *r0, uint32_t *r1)
{
    const dike_gpu_type *t = &c->cl->types[type];
    if (t->nnodes == 0 || c->type_free[type] < g)
        return 0;
    *r0 = dike_cluster_rack(c->cl, t->first_node);
    *r1 = dike_cluster_rack(c->cl, t->first_node + t->nnodes - 1);
    return 1;
}

int dike_place_in_rack(const dike_capacity *c, int type, uint32_t g, dike_slice *out,
                        uint32_t *nout)
{
    const dike_cluster *cl = c->cl;
    const dike_gpu_type *t = &cl->types[type];
    uint32_t first_rack, last_rack;
    if (!dike_type_racks(c, type, g, &first_rack, &last_rack))
        return 0;
    uint32_t lower_bound = (g + c->gpn - 1) / c->gpn;
    uint32_t best_rack = DIKE_NIL, best_nodes = UINT32_MAX, best_free = UINT32_MAX;
    uint32_t cand[1024];
    for (uint32_t r = first_rack; r <= last_rack; r++) {
        if (c->rack_free[r] < g)
            continue;
        uint32_t lo = r * cl->nodes_per_rack, hi = lo + cl->nodes_per_rack;
        if (lo < t->first_node) lo = t->first_node;
        if (hi > t->first_node + t->nnodes) hi = t->first_node + t->nnodes;
        /* Count the nodes this rack would need, largest free first. A rack wholly of this type
         * has its nodes by free GPUs kept (rack_cnt): this runs for every rack with room, and
         * counting its nodes here made placement cost grow with nodes x gangs (4 % of a
         * 1,000,000-GPU run). A rack the type only partly fills is counted here. */
        uint32_t scan[257];
        const uint32_t *counts = scan;
        uint32_t avail = 0;
        if (lo == r * cl->nodes_per_rack && hi == lo + cl->nodes_per_rack) {
            counts = &c->rack_cnt[(size_t)r * (c->gpn + 1)];
            avail = c->rack_free[r];
        } else {
            memset(scan, 0, (c->gpn + 1) * sizeof *scan);
            for (uint32_t n = lo; n < hi; n++) {
                scan[c->free[n]]++;
                avail += c->free[n];
            }
        }
        if (avail < g)
            continue;
        uint32_t need = g, used = 0;
        for (uint32_t k = c->gpn; k > 0 && need > 0; k--) {
            uint32_t m = counts[k];
            while (m-- > 0 && need > 0) {
                need -= k < need ? k : need;
                used++;
            }
        }
        if (used < best_nodes || (used == best_nodes && avail < best_free)) {
            /* fewest nodes first; among equals the fullest rack, to keep empty racks whole */
            best_rack = r;
            best_nodes = used;
            best_free = avail;
            if (used == lower_bound)
                break; /* no rack can use fewer nodes: take the first that reaches the bound */
        }
    }
    if (best_rack == DIKE_NIL)
        return 0;
    uint32_t n = dike_rack_nodes(c, type, best_rack, cand);
    *nout = dike_take_from(c, cand, n, g, out);
    return 1;
}

uint32_t dike_take_racks(const dike_capacity *c, int type, uint32_t r0, uint32_t *f, uint32_t nr,
                         uint32_t g, dike_slice *out, uint32_t *left)
{
    uint32_t cand[1024], need = g, n = 0;
    while (need > 0) {
        uint32_t best = UINT32_MAX, best_free = 0;
        for (uint32_t i = 0; i < nr; i++)
            if (f[i] > best_free) {
                best = i;
                best_free = f[i];
            }
        if (best == UINT32_MAX)
            break;
        f[best] = 0;
        uint32_t m = dike_rack_nodes(c, type, r0 + best, cand), have = 0;
        for (uint32_t i = 0; i < m; i++)
            have += c->free[cand[i]];
        if (!have)
            continue; /* f counted other types */
        uint32_t take = have < need ? have : need;
        n += dike_take_from(c, cand, m, take, out + n);
        need -= take;
    }
    *left = need;
    return n;
}

int dike_place_passes(const dike_capacity *c, const dike_job *j, dike_wide_fn wide, dike_slice *out,
                      uint32_t *nout, int *type, int *level)
{
    uint32_t g = j->spec->num_gpus;
    for (int pass = 0; pass < 3; pass++) {
        for (uint32_t i = 0; i < c->cl->ntypes; i++) {
            int t = c->type_order[i];
            if (j->spec->gpu_type >= 0 && j->spec->gpu_type != t)
                continue;
            int ok = pass == 0   ? dike_place_single(c, t, g, 1, out, nout)
                     : pass == 1 ? dike_place_in_rack(c, t, g, out, nout)
                                 : wide(c, t, g, out, nout);
            if (ok) {
                *type = t;
                *level = dike_slices_level(c->cl, out, *nout);
                return 1;
            }
        }
    }
    return 0;
}

int dike_place_greedy(const dike_capacity *c, int type, uint32_t g, dike_slice *out,
                       uint32_t *nout)
{
    if (c->type_free[type] < g)
        return 0;
    uint32_t need = g, n = 0;
    uint32_t taken[257] = {0}; /* nodes taken whole from the head of each bucket */
    for (uint32_t k = c->gpn; k > 0 && need > 0; k--)
        for (uint32_t node = dike_capacity_bucket(c, type, k); node != DIKE_NIL && need >= k;
             node = c->next[node]) {
            out[n].node = node;
            out[n].gpus = k;
            n++;
            taken[k]++;
            need -= k;
        }
    if (need > 0) {
        /* Best fit for the rest: the smallest bucket above need that still has an unused node. */
        for (uint32_t k = need + 1; k <= c->gpn; k++) {
            if (dike_capacity_bucket_count(c, type, k) <= taken[k])
                continue;
            uint32_t node = dike_capacity_bucket(c, type, k);
            for (uint32_t skip = taken[k]; skip > 0; skip--)
                node = c->next[node];
            out[n].node = node;
            out[n].gpus = need;
            n++;
            need = 0;
            break;
        }
    }
    *nout = n;
    return need == 0;
}
