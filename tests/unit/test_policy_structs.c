/* The policies' data structures on hand-made inputs: the active set (arrival order under
 * removals), the indexed id heap (stride scheduling's tenant order), the finish-time treaps
 * (srtf's running jobs), the job queue's key updates (dike under `none`) and the tenant queue
 * (sjf and srtf under `none`). Every expected value is worked out in the comment above it. */
#include <string.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <mpi.h>
#include <stdlib.h>

#include "policy/common.h"
#include "policy/fintree.h"
#include "policy/idheap.h"
#include "policy/runkeys.h"
#include "policy/jobq.h"
#include "policy/tenantq.h"

#define NJ 8

static dike_job_spec g_spec[NJ];
static dike_job g_job[NJ];

/* Jobs 0..NJ-1 with the given GPUs and finish times (us). */
static void make_jobs(const uint32_t *gpus, const dike_time *finish)
{
    for (uint32_t i = 0; i < NJ; i++) {
        g_spec[i] = (dike_job_spec){0};
        g_spec[i].num_gpus = gpus ? gpus[i] : 1;
        g_job[i] = (dike_job){0};
        g_job[i].spec = &g_spec[i];
        g_job[i].idx = i;
        g_job[i].finish = finish ? finish[i] : 0;
    }
}

static void expect_active(const dike_active *a, const uint32_t *idx, size_t n)
{
    assert_int_equal(a->n, n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(a->jobs[i]->idx, idx[i]);
}

static void test_active_keeps_arrival_order(void **unused)
{
    /* Arrivals 3, 1, 4, 0, 6 (not index order): removing 4 (middle), 3 (first) and 6 (last)
     * leaves 1, 0 in arrival order; 5 and then 4 again arrive after them. */
    dike_active a = {0};
    make_jobs(NULL, NULL);
    uint32_t arrive[] = {3, 1, 4, 0, 6};
    for (int i = 0; i < 5; i++)
        dike_active_add(&a, &g_job[arrive[i]]);
    expect_active(&a, arrive, 5);
    dike_active_remove(&a, &g_job[4]);
    expect_active(&a, (uint32_t[]){3, 1, 0, 6}, 4);
    dike_active_remove(&a, &g_job[3]);
    dike_active_remove(&a, &g_job[6]);
    expect_active(&a, (uint32_t[]){1, 0}, 2);
    dike_active_add(&a, &g_job[5]);
    dike_active_add(&a, &g_job[4]);
    expect_active(&a, (uint32_t[]){1, 0, 5, 4}, 4);
    dike_active_remove(&a, &g_job[0]);
    dike_active_remove(&a, &g_job[5]);
    expect_active(&a, (uint32_t[]){1, 4}, 2);
    dike_active_free(&a);
}

static void test_active_many(void **unused)
{
    /* 1000 jobs arrive in index order; the even ones leave, from the last to the first: the
     * 500 odd ones remain, in order. */
    static dike_job_spec spec[1000];
    static dike_job job[1000];
    dike_active a = {0};
    for (uint32_t i = 0; i < 1000; i++) {
        job[i] = (dike_job){.spec = &spec[i], .idx = i};
        dike_active_add(&a, &job[i]);
    }
    for (int i = 998; i >= 0; i -= 2)
        dike_active_remove(&a, &job[i]);
    assert_int_equal(a.n, 500);
    for (uint32_t i = 0; i < 500; i++)
        assert_int_equal(a.jobs[i]->idx, 2 * i + 1);
    dike_active_free(&a);
}

static void test_jobq_update(void **unused)
{
    /* Jobs 0-5: 0, 2, 4 of 1 GPU and 1, 3, 5 of 2 GPUs (two buckets), keys 50, 40, 30, 20, 10,
     * 60. Overall order by (key, index): 4 (10), 3 (20), 2 (30), 1 (40), 0 (50), 5 (60); the
     * best of 1 GPU is 4. */
    make_jobs((const uint32_t[]){1, 2, 1, 2, 1, 2, 1, 1}, NULL);
    int32_t *slot = dike_jobq_slots(NJ);
    dike_jobq q;
    dike_jobq_init(&q, slot);
    const double key0[] = {50, 40, 30, 20, 10, 60};
    for (uint32_t i = 0; i < 6; i++)
        dike_jobq_push(&q, &g_job[i], key0[i]);
    assert_int_equal(dike_jobq_min(&q)->idx, 4);
    assert_true(dike_jobq_key(&q, &g_job[3]) == 20);
    /* Job 4's key rises to 45: 3 (20) leads; among 1-GPU jobs 2 (30) now comes before 4. */
    dike_jobq_update(&q, &g_job[4], 45);
    assert_true(dike_jobq_key(&q, &g_job[4]) == 45);
    assert_int_equal(dike_jobq_min(&q)->idx, 3);
    assert_int_equal(dike_jobq_min_fitting(&q, 1, NULL, NULL)->idx, 2);
    /* Job 5 falls to 20, equal to job 3's: the lower index, 3, still leads. Job 3 then rises to
     * 25: 5 (20) leads. */
    dike_jobq_update(&q, &g_job[5], 20);
    assert_int_equal(dike_jobq_min(&q)->idx, 3);
    dike_jobq_update(&q, &g_job[3], 25);
    assert_int_equal(dike_jobq_min(&q)->idx, 5);
    /* The same key again changes nothing. Removing in order gives
     * 5 (20), 3 (25), 2 (30), 1 (40), 4 (45), 0 (50). */
    dike_jobq_update(&q, &g_job[2], 30);
    const uint32_t order[] = {5, 3, 2, 1, 4, 0};
    for (int i = 0; i < 6; i++) {
        dike_job *m = dike_jobq_min(&q);
        assert_non_null(m);
        assert_int_equal(m->idx, order[i]);
        dike_jobq_remove(&q, m);
    }
    assert_null(dike_jobq_min(&q));
    dike_jobq_free(&q);
    free(slot);
}

static double key_by_tens(void *ctx, const dike_sched *s, const dike_job *j)
{
    (void)ctx;
    (void)s;
    return (double)(j->idx / 10);
}

static void test_jobq_many(void **unused)
{
    /* 1,000 one-GPU jobs, job i keyed (389 i) mod 1000: the keys are 0..999 once each, and the
     * job of key k is (509 k) mod 1000 (389 x 509 = 198,001 = 1 mod 1000). The heap is five
     * levels deep, so every sift crosses levels. */
    static dike_job_spec spec[1000];
    static dike_job job[1000];
    int32_t *slot = dike_jobq_slots(1000);
    dike_jobq q;
    dike_jobq_init(&q, slot);
    for (uint32_t i = 0; i < 1000; i++) {
        spec[i] = (dike_job_spec){.num_gpus = 1};
        job[i] = (dike_job){.spec = &spec[i], .idx = i};
        dike_jobq_push(&q, &job[i], (double)(389 * i % 1000));
    }
    assert_int_equal(dike_jobq_min(&q)->idx, 0);
    /* The jobs of odd key leave, from wherever they are in the heap. */
    for (uint32_t k = 1; k < 1000; k += 2)
        dike_jobq_remove(&q, &job[509 * k % 1000]);
    /* The jobs of keys 900..998 move to key - 1000: they come first now, in the same order. */
    for (uint32_t k = 900; k < 1000; k += 2)
        dike_jobq_update(&q, &job[509 * k % 1000], (double)k - 1000);
    assert_true(dike_jobq_key(&q, &job[509 * 900 % 1000]) == -100);
    /* Expected: keys -100, -98, ..., -2 (the jobs of 900..998), then 0, 2, ..., 898. */
    uint32_t expect[500], n = 0;
    for (uint32_t k = 900; k < 1000; k += 2)
        expect[n++] = 509 * k % 1000;
    for (uint32_t k = 0; k < 900; k += 2)
        expect[n++] = 509 * k % 1000;
    /* Take the first 250 off, then rekey the rest to idx / 10: ties inside each ten are broken by
     * the index, so what is left comes out in index order. */
    for (uint32_t i = 0; i < 250; i++) {
        dike_job *m = dike_jobq_min(&q);
        assert_non_null(m);
        assert_int_equal(m->idx, expect[i]);
        dike_jobq_remove(&q, m);
    }
    uint8_t left[1000] = {0};
    for (uint32_t i = 250; i < 500; i++)
        left[expect[i]] = 1;
    dike_jobq_rekey(&q, NULL, key_by_tens, NULL);
    for (uint32_t i = 0; i < 1000; i++) {
        if (!left[i])
            continue;
        dike_job *m = dike_jobq_min(&q);
        assert_non_null(m);
        assert_int_equal(m->idx, i);
        assert_true(dike_jobq_key(&q, m) == (double)(i / 10));
        dike_jobq_remove(&q, m);
    }
    assert_null(dike_jobq_min(&q));
    dike_jobq_free(&q);
    free(slot);
}

/* The tenant queue's keys: per tenant a shared key (g_tkey) for its shared members, and own keys
 * (g_okey) for the others. */
static double g_tkey[2], g_okey[NJ];
static int g_tshared[NJ] = {1, 1, 1, 0, 1, 1, 1, 0};

static double tq_key(void *ctx, const dike_sched *s, const dike_job *j)
{
    return g_tshared[j->idx] ? g_tkey[j->spec->tenant] : g_okey[j->idx];
}

static int tq_shared(void *ctx, const dike_sched *s, const dike_job *j)
{
    return g_tshared[j->idx];
}

static void expect_pop_order(dike_tenantq *tq, const uint32_t *order, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        dike_job *m = dike_tenantq_min(tq);
        assert_non_null(m);
        assert_int_equal(m->idx, order[i]);
        dike_tenantq_remove(tq, m);
    }
    assert_null(dike_tenantq_min(tq));
}

