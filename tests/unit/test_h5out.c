/* HDF5 output: round trip of every dataset and attribute through the plain HDF5 API, the
 * temporary-name + rename guarantee, and the failure paths (nothing left behind). One rank. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <hdf5.h>
#include "dike/outpath.h"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dike/provenance.h"
#include "dike/results.h"
#include "io/h5chunks.h"
#include "io/h5types.h"
#include <zlib.h>

#define NNODES 5

typedef struct fixture {
    char dir[256];               /**< fresh folder of this test */
    char path[320];              /**< <dir>/out.h5 */
    dike_results r;
    dike_node_record nodes[NNODES];
    dike_perf_record perf;
} fixture;

/* ---------------------------------------------------------------------------------------------- */

static void fill_results(dike_results *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->meta.version, sizeof r->meta.version, "%s", DIKE_VERSION);
    snprintf(r->meta.policy, sizeof r->meta.policy, "themis");
    snprintf(r->meta.placement, sizeof r->meta.placement, "pack");
    r->meta.seed = -1234567890123LL;
    r->meta.ranks = 7;
    r->meta.config_text = dike_xstrdup("[cluster]\nnodes = 5\ngpus_per_node = 8\n\n[run]\nseed = 42\n");
    snprintf(r->meta.trace_path, sizeof r->meta.trace_path, "/data/traces/philly.csv");
    snprintf(r->meta.trace_sha256, sizeof r->meta.trace_sha256, "%064d", 0);
    memcpy(r->meta.trace_sha256, "deadbeef", 8);
    r->meta.wall_seconds = 12.5;

    r->njobs = 3;
    r->jobs = dike_xcalloc(r->njobs, sizeof *r->jobs);
    for (size_t i = 0; i < r->njobs; i++) {
        dike_job_record *j = &r->jobs[i];
        j->job_id = 1000 + (int64_t)i * 7;
        j->tenant = (uint32_t)(i % 2);
        j->num_gpus = 1u << i;
        j->submit_time = 1.25 * (double)i;
        j->start_time = 2.5 + (double)i;
        j->finish_time = i == 2 ? -1 : 100.0 + (double)i;
        j->duration = 50.0 + (double)i;
        j->jct = 98.75 + (double)i;
        j->queue_delay = 1.25 + (double)i;
        j->t_ideal = 40.0 + (double)i;
        j->rho = 2.4 + 0.1 * (double)i;
        j->run_time = 60.5 + (double)i;
        j->preemptions = (uint32_t)(10 + i);
        j->migrations = (uint32_t)(20 + i);
        j->restarts = (uint32_t)(30 + i);
        j->lost_work = 0.25 * (double)(i + 1);
        snprintf(j->gpu_type, sizeof j->gpu_type, "%s", i == 2 ? "" : (i ? "a100" : "v100"));
    }

    r->ntenants = 2;
    r->tenants = dike_xcalloc(r->ntenants, sizeof *r->tenants);
    for (size_t i = 0; i < r->ntenants; i++) {
        dike_tenant_record *t = &r->tenants[i];
        t->tenant = (uint32_t)i;
        snprintf(t->name, sizeof t->name, "tenant-%c", (char)('A' + i));
        t->weight = 1.5 + (double)i;
        t->jobs = (uint32_t)(2 - i);
        t->finished = (uint32_t)(1 + i);
        t->gpu_seconds = 300.25 * (double)(i + 1);
        t->avg_jct = 99.5 + (double)i;
        t->mean_rho = 2.25 + (double)i;
        t->fairness_ratio = 0.4 + 0.1 * (double)i;
    }

    r->ndecide = 2;
    r->decide = dike_xcalloc(r->ndecide, sizeof *r->decide);
    for (size_t i = 0; i < r->ndecide; i++) {
        dike_decide_record *d = &r->decide[i];
        d->active_lo = UINT64_C(1) << (3 + i);
        d->active_hi = (UINT64_C(1) << (4 + i)) - 1;
        d->active_mean = 11.5 + 8.0 * (double)i;
        d->timed = 40 + i;
        d->mean_us = 0.75 + (double)i;
        d->p50_us = 0.5 + (double)i;
        d->p99_us = 4.5 + (double)i;
        d->max_us = 9.25 + (double)i;
    }

    dike_timeseries_init(&r->ts, 2);
    for (uint32_t k = 0; k < 4; k++) {
        uint32_t *tg = dike_timeseries_push(&r->ts, 60.0 * k, 8 * k, k + 1, 2 * k);
        tg[0] = 3 * k;
        tg[1] = 5 * k + 1;
    }

    dike_summary *s = &r->summary;
    s->jobs = 3;
    s->finished = 2;
    s->avg_jct = 101.5;
    s->p50_jct = 102.5;
    s->p95_jct = 103.5;
    s->p99_jct = 104.5;
    s->makespan = 105.5;
    s->avg_queue_delay = 106.5;
    s->mean_rho = 2.5;
    s->p99_rho = 2.625;
    s->max_rho = 2.75;
    s->unfair_fraction = 0.875;
    s->jain = 0.9375;
    s->utilization = 0.5;
    s->effective_utilization = 0.4375;
    s->preemptions = 21;
    s->migrations = 43;
    s->restarts = 44;
    s->lost_work = 45.5;
    s->goodput = 0.875;
    s->allocated_gpu_seconds = 1234.5;
}

