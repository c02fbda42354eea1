/* Test helper: run a hand-written workload through the real engine on one rank. */
#ifndef DIKE_TEST_SCENARIO_H
#define DIKE_TEST_SCENARIO_H

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

/* The expected start, finish (s) and preemptions of job @p i; include <cmocka.h> first. */
#ifdef cmocka_unit_test
#define SC_EPS 1e-6
static inline void expect_job(const dike_results *r, size_t i, double start, double finish,
                              unsigned preemptions)
{
    assert_true(i < r->njobs);
    assert_float_equal(r->jobs[i].start_time, start, SC_EPS);
    assert_float_equal(r->jobs[i].finish_time, finish, SC_EPS);
    assert_int_equal(r->jobs[i].preemptions, preemptions);
}
#endif

#endif
