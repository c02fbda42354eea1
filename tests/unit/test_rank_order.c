/* The ordered structures of the round-based policies (las, themis): gangtree (first member at or
 * after an index that fits in k GPUs), rankwalk (lazy rank order), dike_rank_prefix (best jobs
 * that fit, unsorted) and jobsets (running / queued by gang size). Expected values by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "policy/gangtree.h"
#include "policy/jobsets.h"
#include "policy/rankwalk.h"

static void test_gangtree_first_fit(void **st)
{
    /* Members over 0..9: 1 -> 4 GPUs, 3 -> 2, 4 -> 8, 7 -> 1, 9 -> 2. */
    dike_gangtree t;
    dike_gangtree_init(&t, 10);
    assert_int_equal(t.t.p, 16); /* leaves */
    assert_int_equal(dike_gangtree_first_fit(&t, 0, 100), SIZE_MAX); /* empty */
    dike_gangtree_add(&t, 1, 4);
    dike_gangtree_add(&t, 3, 2);
    dike_gangtree_add(&t, 4, 8);
    dike_gangtree_add(&t, 7, 1);
    dike_gangtree_add(&t, 9, 2);
    assert_int_equal(t.count, 5);
    assert_true(dike_gangtree_has(&t, 4));
    assert_false(dike_gangtree_has(&t, 5));
    /* Everything fits in 8: members in index order. */
    assert_int_equal(dike_gangtree_first_fit(&t, 0, 8), 1);
    assert_int_equal(dike_gangtree_first_fit(&t, 2, 8), 3);
    assert_int_equal(dike_gangtree_first_fit(&t, 4, 8), 4);
    assert_int_equal(dike_gangtree_first_fit(&t, 5, 8), 7);
    assert_int_equal(dike_gangtree_first_fit(&t, 8, 8), 9);
    assert_int_equal(dike_gangtree_first_fit(&t, 10, 8), SIZE_MAX);
    /* In 2 GPUs: 1 (4) and 4 (8) are skipped. */
    assert_int_equal(dike_gangtree_first_fit(&t, 0, 2), 3);
    assert_int_equal(dike_gangtree_first_fit(&t, 4, 2), 7);
    /* In 1 GPU: only 7; after it, nothing. */
    assert_int_equal(dike_gangtree_first_fit(&t, 0, 1), 7);
    assert_int_equal(dike_gangtree_first_fit(&t, 8, 1), SIZE_MAX);
    assert_int_equal(dike_gangtree_first_fit(&t, 0, 0), SIZE_MAX);
    /* Remove 7 and 3; resize 9 to 1 GPU. */
    dike_gangtree_remove(&t, 7);
    dike_gangtree_remove(&t, 3);
    dike_gangtree_remove(&t, 3); /* absent: no-op */
    dike_gangtree_add(&t, 9, 1);
    assert_int_equal(t.count, 3);
    assert_int_equal(dike_gangtree_first_fit(&t, 0, 1), 9);
    assert_int_equal(dike_gangtree_first_fit(&t, 0, 3), 9);
    assert_int_equal(dike_gangtree_first_fit(&t, 0, 4), 1);
    assert_int_equal(dike_gangtree_first_fit(&t, 2, 7), 9);
    dike_gangtree_free(&t);
}

static void test_gangtree_one_and_odd_sizes(void **st)
{
    dike_gangtree t;
    dike_gangtree_init(&t, 1);
    assert_int_equal(dike_gangtree_first_fit(&t, 0, 5), SIZE_MAX);
    dike_gangtree_add(&t, 0, 5);
    assert_int_equal(dike_gangtree_first_fit(&t, 0, 5), 0);
    assert_int_equal(dike_gangtree_first_fit(&t, 0, 4), SIZE_MAX);
    dike_gangtree_free(&t);
    /* 5 indices (8 leaves): the last one reachable, the padding never returned. */
    dike_gangtree_init(&t, 5);
    dike_gangtree_add(&t, 4, 3);
    assert_int_equal(dike_gangtree_first_fit(&t, 0, 3), 4);
    assert_int_equal(dike_gangtree_first_fit(&t, 5, 3), SIZE_MAX);
    dike_gangtree_free(&t);
}

/* Jobs for the rank tests: index i, gang size g[i]. */
#define NJ 8
static dike_job_spec specs[NJ];
static dike_job jobs[NJ];

static void make_jobs(const uint32_t *g)
{
    memset(jobs, 0, sizeof jobs);
    memset(specs, 0, sizeof specs);
    for (uint32_t i = 0; i < NJ; i++) {
        specs[i].num_gpus = g[i];
        jobs[i].spec = &specs[i];
        jobs[i].idx = i;
        jobs[i].state = DIKE_JOB_QUEUED;
    }
}

