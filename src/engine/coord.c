/* Coordinator: the event loop of rank 0, its accounting, and the results it builds. The API
 * policies call (dike_sched_*) is in sched.c. */
#include "engine/coord.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dike/metrics.h"
#include "dike/run.h"
#include "dike/throughput.h"
#include "placement/capacity.h"
#include "engine/nodes.h"

/* ---- events ---- */

void dike_coord_push_event(dike_sched *s, dike_time t, uint8_t phase, uint8_t kind, uint32_t entity,
                            uint32_t seq, uint32_t data)
{
    dike_event *ev = dike_pool_get(&s->pool);
    ev->time = t;
    ev->phase = phase;
    ev->kind = kind;
    ev->entity = entity;
    ev->seq = seq;
    ev->data = data;
    ev->pad_ = 0;
    dike_heap_push(&s->heap, ev);
}

static void push_next_arrival(dike_sched *s)
{
    if (s->next_arrival >= s->w->njobs)
        return;
    dike_job *j = &s->jobs[s->next_arrival++];
    dike_coord_push_event(s, j->spec->submit, DIKE_PHASE_ARRIVE, DIKE_EV_JOB_ARRIVE, j->idx, j->seq++, 0);
}

/* ---- accounting ---- */

/* The integral of active jobs over time gives each job's N_avg (SPEC §6) in O(1). */
static void touch_area(dike_sched *s)
{
    if (s->now > s->area_t) {
        s->area += (double)s->active * dike_time_to_s(s->now - s->area_t);
        s->area_t = s->now;
    }
}

static void emit_sample(dike_sched *s, dike_time t)
{
    dike_timeseries_push_row(&s->ts, dike_time_to_s(t), (uint32_t)s->busy_gpus, s->queued, s->running,
                             s->tenant_gpus);
}

/* The samples due before @p t (@p through: up to and including t). The start-up check bounds
 * /timeseries by the submits' span, but the simulated time can outlast it by far (a heavy backlog,
 * slowed nodes): a run whose samples would pass output.timeseries_max_gib stops with an error, as
 * one that stalls does, instead of taking all the memory (docs/reliability.md). */
static void sample_until(dike_sched *s, dike_time t, int through)
{
    while (s->next_sample < t || (through && s->next_sample == t)) {
        if (s->ts.n >= s->ts_max) {
            s->stalled = DIKE_STALL_TIMESERIES;
            return;
        }
        emit_sample(s, s->next_sample);
        s->next_sample += s->sample_step;
    }
}

/* Samples at times before t see the state left by every event before t. */
static void advance_to(dike_sched *s, dike_time t)
{
    sample_until(s, t, 0);
    s->now = t;
}

void dike_coord_add_action(dike_sched *s, uint32_t kind, const dike_job *j, const dike_slice *sl)
{
    if (s->nact == s->act_cap) {
        s->act_cap = s->act_cap ? 2 * s->act_cap : 4096;
        s->act = dike_xrealloc(s->act, s->act_cap * sizeof *s->act);
    }
    dike_action *a = &s->act[s->nact++];
    a->time = s->now;
    a->run_start = j->run_start;
    a->node = sl->node;
    a->gpus = sl->gpus;
    a->job = j->idx;
    a->kind = kind;
}

/* The fraction of a cross-rack gang's step spent communicating over the uplinks
 * (docs/models.md#network): what it loses against running on one node. From Gavel's measured
 * consolidated / unconsolidated throughput of its model class when the throughput table knows it
 * (the same u as dike_tput_rate, carried across racks by the cluster's locality ratio), else
 * from the cluster's locality_cross_rack. */
