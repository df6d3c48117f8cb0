/* tvds_io.h — strict Matrix Market I/O and substructure directories (docs/formats.md). */
#ifndef TVDS_IO_H
#define TVDS_IO_H

#include <cholmod.h>

#include "tvds/tvds_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Start a CHOLMOD common for tvds: nothing printed, errors routed to the tvds_ctx that is
 * current on this thread (see tvds_cholmod_ctx), LL' factorizations so that an indefinite
 * matrix is reported, not factored as LDL'. Pair with cholmod_finish. */
TVDS_API int tvds_cholmod_start(cholmod_common *cc);
/* Make ctx receive CHOLMOD's error reports on this thread (NULL to stop). */
TVDS_API void tvds_cholmod_ctx(tvds_ctx *ctx);

/* Read a real Matrix Market file strictly (coordinate or array; general or symmetric).
 * Any defect is an error "path:line: what is wrong". Symmetric files give stype = +1 (upper
 * triangle stored), general ones stype = 0. *A is owned by the caller (cholmod_free_sparse). */
TVDS_API int tvds_mm_read(const char *path, cholmod_sparse **A, cholmod_common *cc, tvds_ctx *ctx);
/* Write A (any stype; stype != 0 written as symmetric, lower triangle) with %.17g values that
 * read back bit for bit. comment may be NULL. */
TVDS_API int tvds_mm_write(const char *path, const cholmod_sparse *A, const char *comment,
                           tvds_ctx *ctx);

/* Dense convenience for small reduced matrices: *A is nrows x ncols column-major (symmetric
 * files expanded to both triangles), allocated with tvds_malloc, owned by the caller.
 * *symmetric (may be NULL) tells whether the file declared symmetry. */
TVDS_API int tvds_mm_read_dense(const char *path, int *nrows, int *ncols, double **A,
                                int *symmetric, tvds_ctx *ctx);
/* Write a dense column-major matrix as coordinate Matrix Market (zeros skipped); symmetric
 * writes the lower triangle and requires A to be exactly symmetric. */
TVDS_API int tvds_mm_write_dense(const char *path, int nrows, int ncols, const double *A,
                                 int symmetric, const char *comment, tvds_ctx *ctx);

/* Read a substructure directory (M.mtx, K.mtx, optional C.mtx, dofs table, node sets,
 * recovery rows) and validate it (tvds_substructure_validate). A directory with a
 * manifest.txt (written by `tvds reduce`) is first checked against it (tvds_manifest_check):
 * files of two writes are refused. name may be NULL (then the directory's base name). *s owned
 * by the caller (tvds_substructure_free). */
TVDS_API int tvds_substructure_read(const char *dir, const char *name, tvds_substructure **s,
                                    tvds_ctx *ctx);
/* Write s as a substructure directory (created if missing) that reads back bit for bit. */
TVDS_API int tvds_substructure_write(const tvds_substructure *s, const char *dir, tvds_ctx *ctx);
/* The names of the files a substructure directory may hold (M.mtx, K.mtx, C.mtx, dofs.txt,
 * sets.txt, recovery.txt, recovery.mtx): *names points at a static table; returns its length. */
TVDS_API int tvds_substructure_files(const char *const **names);
/* Check a substructure as a whole: sizes, DoF table, duplicate DoF labels, node sets naming
 * known nodes, M and K symmetric, M positive definite (CHOLMOD LL'), K positive semidefinite. */
TVDS_API int tvds_substructure_validate(const tvds_substructure *s, tvds_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
