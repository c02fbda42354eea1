/* Event heap order and tie-breaking, event pool reuse, node partition. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include <mpi.h>

#include "engine/event.h"
#include "dike/rng.h"
#include "engine/nodes.h"
#include "engine/partition.h"
#include "engine/window.h"

static dike_event *mk(dike_event_pool *p, dike_time t, int phase, int kind, uint32_t entity,
                      uint32_t seq)
{
    dike_event *e = dike_pool_get(p);
    e->time = t;
    e->phase = (uint8_t)phase;
    e->kind = (uint8_t)kind;
    e->entity = entity;
    e->seq = seq;
    e->data = 0;
    return e;
}

/* Every level of the key breaks ties in the documented order, whatever the insertion order. */
static void test_heap_tie_breaking(void **st)
{
    dike_event_pool p;
    dike_heap h;
    dike_pool_init(&p);
    dike_heap_init(&h);
    /* expected order, written by hand: */
    struct { dike_time t; int phase, kind; uint32_t ent, seq; } want[] = {
        {5, 0, 0, 9, 9}, /* earliest time wins over everything */
        {10, 0, 0, 7, 3}, /* at t=10: release phase first */
        {10, 0, 1, 1, 0}, /* same phase: lower kind */
        {10, 1, 0, 2, 5}, /* then arrive phase; entity 2 before 3 */
        {10, 1, 0, 3, 1}, /* same entity: seq 1 before 2 */
        {10, 1, 0, 3, 2},
        {10, 2, 0, 0, 0},
        {11, 0, 0, 0, 0},
    };
    size_t n = sizeof want / sizeof want[0];
    size_t order[] = {6, 3, 7, 1, 5, 0, 4, 2}; /* scrambled insertion */
    for (size_t i = 0; i < n; i++) {
        size_t k = order[i];
        dike_heap_push(&h, mk(&p, want[k].t, want[k].phase, want[k].kind, want[k].ent, want[k].seq));
    }
    for (size_t i = 0; i < n; i++) {
        dike_event *e = dike_heap_pop(&h);
        assert_non_null(e);
        assert_int_equal(e->time, want[i].t);
        assert_int_equal(e->phase, want[i].phase);
        assert_int_equal(e->kind, want[i].kind);
        assert_int_equal(e->entity, want[i].ent);
        assert_int_equal(e->seq, want[i].seq);
        dike_pool_put(&p, e);
    }
    assert_null(dike_heap_pop(&h));
    assert_int_equal(p.live, 0);
    dike_heap_free(&h);
    dike_pool_free(&p);
}

/* Random keys: pops come out sorted under dike_event_cmp; the pool recycles instead of growing. */
static void test_heap_random_sorted(void **st)
{
    dike_event_pool p;
    dike_heap h;
    dike_pool_init(&p);
    dike_heap_init(&h);
    dike_rng r;
    dike_rng_init(&r, 42, 0, 0);
    for (int round = 0; round < 3; round++) {
        for (uint32_t i = 0; i < 20000; i++)
            dike_heap_push(&h, mk(&p, (dike_time)dike_rng_below(&r, 1000), (int)dike_rng_below(&r, 3),
                                  (int)dike_rng_below(&r, 3), (uint32_t)dike_rng_below(&r, 50), i));
        dike_event prev = *dike_heap_top(&h);
        size_t popped = 0;
        dike_event *e;
        while ((e = dike_heap_pop(&h))) {
            assert_true(dike_event_cmp(&prev, e) <= 0);
            prev = *e;
            dike_pool_put(&p, e);
            popped++;
        }
        assert_int_equal(popped, 20000);
    }
    /* 20,000 live at most: 5 chunks of 4096, never more across the three rounds. */
    assert_int_equal(p.nchunks, 5);
    dike_heap_free(&h);
    dike_pool_free(&p);
}

/* Pushes and pops interleaved as the engine does them (a pop, then pushes at or after its time),
 * against a linear scan for the least event; and the layout the 4-ary heap promises: after every
 * growth, the four children of any slot i (4i + 1 .. 4i + 4) share one 64-byte line. */
