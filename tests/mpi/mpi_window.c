/* The window protocol, driven in-process through the public run entry (include/dike/run.h) on
 * MPI_COMM_WORLD: cmocka under mpiexec -n 1, 2, 3 (tests/mpi/CMakeLists.txt), beside the bash
 * equivalence test (tests/mpi/equivalence.sh), which compares whole files between processes.
 *
 * What the protocol promises (docs/architecture.md, SPEC §3), and how each test checks it:
 *   - hand_fifo       four jobs on two 2-GPU nodes, one per rank: every start, finish and node
 *                     row is worked out by hand below (a gang across both ranks' nodes included)
 *   - same_jobs       /jobs identical whether the run has one rank (a sub-communicator holding
 *                     rank 0 alone) or the whole world, for a preempting and a fair-share policy
 *                     over many windows (engine.window_actions = 8)
 *   - actions_once    every start and stop reaches the node ranks exactly once: the GPU-seconds
 *                     the node ranks count equal those the coordinator accounts to the jobs, and
 *                     (FIFO: one start per job) the starts they count equal the placements' nodes
 *   - faults          node failures and repairs ([faults]) drawn on the node ranks cross to the
 *                     coordinator: the same jobs roll back on 1 and N ranks, failures happen on
 *                     nodes that ranks other than 0 own, and the job-side restarts add up
 *   - emulating       node_model.interference = 0.1: progress tracked by the nodes' owner ranks
 *                     gives the hand-worked finish times, and the same /jobs on 1 and N ranks
 * Every rank takes part in every run; checks come after a test's last collective call, so a failed
 * check on one rank cannot leave the others waiting. Outputs go to a folder under $DIKE_TEST_TMP. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dike/config.h"
#include "dike/results.h"
#include "dike/run.h"

static int rank, nranks;
static char tmpdir[512]; /* the same path on every rank (rank 0 creates it) */

/* ---- helpers ---- */

/* Defaults plus @p sets ("section.key=value", NULL-terminated); the keys are public and stable. */
static void config(dike_config *c, const char *const *sets)
{
    dike_err e = {0};
    dike_config_defaults(c);
    for (size_t i = 0; sets[i]; i++)
        if (dike_config_set(c, sets[i], "mpi_window", &e))
            fail_msg("%s: %s", sets[i], e.msg);
}

