/* Min-tree over job indices for "first member at or after i that fits in k GPUs". */
#include "policy/gangtree.h"

#include <stdlib.h>
#include <string.h>

#include "dike/base.h"

void dike_gangtree_init(dike_gangtree *t, size_t n)
{
    memset(t, 0, sizeof *t);
    t->n = n;
    t->leaves = 1;
    while (t->leaves < n)
        t->leaves *= 2;
    t->min = dike_xmalloc(2 * t->leaves * sizeof *t->min);
    memset(t->min, 0xff, 2 * t->leaves * sizeof *t->min); /* every node DIKE_GANGTREE_NONE */
}

void dike_gangtree_free(dike_gangtree *t)
{
    free(t->min);
    memset(t, 0, sizeof *t);
}

/* Set leaf i and recompute its ancestors, stopping early once one is unchanged. */
static void set_leaf(dike_gangtree *t, size_t i, uint32_t v)
{
    size_t k = t->leaves + i;
    t->min[k] = v;
    for (k /= 2; k >= 1; k /= 2) {
        uint32_t a = t->min[2 * k], b = t->min[2 * k + 1];
        uint32_t m = a < b ? a : b;
        if (t->min[k] == m)
            break;
        t->min[k] = m;
    }
}

void dike_gangtree_add(dike_gangtree *t, size_t i, uint32_t gpus)
{
    if (i >= t->n || gpus == DIKE_GANGTREE_NONE)
        dike_fatal("gangtree: bad member %zu (%u GPUs) of %zu", i, gpus, t->n);
    if (t->min[t->leaves + i] == DIKE_GANGTREE_NONE)
        t->count++;
    set_leaf(t, i, gpus);
}

void dike_gangtree_remove(dike_gangtree *t, size_t i)
{
    if (i >= t->n || t->min[t->leaves + i] == DIKE_GANGTREE_NONE)
        return;
    t->count--;
    set_leaf(t, i, DIKE_GANGTREE_NONE);
}

int dike_gangtree_has(const dike_gangtree *t, size_t i)
{
    return i < t->n && t->min[t->leaves + i] != DIKE_GANGTREE_NONE;
}

size_t dike_gangtree_first_fit(const dike_gangtree *t, size_t from, uint64_t limit)
{
    if (from >= t->n || t->min[1] > limit)
        return SIZE_MAX;
    /* Visit, left to right, the subtrees that cover [from, end): from the leaf, climb while the
     * node is a right child, then step to the right sibling; the first subtree holding a fit is
     * searched down to its leftmost fitting leaf. */
    size_t k = t->leaves + from;
    for (;;) {
        if (t->min[k] <= limit) {
            while (k < t->leaves) {
                k *= 2;
                if (t->min[k] > limit)
                    k++;
            }
            return k - t->leaves;
        }
        while (k & 1)
            k /= 2;
        if (k == 0)
            return SIZE_MAX; /* climbed past the root */
        k++;
    }
}
