/* Ranked jobs in order, sorted only as far as someone reads (internal).
 *
 * Two tools for that. dike_rank_prefix picks, without sorting them, the best jobs whose gangs fit
 * in a number of GPUs: in a fill or a round those all start or keep running whatever their order
 * among themselves. dike_rankwalk orders what comes after them, on demand.
 *
 * A round-based policy ranks every active job but usually needs only the first few: those that
 * fill the free GPUs. dike_rankwalk heapifies the ranks in O(n) and pops the next one on demand
 * (O(log n) each), so reading the first m costs O(n + m log n) instead of a full sort. The order is
 * exactly dike_ranked_sort's: key, then job index. */
#ifndef DIKE_POLICY_RANKWALK_H
#define DIKE_POLICY_RANKWALK_H

#include <stddef.h>
#include <stdint.h>
#include "policy/common.h"

typedef struct dike_rankwalk {
    dike_ranked *r; /**< the caller's array: [0, heap) a min-heap, [heap, n) popped, last popped first */
    size_t n;       /**< entries */
    size_t heap;    /**< entries still in the heap */
} dike_rankwalk;

/** Walk the @p n entries of @p r (reordered in place; the caller keeps the memory). */
void dike_rankwalk_init(dike_rankwalk *w, dike_ranked *r, size_t n);
/** The @p i-th entry in rank order (0 = best), sorting as far as needed; NULL when i >= n. */
const dike_ranked *dike_rankwalk_at(dike_rankwalk *w, size_t i);
/** Entries already in order (dike_rankwalk_at is O(1) below this). */
static inline size_t dike_rankwalk_sorted(const dike_rankwalk *w) { return w->n - w->heap; }
/** The entries not yet in order, in no particular order: @p *rest gets a pointer to them. */
size_t dike_rankwalk_rest(dike_rankwalk *w, dike_ranked **rest);
/** 1 if @p a goes before @p b (key, then job index). */
int dike_ranked_before(const dike_ranked *a, const dike_ranked *b);
/** A min-heap by dike_ranked_before (r[0] the best): restore it below @p i in the first @p n
 *  entries, or above @p i after r[i] was set (a push). */
void dike_ranked_sift_down(dike_ranked *r, size_t n, size_t i);
void dike_ranked_sift_up(dike_ranked *r, size_t i);
/** Reorder @p r so that its first p entries are the p best (in no particular order), p the largest
 *  count whose gangs add up to at most @p budget GPUs; returns p, and that sum in @p used.
 *  Expected O(n) (quickselect with the gang sizes as weights). */
size_t dike_rank_prefix(dike_ranked *r, size_t n, uint64_t budget, uint64_t *used);

#endif
