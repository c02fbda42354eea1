/* What a run produces: the rows and attributes of the HDF5 file (SPEC §7), filled by rank 0
 * (job-level data) and by every rank (its node block and its perf row). */
#ifndef DIKE_RESULTS_H
#define DIKE_RESULTS_H

#include <mpi.h>
#include <stdint.h>
#include "dike/base.h"
#include "dike/cluster.h"

#define DIKE_NAME_MAX 64

/** One row of /jobs. Times in seconds. */
typedef struct dike_job_record {
    int64_t job_id;       /**< trace job id */
    uint32_t tenant;      /**< tenant index (see /tenants) */
    uint32_t num_gpus;    /**< gang size */
    double submit_time;   /**< s */
    double start_time;    /**< first start, s (-1 if never started) */
    double finish_time;   /**< s (-1 if not finished) */
    double duration;      /**< s, on the best placement of the reference type */
    double jct;           /**< finish - submit, s */
    double queue_delay;   /**< first start - submit, s */
    double t_ideal;       /**< Themis ideal time, s */
    double rho;           /**< jct / t_ideal */
    double run_time;      /**< s with GPUs held (sum over all runs, preemption cost included) */
    uint32_t preemptions; /**< times the job was preempted */
    uint32_t migrations;  /**< resumes on a different set of nodes */
    uint32_t restarts;    /**< restarts after a node failure killed it */
    double lost_work;     /**< GPU-seconds of progress lost to failures (since the last checkpoint) */
    char gpu_type[DIKE_GPU_TYPE_NAME]; /**< GPU type of its last placement ("" if never started) */
} dike_job_record;

/** One row of /tenants. */
typedef struct dike_tenant_record {
    uint32_t tenant;             /**< tenant index */
    char name[DIKE_NAME_MAX];    /**< name from the trace */
    double weight;               /**< resolved [tenants] weights entry */
    uint32_t jobs;               /**< jobs submitted */
    uint32_t finished;           /**< jobs finished */
    double gpu_seconds;          /**< allocated GPU-seconds */
    double avg_jct;              /**< s */
    double mean_rho;             /**< mean rho of finished jobs */
    double fairness_ratio;       /**< x_u = sum t_ideal / sum jct (Jain's input) */
    double weight_share;         /**< weight / sum of all tenants' weights */
    double avg_gpus;             /**< GPUs held, time average over the makespan */
    double entitlement;          /**< entitled GPUs (water-filling of the GPUs up over active
                                      tenants' demand by weight), time average over the makespan */
    double gpu_share;            /**< share of all allocated GPU-seconds */
    double entitled_share;       /**< share of all entitled GPU-seconds */
} dike_tenant_record;

/** /summary attributes. */
typedef struct dike_summary {
    uint64_t jobs, finished;
    double avg_jct, p50_jct, p95_jct, p99_jct;   /**< s */
    double makespan;                             /**< s */
    double avg_queue_delay;                      /**< s */
    double mean_rho, p99_rho, max_rho;
    double unfair_fraction;                      /**< fraction of finished jobs with rho > 1 */
    double jain;                                 /**< Jain's index over tenants */
    double utilization;                          /**< allocated GPU-s / (G x makespan) */
    double effective_utilization;                /**< rate-weighted GPU-s / (G x makespan) */
    uint64_t preemptions, migrations;
    double allocated_gpu_seconds;                /**< s x GPUs */
    uint64_t restarts;                           /**< restarts after node failures */
    double lost_work;                            /**< GPU-seconds of progress lost to failures */
    double goodput;                              /**< 1 - lost_work / allocated_gpu_seconds */
    uint64_t gpus;                               /**< cluster GPUs G of utilization; in memory only,
                                                      for the metrics over a window (not in /summary) */
} dike_summary;

/** /timeseries: n samples; tenant_gpus is n x ntenants, row-major. */
typedef struct dike_timeseries {
    size_t n, cap;
    size_t max;            /**< the most samples its buffers grow to (0: no bound; the caller stops
                                pushing there: coord.c) */
    uint32_t ntenants;
    double *time;          /**< s */
    uint32_t *busy_gpus;
    uint32_t *queued;
    uint32_t *running;
    uint32_t *tenant_gpus; /**< [n][ntenants] */
} dike_timeseries;

