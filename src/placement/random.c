/* random: a uniformly random node among those of the job's GPU types with room (one node), else a
 * uniformly random rack with room (fewest nodes inside it), else the fewest nodes anywhere.
 * Seeded: the draw comes from the stream keyed (run.seed, job, DIKE_STREAM_PLACEMENT + start
 * count), so it does not depend on anything else that happened, including how many ranks run, and
 * asking "where would this job go" twice gives the same answer. Cost: it walks the buckets it
 * draws from, so it may touch every node with room (unlike pack and spread). */
#include "dike/rng.h"
#include "placement/capacity.h"
#include "placement/placement.h"

static int random_place(dike_capacity *c, const dike_job *j, dike_slice *out, uint32_t *nout,
                        int *type, int *level)
{
    const dike_cluster *cl = c->cl;
    uint32_t g = j->spec->num_gpus;
    dike_rng r;
    dike_rng_init(&r, c->seed, j->idx,
                  (uint64_t)DIKE_STREAM_PLACEMENT + ((uint64_t)(j->preemptions + j->restarts) << 8));
    /* one node */
    uint64_t total = 0;
    for (uint32_t t = 0; t < cl->ntypes; t++)
        if (j->spec->gpu_type < 0 || j->spec->gpu_type == (int)t)
            for (uint32_t k = g; k <= c->gpn; k++)
                total += dike_capacity_bucket_count(c, (int)t, k);
    if (total > 0) {
        uint64_t pick = dike_rng_below(&r, total);
        for (uint32_t t = 0; t < cl->ntypes; t++) {
            if (j->spec->gpu_type >= 0 && j->spec->gpu_type != (int)t)
                continue;
            for (uint32_t k = g; k <= c->gpn; k++) {
                uint32_t cnt = dike_capacity_bucket_count(c, (int)t, k);
                if (pick >= cnt) {
                    pick -= cnt;
                    continue;
                }
                uint32_t node = dike_capacity_bucket(c, (int)t, k);
                while (pick-- > 0)
                    node = c->next[node];
                out[0].node = node;
                out[0].gpus = g;
                *nout = 1;
                *type = (int)t;
                *level = DIKE_LOC_NODE;
                return 1;
            }
        }
    }
    /* one rack: count racks (per type) whose nodes of that type have room */
    uint32_t cand[1024];
    uint64_t racks = 0;
    for (int pass = 0; pass < 2; pass++) {
        uint64_t pick = pass ? dike_rng_below(&r, racks) : 0, seen = 0;
        for (uint32_t t = 0; t < cl->ntypes; t++) {
            if ((j->spec->gpu_type >= 0 && j->spec->gpu_type != (int)t) || !cl->types[t].nnodes)
                continue;
            uint32_t r0 = dike_cluster_rack(cl, cl->types[t].first_node);
            uint32_t r1 = dike_cluster_rack(cl, cl->types[t].first_node + cl->types[t].nnodes - 1);
            for (uint32_t rk = r0; rk <= r1; rk++) {
                if (c->rack_free[rk] < g)
                    continue;
                uint32_t n = dike_rack_nodes(c, (int)t, rk, cand), have = 0;
                for (uint32_t i = 0; i < n; i++)
                    have += c->free[cand[i]];
                if (have < g)
                    continue;
                if (pass && seen == pick) {
                    *nout = dike_take_from(c, cand, n, g, out);
                    *type = (int)t;
                    *level = dike_slices_level(cl, out, *nout);
                    return 1;
                }
                seen++;
            }
        }
        racks = seen;
        if (!racks)
            break;
    }
    /* anywhere */
    for (uint32_t i = 0; i < cl->ntypes; i++) {
        int t = c->type_order[i];
        if (j->spec->gpu_type >= 0 && j->spec->gpu_type != t)
            continue;
        if (dike_place_greedy(c, t, g, out, nout)) {
            *type = t;
            *level = dike_slices_level(cl, out, *nout);
            return 1;
        }
    }
    return 0;
}

const dike_placement dike_placement_random = {
    .name = "random",
    .summary = "uniformly random node with room (seeded per job), else a random rack, else anywhere",
    .place = random_place,
};
