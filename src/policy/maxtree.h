/* A max segment tree over n values (internal): point updates in O(log n), and "the next index
 * from i whose value is at least x" in O(log n) per index found. Dike uses it to visit only the
 * nodes where a blocked job could possibly be made room for; las's queued sets (gangtree.h) use
 * it, with values negated, to find the next queued job whose gang fits. */
#ifndef DIKE_POLICY_MAXTREE_H
#define DIKE_POLICY_MAXTREE_H

#include <stddef.h>

typedef struct dike_maxtree {
    size_t n;  /**< values */
    size_t p;  /**< leaves: the smallest power of two >= n */
    double *t; /**< 2p entries: t[1] the root, t[p + i] value i */
} dike_maxtree;

/** n values, all -inf. */
void dike_maxtree_init(dike_maxtree *m, size_t n);
void dike_maxtree_free(dike_maxtree *m);
/** Set value i and update its ancestors. */
void dike_maxtree_set(dike_maxtree *m, size_t i, double v);
/** Set value i without updating ancestors; call dike_maxtree_build once after a batch. */
void dike_maxtree_put(dike_maxtree *m, size_t i, double v);
void dike_maxtree_build(dike_maxtree *m);
/** Value i. */
double dike_maxtree_get(const dike_maxtree *m, size_t i);
/** The smallest index >= @p from whose value is >= @p x, or n if there is none. */
size_t dike_maxtree_next(const dike_maxtree *m, size_t from, double x);

#endif
