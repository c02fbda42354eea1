/* dike: fairness and efficiency together (reconstruction of the ICASSP 2025 Dike policy; docs/dike.md
 * says what is reconstructed and what is this project's choice, and what was tried and dropped).
 *
 * Efficiency. Queued jobs are ordered by remaining GPU-time, estimated remaining work (a resumed
 * job's restore cost included) x GPUs: Smith's rule with GPUs as the resource, the order that keeps
 * the sum of completion times low when jobs of different widths share the GPUs. They start as
 * whole gangs in that order wherever they fit (work-conserving fill-in; where they go is the
 * placement strategy's choice). When the first job in the order does not fit, it may take GPUs
 * from running jobs that have held their GPUs for dike.min_lease_s and are larger by the hysteresis
 * factor in the knob's measure, remaining time x GPUs^w:
 *   (candidate's remaining + its restore + the victim's restore) x candidate's GPUs^w
 *       <= (1 - dike.hysteresis) x victim's remaining x victim's GPUs^w,
 * on the node (or the fewest whole nodes) where the fewest victim GPUs suffice, so the freed GPUs
 * are where the gang will be placed. At w = 1 the measure is the order's own (GPU-time): a
 * preemption never goes against the order, and wide jobs, whose fair finish times are the most
 * distant (T_ideal grows with GPUs under load), yield to narrow ones. At w = 0 it is remaining time
 * alone, as in SRTF: a wide job that is shorter may take the GPUs of narrower, longer jobs instead
 * of waiting for fill-in to leave it a whole set of free nodes.
 *
 * Fairness. Every job has a fair finish time, submit + T_ideal_est (finish-time fairness, Themis;
 * SPEC §6):
 *     T_ideal_est = estimated duration x max(1, num_gpus x N_avg / G),
 * with N_avg the time-average number of jobs in the system since the job was submitted (what the
 * metric will use, as far as it is known) and G the GPUs that are up. A running job's slack is
 *     slack = submit + T_ideal_est - now - remaining - restore
 * (how long it can be delayed by a preemption now and still finish by its fair finish time). With
 * w = dike.fairness_weight > 0 a running job may be taken off its GPUs only if
 *     slack >= w x (candidate's remaining + candidate's restore),
 * i.e. it can wait for w of the candidate's run and still finish fairly, or if it is past its fair
 * finish time even when left alone (it cannot be made fair any more, and holding on would only
 * make smaller jobs wait). w = 1 never turns a fair job into an unfair one by preempting it;
 * w = 0 lets efficiency alone decide (and the time measure above). The guard also bounds churn: every preemption uses up part of
 * the victim's slack, and a job without slack is not preempted again. (Tenants are not a level of
 * this decision: a tenant guard was tried and dropped, docs/dike.md.)
 *
 * Job lengths are the scheduler's estimates (scheduler.duration_knowledge); metrics use the truth. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dike/sched.h"
#include "policy/jobq.h"
#include "policy/policy.h"

/** A running job's share of one node. */
typedef struct dk_slot {
    dike_job *job;
    uint32_t gpus;
} dk_slot;

typedef struct dk_state {
    double w;           /**< dike.fairness_weight */
    double keep;        /**< 1 - dike.hysteresis */
    double lease_us;    /**< dike.min_lease_s, us */
    double cost_s;      /**< scheduler.preemption_cost_s, s */
    uint64_t epoch;     /**< dike_sched_est_epoch when the queued keys were computed */
    dike_jobq queued;   /**< queued jobs, shortest estimated remaining (+ restore) first */
    uint32_t *nnodes;   /**< per job: slices of its current placement (recorded at start) */
    uint32_t nodes;     /**< cluster nodes */
    uint32_t *node_off; /**< node -> its first slot */
    uint32_t *node_n;   /**< running jobs per node */
    dk_slot *slot;      /**< running jobs per node, node_off[n] .. node_off[n] + node_n[n] */
    dk_slot *cand;      /**< scratch: one node's possible victims */
    uint32_t *pick;     /**< scratch: nodes chosen for a gang */
    double *gw;         /**< gang size g -> g^w (pow is most of the victim test otherwise) */
    uint32_t max_g;     /**< largest gang in the workload */
} dk_state;

/* ---- what the scheduler estimates ---- */

/* Remaining work in seconds, kept positive. */
static double positive_s(double us)
{
    return us / 1e6 > 1e-6 ? us / 1e6 : 1e-6;
}

