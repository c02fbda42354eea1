#define _GNU_SOURCE /* memfd_create */
/* Trace reading for every format: the registry, format detection from the header, and the driver
 * that turns one or several files into a workload (see io/trace.h for what a format provides). */
#include "io/trace.h"
#include "base/lines.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/parse.h"

/* ---- registry: a new format is one line here ---- */

static const dike_trace_format *const registry[] = {
    &dike_trace_fmt_dike,        &dike_trace_fmt_philly_vc,    &dike_trace_fmt_rfold,
    &dike_trace_fmt_elasticflow, &dike_trace_fmt_gen_parallel, &dike_trace_fmt_openb,
    NULL};

#define NFORMATS (sizeof registry / sizeof registry[0] - 1)
#define MAX_FILES 4096

static const char *const rule_names[DIKE_SKIP_NRULES] = {
    [DIKE_SKIP_MALFORMED] = "malformed",
    [DIKE_SKIP_ZERO_DURATION] = "zero-duration",
    [DIKE_SKIP_TOO_LARGE] = "larger than the cluster",
    [DIKE_SKIP_DUPLICATE] = "duplicate id",
    [DIKE_SKIP_UNSORTED] = "out of order",
};

const char *dike_skip_rule_name(int rule)
{
    return rule >= 0 && rule < DIKE_SKIP_NRULES ? rule_names[rule] : "invalid";
}

const char *const *dike_trace_formats(void)
{
    static const char *names[NFORMATS + 1];
    for (size_t i = 0; i < NFORMATS; i++)
        names[i] = registry[i]->name;
    return names;
}

const char *dike_trace_format_summary(const char *name)
{
    for (size_t i = 0; registry[i]; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i]->summary;
    return NULL;
}

