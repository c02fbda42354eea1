/* Node failures on a tiny cluster, checked against the failure times drawn from the node's own
 * stream: one job on one node fails once, rolls back to its last checkpoint, waits for the repair,
 * pays the restore cost and finishes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <mpi.h>

#include "dike/rng.h"
#include "scenario.h"

/* The engine's draw: exponential with the given mean, in whole microseconds, at least 1. */
static double draw_s(dike_rng *r, double mean_s)
{
    double us = (double)llround(-log(dike_rng_uniform(r)) * mean_s * 1e6);
    return (us > 0 ? us : 1) / 1e6;
}

static void test_one_failure_rollback(void **st)
{
    const double mtbf = 50000, mttr = 2000, ckpt = 1000, cost = 30;
    dike_rng r;
    dike_rng_init(&r, 7, 0, DIKE_STREAM_FAILURE); /* seed 7, node 0 */
    double t1 = draw_s(&r, mtbf);      /* first failure */
    double rep = t1 + draw_s(&r, mttr);/* repair */
    double t3 = rep + draw_s(&r, mtbf);/* next failure */
    /* The job would run past t1, so the failure hits it. */
    double duration = ceil(t1) + 5000;
    double kept = floor(t1 / ckpt) * ckpt;   /* work saved by the last checkpoint before t1 */
    double lost = t1 - kept;                 /* progress thrown away */
    double finish = rep + cost + (duration - kept);
    if (!(finish < t3))
        fail_msg("precondition: second failure at %.6f comes before the finish %.6f; pick another seed",
                 t3, finish);

    static sc_job jobs[1] = {{0, 0, 8, "a"}};
    jobs[0].duration = duration;
    const char *sets[] = {"cluster.nodes=1", "run.seed=7", "faults.mtbf_s=50000", "faults.mttr_s=2000",
                          "faults.checkpoint_interval_s=1000", "scheduler.preemption_cost_s=30", NULL};
    dike_results res;
    assert_int_equal(sc_run(jobs, 1, sets, &res), 0);
    const dike_job_record *j = &res.jobs[0];
    assert_float_equal(j->start_time, 0, 1e-6);
    assert_float_equal(j->finish_time, finish, 1e-5);
    assert_int_equal(j->restarts, 1);
    assert_int_equal(j->preemptions, 0);
    assert_float_equal(j->lost_work, 8 * lost, 1e-4);
    /* GPUs held: 0..t1, then rep..finish (restore included). */
    assert_float_equal(j->run_time, t1 + (finish - rep), 1e-5);
    assert_int_equal(res.summary.restarts, 1);
    assert_float_equal(res.summary.goodput, 1 - 8 * lost / (8 * j->run_time), 1e-9);
    dike_results_free(&res);
}

/* Without failures the same job runs straight through. */
static void test_no_faults(void **st)
{
    static const sc_job jobs[] = {{0, 12345, 8, "a"}};
    const char *sets[] = {"cluster.nodes=1", NULL};
    dike_results res;
    assert_int_equal(sc_run(jobs, 1, sets, &res), 0);
    assert_float_equal(res.jobs[0].finish_time, 12345, 1e-9);
    assert_int_equal(res.jobs[0].restarts, 0);
    assert_float_equal(res.summary.goodput, 1.0, 0);
    dike_results_free(&res);
}

int main(void)
{
    MPI_Init(NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_failure_rollback),
        cmocka_unit_test(test_no_faults),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