static void test_tenantq(void **unused)
{
    /* Jobs 0-3 of tenant 0, 4-7 of tenant 1; GPUs 1, 2, 1, 1, 1, 1, 2, 1. Shared: 0, 1, 2 and
     * 4, 5, 6; own: 3 and 7. Keys: tenant 0 100, tenant 1 50, job 3 70, job 7 40.
     * Pushed 2, 0, 1, 3, 5, 4, 6, 7 (2 before 0: 0 then takes 2's place as its group's first).
     * Order by (key, index): 7 (40); 4, 5, 6 (50); 3 (70); 0, 1, 2 (100). */
    make_jobs((const uint32_t[]){1, 2, 1, 1, 1, 1, 2, 1}, NULL);
    for (uint32_t i = 0; i < NJ; i++)
        g_spec[i].tenant = i < 4 ? 0 : 1;
    g_tkey[0] = 100;
    g_tkey[1] = 50;
    g_okey[3] = 70;
    g_okey[7] = 40;
    dike_tenantq tq;
    dike_tenantq_init(&tq, NJ, 2, tq_key, tq_shared, NULL);
    const uint32_t push[] = {2, 0, 1, 3, 5, 4, 6, 7};
    for (int i = 0; i < NJ; i++)
        dike_tenantq_push(&tq, NULL, &g_job[push[i]]);
    assert_int_equal(dike_tenantq_min(&tq)->idx, 7);
    assert_true(dike_tenantq_key(&tq, &g_job[2]) == 100);
    assert_true(dike_tenantq_key(&tq, &g_job[3]) == 70);
    /* Only the first of each (tenant, GPUs) group is in the ordered queue: 0, 1, 4, 6, and the
     * own 3 and 7. */
    assert_int_equal(tq.q.size, 6);

    /* Tenant 0's estimates fall: shared 45, job 3 60. Order: 7 (40); 0, 1, 2 (45); 4, 5, 6 (50);
     * 3 (60). */
    g_tkey[0] = 45;
    g_okey[3] = 60;
    dike_tenantq_refresh_tenant(&tq, NULL, 0);
    assert_true(dike_tenantq_key(&tq, &g_job[2]) == 45);
    dike_tenantq_remove(&tq, &g_job[7]);
    assert_int_equal(dike_tenantq_min(&tq)->idx, 0);
    /* 0 leaves: 2, the next 1-GPU job of tenant 0, is seen in its place; 1 (2 GPUs, 45) leads,
     * and the best 1-GPU job is 2. */
    dike_tenantq_remove(&tq, &g_job[0]);
    assert_int_equal(dike_tenantq_min(&tq)->idx, 1);
    assert_int_equal(dike_jobq_min_fitting(&tq.q, 1, NULL, NULL)->idx, 2);
    /* 5 (not its group's first: 4 is) leaves quietly, then comes back after tenant 1's estimate
     * fell to 30: the push moves 4 and 6 to 30 as well. Order: 4, 5, 6 (30); 1, 2 (45); 3 (60). */
    dike_tenantq_remove(&tq, &g_job[5]);
    assert_int_equal(dike_tenantq_min(&tq)->idx, 1);
    g_tkey[1] = 30;
    dike_tenantq_push(&tq, NULL, &g_job[5]);
    assert_true(dike_tenantq_key(&tq, &g_job[6]) == 30);
    expect_pop_order(&tq, (const uint32_t[]){4, 5, 6, 1, 2, 3}, 6);
    dike_tenantq_free(&tq);
}