static const dike_trace_format *find_format(const char *name)
{
    for (size_t i = 0; registry[i]; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

static void list_formats(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; registry[i] && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", registry[i]->name);
}

/* ---- row helpers (io/trace.h) ---- */

int dike_trace_fail(dike_trace_file *f, dike_err *e, int rule, int col, const char *fmt, ...)
{
    char why[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    f->rule = rule;
    if (col >= 0)
        return dike_err_set(e, DIKE_EINVAL, "%s:%" PRIu32 ": field '%s': %s", f->path, f->line,
                            f->fmt->cols[col].name, why);
    return dike_err_set(e, DIKE_EINVAL, "%s:%" PRIu32 ": %s", f->path, f->line, why);
}

int dike_trace_int(dike_trace_file *f, dike_err *e, int col, int64_t lo, int64_t *v)
{
    const char *text = f->col[col], *bad;
    if ((bad = dike_parse_i64(text, v)))
        return dike_trace_fail(f, e, DIKE_SKIP_MALFORMED, col, "%s (got '%s')", bad, text);
    if (*v < lo)
        return dike_trace_fail(f, e, DIKE_SKIP_MALFORMED, col, "must be >= %" PRId64 " (got '%s')",
                                lo, text);
    return 0;
}

int dike_trace_real(dike_trace_file *f, dike_err *e, int col, double *v)
{
    const char *text = f->col[col], *bad;
    if ((bad = dike_parse_f64(text, v)))
        return dike_trace_fail(f, e, DIKE_SKIP_MALFORMED, col, "%s (got '%s')", bad, text);
    return 0;
}

int dike_trace_time(dike_trace_file *f, dike_err *e, int col, double s, const char *got,
                     dike_time *out)
{
    if (!got)
        got = f->col[col];
    if (s < 0)
        return dike_trace_fail(f, e, DIKE_SKIP_MALFORMED, col, "must be >= 0 (got '%s')", got);
    if (s > DIKE__TRACE_SECONDS_MAX)
        return dike_trace_fail(f, e, DIKE_SKIP_MALFORMED, col, "above %.0f s (got '%s')",
                                DIKE__TRACE_SECONDS_MAX, got);
    *out = dike_time_from_s(s);
    return 0;
}

int dike_trace_duration(dike_trace_file *f, dike_err *e, int col, double s, const char *got,
                         dike_time *out)
{
    if (!got)
        got = f->col[col];
    if (!(s > 0))
        return dike_trace_fail(f, e, s == 0 ? DIKE_SKIP_ZERO_DURATION : DIKE_SKIP_MALFORMED, col,
                                "must be > 0 (got '%s')", got);
    if (s > DIKE__TRACE_SECONDS_MAX)
        return dike_trace_fail(f, e, DIKE_SKIP_MALFORMED, col, "above %.0f s (got '%s')",
                                DIKE__TRACE_SECONDS_MAX, got);
    *out = dike_time_from_s(s);
    if (*out <= 0)
        return dike_trace_fail(f, e, DIKE_SKIP_ZERO_DURATION, col,
                                "rounds to 0 microseconds (got '%s')", got);
    return 0;
}

/* Row @p f's gang of @p gpus is larger than @p max, the cluster's largest for @p gpu_type. */
static int too_large(dike_trace_file *f, dike_err *e, int col, int64_t gpus, int gpu_type, uint64_t max)
{
    const dike_cluster *cl = f->cl;
    if (gpu_type >= 0)
        return dike_trace_fail(f, e, DIKE_SKIP_TOO_LARGE, col,
                                "%" PRId64 " GPUs requested, the cluster has %" PRIu64
                                " '%s' GPUs", gpus, max, cl->types[gpu_type].name);
    if (cl->ntypes > 1)
        return dike_trace_fail(f, e, DIKE_SKIP_TOO_LARGE, col,
                                "%" PRId64 " GPUs requested, the largest GPU type pool has %" PRIu64,
                                gpus, max);
    return dike_trace_fail(f, e, DIKE_SKIP_TOO_LARGE, col,
                            "%" PRId64 " GPUs requested, the cluster has %" PRIu64, gpus, max);
}

int dike_trace_gang(dike_trace_file *f, dike_err *e, int col, int64_t gpus, int gpu_type,
                     uint32_t *out)
{
    uint64_t max = dike_cluster_max_gang(f->cl, gpu_type);
    if (gpus < 1)
        return dike_trace_fail(f, e, DIKE_SKIP_MALFORMED, col, "must be >= 1 (got %" PRId64 ")",
                                gpus);
    if ((uint64_t)gpus > max) {
        if (!f->keep_large)
            return too_large(f, e, col, gpus, gpu_type, max);
        /* kept, to be judged once the window is cut (dike_workload.keep_too_large) */
        dike_err why = {0};
        too_large(f, &why, col, gpus, gpu_type, max);
        free(f->large_msg);
        f->large_msg = dike_xstrdup(why.msg);
        *out = (uint64_t)gpus > UINT32_MAX ? UINT32_MAX : (uint32_t)gpus;
        return 0;
    }
    *out = (uint32_t)gpus;
    return 0;
}

int dike_trace_submit_col(dike_trace_file *f, dike_err *e, int col, dike_time *out)
{
    double s;
    int rc = dike_trace_real(f, e, col, &s);
    return rc ? rc : dike_trace_time(f, e, col, s, NULL, out);
}

int dike_trace_duration_col(dike_trace_file *f, dike_err *e, int col, dike_time *out)
{
    double s;
    int rc = dike_trace_real(f, e, col, &s);
    return rc ? rc : dike_trace_duration(f, e, col, s, NULL, out);
}

int dike_trace_gpus_col(dike_trace_file *f, dike_err *e, int col, int gpu_type, uint32_t *out)
{
    int64_t v;
    int rc = dike_trace_int(f, e, col, 1, &v);
    return rc ? rc : dike_trace_gang(f, e, col, v, gpu_type, out);
}

int dike_trace_type(dike_trace_file *f, dike_err *e, int col, const char *name, int16_t *out)
{
    int t = dike_cluster_type_by_name(f->cl, name);
    if (t < 0) {
        char types[256];
        size_t len = 0;
        types[0] = '\0';
        for (uint32_t i = 0; i < f->cl->ntypes && len < sizeof types; i++)
            len += (size_t)snprintf(types + len, sizeof types - len, "%s%s", i ? ", " : "",
                                    f->cl->types[i].name);
        return dike_trace_fail(f, e, DIKE_SKIP_MALFORMED, col,
                                "unknown GPU type '%s' (cluster types: %s)", name, types);
    }
    *out = (int16_t)t;
    return 0;
}

int dike_trace_name(dike_trace_file *f, dike_err *e, int col)
{
    const char *text = f->col[col];
    if (!*text)
        return dike_trace_fail(f, e, DIKE_SKIP_MALFORMED, col, "empty");
    if (strlen(text) > DIKE__TENANT_NAME_MAX)
        return dike_trace_fail(f, e, DIKE_SKIP_MALFORMED, col, "longer than %d characters (got '%s')",
                                DIKE__TENANT_NAME_MAX, text);
    return 0;
}

/* ---- job ids seen so far: numeric ids or textual keys, with where they were first seen ---- */

typedef struct id_entry {
    uint64_t hash;
    int64_t id;     /**< numeric id (key == NULL) */
    char *key;      /**< textual id (owned), or NULL */
    uint32_t line;  /**< 0 = empty slot (lines start at 1) */
    uint32_t file;  /**< file index */
} id_entry;

typedef struct id_set {
    id_entry *a;
    size_t cap, n;
} id_set;

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x *= UINT64_C(0xc4ceb9fe1a85ec53);
    x ^= x >> 33;
    return x;
}

static uint64_t hash_text(const char *s)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325); /* FNV-1a, then mixed */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
    return mix64(h);
}

/* Slot holding (hash, id/key), or the empty slot where it would go. */
static id_entry *id_slot(const id_set *s, uint64_t hash, int64_t id, const char *key)
{
    size_t mask = s->cap - 1;
    for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
        id_entry *x = &s->a[i];
        if (!x->line)
            return x;
        if (x->hash == hash && (key ? x->key && strcmp(x->key, key) == 0 : !x->key && x->id == id))
            return x;
    }
}

