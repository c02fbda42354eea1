/* Event pool and binary heap. */
#include "engine/event.h"

#include "base/bytes.h"

#include <stdlib.h>
#include <string.h>

#define POOL_CHUNK 4096

void dike_pool_init(dike_event_pool *p)
{
    memset(p, 0, sizeof *p);
    p->used_in_last = POOL_CHUNK; /* forces a chunk on first use */
}

void dike_pool_free(dike_event_pool *p)
{
    for (size_t i = 0; i < p->nchunks; i++)
        free(p->chunks[i]);
    free(p->chunks);
    memset(p, 0, sizeof *p);
}

dike_event *dike_pool_get(dike_event_pool *p)
{
    dike_event *ev;
    if (p->free_list) {
        ev = p->free_list;
        memcpy(&p->free_list, ev, sizeof p->free_list);
    } else {
        if (p->used_in_last == POOL_CHUNK) {
            p->chunks = dike_xrealloc(p->chunks, (p->nchunks + 1) * sizeof *p->chunks);
            p->chunks[p->nchunks++] = dike_xmalloc(POOL_CHUNK * sizeof(dike_event));
            p->used_in_last = 0;
        }
        ev = &p->chunks[p->nchunks - 1][p->used_in_last++];
    }
    p->live++;
    return ev;
}

void dike_pool_put(dike_event_pool *p, dike_event *ev)
{
    memcpy(ev, &p->free_list, sizeof p->free_list);
    p->free_list = ev;
    p->live--;
}

void dike_heap_init(dike_heap *h)
{
    memset(h, 0, sizeof *h);
}

void dike_heap_free(dike_heap *h)
{
    free(h->a);
    memset(h, 0, sizeof *h);
}

static inline int slot_less(const dike_heap_slot *x, const dike_heap_slot *y)
{
    if (x->time != y->time)
        return x->time < y->time;
    return dike_event_cmp(x->ev, y->ev) < 0;
}

void dike_heap_push(dike_heap *h, dike_event *ev)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 256;
        h->a = dike_xrealloc(h->a, h->cap * sizeof *h->a);
    }
    dike_heap_slot slot = {ev->time, ev};
    size_t i = h->n++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!slot_less(&slot, &h->a[parent]))
            break;
        h->a[i] = h->a[parent];
        i = parent;
    }
    h->a[i] = slot;
}

dike_event *dike_heap_pop(dike_heap *h)
{
    if (!h->n)
        return NULL;
    dike_event *top = h->a[0].ev;
    dike_heap_slot last = h->a[--h->n];
    size_t i = 0, n = h->n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && slot_less(&h->a[c + 1], &h->a[c]))
            c++;
        if (!slot_less(&h->a[c], &last))
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (n)
        h->a[i] = last;
    return top;
}

void dike_event_xfer(struct dike_bytes *b, int save, dike_event *ev)
{
    dike_bytes_xfer(b, save, &ev->time, sizeof ev->time);
    dike_bytes_xfer(b, save, &ev->entity, sizeof ev->entity);
    dike_bytes_xfer(b, save, &ev->seq, sizeof ev->seq);
    dike_bytes_xfer(b, save, &ev->data, sizeof ev->data);
    dike_bytes_xfer(b, save, &ev->phase, sizeof ev->phase);
    dike_bytes_xfer(b, save, &ev->kind, sizeof ev->kind);
}
