/* Max segment tree (maxtree.h). */
#include "policy/maxtree.h"

#include <math.h>
#include <stdlib.h>

#include "dike/base.h"

void dike_maxtree_init(dike_maxtree *m, size_t n)
{
    m->n = n;
    m->p = 1;
    while (m->p < n)
        m->p *= 2;
    m->t = dike_xmalloc(2 * m->p * sizeof *m->t);
    for (size_t i = 0; i < 2 * m->p; i++)
        m->t[i] = -INFINITY;
}

void dike_maxtree_free(dike_maxtree *m)
{
    free(m->t);
    m->t = NULL;
    m->n = m->p = 0;
}

void dike_maxtree_put(dike_maxtree *m, size_t i, double v)
{
    m->t[m->p + i] = v;
}

void dike_maxtree_build(dike_maxtree *m)
{
    for (size_t k = m->p - 1; k >= 1; k--)
        m->t[k] = fmax(m->t[2 * k], m->t[2 * k + 1]);
}

void dike_maxtree_set(dike_maxtree *m, size_t i, double v)
{
    size_t k = m->p + i;
    m->t[k] = v;
    for (k /= 2; k >= 1; k /= 2) {
        double up = fmax(m->t[2 * k], m->t[2 * k + 1]);
        if (m->t[k] == up)
            break; /* nothing above changes */
        m->t[k] = up;
    }
}

double dike_maxtree_get(const dike_maxtree *m, size_t i)
{
    return m->t[m->p + i];
}

size_t dike_maxtree_next(const dike_maxtree *m, size_t from, double x)
{
    if (from >= m->n)
        return m->n;
    /* Climb from the leaf: at each level, when the current subtree is a left child, its right
     * sibling covers the indices just after it. Stop at the first sibling (or the leaf itself)
     * whose max is >= x, then descend to its leftmost such leaf. */
    size_t k = m->p + from;
    if (!(m->t[k] >= x)) {
        for (;;) {
            while (k & 1) { /* a right child: go up until we are a left child */
                k /= 2;
                if (k == 0)
                    return m->n;
            }
            if (k == 0)
                return m->n;
            k++; /* the right sibling */
            if (m->t[k] >= x)
                break;
        }
        while (k < m->p)
            k = m->t[2 * k] >= x ? 2 * k : 2 * k + 1;
    }
    size_t i = k - m->p;
    return i < m->n ? i : m->n;
}
