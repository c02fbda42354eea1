/* The coordinator (rank 0): jobs, queue, policy, placement, job-level accounting (internal).
 *
 * It advances its own event heap window by window. Every start and stop it decides becomes a
 * dike_action for the node rank that owns the node; actions are buffered and shipped at the
 * window end. A job's completion time is known when it starts (its rate is fixed by its
 * placement), so the coordinator needs the node ranks only for what it cannot predict. */
#ifndef DIKE_COORD_H
#define DIKE_COORD_H

#include <stdint.h>
#include "engine/event.h"
#include "dike/results.h"
#include "dike/sched.h"
#include "dike/tenants.h"
#include "engine/latency.h"
#include "engine/progress.h"

enum { DIKE_ACT_START = 1, DIKE_ACT_STOP = 2 };

struct dike_nact; /* engine/nodes.h */
struct dike_nrep;

/** A start or stop of one job's slice on one node, sent to the node's owner. */
typedef struct dike_action {
    dike_time time;       /**< when, us */
    dike_time run_start;  /**< STOP: when this run started (for busy GPU-seconds), us */
    uint32_t node;        /**< node index */
    uint32_t gpus;        /**< GPUs of the slice */
    uint32_t job;         /**< job index */
    uint32_t kind;        /**< DIKE_ACT_* */
} dike_action;

struct dike_sched {
    const dike_config *cfg;
    const dike_cluster *cl;
    const dike_workload *w;
    const dike_policy *pol;
    void *pol_state;
    const dike_placement *plc;
    dike_capacity *cap;

    dike_job *jobs;          /**< one per workload job, submit order */
    dike_slice *slice_arena; /**< num_gpus slots per job, reserved up front */
    dike_slice *scratch;     /**< placement output scratch (max gang) */
    struct {
        uint64_t version;    /**< capacity version it was computed at (UINT64_MAX: empty) */
        uint32_t g;          /**< gang size */
        int32_t type;        /**< the job's GPU type constraint (-1: any) */
        double rate;         /**< dike_sched_rate_now's answer for a queued job of that shape */
    } rate_cache[64];        /**< by_shape placements: one answer per shape per capacity state */

    dike_event_pool pool;
    dike_heap heap;
    dike_time now;
    size_t next_arrival;     /**< next job to submit (only one arrival event is in the heap) */
    uint32_t round_seq;      /**< rounds scheduled so far */
    int round_pending;       /**< a round event is in the heap */
    int round_now;           /**< a round event was handled at this timestamp */
    dike_time round_us, preempt_cost_us;

    /* accounting */
    uint64_t busy_gpus;
    uint32_t queued, running, active;
    size_t finished;
    double area;             /**< integral of active jobs over time, job-seconds */
    dike_time area_t;        /**< time of the last area update */
    uint32_t *tenant_gpus;   /**< GPUs held per tenant now */
    double *tenant_gpu_s;    /**< allocated GPU-seconds per tenant */

    /* tenant weights and entitlements (for /tenants, whatever the policy) */
    double *tenant_weight;   /**< resolved [tenants] weights, per tenant */
    double *tenant_demand;   /**< GPUs asked by the tenant's active (queued + running) jobs */
    double *ent_ratio;       /**< per tenant: demand / weight when it took its place in the order */
    double *ent;             /**< entitled GPUs per tenant since ent_since (0 when inactive) */
    dike_time *ent_since;    /**< per tenant: when ent last changed, us */
    double *ent_gpu_s;       /**< integral of ent up to ent_since, GPU-seconds */
    double *ent_out;         /**< water-filling output (scratch, per tenant) */
    double ent_total;        /**< sum of tenant_demand, GPUs */
    int ent_contended;       /**< the last update had demand above the GPUs up */
    int ent_dirty;           /**< demand or GPUs up changed at this timestamp */
    int ent_tree;            /**< the active tenants in a treap (else the sorted array below) */
    uint32_t *ent_active;    /**< without the treap: tenants with demand > 0, sorted by ent_ratio
                                  (ties: index) at each contended update */
    uint32_t ent_nactive;
    int32_t ent_root;        /**< treap of the tenants with demand > 0 by ent_ratio (ties: index) */
    int32_t *ent_left, *ent_right;
    double *ent_sumd, *ent_sumw; /**< per treap node: its subtree's demands and weights */
    uint8_t *ent_in;         /**< per tenant: in the treap */
    int ent_exact;           /**< whole weights, sums below 2^52: the water-filling by descent */
    uint32_t *ent_u;         /**< the tenants the level did not cover at the last update */
    uint32_t ent_nu;
    uint32_t *ent_unew;      /**< scratch: tenants in order */
    uint32_t ent_nunew;
    uint32_t *ent_changed;   /**< tenants whose demand changed at this timestamp */
    uint32_t ent_nchanged;
    uint8_t *ent_flag;       /**< per tenant: listed in ent_changed */

