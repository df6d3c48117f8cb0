/* output.c — crash-safe CSV writers, summary.json (atomic replace), output directories. */
#include "tvds/tvds_output.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* ---- CSV ---------------------------------------------------------------------------------- */

struct tvds_csv {
    char *path;
    int fd;
    int ncol;
    char *buf;
    size_t len, cap, rowmax;
    long rows;
};

/* Write all of buf[0..n) to fd. */
static int write_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, buf, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        buf += k;
        n -= (size_t)k;
    }
    return 0;
}

int tvds_csv_flush(tvds_csv *w, tvds_ctx *ctx)
{
    if (!w || w->len == 0) return TVDS_OK;
    int rc = TVDS_OK;
    if (write_all(w->fd, w->buf, w->len) != 0)
        rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: write failed: %s", w->path, strerror(errno));
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
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot create: %s", path, strerror(e));
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
        rc = tvds_csv_flush(w, ctx);
        if (close(w->fd) != 0 && !rc)
            rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: close failed: %s", w->path, strerror(errno));
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
    FILE *f = fopen(tmp, "w");
    if (!f) {
        int e = errno;
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot create: %s", path, strerror(e));
    }
    fputs("{\n  \"tvds_version\": ", f);
    json_string(f, TVDS_VERSION);
    fputs(",\n  \"case\": ", f);
    json_string(f, s->case_name);
    fputs(",\n  \"method\": ", f);
    json_string(f, s->method);
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
    fputs(",\n  \"summary\": {", f);
    for (int i = 0; i < s->nscalars; i++) {
        fputs(i ? ",\n    " : "\n    ", f);
        json_string(f, s->scalar_names[i]);
        fputs(": ", f);
        json_number(f, s->scalar_values[i]);
    }
    fputs(s->nscalars ? "\n  }\n}\n" : "}\n}\n", f);
    int bad = ferror(f);
    if (fclose(f) != 0) bad = 1;
    int rc = TVDS_OK;
    if (bad)
        rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: write failed", tmp);
    else if (rename(tmp, path) != 0)
        rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot rename %s: %s", path, tmp, strerror(errno));
    if (rc) remove(tmp);
    return rc;
}