static void fill_nodes(dike_node_record *nodes, size_t n, uint32_t first)
{
    memset(nodes, 0, n * sizeof *nodes);
    for (size_t i = 0; i < n; i++) {
        dike_node_record *nd = &nodes[i];
        nd->node = first + (uint32_t)i;
        nd->rack = nd->node / 2;
        snprintf(nd->gpu_type, sizeof nd->gpu_type, "%s", nd->node % 2 ? "a100" : "v100");
        nd->busy_gpu_seconds = 10.5 * nd->node;
        nd->jobs_hosted = 3 * nd->node + 1;
        nd->failures = nd->node % 3;
    }
}

static void fill_perf(dike_perf_record *p)
{
    memset(p, 0, sizeof *p);
    p->rank = 0;
    p->events = 101;
    p->windows = 102;
    p->messages = 103;
    p->bytes_sent = 104;
    p->wall_seconds = 1.5;
    p->compute_seconds = 1.25;
    p->decide_seconds = 0.375;
    p->decide_p99_us = 12.5;
    p->comm_seconds = 0.25;
    p->decisions = 105;
    p->nodes_owned = NNODES;
    p->decide_timed = 13;
    p->decide_mean_us = 2.25;
    p->decide_p50_us = 1.5;
    p->decide_max_us = 96.0;
    p->active_mean = 41.5;
    p->active_max = 77;
    p->decide_max_active = 60;
    p->startup_seconds = 0.125;
    p->read_seconds = 0.0625;
    p->output_seconds = 9.0; /* not a column: written before the file is complete */
}

/* Remove @p dir and everything below it. */
static void rm_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        unlink(dir);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        struct stat sb;
        if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
            rm_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

/* Entries of @p dir other than . and ..; the first one's name goes to @p first. */
static int count_entries(const char *dir, char *first, size_t n)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int count = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (!count && first)
            snprintf(first, n, "%s", de->d_name);
        count++;
    }
    closedir(d);
    return count;
}

static int setup(void **state)
{
    fixture *f = dike_xcalloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/dike-h5out-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->path, sizeof f->path, "%s/out.h5", f->dir);
    fill_results(&f->r);
    fill_nodes(f->nodes, NNODES, 0);
    fill_perf(&f->perf);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    dike_results_free(&f->r);
    rm_tree(f->dir);
    free(f);
    return 0;
}

static int write_fixture(fixture *f, const char *path, dike_err *e)
{
    return dike_h5_write(path, MPI_COMM_WORLD, &f->r, f->nodes, NNODES, NNODES, &f->perf, e);
}

/* Success, or fail the test with the writer's message. */
#define assert_ok(rc, e)                                                                          \
    do {                                                                                          \
        int rc_ = (rc);                                                                           \
        if (rc_ != 0)                                                                             \
            fail_msg("returned %d: %s", rc_, (e).msg);                                            \
    } while (0)

/* ---------------------------------------------------------------------------------------------- *
 * Readers built from the plain HDF5 API only: a one-member compound type picks a column by name,
 * so the test checks the column names and types independently of the writer's type tables. */

static void read_column(hid_t ds, const char *col, hid_t mtype, size_t msize, void *out)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, msize);
    assert_true(t >= 0);
    assert_true(H5Tinsert(t, col, 0, mtype) >= 0);
    assert_true(H5Dread(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0);
    assert_true(H5Tclose(t) >= 0);
}

#define COLUMN_EQ(ds, rows, n, col, ctype, h5type)                                                \
    do {                                                                                          \
        ctype v_[16];                                                                             \
        assert_true((n) <= 16);                                                                   \
        read_column((ds), #col, (h5type), sizeof(ctype), v_);                                     \
        for (size_t i_ = 0; i_ < (n); i_++)                                                       \
            assert_true(v_[i_] == (rows)[i_].col);                                                \
    } while (0)

#define STRCOL_EQ(ds, rows, n, col)                                                               \
    do {                                                                                          \
        char v_[16][sizeof((rows)[0].col)];                                                       \
        hid_t st_ = H5Tcopy(H5T_C_S1);                                                            \
        assert_true(st_ >= 0 && H5Tset_size(st_, sizeof v_[0]) >= 0);                             \
        read_column((ds), #col, st_, sizeof v_[0], v_);                                           \
        H5Tclose(st_);                                                                            \
        for (size_t i_ = 0; i_ < (n); i_++)                                                       \
            assert_string_equal(v_[i_], (rows)[i_].col);                                          \
    } while (0)

static char *read_str_attr(hid_t obj, const char *name)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    assert_true(a >= 0);
    hid_t ft = H5Aget_type(a);
    assert_true(ft >= 0);
    assert_int_equal(H5Tget_class(ft), H5T_STRING);
    assert_true(H5Tis_variable_str(ft) > 0);
    hid_t mt = H5Tcopy(H5T_C_S1);
    assert_true(mt >= 0 && H5Tset_size(mt, H5T_VARIABLE) >= 0 &&
                H5Tset_cset(mt, H5T_CSET_UTF8) >= 0);
    char *s = NULL;
    assert_true(H5Aread(a, mt, &s) >= 0);
    assert_non_null(s);
    char *copy = dike_xstrdup(s);
    H5free_memory(s);
    H5Tclose(mt);
    H5Tclose(ft);
    H5Aclose(a);
    return copy;
}

static void assert_str_attr(hid_t obj, const char *name, const char *want)
{
    char *s = read_str_attr(obj, name);
    assert_string_equal(s, want);
    free(s);
}

/* The attribute exists, is a non-empty string, and contains @p part. */
static void assert_str_attr_has(hid_t obj, const char *name, const char *part)
{
    char *s = read_str_attr(obj, name);
    assert_true(s[0] != '\0');
    if (!strstr(s, part))
        fail_msg("attribute %s = '%s' lacks '%s'", name, s, part);
    free(s);
}

static void read_num_attr(hid_t obj, const char *name, hid_t mtype, void *out)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    assert_true(a >= 0);
    hid_t sp = H5Aget_space(a);
    assert_int_equal(H5Sget_simple_extent_type(sp), H5S_SCALAR);
    H5Sclose(sp);
    assert_true(H5Aread(a, mtype, out) >= 0);
    H5Aclose(a);
}