/* Rank 0 writes @p text to tmpdir/@p name; every rank gets the path. */
static void write_file(char *path, size_t n, const char *name, const char *text)
{
    snprintf(path, n, "%s/%s", tmpdir, name);
    if (rank == 0) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        assert_int_equal(fclose(f), 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Run @p c over @p comm writing tmpdir/@p name (NULL: no file); fails the test on an error (the
 * status is the same on every rank of @p comm, so every rank stops at the same place). */
static void run(const dike_config *c, MPI_Comm comm, const char *name, dike_results *r)
{
    char path[700] = "";
    dike_err e = {0};
    if (name)
        snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    memset(r, 0, sizeof *r);
    if (dike_run(c, comm, name ? path : NULL, r, NULL, &e))
        fail_msg("dike_run (%s): %s", name ? name : "no file", e.msg);
}

/* Run @p c once on rank 0 alone (a sub-communicator of size 1) into @p one, then on the whole
 * world into @p all; on the other ranks @p one stays empty. */
static void run_one_and_all(const dike_config *c, const char *name, dike_results *one, dike_results *all)
{
    char name1[128], nameN[128];
    snprintf(name1, sizeof name1, "%s-1.h5", name);
    snprintf(nameN, sizeof nameN, "%s-N.h5", name);
    MPI_Comm self;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &self);
    memset(one, 0, sizeof *one);
    if (rank == 0) {
        run(c, self, name1, one);
        MPI_Comm_free(&self);
    }
    run(c, MPI_COMM_WORLD, nameN, all);
}

/* Rank 0: the job rows of @p a and @p b are equal, field by field and bit for bit (doubles by
 * their bytes: -0.0 and NaN would count as different), and so are the nodes of each placement. */
static void assert_same_jobs(const dike_results *a, const dike_results *b, const char *what)
{
    assert_int_equal(a->njobs, b->njobs);
    assert_true(a->njobs > 0);
    for (size_t i = 0; i < a->njobs; i++) {
        const dike_job_record *x = &a->jobs[i], *y = &b->jobs[i];
        const double dx[] = {x->submit_time, x->start_time, x->finish_time, x->duration, x->jct,
                             x->queue_delay, x->t_ideal, x->rho, x->run_time, x->lost_work};
        const double dy[] = {y->submit_time, y->start_time, y->finish_time, y->duration, y->jct,
                             y->queue_delay, y->t_ideal, y->rho, y->run_time, y->lost_work};
        if (x->job_id != y->job_id || x->tenant != y->tenant || x->num_gpus != y->num_gpus ||
            x->preemptions != y->preemptions || x->migrations != y->migrations ||
            x->restarts != y->restarts || memcmp(dx, dy, sizeof dx) != 0 ||
            strcmp(x->gpu_type, y->gpu_type) != 0)
            fail_msg("%s: job row %zu (id %lld) differs: finish %.9f vs %.9f, preemptions %u vs %u",
                     what, i, (long long)x->job_id, x->finish_time, y->finish_time, x->preemptions,
                     y->preemptions);
    }
    assert_memory_equal(a->node_off, b->node_off, (a->njobs + 1) * sizeof *a->node_off);
    if (a->node_off[a->njobs] > 0)
        assert_memory_equal(a->node_ids, b->node_ids, a->node_off[a->njobs] * sizeof *a->node_ids);
}

/* The columns of /nodes these tests read (HDF5 converts by member name; docs/output-schema.md). */
typedef struct node_row {
    uint32_t node;
    double busy_gpu_seconds;
    uint32_t jobs_hosted;
    uint32_t failures;
} node_row;

/* Rank 0: read /nodes of tmpdir/@p name (malloc'd, *n rows). */
static node_row *read_nodes(const char *name, size_t *n)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t d = H5Dopen2(f, "/nodes", H5P_DEFAULT);
    assert_true(d >= 0);
    hid_t s = H5Dget_space(d);
    hsize_t dims[1] = {0};
    assert_int_equal(H5Sget_simple_extent_dims(s, dims, NULL), 1);
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(node_row));
    H5Tinsert(t, "node", offsetof(node_row, node), H5T_NATIVE_UINT32);
    H5Tinsert(t, "busy_gpu_seconds", offsetof(node_row, busy_gpu_seconds), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "jobs_hosted", offsetof(node_row, jobs_hosted), H5T_NATIVE_UINT32);
    H5Tinsert(t, "failures", offsetof(node_row, failures), H5T_NATIVE_UINT32);
    node_row *rows = calloc(dims[0] ? dims[0] : 1, sizeof *rows);
    assert_non_null(rows);
    assert_true(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0);
    H5Tclose(t);
    H5Sclose(s);
    H5Dclose(d);
    H5Fclose(f);
    *n = dims[0];
    return rows;
}

static void free_both(dike_results *a, dike_results *b)
{
    dike_results_free(a);
    dike_results_free(b);
}

/* ---- tests ---- */

/* Four jobs, FIFO, two nodes of 2 GPUs in racks of one node, so that with 2 ranks each rank owns
 * one node (3 ranks: rank 0 owns none, ranks 1 and 2 one each). Locality factors 1: placement
 * does not change run times. Worked out by hand:
 *   job 1  4 GPUs, submit 0,  100 s: the only job, takes both nodes (a gang across two ranks), 0..100
 *   job 2  2 GPUs, submit 10,  50 s: waits for job 1; at 100 one node, 100..150
 *   job 3  2 GPUs, submit 20,  30 s: the other node, 100..130
 *   job 4  1 GPU,  submit 25,   5 s: nothing free until job 3 ends; job 3's node, 130..135
 * Nodes: job 2's node holds 2 x 100 + 2 x 50 = 300 GPU-s over 2 starts (jobs 1, 2); the other
 * 2 x 100 + 2 x 30 + 1 x 5 = 265 GPU-s over 3 starts (jobs 1, 3, 4). */
