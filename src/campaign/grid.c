/* Experiment grids: read a grid file (a configuration INI plus [campaign] and [sweep...] sections),
 * expand it into points, and name each point. The format, the expansion order and the names are
 * documented in docs/campaigns.md; include/dike/campaign.h has the summary.
 *
 * Why the configuration sections are applied with dike_config_set and not with
 * dike_config_load_file: the loader rejects the two sections that only grids have. Assigning key by
 * key through the one key table keeps every range and name check, and the origin "FILE:LINE" keeps
 * the project's error format. */
#include "dike/campaign.h"

#include <errno.h>
#include <ini.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"

/* Longest point name: file names stay below the usual 255-byte limit with ".h5.tmp-<pid>" or
 * ".failed.json" appended. */
#define NAME_LIMIT 200
/* Per-run progress lines (src/engine/progress.h) are off in campaigns, which print one line per
 * finished point instead: several groups rewriting one terminal line, or interleaving lines that
 * do not say which point they belong to, would be noise. A grid, an axis or --set that sets the
 * key explicitly wins. */
#define PROGRESS_KEY "output.progress_interval_s"
/* An a..b range expands to at most this many values. */
#define RANGE_MAX 100000

static const struct shorthand {
    const char *label, *key;
} shorthands[] = {
    {"policy", "scheduler.policy"},
    {"placement", "scheduler.placement"},
    {"seed", "run.seed"},
    {"load", NULL}, /* workload.load, or workload.trace_load when the base has a trace */
};

/* ---- small helpers ---- */

static char *xstrndup(const char *s, size_t n)
{
    char *p = dike_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

static char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = dike_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

static bool valid_name(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '_' || *s == '.'))
            return false;
    return true;
}

/* Characters kept in file names; everything else becomes '_'. */
static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '+' || c == '=' || c == '-';
}

/* Append @p s sanitised to buf (length *len, capacity n, at most limit characters in all). */
static void append_sanitised(char *buf, size_t *len, size_t n, size_t limit, const char *s)
{
    for (; *s && *len + 1 < n && *len < limit; s++)
        buf[(*len)++] = name_char(*s) ? *s : '_';
    buf[*len] = '\0';
}

/* Keys a campaign sets per point: every point has its own output (and so its own default
 * checkpoint, run.out + ".ckpt.h5"); one value for all points would make them overwrite each
 * other. */
static bool campaign_owned_key(const char *key)
{
    return strcmp(key, "run.out") == 0 || strcmp(key, "run.checkpoint") == 0;
}

static bool is_path_key(const char *key)
{
    return strcmp(key, "workload.trace") == 0 || strcmp(key, "cluster.nodes_file") == 0;
}

/* tenants.weights = file:PATH: the path is resolved like a path key's value. */
static bool is_weights_file(const char *key, const char *value)
{
    return strcmp(key, "tenants.weights") == 0 && strncmp(value, "file:", 5) == 0;
}

/* dike_config_set names the whole assignment after its origin ("F:L 'k=v': [s] k: why"); a grid
 * reports like a config file ("F:L: [s] k: why"), so the quoted assignment is dropped. */
static int config_set_at(dike_config *c, const char *key, const char *value, const char *origin,
                         dike_err *e)
{
    char *assignment = xprintf("%s=%s", key, value);
    int rc = dike_config_set(c, assignment, origin, e);
    if (rc && e) {
        char *prefix = xprintf("%s '%s'", origin, assignment);
        size_t plen = strlen(prefix);
        if (strncmp(e->msg, prefix, plen) == 0) {
            size_t olen = strlen(origin);
            memmove(e->msg + olen, e->msg + plen, strlen(e->msg + plen) + 1);
        }
        free(prefix);
        /* The configuration's list of sections does not know the grid-only ones. */
        char *unk = strstr(e->msg, ": unknown section '");
        size_t mlen = strlen(e->msg);
        if (unk && mlen > 1 && e->msg[mlen - 1] == ')' && mlen + 20 < sizeof e->msg)
            snprintf(e->msg + mlen - 1, sizeof e->msg - (mlen - 1), ", campaign, sweep)");
    }
    free(assignment);
    return rc;
}

/* A relative path (or comma-separated list of paths) read from the grid is relative to the grid
 * file's folder, like a relative workload.trace in a --config file (src/cli/main.c). */
