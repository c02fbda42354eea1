/* The coordinator's view: running jobs, free capacity, and the two plug-in interfaces
 * (policy, placement). A policy decides which jobs run; a placement decides where. */
#ifndef DIKE_SCHED_H
#define DIKE_SCHED_H

#include <stdbool.h>
#include <stdint.h>
#include "dike/base.h"
#include "dike/cluster.h"
#include "dike/config.h"
#include "dike/workload.h"

enum dike_job_state {
    DIKE_JOB_FUTURE = 0,  /**< not yet submitted */
    DIKE_JOB_QUEUED = 1,  /**< submitted, waiting (new or preempted) */
    DIKE_JOB_RUNNING = 2, /**< holding GPUs */
    DIKE_JOB_DONE = 3     /**< finished */
};

/** A piece of a gang's placement: @p gpus GPUs on node @p node. */
typedef struct dike_slice {
    uint32_t node; /**< node index */
    uint32_t gpus; /**< GPUs on that node */
} dike_slice;

/** A job's run-time state at the coordinator. */
typedef struct dike_job {
    const dike_job_spec *spec; /**< immutable input */
    uint32_t idx;              /**< index in submit order = entity id */
    uint8_t state;             /**< enum dike_job_state */
    int8_t type;               /**< GPU type of the current / last placement, -1 none */
    uint8_t level;             /**< locality level of the current placement */
    uint32_t epoch;            /**< bumped on preemption; stale finish events carry an old one */
    uint32_t seq;              /**< per-job event sequence */
    dike_time first_start;     /**< first start, us; -1 before */
    dike_time run_start;       /**< start of the current run, us */
    dike_time progress_start;  /**< when the current run starts making progress (after restore), us */
    dike_time finish;          /**< finish of the current run if undisturbed, us */
    dike_time last_stop;       /**< end of the last run (preemption or failure), us; -1 before */
    double remaining;          /**< reference-rate work left at progress_start, us */
    double est_duration;       /**< the duration the scheduler believes, us: the true one (oracle) or
                                    the noisy draw, fixed at start-up; unused (0) under `none`,
                                    whose estimate changes (dike_sched_est_duration) */
    double rate;               /**< current rate relative to the reference (0 when queued) */
    double held_us;            /**< us with GPUs held, all runs */
    double rate_gpu_us;        /**< sum of rate x GPUs x us, all runs (effective utilisation) */
    double attained_gpu_s;     /**< attained service, GPU-s: GPUs x time worked (LAS; not launch or restore) */
    double area_at_submit;     /**< active-jobs integral at submit (for N_avg), job-seconds */
    double navg;               /**< time-average active jobs while in the system (set at finish) */
    uint32_t preemptions;      /**< times preempted */
    uint32_t restarts;         /**< times killed by a node failure and requeued */
    double lost_gpu_s;         /**< GPU-seconds of progress lost to failures */
    uint32_t migrations;       /**< resumes on a different node set */
    uint32_t nslices;          /**< slices of the current placement */
    uint32_t placed_n;         /**< slices of the last placement, kept after it stops (/job_nodes) */
    dike_slice *slices;        /**< placement slots: spec->num_gpus entries reserved */
    uint32_t last_sig;         /**< hash of the last node set (migration detection) */
    /* Nothing here belongs to a policy: a policy keeps what it needs per job in its own state,
     * by job index (idx). */
} dike_job;

/** Free capacity: what the coordinator knows about every node's free GPUs. Kept exactly in step
 *  with the node ranks (only the coordinator allocates), so placement needs no round trip.
 *  Nodes are bucketed by free-GPU count per GPU type so a placement never scans every node. */
typedef struct dike_capacity dike_capacity;

typedef struct dike_sched dike_sched;

/** scheduler.duration_knowledge: what duration-using policies know of job lengths. */
enum dike_duration_knowledge {
    DIKE_DURATION_ORACLE = 0, /**< the true duration */
    DIKE_DURATION_NOISY = 1,  /**< true duration x exp(sigma Z), drawn once per job */
    DIKE_DURATION_NONE = 2    /**< no duration: the tenant's (else everyone's) finished-job mean */
};