static void test_hand_fifo(void **state)
{
    char trace[600], set_trace[700];
    write_file(trace, sizeof trace, "hand.csv",
               "job_id,tenant,submit_time,num_gpus,duration\n"
               "1,alice,0,4,100\n2,bob,10,2,50\n3,alice,20,2,30\n4,carol,25,1,5\n");
    snprintf(set_trace, sizeof set_trace, "workload.trace=%s", trace);
    const char *const sets[] = {set_trace, "cluster.nodes=2", "cluster.gpus_per_node=2",
                                "cluster.nodes_per_rack=1", "cluster.locality_rack=1",
                                "cluster.locality_cross_rack=1", "scheduler.policy=fifo", NULL};
    dike_config c;
    config(&c, sets);
    dike_results one, all;
    run_one_and_all(&c, "hand", &one, &all);
    if (rank != 0)
        return;

    static const struct { int64_t id; double submit, start, finish; } want[] = {
        {1, 0, 0, 100}, {2, 10, 100, 150}, {3, 20, 100, 130}, {4, 25, 130, 135}};
    assert_int_equal(all.njobs, 4);
    for (size_t i = 0; i < 4; i++) {
        const dike_job_record *j = &all.jobs[i];
        assert_int_equal(j->job_id, want[i].id);
        assert_float_equal(j->submit_time, want[i].submit, 1e-6);
        assert_float_equal(j->start_time, want[i].start, 1e-6);
        assert_float_equal(j->finish_time, want[i].finish, 1e-6);
        assert_float_equal(j->jct, want[i].finish - want[i].submit, 1e-6);
        assert_float_equal(j->queue_delay, want[i].start - want[i].submit, 1e-6);
        assert_int_equal(j->preemptions, 0);
    }
    /* job 1 on both nodes; jobs 2 and 3 on different nodes; job 4 on job 3's node */
    assert_int_equal(all.node_off[1] - all.node_off[0], 2);
    assert_int_equal(all.node_off[2] - all.node_off[1], 1);
    assert_int_equal(all.node_off[3] - all.node_off[2], 1);
    assert_int_equal(all.node_off[4] - all.node_off[3], 1);
    uint32_t n2 = all.node_ids[all.node_off[1]], n3 = all.node_ids[all.node_off[2]];
    assert_int_not_equal(n2, n3);
    assert_int_equal(all.node_ids[all.node_off[3]], n3);
    assert_float_equal(all.summary.makespan, 150, 1e-6); /* last finish (job 2) - first submit */
    assert_float_equal(all.summary.allocated_gpu_seconds, 565, 1e-6);

    size_t nn = 0;
    node_row *rows = read_nodes("hand-N.h5", &nn);
    assert_int_equal(nn, 2);
    assert_int_equal(rows[n2].node, n2);
    assert_float_equal(rows[n2].busy_gpu_seconds, 300, 1e-6);
    assert_int_equal(rows[n2].jobs_hosted, 2);
    assert_float_equal(rows[n3].busy_gpu_seconds, 265, 1e-6);
    assert_int_equal(rows[n3].jobs_hosted, 3);
    free(rows);
    assert_same_jobs(&one, &all, "hand-worked FIFO");
    free_both(&one, &all);
}

/* A contended synthetic workload (load 2, 24 nodes in racks of 4, 400 jobs of 3 tenants) that
 * ends a window once 8 actions are buffered (checked after each timestamp): every start sends at
 * least one action (one per node of the job), so 400 starts alone make dozens of windows (the test
 * asks for 20). SRTF preempts (stops and restarts cross the protocol); Dike preempts across
 * tenants. */
static const char *const contended[] = {
    "workload.jobs=400", "workload.load=2", "workload.tenants=3", "cluster.nodes=24",
    "cluster.nodes_per_rack=4", "engine.window_actions=8", "run.seed=11", NULL};

static void same_jobs_for(const char *policy)
{
    char set_policy[64];
    snprintf(set_policy, sizeof set_policy, "scheduler.policy=%s", policy);
    dike_config c;
    config(&c, contended);
    dike_err e = {0};
    if (dike_config_set(&c, set_policy, "mpi_window", &e))
        fail_msg("%s", e.msg);
    dike_results one, all;
    run_one_and_all(&c, policy, &one, &all);
    if (rank != 0)
        return;
    /* the protocol was exercised: preemptions happened, and (on N ranks) every rank's perf row
     * counts the same collective windows, many of them */
    assert_true(all.summary.preemptions > 0);
    assert_int_equal(all.nperf, (size_t)nranks);
    for (size_t i = 0; i < all.nperf; i++)
        assert_int_equal(all.perf[i].windows, all.perf[0].windows);
    if (nranks > 1)
        assert_true(all.perf[0].windows >= 20);
    assert_int_equal(all.summary.finished, 400);
    assert_same_jobs(&one, &all, policy);
    free_both(&one, &all);
}

static void test_same_jobs_srtf(void **state) { same_jobs_for("srtf"); }
static void test_same_jobs_dike(void **state) { same_jobs_for("dike"); }