static int resolve_paths(const char *grid_path, const char *value, char **out, dike_err *e,
                         const char *where)
{
    char *copy = dike_xstrdup(grid_path), *list = dike_xstrdup(value);
    const char *dir = dirname(copy);
    size_t cap = strlen(value) * 2 + strlen(dir) * 8 + 16, len = 0;
    char *buf = dike_xcalloc(1, cap);
    for (char *save = NULL, *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        item = dike_trim(item);
        /* Grow for long lists: every item may gain the folder. */
        size_t need = len + strlen(item) + strlen(dir) + 4;
        if (need > cap) {
            cap = need * 2;
            buf = dike_xrealloc(buf, cap);
        }
        if (item[0] == '/')
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? "," : "", item);
        else
            len += (size_t)snprintf(buf + len, cap - len, "%s%s/%s", len ? "," : "", dir, item);
    }
    free(copy);
    free(list);
    if (len >= DIKE_STR_MAX) {
        free(buf);
        return dike_err_set(e, DIKE_EINVAL, "%s: the path resolved against the grid's folder is longer "
                            "than %d characters", where, DIKE_STR_MAX - 1);
    }
    *out = buf;
    return 0;
}

/* ---- values of one axis ---- */

/* Is @p s "a..b" with two integers? */
static bool parse_range(const char *s, long long *lo, long long *hi)
{
    const char *dots = strstr(s, "..");
    if (!dots || dots == s || !dots[2])
        return false;
    char *a = xstrndup(s, (size_t)(dots - s));
    int64_t x, y;
    bool ok = !dike_parse_i64(a, &x) && !dike_parse_i64(dots + 2, &y);
    free(a);
    if (ok) {
        *lo = x;
        *hi = y;
    }
    return ok;
}

static void push_value(dike_grid_axis *ax, size_t *cap, char *v)
{
    if (ax->nvalues == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        ax->shown = dike_xrealloc(ax->shown, *cap * sizeof *ax->shown);
    }
    ax->shown[ax->nvalues++] = v;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Split "v1, v2, "quoted, with commas", 3..5" into ax->shown. A double-quoted item may hold commas;
 * an item that is exactly two integers around ".." is an inclusive range. */
static int split_values(dike_grid_axis *ax, const char *text, char *why, size_t whylen)
{
    size_t cap = 0;
    const char *p = text;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        const char *start = p, *end;
        bool quoted = *p == '"';
        if (quoted) {
            const char *close = strchr(p + 1, '"');
            if (!close) {
                snprintf(why, whylen, "unclosed '\"' in the list of values");
                return DIKE_EINVAL;
            }
            start = p + 1;
            end = close;
            p = close + 1;
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p && *p != ',') {
                snprintf(why, whylen, "text after a quoted value (values are separated by commas)");
                return DIKE_EINVAL;
            }
        } else {
            const char *comma = strchr(p, ',');
            end = comma ? comma : p + strlen(p);
            p = end;
        }
        char *item = xstrndup(start, (size_t)(end - start));
        char *t = quoted ? item : dike_trim(item);
        long long lo, hi;
        if (!quoted && !*t) {
            free(item);
            snprintf(why, whylen, ax->nvalues || *p ? "empty value in the list (two commas?)"
                                                     : "no values (write value, value, ... or a..b)");
            return DIKE_EINVAL;
        }
        if (!quoted && parse_range(t, &lo, &hi)) {
            if (lo > hi || hi - lo >= RANGE_MAX) {
                snprintf(why, whylen, lo > hi ? "range %lld..%lld is empty" : "range %lld..%lld has more "
                         "than %d values", lo, hi, RANGE_MAX);
                free(item);
                return DIKE_EINVAL;
            }
            for (long long v = lo; v <= hi; v++)
                push_value(ax, &cap, xprintf("%lld", v));
        } else {
            push_value(ax, &cap, dike_xstrdup(t));
        }
        free(item);
        if (*p != ',')
            break;
        p++;
    }
    /* Sorted copy: long ranges make a pairwise check quadratic. */
    char **sorted = dike_xmalloc(ax->nvalues * sizeof *sorted);
    memcpy(sorted, ax->shown, ax->nvalues * sizeof *sorted);
    qsort(sorted, ax->nvalues, sizeof *sorted, cmp_str);
    int rc = 0;
    for (size_t i = 1; i < ax->nvalues && !rc; i++)
        if (strcmp(sorted[i], sorted[i - 1]) == 0) {
            snprintf(why, whylen, "value '%s' is listed twice", sorted[i]);
            rc = DIKE_EINVAL;
        }
    free(sorted);
    return rc;
}

