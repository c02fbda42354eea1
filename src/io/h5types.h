/* HDF5 memory types of the output tables (docs/output-schema.md), shared by the writer (h5out.c)
 * and any reader. Each function returns a new compound type laid out like the C struct of
 * dike/results.h, or H5I_INVALID_HID on failure; the caller closes it with H5Tclose. Reading a
 * dataset with one of these types lets HDF5 convert from the packed on-disk layout. */
#ifndef DIKE_IO_H5TYPES_H
#define DIKE_IO_H5TYPES_H

#include <hdf5.h>
#include <stddef.h>

/** Rows of /jobs (dike_job_record). */
hid_t dike_h5_job_type(void);
/** Rows of /tenants (dike_tenant_record). */
hid_t dike_h5_tenant_type(void);
/** Rows of /nodes (dike_node_record). */
hid_t dike_h5_node_type(void);
/** Rows of /perf (dike_perf_record). */
hid_t dike_h5_perf_type(void);

/** Rows of /decide (dike_decide_record). */
hid_t dike_h5_decide_type(void);

/** Fixed-length, NUL-terminated C string of @p size bytes (the string columns of the tables). */
hid_t dike_h5_str_type(size_t size);

#endif