static double comm_intensity(const dike_sched *s, const dike_job *j)
{
    const dike_cluster *cl = s->cl;
    const dike_workload *w = s->w;
    double cross = cl->loc_factor[DIKE_LOC_CROSS];
    int model = j->spec->model, type = j->type;
    if (w->model_class && model >= 0 && (uint32_t)model < w->nmodels && type >= 0 &&
        w->model_class[model] >= 0 && w->type_class[type] >= 0) {
        const dike_tput_class *c = &dike_tput_gavel[w->model_class[model]];
        int tt = w->type_class[type];
        for (int si = dike_tput_scale_index(j->spec->num_gpus); si > 0; si--)
            if (c->rel[tt][si][0] > 0 && c->rel[tt][si][1] > 0) {
                double u = c->rel[tt][si][1] / c->rel[tt][si][0];
                cross = (u < 1 ? u : 1) * cl->loc_factor[DIKE_LOC_CROSS] / cl->loc_factor[DIKE_LOC_RACK];
                break;
            }
    }
    double iota = 1 - cross;
    return iota < 0 ? 0 : iota > 0.99 ? 0.99 : iota;
}

/* Emulating mode: slice i of job j starts or stops L after now, at its node's owner. */
void dike_coord_add_nact(dike_sched *s, uint32_t kind, const dike_job *j, uint32_t i, uint32_t reason)
{
    if (s->neact == s->eact_cap) {
        s->eact_cap = s->eact_cap ? 2 * s->eact_cap : 4096;
        s->eact = dike_xrealloc(s->eact, s->eact_cap * sizeof *s->eact);
    }
    dike_nact *a = &s->eact[s->neact++];
    memset(a, 0, sizeof *a);
    a->time = s->now + s->latency_us;
    a->run_start = j->run_start + s->latency_us;
    a->node = j->slices[i].node;
    a->gpus = j->slices[i].gpus;
    a->job = j->idx;
    a->kind = kind;
    a->epoch = j->epoch;
    a->slice = i;
    a->nslices = j->nslices;
    a->home_node = j->slices[0].node;
    a->reason = reason;
    if (kind == DIKE_ACT_START) {
        a->delay = j->progress_start - j->run_start - s->latency_us;
        a->work = j->remaining;
        a->rate = j->rate;
        if (s->net_on && j->level == DIKE_LOC_CROSS)
            a->iota = comm_intensity(s, j);
    } else if (reason == DIKE_STOP_EVICT) {
        a->delay = s->now; /* the failure: the run rolls back to its last checkpoint before it */
    }
    if (s->node_jobs) {
        uint32_t *sl = &s->node_jobs[(size_t)a->node * s->cl->gpus_per_node];
        uint32_t want = kind == DIKE_ACT_START ? UINT32_MAX : j->idx;
        uint32_t put = kind == DIKE_ACT_START ? j->idx : UINT32_MAX;
        uint32_t k = 0;
        while (k < s->cl->gpus_per_node && sl[k] != want)
            k++;
        if (k == s->cl->gpus_per_node)
            dike_fatal("node %u: no slot for job %u", a->node, j->idx);
        sl[k] = put;
    }
}

/* Order-independent signature of a node set, to tell a migration from a resume in place. */
uint32_t dike_coord_node_set_sig(const dike_slice *sl, uint32_t n)
{
    uint64_t sum = 0, x = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t h = (sl[i].node + 1) * UINT64_C(0x9E3779B97F4A7C15);
        h ^= h >> 29;
        sum += h;
        x ^= h * 31;
    }
    return (uint32_t)(sum ^ (x >> 17) ^ n);
}

/* Release a running job's GPUs at now: capacity, node actions, run accounting. @p reason
 * (DIKE_STOP_*) tells the home what to report in the emulating mode. */
void dike_coord_release(dike_sched *s, dike_job *j, uint32_t reason)
{
    uint32_t g = j->spec->num_gpus;
    for (uint32_t i = 0; i < j->nslices; i++) {
        dike_capacity_give(s->cap, j->slices[i].node, j->slices[i].gpus);
        if (s->emulate)
            dike_coord_add_nact(s, DIKE_ACT_STOP, j, i, reason);
        else
            dike_coord_add_action(s, DIKE_ACT_STOP, j, &j->slices[i]);
    }
    double held = (double)(s->now - j->run_start);
    double productive = s->now > j->progress_start ? (double)(s->now - j->progress_start) : 0.0;
    j->held_us += held;
    j->last_stop = s->now;
    j->rate_gpu_us += j->rate * g * productive;
    j->attained_gpu_s += g * productive / 1e6; /* the time it worked, not its launch or restore */
    s->tenant_gpu_s[j->spec->tenant] += g * held / 1e6;
    s->busy_gpus -= g;
    s->tenant_gpus[j->spec->tenant] -= g;
    s->running--;
}

