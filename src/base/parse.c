/* Strict number parsing and the config's "name:number,..." lists. */
#include "base/parse.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dike/base.h"

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

char *dike_trim(char *s)
{
    while (is_blank(*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && is_blank(s[n - 1]))
        s[--n] = '\0';
    return s;
}

const char *dike_parse_i64(const char *s, int64_t *v)
{
    if (!*s)
        return "empty value";
    /* strtoll would skip leading blanks; a value must be exactly a number. */
    if (is_blank(*s))
        return "not an integer";
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || *end)
        return "not an integer";
    if (errno == ERANGE)
        return "integer out of range";
    *v = x;
    return NULL;
}

const char *dike_parse_f64(const char *s, double *v)
{
    if (!*s)
        return "empty value";
    if (is_blank(*s))
        return "not a number";
    /* strtod also reads hex ("0x10"), "inf" and "nan": only decimal notation is a number here. */
    for (const char *c = s; *c; c++)
        if (*c == 'i' || *c == 'I' || *c == 'n' || *c == 'N')
            return "not a finite number"; /* inf, infinity, nan: no digit string has these */
    for (const char *c = s; *c; c++)
        if (!strchr("0123456789+-.eE", *c))
            return "not a number";
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end)
        return "not a number";
    /* Overflow gives HUGE_VAL (caught here); underflow to a tiny or zero value is harmless. */
    if (!isfinite(x))
        return "not a finite number";
    *v = x;
    return NULL;
}

size_t dike_split_csv(char *s, char **fields, size_t max)
{
    size_t n = 0;
    for (;;) {
        char *comma = strchr(s, ',');
        if (comma)
            *comma = '\0';
        if (n < max)
            fields[n] = dike_trim(s);
        n++;
        if (!comma)
            return n;
        s = comma + 1;
    }
}

/* --- lists --- */

/* One "name:value" item of a list, both sides trimmed. */
typedef struct item {
    char *name;
    char *value;
} item;

/* Split @p text (a private copy, modified in place) at commas into at most @p max items.
 * Returns the item count, or -1 with a reason. */
static int split_items(char *text, item *items, size_t max, const char *form, char *why, size_t whylen)
{
    size_t n = 0;
    char *s = dike_trim(text);
    if (!*s)
        return 0;
    for (;;) {
        char *comma = strchr(s, ',');
        if (comma)
            *comma = '\0';
        char *it = dike_trim(s);
        char *colon = strchr(it, ':');
        if (n == max) {
            snprintf(why, whylen, "more than %zu entries", max);
            return -1;
        }
        if (!colon) {
            snprintf(why, whylen, "entry %zu '%s' is not %s", n + 1, it, form);
            return -1;
        }
        *colon = '\0';
        items[n].name = dike_trim(it);
        items[n].value = dike_trim(colon + 1);
        if (!*items[n].name || !*items[n].value) {
            snprintf(why, whylen, "entry %zu '%s:%s' is not %s", n + 1, items[n].name, items[n].value,
                     form);
            return -1;
        }
        n++;
        if (!comma)
            break;
        s = comma + 1;
    }
    return (int)n;
}

/* GPU type names appear in HDF5 fixed-size strings and in messages: keep them short and plain. */
static int check_type_name(const char *name, size_t idx, char *why, size_t whylen)
{
    if (strlen(name) >= DIKE_GPU_TYPE_NAME) {
        snprintf(why, whylen, "entry %zu: type name '%s' is longer than %d characters", idx + 1, name,
                 DIKE_GPU_TYPE_NAME - 1);
        return DIKE_EINVAL;
    }
    for (const char *p = name; *p; p++) {
        char ch = *p;
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '_' || ch == '-' || ch == '.';
        if (!ok) {
            snprintf(why, whylen, "entry %zu: type name '%s' may only use letters, digits, '_', '-', '.'",
                     idx + 1, name);
            return DIKE_EINVAL;
        }
    }
    return 0;
}

/* What both type lists check of entry @p i besides its value: a plain, short name that no earlier
 * entry used. */
static int check_type_entry(const item *items, size_t i, char *why, size_t whylen)
{
    if (check_type_name(items[i].name, i, why, whylen))
        return DIKE_EINVAL;
    for (size_t j = 0; j < i; j++) {
        if (strcmp(items[j].name, items[i].name) == 0) {
            snprintf(why, whylen, "type '%s' listed twice", items[i].name);
            return DIKE_EINVAL;
        }
    }
    return 0;
}

/* Both type lists: "type:value" entries, each a plain name listed once with a value that is a node
 * count (@p counts: an integer in [1, 2^32), stored as uint32_t) or a speed (a number > 0, stored as
 * double). Entry i's name goes to @p name0 + i x @p stride and its value to @p value0 + i x
 * @p stride: the members of the caller's array of structs. */