    dike_timeseries ts;
    dike_time sample_step, next_sample;
    uint64_t preemptions, migrations;

    /* what policies know of durations (engine/estimate.c) */
    int dur_knowledge;       /**< enum dike_duration_knowledge */
    int64_t *tenant_done_us; /**< none: sum of the durations of each tenant's finished jobs, us */
    uint32_t *tenant_done_n; /**< none: finished jobs per tenant */
    int64_t all_done_us;     /**< none: sum of the durations of all finished jobs, us */
    uint64_t all_done_n;     /**< none: finished jobs */
    uint64_t est_epoch;      /**< dike_sched_est_epoch */
    uint64_t node_epoch;     /**< dike_sched_node_epoch: node failures and repairs so far */
    uint64_t *tenant_est_ver; /**< per tenant: its finishes (none) and stop reports so far
                                   (dike_sched_est_version) */
    uint64_t *tenant_first_all; /**< none, per tenant: all_done_n when its first job finished */
    /* which tenants' versions moved, without a scan of every tenant (dike_sched_est_moved) */
    uint64_t est_bumps;      /**< the tenants' own version steps so far (finishes, stop reports) */
    uint64_t *tenant_bump;   /**< per tenant: est_bumps at its last own step (0: none yet) */
    int32_t bump_head;       /**< the tenants by their last own step, the latest first */
    int32_t *bump_next, *bump_prev;
    uint32_t *nofin;         /**< none: the tenants with a submitted job and no finished one */
    uint32_t *nofin_pos;     /**< per tenant: its place in nofin, or UINT32_MAX */
    uint32_t nnofin;

    /* actions for the node ranks, in time order */
    dike_action *act;
    size_t nact, act_cap;

    /* node failures reported by the node ranks: job lists of pending NODE_FAIL events */
    uint32_t **fail_jobs;    /**< [i] jobs on the node of failure report i (freed when handled) */
    uint32_t *fail_njobs;
    size_t nfail, fail_cap;
    dike_time ckpt_us;       /**< checkpoint interval */
    uint64_t node_failures;  /**< failures handled */
    /* A run that cannot finish (docs/reliability.md#a-run-that-stops-making-progress): node
     * failures undo every run before it keeps any work, and the failures go on for ever. */
    uint64_t stall_fails;    /**< stop after this many failures without progress; 0 = never */
    uint64_t fails_since_progress; /**< failures since a job last finished or kept work */
    dike_time progress_t;    /**< when a job last finished or kept work */
    int stalled;             /**< the loops end the run with an error (dike_coord_stall_error):
                                  DIKE_STALL_FAILURES (stall_fails reached), DIKE_STALL_TIMESERIES
                                  or DIKE_STALL_NODE_TIMESERIES (output.timeseries_max_gib) */
    size_t ts_max;           /**< samples /timeseries may hold (output.timeseries_max_gib) */
    uint64_t idle_preempts;  /**< preemptions since progress, each of a run that had done no work */
    uint64_t livelock_preempts; /**< that many is a policy's livelock: a fatal error */