static double est_rem_s(const dike_sched *s, const dike_job *j)
{
    return positive_s(dike_sched_est_remaining(s, j));
}

/* A running job's, for victim tests: its estimate does not grow while it runs. */
static double run_rem_s(const dike_sched *s, const dike_job *v)
{
    return positive_s(dike_sched_est_remaining_running(s, v));
}

static double restore_s(const dk_state *st, const dike_job *j)
{
    return j->first_start >= 0 ? st->cost_s : 0;
}

/* T_ideal_est, s: the estimated duration scaled by the job's share of the cluster so far. */
static double ideal_s(const dike_sched *s, const dike_job *j)
{
    double share = (double)j->spec->num_gpus * dike_sched_navg(s, j) / (double)dike_sched_gpus_up(s);
    return dike_sched_est_duration(s, j) / 1e6 * (share > 1 ? share : 1);
}

/* Seconds running job @p v can be delayed and still finish by its fair finish time if it is
 * preempted now (it pays the restore cost and then runs at its best rate, 1). */
static double slack_s(const dk_state *st, const dike_sched *s, const dike_job *v)
{
    double now = dike_time_to_s(dike_sched_now(s));
    return dike_time_to_s(v->spec->submit) + ideal_s(s, v) - now - run_rem_s(s, v) - st->cost_s;
}

/* Remaining GPU-time (us x GPUs), a resumed job's restore included: the order of Smith's rule when
 * the resource is GPUs. */
static double key(const dk_state *st, const dike_sched *s, const dike_job *j)
{
    return (dike_sched_est_remaining(s, j) + restore_s(st, j) * 1e6) * j->spec->num_gpus;
}

/* ---- which running jobs are on which node ---- */

static void node_add(dk_state *st, dike_job *j)
{
    st->nnodes[j->idx] = j->nslices;
    for (uint32_t i = 0; i < j->nslices; i++) {
        uint32_t n = j->slices[i].node;
        st->slot[st->node_off[n] + st->node_n[n]++] = (dk_slot){j, j->slices[i].gpus};
    }
}

static void node_remove(dk_state *st, dike_job *j)
{
    /* j->slices still holds the last placement after the engine released it */
    for (uint32_t i = 0; i < st->nnodes[j->idx]; i++) {
        uint32_t n = j->slices[i].node;
        dk_slot *sl = st->slot + st->node_off[n];
        for (uint32_t k = 0; k < st->node_n[n]; k++)
            if (sl[k].job == j) {
                sl[k] = sl[--st->node_n[n]];
                break;
            }
    }
    st->nnodes[j->idx] = 0;
}

static int start(dk_state *st, dike_sched *s, dike_job *j)
{
    if (!dike_sched_start(s, j))
        return 0;
    dike_jobq_remove(&st->queued, j);
    node_add(st, j);
    return 1;
}

static int fill_start(void *ctx, dike_sched *s, dike_job *j)
{
    return start(ctx, s, j);
}

/* ---- preemption ---- */

/* The victim test's candidate side, (need + restore) x GPUs^w: the same for every victim. */
static double cand_measure(const dk_state *st, const dike_job *q, double need_s)
{
    return (need_s + st->cost_s) * st->gw[q->spec->num_gpus];
}

/* May running job @p v be taken off its GPUs for @p q, which needs @p need_s seconds and measures
 * @p qm (cand_measure)? */
static int can_take(const dk_state *st, const dike_sched *s, const dike_job *v, const dike_job *q,
                    double need_s, double qm)
{
    dike_time now = dike_sched_now(s);
    if (v->state != DIKE_JOB_RUNNING || v->run_start == now ||
        (double)(now - v->run_start) < st->lease_us)
        return 0;
    if (q->spec->gpu_type >= 0 && v->type != q->spec->gpu_type)
        return 0;
    /* Smaller by the hysteresis factor in the knob's measure, remaining time x GPUs^w (both
     * restores counted: the swap must pay for them). */
    if (qm > st->keep * run_rem_s(s, v) * st->gw[v->spec->num_gpus])
        return 0;
    if (st->w <= 0)
        return 1; /* fairness does not restrict preemption */
    double slack = slack_s(st, s, v);
    if (slack >= st->w * need_s)
        return 1; /* it can wait for q (w = 1: all of q's run) and still finish fairly */
    /* Past its fair finish even if left alone (at its current rate, no restore): nothing to keep.
     * The second of margin keeps a job that is exactly on time (slack 0 in a lightly loaded
     * cluster, where T_ideal = duration) from being counted late through rounding. */
    double alone = slack + st->cost_s - run_rem_s(s, v) * (1 / v->rate - 1);
    return alone < -1.0;
}

