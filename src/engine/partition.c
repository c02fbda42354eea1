/* Node partition and node-rank state. */
#include "engine/partition.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dike_part_layout_init(dike_part_layout *l, const dike_cluster *cl, int nranks, int coord_owns)
{
    l->nranks = nranks;
    l->first_owner = (coord_owns || nranks == 1) ? 0 : 1;
    l->nracks = cl->nracks;
    l->nodes_per_rack = cl->nodes_per_rack;
    l->nodes = cl->nodes;
    l->reverse = 0;
}

void dike_part_layout_reverse(dike_part_layout *l)
{
    l->reverse = l->first_owner == 0 && l->nranks > 1;
}

/* Block b of k holds racks [floor(b*R/k), floor((b+1)*R/k)). */
static uint32_t first_rack(const dike_part_layout *l, int b)
{
    int k = l->nranks - l->first_owner;
    return (uint32_t)(((uint64_t)b * l->nracks) / (uint64_t)k);
}

int dike_part_owner(const dike_part_layout *l, uint32_t node)
{
    uint64_t k = (uint64_t)(l->nranks - l->first_owner);
    uint64_t rack = node / l->nodes_per_rack;
    /* The largest b with floor(b*R/k) <= rack is floor((rack*k + k - 1) / R). */
    uint64_t b = (rack * k + k - 1) / l->nracks;
    if (l->reverse)
        b = k - 1 - b;
    return (int)b + l->first_owner;
}

void dike_part_block(const dike_part_layout *l, int rank, uint32_t *first, uint32_t *n)
{
    if (rank < l->first_owner) {
        *first = 0;
        *n = 0;
        return;
    }
    int b = rank - l->first_owner;
    if (l->reverse)
        b = l->nranks - l->first_owner - 1 - b;
    uint32_t r0 = first_rack(l, b), r1 = first_rack(l, b + 1);
    uint32_t n0 = r0 * l->nodes_per_rack, n1 = r1 * l->nodes_per_rack;
    if (n0 > l->nodes) n0 = l->nodes;
    if (n1 > l->nodes) n1 = l->nodes;
    *first = n0;
    *n = n1 - n0;
}

void dike_part_bucket(const dike_part_layout *l, const void *recs, size_t n, size_t size,
                      size_t node_offset, void *out, int *counts, int *displs)
{
    /* No scratch array: owner() is a few integer operations, so it is computed twice, and counts
     * serves as each owner's write cursor before it gets its counts back. (Its mallocs cost
     * 1.5 % of a 1,000,000-GPU run in glibc's consolidation of freed chunks; docs/performance.md.) */
    const char *in = recs;
    memset(counts, 0, (size_t)l->nranks * sizeof *counts);
    for (size_t i = 0; i < n; i++) {
        uint32_t node;
        memcpy(&node, in + i * size + node_offset, sizeof node);
        counts[dike_part_owner(l, node)]++;
    }
    for (int r = 0, off = 0; r < l->nranks; r++) {
        displs[r] = off;
        off += counts[r];
        counts[r] = displs[r];
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t node;
        memcpy(&node, in + i * size + node_offset, sizeof node);
        memcpy((char *)out + (size_t)counts[dike_part_owner(l, node)]++ * size, in + i * size, size);
    }
    for (int r = 0; r < l->nranks; r++)
        counts[r] -= displs[r];
}

static dike_time draw_exp(dike_rng *r, double mean_us)
{
    dike_time d = (dike_time)llround(-log(dike_rng_uniform(r)) * mean_us);
    return d > 0 ? d : 1;
}

static void push_node_event(dike_part *p, uint32_t k, dike_time t, int kind)
{
    dike_event *ev = dike_pool_get(&p->pool);
    ev->time = t;
    ev->kind = (uint8_t)kind;
    ev->phase = kind == DIKE_EV_NODE_FAIL ? DIKE_PHASE_RELEASE : DIKE_PHASE_ARRIVE;
    ev->entity = p->first + k;
    ev->seq = p->seq[k]++;
    ev->data = 0;
    ev->pad_ = 0;
    dike_heap_push(&p->heap, ev);
}

void dike_part_init(dike_part *p, const dike_cluster *cl, const dike_config *cfg, uint32_t first,
                    uint32_t n)
{
    memset(p, 0, sizeof *p);
    p->cl = cl;
    p->first = first;
    p->n = n;
    p->free = dike_xmalloc((n + 1) * sizeof *p->free);
    p->busy_gpu_s = dike_xcalloc(n + 1, sizeof *p->busy_gpu_s);
    p->jobs_hosted = dike_xcalloc(n + 1, sizeof *p->jobs_hosted);
    p->failures = dike_xcalloc(n + 1, sizeof *p->failures);
    for (uint32_t i = 0; i < n; i++)
        p->free[i] = dike_cluster_node_gpus(cl, first + i);
    dike_pool_init(&p->pool);
    dike_heap_init(&p->heap);
    if (!cfg || cfg->faults_mtbf_s <= 0)
        return;
    /* Faults: each node's failures come from its own stream, so they are the same whichever rank
     * owns the node. */
    p->mtbf_us = cfg->faults_mtbf_s * 1e6;
    p->mttr_us = cfg->faults_mttr_s * 1e6;
    p->down = dike_xcalloc(n + 1, 1);
    p->seq = dike_xcalloc(n + 1, sizeof *p->seq);
    p->rng = dike_xmalloc((n + 1) * sizeof *p->rng);
    size_t slots = (size_t)n * cl->gpus_per_node + 1;
    p->jobs = dike_xmalloc(slots * sizeof *p->jobs);
    memset(p->jobs, 0xff, slots * sizeof *p->jobs);
    for (uint32_t k = 0; k < n; k++) {
        dike_rng_init(&p->rng[k], (uint64_t)cfg->run_seed, first + k, DIKE_STREAM_FAILURE);
        push_node_event(p, k, draw_exp(&p->rng[k], p->mtbf_us), DIKE_EV_NODE_FAIL);
    }
}

