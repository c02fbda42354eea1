/* Internal (base layer): what the files module shares with the output-path checks of the io layer. */
#ifndef DIKE_BASE_FILES_H
#define DIKE_BASE_FILES_H

#include <sys/types.h>

/** "a folder", "a FIFO", ...: what a non-regular file of mode @p m is, for messages. */
const char *dike_file_kind(mode_t m);

#endif
