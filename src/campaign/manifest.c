/* Campaign bookkeeping on disk: is a point's output complete, the run record of each point, and
 * the manifest <out_dir>/campaign.json (formats in docs/campaigns.md). JSON is written and read
 * with cJSON.
 *
 * The outputs themselves are the record of success: dike_h5_write builds a file under a temporary
 * name and renames it only when complete, and writes the schema_version attribute before that, so
 * "opens as HDF5 and has schema_version" means "complete". A truncated or corrupt file does not
 * open (HDF5 checks the end-of-file address) and is run again. Everything else about a point -
 * running now, failed, stopped at a time limit, who ran it (host, Slurm job) - is in its run
 * record <name>.run.json beside the output, written when a run starts and again when it ends.
 * The manifest is derived from these files plus what the current invocation knows, so any
 * invocation (an ensemble, one Slurm array task) can rewrite it; `--status` derives the same
 * document and writes nothing. */
/* realpath(3), kill(2) */
#define _XOPEN_SOURCE 700
#include "campaign/campaign_internal.h"
#include "io/h5in.h"
#include "io/json.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MANIFEST "campaign.json"

/* ---- outputs ---- */

bool dike_campaign_output_complete(const char *path, double *wall, int *ranks, char source[65])
{
    if (source)
        source[0] = '\0';
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return false;
    H5E_auto2_t old_fn = NULL;
    void *old_data = NULL;
    bool restore = H5Eget_auto2(H5E_DEFAULT, &old_fn, &old_data) >= 0;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* a corrupt file is an answer here, not an error */
    bool ok = false;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), file = H5I_INVALID_HID;
#if H5_VERSION_GE(1, 10, 7)
    /* Reading needs no lock, and some parallel file systems have none. */
    if (fapl >= 0)
        H5Pset_file_locking(fapl, 0, 1);
#endif
    if (fapl >= 0)
        file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (file >= 0 && H5Aexists(file, "schema_version") > 0) {
        int32_t v = -1;
        hid_t a = H5Aopen(file, "schema_version", H5P_DEFAULT);
        ok = a >= 0 && H5Aread(a, H5T_NATIVE_INT32, &v) >= 0 && v == DIKE_SCHEMA_VERSION;
        if (a >= 0)
            H5Aclose(a);
        ok = ok && H5Lexists(file, "jobs", H5P_DEFAULT) > 0 && H5Lexists(file, "summary", H5P_DEFAULT) > 0;
    }
    if (ok && wall && H5Aexists(file, "wall_seconds") > 0) {
        hid_t a = H5Aopen(file, "wall_seconds", H5P_DEFAULT);
        if (a < 0 || H5Aread(a, H5T_NATIVE_DOUBLE, wall) < 0)
            *wall = -1;
        if (a >= 0)
            H5Aclose(a);
    }
    if (ok && ranks && H5Aexists(file, "ranks") > 0) {
        hid_t a = H5Aopen(file, "ranks", H5P_DEFAULT);
        if (a < 0 || H5Aread(a, H5T_NATIVE_INT, ranks) < 0)
            *ranks = 0;
        if (a >= 0)
            H5Aclose(a);
    }
    if (ok && source) {
        char *v = NULL;
        if (dike_h5in_opt_str_attr(file, path, "source_sha256", &v, NULL) == 0 && strlen(v) == 64)
            memcpy(source, v, 65);
        free(v);
    }
    if (file >= 0)
        H5Fclose(file);
    if (fapl >= 0)
        H5Pclose(fapl);
    if (restore)
        H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
    return ok;
}

int dike_mkdirs(const char *dir, dike_err *e)
{
    char *p = dike_xstrdup(dir);
    int rc = 0;
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        struct stat sb;
        if (mkdir(p, 0777) != 0 && !(errno == EEXIST && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode))) {
            rc = dike_err_set(e, DIKE_EIO, "%s: cannot create the output folder: %s", p, strerror(errno));
            break;
        }
        *s = c;
        if (!c)
            break;
    }
    free(p);
    return rc;
}

/* ---- JSON helpers (cJSON) ---- */

