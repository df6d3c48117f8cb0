/* io_impl.h — internal helpers shared by the I/O modules (not part of the public API). */
#ifndef TVDS_IO_IMPL_H
#define TVDS_IO_IMPL_H

#include "tvds/tvds_io.h"

/* Make ctx the context that receives CHOLMOD errors on this thread and return the previous
 * one, so that a helper can route errors to its own caller's context and restore afterwards. */
tvds_ctx *tvds_io_cholmod_ctx_swap(tvds_ctx *ctx);

#endif