/* Own members whose key is stable below a threshold of the tenant's level, as srtf's under `none`:
 * key = d if d >= E (the job outlived the estimate E), else E - d; stable while E <= d. */
static double g_level, g_done[NJ];

static double st_key(void *ctx, const dike_sched *s, const dike_job *j)
{
    return g_done[j->idx] >= g_level ? g_done[j->idx] : g_level - g_done[j->idx];
}

static double st_stable(void *ctx, const dike_sched *s, const dike_job *j)
{
    return g_done[j->idx];
}

static double st_level(void *ctx, const dike_sched *s, const dike_job *j)
{
    return g_level;
}

static void expect_keys(dike_tenantq *tq, const double *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        assert_true(dike_tenantq_key(tq, &g_job[i]) == want[i]);
}

/* A queue of jobs 0..n-1 of tenant 0, 1 GPU, work done @p done, at level @p level, all pushed. */
static void stable_queue(dike_tenantq *tq, const double *done, uint32_t n, double level)
{
    make_jobs(NULL, NULL);
    for (uint32_t i = 0; i < n; i++)
        g_done[i] = done[i];
    g_level = level;
    dike_tenantq_init(tq, NJ, 1, st_key, NULL, NULL);
    dike_tenantq_set_stable(tq, st_stable, st_level);
    for (uint32_t i = 0; i < n; i++)
        dike_tenantq_push(tq, NULL, &g_job[i]);
}