static double f64_attr(hid_t obj, const char *name)
{
    double v = -99;
    read_num_attr(obj, name, H5T_NATIVE_DOUBLE, &v);
    return v;
}

static uint64_t u64_attr(hid_t obj, const char *name)
{
    uint64_t v = 0;
    read_num_attr(obj, name, H5T_NATIVE_UINT64, &v);
    return v;
}

static int64_t i64_attr(hid_t obj, const char *name)
{
    int64_t v = 0;
    read_num_attr(obj, name, H5T_NATIVE_INT64, &v);
    return v;
}

/* Opens dataset @p name, checks its shape against @p dims and its units/description attributes. */
static hid_t open_ds(hid_t file, const char *name, int rank, const hsize_t *dims, const char *units)
{
    hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
    if (ds < 0)
        fail_msg("dataset %s missing", name);
    hid_t sp = H5Dget_space(ds);
    assert_int_equal(H5Sget_simple_extent_ndims(sp), rank);
    hsize_t got[2] = { 0, 0 };
    H5Sget_simple_extent_dims(sp, got, NULL);
    for (int i = 0; i < rank; i++)
        assert_int_equal(got[i], dims[i]);
    H5Sclose(sp);
    assert_str_attr_has(ds, "units", units);
    assert_str_attr_has(ds, "description", "");
    return ds;
}

static void read_all(hid_t ds, hid_t mtype, void *out)
{
    assert_true(H5Dread(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0);
}

/* No file, dataset, group or attribute left open by the writer. (HDF5 1.10 offers no public count
 * of open datatype, dataspace or property-list ids: those closes are checked by reading.) */
static void assert_no_open_objects(void)
{
    ssize_t n = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
    if (n != 0)
        fail_msg("%zd HDF5 objects left open", n);
}

/* ---------------------------------------------------------------------------------------------- */

static void check_root(hid_t file, const dike_results *r)
{
    int32_t i32 = -1;
    read_num_attr(file, "schema_version", H5T_NATIVE_INT32, &i32);
    assert_int_equal(i32, DIKE_SCHEMA_VERSION);
    assert_str_attr(file, "version", DIKE_VERSION);
    assert_str_attr(file, "policy", "themis");
    assert_str_attr(file, "placement", "pack");
    assert_true(i64_attr(file, "seed") == r->meta.seed);
    read_num_attr(file, "ranks", H5T_NATIVE_INT32, &i32);
    assert_int_equal(i32, 7);
    assert_str_attr(file, "config", r->meta.config_text);
    assert_str_attr(file, "trace_path", r->meta.trace_path);
    assert_str_attr(file, "trace_sha256", r->meta.trace_sha256);
    assert_int_equal(strlen(r->meta.trace_sha256), 64);
    assert_true(f64_attr(file, "wall_seconds") == 12.5);
    assert_str_attr_has(file, "units", "wall_seconds=s");
}

static void check_jobs(hid_t file, const dike_results *r)
{
    hsize_t n = r->njobs;
    hid_t ds = open_ds(file, "/jobs", 1, &n, "submit_time=s");
    assert_str_attr(ds, "units",
                    "job_id=1,tenant=1,num_gpus=GPUs,submit_time=s,start_time=s,finish_time=s,"
                    "duration=s,jct=s,queue_delay=s,t_ideal=s,rho=1,run_time=s,preemptions=1,"
                    "migrations=1,restarts=1,lost_work=GPU*s,gpu_type=1");
    const dike_job_record *j = r->jobs;
    COLUMN_EQ(ds, j, n, job_id, int64_t, H5T_NATIVE_INT64);
    COLUMN_EQ(ds, j, n, tenant, uint32_t, H5T_NATIVE_UINT32);
    COLUMN_EQ(ds, j, n, num_gpus, uint32_t, H5T_NATIVE_UINT32);
    COLUMN_EQ(ds, j, n, submit_time, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, j, n, start_time, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, j, n, finish_time, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, j, n, duration, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, j, n, jct, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, j, n, queue_delay, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, j, n, t_ideal, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, j, n, rho, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, j, n, run_time, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, j, n, preemptions, uint32_t, H5T_NATIVE_UINT32);
    COLUMN_EQ(ds, j, n, migrations, uint32_t, H5T_NATIVE_UINT32);
    COLUMN_EQ(ds, j, n, restarts, uint32_t, H5T_NATIVE_UINT32);
    COLUMN_EQ(ds, j, n, lost_work, double, H5T_NATIVE_DOUBLE);
    STRCOL_EQ(ds, j, n, gpu_type);

    /* Whole rows through the reader type of h5types.h. */
    dike_job_record back[3];
    hid_t t = dike_h5_job_type();
    assert_true(t >= 0);
    read_all(ds, t, back);
    H5Tclose(t);
    for (size_t i = 0; i < n; i++) {
        assert_true(back[i].job_id == j[i].job_id);
        assert_true(back[i].rho == j[i].rho);
        assert_true(back[i].migrations == j[i].migrations);
        assert_true(back[i].restarts == j[i].restarts);
        assert_true(back[i].lost_work == j[i].lost_work);
        assert_string_equal(back[i].gpu_type, j[i].gpu_type);
    }
    /* The stored rows are packed: no C padding on disk. */
    hid_t ft = H5Dget_type(ds);
    assert_int_equal(H5Tget_nmembers(ft), 17);
    assert_int_equal(H5Tget_size(ft), 8 + 4 + 4 + 9 * 8 + 4 + 4 + 4 + 8 + DIKE_GPU_TYPE_NAME);
    H5Tclose(ft);
    H5Dclose(ds);
}

static void check_tenants(hid_t file, const dike_results *r)
{
    hsize_t n = r->ntenants;
    hid_t ds = open_ds(file, "/tenants", 1, &n, "gpu_seconds=GPU*s");
    const dike_tenant_record *t = r->tenants;
    COLUMN_EQ(ds, t, n, tenant, uint32_t, H5T_NATIVE_UINT32);
    STRCOL_EQ(ds, t, n, name);
    COLUMN_EQ(ds, t, n, weight, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, t, n, jobs, uint32_t, H5T_NATIVE_UINT32);
    COLUMN_EQ(ds, t, n, finished, uint32_t, H5T_NATIVE_UINT32);
    COLUMN_EQ(ds, t, n, gpu_seconds, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, t, n, avg_jct, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, t, n, mean_rho, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, t, n, fairness_ratio, double, H5T_NATIVE_DOUBLE);

    dike_tenant_record back[2];
    hid_t ty = dike_h5_tenant_type();
    assert_true(ty >= 0);
    read_all(ds, ty, back);
    H5Tclose(ty);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(back[i].name, t[i].name);
        assert_true(back[i].fairness_ratio == t[i].fairness_ratio);
    }
    H5Dclose(ds);
}

