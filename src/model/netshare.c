/* Rack uplinks shared by the gangs that cross them (docs/models.md#network).
 *
 * Each uplink is shared max-min fairly among the gangs crossing it (water-filling on that link
 * alone: a gang limited elsewhere is not given its unused share back, which keeps the computation
 * local to the rack's owner). Ties in demand are broken by index, so the result never depends on
 * the order of equal demands. */
#include "dike/nodemodel.h"

/* Insertion sort of a permutation by (demand, index): each element costs the places it moves, so
 * an order that is nearly right already (the previous call's, on a link where few flows changed)
 * costs little. From the identity, on docs/scaling.md's workload b (about 126 crossing gangs per
 * rack) about a fifth of all pairs were out of order; a heapsort took twice the time. */
static void sort_by_demand(size_t n, const double *demand, uint32_t *order)
{
    for (size_t i = 1; i < n; i++) {
        uint32_t v = order[i];
        size_t k = i;
        while (k > 0 && (demand[order[k - 1]] > demand[v] ||
                         (demand[order[k - 1]] == demand[v] && order[k - 1] > v))) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = v;
    }
}

void dike_netshare_maxmin_from(double cap, size_t n, const double *demand, double *share, uint32_t *order)
{
    sort_by_demand(n, demand, order);
    double left = cap;
    for (size_t i = 0; i < n; i++) {
        double level = left / (double)(n - i); /* equal split of what is left */
        uint32_t f = order[i];
        share[f] = demand[f] < level ? demand[f] : level;
        left -= share[f];
    }
}

void dike_netshare_maxmin(double cap, size_t n, const double *demand, double *share, uint32_t *order)
{
    for (size_t i = 0; i < n; i++)
        order[i] = (uint32_t)i;
    dike_netshare_maxmin_from(cap, n, demand, share, order);
}

double dike_net_factor(double iota, double q)
{
    if (q >= 1)
        return 1.0;
    return 1.0 / ((1.0 - iota) + iota / q);
}
