/* Internal (engine layer): pooled fixed-size events and the 4-ary heap that orders them.
 *
 * One comparator defines the total order of SPEC §3: (time, phase, kind, entity, seq). No two
 * live events compare equal because (entity, seq) is unique, so the order never depends on
 * insertion order, heap shape or hash order — the root of rank-count-invariant results. */
#ifndef DIKE_ENGINE_EVENT_H
#define DIKE_ENGINE_EVENT_H

#include <stdbool.h>
#include <stdint.h>
#include "dike/base.h"

/** Phases within one timestamp: resources are released before new work arrives, and the
 *  decision step runs after every event of the timestamp has been applied. */
enum dike_phase {
    DIKE_PHASE_RELEASE = 0, /**< completions, node failures: capacity comes back first */
    DIKE_PHASE_ARRIVE = 1,  /**< job arrivals, repairs */
    DIKE_PHASE_ROUND = 2    /**< round boundaries of time-sharing policies */
};

enum dike_event_kind {
    DIKE_EV_JOB_FINISH = 0, /**< entity = job index, data = job epoch at scheduling */
    DIKE_EV_JOB_ARRIVE = 1, /**< entity = job index */
    DIKE_EV_ROUND = 2,      /**< entity = 0, seq = round number */
    DIKE_EV_NODE_FAIL = 3,  /**< phase RELEASE; entity = node, data = index of the node report */
    DIKE_EV_NODE_REPAIR = 4, /**< phase ARRIVE; entity = node */
    DIKE_EV_JOB_STOPPED = 5  /**< emulating mode, phase RELEASE: a stop took effect on the nodes and
                                  the home reported the work left; entity = job, data = run epoch */
};

/** A fixed-size event; lives in a dike_event_pool. */
typedef struct dike_event {
    dike_time time;   /**< simulated time, us */
    uint32_t entity;  /**< job index, node index, ... (meaning set by kind) */
    uint32_t seq;     /**< per-entity sequence number: breaks the last ties */
    uint32_t data;    /**< kind-specific payload (e.g. the job epoch, to discard stale finishes) */
    uint8_t phase;    /**< enum dike_phase */
    uint8_t kind;     /**< enum dike_event_kind */
    uint16_t pad_;
} dike_event;

/** The one comparator: < 0 if a comes first. */
static inline int dike_event_cmp(const dike_event *a, const dike_event *b)
{
    if (a->time != b->time) return a->time < b->time ? -1 : 1;
    if (a->phase != b->phase) return a->phase < b->phase ? -1 : 1;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    if (a->entity != b->entity) return a->entity < b->entity ? -1 : 1;
    if (a->seq != b->seq) return a->seq < b->seq ? -1 : 1;
    return 0;
}

struct dike_bytes;
/** Bytes dike_event_xfer writes for one event. */
#define DIKE_EVENT_XFER_BYTES (sizeof(dike_time) + 3 * sizeof(uint32_t) + 2 * sizeof(uint8_t))
/** Save (@p save = 1) or load an event's fields, in the one order both kinds of checkpoint blob
 *  use: time, entity, seq, data, phase, kind (DIKE_EVENT_XFER_BYTES; the padding is not written). */
void dike_event_xfer(struct dike_bytes *b, int save, dike_event *ev);

/** Event pool: events are carved from fixed chunks that never move and are recycled through a
 *  free list, so the hot path never calls malloc once the pool has warmed up. */
typedef struct dike_event_pool {
    dike_event **chunks;  /**< chunk pointers */
    size_t nchunks;       /**< chunks allocated */
    size_t used_in_last;  /**< events handed out from the last chunk */
    dike_event *free_list;/**< recycled events, linked through their first bytes */
    size_t live;          /**< events currently handed out */
} dike_event_pool;

void dike_pool_init(dike_event_pool *p);
void dike_pool_free(dike_event_pool *p);
dike_event *dike_pool_get(dike_event_pool *p);
void dike_pool_put(dike_event_pool *p, dike_event *ev);

/** Heap slot: the event's time is copied next to the pointer, so most comparisons (different
 *  times) never touch the event itself — the heap walk stays in one cache-friendly array. */
typedef struct dike_heap_slot {
    dike_time time;  /**< == ev->time */
    dike_event *ev;  /**< the event */
} dike_heap_slot;

/** Min-heap of events under dike_event_cmp: 4-ary, each slot's four children on one 64-byte line
 *  (event.c). a[0 .. n) holds the events in heap order. */
typedef struct dike_heap {
    dike_heap_slot *a; /**< heap array (inside mem, placed for the lines) */
    size_t n;          /**< events in the heap */
    size_t cap;        /**< capacity of a */
    void *mem;         /**< the allocation a lives in */
} dike_heap;

void dike_heap_init(dike_heap *h);
void dike_heap_free(dike_heap *h);
void dike_heap_push(dike_heap *h, dike_event *ev);
/** Smallest event, or NULL when empty. */
static inline dike_event *dike_heap_top(const dike_heap *h) { return h->n ? h->a[0].ev : NULL; }
dike_event *dike_heap_pop(dike_heap *h);

#endif
