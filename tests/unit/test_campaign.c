/* Campaign grids (src/campaign/grid.c): expansion order, point names, shorthands, relative paths,
 * quoted values and ranges, blocks, --set overrides, point selections, the "complete output" test
 * of resume, and one error per class with "FILE:LINE: " in front; point states from run records
 * (src/campaign/manifest.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "campaign/campaign_internal.h"
#include "dike/campaign.h"
#include "dike/provenance.h"
#include "dike/run.h"

static char tmpdir[64];

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/dike-test-campaign-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    return 0;
}

static int teardown(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Write @p text to <tmpdir>/<name>; returns the path (static buffer, valid until the next call). */
static const char *write_grid(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void load_ok(dike_grid *g, const char *text, const char *const *sets, size_t nsets)
{
    dike_err e = {0};
    const char *path = write_grid("grid.ini", text);
    if (dike_grid_load(g, path, sets, nsets, &e))
        fail_msg("grid did not load: %s", e.msg);
}

static void point_cfg(const dike_grid *g, size_t i, dike_config *c)
{
    dike_err e = {0};
    if (dike_grid_point_config(g, i, c, &e))
        fail_msg("point %zu: %s", i, e.msg);
}

static void expect_name(const dike_grid *g, size_t i, const char *want)
{
    char name[DIKE_GRID_POINT_NAME_MAX];
    dike_grid_point_name(g, i, name, sizeof name);
    assert_string_equal(name, want);
}

/* The documented order: axes in file order, the last one varying fastest; 0-based indices. */
static void test_expansion_order(void **state)
{
    dike_grid g;
    load_ok(&g,
            "[campaign]\nname = t\nout_dir = res/t\n"
            "[workload]\njobs = 50\n"
            "[sweep]\npolicy = fifo, las\nload = 0.6, 0.9\nseed = 1..3\n",
            NULL, 0);
    assert_int_equal(g.npoints, 12);
    assert_int_equal(g.nblocks, 1);
    const char *pol[] = {"fifo", "las"};
    const double load[] = {0.6, 0.9};
    dike_config c;
    for (size_t i = 0; i < 12; i++) {
        point_cfg(&g, i, &c);
        assert_string_equal(c.scheduler_policy, pol[i / 6]);
        assert_true(c.workload_load == load[(i / 3) % 2]);
        assert_int_equal(c.run_seed, (int64_t)(i % 3 + 1));
        assert_int_equal(c.workload_jobs, 50);
        assert_int_equal(dike_grid_coord(&g, i, 0), i / 6);
        assert_int_equal(dike_grid_coord(&g, i, 2), i % 3);
    }
    expect_name(&g, 0, "t-0000-policy=fifo-load=0.6-seed=1");
    expect_name(&g, 1, "t-0001-policy=fifo-load=0.6-seed=2");
    expect_name(&g, 3, "t-0003-policy=fifo-load=0.9-seed=1");
    expect_name(&g, 11, "t-0011-policy=las-load=0.9-seed=3");
    char out[2048];
    dike_grid_point_output(&g, 11, out, sizeof out);
    assert_string_equal(out, "res/t/t-0011-policy=las-load=0.9-seed=3.h5");
    point_cfg(&g, 11, &c);
    assert_string_equal(c.run_out, out);
    dike_grid_point_axes(&g, 4, out, sizeof out);
    assert_string_equal(out, "policy=fifo load=0.9 seed=2");
    dike_grid_free(&g);
}

/* Blocks are concatenated in file order; a full key appears in names without its section. */
static void test_blocks(void **state)
{
    dike_grid g;
    load_ok(&g,
            "[sweep]\npolicy = fifo, sjf, srtf\n"
            "[sweep:dike]\npolicy = dike\ndike.fairness_weight = 0, 0.5, 1\n"
            "[campaign]\nname = b\n",
            NULL, 0);
    assert_int_equal(g.npoints, 6);
    assert_int_equal(g.nblocks, 2);
    assert_int_equal(g.blocks[1].first, 3);
    assert_string_equal(g.blocks[1].name, "dike");
    assert_string_equal(g.out_dir, "results/b");
    expect_name(&g, 2, "b-0002-policy=srtf");
    expect_name(&g, 3, "b-0003-policy=dike-fairness_weight=0");
    expect_name(&g, 5, "b-0005-policy=dike-fairness_weight=1");
    dike_config c;
    point_cfg(&g, 4, &c);
    char w[32];
    assert_string_equal(c.scheduler_policy, "dike");
    assert_int_equal(dike_config_get(&c, "dike", "fairness_weight", w, sizeof w), 0);
    assert_string_equal(w, "0.5");
    /* A point of the first block keeps the base value of keys only the second block sweeps (here
     * the default, 1). */
    point_cfg(&g, 0, &c);
    assert_int_equal(dike_config_get(&c, "dike", "fairness_weight", w, sizeof w), 0);
    assert_string_equal(w, "1");
    assert_string_equal(c.scheduler_policy, "fifo");
    dike_grid_free(&g);
}

/* Without [sweep] a grid is one point; without [campaign] the name is the file's. */
static void test_defaults_and_single_point(void **state)
{
    dike_grid g;
    load_ok(&g, "[cluster]\nnodes = 8\n", NULL, 0);
    assert_int_equal(g.npoints, 1);
    assert_string_equal(g.name, "grid");
    assert_string_equal(g.out_dir, "results/grid");
    assert_int_equal(g.ranks_per_run, 1);
    expect_name(&g, 0, "grid-0000");
    char axes[64];
    dike_grid_point_axes(&g, 0, axes, sizeof axes);
    assert_string_equal(axes, "(base)");
    dike_grid_free(&g);
}

/* load means workload.load for a synthetic workload and workload.trace_load for a trace. */
static void test_load_shorthand(void **state)
{
    dike_grid g;
    dike_config c;
    load_ok(&g, "[sweep]\nload = 0.5, 2\n", NULL, 0);
    assert_string_equal(g.blocks[0].axes[0].key, "workload.load");
    point_cfg(&g, 1, &c);
    assert_true(c.workload_load == 2);
    dike_grid_free(&g);

    load_ok(&g, "[workload]\ntrace = week.csv\n[sweep]\nload = 0.5, 2\n", NULL, 0);
    assert_string_equal(g.blocks[0].axes[0].key, "workload.trace_load");
    point_cfg(&g, 0, &c);
    assert_true(c.workload_trace_load == 0.5);
    dike_grid_free(&g);
}

/* Relative trace paths are relative to the grid's folder; names show the file name only. */
static void test_relative_paths(void **state)
{
    dike_grid g;
    dike_config c;
    char want[512];
    load_ok(&g, "[workload]\ntrace = data/week.csv\n", NULL, 0);
    snprintf(want, sizeof want, "%s/data/week.csv", tmpdir);
    assert_string_equal(g.base.workload_trace, want);
    dike_grid_free(&g);

    load_ok(&g, "[campaign]\nname = p\n[sweep]\nworkload.trace = a.csv, /abs/b.csv, \"\", \"x.csv,y.csv\"\n",
            NULL, 0);
    point_cfg(&g, 0, &c);
    snprintf(want, sizeof want, "%s/a.csv", tmpdir);
    assert_string_equal(c.workload_trace, want);
    point_cfg(&g, 1, &c);
    assert_string_equal(c.workload_trace, "/abs/b.csv");
    point_cfg(&g, 2, &c);
    assert_string_equal(c.workload_trace, "");
    point_cfg(&g, 3, &c);
    snprintf(want, sizeof want, "%s/x.csv,%s/y.csv", tmpdir, tmpdir);
    assert_string_equal(c.workload_trace, want);
    expect_name(&g, 0, "p-0000-trace=a");
    expect_name(&g, 1, "p-0001-trace=b");
    expect_name(&g, 2, "p-0002-trace=synthetic");
    expect_name(&g, 3, "p-0003-trace=x+y");
    dike_grid_free(&g);
}

/* Quoted values keep their commas; names replace unsafe characters with '_'. */
static void test_quotes_and_sanitising(void **state)
{
    dike_grid g;
    dike_config c;
    load_ok(&g,
            "[campaign]\nname = q\n[cluster]\nnodes = 16\n"
            "[sweep]\ncluster.gpu_types = \"v100:8,a100:8\", \"v100:16\"\nseed = 7\n",
            NULL, 0);
    assert_int_equal(g.npoints, 2);
    point_cfg(&g, 0, &c);
    assert_string_equal(c.cluster_gpu_types, "v100:8,a100:8");
    expect_name(&g, 0, "q-0000-gpu_types=v100_8_a100_8-seed=7");
    expect_name(&g, 1, "q-0001-gpu_types=v100_16-seed=7");
    dike_grid_free(&g);
}

/* --set applies to every point after its axes; names still show the axes. */
static void test_set_overrides(void **state)
{
    dike_grid g;
    dike_config c;
    const char *sets[] = {"workload.jobs=77", "scheduler.policy=sjf"};
    load_ok(&g, "[campaign]\nname = s\n[sweep]\npolicy = fifo, las\n", sets, 2);
    point_cfg(&g, 1, &c);
    assert_int_equal(c.workload_jobs, 77);
    assert_string_equal(c.scheduler_policy, "sjf");
    expect_name(&g, 1, "s-0001-policy=las");
    dike_grid_free(&g);

    dike_err e = {0};
    const char *bad[] = {"run.out=x.h5"};
    const char *path = write_grid("grid.ini", "[sweep]\nseed = 1\n");
    assert_int_equal(dike_grid_load(&g, path, bad, 1, &e), DIKE_EINVAL);
    assert_non_null(strstr(e.msg, "--set 'run.out=x.h5'"));
    const char *unknown[] = {"dike.nope=1"};
    assert_int_equal(dike_grid_load(&g, path, unknown, 1, &e), DIKE_EINVAL);
    assert_non_null(strstr(e.msg, "unknown key"));
}

/* Load @p text; expect DIKE_EINVAL and a message starting "PATH:LINE: " (line > 0) or "PATH: "
 * (line 0) that holds both fragments. */
static void expect_error(const char *text, int line, const char *frag1, const char *frag2)
{
    dike_grid g;
    dike_err e = {0};
    char where[512];
    const char *path = write_grid("bad.ini", text);
    assert_int_equal(dike_grid_load(&g, path, NULL, 0, &e), DIKE_EINVAL);
    if (line)
        snprintf(where, sizeof where, "%s:%d: ", path, line);
    else
        snprintf(where, sizeof where, "%s: ", path);
    if (strncmp(e.msg, where, strlen(where)) != 0)
        fail_msg("message '%s' does not start with '%s'", e.msg, where);
    if (!strstr(e.msg, frag1) || (frag2 && !strstr(e.msg, frag2)))
        fail_msg("message '%s' lacks '%s' / '%s'", e.msg, frag1, frag2 ? frag2 : "");
    assert_int_equal(g.npoints, 0); /* nothing half-loaded */
}

static void test_errors(void **state)
{
    expect_error("[sweep]\npolicy = fifo\nfoo = 1\n", 3, "[sweep] foo: unknown axis", "policy, placement, load, seed");
    expect_error("[sweep]\ndike.fairness_wieght = 1\n", 2, "[dike] fairness_wieght: unknown key", "keys of [dike]");
    expect_error("[sweep]\npolicy = fifo, nope\n", 2, "[scheduler] policy: unknown policy", "(got 'nope')");
    expect_error("[sweep]\ndike.fairness_weight = 0, 2\n", 2, "[dike] fairness_weight: must be in", "(got '2')");
    expect_error("[sweep]\nseed = 1\nseed = 2\n", 3, "[sweep] seed: axis already given at line 2", NULL);
    expect_error("[sweep]\nseed = 1, 2, 1\n", 2, "[sweep] seed: value '1' is listed twice", NULL);
    expect_error("[sweep]\nseed = 1,,2\n", 2, "empty value", NULL);
    expect_error("[sweep]\nseed =\n", 2, "[sweep] seed: no values", NULL);
    expect_error("[sweep]\nseed = 5..1\n", 2, "range 5..1 is empty", NULL);
    expect_error("[sweep]\ncluster.gpu_types = \"v100:8\n", 2, "unclosed", NULL);
    expect_error("[sweep]\npolicy = fifo\nscheduler.policy = las\n", 3, "sets scheduler.policy, like the axis 'policy' at line 2", NULL);
    expect_error("[sweep]\nrun.out = a.h5\n", 2, "[sweep] run.out", "out_dir");
    expect_error("[sweep:]\nseed = 1\n", 2, "block name", NULL);
    expect_error("[campaign]\nname = ok\nfoo = 1\n", 3, "[campaign] foo: unknown key", "name, out_dir, ranks_per_run");
    expect_error("[campaign]\nname = has space\n", 2, "[campaign] name", NULL);
    expect_error("[campaign]\nranks_per_run = 0\n", 2, "[campaign] ranks_per_run", NULL);
    expect_error("[run]\nseed = 3\nout = x.h5\n", 3, "[run] out", "out_dir");
    expect_error("[swep]\nseed = 1\n", 2, "unknown section 'swep'", "campaign, sweep");
    expect_error("\n[cluster]\nnodes = many\n", 3, "[cluster] nodes", "(got 'many')");
    expect_error("[sweep]\npolicy = fifo, las\nseed = 1..100000\n", 0, "more than 100000 points", NULL);
    expect_error("seed = 1\n", 1, "key outside any [section]", NULL);
    expect_error("[sweep]\nseed 1\n", 2, "syntax error", NULL);
    /* Cross-key checks run on every point: the message names the point instead of a line. */
    expect_error("[cluster]\nnodes = 16\n[sweep]\ncluster.gpu_types = \"v100:16\", \"v100:8\"\n", 0,
                 "point 1 (cluster.gpu_types=v100:8)", "[cluster] gpu_types");
    dike_grid g;
    dike_err e = {0};
    assert_int_equal(dike_grid_load(&g, "/nonexistent/grid.ini", NULL, 0, &e), DIKE_EIO);
    assert_non_null(strstr(e.msg, "/nonexistent/grid.ini: cannot open"));
}

static void test_selection(void **state)
{
    bool sel[10];
    dike_err e = {0};
    assert_int_equal(dike_grid_parse_selection("3", 10, sel, &e), 1);
    assert_true(sel[3] && !sel[2] && !sel[4]);
    assert_int_equal(dike_grid_parse_selection("0, 2..4,7-9,3", 10, sel, &e), 7);
    assert_true(sel[0] && !sel[1] && sel[2] && sel[3] && sel[4] && !sel[5] && !sel[6] && sel[7] && sel[9]);
    assert_true(dike_grid_parse_selection("10", 10, sel, &e) < 0);
    assert_non_null(strstr(e.msg, "point 10 does not exist (the grid has 10 points, 0..9)"));
    assert_true(dike_grid_parse_selection("x", 10, sel, &e) < 0);
    assert_true(dike_grid_parse_selection("4..2", 10, sel, &e) < 0);
    assert_true(dike_grid_parse_selection("-1", 10, sel, &e) < 0);
    assert_true(dike_grid_parse_selection("", 10, sel, &e) < 0);
}

static void test_list(void **state)
{
    dike_grid g;
    load_ok(&g, "[campaign]\nname = l\nout_dir = o/\n[sweep]\npolicy = fifo, las\n", NULL, 0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    dike_grid_print_list(&g, f);
    fclose(f);
    assert_non_null(strstr(text, "# campaign: l\n"));
    assert_non_null(strstr(text, "# out_dir: o/\n"));
    assert_non_null(strstr(text, "# points: 2\n"));
    assert_non_null(strstr(text, "\n0\to/l-0000-policy=fifo.h5\tpolicy=fifo\n1\to/l-0001-policy=las.h5\tpolicy=las\n"));
    free(text);
    dike_grid_free(&g);
}

/* Resume's test of an output: a real output is complete; missing, garbage, truncated are not. */
static void test_output_complete(void **state)
{
    char path[256], bad[256], cmd[700];
    snprintf(path, sizeof path, "%s/run.h5", tmpdir);
    snprintf(bad, sizeof bad, "%s/bad.h5", tmpdir);
    assert_false(dike_campaign_output_complete(path, NULL, NULL, NULL));

    dike_config c;
    dike_results r;
    dike_err e = {0};
    dike_config_defaults(&c);
    c.workload_jobs = 50;
    c.cluster_nodes = 8;
    if (dike_run(&c, MPI_COMM_WORLD, path, &r, NULL, &e))
        fail_msg("dike_run: %s", e.msg);
    dike_results_free(&r);
    double wall = -1;
    int ranks = 0;
    char source[65] = "x";
    assert_true(dike_campaign_output_complete(path, &wall, &ranks, source));
    assert_true(wall >= 0);
    assert_int_equal(ranks, 1);
    dike_provenance p;
    dike_provenance_get(&p);
    assert_int_equal(strlen(p.source_sha256), 64);
    assert_string_equal(source, p.source_sha256); /* the output's source_sha256: this library's */

    FILE *f = fopen(bad, "w");
    fputs("not an HDF5 file\n", f);
    fclose(f);
    assert_false(dike_campaign_output_complete(bad, NULL, NULL, NULL));
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    snprintf(cmd, sizeof cmd, "head -c %lld '%s' > '%s'", (long long)sb.st_size / 2, path, bad);
    assert_int_equal(system(cmd), 0);
    assert_false(dike_campaign_output_complete(bad, NULL, NULL, NULL));
    assert_false(dike_campaign_output_complete(tmpdir, NULL, NULL, NULL)); /* a folder */
}

/* Point states from run records, as `--status` derives them: a RUNNING record of a live process
 * stays RUNNING, of a process that is gone becomes FAILED; FAILED and TIMEOUT records are taken
 * as they are (the error read back byte for byte: UTF-8 and a control character round-trip, a
 * byte that is not UTF-8 becomes U+FFFD); no record is PENDING. --status writes no manifest. */
static void test_run_records(void **state)
{
    char text[512], dir[128];
    snprintf(dir, sizeof dir, "%s/rr", tmpdir);
    snprintf(text, sizeof text, "[campaign]\nname = rr\nout_dir = %s\n[sweep]\nseed = 1..5\n", dir);
    dike_grid g;
    load_ok(&g, text, NULL, 0);
    assert_int_equal(mkdir(dir, 0777), 0);
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    assert_true(child > 0);
    assert_int_equal(waitpid(child, NULL, 0), child); /* reaped: that pid is gone */

    dike_point_result r;
    dike_err e = {0};
    const struct { int status, pid; const char *error, *task; } recs[4] = {
        {DIKE_POINT_RUNNING, (int)getpid(), "", ""},
        {DIKE_POINT_RUNNING, (int)child, "", ""},
        {DIKE_POINT_FAILED, 0, "na\xc3\xafve \x01 \xff end", ""},
        {DIKE_POINT_TIMEOUT, 0, "stopped on request", "3"},
    };
    for (size_t i = 0; i < 4; i++) {
        memset(&r, 0, sizeof r);
        r.status = recs[i].status;
        r.pid = recs[i].pid;
        r.wall_seconds = -1;
        gethostname(r.host, sizeof r.host - 1);
        snprintf(r.error, sizeof r.error, "%s", recs[i].error);
        if (recs[i].task[0]) {
            snprintf(r.slurm.job_id, sizeof r.slurm.job_id, "15");
            snprintf(r.slurm.array_job_id, sizeof r.slurm.array_job_id, "12");
            snprintf(r.slurm.array_task_id, sizeof r.slurm.array_task_id, "%s", recs[i].task);
        }
        if (dike_record_write(&g, i, &r, &e))
            fail_msg("record %zu: %s", i, e.msg);
    }
    char *out = NULL;
    size_t outlen = 0;
    FILE *f = open_memstream(&out, &outlen);
    dike_campaign_stats st;
    assert_int_equal(dike_campaign_status(&g, f, false, &st, &e), 0);
    fclose(f);
    assert_int_equal(st.state[DIKE_POINT_RUNNING], 1);
    assert_int_equal(st.state[DIKE_POINT_FAILED], 2);
    assert_int_equal(st.state[DIKE_POINT_TIMEOUT], 1);
    assert_int_equal(st.state[DIKE_POINT_PENDING], 1);
    assert_int_equal(st.state[DIKE_POINT_COMPLETED], 0);
    assert_non_null(strstr(out, "\n0\tRUNNING\t-\t"));
    assert_non_null(strstr(out, "\n1\tFAILED\t-\t"));
    assert_non_null(strstr(out, "ended without recording how"));
    assert_non_null(strstr(out, "\tna\xc3\xafve \x01 \xef\xbf\xbd end\n"));
    assert_non_null(strstr(out, "\n3\tTIMEOUT\t12_3\t"));
    assert_non_null(strstr(out, "\n4\tPENDING\t-\t"));
    free(out);
    char manifest[256];
    snprintf(manifest, sizeof manifest, "%s/campaign.json", dir);
    assert_int_not_equal(access(manifest, F_OK), 0);
    dike_grid_free(&g);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expansion_order),
        cmocka_unit_test(test_blocks),
        cmocka_unit_test(test_defaults_and_single_point),
        cmocka_unit_test(test_load_shorthand),
        cmocka_unit_test(test_relative_paths),
        cmocka_unit_test(test_quotes_and_sanitising),
        cmocka_unit_test(test_set_overrides),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_selection),
        cmocka_unit_test(test_list),
        cmocka_unit_test(test_output_complete),
        cmocka_unit_test(test_run_records),
    };
    MPI_Init(&argc, &argv);
    int rc = cmocka_run_group_tests(tests, setup, teardown);
    MPI_Finalize();
    return rc;
}