static void axis_free(dike_grid_axis *ax)
{
    for (size_t i = 0; i < ax->nvalues; i++) {
        free(ax->shown[i]);
        if (ax->values)
            free(ax->values[i]);
    }
    free(ax->shown);
    free(ax->values);
    free(ax->label);
    free(ax->key);
    free(ax->name_label);
}

/* ---- the INI reader ---- */

typedef struct grid_reader {
    dike_grid *g;
    const char *path;
    FILE *f;
    char *line;       /**< getline buffer */
    size_t cap;
    int lineno;       /**< line most recently handed to inih (inih 55 passes no line numbers) */
    int read_errno;   /**< errno of a read error */
    bool failed;      /**< an error is in err; stops reading */
    int err_line;
    dike_err err;
    bool progress_set;    /**< the file sets [output] progress_interval_s */
} grid_reader;

/* Same line handling as the configuration reader (src/io/config.c): count lines, refuse NUL bytes
 * and lines inih would split, and drop indentation so that it never means "continuation". */
static char *read_line(char *str, int num, void *stream)
{
    grid_reader *r = stream;
    if (r->failed)
        return NULL;
    errno = 0;
    ssize_t got = getline(&r->line, &r->cap, r->f);
    if (got < 0) {
        if (ferror(r->f))
            r->read_errno = errno ? errno : EIO;
        return NULL;
    }
    r->lineno++;
    if (strlen(r->line) != (size_t)got) {
        r->failed = true;
        r->err_line = r->lineno;
        dike_err_set(&r->err, DIKE_EINVAL, "%s:%d: contains a NUL byte (binary file?)", r->path, r->lineno);
        return NULL;
    }
    const char *s = r->line;
    while (*s == ' ' || *s == '\t')
        s++;
    size_t len = strlen(s);
    if (len + 1 > (size_t)num) {
        r->failed = true;
        r->err_line = r->lineno;
        dike_err_set(&r->err, DIKE_EINVAL, "%s:%d: line longer than %d characters (split a long axis "
                     "into blocks, or shorten paths)", r->path, r->lineno, num - 2);
        return NULL;
    }
    memcpy(str, s, len + 1);
    return str;
}

static int on_campaign_key(grid_reader *r, const char *where, const char *name, const char *value)
{
    dike_grid *g = r->g;
    if (strcmp(name, "name") == 0) {
        if (!valid_name(value) || strlen(value) > 48)
            return dike_err_set(&r->err, DIKE_EINVAL, "%s: [campaign] name: 1 to 48 letters, digits, "
                                "'.', '-' or '_' (got '%s')", where, value);
        snprintf(g->name, sizeof g->name, "%s", value);
        return 0;
    }
    if (strcmp(name, "out_dir") == 0) {
        if (!*value || strlen(value) > DIKE_STR_MAX - NAME_LIMIT - 16)
            return dike_err_set(&r->err, DIKE_EINVAL, "%s: [campaign] out_dir: must be a folder path of "
                                "1 to %d characters (got '%s')", where, DIKE_STR_MAX - NAME_LIMIT - 16,
                                value);
        snprintf(g->out_dir, sizeof g->out_dir, "%s", value);
        return 0;
    }
    if (strcmp(name, "ranks_per_run") == 0) {
        int64_t v;
        const char *bad = dike_parse_i64(value, &v);
        if (bad || v < 1 || v > 1000000)
            return dike_err_set(&r->err, DIKE_EINVAL, "%s: [campaign] ranks_per_run: %s (got '%s')", where,
                                bad ? bad : "must be in [1, 1000000]", value);
        g->ranks_per_run = v;
        return 0;
    }
    return dike_err_set(&r->err, DIKE_EINVAL, "%s: [campaign] %s: unknown key (keys of [campaign]: name, "
                        "out_dir, ranks_per_run)", where, name);
}

