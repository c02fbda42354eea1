/* The project's CSV trace format (docs/trace-format.md):
 *
 *     # comment
 *     job_id,tenant,submit_time,num_gpus,duration[,model][,gpu_type]
 *     0,alice,0,8,3600
 *
 * Columns in any order, seconds as decimal numbers, rows sorted by submit_time, no quoting (a field
 * cannot contain a comma). Every bad row gives one message naming the path, the line and the field;
 * with skip_invalid such rows are dropped and counted instead. */
#include "dike/workload.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/parse.h"

/* Largest time accepted, s: far beyond any trace, and small enough that a submit plus a duration in
 * microseconds stays well inside int64. */
#define TRACE_SECONDS_MAX 1e12
#define TENANT_NAME_MAX 63 /* results store tenant names in 64-byte fields */

enum { COL_JOB_ID, COL_TENANT, COL_SUBMIT, COL_GPUS, COL_DURATION, COL_MODEL, COL_GPU_TYPE, NCOLS };

static const struct {
    const char *name;
    bool required;
} columns[NCOLS] = {
    [COL_JOB_ID] = {"job_id", true},     [COL_TENANT] = {"tenant", true},
    [COL_SUBMIT] = {"submit_time", true}, [COL_GPUS] = {"num_gpus", true},
    [COL_DURATION] = {"duration", true},  [COL_MODEL] = {"model", false},
    [COL_GPU_TYPE] = {"gpu_type", false},
};

/* Job ids seen so far -> line of first occurrence; open addressing, at most half full. */
typedef struct id_set {
    int64_t *ids;
    uint32_t *lines; /* 0 = empty slot (trace lines start at 1) */
    size_t cap, n;
} id_set;

typedef struct reader {
    const char *path;
    const dike_cluster *cl;
    dike_workload *w;
    uint32_t line;            /**< current line, 1-based */
    int pos[NCOLS];           /**< field index of each column, -1 if absent */
    size_t nfields;           /**< fields per row (header width) */
    char **fields;            /**< the current row, split */
    id_set seen;
    dike_time last_submit;    /**< submit of the last accepted row */
    uint32_t last_line;       /**< its line, 0 before the first row */
} reader;

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    return x;
}

/* Slot of @p id: the one holding it, or the empty one where it would go. */
static size_t id_slot(const id_set *s, int64_t id)
{
    size_t mask = s->cap - 1;
    size_t i = (size_t)mix64((uint64_t)id) & mask;
    while (s->lines[i] && s->ids[i] != id)
        i = (i + 1) & mask;
    return i;
}

static void id_insert(id_set *s, int64_t id, uint32_t line)
{
    if (2 * (s->n + 1) > s->cap) {
        id_set bigger = {.cap = s->cap ? 2 * s->cap : 1024};
        bigger.ids = dike_xmalloc(bigger.cap * sizeof *bigger.ids);
        bigger.lines = dike_xcalloc(bigger.cap, sizeof *bigger.lines);
        for (size_t i = 0; i < s->cap; i++) {
            if (s->lines[i]) {
                size_t j = id_slot(&bigger, s->ids[i]);
                bigger.ids[j] = s->ids[i];
                bigger.lines[j] = s->lines[i];
            }
        }
        bigger.n = s->n;
        free(s->ids);
        free(s->lines);
        *s = bigger;
    }
    size_t i = id_slot(s, id);
    s->ids[i] = id;
    s->lines[i] = line;
    s->n++;
}

/* Line where @p id was first seen, 0 if never. */
static uint32_t id_find(const id_set *s, int64_t id)
{
    return s->cap ? s->lines[id_slot(s, id)] : 0;
}

