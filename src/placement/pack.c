/* pack: fewest nodes, then fewest racks — one node if any node of the type has room (best fit),
 * else one rack with the fewest nodes, else the fewest nodes anywhere. Fastest GPU type first. */
#include "placement/capacity.h"
#include "placement/placement.h"

static int pack_place(dike_capacity *c, const dike_job *j, dike_slice *out, uint32_t *nout,
                      int *type, int *level)
{
    return dike_place_passes(c, j, dike_place_greedy, out, nout, type, level);
}

const dike_placement dike_placement_pack = {
    .name = "pack",
    .summary = "fewest nodes, then fewest racks (best fit); fastest GPU type first",
    .place = pack_place,
    .by_shape = 1,
};