    dike_progress progress;  /**< stderr progress (rank 0) */
    uint32_t tick;           /**< timestamps processed, to look at the clock only now and then */

    /* Emulating mode (docs/architecture.md#two-modes): the node ranks track progress; the
     * coordinator decides, and its starts and stops take effect latency_us later. */
    int emulate;             /**< progress is tracked by the node ranks */
    dike_time latency_us;    /**< scheduler.decision_latency_s, us */
    int net_on;              /**< node_model.network = rack: cross-rack gangs carry their iota */
    uint8_t *stop_pending;   /**< per job: stopped, the work left not reported yet (cannot start) */
    double *stop_work;       /**< per job: work left reported by the home, us */
    double *stop_lost;       /**< per job: progress time lost to a failure, reported, us */
    uint32_t *node_jobs;     /**< faults: [node][gpus_per_node] jobs placed per node, UINT32_MAX empty */
    struct dike_nact *eact;  /**< actions for the node ranks (emulating mode), in decision order */
    size_t neact, eact_cap;
    uint64_t stopped_done;   /**< runs whose work ended between their preemption and its effect */
    dike_time signal_at;     /**< testing (emulating mode, engine.inject_stop_s): raise the stop
                                  request as a signal would, while processing this time, 0 = never */
    int signal_fired;        /**< it did (the loop takes the request back when it ends) */

    /* instrumentation */
    uint64_t events, stale_events, decisions;
    double decide_seconds;   /**< wall time inside the policy's decide (estimated from the timed steps) */
    dike_latency decide_lat; /**< the timed decision steps (every 8th), with the active jobs at each */
    dike_latency decide_by_active[DIKE_LAT_OCTAVES]; /**< the same, by octave of active jobs (/decide) */
};

/** A job finished or a stopped run kept work at now: the run is making progress. */
static inline void dike_coord_progress(dike_sched *s)
{
    s->fails_since_progress = 0;
    s->idle_preempts = 0;
    s->progress_t = s->now;
}

/** Why a run is stopped with an error (dike_sched.stalled). */
enum { DIKE_STALL_FAILURES = 1, DIKE_STALL_TIMESERIES = 2, DIKE_STALL_NODE_TIMESERIES = 3 };

/** Rank 0, once s->stalled: the message that ends the run (DIKE_EINVAL). */
int dike_coord_stall_error(const dike_sched *s, dike_err *e);
/** Every rank, once the loops agree the run stalled: rank 0 the message, the others a short one
 *  (only rank 0's is printed); DIKE_EINVAL. */
int dike_coord_stall_status(int rank, const dike_sched *s, dike_err *e);

/** Set up the coordinator of a run with policy @p pol. The policy comes from the caller (the run
 *  layer looks it up by cfg->scheduler_policy): policies sit above the engine and call its
 *  dike_sched_* API, so the engine never names them. When cfg asks for the emulating mode
 *  (dike_sched_mode_emulating) it is on before the policy's init: no completion is predicted, and
 *  actions become dike_nact with effect time now + scheduler.decision_latency_s. */
int dike_coord_init(dike_sched *s, const dike_config *cfg, const dike_policy *pol,
                    const dike_cluster *cl, const dike_workload *w, dike_err *e);
void dike_coord_free(dike_sched *s);
/** Time of the next coordinator event, DIKE_TIME_INF if none. */
dike_time dike_coord_next_time(const dike_sched *s);
/** Process events with time < @p horizon; stop early (at a timestamp boundary) once
 *  @p max_actions actions are buffered. */
void dike_coord_run(dike_sched *s, dike_time horizon, size_t max_actions);
/** A node event reported by its owner (time >= every event processed so far): queued as an event
 *  in the total order. @p jobs: jobs on the node when it failed. */
