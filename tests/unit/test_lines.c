/* The one-pass line reader of traces (io/lines.c): lines in place across block boundaries, the
 * length cap, a last line without '\n', and a SHA-256 equal to a separate read's. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dike/workload.h"
#include "base/lines.h"

static char *write_tmp(const char *text, size_t len)
{
    char tmpl[] = "/tmp/dike-test-lines-XXXXXX";
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
    return strdup(tmpl);
}

static void test_small_file(void **state)
{
    (void)state;
    static const char text[] = "a,b\r\n\nxyz\nlast";
    char *path = write_tmp(text, sizeof text - 1);
    dike_lines l;
    char *line, sha[65], want[65];
    assert_int_equal(dike_lines_open(&l, path, true, NULL), 0);
    assert_int_equal(dike_lines_next(&l, &line, 100), 4); /* the '\r' stays */
    assert_string_equal(line, "a,b\r");
    assert_int_equal(dike_lines_next(&l, &line, 100), 0);
    assert_string_equal(line, "");
    assert_int_equal(dike_lines_next(&l, &line, 100), 3);
    assert_string_equal(line, "xyz");
    assert_int_equal(dike_lines_next(&l, &line, 100), 4);
    assert_string_equal(line, "last");
    assert_int_equal(dike_lines_next(&l, &line, 100), -1);
    assert_int_equal(l.err, 0);
    assert_int_equal(dike_lines_sha256(&l, path, sha, NULL), 0);
    assert_int_equal(dike_sha256_file(path, want, NULL), 0);
    assert_string_equal(sha, want);
    dike_lines_close(&l);
    unlink(path);
    free(path);
}

/* An empty file: no line; SHA-256 of nothing. */
static void test_empty_file(void **state)
{
    (void)state;
    char *path = write_tmp("", 0);
    dike_lines l;
    char *line, sha[65];
    assert_int_equal(dike_lines_open(&l, path, true, NULL), 0);
    assert_int_equal(dike_lines_next(&l, &line, 100), -1);
    assert_int_equal(dike_lines_sha256(&l, path, sha, NULL), 0);
    assert_string_equal(sha, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    dike_lines_close(&l);
    unlink(path);
    free(path);
}

/* A line of exactly max bytes is read; one of max + 1 is refused, with or without its '\n'. */
static void test_cap(void **state)
{
    (void)state;
    char *path = write_tmp("0123456789\n0123456789A\n", 23);
    dike_lines l;
    char *line;
    assert_int_equal(dike_lines_open(&l, path, false, NULL), 0);
    assert_int_equal(dike_lines_next(&l, &line, 10), 10);
    assert_int_equal(dike_lines_next(&l, &line, 10), -2);
    dike_lines_close(&l);
    unlink(path);
    free(path);
    path = write_tmp("0123456789A", 11);
    assert_int_equal(dike_lines_open(&l, path, false, NULL), 0);
    assert_int_equal(dike_lines_next(&l, &line, 10), -2);
    dike_lines_close(&l);
    unlink(path);
    free(path);
}

/* 300,000 numbered lines (about 3.5 MB, several blocks): every line comes back whole, in order,
 * including those cut by a block end; the digest covers every byte. Then a file whose single line
 * is longer than a block. */
static void test_many_blocks(void **state)
{
    (void)state;
    const int n = 300000;
    size_t cap = (size_t)n * 16, len = 0;
    char *text = malloc(cap);
    for (int i = 0; i < n; i++)
        len += (size_t)sprintf(text + len, "row %d,%d\n", i, i % 7);
    char *path = write_tmp(text, len);
    dike_lines l;
    char *line, expect[32], sha[65], want[65];
    assert_int_equal(dike_lines_open(&l, path, true, NULL), 0);
    for (int i = 0; i < n; i++) {
        int k = sprintf(expect, "row %d,%d", i, i % 7);
        assert_int_equal(dike_lines_next(&l, &line, 64), k);
        assert_string_equal(line, expect);
    }
    assert_int_equal(dike_lines_next(&l, &line, 64), -1);
    assert_int_equal(dike_lines_sha256(&l, path, sha, NULL), 0);
    assert_int_equal(dike_sha256_file(path, want, NULL), 0);
    assert_string_equal(sha, want);
    dike_lines_close(&l);
    unlink(path);
    free(path);

    size_t big = DIKE__LINES_BLOCK + DIKE__LINES_BLOCK / 2;
    memset(text, 'x', big);
    text[big] = '\n';
    memcpy(text + big + 1, "end", 3);
    path = write_tmp(text, big + 4);
    assert_int_equal(dike_lines_open(&l, path, false, NULL), 0);
    assert_int_equal(dike_lines_next(&l, &line, 2 * DIKE__LINES_BLOCK), (long)big);
    assert_int_equal(strlen(line), big);
    assert_int_equal(dike_lines_next(&l, &line, 2 * DIKE__LINES_BLOCK), 3);
    assert_string_equal(line, "end");
    /* a digest was not asked for */
    assert_int_equal(dike_lines_sha256(&l, path, sha, NULL), DIKE_EINTERNAL);
    dike_lines_close(&l);
    unlink(path);
    free(path);
    free(text);
}

static void test_missing_file(void **state)
{
    (void)state;
    dike_lines l;
    dike_err e = {0, ""};
    assert_int_equal(dike_lines_open(&l, "/nonexistent/dike-lines", true, &e), DIKE_EIO);
    assert_non_null(strstr(e.msg, "/nonexistent/dike-lines: cannot open"));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_file),
        cmocka_unit_test(test_empty_file),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_many_blocks),
        cmocka_unit_test(test_missing_file),
    };
    MPI_Init(&argc, &argv);
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
