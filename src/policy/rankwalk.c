/* A lazily sorted rank order: a binary min-heap popped on demand. */
#include "policy/rankwalk.h"

int dike_ranked_before(const dike_ranked *a, const dike_ranked *b)
{
    if (a->key != b->key)
        return a->key < b->key;
    return a->job->idx < b->job->idx;
}

void dike_ranked_sift_down(dike_ranked *r, size_t n, size_t i)
{
    dike_ranked x = r[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && dike_ranked_before(&r[c + 1], &r[c]))
            c++;
        if (!dike_ranked_before(&r[c], &x))
            break;
        r[i] = r[c];
        i = c;
    }
    r[i] = x;
}

void dike_ranked_sift_up(dike_ranked *r, size_t i)
{
    dike_ranked x = r[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!dike_ranked_before(&x, &r[p]))
            break;
        r[i] = r[p];
        i = p;
    }
    r[i] = x;
}

void dike_rankwalk_init(dike_rankwalk *w, dike_ranked *r, size_t n)
{
    w->r = r;
    w->n = n;
    w->heap = n;
    for (size_t i = n / 2; i-- > 0;)
        dike_ranked_sift_down(r, n, i);
}

/* The root goes to the slot the heap gives up, so popped entries sit at the tail, the first
 * popped last: the i-th in order is r[n - 1 - i]. */
static void pop(dike_rankwalk *w)
{
    size_t last = --w->heap;
    dike_ranked top = w->r[0];
    w->r[0] = w->r[last];
    w->r[last] = top;
    if (last > 1)
        dike_ranked_sift_down(w->r, last, 0);
}

const dike_ranked *dike_rankwalk_at(dike_rankwalk *w, size_t i)
{
    if (i >= w->n)
        return NULL;
    while (w->n - w->heap <= i)
        pop(w);
    return &w->r[w->n - 1 - i];
}

size_t dike_rankwalk_rest(dike_rankwalk *w, dike_ranked **rest)
{
    *rest = w->r;
    return w->heap;
}

static void swap(dike_ranked *a, dike_ranked *b)
{
    dike_ranked t = *a;
    *a = *b;
    *b = t;
}

/* Median of three (lo, mid, last) moved to the last slot: sorted runs stay O(n). */
static void choose_pivot(dike_ranked *r, size_t lo, size_t hi)
{
    size_t mid = lo + (hi - lo) / 2, last = hi - 1;
    if (dike_ranked_before(&r[mid], &r[lo]))
        swap(&r[mid], &r[lo]);
    if (dike_ranked_before(&r[last], &r[lo]))
        swap(&r[last], &r[lo]);
    if (dike_ranked_before(&r[mid], &r[last]))
        swap(&r[mid], &r[last]);
}

size_t dike_rank_prefix(dike_ranked *r, size_t n, uint64_t budget, uint64_t *used)
{
    /* r[0, lo) are taken (better than everything after them, gangs summing to `sum`); the cut
     * lies in [lo, hi]; everything from hi on is worse than everything before it. */
    size_t lo = 0, hi = n;
    uint64_t sum = 0;
    while (lo < hi) {
        choose_pivot(r, lo, hi);
        const dike_ranked *pivot = &r[hi - 1];
        size_t at = lo;
        uint64_t left = 0;
        for (size_t i = lo; i < hi - 1; i++)
            if (dike_ranked_before(&r[i], pivot)) {
                left += r[i].job->spec->num_gpus;
                swap(&r[i], &r[at++]);
            }
        swap(&r[at], &r[hi - 1]);
        if (sum + left > budget) {
            hi = at; /* the cut is among the better ones */
            continue;
        }
        sum += left;
        uint32_t g = r[at].job->spec->num_gpus;
        if (sum + g > budget) {
            lo = at; /* the cut is right at the pivot */
            break;
        }
        sum += g;
        lo = at + 1;
    }
    *used = sum;
    return lo;
}