/* Every action reaches the nodes once. The coordinator accounts each job's GPU-seconds
 * (num_gpus x run_time, preemption cost included); the node ranks count theirs from the start
 * and stop actions they apply. A lost action would leave node GPU-seconds short, a doubled one
 * would add some. Under FIFO (no preemption) each job starts once, so the starts the nodes count
 * equal the nodes of the jobs' placements. */
static void actions_once_for(const char *policy)
{
    char set_policy[64], name[64];
    snprintf(set_policy, sizeof set_policy, "scheduler.policy=%s", policy);
    snprintf(name, sizeof name, "once-%s.h5", policy);
    dike_config c;
    config(&c, contended);
    dike_err e = {0};
    if (dike_config_set(&c, set_policy, "mpi_window", &e))
        fail_msg("%s", e.msg);
    dike_results all;
    run(&c, MPI_COMM_WORLD, name, &all);
    if (rank != 0)
        return;
    double jobs_gpu_s = 0;
    for (size_t i = 0; i < all.njobs; i++)
        jobs_gpu_s += all.jobs[i].num_gpus * all.jobs[i].run_time;
    size_t nn = 0;
    node_row *rows = read_nodes(name, &nn);
    assert_int_equal(nn, 24);
    double nodes_gpu_s = 0;
    uint64_t starts = 0;
    for (size_t i = 0; i < nn; i++) {
        nodes_gpu_s += rows[i].busy_gpu_seconds;
        starts += rows[i].jobs_hosted;
    }
    free(rows);
    assert_true(jobs_gpu_s > 0);
    if (fabs(nodes_gpu_s - jobs_gpu_s) > 1e-9 * jobs_gpu_s)
        fail_msg("%s: the nodes count %.6f GPU-s, the jobs %.6f", policy, nodes_gpu_s, jobs_gpu_s);
    assert_float_equal(all.summary.allocated_gpu_seconds, jobs_gpu_s, 1e-9 * jobs_gpu_s);
    if (strcmp(policy, "fifo") == 0)
        assert_int_equal(starts, all.node_off[all.njobs]);
    else
        assert_true(starts > all.node_off[all.njobs]); /* resumes are starts too */
    dike_results_free(&all);
}

static void test_actions_once_fifo(void **state) { actions_once_for("fifo"); }
static void test_actions_once_srtf(void **state) { actions_once_for("srtf"); }

/* Failures and repairs. With 24 nodes, an MTBF of 20,000 s per node and a makespan of well over
 * 100,000 s (400 jobs at load 2 on 192 GPUs), each node expects several failures, so the nodes of
 * every rank fail (the chance that the 18 nodes of ranks other than 0 see none is below e^-90).
 * The failures are keyed per node, not per rank: the same jobs roll back on 1 and N ranks. */
static void test_faults(void **state)
{
    dike_config c;
    config(&c, contended);
    const char *const more[] = {"faults.mtbf_s=20000", "faults.mttr_s=3600", "scheduler.policy=dike", NULL};
    dike_err e = {0};
    for (size_t i = 0; more[i]; i++)
        if (dike_config_set(&c, more[i], "mpi_window", &e))
            fail_msg("%s", e.msg);
    dike_results one, all;
    run_one_and_all(&c, "faults", &one, &all);
    if (rank != 0)
        return;
    assert_true(all.summary.makespan > 100000);
    assert_int_equal(all.summary.finished, 400);
    uint64_t restarts = 0;
    for (size_t i = 0; i < all.njobs; i++)
        restarts += all.jobs[i].restarts;
    assert_true(restarts > 0);
    assert_int_equal(restarts, all.summary.restarts);
    assert_true(all.summary.lost_work > 0);

    /* which nodes rank 0 owns: blocks are contiguous in rank order (perf rows give their sizes) */
    assert_int_equal(all.nperf, (size_t)nranks);
    uint32_t rank0_nodes = all.perf[0].nodes_owned;
    size_t nn = 0, n1 = 0;
    node_row *rows = read_nodes("faults-N.h5", &nn), *rows1 = read_nodes("faults-1.h5", &n1);
    assert_int_equal(nn, 24);
    assert_int_equal(n1, 24);
    uint64_t off_rank0 = 0;
    for (size_t i = 0; i < nn; i++) {
        assert_int_equal(rows[i].failures, rows1[i].failures); /* keyed per node */
        if (rows[i].node >= rank0_nodes)
            off_rank0 += rows[i].failures;
    }
    free(rows);
    free(rows1);
    if (nranks > 1)
        assert_true(off_rank0 > 0);
    assert_same_jobs(&one, &all, "faults");
    free_both(&one, &all);
}

