/* Reading a complete dike-emu output (serially, rank 0 or a tool): open it, read string
 * attributes and the /jobs and /tenants tables. Used by run --config-from and dike-emu export. */
#ifndef DIKE_IO_H5IN_H
#define DIKE_IO_H5IN_H

#include <hdf5.h>
#include <stddef.h>
#include "dike/base.h"
#include "dike/results.h"

/** Open @p path read-only; DIKE_EIO if it cannot be read, DIKE_EINVAL if it is not a complete
 *  dike-emu output (no schema_version) or of another schema version. HDF5's own error printing
 *  is off until dike_h5in_close. */
int dike_h5in_open(const char *path, hid_t *file, dike_err *e);
void dike_h5in_close(hid_t file);

/** Scalar string attribute @p name of @p obj (variable or fixed length); caller frees. */
int dike_h5in_str_attr(hid_t obj, const char *path, const char *name, char **out, dike_err *e);
/** The same for an attribute a file may lack (written by an older build): "" when it has none. */
int dike_h5in_opt_str_attr(hid_t obj, const char *path, const char *name, char **out, dike_err *e);

/** Every row of /jobs or /tenants; caller frees *rows. */
int dike_h5in_jobs(hid_t file, const char *path, dike_job_record **rows, size_t *n, dike_err *e);
int dike_h5in_tenants(hid_t file, const char *path, dike_tenant_record **rows, size_t *n, dike_err *e);
/** /job_nodes of a file with @p njobs jobs: offsets (njobs + 1) and node ids (caller frees both);
 *  both NULL, and 0 returned, for a file written before /job_nodes existed. */
int dike_h5in_job_nodes(hid_t file, const char *path, size_t njobs, uint64_t **off, uint32_t **ids,
                         dike_err *e);

#endif
