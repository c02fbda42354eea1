/* dike: fairness and efficiency together (reconstruction of the ICASSP 2025 Dike policy; docs/dike.md
 * says what is reconstructed and what is this project's choice; docs/dike-history.md, what was
 * tried and dropped).
 *
 * Efficiency. Queued jobs are ordered by remaining GPU-time, estimated remaining work (a resumed
 * job's restore cost included) x GPUs: Smith's rule with GPUs as the resource, the order that keeps
 * the sum of completion times low when jobs of different widths share the GPUs. They start as
 * whole gangs in that order wherever they fit at their best rate (work-conserving fill-in): a
 * gang is not spread over nodes (or racks) when it fits in one and spreading would slow it
 * (dike_sched_start_local; Gavel measured spread gangs at a median 0.42 of their consolidated
 * throughput, and a gang keeps its placement until it ends or is preempted, while a node usually
 * frees much sooner). When the first job in the order does not fit, it may take GPUs from running
 * jobs that are larger in GPU-time by the hysteresis factor, both restores counted, each on its
 * own GPUs:
 *   (candidate's remaining + its restore) x candidate's GPUs
 *       <= ((1 - dike.hysteresis) x victim's remaining - victim's restore) x victim's GPUs,
 * on the node where the fewest victim GPUs suffice (a gang that fits in a node), or the first whole
 * nodes that can be emptied, in one rack if one suffices (a wider gang), so the freed GPUs are
 * where the gang will be placed. The measure is the order's own: a preemption never goes against
 * the order. A victim that would itself at once take another job's GPUs is passed over for that
 * job (follow_chain): a chain of swaps ends as one swap at its end would, without the restores of
 * the jobs in its middle.
 *
 * Fairness. Every job has a fair finish time, submit + T_ideal_est (finish-time fairness, Themis;
 * SPEC §6):
 *     T_ideal_est = estimated length x max(1, num_gpus x N_avg / G),
 * with N_avg the time-average number of jobs in the system since the job was submitted (what the
 * metric will use, as far as it is known), G the GPUs that are up, and the estimated length the
 * one the job's remaining time is judged by: its estimate, revised once outlived (work done plus
 * estimated remaining), so that an outlived estimate does not read as a missed fair finish time
 * (version 0.6). A running job's slack is
 *     slack = submit + T_ideal_est - now - remaining - restore
 * (how long it can be delayed by a preemption now and still finish by its fair finish time). While
 * the cluster has GPUs to spare (at least the job's own outside the node being emptied, or for a
 * gang wider than a node outside all of the nodes it would take: version 1.0) N_avg is
 * taken at the least the job can end with, the rest of its stay alone: the load is below
 * capacity and may fall further, and a passed burst would otherwise lend it slack (version 0.8,
 * slack_s). A guarded running job may be taken off its GPUs only if
 *     slack >= candidate's remaining + candidate's restore,
 * i.e. it can wait for the candidate's whole run and still finish fairly, or if it is past its
 * fair finish time even when left alone (it cannot be made fair any more, and holding on would
 * only make smaller jobs wait), and only once it has held its GPUs for dike.min_lease_s, unless the
 * candidate could not wait for the lease and still finish fairly (Tiresias's lease, yielding).
 * The guard never turns a fair job into an unfair one by preempting it, and it bounds churn:
 * every preemption uses up part of the victim's slack, and a job without slack is not preempted
 * again. A job that is not guarded is taken whenever the GPU-time test says the swap pays (SRTF),
 * its churn bounded by that test: each swap must gain more than both restores.
 * The knob w = dike.fairness_weight is the share of jobs that are guarded (version 1.1; see
 * guarded()): job i is when frac((i + 1) x 0.618...) < w, the golden-ratio sequence, so that every
 * stretch of the workload has the share w, whatever the seed or the number of ranks. w = 1 guards
 * every job (the fairness end), w = 0 none (efficiency alone), and a value between mixes the two
 * job by job. The guard's effect is a switch on each job, not a matter of degree (a threshold of
 * w x the candidate's run, versions 0.2-1.0, gave almost all of it at any w > 0: docs/dike.md),
 * so the knob sets how many jobs get it. (Tenants are not a level of this decision: a tenant
 * guard was tried and dropped, docs/dike.md.)
 *
 * Job lengths are the scheduler's estimates (scheduler.duration_knowledge); metrics use the truth.
 * Under `none` a job that has never run is judged by its first run, at most dike.probe_s of work,
 * and keeps that run until it has done so much (the probe, judged_rem): only running a job tells
 * a short one from a long one. A job Dike preempted with its work done past its estimate is not
 * judged shorter than its work done while it waits, however the tenant's mean moves (version 1.2,
 * queued_rem_us). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dike/sched.h"
#include "base/idlist.h"
#include "policy/jobq.h"
#include "policy/maxtree.h"
#include "policy/tenantq.h"
#include "policy/tenantwatch.h"
#include "policy/policy.h"
#include "policy/rho.h"
#include "policy/runkeys.h"

/** A running job's share of one node. */
typedef struct dk_slot {
    dike_job *job;
    uint32_t gpus;
    uint32_t jgpus;  /**< all of the job's GPUs (here, so a walk need not read the job) */
    double bound[2]; /**< the job's measure when the node's bounds were computed ([0]: -inf in
                          its lease; [1]: leases ignored): an upper bound of its measure now, so a
                          slot below the candidate's is skipped without estimating anything
                          (node_bounds) */
    double cap[2];   /**< its guard cap (guard_cap; +inf: none) when they were computed: [0] with
                          GPUs to spare or not, [1] while the cluster has fewer free GPUs outside
                          the node than the job holds (st->spare; slack_s) */
    double rem;      /**< the job's estimated remaining work (run_rem_s, us) that bound[] was
                          computed with (node_bounds; est_refresh under `none`) */
} dk_slot;

typedef struct dk_state {
    double w;           /**< dike.fairness_weight: the share of jobs that are guarded */
    int late;           /**< dike.late_pass: a candidate the guard leaves late may take the
                             longest guarded victim (late_room) */
    double keep;        /**< 1 - dike.hysteresis */
    double lease_us;    /**< dike.min_lease_s, us, for guarded jobs; 0 if w = 0 */
    uint64_t guard_below; /**< w x 2^64: job i is guarded when frac((i + 1) x golden) x 2^64 is
                               below it (guarded) */
    int guard_all;        /**< w = 1: every job is guarded */
    double cost_s;      /**< scheduler.preemption_cost_s, s */
    double probe_s;     /**< `none`: dike.probe_s, the work a job that has never run is judged
                             by at most, and the first run it keeps; 0 under oracle and noisy */
    uint64_t epoch;     /**< dike_sched_est_epoch when the queued keys were computed */
    dike_tenantq queued; /**< queued jobs, least estimated remaining GPU-time (+ restore) first;
                              under `none` keyed as their tenant's estimate moves (q_* below) */
    size_t njobs;       /**< jobs in the workload */
    uint32_t *nnodes;   /**< per job: slices of its current placement (recorded at start) */
    uint32_t nodes;     /**< cluster nodes */
    uint32_t *node_off; /**< node -> its first slot */
    uint32_t *node_n;   /**< running jobs per node */
    dk_slot *slot;      /**< running jobs per node, node_off[n] .. node_off[n] + node_n[n] */
    dk_slot *cand;      /**< scratch: one node's possible victims */
    uint32_t *pick;     /**< scratch: nodes chosen for a gang */
    dike_job **victims; /**< scratch: make_room's victims, in the order they are taken */
    uint32_t vcap;
    uint8_t *taken;     /**< per job: found as a victim by the current make_room */
    uint8_t *outlived;  /**< per job, `none`: preempted with its work done at or past its estimate
                             (queued_rem_us) */
    uint32_t G;         /**< cluster.gpus_per_node (the largest node) */
    int knowledge;      /**< scheduler.duration_knowledge */
    /* How wrong the estimates have been (estimate_margin): finished jobs' |log(true duration /
     * estimate)| summed in fixed point (an integer sum does not depend on the order of the
     * completions, so a restart from a checkpoint gives the same margin), and their number. */
    int64_t err_sum;    /**< sum of |log error| x DK_ERR_SCALE, rounded */
    int64_t err_n;      /**< finished jobs counted */
    double *est_start;  /**< per job: its estimated duration when it last started, us */
    double margin;      /**< exp(mean |log error|): 1 under oracle and before any job finished */
    uint64_t spare;     /**< free GPUs outside the node a preemption attempt is examining
                             (node_victims, node_empties): whether the cluster has GPUs to spare */
    int gang_set;       /**< spare is gang_spare, not the free GPUs outside one node: a gang wider
                             than a node is judged on all of the nodes it would take (wide_nodes) */
    uint64_t gang_spare; /**< the free GPUs outside every node the wide gang would take */
    double q_slack_us;  /**< the candidate's own slack (make_room): how long it can wait and
                             still finish by its fair finish time */
    /* Where a blocked job could be made room for (node_bounds): per node, upper bounds of the
     * candidate's need for which victims there could free its GPUs, so that a preemption attempt
     * examines only those nodes instead of every running job. */
    dike_maxtree *bound[2]; /**< [l][g], g = 1..G: could free g GPUs; [l][0]: could be emptied;
                               l = 0: leases kept, l = 1: leases ignored (an urgent candidate) */
    int guarded;          /**< the bounds are capped by the fairness guard too (guard_cap):
                               under `oracle` and `noisy` in the predicting mode, w > 0, once
                               the walks have proved costly (bounds_update) */
    uint64_t refused;     /**< nodes a walk examined whose jobs could not make room */
    uint64_t updates;     /**< node bound computations (node_bounds) */
    double ncap;          /**< the jobs in the system cannot exceed this before ncap_until: those
                               in it when the bounds were last all built, plus the arrivals that
                               can come in between (ncap_update) */
    dike_time ncap_until; /**< when ncap may be exceeded (the next arrival past it) */
    size_t ncap_end;      /**< the first job (in submit order) that cannot arrive before it */
    double mcap;          /**< the swap margin the caps allow for (guard_cap): at least
                               st->margin (all bounds are rebuilt when it passes this) */
    double *scr_cap;      /**< node_bounds scratch, G + 1 */
    double *capmin_ns;    /**< per node: the least of its slots' cap[1] (below: with no GPUs to
                               spare outside it) */
    double *capmax_ns;    /**< per node: the largest of its slots' cap[1]: with no GPUs to spare
                               outside it, no candidate above it can be made room for there */
    double *capmin;       /**< per node: the least guard cap of its jobs (+inf: none), which a
                               gang wider than a node must not pass to empty it */
    int lb;               /**< which bounds the current candidate uses (make_room) */
    dike_maxtree expiry;  /**< per node: -(when its bounds may rise: a lease ends, an estimate
                               runs out, a guard cap expires), -inf if never */
    int bounds_built;     /**< every node's bounds computed at least once */
    uint64_t bound_nodes; /**< dike_sched_node_epoch when they were all computed (failures,
                               repairs: a node's capacity changed without its jobs) */
    double *scr_meas, *scr_all, *scr_b; /**< node_bounds scratch, G + 1 each */
    uint32_t *scr_sh, *scr_ord;
    uint8_t *dirty;       /**< per node: its jobs changed since its bounds were computed */
    uint32_t *dirty_list;
    uint32_t ndirty;
    /* Under `none` an estimate changes only for the tenant whose job finished (or, while it has
     * no finished job, for every finish: est_refresh). Per tenant, an intrusive list of its
     * running jobs, whose estimates feed the node bounds (the queue keeps its own lists). */
    uint32_t ntenants;
    int32_t *lhead;     /**< per tenant: first running job, -1 if none */
    int32_t *lnext, *lprev; /**< per job */
    int8_t *inlist;     /**< per job: 1 while in its tenant's list */
    dike_job **jobp;    /**< per job index: the job (set when it joins a list) */
    dike_tenantwatch watch; /**< the tenants whose estimates moved since the last refresh */
    /* Under `none` in the predicting mode, per tenant, its running jobs by the range of the
     * tenant's estimate within which their nodes' bounds hold (slot_range): est_refresh then
     * revisits only the jobs whose range the new estimate leaves. */
    int keyed;
    dike_runkeys rk;
    uint32_t **fresh;     /**< per tenant: running jobs whose nodes' bounds were recomputed since
                               their range was taken (node_bounds; each once: infresh) */
    uint32_t *nfresh, *fresh_cap;
    uint8_t *infresh;     /**< per job */
} dk_state;

