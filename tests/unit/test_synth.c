/* Synthetic workload: reproducible per seed, shaped by the [workload] keys, at the target load. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "dike/workload.h"

static void generate(const dike_config *c, dike_workload *w)
{
    dike_cluster cl;
    dike_err e = {0};
    assert_int_equal(dike_cluster_init(&cl, c, NULL), 0);
    dike_workload_init(w);
    int rc = dike_synth_generate(c, &cl, w, &e);
    if (rc)
        fail_msg("%s", e.msg);
}

/* sum(gpus x duration) / (cluster GPUs x span of submits) */
static double offered_load(const dike_workload *w, uint64_t total_gpus)
{
    double work = 0;
    for (size_t i = 0; i < w->njobs; i++)
        work += (double)w->jobs[i].num_gpus * dike_time_to_s(w->jobs[i].duration);
    double span = dike_time_to_s(w->jobs[w->njobs - 1].submit - w->jobs[0].submit);
    return work / ((double)total_gpus * span);
}

static void test_reproducible(void **state)
{
    dike_config c;
    dike_workload a, b;
    dike_config_defaults(&c);
    c.run_seed = 17;
    generate(&c, &a);
    generate(&c, &b);
    assert_int_equal(a.njobs, b.njobs);
    assert_memory_equal(a.jobs, b.jobs, a.njobs * sizeof *a.jobs);
    assert_int_equal(a.ntenants, b.ntenants);
    for (uint32_t t = 0; t < a.ntenants; t++)
        assert_string_equal(a.tenants[t], b.tenants[t]);
    dike_workload_free(&a);
    dike_workload_free(&b);
}

static void test_seeds_differ(void **state)
{
    dike_config c;
    dike_workload a, b;
    dike_config_defaults(&c);
    generate(&c, &a);
    c.run_seed = 2;
    generate(&c, &b);
    assert_int_equal(a.njobs, b.njobs);
    size_t same_submit = 0, same_duration = 0;
    for (size_t i = 1; i < a.njobs; i++) {
        same_submit += a.jobs[i].submit == b.jobs[i].submit;
        same_duration += a.jobs[i].duration == b.jobs[i].duration;
    }
    assert_true(same_submit < 10);
    assert_true(same_duration < a.njobs / 2);
    dike_workload_free(&a);
    dike_workload_free(&b);
}

static void test_shape(void **state)
{
    dike_config c;
    dike_workload w;
    dike_config_defaults(&c);
    c.workload_jobs = 10000;
    c.workload_duration_max_s = 7200.5; /* the cap is the last whole second below it */
    generate(&c, &w);
    assert_int_equal(w.njobs, 10000);
    assert_string_equal(w.source, "synthetic");
    assert_string_equal(w.sha256, "");
    assert_int_equal(w.jobs[0].submit, 0);

    size_t per_count[33] = {0}, capped = 0;
    for (size_t i = 0; i < w.njobs; i++) {
        const dike_job_spec *j = &w.jobs[i];
        assert_int_equal(j->id, (int64_t)i);
        assert_int_equal(j->model, -1);
        assert_int_equal(j->gpu_type, -1);
        if (i > 0)
            assert_true(j->submit >= w.jobs[i - 1].submit);
        assert_true(j->duration >= 1000000 && j->duration <= 7200 * 1000000LL);
        assert_int_equal(j->duration % 1000000, 0); /* whole seconds */
        capped += j->duration == 7200 * 1000000LL;
        assert_true(j->num_gpus <= 32);
        per_count[j->num_gpus]++;
        assert_true(j->tenant < w.ntenants);
    }
    /* Only the counts of the mix, each present (the rarest, 32 GPUs, has weight 0.01: ~100 jobs). */
    size_t in_mix = 0;
    for (uint32_t g = 1; g <= 32; g *= 2) {
        assert_true(per_count[g] > 0);
        in_mix += per_count[g];
    }
    assert_int_equal(in_mix, w.njobs);
    assert_true(per_count[1] > 6500 && per_count[1] < 7500); /* weight 0.70 */
    /* P(lognormal(ln 1800, 1.8) > 7200) = Q(ln 4 / 1.8) = 0.22 */
    assert_true(capped > 1900 && capped < 2500);

    /* Tenants t0..t3 with weights 1, 1/2, 1/3, 1/4: t0 gets 48 %, t3 12 %. */
    assert_int_equal(w.ntenants, 4);
    size_t per_tenant[4] = {0};
    for (size_t i = 0; i < w.njobs; i++) {
        int k = -1;
        assert_int_equal(sscanf(w.tenants[w.jobs[i].tenant], "t%d", &k), 1);
        assert_true(k >= 0 && k < 4);
        per_tenant[k]++;
    }
    assert_true(per_tenant[0] > 4500 && per_tenant[0] < 5100);
    assert_true(per_tenant[3] > 1000 && per_tenant[3] < 1400);
    dike_workload_free(&w);
}