static int on_sweep_key(grid_reader *r, const char *where, const char *section, const char *name,
                        const char *value)
{
    dike_grid *g = r->g;
    const char *bname = section[5] == ':' ? section + 6 : "";
    if (section[5] == ':' && (!valid_name(bname) || strlen(bname) >= DIKE_GRID_NAME_MAX))
        return dike_err_set(&r->err, DIKE_EINVAL, "%s: [%s] %s: a block name after 'sweep:' is 1 to %d "
                            "letters, digits, '.', '-' or '_'", where, section, name, DIKE_GRID_NAME_MAX - 1);
    bool known = strchr(name, '.') != NULL;
    for (size_t i = 0; i < sizeof shorthands / sizeof shorthands[0]; i++)
        known = known || strcmp(name, shorthands[i].label) == 0;
    if (!known)
        return dike_err_set(&r->err, DIKE_EINVAL, "%s: [%s] %s: unknown axis: write section.key (dike-emu "
                            "config-reference) or one of the shorthands policy, placement, load, seed",
                            where, section, name);
    dike_grid_block *b = NULL;
    for (size_t i = 0; i < g->nblocks && !b; i++)
        if (strcmp(g->blocks[i].name, bname) == 0)
            b = &g->blocks[i];
    if (!b) {
        g->blocks = dike_xrealloc(g->blocks, (g->nblocks + 1) * sizeof *g->blocks);
        b = &g->blocks[g->nblocks++];
        memset(b, 0, sizeof *b);
        snprintf(b->name, sizeof b->name, "%s", bname);
    }
    for (size_t i = 0; i < b->naxes; i++)
        if (strcmp(b->axes[i].label, name) == 0)
            return dike_err_set(&r->err, DIKE_EINVAL, "%s: [%s] %s: axis already given at line %d", where,
                                section, name, b->axes[i].line);
    b->axes = dike_xrealloc(b->axes, (b->naxes + 1) * sizeof *b->axes);
    dike_grid_axis *ax = &b->axes[b->naxes++];
    memset(ax, 0, sizeof *ax);
    ax->label = dike_xstrdup(name);
    ax->line = r->lineno;
    char why[512];
    if (split_values(ax, value, why, sizeof why))
        return dike_err_set(&r->err, DIKE_EINVAL, "%s: [%s] %s: %s (got '%s')", where, section, name, why,
                            value);
    return 0;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
    grid_reader *r = user;
    char where[1200];
    int rc;
    if (r->failed)
        return 0;
    snprintf(where, sizeof where, "%s:%d", r->path, r->lineno);
    if (!*section)
        rc = dike_err_set(&r->err, DIKE_EINVAL, "%s: %s: key outside any [section]", where, name);
    else if (strcmp(section, "campaign") == 0)
        rc = on_campaign_key(r, where, name, value);
    else if (strncmp(section, "sweep", 5) == 0 && (section[5] == '\0' || section[5] == ':'))
        rc = on_sweep_key(r, where, section, name, value);
    else {
        char *key = xprintf("%s.%s", section, name);
        if (campaign_owned_key(key))
            rc = dike_err_set(&r->err, DIKE_EINVAL, "%s: [%s] %s: a campaign names every point's output "
                              "(and checkpoint) itself ([campaign] out_dir and the point names); remove "
                              "this key", where, section, name);
        else
            rc = config_set_at(&r->g->base, key, value, where, &r->err);
        r->progress_set = r->progress_set || strcmp(key, PROGRESS_KEY) == 0;
        free(key);
    }
    if (!rc)
        return 1;
    r->failed = true;
    r->err_line = r->lineno;
    return 0;
}

/* ---- finishing: shorthands, paths, names, sizes, and a check of every point ---- */

static int finish_axis(dike_grid *g, dike_grid_block *b, dike_grid_axis *ax, const dike_config *with_sets,
                       dike_err *e)
{
    char where[1200];
    snprintf(where, sizeof where, "%s:%d", g->path, ax->line);
    const char *key = ax->label;
    for (size_t i = 0; i < sizeof shorthands / sizeof shorthands[0]; i++)
        if (strcmp(ax->label, shorthands[i].label) == 0)
            key = shorthands[i].key ? shorthands[i].key
                                    : (with_sets->workload_trace[0] ? "workload.trace_load" : "workload.load");
    ax->key = dike_xstrdup(key);
    if (campaign_owned_key(key))
        return dike_err_set(e, DIKE_EINVAL, "%s: [sweep] %s: a campaign names every point's output (and "
                            "checkpoint) itself ([campaign] out_dir and the point names)", where, ax->label);
    for (dike_grid_axis *o = b->axes; o < ax; o++)
        if (strcmp(o->key, key) == 0)
            return dike_err_set(e, DIKE_EINVAL, "%s: [sweep%s%s] %s: sets %s, like the axis '%s' at line %d",
                                where, b->name[0] ? ":" : "", b->name, ax->label, key, o->label, o->line);
    ax->values = dike_xcalloc(ax->nvalues, sizeof *ax->values);
    for (size_t v = 0; v < ax->nvalues; v++) {
        int rc = is_path_key(key) ? resolve_paths(g->path, ax->shown[v], &ax->values[v], e, where) : 0;
        if (!rc && is_weights_file(key, ax->shown[v])) {
            char *path = NULL;
            if (!(rc = resolve_paths(g->path, ax->shown[v] + 5, &path, e, where))) {
                ax->values[v] = xprintf("file:%s", path);
                free(path);
            }
        }
        if (rc)
            return rc;
        if (!ax->values[v])
            ax->values[v] = dike_xstrdup(ax->shown[v]);
        dike_config scratch = g->base;
        if ((rc = config_set_at(&scratch, key, ax->values[v], where, e)))
            return rc;
    }
    /* In names a full key loses its section unless another axis of the block would then look the
     * same ("fairness_weight=0.5" rather than "dike.fairness_weight=0.5"). */
    const char *dot = strchr(ax->label, '.');
    const char *shortl = dot ? dot + 1 : ax->label;
    bool unique = true;
    for (size_t i = 0; i < b->naxes; i++) {
        const dike_grid_axis *o = &b->axes[i];
        if (o == ax)
            continue;
        const char *od = strchr(o->label, '.');
        if (strcmp(od ? od + 1 : o->label, shortl) == 0)
            unique = false;
    }
    ax->name_label = dike_xstrdup(unique ? shortl : ax->label);
    return 0;
}