static void test_tenantq_stable(void **unused)
{
    /* Jobs 0-3 of tenant 0, 1 GPU, work done 50, 10, 30, 5; level 20. Keys: 50 (stable, 50 >= 20),
     * 10 (20 - 10), 30 (stable), 15. Order 1, 3, 2, 0; two members wait apart. */
    dike_tenantq tq;
    stable_queue(&tq, (const double[]){50, 10, 30, 5}, 4, 20);
    expect_keys(&tq, (const double[]){50, 10, 30, 15}, 4);
    assert_int_equal(tq.stable[0].size, 2);
    assert_int_equal(tq.nown[0], 2);
    assert_int_equal(dike_tenantq_min(&tq)->idx, 1);
    /* Level 40: job 2 (30 < 40) is re-keyed from now on, 40 - 30 = 10; job 0 (50) keeps 50; jobs
     * 1 and 3: 30 and 35. Order 2, 1, 3, 0. */
    g_level = 40;
    dike_tenantq_refresh_tenant(&tq, NULL, 0);
    expect_keys(&tq, (const double[]){50, 30, 10, 35}, 4);
    assert_int_equal(tq.stable[0].size, 1);
    assert_int_equal(dike_tenantq_min(&tq)->idx, 2);
    /* Level 8: jobs 1 (10) and 2 (30) are stable again with keys 10 and 30; job 3: 8 - 5 = 3.
     * Order 3, 1, 2, 0; only job 3 is re-keyed at the next change. */
    g_level = 8;
    dike_tenantq_refresh_tenant(&tq, NULL, 0);
    expect_keys(&tq, (const double[]){50, 10, 30, 3}, 4);
    assert_int_equal(tq.stable[0].size, 3);
    assert_int_equal(tq.nown[0], 1);
    /* Level 60, above everyone: keys 10, 50, 30, 55; order 0, 2, 1, 3. */
    g_level = 60;
    dike_tenantq_refresh_tenant(&tq, NULL, 0);
    expect_keys(&tq, (const double[]){10, 50, 30, 55}, 4);
    assert_int_equal(tq.stable[0].size, 0);
    expect_pop_order(&tq, (const uint32_t[]){0, 2, 1, 3}, 4);
    dike_tenantq_free(&tq);
}

static void test_tenantq_stable_whole_pass(void **unused)
{
    /* A re-key of the whole queue must leave the own members where the next change finds them.
     * Jobs 0, 1, 2 of tenant 0, work done 100, 10, 20; level 50: job 0 is stable (key 100), 1
     * and 2 are listed (40, 30). Level 150 with 2 listed members in a queue of 3 re-keys the
     * whole queue (2 x 2 > 3: most members): keys 50, 140, 130, and job 0 (100 < 150) must now
     * be re-keyed at every change. Job 2 leaves. Level 60: job 0 outlived it again, key 100; job 1 60 - 10 = 50:
     * job 1 comes first. (Until 2026-12-04 job 0 stayed in the stable heap after the whole pass,
     * and the next change, member by member with one listed job in two, left its key at 50.) */
    dike_tenantq tq;
    stable_queue(&tq, (const double[]){100, 10, 20}, 3, 50);
    expect_keys(&tq, (const double[]){100, 40, 30}, 3);
    const uint32_t moved[] = {0};
    g_level = 150;
    dike_tenantq_refresh_moved(&tq, NULL, moved, 1);
    expect_keys(&tq, (const double[]){50, 140, 130}, 3);
    assert_int_equal(tq.stable[0].size, 0);
    dike_tenantq_remove(&tq, &g_job[2]);
    g_level = 60;
    dike_tenantq_refresh_moved(&tq, NULL, moved, 1);
    expect_keys(&tq, (const double[]){100, 50}, 2);
    expect_pop_order(&tq, (const uint32_t[]){1, 0}, 2);
    dike_tenantq_free(&tq);
}

