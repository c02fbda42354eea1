/* Run configuration: INI file (inih) + --set overrides, every key with a documented default. */
#ifndef DIKE_CONFIG_H
#define DIKE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "dike/base.h"

#define DIKE_STR_MAX 1024

typedef struct dike_config {
    /* [cluster] */
    int64_t cluster_nodes;           /**< number of nodes */
    int64_t cluster_gpus_per_node;   /**< GPUs per node */
    int64_t cluster_nodes_per_rack;  /**< nodes per rack (racks are contiguous node ranges) */
    char cluster_gpu_types[DIKE_STR_MAX];  /**< "type:count,..." node counts per GPU type, in node order; "" = all "v100" */
    char cluster_gpu_speeds[DIKE_STR_MAX]; /**< "type:speed,..." speed relative to the reference type; unlisted = 1 */
    double cluster_locality_rack;       /**< rate factor when a gang spans nodes of one rack but could fit on one node */
    double cluster_locality_cross_rack; /**< rate factor when a gang spans racks but could fit in one rack */
    char cluster_nodes_file[DIKE_STR_MAX]; /**< node list CSV (columns gpu, model); "" = nodes x gpus_per_node */
    char cluster_throughput[16];        /**< throughput table for jobs with a model class: "gavel" or "none" */

    /* [workload] */
    char workload_trace[DIKE_STR_MAX];        /**< trace file; "" = synthetic workload */
    char workload_trace_format[64];           /**< "auto" (from the header) or a format name */
    bool workload_skip_invalid;               /**< drop and count invalid rows instead of failing */
    double workload_start_s;                  /**< trace: keep jobs submitted at or after this, s since the first submit */
    double workload_end_s;                    /**< trace: keep jobs submitted before this, s since the first submit; 0 = no end */
    int64_t workload_first_job;               /**< trace: keep jobs from this index (0-based, submit order) */
    int64_t workload_last_job;                /**< trace: keep jobs up to this index, inclusive; -1 = the last */
    double workload_time_scale;               /**< trace: factor on inter-arrival times (< 1 = denser) */
    double workload_trace_load;               /**< trace: replay at this offered load by scaling inter-arrival times; 0 = as recorded */
    char workload_model_assignment[64];       /**< jobs without a model class: "none", "uniform" or a class name */
    int64_t workload_jobs;                    /**< synthetic: number of jobs */
    double workload_load;                     /**< synthetic: offered load (GPU demand / cluster GPUs) */
    int64_t workload_tenants;                 /**< synthetic: number of tenants */
    double workload_tenant_skew;              /**< synthetic: Zipf exponent of tenant popularity (0 = uniform) */
    double workload_duration_median_s;        /**< synthetic: median job duration, s */
    double workload_duration_sigma;           /**< synthetic: sigma of log(duration) (lognormal) */
    double workload_duration_max_s;           /**< synthetic: durations are capped here, s */
    char workload_gpu_mix[DIKE_STR_MAX];      /**< synthetic: "gpus:weight,..." GPU-count mix */

    /* [scheduler] */
    char scheduler_policy[64];           /**< policy name, see list-policies */
    char scheduler_placement[64];        /**< placement name: pack, spread */
    double scheduler_round_s;            /**< round length for time-sharing policies, s */
    double scheduler_preemption_cost_s;  /**< checkpoint + restore cost paid on every resume, s (GPUs held) */
    bool scheduler_backfill;             /**< fifo/sjf: let later jobs fill in when the head does not fit */
    char scheduler_duration_knowledge[16]; /**< what policies know of job lengths: "oracle", "noisy", "none" */
    double scheduler_duration_error_sigma; /**< noisy: sigma of the lognormal factor on the estimate */

    /* [tenants] */
    char tenants_weights[DIKE_STR_MAX];  /**< "equal", "demand", "file:PATH" or "name:weight,..." (unlisted = 1) */

    /* [las] */
    char las_thresholds_gpu_s[DIKE_STR_MAX]; /**< queue thresholds on attained service, GPU-s */
    double las_promote_knob;                 /**< starvation promotion knob K, 0 = off */

    /* [themis] */
    double themis_fairness_knob;         /**< f in [0, 1] */

    /* [dike] */
    double dike_fairness_weight;         /**< score = w x fairness + (1 - w) x efficiency */
    double dike_hysteresis;              /**< score margin needed to preempt */
    double dike_min_lease_s;             /**< minimum run before preemption, s */

    /* [faults] */
    double faults_mtbf_s;                /**< mean time between failures per node, s; 0 = off */
    double faults_mttr_s;                /**< mean time to repair, s */
    double faults_checkpoint_interval_s; /**< progress between checkpoints of a running job, s */

    /* [metrics] */
    char metrics_window[128];            /**< "" (whole run only), "jobs:FIRST-LAST" or "time:T0-T1" (s) */

    /* [run] */
    int64_t run_seed;            /**< seed of every random stream */
    char run_out[DIKE_STR_MAX];  /**< output HDF5 path */
    double run_checkpoint_every_s;      /**< simulated seconds between checkpoints, 0 = on signal only */
    char run_checkpoint[DIKE_STR_MAX];  /**< checkpoint path ("" = run_out + ".ckpt.h5") */

    /* [output] */
    double output_timeseries_interval_s; /**< sampling interval of /timeseries, s */
    double output_progress_interval_s;   /**< wall seconds between progress lines (not a terminal), 0 = off */

    /* [engine] */
    int64_t engine_window_actions;         /**< actions buffered by the coordinator before a window ends */
    char engine_coordinator_owns_nodes[16];/**< "auto" (yes for 1-2 ranks), "true", "false" */
    int64_t engine_inject_fatal_rank;      /**< testing: this rank fails in its first window, -1 = none */
    double engine_inject_stop_s;           /**< testing: stop (checkpoint first) at this sim time, 0 = never */

    /* Node models and node-side progress (docs/models.md, docs/architecture.md#two-modes);
     * one block so that it merges apart from other new keys. */
    char node_model_progress[16];          /**< who tracks job progress: "auto" (the nodes when a node
                                                model is on or decision_latency_s > 0), "coordinator", "nodes" */
    double node_model_interference;        /**< step-time stretch per co-located job, fraction; 0 = off */
    char node_model_network[8];            /**< "off" or "rack": cross-rack gangs share rack uplinks */
    double node_model_gpu_gbps;            /**< network: bandwidth one GPU of a cross-rack gang uses
                                                while it communicates, Gb/s */
    double node_model_slowdown_mtbf_s;     /**< mean time between slowdown episodes per node, s; 0 = off */
    double node_model_slowdown_duration_s; /**< length of one slowdown episode, s */
    double node_model_slowdown_factor;     /**< speed factor of a node during an episode, (0, 1] */
    double cluster_rack_uplink_gbps;       /**< network = rack: capacity of each rack's uplink, Gb/s */
    double scheduler_decision_latency_s;   /**< time from a decision to its effect on the nodes, s */
    double output_node_timeseries_s;       /**< sampling interval of /node_timeseries, s; 0 = off */

    /* Not keys (last, so that the keys' bytes end at offsetof(dike_config, tenants_weights_at)):
     * where a value was set, for the messages of checks that need the workload. Two configs with
     * the same values are equal up to here; these record only their history. */
    char tenants_weights_at[DIKE_STR_MAX]; /**< where tenants_weights was set ("exp.ini:7", "--set '...'");
                                                "" = the default or set by hand */
    char cross_at[16][160]; /**< where each key of a cross-field check was set (config.c's
                                 cross_keys, same order); "" = the default or set by hand */
} dike_config;

/** Bytes of dike_config that hold key values: equal values, equal bytes (compare with memcmp). */
#define DIKE_CONFIG_KEY_BYTES offsetof(dike_config, tenants_weights_at)

/** Fill every field with its documented default. */
void dike_config_defaults(dike_config *c);

/** Read an INI file over the current values. Unknown section/key, malformed value: error naming
 *  "file:line: [section] key: reason". */
int dike_config_load_file(dike_config *c, const char *path, dike_err *e);

/** As dike_config_load_file, from INI text in memory (e.g. the resolved configuration stored in an
 *  output or a checkpoint); @p origin names it in messages. */
int dike_config_load_text(dike_config *c, const char *text, const char *origin, dike_err *e);

/** Apply one "section.key=value" assignment; @p origin names it in messages (e.g. "--set"). */
int dike_config_set(dike_config *c, const char *assignment, const char *origin, dike_err *e);

/** Check cross-key constraints (positive sizes, probabilities in range, known names). */
int dike_config_validate(const dike_config *c, dike_err *e);

/** Resolved configuration as INI text (every key, final values); caller frees. */
char *dike_config_to_ini(const dike_config *c);

/** Print the key reference (section, key, default, description) as a Markdown table. */
void dike_config_print_reference(FILE *out);

#endif
