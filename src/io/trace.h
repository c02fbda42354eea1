/* Internal: the framework every trace reader plugs into (src/io/trace_*.c).
 *
 * A format is one table entry: its header columns, which drive both header parsing and format
 * detection, and a row function that turns one row's fields into a job. Everything else is done
 * once for all formats by the driver in trace.c: lines, comments, the header, field splitting,
 * invalid-row accounting (error, or skip and count per rule), duplicate ids, the dike format's
 * order check, merging several files, sorting, ids by position, the time origin and the sha256.
 * Adding a format is one file with a table entry and one line in the registry (trace.c). */
#ifndef DIKE_IO_TRACE_H
#define DIKE_IO_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include "dike/workload.h"

#define DIKE__TRACE_MAX_COLS 16
/* Largest time accepted, s: far beyond any trace (epoch seconds included), and small enough that a
 * submit plus a duration in microseconds stays well inside int64. */
#define DIKE__TRACE_SECONDS_MAX 1e12
#define DIKE__TENANT_NAME_MAX 63 /* results store tenant names in 64-byte fields */

/* Format flags. */
enum {
    DIKE__TF_STRICT = 1u << 0,      /**< unknown header columns are an error (else ignored) */
    DIKE__TF_HASH_HEADER = 1u << 1, /**< the header line starts with '#' (RFold) */
    DIKE__TF_ROW_IDS = 1u << 2,     /**< numeric job ids come from the rows; else the job's position
                                         in the whole trace after sorting */
    DIKE__TF_SORTED = 1u << 3,      /**< rows must be sorted by submit time (out-of-order rows are
                                         invalid); other formats are sorted by the reader */
    DIKE__TF_CLOCK = 1u << 4        /**< submit times accumulate over the rows, so a row whose fields
                                         cannot be split is never skipped */
};

/** A rule that cannot be skipped: the row error stops the read even with skip_invalid. */
#define DIKE__RULE_FATAL (-1)
/** Returned by a row function for a row that is not a GPU job: dropped and counted. */
#define DIKE__ROW_NO_GPU 1

typedef struct dike_trace_col {
    const char *name; /**< header name, exactly */
    bool required;    /**< the header must have it */
} dike_trace_col;

/** A job as a format's row function maps it. */
typedef struct dike_trace_row {
    int64_t id;         /**< job id (formats with DIKE__TF_ROW_IDS) */
    const char *key;    /**< textual job id checked for duplicates (formats without numeric ids), or NULL */
    const char *tenant; /**< tenant name; NULL = the file's name without folder and extension */
    const char *model;  /**< model class name; NULL or "" = none */
    dike_time submit;   /**< trace time, us */
    dike_time duration; /**< us, > 0 */
    uint32_t gpus;      /**< gang size, >= 1, checked against the cluster */
    int16_t gpu_type;   /**< cluster GPU type index, -1 = any */
    bool fractional;    /**< a fractional-GPU request counted as one whole GPU */
} dike_trace_row;

typedef struct dike_trace_file dike_trace_file;

/** Map the current row (f->col[]) into @p r: 0, DIKE__ROW_NO_GPU, or an error through
 *  dike_trace_fail (which records the rule). */
typedef int (*dike_trace_row_fn)(dike_trace_file *f, dike_trace_row *r, dike_err *e);

typedef struct dike_trace_format {
    const char *name;            /**< --trace-format NAME */
    const char *summary;         /**< one line: what it is and what becomes the tenant */
    const dike_trace_col *cols; /**< header columns; detection: a header naming every required one */
    int ncols;                   /**< number of columns */
    int id_col;                  /**< column named in duplicate-id messages, -1 = none */
    int submit_col;              /**< column named in order messages */
    unsigned flags;              /**< DIKE__TF_* */
    dike_trace_row_fn row;      /**< row mapping */
} dike_trace_format;

/** One file being read: what a row function sees. */
struct dike_trace_file {
    const dike_trace_format *fmt;
    const dike_cluster *cl;
    const char *path;
    uint32_t index;                         /**< file index among the files read */
    uint32_t line;                          /**< current line, 1-based (every line counts) */
    int pos[DIKE__TRACE_MAX_COLS];          /**< field index of each format column, -1 = absent */
    const char *col[DIKE__TRACE_MAX_COLS];  /**< the current row's field per column, NULL = absent */
    int rule;                               /**< skip rule of the last row error */
    double clock_s;                         /**< row-function state: running submit time, s */
    dike_time last_submit;                  /**< DIKE__TF_SORTED: submit of the last accepted row */
    uint32_t last_line;                     /**< its line, 0 before the first */
    bool keep_large;                        /**< dike_workload.keep_too_large */
    char *large_msg;                        /**< the current row is larger than the cluster: the
                                                 message (owned), kept with its job */
};

extern const dike_trace_format dike_trace_fmt_dike;
extern const dike_trace_format dike_trace_fmt_philly_vc;
extern const dike_trace_format dike_trace_fmt_rfold;
extern const dike_trace_format dike_trace_fmt_elasticflow;
extern const dike_trace_format dike_trace_fmt_gen_parallel;
extern const dike_trace_format dike_trace_fmt_openb;

/* ---- helpers for row functions: each returns 0, or DIKE_EINVAL with a message
 *      "PATH:LINE: field 'COLUMN': reason" and the rule recorded in f->rule ---- */

int dike_trace_fail(dike_trace_file *f, dike_err *e, int rule, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/** Integer column >= @p lo (malformed otherwise). */
int dike_trace_int(dike_trace_file *f, dike_err *e, int col, int64_t lo, int64_t *v);
/** Finite real column (malformed otherwise). */
int dike_trace_real(dike_trace_file *f, dike_err *e, int col, double *v);
/** Time of day @p s (seconds, from column @p col, shown as @p got or the field) into @p out:
 *  >= 0 and at most DIKE__TRACE_SECONDS_MAX. */
int dike_trace_time(dike_trace_file *f, dike_err *e, int col, double s, const char *got,
                     dike_time *out);
/** Duration @p s into @p out: 0 (or rounding to 0 us) is the zero-duration rule, < 0 malformed. */
int dike_trace_duration(dike_trace_file *f, dike_err *e, int col, double s, const char *got,
                         dike_time *out);
/** Gang of @p gpus (>= 1) GPUs of type @p gpu_type: more than the pool is the too-large rule. */
int dike_trace_gang(dike_trace_file *f, dike_err *e, int col, int64_t gpus, int gpu_type,
                     uint32_t *out);
/* The usual columns in one call each: a submit time in seconds (dike_trace_real + _time), a
 * duration in seconds (dike_trace_real + _duration), a GPU count >= 1 that must fit a pool of type
 * @p gpu_type (dike_trace_int + _gang). */
int dike_trace_submit_col(dike_trace_file *f, dike_err *e, int col, dike_time *out);
int dike_trace_duration_col(dike_trace_file *f, dike_err *e, int col, dike_time *out);
int dike_trace_gpus_col(dike_trace_file *f, dike_err *e, int col, int gpu_type, uint32_t *out);
/** GPU type name of the cluster into @p out (malformed if unknown). */
int dike_trace_type(dike_trace_file *f, dike_err *e, int col, const char *name, int16_t *out);
/** Tenant (or other name) column: non-empty, at most DIKE__TENANT_NAME_MAX characters. */
int dike_trace_name(dike_trace_file *f, dike_err *e, int col);

#endif