static void test_rankwalk_order(void **st)
{
    static const uint32_t g[NJ] = {1, 1, 1, 1, 1, 1, 1, 1};
    make_jobs(g);
    /* keys 5, 3, 9, 3, 1, 7, 3, 0: order 7 (0), 4 (1), 1, 3, 6 (3, by index), 0 (5), 5 (7), 2 (9). */
    static const double key[NJ] = {5, 3, 9, 3, 1, 7, 3, 0};
    static const uint32_t want[NJ] = {7, 4, 1, 3, 6, 0, 5, 2};
    dike_ranked r[NJ];
    for (int i = 0; i < NJ; i++)
        r[i] = (dike_ranked){key[i], &jobs[i]};
    dike_rankwalk w;
    dike_rankwalk_init(&w, r, NJ);
    assert_int_equal(dike_rankwalk_sorted(&w), 0);
    assert_int_equal(dike_rankwalk_at(&w, 2)->job->idx, want[2]); /* sorts three */
    assert_int_equal(dike_rankwalk_sorted(&w), 3);
    dike_ranked *rest;
    assert_int_equal(dike_rankwalk_rest(&w, &rest), 5);
    for (int i = 0; i < NJ; i++)
        assert_int_equal(dike_rankwalk_at(&w, i)->job->idx, want[i]);
    assert_null(dike_rankwalk_at(&w, NJ));
}

/* The entries r[0, p) as a set of job indices (bit mask). */
static unsigned mask(const dike_ranked *r, size_t p)
{
    unsigned m = 0;
    for (size_t i = 0; i < p; i++)
        m |= 1u << r[i].job->idx;
    return m;
}

static void test_rank_prefix(void **st)
{
    /* Gangs 4, 2, 8, 1, 2, 1, 4, 2; keys = a permutation, order by key:
     *   key:  job 5 (0), 2 (1), 0 (2), 7 (3), 1 (4), 3 (5), 6 (6), 4 (7)
     *   gangs in that order: 1, 8, 4, 2, 2, 1, 4, 2 -> running sums 1, 9, 13, 15, 17, 18, 22, 24. */
    static const uint32_t g[NJ] = {4, 2, 8, 1, 2, 1, 4, 2};
    static const double key[NJ] = {2, 4, 1, 5, 7, 0, 6, 3};
    make_jobs(g);
    static const struct {
        uint64_t budget;
        size_t p;
        uint64_t used;
        unsigned set;
    } cases[] = {
        {0, 0, 0, 0},
        {1, 1, 1, 1u << 5},
        {8, 1, 1, 1u << 5},            /* job 2 (8 GPUs) does not fit after job 5 */
        {9, 2, 9, (1u << 5) | (1u << 2)},
        {14, 3, 13, (1u << 5) | (1u << 2) | (1u << 0)},
        {15, 4, 15, (1u << 5) | (1u << 2) | (1u << 0) | (1u << 7)},
        {23, 7, 22, 0xffu & ~(1u << 4)},
        {24, 8, 24, 0xffu},
        {1000, 8, 24, 0xffu},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        dike_ranked r[NJ];
        for (int i = 0; i < NJ; i++)
            r[i] = (dike_ranked){key[i], &jobs[i]};
        uint64_t used = 99;
        size_t p = dike_rank_prefix(r, NJ, cases[c].budget, &used);
        assert_int_equal(p, cases[c].p);
        assert_int_equal(used, cases[c].used);
        assert_int_equal(mask(r, p), cases[c].set);
        assert_int_equal(mask(r, NJ), 0xffu); /* a permutation */
    }
}

static void test_jobsets(void **st)
{
    /* Gang sizes in the workload: 1, 2, 4, 8 (sorted, distinct). */
    static const uint32_t g[NJ] = {4, 2, 8, 1, 2, 1, 4, 2};
    make_jobs(g);
    dike_workload w;
    memset(&w, 0, sizeof w);
    w.jobs = specs;
    w.njobs = NJ;
    dike_jobsets js;
    dike_jobsets_init(&js, &w);
    assert_int_equal(js.nsizes, 4);
    assert_int_equal(js.sizes[0], 1);
    assert_int_equal(js.sizes[3], 8);
    for (int i = 0; i < NJ; i++)
        dike_jobsets_add(&js, &jobs[i]);
    assert_int_equal(js.nqueued, 8);
    assert_int_equal(js.queued[1].n, 3); /* 2-GPU jobs 1, 4, 7 */
    /* Job 4 starts; job 1 finishes after running. */
    jobs[4].state = DIKE_JOB_RUNNING;
    dike_jobsets_moved(&js, &jobs[4], 1);
    jobs[1].state = DIKE_JOB_RUNNING;
    dike_jobsets_moved(&js, &jobs[1], 1);
    assert_int_equal(js.running.n, 2);
    assert_int_equal(js.queued[1].n, 1);
    assert_ptr_equal(js.queued[1].jobs[0], &jobs[7]);
    dike_jobsets_remove(&js, &jobs[1], 1);
    /* Job 4 preempted: back among the 2-GPU queued jobs. */
    jobs[4].state = DIKE_JOB_QUEUED;
    dike_jobsets_moved(&js, &jobs[4], 0);
    assert_int_equal(js.running.n, 0);
    assert_int_equal(js.queued[1].n, 2);
    assert_int_equal(js.nqueued, 7);
    for (uint32_t b = 0; b < js.nsizes; b++)
        for (size_t i = 0; i < js.queued[b].n; i++)
            assert_int_equal(js.slot[js.queued[b].jobs[i]->idx], (int32_t)i);
    dike_jobsets_free(&js);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gangtree_first_fit),
        cmocka_unit_test(test_gangtree_one_and_odd_sizes),
        cmocka_unit_test(test_rankwalk_order),
        cmocka_unit_test(test_rank_prefix),
        cmocka_unit_test(test_jobsets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
