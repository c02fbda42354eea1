/* Internal to src/campaign/: what the ensemble runner (ensemble.c) and the manifest writer
 * (manifest.c) share. */
#ifndef DIKE_CAMPAIGN_INTERNAL_H
#define DIKE_CAMPAIGN_INTERNAL_H

#include <stdint.h>
#include "dike/campaign.h"

/** What is known about one point: by this invocation (it ran or skipped it) or read from disk.
 *  Plain old data: group leaders send these to world rank 0 as bytes. */
typedef struct dike__point_result {
    int64_t index;        /**< point index */
    int32_t status;       /**< dike_point_status, or -1 = unknown here (look on disk) */
    int32_t ranks;        /**< ranks that ran it (0 = unknown) */
    int32_t group;        /**< ensemble group that ran it in this invocation, -1 = none */
    int32_t ran;          /**< 1 = run by this invocation */
    int32_t resumed;      /**< 1 = continued from its checkpoint by this invocation */
    double wall_seconds;  /**< wall time of the run, s (-1 = unknown) */
    char error[1024];     /**< failure message, "" if none */
} dike__point_result;

/** How this invocation ran, for the manifest's "invocation" object. */
typedef struct dike__invocation {
    const char *mode;     /**< "ensemble", "points" (a --point selection) or "status" */
    int world_ranks;      /**< MPI_COMM_WORLD size */
    int ranks_per_run;    /**< R */
    int groups;           /**< world_ranks / R */
    double wall_seconds;  /**< whole invocation so far, s */
} dike__invocation;

/** mkdir -p. */
int dike__mkdirs(const char *dir, dike_err *e);

/** Write <out_dir>/<point name>.failed.json (atomically) for a failed point. */
int dike__failure_write(const dike_grid *g, size_t i, const dike__point_result *r, dike_err *e);

/** Remove a point's failure record (after it succeeded). */
void dike__failure_clear(const dike_grid *g, size_t i);

/** Complete @p known (npoints entries; status -1 = look on disk) from the outputs and failure
 *  records, write <out_dir>/campaign.json atomically under a lock on campaign.json.lock, count the
 *  statuses into @p st, and print one line per point to @p table if not NULL. */
int dike__manifest_write(const dike_grid *g, dike__point_result *known, const dike__invocation *inv,
                         dike_campaign_stats *st, FILE *table, bool write_file, dike_err *e);

#endif
