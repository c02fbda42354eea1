/* Invariants on a generated workload of 10,000 jobs, for every policy (with pack, spread or
 * tree placement), and for the policies that use durations (sjf, srtf, themis, dike) under every
 * scheduler.duration_knowledge:
 * no GPU is ever allocated twice (an independent replay of every start/stop the coordinator
 * sends to the nodes), every job finishes exactly once, and allocated GPU-seconds equal the sum
 * of num_gpus x run time. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "dike/metrics.h"
#include "dike/workload.h"
#include "engine/coord.h"

typedef struct replay {
    uint32_t *free;      /* per node */
    uint32_t *held;      /* GPUs held per job */
    uint32_t *starts;    /* start actions per job */
    uint32_t *stops;     /* stop actions per job */
    double gpu_s;        /* sum of gpus x (stop - start) */
    dike_time last_time; /* actions arrive in time order */
} replay;

static void apply(replay *rp, const dike_cluster *cl, const dike_action *a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        assert_true(a[i].time >= rp->last_time);
        rp->last_time = a[i].time;
        assert_true(a[i].node < cl->nodes);
        if (a[i].kind == DIKE_ACT_START) {
            assert_true(a[i].gpus <= rp->free[a[i].node]); /* never allocated twice */
            rp->free[a[i].node] -= a[i].gpus;
            rp->held[a[i].job] += a[i].gpus;
            rp->starts[a[i].job]++;
        } else {
            assert_int_equal(a[i].kind, DIKE_ACT_STOP);
            assert_true(rp->free[a[i].node] + a[i].gpus <= cl->gpus_per_node);
            assert_true(a[i].gpus <= rp->held[a[i].job]);
            rp->free[a[i].node] += a[i].gpus;
            rp->held[a[i].job] -= a[i].gpus;
            rp->stops[a[i].job]++;
            rp->gpu_s += a[i].gpus * dike_time_to_s(a[i].time - a[i].run_start);
        }
    }
}

static void check_policy_with(const char *policy, const char *placement, int backfill,
                              const char *knowledge, const char *const *extra)
{
    dike_config cfg;
    dike_err e = {0};
    dike_config_defaults(&cfg);
    const char *sets[] = {"cluster.nodes=32", "workload.jobs=10000", "workload.load=1.2",
                          "workload.tenants=5", "scheduler.preemption_cost_s=30", NULL};
    for (size_t i = 0; sets[i]; i++)
        assert_int_equal(dike_config_set(&cfg, sets[i], "test", &e), 0);
    for (size_t i = 0; extra && extra[i]; i++)
        assert_int_equal(dike_config_set(&cfg, extra[i], "test", &e), 0);
    snprintf(cfg.scheduler_policy, sizeof cfg.scheduler_policy, "%s", policy);
    snprintf(cfg.scheduler_placement, sizeof cfg.scheduler_placement, "%s", placement);
    cfg.scheduler_backfill = backfill;
    if (strcmp(placement, "tree") == 0) /* racks of 4 nodes, so gangs go over runs of racks */
        assert_int_equal(dike_config_set(&cfg, "cluster.nodes_per_rack=4", "test", &e), 0);
    snprintf(cfg.scheduler_duration_knowledge, sizeof cfg.scheduler_duration_knowledge, "%s", knowledge);

    dike_cluster cl;
    assert_int_equal(dike_cluster_init(&cl, &cfg, &e), 0);
    dike_workload w;
    dike_workload_init(&w);
    assert_int_equal(dike_synth_generate(&cfg, &cl, &w, &e), 0);
    assert_int_equal(w.njobs, 10000);

    dike_sched s;
    assert_int_equal(dike_coord_init(&s, &cfg, dike_policy_find(cfg.scheduler_policy), &cl, &w, &e), 0);
    replay rp = {0};
    rp.free = malloc(cl.nodes * sizeof *rp.free);
    for (uint32_t n = 0; n < cl.nodes; n++)
        rp.free[n] = cl.gpus_per_node;
    rp.held = calloc(w.njobs, sizeof *rp.held);
    rp.starts = calloc(w.njobs, sizeof *rp.starts);
    rp.stops = calloc(w.njobs, sizeof *rp.stops);
    size_t windows = 0;
    while (!dike_coord_done(&s)) {
        assert_true(dike_coord_next_time(&s) != DIKE_TIME_INF); /* no job stranded */
        dike_coord_run(&s, DIKE_TIME_INF, 5000); /* small windows exercise window boundaries */
        apply(&rp, &cl, s.act, s.nact);
        s.nact = 0;
        windows++;
        /* No gang ever runs on fewer (or more) GPUs than it asked for. */
        for (size_t i = 0; i < w.njobs; i++)
            assert_true(rp.held[i] == 0 || rp.held[i] == w.jobs[i].num_gpus);
    }
    assert_true(windows > 1);

    dike_results r = {0};
    dike_coord_results(&s, &r);
    double sum_gpu_runtime = 0;
    for (size_t i = 0; i < w.njobs; i++) {
        const dike_job_record *j = &r.jobs[i];
        assert_int_equal(s.jobs[i].state, DIKE_JOB_DONE); /* finished ... */
        assert_int_equal(rp.held[i], 0);
        assert_int_equal(rp.starts[i], rp.stops[i]);     /* ... and every run ended once */
        assert_true(rp.starts[i] >= 1);
        assert_true(j->finish_time >= j->start_time && j->start_time >= j->submit_time);
        /* Rates never exceed 1 here, so nobody finishes faster than alone on its best placement. */
        assert_true(j->jct >= j->duration - 1e-6);
        assert_true(j->run_time >= j->duration - 1e-6);
        sum_gpu_runtime += j->num_gpus * j->run_time;
    }
    for (uint32_t n = 0; n < cl.nodes; n++)
        assert_int_equal(rp.free[n], cl.gpus_per_node);
    assert_int_equal(r.summary.finished, w.njobs);
    assert_float_equal(rp.gpu_s, sum_gpu_runtime, 1e-6 * sum_gpu_runtime);
    assert_float_equal(r.summary.allocated_gpu_seconds, sum_gpu_runtime, 1e-6 * sum_gpu_runtime);
    assert_true(r.summary.utilization > 0 && r.summary.utilization <= 1.0 + 1e-9);
    const dike_policy *pol = dike_policy_find(policy);
    if (pol->flags & DIKE_POLICY_PREEMPTIVE)
        assert_true(r.summary.preemptions > 0); /* load 1.2 makes every preemptive policy preempt */
    else
        assert_int_equal(r.summary.preemptions, 0);

    dike_results_free(&r);
    dike_coord_free(&s);
    dike_workload_free(&w);
    free(rp.free);
    free(rp.held);
    free(rp.starts);
    free(rp.stops);
}

