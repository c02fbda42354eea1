/* [tenants] weights (equal, demand, file:PATH, name:weight lists), the coordinator's entitlements
 * and the per-tenant columns of /tenants. Every expected number is worked out by hand in the
 * comment above its test. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

#include "dike/tenants.h"
#include "policy/common.h"
#include "scenario.h"

/* ---- the hand-worked run ----
 *
 * 10 GPUs (2 nodes x 5), drf, weights = demand. Three tenants submit ten 1-GPU jobs each at t=0:
 * a 1000 s, b 600 s, c 400 s each, so GPU-seconds 10,000 / 6,000 / 4,000 of 20,000 and demand
 * weights 0.5 / 0.3 / 0.2.
 *
 * drf hands out one gang at a time to the tenant with the smallest held / weight (ties: lower
 * index). At t=0 (held/weight after each step): a 2, b 3.33, c 5, a 4, b 6.67, a 6, c 10, a 8,
 * b 10, a 10 -> a 5, b 3, c 2 GPUs. Whenever a tenant's jobs finish, that tenant is the only one
 * below its share and takes the GPUs back (t=400 c; 600 b; 800 c; 1000 a; 1200 b and c: b 3, c 2;
 * 1600 c), so the split stays 5 / 3 / 2 until t=1800: b then has one job left, 2 GPUs stay idle
 * (a and c have no queued job) until a and c finish at 2000, and b's last job runs to 2400.
 *
 * Entitlements (water-filling of 10 GPUs by weight over demand): on [0, 1800) every tenant asks
 * for at least its share (a 10..5, b 10..4, c 10..2), so 5 / 3 / 2; on [1800, 2000) demands are
 * 5 / 1 / 2 < 10, so every tenant is entitled to its demand; on [2000, 2400) b alone, 1.
 * Entitled GPU-seconds: a 5 x 2000 = 10,000, b 3 x 1800 + 600 = 6,000, c 2 x 2000 = 4,000 --
 * exactly what each received. Makespan 2400 s: time-average GPUs 4.1667 / 2.5 / 1.6667. */
static const char *const tenant3[] = {"a", "b", "c"};
static const double dur3[] = {1000, 600, 400};

static size_t saturating_jobs(sc_job *jobs)
{
    size_t n = 0;
    for (int k = 0; k < 10; k++)
        for (int t = 0; t < 3; t++)
            jobs[n++] = (sc_job){0, dur3[t], 1, tenant3[t]};
    return n;
}

static void test_demand_weights_drf(void **st)
{
    sc_job jobs[30];
    size_t n = saturating_jobs(jobs);
    const char *sets[] = {"cluster.nodes=2", "cluster.gpus_per_node=5", "scheduler.policy=drf",
                          "tenants.weights=demand", "output.timeseries_interval_s=100", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, n, sets, &r), 0);
    assert_int_equal(r.ntenants, 3);
    const double share[] = {0.5, 0.3, 0.2}, gpus[] = {5, 3, 2}, gpu_s[] = {10000, 6000, 4000};
    for (int t = 0; t < 3; t++) {
        assert_string_equal(r.tenants[t].name, tenant3[t]);
        assert_float_equal(r.tenants[t].weight, share[t], 1e-12);
        assert_float_equal(r.tenants[t].weight_share, share[t], 1e-12);
        assert_float_equal(r.tenants[t].gpu_seconds, gpu_s[t], 1e-6);
        assert_float_equal(r.tenants[t].gpu_share, share[t], 1e-12);
        assert_float_equal(r.tenants[t].entitled_share, share[t], 1e-12);
        assert_float_equal(r.tenants[t].entitlement, gpu_s[t] / 2400, 1e-9);
        assert_float_equal(r.tenants[t].avg_gpus, gpu_s[t] / 2400, 1e-9);
    }
    assert_float_equal(r.summary.makespan, 2400, 1e-6);
    /* Every sample before t=1800 holds the 5 / 3 / 2 split (samples at 0, 100, ..., 1700). */
    size_t checked = 0;
    for (size_t i = 0; i < r.ts.n; i++) {
        if (r.ts.time[i] >= 1800)
            continue;
        for (int t = 0; t < 3; t++)
            assert_int_equal(r.ts.tenant_gpus[i * 3 + t], (uint32_t)gpus[t]);
        checked++;
    }
    assert_int_equal(checked, 18);
    dike_results_free(&r);
}