/* The engine stops a running job because its node failed: the job keeps the work up to its last
 * checkpoint (every faults.checkpoint_interval_s of progress in this run), loses the rest, and goes
 * back to the queue; the restore cost is paid when it resumes. */
static void evict(dike_sched *s, dike_job *j)
{
    double kept = 0, lost_us = 0;
    if (s->emulate) {
        /* the home knows the progress: it reports the work at the last checkpoint and the loss */
        s->stop_pending[j->idx] = 1;
    } else if (s->now > j->progress_start) {
        double prog = (double)(s->now - j->progress_start);
        double ckpt = floor(prog / (double)s->ckpt_us) * (double)s->ckpt_us;
        kept = ckpt * j->rate;
        lost_us = prog - ckpt;
    }
    j->remaining -= kept;
    if (j->remaining < 1)
        j->remaining = 1;
    if (kept > 0)
        dike_coord_progress(s);
    dike_coord_release(s, j, DIKE_STOP_EVICT);
    j->last_sig = dike_coord_node_set_sig(j->slices, j->nslices);
    j->nslices = 0;
    j->epoch++;
    j->restarts++;
    j->lost_gpu_s += j->spec->num_gpus * lost_us / 1e6;
    j->rate = 0;
    j->state = DIKE_JOB_QUEUED;
    s->queued++;
    s->pol->on_evicted(s->pol_state, s, j);
}

/* The emulating mode: no completion is predicted, actions become dike_nact with effect time now +
 * latency. Switched on in dike_coord_init before the policy's init, so that a policy can ask
 * dike_sched_emulating there (srtf and dike choose their upkeep of bounds by it). */
static void coord_emulate(dike_sched *s, dike_time latency_us)
{
    size_t n = s->w->njobs + 1;
    s->emulate = 1;
    s->latency_us = latency_us;
    s->net_on = strcmp(s->cfg->node_model_network, "rack") == 0;
    s->stop_pending = dike_xcalloc(n, 1);
    s->stop_work = dike_xcalloc(n, sizeof *s->stop_work);
    s->stop_lost = dike_xcalloc(n, sizeof *s->stop_lost);
    if (s->cfg->faults_mtbf_s > 0) {
        size_t slots = (size_t)s->cl->nodes * s->cl->gpus_per_node + 1;
        s->node_jobs = dike_xmalloc(slots * sizeof *s->node_jobs);
        memset(s->node_jobs, 0xff, slots * sizeof *s->node_jobs);
    }
}

void dike_coord_report(dike_sched *s, const dike_nrep *r)
{
    switch (r->kind) {
    case DIKE_NREP_FINISH:
        dike_coord_push_event(s, r->time, DIKE_PHASE_RELEASE, DIKE_EV_JOB_FINISH, r->entity, r->seq, r->seq);
        break;
    case DIKE_NREP_STOPPED:
        s->stop_work[r->entity] = r->work;
        s->stop_lost[r->entity] = r->lost_us;
        dike_coord_push_event(s, r->time, DIKE_PHASE_RELEASE, DIKE_EV_JOB_STOPPED, r->entity, r->seq,
                               r->seq);
        break;
    case DIKE_NREP_FAIL:
        dike_coord_push_event(s, r->time, DIKE_PHASE_RELEASE, DIKE_EV_NODE_FAIL, r->entity, r->seq, 0);
        break;
    case DIKE_NREP_REPAIR:
        dike_coord_push_event(s, r->time, DIKE_PHASE_ARRIVE, DIKE_EV_NODE_REPAIR, r->entity, r->seq, 0);
        break;
    default:
        dike_fatal("unknown node report %u", r->kind);
    }
}

