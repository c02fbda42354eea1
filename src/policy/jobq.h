/* Job priority queue shared by the policies (internal).
 *
 * Jobs are kept in one 4-ary heap per gang size, ordered by (key, job index). The overall head
 * is the best of the bucket heads (few distinct gang sizes exist), and "the best job that fits in
 * k GPUs" skips whole buckets — which keeps fill-in (backfill) scheduling linear in the number of
 * starts instead of the queue length. */
#ifndef DIKE_JOBQ_H
#define DIKE_JOBQ_H

#include <stddef.h>
#include <stdint.h>
#include "dike/sched.h"

/** Buckets by gang size (records whose first member is a uint32_t gang size, sorted by it):
 *  the first of @p n records, @p stride bytes apart, whose size is not below @p gpus (n if none). */
uint32_t dike_gang_lower_bound(const void *buckets, uint32_t n, size_t stride, uint32_t gpus);

/** One heap slot: 16 bytes, four to a cache line, so that a 4-ary heap's children share one line. */
typedef struct dike_jobq_ent {
    double key;   /**< priority (smaller first) */
    uint32_t id;  /**< job index: ties, the job itself (dike_jobq.base) and its slot, read no job */
    uint32_t pad_;
} dike_jobq_ent;

typedef struct dike_jobq_bucket {
    uint32_t gpus;      /**< gang size of the jobs in this bucket (first: dike_gang_lower_bound) */
    dike_jobq_ent *h;   /**< 4-ary heap: children of slot i at 4i + 1 .. 4i + 4 */
    void *mem;          /**< the allocation behind h (h is placed so that children share a line) */
    size_t n, cap;      /**< size, capacity */
} dike_jobq_bucket;
typedef struct dike_jobq {
    dike_jobq_bucket *b; /**< buckets, sorted by gpus */
    uint32_t nb;         /**< number of buckets */
    size_t size;         /**< jobs in the queue */
    int32_t *slot;       /**< per job index: its heap slot while queued (the caller's array) */
    dike_job *base;      /**< the workload's job array (job i is base + i), from the first push */
} dike_jobq;

/** An empty queue. @p slot: one entry per job of the workload, owned by the caller (the policy's
 *  state), where the queue keeps each job's heap slot; queues that never hold the same job at
 *  once (one per tenant) may share one. dike_jobq_slots allocates one. */
void dike_jobq_init(dike_jobq *q, int32_t *slot);
/** A slot array for @p njobs jobs (free with free()). */
int32_t *dike_jobq_slots(size_t njobs);
void dike_jobq_free(dike_jobq *q);
/** Insert @p j with priority @p key (smaller first; ties by job index). */
void dike_jobq_push(dike_jobq *q, dike_job *j, double key);
void dike_jobq_remove(dike_jobq *q, dike_job *j);
/** The best job of bucket @p bi (the lowest key, then the lowest index), or NULL if it is empty. */
static inline dike_job *dike_jobq_bucket_head(const dike_jobq *q, uint32_t bi)
{
    return bi < q->nb && q->b[bi].n ? q->base + q->b[bi].h[0].id : NULL;
}
/** The best job overall, or NULL. */
dike_job *dike_jobq_min(const dike_jobq *q);
/** The best job with num_gpus <= @p max_gpus whose bucket is not marked in @p skip (a bitmask
 *  indexed by bucket, may be NULL), or NULL. *bucket receives its bucket index. */
dike_job *dike_jobq_min_fitting(const dike_jobq *q, uint64_t max_gpus, const uint8_t *skip,
                                uint32_t *bucket);

/** The key queued job @p j has now. */
double dike_jobq_key(const dike_jobq *q, const dike_job *j);
/** Give queued job @p j the key @p key and restore the heap order: O(log size). */
void dike_jobq_update(dike_jobq *q, dike_job *j, double key);

/** Key of a job, for dike_jobq_rekey. */
typedef double (*dike_jobq_key_fn)(void *ctx, const dike_sched *s, const dike_job *j);

/** Recompute every job's key with @p key and restore the heap order: O(size). For keys that change
 *  while jobs wait (duration estimates under scheduler.duration_knowledge = none). */
void dike_jobq_rekey(dike_jobq *q, const dike_sched *s, dike_jobq_key_fn key, void *ctx);

/** Starts @p j if it can (removing it from its queue); returns 1 if it started. */
typedef int (*dike_jobq_start_fn)(void *ctx, dike_sched *s, dike_job *j);

/** Fill-in: start the best job that fits in the free GPUs through @p start until none does; a
 *  bucket whose best job cannot be placed (GPU-type constraint) is skipped for the rest of the call. */
void dike_jobq_fill(dike_jobq *q, dike_sched *s, dike_jobq_start_fn start, void *ctx);

/** Start queued jobs in key order. backfill = 0: stop at the first job that does not fit
 *  (head-of-line blocking); 1: let any later job that fits start (greedy fill-in, no reservation). */
void dike_jobq_start_in_order(dike_jobq *q, dike_sched *s, int backfill);

#endif