/* A JSON string (io/json.h: invalid UTF-8 becomes U+FFFD); NULL is null. */
static cJSON *jstr(const char *s)
{
    return dike_json_str(s);
}

/* "" is unknown: null. */
static cJSON *jstr_or_null(const char *s)
{
    return jstr(s && *s ? s : NULL);
}

/* Non-negative seconds to the microsecond (so the text is short); negative = unknown = null. */
static cJSON *jsec(double v)
{
    return v < 0 ? cJSON_CreateNull() : cJSON_CreateNumber(round(v * 1e6) / 1e6);
}

static cJSON *jint_or_null(int v)
{
    return v > 0 ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static void jcopy_str(const cJSON *obj, const char *key, char *buf, size_t n)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    snprintf(buf, n, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

static double jnum(const cJSON *obj, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static cJSON *slurm_json(const dike_slurm *s)
{
    if (!s->job_id[0])
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "job_id", jstr(s->job_id));
    cJSON_AddItemToObject(o, "array_job_id", jstr_or_null(s->array_job_id));
    cJSON_AddItemToObject(o, "array_task_id", jstr_or_null(s->array_task_id));
    cJSON_AddNumberToObject(o, "restart_count", s->restart_count);
    return o;
}

static void slurm_from_json(const cJSON *o, dike_slurm *s)
{
    memset(s, 0, sizeof *s);
    if (!cJSON_IsObject(o))
        return;
    jcopy_str(o, "job_id", s->job_id, sizeof s->job_id);
    jcopy_str(o, "array_job_id", s->array_job_id, sizeof s->array_job_id);
    jcopy_str(o, "array_task_id", s->array_task_id, sizeof s->array_task_id);
    s->restart_count = (int32_t)jnum(o, "restart_count", 0);
}

/* "JOB_TASK" for an array task, else "JOB"; "-" outside Slurm. */
static void slurm_label(const dike_slurm *s, char *buf, size_t n)
{
    if (s->array_job_id[0])
        snprintf(buf, n, "%s_%s", s->array_job_id, s->array_task_id);
    else
        snprintf(buf, n, "%s", s->job_id[0] ? s->job_id : "-");
}

void dike_slurm_ids(dike_slurm *s)
{
    memset(s, 0, sizeof *s);
    const char *v;
    if ((v = getenv("SLURM_JOB_ID")))
        snprintf(s->job_id, sizeof s->job_id, "%s", v);
    if (!s->job_id[0])
        return;
    if ((v = getenv("SLURM_ARRAY_JOB_ID")))
        snprintf(s->array_job_id, sizeof s->array_job_id, "%s", v);
    if ((v = getenv("SLURM_ARRAY_TASK_ID")))
        snprintf(s->array_task_id, sizeof s->array_task_id, "%s", v);
    if ((v = getenv("SLURM_RESTART_COUNT")))
        s->restart_count = atoi(v);
}

void dike_utc_now(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void host_name(char *buf, size_t n)
{
    buf[0] = '\0';
    gethostname(buf, n - 1);
    buf[n - 1] = '\0';
}

/* Write @p text to @p path through a temporary file in the same folder and rename(2), so a reader
 * sees the old file or the new one, never half of one. */
static int write_atomically(const char *path, const char *text, dike_err *e)
{
    char host[64];
    host_name(host, sizeof host);
    size_t n = strlen(path) + 128;
    char *tmp = dike_xmalloc(n);
    snprintf(tmp, n, "%s.tmp-%s-%ld", path, host, (long)getpid());
    int rc = 0;
    FILE *f = fopen(tmp, "w");
    if (!f) {
        rc = dike_err_set(e, DIKE_EIO, "%s: cannot write: %s", tmp, strerror(errno));
        goto out;
    }
    fputs(text, f);
    fputc('\n', f);
    bool bad = fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0;
    int err = errno;
    if (fclose(f) != 0 && !bad) {
        bad = true;
        err = errno;
    }
    if (bad)
        rc = dike_err_set(e, DIKE_EIO, "%s: cannot write: %s", tmp, strerror(err));
    else if (rename(tmp, path) != 0)
        rc = dike_err_set(e, DIKE_EIO, "%s: cannot rename to %s: %s", tmp, path, strerror(errno));
    if (rc)
        unlink(tmp);
out:
    free(tmp);
    return rc;
}

/* A whole (small) JSON file, parsed; NULL if missing, unreadable, too large or not JSON. */
static cJSON *read_json(const char *path, size_t limit)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *text = dike_xmalloc(cap);
    for (;;) {
        if (n + 1 == cap) {
            if (cap >= limit)
                break;
            cap *= 2;
            text = dike_xrealloc(text, cap);
        }
        size_t got = fread(text + n, 1, cap - 1 - n, f);
        if (!got)
            break;
        n += got;
    }
    bool whole = feof(f) && !ferror(f);
    fclose(f);
    text[n] = '\0';
    cJSON *doc = whole ? cJSON_ParseWithLength(text, n) : NULL;
    free(text);
    return doc;
}

/* ---- run records ---- */

const char *dike_point_status_name(dike_point_status s)
{
    switch (s) {
    case DIKE_POINT_PENDING: return "PENDING";
    case DIKE_POINT_COMPLETED: return "COMPLETED";
    case DIKE_POINT_FAILED: return "FAILED";
    case DIKE_POINT_TIMEOUT: return "TIMEOUT";
    case DIKE_POINT_RUNNING: return "RUNNING";
    }
    return "?";
}

static int status_from_name(const char *s)
{
    for (int k = 0; k < DIKE_POINT_NSTATES; k++)
        if (strcmp(s, dike_point_status_name((dike_point_status)k)) == 0)
            return k;
    return -1;
}

/* <out_dir>/<name> + @p suffix. */
static char *point_path(const dike_grid *g, size_t i, const char *suffix)
{
    char out[DIKE_STR_MAX + 256];
    dike_grid_point_output(g, i, out, sizeof out);
    size_t len = strlen(out), n = len + strlen(suffix) + 1;
    char *p = dike_xmalloc(n);
    snprintf(p, n, "%.*s%s", (int)(len - 3), out, suffix); /* out ends in ".h5" */
    return p;
}

int dike_record_write(const dike_grid *g, size_t i, const dike_point_result *r, dike_err *e)
{
    char name[DIKE_GRID_POINT_NAME_MAX];
    dike_grid_point_name(g, i, name, sizeof name);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "index", (double)i);
    cJSON_AddItemToObject(o, "name", jstr(name));
    cJSON_AddItemToObject(o, "state", jstr(dike_point_status_name((dike_point_status)r->status)));
    cJSON_AddItemToObject(o, "error", jstr_or_null(r->error));
    cJSON_AddItemToObject(o, "started_at", jstr_or_null(r->started_at));
    cJSON_AddItemToObject(o, "ended_at", jstr_or_null(r->ended_at));
    cJSON_AddItemToObject(o, "wall_seconds", jsec(r->wall_seconds));
    cJSON_AddItemToObject(o, "ranks", jint_or_null(r->ranks));
    cJSON_AddBoolToObject(o, "resumed", r->resumed != 0);
    cJSON_AddItemToObject(o, "host", jstr_or_null(r->host));
    cJSON_AddItemToObject(o, "pid", jint_or_null(r->pid));
    cJSON_AddItemToObject(o, "slurm", slurm_json(&r->slurm));
    char *text = cJSON_Print(o);
    char *path = point_path(g, i, ".run.json");
    int rc = write_atomically(path, text, e);
    free(path);
    cJSON_free(text);
    cJSON_Delete(o);
    return rc;
}

/* Read a point's run record into @p r; false if there is none (or it is unreadable). */
static bool record_read(const dike_grid *g, size_t i, dike_point_result *r)
{
    char *path = point_path(g, i, ".run.json");
    cJSON *o = read_json(path, 1 << 20);
    free(path);
    int st = -1;
    if (o) {
        char state[32];
        jcopy_str(o, "state", state, sizeof state);
        st = status_from_name(state);
    }
    if (st < 0) {
        cJSON_Delete(o);
        return false;
    }
    r->status = st;
    jcopy_str(o, "error", r->error, sizeof r->error);
    jcopy_str(o, "started_at", r->started_at, sizeof r->started_at);
    jcopy_str(o, "ended_at", r->ended_at, sizeof r->ended_at);
    jcopy_str(o, "host", r->host, sizeof r->host);
    r->wall_seconds = jnum(o, "wall_seconds", -1);
    r->ranks = (int32_t)jnum(o, "ranks", 0);
    r->pid = (int32_t)jnum(o, "pid", 0);
    r->resumed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "resumed"));
    slurm_from_json(cJSON_GetObjectItemCaseSensitive(o, "slurm"), &r->slurm);
    cJSON_Delete(o);
    return true;
}