void dike_coord_node_event(dike_sched *s, dike_time t, uint32_t kind, uint32_t node, uint32_t seq,
                           const uint32_t *jobs, uint32_t njobs)
{
    uint32_t data = 0;
    if (kind == DIKE_EV_NODE_FAIL) {
        if (s->nfail == s->fail_cap) {
            s->fail_cap = s->fail_cap ? 2 * s->fail_cap : 64;
            s->fail_jobs = dike_xrealloc(s->fail_jobs, s->fail_cap * sizeof *s->fail_jobs);
            s->fail_njobs = dike_xrealloc(s->fail_njobs, s->fail_cap * sizeof *s->fail_njobs);
        }
        data = (uint32_t)s->nfail++;
        s->fail_jobs[data] = njobs ? dike_xmalloc(njobs * sizeof *jobs) : NULL;
        if (njobs)
            memcpy(s->fail_jobs[data], jobs, njobs * sizeof *jobs);
        s->fail_njobs[data] = njobs;
    }
    dike_coord_push_event(s, t, kind == DIKE_EV_NODE_FAIL ? DIKE_PHASE_RELEASE : DIKE_PHASE_ARRIVE,
                           (uint8_t)kind, node, seq, data);
}

/* One more failure without progress; at stall_fails the run cannot be expected to finish. */
static void count_stall(dike_sched *s)
{
    if (s->stall_fails && ++s->fails_since_progress >= s->stall_fails)
        s->stalled = DIKE_STALL_FAILURES;
}

static void on_node_fail(dike_sched *s, uint32_t node, uint32_t data)
{
    if (s->emulate) {
        /* Every job placed on the node, by the coordinator's own account: a start decided before
         * the failure may not have reached the node yet, and it fails with it. */
        uint32_t G = s->cl->gpus_per_node, on[256], n = 0;
        const uint32_t *sl = &s->node_jobs[(size_t)node * G];
        for (uint32_t k = 0; k < G; k++)
            if (sl[k] != UINT32_MAX)
                on[n++] = sl[k];
        for (uint32_t i = 0; i < n; i++)
            if (s->jobs[on[i]].state == DIKE_JOB_RUNNING)
                evict(s, &s->jobs[on[i]]);
        dike_capacity_set_down(s->cap, node);
        s->ent_dirty = 1;
        s->node_failures++;
        count_stall(s);
        return;
    }
    for (uint32_t i = 0; i < s->fail_njobs[data]; i++) {
        dike_job *j = &s->jobs[s->fail_jobs[data][i]];
        if (j->state == DIKE_JOB_RUNNING) /* a job on several failed nodes is stopped once */
            evict(s, j);
    }
    free(s->fail_jobs[data]);
    s->fail_jobs[data] = NULL;
    dike_capacity_set_down(s->cap, node);
    s->ent_dirty = 1;
    s->node_failures++;
    count_stall(s);
}

/* ---- event handlers ---- */

static void on_arrival(dike_sched *s, dike_job *j)
{
    touch_area(s);
    j->area_at_submit = s->area;
    j->state = DIKE_JOB_QUEUED;
    s->active++;
    s->queued++;
    dike_ent_demand(s, j->spec->tenant, j->spec->num_gpus);
    dike_est_on_arrival(s, j);
    push_next_arrival(s);
    s->pol->on_arrival(s->pol_state, s, j);
}

/* @p j is done now: its record, the counts, what the estimates and the entitlements learn. */
static void mark_done(dike_sched *s, dike_job *j)
{
    j->remaining = 0;
    touch_area(s);
    double jct_s = dike_time_to_s(s->now - j->spec->submit);
    j->navg = jct_s > 0 ? (s->area - j->area_at_submit) / jct_s : 1.0;
    j->finish = s->now;
    j->state = DIKE_JOB_DONE;
    s->active--;
    s->finished++;
    dike_coord_progress(s);
    dike_est_on_finish(s, j);
    dike_ent_demand(s, j->spec->tenant, -(double)j->spec->num_gpus);
}

static void on_finish(dike_sched *s, dike_job *j)
{
    dike_coord_release(s, j, DIKE_STOP_RELEASE);
    j->nslices = 0;
    mark_done(s, j);
    if (s->pol->on_finish)
        s->pol->on_finish(s->pol_state, s, j);
}

int dike_coord_policy_restore(dike_sched *s, const void *blob, size_t len)
{
    for (size_t i = 0; i < s->w->njobs; i++) {
        dike_job *j = &s->jobs[i];
        if (j->state == DIKE_JOB_QUEUED || j->state == DIKE_JOB_RUNNING)
            s->pol->restore_job(s->pol_state, s, j);
    }
    return s->pol->load && s->pol->load(s->pol_state, blob, len);
}

