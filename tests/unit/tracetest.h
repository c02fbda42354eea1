/* Helpers of the trace tests (tests/unit/test_trace_*.c): clusters from config assignments,
 * reading a trace that must succeed, and one that must fail with a given message. */
#ifndef DIKE_TEST_TRACETEST_H
#define DIKE_TEST_TRACETEST_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dike/workload.h"

#define US(s) ((dike_time)((s) * 1000000LL)) /* whole seconds to dike_time */

/* |a - b| <= eps for doubles (cmocka's assert_float_equal works in float). */
#define tt_near(a, b, eps)                                                                        \
    do {                                                                                          \
        double a_ = (a), b_ = (b);                                                                \
        if (!(fabs(a_ - b_) <= (eps)))                                                            \
            fail_msg("%s = %.17g, expected %.17g (+- %g)", #a, a_, b_, (double)(eps));            \
    } while (0)

/* defaults + "section.key=value" assignments (NULL-terminated), then the cluster. */
static inline void tt_config(dike_config *c, const char *const *sets)
{
    dike_err e = {0};
    dike_config_defaults(c);
    for (size_t i = 0; sets && sets[i]; i++)
        if (dike_config_set(c, sets[i], "test", &e))
            fail_msg("%s", e.msg);
}

static inline void tt_cluster(dike_cluster *cl, const char *const *sets)
{
    dike_config c;
    dike_err e = {0};
    tt_config(&c, sets);
    if (dike_cluster_init(cl, &c, &e))
        fail_msg("%s", e.msg);
}

/* Read @p spec in @p format; the read must succeed. */
static inline void tt_read(const char *spec, const char *format, const dike_cluster *cl, bool skip,
                           dike_workload *w)
{
    dike_err e = {0};
    dike_workload_init(w);
    if (dike_trace_read(spec, format, cl, skip, w, &e))
        fail_msg("%s", e.msg);
}

/* Read @p spec; it must fail with DIKE_EINVAL and the message "<where>: <rest>", where is @p spec
 * followed by ":LINE" when @p line > 0. The workload must be left empty. */
static inline void tt_expect_error(const char *spec, const char *format, const dike_cluster *cl,
                                   bool skip, int line, const char *rest)
{
    dike_workload w;
    dike_err e = {0};
    char want[2048];
    dike_workload_init(&w);
    assert_int_equal(dike_trace_read(spec, format, cl, skip, &w, &e), DIKE_EINVAL);
    if (line > 0)
        snprintf(want, sizeof want, "%s:%d: %s", spec, line, rest);
    else
        snprintf(want, sizeof want, "%s: %s", spec, rest);
    assert_string_equal(e.msg, want);
    assert_int_equal(w.njobs, 0);
    assert_null(w.jobs);
    dike_workload_free(&w);
}

static inline char *tt_write_tmp(const char *text)
{
    char tmpl[] = "/tmp/dike-test-trace-XXXXXX";
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    size_t len = strlen(text);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
    return strdup(tmpl);
}

static inline void tt_drop_tmp(char *path)
{
    unlink(path);
    free(path);
}

#endif