/* A point's state on disk: a complete output is COMPLETED whatever its record says; else the
 * record's state, except that a RUNNING record whose process is gone from this host is a run that
 * ended without saying how (killed: SIGKILL after a time limit's grace period, out of memory, an
 * MPI_Abort of the whole job). Without a record: PENDING. */
static void scan_point(const dike_grid *g, size_t i, dike_point_result *r)
{
    char out[DIKE_STR_MAX + 256];
    double wall = -1;
    int ranks = 0;
    dike_grid_point_output(g, i, out, sizeof out);
    memset(r, 0, sizeof *r);
    r->index = (int64_t)i;
    r->group = -1;
    r->wall_seconds = -1;
    bool have = record_read(g, i, r);
    char source[65];
    if (dike_campaign_output_complete(out, &wall, &ranks, source)) {
        if (!have || r->status != DIKE_POINT_COMPLETED) {
            /* an output from before run records, or a stale record: the file is the truth */
            memset(r, 0, sizeof *r);
            r->index = (int64_t)i;
            r->group = -1;
        }
        r->status = DIKE_POINT_COMPLETED;
        r->error[0] = '\0';
        r->wall_seconds = wall;
        r->ranks = ranks;
        memcpy(r->source, source, sizeof r->source);
        return;
    }
    if (!have || r->status == DIKE_POINT_COMPLETED) { /* never run, or its output was deleted */
        memset(r, 0, sizeof *r);
        r->index = (int64_t)i;
        r->group = -1;
        r->wall_seconds = -1;
        r->status = DIKE_POINT_PENDING;
        return;
    }
    if (r->status == DIKE_POINT_RUNNING && r->pid > 0) {
        char host[64];
        host_name(host, sizeof host);
        if (strcmp(host, r->host) == 0 && kill(r->pid, 0) != 0 && errno == ESRCH) {
            r->status = DIKE_POINT_FAILED;
            snprintf(r->error, sizeof r->error, "the run (pid %d on %s) ended without recording how: "
                     "killed (a time limit's SIGKILL, out of memory) or aborted with the whole MPI job; "
                     "see its log", r->pid, r->host);
        }
    }
}