static int parse_type_list(const char *text, bool counts, char *name0, void *value0, size_t stride,
                           size_t *n, char *why, size_t whylen)
{
    item items[DIKE_MAX_GPU_TYPES];
    char *copy = dike_xstrdup(text);
    int rc = DIKE_EINVAL;
    int cnt = split_items(copy, items, DIKE_MAX_GPU_TYPES, counts ? "type:nodes" : "type:speed", why,
                          whylen);
    for (size_t i = 0; i < (size_t)(cnt > 0 ? cnt : 0); i++) {
        int64_t iv = 0;
        double v = 0;
        bool ok = counts ? !dike_parse_i64(items[i].value, &iv) && iv >= 1 && iv <= UINT32_MAX
                         : !dike_parse_f64(items[i].value, &v) && v > 0;
        if (check_type_entry(items, i, why, whylen))
            goto out;
        if (!ok) {
            snprintf(why, whylen, "entry %zu '%s:%s': %s", i + 1, items[i].name, items[i].value,
                     counts ? "node count must be an integer >= 1" : "speed must be a number > 0");
            goto out;
        }
        snprintf(name0 + i * stride, DIKE_GPU_TYPE_NAME, "%s", items[i].name);
        char *value = (char *)value0 + i * stride;
        if (counts)
            *(uint32_t *)value = (uint32_t)iv;
        else
            *(double *)value = v;
    }
    if (cnt >= 0) {
        *n = (size_t)cnt;
        rc = 0;
    }
out:
    free(copy);
    return rc;
}

int dike_parse_gpu_types(const char *text, dike_type_count out[DIKE_MAX_GPU_TYPES], size_t *n,
                          char *why, size_t whylen)
{
    return parse_type_list(text, true, out->name, &out->nodes, sizeof *out, n, why, whylen);
}

int dike_parse_gpu_speeds(const char *text, dike_type_speed out[DIKE_MAX_GPU_TYPES], size_t *n,
                           char *why, size_t whylen)
{
    return parse_type_list(text, false, out->name, &out->speed, sizeof *out, n, why, whylen);
}

int dike_parse_gpu_mix(const char *text, dike_mix_entry out[DIKE__MIX_MAX], size_t *n, char *why,
                        size_t whylen)
{
    item items[DIKE__MIX_MAX];
    char *copy = dike_xstrdup(text);
    int rc = DIKE_EINVAL;
    double total = 0;
    int cnt = split_items(copy, items, DIKE__MIX_MAX, "gpus:weight", why, whylen);
    if (cnt < 0)
        goto out;
    for (size_t i = 0; i < (size_t)cnt; i++) {
        int64_t g;
        double w;
        if (dike_parse_i64(items[i].name, &g) || g < 1 || g > UINT32_MAX) {
            snprintf(why, whylen, "entry %zu '%s:%s': GPU count must be an integer >= 1", i + 1,
                     items[i].name, items[i].value);
            goto out;
        }
        if (dike_parse_f64(items[i].value, &w) || w < 0) {
            snprintf(why, whylen, "entry %zu '%s:%s': weight must be a number >= 0", i + 1,
                     items[i].name, items[i].value);
            goto out;
        }
        for (size_t j = 0; j < i; j++) {
            if (out[j].gpus == (uint32_t)g) {
                snprintf(why, whylen, "GPU count %lld listed twice", (long long)g);
                goto out;
            }
        }
        out[i].gpus = (uint32_t)g;
        out[i].weight = w;
        total += w;
    }
    if (!(total > 0)) {
        snprintf(why, whylen, "%s", cnt ? "weights sum to 0" : "empty mix");
        goto out;
    }
    *n = (size_t)cnt;
    rc = 0;
out:
    free(copy);
    return rc;
}

long dike_getline_capped(char **buf, size_t *cap, FILE *fp, size_t max)
{
    size_t n = 0;
    int ch;
    while ((ch = getc(fp)) != EOF) {
        if (n + 2 > *cap) {
            *cap = *cap ? 2 * *cap : 256;
            *buf = dike_xrealloc(*buf, *cap);
        }
        (*buf)[n++] = (char)ch;
        if (ch == '\n')
            break;
        if (n > max)
            return -2;
    }
    if (n == 0)
        return -1;
    (*buf)[n] = '\0';
    return (long)n;
}

int dike_input_regular(const char *path, const char *what, dike_err *e)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || S_ISREG(sb.st_mode))
        return 0; /* a missing file is reported when it is opened */
    const char *kind = S_ISDIR(sb.st_mode) ? "a folder" : S_ISCHR(sb.st_mode) ? "a character device"
                     : S_ISBLK(sb.st_mode) ? "a block device" : S_ISFIFO(sb.st_mode) ? "a FIFO or pipe"
                     : "not a regular file";
    return dike_err_set(e, DIKE_EINVAL, "%s: the %s is %s: give a regular file (it is read more than "
                        "once)", path, what, kind);
}
