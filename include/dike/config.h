/* Run configuration: INI file (inih) + --set overrides, every key with a documented default. */
#ifndef DIKE_CONFIG_H
#define DIKE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include "dike/base.h"

#define DIKE_STR_MAX 1024

/* ---- keys declared outside this layer: the options of a policy or a placement ----
 * A policy (or placement) lists its keys in a table of dike_option rows over a params struct of
 * its own; its registry places that struct in dike_config, and the config layer reads, checks,
 * prints and documents the keys like its own, in section [<policy name>]. */

/** Room for every policy's (placement's) params struct together, bytes: built-in ones that do not
 *  fit stop the program with dike_fatal (a programming error, seen at the first run); a registered
 *  one is refused by dike_policy_register / dike_placement_register. */
#define DIKE_POLICY_PARAMS_BYTES 4096
#define DIKE_PLACEMENT_PARAMS_BYTES 1024

/** Longest time in seconds a key may hold: converts to microseconds without overflow, with room to
 *  add such times up. */
#define DIKE_SECONDS_MAX 1e9

/** Value type of a key; the field it fills is int64_t, double, bool or char[size]. */
typedef enum dike_opt_type { DIKE_OPT_INT, DIKE_OPT_DOUBLE, DIKE_OPT_BOOL, DIKE_OPT_STRING } dike_opt_type;

/** Extra check of a string value: 0, or DIKE_EINVAL with the reason in @p why (no key name, no
 *  value: the caller adds "file:line: [section] key: " and " (got '...')"). */
typedef int (*dike_opt_check_fn)(const char *value, char *why, size_t whylen);

/** Allowed numeric range: [lo, hi], or (lo, hi] when lo_open; infinite bounds mean none. */
typedef struct dike_opt_range {
    double lo, hi;   /**< bounds */
    bool lo_open;    /**< lo itself is not allowed */
    const char *why; /**< why the bound is what it is, or NULL (said in the message) */
} dike_opt_range;

#define DIKE_OPT_ANY {-INFINITY, INFINITY, false, NULL}
#define DIKE_OPT_AT_LEAST(lo, hi) {(lo), (hi), false, NULL}
#define DIKE_OPT_ABOVE(lo, hi) {(lo), (hi), true, NULL}
/** Offset and size of field @p f of params struct @p T, for a dike_option row. */
#define DIKE_OPT_FIELD(T, f) offsetof(T, f), sizeof(((T *)0)->f)

/** One key of a policy or placement. Tables end with a row whose name is NULL. */
typedef struct dike_option {
    const char *name;        /**< key inside the section (the policy's or placement's name) */
    dike_opt_type type;      /**< value type */
    size_t offset;           /**< field in the params struct (DIKE_OPT_FIELD) */
    size_t size;             /**< size of that field (strings: buffer size, with the NUL) */
    const char *def;         /**< default, as text (parsed like any other value) */
    dike_opt_range range;    /**< numeric keys: allowed range */
    dike_opt_check_fn check; /**< string keys: check of the value, or NULL */
    const char *doc;         /**< one line for config-reference and docs/config.md, with units */
} dike_option;

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
    char scheduler_placement[64];        /**< placement name, see list-policies */
    double scheduler_round_s;            /**< round length for time-sharing policies, s */
    double scheduler_preemption_cost_s;  /**< checkpoint + restore cost paid on every resume, s (GPUs held) */
    bool scheduler_backfill;             /**< fifo/sjf: let later jobs fill in when the head does not fit */
    char scheduler_duration_knowledge[16]; /**< what policies know of job lengths: "oracle", "noisy", "none" */
    double scheduler_duration_error_sigma; /**< noisy: sigma of the lognormal factor on the estimate */

    /* [tenants] */
    char tenants_weights[DIKE_STR_MAX];  /**< "equal", "demand", "file:PATH" or "name:weight,..." (unlisted = 1) */

    /* [faults] */
    double faults_mtbf_s;                /**< mean time between failures per node, s; 0 = off */
    double faults_mttr_s;                /**< mean time to repair, s */
    double faults_checkpoint_interval_s; /**< progress between checkpoints of a running job, s */
    double faults_stall_failures_per_node; /**< end a run that cannot finish after this many failures
                                                per node without progress; 0 = never */

    /* [metrics] */
    char metrics_window[128];            /**< "" (whole run only), "jobs:FIRST-LAST" or "time:T0-T1" (s) */

    /* [run] */
    int64_t run_seed;            /**< seed of every random stream */
    char run_out[DIKE_STR_MAX];  /**< output HDF5 path */
    double run_checkpoint_every_s;      /**< simulated seconds between checkpoints, 0 = on signal only */
    double run_checkpoint_wall_s;       /**< wall seconds between checkpoints, 0 = off */
    char run_checkpoint[DIKE_STR_MAX];  /**< checkpoint path ("" = run_out + ".ckpt.h5") */

    /* [output] */
    double output_timeseries_interval_s; /**< sampling interval of /timeseries, s */
    double output_timeseries_max_gib;    /**< the most /timeseries may hold in memory, GiB */
    double output_progress_interval_s;   /**< wall seconds between progress lines (not a terminal), 0 = off */

    /* [engine] */
    int64_t engine_window_actions;         /**< actions buffered by the coordinator before a window ends */
    int64_t engine_entitle_tree_tenants;   /**< tenants from which the entitlements use a treap */
    char engine_coordinator_owns_nodes[16];/**< "auto" (1-2 ranks, or emulating), "true", "false" */
    bool engine_run_ahead;               /**< emulating mode: the coordinator decides its own events
                                              that emit no action without a window */
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
    bool output_window_bound;              /**< print the window bound (1 rank, emulating mode) */
    double output_node_timeseries_s;       /**< sampling interval of /node_timeseries, s; 0 = off */

    /* Options declared by policies and placements ([las], [themis], [dike], ...): each one's own
     * params struct, at the offset its registry gives it (dike_policy_params,
     * dike_placement_params). Plain bytes, so equal values are still equal bytes. */
    _Alignas(16) unsigned char policy_params[DIKE_POLICY_PARAMS_BYTES];      /**< policies' options */
    _Alignas(16) unsigned char placement_params[DIKE_PLACEMENT_PARAMS_BYTES]; /**< placements' options */

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

/** The value of key [@p section] @p name in @p c as text (as in dike_config_to_ini, paths not made
 *  absolute): 0, or DIKE_EINVAL if there is no such key (for tests and tools that cannot see a
 *  policy's params struct). */
int dike_config_get(const dike_config *c, const char *section, const char *name, char *buf, size_t n);

/** Print the key reference (section, key, default, description) as a Markdown table. */
void dike_config_print_reference(FILE *out);

#endif
