/* A job whose work ends between its preemption and the preemption's arrival on its nodes (the
 * emulating mode, scheduler.decision_latency_s > 0) finishes then, and leaves the queue it was put
 * back in: each preemptive built-in policy drops it through its on_withdraw hook; a policy without
 * the hook (fifo, sjf and drf, which never preempt: for them it takes a node failure at the instant
 * a run's work ends) has its state rebuilt as a resume rebuilds it. The two must give the same
 * schedule: each preemptive policy runs here as itself and as a twin without the hook (registered
 * under "<name>-rebuild"), on a loaded cluster where such finishes happen, under oracle and `none`
 * durations; every job's start, finish and preemptions must be equal, and the twin's init must
 * have been called again (once per rebuild), so that the hooks were exercised. The hand-worked
 * case is test_finish_before_stop in test_nodemodels.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "dike/sched.h"
#include "scenario.h"

#define NPOL 5
static const char *const names[NPOL] = {"las", "themis", "srtf", "gandiva-fair", "dike"};
static dike_policy twins[NPOL];
static char twin_names[NPOL][32];
static const dike_policy *current; /* the policy the twin being run stands for */
static unsigned inits;             /* the twin's init calls in the current run */

static int counting_init(dike_sched *s, void **state, dike_err *e)
{
    inits++;
    return current->init(s, state, e);
}

/* 400 jobs on 8 nodes of 8 GPUs, about twice what the cluster can serve: lengths from 20 s to
 * about 10 h (log-uniform), 1-8 GPUs, four tenants; a fixed linear congruential stream. */
#define NJOBS 400
static sc_job jobs[NJOBS];

static void make_jobs(void)
{
    static const char *const tenants[] = {"a", "b", "c", "d"};
    static const unsigned gpus[] = {1, 1, 2, 4, 8};
    uint64_t x = 12345;
    double t = 0;
    for (size_t i = 0; i < NJOBS; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        double u = (double)(x >> 11) / 9007199254740992.0;
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        double v = (double)(x >> 11) / 9007199254740992.0;
        t += 120 * u;
        jobs[i] = (sc_job){t, floor(20 * exp(v * log(1800.0))), gpus[(x >> 20) % 5],
                           tenants[(x >> 40) % 4], 0};
    }
}

static void same_schedule(const char *policy, const char *knowledge)
{
    char pol[64], twin[64], know[64];
    snprintf(pol, sizeof pol, "scheduler.policy=%s", policy);
    snprintf(twin, sizeof twin, "scheduler.policy=%s-rebuild", policy);
    snprintf(know, sizeof know, "scheduler.duration_knowledge=%s", knowledge);
    const char *a[] = {"cluster.nodes=8", pol, know, "scheduler.decision_latency_s=60",
                       "scheduler.round_s=60", NULL};
    const char *b[] = {"cluster.nodes=8", twin, know, "scheduler.decision_latency_s=60",
                       "scheduler.round_s=60", NULL};
    dike_results r1, r2;
    assert_int_equal(sc_run(jobs, NJOBS, a, &r1), 0);
    inits = 0;
    current = dike_policy_find(policy);
    assert_int_equal(sc_run(jobs, NJOBS, b, &r2), 0);
    printf("%s, %s: %u finishes before a stop\n", policy, knowledge, inits - 1);
    assert_true(inits >= 2); /* at least one job finished while its stop was on the way */
    assert_int_equal(r1.njobs, r2.njobs);
    for (size_t i = 0; i < r1.njobs; i++) {
        assert_true(r1.jobs[i].start_time == r2.jobs[i].start_time);
        assert_true(r1.jobs[i].finish_time == r2.jobs[i].finish_time);
        assert_int_equal(r1.jobs[i].preemptions, r2.jobs[i].preemptions);
    }
    dike_results_free(&r1);
    dike_results_free(&r2);
}

static void test_las(void **st) { (void)st; same_schedule("las", "oracle"); same_schedule("las", "none"); }
static void test_themis(void **st) { (void)st; same_schedule("themis", "oracle"); same_schedule("themis", "none"); }
static void test_srtf(void **st) { (void)st; same_schedule("srtf", "none"); }
static void test_gandiva(void **st) { (void)st; same_schedule("gandiva-fair", "oracle"); }
static void test_dike(void **st) { (void)st; same_schedule("dike", "none"); }

int main(void)
{
    MPI_Init(NULL, NULL);
    make_jobs();
    for (size_t i = 0; i < NPOL; i++) {
        const dike_policy *p = dike_policy_find(names[i]);
        if (!p) {
            fprintf(stderr, "no policy %s\n", names[i]);
            return 1;
        }
        twins[i] = *p;
        snprintf(twin_names[i], sizeof twin_names[i], "%s-rebuild", names[i]);
        twins[i].name = twin_names[i];
        twins[i].options = NULL; /* it reads its model's keys, [las] etc. */
        twins[i].params_size = 0;
        twins[i].on_withdraw = NULL;
        twins[i].init = counting_init;
        dike_err e = {0};
        if (dike_policy_register(&twins[i], &e)) {
            fprintf(stderr, "%s\n", e.msg);
            return 1;
        }
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_las),     cmocka_unit_test(test_themis), cmocka_unit_test(test_srtf),
        cmocka_unit_test(test_gandiva), cmocka_unit_test(test_dike),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
