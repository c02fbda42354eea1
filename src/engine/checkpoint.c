/* Checkpoint and resume: byte blobs in one HDF5 file. */
#include "engine/checkpoint.h"
#include "base/bytes.h"
#include "engine/nodes.h"

#include "base/mpi.h"
#include "placement/capacity.h"
#include "dike/outpath.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <hdf5.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 2: config_sha256 and state_sha256 attributes (checked before use)
 * 3: the decision-step latency histograms (dike_latency: all steps, then one per octave of active
 *    jobs) follow tick, so a resumed run reports the latency of all its steps, not only of those
 *    after the resume */
/* 5: the emulating mode: the coordinator's per-job stop state, and each rank's node-side state
 *    (the "emulator" blob, covered by state_sha256)
 * 6: the node-side blob holds, per run at its home, one factor per group of slices and the
 *    slices those groups cover (an owner's groups are rebuilt from its slots on load)
 * 7: the coordinator's count of failures and of idle preemptions since the last progress, and its
 *    time (a run that cannot finish, docs/reliability.md)
 * 8: the attributes builds (who ran the emulation) and source_sha256 (the writer's emulator
 *    sources), which a resume checks (docs/reliability.md, "A checkpoint and the build that wrote it") */
#define CKPT_FORMAT 8
/* The oldest format read: format 7's blobs are format 8's; it lacks the attributes builds and
 * source_sha256, so it is read as written by an unknown build of other sources. */
#define CKPT_FORMAT_OLDEST 7

/* ---- blobs: base/bytes.h, with typed PUT/GET ---- */

#define PUT(b, x) dike_bytes_put((b), &(x), sizeof(x))
#define GET(b, x) dike_bytes_get((b), &(x), sizeof(x))

/* ---- the field tables: what a checkpoint holds of a struct, in file order ----
 *
 * One table per struct drives both save and load, so a field added to the table is in both
 * directions (the format, CKPT_FORMAT, changes with the table). ONE is a member stored as its
 * bytes; the EACH_* entries are arrays behind a pointer member, of one element per tenant, per
 * timeseries sample, or per sample and tenant. */

typedef enum { CK_ONE, CK_TENANT, CK_SAMPLE, CK_SAMPLE_TENANT } ck_count;

typedef struct ck_field {
    size_t offset; /* of the member in its struct */
    size_t size;   /* of the member (CK_ONE) or of one element of the array it points to */
    ck_count count;
} ck_field;

#define ONE(st, m) { offsetof(st, m), sizeof(((st *)0)->m), CK_ONE }
#define EACH(st, m, c) { offsetof(st, m), sizeof(*((st *)0)->m), (c) }

#define J(m) ONE(dike_job, m)
static const ck_field job_table[] = {
    J(state), J(type), J(level), J(epoch), J(seq),                       /* where it is */
    J(first_start), J(run_start), J(progress_start), J(finish), J(last_stop), /* when, us */
    J(remaining), J(rate), J(held_us), J(rate_gpu_us), J(attained_gpu_s), J(area_at_submit), J(navg),
    J(preemptions), J(restarts), J(lost_gpu_s), J(migrations),          /* what it cost */
    J(nslices), J(placed_n), J(last_sig),                               /* its placement */
};
#undef J

#define C(m) ONE(dike_sched, m)
#define C_TENANT(m) EACH(dike_sched, m, CK_TENANT)
static const ck_field coord_table[] = {
    C(now), C(next_arrival), C(round_seq), C(round_pending),
    C(busy_gpus), C(queued), C(running), C(active), C(finished),
    C(area), C(area_t), C(next_sample),
    C(preemptions), C(migrations), C(events), C(stale_events), C(decisions), C(decide_seconds),
    C(node_failures), C(fails_since_progress), C(progress_t), C(idle_preempts), C(tick),
    C(decide_lat), C(decide_by_active),
    /* per tenant: GPUs held and their integral, demand, entitlement and its integral */
    C_TENANT(tenant_gpus), C_TENANT(tenant_gpu_s), C_TENANT(tenant_demand),
    C_TENANT(ent), C_TENANT(ent_since), C_TENANT(ent_gpu_s), C(ent_contended),
};
#undef C
#undef C_TENANT

#define TS(m, c) EACH(dike_timeseries, m, c)
static const ck_field timeseries_table[] = {
    TS(time, CK_SAMPLE), TS(busy_gpus, CK_SAMPLE), TS(queued, CK_SAMPLE), TS(running, CK_SAMPLE),
    TS(tenant_gpus, CK_SAMPLE_TENANT),
};
#undef TS

#define TABLE(t) (t), sizeof(t) / sizeof(t)[0]

/* Save or load the fields of table @p f of the struct at @p base; arrays have @p nten tenants
 * and @p ns samples. Loading fills arrays the struct already holds (allocated to size). */
static void walk(dike_bytes *b, int save, void *base, const ck_field *f, size_t n, size_t nten, size_t ns)
{
    for (size_t i = 0; i < n; i++) {
        char *m = (char *)base + f[i].offset;
        size_t count = f[i].count == CK_TENANT ? nten : f[i].count == CK_SAMPLE ? ns
                     : f[i].count == CK_SAMPLE_TENANT ? ns * nten : 1;
        if (f[i].count == CK_ONE)
            dike_bytes_xfer(b, save, m, f[i].size);
        else
            dike_bytes_xfer(b, save, *(void **)m, count * f[i].size);
    }
}

/* ---- coordinator ---- */

static void save_job(dike_bytes *b, dike_job *j)
{
    walk(b, 1, j, TABLE(job_table), 0, 0);
    /* the last placement, also of a stopped job (nslices = 0): /job_nodes reports it */
    dike_bytes_put(b, j->slices, j->placed_n * sizeof *j->slices);
}

static void load_job(dike_bytes *b, dike_job *j)
{
    walk(b, 0, j, TABLE(job_table), 0, 0);
    if (j->placed_n > j->spec->num_gpus || (j->nslices && j->nslices != j->placed_n)) {
        b->bad = 1;
        j->nslices = j->placed_n = 0;
    }
    dike_bytes_get(b, j->slices, j->placed_n * sizeof *j->slices);
}

/* The node-indexed state of the free-capacity index, in both directions: which nodes are down,
 * and the bucket lists. The order of nodes inside each free-count bucket depends on history and
 * decides which node a placement picks first, so it is saved as it is, not rebuilt. */
typedef struct cap_state {
    uint8_t *down;
    uint32_t *head, *next, *prev;
    size_t nodes, nb; /* nodes; buckets (GPU types x (GPUs per node + 1)) */
} cap_state;

static void xfer_cap(dike_bytes *b, int save, const cap_state *c)
{
    dike_bytes_xfer(b, save, c->down, c->nodes);
    dike_bytes_xfer(b, save, c->head, c->nb * sizeof *c->head);
    dike_bytes_xfer(b, save, c->next, c->nodes * sizeof *c->next);
    dike_bytes_xfer(b, save, c->prev, c->nodes * sizeof *c->prev);
}

static size_t cap_buckets(const dike_sched *s)
{
    return (size_t)s->cl->ntypes * (s->cap->gpn + 1);
}

