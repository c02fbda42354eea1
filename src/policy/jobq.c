/* Bucketed job priority queue. */
#include "policy/jobq.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void dike_jobq_init(dike_jobq *q, int32_t *slot)
{
    memset(q, 0, sizeof *q);
    q->slot = slot;
}

int32_t *dike_jobq_slots(size_t njobs)
{
    return dike_xcalloc(njobs ? njobs : 1, sizeof(int32_t));
}

void dike_jobq_free(dike_jobq *q)
{
    for (uint32_t i = 0; i < q->nb; i++)
        free(q->b[i].mem);
    free(q->b);
    int32_t *slot = q->slot;
    memset(q, 0, sizeof *q);
    q->slot = slot;
}

/* The heap is 4-ary with 16-byte slots placed so that the four children of a slot, 4i + 1 ..
 * 4i + 4, fill one 64-byte line: a level of a sift costs one line, and a queue of a million jobs
 * is ten levels deep instead of twenty (docs/performance.md, "The job queues' heaps"). The order
 * is total (key, then job index), so the head, the only slot anyone reads, does not depend on
 * the heap's shape. */
enum { ARITY = 4 };

static inline int ent_before(const dike_jobq_ent *x, const dike_jobq_ent *y)
{
    if (x->key != y->key)
        return x->key < y->key;
    return x->id < y->id;
}

static inline void put(dike_jobq_bucket *b, int32_t *slot, size_t i, dike_jobq_ent e)
{
    b->h[i] = e;
    slot[e.id] = (int32_t)i;
}

static void sift_up(dike_jobq_bucket *b, int32_t *slot, size_t i)
{
    dike_jobq_ent e = b->h[i];
    while (i > 0) {
        size_t p = (i - 1) / ARITY;
        if (ent_before(&b->h[p], &e))
            break;
        put(b, slot, i, b->h[p]);
        i = p;
    }
    put(b, slot, i, e);
}

static void sift_down(dike_jobq_bucket *b, int32_t *slot, size_t i)
{
    dike_jobq_ent e = b->h[i];
    for (;;) {
        size_t c = ARITY * i + 1, best = i;
        const dike_jobq_ent *bp = &e;
        size_t end = c + ARITY < b->n ? c + ARITY : b->n;
        for (; c < end; c++)
            if (ent_before(&b->h[c], bp)) {
                best = c;
                bp = &b->h[c];
            }
        if (best == i)
            break;
        put(b, slot, i, b->h[best]);
        i = best;
    }
    put(b, slot, i, e);
}

/* Room for @p cap slots, h placed so that slot 1 starts a line (then so does every 4k + 1). */
static void grow(dike_jobq_bucket *b, size_t cap)
{
    b->h = dike_heap_lines_grow(b->h, b->n, cap, sizeof *b->h, &b->mem);
    b->cap = cap;
}