/* Own members whose key never changes while they wait (threshold +INFINITY), beside re-keyed ones:
 * dike's jobs that never ran, under oracle and noisy. */
static double fx_key(void *ctx, const dike_sched *s, const dike_job *j)
{
    return g_okey[j->idx];
}

static double fx_stable(void *ctx, const dike_sched *s, const dike_job *j)
{
    return j->idx < 2 ? INFINITY : -INFINITY;
}

static void test_tenantq_fixed(void **unused)
{
    /* Jobs 0, 1 fixed (keys 10, 40), jobs 2, 3 re-keyed (20, 30). All keys then rise by 100 in
     * the key function: a refresh re-keys 2 and 3 alone (120, 130), 0 and 1 keep 10 and 40.
     * Order 0, 1, 2, 3. Neither fixed job is in a stable heap or a list. */
    make_jobs(NULL, NULL);
    memcpy(g_okey, (const double[]){10, 40, 20, 30}, 4 * sizeof *g_okey);
    dike_tenantq tq;
    dike_tenantq_init(&tq, NJ, 1, fx_key, NULL, NULL);
    dike_tenantq_set_stable(&tq, fx_stable, st_level);
    for (uint32_t i = 0; i < 4; i++)
        dike_tenantq_push(&tq, NULL, &g_job[i]);
    assert_int_equal(tq.nown[0], 2);
    assert_int_equal(tq.stable[0].size, 0);
    for (uint32_t i = 0; i < 4; i++)
        g_okey[i] += 100;
    dike_tenantq_refresh_tenant(&tq, NULL, 0);
    assert_true(dike_tenantq_key(&tq, &g_job[0]) == 10);
    assert_true(dike_tenantq_key(&tq, &g_job[1]) == 40);
    assert_true(dike_tenantq_key(&tq, &g_job[2]) == 120);
    assert_true(dike_tenantq_key(&tq, &g_job[3]) == 130);
    /* 1 leaves and comes back: it is pushed with the key it has now, 140 */
    dike_tenantq_remove(&tq, &g_job[1]);
    dike_tenantq_push(&tq, NULL, &g_job[1]);
    expect_pop_order(&tq, (const uint32_t[]){0, 2, 3, 1}, 4);
    dike_tenantq_free(&tq);
}

/* Shared keys per GPU (dike's GPU-time order): tenant t's shared member of g GPUs has key
 * g_unit[t] x g. */
static double g_unit[2];

static double sc_key(void *ctx, const dike_sched *s, const dike_job *j)
{
    return g_tshared[j->idx] ? g_unit[j->spec->tenant] * j->spec->num_gpus : g_okey[j->idx];
}

static double sc_unit(void *ctx, const dike_sched *s, const dike_job *j)
{
    return g_unit[j->spec->tenant];
}

