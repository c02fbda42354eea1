/* Node-side progress (internal): the node ranks' half of the emulating mode
 * (docs/architecture.md#two-modes).
 *
 * Every rank plays two parts. As the *owner* of a block of nodes it applies the coordinator's
 * starts and stops when they take effect (decision + scheduler.decision_latency_s), runs the node
 * models (interference, rack uplinks, slowdown episodes, failures) and sends each job's per-node
 * speed factor to the job's *home*: the owner of the gang's first node. As a home it integrates
 * the progress of its jobs under the combined factor (a gang runs at its slowest node) and reports
 * completions and stops to the coordinator. Factor changes stem only from actions and from
 * episodes drawn ahead, so within a window [T, T + L) every rank can advance alone. */
#ifndef DIKE_NODES_H
#define DIKE_NODES_H

#include <stdint.h>
#include "dike/cluster.h"
#include "dike/config.h"
#include "engine/event.h"
#include "dike/nodemodel.h"
#include "engine/partition.h"

/** Why a run stops (dike_nact.reason). */
enum { DIKE_STOP_RELEASE = 0, /**< the job finished: the GPUs come back, nothing to report */
       DIKE_STOP_PREEMPT = 1, /**< preempted: the home reports the work left */
       DIKE_STOP_EVICT = 2 }; /**< its node failed: the home reports the work at the last checkpoint */

/** A start or stop of one slice of a gang, sent by the coordinator to the node's owner; it takes
 *  effect at @p time (decision + latency). */
typedef struct dike_nact {
    dike_time time;      /**< effect time, us */
    dike_time run_start; /**< effect time of the run's start (busy GPU-seconds), us */
    dike_time delay;     /**< START: restore cost before the run makes progress, us */
    double work;         /**< START: reference work left, us */
    double rate;         /**< START: rate of the placement (speed x locality) */
    double iota;         /**< START: cross-rack communication fraction of the step, 0 if in one rack */
    uint32_t node;       /**< node index */
    uint32_t gpus;       /**< GPUs of the slice */
    uint32_t job;        /**< job index */
    uint32_t kind;       /**< DIKE_ACT_START or DIKE_ACT_STOP */
    uint32_t epoch;      /**< the run's epoch at the coordinator */
    uint32_t slice;      /**< index of this slice in the gang */
    uint32_t nslices;    /**< slices of the gang */
    uint32_t home_node;  /**< node of slice 0: its owner is the gang's home */
    uint32_t reason;     /**< STOP: DIKE_STOP_* */
    uint32_t pad_;
} dike_nact;

/** What node ranks tell the coordinator (gathered every window). */
enum { DIKE_NREP_FINISH = 1, DIKE_NREP_STOPPED = 2, DIKE_NREP_FAIL = 3, DIKE_NREP_REPAIR = 4 };
typedef struct dike_nrep {
    dike_time time;   /**< when, us */
    double work;      /**< STOPPED: reference work left, us */
    double lost_us;   /**< STOPPED after a failure: progress time thrown away, us */
    uint32_t kind;    /**< DIKE_NREP_* */
    uint32_t entity;  /**< job index, or node index */
    uint32_t seq;     /**< job: the run's epoch; node: per-node event sequence */
    uint32_t pad_;
} dike_nrep;

/** A job-level record for a home: a run starts or ends, or the smallest factor of a group of its
 *  slices (those on one rank's nodes) changes. */
enum { DIKE_JREC_END = 0, DIKE_JREC_START = 1, DIKE_JREC_FACTOR = 2 };
typedef struct dike_jrec {
    dike_time time;   /**< when, us */
    dike_time aux;    /**< START: progress delay; END of an eviction: the failure time; else -1 */
    double value;     /**< FACTOR: the group's smallest speed factor; START: work left, us */
    double rate;      /**< START: the placement's rate */
    uint32_t job, epoch;
    uint32_t slice;   /**< FACTOR: the group's lowest slice, which names it */
    uint32_t kind;    /**< DIKE_JREC_* (also the order within a timestamp) */
    uint32_t nslices; /**< START: slices of the gang; FACTOR: slices in the group */
    uint32_t reason;  /**< END: DIKE_STOP_* */
} dike_jrec;

typedef struct dike_nodes dike_nodes;
struct dike_winprof;

/** Node-model parameters, read once from the configuration. */
typedef struct dike_nodes_params {
    double alpha;             /**< interference per neighbour */
    int network;              /**< rack uplinks on */
    double uplink_gbps, gpu_gbps;
    double slow_mtbf_us;      /**< 0 = no episodes */
    dike_time slow_dur_us;
    double slow_factor;
    double fail_mtbf_us, fail_mttr_us; /**< 0 = no failures */
    dike_time ckpt_us;        /**< faults.checkpoint_interval_s */
    dike_time sample_us;      /**< output.node_timeseries_s, 0 = off */
    double sample_max_bytes;  /**< output.timeseries_max_gib: the most one rank's samples may hold */
    uint64_t seed;
} dike_nodes_params;