/** One row of /nodes, owned by the node's rank. */
typedef struct dike_node_record {
    uint32_t node;            /**< node index */
    uint32_t rack;            /**< rack index */
    char gpu_type[DIKE_GPU_TYPE_NAME]; /**< GPU type */
    double busy_gpu_seconds;  /**< GPU-seconds allocated on this node */
    uint32_t jobs_hosted;     /**< job runs (starts) hosted */
    uint32_t failures;        /**< node failures */
} dike_node_record;

/** One row of /perf, one per rank. */
typedef struct dike_perf_record {
    int32_t rank;
    uint64_t events;        /**< events processed (coordinator events or node actions) */
    uint64_t windows;       /**< collective window rounds */
    uint64_t messages;      /**< point-to-point messages sent (collective contributions count 1) */
    uint64_t bytes_sent;    /**< bytes sent */
    double wall_seconds;    /**< engine wall time (MPI_Init/Finalize excluded) */
    double compute_seconds; /**< time in local events (coordinator events, node actions), decision step excluded */
    double decide_seconds;  /**< time in the policy's decision step (rank 0) */
    double decide_p99_us;   /**< 99th percentile of one decision step, us (rank 0; 1/8-octave bins, upper edge) */
    double comm_seconds;    /**< time in collectives */
    uint64_t decisions;     /**< decision steps run (rank 0) */
    uint32_t nodes_owned;   /**< nodes in this rank's block */
    /* decision-step latency over the timed steps (every 8th; rank 0, 0 elsewhere) */
    uint64_t decide_timed;      /**< decision steps timed */
    double decide_mean_us;      /**< mean of the timed steps, us */
    double decide_p50_us;       /**< median of one step, us (1/8-octave bins, upper edge) */
    double decide_max_us;       /**< slowest timed step, us */
    double active_mean;         /**< active jobs (submitted, not finished) at a timed step, mean */
    uint32_t active_max;        /**< most active jobs at a timed step */
    uint32_t decide_max_active; /**< active jobs at the slowest timed step */
    double node_seconds;        /**< emulating mode: time in the node models and node-side progress
                                     (owner and home steps), part of compute_seconds; 0 otherwise */
    uint64_t remote_records;    /**< emulating mode: slice-factor records sent to another rank's
                                     home (gangs that span ranks) */
    /* emulating mode: where the windows' time went, s (0 otherwise) */
    double owner_seconds;        /**< owner steps (node models), part of node_seconds; the rest
                                      of node_seconds is the home steps */
    double coord_seconds;        /**< rank 0: the coordinator's part of each window (reports in,
                                      its events and decisions, actions out); decide_seconds is
                                      part of it */
    double wait_records_seconds; /**< in the records' exchange (step 1), part of comm_seconds */
    double wait_reports_seconds; /**< in the reports' gather (step 3), part of comm_seconds */
    double wait_actions_seconds; /**< in the actions' scatter (step 4), part of comm_seconds */
    /* where the process's time went, s */
    double startup_seconds; /**< MPI_Init of this process (its first run only; 0 when not timed) */
    double read_seconds;    /**< set-up before the engine: checks, cluster, reading and hashing the
                                 trace (or generating the workload), coordinator and node state */
    double output_seconds;  /**< the results (metrics) and writing the HDF5 file; not in the
                                 file's /perf (written before the file is complete), only in the
                                 caller's copy and the summary */
} dike_perf_record;

/** One row of /decide: the timed decision steps taken while the active jobs were in one octave. */
typedef struct dike_decide_record {
    uint64_t active_lo;     /**< fewest active jobs (submitted, not finished) of the octave */
    uint64_t active_hi;     /**< most active jobs of the octave (inclusive) */
    double active_mean;     /**< mean active jobs over the octave's timed steps */
    uint64_t timed;         /**< timed steps in the octave */
    double mean_us;         /**< mean of one step, us */
    double p50_us;          /**< median, us (1/8-octave bins, upper edge) */
    double p99_us;          /**< 99th percentile, us (same bins) */
    double max_us;          /**< slowest step, us */
} dike_decide_record;