uint32_t dike_gang_lower_bound(const void *buckets, uint32_t n, size_t stride, uint32_t gpus)
{
    const unsigned char *b = buckets;
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2, g;
        memcpy(&g, b + (size_t)mid * stride, sizeof g); /* the record's first member */
        if (g < gpus)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first bucket whose gang size is not below @p gpus (q->nb if none). */
static uint32_t bucket_at(const dike_jobq *q, uint32_t gpus)
{
    return dike_gang_lower_bound(q->b, q->nb, sizeof *q->b, gpus);
}

static uint32_t bucket_for(dike_jobq *q, uint32_t gpus)
{
    uint32_t lo = bucket_at(q, gpus);
    if (lo < q->nb && q->b[lo].gpus == gpus)
        return lo;
    /* New gang size: insert a bucket, keeping buckets sorted (a job's bucket is found from its
     * gang size, so nothing else changes). */
    q->b = dike_xrealloc(q->b, (q->nb + 1) * sizeof *q->b);
    memmove(&q->b[lo + 1], &q->b[lo], (q->nb - lo) * sizeof *q->b);
    memset(&q->b[lo], 0, sizeof q->b[lo]);
    q->b[lo].gpus = gpus;
    q->nb++;
    return lo;
}

void dike_jobq_push(dike_jobq *q, dike_job *j, double key)
{
    uint32_t bi = bucket_for(q, j->spec->num_gpus);
    dike_jobq_bucket *b = &q->b[bi];
    if (!q->base)
        q->base = j - j->idx;
    else if (q->base + j->idx != j)
        dike_fatal("jobq: job %u is not of the queue's job array", j->idx);
    if (b->n == b->cap)
        grow(b, b->cap ? 2 * b->cap : 64);
    put(b, q->slot, b->n++, (dike_jobq_ent){.key = key, .id = j->idx});
    sift_up(b, q->slot, b->n - 1);
    q->size++;
}

/* Slot @p i's entry changed (a new key, or another entry moved in): back to its place. */
static void resift(dike_jobq_bucket *b, int32_t *slot, size_t i)
{
    if (i > 0 && ent_before(&b->h[i], &b->h[(i - 1) / ARITY]))
        sift_up(b, slot, i);
    else
        sift_down(b, slot, i);
}

/* Queued job @p j's bucket; fatal if it is not queued. */
static dike_jobq_bucket *bucket_of(const dike_jobq *q, const dike_job *j, size_t *i)
{
    uint32_t bi = bucket_at(q, j->spec->num_gpus);
    dike_jobq_bucket *b = &q->b[bi < q->nb ? bi : 0];
    *i = (size_t)q->slot[j->idx];
    if (bi >= q->nb || *i >= b->n || b->h[*i].id != j->idx || q->base + j->idx != j)
        dike_fatal("jobq: job %u is not in the queue", j->idx);
    return b;
}

void dike_jobq_remove(dike_jobq *q, dike_job *j)
{
    size_t i;
    dike_jobq_bucket *b = bucket_of(q, j, &i);
    b->n--;
    q->size--;
    if (i == b->n)
        return;
    put(b, q->slot, i, b->h[b->n]);
    resift(b, q->slot, i);
}

double dike_jobq_key(const dike_jobq *q, const dike_job *j)
{
    size_t i;
    return bucket_of(q, j, &i)->h[i].key;
}

void dike_jobq_update(dike_jobq *q, dike_job *j, double key)
{
    size_t i;
    dike_jobq_bucket *b = bucket_of(q, j, &i);
    if (b->h[i].key == key)
        return;
    b->h[i].key = key;
    resift(b, q->slot, i);
}

void dike_jobq_rekey(dike_jobq *q, const dike_sched *s, dike_jobq_key_fn key, void *ctx)
{
    for (uint32_t bi = 0; bi < q->nb; bi++) {
        dike_jobq_bucket *b = &q->b[bi];
        for (size_t i = 0; i < b->n; i++)
            b->h[i].key = key(ctx, s, q->base + b->h[i].id);
        /* Floyd's bottom-up heap construction: linear in the bucket size */
        for (size_t i = b->n > 1 ? (b->n - 2) / ARITY + 1 : 0; i-- > 0;)
            sift_down(b, q->slot, i);
    }
}

static int better(const dike_jobq_bucket *x, const dike_jobq_bucket *y)
{
    return ent_before(&x->h[0], &y->h[0]);
}

dike_job *dike_jobq_min(const dike_jobq *q)
{
    return dike_jobq_min_fitting(q, UINT64_MAX, NULL, NULL);
}

dike_job *dike_jobq_min_fitting(const dike_jobq *q, uint64_t max_gpus, const uint8_t *skip,
                                uint32_t *bucket)
{
    const dike_jobq_bucket *best = NULL;
    uint32_t bi = 0;
    for (uint32_t i = 0; i < q->nb && q->b[i].gpus <= max_gpus; i++) {
        if (!q->b[i].n || (skip && skip[i]))
            continue;
        if (!best || better(&q->b[i], best)) {
            best = &q->b[i];
            bi = i;
        }
    }
    if (bucket)
        *bucket = bi;
    return best ? q->base + best->h[0].id : NULL;
}

void dike_jobq_fill(dike_jobq *q, dike_sched *s, dike_jobq_start_fn start, void *ctx)
{
    uint8_t *skip = NULL;
    uint32_t nskip = 0, bi;
    dike_job *j;
    while ((j = dike_jobq_min_fitting(q, dike_sched_free_gpus(s, -1), skip, &bi))) {
        if (start(ctx, s, j))
            continue;
        if (bi >= nskip) { /* buckets may have been added since the last look */
            skip = dike_xrealloc(skip, q->nb);
            memset(skip + nskip, 0, q->nb - nskip);
            nskip = q->nb;
        }
        skip[bi] = 1;
    }
    free(skip);
}

static int start_removing(void *ctx, dike_sched *s, dike_job *j)
{
    if (!dike_sched_start(s, j))
        return 0;
    dike_jobq_remove(ctx, j);
    return 1;
}

void dike_jobq_start_in_order(dike_jobq *q, dike_sched *s, int backfill)
{
    if (!backfill) {
        /* Strict order: the head starts or everybody waits (head-of-line blocking). */
        dike_job *j;
        while ((j = dike_jobq_min(q)) && dike_sched_start(s, j))
            dike_jobq_remove(q, j);
        return;
    }
    /* Fill-in: the best job that fits starts; a bucket whose head cannot be placed (GPU-type
     * constraint) is skipped for the rest of this decision. No reservation for the head. */
    dike_jobq_fill(q, s, start_removing, q);
}