void dike_nodes_params_read(dike_nodes_params *np, const dike_config *cfg);

/** State of this rank's block [first, first + n) and of the runs it is home to; @p njobs sizes the
 *  job index. @p p is the block's accounting (free GPUs, busy GPU-seconds, /nodes). */
dike_nodes *dike_nodes_new(const dike_nodes_params *np, const dike_cluster *cl,
                           const dike_part_layout *l, int rank, dike_part *p, uint32_t njobs);
void dike_nodes_free(dike_nodes *ns);

/** Queue actions from the coordinator (in decision order, effect times >= every time processed). */
void dike_nodes_enqueue(dike_nodes *ns, const dike_nact *a, size_t n);
/** Owner step: apply actions and node events with time < @p end, one timestamp at a time. Job
 *  records for this rank's own runs are kept for the home step, records for other ranks' homes
 *  wait in the outbox; failure and repair reports for the coordinator are appended. */
void dike_nodes_owner_advance(dike_nodes *ns, dike_time end);
/** The outbox, bucketed by destination rank (counts and displacements in records, for
 *  MPI_Alltoallv); emptied by the call. */
const dike_jrec *dike_nodes_outbox(dike_nodes *ns, int *counts, int *displs);
/** Home step: take the records from other ranks, then integrate progress up to @p end. */
void dike_nodes_home_advance(dike_nodes *ns, const dike_jrec *in, size_t nin, dike_time end);
/** Reports produced since the last call (the caller sends them, then calls dike_nodes_clear_reports). */
const dike_nrep *dike_nodes_reports(const dike_nodes *ns, size_t *n);
void dike_nodes_clear_reports(dike_nodes *ns);
/** Earliest time this rank has something to do (an action, a node event, a completion). */
dike_time dike_nodes_next_time(dike_nodes *ns);
/** End of the run: apply every action still queued (the last releases) and close the samples at
 *  @p last (the coordinator's last event). */
void dike_nodes_finish(dike_nodes *ns, dike_time last);
/** The block's samples would have passed output.timeseries_max_gib: sampling stopped, and the run
 *  must end with an error (emulate.c). */
int dike_nodes_samples_full(const dike_nodes *ns);
/** Per-node samples (output.node_timeseries_s): *nsamples rows of the block's nodes each. */
void dike_nodes_samples(const dike_nodes *ns, size_t *nsamples, const uint16_t **busy,
                        const float **factor, const uint8_t **up);
/** This rank hosts (or will host, by a queued start) a slice whose home is another rank: only then
 *  can its owner step produce records for other ranks. */
int dike_nodes_may_send_remote(const dike_nodes *ns);
/** Checkpoints (between windows only): this rank's whole node-side state as bytes of this build
 *  (malloc'd, *len bytes). */
char *dike_nodes_save(dike_nodes *ns, size_t *len);
/** Restore what dike_nodes_save wrote, into a dike_nodes just made by dike_nodes_new for the same
 *  rank of the same layout. Returns NULL, or what is wrong with the bytes. */
const char *dike_nodes_load(dike_nodes *ns, const char *p, size_t len);
/** The parts @p blobs (one per old rank, @p nold of them) are one per rank of @p mine's layout,
 *  each holding that rank's block: they can be loaded as they are. Otherwise (another number of
 *  ranks, or the same number cut differently, e.g. under another engine.coordinator_owns_nodes)
 *  they go through dike_nodes_relayout. */
int dike_nodes_parts_fit(const dike_nodes *mine, int nold, char *const *blobs, const size_t *lens);
/** Rank 0, resuming on another number of ranks or layout: the parts @p blobs (one per old rank, @p nold of
 *  them) redistributed over @p mine's layout — each node's state, rack and queued actions to its
 *  new owner, each run to the owner of its gang's first node. Returns one malloc'd part per new
 *  rank (lengths in *out_lens), or NULL with *bad saying what is wrong with the parts. The
 *  node-side event counters start again from 0. */
char **dike_nodes_relayout(dike_nodes *mine, int nold, char *const *blobs, const size_t *lens,
                           size_t **out_lens, const char **bad);
/** Counters for /perf: node-side events processed. */
uint64_t dike_nodes_events(const dike_nodes *ns);

/** output.window_bound: charge the owner and home steps' work to racks in @p wp (winprof.h);
 *  NULL stops it. */
void dike_nodes_window_bound(dike_nodes *ns, struct dike_winprof *wp);
/** The end of a window whose coordinator part took @p coord_seconds (for the window bound). */
void dike_nodes_window_end(dike_nodes *ns, double coord_seconds);

#endif