/* ---- the manifest ---- */

/* Invocations kept in the manifest's history (the oldest are dropped). */
#define INVOCATIONS_KEPT 100

static char *manifest_path(const dike_grid *g, const char *suffix)
{
    size_t dl = strlen(g->out_dir), n = dl + 64;
    const char *sep = dl && g->out_dir[dl - 1] == '/' ? "" : "/";
    char *p = dike_xmalloc(n);
    snprintf(p, n, "%s%scampaign.json%s", g->out_dir, sep, suffix);
    return p;
}

static cJSON *invocation_json(const dike_invocation *inv, const dike_campaign_stats *st, const char *when)
{
    cJSON *o = cJSON_CreateObject();
    char host[64];
    dike_slurm sl;
    host_name(host, sizeof host);
    dike_slurm_ids(&sl);
    cJSON_AddItemToObject(o, "mode", jstr(inv->mode));
    cJSON_AddItemToObject(o, "points", jstr(inv->points));
    cJSON_AddItemToObject(o, "ended_at", jstr(when));
    cJSON_AddItemToObject(o, "host", jstr_or_null(host));
    cJSON_AddItemToObject(o, "slurm", slurm_json(&sl));
    cJSON_AddNumberToObject(o, "world_ranks", inv->world_ranks);
    cJSON_AddNumberToObject(o, "ranks_per_run", inv->ranks_per_run);
    cJSON_AddNumberToObject(o, "groups", inv->groups);
    cJSON_AddItemToObject(o, "wall_seconds", jsec(inv->wall_seconds));
    cJSON_AddNumberToObject(o, "asked", (double)st->asked);
    cJSON_AddNumberToObject(o, "skipped", (double)st->skipped);
    cJSON_AddNumberToObject(o, "ran", (double)st->ran);
    cJSON_AddNumberToObject(o, "completed", (double)st->ran_completed);
    cJSON_AddNumberToObject(o, "failed", (double)st->ran_failed);
    cJSON_AddNumberToObject(o, "timeout", (double)st->ran_timeout);
    return o;
}

