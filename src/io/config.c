/* Run configuration. One table of keys (below) drives everything: defaults, INI parsing, --set,
 * range checks, the resolved INI text and the Markdown reference. Adding a key is one table row and
 * one struct member; no code elsewhere names a key. */
#define _DEFAULT_SOURCE /* realpath */
#include "dike/config.h"
#include "dike/metrics.h"
#include "dike/sched.h"

#include <errno.h>
#include <ini.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <strings.h>
#include <unistd.h>

#include "dike/tenants.h"
#include "dike/throughput.h"
#include "base/parse.h"

/* The config layer's own keys use the same row types as the keys policies and placements declare
 * (dike_option, include/dike/config.h). */
typedef dike_opt_type key_type;
#define KEY_INT DIKE_OPT_INT
#define KEY_DOUBLE DIKE_OPT_DOUBLE
#define KEY_BOOL DIKE_OPT_BOOL
#define KEY_STRING DIKE_OPT_STRING
typedef dike_opt_check_fn check_fn;
typedef dike_opt_range key_range;

typedef struct key_def {
    const char *section;  /**< INI section */
    const char *name;     /**< key inside the section */
    key_type type;        /**< value type */
    size_t offset;        /**< offset of the field in dike_config */
    size_t size;          /**< size of the field (strings: buffer size) */
    const char *def;      /**< default, as text (parsed like any other value) */
    key_range range;      /**< numeric keys: allowed range */
    check_fn check;       /**< string keys: syntax check, or NULL */
    const char *desc;     /**< one line for the reference, with units */
} key_def;

#define SECONDS_MAX DIKE_SECONDS_MAX

#define FIELD(f) offsetof(dike_config, f), sizeof(((dike_config *)0)->f)
#define ANY DIKE_OPT_ANY
#define AT_LEAST(lo, hi) DIKE_OPT_AT_LEAST(lo, hi)
#define ABOVE(lo, hi) DIKE_OPT_ABOVE(lo, hi)
/* Periods that become a number of microseconds (the emulator's time step): below half a
 * microsecond they would round to 0, so the bound is one step. */
#define PERIOD_S {1e-6, SECONDS_MAX, false, "the emulator counts time in whole microseconds"}

static int check_gpu_types(const char *v, char *why, size_t n);
static int check_gpu_speeds(const char *v, char *why, size_t n);
static int check_gpu_mix(const char *v, char *why, size_t n);
static int check_name(const char *v, char *why, size_t n);
static int check_policy(const char *v, char *why, size_t n);
static int check_placement(const char *v, char *why, size_t n);
static int check_auto_bool(const char *v, char *why, size_t n);
static int check_throughput(const char *v, char *why, size_t n);
static int check_model_assignment(const char *v, char *why, size_t n);
static int check_duration_knowledge(const char *v, char *why, size_t n);
static int check_weights(const char *v, char *why, size_t n);
static int check_window(const char *v, char *why, size_t n);
static int check_progress(const char *v, char *why, size_t n);
static int check_network(const char *v, char *why, size_t n);

