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

/* Version of this header (docs/library.md, "Versions and ABI"). The shared library's soname is
 * libtvds.so.TVDS_VERSION_MAJOR: MAJOR changes when the ABI breaks (a removed or changed
 * function, a changed public struct or enum value), MINOR when functions are added, PATCH for
 * fixes. TVDS_VERSION_NUMBER orders versions: MAJOR * 10000 + MINOR * 100 + PATCH. */
#define TVDS_VERSION_MAJOR 0
#define TVDS_VERSION_MINOR 3
#define TVDS_VERSION_PATCH 0
#define TVDS_VERSION_NUMBER                                                                        \
    (TVDS_VERSION_MAJOR * 10000 + TVDS_VERSION_MINOR * 100 + TVDS_VERSION_PATCH)
#define TVDS_STR_(x) #x
#define TVDS_STR(x)  TVDS_STR_(x)
#define TVDS_VERSION                                                                               \
    TVDS_STR(TVDS_VERSION_MAJOR) "." TVDS_STR(TVDS_VERSION_MINOR) "." TVDS_STR(TVDS_VERSION_PATCH)

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

/* Version of the library linked at run time, "MAJOR.MINOR.PATCH" (TVDS_VERSION of the build
 * that made it); compare it with the TVDS_VERSION a program was compiled against. Never NULL.
 * *major, *minor, *patch receive the numbers when not NULL. */
TVDS_API const char *tvds_version(int *major, int *minor, int *patch);

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

/* A context on the heap, for callers that do not mirror struct tvds_ctx (language bindings):
 * NULL on allocation failure; free with tvds_ctx_free (accepts NULL, clears *ctx). */
TVDS_API tvds_ctx *tvds_ctx_create(void);
TVDS_API void tvds_ctx_free(tvds_ctx **ctx);
/* First status recorded (TVDS_OK if none) and its message ("" if none); never NULL. The
 * message stays valid until the context is reset or freed. */
TVDS_API int tvds_ctx_status(const tvds_ctx *ctx);
TVDS_API const char *tvds_ctx_message(const tvds_ctx *ctx);

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

#ifdef __cplusplus
}
#endif
#endif
