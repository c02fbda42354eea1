/* topo: topology- and GPU-type-aware. For every GPU type the job may use, find its best
 * placement — one node (best fit), else one rack (fewest nodes), else the fewest racks (racks with
 * the most free GPUs first, whole racks before partial ones) — and keep the type whose placement
 * gives the highest rate (speed x locality); ties go to fewer nodes, then to the faster type. */
#include <stdlib.h>

#include "placement/capacity.h"
#include "placement/placement.h"

/* Fewest racks: take racks with the most free GPUs of this type first. */
static int fewest_racks(const dike_capacity *c, int type, uint32_t g, dike_slice *out,
                        uint32_t *nout)
{
    uint32_t r0, r1, left;
    if (!dike_type_racks(c, type, g, &r0, &r1))
        return 0;
    uint32_t *f = dike_xmalloc((r1 - r0 + 1) * sizeof *f);
    for (uint32_t rk = r0; rk <= r1; rk++)
        f[rk - r0] = c->rack_free[rk];
    *nout = dike_take_racks(c, type, r0, f, r1 - r0 + 1, g, out, &left);
    free(f);
    return left == 0;
}

static int topo_place(dike_capacity *c, const dike_job *j, dike_slice *out, uint32_t *nout,
                      int *type, int *level)
{
    const dike_cluster *cl = c->cl;
    uint32_t g = j->spec->num_gpus, n;
    double best_rate = -1;
    uint32_t best_n = 0;
    int found = 0;
    dike_slice *tmp = out + g; /* the caller's buffer holds 2 x num_gpus slices (see coord.c) */
    for (uint32_t i = 0; i < cl->ntypes; i++) {
        int t = c->type_order[i];
        if (j->spec->gpu_type >= 0 && j->spec->gpu_type != t)
            continue;
        int ok = dike_place_single(c, t, g, 1, tmp, &n) || dike_place_in_rack(c, t, g, tmp, &n) ||
                 fewest_racks(c, t, g, tmp, &n);
        if (!ok)
            continue;
        int lv = dike_slices_level(cl, tmp, n);
        double rate = dike_cluster_rate(cl, t, g, lv);
        if (!found || rate > best_rate || (rate == best_rate && n < best_n)) {
            for (uint32_t k = 0; k < n; k++)
                out[k] = tmp[k];
            best_rate = rate;
            best_n = n;
            *type = t;
            *level = lv;
            found = 1;
        }
    }
    *nout = best_n;
    return found;
}

const dike_placement dike_placement_topo = {
    .name = "topo",
    .summary = "best rate first: one node, else one rack, else fewest racks, across GPU types",
    .place = topo_place,
    .by_shape = 1,
};