static const key_def core_keys[] = {
    {"cluster", "nodes", KEY_INT, FIELD(cluster_nodes), "64", AT_LEAST(1, 4194304), NULL,
     "number of nodes"},
    {"cluster", "gpus_per_node", KEY_INT, FIELD(cluster_gpus_per_node), "8", AT_LEAST(1, 65535), NULL,
     "GPUs per node"},
    {"cluster", "nodes_per_rack", KEY_INT, FIELD(cluster_nodes_per_rack), "32", AT_LEAST(1, UINT32_MAX),
     NULL, "nodes per rack; racks are contiguous node ranges, the last one may be short"},
    {"cluster", "gpu_types", KEY_STRING, FIELD(cluster_gpu_types), "", ANY, check_gpu_types,
     "GPU types as `type:nodes,...` in node order, counts summing to `nodes`; empty = all `v100`"},
    {"cluster", "gpu_speeds", KEY_STRING, FIELD(cluster_gpu_speeds), "", ANY, check_gpu_speeds,
     "throughput relative to the reference type as `type:speed,...`; unlisted types run at 1"},
    {"cluster", "locality_rack", KEY_DOUBLE, FIELD(cluster_locality_rack), "0.4246", ABOVE(0, 1), NULL,
     "rate factor of a gang spread over nodes of one rack that could fit on one node (Gavel V100 "
     "median unconsolidated/consolidated throughput, 57 model-scale pairs)"},
    {"cluster", "locality_cross_rack", KEY_DOUBLE, FIELD(cluster_locality_cross_rack), "0.3821",
     ABOVE(0, 1), NULL,
     "rate factor of a gang spread over racks that could fit in one rack (0.9 x `locality_rack`, "
     "a project assumption)"},
    {"cluster", "nodes_file", KEY_STRING, FIELD(cluster_nodes_file), "", ANY, NULL,
     "node list CSV with columns `gpu` (GPUs per node) and `model` (GPU type), e.g. Alibaba's openb "
     "node list; nodes without GPUs are left out, nodes are grouped by type in order of first "
     "appearance; replaces `nodes`, `gpus_per_node` and `gpu_types`; empty = `nodes` x `gpus_per_node`"},
    {"cluster", "throughput", KEY_STRING, FIELD(cluster_throughput), "gavel", ANY, check_throughput,
     "speed of jobs with a model class: `gavel` (table derived from Gavel's measurements, "
     "docs/throughput.md) or `none` (speed(type) x locality for every job)"},

    {"workload", "trace", KEY_STRING, FIELD(workload_trace), "", ANY, NULL,
     "trace file to replay; empty = synthetic workload from the keys below"},
    {"workload", "trace_format", KEY_STRING, FIELD(workload_trace_format), "auto", ANY, check_name,
     "format of `trace`: `auto` (from the header), `dike`, `philly-vc`, `rfold`, `elasticflow`, "
     "`gen-parallel`, `openb` (docs/trace-format.md)"},
    {"workload", "skip_invalid", KEY_BOOL, FIELD(workload_skip_invalid), "false", ANY, NULL,
     "drop and count invalid trace rows (zero duration, too large, duplicate id, malformed) instead "
     "of stopping at the first one"},
    {"workload", "start_s", KEY_DOUBLE, FIELD(workload_start_s), "0", AT_LEAST(0, SECONDS_MAX), NULL,
     "trace window: keep jobs submitted at or after this time, s since the trace's first submit"},
    {"workload", "end_s", KEY_DOUBLE, FIELD(workload_end_s), "0", AT_LEAST(0, SECONDS_MAX), NULL,
     "trace window: keep jobs submitted before this time, s since the trace's first submit; 0 = no end"},
    {"workload", "first_job", KEY_INT, FIELD(workload_first_job), "0", AT_LEAST(0, 1e12), NULL,
     "trace window: keep jobs from this index on (0-based, in submit order)"},
    {"workload", "last_job", KEY_INT, FIELD(workload_last_job), "-1", AT_LEAST(-1, 1e12), NULL,
     "trace window: keep jobs up to this index, inclusive; -1 = up to the last"},
    {"workload", "time_scale", KEY_DOUBLE, FIELD(workload_time_scale), "1", ABOVE(0, 1e6), NULL,
     "trace: multiply inter-arrival times by this (0.5 = twice the arrival rate); durations unchanged"},
    {"workload", "trace_load", KEY_DOUBLE, FIELD(workload_trace_load), "0", AT_LEAST(0, 1e6), NULL,
     "trace: replay at this offered load (GPU-seconds demanded per GPU-second of the cluster over the "
     "submit span) by scaling inter-arrival times; 0 = as recorded; excludes `time_scale`"},
    {"workload", "model_assignment", KEY_STRING, FIELD(workload_model_assignment), "none", ANY,
     check_model_assignment,
     "model class of jobs that have none: `none`, `uniform` (seeded draw per job among the "
     "throughput-table classes measured at its GPU count) or one class name for all"},
    {"workload", "jobs", KEY_INT, FIELD(workload_jobs), "1000", AT_LEAST(1, 1e8), NULL,
     "synthetic: number of jobs"},
    {"workload", "load", KEY_DOUBLE, FIELD(workload_load), "0.8", ABOVE(0, INFINITY), NULL,
     "synthetic: offered load, GPU-seconds demanded per GPU-second of the cluster"},
    {"workload", "tenants", KEY_INT, FIELD(workload_tenants), "4", AT_LEAST(1, 1e6), NULL,
     "synthetic: number of tenants, named t0, t1, ..."},
    {"workload", "tenant_skew", KEY_DOUBLE, FIELD(workload_tenant_skew), "1.0", AT_LEAST(0, 100), NULL,
     "synthetic: tenant k (1-based) submits with weight 1/k^skew; 0 = uniform"},
    {"workload", "duration_median_s", KEY_DOUBLE, FIELD(workload_duration_median_s), "1800",
     ABOVE(0, SECONDS_MAX), NULL, "synthetic: median job duration (lognormal), s"},
    {"workload", "duration_sigma", KEY_DOUBLE, FIELD(workload_duration_sigma), "1.8", AT_LEAST(0, 10),
     NULL, "synthetic: standard deviation of ln(duration)"},
    {"workload", "duration_max_s", KEY_DOUBLE, FIELD(workload_duration_max_s), "1209600",
     AT_LEAST(1, SECONDS_MAX), NULL, "synthetic: durations are capped here (default 14 days), s"},
    {"workload", "gpu_mix", KEY_STRING, FIELD(workload_gpu_mix), "1:0.70,2:0.10,4:0.10,8:0.07,16:0.02,32:0.01",
     ANY, check_gpu_mix,
     "synthetic: GPU-count mix as `gpus:weight,...`; weights are normalised, counts above the "
     "largest GPU pool are dropped"},

    {"scheduler", "policy", KEY_STRING, FIELD(scheduler_policy), "fifo", ANY, check_policy,
     "scheduling policy (`dike-emu list-policies`)"},
    {"scheduler", "placement", KEY_STRING, FIELD(scheduler_placement), "pack", ANY, check_placement,
     "placement strategy: `pack`, `spread`, `random`, `topo`, `tree`"},
    {"scheduler", "round_s", KEY_DOUBLE, FIELD(scheduler_round_s), "300", PERIOD_S, NULL,
     "round length of time-sharing policies, s"},
    {"scheduler", "preemption_cost_s", KEY_DOUBLE, FIELD(scheduler_preemption_cost_s), "30",
     AT_LEAST(0, SECONDS_MAX), NULL,
     "checkpoint + restore cost paid on every resume while the GPUs are held, s"},
    {"scheduler", "backfill", KEY_BOOL, FIELD(scheduler_backfill), "false", ANY, NULL,
     "fifo/sjf: let later jobs start when the head of the queue does not fit"},
    {"scheduler", "duration_knowledge", KEY_STRING, FIELD(scheduler_duration_knowledge), "oracle", ANY,
     check_duration_knowledge,
     "what sjf, srtf, themis and dike know of job lengths: `oracle` (the true duration), `noisy` "
     "(duration x exp(sigma Z), Z standard normal from the job's own seeded stream) or `none` "
     "(mean duration of the tenant's finished jobs, else of all finished jobs, else 3600 s; "
     "docs/policies.md)"},
    {"scheduler", "duration_error_sigma", KEY_DOUBLE, FIELD(scheduler_duration_error_sigma), "1.0",
     AT_LEAST(0, 10), NULL,
     "`noisy`: standard deviation of the log of the estimate's error factor (0 = the oracle)"},

    {"tenants", "weights", KEY_STRING, FIELD(tenants_weights), "equal", ANY, check_weights,
     "tenant weights of drf and gandiva-fair (and every run's recorded entitlements), resolved once before the run: "
     "`equal` (every tenant 1; empty means the same), `demand` (the tenant's share of the "
     "workload's GPU-seconds, sum of num_gpus x duration), `file:PATH` (CSV rows `tenant,weight`, "
     "optional header; a relative PATH in a config file is relative to its folder) or "
     "`name:weight,...` (tenants not listed weigh 1); weights are positive and finite, every name "
     "must be a tenant of the workload"},

    /* Here go the keys of every policy, then of every placement, from their own option tables
     * (section = the policy's name: [las], [themis], [dike], ...), in registry order. */
    {NULL, NULL, KEY_INT, 0, 0, NULL, ANY, NULL, NULL},

    {"faults", "mtbf_s", KEY_DOUBLE, FIELD(faults_mtbf_s), "0", AT_LEAST(0, 1e15), NULL,
     "mean time between failures of one node (exponential, seeded per node), s; 0 = no failures"},
    {"faults", "mttr_s", KEY_DOUBLE, FIELD(faults_mttr_s), "3600", ABOVE(0, SECONDS_MAX), NULL,
     "mean time to repair a failed node (exponential), s"},
    {"faults", "checkpoint_interval_s", KEY_DOUBLE, FIELD(faults_checkpoint_interval_s), "1800",
     ABOVE(0, SECONDS_MAX), NULL,
     "running jobs checkpoint after every this much progress; a failure loses the work since the last one, s"},
    {"faults", "stall_failures_per_node", KEY_DOUBLE, FIELD(faults_stall_failures_per_node), "100",
     AT_LEAST(0, 1e12), NULL,
     "end the run with an error (status 2, no output) when this many node failures per node pass while "
     "no job finishes or keeps any work: failures undo every run before its checkpoint, so the run "
     "cannot finish (docs/reliability.md); 0 = never"},

    {"metrics", "window", KEY_STRING, FIELD(metrics_window), "", ANY, check_window,
     "steady-state window: every /summary metric is also computed over it, in /summary/window: "
     "`jobs:FIRST-LAST` (the jobs whose job id is in that range, inclusive) or `time:T0-T1` (the "
     "jobs submitted in [T0, T1), s since the first submit; utilisation over [T0, T1]); empty = "
     "the whole run only (docs/output-schema.md)"},

    {"run", "seed", KEY_INT, FIELD(run_seed), "1", AT_LEAST(0, INFINITY), NULL,
     "seed of every random stream"},
    {"run", "out", KEY_STRING, FIELD(run_out), "dike-emu.h5", ANY, NULL, "output HDF5 file"},
    {"run", "checkpoint_every_s", KEY_DOUBLE, FIELD(run_checkpoint_every_s), "0", AT_LEAST(0, 1e15), NULL,
     "write a checkpoint every this many simulated seconds (0 = only on SIGTERM/SIGUSR1)"},
    {"run", "checkpoint_wall_s", KEY_DOUBLE, FIELD(run_checkpoint_wall_s), "0", AT_LEAST(0, 1e9), NULL,
     "write a checkpoint at the first window boundary after each this many wall-clock seconds since "
     "the run (or resume) began or the last checkpoint was written, and no sooner than nine times "
     "that checkpoint's write time (0 = off); unlike "
     "checkpoint_every_s, its cost is bounded by the wall time, whatever the simulated span; results "
     "do not depend on it"},
    {"run", "checkpoint", KEY_STRING, FIELD(run_checkpoint), "", ANY, NULL,
     "checkpoint file (default: the output path + `.ckpt.h5`)"},

    {"output", "timeseries_interval_s", KEY_DOUBLE, FIELD(output_timeseries_interval_s), "300",
     PERIOD_S, NULL, "sampling interval of /timeseries, s"},
    {"output", "timeseries_max_gib", KEY_DOUBLE, FIELD(output_timeseries_max_gib), "4", AT_LEAST(1e-6, 1e6),
     NULL, "the most /timeseries may hold in memory on rank 0, and /node_timeseries on any one rank, "
     "GiB each: a run whose samples would pass it is refused at start-up (counted over the submits' "
     "span) or ends with an error when it gets there (status 2, no output; docs/reliability.md); "
     "raise it where the memory is, or raise the interval"},
    {"output", "progress_interval_s", KEY_DOUBLE, FIELD(output_progress_interval_s), "10",
     AT_LEAST(0, SECONDS_MAX), NULL,
     "progress on stderr: a live line on a terminal, else one line every this many wall seconds; 0 = off"},

    {"engine", "window_actions", KEY_INT, FIELD(engine_window_actions), "65536", AT_LEAST(1, INT32_MAX),
     NULL, "actions the coordinator buffers before it ends a window"},
    {"engine", "entitle_tree_tenants", KEY_INT, FIELD(engine_entitle_tree_tenants), "256", AT_LEAST(0, INT32_MAX),
     NULL, "a workload of at least this many tenants keeps them in a treap for the entitlements of "
     "/tenants (fewer: a sorted array); the values are the same either way, only the time differs "
     "(docs/performance.md)"},
    {"engine", "inject_stop_s", KEY_DOUBLE, FIELD(engine_inject_stop_s), "0", AT_LEAST(0, 1e15), NULL,
     "testing: behave as if SIGTERM arrived when the simulated time reaches this, s (0 = never)"},
    {"engine", "inject_fatal_rank", KEY_INT, FIELD(engine_inject_fatal_rank), "-1", AT_LEAST(-1, 1e6),
     NULL, "testing: this rank stops with a fatal error in its first window (-1 = none)"},
    {"engine", "coordinator_owns_nodes", KEY_STRING, FIELD(engine_coordinator_owns_nodes), "auto", ANY,
     check_auto_bool, "whether rank 0 also owns nodes: `auto` (yes for 1-2 ranks, and for any number in the "
     "emulating mode), `true`, `false`"},
    {"engine", "run_ahead", KEY_BOOL, FIELD(engine_run_ahead), "true", ANY, NULL,
     "emulating mode: the coordinator decides its own events (arrivals, rounds) that emit no action "
     "before the nodes' next report without a window of their own; results do not depend on it "
     "(docs/architecture.md), only the number of windows"},
    /* node models and node-side progress: docs/models.md */
    {"node_model", "progress", KEY_STRING, FIELD(node_model_progress), "auto", ANY, check_progress,
     "who tracks job progress: `auto` (the node ranks when a node model is on or "
     "scheduler.decision_latency_s > 0), `coordinator` (predicted at the start), `nodes`"},
    {"node_model", "interference", KEY_DOUBLE, FIELD(node_model_interference), "0", AT_LEAST(0, 10), NULL,
     "step-time stretch of a job per other job on one of its nodes (fraction); 0 = off"},
    {"node_model", "network", KEY_STRING, FIELD(node_model_network), "off", ANY, check_network,
     "`off`, or `rack`: gangs spread over racks share each rack's uplink (max-min)"},
    {"node_model", "gpu_gbps", KEY_DOUBLE, FIELD(node_model_gpu_gbps), "25", ABOVE(0, 1e6), NULL,
     "network = rack: bandwidth one GPU of a cross-rack gang uses while communicating, Gb/s"},
    {"node_model", "slowdown_mtbf_s", KEY_DOUBLE, FIELD(node_model_slowdown_mtbf_s), "0",
     AT_LEAST(0, 1e15), NULL, "mean time between slowdown episodes per node, s; 0 = off"},
    {"node_model", "slowdown_duration_s", KEY_DOUBLE, FIELD(node_model_slowdown_duration_s), "600",
     PERIOD_S, NULL, "length of one slowdown episode, s"},
    {"node_model", "slowdown_factor", KEY_DOUBLE, FIELD(node_model_slowdown_factor), "0.5", ABOVE(0, 1),
     NULL, "speed factor of every job on a node during a slowdown episode"},
    {"cluster", "rack_uplink_gbps", KEY_DOUBLE, FIELD(cluster_rack_uplink_gbps), "400", ABOVE(0, 1e9),
     NULL, "node_model.network = rack: capacity of each rack's uplink, Gb/s"},
    {"scheduler", "decision_latency_s", KEY_DOUBLE, FIELD(scheduler_decision_latency_s), "0",
     AT_LEAST(0, 1e6), NULL, "time from a decision to its effect on the nodes (launch latency), s; "
     "the lookahead of the node-side windows"},
    {"output", "node_timeseries_s", KEY_DOUBLE, FIELD(output_node_timeseries_s), "0",
     AT_LEAST(0, SECONDS_MAX), NULL, "sampling interval of /node_timeseries (per node), s; 0 = off"},
    {"output", "window_bound", KEY_BOOL, FIELD(output_window_bound), "false", ANY, NULL,
     "emulating mode, 1 rank: print with the summary what the windows would cost on P ranks if "
     "communication were free (docs/scaling.md)"},
};