static void test_duration_floor(void **state)
{
    dike_config c;
    dike_workload w;
    dike_config_defaults(&c);
    c.workload_duration_median_s = 2;
    c.workload_duration_sigma = 2;
    generate(&c, &w);
    size_t floored = 0;
    for (size_t i = 0; i < w.njobs; i++) {
        assert_true(w.jobs[i].duration >= 1000000);
        floored += w.jobs[i].duration == 1000000;
    }
    /* P(X < 1.5) = Phi(ln 0.75 / 2) = 0.44: those round to 0 or 1 and become 1 s. */
    assert_true(floored > 350 && floored < 530);
    dike_workload_free(&w);
}

static void test_mix_limited_by_cluster(void **state)
{
    dike_config c;
    dike_workload w;
    dike_config_defaults(&c);
    c.cluster_nodes = 2; /* 16 GPUs: 32-GPU gangs cannot run */
    generate(&c, &w);
    for (size_t i = 0; i < w.njobs; i++)
        assert_true(w.jobs[i].num_gpus <= 16);
    dike_workload_free(&w);

    dike_cluster cl;
    dike_err e = {0};
    strcpy(c.workload_gpu_mix, "32:1,64:2");
    assert_int_equal(dike_cluster_init(&cl, &c, NULL), 0);
    dike_workload_init(&w);
    assert_int_equal(dike_synth_generate(&c, &cl, &w, &e), DIKE_EINVAL);
    assert_non_null(strstr(e.msg, "[workload] gpu_mix"));
    assert_non_null(strstr(e.msg, "(16 GPUs)"));
    assert_int_equal(w.njobs, 0);
}

/* The rate is set from the mean of the capped lognormal; with sigma 1 and a narrow mix the offered
 * load of 10,000 jobs has a relative sd of about 2 %, so 10 % is a safe bound. (With the default
 * sigma of 1.8 and the 32-GPU tail the sd is near 10 %, too noisy for a unit test.) */
static void test_offered_load(void **state)
{
    dike_config c;
    dike_workload w;
    dike_cluster cl;
    dike_config_defaults(&c);
    assert_int_equal(dike_cluster_init(&cl, &c, NULL), 0);
    c.workload_jobs = 10000;
    c.workload_duration_sigma = 1.0;
    strcpy(c.workload_gpu_mix, "1:0.5,2:0.25,4:0.25");
    for (int seed = 1; seed <= 3; seed++) {
        c.run_seed = seed;
        generate(&c, &w);
        double load = offered_load(&w, cl.total_gpus);
        if (fabs(load - 0.8) > 0.08)
            fail_msg("seed %d: offered load %.4f, target 0.8", seed, load);
        dike_workload_free(&w);
    }
    /* A cap that bites: the uncapped mean (2968 s) would give an offered load near 0.54. */
    c.workload_duration_max_s = 3600;
    c.workload_load = 0.8;
    generate(&c, &w);
    double load = offered_load(&w, cl.total_gpus);
    if (fabs(load - 0.8) > 0.08)
        fail_msg("capped: offered load %.4f, target 0.8", load);
    dike_workload_free(&w);
}

static void test_workload_load_dispatch(void **state)
{
    dike_config c;
    dike_cluster cl;
    dike_workload w;
    dike_err e = {0};
    dike_config_defaults(&c);
    assert_int_equal(dike_cluster_init(&cl, &c, NULL), 0);
    dike_workload_init(&w);
    assert_int_equal(dike_workload_load(&c, &cl, &w, &e), 0);
    assert_int_equal(w.njobs, 1000);
    dike_workload_free(&w);

    strcpy(c.workload_trace, DIKE_TEST_DATA "/trace_crlf.csv");
    assert_int_equal(dike_workload_load(&c, &cl, &w, &e), 0);
    assert_int_equal(w.njobs, 2);
    dike_workload_free(&w);

    strcpy(c.workload_trace_format, "philly-csv");
    assert_int_equal(dike_workload_load(&c, &cl, &w, &e), DIKE_EINVAL);
    assert_string_equal(e.msg, "[workload] trace_format: unknown format 'philly-csv' (known: auto, dike, "
                               "philly-vc, rfold, elasticflow, gen-parallel, openb)");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reproducible),
        cmocka_unit_test(test_seeds_differ),
        cmocka_unit_test(test_shape),
        cmocka_unit_test(test_duration_floor),
        cmocka_unit_test(test_mix_limited_by_cluster),
        cmocka_unit_test(test_offered_load),
        cmocka_unit_test(test_workload_load_dispatch),
    };
    MPI_Init(&argc, &argv);
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
