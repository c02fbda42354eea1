/* Experiment campaigns (SPEC §8): a grid of configurations expanded from one INI file, run either
 * as one MPI ensemble (groups of ranks pulling points from a shared queue) or a few points at a
 * time (one Slurm array task per point), with resume and a JSON manifest. docs/campaigns.md is the
 * user's description; this header is the contract of src/campaign/.
 *
 * A grid file is a dike-emu configuration INI (every section and key of `config-reference`: the
 * base configuration of every point) plus:
 *   [campaign]       name, out_dir, ranks_per_run
 *   [sweep]          axis = value, value, ...     (or an integer range a..b)
 *   [sweep:NAME]     further blocks; the grid is the concatenation of its blocks, each block the
 *                    product of its axes.
 * Expansion order: blocks in file order; inside a block the axes in file order, the last axis
 * varying fastest (nested loops written in file order). Point indices are 0-based and global. */
#ifndef DIKE_CAMPAIGN_H
#define DIKE_CAMPAIGN_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "dike/base.h"
#include "dike/config.h"

#define DIKE_GRID_NAME_MAX 64          /**< campaign and block names, terminator included */
#define DIKE_GRID_MAX_POINTS 100000    /**< larger grids are refused (split them into several) */
#define DIKE_GRID_POINT_NAME_MAX 256   /**< point names (file names without .h5), terminator included */

/** One sweep axis: a configuration key and its values, in file order. */
typedef struct dike_grid_axis {
    char *label;       /**< as written in the grid ("policy", "dike.fairness_weight") */
    char *key;         /**< "section.key" the values are assigned to (shorthands resolved) */
    char *name_label;  /**< label in point names: a full key without its section when unique */
    char **values;     /**< values as assigned (relative trace/node-list paths resolved) */
    char **shown;      /**< values as written (quotes removed), for names and listings */
    size_t nvalues;    /**< number of values, >= 1 */
    int line;          /**< line of the grid file that defines the axis */
} dike_grid_axis;

/** One [sweep] or [sweep:NAME] section: the product of its axes. */
typedef struct dike_grid_block {
    char name[DIKE_GRID_NAME_MAX]; /**< "" for [sweep] */
    dike_grid_axis *axes;          /**< in file order */
    size_t naxes;                  /**< number of axes; 0 = one point with the base configuration */
    size_t first;                  /**< global index of the block's first point */
    size_t npoints;                /**< product of the axes' value counts */
} dike_grid_block;

/** A parsed and expanded grid. */
typedef struct dike_grid {
    char *path;                    /**< grid file, as given */
    char name[DIKE_GRID_NAME_MAX]; /**< [campaign] name; default: the file name without .ini */
    char out_dir[DIKE_STR_MAX];    /**< [campaign] out_dir; default results/<name>; relative = to the cwd */
    int64_t ranks_per_run;         /**< [campaign] ranks_per_run: default ranks per point (1) */
    dike_config base;              /**< configuration of the grid's sections (defaults elsewhere) */
    dike_grid_block *blocks;       /**< in file order */
    size_t nblocks;                /**< number of blocks, >= 1 */
    size_t npoints;                /**< sum of the blocks' points */
    char **sets;                   /**< --set assignments, applied to every point after its axes */
    size_t nsets;                  /**< number of --set assignments */
} dike_grid;

/** Read, expand and check a grid file: every point's configuration is built and validated, so a
 *  bad value fails here ("FILE:LINE: [section] key: reason"), before anything runs. @p sets
 *  (may be NULL) are "section.key=value" overrides applied to every point after its axes. On
 *  failure @p g is empty (dike_grid_free is still safe). */
int dike_grid_load(dike_grid *g, const char *path, const char *const *sets, size_t nsets, dike_err *e);

void dike_grid_free(dike_grid *g);

/** Replace the output folder (--out-dir). */
int dike_grid_set_out_dir(dike_grid *g, const char *dir, dike_err *e);

/** The block holding point @p i (< npoints). */
const dike_grid_block *dike_grid_block_of(const dike_grid *g, size_t i);

/** Value index of axis @p a of point @p i inside its block. */
size_t dike_grid_coord(const dike_grid *g, size_t i, size_t a);

/** The configuration of point @p i: base, its axis values, the --set overrides, and run.out =
 *  its output path. */
int dike_grid_point_config(const dike_grid *g, size_t i, dike_config *cfg, dike_err *e);

/** "<name>-<index, 4 digits>[-<axis>=<value>...]", sanitised to [A-Za-z0-9._+=-]. */
void dike_grid_point_name(const dike_grid *g, size_t i, char *buf, size_t n);

