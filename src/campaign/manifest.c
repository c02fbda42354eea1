/* Campaign bookkeeping on disk: is a point's output complete, failure records, and the manifest
 * <out_dir>/campaign.json (format in docs/campaigns.md).
 *
 * The outputs themselves are the record of success: dike_h5_write builds a file under a temporary
 * name and renames it only when complete, and writes the schema_version attribute before that, so
 * "opens as HDF5 and has schema_version" means "complete". A truncated or corrupt file does not
 * open (HDF5 checks the end-of-file address) and is run again. Failures leave no output, so they
 * get a small JSON record next to where the output would be; it is removed once the point
 * succeeds. The manifest is derived from these files plus what the current invocation knows, so
 * any invocation (an ensemble, one Slurm array task, `--status`) can rewrite it. */
/* realpath(3) */
#define _XOPEN_SOURCE 700
#include "campaign/campaign_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MANIFEST "campaign.json"

/* ---- outputs ---- */

bool dike_campaign_output_complete(const char *path, double *wall, int *ranks)
{
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
    if (file >= 0)
        H5Fclose(file);
    if (fapl >= 0)
        H5Pclose(fapl);
    if (restore)
        H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
    return ok;
}

int dike__mkdirs(const char *dir, dike_err *e)
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

/* ---- JSON ---- */

/* Length of the valid UTF-8 sequence at s, or 0. */
static size_t utf8_len(const unsigned char *s)
{
    size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : 0;
    if (s[0] >= 0xf8)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

/* A JSON string: quotes, backslashes and control characters escaped; bytes that are not UTF-8
 * (a file name in another encoding) become U+FFFD so the document stays valid. */
static void json_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\u%04x", *p);
        else if (*p < 0x80)
            fputc(*p, f);
        else {
            size_t n = utf8_len(p);
            if (n) {
                fwrite(p, 1, n, f);
                p += n - 1;
            } else {
                fputs("\\ufffd", f);
            }
        }
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v)
{
    if (v < 0)
        fputs("null", f);
    else
        fprintf(f, "%.6f", v);
}

/* Reading back our own failure records: the value of "key" at the top level of a flat object
 * written by failure_write (strings with the escapes json_str makes, plain numbers). */
static const char *json_find(const char *text, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = text; (p = strchr(p, '"')); p++) {
        if (strncmp(p + 1, key, kl) == 0 && p[kl + 1] == '"') {
            const char *q = p + kl + 2;
            while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
                q++;
            if (*q == ':') {
                q++;
                while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
                    q++;
                return q;
            }
        }
        /* skip over a string so that a key inside a value is not found */
        for (p++; *p && *p != '"'; p++)
            if (*p == '\\' && p[1])
                p++;
        if (!*p)
            break;
    }
    return NULL;
}

static void json_get_str(const char *text, const char *key, char *buf, size_t n)
{
    const char *p = json_find(text, key);
    size_t len = 0;
    buf[0] = '\0';
    if (!p || *p != '"')
        return;
    for (p++; *p && *p != '"' && len + 1 < n; p++) {
        char c = *p;
        if (c == '\\' && p[1]) {
            p++;
            switch (*p) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'u': {
                unsigned v = 0;
                if (sscanf(p + 1, "%4x", &v) == 1)
                    p += 4;
                c = v < 0x80 ? (char)v : '?';
                break;
            }
            default: c = *p;
            }
        }
        buf[len++] = c;
    }
    buf[len] = '\0';
}

static double json_get_num(const char *text, const char *key, double dflt)
{
    const char *p = json_find(text, key);
    char *end;
    double v = p ? strtod(p, &end) : dflt;
    return p && end != p ? v : dflt;
}

/* Write @p fill's document to @p path through a temporary file in the same folder and rename(2),
 * so a reader sees the old file or the new one, never half of one. */