/** Root attributes. */
typedef struct dike_run_meta {
    char version[32];
    char policy[64];
    char placement[64];
    int64_t seed;
    int32_t ranks;
    char *config_text;              /**< resolved configuration, INI */
    char metrics_window[128];       /**< the run's metrics.window ("": none): /summary/window */
    char trace_path[1024];          /**< "synthetic" for generated workloads */
    char trace_sha256[65];
    double wall_seconds;            /**< whole run, s */
    char builds[DIKE_BUILDS_MAX];   /**< the builds that ran the emulation, comma-separated, the
                                         writer's last ("": the writer's build alone) */
} dike_run_meta;

/** Everything rank 0 writes. */
typedef struct dike_results {
    dike_run_meta meta;
    dike_job_record *jobs; size_t njobs;
    dike_tenant_record *tenants; size_t ntenants;
    dike_timeseries ts;
    dike_summary summary;
    dike_perf_record *perf; size_t nperf; /**< every rank's perf row (rank 0 gathers them) */
    dike_decide_record *decide; size_t ndecide; /**< decision latency by active jobs (octaves with samples) */
    /** The nodes of each job's last placement (/job_nodes): job i's are node_ids[node_off[i] ..
     *  node_off[i + 1]), ascending; none for a job that never started. */
    uint64_t *node_off;   /**< njobs + 1 offsets */
    uint32_t *node_ids;   /**< node_off[njobs] node indices */
    char *window_bound;   /**< output.window_bound: its table for the summary, else NULL */
} dike_results;

/** Bytes in a GiB (output.timeseries_max_gib). */
#define DIKE_GIB (1024.0 * 1024 * 1024)

/** Bytes of one /timeseries sample in memory: time, busy_gpus, queued, running and a GPU count
 *  per tenant (output.timeseries_max_gib bounds their sum: run.c at start-up, coord.c during the
 *  run). */
static inline double dike_timeseries_row_bytes(uint32_t ntenants)
{
    return 8.0 + 3 * 4.0 + 4.0 * ntenants;
}

void dike_timeseries_init(dike_timeseries *ts, uint32_t ntenants);
/** Append one sample; returns a pointer to its ntenants tenant_gpus slots. */
uint32_t *dike_timeseries_push(dike_timeseries *ts, double t, uint32_t busy, uint32_t queued,
                               uint32_t running);
/** The same with the tenant_gpus slots copied from @p tenant_gpus (ntenants values; NULL: zeros). */
uint32_t *dike_timeseries_push_row(dike_timeseries *ts, double t, uint32_t busy, uint32_t queued,
                                   uint32_t running, const uint32_t *tenant_gpus);
void dike_timeseries_free(dike_timeseries *ts);
void dike_results_free(dike_results *r);

/** Bytes of one node's sample in memory (busy GPUs, factor, up): output.timeseries_max_gib bounds
 *  a rank's (engine/nodes.c, run.c). */
#define DIKE_NODE_SAMPLE_BYTES (sizeof(uint16_t) + sizeof(float) + sizeof(uint8_t))

/** Per-node samples of one rank's block (output.node_timeseries_s), written as /node_timeseries. */
typedef struct dike_node_samples {
    size_t nsamples;       /**< samples, the same on every rank (sample k is at k x interval_s) */
    double interval_s;     /**< sampling interval, s */
    const uint16_t *busy;  /**< [sample][node of the block]: GPUs allocated */
    const float *factor;   /**< [sample][node]: speed factor of the node's jobs (0 = down) */
    const uint8_t *up;     /**< [sample][node]: 1 = up, 0 = failed */
} dike_node_samples;

/** Samples for the next dike_h5_write of this rank (NULL or 0 samples = no /node_timeseries); every
 *  rank of the write must set the same number of samples. Cleared by dike_h5_write. */
void dike_h5_set_node_samples(const dike_node_samples *s);

/** Write the output file, collectively over @p comm. Rank 0 passes @p r (others NULL); every rank
 *  passes its own node rows (node indices contiguous, may be 0 rows) and its perf row. The file is
 *  written as "<path>.tmp-<pid>" and renamed to @p path only when complete; on any failure it is
 *  removed. Returns the same status on every rank. @p total_nodes = rows of /nodes. */
int dike_h5_write(const char *path, MPI_Comm comm, const dike_results *r,
                  const dike_node_record *nodes, size_t nnodes, uint64_t total_nodes,
                  const dike_perf_record *perf, dike_err *e);

/** Check early that @p path can be created (its folder exists and is writable); no file is left. */
int dike_h5_check_writable(const char *path, dike_err *e);

#endif
