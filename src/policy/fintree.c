/* Treaps of running jobs by finish time. */
#include "policy/fintree.h"

#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

void dike_fintree_init(dike_fintree *f, size_t njobs, uint32_t ntrees)
{
    memset(f, 0, sizeof *f);
    f->ntrees = ntrees;
    f->root = dike_xmalloc((ntrees + 1) * sizeof *f->root);
    for (uint32_t t = 0; t < ntrees; t++)
        f->root[t] = NIL;
    njobs++;
    f->l = dike_xmalloc(njobs * sizeof *f->l);
    f->r = dike_xmalloc(njobs * sizeof *f->r);
    f->key = dike_xmalloc(njobs * sizeof *f->key);
    f->gpus = dike_xmalloc(njobs * sizeof *f->gpus);
    f->sum = dike_xmalloc(njobs * sizeof *f->sum);
    f->tree = dike_xmalloc(njobs * sizeof *f->tree);
    f->job = dike_xcalloc(njobs, sizeof *f->job);
    for (size_t i = 0; i < njobs; i++)
        f->tree[i] = -1;
}

void dike_fintree_free(dike_fintree *f)
{
    free(f->root);
    free(f->l);
    free(f->r);
    free(f->key);
    free(f->gpus);
    free(f->sum);
    free(f->tree);
    free(f->job);
    free(f->stack);
    memset(f, 0, sizeof *f);
}

/* Heap priority of a node: a fixed mix of its index (deterministic, balanced in expectation). */
static inline uint64_t prio(uint32_t v)
{
    uint64_t x = (uint64_t)v + 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* In-order: later finish first, then lower job index. */
static inline int before(const dike_fintree *f, uint32_t a, uint32_t b)
{
    if (f->key[a] != f->key[b])
        return f->key[a] > f->key[b];
    return a < b;
}

static inline uint64_t sum_of(const dike_fintree *f, uint32_t v)
{
    return v == NIL ? 0 : f->sum[v];
}

static inline void pull(dike_fintree *f, uint32_t v)
{
    f->sum[v] = f->gpus[v] + sum_of(f, f->l[v]) + sum_of(f, f->r[v]);
}

/* Split @p v into the nodes before @p x (*a) and the others (*b). */
static void split(dike_fintree *f, uint32_t v, uint32_t x, uint32_t *a, uint32_t *b)
{
    if (v == NIL) {
        *a = *b = NIL;
    } else if (before(f, v, x)) {
        split(f, f->r[v], x, &f->r[v], b);
        pull(f, v);
        *a = v;
    } else {
        split(f, f->l[v], x, a, &f->l[v]);
        pull(f, v);
        *b = v;
    }
}

/* Join @p a and @p b, every node of @p a being before every node of @p b. */
static uint32_t merge(dike_fintree *f, uint32_t a, uint32_t b)
{
    if (a == NIL)
        return b;
    if (b == NIL)
        return a;
    if (prio(a) > prio(b)) {
        f->r[a] = merge(f, f->r[a], b);
        pull(f, a);
        return a;
    }
    f->l[b] = merge(f, a, f->l[b]);
    pull(f, b);
    return b;
}

static uint32_t insert(dike_fintree *f, uint32_t v, uint32_t x)
{
    if (v == NIL)
        return x;
    if (prio(x) > prio(v)) {
        split(f, v, x, &f->l[x], &f->r[x]);
        pull(f, x);
        return x;
    }
    if (before(f, x, v))
        f->l[v] = insert(f, f->l[v], x);
    else
        f->r[v] = insert(f, f->r[v], x);
    pull(f, v);
    return v;
}

static uint32_t erase(dike_fintree *f, uint32_t v, uint32_t x)
{
    if (v == NIL)
        dike_fatal("fintree: job %u is not in its tree", x);
    if (v == x)
        return merge(f, f->l[v], f->r[v]);
    if (before(f, x, v))
        f->l[v] = erase(f, f->l[v], x);
    else
        f->r[v] = erase(f, f->r[v], x);
    pull(f, v);
    return v;
}

void dike_fintree_insert(dike_fintree *f, uint32_t tree, dike_job *j)
{
    dike_fintree_insert_at(f, tree, j, j->finish);
}

void dike_fintree_insert_at(dike_fintree *f, uint32_t tree, dike_job *j, dike_time key)
{
    uint32_t x = j->idx;
    if (tree >= f->ntrees || f->tree[x] >= 0)
        dike_fatal("fintree: cannot insert job %u into tree %u", x, tree);
    f->l[x] = f->r[x] = NIL;
    f->key[x] = key;
    f->gpus[x] = j->spec->num_gpus;
    f->sum[x] = f->gpus[x];
    f->tree[x] = (int32_t)tree;
    f->job[x] = j;
    f->root[tree] = insert(f, f->root[tree], x);
    f->size++;
}

void dike_fintree_remove(dike_fintree *f, dike_job *j)
{
    uint32_t x = j->idx;
    if (f->tree[x] < 0)
        dike_fatal("fintree: job %u is not in a tree", x);
    uint32_t t = (uint32_t)f->tree[x];
    f->root[t] = erase(f, f->root[t], x);
    f->tree[x] = -1;
    f->size--;
}

uint64_t dike_fintree_gpus_after(const dike_fintree *f, uint32_t tree, dike_time after)
{
    uint64_t s = 0;
    uint32_t v = f->root[tree];
    while (v != NIL) {
        if (f->key[v] > after) { /* v and everything before it count */
            s += f->gpus[v] + sum_of(f, f->l[v]);
            v = f->r[v];
        } else {
            v = f->l[v];
        }
    }
    return s;
}

/* The walk is a cursor with the tree's own scratch stack. */
void dike_fintree_walk(dike_fintree *f, uint32_t tree, dike_time after, dike_fintree_visit_fn visit,
                       void *ctx)
{
    dike_fintree_iter it = {.stack = f->stack, .cap = f->stack_cap};
    for (dike_fintree_iter_start(f, &it, tree, after); it.cur != NIL; dike_fintree_iter_next(f, &it))
        if (visit(ctx, f->job[it.cur]))
            break;
    f->stack = it.stack; /* it may have grown */
    f->stack_cap = it.cap;
}

void dike_fintree_iter_next(const dike_fintree *f, dike_fintree_iter *it)
{
    for (uint32_t v = it->next; v != NIL; v = f->l[v]) {
        if (it->sp == it->cap) {
            it->cap = it->cap ? 2 * it->cap : 64;
            it->stack = dike_xrealloc(it->stack, it->cap * sizeof *it->stack);
        }
        it->stack[it->sp++] = v;
    }
    if (!it->sp) {
        it->cur = NIL;
        it->next = NIL;
        return;
    }
    uint32_t v = it->stack[--it->sp];
    if (f->key[v] <= it->after) { /* in order: everything after v finishes no later */
        it->cur = NIL;
        it->next = NIL;
        it->sp = 0;
        return;
    }
    it->cur = v;
    it->next = f->r[v];
}

void dike_fintree_iter_start(const dike_fintree *f, dike_fintree_iter *it, uint32_t tree,
                             dike_time after)
{
    it->sp = 0;
    it->after = after;
    it->next = f->root[tree];
    dike_fintree_iter_next(f, it);
}

void dike_fintree_iter_free(dike_fintree_iter *it)
{
    free(it->stack);
    memset(it, 0, sizeof *it);
}