static int row_error(const reader *rd, dike_err *e, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* "PATH:LINE: field 'F': reason" (or without the field part when @p field is NULL). */
static int row_error(const reader *rd, dike_err *e, const char *field, const char *fmt, ...)
{
    char why[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (field)
        return dike_err_set(e, DIKE_EINVAL, "%s:%" PRIu32 ": field '%s': %s", rd->path, rd->line, field,
                            why);
    return dike_err_set(e, DIKE_EINVAL, "%s:%" PRIu32 ": %s", rd->path, rd->line, why);
}

/* Split @p s at commas into at most @p max trimmed fields; returns the number of fields found
 * (which may exceed max: the extra ones are counted, not stored). */
static size_t split(char *s, char **fields, size_t max)
{
    size_t n = 0;
    for (;;) {
        char *comma = strchr(s, ',');
        if (comma)
            *comma = '\0';
        if (n < max)
            fields[n] = dike__trim(s);
        n++;
        if (!comma)
            return n;
        s = comma + 1;
    }
}

static int read_header(reader *rd, char *text, dike_err *e)
{
    char *f[NCOLS + 1];
    size_t n = split(text, f, NCOLS + 1);
    for (int c = 0; c < NCOLS; c++)
        rd->pos[c] = -1;
    for (size_t i = 0; i < n && i < NCOLS + 1; i++) {
        int c = 0;
        while (c < NCOLS && strcmp(columns[c].name, f[i]))
            c++;
        if (c == NCOLS)
            return row_error(rd, e, NULL,
                             "header: unknown column '%s' (columns: job_id, tenant, submit_time, "
                             "num_gpus, duration, model, gpu_type)",
                             f[i]);
        if (rd->pos[c] >= 0)
            return row_error(rd, e, NULL, "header: column '%s' appears twice", f[i]);
        rd->pos[c] = (int)i;
    }
    for (int c = 0; c < NCOLS; c++)
        if (columns[c].required && rd->pos[c] < 0)
            return row_error(rd, e, NULL, "header: missing column '%s'", columns[c].name);
    rd->nfields = n;
    rd->fields = dike_xcalloc(n, sizeof *rd->fields);
    return 0;
}

/* Seconds field: a finite decimal number in [0, TRACE_SECONDS_MAX]; positive if @p positive. */
static int parse_seconds(const reader *rd, int col, bool positive, dike_time *out, dike_err *e)
{
    const char *name = columns[col].name, *text = rd->fields[rd->pos[col]];
    double v;
    const char *bad = dike__parse_f64(text, &v);
    if (bad)
        return row_error(rd, e, name, "%s (got '%s')", bad, text);
    if (positive ? !(v > 0) : v < 0)
        return row_error(rd, e, name, "must be %s (got '%s')", positive ? "> 0" : ">= 0", text);
    if (v > TRACE_SECONDS_MAX)
        return row_error(rd, e, name, "above %.0f s (got '%s')", TRACE_SECONDS_MAX, text);
    *out = dike_time_from_s(v);
    if (positive && *out <= 0)
        return row_error(rd, e, name, "rounds to 0 microseconds (got '%s')", text);
    return 0;
}

static void list_types(const dike_cluster *cl, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t t = 0; t < cl->ntypes && len < n; t++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", t ? ", " : "", cl->types[t].name);
}

/* Parse and check the current row into @p j (tenant and model names are interned by the caller,
 * only once the row is known to be good). */
static int parse_row(reader *rd, dike_job_spec *j, dike_err *e)
{
    char **f = rd->fields;
    const char *text;
    int64_t v;
    const char *bad;

    text = f[rd->pos[COL_JOB_ID]];
    if ((bad = dike__parse_i64(text, &v)))
        return row_error(rd, e, "job_id", "%s (got '%s')", bad, text);
    if (v < 0)
        return row_error(rd, e, "job_id", "must be >= 0 (got '%s')", text);
    j->id = v;

    text = f[rd->pos[COL_TENANT]];
    if (!*text)
        return row_error(rd, e, "tenant", "empty");
    if (strlen(text) > TENANT_NAME_MAX)
        return row_error(rd, e, "tenant", "longer than %d characters (got '%s')", TENANT_NAME_MAX, text);

    int rc = parse_seconds(rd, COL_SUBMIT, false, &j->submit, e);
    if (rc == 0)
        rc = parse_seconds(rd, COL_DURATION, true, &j->duration, e);
    if (rc)
        return rc;

    j->gpu_type = -1;
    if (rd->pos[COL_GPU_TYPE] >= 0 && *(text = f[rd->pos[COL_GPU_TYPE]])) {
        int t = dike_cluster_type_by_name(rd->cl, text);
        if (t < 0) {
            char types[256];
            list_types(rd->cl, types, sizeof types);
            return row_error(rd, e, "gpu_type", "unknown GPU type '%s' (cluster types: %s)", text, types);
        }
        j->gpu_type = (int16_t)t;
    }

    text = f[rd->pos[COL_GPUS]];
    if ((bad = dike__parse_i64(text, &v)))
        return row_error(rd, e, "num_gpus", "%s (got '%s')", bad, text);
    if (v < 1)
        return row_error(rd, e, "num_gpus", "must be >= 1 (got '%s')", text);
    uint64_t max = dike_cluster_max_gang(rd->cl, j->gpu_type);
    if ((uint64_t)v > max) {
        if (j->gpu_type >= 0)
            return row_error(rd, e, "num_gpus", "%" PRId64 " GPUs requested, the cluster has %" PRIu64
                             " '%s' GPUs", v, max, rd->cl->types[j->gpu_type].name);
        if (rd->cl->ntypes > 1)
            return row_error(rd, e, "num_gpus", "%" PRId64 " GPUs requested, the largest GPU type pool "
                             "has %" PRIu64, v, max);
        return row_error(rd, e, "num_gpus", "%" PRId64 " GPUs requested, the cluster has %" PRIu64, v,
                         max);
    }
    j->num_gpus = (uint32_t)v;

    if (rd->last_line && j->submit < rd->last_submit)
        return row_error(rd, e, "submit_time", "%s is before %.15g on line %" PRIu32
                         "; rows must be sorted by submit_time", f[rd->pos[COL_SUBMIT]],
                         dike_time_to_s(rd->last_submit), rd->last_line);
    uint32_t first = id_find(&rd->seen, j->id);
    if (first)
        return row_error(rd, e, "job_id", "duplicate job id %" PRId64 " (first on line %" PRIu32 ")",
                         j->id, first);
    if (rd->pos[COL_MODEL] >= 0 && *f[rd->pos[COL_MODEL]] && rd->w->nmodels >= INT16_MAX)
        return row_error(rd, e, "model", "more than %d model classes", INT16_MAX);
    return 0;
}

/* Store a good row: intern its names, remember its id and submit time. */
static void accept_row(reader *rd, const dike_job_spec *spec)
{
    dike_job_spec *j = dike_workload_push(rd->w);
    *j = *spec;
    j->line = rd->line;
    j->tenant = dike_workload_tenant(rd->w, rd->fields[rd->pos[COL_TENANT]]);
    j->model = -1;
    if (rd->pos[COL_MODEL] >= 0 && *rd->fields[rd->pos[COL_MODEL]])
        j->model = dike_workload_model(rd->w, rd->fields[rd->pos[COL_MODEL]]);
    id_insert(&rd->seen, j->id, rd->line);
    rd->last_submit = j->submit;
    rd->last_line = rd->line;
}

/* @p w must be freshly initialised; on any error it is left empty (freed and re-initialised). */
int dike_trace_read_dike(const char *path, const dike_cluster *cl, bool skip_invalid,
                         dike_workload *w, dike_err *e)
{
    reader rd = {.path = path, .cl = cl, .w = w};
    char *buf = NULL;
    size_t cap = 0;
    bool have_header = false;
    int rc = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return dike_err_set(e, DIKE_EIO, "%s: cannot open: %s", path, strerror(errno));
    if (strlen(path) >= sizeof w->source) {
        rc = dike_err_set(e, DIKE_EINVAL, "%s: path longer than %zu characters", path,
                          sizeof w->source - 1);
        goto out;
    }

    ssize_t len;
    errno = 0;
    while ((len = getline(&buf, &cap, f)) >= 0) {
        rd.line++;
        char *s = buf;
        if (rd.line == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
            s += 3; /* UTF-8 byte-order mark, as spreadsheet programs write it */
        bool has_nul = memchr(buf, '\0', (size_t)len) != NULL;
        if (!has_nul) {
            s = dike__trim(s);
            if (!*s || *s == '#')
                continue;
        }
        if (!have_header) {
            rc = has_nul ? row_error(&rd, e, NULL, "header: contains a NUL byte (binary file?)")
                         : read_header(&rd, s, e);
            if (rc)
                goto out;
            have_header = true;
            continue;
        }
        dike_job_spec spec = {0};
        size_t n = 0;
        if (has_nul) {
            rc = row_error(&rd, e, NULL, "contains a NUL byte (binary file?)");
        } else if ((n = split(s, rd.fields, rd.nfields)) != rd.nfields) {
            rc = row_error(&rd, e, NULL, "%zu fields, the header has %zu (fields cannot contain commas)",
                           n, rd.nfields);
        } else {
            rc = parse_row(&rd, &spec, e);
        }
        if (rc && !skip_invalid)
            goto out;
        if (rc) {
            w->skipped++;
            rc = 0;
            continue;
        }
        accept_row(&rd, &spec);
    }
    if (ferror(f)) {
        rc = dike_err_set(e, DIKE_EIO, "%s: cannot read: %s", path, strerror(errno ? errno : EIO));
        goto out;
    }
    if (!have_header) {
        rc = dike_err_set(e, DIKE_EINVAL, "%s: empty trace: no header line", path);
        goto out;
    }
    if (w->njobs == 0) {
        rc = w->skipped ? dike_err_set(e, DIKE_EINVAL, "%s: no valid jobs (%zu rows skipped)", path,
                                       w->skipped)
                        : dike_err_set(e, DIKE_EINVAL, "%s: no jobs after the header", path);
        goto out;
    }

    /* Simulated time starts at the first submit; keep the shift so outputs can map back. */
    w->time_offset = w->jobs[0].submit;
    for (size_t i = 0; i < w->njobs; i++)
        w->jobs[i].submit -= w->time_offset;
    if ((rc = dike_sha256_file(path, w->sha256, e)))
        goto out;
    snprintf(w->source, sizeof w->source, "%s", path);
out:
    if (rc)
        dike_workload_free(w);
    fclose(f);
    free(buf);
    free(rd.fields);
    free(rd.seen.ids);
    free(rd.seen.lines);
    return rc;
}