static int write_atomically(const char *path, void (*fill)(FILE *, const void *), const void *arg, dike_err *e)
{
    char host[64] = "host";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    size_t n = strlen(path) + 128;
    char *tmp = dike_xmalloc(n);
    snprintf(tmp, n, "%s.tmp-%s-%ld", path, host, (long)getpid());
    int rc = 0;
    FILE *f = fopen(tmp, "w");
    if (!f) {
        rc = dike_err_set(e, DIKE_EIO, "%s: cannot write: %s", tmp, strerror(errno));
        goto out;
    }
    fill(f, arg);
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

static void utc_now(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- failure records ---- */

static char *failure_path(const dike_grid *g, size_t i)
{
    char out[DIKE_STR_MAX + 256];
    dike_grid_point_output(g, i, out, sizeof out);
    size_t len = strlen(out);
    char *p = dike_xmalloc(len + 16);
    snprintf(p, len + 16, "%.*s.failed.json", (int)(len - 3), out); /* out ends in ".h5" */
    return p;
}

typedef struct failure_doc {
    const dike_grid *g;
    size_t i;
    const dike__point_result *r;
} failure_doc;

static void fill_failure(FILE *f, const void *arg)
{
    const failure_doc *d = arg;
    char name[DIKE_GRID_POINT_NAME_MAX], when[32], host[64] = "";
    dike_grid_point_name(d->g, d->i, name, sizeof name);
    utc_now(when, sizeof when);
    gethostname(host, sizeof host - 1);
    fprintf(f, "{\n  \"index\": %zu,\n  \"name\": ", d->i);
    json_str(f, name);
    fprintf(f, ",\n  \"status\": \"failed\",\n  \"error\": ");
    json_str(f, d->r->error);
    fprintf(f, ",\n  \"wall_seconds\": ");
    json_num(f, d->r->wall_seconds);
    fprintf(f, ",\n  \"ranks\": %d,\n  \"finished_at\": \"%s\",\n  \"host\": ", d->r->ranks, when);
    json_str(f, host);
    fprintf(f, "\n}\n");
}

int dike__failure_write(const dike_grid *g, size_t i, const dike__point_result *r, dike_err *e)
{
    char *path = failure_path(g, i);
    failure_doc d = {g, i, r};
    int rc = write_atomically(path, fill_failure, &d, e);
    free(path);
    return rc;
}

void dike__failure_clear(const dike_grid *g, size_t i)
{
    char *path = failure_path(g, i);
    unlink(path);
    free(path);
}

/* A point's state on disk: complete output, else a failure record, else pending. */
static void scan_point(const dike_grid *g, size_t i, dike__point_result *r)
{
    char out[DIKE_STR_MAX + 256];
    double wall = -1;
    int ranks = 0;
    dike_grid_point_output(g, i, out, sizeof out);
    r->index = (int64_t)i;
    r->group = -1;
    r->ran = 0;
    r->error[0] = '\0';
    if (dike_campaign_output_complete(out, &wall, &ranks)) {
        r->status = DIKE_POINT_DONE;
        r->wall_seconds = wall;
        r->ranks = ranks;
        return;
    }
    r->status = DIKE_POINT_PENDING;
    r->wall_seconds = -1;
    r->ranks = 0;
    char *path = failure_path(g, i);
    FILE *f = fopen(path, "r");
    free(path);
    if (!f)
        return;
    char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char status[32];
    json_get_str(text, "status", status, sizeof status);
    if (strcmp(status, "failed") != 0)
        return;
    r->status = DIKE_POINT_FAILED;
    json_get_str(text, "error", r->error, sizeof r->error);
    r->wall_seconds = json_get_num(text, "wall_seconds", -1);
    r->ranks = (int32_t)json_get_num(text, "ranks", 0);
}

/* ---- the manifest ---- */

const char *dike_point_status_name(dike_point_status s)
{
    switch (s) {
    case DIKE_POINT_DONE: return "done";
    case DIKE_POINT_SKIPPED: return "skipped";
    case DIKE_POINT_FAILED: return "failed";
    case DIKE_POINT_PENDING: return "pending";
    }
    return "?";
}

typedef struct manifest_doc {
    const dike_grid *g;
    const dike__point_result *known;
    const dike__invocation *inv;
    const dike_campaign_stats *st;
} manifest_doc;

static void fill_manifest(FILE *f, const void *arg)
{
    const manifest_doc *d = arg;
    const dike_grid *g = d->g;
    char when[32], name[DIKE_GRID_POINT_NAME_MAX];
    utc_now(when, sizeof when);
    fprintf(f, "{\n  \"format\": \"dike-emu campaign manifest\",\n  \"format_version\": 1,\n");
    fprintf(f, "  \"campaign\": ");
    json_str(f, g->name);
    fprintf(f, ",\n  \"grid\": ");
    char *grid = realpath(g->path, NULL);
    json_str(f, grid ? grid : g->path);
    free(grid);
    fprintf(f, ",\n  \"out_dir\": ");
    json_str(f, g->out_dir);
    fprintf(f, ",\n  \"version\": \"%s\",\n  \"written_at\": \"%s\",\n", DIKE_VERSION, when);
    fprintf(f, "  \"invocation\": {\"mode\": ");
    json_str(f, d->inv->mode);
    fprintf(f, ", \"world_ranks\": %d, \"ranks_per_run\": %d, \"groups\": %d, \"wall_seconds\": ",
            d->inv->world_ranks, d->inv->ranks_per_run, d->inv->groups);
    json_num(f, d->inv->wall_seconds);
    fprintf(f, "},\n  \"overrides\": [");
    for (size_t s = 0; s < g->nsets; s++) {
        fprintf(f, "%s", s ? ", " : "");
        json_str(f, g->sets[s]);
    }
    fprintf(f, "],\n  \"counts\": {\"points\": %zu, \"done\": %zu, \"skipped\": %zu, \"failed\": %zu, "
            "\"pending\": %zu},\n  \"points\": [\n", d->st->points, d->st->done, d->st->skipped,
            d->st->failed, d->st->pending);
    for (size_t i = 0; i < g->npoints; i++) {
        const dike__point_result *r = &d->known[i];
        const dike_grid_block *b = dike_grid_block_of(g, i);
        dike_grid_point_name(g, i, name, sizeof name);
        fprintf(f, "    {\"index\": %zu, \"name\": ", i);
        json_str(f, name);
        /* Relative to the manifest's folder: the folder can be moved or copied as a whole. */
        fprintf(f, ", \"output\": \"");
        fprintf(f, "%s.h5\", \"block\": ", name); /* names hold only [A-Za-z0-9._+=-] */
        json_str(f, b->name);
        fprintf(f, ", \"axes\": {");
        for (size_t a = 0; a < b->naxes; a++) {
            fprintf(f, "%s", a ? ", " : "");
            json_str(f, b->axes[a].label);
            fprintf(f, ": ");
            json_str(f, b->axes[a].shown[dike_grid_coord(g, i, a)]);
        }
        fprintf(f, "}, \"status\": \"%s\", \"ran\": %s, \"resumed\": %s, \"checkpoint\": ",
                dike_point_status_name((dike_point_status)r->status), r->ran ? "true" : "false",
                r->resumed ? "true" : "false");
        /* An unfinished point's checkpoint, which the next run continues. */
        char ckpt[DIKE_STR_MAX + 300];
        dike_grid_point_output(g, i, ckpt, sizeof ckpt - 16);
        strcat(ckpt, ".ckpt.h5");
        bool unfinished = r->status == DIKE_POINT_PENDING || r->status == DIKE_POINT_FAILED;
        if (unfinished && access(ckpt, R_OK) == 0)
            fprintf(f, "\"%s.h5.ckpt.h5\"", name);
        else
            fputs("null", f);
        fprintf(f, ", \"error\": ");
        json_str(f, r->error[0] ? r->error : NULL);
        fprintf(f, ", \"wall_seconds\": ");
        json_num(f, r->wall_seconds);
        fprintf(f, ", \"ranks\": ");
        if (r->ranks > 0)
            fprintf(f, "%d", r->ranks);
        else
            fputs("null", f);
        fprintf(f, ", \"group\": ");
        if (r->group >= 0)
            fprintf(f, "%d", r->group);
        else
            fputs("null", f);
        fprintf(f, "}%s\n", i + 1 < g->npoints ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
}

int dike__manifest_write(const dike_grid *g, dike__point_result *known, const dike__invocation *inv,
                         dike_campaign_stats *st, FILE *table, bool write_file, dike_err *e)
{
    size_t dl = strlen(g->out_dir);
    const char *sep = dl && g->out_dir[dl - 1] == '/' ? "" : "/";
    size_t n = dl + 64;
    char *path = dike_xmalloc(n), *lock = dike_xmalloc(n);
    snprintf(path, n, "%s%s%s", g->out_dir, sep, MANIFEST);
    snprintf(lock, n, "%s%s%s.lock", g->out_dir, sep, MANIFEST);

    /* Concurrent writers (Slurm array tasks ending together) take turns, so the last manifest
     * written has seen every earlier one's outputs. Where the file system has no locks, the
     * manifest may miss a point that finished at the same moment; `--status` rewrites it. */
    int fd = write_file ? open(lock, O_RDWR | O_CREAT, 0666) : -1;
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fd >= 0)
        while (fcntl(fd, F_SETLKW, &fl) != 0 && errno == EINTR)
            continue;

    memset(st, 0, sizeof *st);
    st->points = g->npoints;
    for (size_t i = 0; i < g->npoints; i++) {
        dike__point_result *r = &known[i];
        if (r->status < 0)
            scan_point(g, i, r);
        switch ((dike_point_status)r->status) {
        case DIKE_POINT_DONE: st->done++; break;
        case DIKE_POINT_SKIPPED: st->skipped++; break;
        case DIKE_POINT_FAILED: st->failed++; break;
        case DIKE_POINT_PENDING: st->pending++; break;
        }
        st->ran += r->ran ? 1 : 0;
    }
    st->wall_seconds = inv->wall_seconds;
    int rc = 0;
    if (write_file) {
        manifest_doc d = {g, known, inv, st};
        rc = write_atomically(path, fill_manifest, &d, e);
    }
    if (fd >= 0)
        close(fd); /* releases the lock */
    if (table) {
        char out[DIKE_STR_MAX + 256];
        fprintf(table, "# index\tstatus\toutput\terror\n");
        for (size_t i = 0; i < g->npoints; i++) {
            dike_grid_point_output(g, i, out, sizeof out);
            fprintf(table, "%zu\t%s\t%s\t%s\n", i, dike_point_status_name((dike_point_status)known[i].status),
                    out, known[i].error);
        }
    }
    free(path);
    free(lock);
    return rc;
}