/* The emulating mode's per-job stop state (a stop decided, its work left not reported yet) and
 * the coordinator's own account of the jobs on each node (for failures). */
static void xfer_emulate(dike_bytes *b, int save, dike_sched *s)
{
    uint8_t em = (uint8_t)s->emulate, got = em, nj = s->node_jobs != NULL, gotnj = nj;
    dike_bytes_xfer(b, save, &got, 1);
    dike_bytes_xfer(b, save, &gotnj, 1);
    if (got != em || gotnj != nj) {
        b->bad = 1;
        return;
    }
    if (!em)
        return;
    size_t n = s->w->njobs + 1;
    dike_bytes_xfer(b, save, s->stop_pending, n);
    dike_bytes_xfer(b, save, s->stop_work, n * sizeof *s->stop_work);
    dike_bytes_xfer(b, save, s->stop_lost, n * sizeof *s->stop_lost);
    dike_bytes_xfer(b, save, &s->stopped_done, sizeof s->stopped_done);
    if (nj)
        dike_bytes_xfer(b, save, s->node_jobs, (size_t)s->cl->nodes * s->cl->gpus_per_node * sizeof *s->node_jobs);
}

static void save_coord(dike_bytes *b, dike_sched *s)
{
    const dike_workload *w = s->w;
    uint64_t njobs = w->njobs, nten = w->ntenants, ns = s->ts.n;
    PUT(b, njobs); PUT(b, nten);
    walk(b, 1, s, TABLE(coord_table), nten, 0);
    PUT(b, ns);
    walk(b, 1, &s->ts, TABLE(timeseries_table), nten, ns);
    for (size_t i = 0; i < w->njobs; i++)
        save_job(b, &s->jobs[i]);
    /* the event heap, in array order (the order is rebuilt by pushing) */
    uint64_t nev = s->heap.n;
    PUT(b, nev);
    for (size_t i = 0; i < s->heap.n; i++)
        dike_event_xfer(b, 1, s->heap.a[i].ev);
    uint64_t nfail = s->nfail;
    PUT(b, nfail);
    for (size_t i = 0; i < s->nfail; i++) {
        uint32_t present = s->fail_jobs[i] != NULL || s->fail_njobs[i] == 0;
        uint32_t n = s->fail_jobs[i] ? s->fail_njobs[i] : 0;
        PUT(b, present); PUT(b, n);
        dike_bytes_put(b, s->fail_jobs[i], n * sizeof(uint32_t));
    }
    cap_state c = {s->cap->down, s->cap->head, s->cap->next, s->cap->prev, s->cl->nodes, cap_buckets(s)};
    xfer_cap(b, 1, &c);
    uint64_t plen = 0;
    void *blob = s->pol->save ? s->pol->save(s->pol_state, &plen) : NULL;
    PUT(b, plen);
    dike_bytes_put(b, blob, plen);
    free(blob);
    xfer_emulate(b, 1, s);
}

/* Every index and enumeration read back is range-checked before it is used as one: the checksums
 * catch damage, these catch a checkpoint that is consistent with its checksums but not with this
 * workload and cluster (or a bug). Returns a description of the first problem, or NULL. */
static const char *check_coord(const dike_sched *s, const uint8_t *down, const uint32_t *head,
                               const uint32_t *next, const uint32_t *prev, size_t nb)
{
    const dike_workload *w = s->w;
    const dike_cluster *cl = s->cl;
    uint64_t *used = dike_xcalloc((size_t)cl->nodes + 1, sizeof *used);
    const char *bad = NULL;
    for (size_t i = 0; i < w->njobs && !bad; i++) {
        const dike_job *j = &s->jobs[i];
        if (j->state > DIKE_JOB_DONE)
            bad = "a job state out of range";
        else if (j->state == DIKE_JOB_RUNNING && j->nslices == 0)
            bad = "a running job without GPUs";
        for (uint32_t k = 0; !bad && j->state == DIKE_JOB_RUNNING && k < j->nslices; k++) {
            const dike_slice *sl = &j->slices[k];
            if (sl->node >= cl->nodes || sl->gpus == 0 ||
                (used[sl->node] += sl->gpus) > dike_cluster_node_gpus(cl, sl->node))
                bad = "a job placed on a node out of range or beyond its GPUs";
        }
    }
    for (size_t i = 0; i < s->heap.n && !bad; i++) {
        const dike_event *ev = s->heap.a[i].ev;
        int job = ev->kind == DIKE_EV_JOB_FINISH || ev->kind == DIKE_EV_JOB_ARRIVE;
        int node = ev->kind == DIKE_EV_NODE_FAIL || ev->kind == DIKE_EV_NODE_REPAIR;
        if (ev->kind > DIKE_EV_NODE_REPAIR || ev->phase > DIKE_PHASE_ROUND || ev->time < 0)
            bad = "an event of unknown kind or phase, or before time 0";
        else if ((job && ev->entity >= w->njobs) || (node && ev->entity >= cl->nodes))
            bad = "an event for a job or node out of range";
        else if (ev->kind == DIKE_EV_NODE_FAIL && ev->data >= s->nfail)
            bad = "a node failure without its report";
    }
    for (size_t i = 0; i < s->nfail && !bad; i++)
        for (uint32_t k = 0; k < s->fail_njobs[i] && !bad; k++)
            if (!s->fail_jobs[i] || s->fail_jobs[i][k] >= w->njobs)
                bad = "a failure report naming a job out of range";
    for (uint32_t n = 0; n < cl->nodes && !bad; n++)
        if (down[n] > 1 || (next[n] != DIKE_NIL && next[n] >= cl->nodes) ||
            (prev[n] != DIKE_NIL && prev[n] >= cl->nodes))
            bad = "a node's state or free-capacity links out of range";
        else if (down[n] && used[n])
            bad = "a running job on a failed node"; /* a failure stops every job on its node */
    for (size_t k = 0; k < nb && !bad; k++)
        if (head[k] != DIKE_NIL && head[k] >= cl->nodes)
            bad = "a free-capacity bucket out of range";
    if (!bad && (s->busy_gpus > cl->total_gpus || s->finished > w->njobs || s->now < 0))
        bad = "counters out of range";
    free(used);
    return bad;
}

/* The coordinator's counters, per-tenant state and timeseries, after the workload check. */
static int load_counters(dike_bytes *b, dike_sched *s, dike_err *e)
{
    const dike_workload *w = s->w;
    uint64_t njobs, nten, ns;
    GET(b, njobs); GET(b, nten);
    if (njobs != w->njobs || nten != w->ntenants)
        return dike_err_set(e, DIKE_EINVAL, "checkpoint: %llu jobs and %llu tenants, the workload has %zu and %u",
                            (unsigned long long)njobs, (unsigned long long)nten, w->njobs, w->ntenants);
    walk(b, 0, s, TABLE(coord_table), nten, 0);
    dike_coord_entitle_rebuild(s);
    GET(b, ns);
    if (b->bad || ns > b->len)
        return dike_err_set(e, DIKE_EINVAL, "checkpoint: truncated coordinator state");
    size_t max = s->ts.max; /* a resume under a lower bound keeps what was sampled (the run then */
    s->ts.max = 0;          /* stops at its next sample, coord.c), grown by doubling as before */
    for (uint64_t i = 0; i < ns; i++)
        dike_timeseries_push(&s->ts, 0, 0, 0, 0);
    s->ts.max = max;
    walk(b, 0, &s->ts, TABLE(timeseries_table), nten, ns);
    return 0;
}

