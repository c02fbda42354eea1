/* A lazily sorted rank order: a binary min-heap popped on demand. */
#include "policy/rankwalk.h"

int dike_ranked_before(const dike_ranked *a, const dike_ranked *b)
{
    if (a->key != b->key)
        return a->key < b->key;
    return a->job->idx < b->job->idx;
}

static void sift_down(dike_ranked *r, size_t n, size_t i)
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

void dike_rankwalk_init(dike_rankwalk *w, dike_ranked *r, size_t n)
{
    w->r = r;
    w->n = n;
    w->heap = n;
    for (size_t i = n / 2; i-- > 0;)
        sift_down(r, n, i);
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
        sift_down(w->r, last, 0);
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
