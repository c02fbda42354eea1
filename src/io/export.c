/* dike-emu export: a run's /jobs as a Batsim-like per-job CSV and its summary as JSON (columns and
 * keys in docs/output-schema.md, "Exports"), and the stored configuration for run --config-from.
 * Both files are built in memory first, so a bad input leaves no partial file. */
#include "dike/export.h"
#include "dike/outpath.h"
#include "io/h5in.h"
#include "io/json.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bounded slowdown's threshold: jobs shorter than this count as this long, so that a 1 s job
 * waiting 1 min does not dominate the mean (Feitelson et al.'s usual 10 s). */
#define BSLD_TAU_S 10.0

int dike_output_config(const char *path, char **text, dike_err *e)
{
    hid_t f;
    int rc = dike_h5in_open(path, &f, e);
    if (!rc) {
        rc = dike_h5in_str_attr(f, path, "config", text, e);
        dike_h5in_close(f);
    }
    return rc;
}

int dike_output_source(const char *path, char **source, char **build, dike_err *e)
{
    hid_t f;
    *source = *build = NULL;
    int rc = dike_h5in_open(path, &f, e);
    if (!rc) {
        rc = dike_h5in_opt_str_attr(f, path, "source_sha256", source, e);
        if (!rc)
            rc = dike_h5in_opt_str_attr(f, path, "build", build, e);
        dike_h5in_close(f);
    }
    if (rc) {
        free(*source);
        free(*build);
        *source = *build = NULL;
    }
    return rc;
}

/* ---- CSV (RFC 4180: CRLF line ends; a field holding a comma, quote, CR or LF is quoted, its
 * quotes doubled) ---- */

static void csv_str(FILE *f, const char *s, bool first)
{
    if (!first)
        fputc(',', f);
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* The shortest of %.15g..%.17g that reads back to the same double; an empty field when the value
 * does not exist (NaN: a time that never happened, a ratio of a job that never finished). */
static void csv_num(FILE *f, double v)
{
    char buf[40] = "";
    if (isfinite(v)) {
        for (int digits = 15; digits <= 17; digits++) {
            snprintf(buf, sizeof buf, "%.*g", digits, v);
            if (strtod(buf, NULL) == v)
                break;
        }
    }
    fputc(',', f);
    fputs(buf, f);
}

static void csv_uint(FILE *f, unsigned long long v)
{
    fprintf(f, ",%llu", v);
}

/* Derived per-job values (NaN where they do not exist). */
typedef struct job_derived {
    double waiting, execution, turnaround, slowdown, bounded_slowdown, stretch;
    const char *state;
} job_derived;

static job_derived derive(const dike_job_record *j)
{
    job_derived d = {NAN, NAN, NAN, NAN, NAN, NAN, "NOT_STARTED"};
    if (j->start_time >= 0) {
        d.waiting = j->start_time - j->submit_time;
        d.state = "NOT_FINISHED";
    }
    if (j->finish_time >= 0) {
        d.state = "COMPLETED";
        d.execution = j->finish_time - j->start_time;
        d.turnaround = j->finish_time - j->submit_time;
        if (j->duration > 0) {
            d.slowdown = d.turnaround / j->duration;
            double b = d.turnaround / (j->duration > BSLD_TAU_S ? j->duration : BSLD_TAU_S);
            d.bounded_slowdown = b > 1 ? b : 1;
        }
        if (d.execution > 0)
            d.stretch = d.turnaround / d.execution;
    }
    return d;
}

static const char *const job_columns[] = {
    "job_id", "tenant", "tenant_index", "submission_time", "starting_time", "finish_time",
    "final_state", "num_gpus", "duration", "waiting_time", "execution_time", "run_time",
    "turnaround_time", "slowdown", "bounded_slowdown", "stretch", "t_ideal", "rho", "preemptions",
    "migrations", "restarts", "lost_work", "gpu_type", "allocated_nodes", NULL};

/* Batsim's interval-set notation of a job's nodes (ascending ids): "0-3 7 9-10". Empty if none. */
static void csv_nodes(FILE *f, const uint32_t *ids, uint64_t n)
{
    fputc(',', f);
    for (uint64_t i = 0; i < n;) {
        uint64_t k = i;
        while (k + 1 < n && ids[k + 1] == ids[k] + 1)
            k++;
        fprintf(f, "%s%u", i ? " " : "", ids[i]);
        if (k > i)
            fprintf(f, "-%u", ids[k]);
        i = k + 1;
    }
}

static void jobs_csv(FILE *f, const dike_job_record *jobs, size_t n, const dike_tenant_record *ten,
                     size_t nten, const uint64_t *node_off, const uint32_t *node_ids)
{
    for (const char *const *c = job_columns; *c; c++)
        csv_str(f, *c, c == job_columns);
    fputs("\r\n", f);
    for (size_t i = 0; i < n; i++) {
        const dike_job_record *j = &jobs[i];
        job_derived d = derive(j);
        char name[DIKE_NAME_MAX + 1] = "";
        if (j->tenant < nten)
            snprintf(name, sizeof name, "%.*s", DIKE_NAME_MAX, ten[j->tenant].name);
        fprintf(f, "%lld", (long long)j->job_id);
        csv_str(f, name, false);
        csv_uint(f, j->tenant);
        csv_num(f, j->submit_time);
        csv_num(f, j->start_time >= 0 ? j->start_time : NAN);
        csv_num(f, j->finish_time >= 0 ? j->finish_time : NAN);
        csv_str(f, d.state, false);
        csv_uint(f, j->num_gpus);
        csv_num(f, j->duration);
        csv_num(f, d.waiting);
        csv_num(f, d.execution);
        csv_num(f, j->run_time);
        csv_num(f, d.turnaround);
        csv_num(f, d.slowdown);
        csv_num(f, d.bounded_slowdown);
        csv_num(f, d.stretch);
        csv_num(f, j->finish_time >= 0 ? j->t_ideal : NAN);
        csv_num(f, j->finish_time >= 0 ? j->rho : NAN);
        csv_uint(f, j->preemptions);
        csv_uint(f, j->migrations);
        csv_uint(f, j->restarts);
        csv_num(f, j->lost_work);
        char type[sizeof j->gpu_type + 1];
        snprintf(type, sizeof type, "%.*s", (int)sizeof j->gpu_type, j->gpu_type);
        csv_str(f, type, false);
        if (node_off)
            csv_nodes(f, node_ids + node_off[i], node_off[i + 1] - node_off[i]);
        else
            fputc(',', f); /* a file from before /job_nodes: unknown */
        fputs("\r\n", f);
    }
}

/* ---- JSON (cJSON) ---- */

static cJSON *real_or_null(double v)
{
    return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

/* An integer, exactly: a double holds integers only up to 2^53, so larger ones go in as their
 * decimal digits. */
static cJSON *int_json(long long v)
{
    if (v > -(1LL << 53) && v < (1LL << 53))
        return cJSON_CreateNumber((double)v);
    char d[32];
    snprintf(d, sizeof d, "%lld", v);
    return cJSON_CreateRaw(d);
}

static cJSON *uint_json(unsigned long long v)
{
    if (v < (1ULL << 53))
        return cJSON_CreateNumber((double)v);
    char d[32];
    snprintf(d, sizeof d, "%llu", v);
    return cJSON_CreateRaw(d);
}

/* One scalar attribute as JSON: integers, reals, strings; anything else is left out (NULL). */
static cJSON *attr_json(hid_t obj, const char *name)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT), t = a >= 0 ? H5Aget_type(a) : -1;
    hid_t sp = a >= 0 ? H5Aget_space(a) : -1;
    cJSON *out = NULL;
    if (t < 0 || sp < 0 || H5Sget_simple_extent_type(sp) != H5S_SCALAR)
        goto done;
    switch (H5Tget_class(t)) {
    case H5T_INTEGER: {
        long long v = 0;
        unsigned long long u = 0;
        if (H5Tget_sign(t) == H5T_SGN_NONE) {
            if (H5Aread(a, H5T_NATIVE_ULLONG, &u) >= 0)
                out = uint_json(u);
        } else if (H5Aread(a, H5T_NATIVE_LLONG, &v) >= 0) {
            out = int_json(v);
        }
        break;
    }
    case H5T_FLOAT: {
        double v = 0;
        if (H5Aread(a, H5T_NATIVE_DOUBLE, &v) >= 0)
            out = real_or_null(v);
        break;
    }
    case H5T_STRING: {
        char *s = NULL;
        dike_err e;
        if (dike_h5in_str_attr(obj, "", name, &s, &e) == 0)
            out = dike_json_str(s);
        free(s);
        break;
    }
    default: break;
    }
done:
    if (sp >= 0)
        H5Sclose(sp);
    if (t >= 0)
        H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
    return out;
}

typedef struct attr_walk {
    cJSON *values, *units; /**< name -> value; name -> unit (from units_<name>) */
    bool skip_config;       /**< leave the (long) config text out */
} attr_walk;

static herr_t on_attr(hid_t obj, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    attr_walk *w = data;
    if (strcmp(name, "units") == 0 || strcmp(name, "description") == 0 ||
        (w->skip_config && strcmp(name, "config") == 0))
        return 0;
    cJSON *v = attr_json(obj, name);
    if (!v)
        return 0;
    if (strncmp(name, "units_", 6) == 0)
        cJSON_AddItemToObject(w->units, name + 6, v);
    else
        cJSON_AddItemToObject(w->values, name, v);
    return 0;
}

static void attrs_json(hid_t obj, cJSON *values, cJSON *units, bool skip_config)
{
    attr_walk w = {values, units, skip_config};
    hsize_t idx = 0;
    H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, on_attr, &w);
}