static void id_insert(id_set *s, uint64_t hash, int64_t id, const char *key, uint32_t line,
                      uint32_t file)
{
    if (2 * (s->n + 1) > s->cap) {
        id_set bigger = {.cap = s->cap ? 2 * s->cap : 1024};
        bigger.a = dike_xcalloc(bigger.cap, sizeof *bigger.a);
        for (size_t i = 0; i < s->cap; i++)
            if (s->a[i].line)
                *id_slot(&bigger, s->a[i].hash, s->a[i].id, s->a[i].key) = s->a[i];
        bigger.n = s->n;
        free(s->a);
        *s = bigger;
    }
    id_entry *x = id_slot(s, hash, id, key);
    *x = (id_entry){.hash = hash, .id = id, .key = key ? dike_xstrdup(key) : NULL, .line = line,
                    .file = file};
    s->n++;
}

static const id_entry *id_find(const id_set *s, uint64_t hash, int64_t id, const char *key)
{
    if (!s->cap)
        return NULL;
    const id_entry *x = id_slot(s, hash, id, key);
    return x->line ? x : NULL;
}

static void id_free(id_set *s)
{
    for (size_t i = 0; i < s->cap; i++)
        free(s->a[i].key);
    free(s->a);
    memset(s, 0, sizeof *s);
}

/* ---- the driver ---- */

typedef struct reader {
    const dike_cluster *cl;
    bool skip;
    dike_workload *w;
    const dike_trace_format *fmt;
    char *const *paths; /**< files being read, as named in messages */
    char *const *opens; /**< per file: the name to open (a spooled stream's copy), or NULL */
    char (*sha)[65];    /**< per file: its SHA-256, taken while it is read */
    id_set seen;
} reader;

static size_t count_fields(const char *s)
{
    size_t n = 1;
    for (; *s; s++)
        n += *s == ',';
    return n;
}

/* File name without folder and extension: the tenant of formats that have none. */
static void file_stem(const char *path, char *out, size_t n)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    snprintf(out, n, "%.*s", (int)len, base);
}

static void list_columns(const dike_trace_format *fmt, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int c = 0; c < fmt->ncols && len < n; c++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", c ? ", " : "", fmt->cols[c].name);
}

/* Map the header @p text onto the format's columns; returns the header's field count, or 0 with
 * an error. */
static size_t parse_header(dike_trace_file *f, char *text, dike_err *e)
{
    const dike_trace_format *fmt = f->fmt;
    size_t n = count_fields(text);
    char **names = dike_xcalloc(n, sizeof *names);
    dike_split_csv(text, names, n);
    for (int c = 0; c < fmt->ncols; c++)
        f->pos[c] = -1;
    size_t rc = n;
    f->rule = DIKE__RULE_FATAL;
    for (size_t i = 0; i < n && rc; i++) {
        int c = 0;
        while (c < fmt->ncols && strcmp(fmt->cols[c].name, names[i]))
            c++;
        if (c == fmt->ncols) {
            if (fmt->flags & DIKE__TF_STRICT) {
                char cols[512];
                list_columns(fmt, cols, sizeof cols);
                dike_trace_fail(f, e, DIKE__RULE_FATAL, -1, "header: unknown column '%s' (columns: %s)",
                                 names[i], cols);
                rc = 0;
            }
            continue;
        }
        if (f->pos[c] >= 0) {
            dike_trace_fail(f, e, DIKE__RULE_FATAL, -1, "header: column '%s' appears twice", names[i]);
            rc = 0;
        }
        f->pos[c] = (int)i;
    }
    for (int c = 0; c < fmt->ncols && rc; c++) {
        if (fmt->cols[c].required && f->pos[c] < 0) {
            dike_trace_fail(f, e, DIKE__RULE_FATAL, -1, "header: missing column '%s'", fmt->cols[c].name);
            rc = 0;
        }
    }
    free(names);
    return rc;
}

/* Driver checks of a mapped row: order (dike format), duplicate ids, name limits. */
static int check_row(reader *rd, dike_trace_file *f, const dike_trace_row *r, const char *stem,
                     dike_err *e)
{
    const dike_trace_format *fmt = f->fmt;
    if ((fmt->flags & DIKE__TF_SORTED) && f->last_line && r->submit < f->last_submit)
        return dike_trace_fail(f, e, DIKE_SKIP_UNSORTED, fmt->submit_col,
                                "%s is before %.15g on line %" PRIu32 "; rows must be sorted by %s",
                                f->col[fmt->submit_col], dike_time_to_s(f->last_submit), f->last_line,
                                fmt->cols[fmt->submit_col].name);
    bool numeric = fmt->flags & DIKE__TF_ROW_IDS;
    if (numeric || r->key) {
        const id_entry *x = numeric ? id_find(&rd->seen, mix64((uint64_t)r->id), r->id, NULL)
                                    : id_find(&rd->seen, hash_text(r->key), 0, r->key);
        if (x) {
            char id[64], where[1100];
            if (numeric)
                snprintf(id, sizeof id, "%" PRId64, r->id);
            else
                snprintf(id, sizeof id, "%s", r->key);
            if (x->file == f->index)
                snprintf(where, sizeof where, "line %" PRIu32, x->line);
            else
                snprintf(where, sizeof where, "%s:%" PRIu32, rd->paths[x->file], x->line);
            return dike_trace_fail(f, e, DIKE_SKIP_DUPLICATE, fmt->id_col,
                                    "duplicate job id %s (first on %s)", id, where);
        }
    }
    if (r->model && *r->model && rd->w->nmodels >= INT16_MAX)
        return dike_trace_fail(f, e, DIKE_SKIP_MALFORMED, -1, "more than %d model classes", INT16_MAX);
    if (!r->tenant && strlen(stem) > DIKE__TENANT_NAME_MAX)
        return dike_trace_fail(f, e, DIKE__RULE_FATAL, -1,
                                "the file name is the tenant of this format and is longer than %d "
                                "characters", DIKE__TENANT_NAME_MAX);
    return 0;
}