/* For a policy without an on_withdraw hook, a queued job that leaves without running: its state
 * is rebuilt the way a resume rebuilds it (its own state saved, freed, initialised again and
 * restored), which the checkpoint tests hold to the uninterrupted schedule
 * (tests/unit/test_withdraw.c holds each built-in hook to it). */
static void policy_rebuild(dike_sched *s)
{
    size_t len = 0;
    void *blob = s->pol->save ? s->pol->save(s->pol_state, &len) : NULL;
    s->pol->free(s->pol_state);
    s->pol_state = NULL;
    dike_err e = {0};
    if (s->pol->init(s, &s->pol_state, &e))
        dike_fatal("policy %s: init failed when rebuilt: %s", s->pol->name, e.msg);
    if (dike_coord_policy_restore(s, blob, len))
        dike_fatal("policy %s: its own state did not load back when rebuilt", s->pol->name);
    free(blob);
}

/* The emulating mode: a preempted run's work ended on its nodes before the preemption reached
 * them (its completion report is for the run before the preemption's epoch). The job is done at
 * that completion; it leaves the queue it was put back in. Its run's accounting stopped at the
 * preemption decision. */
static void on_finish_stopped(dike_sched *s, dike_job *j)
{
    s->queued--;
    s->stopped_done++;
    mark_done(s, j);
    if (s->pol->on_withdraw)
        s->pol->on_withdraw(s->pol_state, s, j);
    else
        policy_rebuild(s);
}

static void handle(dike_sched *s, const dike_event *ev)
{
    switch (ev->kind) {
    case DIKE_EV_JOB_ARRIVE:
        on_arrival(s, &s->jobs[ev->entity]);
        break;
    case DIKE_EV_JOB_FINISH: {
        dike_job *j = &s->jobs[ev->entity];
        if (s->emulate && j->state == DIKE_JOB_QUEUED && s->stop_pending[j->idx] &&
            ev->data + 1u == j->epoch) {
            on_finish_stopped(s, j);
            break;
        }
        if (ev->data != j->epoch || j->state != DIKE_JOB_RUNNING) {
            s->stale_events++; /* the run it ended was preempted */
            return;
        }
        on_finish(s, j);
        break;
    }
    case DIKE_EV_ROUND:
        s->round_pending = 0;
        s->round_now = 1;
        break;
    case DIKE_EV_NODE_FAIL:
        on_node_fail(s, ev->entity, ev->data);
        s->node_epoch++;
        break;
    case DIKE_EV_NODE_REPAIR:
        dike_capacity_set_up(s->cap, ev->entity);
        s->ent_dirty = 1;
        s->node_epoch++;
        break;
    case DIKE_EV_JOB_STOPPED: {
        /* The stop reached the nodes: the job's true work left is known, it may start again. A
         * run whose work ended between its preemption and the stop finished then (its finish
         * report came first, on_finish_stopped) or at this instant (docs/models.md#limits). */
        dike_job *j = &s->jobs[ev->entity];
        if (j->state == DIKE_JOB_DONE) {
            s->stop_pending[j->idx] = 0; /* its work had ended before the stop: it finished then */
            break;
        }
        double w = s->stop_work[j->idx];
        if (w < 1) {
            /* its work ended at the instant the stop arrived (its finish report comes after) */
            s->stop_pending[j->idx] = 0;
            on_finish_stopped(s, j);
            break;
        }
        if (w < j->remaining)
            dike_coord_progress(s); /* the run kept work (a failure's loss is already out of w) */
        j->remaining = w;
        j->lost_gpu_s += j->spec->num_gpus * s->stop_lost[j->idx] / 1e6;
        s->stop_pending[j->idx] = 0;
        /* A waiting job's work left changed: policies that key their queue by it re-key (the
         * contract of dike_sched_est_epoch and dike_sched_est_version). Without this the queue
         * kept the key computed from the coordinator's guess at the preemption, which a resumed
         * run cannot know. */
        dike_est_on_stop(s, j);
        break;
    }
    default:
        dike_fatal("unknown event kind %u", ev->kind);
    }
}