void dike_coord_node_event(dike_sched *s, dike_time t, uint32_t kind, uint32_t node, uint32_t seq,
                           const uint32_t *jobs, uint32_t njobs);
/** A report from a node rank (emulating mode): queued as an event in the total order. */
void dike_coord_report(dike_sched *s, const struct dike_nrep *r);
/** All jobs finished. */
int dike_coord_done(const dike_sched *s);
/* Entitlements (engine/entitle.c). */
void dike_ent_init(dike_sched *s);
/** After the weights are resolved: whether the water-filling can go by descent (exact). */
void dike_ent_weights_ready(dike_sched *s);
void dike_ent_free(dike_sched *s);
/** Tenant @p t's demand changes by @p delta GPUs at now (a job arrives or finishes). */
void dike_ent_demand(dike_sched *s, uint32_t t, double delta);
/** After a timestamp's events, when ent_dirty: the entitlements at now. */
void dike_ent_update(dike_sched *s);
/* Duration estimates (engine/estimate.c). */
/** Read the knowledge mode and draw every job's noisy estimate (jobs must be set up). */
int dike_est_init(dike_sched *s, dike_err *e);
void dike_est_free(dike_sched *s);
/** Job @p j was submitted (its tenant may join the tenants without a finished job, O(1)). */
void dike_est_on_arrival(dike_sched *s, const dike_job *j);
/** Job @p j finished: its true duration joins its tenant's history (O(1)). */
void dike_est_on_finish(dike_sched *s, const dike_job *j);
/** Job @p j's stop reached its nodes (emulating mode): its work left, and so its estimate,
 *  changed (dike_sched_est_epoch, dike_sched_est_version of its tenant). */
void dike_est_on_stop(dike_sched *s, const dike_job *j);
/** Rebuild the history from the jobs' states (after a checkpoint is loaded; the per-tenant
 *  versions only grow: policies start afresh after a restore). */
void dike_est_rebuild(dike_sched *s);

/** Rebuild the set of active tenants from tenant_demand (after a checkpoint is restored). */
void dike_coord_entitle_rebuild(dike_sched *s);
/** Build the job-level results (jobs, tenants, timeseries, summary). */
void dike_coord_results(dike_sched *s, dike_results *r);
/** The decision-step latency columns of rank 0's /perf row (mean, p50, p99, max, active jobs). */
void dike_coord_perf_decide(const dike_sched *s, dike_perf_record *perf);

/* What the policy API (engine/sched.c) shares with the event loop (engine/coord.c). */
/** Queue an event in the coordinator's heap. */
void dike_coord_push_event(dike_sched *s, dike_time t, uint8_t phase, uint8_t kind, uint32_t entity,
                            uint32_t seq, uint32_t data);
/** Predicting mode: buffer a start or stop of slice @p sl of @p j for its node's owner. */
void dike_coord_add_action(dike_sched *s, uint32_t kind, const dike_job *j, const dike_slice *sl);
/** Emulating mode: slice @p i of @p j starts or stops L after now, at its node's owner. */
void dike_coord_add_nact(dike_sched *s, uint32_t kind, const dike_job *j, uint32_t i, uint32_t reason);
/** Order-independent signature of a node set, to tell a migration from a resume in place. */
uint32_t dike_coord_node_set_sig(const dike_slice *sl, uint32_t n);
/** Release a running job's GPUs at now: capacity, node actions, run accounting. @p reason
 *  (DIKE_STOP_*) tells the home what to report in the emulating mode. */
void dike_coord_release(dike_sched *s, dike_job *j, uint32_t reason);
/** A freshly initialised policy gets its state back, as on a resume: restore_job for every active
 *  job in submit order, then its own state (@p blob, @p len bytes, if it has a load). Nonzero if
 *  load refused the blob. */
int dike_coord_policy_restore(dike_sched *s, const void *blob, size_t len);
/** At the end of a run (coord_results.c): the entitlement integrals up to now. */
void dike_coord_close_entitlements(dike_sched *s);

#endif