/* The campaign's name (the file name without its extension, sanitised), out_dir and
 * ranks_per_run when the file did not give them. */
static void finish_defaults(dike_grid *g)
{
    if (!g->name[0]) {
        char *copy = dike_xstrdup(g->path);
        const char *base = basename(copy);
        size_t len = 0;
        const char *ext = strrchr(base, '.');
        size_t n = ext && ext != base ? (size_t)(ext - base) : strlen(base);
        char *stem = xstrndup(base, n);
        append_sanitised(g->name, &len, sizeof g->name, 48, stem);
        if (!len || g->name[0] == '.')
            snprintf(g->name, sizeof g->name, "campaign");
        free(stem);
        free(copy);
    }
    if (!g->out_dir[0])
        snprintf(g->out_dir, sizeof g->out_dir, "results/%s", g->name);
    if (!g->ranks_per_run)
        g->ranks_per_run = 1;
}

/* Relative paths of the base configuration: relative to the grid's folder. */
static int finish_base_paths(dike_grid *g, dike_err *e)
{
    int rc;
    char where[1200];
    snprintf(where, sizeof where, "%s", g->path);
    char *resolved = NULL;
    if (g->base.workload_trace[0]) {
        if ((rc = resolve_paths(g->path, g->base.workload_trace, &resolved, e, where)))
            return rc;
        snprintf(g->base.workload_trace, sizeof g->base.workload_trace, "%s", resolved);
        free(resolved);
    }
    if (g->base.cluster_nodes_file[0]) {
        if ((rc = resolve_paths(g->path, g->base.cluster_nodes_file, &resolved, e, where)))
            return rc;
        snprintf(g->base.cluster_nodes_file, sizeof g->base.cluster_nodes_file, "%s", resolved);
        free(resolved);
    }
    if (is_weights_file("tenants.weights", g->base.tenants_weights)) {
        if ((rc = resolve_paths(g->path, g->base.tenants_weights + 5, &resolved, e, where)))
            return rc;
        char *value = xprintf("file:%s", resolved);
        free(resolved);
        if (strlen(value) >= sizeof g->base.tenants_weights) {
            free(value);
            return dike_err_set(e, DIKE_EINVAL, "%s: [tenants] weights: the path resolved against the "
                                "grid's folder is longer than %d characters", where, DIKE_STR_MAX - 6);
        }
        snprintf(g->base.tenants_weights, sizeof g->base.tenants_weights, "%s", value);
        free(value);
    }
    return 0;
}

/* The base configuration with the command line's --set applied, as the axes see it. */
static int finish_sets(const dike_grid *g, dike_config *with_sets, dike_err *e)
{
    *with_sets = g->base;
    for (size_t i = 0; i < g->nsets; i++) {
        char *key = dike_xstrdup(g->sets[i]);
        char *eq = strchr(key, '=');
        if (eq)
            *eq = '\0';
        bool owned = campaign_owned_key(dike_trim(key));
        free(key);
        if (owned)
            return dike_err_set(e, DIKE_EINVAL, "--set '%s': a campaign names every point's output (and "
                                "checkpoint) itself (use --out-dir)", g->sets[i]);
        int rc = dike_config_set(with_sets, g->sets[i], "--set", e);
        if (rc)
            return rc;
    }
    return 0;
}

