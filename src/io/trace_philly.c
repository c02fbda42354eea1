/* TitanSched's Philly trace (philly-vc): one row per job of Microsoft's Philly cluster,
 *
 *     timestamp,duration,num_gpus,gpu_time,cluster
 *     2017-10-09 07:01:55,66.0,1,66.0,11cb48
 *
 * timestamp = submit time as a calendar date and time (read as UTC; only differences matter),
 * duration in seconds, cluster = the virtual cluster, which becomes the tenant. gpu_time
 * (= duration x num_gpus) is ignored. The rows are not sorted: the reader sorts them (ties keep
 * file order) and numbers the jobs by their position after sorting, as the converter that made
 * experiments/data/philly-vc-week.csv did (test_trace_shared compares them). */
#define _GNU_SOURCE /* strptime (X/Open) and timegm (BSD) are not C11 */
#include "io/trace.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

enum { C_TIMESTAMP, C_DURATION, C_GPUS, C_GPU_TIME, C_CLUSTER, NCOLS };

static const dike_trace_col cols[NCOLS] = {
    [C_TIMESTAMP] = {"timestamp", true}, [C_DURATION] = {"duration", true},
    [C_GPUS] = {"num_gpus", true},       [C_GPU_TIME] = {"gpu_time", false},
    [C_CLUSTER] = {"cluster", true},
};

/* "YYYY-MM-DD HH:MM:SS", exactly, into seconds since 1970-01-01 00:00:00 UTC; -1 if malformed.
 * The calendar is the C library's (strptime reads the fields, timegm does the arithmetic, in UTC
 * whatever TZ says); checked here is only what they leave out:
 *  - the shape: strptime also takes one-digit fields and blanks before a number, so the length,
 *    separators and digits are checked first;
 *  - the day of the month: strptime takes any day 1-31 (2017-02-30), which timegm carries into
 *    the next month; a date that comes back from timegm -> gmtime_r changed did not exist;
 *  - seconds: 60 (a leap second) is accepted as before and counts as the first second of the
 *    next minute, timegm's carry, so it is added after the round trip; 61, which glibc's %S
 *    takes, is not. */
static int64_t parse_datetime(const char *s)
{
    if (strlen(s) != 19 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':')
        return -1;
    for (int i = 0; i < 19; i++)
        if (i != 4 && i != 7 && i != 10 && i != 13 && i != 16 && (s[i] < '0' || s[i] > '9'))
            return -1;
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = strptime(s, "%Y-%m-%d %H:%M:%S", &tm);
    if (!end || *end || tm.tm_year < 70 || tm.tm_sec > 60)
        return -1;
    const int sec = tm.tm_sec;
    tm.tm_sec = 0;
    const struct tm want = tm; /* timegm normalises its argument in place */
    struct tm back;
    const time_t t = timegm(&tm);
    if (t == (time_t)-1 || !gmtime_r(&t, &back) || back.tm_year != want.tm_year ||
        back.tm_mon != want.tm_mon || back.tm_mday != want.tm_mday)
        return -1;
    return (int64_t)t + sec;
}

static int row(dike_trace_file *f, dike_trace_row *r, dike_err *e)
{
    int rc;
    int64_t t = parse_datetime(f->col[C_TIMESTAMP]);
    if (t < 0)
        return dike_trace_fail(f, e, DIKE_SKIP_MALFORMED, C_TIMESTAMP,
                                "not a date and time 'YYYY-MM-DD HH:MM:SS' (got '%s')",
                                f->col[C_TIMESTAMP]);
    if ((rc = dike_trace_time(f, e, C_TIMESTAMP, (double)t, NULL, &r->submit)))
        return rc;
    if ((rc = dike_trace_duration_col(f, e, C_DURATION, &r->duration)))
        return rc;
    if ((rc = dike_trace_gpus_col(f, e, C_GPUS, -1, &r->gpus)))
        return rc;
    if ((rc = dike_trace_name(f, e, C_CLUSTER)))
        return rc;
    r->tenant = f->col[C_CLUSTER];
    return 0;
}

const dike_trace_format dike_trace_fmt_philly_vc = {
    .name = "philly-vc",
    .summary = "TitanSched's Philly trace: date-time submits, unsorted rows; tenant = virtual cluster",
    .cols = cols, .ncols = NCOLS, .id_col = -1, .submit_col = C_TIMESTAMP,
    .flags = 0, .row = row,
};
