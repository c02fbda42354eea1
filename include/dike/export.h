/* Reading a dike-emu output file back: its stored configuration (run --config-from) and its
 * tables as other formats (dike-emu export; columns in docs/output-schema.md, "Exports"). */
#ifndef DIKE_EXPORT_H
#define DIKE_EXPORT_H

#include "dike/base.h"

/** The resolved configuration stored in the complete output @p path (its `config` attribute), as
 *  INI text; caller frees *@p text. DIKE_EINVAL if @p path is not a complete dike-emu output. */
int dike_output_config(const char *path, char **text, dike_err *e);

/** The `source_sha256` and `build` attributes of output @p path (the emulator sources and build that
 *  computed it); each "" in an output written before it had them. The caller frees both. */
int dike_output_source(const char *path, char **source, char **build, dike_err *e);

/** Write the per-job table of output @p h5 as CSV (RFC 4180) to @p jobs_csv and its summary as
 *  JSON to @p summary_json; either may be NULL (not written) or "-" (standard output). Each file
 *  is written under a temporary name and renamed when complete; on error none is left. */
int dike_export(const char *h5, const char *jobs_csv, const char *summary_json, dike_err *e);

#endif
