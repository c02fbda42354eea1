#define _DEFAULT_SOURCE /* realpath */
/* Output paths: refusal of dangerous targets (include/dike/outpath.h; docs/reliability.md "Output
 * files"). Temporary names, stale temporary files and whole-file writes are in the base layer
 * (src/base/files.c): the engine's checkpoints use them too. */
#include "dike/outpath.h"
#include "dike/results.h"
#include "base/files.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- inputs ---- */

static char **inputs;
static size_t ninputs;

void dike_paths_note_input(const char *path)
{
    if (!path || !path[0])
        return;
    inputs = dike_xrealloc(inputs, (ninputs + 1) * sizeof *inputs);
    inputs[ninputs++] = dike_xstrdup(path);
}

/* @p path with its folder resolved, for comparing names that do not exist yet. */
static int canonical(const char *path, char *out, size_t n)
{
    char *dcopy = dike_xstrdup(path), *bcopy = dike_xstrdup(path);
    char dir[PATH_MAX];
    int ok = realpath(dirname(dcopy), dir) != NULL;
    if (ok) {
        int k = snprintf(out, n, "%s/%s", dir, basename(bcopy));
        ok = k > 0 && (size_t)k < n;
    }
    free(dcopy);
    free(bcopy);
    return ok;
}

/* Do @p a and @p b name the same file (existing: same device and inode; otherwise the same
 * resolved name)? */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea != eb)
        return 0;
    char ca[PATH_MAX], cb[PATH_MAX];
    return canonical(a, ca, sizeof ca) && canonical(b, cb, sizeof cb) && strcmp(ca, cb) == 0;
}

/* @p out against one input file (or, for a folder, every entry in it). */
static int against_input(const char *opt, const char *out, const char *input, const char *what,
                         dike_err *e)
{
    struct stat so, si;
    if (stat(out, &so) != 0 || stat(input, &si) != 0)
        return 0; /* a missing output cannot be an existing input; a missing input is reported later */
    if (S_ISDIR(si.st_mode)) {
        DIR *d = opendir(input);
        struct dirent *de;
        int rc = 0;
        while (!rc && d && (de = readdir(d))) {
            char p[PATH_MAX];
            int k = snprintf(p, sizeof p, "%s/%s", input, de->d_name);
            struct stat sp;
            if (k > 0 && (size_t)k < sizeof p && strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
                stat(p, &sp) == 0 && sp.st_dev == so.st_dev && sp.st_ino == so.st_ino)
                rc = dike_err_set(e, DIKE_EINVAL, "%s: cannot write %s: refusing to write the %s over "
                                  "%s %s", out, strncmp(opt, "output", 6) == 0 ? "output" : "checkpoint",
                                  opt, what, p);
        }
        if (d)
            closedir(d);
        return rc;
    }
    if (si.st_dev == so.st_dev && si.st_ino == so.st_ino)
        return dike_err_set(e, DIKE_EINVAL, "%s: cannot write %s: refusing to write the %s over %s %s "
                            "(the same file)", out, strncmp(opt, "output", 6) == 0 ? "output" : "checkpoint",
                            opt, what, input);
    return 0;
}

static int against_inputs(const dike_config *cfg, const char *opt, const char *out, dike_err *e)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < ninputs; i++)
        rc = against_input(opt, out, inputs[i], "the configuration file", e);
    if (!rc && cfg->workload_trace[0]) {
        char *list = dike_xstrdup(cfg->workload_trace);
        for (char *save = NULL, *item = strtok_r(list, ",", &save); item && !rc;
             item = strtok_r(NULL, ",", &save)) {
            while (*item == ' ')
                item++;
            rc = against_input(opt, out, item, "the trace", e);
        }
        free(list);
    }
    if (!rc && cfg->cluster_nodes_file[0])
        rc = against_input(opt, out, cfg->cluster_nodes_file, "the node list", e);
    if (!rc && strncmp(cfg->tenants_weights, "file:", 5) == 0 && cfg->tenants_weights[5])
        rc = against_input(opt, out, cfg->tenants_weights + 5, "the tenant weight file", e);
    return rc;
}

static int target_ok(const char *opt, const char *path, dike_err *e)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return dike_err_set(e, DIKE_EINVAL, "%s: cannot write %s: the %s exists and is %s: refusing to "
                            "replace it (give a regular file or a new name)", path,
                            strncmp(opt, "output", 6) == 0 ? "output" : "checkpoint", opt,
                            dike_file_kind(sb.st_mode));
    return 0;
}

int dike_output_paths_check(const dike_config *cfg, const char *out, const char *ckpt,
                            const char *resume, dike_err *e)
{
    int rc = 0;
    if (out && out[0]) {
        rc = target_ok("output (--out)", out, e);
        if (!rc)
            rc = against_inputs(cfg, "output (--out)", out, e);
        if (!rc && resume && resume[0])
            rc = against_input("output (--out)", out, resume, "the checkpoint being resumed", e);
    }
    if (!rc && ckpt && ckpt[0]) {
        rc = target_ok("checkpoint (--checkpoint)", ckpt, e);
        if (!rc)
            rc = against_inputs(cfg, "checkpoint (--checkpoint)", ckpt, e);
    }
    if (!rc && out && out[0] && ckpt && ckpt[0] && same_file(out, ckpt))
        rc = dike_err_set(e, DIKE_EINVAL, "%s: cannot write output: the output (--out) and the checkpoint "
                          "(--checkpoint) are the same file: give them different names", out);
    if (!rc && out && out[0])
        rc = dike_h5_check_writable(out, e);
    return rc;
}