/** The enum value of a scheduler.duration_knowledge name, or -1. */
int dike_duration_knowledge_parse(const char *name);

/** The `none` estimate before any job has finished, us (an hour: a round number of the order of
 *  the median job of the shared traces; documented in docs/policies.md). */
#define DIKE_DURATION_PRIOR_US 3600e6

/** Remaining-work estimates never go below this, us (1 s). */
#define DIKE_EST_REMAINING_FLOOR_US 1e6

/* ---- policy interface ---- */

enum {
    DIKE_POLICY_PREEMPTIVE = 1u << 0, /**< may preempt running jobs */
    DIKE_POLICY_ROUNDS = 1u << 1,     /**< wants a decision at every round boundary */
    DIKE_POLICY_LEASE_ROUND = 1u << 2 /**< rebuilds its running set at every round (lease = round_s):
                                           `run` warns when a round is no longer than a resume */
};

typedef int (*dike_policy_init_fn)(dike_sched *s, void **state, dike_err *e);
typedef void (*dike_policy_job_fn)(void *state, dike_sched *s, dike_job *j);
typedef void (*dike_policy_decide_fn)(void *state, dike_sched *s);
typedef void (*dike_policy_free_fn)(void *state);
typedef void *(*dike_policy_save_fn)(void *state, size_t *len);
typedef int (*dike_policy_load_fn)(void *state, const void *blob, size_t len);

/** A scheduling policy: one file in src/policy/, one line in the registry (DIKE_POLICY_LIST in
 *  src/policy/policy.h), its configuration keys included: the rows of @p options, in section [name]. */
typedef struct dike_policy {
    const char *name;                 /**< --policy NAME; also the section of its keys */
    const char *summary;              /**< one line for list-policies */
    unsigned flags;                   /**< DIKE_POLICY_* */
    const dike_option *options;       /**< its keys (ends with a NULL name), or NULL for none */
    size_t params_size;               /**< sizeof the params struct @p options fill (0 if none) */
    dike_policy_init_fn init;         /**< allocate state */
    dike_policy_job_fn on_arrival;    /**< a job was submitted (state QUEUED) */
    dike_policy_job_fn on_finish;     /**< a running job finished (already released) */
    dike_policy_job_fn on_evicted;    /**< the engine stopped a running job (node failure); it is
                                           QUEUED again and the policy must requeue it */
    dike_policy_decide_fn decide;     /**< start / preempt jobs through dike_sched_* */
    dike_policy_free_fn free;         /**< release state */
    /* Checkpoint/resume. After init, restore_job is called for every active job (queued or
     * running) in submit order; it must rebuild what on_arrival and the starts built. State that
     * is not a function of the jobs (e.g. stride passes) goes through save/load (may be NULL). */
    dike_policy_job_fn restore_job;   /**< rebuild per-job structures on resume */
    dike_policy_save_fn save;         /**< malloc'd blob of extra state, or NULL */
    dike_policy_load_fn load;         /**< restore the blob; 0 or a negative DIKE_E* code */
    /** A QUEUED job finished without starting again (the emulating mode: its work ended on its
     *  nodes before its preemption reached them); it is DONE, and the policy drops it from its
     *  queue. May be NULL: the engine then rebuilds the policy's state as a resume does (save,
     *  free, init, restore_job for every active job, load), which costs O(active jobs) or more. */
    dike_policy_job_fn on_withdraw;
} dike_policy;

const dike_policy *dike_policy_find(const char *name);
/** NULL-terminated list of all policies, in registry order (built-in, then registered). */
const dike_policy *const *dike_policy_all(void);
/** Add a policy after the built-in ones, for a policy that lives outside src/policy/ (a test's
 *  example policy): its keys become configuration keys like those of the built-in ones. Call it
 *  before the first dike_config_defaults (a config made before knows nothing of the new keys).
 *  0, or DIKE_EINVAL (no name or the name is taken, too many policies, params do not fit). A bad
 *  option row is a programming error: the config layer stops on it with dike_fatal. */
