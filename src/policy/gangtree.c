/* Gang-size set over job indices, on the max segment tree (gangtree.h). */
#include "policy/gangtree.h"

#include <math.h>
#include <stdint.h>

#include "dike/base.h"

void dike_gangtree_init(dike_gangtree *t, size_t n)
{
    dike_maxtree_init(&t->t, n);
    t->count = 0;
}

void dike_gangtree_free(dike_gangtree *t)
{
    dike_maxtree_free(&t->t);
    t->count = 0;
}

void dike_gangtree_add(dike_gangtree *t, size_t i, uint32_t gpus)
{
    if (i >= t->t.n || gpus == 0)
        dike_fatal("gangtree: bad member %zu (%u GPUs) of %zu", i, gpus, t->t.n);
    if (!dike_gangtree_has(t, i))
        t->count++;
    dike_maxtree_set(&t->t, i, -(double)gpus);
}

void dike_gangtree_remove(dike_gangtree *t, size_t i)
{
    if (!dike_gangtree_has(t, i))
        return;
    t->count--;
    dike_maxtree_set(&t->t, i, -INFINITY);
}

int dike_gangtree_has(const dike_gangtree *t, size_t i)
{
    return i < t->t.n && dike_maxtree_get(&t->t, i) != -INFINITY;
}

size_t dike_gangtree_first_fit(const dike_gangtree *t, size_t from, uint64_t limit)
{
    size_t i = dike_maxtree_next(&t->t, from, -(double)limit); /* -gpus >= -limit: it fits */
    return i < t->t.n ? i : SIZE_MAX;
}
