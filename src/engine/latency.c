/* Decision-step latency histogram (see latency.h). */
#include "engine/latency.h"

int dike_lat_octave(uint32_t active)
{
    return active ? 32 - __builtin_clz(active) : 0;
}

uint64_t dike_lat_octave_lo(int k)
{
    return k ? UINT64_C(1) << (k - 1) : 0;
}

int dike_lat_bin(uint64_t ns)
{
    if (ns < 2 * DIKE_LAT_SUB)
        return (int)ns;
    int e = 63 - __builtin_clzll(ns); /* ns in [2^e, 2^(e+1)), e >= 4 */
    int sub = (int)((ns >> (e - 3)) & (DIKE_LAT_SUB - 1));
    return DIKE_LAT_SUB * (e - 2) + sub;
}

uint64_t dike_lat_lower(int b)
{
    if (b < 2 * DIKE_LAT_SUB)
        return (uint64_t)b;
    int e = b / DIKE_LAT_SUB + 2, sub = b % DIKE_LAT_SUB;
    if (e > 63)
        return UINT64_MAX; /* the edge past the last bin */
    return ((uint64_t)(DIKE_LAT_SUB + sub)) << (e - 3);
}

void dike_lat_add(dike_latency *l, uint64_t ns, uint32_t active)
{
    l->count++;
    l->sum_ns += (double)ns;
    if (ns > l->max_ns || l->count == 1) {
        l->max_ns = ns;
        l->active_at_max = active;
    }
    if (active > l->active_max)
        l->active_max = active;
    l->active_sum += active;
    l->hist[dike_lat_bin(ns)]++;
}

double dike_lat_quantile(const dike_latency *l, double q)
{
    if (!l->count)
        return 0;
    /* the rank of the quantile sample, 1-based: ceil(q * count), at least 1 */
    double want = q * (double)l->count;
    uint64_t seen = 0;
    for (int b = 0; b < DIKE_LAT_BINS; b++) {
        seen += l->hist[b];
        if (seen && (double)seen >= want) {
            /* never above the largest sample (the edge of its bin can be) */
            uint64_t edge = dike_lat_lower(b + 1);
            return (double)(edge < l->max_ns ? edge : l->max_ns);
        }
    }
    return (double)l->max_ns;
}

double dike_lat_mean(const dike_latency *l)
{
    return l->count ? l->sum_ns / (double)l->count : 0;
}
