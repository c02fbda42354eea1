/* An ordered set of jobs by index, each with its gang size, that finds "the first job at or after
 * index i whose gang fits in k GPUs" in O(log n) (internal).
 *
 * Used by the round-based policies whose queued jobs keep their key between decisions: a fill
 * then visits only the jobs it can start, in index order, instead of walking (and sorting) the
 * whole queue. A min-tree over job indices: leaf i holds job i's gang size, or
 * DIKE_GANGTREE_NONE when job i is not in the set; an inner node holds the smallest below it. */
#ifndef DIKE_POLICY_GANGTREE_H
#define DIKE_POLICY_GANGTREE_H

#include <stddef.h>
#include <stdint.h>

#define DIKE_GANGTREE_NONE UINT32_MAX

typedef struct dike_gangtree {
    size_t n;      /**< indices 0 .. n-1 */
    size_t leaves; /**< power of two >= n */
    uint32_t *min; /**< 2 x leaves: min[1] is the root, leaf i at leaves + i */
    size_t count;  /**< members */
} dike_gangtree;

/** An empty set over indices 0 .. @p n - 1 (2 x next-power-of-two(n) x 4 bytes). */
void dike_gangtree_init(dike_gangtree *t, size_t n);
void dike_gangtree_free(dike_gangtree *t);
/** Put index @p i in the set with gang size @p gpus (>= 1), or change its size. */
void dike_gangtree_add(dike_gangtree *t, size_t i, uint32_t gpus);
/** Take index @p i out of the set (no-op if absent). */
void dike_gangtree_remove(dike_gangtree *t, size_t i);
/** 1 if index @p i is in the set. */
int dike_gangtree_has(const dike_gangtree *t, size_t i);
/** The smallest member index >= @p from whose gang size is <= @p limit, or SIZE_MAX. */
size_t dike_gangtree_first_fit(const dike_gangtree *t, size_t from, uint64_t limit);

#endif