static cJSON *point_json(const dike_grid *g, size_t i, const dike_point_result *r)
{
    char name[DIKE_GRID_POINT_NAME_MAX], out[DIKE_GRID_POINT_NAME_MAX + 16];
    const dike_grid_block *b = dike_grid_block_of(g, i);
    dike_grid_point_name(g, i, name, sizeof name);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "index", (double)i);
    cJSON_AddItemToObject(o, "name", jstr(name));
    /* Relative to the manifest's folder: the folder can be moved or copied as a whole. */
    snprintf(out, sizeof out, "%s.h5", name);
    cJSON_AddItemToObject(o, "output", jstr(out));
    cJSON_AddItemToObject(o, "block", jstr(b->name));
    cJSON *axes = cJSON_AddObjectToObject(o, "axes");
    for (size_t a = 0; a < b->naxes; a++)
        cJSON_AddItemToObject(axes, b->axes[a].label, jstr(b->axes[a].shown[dike_grid_coord(g, i, a)]));
    cJSON_AddItemToObject(o, "status", jstr(dike_point_status_name((dike_point_status)r->status)));
    cJSON_AddItemToObject(o, "error", jstr_or_null(r->error));
    /* An unfinished point's checkpoint, which the next run continues. */
    char ckpt[DIKE_STR_MAX + 300];
    dike_grid_point_output(g, i, ckpt, sizeof ckpt - 16);
    strcat(ckpt, ".ckpt.h5");
    snprintf(out, sizeof out, "%s.h5.ckpt.h5", name);
    bool unfinished = r->status != DIKE_POINT_COMPLETED;
    cJSON_AddItemToObject(o, "checkpoint", jstr(unfinished && access(ckpt, R_OK) == 0 ? out : NULL));
    cJSON_AddBoolToObject(o, "ran", r->ran != 0);
    cJSON_AddBoolToObject(o, "resumed", r->resumed != 0);
    cJSON_AddBoolToObject(o, "skipped", r->skipped != 0);
    cJSON_AddItemToObject(o, "wall_seconds", jsec(r->wall_seconds));
    cJSON_AddItemToObject(o, "ranks", jint_or_null(r->ranks));
    cJSON_AddItemToObject(o, "group", r->group >= 0 ? cJSON_CreateNumber(r->group) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "host", jstr_or_null(r->host));
    cJSON_AddItemToObject(o, "started_at", jstr_or_null(r->started_at));
    cJSON_AddItemToObject(o, "ended_at", jstr_or_null(r->ended_at));
    cJSON_AddItemToObject(o, "slurm", slurm_json(&r->slurm));
    cJSON_AddItemToObject(o, "source_sha256",
                          jstr_or_null(r->status == DIKE_POINT_COMPLETED ? r->source : NULL));
    return o;
}

/* The emulator sources (source_sha256) of the COMPLETED points' outputs, where known: how many
 * distinct ones, and (when @p counts is not NULL) each with its number of points, added to it. */
