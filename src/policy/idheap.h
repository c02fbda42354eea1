/* Indexed binary min-heap of small integer ids (internal).
 *
 * Orders ids 0..nids-1 by a key array the caller owns, ties by the lower id, and remembers each
 * id's slot, so a member whose key changed is put back in place in O(log n) — the shape of a
 * stride scheduler's "tenant with the smallest pass". */
#ifndef DIKE_IDHEAP_H
#define DIKE_IDHEAP_H

#include <stdint.h>

#define DIKE_IDHEAP_NONE UINT32_MAX

typedef struct dike_idheap {
    const double *key; /**< key per id, owned by the caller (smaller first; ties: lower id) */
    uint32_t *h;       /**< ids in heap order */
    uint32_t *pos;     /**< per id: slot in h, DIKE_IDHEAP_NONE when not a member */
    uint32_t n;        /**< members */
    uint32_t nids;     /**< ids are 0..nids-1 */
} dike_idheap;

void dike_idheap_init(dike_idheap *q, uint32_t nids, const double *key);
void dike_idheap_free(dike_idheap *q);
static inline int dike_idheap_has(const dike_idheap *q, uint32_t id)
{
    return q->pos[id] != DIKE_IDHEAP_NONE;
}
/** The smallest member, or DIKE_IDHEAP_NONE. O(1). */
static inline uint32_t dike_idheap_top(const dike_idheap *q)
{
    return q->n ? q->h[0] : DIKE_IDHEAP_NONE;
}
/** Add @p id (must not be a member). O(log n). */
void dike_idheap_push(dike_idheap *q, uint32_t id);
/** Remove member @p id. O(log n). */
void dike_idheap_remove(dike_idheap *q, uint32_t id);
/** Member @p id's key changed: move it to its place. O(log n). */
void dike_idheap_update(dike_idheap *q, uint32_t id);
/** Many keys changed: restore the order of all members. O(n). */
void dike_idheap_rebuild(dike_idheap *q);

#endif