static void check_decide(hid_t file, const dike_results *r)
{
    hsize_t n = r->ndecide;
    hid_t ds = open_ds(file, "/decide", 1, &n, "p99_us=us");
    const dike_decide_record *d = r->decide;
    COLUMN_EQ(ds, d, n, active_lo, uint64_t, H5T_NATIVE_UINT64);
    COLUMN_EQ(ds, d, n, active_hi, uint64_t, H5T_NATIVE_UINT64);
    COLUMN_EQ(ds, d, n, active_mean, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, d, n, timed, uint64_t, H5T_NATIVE_UINT64);
    COLUMN_EQ(ds, d, n, mean_us, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, d, n, p50_us, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, d, n, p99_us, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, d, n, max_us, double, H5T_NATIVE_DOUBLE);
    H5Dclose(ds);
}

static void check_timeseries(hid_t file, const dike_timeseries *ts)
{
    hid_t g = H5Gopen2(file, "/timeseries", H5P_DEFAULT);
    assert_true(g >= 0);
    assert_str_attr_has(g, "description", "");
    H5Gclose(g);

    hsize_t dims[2] = { ts->n, ts->ntenants };
    double tv[4];
    uint32_t uv[4], tg[8];
    hid_t ds = open_ds(file, "/timeseries/time", 1, dims, "s");
    read_all(ds, H5T_NATIVE_DOUBLE, tv);
    H5Dclose(ds);
    assert_memory_equal(tv, ts->time, sizeof tv);

    ds = open_ds(file, "/timeseries/busy_gpus", 1, dims, "GPUs");
    read_all(ds, H5T_NATIVE_UINT32, uv);
    H5Dclose(ds);
    assert_memory_equal(uv, ts->busy_gpus, sizeof uv);

    ds = open_ds(file, "/timeseries/queued", 1, dims, "1");
    read_all(ds, H5T_NATIVE_UINT32, uv);
    H5Dclose(ds);
    assert_memory_equal(uv, ts->queued, sizeof uv);

    ds = open_ds(file, "/timeseries/running", 1, dims, "1");
    read_all(ds, H5T_NATIVE_UINT32, uv);
    H5Dclose(ds);
    assert_memory_equal(uv, ts->running, sizeof uv);

    ds = open_ds(file, "/timeseries/tenant_gpus", 2, dims, "GPUs");
    read_all(ds, H5T_NATIVE_UINT32, tg);
    H5Dclose(ds);
    assert_memory_equal(tg, ts->tenant_gpus, sizeof tg);
}