/* The same trace with equal weights: a1 b1 c1 a2 b2 c2 a3 b3 c3 a4 -> a 4, b 3, c 3 at t=0, and
 * every tenant weighs 1 (shares 1/3). The weights, not the trace, gave 5 / 3 / 2 above. */
static void test_equal_weights_drf(void **st)
{
    sc_job jobs[30];
    size_t n = saturating_jobs(jobs);
    const char *sets[] = {"cluster.nodes=2", "cluster.gpus_per_node=5", "scheduler.policy=drf",
                          "output.timeseries_interval_s=100", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, n, sets, &r), 0);
    assert_true(r.ts.n > 0);
    assert_int_equal(r.ts.tenant_gpus[0], 4);
    assert_int_equal(r.ts.tenant_gpus[1], 3);
    assert_int_equal(r.ts.tenant_gpus[2], 3);
    for (int t = 0; t < 3; t++) {
        assert_float_equal(r.tenants[t].weight, 1, 0);
        assert_float_equal(r.tenants[t].weight_share, 1.0 / 3, 1e-12);
    }
    dike_results_free(&r);
}

/* Weights are resolved and entitlements recorded for every policy, not only the ones that
 * schedule by them: under fifo the same trace still gets the demand weights, and every tenant an
 * entitlement (its shares summing to 1). */
static void test_entitlement_any_policy(void **st)
{
    sc_job jobs[30];
    size_t n = saturating_jobs(jobs);
    const char *sets[] = {"cluster.nodes=2", "cluster.gpus_per_node=5", "scheduler.policy=fifo",
                          "tenants.weights=demand", NULL};
    dike_results r;
    assert_int_equal(sc_run(jobs, n, sets, &r), 0);
    assert_float_equal(r.tenants[0].weight, 0.5, 1e-12);
    assert_float_equal(r.tenants[2].weight, 0.2, 1e-12);
    double esum = 0;
    for (int t = 0; t < 3; t++) {
        assert_true(r.tenants[t].entitlement > 0);
        esum += r.tenants[t].entitled_share;
    }
    assert_float_equal(esum, 1, 1e-12);
    dike_results_free(&r);
}

/* ---- entitlements as the level moves ----
 *
 * 12 GPUs (2 nodes x 6), fifo, every job 1 GPU. At t=0, in this order: a submits six jobs of
 * 2000 s, b two of 200 s, c eight of 400 s; at t=100 b submits one of 100 s. fifo starts a1-a6,
 * b1, b2, c1-c4 at 0; c5, c6 when b1, b2 end at 200 (ends 600); c7, c8 and b3 when c1-c4 end at
 * 400 (ends 800, 800 and 500). Demands (queued + running) and the water-filling of 12 GPUs at
 * equal weights, in order of demand:
 *   [0, 100)    a 6, b 2, c 8: b is covered (2 <= 12/3), the level of the rest is 10/2 = 5:
 *               a 5, b 2, c 5
 *   [100, 200)  b 3: b covered (3 <= 4), level 9/2 = 4.5: a 4.5, b 3, c 4.5
 *   [200, 400)  b 1 (b1, b2 done): level 11/2 = 5.5: a 5.5, b 1, c 5.5
 *   [400, 500)  c 4: 11 GPUs asked of 12, everyone its demand: a 6, b 1, c 4
 *   [500, 600)  b 0; [600, 800) c 2; [800, 2000) a 6 alone.
 * Entitled GPU-seconds: a 500 + 450 + 1100 + 1600 x 6 = 11,650; b 200 + 300 + 300 = 800;
 * c 500 + 450 + 1100 + 800 + 400 = 3,250; the makespan is 2000 s, so the entitlements (time
 * averages) are 5.825, 0.4 and 1.625. At t=100 only b's demand changed, and b is covered; at t=400
 * a's demand did not change, but the level that held it at 5.5 is gone. An update that skipped
 * either (the one by descent, engine/entitle.c, visits only the tenants whose value can change)
 * gives b 0.3 or a 5.5 from t=400 on. With weights 0.5 each (not whole numbers: the whole
 * water-filling runs) the levels scale with the weights and the values are the same. Each both
 * with the tenants in a sorted array (the default for so few) and in the treap. */