/* The emulating mode: node_model.interference = 0.1 makes the node ranks track progress.
 * Two nodes of 2 GPUs in racks of one node (one node per rank on 2 ranks), FIFO, pack:
 *   job 1  1 GPU, 100 s and job 2  1 GPU, 100 s, both at 0: pack puts them on one node, each
 *          with one neighbour: speed 1 / 1.1, both end at 110
 *   job 3  2 GPUs, 50 s, at 0: the other node, alone: 0..50
 *   job 4  2 GPUs, 20 s, at 60: job 3's node, alone again: 60..80
 * The finish times are rounded up to the microsecond (docs/models.md). */
static void test_emulating(void **state)
{
    char trace[600], set_trace[700];
    write_file(trace, sizeof trace, "emul.csv",
               "job_id,tenant,submit_time,num_gpus,duration\n"
               "1,a,0,1,100\n2,b,0,1,100\n3,a,0,2,50\n4,b,60,2,20\n");
    snprintf(set_trace, sizeof set_trace, "workload.trace=%s", trace);
    const char *const sets[] = {set_trace, "cluster.nodes=2", "cluster.gpus_per_node=2",
                                "cluster.nodes_per_rack=1", "node_model.interference=0.1",
                                "scheduler.policy=fifo", NULL};
    dike_config c;
    config(&c, sets);
    dike_results one, all;
    run_one_and_all(&c, "emul", &one, &all);
    /* and a contended workload with interference, over many windows */
    dike_config c2;
    config(&c2, contended);
    dike_err e = {0};
    if (dike_config_set(&c2, "node_model.interference=0.1", "mpi_window", &e) ||
        dike_config_set(&c2, "scheduler.policy=las", "mpi_window", &e))
        fail_msg("%s", e.msg);
    dike_results one2, all2;
    run_one_and_all(&c2, "emul-big", &one2, &all2);
    if (rank != 0)
        return;

    static const double finish[] = {110, 110, 50, 80};
    assert_int_equal(all.njobs, 4);
    for (size_t i = 0; i < 4; i++)
        assert_float_equal(all.jobs[i].finish_time, finish[i], 2e-6);
    assert_int_equal(all.node_ids[all.node_off[0]], all.node_ids[all.node_off[1]]);
    assert_int_equal(all.node_ids[all.node_off[2]], all.node_ids[all.node_off[3]]);
    assert_same_jobs(&one, &all, "emulating, hand-worked");

    /* interference slowed some jobs: a run time longer than its duration */
    size_t slowed = 0;
    for (size_t i = 0; i < all2.njobs; i++)
        slowed += all2.jobs[i].run_time > all2.jobs[i].duration + 1e-6 && all2.jobs[i].preemptions == 0;
    assert_true(slowed > 0);
    assert_int_equal(all2.summary.finished, 400);
    assert_same_jobs(&one2, &all2, "emulating, contended");
    free_both(&one, &all);
    free_both(&one2, &all2);
}

/* ---- set-up ---- */

static int make_tmpdir(void **state)
{
    if (rank == 0) {
        const char *root = getenv("DIKE_TEST_TMP");
        snprintf(tmpdir, sizeof tmpdir, "%s/mpi_window.XXXXXX", root && *root ? root : "/tmp");
        char cmd[600];
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", root && *root ? root : "/tmp");
        if (system(cmd) != 0 || !mkdtemp(tmpdir))
            tmpdir[0] = '\0';
    }
    MPI_Bcast(tmpdir, sizeof tmpdir, MPI_CHAR, 0, MPI_COMM_WORLD);
    return tmpdir[0] ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && tmpdir[0] && !getenv("DIKE_KEEP_TMP")) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0)
            return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_fifo),
        cmocka_unit_test(test_same_jobs_srtf),
        cmocka_unit_test(test_same_jobs_dike),
        cmocka_unit_test(test_actions_once_fifo),
        cmocka_unit_test(test_actions_once_srtf),
        cmocka_unit_test(test_faults),
        cmocka_unit_test(test_emulating),
    };
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int failed = cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
    /* mpiexec reports the first non-zero status; make every rank report a failure anywhere */
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any ? 1 : 0;
}