static int by_gpus_desc(const void *a, const void *b)
{
    const dk_slot *x = a, *y = b;
    if (x->gpus != y->gpus)
        return x->gpus > y->gpus ? -1 : 1;
    return x->job->idx < y->job->idx ? -1 : x->job->idx > y->job->idx;
}

/* Node @p n's possible victims for @p q, largest share first, into st->cand; returns how many,
 * and the GPUs they hold on the node in *gpus. */
static uint32_t node_victims(dk_state *st, const dike_sched *s, uint32_t n, const dike_job *q,
                             double need_s, double qm, uint32_t *gpus)
{
    uint32_t m = 0;
    *gpus = 0;
    const dk_slot *sl = st->slot + st->node_off[n];
    for (uint32_t k = 0; k < st->node_n[n]; k++)
        if (can_take(st, s, sl[k].job, q, need_s, qm)) {
            st->cand[m++] = sl[k];
            *gpus += sl[k].gpus;
        }
    qsort(st->cand, m, sizeof *st->cand, by_gpus_desc);
    return m;
}

static int node_allowed(const dike_cluster *cl, uint32_t n, const dike_job *q)
{
    return q->spec->gpu_type < 0 || dike_cluster_node_type(cl, n) == q->spec->gpu_type;
}

/* Choose where q's gang will go if victims are taken: one node where the victims needed hold the
 * fewest GPUs (a gang that fits in a node), or the first whole nodes that can be emptied (a larger
 * gang). Fills st->pick; returns how many nodes, 0 if q cannot be made room for. */
static uint32_t choose_nodes(dk_state *st, const dike_sched *s, const dike_job *q, double need_s,
                             double qm)
{
    const dike_cluster *cl = dike_sched_cluster(s);
    uint32_t g = q->spec->num_gpus, vg;
    if (g <= cl->gpus_per_node) {
        uint32_t best = UINT32_MAX, best_cost = UINT32_MAX;
        for (uint32_t n = 0; n < st->nodes; n++) {
            uint32_t f = dike_sched_node_free(s, n);
            if (!node_allowed(cl, n, q) || f >= g || dike_cluster_node_gpus(cl, n) < g)
                continue;
            uint32_t m = node_victims(st, s, n, q, need_s, qm, &vg);
            if (f + vg < g)
                continue;
            uint32_t cost = 0, have = f;
            for (uint32_t k = 0; k < m && have < g; k++) {
                have += st->cand[k].gpus;
                cost += st->cand[k].job->spec->num_gpus; /* all of the victim's GPUs stop */
            }
            if (cost < best_cost) {
                best_cost = cost;
                best = n;
            }
        }
        if (best == UINT32_MAX)
            return 0;
        st->pick[0] = best;
        return 1;
    }
    uint32_t npick = 0, have = 0;
    for (uint32_t n = 0; n < st->nodes && have < g; n++) {
        if (!node_allowed(cl, n, q))
            continue;
        uint32_t f = dike_sched_node_free(s, n);
        node_victims(st, s, n, q, need_s, qm, &vg);
        if (f + vg > 0 && f + vg == dike_cluster_node_gpus(cl, n)) {
            st->pick[npick++] = n;
            have += f + vg;
        }
    }
    return have >= g ? npick : 0;
}

/* Preempt victims on the chosen nodes (largest share first, only what each node must give) and
 * start q. Returns 1 if q started. */
static int make_room(dk_state *st, dike_sched *s, dike_job *q)
{
    const dike_cluster *cl = dike_sched_cluster(s);
    double need_s = est_rem_s(s, q) + restore_s(st, q), qm = cand_measure(st, q, need_s);
    uint32_t npick = choose_nodes(st, s, q, need_s, qm), still = q->spec->num_gpus, vg;
    for (uint32_t i = 0; i < npick && still > 0; i++) {
        uint32_t n = st->pick[i], cap = dike_cluster_node_gpus(cl, n);
        uint32_t have = dike_sched_node_free(s, n), want = still < cap ? still : cap;
        uint32_t m = node_victims(st, s, n, q, need_s, qm, &vg);
        for (uint32_t k = 0; k < m && have < want; k++) {
            dike_job *v = st->cand[k].job;
            have += st->cand[k].gpus;
            node_remove(st, v);
            dike_sched_preempt(s, v);
            dike_jobq_push(&st->queued, v, key(st, s, v));
        }
        still -= have < still ? have : still;
    }
    return npick > 0 && start(st, s, q);
}

