/* Where, when and by what an output file was made (root attributes of docs/output-schema.md):
 * facts of the process rather than of the run's configuration, so they are kept here and read by
 * the HDF5 writer instead of travelling through every run's arguments. */
#ifndef DIKE_PROVENANCE_H
#define DIKE_PROVENANCE_H

#include <stdint.h>

/** The provenance attributes of one output file. */
typedef struct dike_provenance {
    char created_utc[32];    /**< when the file was written, ISO 8601 UTC ("2026-12-01T02:20:00Z") */
    char host[256];          /**< host name of rank 0 */
    const char *command_line;/**< the process's command line, shell-quoted ("" if never noted) */
    const char *build;       /**< `git describe --always --dirty --tags` at build time, or "unknown" */
    const char *source_sha256; /**< SHA-256 over the emulator's sources at build time (src/, include/,
                                    CMakeLists.txt: cmake/build_id.cmake), 64 hex digits */
    const char *compiler;    /**< C compiler id and version ("GNU 12.2.0") */
    char hdf5_version[32];   /**< HDF5 library in use ("1.10.8") */
    char mpi_version[256];   /**< first line of MPI_Get_library_version */
    const char *campaign;    /**< campaign name, "" outside a campaign */
    int64_t campaign_point;  /**< point index in the campaign, -1 outside a campaign */
    const char *campaign_axes; /**< the point's axis values, one "section.key = value" line each */
} dike_provenance;

/** Remember the command line (main() calls it once; later calls replace it). */
void dike_provenance_note_command(int argc, char **argv);

/** Mark the runs that follow as point @p point of campaign @p name with @p axes (see
 *  dike_provenance.campaign_axes); @p name NULL ends the campaign point. Copies the strings. */
void dike_provenance_note_campaign(const char *name, int64_t point, const char *axes);

/** This binary's build (`git describe` at build time, or "unknown") and the SHA-256 of its
 *  emulator sources (64 hex digits): the constants of dike_provenance.build and .source_sha256,
 *  without the rest of dike_provenance_get's look-ups. */
const char *dike_provenance_build(void);
const char *dike_provenance_source(void);

/** Fill @p p for a file written now; the pointers stay valid until the next note call. */
void dike_provenance_get(dike_provenance *p);

#endif