#define NCORE (sizeof core_keys / sizeof core_keys[0])

/* --- the whole key table: core keys + the keys of policies and placements ---
 * Built on first use and again whenever a policy or placement was registered since, so every
 * function below sees the keys of every registered policy. NKEYS builds it; each loop over keys[]
 * evaluates NKEYS before it reads keys[0]. */

#define MAX_OPTION_KEYS 128
static key_def table[NCORE + MAX_OPTION_KEYS];
static const key_def *const keys = table;
static size_t nkeys, built_for; /* built_for: policies + placements when it was built */

static bool core_section(const char *section)
{
    for (size_t i = 0; i < NCORE; i++)
        if (core_keys[i].section && strcmp(core_keys[i].section, section) == 0)
            return true;
    return false;
}

/* One option row as a key of dike_config: a programming error in the table stops here, at the
 * first run, with the row named. */
static void add_option(const char *section, const dike_option *o, size_t base, size_t params_size)
{
    char why[256];
    size_t want = o->type == KEY_BOOL ? sizeof(bool) : o->type == KEY_STRING ? o->size : 8;
    if (nkeys == NCORE + MAX_OPTION_KEYS)
        dike_fatal("[%s] %s: more than %d policy and placement keys", section, o->name, MAX_OPTION_KEYS);
    if (check_name(section, why, sizeof why) || core_section(section) || check_name(o->name, why, sizeof why) ||
        o->size != want || (o->type == KEY_STRING && o->size < 2) || o->offset + o->size > params_size ||
        !o->def || !o->doc)
        dike_fatal("[%s] %s: bad option row (section and key names of letters, digits, '-', '_', the "
                   "section not one of the config layer's; an int64_t, double, bool or char[] field "
                   "inside the params struct; a default; a doc)", section, o->name);
    for (size_t i = 0; i < nkeys; i++)
        if (table[i].section && !strcmp(table[i].section, section) && !strcmp(table[i].name, o->name))
            dike_fatal("[%s] %s: declared twice", section, o->name);
    table[nkeys++] = (key_def){section, o->name, o->type, base + o->offset, o->size, o->def, o->range,
                               o->check, o->doc};
}

