/* Output paths: what a run may write over, temporary names, stale temporary files.
 *
 * A run writes two kinds of file: the output (--out, run.out) and checkpoints (--checkpoint,
 * run.checkpoint). Both are built under a temporary name in the same folder and renamed over the
 * final name when complete. Before anything runs, rank 0 checks that neither final name is
 * something a run must never replace: a device, a FIFO, a folder or any other non-regular file;
 * a file the run reads (a trace, a configuration file, a node list, a tenant weight file, the
 * checkpoint being resumed); or the other output. Files are compared by (st_dev, st_ino), so a
 * different spelling of the same file (symlink, "./", hard link) is caught as well. */
#ifndef DIKE_OUTPATH_H
#define DIKE_OUTPATH_H

#include <stddef.h>

#include "dike/base.h"
#include "dike/config.h"

/** Temporary name of @p path: "<path>.tmp-<host>-<pid>" (host = gethostname, pid = this process).
 *  A stale one can be told apart from a live one: same host and no such process. */
void dike_tmp_name(const char *path, char *out, size_t n);

/** Remove the temporary files of @p path ("<path>.tmp-<host>-<pid>") left by dead runs: only those
 *  whose host is this host and whose pid is not a live process here (kill(pid, 0) fails with
 *  ESRCH). A file of another host, of a live process, or of an unparsable name is never touched.
 *  Each removal is reported on stderr as one line. Returns the number removed. */
int dike_tmp_sweep(const char *path);

/** Remember a file this process reads as input (a configuration file given with -c), so that an
 *  output naming the same file is refused. Rank-local; the list lives until the process ends. */
void dike_paths_note_input(const char *path);

/** Check the output @p out and the checkpoint @p ckpt before a run (rank 0). Refused, with one
 *  DIKE_EINVAL message: a path that exists and is not a regular file (symlinks are followed); a
 *  path that is the same file as an input (the noted configuration files, every file of
 *  cfg->workload_trace including those in a listed folder, cluster.nodes_file,
 *  tenants.weights=file:PATH, and for @p out also @p resume, the checkpoint being resumed); @p out
 *  and @p ckpt naming the same file. @p ckpt may equal @p resume (a resumed run replaces its own
 *  checkpoint). Then the folder of @p out must be writable (dike_h5_check_writable). */
int dike_output_paths_check(const dike_config *cfg, const char *out, const char *ckpt,
                            const char *resume, dike_err *e);

/** Just before rename(2) over @p path: 0 if @p path is absent, a regular file or a symlink (the
 *  link itself is replaced), else DIKE_EIO with a message. */
int dike_rename_target_ok(const char *path, const char *what, dike_err *e);

/** Write @p len bytes as the whole content of @p path (created, or truncated), then fsync.
 *  Returns 0 or the errno of the first failure. */
int dike_write_whole_file(const char *path, const void *bytes, size_t len);

#endif