/* Every block's axes, and the points of each block. */
static int finish_blocks(dike_grid *g, const dike_config *with_sets, dike_err *e)
{
    int rc;
    if (g->nblocks == 0) { /* no [sweep]: one point, the base configuration */
        g->blocks = dike_xcalloc(1, sizeof *g->blocks);
        g->nblocks = 1;
    }
    size_t total = 0;
    for (size_t bi = 0; bi < g->nblocks; bi++) {
        dike_grid_block *b = &g->blocks[bi];
        size_t n = 1;
        for (size_t a = 0; a < b->naxes; a++) {
            if ((rc = finish_axis(g, b, &b->axes[a], with_sets, e)))
                return rc;
            if (n > DIKE_GRID_MAX_POINTS / b->axes[a].nvalues)
                n = DIKE_GRID_MAX_POINTS + 1;
            else
                n *= b->axes[a].nvalues;
        }
        b->first = total;
        b->npoints = n;
        total += n;
        if (total > DIKE_GRID_MAX_POINTS)
            return dike_err_set(e, DIKE_EINVAL, "%s: the grid has more than %d points; split it into "
                                "several grids", g->path, DIKE_GRID_MAX_POINTS);
    }
    g->npoints = total;
    return 0;
}

/* Cross-key checks on every point now, so a bad combination stops the campaign before it starts
 * rather than as one failed point among hundreds. */
static int finish_check_points(const dike_grid *g, dike_err *e)
{
    dike_config *cfg = dike_xmalloc(sizeof *cfg);
    dike_err pe = {0};
    int rc = 0;
    for (size_t i = 0; i < g->npoints && !rc; i++) {
        if (dike_grid_point_config(g, i, cfg, &pe) || dike_config_validate(cfg, &pe)) {
            char axes[512];
            dike_grid_point_axes(g, i, axes, sizeof axes);
            rc = dike_err_set(e, DIKE_EINVAL, "%s: point %zu (%s): %s", g->path, i, axes, pe.msg);
        }
    }
    free(cfg);
    return rc;
}

static int finish(dike_grid *g, bool progress_set, dike_err *e)
{
    if (!progress_set) /* an older or newer key table may lack the key: then nothing to turn off */
        dike_config_set(&g->base, PROGRESS_KEY "=0", "campaign", NULL);
    finish_defaults(g);
    dike_config *with_sets = dike_xmalloc(sizeof *with_sets);
    int rc = finish_base_paths(g, e);
    if (!rc)
        rc = finish_sets(g, with_sets, e);
    if (!rc)
        rc = finish_blocks(g, with_sets, e);
    free(with_sets);
    return rc ? rc : finish_check_points(g, e);
}

/* ---- public ---- */

int dike_grid_load(dike_grid *g, const char *path, const char *const *sets, size_t nsets, dike_err *e)
{
    memset(g, 0, sizeof *g);
    g->path = dike_xstrdup(path);
    dike_config_defaults(&g->base);
    g->sets = dike_xcalloc(nsets, sizeof *g->sets);
    for (size_t i = 0; i < nsets; i++)
        g->sets[g->nsets++] = dike_xstrdup(sets[i]);

    grid_reader *r = dike_xcalloc(1, sizeof *r);
    int rc = 0;
    r->g = g;
    r->path = path;
    if (!(r->f = fopen(path, "r"))) {
        rc = dike_err_set(e, DIKE_EIO, "%s: cannot open: %s", path, strerror(errno));
        goto out;
    }
    int bad_line = ini_parse_stream(read_line, r, on_key, r);
    if (r->read_errno)
        rc = dike_err_set(e, DIKE_EIO, "%s: cannot read: %s", path, strerror(r->read_errno));
    else if (r->failed && (bad_line <= 0 || r->err_line <= bad_line))
        rc = dike_err_set(e, DIKE_EINVAL, "%s", r->err.msg);
    else if (bad_line > 0)
        rc = dike_err_set(e, DIKE_EINVAL, "%s:%d: syntax error: expected '[section]' or 'key = value'", path,
                          bad_line);
    else if (bad_line < 0)
        rc = dike_err_set(e, DIKE_ENOMEM, "%s: inih could not allocate its line buffer", path);
    if (!rc)
        rc = finish(g, r->progress_set, e);
out:
    if (r->f)
        fclose(r->f);
    free(r->line);
    free(r);
    if (rc)
        dike_grid_free(g);
    return rc;
}

void dike_grid_free(dike_grid *g)
{
    for (size_t b = 0; b < g->nblocks; b++) {
        for (size_t a = 0; a < g->blocks[b].naxes; a++)
            axis_free(&g->blocks[b].axes[a]);
        free(g->blocks[b].axes);
    }
    free(g->blocks);
    for (size_t i = 0; i < g->nsets; i++)
        free(g->sets[i]);
    free(g->sets);
    free(g->path);
    memset(g, 0, sizeof *g);
}