static void check_summary(hid_t file, const dike_summary *s)
{
    hid_t g = H5Gopen2(file, "/summary", H5P_DEFAULT);
    assert_true(g >= 0);
    assert_true(u64_attr(g, "jobs") == s->jobs);
    assert_true(u64_attr(g, "finished") == s->finished);
    assert_true(f64_attr(g, "avg_jct") == s->avg_jct);
    assert_true(f64_attr(g, "p50_jct") == s->p50_jct);
    assert_true(f64_attr(g, "p95_jct") == s->p95_jct);
    assert_true(f64_attr(g, "p99_jct") == s->p99_jct);
    assert_true(f64_attr(g, "makespan") == s->makespan);
    assert_true(f64_attr(g, "avg_queue_delay") == s->avg_queue_delay);
    assert_true(f64_attr(g, "mean_rho") == s->mean_rho);
    assert_true(f64_attr(g, "p99_rho") == s->p99_rho);
    assert_true(f64_attr(g, "max_rho") == s->max_rho);
    assert_true(f64_attr(g, "unfair_fraction") == s->unfair_fraction);
    assert_true(f64_attr(g, "jain") == s->jain);
    assert_true(f64_attr(g, "utilization") == s->utilization);
    assert_true(f64_attr(g, "effective_utilization") == s->effective_utilization);
    assert_true(u64_attr(g, "preemptions") == s->preemptions);
    assert_true(u64_attr(g, "migrations") == s->migrations);
    assert_true(u64_attr(g, "restarts") == s->restarts);
    assert_true(f64_attr(g, "lost_work") == s->lost_work);
    assert_true(f64_attr(g, "goodput") == s->goodput);
    assert_true(f64_attr(g, "allocated_gpu_seconds") == s->allocated_gpu_seconds);
    assert_str_attr_has(g, "units", "avg_jct=s,");
    assert_str_attr_has(g, "units", "makespan=s,");
    assert_str_attr_has(g, "units", "allocated_gpu_seconds=GPU*s");
    assert_str_attr_has(g, "description", "");
    H5Gclose(g);
}

static void check_nodes_perf(hid_t file, const dike_node_record *nodes, size_t n,
                             const dike_perf_record *perf)
{
    hsize_t dims = n;
    hid_t ds = open_ds(file, "/nodes", 1, &dims, "busy_gpu_seconds=GPU*s");
    COLUMN_EQ(ds, nodes, n, node, uint32_t, H5T_NATIVE_UINT32);
    COLUMN_EQ(ds, nodes, n, rack, uint32_t, H5T_NATIVE_UINT32);
    STRCOL_EQ(ds, nodes, n, gpu_type);
    COLUMN_EQ(ds, nodes, n, busy_gpu_seconds, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, nodes, n, jobs_hosted, uint32_t, H5T_NATIVE_UINT32);
    COLUMN_EQ(ds, nodes, n, failures, uint32_t, H5T_NATIVE_UINT32);
    H5Dclose(ds);

    dims = 1;
    ds = open_ds(file, "/perf", 1, &dims, "bytes_sent=B");
    COLUMN_EQ(ds, perf, 1, rank, int32_t, H5T_NATIVE_INT32);
    COLUMN_EQ(ds, perf, 1, events, uint64_t, H5T_NATIVE_UINT64);
    COLUMN_EQ(ds, perf, 1, windows, uint64_t, H5T_NATIVE_UINT64);
    COLUMN_EQ(ds, perf, 1, messages, uint64_t, H5T_NATIVE_UINT64);
    COLUMN_EQ(ds, perf, 1, bytes_sent, uint64_t, H5T_NATIVE_UINT64);
    COLUMN_EQ(ds, perf, 1, wall_seconds, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, perf, 1, compute_seconds, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, perf, 1, decide_seconds, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, perf, 1, decide_p99_us, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, perf, 1, comm_seconds, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, perf, 1, decisions, uint64_t, H5T_NATIVE_UINT64);
    COLUMN_EQ(ds, perf, 1, nodes_owned, uint32_t, H5T_NATIVE_UINT32);
    COLUMN_EQ(ds, perf, 1, decide_timed, uint64_t, H5T_NATIVE_UINT64);
    COLUMN_EQ(ds, perf, 1, decide_mean_us, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, perf, 1, decide_p50_us, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, perf, 1, decide_max_us, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, perf, 1, active_mean, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, perf, 1, active_max, uint32_t, H5T_NATIVE_UINT32);
    COLUMN_EQ(ds, perf, 1, decide_max_active, uint32_t, H5T_NATIVE_UINT32);
    COLUMN_EQ(ds, perf, 1, startup_seconds, double, H5T_NATIVE_DOUBLE);
    COLUMN_EQ(ds, perf, 1, read_seconds, double, H5T_NATIVE_DOUBLE);
    hid_t pt = H5Dget_type(ds);
    assert_true(H5Tget_member_index(pt, "output_seconds") < 0); /* measured after /perf is written */
    H5Tclose(pt);
    H5Dclose(ds);
}

/* Provenance (root) and one unit attribute per column, as noted before the write in
 * test_roundtrip. */
static void check_provenance_units(hid_t file)
{
    char *t = read_str_attr(file, "created_utc");
    int y, mo, d, h, mi, sec, used = 0;
    assert_int_equal(sscanf(t, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &y, &mo, &d, &h, &mi, &sec, &used), 6);
    assert_int_equal(used, 20); /* "2026-12-01T02:20:00Z" and nothing after */
    assert_true(y >= 2024 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h < 24 && mi < 60 && sec < 61);
    free(t);
    /* each argument as a shell reads it back: blanks and quotes single-quoted */
    assert_str_attr(file, "command_line", "dike-emu run --out 'a b.h5' --set 'x=it'\\''s' -q");
    assert_str_attr(file, "campaign", "grid1");
    assert_true(i64_attr(file, "campaign_point") == 3);
    assert_str_attr(file, "campaign_axes", "run.seed = 2\n");
    assert_str_attr_has(file, "build", "");
    assert_str_attr_has(file, "compiler", "");
    unsigned maj, min, rel;
    char want[32];
    H5get_libversion(&maj, &min, &rel);
    snprintf(want, sizeof want, "%u.%u.%u", maj, min, rel);
    assert_str_attr(file, "hdf5_version", want);
    assert_str_attr_has(file, "mpi_version", "MPI");
    assert_str_attr(file, "units_wall_seconds", "s");

    hid_t ds = H5Dopen2(file, "/jobs", H5P_DEFAULT);
    assert_str_attr(ds, "units_jct", "s");
    assert_str_attr(ds, "units_num_gpus", "GPUs");
    assert_str_attr(ds, "units_lost_work", "GPU*s");
    assert_str_attr(ds, "units_gpu_type", "1");
    H5Dclose(ds);
    ds = H5Dopen2(file, "/perf", H5P_DEFAULT);
    assert_str_attr(ds, "units_bytes_sent", "B");
    assert_str_attr(ds, "units_decide_p99_us", "us");
    H5Dclose(ds);
    hid_t g = H5Gopen2(file, "/summary", H5P_DEFAULT);
    assert_str_attr(g, "units_avg_jct", "s");
    assert_str_attr(g, "units_goodput", "1");
    assert_str_attr(g, "units_allocated_gpu_seconds", "GPU*s");
    H5Gclose(g);
}