static size_t registered(void)
{
    size_t n = 0;
    for (const dike_policy *const *p = dike_policy_all(); *p; p++)
        n++;
    for (const dike_placement *const *p = dike_placement_all(); *p; p++)
        n++;
    return n;
}

static size_t key_count(void)
{
    if (nkeys && built_for == registered())
        return nkeys;
    nkeys = 0;
    for (size_t i = 0; i < NCORE; i++) {
        if (core_keys[i].section) {
            table[nkeys++] = core_keys[i];
            continue;
        }
        for (const dike_policy *const *p = dike_policy_all(); *p; p++)
            for (const dike_option *o = (*p)->options; o && o->name; o++)
                add_option((*p)->name, o, offsetof(dike_config, policy_params) +
                           dike_policy_params_offset(*p), (*p)->params_size);
        for (const dike_placement *const *p = dike_placement_all(); *p; p++)
            for (const dike_option *o = (*p)->options; o && o->name; o++)
                add_option((*p)->name, o, offsetof(dike_config, placement_params) +
                           dike_placement_params_offset(*p), (*p)->params_size);
    }
    built_for = registered();
    return nkeys;
}
#define NKEYS key_count()

/* --- string checks --- */

static int check_one_of(const char *v, const char *const *names, size_t k, char *why, size_t n)
{
    for (size_t i = 0; i < k; i++)
        if (strcmp(v, names[i]) == 0)
            return 0;
    size_t off = (size_t)snprintf(why, n, "expected");
    for (size_t i = 0; i < k && off < n; i++)
        off += (size_t)snprintf(why + off, n - off, "%s %s", i ? " or" : "", names[i]);
    return DIKE_EINVAL;
}

static int check_progress(const char *v, char *why, size_t n)
{
    static const char *const names[] = {"auto", "coordinator", "nodes"};
    return check_one_of(v, names, 3, why, n);
}

static int check_network(const char *v, char *why, size_t n)
{
    static const char *const names[] = {"off", "rack"};
    return check_one_of(v, names, 2, why, n);
}

static int check_gpu_types(const char *v, char *why, size_t n)
{
    dike_type_count t[DIKE_MAX_GPU_TYPES];
    size_t cnt;
    return dike_parse_gpu_types(v, t, &cnt, why, n);
}

static int check_gpu_speeds(const char *v, char *why, size_t n)
{
    dike_type_speed t[DIKE_MAX_GPU_TYPES];
    size_t cnt;
    return dike_parse_gpu_speeds(v, t, &cnt, why, n);
}

static int check_gpu_mix(const char *v, char *why, size_t n)
{
    dike_mix_entry m[DIKE__MIX_MAX];
    size_t cnt;
    return dike_parse_gpu_mix(v, m, &cnt, why, n);
}

/* Names of policies, placements and formats are looked up in registries elsewhere; here only their
 * shape is checked, so a typo such as "fifo," is caught with the line that holds it. */
/* Policy and placement names are checked where they are read, so the message names the file and
 * line (the registries list what exists). */
static int check_policy(const char *v, char *why, size_t n)
{
    if (check_name(v, why, n))
        return DIKE_EINVAL;
    if (dike_policy_find(v))
        return 0;
    size_t len = (size_t)snprintf(why, n, "unknown policy (one of:");
    for (const dike_policy *const *p = dike_policy_all(); *p && len < n; p++)
        len += (size_t)snprintf(why + len, n - len, " %s", (*p)->name);
    if (len < n)
        snprintf(why + len, n - len, ")");
    return DIKE_EINVAL;
}

static int check_placement(const char *v, char *why, size_t n)
{
    if (check_name(v, why, n))
        return DIKE_EINVAL;
    if (dike_placement_find(v))
        return 0;
    size_t len = (size_t)snprintf(why, n, "unknown placement (one of:");
    for (const dike_placement *const *p = dike_placement_all(); *p && len < n; p++)
        len += (size_t)snprintf(why + len, n - len, " %s", (*p)->name);
    if (len < n)
        snprintf(why + len, n - len, ")");
    return DIKE_EINVAL;
}

static int check_name(const char *v, char *why, size_t n)
{
    if (!*v) {
        snprintf(why, n, "must not be empty");
        return DIKE_EINVAL;
    }
    for (const char *p = v; *p; p++) {
        char ch = *p;
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '-' || ch == '_')) {
            snprintf(why, n, "a name may only use letters, digits, '-' and '_'");
            return DIKE_EINVAL;
        }
    }
    return 0;
}

static int check_auto_bool(const char *v, char *why, size_t n)
{
    if (strcmp(v, "auto") && strcmp(v, "true") && strcmp(v, "false")) {
        snprintf(why, n, "must be auto, true or false");
        return DIKE_EINVAL;
    }
    return 0;
}

static int check_throughput(const char *v, char *why, size_t n)
{
    if (strcmp(v, "gavel") && strcmp(v, "none")) {
        snprintf(why, n, "must be gavel or none");
        return DIKE_EINVAL;
    }
    return 0;
}

static int check_duration_knowledge(const char *v, char *why, size_t n)
{
    if (dike_duration_knowledge_parse(v) < 0) {
        snprintf(why, n, "must be oracle, noisy or none");
        return DIKE_EINVAL;
    }
    return 0;
}

static int check_model_assignment(const char *v, char *why, size_t n)
{
    if (strcmp(v, "none") && strcmp(v, "uniform") && dike_tput_class_find(v) < 0) {
        snprintf(why, n, "must be none, uniform or a model class of the throughput table "
                         "(docs/throughput.md, e.g. resnet50-bs64)");
        return DIKE_EINVAL;
    }
    return 0;
}

/* Syntax only: whether the names are tenants, and the file, are checked once the workload is read
 * (dike_tenant_weights_resolve), with the place the value was set. */