int dike_grid_set_out_dir(dike_grid *g, const char *dir, dike_err *e)
{
    if (!*dir || strlen(dir) > DIKE_STR_MAX - NAME_LIMIT - 16)
        return dike_err_set(e, DIKE_EINVAL, "--out-dir: must be a folder path of 1 to %d characters (got '%s')",
                            DIKE_STR_MAX - NAME_LIMIT - 16, dir);
    snprintf(g->out_dir, sizeof g->out_dir, "%s", dir);
    return 0;
}

const dike_grid_block *dike_grid_block_of(const dike_grid *g, size_t i)
{
    for (size_t b = 0; b < g->nblocks; b++)
        if (i < g->blocks[b].first + g->blocks[b].npoints)
            return &g->blocks[b];
    dike_fatal("point %zu of a grid of %zu points", i, g->npoints);
}

size_t dike_grid_coord(const dike_grid *g, size_t i, size_t a)
{
    const dike_grid_block *b = dike_grid_block_of(g, i);
    size_t off = i - b->first;
    /* Mixed radix, the last axis least significant: it varies fastest. */
    for (size_t k = b->naxes; k-- > a + 1;)
        off /= b->axes[k].nvalues;
    return off % b->axes[a].nvalues;
}

int dike_grid_point_config(const dike_grid *g, size_t i, dike_config *cfg, dike_err *e)
{
    const dike_grid_block *b = dike_grid_block_of(g, i);
    char where[1200], out[DIKE_STR_MAX + NAME_LIMIT + 16];
    int rc = 0;
    *cfg = g->base;
    for (size_t a = 0; a < b->naxes && !rc; a++) {
        const dike_grid_axis *ax = &b->axes[a];
        snprintf(where, sizeof where, "%s:%d", g->path, ax->line);
        rc = config_set_at(cfg, ax->key, ax->values[dike_grid_coord(g, i, a)], where, e);
    }
    for (size_t s = 0; s < g->nsets && !rc; s++)
        rc = dike_config_set(cfg, g->sets[s], "--set", e);
    if (rc)
        return rc;
    dike_grid_point_output(g, i, out, sizeof out);
    if (strlen(out) >= sizeof cfg->run_out)
        return dike_err_set(e, DIKE_EINVAL, "%s: point %zu: output path longer than %d characters: %s",
                            g->path, i, DIKE_STR_MAX - 1, out);
    memset(cfg->run_out, 0, sizeof cfg->run_out);
    memcpy(cfg->run_out, out, strlen(out));
    return 0;
}

/* A path value appears in names as its file name without extension ("philly-vc-week"). */
static void shown_for_name(const dike_grid_axis *ax, const char *v, char *buf, size_t n)
{
    if (!is_path_key(ax->key) || !*v) {
        /* An empty workload.trace is the synthetic workload. */
        snprintf(buf, n, "%s", *v || strcmp(ax->key, "workload.trace") ? v : "synthetic");
        return;
    }
    char *list = dike_xstrdup(v);
    size_t len = 0;
    buf[0] = '\0';
    for (char *save = NULL, *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        item = dike_trim(item);
        const char *slash = strrchr(item, '/');
        const char *base = slash ? slash + 1 : item;
        const char *ext = strrchr(base, '.');
        size_t blen = ext && ext != base ? (size_t)(ext - base) : strlen(base);
        int w = snprintf(buf + len, n - len, "%s%.*s", len ? "+" : "", (int)blen, base);
        if (w < 0 || (size_t)w >= n - len)
            break;
        len += (size_t)w;
    }
    free(list);
}

void dike_grid_point_name(const dike_grid *g, size_t i, char *buf, size_t n)
{
    const dike_grid_block *b = dike_grid_block_of(g, i);
    char idx[64], value[DIKE_STR_MAX];
    size_t len = 0;
    size_t limit = n - 1 < NAME_LIMIT ? n - 1 : NAME_LIMIT;
    buf[0] = '\0';
    snprintf(idx, sizeof idx, "-%04zu", i);
    append_sanitised(buf, &len, n, limit, g->name);
    append_sanitised(buf, &len, n, limit, idx);
    for (size_t a = 0; a < b->naxes; a++) {
        const dike_grid_axis *ax = &b->axes[a];
        shown_for_name(ax, ax->shown[dike_grid_coord(g, i, a)], value, sizeof value);
        append_sanitised(buf, &len, n, limit, "-");
        append_sanitised(buf, &len, n, limit, ax->name_label);
        append_sanitised(buf, &len, n, limit, "=");
        append_sanitised(buf, &len, n, limit, value);
    }
}