/* Store a good row: intern its names, remember its id and submit time. */
static void accept_row(reader *rd, dike_trace_file *f, const dike_trace_row *r, const char *stem)
{
    dike_workload *w = rd->w;
    dike_job_spec *j = dike_workload_push(w);
    j->id = r->id;
    j->submit = r->submit;
    j->duration = r->duration;
    j->num_gpus = r->gpus;
    j->gpu_type = r->gpu_type;
    j->line = f->line;
    j->tenant = dike_workload_tenant(w, r->tenant ? r->tenant : stem);
    j->model = r->model && *r->model ? dike_workload_model(w, r->model) : -1;
    if (f->fmt->flags & DIKE__TF_ROW_IDS)
        id_insert(&rd->seen, mix64((uint64_t)r->id), r->id, NULL, f->line, f->index);
    else if (r->key)
        id_insert(&rd->seen, hash_text(r->key), 0, r->key, f->line, f->index);
    if (r->fractional)
        w->fractional++;
    f->last_submit = r->submit;
    f->last_line = f->line;
}

/* A row was refused: stop (copying the message), or count it under its rule. */
static int refuse_row(reader *rd, const dike_trace_file *f, const dike_err *row_err, dike_err *e)
{
    if (!rd->skip || f->rule < 0 || f->rule >= DIKE_SKIP_NRULES)
        return dike_err_set(e, DIKE_EINVAL, "%s", row_err->msg);
    dike_workload *w = rd->w;
    w->skipped++;
    w->skips[f->rule]++;
    if (!w->skip_msg[f->rule])
        w->skip_msg[f->rule] = dike_xstrdup(row_err->msg);
    return 0;
}