/* The pending events replace what dike_coord_init queued (the first arrival). */
static void load_events(dike_bytes *b, dike_sched *s)
{
    dike_event *ev;
    while ((ev = dike_heap_pop(&s->heap)))
        dike_pool_put(&s->pool, ev);
    uint64_t nev;
    GET(b, nev);
    for (uint64_t i = 0; i < nev && !b->bad; i++) {
        ev = dike_pool_get(&s->pool);
        memset(ev, 0, sizeof *ev);
        dike_event_xfer(b, 0, ev);
        dike_heap_push(&s->heap, ev);
    }
}

/* Failure reports whose events are still in the heap (the event's data is the index). */
static void load_failures(dike_bytes *b, dike_sched *s)
{
    uint64_t nfail;
    GET(b, nfail);
    if (nfail > b->len)
        b->bad = 1;
    s->fail_cap = s->nfail = b->bad ? 0 : (size_t)nfail;
    s->fail_jobs = dike_xcalloc(s->fail_cap + 1, sizeof *s->fail_jobs);
    s->fail_njobs = dike_xcalloc(s->fail_cap + 1, sizeof *s->fail_njobs);
    for (size_t i = 0; i < s->nfail && !b->bad; i++) {
        uint32_t present, n;
        GET(b, present); GET(b, n);
        if (n > s->w->njobs) {
            b->bad = 1;
            break;
        }
        if (n) {
            s->fail_jobs[i] = dike_xmalloc(n * sizeof(uint32_t));
            dike_bytes_get(b, s->fail_jobs[i], n * sizeof(uint32_t));
        }
        s->fail_njobs[i] = present ? n : 0;
    }
}

static void cap_state_free(cap_state *c)
{
    free(c->down);
    free(c->head);
    free(c->next);
    free(c->prev);
}

/* Capacity from the restored jobs and nodes: running jobs hold their slices, failed nodes are
 * down; the buckets then have the same members as when saved, and take their saved order. */
static void apply_cap(dike_sched *s, const cap_state *c)
{
    for (size_t i = 0; i < s->w->njobs; i++) {
        dike_job *j = &s->jobs[i];
        if (j->state == DIKE_JOB_RUNNING)
            for (uint32_t k = 0; k < j->nslices; k++)
                dike_capacity_take(s->cap, j->slices[k].node, j->slices[k].gpus);
    }
    for (uint32_t n = 0; n < s->cl->nodes; n++)
        if (c->down[n])
            dike_capacity_set_down(s->cap, n);
    memcpy(s->cap->head, c->head, c->nb * sizeof *c->head);
    memcpy(s->cap->next, c->next, c->nodes * sizeof *c->next);
    memcpy(s->cap->prev, c->prev, c->nodes * sizeof *c->prev);
}

/* What policies know: the `none` history of durations follows from which jobs are done; then
 * per-job structures in submit order, then the policy's own state (@p plen bytes). */
static int load_policy(dike_bytes *b, dike_sched *s, uint64_t plen, dike_err *e)
{
    dike_est_rebuild(s);
    if (dike_coord_policy_restore(s, b->p + b->pos, plen))
        return dike_err_set(e, DIKE_EINVAL, "checkpoint: policy %s state does not match", s->pol->name);
    b->pos += plen;
    return 0;
}

static int load_coord(dike_bytes *b, dike_sched *s, dike_err *e)
{
    int rc = load_counters(b, s, e);
    if (rc)
        return rc;
    for (size_t i = 0; i < s->w->njobs; i++)
        load_job(b, &s->jobs[i]);
    load_events(b, s);
    load_failures(b, s);
    /* read into copies first: they are range-checked before the index takes them */
    cap_state c = {NULL, NULL, NULL, NULL, s->cl->nodes, cap_buckets(s)};
    c.down = dike_xmalloc(c.nodes + 1);
    c.head = dike_xmalloc((c.nb + 1) * sizeof *c.head);
    c.next = dike_xmalloc((c.nodes + 1) * sizeof *c.next);
    c.prev = dike_xmalloc((c.nodes + 1) * sizeof *c.prev);
    xfer_cap(b, 0, &c);
    uint64_t plen;
    GET(b, plen);
    const char *bad = NULL;
    if (b->bad || plen > b->len - b->pos)
        rc = dike_err_set(e, DIKE_EINVAL, "checkpoint: truncated coordinator state");
    else if ((bad = check_coord(s, c.down, c.head, c.next, c.prev, c.nb)))
        rc = dike_err_set(e, DIKE_EINVAL, "checkpoint: coordinator state does not fit this workload "
                          "and cluster: %s", bad);
    else
        apply_cap(s, &c);
    cap_state_free(&c);
    if (rc)
        return rc;
    /* The emulating mode's state follows the policy's bytes, but the policies' rebuild reads it: a
     * queued job whose stop has not reached the nodes has a guessed work done
     * (dike_sched_work_known), which srtf and dike must not key it by for good. So it is loaded
     * first. Until 2026-12-07 the rebuild ran before it, with every stop_pending 0: srtf under
     * `none` parked such a job with its guessed key as stable, and the resumed run's order
     * differed from the uninterrupted one (found by scripts/random_campaigns.py seed 554). */
    size_t policy_at = b->pos;
    b->pos += plen;
    xfer_emulate(b, 0, s);
    for (size_t i = 0; s->emulate && i <= s->w->njobs && !b->bad; i++)
        if (s->stop_pending[i] > 1)
            b->bad = 1;
    for (size_t i = 0; s->node_jobs && i < (size_t)s->cl->nodes * s->cl->gpus_per_node && !b->bad; i++)
        if (s->node_jobs[i] != UINT32_MAX && s->node_jobs[i] >= s->w->njobs)
            b->bad = 1;
    if (b->bad)
        return dike_err_set(e, DIKE_EINVAL, "checkpoint: the emulating mode's coordinator state is "
                            "truncated or out of range");
    size_t end = b->pos;
    b->pos = policy_at;
    rc = load_policy(b, s, plen, e);
    b->pos = end;
    return rc;
}

/* ---- node ranks: one fixed record per node, then its job slots ---- */

typedef struct node_rec {
    uint32_t node, free, jobs_hosted, failures, down, seq, has_next, next_kind;
    uint32_t next_seq, pad;
    double busy_gpu_s;
    dike_time next_time;
    uint64_t rng[4];
} node_rec;

