/* Internal to src/campaign/: what the ensemble runner (ensemble.c) and the manifest writer
 * (manifest.c) share. */
#ifndef DIKE_CAMPAIGN_INTERNAL_H
#define DIKE_CAMPAIGN_INTERNAL_H

#include <stdint.h>
#include "dike/campaign.h"

/** The Slurm job a process belongs to, from the variables Slurm sets (all "" outside Slurm). */
typedef struct dike_slurm {
    char job_id[32];        /**< SLURM_JOB_ID: this job (an array task has its own) */
    char array_job_id[32];  /**< SLURM_ARRAY_JOB_ID: the array, "" if not an array task */
    char array_task_id[16]; /**< SLURM_ARRAY_TASK_ID */
    int32_t restart_count;  /**< SLURM_RESTART_COUNT: times the job was requeued (0 = first run) */
} dike_slurm;

/** What is known about one point's last run: by this invocation (it ran or skipped it) or read
 *  from its run record on disk. Plain old data: group leaders send these to world rank 0 as bytes. */
typedef struct dike_point_result {
    int64_t index;        /**< point index */
    int32_t status;       /**< dike_point_status, or -1 = unknown here (look on disk) */
    int32_t ranks;        /**< ranks that ran it (0 = unknown) */
    int32_t group;        /**< ensemble group that ran it in this invocation, -1 = none */
    int32_t ran;          /**< 1 = run by this invocation */
    int32_t resumed;      /**< 1 = the last run continued it from a checkpoint */
    int32_t skipped;      /**< 1 = asked for, already complete, not run again */
    int32_t pid;          /**< process of the run's group leader (0 = unknown) */
    double wall_seconds;  /**< wall time of the run, s (-1 = unknown) */
    char host[64];        /**< host of the run's group leader ("" = unknown) */
    char started_at[32];  /**< UTC, ISO 8601 ("" = unknown) */
    char ended_at[32];    /**< UTC, ISO 8601 ("" = not ended or unknown) */
    dike_slurm slurm;    /**< the Slurm job that ran it */
    char error[1024];     /**< why it failed or stopped, "" if not */
    char source[65];      /**< COMPLETED: its output's source_sha256 ("" = unknown) */
} dike_point_result;

/** How this invocation ran, for the manifest's "invocation" object. */
typedef struct dike_invocation {
    const char *mode;     /**< "ensemble", "points" (a --point selection) or "status" */
    int world_ranks;      /**< MPI_COMM_WORLD size */
    int ranks_per_run;    /**< R */
    int groups;           /**< world_ranks / R */
    double wall_seconds;  /**< whole invocation so far, s */
    const char *points;   /**< the --point selection as given, or NULL */
} dike_invocation;

/** mkdir -p. */
int dike_mkdirs(const char *dir, dike_err *e);

/** This process's Slurm job (from the environment). */
void dike_slurm_ids(dike_slurm *s);

/** UTC now as "YYYY-MM-DDTHH:MM:SSZ". */
void dike_utc_now(char *buf, size_t n);

/** Write <out_dir>/<point name>.run.json (atomically): the point's state and who ran it. */
int dike_record_write(const dike_grid *g, size_t i, const dike_point_result *r, dike_err *e);

/** Complete @p known (npoints entries; status -1 = look on disk) from the outputs and run
 *  records, count the states into @p st, and with @p write_file write <out_dir>/campaign.json
 *  atomically under a lock on campaign.json.lock (appending @p inv to the invocations it lists).
 *  @p table (may be NULL) receives one line per point, @p json (may be NULL) the document. */
int dike_manifest_write(const dike_grid *g, dike_point_result *known, const dike_invocation *inv,
                         dike_campaign_stats *st, FILE *table, FILE *json, bool write_file, dike_err *e);

#endif
