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

/* Open an input file for reading without ever blocking on it: open(2) with O_NONBLOCK (a FIFO
 * without a writer, a terminal or a device returns at once), the checks of
 * tvds_input_file_check on the descriptor, then blocking mode again and fdopen. Every reader of
 * tvds opens its files through this. Returns the stream, or NULL: when open(2) fails errno
 * holds the reason and nothing is recorded (the caller says "cannot open" in its own words);
 * when the file is refused (not regular, too large) the message is recorded in ctx and errno
 * is 0. */
FILE *tvds_input_open(const char *path, const char *what, tvds_ctx *ctx);
/* The error of a failed tvds_input_open: records "PATH: cannot open: <reason>" when open(2)
 * failed, and returns TVDS_ERR_IO either way. */
int tvds_input_open_error(const char *path, tvds_ctx *ctx);

#endif