/** "<out_dir>/<point name>.h5". */
void dike_grid_point_output(const dike_grid *g, size_t i, char *buf, size_t n);

/** "label=value label=value ..." as written in the grid ("(base)" for a block without axes). */
void dike_grid_point_axes(const dike_grid *g, size_t i, char *buf, size_t n);

/** `campaign FILE --list`: '#' header lines (campaign, grid, out_dir, points), then one line per
 *  point: index TAB output TAB axes. */
void dike_grid_print_list(const dike_grid *g, FILE *f);

/** Parse a point selection such as "3", "0,2,5", "4..7", "4-7" (Slurm style) or a mix, against
 *  a grid of @p npoints points. Fills @p sel (npoints flags, caller-allocated) and returns the
 *  number of selected points, or a negative DIKE_E* code. */
long dike_grid_parse_selection(const char *text, size_t npoints, bool *sel, dike_err *e);

/* ---- running ---- */

/** Point state in the manifest and in `--status`, named as Slurm names job states
 *  (docs/campaigns.md). */
typedef enum dike_point_status {
    DIKE_POINT_PENDING = 0, /**< not run yet: no complete output, no record of a run */
    DIKE_POINT_COMPLETED,   /**< the output is complete */
    DIKE_POINT_FAILED,      /**< the last run failed (error recorded), or ended without a record */
    DIKE_POINT_TIMEOUT,     /**< stopped by SIGTERM/SIGUSR1 (a time limit) with a checkpoint to continue */
    DIKE_POINT_RUNNING      /**< being run now (a live process on this host, or on another host) */
} dike_point_status;

#define DIKE_POINT_NSTATES 5

const char *dike_point_status_name(dike_point_status s);

typedef struct dike_campaign_opts {
    int ranks_per_run;   /**< R, ranks per point; 0 = the grid's [campaign] ranks_per_run */
    const bool *select;  /**< npoints flags: the points to run; NULL = every point */
    const char *select_text; /**< the selection as written (--point), for the manifest; or NULL */
    bool quiet;          /**< no progress lines on stdout */
} dike_campaign_opts;

typedef struct dike_campaign_stats {
    size_t points;        /**< points of the grid */
    size_t state[DIKE_POINT_NSTATES]; /**< points per dike_point_status, whole grid */
    size_t asked;         /**< points this invocation was asked for */
    size_t skipped;       /**< asked for, but already complete: not run again */
    size_t ran;           /**< points this invocation ran (to any end) */
    size_t ran_completed; /**< ... that completed */
    size_t ran_failed;    /**< ... that failed */
    size_t ran_timeout;   /**< ... that a stop request interrupted (TIMEOUT) */
    bool stopped;         /**< a stop request (SIGTERM/SIGUSR1) ended it before every point ran */
    size_t sources;       /**< distinct emulator sources (source_sha256) of the COMPLETED points'
                               outputs, where known: more than 1 mixes versions of the code */
    double wall_seconds;  /**< whole invocation, s */
} dike_campaign_stats;

/** Run the selected points over @p world (collective): split it into groups of R consecutive
 *  ranks, which pull the incomplete points from a shared counter (MPI one-sided, on world rank 0)
 *  and run each with dike_run over the group. A failed point is recorded and the others go on.
 *  A stop request (dike_stop_requested) ends it after the running points (interrupted ones stay
 *  TIMEOUT). World rank 0 then writes <out_dir>/campaign.json. Returns 0 (point failures are counted in
 *  @p st, the same on every rank) or a negative code for a setup error (bad R, out_dir not
 *  creatable) found before any point ran. */
int dike_campaign_run(const dike_grid *g, const dike_campaign_opts *o, MPI_Comm world,
                      dike_campaign_stats *st, dike_err *e);

/** `campaign FILE --status` (one process, no collectives, writes nothing): every point's state
 *  from its output and run record, and the invocations listed in campaign.json. Prints one line
 *  per point (index TAB state TAB slurm job TAB output TAB reason) to @p out, or with @p json the
 *  manifest document campaign.json would hold now. */
int dike_campaign_status(const dike_grid *g, FILE *out, bool json, dike_campaign_stats *st, dike_err *e);

/** An output is complete when it opens as HDF5 and holds the root attribute schema_version equal
 *  to DIKE_SCHEMA_VERSION (written last, before the atomic rename) and the /jobs and /summary
 *  objects. @p wall and @p ranks (may be NULL) receive its wall_seconds and ranks attributes,
 *  @p source (may be NULL) its source_sha256 ("" in an output written before it existed). */
bool dike_campaign_output_complete(const char *path, double *wall, int *ranks, char source[65]);

#endif