static void check_policy_knowing(const char *policy, const char *placement, int backfill,
                                 const char *knowledge)
{
    check_policy_with(policy, placement, backfill, knowledge, NULL);
}

static void check_policy(const char *policy, const char *placement, int backfill)
{
    check_policy_knowing(policy, placement, backfill, "oracle");
}

static void test_fifo(void **st) { check_policy("fifo", "pack", 0); }
static void test_fifo_backfill_spread(void **st) { check_policy("fifo", "spread", 1); }
static void test_sjf(void **st) { check_policy("sjf", "pack", 0); }
static void test_sjf_backfill(void **st) { check_policy("sjf", "pack", 1); }
static void test_srtf(void **st) { check_policy("srtf", "pack", 0); }
static void test_srtf_spread_backfill(void **st) { check_policy("srtf", "spread", 1); }
static void test_las(void **st) { check_policy("las", "pack", 0); }
static void test_themis(void **st) { check_policy("themis", "pack", 0); }
static void test_gandiva_fair(void **st) { check_policy("gandiva-fair", "pack", 0); }
static void test_drf(void **st) { check_policy("drf", "spread", 0); }
static void test_dike(void **st) { check_policy("dike", "pack", 0); }
static void test_fifo_backfill_tree(void **st) { check_policy("fifo", "tree", 1); }
static void test_srtf_tree(void **st) { check_policy("srtf", "tree", 0); }
static void test_sjf_noisy(void **st) { check_policy_knowing("sjf", "pack", 1, "noisy"); }
static void test_sjf_none(void **st) { check_policy_knowing("sjf", "spread", 0, "none"); }
static void test_srtf_noisy(void **st) { check_policy_knowing("srtf", "pack", 0, "noisy"); }
static void test_srtf_none(void **st) { check_policy_knowing("srtf", "spread", 1, "none"); }
static void test_themis_noisy(void **st) { check_policy_knowing("themis", "pack", 0, "noisy"); }
static void test_themis_none(void **st) { check_policy_knowing("themis", "pack", 0, "none"); }
static void test_dike_noisy(void **st) { check_policy_knowing("dike", "pack", 0, "noisy"); }
static void test_dike_none(void **st) { check_policy_knowing("dike", "pack", 0, "none"); }
/* Dike's late pass (dike.late_pass). On 8 nodes it changes the schedule under oracle and noisy
 * (measured with dike-emu run, 2026-12-07: average JCT 4.941 -> 4.928 h and 5.019 -> 5.252 h). */
static const char *const late8[] = {"cluster.nodes=8", "dike.late_pass=true", NULL};
static void test_dike_late(void **st) { check_policy_with("dike", "pack", 0, "oracle", late8); }
static void test_dike_late_noisy(void **st) { check_policy_with("dike", "pack", 0, "noisy", late8); }

int main(void)
{
    MPI_Init(NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo), cmocka_unit_test(test_fifo_backfill_spread),
        cmocka_unit_test(test_sjf),  cmocka_unit_test(test_sjf_backfill),
        cmocka_unit_test(test_srtf), cmocka_unit_test(test_srtf_spread_backfill),
        cmocka_unit_test(test_las),  cmocka_unit_test(test_themis),
        cmocka_unit_test(test_gandiva_fair), cmocka_unit_test(test_drf),
        cmocka_unit_test(test_dike),
        cmocka_unit_test(test_fifo_backfill_tree), cmocka_unit_test(test_srtf_tree),
        cmocka_unit_test(test_sjf_noisy),    cmocka_unit_test(test_sjf_none),
        cmocka_unit_test(test_srtf_noisy),   cmocka_unit_test(test_srtf_none),
        cmocka_unit_test(test_themis_noisy), cmocka_unit_test(test_themis_none),
        cmocka_unit_test(test_dike_noisy),   cmocka_unit_test(test_dike_none),
        cmocka_unit_test(test_dike_late),    cmocka_unit_test(test_dike_late_noisy),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