static size_t count_sources(const dike_grid *g, const dike_point_result *known, cJSON *counts)
{
    size_t n = 0;
    const char **seen = dike_xcalloc(g->npoints + 1, sizeof *seen);
    size_t *cnt = dike_xcalloc(g->npoints + 1, sizeof *cnt);
    for (size_t i = 0; i < g->npoints; i++) {
        const char *s = known[i].source;
        if (known[i].status != DIKE_POINT_COMPLETED || !s[0])
            continue;
        size_t k = 0;
        while (k < n && strcmp(seen[k], s) != 0)
            k++;
        if (k == n)
            seen[n++] = s;
        cnt[k]++;
    }
    for (size_t k = 0; counts && k < n; k++)
        cJSON_AddNumberToObject(counts, seen[k], (double)cnt[k]);
    free(seen);
    free(cnt);
    return n;
}

/* The manifest document. @p old (may be NULL): the manifest on disk, whose invocations are kept;
 * @p inv is appended to them unless NULL (--status appends nothing). */
static cJSON *manifest_json(const dike_grid *g, const dike_point_result *known, const dike_invocation *inv,
                            const dike_campaign_stats *st, const cJSON *old)
{
    char when[32];
    dike_utc_now(when, sizeof when);
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "format", "dike-emu campaign manifest");
    cJSON_AddNumberToObject(d, "format_version", 2);
    cJSON_AddItemToObject(d, "campaign", jstr(g->name));
    char *grid = realpath(g->path, NULL);
    cJSON_AddItemToObject(d, "grid", jstr(grid ? grid : g->path));
    free(grid);
    cJSON_AddItemToObject(d, "out_dir", jstr(g->out_dir));
    cJSON_AddStringToObject(d, "version", DIKE_VERSION);
    cJSON_AddItemToObject(d, "written_at", jstr(when));
    cJSON *invs = cJSON_CreateArray();
    const cJSON *prev = old ? cJSON_GetObjectItemCaseSensitive(old, "invocations") : NULL;
    int nprev = cJSON_IsArray(prev) ? cJSON_GetArraySize(prev) : 0;
    int keep = nprev - (INVOCATIONS_KEPT - (inv ? 1 : 0));
    for (int k = keep > 0 ? keep : 0; k < nprev; k++)
        cJSON_AddItemToArray(invs, cJSON_Duplicate(cJSON_GetArrayItem(prev, k), true));
    if (inv)
        cJSON_AddItemToArray(invs, invocation_json(inv, st, when));
    /* The invocation that wrote the file (the last one), then the history. */
    int ninvs = cJSON_GetArraySize(invs);
    cJSON_AddItemToObject(d, "invocation", ninvs ? cJSON_Duplicate(cJSON_GetArrayItem(invs, ninvs - 1), true)
                                                 : cJSON_CreateNull());
    cJSON *sets = cJSON_AddArrayToObject(d, "overrides");
    for (size_t s = 0; s < g->nsets; s++)
        cJSON_AddItemToArray(sets, jstr(g->sets[s]));
    cJSON *counts = cJSON_AddObjectToObject(d, "counts");
    cJSON_AddNumberToObject(counts, "points", (double)st->points);
    for (int k = 0; k < DIKE_POINT_NSTATES; k++)
        cJSON_AddNumberToObject(counts, dike_point_status_name((dike_point_status)k), (double)st->state[k]);
    /* which versions of the emulator's code computed the complete outputs (one, unless the
     * sources changed while the campaign ran: docs/campaigns.md) */
    count_sources(g, known, cJSON_AddObjectToObject(d, "sources"));
    cJSON *pts = cJSON_AddArrayToObject(d, "points");
    for (size_t i = 0; i < g->npoints; i++)
        cJSON_AddItemToArray(pts, point_json(g, i, &known[i]));
    cJSON_AddItemToObject(d, "invocations", invs);
    return d;
}