dike_time dike_coord_next_time(const dike_sched *s)
{
    const dike_event *ev = dike_heap_top(&s->heap);
    return ev ? ev->time : DIKE_TIME_INF;
}

int dike_coord_stall_status(int rank, const dike_sched *s, dike_err *e)
{
    return rank == 0 ? dike_coord_stall_error(s, e) : dike_err_set(e, DIKE_EINVAL, "stalled");
}

int dike_coord_stall_error(const dike_sched *s, dike_err *e)
{
    const dike_config *c = s->cfg;
    if (s->stalled == DIKE_STALL_TIMESERIES)
        return dike_err_set(e, DIKE_EINVAL,
                            "[output] timeseries_interval_s: %g s: /timeseries is full at %zu samples "
                            "(%.3g GiB for %u tenants; output.timeseries_max_gib = %g) at simulated time "
                            "%.0f s, with the run at %.0f s (the last submit at %.0f s) and %zu of %zu jobs "
                            "unfinished: raise the interval or the bound; no output written",
                            c->output_timeseries_interval_s, s->ts.n,
                            (double)s->ts.n * dike_timeseries_row_bytes(s->w->ntenants) /
                                DIKE_GIB,
                            s->w->ntenants, c->output_timeseries_max_gib, dike_time_to_s(s->next_sample),
                            dike_time_to_s(s->now),
                            s->w->njobs ? dike_time_to_s(s->w->jobs[s->w->njobs - 1].submit) : 0.0,
                            s->w->njobs - s->finished, s->w->njobs);
    if (s->stalled == DIKE_STALL_NODE_TIMESERIES)
        return dike_err_set(e, DIKE_EINVAL,
                            "[output] node_timeseries_s: %g s: the per-node samples of a rank's nodes "
                            "(%u bytes per node and sample) would pass output.timeseries_max_gib = %g by "
                            "simulated time %.0f s (the last submit at %.0f s), with %zu of %zu jobs "
                            "unfinished: raise the interval or the bound; no output written",
                            c->output_node_timeseries_s, (unsigned)DIKE_NODE_SAMPLE_BYTES,
                            c->output_timeseries_max_gib, dike_time_to_s(s->now),
                            s->w->njobs ? dike_time_to_s(s->w->jobs[s->w->njobs - 1].submit) : 0.0,
                            s->w->njobs - s->finished, s->w->njobs);
    size_t left = 0;
    uint32_t widest = 0;
    for (size_t i = 0; i < s->w->njobs; i++)
        if (s->jobs[i].state != DIKE_JOB_DONE) {
            left++;
            if (s->w->jobs[i].num_gpus > widest)
                widest = s->w->jobs[i].num_gpus;
        }
    return dike_err_set(e, DIKE_EINVAL,
                        "the run stopped making progress at simulated time %.0f s: %llu node failures "
                        "since %.0f s, and in that time no job finished or kept any work (faults.mtbf_s = "
                        "%g, faults.mttr_s = %g, faults.checkpoint_interval_s = %g); %zu of %zu jobs are "
                        "unfinished, the widest needs %u GPU%s. Raise faults.mtbf_s or lower "
                        "faults.checkpoint_interval_s, or set faults.stall_failures_per_node (now %g per "
                        "node) higher or to 0 to let it run on; no output written",
                        dike_time_to_s(s->now), (unsigned long long)s->fails_since_progress,
                        dike_time_to_s(s->progress_t), c->faults_mtbf_s, c->faults_mttr_s,
                        c->faults_checkpoint_interval_s, left, s->w->njobs, widest, widest == 1 ? "" : "s",
                        c->faults_stall_failures_per_node);
}

int dike_coord_done(const dike_sched *s)
{
    return s->finished == s->w->njobs;
}