static void save_nodes(dike_bytes *b, const dike_part *p)
{
    /* the block's pending node events, by node */
    dike_time *nt = dike_xcalloc(p->n + 1, sizeof *nt);
    uint32_t *nk = dike_xcalloc(p->n + 1, sizeof *nk), *nseq = dike_xcalloc(p->n + 1, sizeof *nseq);
    uint8_t *has = dike_xcalloc(p->n + 1, 1);
    for (size_t i = 0; i < p->heap.n; i++) {
        const dike_event *ev = p->heap.a[i].ev;
        uint32_t k = ev->entity - p->first;
        nt[k] = ev->time;
        nk[k] = ev->kind;
        nseq[k] = ev->seq;
        has[k] = 1;
    }
    uint32_t gpn = p->cl->gpus_per_node;
    for (uint32_t k = 0; k < p->n; k++) {
        node_rec r;
        memset(&r, 0, sizeof r);
        r.node = p->first + k;
        r.free = p->free[k];
        r.jobs_hosted = p->jobs_hosted[k];
        r.failures = p->failures[k];
        r.busy_gpu_s = p->busy_gpu_s[k];
        if (p->down) {
            r.down = p->down[k];
            r.seq = p->seq[k];
            memcpy(r.rng, p->rng[k].s, sizeof r.rng);
            r.has_next = has[k];
            r.next_time = nt[k];
            r.next_kind = nk[k];
            r.next_seq = nseq[k];
        }
        PUT(b, r);
        if (p->jobs)
            dike_bytes_put(b, &p->jobs[(size_t)k * gpn], gpn * sizeof *p->jobs);
    }
    free(nt);
    free(nk);
    free(nseq);
    free(has);
}

static int load_nodes(dike_bytes *b, dike_part *p, int with_slots)
{
    uint32_t gpn = p->cl->gpus_per_node;
    uint32_t *slots = dike_xmalloc((gpn + 1) * sizeof *slots);
    for (uint32_t k = 0; k < p->n && !b->bad; k++) {
        node_rec r;
        GET(b, r);
        if (with_slots)
            dike_bytes_get(b, slots, gpn * sizeof *slots);
        if (r.node != p->first + k) {
            b->bad = 1;
            break;
        }
        p->free[k] = r.free;
        p->jobs_hosted[k] = r.jobs_hosted;
        p->failures[k] = r.failures;
        p->busy_gpu_s[k] = r.busy_gpu_s;
        if (p->down) {
            p->down[k] = (uint8_t)r.down;
            p->seq[k] = r.seq;
            memcpy(p->rng[k].s, r.rng, sizeof r.rng);
            memcpy(&p->jobs[(size_t)k * gpn], slots, gpn * sizeof *slots);
        }
    }
    free(slots);
    if (b->bad)
        return -1;
    if (!p->down)
        return 0;
    /* pending node events: the ones dike_part_init drew are replaced by the saved ones */
    dike_event *ev;
    while ((ev = dike_heap_pop(&p->heap)))
        dike_pool_put(&p->pool, ev);
    b->pos = 0;
    for (uint32_t k = 0; k < p->n; k++) {
        node_rec r;
        GET(b, r);
        if (with_slots)
            b->pos += gpn * sizeof(uint32_t);
        if (!r.has_next)
            continue;
        ev = dike_pool_get(&p->pool);
        memset(ev, 0, sizeof *ev);
        ev->time = r.next_time;
        ev->kind = (uint8_t)r.next_kind;
        ev->phase = r.next_kind == DIKE_EV_NODE_FAIL ? DIKE_PHASE_RELEASE : DIKE_PHASE_ARRIVE;
        ev->entity = r.node;
        ev->seq = r.next_seq;
        dike_heap_push(&p->heap, ev);
    }
    return 0;
}

/* Rank 0, before the node records are sent anywhere: node order, flags, free GPUs, pending
 * events and every job index in a slot (a slot holds a running job's index or UINT32_MAX). */
static const char *check_nodes(const dike_bytes *nb, const dike_sched *s, int with_slots)
{
    const dike_cluster *cl = s->cl;
    uint32_t gpn = cl->gpus_per_node;
    size_t rec = sizeof(node_rec) + (with_slots ? gpn * sizeof(uint32_t) : 0);
    uint32_t *slots = dike_xmalloc((gpn + 1) * sizeof *slots);
    const char *bad = NULL;
    for (uint32_t k = 0; k < cl->nodes && !bad; k++) {
        node_rec r;
        memcpy(&r, nb->p + (size_t)k * rec, sizeof r);
        uint32_t g = dike_cluster_node_gpus(cl, k), busy = 0;
        if (r.node != k || r.free > g || r.down > 1 || r.has_next > 1 ||
            (r.has_next && ((r.next_kind != DIKE_EV_NODE_FAIL && r.next_kind != DIKE_EV_NODE_REPAIR) ||
                            r.next_time < 0)))
            bad = "a node record out of range (order, free GPUs, flags or pending event)";
        if (!bad && with_slots) {
            memcpy(slots, nb->p + (size_t)k * rec + sizeof r, gpn * sizeof *slots);
            for (uint32_t i = 0; i < gpn && !bad; i++) {
                if (slots[i] == UINT32_MAX)
                    continue;
                busy++;
                if (i >= g || slots[i] >= s->w->njobs || s->jobs[slots[i]].state != DIKE_JOB_RUNNING)
                    bad = "a node slot naming a job out of range or not running";
            }
            /* a slot per job on the node, each job holding at least one GPU */
            if (!bad && (busy > g - r.free || (busy == 0) != (r.free == g)))
                bad = "a node whose jobs do not match its free GPUs";
        }
    }
    free(slots);
    return bad;
}

/* ---- HDF5 ---- */

static int write_blob(hid_t file, const char *name, const void *p, size_t n)
{
    hsize_t dims[1] = {n};
    hid_t sp = H5Screate_simple(1, dims, NULL);
    hid_t ds = sp < 0 ? -1 : H5Dcreate2(file, name, H5T_NATIVE_UCHAR, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = ds < 0 || (n && H5Dwrite(ds, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, p) < 0);
    if (ds >= 0) H5Dclose(ds);
    if (sp >= 0) H5Sclose(sp);
    return rc ? -1 : 0;
}

static int read_blob(hid_t file, const char *name, dike_bytes *b)
{
    hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
    if (ds < 0)
        return -1;
    hid_t sp = H5Dget_space(ds);
    hssize_t n = sp < 0 ? -1 : H5Sget_simple_extent_npoints(sp);
    memset(b, 0, sizeof *b);
    /* a blob is 1-D bytes; a damaged header must not make us allocate without bound */
    if (n < 0 || (uint64_t)n > (UINT64_C(1) << 40) || H5Sget_simple_extent_ndims(sp) != 1) {
        if (sp >= 0)
            H5Sclose(sp);
        H5Dclose(ds);
        return -1;
    }
    b->p = dike_xmalloc((size_t)n + 1);
    b->len = (size_t)n;
    int rc = n > 0 && H5Dread(ds, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, b->p) < 0;
    H5Sclose(sp);
    H5Dclose(ds);
    return rc ? -1 : 0;
}

static int write_str_attr(hid_t obj, const char *name, const char *v)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a < 0 || H5Awrite(a, t, &v) < 0;
    if (a >= 0) H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
    return rc ? -1 : 0;
}