static void test_tenantq_scaled(void **unused)
{
    /* Jobs 0, 1, 2 of tenant 0 (shared; 1, 2, 4 GPUs), job 3 of tenant 0 is own (key 90), job 4
     * of tenant 1 is shared (2 GPUs), job 5 of tenant 0 shared (2 GPUs), jobs 6 and 7 of tenant 0
     * own (1 GPU, keys 200 and 210). Units: tenant 0 30, tenant 1 50. Keys: 30, 60, 120, 90,
     * 100, 60, 200, 210. Seen: the firsts of (0, 1 GPU), (0, 2), (0, 4), (1, 2) and the own 3, 6
     * and 7: seven (5 waits behind 1). */
    make_jobs((const uint32_t[]){1, 2, 4, 1, 2, 2, 1, 1}, NULL);
    for (uint32_t i = 0; i < NJ; i++)
        g_spec[i].tenant = i == 4 ? 1 : 0;
    const int shared[NJ] = {1, 1, 1, 0, 1, 1, 0, 0}, was[NJ] = {1, 1, 1, 0, 1, 1, 1, 0};
    memcpy(g_tshared, shared, sizeof shared);
    memcpy(g_unit, (const double[]){30, 50}, sizeof g_unit);
    g_okey[3] = 90;
    g_okey[6] = 200;
    g_okey[7] = 210;
    dike_tenantq tq;
    dike_tenantq_init(&tq, NJ, 2, sc_key, tq_shared, NULL);
    dike_tenantq_set_scaled(&tq, sc_unit);
    for (uint32_t i = 0; i < NJ; i++)
        dike_tenantq_push(&tq, NULL, &g_job[i]);
    assert_int_equal(tq.q.size, 7);
    expect_keys(&tq, (const double[]){30, 60, 120, 90, 100, 60, 200, 210}, NJ);
    /* Tenant 0's unit falls to 20, member by member: keys 20, 40, 80 and 40 for the hidden 5. */
    g_unit[0] = 20;
    dike_tenantq_refresh_tenant(&tq, NULL, 0);
    expect_keys(&tq, (const double[]){20, 40, 80, 90, 100, 40, 200, 210}, NJ);
    /* Job 1 leaves: 5 is seen in its place with 40. */
    dike_tenantq_remove(&tq, &g_job[1]);
    assert_true(dike_jobq_key(&tq.q, &g_job[5]) == 40);
    /* Jobs 0 and 2 leave too: five members are seen, three of them own (2 x 3 > 5), and both
     * tenants move, units 25 and 15: the whole queue is re-keyed. Keys: 5 2 x 25 = 50, 4 2 x 15 =
     * 30, own 90, 200, 210; tenant 0's shared key per GPU is 25. Order 4, 5, 3, 6, 7. */
    dike_tenantq_remove(&tq, &g_job[0]);
    dike_tenantq_remove(&tq, &g_job[2]);
    assert_int_equal(tq.q.size, 5);
    g_unit[0] = 25;
    g_unit[1] = 15;
    dike_tenantq_refresh_moved(&tq, NULL, (const uint32_t[]){0, 1}, 2);
    assert_true(tq.skey[0] == 25);
    assert_true(dike_tenantq_key(&tq, &g_job[4]) == 30);
    assert_true(dike_tenantq_key(&tq, &g_job[5]) == 50);
    expect_pop_order(&tq, (const uint32_t[]){4, 5, 3, 6, 7}, 5);
    memcpy(g_tshared, was, sizeof was);
    dike_tenantq_free(&tq);
}

static void test_idheap_order(void **unused)
{
    /* Keys 5, 3, 3, 9, 1 for ids 0..4: order 4 (1), then 1 and 2 tie at 3 (lower id first), 0, 3. */
    double key[5] = {5, 3, 3, 9, 1};
    dike_idheap h;
    dike_idheap_init(&h, 5, key);
    for (uint32_t i = 0; i < 5; i++)
        dike_idheap_push(&h, i);
    assert_int_equal(dike_idheap_top(&h), 4);
    /* 4's key grows to 4 (as a pass does): 1 is the top, and after it leaves 2 is */
    key[4] = 4;
    dike_idheap_update(&h, 4);
    assert_int_equal(dike_idheap_top(&h), 1);
    dike_idheap_remove(&h, 1);
    assert_false(dike_idheap_has(&h, 1));
    assert_int_equal(dike_idheap_top(&h), 2);
    /* 2 grows to 5, the same as 0: the order is now 4 (4), 0 (5), 2 (5), 3 (9) */
    key[2] = 5;
    dike_idheap_update(&h, 2);
    uint32_t want[] = {4, 0, 2, 3};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(dike_idheap_top(&h), want[i]);
        dike_idheap_remove(&h, want[i]);
    }
    assert_int_equal(dike_idheap_top(&h), DIKE_IDHEAP_NONE);
    /* all keys change at once (a checkpoint's passes): rebuild. 0 (2), 1 (1), 3 (0) -> 3, 1, 0 */
    dike_idheap_push(&h, 0);
    dike_idheap_push(&h, 1);
    dike_idheap_push(&h, 3);
    key[0] = 2;
    key[1] = 1;
    key[3] = 0;
    dike_idheap_rebuild(&h);
    assert_int_equal(dike_idheap_top(&h), 3);
    dike_idheap_remove(&h, 3);
    assert_int_equal(dike_idheap_top(&h), 1);
    dike_idheap_free(&h);
}