static int read_file(reader *rd, uint32_t index, dike_err *e)
{
    const char *path = rd->paths[index];
    dike_trace_file f = {.fmt = rd->fmt, .cl = rd->cl, .path = path, .index = index,
                         .keep_large = rd->w->keep_too_large};
    const unsigned flags = rd->fmt->flags;
    char *buf = NULL, **fields = NULL, stem[256];
    size_t nfields = 0;
    bool have_header = false;
    dike_err row_err = {0};
    int rc = 0;
    const char *open_as = rd->opens && rd->opens[index] ? rd->opens[index] : path;
    file_stem(path, stem, sizeof stem);
    if ((rc = dike_input_regular(open_as, "trace", e)))
        return rc;
    /* One pass over the file: the lines and its SHA-256 (recorded in the output) together. */
    dike_lines in;
    if ((rc = dike_lines_open(&in, open_as, true, e)))
        return rc;

    long len;
    while ((len = dike_lines_next(&in, &buf, DIKE__LINE_MAX)) >= 0) {
        f.line++;
        char *s = buf;
        if (f.line == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
            s += 3; /* UTF-8 byte-order mark, as spreadsheet programs write it */
        bool has_nul = memchr(buf, '\0', (size_t)len) != NULL;
        if (!has_nul) {
            s = dike_trim(s);
            if (!*s)
                continue;
            if (*s == '#' && (have_header || !(flags & DIKE__TF_HASH_HEADER)))
                continue; /* a comment */
        }
        if (!have_header) {
            if (has_nul) {
                rc = dike_trace_fail(&f, e, DIKE__RULE_FATAL, -1, "header: contains a NUL byte (binary file?)");
                goto out;
            }
            if (*s == '#')
                s++;
            if (!(nfields = parse_header(&f, s, e))) {
                rc = DIKE_EINVAL;
                goto out;
            }
            fields = dike_xcalloc(nfields, sizeof *fields);
            have_header = true;
            continue;
        }
        dike_trace_row r = {.gpu_type = -1};
        size_t n = 0;
        if (has_nul) {
            rc = dike_trace_fail(&f, &row_err, DIKE_SKIP_MALFORMED, -1, "contains a NUL byte (binary file?)");
        } else if ((n = dike_split_csv(s, fields, nfields)) != nfields) {
            rc = dike_trace_fail(&f, &row_err, flags & DIKE__TF_CLOCK ? DIKE__RULE_FATAL : DIKE_SKIP_MALFORMED,
                                  -1, "%zu fields, the header has %zu (fields cannot contain commas)", n,
                                  nfields);
        } else {
            for (int c = 0; c < rd->fmt->ncols; c++)
                f.col[c] = f.pos[c] >= 0 ? fields[f.pos[c]] : NULL;
            rc = rd->fmt->row(&f, &r, &row_err);
            if (rc == DIKE__ROW_NO_GPU) {
                rd->w->no_gpu_rows++;
                rc = 0;
                continue;
            }
            if (rc == 0)
                rc = check_row(rd, &f, &r, stem, &row_err);
        }
        if (rc) {
            free(f.large_msg); /* refused for another reason: that message is the row's */
            f.large_msg = NULL;
            if ((rc = refuse_row(rd, &f, &row_err, e)))
                goto out;
            continue;
        }
        accept_row(rd, &f, &r, stem);
        if (f.large_msg) { /* larger than the cluster: judged once the window is cut */
            dike_workload *w = rd->w;
            if (w->ntoo_large == w->too_large_cap) {
                w->too_large_cap = w->too_large_cap ? 2 * w->too_large_cap : 16;
                w->too_large = dike_xrealloc(w->too_large, w->too_large_cap * sizeof *w->too_large);
            }
            w->too_large[w->ntoo_large++] = (dike_too_large){.idx = w->njobs - 1, .msg = f.large_msg};
            f.large_msg = NULL;
        }
    }
    if (len == -2) {
        rc = dike_err_set(e, DIKE_EINVAL, "%s:%" PRIu32 ": line longer than %zu bytes", path, f.line + 1,
                          DIKE__LINE_MAX);
        goto out;
    }
    if (in.err) {
        rc = dike_err_set(e, DIKE_EIO, "%s: cannot read: %s", path, strerror(in.err));
        goto out;
    }
    if (!have_header)
        rc = dike_err_set(e, DIKE_EINVAL, "%s: empty trace: no header line", path);
    else
        rc = dike_lines_sha256(&in, path, rd->sha[index], e);
out:
    dike_lines_close(&in);
    free(fields);
    free(f.large_msg);
    return rc;
}

typedef struct sort_key {
    dike_time submit;
    uint32_t idx;
} sort_key;

static int cmp_key(const void *pa, const void *pb)
{
    const sort_key *a = pa, *b = pb;
    if (a->submit != b->submit)
        return a->submit < b->submit ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Jobs in submit order; ties keep reading order (file order, then row order). */
static void sort_jobs(dike_workload *w)
{
    size_t n = w->njobs;
    bool sorted = true;
    for (size_t i = 1; i < n && sorted; i++)
        sorted = w->jobs[i - 1].submit <= w->jobs[i].submit;
    if (sorted)
        return;
    sort_key *k = dike_xmalloc(n * sizeof *k);
    for (size_t i = 0; i < n; i++)
        k[i] = (sort_key){w->jobs[i].submit, (uint32_t)i};
    qsort(k, n, sizeof *k, cmp_key);
    dike_job_spec *jobs = dike_xmalloc(w->cap * sizeof *jobs);
    for (size_t i = 0; i < n; i++)
        jobs[i] = w->jobs[k[i].idx];
    free(w->jobs);
    w->jobs = jobs;
    if (w->ntoo_large) { /* the rows kept larger than the cluster follow their jobs */
        size_t *at = dike_xmalloc(n * sizeof *at);
        for (size_t i = 0; i < n; i++)
            at[k[i].idx] = i;
        for (size_t i = 0; i < w->ntoo_large; i++)
            w->too_large[i].idx = at[w->too_large[i].idx];
        free(at);
    }
    free(k);
}

/* sha256 of the files (each taken while it was read): the file's own for one, else the sha256 of
 * their hex digests, one per line. */
static int trace_sha256(char (*sha)[65], uint32_t n, char out[65], dike_err *e)
{
    if (n == 1) {
        memcpy(out, sha[0], 65);
        return 0;
    }
    char *text = dike_xmalloc((size_t)n * 65 + 1);
    int rc = 0;
    size_t len = 0;
    for (uint32_t i = 0; i < n; i++)
        len += (size_t)sprintf(text + len, "%s\n", sha[i]);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (!rc && (!EVP_Digest(text, len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32))
        rc = dike_err_set(e, DIKE_EINTERNAL, "OpenSSL SHA-256 failed");
    for (unsigned int i = 0; !rc && i < mdlen; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
    free(text);
    return rc;
}

/* Read @p n files of format @p fmt into @p w (freshly initialised; emptied on error). */
static int read_files(const dike_trace_format *fmt, char *const *paths, char *const *opens,
                      uint32_t n, const char *source, const dike_cluster *cl, bool skip_invalid,
                      dike_workload *w, dike_err *e)
{
    reader rd = {.cl = cl, .skip = skip_invalid, .w = w, .fmt = fmt, .paths = paths, .opens = opens,
                 .sha = dike_xcalloc(n ? n : 1, sizeof *rd.sha)};
    int rc = 0;
    w->too_large_skip = skip_invalid;
    if (strlen(source) >= sizeof w->source) {
        rc = dike_err_set(e, DIKE_EINVAL, "%s: path longer than %zu characters", source,
                          sizeof w->source - 1);
        goto out;
    }
    for (uint32_t i = 0; i < n && !rc; i++)
        rc = read_file(&rd, i, e);
    if (rc)
        goto out;
    if (w->njobs == 0) {
        if (w->skipped || w->no_gpu_rows)
            rc = dike_err_set(e, DIKE_EINVAL, "%s: no valid jobs (%zu rows skipped%s)", source,
                              w->skipped + w->no_gpu_rows, w->no_gpu_rows ? ", some without GPUs" : "");
        else
            rc = dike_err_set(e, DIKE_EINVAL, "%s: no jobs after the header", source);
        goto out;
    }
    if (w->njobs > UINT32_MAX - 1) {
        rc = dike_err_set(e, DIKE_EINVAL, "%s: more than %u jobs", source, UINT32_MAX - 1);
        goto out;
    }
    sort_jobs(w);
    /* Tenant and model indices in order of first submit, whatever the file order (unsorted
     * formats, merged files): the same jobs get the same indices from any format. */
    dike_workload_renumber_names(w);
    if (!(fmt->flags & DIKE__TF_ROW_IDS))
        for (size_t i = 0; i < w->njobs; i++)
            w->jobs[i].id = (int64_t)i;
    /* Simulated time starts at the first submit; keep the shift so outputs can map back. */
    w->time_offset = w->jobs[0].submit;
    for (size_t i = 0; i < w->njobs; i++)
        w->jobs[i].submit -= w->time_offset;
    if ((rc = trace_sha256(rd.sha, n, w->sha256, e)))
        goto out;
    snprintf(w->source, sizeof w->source, "%s", source);
    snprintf(w->format, sizeof w->format, "%s", fmt->name);
out:
    if (rc)
        dike_workload_free(w);
    id_free(&rd.seen);
    free(rd.sha);
    return rc;
}

int dike_trace_read_dike(const char *path, const dike_cluster *cl, bool skip_invalid,
                         dike_workload *w, dike_err *e)
{
    char *paths[1] = {(char *)path};
    return read_files(&dike_trace_fmt_dike, paths, NULL, 1, path, cl, skip_invalid, w, e);
}

/* ---- detection ---- */

/* How many of @p fmt's required columns the header names, and whether it names them all. */
static int header_score(const dike_trace_format *fmt, char **names, size_t n, bool *complete)
{
    int score = 0;
    *complete = true;
    for (int c = 0; c < fmt->ncols; c++) {
        if (!fmt->cols[c].required)
            continue;
        bool found = false;
        for (size_t i = 0; i < n && !found; i++)
            found = strcmp(fmt->cols[c].name, names[i]) == 0;
        score += found;
        *complete = *complete && found;
    }
    return score;
}

/* The format whose header this is: the first that names every required column; failing that, the
 * one naming the most required columns (at least 2, and no tie), so that a header missing one
 * column gets that format's "missing column" message instead of a vague one. NULL if none. */
static const dike_trace_format *match_header(const char *line, bool hash)
{
    char *copy = dike_xstrdup(line + (hash ? 1 : 0));
    size_t n = count_fields(copy);
    char **names = dike_xcalloc(n, sizeof *names);
    dike_split_csv(copy, names, n);
    const dike_trace_format *best = NULL, *found = NULL;
    int best_score = 0, ties = 0;
    for (size_t i = 0; registry[i] && !found; i++) {
        const dike_trace_format *fmt = registry[i];
        if (!(fmt->flags & DIKE__TF_HASH_HEADER) != !hash)
            continue;
        bool complete;
        int score = header_score(fmt, names, n, &complete);
        if (complete) {
            found = fmt;
        } else if (score >= 2 && score > best_score) {
            best = fmt;
            best_score = score;
            ties = 0;
        } else if (score >= 2 && score == best_score) {
            ties++;
        }
    }
    free(names);
    free(copy);
    return found ? found : ties ? NULL : best;
}

static int detect_file(const char *path, const char *open_as, const dike_trace_format **out,
                       dike_err *e)
{
    char *buf = NULL;
    size_t cap = 0;
    uint32_t line = 0;
    int rc = 0;
    bool first = true;
    *out = NULL;
    if ((rc = dike_input_regular(open_as, "trace", e)))
        return rc;
    FILE *fp = fopen(open_as, "r");
    if (!fp)
        return dike_err_set(e, DIKE_EIO, "%s: cannot open: %s", path, strerror(errno));
    errno = 0;
    long len;
    while ((len = dike_getline_capped(&buf, &cap, fp, DIKE__LINE_MAX)) >= 0) {
        line++;
        char *s = buf;
        if (line == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
            s += 3;
        if (memchr(buf, '\0', (size_t)len)) {
            rc = dike_err_set(e, DIKE_EINVAL, "%s:%" PRIu32 ": header: contains a NUL byte (binary file?)",
                              path, line);
            goto out;
        }
        s = dike_trim(s);
        if (!*s)
            continue;
        /* Only the first non-blank line may be a '#' header (RFold); later '#' lines are comments. */
        if (*s == '#') {
            if (first && (*out = match_header(s, true)))
                goto out;
            first = false;
            continue;
        }
        if (!(*out = match_header(s, false))) {
            char known[256];
            list_formats(known, sizeof known);
            rc = dike_err_set(e, DIKE_EINVAL,
                              "%s:%" PRIu32 ": cannot tell the trace format from the header '%.200s' "
                              "(formats: %s; a node list belongs in cluster.nodes_file; or set "
                              "--trace-format)", path, line, s, known);
        }
        goto out;
    }
    if (len == -2)
        rc = dike_err_set(e, DIKE_EINVAL, "%s:%" PRIu32 ": line longer than %zu bytes", path, line + 1,
                          DIKE__LINE_MAX);
    else if (ferror(fp))
        rc = dike_err_set(e, DIKE_EIO, "%s: cannot read: %s", path, strerror(errno ? errno : EIO));
    else
        rc = dike_err_set(e, DIKE_EINVAL, "%s: empty trace: no header line", path);
out:
    fclose(fp);
    free(buf);
    return rc;
}

int dike_trace_detect(const char *path, char *name, size_t n, dike_err *e)
{
    const dike_trace_format *fmt;
    int rc = detect_file(path, path, &fmt, e);
    if (!rc)
        snprintf(name, n, "%s", fmt->name);
    return rc;
}

/* ---- the files of a trace setting ---- */

typedef struct path_list {
    char **p;    /**< names, as given (messages) */
    char **open; /**< per file: the name to open instead (a spooled stream), or NULL */
    int *fd;     /**< per file: the spool's descriptor, or -1 */
    uint32_t n, cap;
} path_list;

static int add_path(path_list *l, const char *path, dike_err *e)
{
    if (l->n == MAX_FILES)
        return dike_err_set(e, DIKE_EINVAL, "%s: more than %d trace files", path, MAX_FILES);
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->p = dike_xrealloc(l->p, l->cap * sizeof *l->p);
        l->open = dike_xrealloc(l->open, l->cap * sizeof *l->open);
        l->fd = dike_xrealloc(l->fd, l->cap * sizeof *l->fd);
    }
    l->open[l->n] = NULL;
    l->fd[l->n] = -1;
    l->p[l->n++] = dike_xstrdup(path);
    return 0;
}

static void free_paths(path_list *l)
{
    for (uint32_t i = 0; i < l->n; i++) {
        free(l->p[i]);
        free(l->open[i]);
        if (l->fd[i] >= 0)
            close(l->fd[i]);
    }
    free(l->p);
    free(l->open);
    free(l->fd);
    memset(l, 0, sizeof *l);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder stands for its *.csv files, in name order. Every *.csv entry must be a regular file
 * (or a symlink to one): a dangling symlink, a symlink loop, a subfolder or a special file with
 * that name is refused, naming it, rather than skipped — a trace missing part of its jobs would
 * otherwise run without a word. Other names are not looked at. */
static int add_folder(path_list *l, const char *dir, dike_err *e)
{
    DIR *d = opendir(dir);
    if (!d)
        return dike_err_set(e, DIKE_EIO, "%s: cannot open: %s", dir, strerror(errno));
    uint32_t first = l->n;
    int rc = 0;
    struct dirent *de;
    while (!rc && (de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 4, ".csv"))
            continue;
        size_t plen = strlen(dir) + len + 2;
        char *p = dike_xmalloc(plen);
        snprintf(p, plen, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", de->d_name);
        struct stat st;
        if (stat(p, &st) != 0)
            rc = dike_err_set(e, DIKE_EIO, "%s: a *.csv entry of the trace folder that cannot be "
                              "read: %s%s", p, strerror(errno),
                              errno == ENOENT ? " (a dangling symlink?)" : "");
        else if (S_ISDIR(st.st_mode))
            rc = dike_err_set(e, DIKE_EINVAL, "%s: a folder named *.csv inside the trace folder "
                              "(folders are not read recursively: rename or move it)", p);
        else if (!S_ISREG(st.st_mode))
            rc = dike_input_regular(p, "trace", e);
        else
            rc = add_path(l, p, e);
        free(p);
    }
    closedir(d);
    if (!rc && l->n == first)
        rc = dike_err_set(e, DIKE_EINVAL, "%s: a folder without *.csv files", dir);
    if (!rc) {
        /* the entries added here are plain files: sort their names (open and fd are NULL, -1) */
        qsort(l->p + first, l->n - first, sizeof *l->p, cmp_str);
    }
    return rc;
}

/* ---- a trace read from a stream (`-`, a pipe or a FIFO), read once ---- */

/* A stream can be read only once, and a trace is read more than once (format detection, then
 * the rows and checksum): it is copied whole into an anonymous in-memory file first, which is
 * then opened by name like any file. */
#define STREAM_MAX ((size_t)1 << 30)

/* Seconds to wait for a stream's first byte: a FIFO nobody writes to would block forever. The
 * environment variable is for tests and slow producers. */
static double stream_wait_s(void)
{
    const char *v = getenv("DIKE_STREAM_WAIT_S");
    char *end;
    double s = v ? strtod(v, &end) : 0;
    return v && end != v && !*end && s > 0 && s < 1e6 ? s : 60;
}

static int spool_copy(const char *name, int in, int out, dike_err *e)
{
    char buf[1 << 16];
    size_t total = 0;
    for (;;) {
        ssize_t got = read(in, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 && errno == EAGAIN) { /* a FIFO still open without O_NONBLOCK cleared */
            struct pollfd pf = {.fd = in, .events = POLLIN};
            poll(&pf, 1, -1);
            continue;
        }
        if (got < 0)
            return dike_err_set(e, DIKE_EIO, "%s: cannot read: %s", name, strerror(errno));
        if (got == 0)
            return 0;
        if ((total += (size_t)got) > STREAM_MAX)
            return dike_err_set(e, DIKE_EINVAL, "%s: a trace stream longer than %zu MiB (give a "
                                "file)", name, STREAM_MAX >> 20);
        for (ssize_t done = 0; done < got;) {
            ssize_t put = write(out, buf + done, (size_t)(got - done));
            if (put < 0 && errno == EINTR)
                continue;
            if (put < 0)
                return dike_err_set(e, DIKE_EIO, "%s: cannot keep a copy of the stream in memory: %s",
                                    name, strerror(errno));
            done += put;
        }
    }
}

/* Copy stream @p name (standard input for "-") into l's last entry's spool. */
static int spool_stream(path_list *l, const char *name, dike_err *e)
{
    bool is_stdin = strcmp(name, "-") == 0;
    int in = is_stdin ? 0 : open(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (in < 0)
        return dike_err_set(e, DIKE_EIO, "%s: cannot open: %s", name, strerror(errno));
    const char *shown = is_stdin ? "- (standard input)" : name;
    int rc = 0;
    struct pollfd pf = {.fd = in, .events = POLLIN};
    double wait = stream_wait_s();
    int ready;
    do
        ready = poll(&pf, 1, (int)(wait * 1000));
    while (ready < 0 && errno == EINTR);
    if (ready == 0)
        rc = dike_err_set(e, DIKE_EIO, "%s: no data within %g s (a FIFO nobody writes to?)", shown, wait);
    else if (ready < 0)
        rc = dike_err_set(e, DIKE_EIO, "%s: cannot wait for data: %s", shown, strerror(errno));
    if (!rc && !is_stdin) /* a writer is there: blocking reads from now on */
        fcntl(in, F_SETFL, fcntl(in, F_GETFL) & ~O_NONBLOCK);
    int out = -1;
    if (!rc && (out = memfd_create("dike-emu-trace", MFD_CLOEXEC)) < 0)
        rc = dike_err_set(e, DIKE_EIO, "%s: cannot keep a copy of the stream in memory: %s", shown,
                          strerror(errno));
    if (!rc)
        rc = spool_copy(shown, in, out, e);
    if (!is_stdin)
        close(in);
    if (!rc && (rc = add_path(l, is_stdin ? "-" : name, e)) == 0) {
        char open_as[64];
        snprintf(open_as, sizeof open_as, "/proc/self/fd/%d", out);
        l->open[l->n - 1] = dike_xstrdup(open_as);
        l->fd[l->n - 1] = out;
        out = -1;
    }
    if (out >= 0)
        close(out);
    return rc;
}

static int expand(const char *spec, path_list *l, dike_err *e)
{
    char *copy = dike_xstrdup(spec), *s = copy;
    int rc = 0;
    bool used_stdin = false;
    for (;;) {
        char *comma = strchr(s, ',');
        if (comma)
            *comma = '\0';
        char *p = dike_trim(s);
        struct stat st;
        if (!*p)
            rc = dike_err_set(e, DIKE_EINVAL, "[workload] trace: empty file name in '%s'", spec);
        else if (strcmp(p, "-") == 0 && used_stdin)
            rc = dike_err_set(e, DIKE_EINVAL, "[workload] trace: '-' (standard input) given twice");
        else if (strcmp(p, "-") == 0 && fstat(0, &st) == 0 && isatty(0))
            rc = dike_err_set(e, DIKE_EINVAL, "[workload] trace: '-' reads standard input, which is a "
                              "terminal: pipe or redirect a trace into it");
        else if (strcmp(p, "-") == 0)
            used_stdin = true, rc = spool_stream(l, p, e);
        else if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
            rc = add_folder(l, p, e);
        else if (stat(p, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
            rc = spool_stream(l, p, e); /* /dev/stdin on a pipe, <(...), a FIFO: read once */
        else if (!(rc = dike_input_regular(p, "trace", e))) /* before any open: /dev/zero */
            rc = add_path(l, p, e); /* a missing file is reported when it is opened */
        if (rc || !comma)
            break;
        s = comma + 1;
    }
    free(copy);
    return rc;
}

int dike_trace_read(const char *spec, const char *format, const dike_cluster *cl, bool skip_invalid,
                    dike_workload *w, dike_err *e)
{
    path_list l = {0};
    const dike_trace_format *fmt = NULL;
    int rc = 0;
    bool detect = strcmp(format, "auto") == 0;
    if (!detect && !(fmt = find_format(format))) {
        char known[256];
        list_formats(known, sizeof known);
        rc = dike_err_set(e, DIKE_EINVAL, "[workload] trace_format: unknown format '%s' (known: auto, %s)",
                          format, known);
        goto out;
    }
    if ((rc = expand(spec, &l, e)))
        goto out;
    for (uint32_t i = 0; detect && i < l.n; i++) {
        const dike_trace_format *f;
        if ((rc = detect_file(l.p[i], l.open[i] ? l.open[i] : l.p[i], &f, e)))
            goto out;
        if (fmt && f != fmt) {
            rc = dike_err_set(e, DIKE_EINVAL, "%s: format %s, but %s is %s: the files of one trace "
                              "must share a format", l.p[i], f->name, l.p[0], fmt->name);
            goto out;
        }
        fmt = f;
    }
    rc = read_files(fmt, l.p, l.open, l.n, spec, cl, skip_invalid, w, e);
out:
    free_paths(&l);
    return rc;
}