/* ---- what the scheduler estimates ---- */

#define DK_ERR_SCALE 1048576.0 /* 2^20: |log error| in fixed point, about 1e-6 resolution */

/* The swap margin (noisy): a swap is made on per-job estimates, each off by a factor whose
 * typical size (exp of the mean |log(true / estimate)|) the scheduler learns from the jobs that
 * finished, comparing each with what it believed when it last started it. The candidate's side of
 * the victim test is multiplied by it, so a swap is made only when the estimated gain exceeds the
 * estimates' typical error. Under oracle the error is 0 and the margin 1 (the test is unchanged).
 * Under `none` there is no per-job estimate to be wrong: the estimate is the tenant's mean, its
 * "error" is the spread of the tenant's durations, and a margin from it blocks nearly every swap
 * (measured, docs/dike-history.md); the margin stays 1 there. */
static void learn_error(dk_state *st, const dike_sched *s, const dike_job *j)
{
    double est = st->est_start[j->idx]; /* what the scheduler believed when it acted */
    if (st->knowledge != DIKE_DURATION_NOISY || !(est > 0) || j->spec->duration <= 0)
        return;
    st->err_sum += llround(fabs(log((double)j->spec->duration / est)) * DK_ERR_SCALE);
    st->err_n++;
    st->margin = exp((double)st->err_sum / DK_ERR_SCALE / (double)st->err_n);
}

/* Remaining work in seconds, kept positive. */
static double positive_s(double us)
{
    return us / 1e6 > 1e-6 ? us / 1e6 : 1e-6;
}

/* A queued job's estimated remaining work, us. Under `none` a job's estimate is its tenant's
 * mean finished duration E, which moves at every finish of the tenant's jobs, mostly upwards as
 * the long jobs end; a job that has outlived E (work done d >= E) is expected to run as long again,
 * d, but E - d once E has moved past d again. So a job preempted after it outlived its estimate
 * was judged to have a second left once the mean crept past its work done: it went to the head of
 * the queue, preempted its way back, paid its restore, passed E after a second of work, was judged
 * 2E - d (about E) as a running job (dike_sched_est_remaining_running), was taken again, and
 * waited for the next move of E (ElasticFlow 09 + 08 at load 2.08 on 536 GPUs, w = 0: one 4-GPU
 * job preempted 4,521 times, and 77 % of all preemptions were such restarts; docs/dike-history.md,
 * version 1.2). The scheduler has seen such a job (outlived[]) outlive an estimate, so it is not
 * judged shorter than its work done again: max(d, E - d). That is never below what it is judged by
 * once it runs (E x 2^k - d with E x 2^(k-1) <= d, or E - d), so a swap never brings in a job that
 * is judged longer as soon as it runs. */
static double queued_rem_us(const dk_state *st, const dike_sched *s, const dike_job *j)
{
    double rem = dike_sched_est_remaining(s, j);
    if (!st->outlived[j->idx])
        return rem;
    double done = dike_sched_done_work(s, j);
    return done > rem ? done : rem;
}

