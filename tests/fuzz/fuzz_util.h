/* fuzz_util.h — helpers shared by the libFuzzer targets: a private scratch directory in
 * /dev/shm, writing fuzzed bytes to files, splitting an input into parts, invariant checks. */
#ifndef TVDS_FUZZ_UTIL_H
#define TVDS_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tvds/tvds.h"

/* A violated invariant: print why and abort, which libFuzzer reports as a crash and saves. */
#define FUZZ_ASSERT(cond, ...)                                                                     \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant violated: %s: ", __FILE__, __LINE__, #cond);         \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static char fuzz_dir[64];

static void fuzz_rmtree(void)
{
    if (!fuzz_dir[0]) return;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_dir);
    if (system(cmd) != 0) { /* nothing to do: a leftover scratch dir in /dev/shm */
    }
}

/* Create the scratch directory once (in /dev/shm when it exists, else /tmp). */
static const char *fuzz_scratch(void)
{
    if (fuzz_dir[0]) return fuzz_dir;
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(fuzz_dir, sizeof fuzz_dir, "%s/tvds-fuzz-XXXXXX", base);
    if (!mkdtemp(fuzz_dir)) {
        perror("mkdtemp");
        abort();
    }
    atexit(fuzz_rmtree);
    return fuzz_dir;
}

/* Write n bytes to dir/name (dir NULL: the scratch dir); returns the full path (static). */
static const char *fuzz_write(const char *dir, const char *name, const uint8_t *data, size_t n)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : fuzz_scratch(), name);
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0) {
        perror(path);
        abort();
    }
    return path;
}

/* Copy a file (used to set up fixed inputs next to the fuzzed ones). */
static void fuzz_copy(const char *from, const char *dir, const char *name)
{
    FILE *f = fopen(from, "rb");
    if (!f) {
        perror(from);
        abort();
    }
    char buf[65536];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    fuzz_write(dir, name, (const uint8_t *)buf, n);
}

/* Split data at the separator line "@@@\n": part k is [*b, *b + *n); returns the number of
 * parts found (at most max). */
static int fuzz_split(const uint8_t *data, size_t size, const uint8_t **b, size_t *n, int max)
{
    static const char sep[] = "@@@\n";
    int k = 0;
    size_t start = 0;
    for (size_t i = 0; i + 4 <= size && k < max - 1; i++)
        if (memcmp(data + i, sep, 4) == 0 && (i == 0 || data[i - 1] == '\n')) {
            b[k] = data + start;
            n[k] = i - start;
            k++;
            start = i + 4;
            i += 3;
        }
    b[k] = data + start;
    n[k] = size - start;
    return k + 1;
}

/* The error contract every reader follows: failure <=> ctx->status is that code and the
 * message is one non-empty line. */
static void fuzz_check_status(int rc, const tvds_ctx *ctx)
{
    if (rc == TVDS_OK) {
        FUZZ_ASSERT(ctx->status == TVDS_OK, "success but ctx holds %d: %s", ctx->status, ctx->msg);
        return;
    }
    FUZZ_ASSERT(rc < 0, "unexpected status %d", rc);
    FUZZ_ASSERT(ctx->status == rc, "returned %d but ctx holds %d (%s)", rc, ctx->status, ctx->msg);
    FUZZ_ASSERT(ctx->msg[0] != '\0', "error %d without a message", rc);
    FUZZ_ASSERT(strchr(ctx->msg, '\n') == NULL, "message has a newline: %s", ctx->msg);
    FUZZ_ASSERT(strcmp(tvds_status_name(rc), "TVDS_UNKNOWN") != 0, "unknown status %d", rc);
}

/* The sparse Matrix Market reader allocates O(rows + columns) (CSC column pointers, CHOLMOD's
 * conversion workspace) and the dense reader rows x columns, whatever the number of entries: a
 * valid 60-byte file can declare a 10^9 x 10^9 empty matrix. That is by design
 * (docs/reliability.md), so inputs whose size line declares a dimension above `limit` are
 * skipped. The size line is the first line after the banner that is neither blank nor a
 * comment. */
static int fuzz_mm_too_big(const uint8_t *data, size_t size, long long limit)
{
    size_t i = 0;
    int lineno = 0;
    while (i < size) {
        size_t e = i;
        while (e < size && data[e] != '\n')
            e++;
        lineno++;
        size_t b = i;
        while (b < e && (data[b] == ' ' || data[b] == '\t' || data[b] == '\r'))
            b++;
        if (lineno > 1 && b < e && data[b] != '%') {
            char line[128];
            size_t n = e - b < sizeof line - 1 ? e - b : sizeof line - 1;
            memcpy(line, data + b, n);
            line[n] = '\0';
            char *p = line;
            for (int k = 0; k < 2; k++) {
                char *q;
                long long v = strtoll(p, &q, 10);
                if (q == p) break;
                if (v > limit || strlen(line) == sizeof line - 1) return 1;
                p = q;
            }
            return 0;
        }
        i = e + 1;
    }
    return 0;
}

#endif