int dike_policy_register(const dike_policy *p, dike_err *e);
/** @p p's option values in @p c: its params struct, filled by the config layer from its table
 *  (defaults, files, --set). NULL if @p p has no options. */
const void *dike_policy_params(const dike_config *c, const dike_policy *p);
/** Where @p p's params struct starts in dike_config.policy_params, bytes. */
size_t dike_policy_params_offset(const dike_policy *p);

/* ---- placement interface ---- */

typedef int (*dike_place_fn)(dike_capacity *cap, const dike_job *j, dike_slice *out,
                             uint32_t *nout, int *type, int *level);

/** A placement strategy: returns 1 and fills out[] (GPUs per node, summing to num_gpus) if the gang
 *  fits now, 0 otherwise. It only chooses; the caller commits the allocation. out[] has room for
 *  2 x num_gpus slices (the second half is scratch). Its keys, if any, are declared like a
 *  policy's, in section [name]; place() finds their values in cap->params. */
typedef struct dike_placement {
    const char *name;           /**< --placement NAME; also the section of its keys */
    const char *summary;        /**< one line */
    dike_place_fn place;        /**< choose nodes */
    const dike_option *options; /**< its keys (ends with a NULL name), or NULL for none */
    size_t params_size;         /**< sizeof the params struct @p options fill (0 if none) */
    int by_shape;               /**< 1 if place() reads of the job only its gang size and GPU
                                     type: the coordinator may then reuse one answer for every
                                     queued job of that shape until the free GPUs change */
} dike_placement;

const dike_placement *dike_placement_find(const char *name);
/** NULL-terminated list of all placements, in registry order (built-in, then registered). */
const dike_placement *const *dike_placement_all(void);
/** As dike_policy_register, for a placement. */
int dike_placement_register(const dike_placement *p, dike_err *e);
/** As dike_policy_params, for a placement (in dike_config.placement_params). */
const void *dike_placement_params(const dike_config *c, const dike_placement *p);
size_t dike_placement_params_offset(const dike_placement *p);

/* ---- what policies may ask and do (implemented by the coordinator) ---- */

dike_time dike_sched_now(const dike_sched *s);
const dike_cluster *dike_sched_cluster(const dike_sched *s);
const dike_config *dike_sched_config(const dike_sched *s);
/** Free GPUs of @p type (-1: all types). */
uint64_t dike_sched_free_gpus(const dike_sched *s, int type);
/** Free GPUs usable by job @p j (its GPU type constraint applied; largest single type pool if none). */
uint64_t dike_sched_free_for(const dike_sched *s, const dike_job *j);
/** Place and start a QUEUED job now. Returns 1 if started, 0 if it does not fit. */
int dike_sched_start(dike_sched *s, dike_job *j);
/** Like dike_sched_start, but only where the gang runs at its best rate: at its best reachable
 *  locality level (one node for a gang that fits in one, one rack for one that fits in a rack), or
 *  at a worse level that does not slow it (dike_tput_rate). Returns 0, changing nothing, when the
 *  placement strategy's choice would slow it. */
int dike_sched_start_local(dike_sched *s, dike_job *j);
/** Preempt a RUNNING job now: its GPUs are free at once, its progress is kept, it becomes QUEUED
 *  (the policy must requeue it in its own structures). */
void dike_sched_preempt(dike_sched *s, dike_job *j);
/** Remaining reference work of @p j at now, us. */
double dike_sched_remaining(const dike_sched *s, const dike_job *j);
/* What policies may know of job lengths (scheduler.duration_knowledge; engine/estimate.c). Policies
 * that use durations call only these two, never spec->duration, so one key switches them all.
 * Under `none` an estimate depends on which jobs have finished, so it can change while a job waits:
 * policies re-read it at each decision (dike_sched_est_epoch tells when it may have changed). */

/** Estimated total reference work of @p j, us, under scheduler.duration_knowledge. oracle: the
 *  duration; noisy: duration x exp(sigma Z) drawn once from the job's stream (seed, job index,
 *  DIKE_STREAM_DURATION_ERROR); none: the mean duration of the finished jobs of @p j's tenant,
 *  else of all finished jobs, else DIKE_DURATION_PRIOR_US. */