static double est_rem_s(const dk_state *st, const dike_sched *s, const dike_job *j)
{
    return positive_s(queued_rem_us(st, s, j));
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

/* T_ideal_est, s, of job @p j when the scheduler expects it to need @p total_us of reference work,
 * with the job's share of the cluster so far (N_avg since its submission). The length is the one
 * its remaining time is judged by (revised once outlived), so a job that ran past its first
 * estimate is not taken for one that is past its fair finish time (docs/dike-history.md,
 * version 0.6). */
static double ideal_s(const dike_sched *s, const dike_job *j, double total_us)
{
    return dike_ideal_est_s(s, j, total_us, dike_sched_navg(s, j));
}

/* Seconds running job @p v, with @p rem_s left (run_rem_s), can be delayed and still finish by its
 * fair finish time if it is preempted now (it pays the restore cost and then runs at its best
 * rate, 1).
 * Its fair finish time depends on N_avg over its whole stay, of which only the past is known.
 * While the cluster is full, the load is at least at capacity and the N_avg so far stands for the
 * rest (version 0.2). While it has GPUs to spare (at least v's outside the node being emptied),
 * the load is below capacity and may fall further before v ends, often after a burst that raised
 * N_avg so far. A long job whose share is then back to a whole cluster's worth has T_ideal =
 * its length, and the restore alone makes it unfair. So its fair finish time is taken at the least
 * N_avg it can end with: the past at the N_avg so far, the rest (its remaining run and the
 * restore) with itself alone (version 0.8). */
static double slack_s(const dk_state *st, const dike_sched *s, const dike_job *v, double rem_s)
{
    double now = dike_time_to_s(dike_sched_now(s)), submit = dike_time_to_s(v->spec->submit);
    double navg = dike_sched_navg(s, v), stay = now - submit, rest = rem_s + st->cost_s;
    if (st->spare >= v->spec->num_gpus && stay + rest > 0) {
        double least = (stay * navg + rest) / (stay + rest);
        navg = least < navg ? least : navg;
    }
    return submit + dike_ideal_est_s(s, v, dike_sched_est_total_running(s, v), navg) - now - rem_s -
           st->cost_s;
}

/* The probe (`none`, version 0.7). Without durations the scheduler can tell a short job from a long
 * one only by running it (Tiresias's first queue). So a job that has never run is judged by what
 * its first run would commit, at most dike.probe_s of work, in the order, the size test and the
 * guard, and that first run, once started, is kept until it has done probe_s of work (or ends):
 * a short job finishes inside it, a long one is then judged by its tenant's history as before.
 * Its fair finish time, and so whether a lease yields to it, still uses its whole estimate. */
static double judged_rem(const dk_state *st, const dike_job *j, double rem, double per_s)
{
    double probe = st->probe_s * per_s; /* rem is in units of 1 / per_s seconds */
    return st->probe_s > 0 && j->first_start < 0 && rem > probe ? probe : rem;
}

/* Is running job @p v in its probe (its first run, less than probe_s of work done)? */
static int probing(const dk_state *st, const dike_sched *s, const dike_job *v)
{
    return st->probe_s > 0 && v->preemptions == 0 &&
           dike_sched_done_work(s, v) < st->probe_s * 1e6;
}

/* Remaining GPU-time (us x GPUs), a resumed job's restore included: the order of Smith's rule when
 * the resource is GPUs. A job that has never run counts at most its probe (judged_rem). */
static double key(const dk_state *st, const dike_sched *s, const dike_job *j)
{
    double rem_us = judged_rem(st, j, queued_rem_us(st, s, j), 1e6);
    return (rem_us + restore_s(st, j) * 1e6) * j->spec->num_gpus;
}

/* ---- the queue ---- */

/* Each tenant's running jobs (est_refresh). */
static void list_add(dk_state *st, dike_job *j)
{
    dike_idlist_push(&st->lhead[j->spec->tenant], st->lnext, st->lprev, (int32_t)j->idx);
    st->inlist[j->idx] = 1;
    st->jobp[j->idx] = j;
}

static void list_del(dk_state *st, const dike_job *j)
{
    if (!st->inlist[j->idx])
        return;
    if (st->keyed)
        dike_runkeys_remove(&st->rk, j->idx, j->spec->tenant);
    dike_idlist_unlink(&st->lhead[j->spec->tenant], st->lnext, st->lprev, (int32_t)j->idx);
    st->inlist[j->idx] = 0;
}

static double q_key(void *ctx, const dike_sched *s, const dike_job *j)
{
    return key(ctx, s, j);
}

/* Under `none` the queued jobs of a tenant that never ran share one judged length r (no work
 * done, no restore): their keys are r x GPUs (dike_tenantq_set_scaled), and a change of r moves
 * one job per gang size in the queue. */
static int q_shared(void *ctx, const dike_sched *s, const dike_job *j)
{
    const dk_state *st = ctx;
    return st->knowledge == DIKE_DURATION_NONE && j->first_start < 0;
}

static double q_unit(void *ctx, const dike_sched *s, const dike_job *j)
{
    return judged_rem(ctx, j, dike_sched_est_remaining(s, j), 1e6);
}

/* How long a queued job's key stays as it is (dike_tenantq_set_stable):
 * - under oracle and noisy a job that never ran has its own estimate, which does not change
 *   while it waits: always;
 * - under `none` a queued job that ran before, with work done d, is expected to run as long again
 *   (d) once it has outlived its tenant's estimate E, whatever E is: its key does not move while E
 *   stays at or below d (srtf's too). Not while the work of its last run is still on its way from
 *   the nodes (emulating mode): d is a guess until then;
 * - otherwise (oracle and noisy, a job that ran: its work done may arrive later) it is re-keyed at
 *   every change of its tenant's counter. */
static double q_stable(void *ctx, const dike_sched *s, const dike_job *j)
{
    const dk_state *st = ctx;
    if (j->first_start < 0)
        return INFINITY;
    if (st->knowledge != DIKE_DURATION_NONE || !dike_sched_work_known(s, j))
        return -INFINITY;
    /* one that was preempted past its estimate: max(d, E - d) = d while E <= 2d (queued_rem_us) */
    return dike_sched_done_work(s, j) * (st->outlived[j->idx] ? 2 : 1);
}

static double q_level(void *ctx, const dike_sched *s, const dike_job *j)
{
    return dike_sched_est_duration(s, j); /* the tenant's, under `none` */
}

static void q_push(dk_state *st, const dike_sched *s, dike_job *j)
{
    dike_tenantq_push(&st->queued, s, j);
}

static void q_remove(dk_state *st, dike_job *j)
{
    dike_tenantq_remove(&st->queued, j);
}

/* ---- which running jobs are on which node ---- */

static void mark_dirty(dk_state *st, uint32_t n)
{
    if (!st->dirty[n]) {
        st->dirty[n] = 1;
        st->dirty_list[st->ndirty++] = n;
    }
}

static void node_add(dk_state *st, dike_job *j)
{
    list_add(st, j);
    st->nnodes[j->idx] = j->nslices;
    for (uint32_t i = 0; i < j->nslices; i++) {
        uint32_t n = j->slices[i].node;
        st->slot[st->node_off[n] + st->node_n[n]++] =
            (dk_slot){j, j->slices[i].gpus, j->spec->num_gpus, {INFINITY, INFINITY},
                      {INFINITY, INFINITY}, 0};
        mark_dirty(st, n);
    }
}

static void node_remove(dk_state *st, dike_job *j)
{
    /* j->slices still holds the last placement after the engine released it */
    list_del(st, j);
    for (uint32_t i = 0; i < st->nnodes[j->idx]; i++) {
        uint32_t n = j->slices[i].node;
        dk_slot *sl = st->slot + st->node_off[n];
        for (uint32_t k = 0; k < st->node_n[n]; k++)
            if (sl[k].job == j) {
                sl[k] = sl[--st->node_n[n]];
                mark_dirty(st, n);
                break;
            }
    }
    st->nnodes[j->idx] = 0;
}

/* Start @p j: where it runs at its best rate if @p local (dike_sched_start_local), anywhere it
 * fits otherwise. */
static int start(dk_state *st, dike_sched *s, dike_job *j, int local)
{
    if (!(local ? dike_sched_start_local(s, j) : dike_sched_start(s, j)))
        return 0;
    q_remove(st, j);
    node_add(st, j);
    st->est_start[j->idx] = dike_sched_est_duration(s, j);
    return 1;
}

static int fill_start(void *ctx, dike_sched *s, dike_job *j)
{
    return start(ctx, s, j, 1);
}

/* ---- preemption ---- */

/* The victim test in GPU-time, the order's own measure (Smith's rule on a pool of GPUs): the
 * candidate's side, its need (remaining + its restore) x its GPUs, the same for every victim. */
static double cand_measure(const dike_job *q, double need_s)
{
    return need_s * q->spec->num_gpus;
}

/* The victim's side for running job @p v with remaining @p rem_s: what is left of its GPU-time
 * after the hysteresis margin and its own restore, which it pays on all of its GPUs:
 * ((1 - hysteresis) x rem - restore) x GPUs. */
static double vict_measure(const dk_state *st, const dike_job *v, double rem_s)
{
    return (st->keep * rem_s - st->cost_s) * v->spec->num_gpus;
}

/* Is job @p v guarded (the fairness guard and the lease protect it)? The knob w is the share of
 * jobs that are (version 1.1): job i is when frac((i + 1) x (sqrt(5) - 1) / 2) < w. The sequence
 * is equidistributed and has low discrepancy, so any run of consecutive jobs holds close to the
 * share w, with no seed: the same jobs for any seed, rank count or restart. */
static int guarded(const dk_state *st, const dike_job *v)
{
    /* frac((i + 1) x golden) in 64-bit fixed point: exact, the same on every machine */
    return ((uint64_t)v->idx + 1) * UINT64_C(0x9E3779B97F4A7C15) < st->guard_below || st->guard_all;
}

/* Has running job @p v held its GPUs for the minimum lease (none for a job that is not guarded)? */
static int leased_out(const dk_state *st, dike_time now, const dike_job *v)
{
    return v->run_start != now &&
           (!guarded(st, v) || (double)(now - v->run_start) >= st->lease_us);
}

/* Is running job @p v one a swap may take at all: running, not started at this instant, not in
 * its probe? */
static int swappable(const dk_state *st, const dike_sched *s, const dike_job *v)
{
    return v->state == DIKE_JOB_RUNNING && v->run_start != dike_sched_now(s) && !probing(st, s, v);
}

/* Does taking running job @p v for @p q, which measures @p qm (cand_measure), pass the size test:
 * the same GPU type, and smaller in GPU-time by the hysteresis factor, both restores counted (the
 * swap must pay for them)? v's estimated remaining work, s, into *rem_s. */
static int swap_pays(const dk_state *st, const dike_sched *s, const dike_job *v, const dike_job *q,
                     double qm, double *rem_s)
{
    if (q->spec->gpu_type >= 0 && v->type != q->spec->gpu_type)
        return 0;
    *rem_s = run_rem_s(s, v);
    return qm <= vict_measure(st, v, *rem_s);
}

/* May running job @p v be taken off its GPUs for @p q, which needs @p need_s seconds and measures
 * @p qm (cand_measure)? */
static int can_take(const dk_state *st, const dike_sched *s, const dike_job *v, const dike_job *q,
                    double need_s, double qm)
{
    dike_time now = dike_sched_now(s);
    double rem_s;
    if (!swappable(st, s, v))
        return 0;
    /* The lease bounds churn, but it yields to a candidate that would be made unfair by waiting
     * for it to end (its slack is shorter than the lease left). */
    if (!leased_out(st, now, v) && st->q_slack_us >= (double)(v->run_start - now) + st->lease_us)
        return 0;
    if (!swap_pays(st, s, v, q, qm, &rem_s))
        return 0;
    if (!guarded(st, v))
        return 1; /* fairness does not restrict its preemption */
    double slack = slack_s(st, s, v, rem_s);
    if (slack >= need_s)
        return 1; /* it can wait for all of q's run and still finish fairly */
    /* Past its fair finish even if left alone (at its current rate, no restore): nothing to keep.
     * The second of margin keeps a job that is exactly on time (slack 0 in a lightly loaded
     * cluster, where T_ideal = duration) from being counted late through rounding. */
    double alone = slack + st->cost_s - rem_s * (1 / v->rate - 1);
    return alone < -1.0;
}

/* The need to look for in the bounds: a little below @p need_s, so that rounding in slot_bound
 * cannot hide a node that passes the exact test. */
static double bound_floor(double need_s)
{
    return need_s - 1e-9 * fabs(need_s) - 1e-6;
}

/* The free GPUs outside node @p n (or, for a wide gang, outside all the nodes it would take),
 * which a victim taken there could restart on: into st->spare. */
static void set_spare(dk_state *st, const dike_sched *s, uint32_t n)
{
    st->spare = st->gang_set ? st->gang_spare
                             : dike_sched_free_gpus(s, -1) - dike_sched_node_free(s, n);
}

/* For a wide gang on nodes st->pick[0 .. @p npick): the free GPUs outside all of them. */
static uint64_t gang_spare(const dk_state *st, const dike_sched *s, uint32_t npick)
{
    uint64_t spare = dike_sched_free_gpus(s, -1);
    for (uint32_t i = 0; i < npick; i++)
        spare -= dike_sched_node_free(s, st->pick[i]);
    return spare;
}

/* Slot @p sl's guard cap for the node being examined (st->spare set): the size-test side above
 * which its job's guard refuses any candidate (guard_cap). */
static double slot_cap(const dk_state *st, const dk_slot *sl)
{
    return sl->cap[st->spare >= sl->jgpus ? 0 : 1];
}

/* Largest share first, then job index: a total order, so the victims do not depend on the order
 * of the node's slots. */
static int before(const dk_slot *x, const dk_slot *y)
{
    return x->gpus != y->gpus ? x->gpus > y->gpus : x->job->idx < y->job->idx;
}

/* Node @p n's possible victims for @p q, largest share first, into st->cand; returns how many,
 * and the GPUs they hold on the node in *gpus. */
static uint32_t node_victims(dk_state *st, const dike_sched *s, uint32_t n, const dike_job *q,
                             double need_s, double qm, uint32_t *gpus)
{
    uint32_t m = 0;
    *gpus = 0;
    const dk_slot *sl = st->slot + st->node_off[n];
    set_spare(st, s, n);
    double x = bound_floor(qm / q->spec->num_gpus); /* the size test's side */
    for (uint32_t k = 0; k < st->node_n[n]; k++)
        if (qm <= sl[k].bound[st->lb] && x <= slot_cap(st, &sl[k]) &&
            can_take(st, s, sl[k].job, q, need_s, qm)) {
            uint32_t i = m++; /* insertion: a node holds a handful of jobs */
            for (; i > 0 && before(&sl[k], &st->cand[i - 1]); i--)
                st->cand[i] = st->cand[i - 1];
            st->cand[i] = sl[k];
            *gpus += sl[k].gpus;
        }
    return m;
}

/* Can every job on node @p n be taken off for @p q? Their GPUs there in *gpus. Stops at the first
 * that cannot (node_victims would count the others, and the node would not be emptied). */
static int node_empties(dk_state *st, const dike_sched *s, uint32_t n, const dike_job *q,
                        double need_s, double qm, uint32_t *gpus)
{
    const dk_slot *sl = st->slot + st->node_off[n];
    *gpus = 0;
    set_spare(st, s, n);
    double x = bound_floor(qm / q->spec->num_gpus);
    for (uint32_t k = 0; k < st->node_n[n]; k++) {
        if (qm > sl[k].bound[st->lb] || x > slot_cap(st, &sl[k]) ||
            !can_take(st, s, sl[k].job, q, need_s, qm))
            return 0;
        *gpus += sl[k].gpus;
    }
    return 1;
}

/* ---- where a blocked job could be made room for ----
 *
 * A preemption attempt used to test every running job (O(running jobs) per blocked decision: 80%
 * of Dike's time on RFold Philly). The exact test is unchanged, but it is now run only on nodes
 * whose bound says it could pass. For a running job v past its lease, can_take's size test
 *     (need + restore_q) x g_q <= ((1 - hysteresis) x rem_v - restore_v) x g_v
 * solved for need gives the largest need it allows, vict_measure(v) / g_q; a job still in its
 * lease allows none. A node's bound for a gang of g GPUs is the largest need for which its
 * jobs with the largest such needs, with its free GPUs, make g (-inf if g fits already or never
 * fits: choose_nodes skips those nodes); for gangs wider than a node, bound [0] is the least
 * victim measure on it (every job must go, and the gang's measure qm must not pass it).
 * Under `oracle` and `noisy` (predicting mode, w > 0) each job's need is also capped by the guard
 * (guard_cap; for [0], the node's least cap is st->capmin): a slack can grow as N_avg does, so
 * the cap allows for the most the load can grow before the cap expires. Without it, a loaded
 * backlog's walks visited about ten nodes whose victims the guard refused for each one that
 * passed (docs/performance.md). Each slot keeps its caps too, so a walk tests no victim whose
 * cap is below the candidate's side; and a second cap (cap_ns) holds while the cluster has no
 * GPUs to spare outside the node (then slack_s does not lower N_avg, and a long job that has
 * just started cannot be late for a long while): a node holding every free GPU is skipped when
 * no slot's second cap reaches the side (st->capmax_ns). (Measured, 2026-12-03, the backlog of
 * 300,000 jobs: the node caps alone left 113 million victim tests that the guard refused, in 61
 * million node visits; the slots' two caps skip 80 million of them.) A node above the need may
 * still fail the exact test; a node below it cannot pass it.
 * The bounds stay upper bounds while nothing changes on the node, because a running job's
 * estimated remaining time only falls, except: a lease ends (a new victim; the expiry tree says
 * when), an estimate is outlived under noisy or none and doubles (the expiry tree holds when
 * the estimate is reached, runs_out: before that its remaining work falls to the floor and stays
 * there, which does not raise it), none's estimates change as jobs finish
 * (est_refresh: the nodes of that tenant's running jobs whose measure rose), a guard cap expires
 * (the expiry tree; every node when the bound on the jobs in the system does), and a node fails
 * or is repaired (every node again). */

/* @p sec seconds (> 0) after @p t, "never" (1e18 us on) if that is beyond any run. */
static dike_time after_s(dike_time t, double sec)
{
    return t + (sec < 1e12 ? (dike_time)(sec * 1e6) : (dike_time)1e18);
}

/* When running job @p v's estimated length is reached (and, under `noisy` and `none`, doubled:
 * est_remaining_running), so that its victim measure jumps up; INT64_MAX if v makes no progress.
 * Until then its estimated remaining work only falls, to the floor and then stays there, so its
 * measure does not rise. (Under `oracle` in the predicting mode the job ends first; in the
 * emulating mode the coordinator counts nominal progress, and a job the nodes slowed down
 * outlives its duration.) */
static dike_time runs_out(const dike_sched *s, const dike_job *v)
{
    return dike_sched_est_gap_at(s, v, 0);
}

/* The largest size-test side (s: the candidate's run x the swap margin, and its restore) for which
 * running job @p v, with @p rem_us left, can pass the fairness guard from now until it leaves its
 * node or the cap expires; +inf if that cannot be bounded. The side is at most margin x the need
 * the guard weighs, and the margin at most st->mcap. *until gets the time from which the bound may
 * be too low (INT64_MAX: never); *cap_ns the same bound for while the cluster has fewer GPUs to
 * spare than v holds (slack_s then takes N_avg as it is), which holds until *until too.
 * The guard passes when v's slack is at least w x need, or v is late even if left alone.
 * - Slack = submit + T_ideal_est - t - rem(t) - restore. v's estimated length is fixed (under
 *   `noisy` until its estimate runs out and doubles: the node's expiry is then); it runs at rate
 *   r <= 1, so t + rem(t) never falls; G (GPUs up) changes only with the node epoch
 *   (every bound is rebuilt then). N_avg since submission is a time average of the jobs in the
 *   system, which cannot exceed st->ncap before st->ncap_until (every bound is rebuilt then): so
 *   until then N_avg stays at most the larger of that and N_avg now. With GPUs to spare slack_s
 *   lowers N_avg, so this bounds that slack too.
 * - Late alone: submit + T_ideal_est - (t + rem(t) / r) < -1, where t + rem(t) / r is v's
 *   projected finish, fixed while it makes progress (after its restore, if it is paying one).
 *   T_ideal_est >= its length, so if the length alone keeps v on time, it is never late.
 *   Otherwise v is on time only through its share of the load. The time average is at least
 *   (its area now + 1 x the time since: v itself is in the system) / (t - submit): cap_ns holds
 *   until that falls to the level that makes v late. With GPUs to spare slack_s weighs it with 1
 *   over the rest of v's stay, at most its remaining work and restore now: the cap holds until
 *   that falls to the level, earlier, and is +inf if it is there already (a job that has just
 *   started a long run). */
static double guard_cap(const dk_state *st, const dike_sched *s, const dike_job *v, double rem_us,
                        dike_time *until, double *cap_ns)
{
    *until = INT64_MAX;
    *cap_ns = INFINITY;
    if (!guarded(st, v))
        return INFINITY;
    double r = v->rate;
    if (!(r > 0 && r <= 1))
        return INFINITY;
    /* In its last second of estimated work rem(t) stays at the floor, and its projected finish
     * moves with t: no cap then, and this one only until it gets there. Unless a victim cannot
     * pass the size test then at all (keep x floor < its restore: its measure is negative), and
     * its guard does not matter. */
    dike_time from_t = v->progress_start > dike_sched_now(s) ? v->progress_start : dike_sched_now(s);
    if (!(st->keep * DIKE_EST_REMAINING_FLOOR_US / 1e6 < st->cost_s)) {
        if (!(dike_sched_est_gap_running(s, v) > DIKE_EST_REMAINING_FLOOR_US))
            return INFINITY;
        *until = dike_sched_est_gap_at(s, v, DIKE_EST_REMAINING_FLOOR_US);
    }
    double now = dike_time_to_s(dike_sched_now(s)), sub = dike_time_to_s(v->spec->submit);
    double rem = positive_s(rem_us), len_us = dike_sched_est_total_running(s, v);
    double navg = dike_sched_navg(s, v), nup = navg, stay = now - sub;
    if (st->ncap > navg) {
        /* N_avg may rise towards ncap: allow it 1/16 (and one job) more than now, which it
         * cannot pass before (area + ncap x h) / (stay + h) = nup */
        nup = navg * (1 + 1.0 / 16) + 1;
        if (nup < st->ncap) {
            double h = (nup - navg) * stay / (st->ncap - nup) * (1 - 1e-9) - 1e-3;
            if (!(h > 0))
                return INFINITY;
            dike_time hu = after_s(dike_sched_now(s), h);
            *until = hu < *until ? hu : *until;
        } else
            nup = st->ncap;
    }
    double up = sub + dike_ideal_est_s(s, v, len_us, nup);
    /* the size test's side is rem x margin + restore <= margin x need */
    double cap = (up - now - rem - st->cost_s) * st->mcap;
    cap += 1e-9 * fabs(cap) + 1e-3; /* rounding: never below what can_take computes */
    /* its projected finish: progress starts after a restore, and until then rem(t) stays */
    double from = dike_time_to_s(from_t);
    double late_by = from + rem / r - sub - 1 + 1e-3; /* on time iff T_ideal_est >= this */
    double len_s = len_us / 1e6;
    if (len_s >= late_by) {
        *cap_ns = cap;
        return cap;
    }
    double gpus = (double)dike_sched_gpus_up(s), g = v->spec->num_gpus;
    double nstar = late_by / len_s * gpus / g; /* the N_avg below which v is late */
    if (!(nstar > 1) || navg <= nstar * (1 + 1e-9))
        return INFINITY;
    /* without GPUs to spare, N_avg itself, at least (area + 1 x d) / (stay + d) after d more */
    double area = (now - sub) * navg, rest = rem + st->cost_s;
    double safe = (area - now + nstar * sub) / (nstar - 1); /* when that reaches nstar */
    double u = (safe - now) * (1 - 1e-9) - 1e-3;
    if (!(u > 0))
        return INFINITY;
    dike_time late = after_s(dike_sched_now(s), u);
    *cap_ns = cap;
    /* with GPUs to spare, the least: the rest of v's stay weighed at 1 */
    u -= rest * (1 - 1e-9);
    if ((area + rest) / (now - sub + rest) <= nstar * (1 + 1e-9) || !(u > 0)) {
        *until = late < *until ? late : *until;
        return INFINITY;
    }
    late = after_s(dike_sched_now(s), u);
    *until = late < *until ? late : *until;
    return cap;
}

/* The largest need for which a running job with victim measure @p m (vict_measure; -inf while
 * its lease runs) passes the size test of a candidate of @p gq GPUs. */
static double slot_bound(double m, double gq)
{
    return m / gq;
}

/* One set of node @p n's bounds (node_bounds) from its slots' measures @p meas, each capped by
 * @p gcap (guard_cap; NULL: no cap). A gang of g GPUs that does not fit needs g - f of the
 * node's GPUs; its bound is the largest x for which the slots whose bound (min(meas / g, cap))
 * is at least x hold that many: the slots by bound, largest first, until their shares make it.
 * The slots are sorted by measure once: that is their order by bound for every g at which no
 * cap binds; where one does, they are sorted again for that g. */
static void node_bound_set(dk_state *st, const dike_sched *s, uint32_t n, int build,
                           const double *meas, const double *gcap, dike_maxtree *bound)
{
    const dike_cluster *cl = dike_sched_cluster(s);
    uint32_t f = dike_sched_node_free(s, n), cap = dike_cluster_node_gpus(cl, n), m = st->node_n[n];
    const dk_slot *sl = st->slot + st->node_off[n];
    double *b = st->scr_b; /* a node holds at most one job per GPU: G each */
    uint32_t *sh = st->scr_sh, *ord = st->scr_ord, all = f;
    double least = INFINITY;
    for (uint32_t k = 0; k < m; k++) { /* by measure, largest first (a handful of jobs) */
        uint32_t i = k;
        for (; i > 0 && meas[ord[i - 1]] < meas[k]; i--)
            ord[i] = ord[i - 1];
        ord[i] = k;
        all += sl[k].gpus;
        least = meas[k] < least ? meas[k] : least;
    }
    for (uint32_t g = 0; g <= st->G; g++) {
        double t = -INFINITY;
        if (g == 0) {
            /* [0]: the least victim measure, which a wider gang's measure must not pass (its
             * width varies too much for one scale); the guard's cap is st->capmin */
            if (all > 0 && all == cap) /* up, and every job on it could go */
                t = least;
        } else if (f < g && cap >= g) {
            int binds = 0;
            for (uint32_t k = 0; gcap && k < m && !binds; k++)
                binds = gcap[k] < slot_bound(meas[k], g);
            uint32_t have = f;
            if (!binds) {
                for (uint32_t i = 0; i < m; i++)
                    if ((have += sl[ord[i]].gpus) >= g) {
                        t = slot_bound(meas[ord[i]], g);
                        break;
                    }
            } else {
                for (uint32_t k = 0; k < m; k++) { /* by capped bound, largest first */
                    double x = slot_bound(meas[k], g);
                    x = gcap[k] < x ? gcap[k] : x;
                    uint32_t i = k;
                    for (; i > 0 && b[i - 1] < x; i--) {
                        b[i] = b[i - 1];
                        sh[i] = sh[i - 1];
                    }
                    b[i] = x;
                    sh[i] = sl[k].gpus;
                }
                for (uint32_t k = 0; k < m; k++)
                    if ((have += sh[k]) >= g) {
                        t = b[k];
                        break;
                    }
            }
        }
        if (build)
            dike_maxtree_put(&bound[g], n, t);
        else
            dike_maxtree_set(&bound[g], n, t);
    }
}

/* Under `none`: the range (lo, hi) of its tenant's estimate E (dike_sched_est_judged) within
 * which running job @p v's slot on a node, computed with @p rem_us left and the node's bounds to
 * be recomputed at @p exp (INT64_MAX: never), is still what measure_rose accepts: v's measure no
 * higher than then, and the time its estimate runs out not before exp. v's estimated end is the
 * first of E, 2E, 4E, ... above its work done d (dike_sched_est_scale): E x 2^k.
 * - hi: with the same k, the measure rises once E x 2^k - d > rem_us, i.e. E > (rem_us + d) /
 *   2^k. A larger E can only lower k, which lowers the end, and d only grows: so below hi it does
 *   not rise.
 * - lo: it runs out at base + (E x 2^k - d) / rate (est_gap_at), not before exp as long as
 *   E x 2^k >= d(exp + 1), the work it will have done by then; k cannot grow before then either
 *   (E x 2^k > d(t) for every t < exp). Above lo neither happens.
 * A job started at this instant or without progress is revisited at every move (hi = -inf). */
static void slot_range(const dike_sched *s, const dike_job *v, double rem_us, dike_time exp,
                       double *hi, double *lo)
{
    dike_time now = dike_sched_now(s);
    *hi = -INFINITY;
    *lo = INFINITY;
    if (v->run_start == now || !(v->rate > 0))
        return;
    double e = dike_sched_est_judged(s, v), d = dike_sched_done_work(s, v);
    double mult = dike_sched_est_scale(e, d); /* 2^k */
    *hi = (rem_us + d) / mult;
    if (exp == INT64_MAX)
        return;
    dike_time base = v->progress_start > now ? v->progress_start : now;
    double ahead = (double)(exp + 1 - base);
    *lo = (d + (ahead > 0 ? v->rate * ahead : 0)) / mult;
}

static int est_slack_off; /* dike_dike_est_slack(0) */

void dike_dike_est_slack(int on)
{
    est_slack_off = !on;
}

/* Node @p n's bounds (both sets; the second only while there is a lease) and expiry; @p build:
 * leave the trees' inner nodes for dike_maxtree_build. */
static void node_bounds(dk_state *st, const dike_sched *s, uint32_t n, int build)
{
    uint32_t m = st->node_n[n];
    dk_slot *sl = st->slot + st->node_off[n];
    dike_time now = dike_sched_now(s), next = INT64_MAX;
    st->updates++;
    double *meas = st->scr_meas, *all = st->scr_all, *cap = st->scr_cap, cap_ns;
    double cm = INFINITY, cmn = INFINITY, cxn = -INFINITY; /* the node's cap extremes */
    for (uint32_t k = 0; k < m; k++) {
        const dike_job *v = sl[k].job;
        dike_time e = INT64_MAX;
        meas[k] = all[k] = -INFINITY;
        cap[k] = cap_ns = INFINITY;
        if (v->run_start == now) {
            e = now + 1; /* a job started at this instant may not be taken: from the next one on */
        } else {
            double rem_us = dike_sched_est_remaining_running(s, v), rem_b = rem_us;
            if (st->knowledge == DIKE_DURATION_NONE && !est_slack_off) {
                /* Under `none` the tenant's estimate E moves at each finish of its jobs, and a
                 * bound taken from the exact measure is left by the least rise of E: every such
                 * rise sent all of the tenant's running jobs back to measure_rose and their nodes
                 * to node_bounds, O(running jobs) per completion (a backlog of 500,000 jobs at
                 * load 2 took 370 s). The slot's bound is therefore taken at the estimated end
                 * E x 2^k plus an eighth: until E rises past 9/8 of its value now (with k
                 * unchanged or lower, as a rise makes it), the remaining work stays below it.
                 * A looser bound only lets a walk visit a node the exact test then refuses. */
                double est = dike_sched_est_judged(s, v);
                rem_b += est * dike_sched_est_scale(est, dike_sched_done_work(s, v)) / DIKE_EST_ROOM;
            }
            sl[k].rem = rem_b;
            all[k] = vict_measure(st, v, positive_s(rem_b)); /* run_rem_s */
            dike_time gu = INT64_MAX;
            if (st->guarded)
                cap[k] = guard_cap(st, s, v, rem_us, &gu, &cap_ns);
            /* When the estimate runs out it is doubled (est_remaining_running), so the measure
             * jumps up: recompute then. Under `oracle` too, in the emulating mode: the coordinator
             * counts nominal progress, and a job the nodes slowed down outlives its duration. */
            e = runs_out(s, v);
            e = gu < e ? gu : e; /* the guard's cap may be too low from then on */
        }
        if (!leased_out(st, now, v)) { /* [0] may rise when the lease ends */
            dike_time end = v->run_start + (dike_time)st->lease_us;
            e = end < e ? end : e;
        } else
            meas[k] = all[k];
        if (e != INT64_MAX)
            next = e > now ? (e < next ? e : next) : now + 1;
        sl[k].bound[0] = meas[k];
        sl[k].bound[1] = all[k];
        sl[k].cap[0] = cap[k];
        sl[k].cap[1] = cap_ns;
        cm = cap[k] < cm ? cap[k] : cm;
        cmn = cap_ns < cmn ? cap_ns : cmn;
        cxn = cap_ns > cxn ? cap_ns : cxn;
    }
    if (build)
        dike_maxtree_put(&st->expiry, n, next == INT64_MAX ? -INFINITY : -(double)next);
    else
        dike_maxtree_set(&st->expiry, n, next == INT64_MAX ? -INFINITY : -(double)next);
    st->capmin[n] = cm;
    st->capmin_ns[n] = cmn;
    st->capmax_ns[n] = cxn;
    for (uint32_t k = 0; st->keyed && k < m; k++) { /* their ranges are taken at the next move */
        const dike_job *v = sl[k].job;
        if (st->infresh[v->idx])
            continue;
        uint32_t t = v->spec->tenant;
        if (st->nfresh[t] == st->fresh_cap[t]) {
            st->fresh_cap[t] = st->fresh_cap[t] ? 2 * st->fresh_cap[t] : 16;
            st->fresh[t] = dike_xrealloc(st->fresh[t], st->fresh_cap[t] * sizeof *st->fresh[t]);
        }
        st->fresh[t][st->nfresh[t]++] = v->idx;
        st->infresh[v->idx] = 1;
    }
    node_bound_set(st, s, n, build, meas, cap, st->bound[0]);
    if (st->lease_us > 0)
        node_bound_set(st, s, n, build, all, cap, st->bound[1]);
}

/* The first job of the workload (in submit order) submitted after @p t, or at @p t if @p at. */
static size_t first_after(const dike_workload *wl, dike_time t, int at)
{
    size_t lo = 0, hi = wl->njobs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (wl->jobs[mid].submit < t || (!at && wl->jobs[mid].submit == t))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int keyed_off; /* dike_dike_keyed_refresh(0) */

void dike_dike_keyed_refresh(int on)
{
    keyed_off = !on;
}

static int guard_always; /* dike_dike_guard_bounds_always */

void dike_dike_guard_bounds_always(int on)
{
    guard_always = on;
}

/* A new bound on the jobs in the system (guard_cap) from now: the jobs in it, those submitted at
 * this instant (they may not have arrived yet) and k more arrivals, until the (k+1)-th next one.
 * Every bound is rebuilt when it expires, so k grows with the jobs in the system (the bound is
 * then at most 1/16 above them) and with the nodes (a rebuild costs at most 4 node updates per
 * arrival). */
static void ncap_update(dk_state *st, const dike_sched *s)
{
    const dike_workload *wl = dike_sched_workload(s);
    dike_time now = dike_sched_now(s);
    size_t at = first_after(wl, now, 1), lo = first_after(wl, now, 0);
    size_t active = dike_sched_active(s) + (lo - at), k = active / 16;
    k = k > st->nodes / 4 ? k : st->nodes / 4;
    k = k > 1 ? k : 1;
    st->ncap_end = lo + k < wl->njobs ? lo + k : wl->njobs; /* lo .. ncap_end - 1 may come */
    st->ncap = (double)(active + (st->ncap_end - lo));
    st->ncap_until = st->ncap_end < wl->njobs ? wl->jobs[st->ncap_end].submit : INT64_MAX;
}

/* Within its horizon the bound only tightens as jobs finish and arrive: the jobs in the system now
 * and those of the horizon still to come (the caps computed before stay upper bounds). */
static void ncap_tighten(dk_state *st, const dike_sched *s)
{
    size_t at = first_after(dike_sched_workload(s), dike_sched_now(s), 1);
    double n = (double)dike_sched_active(s) + (double)(st->ncap_end > at ? st->ncap_end - at : 0);
    st->ncap = n < st->ncap ? n : st->ncap;
}

/* Bring the bounds up to date before a preemption attempt. */
static void bounds_update(dk_state *st, const dike_sched *s)
{
    /* The guard's caps cost node updates (more of them, each dearer: their expiries, and a
     * rebuild when the bound on the jobs in the system expires) and save visits of nodes whose
     * victims the exact test refuses. So they are switched on, for good, once the refused visits
     * outnumber the updates sixteenfold (measured 2026-12-03: the full TitanSched trace at load 1
     * on 512 GPUs has 2.9 refused visits per update over the run, but eight by 2.17 million s;
     * switched on there, the caps made the run 20 % slower. bench/decision.sh's backlog of 100,000
     * jobs passes sixteen at 1,793 s, and the caps halve it).
     * The schedule is the same either way: the caps only skip nodes that would be refused.
     * guard_cap needs lengths that move only when an estimate runs out (not `none`, where a
     * tenant's finished jobs move them) and the coordinator's own rates (predicting mode). */
    if (!st->guarded && st->w > 0 && st->knowledge != DIKE_DURATION_NONE &&
        !dike_sched_emulating(s) && (guard_always || st->refused > 16 * (st->updates + st->nodes))) {
        st->guarded = 1;
        st->bounds_built = 0;
    }
    if (st->guarded && dike_sched_now(s) >= st->ncap_until)
        st->bounds_built = 0; /* every cap assumed at most ncap jobs in the system */
    if (st->guarded && st->margin > st->mcap)
        st->bounds_built = 0; /* and a swap margin of at most mcap */
    if (st->guarded && !st->bounds_built) {
        ncap_update(st, s);
        /* noisy: the learned margin moves as jobs finish; allow it 1/16 more */
        st->mcap = st->knowledge == DIKE_DURATION_ORACLE ? st->margin : st->margin * (1 + 1.0 / 16);
    }
    else if (st->guarded)
        ncap_tighten(st, s);
    if (!st->bounds_built || st->bound_nodes != dike_sched_node_epoch(s)) {
        for (uint32_t n = 0; n < st->nodes; n++)
            node_bounds(st, s, n, 1);
        for (int l = 0; l < (st->lease_us > 0 ? 2 : 1); l++)
            for (uint32_t g = 0; g <= st->G; g++)
                dike_maxtree_build(&st->bound[l][g]);
        dike_maxtree_build(&st->expiry);
        st->bounds_built = 1;
        st->bound_nodes = dike_sched_node_epoch(s);
    } else {
        for (uint32_t i = 0; i < st->ndirty; i++)
            node_bounds(st, s, st->dirty_list[i], 0);
        double now = (double)dike_sched_now(s);
        for (size_t n = dike_maxtree_next(&st->expiry, 0, -now); n < st->nodes;
             n = dike_maxtree_next(&st->expiry, n + 1, -now))
            node_bounds(st, s, (uint32_t)n, 0);
    }
    for (uint32_t i = 0; i < st->ndirty; i++)
        st->dirty[st->dirty_list[i]] = 0;
    st->ndirty = 0;
}

static int node_allowed(const dike_cluster *cl, uint32_t n, const dike_job *q)
{
    return q->spec->gpu_type < 0 || dike_cluster_node_type(cl, n) == q->spec->gpu_type;
}

/* Whole nodes that can be emptied for @p q's gang wider than a node, in node order, all in one
 * rack if @p one_rack, each judged with st->spare as set_spare gives it; into st->pick, returns
 * how many (0: not enough). */
static uint32_t wide_pick(dk_state *st, const dike_sched *s, const dike_job *q, double need_s,
                          double qm, double x, int one_rack)
{
    const dike_cluster *cl = dike_sched_cluster(s);
    uint32_t g = q->spec->num_gpus, vg, npick = 0, have = 0, rack = UINT32_MAX, first = 0;
    int cur_type = -2;
    uint64_t tfree = dike_sched_free_gpus(s, -1);
    const dike_maxtree *t = &st->bound[st->lb][0];
    double xm = bound_floor(qm); /* [0] holds victim measures */
    for (uint32_t n = (uint32_t)dike_maxtree_next(t, 0, xm); n < st->nodes && have < g;
         n = (uint32_t)dike_maxtree_next(t, n + 1, xm)) {
        uint32_t f = dike_sched_node_free(s, n);
        /* no GPUs to spare outside it: the caps of that case */
        int none = st->gang_set ? st->gang_spare == 0 : tfree == f;
        if (!node_allowed(cl, n, q) || x > (none ? st->capmin_ns[n] : st->capmin[n]))
            continue;
        if (!node_empties(st, s, n, q, need_s, qm, &vg)) {
            st->refused++;
            continue;
        }
        if (f + vg > 0 && f + vg == dike_cluster_node_gpus(cl, n)) {
            /* A gang never mixes GPU types, and types, like racks, are runs of consecutive
             * nodes: count again from the first node of another type (or rack, if one suffices). */
            int type = dike_cluster_node_type(cl, n);
            if (type != cur_type || (one_rack && dike_cluster_rack(cl, n) != rack)) {
                cur_type = type;
                rack = dike_cluster_rack(cl, n);
                first = npick;
                have = 0;
            }
            st->pick[npick++] = n;
            have += f + vg;
        }
    }
    if (have < g)
        return 0;
    memmove(st->pick, st->pick + first, (npick - first) * sizeof *st->pick);
    return npick - first;
}

/* Whole nodes that can be emptied for @p q's gang wider than a node, with its victims judged on
 * what they could restart on once it runs (version 1.0): the free GPUs outside all of the nodes
 * it takes (gang_spare), not outside each node alone, for the gang takes the free GPUs of its
 * other nodes. Those nodes depend on that judgement, so the two are found together: the nodes
 * are chosen with a spare S, and kept only if the free GPUs outside them are S. The first S is
 * what the per-node judgement's nodes leave (or, if it found none, the least the gang can leave:
 * the free GPUs beyond its width); the next, what the last choice leaves; at most
 * DK_SPARE_TRIES choices, else the gang waits for this decision. */
#define DK_SPARE_TRIES 3
static uint32_t wide_nodes(dk_state *st, const dike_sched *s, const dike_job *q, double need_s,
                           double qm, double x, int one_rack)
{
    uint64_t g = q->spec->num_gpus, tfree = dike_sched_free_gpus(s, -1);
    if (dike_maxtree_next(&st->bound[st->lb][0], 0, bound_floor(qm)) >= st->nodes)
        return 0; /* no node could be emptied for it, whatever the spare */
    uint32_t npick = wide_pick(st, s, q, need_s, qm, x, one_rack);
    uint64_t least = tfree > g ? tfree - g : 0, tried = UINT64_MAX;
    for (int k = 0; k < DK_SPARE_TRIES; k++) {
        uint64_t spare = npick ? gang_spare(st, s, npick) : least;
        if (!npick && spare == tried)
            return 0; /* the same judgement again */
        tried = spare;
        st->gang_spare = spare;
        st->gang_set = 1;
        npick = wide_pick(st, s, q, need_s, qm, x, one_rack);
        st->gang_set = 0;
        if (npick && gang_spare(st, s, npick) == spare)
            return npick;
    }
    return 0;
}

/* Choose where q's gang will go if victims are taken: one node where the victims needed hold the
 * fewest GPUs (a gang that fits in a node), or the first whole nodes that can be emptied (a larger
 * gang). Fills st->pick; returns how many nodes, 0 if q cannot be made room for. */
static uint32_t choose_nodes(dk_state *st, const dike_sched *s, const dike_job *q, double need_s,
                             double size_s, double qm)
{
    const dike_cluster *cl = dike_sched_cluster(s);
    uint32_t g = q->spec->num_gpus, vg;
    uint64_t tfree = dike_sched_free_gpus(s, -1);
    double x = bound_floor(size_s); /* the size test's side (make_room) */
    bounds_update(st, s);
    /* only the nodes whose bound reaches the need: no other can be made room on */
    if (g <= st->G) {
        const dike_maxtree *t = &st->bound[st->lb][g];
        uint32_t best = UINT32_MAX, best_cost = UINT32_MAX;
        for (uint32_t n = (uint32_t)dike_maxtree_next(t, 0, x); n < st->nodes;
             n = (uint32_t)dike_maxtree_next(t, n + 1, x)) {
            uint32_t f = dike_sched_node_free(s, n);
            if (!node_allowed(cl, n, q) || f >= g || dike_cluster_node_gpus(cl, n) < g)
                continue;
            if (tfree == f && x > st->capmax_ns[n])
                continue; /* no GPUs to spare outside it: every job's guard refuses q */
            if (g - f >= best_cost)
                continue; /* it must stop at least g - f GPUs: it cannot do better */
            uint32_t m = node_victims(st, s, n, q, need_s, qm, &vg);
            if (f + vg < g) {
                st->refused++;
                continue;
            }
            uint32_t cost = 0, have = f;
            for (uint32_t k = 0; k < m && have < g; k++) {
                have += st->cand[k].gpus;
                cost += st->cand[k].job->spec->num_gpus; /* all of the victim's GPUs stop */
            }
            if (cost < best_cost) {
                best_cost = cost;
                best = n;
                if (cost <= 1)
                    break; /* no node can stop fewer GPUs than one */
            }
        }
        if (best == UINT32_MAX)
            return 0;
        st->pick[0] = best;
        return 1;
    }
    /* A wider gang: whole nodes that can be emptied, in one rack if one suffices (nodes are
     * numbered rack by rack): spread over racks the gang runs slower than it can (Gavel's
     * unconsolidated throughputs), which is why it was not started there. */
    if (dike_cluster_best_level(cl, g) <= DIKE_LOC_RACK) {
        uint32_t n = wide_nodes(st, s, q, need_s, qm, x, 1);
        if (n)
            return n;
    }
    return wide_nodes(st, s, q, need_s, qm, x, 0);
}

/* Set up @p q as the candidate of a preemption attempt, with estimated remaining @p rem_s: its need
 * (what the guard weighs), the size test's side (remaining times the margin, the estimates' learned
 * error, plus its restore) and its measure; its own slack, and which bounds it searches. */
static void candidate(dk_state *st, const dike_sched *s, const dike_job *q, double rem_s,
                      double *need_s, double *size_s, double *qm)
{
    double whole_s = rem_s + restore_s(st, q); /* what it needs to finish, as estimated */
    rem_s = judged_rem(st, q, rem_s, 1);        /* what a swap commits to it (the probe) */
    *need_s = rem_s + restore_s(st, q);
    *size_s = rem_s * st->margin + restore_s(st, q);
    *qm = cand_measure(q, *size_s);
    double total_us = st->outlived[q->idx] ? dike_sched_done_work(s, q) + queued_rem_us(st, s, q)
                                           : dike_sched_est_total(s, q);
    st->q_slack_us = (dike_time_to_s(q->spec->submit) + ideal_s(s, q, total_us) -
                      dike_time_to_s(dike_sched_now(s)) - whole_s) * 1e6;
    /* some lease may yield to it: look at leased jobs too */
    st->lb = st->lease_us > 0 && st->q_slack_us < st->lease_us;
}

/* ---- chains ----
 * The job q takes off its GPUs may itself be allowed, by the same tests, to take another running
 * job's GPUs: it is then usually the first in order that does not fit, and it does so in the same
 * decision step, and its victim may do the same. Such a chain of swaps at one instant ends with
 * the same jobs running as if q had taken the last victim's GPUs, but every job in its middle
 * pays a restore and is moved (measured: 61 % of the preemptions at w = 0, 48 % at w = 0.5, on
 * the full TitanSched trace at load 1 on 512 GPUs were links of chains; docs/dike-history.md).
 * So before it preempts, q follows the chain: while q needs exactly one victim v on its node,
 * and v, as a candidate with its own need and slack, would take a job u on another node, and u
 * is also the first job q would take there and frees enough GPUs for q, q goes there instead
 * (st->pick[0]).
 * Each step's u is larger in GPU-time than its v (v's size test; equal at most with no hysteresis
 * and no restore cost, so the walk is also bounded by the number of nodes). Gangs wider than a
 * node are not followed. */
static void follow_chain(dk_state *st, const dike_sched *s, const dike_job *q, double need_s,
                         double qm)
{
    uint32_t g = q->spec->num_gpus, vg;
    double q_slack = st->q_slack_us;
    int q_lb = st->lb;
    for (uint32_t step = 0; step < st->nodes; step++) {
        uint32_t n = st->pick[0], m = node_victims(st, s, n, q, need_s, qm, &vg), k = 0;
        uint32_t have = dike_sched_node_free(s, n);
        for (; k < m && have < g; k++)
            have += st->cand[k].gpus;
        if (k != 1 || st->cand[0].job->spec->num_gpus > st->G)
            return;
        const dike_job *v = st->cand[0].job, *u = NULL;
        double v_need, v_size, vm;
        candidate(st, s, v, run_rem_s(s, v), &v_need, &v_size, &vm);
        uint32_t n2 = choose_nodes(st, s, v, v_need, v_size, vm) == 1 ? st->pick[0] : n;
        if (n2 != n && node_victims(st, s, n2, v, v_need, vm, &vg) > 0)
            u = st->cand[0].job;
        st->q_slack_us = q_slack; /* q is the candidate again */
        st->lb = q_lb;
        st->pick[0] = n;
        if (!u || node_victims(st, s, n2, q, need_s, qm, &vg) == 0 || st->cand[0].job != u ||
            dike_sched_node_free(s, n2) + st->cand[0].gpus < g)
            return;
        st->pick[0] = n2;
    }
}

/* Preempt st->victims[0 .. @p nv) and start @p q on the GPUs they free. */
static int take_and_start(dk_state *st, dike_sched *s, dike_job *q, uint32_t nv)
{
    for (uint32_t k = 0; k < nv; k++) {
        dike_job *v = st->victims[k];
        node_remove(st, v);
        dike_sched_preempt(s, v);
        if (st->knowledge == DIKE_DURATION_NONE &&
            dike_sched_done_work(s, v) >= dike_sched_est_duration(s, v))
            st->outlived[v->idx] = 1; /* queued_rem_us */
        q_push(st, s, v);
    }
    return start(st, s, q, 0);
}

static void victims_grow(dk_state *st, uint32_t nv)
{
    if (nv == st->vcap) {
        st->vcap = st->vcap ? 2 * st->vcap : 16;
        st->victims = dike_xrealloc(st->victims, st->vcap * sizeof *st->victims);
    }
}

/* Preempt victims on the chosen nodes (largest share first, only what each node must give) and
 * start q. Returns 1 if q started.
 *
 * The victims of every chosen node are found first, on the state choose_nodes judged, and taken
 * only once they free enough GPUs. Found node by node while taking them, as before version 0.9,
 * a wide gang's later nodes were judged after its first victims had stopped: their GPUs then
 * counted as spare, which tightens the guard of the victims still to come (slack_s), so a node
 * chosen as one that empties might not, the gang did not start, and its victims were taken for
 * nothing (then restarted by fill-in, and taken again at the next decision: one job 7,814 times,
 * docs/dike-history.md, version 0.9). A victim with slices on several chosen nodes is taken
 * once, and its GPUs there count for each of them. */
static int make_room(dk_state *st, dike_sched *s, dike_job *q)
{
    const dike_cluster *cl = dike_sched_cluster(s);
    double need_s, size_s, qm;
    candidate(st, s, q, est_rem_s(st, s, q), &need_s, &size_s, &qm);
    uint32_t npick = choose_nodes(st, s, q, need_s, size_s, qm), still = q->spec->num_gpus, vg, nv = 0;
    if (npick == 1 && still <= st->G)
        follow_chain(st, s, q, need_s, qm);
    if (still > st->G) { /* the victims judged as wide_nodes judged them */
        st->gang_spare = gang_spare(st, s, npick);
        st->gang_set = 1;
    }
    for (uint32_t i = 0; i < npick && still > 0; i++) {
        uint32_t n = st->pick[i], cap = dike_cluster_node_gpus(cl, n);
        uint32_t have = dike_sched_node_free(s, n), want = still < cap ? still : cap;
        uint32_t m = node_victims(st, s, n, q, need_s, qm, &vg);
        for (uint32_t k = 0; k < m; k++) /* victims already found on an earlier node free these too */
            if (st->taken[st->cand[k].job->idx])
                have += st->cand[k].gpus;
        for (uint32_t k = 0; k < m && have < want; k++) {
            dike_job *v = st->cand[k].job;
            if (st->taken[v->idx])
                continue;
            victims_grow(st, nv);
            st->victims[nv++] = v;
            st->taken[v->idx] = 1;
            have += st->cand[k].gpus;
        }
        still -= have < still ? have : still;
    }
    st->gang_set = 0;
    for (uint32_t k = 0; k < nv; k++)
        st->taken[st->victims[k]->idx] = 0;
    if (npick == 0 || still > 0)
        return 0; /* not enough room: take nobody */
    return take_and_start(st, s, q, nv);
}

/* ---- the late pass (dike.late_pass) ----
 * The guard never makes a fair job unfair, so in a burst of short jobs on a cluster of long
 * running ones (every T_ideal its job's length: any wait is unfair) it refuses the first
 * preemption of every long job, and every short job of the burst waits and is unfair; SRTF makes
 * one long job late and lets it take the delays of the burst. The metric counts unfair jobs, and
 * Moore and Hodgson's rule for the fewest late jobs on one machine drops the longest job when
 * adding one makes the schedule late. So, when the guard has refused every victim for the
 * candidate q (make_room found none), and
 *   - q can still finish fairly if it starts now (its slack is at least zero), but
 *   - not after the least time it would wait for GPUs (W, a lower bound: the free GPUs of its type
 *     and those the running jobs free by their estimated ends do not reach its width within its
 *     slack),
 * q may take victims that pass the size test alone, leases and guard set aside: on the node
 * where that stops the fewest GPUs, the one whose victim has the most estimated work left, and
 * there the longest victims first. A victim made late passes the guard from then on (late even
 * if left alone), so the next candidate of the burst takes it again before any other job is made
 * late. A candidate that is late already, or that a GPU will reach in time, makes nobody late.
 * Only gangs that fit in one node (the bursts are of 1-GPU jobs). Off by default: measured in
 * docs/dike.md ("The late pass"). */

/* Does @p q find its GPUs within @p slack_us (W <= slack)? The free GPUs of its type, and those
 * of its type that the running jobs free by their estimated ends, counted until they reach its
 * width: a lower bound of its wait, since they may sit on several nodes. */
static int room_in_time(const dk_state *st, const dike_sched *s, const dike_job *q, double slack_us)
{
    const dike_cluster *cl = dike_sched_cluster(s);
    uint64_t g = q->spec->num_gpus, have = dike_sched_free_gpus(s, q->spec->gpu_type);
    dike_time now = dike_sched_now(s);
    for (uint32_t n = 0; n < st->nodes && have < g; n++) {
        if (!node_allowed(cl, n, q))
            continue;
        const dk_slot *sl = st->slot + st->node_off[n];
        for (uint32_t k = 0; k < st->node_n[n] && have < g; k++) {
            const dike_job *v = sl[k].job;
            if (!(v->rate > 0))
                continue;
            double end = dike_sched_est_remaining_running(s, v) / v->rate;
            if (v->progress_start > now)
                end += (double)(v->progress_start - now);
            if (end <= slack_us)
                have += sl[k].gpus;
        }
    }
    return have >= g;
}

/* Longest estimated work left first, then job index. */
static int longer(const dk_slot *x, const dk_slot *y)
{
    return x->rem != y->rem ? x->rem > y->rem : x->job->idx < y->job->idx;
}

/* Node @p n's jobs that pass the size test against candidate @p q of measure @p qm (leases and
 * the guard set aside), longest first, into st->cand (their rem: estimated work left, s); how many. */
static uint32_t late_victims(dk_state *st, const dike_sched *s, uint32_t n, const dike_job *q,
                             double qm)
{
    const dk_slot *sl = st->slot + st->node_off[n];
    uint32_t m = 0;
    double rem_s;
    for (uint32_t k = 0; k < st->node_n[n]; k++) {
        const dike_job *v = sl[k].job;
        if (!swappable(st, s, v) || !swap_pays(st, s, v, q, qm, &rem_s))
            continue;
        dk_slot c = sl[k];
        c.rem = rem_s;
        uint32_t i = m++; /* insertion: a node holds a handful of jobs */
        for (; i > 0 && longer(&c, &st->cand[i - 1]); i--)
            st->cand[i] = st->cand[i - 1];
        st->cand[i] = c;
    }
    return m;
}

static int late_room(dk_state *st, dike_sched *s, dike_job *q)
{
    const dike_cluster *cl = dike_sched_cluster(s);
    uint32_t g = q->spec->num_gpus;
    if (!st->late || st->w <= 0 || g > st->G)
        return 0;
    double need_s, size_s, qm;
    candidate(st, s, q, est_rem_s(st, s, q), &need_s, &size_s, &qm);
    if (st->q_slack_us < 0 || room_in_time(st, s, q, st->q_slack_us))
        return 0;
    uint32_t best = UINT32_MAX, best_cost = UINT32_MAX;
    double best_rem = -INFINITY;
    for (uint32_t n = 0; n < st->nodes; n++) {
        uint32_t f = dike_sched_node_free(s, n);
        if (!node_allowed(cl, n, q) || f >= g || dike_cluster_node_gpus(cl, n) < g)
            continue;
        uint32_t m = late_victims(st, s, n, q, qm), have = f, cost = 0, k = 0;
        for (; k < m && have < g; k++) {
            have += st->cand[k].gpus;
            cost += st->cand[k].job->spec->num_gpus;
        }
        if (have < g)
            continue;
        if (cost < best_cost || (cost == best_cost && st->cand[0].rem > best_rem)) {
            best = n;
            best_cost = cost;
            best_rem = st->cand[0].rem;
        }
    }
    if (best == UINT32_MAX)
        return 0;
    /* the chosen node's victims again, longest first, only as many as it must give */
    uint32_t m = late_victims(st, s, best, q, qm), have = dike_sched_node_free(s, best), nv = 0;
    for (uint32_t k = 0; k < m && have < g; k++) {
        victims_grow(st, nv);
        st->victims[nv++] = st->cand[k].job;
        have += st->cand[k].gpus;
    }
    return take_and_start(st, s, q, nv);
}

/* ---- the decision step ---- */

#define DK_RANGE_TOL 1e-9 /* a range is taken as left a little early: rounding */

/* Could running job @p v's new estimate leave a bound of its nodes too low: is its victim measure
 * above the one its slots' bounds were computed from, or does its estimate run out (and double)
 * before the node's expiry? If not, every bound of its nodes is still an upper bound. */
static int measure_rose(const dk_state *st, const dike_sched *s, const dike_job *v)
{
    dike_time now = dike_sched_now(s);
    if (v->run_start == now || v->rate <= 0)
        return 1;
    double rem_us = dike_sched_est_remaining_running(s, v), m = vict_measure(st, v, positive_s(rem_us));
    double e = (double)runs_out(s, v);
    for (uint32_t k = 0; k < st->nnodes[v->idx]; k++) {
        uint32_t n = v->slices[k].node;
        if (st->dirty[n])
            continue;
        if (e < -dike_maxtree_get(&st->expiry, n))
            return 1;
        const dk_slot *sl = st->slot + st->node_off[n];
        for (uint32_t i = 0; i < st->node_n[n]; i++)
            if (sl[i].job == v && (m > sl[i].bound[1] || (leased_out(st, now, v) && m > sl[i].bound[0])))
                return 1;
    }
    return 0;
}

static void mark_job_dirty(dk_state *st, const dike_job *v)
{
    for (uint32_t k = 0; k < st->nnodes[v->idx]; k++)
        mark_dirty(st, v->slices[k].node);
}

/* Job @p v of tenant @p t, whose range (slot_range) estimate @p e left: its nodes' bounds are
 * recomputed if its measure rose (measure_rose), else its range is taken again from now, over all
 * of its nodes whose bounds are not due anyway. A range that still does not hold e (rounding) gets
 * the nodes recomputed too: that is always safe. */
static void recheck(dk_state *st, const dike_sched *s, const dike_job *v, uint32_t t, double e)
{
    if (!measure_rose(st, s, v)) {
        double hi = INFINITY, lo = -INFINITY, h, l;
        for (uint32_t k = 0; k < st->nnodes[v->idx]; k++) {
            uint32_t n = v->slices[k].node;
            if (st->dirty[n])
                continue;
            const dk_slot *sl = st->slot + st->node_off[n];
            for (uint32_t i = 0; i < st->node_n[n]; i++)
                if (sl[i].job == v) {
                    double x = -dike_maxtree_get(&st->expiry, n);
                    slot_range(s, v, sl[i].rem, x < 9e18 ? (dike_time)x : INT64_MAX, &h, &l);
                    hi = h < hi ? h : hi;
                    lo = l > lo ? l : lo;
                }
        }
        if (hi > e * (1 + DK_RANGE_TOL) && lo < e * (1 - DK_RANGE_TOL)) {
            dike_runkeys_set(&st->rk, v->idx, t, hi, lo);
            return;
        }
    }
    mark_job_dirty(st, v);
    dike_runkeys_remove(&st->rk, v->idx, t); /* back with its nodes' new bounds */
}

/* The estimates of the tenants whose counters moved (dike_sched_est_version: under `none` a job
 * of theirs finished; in the emulating mode, also a stopped job's work left arrived) may have
 * changed; nobody else's did. Their running jobs' nodes get their bounds
 * recomputed where a victim measure may have risen (measure_rose); their queued jobs are re-keyed
 * by the queue (dike_tenantq: those that outlived the estimate only once it passes their work
 * done, those that never ran by one shared judged length, which with the probe rarely changes).
 * The keys are those a re-key of the whole queue would give, and every
 * node bound stays an upper bound, so the decisions are the same; the work per completion is
 * the tenant's jobs, not the queue and every node (docs/performance.md, 2026-12-03). In the
 * predicting mode (st->keyed) not even all of those: only the running jobs whose range of the
 * estimate (slot_range) the new estimate left, the tops of two heaps per tenant (runkeys.h);
 * every other job's measure_rose would find nothing (docs/performance.md, 2026-12-04). */
static void est_refresh(dk_state *st, const dike_sched *s)
{
    dike_job **jobs = st->jobp;
    uint32_t n = dike_tenantwatch_moved(&st->watch, s);
    for (uint32_t m = 0; m < n; m++) {
        uint32_t t = st->watch.moved[m];
        if (st->keyed) {
            /* the jobs whose nodes' bounds were recomputed since their range was taken: their
             * old range does not describe the new bounds; then those whose range e left */
            double e = -1;
            for (uint32_t f = 0; f < st->nfresh[t]; f++) {
                const dike_job *v = jobs[st->fresh[t][f]];
                st->infresh[v->idx] = 0;
                if (!st->inlist[v->idx])
                    continue; /* it stopped since */
                if (e < 0)
                    e = dike_sched_est_judged(s, v);
                recheck(st, s, v, t, e);
            }
            st->nfresh[t] = 0;
            uint32_t j = dike_runkeys_any(&st->rk, t);
            if (j == UINT32_MAX)
                continue;
            if (e < 0)
                e = dike_sched_est_judged(s, jobs[j]);
            while ((j = dike_runkeys_out(&st->rk, t, e, DK_RANGE_TOL)) != UINT32_MAX)
                recheck(st, s, jobs[j], t, e);
            continue;
        }
        for (int32_t i = st->lhead[t]; i >= 0; i = st->lnext[i])
            if (measure_rose(st, s, jobs[i]))
                mark_job_dirty(st, jobs[i]);
    }
    if (n)
        dike_tenantq_refresh_moved(&st->queued, s, st->watch.moved, n);
}

static void dk_decide(void *state, dike_sched *s)
{
    dk_state *st = state;
    dike_job *q;
    if (dike_sched_est_epoch(s) != st->epoch) { /* estimates of waiting jobs changed (`none`) */
        st->epoch = dike_sched_est_epoch(s);
        est_refresh(st, s);
    }
    /* in order; the first that does not fit may preempt (only it, as in SRTF) */
    while ((q = dike_tenantq_min(&st->queued)))
        if (!start(st, s, q, 1) && !make_room(st, s, q) && !late_room(st, s, q))
            break;
    /* fill-in: shortest first among the jobs that fit */
    dike_jobq_fill(&st->queued.q, s, fill_start, st); /* a group's hidden members follow its first */
}

/* ---- events ---- */

/* ---- options: [dike] ---- */

typedef struct dk_params {
    double fairness_weight; /**< w: the share of jobs the fairness guard and the lease protect */
    double hysteresis;      /**< h: remaining GPU-time margin needed to preempt */
    double min_lease_s;     /**< a guarded job's lease, s */
    double probe_s;         /**< `none`: a new job's probe, s */
    bool late_pass;         /**< a candidate the guard leaves late may take the longest victim */
} dk_params;

static const dike_option dk_options[] = {
    {"fairness_weight", DIKE_OPT_DOUBLE, DIKE_OPT_FIELD(dk_params, fairness_weight), "1",
     DIKE_OPT_AT_LEAST(0, 1), NULL,
     "w: the share of jobs that are guarded, spread evenly over the workload; a guarded job may "
     "be preempted only if it can wait for the candidate's whole run and still finish by its "
     "fair finish time, or is already past it, and keeps its GPUs for min_lease_s "
     "(1 = every job: a preemption never makes a fair job unfair; 0 = efficiency alone)"},
    {"hysteresis", DIKE_OPT_DOUBLE, DIKE_OPT_FIELD(dk_params, hysteresis), "0.1",
     DIKE_OPT_AT_LEAST(0, 1), NULL,
     "h: the candidate's remaining GPU-time must be at most (1-h) x the victim's, each "
     "restore counted on its payer's GPUs"},
    {"min_lease_s", DIKE_OPT_DOUBLE, DIKE_OPT_FIELD(dk_params, min_lease_s), "600",
     DIKE_OPT_AT_LEAST(0, DIKE_SECONDS_MAX), NULL,
     "lease: a guarded job is not preempted before it has run this long, s, unless the "
     "waiting job would miss its fair finish time by waiting for the lease"},
    {"probe_s", DIKE_OPT_DOUBLE, DIKE_OPT_FIELD(dk_params, probe_s), "600",
     DIKE_OPT_AT_LEAST(0, DIKE_SECONDS_MAX), NULL,
     "scheduler.duration_knowledge = none only: a job that has never run is judged by at most "
     "this much work (order, swap test, guard), and its first run is kept until it has done that "
     "much, s (0 = judge it by its tenant's mean alone)"},
    {"late_pass", DIKE_OPT_BOOL, DIKE_OPT_FIELD(dk_params, late_pass), "false", DIKE_OPT_ANY, NULL,
     "when the guard refuses every victim for a waiting job that would finish fairly if it "
     "started now but not after its least wait for GPUs, it may take the running jobs with the "
     "most work left on one node, leases and guard set aside (Moore and Hodgson: one job made "
     "late absorbs a burst; gangs that fit in one node; docs/dike.md)"},
    {NULL}};

static int dk_init(dike_sched *s, void **state, dike_err *e)
{
    dk_state *st = dike_xcalloc(1, sizeof *st);
    const dike_config *c = dike_sched_config(s);
    const dike_cluster *cl = dike_sched_cluster(s);
    size_t njobs = dike_sched_workload(s)->njobs;
    const dk_params *p = dike_policy_params(c, &dike_policy_dike);
    st->w = p->fairness_weight;
    st->late = p->late_pass;
    st->keep = 1 - p->hysteresis;
    st->lease_us = st->w > 0 ? p->min_lease_s * 1e6 : 0; /* guarded jobs' lease */
    st->guard_all = st->w >= 1;
    st->guard_below = st->w > 0 && st->w < 1 ? (uint64_t)(st->w * 18446744073709551616.0) : 0;
    st->cost_s = c->scheduler_preemption_cost_s;
    st->njobs = njobs;
    st->nnodes = dike_xcalloc(njobs ? njobs : 1, sizeof *st->nnodes);
    st->nodes = cl->nodes;
    st->node_off = dike_xcalloc((size_t)cl->nodes + 1, sizeof *st->node_off);
    st->node_n = dike_xcalloc(cl->nodes ? cl->nodes : 1, sizeof *st->node_n);
    for (uint32_t n = 0; n < cl->nodes; n++)
        st->node_off[n + 1] = st->node_off[n] + dike_cluster_node_gpus(cl, n);
    st->slot = dike_xcalloc(st->node_off[cl->nodes] ? st->node_off[cl->nodes] : 1, sizeof *st->slot);
    st->cand = dike_xcalloc((size_t)cl->gpus_per_node + 1, sizeof *st->cand);
    st->pick = dike_xcalloc((size_t)cl->nodes + 1, sizeof *st->pick);
    st->taken = dike_xcalloc(njobs ? njobs : 1, 1);
    st->outlived = dike_xcalloc(njobs ? njobs : 1, 1);
    st->G = cl->gpus_per_node;
    st->knowledge = dike_sched_duration_knowledge(s);
    st->probe_s = st->knowledge == DIKE_DURATION_NONE ? p->probe_s : 0;
    st->margin = 1;
    st->est_start = dike_xcalloc(njobs ? njobs : 1, sizeof *st->est_start);
    for (int l = 0; l < 2; l++) {
        st->bound[l] = dike_xcalloc((size_t)st->G + 1, sizeof *st->bound[l]);
        for (uint32_t g = 0; g <= (st->lease_us > 0 || l == 0 ? st->G : 0); g++)
            dike_maxtree_init(&st->bound[l][g], cl->nodes ? cl->nodes : 1);
    }
    dike_maxtree_init(&st->expiry, cl->nodes ? cl->nodes : 1);
    st->scr_cap = dike_xcalloc((size_t)st->G + 1, sizeof *st->scr_cap);
    st->capmin = dike_xcalloc(cl->nodes ? cl->nodes : 1, sizeof *st->capmin);
    st->capmin_ns = dike_xcalloc(cl->nodes ? cl->nodes : 1, sizeof *st->capmin_ns);
    st->capmax_ns = dike_xcalloc(cl->nodes ? cl->nodes : 1, sizeof *st->capmax_ns);
    st->scr_meas = dike_xcalloc((size_t)st->G + 1, sizeof *st->scr_meas);
    st->scr_all = dike_xcalloc((size_t)st->G + 1, sizeof *st->scr_all);
    st->scr_b = dike_xcalloc((size_t)st->G + 1, sizeof *st->scr_b);
    st->scr_sh = dike_xcalloc((size_t)st->G + 1, sizeof *st->scr_sh);
    st->scr_ord = dike_xcalloc((size_t)st->G + 1, sizeof *st->scr_ord);
    st->dirty = dike_xcalloc(cl->nodes ? cl->nodes : 1, 1);
    st->dirty_list = dike_xcalloc(cl->nodes ? cl->nodes : 1, sizeof *st->dirty_list);
    st->ntenants = (uint32_t)dike_sched_workload(s)->ntenants;
    st->lhead = dike_xmalloc(((size_t)st->ntenants + 1) * sizeof *st->lhead);
    for (size_t i = 0; i < st->ntenants; i++)
        st->lhead[i] = -1;
    st->lnext = dike_xcalloc(njobs ? njobs : 1, sizeof *st->lnext);
    st->lprev = dike_xcalloc(njobs ? njobs : 1, sizeof *st->lprev);
    st->inlist = dike_xcalloc(njobs ? njobs : 1, 1);
    dike_tenantwatch_init(&st->watch, st->ntenants);
    st->jobp = dike_xcalloc(njobs ? njobs : 1, sizeof *st->jobp);
    st->keyed = st->knowledge == DIKE_DURATION_NONE && !dike_sched_emulating(s) && !keyed_off;
    if (st->keyed) {
        const dike_workload *wl = dike_sched_workload(s);
        uint32_t *tenant_of = dike_xcalloc(njobs ? njobs : 1, sizeof *tenant_of);
        for (size_t j = 0; j < njobs; j++)
            tenant_of[j] = wl->jobs[j].tenant;
        dike_runkeys_init(&st->rk, njobs, st->ntenants, tenant_of);
        free(tenant_of);
        st->fresh = dike_xcalloc(st->ntenants ? st->ntenants : 1, sizeof *st->fresh);
        st->nfresh = dike_xcalloc(st->ntenants ? st->ntenants : 1, sizeof *st->nfresh);
        st->fresh_cap = dike_xcalloc(st->ntenants ? st->ntenants : 1, sizeof *st->fresh_cap);
        st->infresh = dike_xcalloc(njobs ? njobs : 1, 1);
    }
    dike_tenantq_init(&st->queued, njobs, st->ntenants, q_key, q_shared, st);
    dike_tenantq_set_scaled(&st->queued, q_unit);
    dike_tenantq_set_stable(&st->queued, q_stable, q_level);
    *state = st;
    (void)e;
    return 0;
}

static void dk_arrival(void *state, dike_sched *s, dike_job *j)
{
    q_push(state, s, j);
}

static void dk_finish(void *state, dike_sched *s, dike_job *j)
{
    node_remove(state, j);
    learn_error(state, s, j);
}

/* Checkpoints: the learned error and each job's estimate at its last start (the per-job
 * structures come back through restore_job). */
static void *dk_save(void *state, size_t *len)
{
    dk_state *st = state;
    size_t n = st->njobs * sizeof *st->est_start;
    unsigned char *b = dike_xmalloc(2 * sizeof(int64_t) + n + st->njobs + 1);
    memcpy(b, &st->err_sum, sizeof(int64_t));
    memcpy(b + sizeof(int64_t), &st->err_n, sizeof(int64_t));
    memcpy(b + 2 * sizeof(int64_t), st->est_start, n);
    memcpy(b + 2 * sizeof(int64_t) + n, st->outlived, st->njobs);
    *len = 2 * sizeof(int64_t) + n + st->njobs;
    return b;
}

static int dk_load(void *state, const void *blob, size_t len)
{
    dk_state *st = state;
    size_t n = st->njobs * sizeof *st->est_start;
    const unsigned char *p = blob;
    int64_t b[2];
    if (len != sizeof b + n + st->njobs)
        return DIKE_EINVAL;
    memcpy(b, p, sizeof b);
    memcpy(st->est_start, p + sizeof b, n);
    memcpy(st->outlived, p + sizeof b + n, st->njobs);
    for (size_t i = 0; i < st->njobs; i++)
        if (st->outlived[i] > 1)
            return DIKE_EINVAL;
    st->err_sum = b[0];
    st->err_n = b[1];
    st->margin = b[1] > 0 ? exp((double)b[0] / DK_ERR_SCALE / (double)b[1]) : 1;
    return 0;
}

/* A queued job finished (its work ended before its preemption took effect): its length is known
 * now, as at any finish. */
static void dk_withdraw(void *state, dike_sched *s, dike_job *j)
{
    q_remove(state, j);
    learn_error(state, s, j);
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
    dike_tenantq_free(&st->queued);
    free(st->nnodes);
    free(st->est_start);
    free(st->node_off);
    free(st->node_n);
    free(st->slot);
    free(st->cand);
    free(st->pick);
    free(st->victims);
    free(st->taken);
    free(st->outlived);
    for (int l = 0; l < 2; l++) {
        for (uint32_t g = 0; g <= (st->lease_us > 0 || l == 0 ? st->G : 0); g++)
            dike_maxtree_free(&st->bound[l][g]);
        free(st->bound[l]);
    }
    free(st->scr_cap);
    free(st->capmin);
    free(st->capmin_ns);
    free(st->capmax_ns);
    dike_maxtree_free(&st->expiry);
    free(st->scr_meas);
    free(st->scr_all);
    free(st->scr_b);
    free(st->scr_sh);
    free(st->scr_ord);
    free(st->dirty);
    free(st->dirty_list);
    free(st->lhead);
    free(st->lnext);
    free(st->lprev);
    free(st->inlist);
    dike_tenantwatch_free(&st->watch);
    if (st->keyed) {
        dike_runkeys_free(&st->rk);
        for (uint32_t t = 0; t < st->ntenants; t++)
            free(st->fresh[t]);
        free(st->fresh);
        free(st->nfresh);
        free(st->fresh_cap);
        free(st->infresh);
    }
    free(st->jobp);
    free(st);
}

const dike_policy dike_policy_dike = {
    .name = "dike",
    .summary = "fairness + efficiency: shortest remaining first; preempt only jobs that stay fair (knob w)",
    .options = dk_options,
    .params_size = sizeof(dk_params),
    /* leases expire and slack shrinks between events: look again at every round boundary */
    .flags = DIKE_POLICY_PREEMPTIVE | DIKE_POLICY_ROUNDS,
    .init = dk_init,
    .on_arrival = dk_arrival,
    .on_finish = dk_finish,
    .on_evicted = dk_evicted,
    .decide = dk_decide,
    .free = dk_free,
    .restore_job = dk_restore,
    .save = dk_save,
    .load = dk_load,
    .on_withdraw = dk_withdraw,
};