int dike_manifest_write(const dike_grid *g, dike_point_result *known, const dike_invocation *inv,
                         dike_campaign_stats *st, FILE *table, FILE *json, bool write_file, dike_err *e)
{
    char *path = manifest_path(g, ""), *lock = manifest_path(g, ".lock");

    /* Concurrent writers (Slurm array tasks ending together) take turns, so the last manifest
     * written has seen every earlier one's outputs and records, and none loses another's entry in
     * the list of invocations. Where the file system has no locks, one of two writers ending at
     * the same moment may be missing from that list; the point states are read from the files
     * beside the outputs, and are complete in the next manifest or in `--status`. */
    int fd = write_file ? open(lock, O_RDWR | O_CREAT, 0666) : -1;
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fd >= 0)
        while (fcntl(fd, F_SETLKW, &fl) != 0 && errno == EINTR)
            continue;

    size_t asked = st->asked, skipped = st->skipped;
    memset(st->state, 0, sizeof st->state);
    st->points = g->npoints;
    st->asked = asked;
    st->skipped = skipped;
    st->ran = st->ran_completed = st->ran_failed = st->ran_timeout = 0;
    for (size_t i = 0; i < g->npoints; i++) {
        dike_point_result *r = &known[i];
        if (r->status < 0) {
            int32_t was_skipped = r->skipped;
            scan_point(g, i, r);
            r->skipped = was_skipped;
        }
        if (r->status >= 0 && r->status < DIKE_POINT_NSTATES)
            st->state[r->status]++;
        if (r->ran) {
            st->ran++;
            st->ran_completed += r->status == DIKE_POINT_COMPLETED;
            st->ran_failed += r->status == DIKE_POINT_FAILED;
            st->ran_timeout += r->status == DIKE_POINT_TIMEOUT;
        }
    }
    st->wall_seconds = inv ? inv->wall_seconds : -1;
    st->sources = count_sources(g, known, NULL);
    int rc = 0;
    /* 256 MiB: a manifest takes about 800 bytes per point (trace-comparison.ini: 573 kB for 720
     * points), 80 MB for the largest grid (100,000 points). A larger or unreadable one only costs
     * the list of earlier invocations. */
    cJSON *old = write_file || json || table ? read_json(path, (size_t)256 << 20) : NULL;
    if (write_file || json) {
        cJSON *doc = manifest_json(g, known, write_file ? inv : NULL, st, old);
        char *text = cJSON_Print(doc);
        cJSON_Delete(doc);
        if (!text)
            rc = dike_err_set(e, DIKE_ENOMEM, "%s: cannot build the manifest (out of memory)", path);
        if (!rc && write_file)
            rc = write_atomically(path, text, e);
        if (!rc && json)
            fprintf(json, "%s\n", text);
        cJSON_free(text);
    }
    if (fd >= 0)
        close(fd); /* releases the lock */
    if (table) {
        char out[DIKE_STR_MAX + 256], job[80];
        /* what last wrote campaign.json (status reads it, writes nothing) */
        const cJSON *last = old ? cJSON_GetObjectItemCaseSensitive(old, "invocation") : NULL;
        if (cJSON_IsObject(last)) {
            char mode[32], at[32], pts[256];
            dike_slurm sl;
            jcopy_str(last, "mode", mode, sizeof mode);
            jcopy_str(last, "ended_at", at, sizeof at);
            jcopy_str(last, "points", pts, sizeof pts);
            slurm_from_json(cJSON_GetObjectItemCaseSensitive(last, "slurm"), &sl);
            slurm_label(&sl, job, sizeof job);
            fprintf(table, "# campaign.json last written at %s by a%s %s invocation%s%s%s%s\n", at,
                    mode[0] == 'e' ? "n" : "", mode, pts[0] ? " of points " : "", pts,
                    sl.job_id[0] ? ", Slurm job " : "", sl.job_id[0] ? job : "");
        }
        if (st->sources > 1)
            fprintf(table, "# note: the complete outputs come from %zu versions of the emulator's "
                    "sources (campaign.json: sources, and each point's source_sha256)\n", st->sources);
        fprintf(table, "# index\tstatus\tslurm_job\toutput\terror\n");
        for (size_t i = 0; i < g->npoints; i++) {
            dike_grid_point_output(g, i, out, sizeof out);
            slurm_label(&known[i].slurm, job, sizeof job);
            fprintf(table, "%zu\t%s\t%s\t%s\t%s\n", i, dike_point_status_name((dike_point_status)known[i].status),
                    job, out, known[i].error);
        }
    }
    cJSON_Delete(old);
    free(path);
    free(lock);
    return rc;
}
