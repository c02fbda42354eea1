/* Node partition and node-rank state. */
#include "engine/partition.h"

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
    uint32_t r0 = first_rack(l, b), r1 = first_rack(l, b + 1);
    uint32_t n0 = r0 * l->nodes_per_rack, n1 = r1 * l->nodes_per_rack;
    if (n0 > l->nodes) n0 = l->nodes;
    if (n1 > l->nodes) n1 = l->nodes;
    *first = n0;
    *n = n1 - n0;
}

void dike_part_init(dike_part *p, const dike_cluster *cl, uint32_t first, uint32_t n)
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
        p->free[i] = cl->gpus_per_node;
}

void dike_part_free(dike_part *p)
{
    free(p->free);
    free(p->busy_gpu_s);
    free(p->jobs_hosted);
    free(p->failures);
    memset(p, 0, sizeof *p);
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
            p->free[k] -= a[i].gpus;
            p->jobs_hosted[k]++;
        } else {
            if (p->free[k] + a[i].gpus > p->cl->gpus_per_node)
                dike_fatal("job %u releases %u GPUs on node %u that has %u free", a[i].job,
                           a[i].gpus, node, p->free[k]);
            p->free[k] += a[i].gpus;
            p->busy_gpu_s[k] += a[i].gpus * dike_time_to_s(a[i].time - a[i].run_start);
        }
    }
    p->applied += n;
}

dike_time dike_part_next_time(const dike_part *p)
{
    return DIKE_TIME_INF;
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
