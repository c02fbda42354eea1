/* An ordered set of jobs by index, each with its gang size, that finds "the first job at or after
 * index i whose gang fits in k GPUs" in O(log n) (internal).
 *
 * Used by the round-based policies whose queued jobs keep their key between decisions: a fill
 * then visits only the jobs it can start, in index order, instead of walking (and sorting) the
 * whole queue. It is the project's max segment tree (policy/maxtree.h) over job indices holding
 * minus each member's gang size (-inf for non-members): "the next index whose value is >= -k" is
 * the next member whose gang fits in k GPUs. */
#ifndef DIKE_POLICY_GANGTREE_H
#define DIKE_POLICY_GANGTREE_H

#include <stddef.h>
#include <stdint.h>

#include "policy/maxtree.h"

typedef struct dike_gangtree {
    dike_maxtree t; /**< leaf i: -(gang size of member i), -inf if i is not a member */
    size_t count;   /**< members */
} dike_gangtree;

/** An empty set over indices 0 .. @p n - 1 (2 x next-power-of-two(n) x 8 bytes). */
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