void dike_part_free(dike_part *p)
{
    free(p->free);
    free(p->busy_gpu_s);
    free(p->jobs_hosted);
    free(p->failures);
    free(p->down);
    free(p->seq);
    free(p->rng);
    free(p->jobs);
    dike_heap_free(&p->heap);
    dike_pool_free(&p->pool);
    memset(p, 0, sizeof *p);
}

/* Per-node job slots: a node hosts at most gpus_per_node jobs (each holds >= 1 GPU). */
static void slot_add(dike_part *p, uint32_t k, uint32_t job)
{
    uint32_t *sl = &p->jobs[(size_t)k * p->cl->gpus_per_node];
    for (uint32_t i = 0; i < p->cl->gpus_per_node; i++)
        if (sl[i] == UINT32_MAX) {
            sl[i] = job;
            return;
        }
    dike_fatal("node %u hosts more jobs than GPUs", p->first + k);
}

static void slot_remove(dike_part *p, uint32_t k, uint32_t job)
{
    uint32_t *sl = &p->jobs[(size_t)k * p->cl->gpus_per_node];
    for (uint32_t i = 0; i < p->cl->gpus_per_node; i++)
        if (sl[i] == job) {
            sl[i] = UINT32_MAX;
            return;
        }
    dike_fatal("job %u stops on node %u where it does not run", job, p->first + k);
}

void dike_part_apply(dike_part *p, const dike_action *a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t node = a[i].node;
        if (node < p->first || node - p->first >= p->n)
            dike_fatal("action for node %u reached the owner of nodes [%u, %u)", node, p->first,
                       p->first + p->n);
        uint32_t k = node - p->first;
        if (a[i].kind == DIKE_ACT_START) {
            if (a[i].gpus > p->free[k])
                dike_fatal("job %u starts on node %u with %u GPUs, only %u free (GPU allocated twice)",
                           a[i].job, node, a[i].gpus, p->free[k]);
            if (p->down && p->down[k])
                dike_fatal("job %u starts on failed node %u", a[i].job, node);
            p->free[k] -= a[i].gpus;
            p->jobs_hosted[k]++;
            if (p->jobs)
                slot_add(p, k, a[i].job);
        } else {
            if (p->free[k] + a[i].gpus > dike_cluster_node_gpus(p->cl, node))
                dike_fatal("job %u releases %u GPUs on node %u that has %u free", a[i].job,
                           a[i].gpus, node, p->free[k]);
            p->free[k] += a[i].gpus;
            p->busy_gpu_s[k] += a[i].gpus * dike_time_to_s(a[i].time - a[i].run_start);
            if (p->jobs)
                slot_remove(p, k, a[i].job);
        }
    }
    p->applied += n;
}

dike_time dike_part_next_time(const dike_part *p)
{
    const dike_event *ev = dike_heap_top(&p->heap);
    return ev ? ev->time : DIKE_TIME_INF;
}

void dike_part_process(dike_part *p, dike_time t, char **buf, size_t *len, size_t *cap)
{
    const dike_event *top;
    while ((top = dike_heap_top(&p->heap)) && top->time == t) {
        dike_event *ev = dike_heap_pop(&p->heap);
        uint32_t k = ev->entity - p->first;
        dike_node_report r = {t, ev->entity, ev->kind, ev->seq, 0};
        const uint32_t *sl = &p->jobs[(size_t)k * p->cl->gpus_per_node];
        if (ev->kind == DIKE_EV_NODE_FAIL) {
            for (uint32_t i = 0; i < p->cl->gpus_per_node; i++)
                r.njobs += sl[i] != UINT32_MAX;
            p->down[k] = 1;
            p->failures[k]++;
            push_node_event(p, k, t + draw_exp(&p->rng[k], p->mttr_us), DIKE_EV_NODE_REPAIR);
        } else {
            p->down[k] = 0;
            push_node_event(p, k, t + draw_exp(&p->rng[k], p->mtbf_us), DIKE_EV_NODE_FAIL);
        }
        size_t need = *len + sizeof r + r.njobs * sizeof(uint32_t);
        if (need > *cap) {
            *cap = need > 2 * *cap ? need : 2 * *cap;
            *buf = dike_xrealloc(*buf, *cap);
        }
        memcpy(*buf + *len, &r, sizeof r);
        *len += sizeof r;
        for (uint32_t i = 0; i < p->cl->gpus_per_node && r.njobs; i++)
            if (sl[i] != UINT32_MAX) {
                memcpy(*buf + *len, &sl[i], sizeof sl[i]);
                *len += sizeof sl[i];
            }
        dike_pool_put(&p->pool, ev);
        p->node_events++;
    }
}

dike_node_record *dike_part_records(const dike_part *p)
{
    dike_node_record *r = dike_xcalloc(p->n + 1, sizeof *r);
    for (uint32_t i = 0; i < p->n; i++) {
        uint32_t node = p->first + i;
        r[i].node = node;
        r[i].rack = dike_cluster_rack(p->cl, node);
        snprintf(r[i].gpu_type, sizeof r[i].gpu_type, "%s",
                 p->cl->types[dike_cluster_node_type(p->cl, node)].name);
        r[i].busy_gpu_seconds = p->busy_gpu_s[i];
        r[i].jobs_hosted = p->jobs_hosted[i];
        r[i].failures = p->failures[i];
    }
    return r;
}