void dike_coord_run(dike_sched *s, dike_time horizon, size_t max_actions)
{
    const dike_event *top;
    /* Nothing after the last finish is a result: the events left then (completions of preempted
     * runs, round boundaries, node events) are not processed, so the time series ends at the last
     * real event whether or not a window or checkpoint boundary falls after it. */
    /* A stop request ends the default mode's window here (its checkpoint is taken wherever the
     * coordinator stopped); the emulating mode must finish the window — the node ranks are at its
     * end already — and stops at the next boundary (emulate.c). */
    while (!dike_coord_done(s) && !s->stalled && (top = dike_heap_top(&s->heap)) && top->time < horizon &&
           s->nact < max_actions) {
        dike_time t = top->time;
        if (s->signal_at && t >= s->signal_at && !s->signal_fired) {
            dike_stop_requested = 1; /* testing: a signal in the middle of a window */
            s->signal_fired = 1;
        }
        if (dike_stop_requested && !s->emulate)
            break;
        advance_to(s, t);
        while ((top = dike_heap_top(&s->heap)) && top->time == t) {
            dike_event *ev = dike_heap_pop(&s->heap);
            handle(s, ev);
            dike_pool_put(&s->pool, ev);
            s->events++;
        }
        if (s->ent_dirty)
            dike_ent_update(s);
        /* One decision step per timestamp, after every arrival and completion at it. */
        /* Reading the clock around every decision costs about as much as a cheap decision, so
         * every 8th is timed and the total scaled: an estimate, unbiased for steady workloads. */
        if ((s->decisions & 7) == 0) {
            double t0 = MPI_Wtime();
            s->pol->decide(s->pol_state, s);
            double dt = MPI_Wtime() - t0;
            s->decide_seconds += 8 * dt;
            uint64_t ns = dt > 0 ? (uint64_t)(dt * 1e9) : 0;
            dike_lat_add(&s->decide_lat, ns, s->active);
            dike_lat_add(&s->decide_by_active[dike_lat_octave(s->active)], ns, s->active);
        } else {
            s->pol->decide(s->pol_state, s);
        }
        s->decisions++;
        s->round_now = 0;
        if ((++s->tick & 1023) == 0)
            dike_progress_update(&s->progress, s->now, s->finished, s->events);
        if ((s->pol->flags & DIKE_POLICY_ROUNDS) && !s->round_pending && s->active > 0) {
            dike_time next = (s->now / s->round_us + 1) * s->round_us;
            dike_coord_push_event(s, next, DIKE_PHASE_ROUND, DIKE_EV_ROUND, 0, s->round_seq++, 0);
            s->round_pending = 1;
        }
    }
    if (dike_coord_done(s)) {
        dike_progress_done(&s->progress, s->now, s->finished, s->events);
        /* Close the time series at the last event. */
        sample_until(s, s->now, 1);
    }
}

/* ---- set-up ---- */