static void test_heap_interleaved(void **st)
{
    enum { N = 3000 };
    dike_event_pool p;
    dike_heap h;
    dike_pool_init(&p);
    dike_heap_init(&h);
    dike_rng r;
    dike_rng_init(&r, 7, 0, 0);
    dike_event *live[N];
    size_t nlive = 0, pushes = 0, caps = 0;
    size_t last_cap = 0;
    dike_time now = 0;
    for (int step = 0; step < 20000; step++) {
        int push = nlive == 0 || (nlive < N && dike_rng_below(&r, 5) < 3);
        if (push) {
            dike_event *e = mk(&p, now + (dike_time)dike_rng_below(&r, 200), (int)dike_rng_below(&r, 3),
                               0, (uint32_t)dike_rng_below(&r, 40), (uint32_t)pushes++);
            dike_heap_push(&h, e);
            live[nlive++] = e;
            if (h.cap != last_cap) {
                last_cap = h.cap;
                caps++;
                assert_int_equal(((uintptr_t)&h.a[1]) % 64, 0);
            }
        } else {
            size_t m = 0;
            for (size_t i = 1; i < nlive; i++)
                if (dike_event_cmp(live[i], live[m]) < 0)
                    m = i;
            dike_event *e = dike_heap_pop(&h);
            assert_ptr_equal(e, live[m]);
            now = e->time;
            live[m] = live[--nlive];
            dike_pool_put(&p, e);
        }
        assert_int_equal(h.n, nlive);
    }
    assert_true(caps >= 4); /* 256 -> 512 -> 1024 -> 2048 (-> 4096): the layout kept at each */
    dike_heap_free(&h);
    dike_pool_free(&p);
}

/* owner() agrees with the blocks; blocks are whole racks, contiguous, and cover every node. */
static void test_partition_blocks(void **st)
{
    for (uint32_t nodes = 1; nodes <= 300; nodes += 37) {
        for (uint32_t npr = 1; npr <= 64; npr *= 4) {
            dike_cluster cl = {0};
            cl.nodes = nodes;
            cl.nodes_per_rack = npr;
            cl.nracks = (nodes + npr - 1) / npr;
            for (int nranks = 1; nranks <= 7; nranks++) {
                for (int owns = 0; owns <= 1; owns++) {
                    dike_part_layout l;
                    dike_part_layout_init(&l, &cl, nranks, owns);
                    uint32_t next = 0;
                    for (int r = 0; r < nranks; r++) {
                        uint32_t first, n;
                        dike_part_block(&l, r, &first, &n);
                        if (n == 0)
                            continue;
                        assert_int_equal(first, next);
                        assert_true(first % npr == 0);
                        for (uint32_t k = first; k < first + n; k++)
                            assert_int_equal(dike_part_owner(&l, k), r);
                        next = first + n;
                    }
                    assert_int_equal(next, nodes);
                    if (!owns && nranks > 1) {
                        uint32_t first, n;
                        dike_part_block(&l, 0, &first, &n);
                        assert_int_equal(n, 0);
                    }
                }
            }
        }
    }
}

/* 10 racks over 3 node ranks: blocks of 3, 3, 4 racks (block + remainder). */
static void test_partition_hand(void **st)
{
    dike_cluster cl = {0};
    cl.nodes = 40;
    cl.nodes_per_rack = 4;
    cl.nracks = 10;
    dike_part_layout l;
    dike_part_layout_init(&l, &cl, 4, 0); /* rank 0 coordinates only */
    uint32_t first, n;
    dike_part_block(&l, 1, &first, &n);
    assert_int_equal(first, 0);
    assert_int_equal(n, 12);
    dike_part_block(&l, 2, &first, &n);
    assert_int_equal(first, 12);
    assert_int_equal(n, 12);
    dike_part_block(&l, 3, &first, &n);
    assert_int_equal(first, 24);
    assert_int_equal(n, 16);
    assert_int_equal(dike_part_owner(&l, 11), 1);
    assert_int_equal(dike_part_owner(&l, 12), 2);
    assert_int_equal(dike_part_owner(&l, 39), 3);
}

