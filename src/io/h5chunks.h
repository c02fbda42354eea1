/* Chunks of rank 0's tables filtered by every rank (internal to src/io).
 *
 * Rank 0 alone writes /jobs and the other serial tables (h5out.c, phase 2), with HDF5's shuffle and
 * deflate filters. At millions of jobs the deflate is most of the writer's time (docs/performance.md,
 * "The output's deflate shared by the ranks"), and the other ranks have nothing left to do. So rank 0
 * filters the chunks itself, in batches handed out to every rank of the run, and stores the results
 * with H5Dwrite_chunk (a run on one rank, and a table of fewer than 64 chunks, leave the
 * filtering to HDF5, which is faster alone): the bytes are those HDF5's filters make (the same byte shuffle, zlib's
 * compress2 at the same level), so a reader cannot tell the difference, and the file does not
 * depend on the number of ranks. */
#ifndef DIKE_IO_H5CHUNKS_H
#define DIKE_IO_H5CHUNKS_H

#include <mpi.h>
#include <stddef.h>

/** HDF5's shuffle filter: byte b of element i of @p in goes to b * @p nelem + i of @p out (the
 *  n * esize bytes of a chunk; trailing bytes that make no whole element, none here, are not
 *  moved). */
void dike_h5_shuffle(const unsigned char *in, unsigned char *out, size_t nelem, size_t esize);

/** Rank 0: shuffle (element size @p esize) and deflate (zlib level @p level) @p n chunks of
 *  @p chunk_bytes each, stored one after another at @p raw. Chunk k's result goes to
 *  *@p out + @p off[k], @p size[k] bytes (*out: a buffer of this module, kept for the next call
 *  until dike_h5_chunks_release or dike_h5_chunks_end). With a
 *  communicator set by dike_h5_chunks_begin the chunks are shared among its ranks, which wait in
 *  dike_h5_chunks_serve; otherwise rank 0 filters them alone. Returns 0, or -1 if zlib failed
 *  (out of memory). */
int dike_h5_chunks_filter(const unsigned char *raw, size_t n, size_t chunk_bytes, size_t esize,
                          int level, unsigned char **out, size_t *off, size_t *size);

/** Free the buffers kept between calls (dike_h5_chunks_end does it too). */
void dike_h5_chunks_release(void);
/** Rank 0: share the following dike_h5_chunks_filter calls with the ranks of @p comm (which must
 *  then all be in dike_h5_chunks_serve) until dike_h5_chunks_end. */
void dike_h5_chunks_begin(MPI_Comm comm);
/** 1 between dike_h5_chunks_begin and dike_h5_chunks_end on more than one rank: the chunks are
 *  worth filtering here (alone, HDF5's own filters on H5Dwrite are as fast or faster). */
int dike_h5_chunks_shared(void);
/** Rank 0: release the other ranks from dike_h5_chunks_serve (always, also after a failure). */
void dike_h5_chunks_end(void);
/** Ranks other than 0: filter the chunks rank 0 hands out until it calls dike_h5_chunks_end. */
void dike_h5_chunks_serve(MPI_Comm comm);

#endif
