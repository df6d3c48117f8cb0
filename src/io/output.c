/* output.c — crash-safe CSV writers, summary.json (atomic replace), output directories. */
#include "tvds/tvds_output.h"
#include "core/test_hooks_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int tvds_mkdir_p(const char *dir, tvds_ctx *ctx)
{
    if (!dir || !*dir) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "empty output directory name");
    char *p = tvds_strdup(dir);
    if (!p) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    int rc = TVDS_OK;
    for (char *q = p + 1;; q++) {
        if (*q != '/' && *q != '\0') continue;
        char c = *q;
        *q = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            rc =
                TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot create directory: %s", p, strerror(errno));
            break;
        }
        *q = c;
        if (c == '\0') break;
    }
    if (!rc) {
        struct stat st;
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: not a directory", dir);
    }
    tvds_free(p);
    return rc;
}

int tvds_format_double(double v, char buf[32])
{
    if (isnan(v)) return snprintf(buf, 32, "nan");
    if (isinf(v)) return snprintf(buf, 32, v > 0 ? "inf" : "-inf");
    static const char *const fmts[3] = {"%.15g", "%.16g", "%.17g"};
    int n = 0;
    for (int i = 0; i < 3; i++) {
        n = snprintf(buf, 32, fmts[i], v);
        if (i == 2 || strtod(buf, NULL) == v) break;
    }
    return n;
}

/* ---- Writes that can be made to fail (test hook) ---------------------------------------- */

/* Bytes that output writes may still write before they fail with ENOSPC; < 0: no limit. Not
 * thread-safe by design, like tvds_alloc_fail_after: a single-threaded test facility. */
static long out_write_budget = -1;

void tvds_output_fail_after(long nbytes)
{
    out_write_budget = nbytes < 0 ? -1 : nbytes;
}

/* write(2) under the test budget: a write that crosses it is cut short there (a partial write,
 * as a filling disk gives), the next one fails with ENOSPC. */
static ssize_t out_write(int fd, const char *buf, size_t n)
{
    if (out_write_budget >= 0) {
        if (out_write_budget == 0) {
            errno = ENOSPC;
            return -1;
        }
        if ((long)n > out_write_budget) n = (size_t)out_write_budget;
    }
    ssize_t k = write(fd, buf, n);
    if (k > 0 && out_write_budget >= 0) out_write_budget -= k;
    return k;
}