/* The home step applies a window's records by time and, within a timestamp, ends before starts
 * before factors, whatever order they come in (records of several ranks arrive as separate runs).
 * One node of 8 GPUs, one rank, no node model; records given out of order:
 *   job 1 starts at 1 s with 1 s of work at factor 1: it finishes at 1 + 1 = 2 s;
 *   job 0 starts at 2 s with 4 s of work at factor 0.5: 4 / 0.5 = 8 s, it finishes at 10 s;
 *   job 2 starts at 1 s with 10 s of work at factor 1 and is preempted at 3 s (end of run 1, with
 *   10 - 2 = 8 s of work left), and run 2 starts at 3 s with those 8 s: it finishes at 11 s.
 * Run 2's start at 3 s is given before run 1's end at 3 s, and factors before their starts: applied
 * in that order the home would stop with "starts run 2 while run 1 is on". */
/* A home on one rank: nodes of 8 GPUs in one rack, no node model, 3 jobs. */
typedef struct one_home {
    dike_cluster cl;
    dike_part_layout l;
    dike_part p;
    dike_nodes *ns;
} one_home;

static void one_home_init(one_home *h, uint32_t nodes)
{
    memset(h, 0, sizeof *h);
    h->cl.nodes = nodes;
    h->cl.gpus_per_node = 8;
    h->cl.nodes_per_rack = nodes;
    h->cl.nracks = 1;
    h->cl.total_gpus = 8 * nodes;
    dike_part_layout_init(&h->l, &h->cl, 1, 1);
    dike_part_init(&h->p, &h->cl, NULL, 0, nodes);
    dike_nodes_params np = {0};
    h->ns = dike_nodes_new(&np, &h->cl, &h->l, 0, &h->p, 3);
}

static void one_home_free(one_home *h)
{
    dike_nodes_free(h->ns);
    dike_part_free(&h->p);
}

static void test_home_record_order(void **st)
{
    (void)st;
    one_home h;
    one_home_init(&h, 1);
    dike_nodes *ns = h.ns;
    enum { E = DIKE_JREC_END, S = DIKE_JREC_START, F = DIKE_JREC_FACTOR };
    const dike_jrec in[] = {
        /* time, aux, value, rate, job, epoch, slice, kind, nslices, reason */
        {3000000, -1, 1.0, 0, 2, 2, 0, F, 1, 0},
        {3000000, 0, 8e6, 1.0, 2, 2, 0, S, 1, 0},
        {3000000, -1, 0, 0, 2, 1, 0, E, 0, DIKE_STOP_PREEMPT},
        {2000000, -1, 0.5, 0, 0, 1, 0, F, 1, 0},
        {2000000, 0, 4e6, 1.0, 0, 1, 0, S, 1, 0},
        {1000000, -1, 1.0, 0, 1, 1, 0, F, 1, 0},
        {1000000, -1, 1.0, 0, 2, 1, 0, F, 1, 0},
        {1000000, 0, 1e6, 1.0, 1, 1, 0, S, 1, 0},
        {1000000, 0, 10e6, 1.0, 2, 1, 0, S, 1, 0},
    };
    dike_nodes_home_advance(ns, in, sizeof in / sizeof *in, 20000000);
    size_t n;
    const dike_nrep *r = dike_nodes_reports(ns, &n);
    const struct { dike_time t; uint32_t kind, job, epoch; double work; } want[] = {
        {2000000, DIKE_NREP_FINISH, 1, 1, 0},
        {3000000, DIKE_NREP_STOPPED, 2, 1, 8e6},
        {10000000, DIKE_NREP_FINISH, 0, 1, 0},
        {11000000, DIKE_NREP_FINISH, 2, 2, 0},
    };
    assert_int_equal(n, 4);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(r[i].time, want[i].t);
        assert_int_equal(r[i].kind, want[i].kind);
        assert_int_equal(r[i].entity, want[i].job);
        assert_int_equal(r[i].seq, want[i].epoch);
        assert_float_equal(r[i].work, want[i].work, 1e-6);
    }
    one_home_free(&h);
}

