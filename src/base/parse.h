/* Internal (base layer): strict parsing of numbers, CSV lines and the "name:number,..." lists of
 * the config (cluster.gpu_types, cluster.gpu_speeds, workload.gpu_mix). One parser per thing,
 * shared by the config checks, the trace and node-list readers, the cluster model and the synthetic
 * generator, so a value one part accepts is exactly a value the others can use. */
#ifndef DIKE_BASE_PARSE_H
#define DIKE_BASE_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "dike/base.h"
#include "dike/cluster.h"

#define DIKE__MIX_MAX 64 /* entries of workload.gpu_mix */

/* Whole-string number parsers: no leading/trailing blanks or junk, no empty string; doubles must be
 * finite. They return NULL on success, else a short reason ("not an integer", ...). */
const char *dike_parse_i64(const char *s, int64_t *v);
const char *dike_parse_f64(const char *s, double *v);
/** Strip blanks (space, tab, CR, LF) from both ends of @p s in place; returns the new start. */
char *dike_trim(char *s);
/** Split the CSV line @p s in place at commas into at most @p max trimmed fields (no quoting: none
 *  of the formats read here quotes). Returns the number of fields found, which may exceed @p max:
 *  the extra ones are counted, not stored, so callers can tell "too many columns". */
size_t dike_split_csv(char *s, char **fields, size_t max);

/* Longest line of a trace, node list or weight file: 1 MiB. A longer line is refused rather than
 * read whole (a file without line ends, such as /dev/zero, would otherwise be read into memory). */
#define DIKE__LINE_MAX ((size_t)1 << 20)
/** getline(3) that reads at most @p max bytes of one line: returns the line length (with its
 *  '\n'), -1 at end of file or on a read error (ferror tells), -2 when the line is longer than
 *  @p max (the rest of the file is not read). */
long dike_getline_capped(char **buf, size_t *cap, FILE *fp, size_t max);
/** 0 if @p path is absent or a regular file; else DIKE_EINVAL "PATH: not a regular file (a FIFO):
 *  ..." naming @p what ("trace", "configuration file"): inputs are opened more than once. */
int dike_input_regular(const char *path, const char *what, dike_err *e);

typedef struct dike_type_count {
    char name[DIKE_GPU_TYPE_NAME]; /**< GPU type name */
    uint32_t nodes;                /**< nodes of this type */
} dike_type_count;

typedef struct dike_type_speed {
    char name[DIKE_GPU_TYPE_NAME]; /**< GPU type name */
    double speed;                  /**< relative throughput, > 0 */
} dike_type_speed;

typedef struct dike_mix_entry {
    uint32_t gpus;  /**< gang size, >= 1 */
    double weight;  /**< relative weight, >= 0 (not normalised) */
} dike_mix_entry;

/* Each parser returns 0, or DIKE_EINVAL with a reason (no key prefix) in why[whylen].
 * Empty or blank text is a valid empty list (*n = 0). */
int dike_parse_gpu_types(const char *text, dike_type_count out[DIKE_MAX_GPU_TYPES], size_t *n,
                          char *why, size_t whylen);
int dike_parse_gpu_speeds(const char *text, dike_type_speed out[DIKE_MAX_GPU_TYPES], size_t *n,
                           char *why, size_t whylen);
int dike_parse_gpu_mix(const char *text, dike_mix_entry out[DIKE__MIX_MAX], size_t *n, char *why,
                        size_t whylen);

#endif