int dike_coord_init(dike_sched *s, const dike_config *cfg, const dike_policy *pol,
                    const dike_cluster *cl, const dike_workload *w, dike_err *e)
{
    memset(s, 0, sizeof *s);
    s->cfg = cfg;
    s->cl = cl;
    s->w = w;
    s->pol = pol;
    s->plc = dike_placement_find(cfg->scheduler_placement);
    if (!s->plc)
        return dike_err_set(e, DIKE_EINVAL,
                            "[scheduler] placement: unknown placement '%s' (dike-emu list-policies)",
                            cfg->scheduler_placement);
    if (w->njobs > UINT32_MAX - 1)
        return dike_err_set(e, DIKE_EINVAL, "%s: %zu jobs, at most %u supported", w->source,
                            w->njobs, UINT32_MAX - 1);
    s->round_us = dike_time_from_s(cfg->scheduler_round_s);
    s->preempt_cost_us = dike_time_from_s(cfg->scheduler_preemption_cost_s);
    s->ckpt_us = dike_time_from_s(cfg->faults_checkpoint_interval_s);
    if (s->ckpt_us <= 0)
        s->ckpt_us = 1;
    s->livelock_preempts = w->njobs > 100000 ? 10 * (uint64_t)w->njobs : 1000000;
    if (cfg->faults_mtbf_s > 0) {
        double f = ceil(cfg->faults_stall_failures_per_node * (double)s->cl->nodes);
        s->stall_fails = f >= 1.8e19 ? UINT64_MAX : (uint64_t)f;
    }
    s->sample_step = dike_time_from_s(cfg->output_timeseries_interval_s);
    s->ts_max = (size_t)(cfg->output_timeseries_max_gib * DIKE_GIB /
                         dike_timeseries_row_bytes(w->ntenants));
    if (s->round_us <= 0 || s->sample_step <= 0)
        return dike_err_set(e, DIKE_EINVAL, "[scheduler] round_s and [output] timeseries_interval_s must be positive");

    size_t total_slots = 0;
    uint32_t max_gang = 1;
    for (size_t i = 0; i < w->njobs; i++) {
        total_slots += w->jobs[i].num_gpus;
        if (w->jobs[i].num_gpus > max_gang)
            max_gang = w->jobs[i].num_gpus;
    }
    s->jobs = dike_xcalloc(w->njobs, sizeof *s->jobs);
    s->slice_arena = dike_xmalloc(total_slots * sizeof *s->slice_arena);
    s->scratch = dike_xmalloc(2 * (size_t)max_gang * sizeof *s->scratch); /* topo uses 2 x */
    size_t off = 0;
    for (size_t i = 0; i < w->njobs; i++) {
        dike_job *j = &s->jobs[i];
        j->spec = &w->jobs[i];
        j->idx = (uint32_t)i;
        j->type = -1;
        j->first_start = -1;
        j->last_stop = -1;
        j->remaining = (double)j->spec->duration;
        j->slices = &s->slice_arena[off];
        off += j->spec->num_gpus;
    }
    s->cap = dike_capacity_new(cl);
    for (size_t i = 0; i < sizeof s->rate_cache / sizeof s->rate_cache[0]; i++)
        s->rate_cache[i].version = UINT64_MAX;
    s->cap->seed = (uint64_t)cfg->run_seed;
    s->cap->params = dike_placement_params(cfg, s->plc);
    s->tenant_gpus = dike_xcalloc(w->ntenants + 1, sizeof *s->tenant_gpus);
    s->tenant_gpu_s = dike_xcalloc(w->ntenants + 1, sizeof *s->tenant_gpu_s);
    size_t nt = (size_t)w->ntenants + 1;
    s->tenant_weight = dike_xcalloc(nt, sizeof *s->tenant_weight);
    dike_ent_init(s);
    /* Once, before the run, for every policy: bad weights stop every run, not only the runs of
     * the policies that use them. */
    int wrc = dike_tenant_weights_resolve(cfg, w, s->tenant_weight, e);
    if (wrc)
        return wrc;
    dike_ent_weights_ready(s);
    dike_timeseries_init(&s->ts, w->ntenants);
    s->ts.max = s->ts_max;
    dike_pool_init(&s->pool);
    dike_heap_init(&s->heap);
    int rc = dike_est_init(s, e);
    if (rc)
        return rc;
    if (dike_sched_mode_emulating(cfg))
        coord_emulate(s, dike_time_from_s(cfg->scheduler_decision_latency_s));
    rc = s->pol->init(s, &s->pol_state, e);
    if (rc)
        return rc;
    push_next_arrival(s);
    dike_progress_init(&s->progress, stderr, cfg->output_progress_interval_s,
                       w->njobs ? w->jobs[w->njobs - 1].submit : 0, w->njobs);
    return 0;
}

void dike_coord_free(dike_sched *s)
{
    if (s->pol && s->pol_state)
        s->pol->free(s->pol_state);
    dike_capacity_free(s->cap);
    dike_heap_free(&s->heap);
    dike_pool_free(&s->pool);
    dike_timeseries_free(&s->ts);
    free(s->jobs);
    free(s->slice_arena);
    free(s->scratch);
    free(s->tenant_gpus);
    free(s->tenant_gpu_s);
    dike_est_free(s);
    free(s->tenant_weight);
    dike_ent_free(s);
    free(s->act);
    free(s->eact);
    free(s->stop_pending);
    free(s->stop_work);
    free(s->stop_lost);
    free(s->node_jobs);
    for (size_t i = 0; i < s->nfail; i++)
        free(s->fail_jobs[i]);
    free(s->fail_jobs);
    free(s->fail_njobs);
    memset(s, 0, sizeof *s);
}
