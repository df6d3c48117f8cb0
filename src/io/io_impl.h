/* io_impl.h — internal helpers shared by the I/O modules (not part of the public API). */
#ifndef TVDS_IO_IMPL_H
#define TVDS_IO_IMPL_H

#include <stdio.h>

#include "tvds/tvds_io.h"

/* Make ctx the context that receives CHOLMOD errors on this thread and return the previous
 * one, so that a helper can route errors to its own caller's context and restore afterwards. */
tvds_ctx *tvds_io_cholmod_ctx_swap(tvds_ctx *ctx);

/* Bounds on an input file opened as f (path for the message): it must be a regular file (not a
 * device such as /dev/zero, a FIFO or a directory, which have no end or no size) no larger than
 * half the physical memory (readers hold a whole file in memory). Returns TVDS_OK, or
 * TVDS_ERR_IO with a message naming the file; what names the role ("table file", "case file"),
 * may be NULL. */
int tvds_input_file_check(const char *path, const char *what, FILE *f, tvds_ctx *ctx);

#endif
