/* TitanSched's Philly trace (philly-vc): one row per job of Microsoft's Philly cluster,
 *
 *     timestamp,duration,num_gpus,gpu_time,cluster
 *     2017-10-09 07:01:55,66.0,1,66.0,11cb48
 *
 * timestamp = submit time as a calendar date and time (read as UTC; only differences matter),
 * duration in seconds, cluster = the virtual cluster, which becomes the tenant. gpu_time
 * (= duration x num_gpus) is ignored. The rows are not sorted: the reader sorts them (ties keep
 * file order) and numbers the jobs by their position after sorting, exactly as
 * tools/philly_to_dike.py does. */
#include "io/trace.h"

#include <stdio.h>
#include <string.h>

enum { C_TIMESTAMP, C_DURATION, C_GPUS, C_GPU_TIME, C_CLUSTER, NCOLS };

static const dike__trace_col cols[NCOLS] = {
    [C_TIMESTAMP] = {"timestamp", true}, [C_DURATION] = {"duration", true},
    [C_GPUS] = {"num_gpus", true},       [C_GPU_TIME] = {"gpu_time", false},
    [C_CLUSTER] = {"cluster", true},
};

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil): exact, with
 * no time zone or locale involved, unlike mktime. */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const int64_t yoe = y - era * 400;
    const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* The number written by @p n decimal digits at @p s (checked to be digits). */
static int digits(const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++)
        v = 10 * v + (s[i] - '0');
    return v;
}

/* "YYYY-MM-DD HH:MM:SS", exactly, into seconds since 1970-01-01 00:00:00; -1 if malformed. */
static int64_t parse_datetime(const char *s)
{
    static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (strlen(s) != 19 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':')
        return -1;
    for (int i = 0; i < 19; i++)
        if (i != 4 && i != 7 && i != 10 && i != 13 && i != 16 && (s[i] < '0' || s[i] > '9'))
            return -1;
    /* every digit checked above, so the fields are read directly (sscanf cost more than the rest
     * of the row) */
    int y = digits(s, 4), mo = digits(s + 5, 2), d = digits(s + 8, 2), h = digits(s + 11, 2),
        mi = digits(s + 14, 2), se = digits(s + 17, 2);
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || se > 60)
        return -1;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo == 2 && d == 29 && !leap)
        return -1;
    return days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
}

static int row(dike__trace_file *f, dike__trace_row *r, dike_err *e)
{
    int64_t v;
    double s;
    int rc;
    int64_t t = parse_datetime(f->col[C_TIMESTAMP]);
    if (t < 0)
        return dike__trace_fail(f, e, DIKE_SKIP_MALFORMED, C_TIMESTAMP,
                                "not a date and time 'YYYY-MM-DD HH:MM:SS' (got '%s')",
                                f->col[C_TIMESTAMP]);
    if ((rc = dike__trace_time(f, e, C_TIMESTAMP, (double)t, NULL, &r->submit)))
        return rc;
    if ((rc = dike__trace_real(f, e, C_DURATION, &s)) ||
        (rc = dike__trace_duration(f, e, C_DURATION, s, NULL, &r->duration)))
        return rc;
    if ((rc = dike__trace_int(f, e, C_GPUS, 1, &v)) ||
        (rc = dike__trace_gang(f, e, C_GPUS, v, -1, &r->gpus)))
        return rc;
    if ((rc = dike__trace_name(f, e, C_CLUSTER)))
        return rc;
    r->tenant = f->col[C_CLUSTER];
    return 0;
}

const dike__trace_format dike__trace_fmt_philly_vc = {
    .name = "philly-vc",
    .summary = "TitanSched's Philly trace: date-time submits, unsorted rows; tenant = virtual cluster",
    .cols = cols,
    .ncols = NCOLS,
    .id_col = -1,
    .submit_col = C_TIMESTAMP,
    .flags = 0,
    .row = row,
};