/* Batsim-style aggregates over the jobs (its schedule.csv): means and maxima of the per-job
 * values of the CSV, over the jobs for which they exist. */
static cJSON *job_aggregates(const dike_job_record *jobs, size_t n)
{
    enum { W, T, S, B, NV };
    static const char *const names[NV] = {"waiting_time", "turnaround_time", "slowdown", "bounded_slowdown"};
    double sum[NV] = {0}, max[NV] = {0};
    size_t cnt[NV] = {0}, started = 0, finished = 0;
    for (size_t i = 0; i < n; i++) {
        job_derived d = derive(&jobs[i]);
        double v[NV] = {d.waiting, d.turnaround, d.slowdown, d.bounded_slowdown};
        started += jobs[i].start_time >= 0;
        finished += jobs[i].finish_time >= 0;
        for (int k = 0; k < NV; k++) {
            if (!isfinite(v[k]))
                continue;
            sum[k] += v[k];
            max[k] = cnt[k]++ ? fmax(max[k], v[k]) : v[k];
        }
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "jobs", uint_json(n));
    cJSON_AddItemToObject(o, "started", uint_json(started));
    cJSON_AddItemToObject(o, "finished", uint_json(finished));
    char key[64];
    for (int k = 0; k < NV; k++) {
        snprintf(key, sizeof key, "mean_%s", names[k]);
        cJSON_AddItemToObject(o, key, cnt[k] ? real_or_null(sum[k] / (double)cnt[k]) : cJSON_CreateNull());
        snprintf(key, sizeof key, "max_%s", names[k]);
        cJSON_AddItemToObject(o, key, cnt[k] ? real_or_null(max[k]) : cJSON_CreateNull());
    }
    cJSON_AddItemToObject(o, "bounded_slowdown_tau_s", cJSON_CreateNumber(BSLD_TAU_S));
    return o;
}

