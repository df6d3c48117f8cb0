/* commit.c — the files of one output directory replaced as a whole: staged, listed with their
 * sizes and checksums in DIR/manifest.txt (the commit point), then renamed into place; readers
 * refuse a directory whose files differ from its manifest (docs/reliability.md). */
#include "tvds/tvds_output.h"
#include "io/io_impl.h"
#include "core/test_hooks_impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STAGE_NAME    ".new"
#define MANIFEST_NAME "manifest.txt"
#define MANIFEST_MAX  64 /* files in one directory's manifest */

static long commit_fail_after = -1; /* test hook: renames left before a simulated crash */

void tvds_commit_fail_after(long nrenames)
{
    commit_fail_after = nrenames;
}

/* FNV-1a, 64 bits, over the file's 8-byte little-endian words (the last one zero-padded), and
 * its size: one multiply per 8 bytes, about 8 times the speed of the byte-wise hash. Not
 * cryptographic: it tells the files of one write from those of another, not a forgery. */
static int file_sum(const char *path, uint64_t *sum, long long *size)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    uint64_t h = 14695981039346656037ULL;
    long long n = 0;
    unsigned char buf[65536 + 8];
    size_t have = 0; /* bytes carried over, fewer than 8 */
    for (;;) {
        ssize_t k = read(fd, buf + have, sizeof buf - 8 - have);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            int e = errno;
            close(fd);
            errno = e;
            return -1;
        }
        n += k;
        have += (size_t)k;
        size_t whole = k == 0 ? have : have - have % 8;
        if (k == 0 && whole % 8) { /* the end: pad the last word with zeros */
            memset(buf + whole, 0, 8 - whole % 8);
            whole += 8 - whole % 8;
        }
        for (size_t i = 0; i < whole; i += 8) {
            uint64_t w = 0;
            for (int b = 7; b >= 0; b--)
                w = (w << 8) | buf[i + (size_t)b];
            h ^= w;
            h *= 1099511628211ULL;
        }
        if (k == 0) break;
        memmove(buf, buf + whole, have - whole);
        have -= whole;
    }
    close(fd);
    *sum = h;
    *size = n;
    return 0;
}

/* Remove DIR/.new and what a killed writer left in it (plain files only). */
static void remove_stage(const char *dir)
{
    char stage[4200], p[4500];
    snprintf(stage, sizeof stage, "%s/" STAGE_NAME, dir);
    DIR *dd = opendir(stage);
    if (dd) {
        struct dirent *e;
        while ((e = readdir(dd)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            snprintf(p, sizeof p, "%s/%s", stage, e->d_name);
            (void)unlink(p);
        }
        closedir(dd);
    }
    (void)rmdir(stage);
}

int tvds_commit_begin(const char *dir, char *stage, size_t size, tvds_ctx *ctx)
{
    if (!dir || !stage) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_commit_begin: NULL");
    if ((size_t)snprintf(stage, size, "%s/" STAGE_NAME, dir) >= size)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s: path too long", dir);
    remove_stage(dir); /* a write killed before its commit */
    if (mkdir(stage, 0777) != 0)
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot create: %s", stage, strerror(errno));
    return TVDS_OK;
}

void tvds_commit_abort(const char *dir)
{
    if (dir) remove_stage(dir);
}

static int sync_path(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int r = fsync(fd);
    if (r != 0 && errno == EINVAL) r = 0; /* a file system without fsync */
    close(fd);
    return r;
}

int tvds_commit_end(const char *dir, const char *const *owned, int nowned, tvds_ctx *ctx)
{
    char stage[4200], p[4400], q[4400];
    snprintf(stage, sizeof stage, "%s/" STAGE_NAME, dir);
    char *names[MANIFEST_MAX];
    int nn = 0, rc = TVDS_OK;
    DIR *dd = opendir(stage);
    if (!dd) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot read: %s", stage, strerror(errno));
    struct dirent *e;
    while ((e = readdir(dd)) != NULL && !rc) {
        if (e->d_name[0] == '.') continue;
        if (nn == MANIFEST_MAX || !(names[nn] = tvds_strdup(e->d_name)))
            rc = TVDS_ERROR(ctx, nn == MANIFEST_MAX ? TVDS_ERR_INVALID : TVDS_ERR_NOMEM,
                            "%s: more than %d files to commit, or out of memory", stage,
                            MANIFEST_MAX);
        else
            nn++;
    }
    closedir(dd);
    /* Sorted, so that the manifest of the same files is the same text. */
    for (int a = 1; a < nn; a++)
        for (int b = a; b > 0 && strcmp(names[b - 1], names[b]) > 0; b--) {
            char *t = names[b];
            names[b] = names[b - 1];
            names[b - 1] = t;
        }
    /* 1. The new files reach the disk, then their manifest; its rename is the commit. */
    snprintf(q, sizeof q, "%s/" MANIFEST_NAME ".tmp", dir);
    FILE *mf = NULL;
    if (!rc) {
        int fd = open(q, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        mf = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!mf) {
            if (fd >= 0) close(fd);
            rc = TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: cannot create: %s", q, strerror(errno));
        }
    }
    if (!rc)
        fprintf(mf, "# tvds manifest: the files of this directory, written together (size in "
                    "bytes, FNV-1a 64 of 8-byte words);\n# tvds refuses the directory when one "
                    "differs (remove this file to accept files edited by hand)\n"
                    "tvds-manifest 1\n");
    for (int i = 0; i < nn && !rc; i++) {
        uint64_t h;
        long long sz;
        snprintf(p, sizeof p, "%s/%s", stage, names[i]);
        if (sync_path(p) != 0 || file_sum(p, &h, &sz) != 0)
            rc = TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: cannot sync or read back: %s", p,
                            strerror(errno));
        else
            fprintf(mf, "file %s %lld %016" PRIx64 "\n", names[i], sz, h);
    }
    if (mf) {
        int bad = fflush(mf) != 0 || ferror(mf) || (fsync(fileno(mf)) != 0 && errno != EINVAL);
        int en = errno;
        if (fclose(mf) != 0) bad = 1;
        if (bad && !rc)
            rc = TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: write failed: %s", q, strerror(en));
    }
    snprintf(p, sizeof p, "%s/" MANIFEST_NAME, dir);
    if (!rc && rename(q, p) != 0)
        rc = TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: cannot rename %s: %s", p, q, strerror(errno));
    if (rc) {
        (void)unlink(q);
        for (int i = 0; i < nn; i++)
            tvds_free(names[i]);
        return rc;
    }
    /* 2. Into place. A kill from here on leaves files that differ from the manifest: the
     * directory is refused by name until it is written again. */
    for (int i = 0; i < nn && !rc; i++) {
        if (commit_fail_after >= 0 && commit_fail_after-- == 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: commit stopped (test hook)", dir);
            break;
        }
        snprintf(p, sizeof p, "%s/%s", stage, names[i]);
        snprintf(q, sizeof q, "%s/%s", dir, names[i]);
        if (rename(p, q) != 0)
            rc = TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: cannot rename %s: %s", q, p, strerror(errno));
    }
    /* 3. Files of an earlier write that this one does not have (C.mtx, recovery rows). */
    for (int i = 0; i < nowned && !rc; i++) {
        int mine = 0;
        for (int k = 0; k < nn; k++)
            mine |= !strcmp(owned[i], names[k]);
        if (mine || !strcmp(owned[i], MANIFEST_NAME)) continue;
        snprintf(q, sizeof q, "%s/%s", dir, owned[i]);
        if (unlink(q) != 0 && errno != ENOENT)
            rc = TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: cannot remove the earlier file: %s", q,
                            strerror(errno));
    }
    for (int i = 0; i < nn; i++)
        tvds_free(names[i]);
    if (rc) return rc;
    (void)rmdir(stage);
    (void)sync_path(dir);
    return TVDS_OK;
}