double dike_sched_est_duration(const dike_sched *s, const dike_job *j);
/** Estimated remaining reference work of @p j at now, us: est_duration - done work, and when the
 *  job has already done at least its estimate, the estimate is revised to twice the work done
 *  (i.e. remaining = done work: a job that outlived its estimate is expected to run as long
 *  again) — never below a small floor (1 s). oracle: exactly dike_sched_remaining(). */
double dike_sched_est_remaining(const dike_sched *s, const dike_job *j);
/** The total reference work the scheduler now expects of @p j, us: dike_sched_est_duration, revised
 *  like dike_sched_est_remaining once the job has done that much (twice the work done), so that
 *  remaining and total agree; exactly the duration under the oracle. */
double dike_sched_est_total(const dike_sched *s, const dike_job *j);
/** Remaining work of a running job for victim tests, us: like dike_sched_est_remaining, but a job
 *  that outlived its estimate E is expected to end at the first of 2E, 4E, ... it has not reached,
 *  so the estimate does not grow while it runs (two long jobs would otherwise trade places at every
 *  decision). Equal to dike_sched_est_remaining until E is outlived; oracle: the remaining work. */
double dike_sched_est_remaining_running(const dike_sched *s, const dike_job *j);
/** The estimated duration a running job's revisions start from, us: dike_sched_est_duration, at
 *  least the floor (DIKE_EST_REMAINING_FLOOR_US). */
double dike_sched_est_judged(const dike_sched *s, const dike_job *j);
/** 2^k, the least power of two with @p est x 2^k above @p done: a running job that has done
 *  @p done us of work is expected to end at est x 2^k (@p est: dike_sched_est_judged). The
 *  ranges of the estimate of dike and srtf under `none` are derived from it. */
double dike_sched_est_scale(double est, double done);
/** The reference work, us, running job @p j does before its estimate is next revised (reaches the
 *  next of E, 2E, 4E, ...): dike_sched_est_remaining_running is this, but never below the floor.
 *  While @p j runs and its estimated duration does not change (dike_sched_est_version), it falls
 *  at the job's rate, so a policy can tell when the estimate may next jump up. */
double dike_sched_est_gap_running(const dike_sched *s, const dike_job *j);
/** When running job @p j's gap (dike_sched_est_gap_running) will have fallen to @p left_us if
 *  nothing changes: its progress start (or now) + floor((gap - left_us) / rate), never before
 *  now; INT64_MAX if it makes no progress. With @p left_us = 0: when its estimate is reached and
 *  may be revised upwards (srtf's and dike's bounds are recomputed then). */
dike_time dike_sched_est_gap_at(const dike_sched *s, const dike_job *j, double left_us);
/** The total reference work the scheduler now expects of running job @p j, us, in agreement with
 *  dike_sched_est_remaining_running: the work done plus that remaining (an outlived estimate E is
 *  read as 2E, 4E, ...); exactly the duration under the oracle. */
double dike_sched_est_total_running(const dike_sched *s, const dike_job *j);
/** Reference work @p j has done so far, us (its attained service in reference units, the current
 *  run included): what any scheduler knows, in every knowledge mode. */
double dike_sched_done_work(const dike_sched *s, const dike_job *j);
/** scheduler.duration_knowledge of this run (enum dike_duration_knowledge). */
int dike_sched_duration_knowledge(const dike_sched *s);
/** 0 while @p j has stopped on the coordinator but its true work left has not reached it yet
 *  (emulating mode: the home reports it a decision latency later; dike_sched_est_version of its
 *  tenant moves when it does), 1 otherwise. Until then its remaining work is the coordinator's
 *  guess, and the job cannot start. */
int dike_sched_work_known(const dike_sched *s, const dike_job *j);
/** 1 in the emulating mode (a node model is on: the nodes report completions and the work left
 *  of stopped jobs), 0 when the coordinator predicts every completion. */