static int check_weights(const char *v, char *why, size_t n)
{
    return dike_tenant_weights_check(v, why, n);
}

/* The whole value in one key, so both bounds are checked together and a bad one is reported with
 * the line that set it. */
static int check_window(const char *v, char *why, size_t n)
{
    dike_window w;
    return dike_window_parse(v, &w, why, n);
}

/* --- one value --- */

static void range_reason(const key_range *r, char *why, size_t n)
{
    if (isinf(r->hi))
        snprintf(why, n, "must be %s %.15g", r->lo_open ? ">" : ">=", r->lo);
    else
        snprintf(why, n, "must be in %c%.15g, %.15g]", r->lo_open ? '(' : '[', r->lo, r->hi);
    if (r->why) {
        size_t len = strlen(why);
        snprintf(why + len, n - len, " (%s)", r->why);
    }
}

static bool in_range(const key_range *r, double v)
{
    return (r->lo_open ? v > r->lo : v >= r->lo) && v <= r->hi;
}

static int parse_bool(const char *s, bool *v)
{
    static const char *const yes[] = {"true", "1", "yes", "on"};
    static const char *const no[] = {"false", "0", "no", "off"};
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *v = true;
            return 0;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *v = false;
            return 0;
        }
    }
    return DIKE_EINVAL;
}

/* Check a string so that to_ini() can write it and read it back unchanged: INI has no quoting. */
static int check_string(const key_def *k, const char *s, char *why, size_t n)
{
    size_t len = strlen(s);
    if (len >= k->size) {
        snprintf(why, n, "longer than %zu characters", k->size - 1);
        return DIKE_EINVAL;
    }
    for (size_t i = 0; i < len; i++) {
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
            snprintf(why, n, "contains a control character");
            return DIKE_EINVAL;
        }
        if (s[i] == ';' && i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t')) {
            snprintf(why, n, "contains ' ;', which starts a comment in INI files");
            return DIKE_EINVAL;
        }
    }
    if (len && (s[0] == ' ' || s[0] == '\t' || s[len - 1] == ' ' || s[len - 1] == '\t')) {
        snprintf(why, n, "has leading or trailing blanks");
        return DIKE_EINVAL;
    }
    return k->check ? k->check(s, why, n) : 0;
}

/* Parse @p text as the value of @p k and store it in @p c; on error @p c is unchanged and the reason
 * is in why. */
static int set_value(dike_config *c, const key_def *k, const char *text, char *why, size_t n)
{
    void *field = (char *)c + k->offset;
    const char *bad;
    switch (k->type) {
    case KEY_INT: {
        int64_t v;
        if ((bad = dike_parse_i64(text, &v))) {
            snprintf(why, n, "%s", bad);
            return DIKE_EINVAL;
        }
        if (!in_range(&k->range, (double)v)) {
            range_reason(&k->range, why, n);
            return DIKE_EINVAL;
        }
        *(int64_t *)field = v;
        return 0;
    }
    case KEY_DOUBLE: {
        double v;
        if ((bad = dike_parse_f64(text, &v))) {
            snprintf(why, n, "%s", bad);
            return DIKE_EINVAL;
        }
        if (!in_range(&k->range, v)) {
            range_reason(&k->range, why, n);
            return DIKE_EINVAL;
        }
        *(double *)field = v;
        return 0;
    }
    case KEY_BOOL: {
        bool v;
        if (parse_bool(text, &v)) {
            snprintf(why, n, "not a boolean (true/false, yes/no, on/off, 1/0)");
            return DIKE_EINVAL;
        }
        *(bool *)field = v;
        return 0;
    }
    case KEY_STRING:
        if (check_string(k, text, why, n))
            return DIKE_EINVAL;
        /* Clear the whole buffer so equal configs are equal bytes (memcmp, hashing). */
        memset(field, 0, k->size);
        memcpy(field, text, strlen(text));
        return 0;
    }
    return DIKE_EINVAL;
}

/* Current value of @p k in @p c as text that set_value() reads back to the same value. */
static void format_value(const dike_config *c, const key_def *k, char *buf, size_t n)
{
    const void *field = (const char *)c + k->offset;
    switch (k->type) {
    case KEY_INT:
        snprintf(buf, n, "%" PRId64, *(const int64_t *)field);
        break;
    case KEY_DOUBLE: {
        /* The shortest of %.15g..%.17g that reads back to the same double: exact like %.17g, but
         * 0.8 stays "0.8" instead of "0.80000000000000004". */
        double v = *(const double *)field;
        for (int digits = 15; digits <= 17; digits++) {
            snprintf(buf, n, "%.*g", digits, v);
            if (strtod(buf, NULL) == v)
                break;
        }
        break;
    }
    case KEY_BOOL:
        snprintf(buf, n, "%s", *(const bool *)field ? "true" : "false");
        break;
    case KEY_STRING:
        snprintf(buf, n, "%s", (const char *)field);
        break;
    }
}

/* --- lookup --- */

static const key_def *find_key(const char *section, const char *name)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].section, section) == 0 && strcmp(keys[i].name, name) == 0)
            return &keys[i];
    return NULL;
}

static bool section_known(const char *section)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].section, section) == 0)
            return true;
    return false;
}

/* "cluster, workload, ..." or the keys of one section, for "unknown ..." messages. */
static void list_names(const char *section, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NKEYS && len < n; i++) {
        const char *name;
        if (section) {
            if (strcmp(keys[i].section, section))
                continue;
            name = keys[i].name;
        } else {
            if (i > 0 && strcmp(keys[i].section, keys[i - 1].section) == 0)
                continue;
            name = keys[i].section;
        }
        len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", name);
    }
}

/* The keys compared with another key by dike_config_validate, whose messages name the file and
 * line that set each of them (when a file did). */
static const size_t cross_keys[] = {
    offsetof(dike_config, cluster_nodes),           offsetof(dike_config, cluster_gpu_types),
    offsetof(dike_config, cluster_gpu_speeds),      offsetof(dike_config, cluster_nodes_file),
    offsetof(dike_config, workload_start_s),        offsetof(dike_config, workload_end_s),
    offsetof(dike_config, workload_first_job),      offsetof(dike_config, workload_last_job),
    offsetof(dike_config, workload_trace_load),     offsetof(dike_config, workload_time_scale),
    offsetof(dike_config, workload_duration_median_s), offsetof(dike_config, workload_duration_max_s),
};
#define NCROSS (sizeof cross_keys / sizeof cross_keys[0])
_Static_assert(NCROSS <= sizeof((dike_config *)0)->cross_at / sizeof((dike_config *)0)->cross_at[0],
               "dike_config.cross_at is too small for cross_keys");

static const char *cross_where(const dike_config *c, size_t offset)
{
    for (size_t i = 0; i < NCROSS; i++)
        if (cross_keys[i] == offset)
            return c->cross_at[i];
    return "";
}

/* A cross-field error: "FILE:LINE: MESSAGE (NAME_B set at FILE:LINE)", each place only if that
 * key was set by a configuration file. The message starts with key a's "[section] name"; b is
 * the key it is compared with. */