static void test_runkeys_ranges(void **unused)
{
    (void)unused;
    /* Six jobs, tenants 0 1 0 0 1 0: tenant 0 holds jobs 0, 2, 3, 5, tenant 1 jobs 1, 4. */
    const uint32_t tenant_of[6] = {0, 1, 0, 0, 1, 0};
    dike_runkeys k;
    dike_runkeys_init(&k, 6, 2, tenant_of);
    assert_int_equal(dike_runkeys_any(&k, 0), UINT32_MAX);
    /* ranges (lo, hi): job 0 (90, 120), job 2 (50, 200), job 3 (95, 105); job 1 (10, 20) */
    dike_runkeys_set(&k, 0, 0, 120, 90);
    dike_runkeys_set(&k, 2, 0, 200, 50);
    dike_runkeys_set(&k, 3, 0, 105, 95);
    dike_runkeys_set(&k, 1, 1, 20, 10);
    /* estimate 100 is inside every range of tenant 0; 15 inside job 1's */
    assert_int_equal(dike_runkeys_out(&k, 0, 100, 0), UINT32_MAX);
    assert_int_equal(dike_runkeys_out(&k, 1, 15, 0), UINT32_MAX);
    /* 110 leaves job 3's (hi 105) only; 92 leaves job 3's (lo 95) only */
    assert_int_equal(dike_runkeys_out(&k, 0, 110, 0), 3);
    assert_int_equal(dike_runkeys_out(&k, 0, 92, 0), 3);
    /* the tolerance takes a range as left a little early: 104.9 x (1 + 0.01) >= 105 */
    assert_int_equal(dike_runkeys_out(&k, 0, 104.9, 0), UINT32_MAX);
    assert_int_equal(dike_runkeys_out(&k, 0, 104.9, 0.01), 3);
    /* job 3 revisited: its new range (80, 130) holds 110; job 0's (hi 120) does not hold 125 */
    dike_runkeys_set(&k, 3, 0, 130, 80);
    assert_int_equal(dike_runkeys_out(&k, 0, 110, 0), UINT32_MAX);
    assert_int_equal(dike_runkeys_out(&k, 0, 125, 0), 0);
    /* a new range replaces the old: job 2's is now (40, 150) */
    dike_runkeys_set(&k, 2, 0, 150, 40);
    dike_runkeys_remove(&k, 0, 0);
    dike_runkeys_remove(&k, 3, 0);
    assert_int_equal(dike_runkeys_out(&k, 0, 140, 0), UINT32_MAX);
    assert_int_equal(dike_runkeys_out(&k, 0, 160, 0), 2);
    assert_int_equal(dike_runkeys_out(&k, 0, 45, 0), UINT32_MAX);
    assert_int_equal(dike_runkeys_out(&k, 0, 40, 0), 2);
    /* and wider */
    dike_runkeys_set(&k, 2, 0, 300, 10);
    assert_int_equal(dike_runkeys_out(&k, 0, 250, 0), UINT32_MAX);
    /* a job revisited at every move: hi -inf */
    dike_runkeys_set(&k, 5, 0, -INFINITY, INFINITY);
    assert_int_equal(dike_runkeys_out(&k, 0, 250, 0), 5);
    dike_runkeys_remove(&k, 5, 0);
    dike_runkeys_remove(&k, 2, 0);
    dike_runkeys_remove(&k, 2, 0); /* absent: nothing */
    assert_int_equal(dike_runkeys_any(&k, 0), UINT32_MAX);
    assert_int_equal(dike_runkeys_any(&k, 1), 1); /* the other tenant is untouched */
    dike_runkeys_free(&k);
}

typedef struct walk_log {
    uint32_t idx[NJ];
    int n, stop_at;
} walk_log;

static int log_visit(void *ctx, dike_job *j)
{
    walk_log *w = ctx;
    w->idx[w->n++] = j->idx;
    return w->n == w->stop_at;
}

static void expect_walk(dike_fintree *f, uint32_t tree, dike_time after, int stop_at,
                        const uint32_t *want, int n)
{
    walk_log w = {.stop_at = stop_at};
    dike_fintree_walk(f, tree, after, log_visit, &w);
    assert_int_equal(w.n, n);
    for (int i = 0; i < n; i++)
        assert_int_equal(w.idx[i], want[i]);
    if (stop_at)
        return;
    /* a cursor gives the same jobs in the same order, whatever another cursor does meanwhile */
    dike_fintree_iter it = {0}, other = {0};
    dike_fintree_iter_start(f, &it, tree, after);
    dike_fintree_iter_start(f, &other, tree, INT64_MIN);
    for (int i = 0; i < n; i++) {
        assert_int_equal(it.cur, want[i]);
        dike_fintree_iter_next(f, &it);
        if (other.cur != UINT32_MAX)
            dike_fintree_iter_next(f, &other);
    }
    assert_int_equal(it.cur, UINT32_MAX);
    dike_fintree_iter_next(f, &it); /* stays done */
    assert_int_equal(it.cur, UINT32_MAX);
    dike_fintree_iter_free(&it);
    dike_fintree_iter_free(&other);
}