static char *read_str_attr(hid_t obj, const char *name)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0)
        return NULL;
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    char *v = NULL, *out = NULL;
    if (H5Aread(a, t, &v) >= 0 && v) {
        out = dike_xstrdup(v);
        H5free_memory(v);
    }
    H5Tclose(t);
    H5Aclose(a);
    return out;
}

/* Gather every rank's node blob on rank 0, concatenated in rank order = node order. */
static char *gather_nodes(MPI_Comm comm, const dike_bytes *mine, size_t *total)
{
    int rank = dike_mpi_rank(comm), np = dike_mpi_size(comm);
    int len = (int)mine->len;
    int *counts = dike_xcalloc((size_t)np, sizeof *counts), *displs = dike_xcalloc((size_t)np, sizeof *displs);
    DIKE_MPI_CHECK(MPI_Gather(&len, 1, MPI_INT, counts, 1, MPI_INT, 0, comm));
    size_t t = 0;
    for (int r = 0; r < np; r++) {
        displs[r] = (int)t;
        t += (size_t)counts[r];
    }
    char *all = rank == 0 ? dike_xmalloc(t + 1) : NULL;
    DIKE_MPI_CHECK(MPI_Gatherv(mine->p, len, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, comm));
    free(counts);
    free(displs);
    *total = t;
    return all;
}

/* ---- checksums: a checkpoint is verified before anything in it is used ---- */

/* SHA-256 over @p n parts, each preceded by its length (so parts cannot slide into each other). */
static void digest(const void *const *parts, const size_t *lens, int n, char out[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    for (int i = 0; ok && i < n; i++) {
        uint64_t len = lens[i];
        ok = EVP_DigestUpdate(ctx, &len, sizeof len) && (!len || EVP_DigestUpdate(ctx, parts[i], lens[i]));
    }
    ok = ok && EVP_DigestFinal_ex(ctx, md, &mdlen) && mdlen == 32;
    EVP_MD_CTX_free(ctx);
    if (!ok)
        dike_fatal("OpenSSL SHA-256 failed");
    for (unsigned int k = 0; k < mdlen; k++)
        snprintf(out + 2 * k, 3, "%02x", md[k]);
}

/* Covers every attribute a resume uses: format, configuration, trace checksum, version, and (from
 * format 8 on) the builds that ran the emulation and the writer's source digest. */
static void config_digest(int32_t fmt, const char *conf, const char *trace_sha, const char *version,
                          const dike_ckpt_build *b, char out[65])
{
    const void *parts[] = { &fmt, conf, trace_sha, version, b->builds, b->source_sha256 };
    size_t lens[] = { sizeof fmt, strlen(conf), strlen(trace_sha), strlen(version), strlen(b->builds),
                      strlen(b->source_sha256) };
    digest(parts, lens, fmt >= 8 ? 6 : 4, out);
}

/* Covers the state blobs (the emulator's is empty in the predicting mode). */
static void state_digest(const void *coord, size_t clen, const void *nodes, size_t nlen,
                         const void *emu, size_t elen, char out[65])
{
    const void *parts[] = { coord, nodes, emu };
    size_t lens[] = { clen, nlen, elen };
    digest(parts, lens, 3, out);
}

/* The file ends with a trailer after the HDF5 image (HDF5 ignores bytes past its end of
 * address space): the image's length and SHA-256. A resume reads the whole file, checks the
 * trailer, and only then lets HDF5 parse the image, from memory: HDF5's parser is not hardened
 * against damaged metadata, so damaged bytes must never reach it. */
#define TRAILER_HEAD "\ndike-emu checkpoint image sha256="
#define TRAILER_LEN (sizeof "\ndike-emu checkpoint image sha256= bytes=\n" - 1 + 64 + 20)

static void make_trailer(const char *img, size_t n, char out[TRAILER_LEN + 1])
{
    char sum[65];
    const void *parts[] = { img };
    size_t lens[] = { n };
    digest(parts, lens, 1, sum);
    snprintf(out, TRAILER_LEN + 1, "\ndike-emu checkpoint image sha256=%s bytes=%020llu\n", sum,
             (unsigned long long)n);
}

/* Read @p path whole and check its trailer; on success *img holds the HDF5 image (*n bytes). */
static int load_image(const char *path, char **img, size_t *n, dike_err *e)
{
    *img = NULL;
    *n = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    struct stat sb;
    if (fd < 0)
        return dike_err_set(e, DIKE_EIO, "%s: cannot open checkpoint: %s", path, strerror(errno));
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return dike_err_set(e, DIKE_EINVAL, "%s: cannot open checkpoint: not a regular file", path);
    }
    size_t len = (size_t)sb.st_size, got = 0;
    char *p = dike_xmalloc(len + 1);
    int err = 0;
    while (got < len && !err) {
        ssize_t k = read(fd, p + got, len - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            err = k < 0 ? errno : EIO;
        else
            got += (size_t)k;
    }
    close(fd);
    if (err) {
        free(p);
        return dike_err_set(e, DIKE_EIO, "%s: cannot read checkpoint: %s", path, strerror(err));
    }
    char want[TRAILER_LEN + 1];
    size_t body = len >= TRAILER_LEN ? len - TRAILER_LEN : 0;
    if (len < TRAILER_LEN || memcmp(p + body, TRAILER_HEAD, sizeof TRAILER_HEAD - 1) != 0) {
        free(p);
        return dike_err_set(e, DIKE_EINVAL, "%s: cannot open checkpoint: not a dike-emu checkpoint of format %d "
                            "(no checksum trailer)", path, CKPT_FORMAT);
    }
    make_trailer(p, body, want);
    if (memcmp(want, p + body, TRAILER_LEN) != 0) {
        free(p);
        return dike_err_set(e, DIKE_EINVAL, "%s: damaged checkpoint: the file does not match its checksum "
                            "(the trailer's sha256 and length)", path);
    }
    *img = p;
    *n = body;
    return 0;
}

/* An HDF5 file opened read-only from @p n bytes in memory. */
static hid_t open_image(const char *img, size_t n)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), f = H5I_INVALID_HID;
    if (fapl >= 0 && H5Pset_fapl_core(fapl, 1 << 20, 0) >= 0 &&
        H5Pset_file_image(fapl, (void *)img, n) >= 0)
        /* the core driver refuses a name that exists on disk when given an image; this one
         * cannot exist (/dev/null is not a folder) */
        f = H5Fopen("/dev/null/dike-emu-checkpoint-image", H5F_ACC_RDONLY, fapl);
    if (fapl >= 0)
        H5Pclose(fapl);
    return f;
}

/* Rank 0: the checkpoint file built in memory (HDF5's core driver, never written back by HDF5)
 * and its image written by us: a full disk or an I/O error is one errno message, and no HDF5 object
 * is left half-closed (HDF5 1.10 crashes at MPI_Finalize after a failed close; see h5out.c). */
