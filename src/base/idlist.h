/* Intrusive doubly linked lists of indices (internal): jobs, tenants. Many lists (one per tenant,
 * say) share per-index link arrays next and prev, each index being in at most one of them at a
 * time; a list is its head, -1 when empty. Dike, srtf and the tenant queue keep their jobs per
 * tenant this way; the engine keeps the tenants by their last change of estimate
 * (engine/estimate.c). */
#ifndef DIKE_IDLIST_H
#define DIKE_IDLIST_H

#include <stdint.h>

/** Put index @p i first in the list whose head is *@p head. */
static inline void dike_idlist_push(int32_t *head, int32_t *next, int32_t *prev, int32_t i)
{
    prev[i] = -1;
    next[i] = *head;
    if (*head >= 0)
        prev[*head] = i;
    *head = i;
}

/** Take index @p i out of the list whose head is *@p head (it must be in it). */
static inline void dike_idlist_unlink(int32_t *head, int32_t *next, int32_t *prev, int32_t i)
{
    if (prev[i] >= 0)
        next[prev[i]] = next[i];
    else
        *head = next[i];
    if (next[i] >= 0)
        prev[next[i]] = prev[i];
}

#endif
