/* Bucketed job priority queue. */
#include "policy/jobq.h"

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
    for (uint32_t i = 0; i < q->nb; i++) {
        free(q->b[i].heap);
        free(q->b[i].keys);
        free(q->b[i].ids);
    }
    free(q->b);
    int32_t *slot = q->slot;
    memset(q, 0, sizeof *q);
    q->slot = slot;
}

static inline int before(const dike_jobq_bucket *b, size_t x, size_t y)
{
    if (b->keys[x] != b->keys[y])
        return b->keys[x] < b->keys[y];
    return b->ids[x] < b->ids[y];
}

static inline void put(dike_jobq_bucket *b, int32_t *slot, size_t i, dike_job *j, double key, uint32_t id)
{
    b->heap[i] = j;
    b->keys[i] = key;
    b->ids[i] = id;
    slot[id] = (int32_t)i;
}

static void sift_up(dike_jobq_bucket *b, int32_t *slot, size_t i)
{
    dike_job *j = b->heap[i];
    double key = b->keys[i];
    uint32_t id = b->ids[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (b->keys[p] < key || (b->keys[p] == key && b->ids[p] < id))
            break;
        put(b, slot, i, b->heap[p], b->keys[p], b->ids[p]);
        i = p;
    }
    put(b, slot, i, j, key, id);
}

static void sift_down(dike_jobq_bucket *b, int32_t *slot, size_t i)
{
    for (;;) {
        size_t c = 2 * i + 1, best = i;
        if (c < b->n && before(b, c, best))
            best = c;
        if (c + 1 < b->n && before(b, c + 1, best))
            best = c + 1;
        if (best == i)
            return;
        dike_job *tj = b->heap[i];
        double tk = b->keys[i];
        uint32_t tid = b->ids[i];
        put(b, slot, i, b->heap[best], b->keys[best], b->ids[best]);
        put(b, slot, best, tj, tk, tid);
        i = best;
    }
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
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 64;
        b->heap = dike_xrealloc(b->heap, b->cap * sizeof *b->heap);
        b->keys = dike_xrealloc(b->keys, b->cap * sizeof *b->keys);
        b->ids = dike_xrealloc(b->ids, b->cap * sizeof *b->ids);
    }
    put(b, q->slot, b->n++, j, key, j->idx);
    sift_up(b, q->slot, b->n - 1);
    q->size++;
}

/* Slot @p i's entry changed (a new key, or another entry moved in): back to its place. */
static void resift(dike_jobq_bucket *b, int32_t *slot, size_t i)
{
    if (i > 0 && before(b, i, (i - 1) / 2))
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
    if (bi >= q->nb || *i >= b->n || b->heap[*i] != j)
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
    put(b, q->slot, i, b->heap[b->n], b->keys[b->n], b->ids[b->n]);
    resift(b, q->slot, i);
}

double dike_jobq_key(const dike_jobq *q, const dike_job *j)
{
    size_t i;
    return bucket_of(q, j, &i)->keys[i];
}

void dike_jobq_update(dike_jobq *q, dike_job *j, double key)
{
    size_t i;
    dike_jobq_bucket *b = bucket_of(q, j, &i);
    if (b->keys[i] == key)
        return;
    b->keys[i] = key;
    resift(b, q->slot, i);
}

void dike_jobq_rekey(dike_jobq *q, const dike_sched *s, dike_jobq_key_fn key, void *ctx)
{
    for (uint32_t bi = 0; bi < q->nb; bi++) {
        dike_jobq_bucket *b = &q->b[bi];
        for (size_t i = 0; i < b->n; i++)
            b->keys[i] = key(ctx, s, b->heap[i]);
        /* Floyd's bottom-up heap construction: linear in the bucket size */
        for (size_t i = b->n / 2; i-- > 0;)
            sift_down(b, q->slot, i);
    }
}

static int better(const dike_jobq_bucket *x, const dike_jobq_bucket *y)
{
    if (x->keys[0] != y->keys[0])
        return x->keys[0] < y->keys[0];
    return x->ids[0] < y->ids[0];
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
    return best ? best->heap[0] : NULL;
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