/* ---- the decision step ---- */

static double rekey_fn(void *ctx, const dike_sched *s, const dike_job *j)
{
    return key(ctx, s, j);
}

static void dk_decide(void *state, dike_sched *s)
{
    dk_state *st = state;
    dike_job *q;
    if (dike_sched_est_epoch(s) != st->epoch) { /* estimates of waiting jobs changed (`none`) */
        st->epoch = dike_sched_est_epoch(s);
        dike_jobq_rekey(&st->queued, s, rekey_fn, st);
    }
    /* in order; the first that does not fit may preempt (only it, as in SRTF) */
    while ((q = dike_jobq_min(&st->queued)))
        if (!start(st, s, q) && !make_room(st, s, q))
            break;
    /* fill-in: shortest first among the jobs that fit */
    dike_jobq_fill(&st->queued, s, fill_start, st);
}

/* ---- events ---- */

static int dk_init(dike_sched *s, void **state, dike_err *e)
{
    dk_state *st = dike_xcalloc(1, sizeof *st);
    const dike_config *c = dike_sched_config(s);
    const dike_cluster *cl = dike_sched_cluster(s);
    size_t njobs = dike_sched_workload(s)->njobs;
    st->w = c->dike_fairness_weight;
    st->keep = 1 - c->dike_hysteresis;
    st->lease_us = c->dike_min_lease_s * 1e6;
    st->cost_s = c->scheduler_preemption_cost_s;
    dike_jobq_init(&st->queued);
    st->nnodes = dike_xcalloc(njobs ? njobs : 1, sizeof *st->nnodes);
    st->nodes = cl->nodes;
    st->node_off = dike_xcalloc((size_t)cl->nodes + 1, sizeof *st->node_off);
    st->node_n = dike_xcalloc(cl->nodes ? cl->nodes : 1, sizeof *st->node_n);
    for (uint32_t n = 0; n < cl->nodes; n++)
        st->node_off[n + 1] = st->node_off[n] + dike_cluster_node_gpus(cl, n);
    st->slot = dike_xcalloc(st->node_off[cl->nodes] ? st->node_off[cl->nodes] : 1, sizeof *st->slot);
    st->cand = dike_xcalloc((size_t)cl->gpus_per_node + 1, sizeof *st->cand);
    st->pick = dike_xcalloc((size_t)cl->nodes + 1, sizeof *st->pick);
    const dike_workload *wl = dike_sched_workload(s);
    for (size_t i = 0; i < wl->njobs; i++)
        if (wl->jobs[i].num_gpus > st->max_g)
            st->max_g = wl->jobs[i].num_gpus;
    st->gw = dike_xmalloc(((size_t)st->max_g + 1) * sizeof *st->gw);
    for (uint32_t g = 0; g <= st->max_g; g++)
        st->gw[g] = pow(g, st->w);
    *state = st;
    (void)e;
    return 0;
}

static void dk_arrival(void *state, dike_sched *s, dike_job *j)
{
    dike_jobq_push(&((dk_state *)state)->queued, j, key(state, s, j));
}

static void dk_finish(void *state, dike_sched *s, dike_job *j)
{
    node_remove(state, j);
}

static void dk_evicted(void *state, dike_sched *s, dike_job *j)
{
    node_remove(state, j);
    dk_arrival(state, s, j);
}

static void dk_restore(void *state, dike_sched *s, dike_job *j)
{
    if (j->state == DIKE_JOB_RUNNING)
        node_add(state, j);
    else
        dk_arrival(state, s, j);
}

static void dk_free(void *state)
{
    dk_state *st = state;
    dike_jobq_free(&st->queued);
    free(st->nnodes);
    free(st->node_off);
    free(st->node_n);
    free(st->slot);
    free(st->cand);
    free(st->pick);
    free(st->gw);
    free(st);
}

const dike_policy dike_policy_dike = {
    .name = "dike",
    .summary = "fairness + efficiency: shortest remaining first; preempt only jobs that stay fair (knob w)",
    /* leases expire and slack shrinks between events: look again at every round boundary */
    .flags = DIKE_POLICY_PREEMPTIVE | DIKE_POLICY_ROUNDS,
    .init = dk_init,
    .on_arrival = dk_arrival,
    .on_finish = dk_finish,
    .on_evicted = dk_evicted,
    .decide = dk_decide,
    .free = dk_free,
    .restore_job = dk_restore,
};
