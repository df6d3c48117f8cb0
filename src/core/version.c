/* version.c — the library's version at run time and the error context on the heap. */
#include "tvds/tvds.h"

const char *tvds_version(int *major, int *minor, int *patch)
{
    if (major) *major = TVDS_VERSION_MAJOR;
    if (minor) *minor = TVDS_VERSION_MINOR;
    if (patch) *patch = TVDS_VERSION_PATCH;
    return TVDS_VERSION;
}

tvds_ctx *tvds_ctx_create(void)
{
    tvds_ctx *ctx = tvds_malloc(sizeof *ctx);
    if (ctx) tvds_ctx_init(ctx);
    return ctx;
}

void tvds_ctx_free(tvds_ctx **ctx)
{
    if (!ctx || !*ctx) return;
    tvds_free(*ctx);
    *ctx = NULL;
}

int tvds_ctx_status(const tvds_ctx *ctx)
{
    return ctx ? ctx->status : TVDS_ERR_INVALID;
}

const char *tvds_ctx_message(const tvds_ctx *ctx)
{
    return ctx ? ctx->msg : "";
}