static void test_entitle_levels(void **st)
{
    static const sc_job jobs[] = {
        {0, 2000, 1, "a"}, {0, 2000, 1, "a"}, {0, 2000, 1, "a"}, {0, 2000, 1, "a"}, {0, 2000, 1, "a"},
        {0, 2000, 1, "a"}, {0, 200, 1, "b"},  {0, 200, 1, "b"},  {0, 400, 1, "c"},  {0, 400, 1, "c"},
        {0, 400, 1, "c"},  {0, 400, 1, "c"},  {0, 400, 1, "c"},  {0, 400, 1, "c"},  {0, 400, 1, "c"},
        {0, 400, 1, "c"},  {100, 100, 1, "b"},
    };
    const char *weights[] = {"tenants.weights=equal", "tenants.weights=a:0.5,b:0.5,c:0.5"};
    const double want[] = {5.825, 0.4, 1.625};
    for (int k = 0; k < 4; k++) {
        const char *sets[] = {"cluster.nodes=2", "cluster.gpus_per_node=6", "scheduler.policy=fifo",
                              weights[k % 2], k < 2 ? "engine.entitle_tree_tenants=256" : "engine.entitle_tree_tenants=3",
                              NULL};
        dike_results r;
        assert_int_equal(sc_run(jobs, sizeof jobs / sizeof *jobs, sets, &r), 0);
        assert_float_equal(r.summary.makespan, 2000, 1e-9);
        for (int t = 0; t < 3; t++)
            assert_float_equal(r.tenants[t].entitlement, want[t], 1e-12);
        dike_results_free(&r);
    }
}

/* ---- water-filling ---- */

/* Water-fill @p n claimants in order of demand / weight. */
static void entitle(size_t n, const double *w, const double *d, double cap, double *out)
{
    uint32_t order[8];
    double ratio[8];
    for (size_t i = 0; i < n; i++) {
        order[i] = (uint32_t)(n - 1 - i); /* start from the reverse order: the sort must fix it */
        ratio[i] = d[i] / w[i];
    }
    dike_tenant_order(n, order, ratio);
    for (size_t k = 1; k < n; k++)
        assert_true(ratio[order[k - 1]] < ratio[order[k]] ||
                    (ratio[order[k - 1]] == ratio[order[k]] && order[k - 1] < order[k]));
    dike_tenant_entitle(n, order, w, d, cap, out);
}

/* Same cases as the policies' dike_waterfill (test_fair_policies.c): both must agree. */
static void test_entitle(void **st)
{
    double out[4], ref[4];
    /* 12 GPUs, weights 1, 1, 2, demands 10, 2, 10 -> 10/3, 2, 20/3. */
    double w[] = {1, 1, 2}, d[] = {10, 2, 10};
    entitle(3, w, d, 12, out);
    assert_float_equal(out[0], 10.0 / 3, 1e-12);
    assert_float_equal(out[1], 2, 1e-12);
    assert_float_equal(out[2], 20.0 / 3, 1e-12);
    dike_waterfill(3, w, d, 12, ref);
    for (int i = 0; i < 3; i++)
        assert_float_equal(out[i], ref[i], 1e-12);
    /* Capacity above the total demand: every demand. */
    entitle(3, w, d, 30, out);
    assert_float_equal(out[0], 10, 0);
    assert_float_equal(out[1], 2, 0);
    assert_float_equal(out[2], 10, 0);
    /* Cascade: 9 GPUs, equal weights, demands 1, 2, 100 -> 1, 2, 6. */
    double w2[] = {1, 1, 1}, d2[] = {1, 2, 100};
    entitle(3, w2, d2, 9, out);
    assert_float_equal(out[0], 1, 1e-12);
    assert_float_equal(out[1], 2, 1e-12);
    assert_float_equal(out[2], 6, 1e-12);
    /* The run above at t=1800: 10 GPUs, weights .5 .3 .2, demands 5 1 2 -> 5 1 2; and at t=0,
     * demands 10 10 10 -> 5 3 2. */
    double w3[] = {0.5, 0.3, 0.2}, d3[] = {5, 1, 2}, d4[] = {10, 10, 10};
    entitle(3, w3, d3, 10, out);
    assert_float_equal(out[0], 5, 1e-12);
    assert_float_equal(out[1], 1, 1e-12);
    assert_float_equal(out[2], 2, 1e-12);
    entitle(3, w3, d4, 10, out);
    assert_float_equal(out[0], 5, 1e-12);
    assert_float_equal(out[1], 3, 1e-12);
    assert_float_equal(out[2], 2, 1e-12);
    /* No capacity (every node down): nothing. */
    entitle(3, w3, d3, 0, out);
    for (int i = 0; i < 3; i++)
        assert_float_equal(out[i], 0, 0);
}