static void test_fintree(void **unused)
{
    /* Tree 0 holds jobs 0..5: finish 50, 80, 20, 80, 60, 10 with 1, 2, 4, 8, 16, 32 GPUs.
     * Latest first, ties by index: 1 (80), 3 (80), 4 (60), 0 (50), 2 (20), 5 (10).
     * Tree 1 holds job 6 (finish 100, 64 GPUs): it never shows in tree 0. */
    uint32_t gpus[NJ] = {1, 2, 4, 8, 16, 32, 64, 128};
    dike_time fin[NJ] = {50, 80, 20, 80, 60, 10, 100, 0};
    make_jobs(gpus, fin);
    dike_fintree f;
    dike_fintree_init(&f, NJ, 2);
    uint32_t ins[] = {4, 0, 5, 1, 3, 2};
    for (int i = 0; i < 6; i++)
        dike_fintree_insert(&f, 0, &g_job[ins[i]]);
    dike_fintree_insert(&f, 1, &g_job[6]);
    assert_int_equal(f.size, 7);
    expect_walk(&f, 0, INT64_MIN, 0, (uint32_t[]){1, 3, 4, 0, 2, 5}, 6);
    /* finishing after 50: 1, 3, 4 -> 2 + 8 + 16 = 26 GPUs; after 49 adds job 0: 27; after 80:
     * none; after 9: all 63 */
    assert_int_equal(dike_fintree_gpus_after(&f, 0, 50), 26);
    assert_int_equal(dike_fintree_gpus_after(&f, 0, 49), 27);
    assert_int_equal(dike_fintree_gpus_after(&f, 0, 80), 0);
    assert_int_equal(dike_fintree_gpus_after(&f, 0, 9), 63);
    assert_int_equal(dike_fintree_gpus_after(&f, 1, 0), 64);
    expect_walk(&f, 1, INT64_MIN, 0, (uint32_t[]){6}, 1);
    expect_walk(&f, 1, 100, 0, (uint32_t[]){0}, 0); /* finishing after 100: none */
    /* the walk stops at the bound (after 50: 1, 3, 4) or when the visitor says so (2nd job) */
    expect_walk(&f, 0, 50, 0, (uint32_t[]){1, 3, 4}, 3);
    expect_walk(&f, 0, INT64_MIN, 2, (uint32_t[]){1, 3}, 2);
    /* job 3 stops, job 7 starts on tree 0 (finish 0, 128 GPUs): 1, 4, 0, 2, 5, 7 */
    dike_fintree_remove(&f, &g_job[3]);
    assert_false(dike_fintree_has(&f, &g_job[3]));
    dike_fintree_insert(&f, 0, &g_job[7]);
    expect_walk(&f, 0, INT64_MIN, 0, (uint32_t[]){1, 4, 0, 2, 5, 7}, 6);
    assert_int_equal(dike_fintree_gpus_after(&f, 0, 50), 18);
    assert_int_equal(dike_fintree_gpus_after(&f, 0, -1), 183);
    /* job 3 may come back later with another finish time (it was preempted and resumed) */
    g_job[3].finish = 55;
    dike_fintree_insert(&f, 0, &g_job[3]);
    expect_walk(&f, 0, 50, 0, (uint32_t[]){1, 4, 3}, 3);
    dike_fintree_free(&f);
}

int main(void)
{
    MPI_Init(NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_active_keeps_arrival_order),
        cmocka_unit_test(test_active_many),
        cmocka_unit_test(test_idheap_order),
        cmocka_unit_test(test_runkeys_ranges),
        cmocka_unit_test(test_jobq_update),
        cmocka_unit_test(test_jobq_many),
        cmocka_unit_test(test_tenantq),
        cmocka_unit_test(test_tenantq_stable),
        cmocka_unit_test(test_tenantq_stable_whole_pass),
        cmocka_unit_test(test_tenantq_scaled),
        cmocka_unit_test(test_tenantq_fixed),
        cmocka_unit_test(test_fintree),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
