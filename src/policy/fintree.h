/* Running jobs ordered by finish time, latest first (internal).
 *
 * A running job's finish time is fixed while it runs, so "time left" = finish - now orders the
 * running jobs the same way at every instant: they need no re-sorting as time passes, only an
 * insertion when they start and a removal when they stop. One treap per GPU type (nodes are job
 * indices, priorities a hash of the index), in-order = (finish descending, job index ascending),
 * with each subtree's GPU count: "how many GPUs do the jobs finishing after T hold" is one
 * root-to-leaf descent, and those jobs can be walked in order without disturbing the tree. */
#ifndef DIKE_FINTREE_H
#define DIKE_FINTREE_H

#include <stddef.h>
#include <stdint.h>
#include "dike/sched.h"

typedef struct dike_fintree {
    uint32_t ntrees;    /**< trees (GPU types) */
    uint32_t *root;     /**< per tree: root node, UINT32_MAX if empty */
    size_t size;        /**< jobs in all trees */
    /* per job index */
    uint32_t *l, *r;    /**< children, UINT32_MAX none */
    dike_time *key;     /**< finish time at insertion, us */
    uint32_t *gpus;     /**< the job's GPUs */
    uint64_t *sum;      /**< GPUs in the subtree */
    int32_t *tree;      /**< its tree, -1 when not in one */
    dike_job **job;     /**< the job */
    uint32_t *stack;    /**< walk scratch */
    size_t stack_cap;
} dike_fintree;

void dike_fintree_init(dike_fintree *f, size_t njobs, uint32_t ntrees);
void dike_fintree_free(dike_fintree *f);
/** Insert running job @p j into tree @p tree, keyed by its current j->finish. O(log n). */
void dike_fintree_insert(dike_fintree *f, uint32_t tree, dike_job *j);
/** The same, keyed by @p key instead of j->finish (srtf without the oracle: a bound of the time
 *  left, dike_fintree's order being "latest first" whatever the key means). O(log n). */
void dike_fintree_insert_at(dike_fintree *f, uint32_t tree, dike_job *j, dike_time key);
/** Remove @p j from its tree. O(log n). */
void dike_fintree_remove(dike_fintree *f, dike_job *j);
static inline int dike_fintree_has(const dike_fintree *f, const dike_job *j)
{
    return f->tree[j->idx] >= 0;
}
/** GPUs held by the jobs of @p tree that finish after @p after. O(log n). */
uint64_t dike_fintree_gpus_after(const dike_fintree *f, uint32_t tree, dike_time after);

/** Called per job by dike_fintree_walk; nonzero stops the walk. Must not change the tree. */
typedef int (*dike_fintree_visit_fn)(void *ctx, dike_job *j);
/** Visit the jobs of @p tree that finish after @p after (INT64_MIN: all), latest finish first
 *  (ties: lower job index first). O(log n + visited). */
void dike_fintree_walk(dike_fintree *f, uint32_t tree, dike_time after, dike_fintree_visit_fn visit,
                       void *ctx);

/** An in-order cursor over one tree (for walking several trees merged): the jobs of @p tree that
 *  finish after @p after, latest first (ties: lower job index first), as dike_fintree_walk visits
 *  them. Its stack is its own, so several may be open at once; the tree must not change while it
 *  is. */
typedef struct dike_fintree_iter {
    uint32_t *stack;
    size_t sp, cap;
    uint32_t next;    /**< next node to descend from */
    uint32_t cur;     /**< current job index, UINT32_MAX when done */
    dike_time after;
} dike_fintree_iter;

/** Position @p it at the first job of @p tree finishing after @p after. O(log n). */
void dike_fintree_iter_start(const dike_fintree *f, dike_fintree_iter *it, uint32_t tree,
                             dike_time after);
/** Move @p it to the next job. O(1) amortised. */
void dike_fintree_iter_next(const dike_fintree *f, dike_fintree_iter *it);
void dike_fintree_iter_free(dike_fintree_iter *it);

#endif