static int write_ckpt_file(const char *path, const char *tmp, const char *conf, const char *trace_sha,
                           const dike_ckpt_build *b, const dike_bytes *cb, const char *nodes, size_t ntotal,
                           const dike_bytes *eb, dike_err *e)
{
    int32_t fmt = CKPT_FORMAT;
    char csum[65], ssum[65];
    config_digest(fmt, conf, trace_sha, DIKE_VERSION, b, csum);
    state_digest(cb->p, cb->len, nodes, ntotal, eb->p, eb->len, ssum);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), f = H5I_INVALID_HID;
    int bad = fapl < 0 || H5Pset_fapl_core(fapl, 1 << 20, 0) < 0;
    if (!bad)
        bad = (f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)) < 0;
    if (!bad) {
        hid_t sp = H5Screate(H5S_SCALAR);
        hid_t a = sp < 0 ? -1 : H5Acreate2(f, "checkpoint_format", H5T_NATIVE_INT32, sp, H5P_DEFAULT, H5P_DEFAULT);
        bad |= a < 0 || H5Awrite(a, H5T_NATIVE_INT32, &fmt) < 0;
        if (a >= 0) H5Aclose(a);
        if (sp >= 0) H5Sclose(sp);
        bad |= write_str_attr(f, "config", conf) < 0;
        bad |= write_str_attr(f, "trace_sha256", trace_sha) < 0;
        bad |= write_str_attr(f, "version", DIKE_VERSION) < 0;
        bad |= write_str_attr(f, "builds", b->builds) < 0;
        bad |= write_str_attr(f, "source_sha256", b->source_sha256) < 0;
        bad |= write_str_attr(f, "config_sha256", csum) < 0;
        bad |= write_str_attr(f, "state_sha256", ssum) < 0;
        bad |= write_blob(f, "coordinator", cb->p, cb->len) < 0;
        bad |= write_blob(f, "nodes", nodes, ntotal) < 0;
        bad |= write_blob(f, "emulator", eb->p, eb->len) < 0;
    }
    char *img = NULL;
    ssize_t n = 0;
    if (!bad && H5Fflush(f, H5F_SCOPE_GLOBAL) >= 0 && (n = H5Fget_file_image(f, NULL, 0)) > 0) {
        img = dike_xmalloc((size_t)n + TRAILER_LEN + 1);
        bad = H5Fget_file_image(f, img, (size_t)n) != n;
        if (!bad) {
            make_trailer(img, (size_t)n, img + n);
            n += (ssize_t)TRAILER_LEN;
        }
    } else {
        bad = 1;
    }
    if (f >= 0)
        bad |= H5Fclose(f) < 0;
    if (fapl >= 0)
        H5Pclose(fapl);
    int rc = 0, err = 0;
    if (bad)
        rc = dike_err_set(e, DIKE_EIO, "%s: cannot write checkpoint: building it in memory failed (HDF5)", path);
    else if ((err = dike_write_whole_file(tmp, img, (size_t)n)))
        rc = dike_err_set(e, DIKE_EIO, "%s: cannot write checkpoint: writing %zu bytes to %s: %s", path,
                          (size_t)n, tmp, strerror(err));
    else if (!(rc = dike_rename_target_ok(path, "checkpoint", e)) && rename(tmp, path) != 0)
        rc = dike_err_set(e, DIKE_EIO, "%s: cannot write checkpoint: renaming %s: %s", path, tmp,
                          strerror(errno));
    if (rc)
        unlink(tmp);
    free(img);
    return rc;
}

/* Rank 0: the gathered node records (rank order) in node order. The emulating mode's layout gives
 * rank 0 the last racks (dike_part_layout_reverse), so rank order is not always node order. */
static void nodes_in_order(char *all, size_t total, size_t rec)
{
    size_t n = rec ? total / rec : 0;
    char *sorted = dike_xmalloc(total + 1);
    for (size_t i = 0; i < n; i++) {
        uint32_t node;
        memcpy(&node, all + i * rec, sizeof node);
        if (node >= n)
            dike_fatal("checkpoint: node record %zu names node %u of %zu", i, node, n);
        memcpy(sorted + (size_t)node * rec, all + i * rec, rec);
    }
    if (total)
        memcpy(all, sorted, total);
    free(sorted);
}

/* The emulating mode's node-side state: every rank's bytes (dike_nodes_save) on rank 0, as
 * [ranks][bytes of each rank][the bytes, in rank order] (64-bit counts). Empty without @p ns. */
static void gather_emulator(MPI_Comm comm, dike_nodes *ns, dike_bytes *eb)
{
    memset(eb, 0, sizeof *eb);
    if (!ns)
        return;
    int rank = dike_mpi_rank(comm), np = dike_mpi_size(comm);
    dike_bytes mine = {0};
    mine.p = dike_nodes_save(ns, &mine.len);
    if (mine.len > INT32_MAX)
        dike_fatal("checkpoint: rank %d's node state has %zu bytes, more than one MPI message holds",
                   rank, mine.len);
    uint64_t len = mine.len, *lens = rank == 0 ? dike_xcalloc((size_t)np, sizeof *lens) : NULL;
    DIKE_MPI_CHECK(MPI_Gather(&len, 1, MPI_UINT64_T, lens, 1, MPI_UINT64_T, 0, comm));
    size_t total = 0;
    char *all = gather_nodes(comm, &mine, &total);
    free(mine.p);
    if (rank == 0) {
        uint64_t nr = (uint64_t)np;
        PUT(eb, nr);
        dike_bytes_put(eb, lens, (size_t)np * sizeof *lens);
        dike_bytes_put(eb, all, total);
    }
    free(lens);
    free(all);
}

int dike_checkpoint_write(const char *path, MPI_Comm comm, dike_sched *s, const dike_part *p,
                          dike_nodes *ns, const char *config_ini, const char *trace_sha256,
                          const dike_ckpt_build *build, dike_err *e)
{
    int rank = dike_mpi_rank(comm), rc = 0;
    dike_bytes nb = {0}, eb;
    save_nodes(&nb, p);
    size_t ntotal = 0;
    char *nodes = gather_nodes(comm, &nb, &ntotal);
    free(nb.p);
    gather_emulator(comm, ns, &eb);
    if (rank == 0) {
        nodes_in_order(nodes, ntotal,
                       sizeof(node_rec) + (p->jobs ? p->cl->gpus_per_node * sizeof(uint32_t) : 0));
        dike_bytes cb = {0};
        save_coord(&cb, s);
        char tmp[DIKE_STR_MAX + 128];
        dike_tmp_name(path, tmp, sizeof tmp);
        H5E_auto2_t old_fn;
        void *old_data;
        H5Eget_auto2(H5E_DEFAULT, &old_fn, &old_data);
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        dike_ckpt_build b = {build && build->builds ? build->builds : "",
                             build && build->source_sha256 ? build->source_sha256 : ""};
        rc = write_ckpt_file(path, tmp, config_ini, trace_sha256 ? trace_sha256 : "", &b, &cb, nodes,
                             ntotal, &eb, e);
        H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
        free(cb.p);
    }
    free(nodes);
    free(eb.p);
    return dike_mpi_agree(comm, rc, e);
}