/* The tenant columns after the counts, all doubles, in the order the summary lists them. */
#define TENANT_REAL(m) { #m, offsetof(dike_tenant_record, m) }
static const struct {
    const char *name;
    size_t offset;
} tenant_reals[] = {
    TENANT_REAL(gpu_seconds), TENANT_REAL(avg_jct), TENANT_REAL(mean_rho), TENANT_REAL(fairness_ratio),
    TENANT_REAL(weight_share), TENANT_REAL(avg_gpus), TENANT_REAL(entitlement), TENANT_REAL(gpu_share),
    TENANT_REAL(entitled_share),
};

static cJSON *tenants_json(const dike_tenant_record *t, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        char name[DIKE_NAME_MAX + 1];
        snprintf(name, sizeof name, "%.*s", DIKE_NAME_MAX, t[i].name);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToObject(o, "tenant", uint_json(t[i].tenant));
        cJSON_AddItemToObject(o, "name", dike_json_str(name));
        cJSON_AddItemToObject(o, "weight", real_or_null(t[i].weight));
        cJSON_AddItemToObject(o, "jobs", uint_json(t[i].jobs));
        cJSON_AddItemToObject(o, "finished", uint_json(t[i].finished));
        for (size_t k = 0; k < sizeof tenant_reals / sizeof *tenant_reals; k++) {
            double v;
            memcpy(&v, (const char *)&t[i] + tenant_reals[k].offset, sizeof v);
            cJSON_AddItemToObject(o, tenant_reals[k].name, real_or_null(v));
        }
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static char *summary_json(hid_t file, const char *path, const dike_job_record *jobs, size_t n,
                          const dike_tenant_record *ten, size_t nten)
{
    cJSON *root = cJSON_CreateObject(), *run = cJSON_CreateObject(), *runits = cJSON_CreateObject();
    cJSON *summary = cJSON_CreateObject(), *units = cJSON_CreateObject();
    cJSON_AddItemToObject(root, "file", dike_json_str(path));
    attrs_json(file, run, runits, false);
    hid_t g = H5Gopen2(file, "/summary", H5P_DEFAULT);
    if (g >= 0) {
        attrs_json(g, summary, units, false);
        H5Gclose(g);
    }
    /* one units object: /summary's, and the root's over it where a name is in both */
    cJSON *u;
    while ((u = runits->child)) {
        cJSON_DetachItemViaPointer(runits, u);
        if (cJSON_GetObjectItemCaseSensitive(units, u->string))
            cJSON_ReplaceItemInObjectCaseSensitive(units, u->string, u);
        else
            cJSON_AddItemToObject(units, u->string, u);
    }
    cJSON_Delete(runits);
    cJSON_AddItemToObject(root, "run", run);
    cJSON_AddItemToObject(root, "summary", summary);
    cJSON_AddItemToObject(root, "units", units);
    cJSON_AddItemToObject(root, "jobs", job_aggregates(jobs, n));
    cJSON_AddItemToObject(root, "tenants", tenants_json(ten, nten));
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
}

/* ---- files ---- */

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Write @p text as @p path ("-": standard output) under a temporary name; *tmp (caller frees)
 * names it for the rename. */
static int stage(const char *path, const char *text, size_t len, char **tmp, dike_err *e)
{
    *tmp = NULL;
    if (strcmp(path, "-") == 0)
        return 0;
    size_t n = strlen(path) + 128;
    *tmp = dike_xmalloc(n);
    dike_tmp_name(path, *tmp, n);
    int err = dike_write_whole_file(*tmp, text, len);
    if (err) {
        unlink(*tmp);
        free(*tmp);
        *tmp = NULL;
        return dike_err_set(e, DIKE_EIO, "%s: cannot write: %s", path, strerror(err));
    }
    return 0;
}

static int commit(const char *path, const char *tmp, const char *text, size_t len, dike_err *e)
{
    if (!tmp)
        return fwrite(text, 1, len, stdout) == len && fflush(stdout) == 0
                   ? 0 : dike_err_set(e, DIKE_EIO, "standard output: cannot write: %s", strerror(errno));
    if (dike_rename_target_ok(path, "export", e))
        return e->code;
    if (rename(tmp, path) != 0)
        return dike_err_set(e, DIKE_EIO, "%s: cannot write: renaming %s: %s", path, tmp, strerror(errno));
    return 0;
}

int dike_export(const char *h5, const char *jobs_csv_path, const char *summary_path, dike_err *e)
{
    const char *outs[2] = {jobs_csv_path, summary_path};
    for (int k = 0; k < 2; k++)
        if (outs[k] && (!outs[k][0] || same_file(outs[k], h5)))
            return dike_err_set(e, DIKE_EINVAL, "%s: %s", outs[k][0] ? outs[k] : "(empty path)",
                                outs[k][0] ? "is the output file being exported" : "empty output path");
    if (jobs_csv_path && summary_path && strcmp(jobs_csv_path, "-") && strcmp(jobs_csv_path, summary_path) == 0)
        return dike_err_set(e, DIKE_EINVAL, "%s: --jobs and --summary name the same file", summary_path);

    hid_t f;
    int rc = dike_h5in_open(h5, &f, e);
    if (rc)
        return rc;
    dike_job_record *jobs = NULL;
    dike_tenant_record *ten = NULL;
    size_t n = 0, nten = 0;
    char *text[2] = {NULL, NULL}, *tmp[2] = {NULL, NULL};
    size_t len[2] = {0, 0};
    uint64_t *node_off = NULL;
    uint32_t *node_ids = NULL;
    rc = dike_h5in_jobs(f, h5, &jobs, &n, e);
    if (!rc)
        rc = dike_h5in_tenants(f, h5, &ten, &nten, e);
    if (!rc)
        rc = dike_h5in_job_nodes(f, h5, n, &node_off, &node_ids, e);
    if (!rc && jobs_csv_path) {
        FILE *m = open_memstream(&text[0], &len[0]);
        if (!m)
            dike_fatal("open_memstream: %s", strerror(errno));
        jobs_csv(m, jobs, n, ten, nten, node_off, node_ids);
        fclose(m);
    }
    if (!rc && summary_path) {
        char *js = summary_json(f, h5, jobs, n, ten, nten);
        if (!js)
            dike_fatal("%s: building the JSON summary failed", h5);
        size_t l = strlen(js);
        text[1] = dike_xmalloc(l + 2);
        memcpy(text[1], js, l);
        text[1][l] = '\n';
        text[1][l + 1] = '\0';
        len[1] = l + 1;
        free(js);
    }
    dike_h5in_close(f);
    /* Both staged before either is renamed: an error leaves neither. */
    for (int k = 0; k < 2 && !rc; k++)
        if (outs[k])
            rc = stage(outs[k], text[k], len[k], &tmp[k], e);
    for (int k = 0; k < 2 && !rc; k++)
        if (outs[k])
            rc = commit(outs[k], tmp[k], text[k], len[k], e);
    for (int k = 0; k < 2; k++) {
        if (tmp[k])
            unlink(tmp[k]); /* gone after a successful rename; removed after a failure */
        free(tmp[k]);
        free(text[k]);
    }
    free(jobs);
    free(node_off);
    free(node_ids);
    free(ten);
    return rc;
}
