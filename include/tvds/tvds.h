/* tvds.h — status codes, error context and allocation hooks shared by every tvds module. */
#ifndef TVDS_TVDS_H
#define TVDS_TVDS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TVDS_API          __attribute__((visibility("default")))
#define TVDS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TVDS_API
#define TVDS_PRINTF(a, b)
#endif

#define TVDS_VERSION "0.1.0"

/* One table gives every status code, its value and its message.
 * TVDS_OK = 0, errors negative, warnings positive. */
#define TVDS_STATUS_TABLE(X)                                                                       \
    X(TVDS_OK, 0, "success")                                                                       \
    X(TVDS_WARN_CLAMPED, 1, "a value was clamped to its valid range")                              \
    X(TVDS_WARN_NO_GNUPLOT, 2, "gnuplot not available: figure not drawn")                          \
    X(TVDS_WARN_NOT_CONVERGED, 3, "an iterative solve stopped before its tolerance")               \
    X(TVDS_WARN_CONTACT_OPEN, 4, "a contact never closed during the run")                          \
    X(TVDS_ERR_NOMEM, -1, "out of memory")                                                         \
    X(TVDS_ERR_IO, -2, "cannot open, read or write a file")                                        \
    X(TVDS_ERR_PARSE, -3, "malformed input file")                                                  \
    X(TVDS_ERR_INVALID, -4, "invalid model or argument")                                           \
    X(TVDS_ERR_NOT_POSDEF, -5, "matrix is not positive definite")                                  \
    X(TVDS_ERR_UNSTABLE_DT, -6, "time step above the stability limit")                             \
    X(TVDS_ERR_SINGULAR, -7, "singular or wrongly-signed constraint operator")                     \
    X(TVDS_ERR_DIVERGED, -8, "divergence: non-finite or runaway state")                            \
    X(TVDS_ERR_CONTACT_LOST, -9, "slave node left the master surface")                             \
    X(TVDS_ERR_SOLVER, -10, "numerical library failure")                                           \
    X(TVDS_ERR_INTERRUPTED, -11, "interrupted")                                                    \
    X(TVDS_ERR_INTERNAL, -12, "internal error")                                                    \
    X(TVDS_ERR_BUSY, -13, "output directory in use by another tvds process")                       \
    X(TVDS_ERR_WRITE, -14, "cannot write an output file")

enum tvds_status {
#define TVDS_STATUS_ENUM(name, value, msg) name = value,
    TVDS_STATUS_TABLE(TVDS_STATUS_ENUM)
#undef TVDS_STATUS_ENUM
};

/* Message of a status code; never NULL. */
TVDS_API const char *tvds_strerror(int status);
/* Symbolic name of a status code ("TVDS_ERR_PARSE"); never NULL. */
TVDS_API const char *tvds_status_name(int status);
/* Process exit code the CLI uses for a status: 0 ok (warnings included), 2 bad input or an
 * output directory in use by another run, 3 divergence, solver failure or interruption,
 * 1 internal error (out of memory, an output file that cannot be written: disk full). */
TVDS_API int tvds_status_exit_code(int status);

/* Error context: the library never prints; it records the first error here.
 * msg is user-facing and already names the input file and line where there is one
 * ("case.ini:12: unknown key 'mu'"); src_file/src_line locate the library code. */
typedef struct tvds_ctx {
    int status;           /* first error recorded, TVDS_OK if none */
    char msg[1024];       /* one line, no trailing newline */
    const char *src_file; /* library source file that recorded the error */
    int src_line;
} tvds_ctx;

/* Reset a context to TVDS_OK with an empty message. */
TVDS_API void tvds_ctx_init(tvds_ctx *ctx);
/* Record an error (the first one wins; later ones are ignored) and return code.
 * ctx may be NULL. Use through TVDS_ERROR. */
TVDS_API int tvds_error_at(tvds_ctx *ctx, int code, const char *src_file, int src_line,
                           const char *fmt, ...) TVDS_PRINTF(5, 6);
#define TVDS_ERROR(ctx, code, ...) tvds_error_at((ctx), (code), __FILE__, __LINE__, __VA_ARGS__)

/* Allocation: every allocation in tvds goes through these, so that tests can count them and
 * make the Nth one fail. Same contracts as malloc/calloc/realloc/free. */
TVDS_API void *tvds_malloc(size_t size);
TVDS_API void *tvds_calloc(size_t n, size_t size);
TVDS_API void *tvds_realloc(void *p, size_t size);
TVDS_API void tvds_free(void *p);
TVDS_API char *tvds_strdup(const char *s);
/* Test hooks: number of successful allocations so far (malloc, calloc, realloc), and
 * make the allocation after `n` more succeed fail (n < 0 disables injection). */
TVDS_API long tvds_alloc_count(void);
TVDS_API void tvds_alloc_fail_after(long n);

#ifdef __cplusplus
}
#endif
#endif