static int cross_err(dike_err *e, const dike_config *c, size_t a, size_t b, const char *b_name,
                     const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int cross_err(dike_err *e, const dike_config *c, size_t a, size_t b, const char *b_name,
                     const char *fmt, ...)
{
    char msg[DIKE_STR_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *wa = cross_where(c, a), *wb = cross_where(c, b);
    return dike_err_set(e, DIKE_EINVAL, "%s%s%.800s%s%s%s%s%s", wa, *wa ? ": " : "", msg,
                        *wb ? " (" : "", *wb ? b_name : "", *wb ? " set at " : "", wb, *wb ? ")" : "");
}

/* Apply one assignment; on error fills @p e with "WHERE: [section] key: reason (got 'value')".
 * @p from_file: WHERE is a configuration file's "path:line". */
static int assign(dike_config *c, const char *where, bool from_file, const char *section,
                  const char *name, const char *value, dike_err *e)
{
    char why[512], names[512];
    const key_def *k;
    if (!section_known(section)) {
        list_names(NULL, names, sizeof names);
        return dike_err_set(e, DIKE_EINVAL, "%s: [%s] %s: unknown section '%s' (sections: %s)", where,
                            section, name, section, names);
    }
    if (!(k = find_key(section, name))) {
        list_names(section, names, sizeof names);
        return dike_err_set(e, DIKE_EINVAL, "%s: [%s] %s: unknown key (keys of [%s]: %s)", where,
                            section, name, section, names);
    }
    if (set_value(c, k, value, why, sizeof why))
        return dike_err_set(e, DIKE_EINVAL, "%s: [%s] %s: %s (got '%s')", where, section, name, why,
                            value);
    /* Keys of cross-field checks: remember the file and line that set them, for those checks'
     * messages; a later option forgets it (the value no longer comes from the file). */
    for (size_t i = 0; i < NCROSS; i++)
        if (cross_keys[i] == k->offset)
            snprintf(c->cross_at[i], sizeof c->cross_at[i], "%s", from_file ? where : "");
    /* The one key with checks that need the workload: remember where it was set for them. */
    if (k->offset == offsetof(dike_config, tenants_weights))
        snprintf(c->tenants_weights_at, sizeof c->tenants_weights_at, "%s", where);
    return 0;
}

/* --- public --- */

void dike_config_defaults(dike_config *c)
{
    char why[512];
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < NKEYS; i++)
        if (set_value(c, &keys[i], keys[i].def, why, sizeof why))
            dike_fatal("bad default of [%s] %s: %s", keys[i].section, keys[i].name, why);
}

/* State shared by the inih reader and handler. inih 55 passes no line number to the handler, so the
 * reader counts lines itself; the handler runs on the line the reader returned last. */
typedef struct ini_state {
    dike_config cfg;   /**< values being read; copied out only when the whole file is good */
    const char *path;
    FILE *f;
    char *line;        /**< getline buffer */
    size_t cap;
    int lineno;        /**< line most recently handed to inih */
    int read_errno;    /**< errno of a read error, 0 if none */
    bool failed;       /**< an error is in err; stops reading */
    int err_line;      /**< line of that error */
    dike_err err;
    char section[128]; /**< the last [section] handed to inih (for long_assignment) */
} ini_state;

static int on_key(void *user, const char *section, const char *name, const char *value);

/* A `key = value` line longer than inih's buffer, assigned here as inih would (key before the
 * first '=' or ':', a value's inline comment from a ';' after a blank, both trimmed). A resolved
 * configuration (run --print-config, the text stored in outputs) writes absolute paths and the
 * canonical "key = value", so it may hold lines longer than the ones it was made from; it must
 * read back. Returns 1 if @p s was such a line (assigned, or st->failed set), 0 if not. */
static int long_assignment(ini_state *st, const char *s)
{
    size_t k = strcspn(s, "=:");
    if (s[0] == '[' || s[0] == ';' || s[0] == '#' || s[k] != '=' || k == 0)
        return 0;
    char *key = dike_xstrdup(s), *val = key + k + 1;
    key[k] = '\0';
    for (char *c = val; *c; c++)
        if (*c == ';' && c > val && (c[-1] == ' ' || c[-1] == '\t')) {
            *c = '\0';
            break;
        }
    on_key(st, st->section, dike_trim(key), dike_trim(val));
    free(key);
    return 1;
}

static char *read_line(char *str, int num, void *stream)
{
    ini_state *st = stream;
    if (st->failed)
        return NULL; /* stop at the first error: one message, the first one */
    errno = 0;
    ssize_t got = getline(&st->line, &st->cap, st->f);
    if (got < 0) {
        if (ferror(st->f))
            st->read_errno = errno ? errno : EIO;
        return NULL;
    }
    st->lineno++;
    if (strlen(st->line) != (size_t)got) {
        st->failed = true;
        st->err_line = st->lineno;
        dike_err_set(&st->err, DIKE_EINVAL, "%s:%d: contains a NUL byte (binary file?)", st->path,
                     st->lineno);
        return NULL;
    }
    /* A carriage return that does not end the line: the file has old Mac line ends (CR only),
     * which getline does not split, so inih would see one line and drop all but its section. */
    const char *cr = strchr(st->line, '\r');
    if (cr && cr[1] != '\n' && cr[1] != '\0') {
        st->failed = true;
        st->err_line = st->lineno;
        dike_err_set(&st->err, DIKE_EINVAL, "%s:%d: a carriage return inside the line (CR-only line "
                     "ends?): lines must end with \\n or \\r\\n", st->path, st->lineno);
        return NULL;
    }
    /* inih treats an indented line as the continuation of the previous value; indentation is only
     * layout here, so it is removed before inih sees the line. */
    const char *s = st->line;
    while (*s == ' ' || *s == '\t')
        s++;
    size_t len = strlen(s);
    if (s[0] == '[' && strchr(s, ']')) { /* inih's section: the text up to the first ']' */
        size_t n = (size_t)(strchr(s, ']') - s - 1);
        snprintf(st->section, sizeof st->section, "%.*s", (int)n, s + 1);
    }
    if (len + 1 > (size_t)num && num >= 2 && long_assignment(st, s)) {
        if (st->failed)
            return NULL;
        memcpy(str, "\n", 2); /* inih sees an empty line in its place */
        return str;
    }
    if (len + 1 > (size_t)num) {
        /* inih reads lines into a fixed buffer and would split a longer one silently. */
        st->failed = true;
        st->err_line = st->lineno;
        dike_err_set(&st->err, DIKE_EINVAL, "%s:%d: line longer than %d characters", st->path,
                     st->lineno, num - 2);
        return NULL;
    }
    memcpy(str, s, len + 1);
    return str;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
    ini_state *st = user;
    char where[1200];
    if (st->failed)
        return 0;
    snprintf(where, sizeof where, "%s:%d", st->path, st->lineno);
    if (!*section)
        dike_err_set(&st->err, DIKE_EINVAL, "%s: %s: key outside any [section]", where, name);
    else if (!assign(&st->cfg, where, true, section, name, value, &st->err))
        return 1;
    st->failed = true;
    st->err_line = st->lineno;
    return 0;
}

/* Read INI text from @p f (closed here), naming it @p path in messages. */
static int load_stream(dike_config *c, FILE *f, const char *path, dike_err *e)
{
    ini_state *st = dike_xcalloc(1, sizeof *st);
    int rc = 0;
    st->cfg = *c;
    st->path = path;
    st->f = f;
    /* inih returns the first line it could not parse (no '=', unclosed '['); such a line never
     * reaches the handler, and inih goes on reading, so it may precede the handler's error. */
    int bad_line = ini_parse_stream(read_line, st, on_key, st);
    if (st->read_errno) {
        rc = dike_err_set(e, DIKE_EIO, "%s: cannot read: %s", path, strerror(st->read_errno));
    } else if (st->failed && (bad_line <= 0 || st->err_line <= bad_line)) {
        rc = dike_err_set(e, DIKE_EINVAL, "%s", st->err.msg);
    } else if (bad_line > 0) {
        rc = dike_err_set(e, DIKE_EINVAL, "%s:%d: syntax error: expected '[section]' or 'key = value'",
                          path, bad_line);
    } else if (bad_line < 0) {
        rc = dike_err_set(e, DIKE_ENOMEM, "%s: inih could not allocate its line buffer", path);
    } else {
        *c = st->cfg;
    }
    if (st->f)
        fclose(st->f);
    free(st->line);
    free(st);
    return rc;
}

int dike_config_load_file(dike_config *c, const char *path, dike_err *e)
{
    int rc = dike_input_regular(path, "configuration file", e);
    if (rc)
        return rc;
    FILE *f = fopen(path, "r");
    if (!f)
        return dike_err_set(e, DIKE_EIO, "%s: cannot open: %s", path, strerror(errno));
    return load_stream(c, f, path, e);
}

/* Not through inih: a resolved text may hold lines longer than inih's buffer (long paths), and
 * it is our own output, so a simple line reader with the same per-key checks is enough. */
int dike_config_load_text(dike_config *c, const char *text, const char *origin, dike_err *e)
{
    char *copy = dike_xstrdup(text), section[128] = "";
    int rc = 0, line = 0;
    dike_config work = *c;
    for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l && !rc; l = strtok_r(NULL, "\n", &save)) {
        line++;
        l = dike_trim(l);
        if (!*l || *l == ';' || *l == '#')
            continue;
        if (*l == '[') {
            char *end = strchr(l, ']');
            if (end) {
                *end = 0;
                snprintf(section, sizeof section, "%s", l + 1);
            }
            continue;
        }
        char *eq = strchr(l, '=');
        if (!eq)
            continue;
        *eq = 0;
        char where[256];
        snprintf(where, sizeof where, "%s: config line %d", origin, line);
        rc = assign(&work, where, false, section, dike_trim(l), dike_trim(eq + 1), e);
    }
    free(copy);
    if (!rc)
        *c = work;
    return rc;
}

