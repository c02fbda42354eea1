/* Reading a complete output file back (see h5in.h). The tables are read with the writer's own
 * memory types (h5types.h): HDF5 matches columns by name and converts from the packed layout. */
#include "io/h5in.h"
#include "io/h5types.h"
#include "base/parse.h"

#include <stdlib.h>
#include <string.h>

static H5E_auto2_t saved_fn;
static void *saved_data;
static int saved;

int dike_h5in_open(const char *path, hid_t *file, dike_err *e)
{
    *file = H5I_INVALID_HID;
    int rc = dike_input_regular(path, "output file", e);
    if (rc)
        return rc;
    if (!saved && H5Eget_auto2(H5E_DEFAULT, &saved_fn, &saved_data) >= 0)
        saved = 1;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        dike_h5in_close(H5I_INVALID_HID);
        return dike_err_set(e, DIKE_EINVAL, "%s: not an HDF5 file (or damaged)", path);
    }
    int32_t v = 0;
    hid_t a = H5Aexists(f, "schema_version") > 0 ? H5Aopen(f, "schema_version", H5P_DEFAULT) : -1;
    bool ok = a >= 0 && H5Aread(a, H5T_NATIVE_INT32, &v) >= 0;
    if (a >= 0)
        H5Aclose(a);
    if (!ok || v != DIKE_SCHEMA_VERSION) {
        H5Fclose(f);
        dike_h5in_close(H5I_INVALID_HID);
        if (!ok)
            return dike_err_set(e, DIKE_EINVAL, "%s: not a complete dike-emu output (no schema_version "
                                "attribute)", path);
        return dike_err_set(e, DIKE_EINVAL, "%s: output schema version %d; this dike-emu reads version %d",
                            path, (int)v, DIKE_SCHEMA_VERSION);
    }
    *file = f;
    return 0;
}

void dike_h5in_close(hid_t file)
{
    if (file >= 0)
        H5Fclose(file);
    if (saved) {
        H5Eset_auto2(H5E_DEFAULT, saved_fn, saved_data);
        saved = 0;
    }
}

int dike_h5in_opt_str_attr(hid_t obj, const char *path, const char *name, char **out, dike_err *e)
{
    if (H5Aexists(obj, name) > 0)
        return dike_h5in_str_attr(obj, path, name, out, e);
    *out = dike_xstrdup("");
    return 0;
}

int dike_h5in_str_attr(hid_t obj, const char *path, const char *name, char **out, dike_err *e)
{
    *out = NULL;
    hid_t a = H5Aexists(obj, name) > 0 ? H5Aopen(obj, name, H5P_DEFAULT) : -1;
    hid_t t = a >= 0 ? H5Aget_type(a) : -1, mem = -1;
    int rc = 0;
    if (t < 0 || H5Tget_class(t) != H5T_STRING) {
        rc = dike_err_set(e, DIKE_EINVAL, "%s: no string attribute '%s'", path, name);
    } else if (H5Tis_variable_str(t) > 0) {
        char *s = NULL;
        mem = H5Tcopy(H5T_C_S1);
        H5Tset_size(mem, H5T_VARIABLE);
        H5Tset_cset(mem, H5Tget_cset(t));
        if (H5Aread(a, mem, &s) < 0 || !s) {
            rc = dike_err_set(e, DIKE_EINVAL, "%s: cannot read attribute '%s'", path, name);
        } else {
            *out = dike_xstrdup(s);
            H5free_memory(s);
        }
    } else {
        size_t n = H5Tget_size(t);
        mem = H5Tcopy(t);
        char *s = dike_xcalloc(n + 1, 1);
        if (H5Aread(a, mem, s) < 0) {
            free(s);
            rc = dike_err_set(e, DIKE_EINVAL, "%s: cannot read attribute '%s'", path, name);
        } else {
            *out = s;
        }
    }
    if (mem >= 0)
        H5Tclose(mem);
    if (t >= 0)
        H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
    return rc;
}

static int read_table(hid_t file, const char *path, const char *name, hid_t (*type_fn)(void),
                      size_t row, void **rows, size_t *n, dike_err *e)
{
    *rows = NULL;
    *n = 0;
    hid_t ds = H5Dopen2(file, name, H5P_DEFAULT), sp = -1, t = -1;
    int rc = 0;
    hssize_t cnt = -1;
    if (ds < 0 || (sp = H5Dget_space(ds)) < 0 || (cnt = H5Sget_simple_extent_npoints(sp)) < 0 ||
        (t = type_fn()) < 0) {
        rc = dike_err_set(e, DIKE_EINVAL, "%s: cannot read dataset %s", path, name);
        goto out;
    }
    *rows = dike_xcalloc(cnt ? (size_t)cnt : 1, row);
    if (cnt && H5Dread(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, *rows) < 0) {
        free(*rows);
        *rows = NULL;
        rc = dike_err_set(e, DIKE_EINVAL, "%s: cannot read the rows of %s", path, name);
        goto out;
    }
    *n = (size_t)cnt;
out:
    if (t >= 0)
        H5Tclose(t);
    if (sp >= 0)
        H5Sclose(sp);
    if (ds >= 0)
        H5Dclose(ds);
    return rc;
}

int dike_h5in_jobs(hid_t file, const char *path, dike_job_record **rows, size_t *n, dike_err *e)
{
    return read_table(file, path, "/jobs", dike_h5_job_type, sizeof **rows, (void **)rows, n, e);
}

int dike_h5in_tenants(hid_t file, const char *path, dike_tenant_record **rows, size_t *n, dike_err *e)
{
    return read_table(file, path, "/tenants", dike_h5_tenant_type, sizeof **rows, (void **)rows, n, e);
}

static hid_t u64_type(void)
{
    return H5Tcopy(H5T_NATIVE_UINT64);
}

static hid_t u32_type(void)
{
    return H5Tcopy(H5T_NATIVE_UINT32);
}

int dike_h5in_job_nodes(hid_t file, const char *path, size_t njobs, uint64_t **off, uint32_t **ids,
                         dike_err *e)
{
    *off = NULL;
    *ids = NULL;
    if (H5Lexists(file, "/job_nodes", H5P_DEFAULT) <= 0)
        return 0; /* written before /job_nodes existed */
    size_t noff = 0, nids = 0;
    int rc = read_table(file, path, "/job_nodes/offset", u64_type, sizeof **off, (void **)off, &noff, e);
    if (!rc)
        rc = read_table(file, path, "/job_nodes/node", u32_type, sizeof **ids, (void **)ids, &nids, e);
    for (size_t i = 0; !rc && i < noff; i++)
        if (noff != njobs + 1 || (*off)[0] != 0 || (i && (*off)[i] < (*off)[i - 1]) || (*off)[i] > nids)
            rc = dike_err_set(e, DIKE_EINVAL, "%s: /job_nodes/offset does not index /job_nodes/node "
                              "for the %zu jobs of /jobs", path, njobs);
    if (!rc && noff != njobs + 1)
        rc = dike_err_set(e, DIKE_EINVAL, "%s: /job_nodes/offset has %zu entries for %zu jobs", path,
                          noff, njobs);
    if (rc) {
        free(*off);
        free(*ids);
        *off = NULL;
        *ids = NULL;
    }
    return rc;
}