/* ---- resolution and its errors ---- */

static void three_tenants(dike_workload *w)
{
    dike_workload_init(w);
    snprintf(w->source, sizeof w->source, "%s", "trace.csv");
    for (int k = 0; k < 3; k++) {
        dike_job_spec *j = dike_workload_push(w);
        memset(j, 0, sizeof *j);
        j->id = k;
        j->num_gpus = (uint32_t)(k + 1);       /* a 1 x 100, b 2 x 100, c 3 x 100 GPU-s */
        j->duration = dike_time_from_s(100);
        j->tenant = dike_workload_tenant(w, tenant3[k]);
        j->model = j->gpu_type = -1;
    }
}

/* Resolve @p value (set as "--set"); returns the code, message in e. */
static int resolve(const char *value, double *weight, dike_err *e)
{
    dike_config c;
    dike_workload w;
    char a[DIKE_STR_MAX + 32];
    dike_config_defaults(&c);
    snprintf(a, sizeof a, "tenants.weights=%s", value);
    int rc = dike_config_set(&c, a, "--set", e);
    if (!rc) {
        three_tenants(&w);
        rc = dike_tenant_weights_resolve(&c, &w, weight, e);
        dike_workload_free(&w);
    }
    return rc;
}

static void test_modes(void **st)
{
    double wt[3];
    dike_err e = {0};
    dike_config c;
    dike_config_defaults(&c);
    assert_string_equal(c.tenants_weights, "equal");
    assert_int_equal(resolve("equal", wt, &e), 0);
    assert_float_equal(wt[0] + wt[1] + wt[2], 3, 0);
    assert_int_equal(resolve("", wt, &e), 0); /* older configs: empty = equal */
    assert_float_equal(wt[2], 1, 0);
    /* demand: GPU-seconds 100, 200, 300 of 600. */
    assert_int_equal(resolve("demand", wt, &e), 0);
    assert_float_equal(wt[0], 1.0 / 6, 1e-15);
    assert_float_equal(wt[1], 2.0 / 6, 1e-15);
    assert_float_equal(wt[2], 3.0 / 6, 1e-15);
    /* a list: unlisted tenants weigh 1 */
    assert_int_equal(resolve("c:4, a:0.5", wt, &e), 0);
    assert_float_equal(wt[0], 0.5, 0);
    assert_float_equal(wt[1], 1, 0);
    assert_float_equal(wt[2], 4, 0);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_file(void **st)
{
    char dir[] = "/tmp/dike-weights-XXXXXX", path[128], value[160];
    double wt[3];
    dike_err e = {0};
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/w.csv", dir);
    snprintf(value, sizeof value, "file:%s", path);
    /* header, comment, blank line, CRLF; b not listed -> 1 */
    write_file(path, "tenant,weight\r\n# quotas in GPUs\r\n\r\nc,64\r\na, 16\r\n");
    assert_int_equal(resolve(value, wt, &e), 0);
    assert_float_equal(wt[0], 16, 0);
    assert_float_equal(wt[1], 1, 0);
    assert_float_equal(wt[2], 64, 0);
    /* no header */
    write_file(path, "b,2\n");
    assert_int_equal(resolve(value, wt, &e), 0);
    assert_float_equal(wt[1], 2, 0);

    /* bad rows: file:line and the field */
    static const struct {
        const char *text, *frag;
    } bad[] = {
        {"tenant,weight\na,nan\n", "w.csv:2: [tenants] weights: weight of 'a': not a finite number (got 'nan')"},
        {"a,1\nb,inf\n", "w.csv:2: [tenants] weights: weight of 'b': not a finite number"},
        {"a,-3\n", "w.csv:1: [tenants] weights: weight of 'a': must be > 0 (got '-3')"},
        {"a,0\n", "w.csv:1: [tenants] weights: weight of 'a': must be > 0 (got '0')"},
        {"a,1\n\nzed,2\n", "w.csv:3: [tenants] weights: no tenant 'zed' in trace.csv"},
        {"a,1\na,2\n", "w.csv:2: [tenants] weights: tenant 'a' listed twice"},
        {"a,1\nb 2\n", "w.csv:2: [tenants] weights: expected tenant,weight (got 'b 2')"},
        {"a,1,2\n", "w.csv:1: [tenants] weights: expected tenant,weight (got 'a,1,2')"},
        {"", "--set 'tenants.weights=file:/tmp/"},
        {"# only a comment\ntenant,weight\n", "w.csv: no tenant,weight rows (empty file)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_file(path, bad[i].text);
        memset(&e, 0, sizeof e);
        assert_int_equal(resolve(value, wt, &e), DIKE_EINVAL);
        if (!strstr(e.msg, bad[i].frag))
            fail_msg("case %zu: '%s' does not contain '%s'", i, e.msg, bad[i].frag);
    }
    unlink(path);
    memset(&e, 0, sizeof e);
    assert_int_equal(resolve(value, wt, &e), DIKE_EIO);
    assert_non_null(strstr(e.msg, "[tenants] weights: "));
    assert_non_null(strstr(e.msg, "w.csv: cannot open"));
    rmdir(dir);
}

/* Values refused when they are set (file:line, section, key, value), before any workload. */
static void test_bad_values(void **st)
{
    static const struct {
        const char *value, *frag;
    } bad[] = {
        {"a:nan", "weight of 'a': not a finite number (got 'a:nan')"},
        {"a:inf", "weight of 'a': not a finite number"},
        {"a:-1", "weight of 'a': must be > 0 (got 'a:-1')"},
        {"a:0", "weight of 'a': must be > 0"},
        {"b:1,a:1,b:2", "tenant 'b' listed twice"},
        {"a:1,b", "entry 2 'b' is not name:weight"},
        {"quota", "unknown mode 'quota' (equal, demand, file:PATH or name:weight,...)"},
        {"file:", "file: needs a path"},
    };
    dike_err e;
    dike_config c;
    char a[256];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dike_config_defaults(&c);
        memset(&e, 0, sizeof e);
        snprintf(a, sizeof a, "tenants.weights=%s", bad[i].value);
        assert_int_equal(dike_config_set(&c, a, "--set", &e), DIKE_EINVAL);
        assert_non_null(strstr(e.msg, "[tenants] weights: "));
        if (!strstr(e.msg, bad[i].frag))
            fail_msg("case %zu: '%s' does not contain '%s'", i, e.msg, bad[i].frag);
        assert_string_equal(c.tenants_weights, "equal"); /* unchanged */
    }
    /* An unknown tenant needs the workload: found when the run starts, named after the --set. */
    double wt[3];
    memset(&e, 0, sizeof e);
    assert_int_equal(resolve("a:2,zed:1", wt, &e), DIKE_EINVAL);
    assert_string_equal(e.msg, "--set 'tenants.weights=a:2,zed:1': [tenants] weights: no tenant "
                               "'zed' in trace.csv");
}

/* Bad weights stop the run of every policy, even the ones that do not use weights. */
static void test_every_policy_refuses(void **st)
{
    static const sc_job jobs[] = {{0, 10, 1, "a"}};
    char policy[96];
    for (const dike_policy *const *p = dike_policy_all(); *p; p++) {
        snprintf(policy, sizeof policy, "scheduler.policy=%s", (*p)->name);
        const char *sets[] = {policy, "tenants.weights=zed:2", NULL};
        dike_results r;
        assert_int_equal(sc_run(jobs, 1, sets, &r), DIKE_EINVAL);
    }
}

int main(void)
{
    MPI_Init(NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_demand_weights_drf), cmocka_unit_test(test_equal_weights_drf),
        cmocka_unit_test(test_entitlement_any_policy), cmocka_unit_test(test_entitle_levels),
        cmocka_unit_test(test_entitle),
        cmocka_unit_test(test_modes), cmocka_unit_test(test_file),
        cmocka_unit_test(test_bad_values), cmocka_unit_test(test_every_policy_refuses),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