/* Write all of buf[0..n) to fd; *done receives the bytes written (all of them on success). */
static int write_all(int fd, const char *buf, size_t n, size_t *done)
{
    *done = 0;
    while (n > 0) {
        ssize_t k = out_write(fd, buf, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (k == 0) {
            errno = ENOSPC;
            return -1;
        }
        buf += k;
        n -= (size_t)k;
        *done += (size_t)k;
    }
    return 0;
}

/* errno values that mean "the output cannot be written" (disk full, quota, device error)
 * rather than "the output was misnamed" (no such directory, permission). */
static int write_errno(int e)
{
    return e == ENOSPC || e == EDQUOT || e == EIO || e == EFBIG;
}

/* ---- CSV ---------------------------------------------------------------------------------- */

/* Rows are formatted into a buffer that only ever holds whole lines. A flush writes the buffer;
 * if the write fails part way (disk full, quota, I/O error), the file is truncated back to the
 * end of the last whole line that reached it, so that the file never ends in a cut row that a
 * reader would take for data. `good` is that offset. */
struct tvds_csv {
    char *path;
    int fd;
    int ncol;
    char *buf;
    size_t len, cap, rowmax;
    long rows;
    off_t good; /* file size up to the end of the last whole line written */
    int failed; /* a write failed: the file is closed to further rows */
};

int tvds_csv_flush(tvds_csv *w, tvds_ctx *ctx)
{
    if (!w) return TVDS_OK;
    if (w->failed) return TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: an earlier write failed", w->path);
    if (w->len == 0) return TVDS_OK;
    size_t done = 0;
    int rc = TVDS_OK;
    if (write_all(w->fd, w->buf, w->len, &done) != 0) {
        int e = errno;
        size_t whole = done;
        while (whole > 0 && w->buf[whole - 1] != '\n')
            whole--;
        w->good += (off_t)whole;
        w->failed = 1;
        /* Best effort: a file that cannot be truncated (a device) keeps what it got. */
        if (ftruncate(w->fd, w->good) != 0) (void)0;
        rc = TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: write failed: %s", w->path, strerror(e));
    } else {
        w->good += (off_t)done;
    }
    w->len = 0;
    return rc;
}

int tvds_csv_open(const char *path, int ncol, const char *const *names, tvds_csv **pw,
                  tvds_ctx *ctx)
{
    if (!pw) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_csv_open: NULL writer pointer");
    *pw = NULL;
    if (!path || ncol <= 0 || !names)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_csv_open: need a path and >= 1 column");
    tvds_csv *w = tvds_calloc(1, sizeof *w);
    if (!w) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    w->fd = -1;
    w->ncol = ncol;
    w->rowmax = (size_t)ncol * 33 + 2; /* 32 characters per number at most, commas, newline */
    size_t hdr = 2;
    for (int i = 0; i < ncol; i++)
        hdr += 2 * strlen(names[i] ? names[i] : "") + 3;
    w->cap = 65536;
    if (w->cap < 4 * w->rowmax) w->cap = 4 * w->rowmax;
    if (w->cap < hdr) w->cap = hdr;
    w->path = tvds_strdup(path);
    w->buf = tvds_malloc(w->cap);
    if (!w->path || !w->buf) {
        tvds_csv_close(&w, NULL);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    }
    w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (w->fd < 0) {
        int e = errno;
        tvds_csv_close(&w, NULL);
        return TVDS_ERROR(ctx, write_errno(e) ? TVDS_ERR_WRITE : TVDS_ERR_IO,
                          "%s: cannot create: %s", path, strerror(e));
    }
    for (int i = 0; i < ncol; i++) {
        const char *s = names[i] ? names[i] : "";
        if (i) w->buf[w->len++] = ',';
        int quote = strpbrk(s, ",\"\n\r") != NULL;
        if (quote) w->buf[w->len++] = '"';
        for (; *s; s++) {
            if (*s == '"') w->buf[w->len++] = '"';
            w->buf[w->len++] = (*s == '\n' || *s == '\r') ? ' ' : *s;
        }
        if (quote) w->buf[w->len++] = '"';
    }
    w->buf[w->len++] = '\n';
    int rc = tvds_csv_flush(w, ctx);
    if (rc) {
        tvds_csv_close(&w, NULL);
        return rc;
    }
    *pw = w;
    return TVDS_OK;
}

int tvds_csv_row(tvds_csv *w, const double *values, tvds_ctx *ctx)
{
    if (!w || !values) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_csv_row: NULL argument");
    if (w->failed) return TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: an earlier write failed", w->path);
    if (w->cap - w->len < w->rowmax) {
        int rc = tvds_csv_flush(w, ctx);
        if (rc) return rc;
    }
    char *p = w->buf + w->len;
    for (int i = 0; i < w->ncol; i++) {
        if (i) *p++ = ',';
        char num[32];
        int n = tvds_format_double(values[i], num);
        memcpy(p, num, (size_t)n);
        p += n;
    }
    *p++ = '\n';
    w->len = (size_t)(p - w->buf);
    w->rows++;
    return TVDS_OK;
}

long tvds_csv_rows(const tvds_csv *w)
{
    return w ? w->rows : 0;
}

int tvds_csv_close(tvds_csv **pw, tvds_ctx *ctx)
{
    if (!pw || !*pw) return TVDS_OK;
    tvds_csv *w = *pw;
    int rc = TVDS_OK;
    if (w->fd >= 0) {
        if (!w->failed) rc = tvds_csv_flush(w, ctx);
        if (close(w->fd) != 0 && !rc)
            rc = TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: close failed: %s", w->path, strerror(errno));
    }
    tvds_free(w->path);
    tvds_free(w->buf);
    tvds_free(w);
    *pw = NULL;
    return rc;
}

/* ---- summary.json --------------------------------------------------------------------------- */

static void json_string(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void json_number(FILE *f, double v)
{
    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    char buf[32];
    tvds_format_double(v, buf);
    fputs(buf, f);
}

int tvds_summary_write(const char *path, const tvds_summary_info *s, tvds_ctx *ctx)
{
    if (!path || !s) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_summary_write: NULL argument");
    /* A stack buffer: the run driver refreshes the summary from inside its time loop, where
     * nothing may allocate through tvds_malloc. */
    char tmp[4096];
    size_t n = strlen(path);
    if (n + 5 > sizeof tmp)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s: path too long (%zu characters, at most %zu)",
                          path, n, sizeof tmp - 5);
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".tmp", 5);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0) close(fd);
        remove(tmp);
        return TVDS_ERROR(ctx, write_errno(e) ? TVDS_ERR_WRITE : TVDS_ERR_IO,
                          "%s: cannot create: %s", tmp, strerror(e));
    }
    fputs("{\n  \"tvds_version\": ", f);
    json_string(f, TVDS_VERSION);
    fputs(",\n  \"case\": ", f);
    json_string(f, s->case_name);
    fputs(",\n  \"method\": ", f);
    json_string(f, s->method);
    if (s->nsub > 0 && s->sub_names && s->sub_paths) {
        fputs(",\n  \"paths\": {", f);
        for (int i = 0; i < s->nsub; i++) {
            fputs(i ? ", " : "", f);
            json_string(f, s->sub_names[i]);
            fputs(": ", f);
            json_string(f, s->sub_paths[i]);
        }
        fputs("}", f);
    }
    fputs(",\n  \"status\": ", f);
    json_string(f, s->status);
    fputs(",\n  \"status_code\": ", f);
    json_string(f, s->status_code);
    fputs(",\n  \"message\": ", f);
    json_string(f, s->message);
    fprintf(f, ",\n  \"steps\": %ld", s->steps);
    const struct {
        const char *k;
        double v;
    } nums[] = {{"dt", s->dt},
                {"t_end", s->t_end},
                {"t_reached", s->t_reached},
                {"cpu_seconds", s->cpu_seconds},
                {"us_per_step", s->us_per_step},
                {"wall_seconds", s->wall_seconds},
                {"setup_cpu_seconds", s->setup_cpu_seconds}};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        fprintf(f, ",\n  \"%s\": ", nums[i].k);
        json_number(f, nums[i].v);
    }
    if (s->open_contacts) {
        fputs(",\n  \"contacts_never_closed\": [", f);
        for (int i = 0; i < s->nopen; i++) {
            fputs(i ? ", " : "", f);
            json_string(f, s->open_contacts[i]);
        }
        fputs("]", f);
    }
    fputs(",\n  \"summary\": {", f);
    for (int i = 0; i < s->nscalars; i++) {
        fputs(i ? ",\n    " : "\n    ", f);
        json_string(f, s->scalar_names[i]);
        fputs(": ", f);
        json_number(f, s->scalar_values[i]);
    }
    fputs(s->nscalars ? "\n  }\n}\n" : "}\n}\n", f);
    /* The new contents reach the disk before the name points at them: after a crash or a
     * power cut, summary.json is the old document or the new one, never an empty file. */
    int bad = fflush(f) != 0 || ferror(f);
    int e = errno;
    if (!bad && fsync(fileno(f)) != 0 && errno != EINVAL) {
        bad = 1;
        e = errno;
    }
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    int rc = TVDS_OK;
    if (bad)
        rc = TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: write failed: %s", tmp, strerror(e));
    else if (rename(tmp, path) != 0)
        rc =
            TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: cannot rename %s: %s", path, tmp, strerror(errno));
    if (rc) remove(tmp);
    return rc;
}