/* One home, gangs of two slices (docs/architecture.md#two-modes: an owner sends the minimum
 * factor of each group of a run's slices on its nodes, and the home runs the gang at the smallest
 * group factor once groups covering every slice have reported). Each job has 6 s of work at
 * placement rate 1 and starts at 1 s.
 *   job 0: one group of both slices at factor 0.5: 6 / 0.5 = 12 s, it finishes at 13 s.
 *   job 1: two groups, slice 0 at 1.0 and slice 1 at 0.5: the same 13 s so far. At 3 s slice 0
 *          drops to 0.75, above the minimum: nothing changes. At 5 s slice 1 recovers to 1.0: the
 *          minimum is 0.75; by 5 s 4 s x 0.5 = 2 s of work is done, 4 s are left, 4 / 0.75 =
 *          5.3333333 s, so it finishes at 5 s + ceil(5,333,333.3 us) = 10,333,334 us.
 *   job 2: one group that stands for 1 of its 2 slices: the other has not reported, so it does not
 *          run (no report before the window's end). */
static void test_home_groups(void **st)
{
    (void)st;
    one_home h;
    one_home_init(&h, 2);
    dike_nodes *ns = h.ns;
    enum { S = DIKE_JREC_START, F = DIKE_JREC_FACTOR };
    const dike_jrec in[] = {
        /* time, aux, value, rate, job, epoch, slice, kind, nslices, reason */
        {1000000, 0, 6e6, 1.0, 0, 1, 0, S, 2, 0},
        {1000000, -1, 0.5, 0, 0, 1, 0, F, 2, 0},
        {1000000, 0, 6e6, 1.0, 1, 1, 0, S, 2, 0},
        {1000000, -1, 1.0, 0, 1, 1, 0, F, 1, 0},
        {1000000, -1, 0.5, 0, 1, 1, 1, F, 1, 0},
        {3000000, -1, 0.75, 0, 1, 1, 0, F, 1, 0},
        {5000000, -1, 1.0, 0, 1, 1, 1, F, 1, 0},
        {1000000, 0, 6e6, 1.0, 2, 1, 0, S, 2, 0},
        {1000000, -1, 1.0, 0, 2, 1, 0, F, 1, 0},
    };
    dike_nodes_home_advance(ns, in, sizeof in / sizeof *in, 100000000);
    size_t n;
    const dike_nrep *r = dike_nodes_reports(ns, &n);
    assert_int_equal(n, 2);
    assert_int_equal(r[0].time, 10333334);
    assert_int_equal(r[0].entity, 1);
    assert_int_equal(r[1].time, 13000000);
    assert_int_equal(r[1].entity, 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(r[i].kind, DIKE_NREP_FINISH);
    one_home_free(&h);
}

/* Checkpoints by the wall clock (run.checkpoint_wall_s): the next one falls due S after now, or
 * nine times the last one's write time after now if that is later, so that writing them takes at
 * most a tenth of the run; only on rank 0, and never when the key is off. */
static void test_wall_ckpt_spacing(void **state)
{
    (void)state;
    dike_window_opts o;
    memset(&o, 0, sizeof o);
    o.ckpt_wall = 0.01;
    double t0 = MPI_Wtime();
    double a = dike_wall_ckpt_next(0, &o, 0);      /* S = 0.01 s */
    double b = dike_wall_ckpt_next(0, &o, 0.5);    /* 9 x 0.5 = 4.5 s > S */
    double c = dike_wall_ckpt_next(0, &o, 0.0005); /* 9 x 0.0005 = 0.0045 s < S */
    double t1 = MPI_Wtime();
    assert_true(a >= t0 + 0.01 && a <= t1 + 0.01);
    assert_true(b >= t0 + 4.5 && b <= t1 + 4.5);
    assert_true(c >= t0 + 0.01 && c <= t1 + 0.01);
    assert_true(dike_wall_ckpt_next(1, &o, 0.5) == INFINITY); /* other ranks never ask */
    o.ckpt_wall = 0;
    assert_true(dike_wall_ckpt_next(0, &o, 0.5) == INFINITY); /* off */
    assert_false(dike_wall_ckpt_due(INFINITY));
    assert_true(dike_wall_ckpt_due(t0));
}

int main(void)
{
    MPI_Init(NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heap_tie_breaking),
        cmocka_unit_test(test_heap_random_sorted),
        cmocka_unit_test(test_heap_interleaved),
        cmocka_unit_test(test_partition_blocks),
        cmocka_unit_test(test_partition_hand),
        cmocka_unit_test(test_home_record_order),
        cmocka_unit_test(test_home_groups),
        cmocka_unit_test(test_wall_ckpt_spacing),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
