/* Test helper: run a hand-written workload through the real engine on one rank. */
#ifndef DIKE_TEST_SCENARIO_H
#define DIKE_TEST_SCENARIO_H

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Scenarios list jobs as {submit, duration, gpus, tenant} and add the GPU type only when needed. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include "dike/config.h"
#include "dike/results.h"
#include "dike/workload.h"
#include "run/run_internal.h"

typedef struct sc_job {
    double submit, duration; /* s */
    unsigned gpus;
    const char *tenant;
    int type1; /* required GPU type: index + 1 in cluster.gpu_types; 0 = any */
} sc_job;

/* cfg: defaults + the given "section.key=value" overrides (NULL-terminated). Returns 0 on success;
 * results in *r (free with dike_results_free). */
static inline int sc_run(const sc_job *jobs, size_t n, const char *const *sets, dike_results *r)
{
    dike_config cfg;
    dike_err e = {0};
    dike_config_defaults(&cfg);
    for (size_t i = 0; sets && sets[i]; i++)
        if (dike_config_set(&cfg, sets[i], "test", &e)) {
            fprintf(stderr, "%s\n", e.msg);
            return -1;
        }
    dike_workload w;
    dike_workload_init(&w);
    snprintf(w.source, sizeof w.source, "%s", "test-scenario");
    for (size_t i = 0; i < n; i++) {
        dike_job_spec *j = dike_workload_push(&w);
        memset(j, 0, sizeof *j);
        j->id = (int64_t)i;
        j->submit = dike_time_from_s(jobs[i].submit);
        j->duration = dike_time_from_s(jobs[i].duration);
        j->num_gpus = jobs[i].gpus;
        j->tenant = dike_workload_tenant(&w, jobs[i].tenant ? jobs[i].tenant : "t0");
        j->model = -1;
        j->gpu_type = (int16_t)(jobs[i].type1 - 1);
    }
    int rc = dike_run_workload(&cfg, MPI_COMM_WORLD, &w, NULL, r, NULL, &e);
    if (rc)
        fprintf(stderr, "run failed: %s\n", e.msg);
    dike_workload_free(&w);
    return rc;
}

/* The checks of one job against its expected start, finish (s) and preemptions; include
 * <cmocka.h> first. */
#ifdef cmocka_unit_test
#define SC_EPS 1e-6

/* A job's expected start, finish (s) and preemptions, worked out by hand. */
typedef struct sc_want {
    double start, finish;
    unsigned preemptions;
} sc_want;

/* Does job @p i match @p want? If not, prints the calling line, the job and both values. */
static inline int sc_job_ok(const dike_results *r, size_t i, sc_want want, const char *file, int line)
{
    const dike_job_record *j = &r->jobs[i];
    if (fabs(j->start_time - want.start) <= SC_EPS && fabs(j->finish_time - want.finish) <= SC_EPS &&
        j->preemptions == want.preemptions)
        return 1;
    print_error("%s:%d: job %zu: start %.6f, finish %.6f, %u preemptions; expected %.6f, %.6f, %u\n",
                file, line, i, j->start_time, j->finish_time, j->preemptions, want.start, want.finish,
                want.preemptions);
    return 0;
}

/* Job @p i of results @p r against its expected start, finish and preemptions. */
#define expect_job(r, i, start, finish, preemptions) \
    sc_expect_job_at(r, i, (sc_want){start, finish, preemptions}, __FILE__, __LINE__)

static inline void sc_expect_job_at(const dike_results *r, size_t i, sc_want want, const char *file,
                                    int line)
{
    assert_true(i < r->njobs);
    if (!sc_job_ok(r, i, want, file, line))
        fail();
}

/* Runs the scenario and checks every one of its @p n jobs against @p want, in job order. A
 * failure names the calling line and every job that differs. */
#define sc_expect(jobs, n, sets, ...) sc_expect_at(jobs, n, sets, __FILE__, __LINE__, __VA_ARGS__)

static inline void sc_expect_at(const sc_job *jobs, size_t n, const char *const *sets,
                                const char *file, int line, const sc_want *want)
{
    dike_results r;
    if (sc_run(jobs, n, sets, &r) != 0) {
        print_error("%s:%d: the scenario did not run\n", file, line);
        fail();
    }
    int bad = r.njobs != n;
    if (bad)
        print_error("%s:%d: %zu jobs in the results, expected %zu\n", file, line, r.njobs, n);
    for (size_t i = 0; i < n && i < r.njobs; i++)
        bad |= !sc_job_ok(&r, i, want[i], file, line);
    dike_results_free(&r);
    if (bad)
        fail();
}
#endif

#endif