int tvds_manifest_check(const char *dir, const char *const *owned, int nowned, tvds_ctx *ctx)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/" MANIFEST_NAME, dir);
    tvds_ctx lctx;
    tvds_ctx_init(&lctx);
    FILE *f = tvds_input_open(p, "manifest", &lctx);
    if (!f && errno == ENOENT) return TVDS_OK; /* written by hand, or before manifests */
    if (!f && errno) return tvds_input_open_error(p, ctx);
    if (!f) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s", lctx.msg);
    static const char hint[] = "files of two writes (an interrupted write?): write the directory "
                               "again, or remove manifest.txt to accept files edited by hand";
    char line[1024], listed[MANIFEST_MAX][256];
    int nlisted = 0, rc = TVDS_OK, version = 0;
    long lineno = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n') continue;
        char name[256];
        long long sz, got_sz;
        uint64_t h, got_h;
        if (sscanf(line, "tvds-manifest %d", &version) == 1) continue;
        if (sscanf(line, "file %255s %lld %" SCNx64, name, &sz, &h) != 3 || !version ||
            nlisted == MANIFEST_MAX || strchr(name, '/')) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: not a tvds manifest line", p, lineno);
            break;
        }
        snprintf(listed[nlisted++], sizeof listed[0], "%s", name);
        char fp[4400];
        snprintf(fp, sizeof fp, "%s/%s", dir, name);
        if (file_sum(fp, &got_h, &got_sz) != 0)
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s: listed in %s but cannot be read (%s): %s",
                            fp, MANIFEST_NAME, strerror(errno), hint);
        else if (got_sz != sz || got_h != h)
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                            "%s: not the file %s lists (%lld bytes, %lld listed): %s", fp,
                            MANIFEST_NAME, got_sz, sz, hint);
    }
    fclose(f);
    if (!rc && !version) rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s: not a tvds manifest", p);
    for (int i = 0; i < nowned && !rc; i++) {
        int in = 0;
        for (int k = 0; k < nlisted; k++)
            in |= !strcmp(owned[i], listed[k]);
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, owned[i]);
        if (!in && strcmp(owned[i], MANIFEST_NAME) != 0 && lstat(p, &st) == 0)
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s: not listed in %s: %s", p, MANIFEST_NAME,
                            hint);
    }
    return rc;
}