int dike_checkpoint_step(const char *path, MPI_Comm comm, dike_sched *s, const dike_part *p,
                         dike_nodes *ns, const char *config_ini, const char *trace_sha256,
                         const dike_ckpt_build *build, int stop, int *status, dike_err *e)
{
    int rc = dike_checkpoint_write(path, comm, s, p, ns, config_ini, trace_sha256, build, e);
    if (rc && !stop) {
        /* A periodic checkpoint is insurance, not output: losing one costs nothing if the run
         * goes on, so it is a warning (rank 0, one line with errno's text) and the old
         * checkpoint, if any, stays in place. Every rank got the same status. */
        if (dike_mpi_rank(comm) == 0)
            dike_eprint("dike-emu: warning: periodic checkpoint not written, the run continues: ", e->msg);
        memset(e, 0, sizeof *e);
        return 0;
    }
    if (rc) {
        *status = rc;
        return 1;
    }
    if (!stop)
        return 0;
    *status = dike_err_set(e, DIKE_ESTOPPED, "stopped on request; checkpoint written to %s "
                           "(continue with: dike-emu resume %s)", path, path);
    return 1;
}

int dike_checkpoint_config(const char *path, char **config_text, char **builds, char **source_sha256,
                           dike_err *e)
{
    H5E_auto2_t old_fn;
    void *old_data;
    H5Eget_auto2(H5E_DEFAULT, &old_fn, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    int rc = 0;
    *config_text = NULL;
    *builds = *source_sha256 = NULL;
    char *img = NULL;
    size_t n = 0;
    hid_t f = H5I_INVALID_HID;
    if ((rc = load_image(path, &img, &n, e)) == 0 && (f = open_image(img, n)) < 0)
        rc = dike_err_set(e, DIKE_EINVAL, "%s: cannot open checkpoint (not an HDF5 file)", path);
    if (!rc) {
        int32_t fmt = 0;
        hid_t a = H5Aopen(f, "checkpoint_format", H5P_DEFAULT);
        if (a < 0 || H5Aread(a, H5T_NATIVE_INT32, &fmt) < 0)
            rc = dike_err_set(e, DIKE_EINVAL, "%s: not a dike-emu checkpoint of format %d", path, CKPT_FORMAT);
        else if (fmt < CKPT_FORMAT_OLDEST || fmt > CKPT_FORMAT)
            rc = dike_err_set(e, DIKE_EINVAL, "%s: a dike-emu checkpoint of format %d; this build reads "
                              "formats %d and %d (a checkpoint's layout belongs to the build that wrote it)",
                              path, (int)fmt, CKPT_FORMAT_OLDEST, CKPT_FORMAT);
        if (a >= 0)
            H5Aclose(a);
        char *conf = NULL, *tsha = NULL, *ver = NULL, *sum = NULL, *bld = NULL, *src = NULL;
        if (!rc && fmt < 8) { /* no build named: an unknown one, of unknown sources */
            bld = dike_xstrdup("");
            src = dike_xstrdup("");
        }
        if (!rc && (!(conf = read_str_attr(f, "config")) || !(tsha = read_str_attr(f, "trace_sha256")) ||
                    !(ver = read_str_attr(f, "version")) || (!bld && !(bld = read_str_attr(f, "builds"))) ||
                    (!src && !(src = read_str_attr(f, "source_sha256"))) ||
                    !(sum = read_str_attr(f, "config_sha256"))))
            rc = dike_err_set(e, DIKE_EINVAL, "%s: damaged checkpoint: an attribute (config, trace_sha256, "
                              "version, builds, source_sha256, config_sha256) is missing or unreadable", path);
        if (!rc) {
            char want[65];
            dike_ckpt_build b = {bld, src};
            config_digest(fmt, conf, tsha, ver, &b, want);
            if (strcmp(want, sum) != 0)
                rc = dike_err_set(e, DIKE_EINVAL, "%s: damaged checkpoint: the configuration does not match "
                                  "its checksum (config_sha256)", path);
            else if (strcmp(ver, DIKE_VERSION) != 0)
                rc = dike_err_set(e, DIKE_EINVAL, "%s: checkpoint written by dike-emu %.32s; this is %s "
                                  "(a checkpoint resumes only with the version that wrote it)", path, ver,
                                  DIKE_VERSION);
        }
        if (!rc) {
            *config_text = conf;
            *builds = bld;
            *source_sha256 = src;
            conf = bld = src = NULL;
        }
        free(conf);
        free(tsha);
        free(ver);
        free(bld);
        free(src);
        free(sum);
        H5Fclose(f);
    }
    free(img);
    H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
    return rc;
}

void (*dike_ckpt_fuzz_mutate)(char *coord, size_t clen, char *nodes, size_t nlen, char *emu, size_t elen);

/* Every rank's node-side state back from the emulator blob (rank 0's @p eb), which holds one part
 * per rank of the layout that wrote it. On as many ranks cut the same way, each rank takes its
 * part; on another number, or another cut (engine.coordinator_owns_nodes), rank 0 first moves every
 * node, rack, queued action and run to its new owner (dike_nodes_relayout). */
static int restore_emulator(const char *path, MPI_Comm comm, const dike_bytes *eb, dike_nodes *ns, dike_err *e)
{
    int rank = dike_mpi_rank(comm), np = dike_mpi_size(comm), rc = 0;
    int *counts = dike_xcalloc((size_t)np, sizeof *counts), *displs = dike_xcalloc((size_t)np, sizeof *displs);
    const char *data = NULL;
    char *moved = NULL;
    if (rank == 0) {
        uint64_t nr = 0;
        if (eb->len >= sizeof nr)
            memcpy(&nr, eb->p, sizeof nr);
        if (!ns || eb->len < sizeof nr)
            rc = dike_err_set(e, DIKE_EINVAL, "%s: %s", path, ns ? "the node ranks' state is missing (a "
                              "checkpoint of the predicting mode?)" : "holds node ranks' state, but "
                              "this run does not emulate");
        else if (nr == 0 || nr > (eb->len - sizeof nr) / sizeof(uint64_t))
            rc = dike_err_set(e, DIKE_EINVAL, "%s: node ranks' state is damaged", path);
        size_t head = rc ? 0 : sizeof nr + (size_t)nr * sizeof(uint64_t), total = 0;
        char **parts = rc ? NULL : dike_xcalloc((size_t)nr, sizeof *parts);
        size_t *plens = rc ? NULL : dike_xcalloc((size_t)nr, sizeof *plens);
        for (uint64_t r = 0; !rc && r < nr; r++) {
            uint64_t len;
            memcpy(&len, eb->p + sizeof nr + (size_t)r * sizeof len, sizeof len);
            if (len > INT32_MAX || len > eb->len - head - total)
                rc = dike_err_set(e, DIKE_EINVAL, "%s: node ranks' state is damaged", path);
            parts[r] = eb->p + head + total;
            plens[r] = (size_t)len;
            total += (size_t)len;
        }
        if (!rc && head + total != eb->len)
            rc = dike_err_set(e, DIKE_EINVAL, "%s: node ranks' state is damaged", path);
        if (!rc && nr == (uint64_t)np && dike_nodes_parts_fit(ns, np, parts, plens)) {
            for (int r = 0; r < np; r++) {
                counts[r] = (int)plens[r];
                displs[r] = (int)(parts[r] - parts[0]);
            }
            data = parts[0];
        } else if (!rc) {
            const char *bad = NULL;
            size_t *nlens = NULL;
            char **np_parts = dike_nodes_relayout(ns, (int)nr, parts, plens, &nlens, &bad);
            if (!np_parts) {
                rc = dike_err_set(e, DIKE_EINVAL, "%s: node ranks' state written by %llu ranks cannot be "
                                  "moved to %d: %s", path, (unsigned long long)nr, np, bad);
            } else {
                size_t all = 0;
                for (int r = 0; r < np; r++)
                    all += nlens[r];
                moved = dike_xmalloc(all + 1);
                all = 0;
                for (int r = 0; r < np && !rc; r++) {
                    if (nlens[r] > INT32_MAX || all > INT32_MAX)
                        rc = dike_err_set(e, DIKE_EINVAL, "%s: rank %d's node state has %zu bytes, more "
                                          "than one MPI message holds", path, r, nlens[r]);
                    memcpy(moved + all, np_parts[r], nlens[r]);
                    counts[r] = (int)nlens[r];
                    displs[r] = (int)all;
                    all += nlens[r];
                }
                for (int r = 0; r < np; r++)
                    free(np_parts[r]);
                free(np_parts);
                free(nlens);
                data = moved;
            }
        }
        free(parts);
        free(plens);
    }
    if ((rc = dike_mpi_agree(comm, rc, e)))
        goto out;
    int mylen = 0;
    DIKE_MPI_CHECK(MPI_Scatter(counts, 1, MPI_INT, &mylen, 1, MPI_INT, 0, comm));
    char *mine = dike_xmalloc((size_t)mylen + 1);
    DIKE_MPI_CHECK(MPI_Scatterv(data, counts, displs, MPI_BYTE, mine, mylen, MPI_BYTE, 0, comm));
    const char *bad = dike_nodes_load(ns, mine, (size_t)mylen);
    if (bad)
        rc = dike_err_set(e, DIKE_EINVAL, "%s: rank %d's node state: %s", path, rank, bad);
    free(mine);
    rc = dike_mpi_agree(comm, rc, e);
out:
    free(moved);
    free(counts);
    free(displs);
    return rc;
}

int dike_checkpoint_restore(const char *path, MPI_Comm comm, dike_sched *s, dike_part *p,
                            const dike_part_layout *l, dike_nodes *ns, const char *trace_sha256,
                            dike_err *e)
{
    int rank = dike_mpi_rank(comm), np = dike_mpi_size(comm), rc = 0;
    dike_bytes cb = {0}, nb = {0}, eb = {0};
    if (rank == 0) {
        H5E_auto2_t old_fn;
        void *old_data;
        H5Eget_auto2(H5E_DEFAULT, &old_fn, &old_data);
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        char *img = NULL;
        size_t n = 0;
        hid_t f = H5I_INVALID_HID;
        int lrc = load_image(path, &img, &n, e);
        if (!lrc)
            f = open_image(img, n);
        char *sha = f < 0 ? NULL : read_str_attr(f, "trace_sha256");
        char *ssum = f < 0 ? NULL : read_str_attr(f, "state_sha256");
        char want[65] = "";
        if (lrc)
            rc = lrc;
        else if (f < 0 || read_blob(f, "coordinator", &cb) || read_blob(f, "nodes", &nb) ||
                 read_blob(f, "emulator", &eb))
            rc = dike_err_set(e, DIKE_EINVAL, "%s: damaged checkpoint: cannot read its state", path);
        else if (dike_ckpt_fuzz_mutate) /* a forger's blobs: checksums recomputed, so skipped */
            dike_ckpt_fuzz_mutate(cb.p, cb.len, nb.p, nb.len, eb.p, eb.len);
        else if (state_digest(cb.p, cb.len, nb.p, nb.len, eb.p, eb.len, want), !ssum || strcmp(want, ssum) != 0)
            rc = dike_err_set(e, DIKE_EINVAL, "%s: damaged checkpoint: the state does not match its "
                              "checksum (state_sha256)", path);
        if (!rc && (!sha || strcmp(sha, trace_sha256 ? trace_sha256 : "") != 0))
            rc = dike_err_set(e, DIKE_EINVAL, "%s: the trace changed since the checkpoint (sha256 %s, now %s)",
                              path, sha ? sha : "?", trace_sha256 ? trace_sha256 : "");
        if (!rc)
            rc = load_coord(&cb, s, e);
        if (!rc && (cb.bad || cb.pos != cb.len))
            rc = dike_err_set(e, DIKE_EINVAL, "%s: coordinator state is damaged", path);
        free(sha);
        free(ssum);
        if (f >= 0)
            H5Fclose(f);
        free(img);
        H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
    }
    if ((rc = dike_mpi_agree(comm, rc, e))) /* rank 0's verdict on every rank */
        goto out;
    /* node records to their new owners: records are in node order, fixed size */
    {
        size_t rec = sizeof(node_rec) + (p->jobs ? p->cl->gpus_per_node * sizeof(uint32_t) : 0);
        int *counts = dike_xcalloc((size_t)np, sizeof *counts), *displs = dike_xcalloc((size_t)np, sizeof *displs);
        const char *bad = NULL;
        if (rank == 0 && nb.len != (size_t)p->cl->nodes * rec)
            rc = dike_err_set(e, DIKE_EINVAL, "%s: node state has %zu bytes, expected %zu", path, nb.len,
                              (size_t)p->cl->nodes * rec);
        else if (rank == 0 && (bad = check_nodes(&nb, s, p->jobs != NULL)))
            rc = dike_err_set(e, DIKE_EINVAL, "%s: node state does not fit this workload and cluster: %s",
                              path, bad);
        if (!(rc = dike_mpi_agree(comm, rc, e))) { /* every rank takes rank 0's verdict */
            for (int r = 0; r < np; r++) {
                uint32_t first, n;
                dike_part_block(l, r, &first, &n);
                counts[r] = (int)(n * rec);
                displs[r] = (int)(first * rec);
            }
            dike_bytes mine = {0};
            mine.len = (size_t)counts[rank];
            mine.p = dike_xmalloc(mine.len + 1);
            DIKE_MPI_CHECK(MPI_Scatterv(nb.p, counts, displs, MPI_BYTE, mine.p, counts[rank], MPI_BYTE,
                                        0, comm));
            if (load_nodes(&mine, p, p->jobs != NULL) != 0)
                rc = dike_err_set(e, DIKE_EINVAL, "%s: node state is damaged", path);
            rc = dike_mpi_agree(comm, rc, e);
            free(mine.p);
        }
        free(counts);
        free(displs);
    }
    if (!rc && (ns || eb.len))
        rc = restore_emulator(path, comm, &eb, ns, e);
out:
    free(cb.p);
    free(nb.p);
    free(eb.p);
    if (!rc && dike_ckpt_fuzz_mutate) /* the fuzzer checks the restore, not the run after it */
        rc = dike_err_set(e, DIKE_ESTOPPED, "%s: restored (fuzzing)", path);
    return rc;
}
