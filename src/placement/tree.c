/* tree: placement along a switch tree, as Slurm's topology/tree plugin does it — one node (best
 * fit), else one rack (fewest nodes), else the narrowest run of adjacent racks that holds the gang
 * (adjacent racks hang off the same aggregation switches), best fit among runs of that width, and
 * inside the run the racks with the most free GPUs first. Fastest GPU type first, like pack.
 *
 * Why adjacency: in a real cluster a gang's traffic that leaves its rack crosses the aggregation
 * layer above it, and neighbouring racks share it; in the emulator a rank owns a block of adjacent
 * racks (src/engine/partition.c), so a gang on adjacent racks stays on one rank unless its run
 * straddles a block boundary, and its slices' factors need not cross ranks
 * (docs/scaling.md). The rate model sees the same locality level as `pack`'s (several racks). */
#include <stdlib.h>

#include "placement/capacity.h"
#include "placement/placement.h"

/* Free GPUs of @p type in rack @p r: the rack's counter when the whole rack is of that type. */
static uint32_t rack_free_of(const dike_capacity *c, int type, uint32_t r)
{
    const dike_cluster *cl = c->cl;
    const dike_gpu_type *t = &cl->types[type];
    uint32_t lo = r * cl->nodes_per_rack, hi = lo + cl->nodes_per_rack;
    if (lo >= t->first_node && hi <= t->first_node + t->nnodes)
        return c->rack_free[r];
    if (lo < t->first_node) lo = t->first_node;
    if (hi > t->first_node + t->nnodes) hi = t->first_node + t->nnodes;
    if (hi > cl->nodes) hi = cl->nodes;
    uint32_t f = 0;
    for (uint32_t n = lo; n < hi; n++)
        f += c->free[n];
    return f;
}

/* The narrowest run of adjacent racks of @p type with at least g free GPUs; among runs of that
 * width the one with the fewest free GPUs (it keeps wide free runs for wide gangs), then the
 * lowest. Racks taken inside it: most free first, so the gang uses few of them. */
static int adjacent_racks(const dike_capacity *c, int type, uint32_t g, dike_slice *out,
                          uint32_t *nout)
{
    uint32_t r0, r1;
    if (!dike_type_racks(c, type, g, &r0, &r1))
        return 0;
    uint32_t nr = r1 - r0 + 1;
    uint32_t *f = dike_xmalloc(nr * sizeof *f);
    for (uint32_t i = 0; i < nr; i++)
        f[i] = rack_free_of(c, type, r0 + i);
    /* Two pointers: for each right end, the shortest window [lo, hi] with sum >= g. */
    uint64_t sum = 0;
    uint32_t lo = 0, best_lo = UINT32_MAX, best_w = UINT32_MAX;
    uint64_t best_sum = 0;
    for (uint32_t hi = 0; hi < nr; hi++) {
        sum += f[hi];
        while (lo < hi && sum - f[lo] >= g)
            sum -= f[lo++];
        if (sum < g)
            continue;
        uint32_t w = hi - lo + 1;
        if (w < best_w || (w == best_w && sum < best_sum)) {
            best_w = w;
            best_lo = lo;
            best_sum = sum;
        }
    }
    if (best_lo == UINT32_MAX) {
        free(f);
        return 0;
    }
    uint32_t left;
    *nout = dike_take_racks(c, type, r0 + best_lo, f + best_lo, best_w, g, out, &left);
    free(f);
    return left == 0;
}

static int tree_place(dike_capacity *c, const dike_job *j, dike_slice *out, uint32_t *nout,
                      int *type, int *level)
{
    return dike_place_passes(c, j, adjacent_racks, out, nout, type, level);
}

const dike_placement dike_placement_tree = {
    .name = "tree",
    .summary = "one node, else one rack, else the narrowest run of adjacent racks (switch tree)",
    .place = tree_place,
    .by_shape = 1,
};