/* ---------------------------------------------------------------------------------------------- */

static void test_roundtrip(void **state)
{
    fixture *f = *state;
    dike_err e = { 0, "" };
    char *argv[] = {"dike-emu", "run", "--out", "a b.h5", "--set", "x=it's", "-q"};
    dike_provenance_note_command(7, argv);
    dike_provenance_note_campaign("grid1", 3, "run.seed = 2\n");
    int rc = write_fixture(f, f->path, &e);
    dike_provenance_note_campaign(NULL, -1, NULL);
    assert_ok(rc, e);
    assert_no_open_objects();

    /* Only the final file is left: the temporary was renamed, no probe remains. */
    char name[256];
    assert_int_equal(count_entries(f->dir, name, sizeof name), 1);
    assert_string_equal(name, "out.h5");

    hid_t file = H5Fopen(f->path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    check_root(file, &f->r);
    check_jobs(file, &f->r);
    check_tenants(file, &f->r);
    check_decide(file, &f->r);
    check_timeseries(file, &f->r.ts);
    check_summary(file, &f->r.summary);
    check_nodes_perf(file, f->nodes, NNODES, &f->perf);
    check_provenance_units(file);
    /* The writer closed everything it opened: only our own file handle is open. */
    assert_int_equal(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 1);
    assert_true(H5Fclose(file) >= 0);
}

/* HDF5's byte shuffle, by hand: three 4-byte elements 01 02 03 04 | 11 12 13 14 | 21 22 23 24
 * become the first bytes of each (01 11 21), then the second ones, and so on. */
static void test_shuffle(void **unused)
{
    const unsigned char in[12] = {0x01, 0x02, 0x03, 0x04, 0x11, 0x12, 0x13, 0x14,
                                  0x21, 0x22, 0x23, 0x24};
    const unsigned char want[12] = {0x01, 0x11, 0x21, 0x02, 0x12, 0x22, 0x03, 0x13, 0x23,
                                    0x04, 0x14, 0x24};
    unsigned char out[12];
    dike_h5_shuffle(in, out, 3, 4);
    assert_memory_equal(out, want, 12);
    dike_h5_shuffle(in, out, 12, 1); /* one-byte elements: unchanged */
    assert_memory_equal(out, in, 12);
}

/* Three chunks of 6 two-byte elements filtered by one process: each result inflates (zlib) to
 * the chunk's bytes shuffled, and the results lie one after another. */
static void test_chunks_filter(void **unused)
{
    unsigned char raw[36], sh[12], back[64];
    for (int i = 0; i < 36; i++)
        raw[i] = (unsigned char)(i * 7 % 5); /* repeats: compresses */
    unsigned char *out = NULL;
    size_t off[3], size[3];
    assert_int_equal(dike_h5_chunks_filter(raw, 3, 12, 2, 1, &out, off, size), 0);
    assert_non_null(out);
    for (int k = 0; k < 3; k++) {
        assert_true(off[k] == (k ? off[k - 1] + size[k - 1] : 0));
        uLongf len = sizeof back;
        assert_int_equal(uncompress(back, &len, out + off[k], (uLong)size[k]), Z_OK);
        assert_int_equal(len, 12);
        dike_h5_shuffle(raw + 12 * k, sh, 6, 2);
        assert_memory_equal(back, sh, 12);
    }
    dike_h5_chunks_release(); /* out is the module's buffer */
}

/* A /jobs of 5,000 rows spans three chunks (2,114 rows of 124 bytes each make 256 KiB), the last
 * one partly beyond the table: every row reads back as written, through HDF5's own filters. */
static void test_many_rows(void **state)
{
    fixture *f = *state;
    dike_err e = {0, ""};
    size_t n = 5000;
    free(f->r.jobs);
    f->r.njobs = n;
    f->r.jobs = dike_xcalloc(n, sizeof *f->r.jobs);
    for (size_t i = 0; i < n; i++) {
        dike_job_record *j = &f->r.jobs[i];
        j->job_id = (int64_t)i * 3 - 7;
        j->tenant = (uint32_t)(i % 2); /* the fixture has two tenants */
        j->num_gpus = 1u + (uint32_t)(i % 8);
        j->submit_time = 0.5 * (double)i;
        j->jct = 1e4 / (double)(i + 1);
        j->rho = (double)i / 7.0;
        j->preemptions = (uint32_t)(i % 5);
        j->lost_work = i % 3 ? 0 : (double)i;
        snprintf(j->gpu_type, sizeof j->gpu_type, "%s", i % 2 ? "V100" : "K80");
    }
    assert_ok(write_fixture(f, f->path, &e), e);
    hid_t file = H5Fopen(f->path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    hid_t ds = H5Dopen2(file, "/jobs", H5P_DEFAULT);
    assert_true(ds >= 0);
    hid_t dcpl = H5Dget_create_plist(ds);
    assert_int_equal(H5Pget_nfilters(dcpl), 2);
    unsigned flags, cd[4];
    size_t ncd = 4;
    assert_int_equal(H5Pget_filter2(dcpl, 0, &flags, &ncd, cd, 0, NULL, NULL), H5Z_FILTER_SHUFFLE);
    ncd = 4;
    assert_int_equal(H5Pget_filter2(dcpl, 1, &flags, &ncd, cd, 0, NULL, NULL), H5Z_FILTER_DEFLATE);
    assert_int_equal(cd[0], 1); /* level 1 */
    H5Pclose(dcpl);
    hid_t sp = H5Dget_space(ds);
    hsize_t nchunks = 0;
    assert_true(H5Dget_num_chunks(ds, sp, &nchunks) >= 0);
    assert_int_equal(nchunks, 3);
    H5Sclose(sp);
    dike_job_record *back = dike_xcalloc(n, sizeof *back);
    hid_t t = dike_h5_job_type();
    read_all(ds, t, back);
    H5Tclose(t);
    for (size_t i = 0; i < n; i++) {
        const dike_job_record *j = &f->r.jobs[i];
        assert_true(back[i].job_id == j->job_id && back[i].tenant == j->tenant &&
                    back[i].num_gpus == j->num_gpus && back[i].submit_time == j->submit_time &&
                    back[i].jct == j->jct && back[i].rho == j->rho &&
                    back[i].preemptions == j->preemptions && back[i].lost_work == j->lost_work);
        assert_string_equal(back[i].gpu_type, j->gpu_type);
    }
    free(back);
    H5Dclose(ds);
    H5Fclose(file);
}

/* A second write replaces the first file atomically. */
static void test_overwrite(void **state)
{
    fixture *f = *state;
    dike_err e = { 0, "" };
    assert_ok(write_fixture(f, f->path, &e), e);
    f->r.summary.jain = 0.125;
    assert_ok(write_fixture(f, f->path, &e), e);
    assert_int_equal(count_entries(f->dir, NULL, 0), 1);
    hid_t file = H5Fopen(f->path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    hid_t g = H5Gopen2(file, "/summary", H5P_DEFAULT);
    assert_true(f64_attr(g, "jain") == 0.125);
    H5Gclose(g);
    H5Fclose(file);
}

/* Zero jobs, tenants, samples and nodes still give every dataset, with 0 rows. */
static void test_empty_tables(void **state)
{
    fixture *f = *state;
    dike_results r;
    memset(&r, 0, sizeof r);
    snprintf(r.meta.version, sizeof r.meta.version, "%s", DIKE_VERSION);
    dike_timeseries_init(&r.ts, 0);
    dike_err e = { 0, "" };
    assert_ok(dike_h5_write(f->path, MPI_COMM_WORLD, &r, NULL, 0, 0, &f->perf, &e), e);

    hid_t file = H5Fopen(f->path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    hsize_t zero[2] = { 0, 0 };
    const char *names[] = { "/jobs", "/tenants", "/nodes", "/timeseries/time",
                            "/timeseries/busy_gpus", "/timeseries/queued", "/timeseries/running" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        H5Dclose(open_ds(file, names[i], 1, zero, ""));
    H5Dclose(open_ds(file, "/timeseries/tenant_gpus", 2, zero, "GPUs"));
    assert_str_attr(file, "config", ""); /* NULL config text is written as "" */
    H5Fclose(file);
    dike_results_free(&r);
}

static void test_missing_folder(void **state)
{
    fixture *f = *state;
    char path[512];
    snprintf(path, sizeof path, "%s/no-such-folder/out.h5", f->dir);
    dike_err e = { 0, "" };
    int rc = write_fixture(f, path, &e);
    assert_int_equal(rc, DIKE_EIO);
    assert_int_equal(e.code, DIKE_EIO);
    if (!strstr(e.msg, path) || !strstr(e.msg, "No such file or directory"))
        fail_msg("message does not name the path and the reason: %s", e.msg);
    assert_int_equal(count_entries(f->dir, NULL, 0), 0);

    /* HDF5's automatic error printing is back as it was. */
    H5E_auto2_t fn = NULL;
    void *data = NULL;
    assert_true(H5Eget_auto2(H5E_DEFAULT, &fn, &data) >= 0);
    assert_non_null(fn);
}

/* A failure after the checks passed: a folder squats on the temporary name, so writing the file
 * image there fails. The message names the path and the temporary file and gives errno's text;
 * nothing is left open. */
static void test_h5_failure(void **state)
{
    fixture *f = *state;
    char tmp[400];
    dike_tmp_name(f->path, tmp, sizeof tmp);
    assert_int_equal(mkdir(tmp, 0700), 0);
    dike_err e = { 0, "" };
    int rc = write_fixture(f, f->path, &e);
    assert_no_open_objects();
    assert_int_equal(rc, DIKE_EIO);
    if (!strstr(e.msg, f->path) || !strstr(e.msg, tmp) || !strstr(e.msg, strerror(EISDIR)))
        fail_msg("unexpected message: %s", e.msg);
    struct stat sb;
    assert_int_not_equal(stat(f->path, &sb), 0);
    assert_int_equal(rmdir(tmp), 0);
    assert_int_equal(count_entries(f->dir, NULL, 0), 0);
}

/* Node rows that do not tile 0..total-1 are a caller bug: refused before any file is made. */
static void test_bad_node_rows(void **state)
{
    fixture *f = *state;
    dike_err e = { 0, "" };
    f->nodes[3].node = 7;
    int rc = write_fixture(f, f->path, &e);
    assert_int_equal(rc, DIKE_EINTERNAL);
    assert_non_null(strstr(e.msg, "not contiguous"));
    fill_nodes(f->nodes, NNODES, 1); /* contiguous but 1..5 of 0..4 */
    rc = write_fixture(f, f->path, &e);
    assert_int_equal(rc, DIKE_EINTERNAL);
    assert_non_null(strstr(e.msg, f->path));
    rc = dike_h5_write(f->path, MPI_COMM_WORLD, &f->r, f->nodes, NNODES, 9, &f->perf, &e);
    assert_int_equal(rc, DIKE_EINTERNAL);
    assert_int_equal(count_entries(f->dir, NULL, 0), 0);
}

static void test_no_results(void **state)
{
    fixture *f = *state;
    dike_err e = { 0, "" };
    int rc = dike_h5_write(f->path, MPI_COMM_WORLD, NULL, f->nodes, NNODES, NNODES, &f->perf, &e);
    assert_int_equal(rc, DIKE_EINTERNAL);
    assert_int_equal(count_entries(f->dir, NULL, 0), 0);
}

static void test_check_writable(void **state)
{
    fixture *f = *state;
    dike_err e = { 0, "" };
    assert_int_equal(dike_h5_check_writable(f->path, &e), 0);
    assert_int_equal(count_entries(f->dir, NULL, 0), 0); /* the probe is gone */

    char path[600];
    snprintf(path, sizeof path, "%s/missing/out.h5", f->dir);
    assert_int_equal(dike_h5_check_writable(path, &e), DIKE_EIO);
    char want[700];
    snprintf(want, sizeof want, "%s: cannot write output: No such file or directory", path);
    assert_string_equal(e.msg, want);

    /* A regular file where a folder should be: unwritable even for root. */
    char file[512];
    snprintf(file, sizeof file, "%s/plain", f->dir);
    FILE *fp = fopen(file, "w");
    assert_non_null(fp);
    fclose(fp);
    snprintf(path, sizeof path, "%s/out.h5", file);
    assert_int_equal(dike_h5_check_writable(path, &e), DIKE_EIO);
    assert_non_null(strstr(e.msg, path));
    assert_non_null(strstr(e.msg, "Not a directory"));

    /* The output path is a folder. */
    assert_int_equal(dike_h5_check_writable(f->dir, &e), DIKE_EIO);
    assert_non_null(strstr(e.msg, "Is a directory"));

    /* /proc refuses new files, root or not. */
    assert_int_equal(dike_h5_check_writable("/proc/dike-out.h5", &e), DIKE_EIO);
    assert_non_null(strstr(e.msg, "/proc/dike-out.h5: cannot write output: "));

    assert_int_equal(dike_h5_check_writable("", &e), DIKE_EIO);
    unlink(file);
}

static void test_timeseries_growth(void **state)
{
    (void)state;
    dike_timeseries ts;
    dike_timeseries_init(&ts, 3);
    for (uint32_t i = 0; i < 1000; i++) {
        uint32_t *tg = dike_timeseries_push(&ts, i * 0.5, i, i + 1, i + 2);
        assert_int_equal(tg[0] + tg[1] + tg[2], 0); /* new slots start at zero */
        tg[0] = i;
        tg[2] = 2 * i;
    }
    assert_int_equal(ts.n, 1000);
    assert_true(ts.cap >= 1000 && ts.cap < 2000);
    for (uint32_t i = 0; i < 1000; i++) {
        assert_true(ts.time[i] == i * 0.5);
        assert_int_equal(ts.busy_gpus[i], i);
        assert_int_equal(ts.queued[i], i + 1);
        assert_int_equal(ts.running[i], i + 2);
        assert_int_equal(ts.tenant_gpus[3 * i], i);
        assert_int_equal(ts.tenant_gpus[3 * i + 1], 0);
        assert_int_equal(ts.tenant_gpus[3 * i + 2], 2 * i);
    }
    dike_timeseries_free(&ts);
    assert_int_equal(ts.n, 0);
    assert_null(ts.time);
    assert_int_equal(ts.ntenants, 3);

    dike_timeseries_init(&ts, 0); /* no tenants: push still works */
    for (int i = 0; i < 100; i++)
        assert_non_null(dike_timeseries_push(&ts, i, 0, 0, 0));
    dike_timeseries_free(&ts);
}

int main(void)
{
    MPI_Init(NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overwrite, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_tables, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_folder, setup, teardown),
        cmocka_unit_test_setup_teardown(test_h5_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_node_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_results, setup, teardown),
        cmocka_unit_test_setup_teardown(test_check_writable, setup, teardown),
        cmocka_unit_test(test_timeseries_growth),
        cmocka_unit_test(test_shuffle),
        cmocka_unit_test(test_chunks_filter),
        cmocka_unit_test_setup_teardown(test_many_rows, setup, teardown),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return failed ? 1 : 0;
}
