/* status.c — status-code table, error context and the counting allocator. */
#include "tvds/tvds.h"
#include "core/test_hooks_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tvds_strerror(int status)
{
    switch (status) {
#define TVDS_STATUS_MSG(name, value, msg)                                                          \
    case value:                                                                                    \
        return msg;
        TVDS_STATUS_TABLE(TVDS_STATUS_MSG)
#undef TVDS_STATUS_MSG
    }
    return "unknown status";
}

const char *tvds_status_name(int status)
{
    switch (status) {
#define TVDS_STATUS_NAME(name, value, msg)                                                         \
    case value:                                                                                    \
        return #name;
        TVDS_STATUS_TABLE(TVDS_STATUS_NAME)
#undef TVDS_STATUS_NAME
    }
    return "TVDS_UNKNOWN";
}

int tvds_status_exit_code(int status)
{
    switch (status) {
    case TVDS_OK:
        return 0;
    case TVDS_ERR_IO:
    case TVDS_ERR_PARSE:
    case TVDS_ERR_INVALID:
    case TVDS_ERR_NOT_POSDEF:
    case TVDS_ERR_UNSTABLE_DT:
    case TVDS_ERR_BUSY:
        return 2;
    case TVDS_ERR_SINGULAR:
    case TVDS_ERR_DIVERGED:
    case TVDS_ERR_CONTACT_LOST:
    case TVDS_ERR_SOLVER:
    case TVDS_ERR_INTERRUPTED:
        return 3;
    case TVDS_ERR_WRITE: /* disk full or write error: not the input, not the physics */
    default:
        return status > 0 ? 0 : 1;
    }
}

void tvds_ctx_init(tvds_ctx *ctx)
{
    if (!ctx) return;
    ctx->status = TVDS_OK;
    ctx->msg[0] = '\0';
    ctx->src_file = NULL;
    ctx->src_line = 0;
}

int tvds_error_at(tvds_ctx *ctx, int code, const char *src_file, int src_line, const char *fmt, ...)
{
    if (!ctx || ctx->status != TVDS_OK) return code;
    ctx->status = code;
    ctx->src_file = src_file;
    ctx->src_line = src_line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->msg, sizeof ctx->msg, fmt, ap);
    va_end(ap);
    /* One line: a message never carries a newline to the terminal. */
    for (char *p = ctx->msg; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    return code;
}

/* Allocation counting and failure injection. Not thread-safe by design: injection is a
 * single-threaded test facility; counting under threads is approximate but harmless. */
static long alloc_count;
static long alloc_fail_at = -1; /* absolute count at which allocation fails, -1 = never */

static int alloc_should_fail(void)
{
    return alloc_fail_at >= 0 && alloc_count >= alloc_fail_at;
}

void *tvds_malloc(size_t size)
{
    if (alloc_should_fail()) return NULL;
    void *p = malloc(size ? size : 1);
    if (p) alloc_count++;
    return p;
}

void *tvds_calloc(size_t n, size_t size)
{
    if (alloc_should_fail()) return NULL;
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (p) alloc_count++;
    return p;
}

void *tvds_realloc(void *p, size_t size)
{
    if (alloc_should_fail()) return NULL;
    void *q = realloc(p, size ? size : 1);
    if (q) alloc_count++;
    return q;
}

void tvds_free(void *p)
{
    free(p);
}

char *tvds_strdup(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = tvds_malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

long tvds_alloc_count(void)
{
    return alloc_count;
}

void tvds_alloc_fail_after(long n)
{
    alloc_fail_at = n < 0 ? -1 : alloc_count + n;
}