int dike_config_set(dike_config *c, const char *assignment, const char *origin, dike_err *e)
{
    char where[1200];
    char *copy = dike_xstrdup(assignment);
    int rc;
    char *eq = strchr(copy, '=');
    /* An option other than --set (--trace X) is named with its own value, as it was typed. */
    bool option = origin && origin[0] == '-' && strcmp(origin, "--set") != 0 && eq;
    snprintf(where, sizeof where, "%s '%s'", origin ? origin : "--set",
             option ? assignment + (eq - copy) + 1 : assignment);
    char *dot = eq ? memchr(copy, '.', (size_t)(eq - copy)) : NULL;
    if (!eq || !dot) {
        rc = dike_err_set(e, DIKE_EINVAL, "%s: expected section.key=value", where);
        goto out;
    }
    *eq = '\0';
    *dot = '\0';
    rc = assign(c, where, false, dike_trim(copy), dike_trim(dot + 1), dike_trim(eq + 1), e);
out:
    free(copy);
    return rc;
}

/* Sum of the node counts in cluster.gpu_types must match cluster.nodes; gpu_speeds must name types
 * that exist. The list syntax was checked when the values were set, but a caller may have filled
 * the struct directly, so every key is checked again here. */
int dike_config_validate(const dike_config *c, dike_err *e)
{
    char why[512], val[DIKE_STR_MAX + 32];
    for (size_t i = 0; i < NKEYS; i++) {
        const key_def *k = &keys[i];
        const void *field = (const char *)c + k->offset;
        int bad = 0;
        if (k->type == KEY_INT || k->type == KEY_DOUBLE) {
            double v = k->type == KEY_INT ? (double)*(const int64_t *)field : *(const double *)field;
            if (!isfinite(v) || !in_range(&k->range, v)) {
                range_reason(&k->range, why, sizeof why);
                bad = 1;
            }
        } else if (k->type == KEY_STRING) {
            /* A string filled by hand may lack its terminator; never read past the field. */
            if (!memchr(field, '\0', k->size)) {
                snprintf(why, sizeof why, "not terminated");
                bad = 1;
            } else {
                bad = check_string(k, field, why, sizeof why) != 0;
            }
        }
        if (bad) {
            format_value(c, k, val, sizeof val);
            return dike_err_set(e, DIKE_EINVAL, "[%s] %s: %s (got '%s')", k->section, k->name, why, val);
        }
    }

    dike_type_count types[DIKE_MAX_GPU_TYPES];
    dike_type_speed speeds[DIKE_MAX_GPU_TYPES];
    size_t ntypes = 0, nspeeds = 0;
    dike_parse_gpu_types(c->cluster_gpu_types, types, &ntypes, why, sizeof why);
    dike_parse_gpu_speeds(c->cluster_gpu_speeds, speeds, &nspeeds, why, sizeof why);
    if (ntypes && c->cluster_nodes_file[0])
        return cross_err(e, c, offsetof(dike_config, cluster_gpu_types),
                         offsetof(dike_config, cluster_nodes_file), "cluster.nodes_file",
                         "[cluster] gpu_types: must be empty when cluster.nodes_file is set (the "
                         "node list gives the types) (got '%s')", c->cluster_gpu_types);
    if (ntypes) {
        uint64_t sum = 0;
        for (size_t i = 0; i < ntypes; i++)
            sum += types[i].nodes;
        if (sum != (uint64_t)c->cluster_nodes)
            return cross_err(e, c, offsetof(dike_config, cluster_gpu_types),
                             offsetof(dike_config, cluster_nodes), "cluster.nodes",
                             "[cluster] gpu_types: node counts sum to %" PRIu64
                             ", cluster.nodes is %" PRId64, sum, c->cluster_nodes);
    }
    /* With a node list the types are known only once it is read: dike_cluster_init checks them. */
    for (size_t i = 0; i < nspeeds && !c->cluster_nodes_file[0]; i++) {
        bool found = ntypes == 0 && strcmp(speeds[i].name, "v100") == 0;
        for (size_t j = 0; j < ntypes && !found; j++)
            found = strcmp(types[j].name, speeds[i].name) == 0;
        if (!found)
            return cross_err(e, c, offsetof(dike_config, cluster_gpu_speeds),
                             offsetof(dike_config, cluster_gpu_types), "cluster.gpu_types",
                             "[cluster] gpu_speeds: type '%s' is not a type of cluster.gpu_types "
                             "(got '%s')", speeds[i].name, c->cluster_gpu_types);
    }
    if (c->workload_end_s > 0 && c->workload_end_s <= c->workload_start_s)
        return cross_err(e, c, offsetof(dike_config, workload_end_s),
                         offsetof(dike_config, workload_start_s), "workload.start_s",
                         "[workload] end_s: %.15g is not after workload.start_s %.15g (0 = no end)",
                         c->workload_end_s, c->workload_start_s);
    if (c->workload_last_job >= 0 && c->workload_last_job < c->workload_first_job)
        return cross_err(e, c, offsetof(dike_config, workload_last_job),
                         offsetof(dike_config, workload_first_job), "workload.first_job",
                         "[workload] last_job: %" PRId64 " is before workload.first_job %" PRId64
                         " (-1 = the last job)", c->workload_last_job, c->workload_first_job);
    if (c->workload_trace_load > 0 && c->workload_time_scale != 1)
        return cross_err(e, c, offsetof(dike_config, workload_trace_load),
                         offsetof(dike_config, workload_time_scale), "workload.time_scale",
                         "[workload] trace_load: set either trace_load or time_scale, not both "
                         "(got trace_load %.15g, time_scale %.15g)",
                         c->workload_trace_load, c->workload_time_scale);
    if (c->workload_duration_median_s > c->workload_duration_max_s)
        return cross_err(e, c, offsetof(dike_config, workload_duration_median_s),
                         offsetof(dike_config, workload_duration_max_s), "workload.duration_max_s",
                         "[workload] duration_median_s: %.15g is above workload.duration_max_s %.15g",
                         c->workload_duration_median_s, c->workload_duration_max_s);
    return 0;
}