int dike_sched_emulating(const dike_sched *s);
/** Whether a run of @p cfg emulates: node_model.progress = nodes, or `auto` with a node model on
 *  or decisions that take time to reach the nodes (docs/architecture.md#two-modes). The
 *  coordinator switches the mode on before the policy's init, so dike_sched_emulating already
 *  answers there. */
int dike_sched_mode_emulating(const dike_config *cfg);
/** A counter that changes whenever the estimate of a job that is not running may have changed
 *  (under `none`: every completion; in the emulating mode, in every knowledge mode: a stopped
 *  job's work left reaching the coordinator). A policy that keys queued jobs by an estimate
 *  re-keys them when it differs from the value it saw last. */
uint64_t dike_sched_est_epoch(const dike_sched *s);
/** A counter that changes whenever the estimates of @p tenant's jobs may have changed: under
 *  `none`, when one of its jobs finishes, or, while none has, when any job finishes (its jobs
 *  then use the mean of all finished jobs); in every mode, when a stopped job of its reports its
 *  work left (emulating mode). Never decreases within a run. A policy that keeps
 *  estimate-dependent state per job revisits only the tenants whose counter moved, instead of
 *  every job at every change of dike_sched_est_epoch. */
uint64_t dike_sched_est_version(const dike_sched *s, uint32_t tenant);
/** Where the estimates stand, for dike_sched_est_moved. */
typedef struct dike_est_mark {
    uint64_t bumps; /**< the tenants' own version steps so far */
    uint64_t all;   /**< finished jobs so far (`none`) */
} dike_est_mark;
dike_est_mark dike_sched_est_mark(const dike_sched *s);
/** The tenants whose dike_sched_est_version moved since @p since, in @p out (ascending; room for
 *  every tenant), without a look at every tenant: those with a finish or a stop report of their
 *  own since, and, if any job finished since (`none`), those with a submitted job and none
 *  finished. Left out are only tenants none of whose jobs was ever submitted: a policy holds
 *  nothing of theirs, and the jobs they submit later are keyed when they arrive. @p seen is the
 *  caller's scratch, one zero bit per tenant ((tenants + 63) / 64 words), left zero.
 *  O(listed + tenants / 64). */
uint32_t dike_sched_est_moved(const dike_sched *s, dike_est_mark since, uint32_t *out, uint64_t *seen);
/** 1 if this decision step is at a round boundary (DIKE_POLICY_ROUNDS policies). */
int dike_sched_is_round(const dike_sched *s);
/** The workload (tenant names, job specs). */
const dike_workload *dike_sched_workload(const dike_sched *s);
/** Tenant weights of this run, one per tenant of the workload: [tenants] weights resolved once,
 *  before the run, for every policy alike (dike_tenant_weights_resolve). */
const double *dike_sched_tenant_weights(const dike_sched *s);
/** Jobs in the system now (queued + running). */
uint32_t dike_sched_active(const dike_sched *s);
/** GPUs on nodes that are up (free + allocated). */
uint64_t dike_sched_gpus_up(const dike_sched *s);
/** A counter that changes whenever a node fails or is repaired (a failure and a repair between
 *  two looks leave dike_sched_gpus_up unchanged, but not this). */
uint64_t dike_sched_node_epoch(const dike_sched *s);
/** Attained service of @p j in GPU-seconds, including its current run: GPUs x the time its runs
 *  worked (from progress_start: the launch latency and a resume's restore are not service). */
double dike_sched_attained_gpu_s(const dike_sched *s, const dike_job *j);
/** Rate @p j has (running) or would get if started now with the configured placement (queued);
 *  0 if it does not fit now. Does not change anything. */
double dike_sched_rate_now(dike_sched *s, const dike_job *j);
/** Time-average number of jobs in the system since @p j was submitted (SPEC §6's N_avg so far;
 *  the jobs in the system now if no time has passed). */
double dike_sched_navg(const dike_sched *s, const dike_job *j);
/** Free GPUs on @p node now (0 while it is down). */
uint32_t dike_sched_node_free(const dike_sched *s, uint32_t node);

#endif