void dike_grid_point_output(const dike_grid *g, size_t i, char *buf, size_t n)
{
    char name[DIKE_GRID_POINT_NAME_MAX];
    dike_grid_point_name(g, i, name, sizeof name);
    size_t dl = strlen(g->out_dir);
    bool slash = dl && g->out_dir[dl - 1] == '/';
    /* Built piecewise: one snprintf of three strings trips gcc -O3's truncation warning. */
    size_t len = (size_t)snprintf(buf, n, "%s%s", g->out_dir, slash ? "" : "/");
    if (len < n)
        len += (size_t)snprintf(buf + len, n - len, "%s", name);
    if (len < n)
        snprintf(buf + len, n - len, ".h5");
}

void dike_grid_point_axes(const dike_grid *g, size_t i, char *buf, size_t n)
{
    const dike_grid_block *b = dike_grid_block_of(g, i);
    size_t len = 0;
    buf[0] = '\0';
    if (!b->naxes)
        snprintf(buf, n, "(base)");
    for (size_t a = 0; a < b->naxes && len < n; a++) {
        const dike_grid_axis *ax = &b->axes[a];
        int w = snprintf(buf + len, n - len, "%s%s=%s", a ? " " : "", ax->label,
                         ax->shown[dike_grid_coord(g, i, a)]);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

void dike_grid_print_list(const dike_grid *g, FILE *f)
{
    char out[DIKE_STR_MAX + NAME_LIMIT + 16], axes[2048];
    fprintf(f, "# campaign: %s\n# grid: %s\n# out_dir: %s\n# points: %zu\n# ranks_per_run: %lld\n", g->name,
            g->path, g->out_dir, g->npoints, (long long)g->ranks_per_run);
    if (g->nblocks > 1 || g->blocks[0].name[0]) {
        fprintf(f, "# blocks:");
        for (size_t b = 0; b < g->nblocks; b++)
            fprintf(f, "%s [sweep%s%s] %zu..%zu", b ? "," : "", g->blocks[b].name[0] ? ":" : "",
                    g->blocks[b].name, g->blocks[b].first, g->blocks[b].first + g->blocks[b].npoints - 1);
        fprintf(f, "\n");
    }
    fprintf(f, "# index\toutput\taxes\n");
    for (size_t i = 0; i < g->npoints; i++) {
        dike_grid_point_output(g, i, out, sizeof out);
        dike_grid_point_axes(g, i, axes, sizeof axes);
        fprintf(f, "%zu\t%s\t%s\n", i, out, axes);
    }
}

long dike_grid_parse_selection(const char *text, size_t npoints, bool *sel, dike_err *e)
{
    char *copy = dike_xstrdup(text);
    long count = 0;
    int rc = 0;
    memset(sel, 0, npoints * sizeof *sel);
    if (!*dike_trim(copy))
        rc = dike_err_set(e, DIKE_EINVAL, "--point '%s': empty selection", text);
    for (char *save = NULL, *item = strtok_r(copy, ",", &save); item && !rc;
         item = strtok_r(NULL, ",", &save)) {
        item = dike_trim(item);
        int64_t lo, hi;
        char *sep = strstr(item, "..");
        size_t seplen = 2;
        if (!sep && (sep = strchr(item + 1, '-')))
            seplen = 1;
        bool bad;
        if (sep) {
            char *a = xstrndup(item, (size_t)(sep - item));
            bad = dike_parse_i64(a, &lo) || dike_parse_i64(sep + seplen, &hi);
            free(a);
        } else {
            bad = dike_parse_i64(item, &lo) != NULL;
            hi = lo;
        }
        if (bad || lo < 0 || hi < lo)
            rc = dike_err_set(e, DIKE_EINVAL, "--point '%s': '%s' is not a point index or range (3, 0..5, "
                              "0-5)", text, item);
        else if ((uint64_t)hi >= npoints)
            rc = dike_err_set(e, DIKE_EINVAL, "--point '%s': point %" PRId64 " does not exist (the grid has "
                              "%zu points, 0..%zu)", text, hi, npoints, npoints ? npoints - 1 : 0);
        for (int64_t k = lo; !rc && k <= hi; k++)
            if (!sel[k]) {
                sel[k] = true;
                count++;
            }
    }
    free(copy);
    return rc ? rc : count;
}