/* --- file paths in the resolved text ---
 * The resolved text is stored in every output and checkpoint and printed by run --print-config; it
 * must re-run as it is from any folder. So relative file names (workload.trace, entry by entry;
 * cluster.nodes_file; tenants.weights = file:PATH) are written absolute, against the folder the
 * process runs in, which is what they were relative to when the run opened them (a config file's
 * own relative paths were already resolved against its folder when it was read). "-" (standard
 * input) stays as it is; a value that would grow past DIKE_STR_MAX - 1 characters stays relative. */
static void absolute_item(const char *item, const char *cwd, char *out, size_t n, size_t *len, bool *fits)
{
    while (*item == ' ')
        item++;
    bool rel = item[0] && item[0] != '/' && strcmp(item, "-") != 0;
    if (rel && item[0] == '.' && item[1] == '/')
        item += 2;
    int w = rel ? snprintf(out + *len, n - *len, "%s%s/%s", *len ? "," : "", cwd, item)
                : snprintf(out + *len, n - *len, "%s%s", *len ? "," : "", item);
    *fits = *fits && w >= 0 && (size_t)w < n - *len;
    /* "../x" from a config file in another folder: canonical when the file exists (symlinks
     * resolved, like the open that read it), so stored paths do not pile up "/../" segments. */
    char *joined = out + *len + (*len ? 1 : 0), real[PATH_MAX];
    if (*fits && rel && (strstr(joined, "/../") || strstr(joined, "/./")) && realpath(joined, real) &&
        strlen(real) < n - *len - (*len ? 1 : 0)) {
        snprintf(joined, n - *len - (*len ? 1 : 0), "%s", real);
        w = (int)(strlen(real) + (*len ? 1 : 0));
    }
    if (*fits)
        *len += (size_t)w;
}

static void absolute_paths(const key_def *k, char *val, size_t n)
{
    size_t off = k->offset;
    bool list = off == offsetof(dike_config, workload_trace);
    bool weights = off == offsetof(dike_config, tenants_weights) && strncmp(val, "file:", 5) == 0;
    if (!(list || weights || off == offsetof(dike_config, cluster_nodes_file)) || !val[0])
        return;
    char cwd[DIKE_STR_MAX], out[DIKE_STR_MAX] = "";
    if (!getcwd(cwd, sizeof cwd))
        return;
    size_t len = 0;
    bool fits = true;
    if (weights) {
        len = (size_t)snprintf(out, sizeof out, "file:");
        char path[DIKE_STR_MAX] = "";
        size_t plen = 0;
        absolute_item(val + 5, cwd, path, sizeof path, &plen, &fits);
        fits = fits && len + plen < sizeof out;
        if (fits)
            memcpy(out + len, path, plen + 1);
    } else if (list) {
        char *copy = dike_xstrdup(val);
        for (char *save = NULL, *item = strtok_r(copy, ",", &save); item && fits;
             item = strtok_r(NULL, ",", &save))
            absolute_item(item, cwd, out, sizeof out, &len, &fits);
        free(copy);
    } else {
        absolute_item(val, cwd, out, sizeof out, &len, &fits);
    }
    if (fits && strlen(out) < n)
        snprintf(val, n, "%s", out);
}

char *dike_config_to_ini(const dike_config *c)
{
    char *text = NULL;
    size_t len = 0;
    char val[DIKE_STR_MAX + 32];
    FILE *f = open_memstream(&text, &len);
    if (!f)
        dike_fatal("open_memstream: %s", strerror(errno));
    fprintf(f, "# dike-emu %s resolved configuration\n", DIKE_VERSION);
    /* One block per section, in the order sections first appear in the table: a section whose
     * keys are not all contiguous in the table (keys added as a block) still appears once, since
     * INI readers (Python's configparser) refuse a repeated section. */
    for (size_t i = 0; i < NKEYS; i++) {
        size_t first = 0;
        while (strcmp(keys[first].section, keys[i].section))
            first++;
        if (first != i)
            continue; /* section already written */
        fprintf(f, "%s[%s]\n", i ? "\n" : "", keys[i].section);
        for (size_t k = i; k < NKEYS; k++) {
            if (strcmp(keys[k].section, keys[i].section))
                continue;
            format_value(c, &keys[k], val, sizeof val);
            absolute_paths(&keys[k], val, sizeof val);
            fprintf(f, "%s =%s%s\n", keys[k].name, *val ? " " : "", val);
        }
    }
    if (fclose(f))
        dike_fatal("writing the resolved configuration: %s", strerror(errno));
    return text;
}

int dike_config_get(const dike_config *c, const char *section, const char *name, char *buf, size_t n)
{
    char val[DIKE_STR_MAX + 32];
    const key_def *k = find_key(section, name);
    if (!k)
        return DIKE_EINVAL;
    format_value(c, k, val, sizeof val);
    snprintf(buf, n, "%s", val);
    return 0;
}

void dike_config_print_reference(FILE *out)
{
    fprintf(out, "| section | key | default | description |\n|---|---|---|---|\n");
    for (size_t i = 0; i < NKEYS; i++) {
        const key_def *k = &keys[i];
        fprintf(out, "| %s | %s | `%s` | %s |\n", k->section, k->name, *k->def ? k->def : "\"\"",
                k->desc);
    }
}