/* ---- Output directories: one owner, a space reserve, files it owns ------------------------- */

/* Space kept in DIR/.lock while a run owns DIR: given back when a write fails for lack of
 * space, so that summary.json can still say why the run stopped. A summary is a few KiB. */
#define OUTDIR_RESERVE 65536

struct tvds_outdir {
    char *dir;
    char *lock_path;
    int fd; /* DIR/.lock, flock'ed LOCK_EX for the life of the object */
};

int tvds_outdir_open(const char *dir, tvds_outdir **pd, tvds_ctx *ctx)
{
    if (!pd) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_outdir_open: NULL pointer");
    *pd = NULL;
    int rc = tvds_mkdir_p(dir, ctx);
    if (rc) return rc;
    tvds_outdir *d = tvds_calloc(1, sizeof *d);
    size_t n = strlen(dir);
    char *lp = tvds_malloc(n + 7);
    char *dd = tvds_strdup(dir);
    if (!d || !lp || !dd) {
        tvds_free(d);
        tvds_free(lp);
        tvds_free(dd);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    }
    memcpy(lp, dir, n);
    memcpy(lp + n, "/.lock", 7);
    d->dir = dd;
    d->lock_path = lp;
    /* flock: the kernel releases the lock when the process ends, however it ends (kill -9
     * included), so a stale lock file never blocks the next run. The file is never removed:
     * unlinking a lock file races with a process that has opened but not yet locked it. */
    d->fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (d->fd < 0) {
        int e = errno;
        tvds_outdir_close(&d);
        return TVDS_ERROR(ctx, write_errno(e) ? TVDS_ERR_WRITE : TVDS_ERR_IO,
                          "%s: cannot create the lock file: %s", lp, strerror(e));
    }
    if (flock(d->fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        char who[64] = "";
        ssize_t k = pread(d->fd, who, sizeof who - 1, 0);
        who[k > 0 ? k : 0] = '\0';
        who[strcspn(who, "\n")] = '\0';
        rc = e == EWOULDBLOCK
                 ? TVDS_ERROR(ctx, TVDS_ERR_BUSY,
                              "%s: output directory in use by another tvds process%s%s%s "
                              "(choose another -o DIR or wait for it to end)",
                              dir, who[0] ? " (" : "", who, who[0] ? ")" : "")
                 : TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot lock: %s", lp, strerror(e));
        tvds_outdir_close(&d);
        return rc;
    }
    /* The owner's pid on the first line, then the reserve (real blocks, not a sparse hole),
     * taken before any output. A disk without room for it could not hold the summary that says
     * why a run stopped either (before: with 0 bytes free, `run` exited 1 with an empty
     * history.csv and no summary.json): the directory is refused at once, nothing written. */
    char block[4096];
    memset(block, 0, sizeof block);
    int len = snprintf(block, sizeof block, "pid %ld\n", (long)getpid()), e = 0;
    if (ftruncate(d->fd, 0) != 0 || lseek(d->fd, 0, SEEK_SET) != 0) e = errno;
    for (int i = 0; !e && i < OUTDIR_RESERVE / (int)sizeof block; i++) {
        size_t done;
        if (write_all(d->fd, block, sizeof block, &done) != 0) e = errno ? errno : ENOSPC;
        memset(block, 0, (size_t)len);
    }
    if (e) {
        tvds_outdir_release_reserve(d);
        tvds_outdir_close(&d);
        return TVDS_ERROR(ctx, write_errno(e) ? TVDS_ERR_WRITE : TVDS_ERR_IO,
                          "%s: no room for the %d KiB kept so that summary.json can always be "
                          "written (%s): nothing written; free some space",
                          dir, OUTDIR_RESERVE / 1024, strerror(e));
    }
    *pd = d;
    return TVDS_OK;
}

const char *tvds_outdir_path(const tvds_outdir *d)
{
    return d ? d->dir : NULL;
}

void tvds_outdir_release_reserve(tvds_outdir *d)
{
    if (!d || d->fd < 0) return;
    char line[64];
    int len = snprintf(line, sizeof line, "pid %ld\n", (long)getpid());
    if (ftruncate(d->fd, 0) == 0 && pwrite(d->fd, line, (size_t)len, 0) < 0) (void)0;
}

int tvds_outdir_clear(tvds_outdir *d, const char *const *files, int nfiles, tvds_ctx *ctx)
{
    if (!d) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_outdir_clear: NULL directory");
    char path[4200];
    for (int i = 0; i < nfiles; i++) {
        snprintf(path, sizeof path, "%s/%s", d->dir, files[i]);
        if (unlink(path) != 0 && errno != ENOENT)
            return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot remove the previous output: %s", path,
                              strerror(errno));
    }
    return TVDS_OK;
}

int tvds_outdir_remove(const char *dir, const char *const *files, int nfiles, tvds_ctx *ctx)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return TVDS_OK; /* nothing there */
    tvds_outdir *d = NULL;
    int rc = tvds_outdir_open(dir, &d, ctx); /* TVDS_ERR_BUSY while a run owns it */
    if (!rc) rc = tvds_outdir_clear(d, files, nfiles, ctx);
    if (!rc) {
        /* Unlinked while held: no other tvds can be between open and lock on it now. */
        if (unlink(d->lock_path) != 0 && errno != ENOENT) (void)0;
    }
    tvds_outdir_close(&d);
    if (!rc) (void)rmdir(dir); /* stays when other files (the user's) are in it */
    return rc;
}

void tvds_outdir_close(tvds_outdir **pd)
{
    if (!pd || !*pd) return;
    tvds_outdir *d = *pd;
    if (d->fd >= 0) {
        /* Give the reserve back; the (empty) lock file stays, its lock goes with the fd. */
        if (ftruncate(d->fd, 0) != 0) (void)0;
        close(d->fd);
    }
    tvds_free(d->dir);
    tvds_free(d->lock_path);
    tvds_free(d);
    *pd = NULL;
}
