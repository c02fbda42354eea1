/* pack: fewest nodes, then fewest racks — one node if any node of the type has room (best fit),
 * else one rack with the fewest nodes, else the fewest nodes anywhere. Fastest GPU type first. */
#include "placement/capacity.h"
#include "placement/placement.h"

static int pack_place(dike_capacity *c, const dike_job *j, dike_slice *out, uint32_t *nout,
                      int *type, int *level)
{
    uint32_t g = j->spec->num_gpus;
    for (int pass = 0; pass < 3; pass++) {
        for (uint32_t i = 0; i < c->cl->ntypes; i++) {
            int t = c->type_order[i];
            if (j->spec->gpu_type >= 0 && j->spec->gpu_type != t)
                continue;
            int ok = pass == 0   ? dike_place_single(c, t, g, 1, out, nout)
                     : pass == 1 ? dike_place_in_rack(c, t, g, out, nout)
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

const dike_placement dike_placement_pack = {
    .name = "pack",
    .summary = "fewest nodes, then fewest racks (best fit); fastest GPU type first",
    .place = pack_place,
};
