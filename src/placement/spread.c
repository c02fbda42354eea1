/* spread: worst fit — a gang that fits on one node goes to the node with the most free GPUs,
 * keeping busy GPUs even across nodes (less interference per node) at the price of fragmentation;
 * larger gangs take the emptiest nodes anywhere. Fastest GPU type first. */
#include "placement/capacity.h"
#include "placement/placement.h"

static int spread_place(dike_capacity *c, const dike_job *j, dike_slice *out, uint32_t *nout,
                        int *type, int *level)
{
    uint32_t g = j->spec->num_gpus;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < c->cl->ntypes; i++) {
            int t = c->type_order[i];
            if (j->spec->gpu_type >= 0 && j->spec->gpu_type != t)
                continue;
            int ok = pass == 0 ? dike_place_single(c, t, g, 0, out, nout)
                               : dike_place_greedy(c, t, g, out, nout);
            if (ok) {
                *type = t;
                *level = dike_slices_level(c->cl, out, *nout);
                return 1;
            }
        }
    }
    return 0;
}

const dike_placement dike_placement_spread = {
    .name = "spread",
    .summary = "worst fit: the node with the most free GPUs; larger gangs on the emptiest nodes",
    .place = spread_place,
    .by_shape = 1,
};
