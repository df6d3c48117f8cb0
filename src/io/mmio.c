/* mmio.c — strict Matrix Market reader/writer producing CHOLMOD objects (docs/formats.md). */
#include "tvds/tvds_io.h"
#include "io/io_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- CHOLMOD common and error routing ----------------------------------------------------- */

static _Thread_local tvds_ctx *cholmod_current_ctx;

void tvds_cholmod_ctx(tvds_ctx *ctx)
{
    cholmod_current_ctx = ctx;
}

tvds_ctx *tvds_io_cholmod_ctx_swap(tvds_ctx *ctx)
{
    tvds_ctx *old = cholmod_current_ctx;
    cholmod_current_ctx = ctx;
    return old;
}

/* CHOLMOD calls this for errors (status < 0) and warnings (status > 0). Warnings such as
 * CHOLMOD_NOT_POSDEF are left to the caller, who checks cc->status and words a message in the
 * problem's terms; errors are recorded in the current context. */
static void cholmod_to_ctx(int status, const char *file, int line, const char *message)
{
    if (status >= 0 || !cholmod_current_ctx) return;
    tvds_error_at(cholmod_current_ctx,
                  status == CHOLMOD_OUT_OF_MEMORY ? TVDS_ERR_NOMEM : TVDS_ERR_SOLVER, file, line,
                  "CHOLMOD error %d: %s", status, message ? message : "(no message)");
}

/* CHOLMOD (SuiteSparse 5) allocates through the process-wide SuiteSparse_config function
 * pointers: route them to tvds_malloc & co. once, so that CHOLMOD's allocations are counted and
 * the allocation-failure tests (tvds_alloc_fail_after) reach them too. tvds_free is free(), so
 * memory CHOLMOD allocated before the switch is still freed correctly. */
static pthread_once_t cholmod_alloc_once = PTHREAD_ONCE_INIT;

static void cholmod_alloc_route(void)
{
    SuiteSparse_config.malloc_func = tvds_malloc;
    SuiteSparse_config.calloc_func = tvds_calloc;
    SuiteSparse_config.realloc_func = tvds_realloc;
    SuiteSparse_config.free_func = tvds_free;
}

int tvds_cholmod_start(cholmod_common *cc)
{
    if (!cc) return TVDS_ERR_INVALID;
    pthread_once(&cholmod_alloc_once, cholmod_alloc_route);
    if (!cholmod_start(cc)) return TVDS_ERR_SOLVER;
    cc->print = 0;
    cc->error_handler = cholmod_to_ctx;
    /* LL' so that a matrix that is not positive definite is reported (status
     * CHOLMOD_NOT_POSDEF, L->minor < n) instead of being factored as an indefinite LDL'. */
    cc->final_ll = 1;
    return TVDS_OK;
}

/* ---- Reading: the whole file in one buffer, then line by line ---------------------------- */

typedef struct mm_src {
    const char *path;
    char *buf; /* file contents, NUL-terminated */
    size_t len;
    const char *pos; /* start of the next line */
    long line;       /* number of the line returned last (1-based) */
} mm_src;

/* The parsed file: entries with 0-based indices; symmetric files normalised to the upper
 * triangle (row <= col). */
typedef struct mm_parsed {
    int nrow, ncol;
    int symmetric; /* 1: the file declared symmetry */
    int array;     /* 1: array format, 0: coordinate */
    long nnz;
    int *row, *col;
    double *x;
} mm_parsed;

static void parsed_clear(mm_parsed *m)
{
    tvds_free(m->row);
    tvds_free(m->col);
    tvds_free(m->x);
    memset(m, 0, sizeof *m);
}

int tvds_input_file_check(const char *path, const char *what, FILE *f, tvds_ctx *ctx)
{
    struct stat st;
    const char *w = what ? what : "input file";
    if (fstat(fileno(f), &st) != 0)
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot stat the %s: %s", path, w, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: is a directory, not a %s", path, w);
    if (!S_ISREG(st.st_mode))
        return TVDS_ERROR(ctx, TVDS_ERR_IO,
                          "%s: not a regular file (a device, FIFO or socket has no size to "
                          "bound): give the %s as a regular file",
                          path, w);
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    double limit = pages > 0 && psize > 0 ? 0.5 * (double)pages * (double)psize : 1e18;
    if ((double)st.st_size > limit)
        return TVDS_ERROR(ctx, TVDS_ERR_IO,
                          "%s: the %s is %.3g GB, more than half the memory (%.3g GB) that "
                          "reading it would need",
                          path, w, 1e-9 * (double)st.st_size, 1e-9 * limit);
    return TVDS_OK;
}

FILE *tvds_input_open(const char *path, const char *what, tvds_ctx *ctx)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    if (tvds_input_file_check(path, what, f, ctx) != TVDS_OK) {
        fclose(f);
        errno = 0;
        return NULL;
    }
    /* A regular file never blocks; clear the flag all the same so that reads behave as on a
     * stream opened by fopen. */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return f;
}

int tvds_input_open_error(const char *path, tvds_ctx *ctx)
{
    if (errno) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    return TVDS_ERR_IO;
}

static int slurp(mm_src *s, tvds_ctx *ctx)
{
    FILE *f = tvds_input_open(s->path, "Matrix Market file", ctx);
    if (!f) return tvds_input_open_error(s->path, ctx);
    size_t cap = 1 << 16, len = 0;
    char *buf = tvds_malloc(cap);
    if (!buf) {
        fclose(f);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", s->path);
    }
    for (;;) {
        if (cap - len < 2) {
            if (cap > SIZE_MAX / 2) break;
            char *nb = tvds_realloc(buf, cap * 2);
            if (!nb) {
                tvds_free(buf);
                fclose(f);
                return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", s->path);
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - 1 - len, f);
        len += got;
        if (got == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        tvds_free(buf);
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: read error", s->path);
    }
    buf[len] = '\0';
    s->buf = buf;
    s->len = len;
    s->pos = buf;
    s->line = 0;
    /* A NUL byte would end strtod's view of a line early: refuse binary data outright. */
    const char *nul = memchr(buf, '\0', len);
    if (nul) {
        long line = 1;
        for (const char *p = buf; p < nul; p++)
            line += *p == '\n';
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: NUL byte (binary data) in the file",
                          s->path, line);
    }
    return TVDS_OK;
}

/* Next line [*b, *e) without its end-of-line; 0 at end of file. */
static int next_line(mm_src *s, const char **b, const char **e)
{
    const char *end = s->buf + s->len;
    if (s->pos >= end) return 0;
    const char *nl = memchr(s->pos, '\n', (size_t)(end - s->pos));
    *b = s->pos;
    *e = nl ? nl : end;
    s->pos = nl ? nl + 1 : end;
    s->line++;
    return 1;
}

/* A comment (first non-blank character '%') or blank line. */
static int skippable(const char *b, const char *e)
{
    while (b < e && tvds_blank(*b))
        b++;
    return b == e || *b == '%';
}

/* Next line that is neither blank nor a comment; 0 at end of file. */
static int next_data_line(mm_src *s, const char **b, const char **e)
{
    while (next_line(s, b, e))
        if (!skippable(*b, *e)) return 1;
    return 0;
}

static int tok_eq_ci(const char *b, const char *e, const char *word)
{
    size_t n = (size_t)(e - b);
    if (strlen(word) != n) return 0;
    for (size_t k = 0; k < n; k++) {
        char c = b[k];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != word[k]) return 0;
    }
    return 1;
}

/* Length of a token for messages (long tokens are cut). */
#define TOKLEN(b, e) ((int)((e) - (b) > 40 ? 40 : (e) - (b)))

/* Parse a non-negative or signed decimal integer token. */
static int parse_long(const char *b, const char *e, long *v)
{
    const char *p = b;
    if (p < e && (*p == '+' || *p == '-')) p++;
    if (p == e) return 0;
    for (const char *q = p; q < e; q++)
        if (*q < '0' || *q > '9') return 0;
    if (e - p <= (LONG_MAX > 2147483647L ? 18 : 9)) { /* cannot overflow: no strtol needed */
        long x = 0;
        for (const char *q = p; q < e; q++)
            x = 10 * x + (*q - '0');
        *v = *b == '-' ? -x : x;
        return 1;
    }
    errno = 0;
    char *end;
    long x = strtol(b, &end, 10);
    if (end != e) return 0;
    if (errno == ERANGE) return -1; /* overflow */
    *v = x;
    return 1;
}

/* Parse a real token: 1 ok, 0 not a number, -1 overflow, -2 NaN or infinity. Hexadecimal
 * floats are refused: the format is decimal. Underflow to a subnormal or to zero is the
 * correctly rounded value and is accepted. */
static int parse_real(const char *b, const char *e, double *v)
{
    const char *p = b;
    if (p < e && (*p == '+' || *p == '-')) p++;
    if (p < e && (*p == 'n' || *p == 'N' || *p == 'i' || *p == 'I')) {
        if ((e - p >= 3 && (tok_eq_ci(p, p + 3, "nan") || tok_eq_ci(p, p + 3, "inf")))) return -2;
        return 0;
    }
    for (const char *q = b; q < e; q++) {
        char c = *q;
        if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
            return 0;
    }
    errno = 0;
    char *end;
    double x = strtod(b, &end);
    if (end != e || end == b) return 0;
    if (errno == ERANGE && isinf(x)) return -1;
    *v = x;
    return 1;
}

static int parse_banner(mm_src *s, mm_parsed *m, tvds_ctx *ctx)
{
    const char *b, *e, *tb[6], *te[6];
    if (!next_line(s, &b, &e))
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:1: empty file (expected the banner '%%%%MatrixMarket matrix ...')",
                          s->path);
    int nt = tvds_tokens(b, e, tb, te, 5);
    if (nt == 0 || tb[0] != b || (size_t)(te[0] - tb[0]) != 14 ||
        memcmp(tb[0], "%%MatrixMarket", 14) != 0)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:1: not a Matrix Market file: the first line must start with "
                          "'%%%%MatrixMarket', found '%.*s'",
                          s->path, nt ? TOKLEN(tb[0], te[0]) : 0, nt ? tb[0] : "");
    static const char *const what[5] = {"", "object", "format", "field", "symmetry"};
    if (nt < 5)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:1: incomplete banner: the %s is missing (expected '%%%%MatrixMarket "
                          "matrix coordinate|array real|integer general|symmetric')",
                          s->path, what[nt]);
    if (nt > 5)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:1: unexpected text after the banner's symmetry",
                          s->path);
    if (!tok_eq_ci(tb[1], te[1], "matrix"))
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:1: unsupported object '%.*s' in the banner (expected 'matrix')",
                          s->path, TOKLEN(tb[1], te[1]), tb[1]);
    if (tok_eq_ci(tb[2], te[2], "coordinate"))
        m->array = 0;
    else if (tok_eq_ci(tb[2], te[2], "array"))
        m->array = 1;
    else
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:1: unknown format '%.*s' in the banner (expected 'coordinate' or "
                          "'array')",
                          s->path, TOKLEN(tb[2], te[2]), tb[2]);
    int integer = 0;
    if (tok_eq_ci(tb[3], te[3], "real"))
        integer = 0;
    else if (tok_eq_ci(tb[3], te[3], "integer"))
        integer = 1;
    else if (tok_eq_ci(tb[3], te[3], "pattern") || tok_eq_ci(tb[3], te[3], "complex"))
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:1: unsupported field '%.*s': tvds reads real and integer matrices "
                          "only",
                          s->path, TOKLEN(tb[3], te[3]), tb[3]);
    else
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:1: unknown field '%.*s' in the banner (expected 'real' or "
                          "'integer')",
                          s->path, TOKLEN(tb[3], te[3]), tb[3]);
    (void)integer;
    if (tok_eq_ci(tb[4], te[4], "general"))
        m->symmetric = 0;
    else if (tok_eq_ci(tb[4], te[4], "symmetric"))
        m->symmetric = 1;
    else if (tok_eq_ci(tb[4], te[4], "hermitian") || tok_eq_ci(tb[4], te[4], "skew-symmetric"))
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:1: unsupported symmetry '%.*s': tvds reads general and symmetric "
                          "matrices only",
                          s->path, TOKLEN(tb[4], te[4]), tb[4]);
    else
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:1: unknown symmetry '%.*s' in the banner (expected 'general' or "
                          "'symmetric')",
                          s->path, TOKLEN(tb[4], te[4]), tb[4]);
    return integer; /* 0 real, 1 integer */
}

static int parse_size(mm_src *s, mm_parsed *m, long *nnz, tvds_ctx *ctx)
{
    const char *b, *e, *tb[4], *te[4];
    static const char *const names[3] = {"row count", "column count", "entry count"};
    int want = m->array ? 2 : 3;
    if (!next_data_line(s, &b, &e))
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: file ends before the size line", s->path,
                          s->line > 0 ? s->line : 1);
    int nt = tvds_tokens(b, e, tb, te, want);
    if (nt != want)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: size line has %s%d fields, expected %d (%s)", s->path, s->line,
                          nt > want ? "more than " : "", nt > want ? want : nt, want,
                          m->array ? "rows columns" : "rows columns entries");
    long v[3] = {0, 0, 0};
    for (int k = 0; k < want; k++) {
        int r = parse_long(tb[k], te[k], &v[k]);
        if (r == 0)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: size line: %s '%.*s' is not an integer",
                              s->path, s->line, names[k], TOKLEN(tb[k], te[k]), tb[k]);
        if (r < 0 || v[k] > INT_MAX)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: size line: %s '%.*s' is too large (limit %d)", s->path,
                              s->line, names[k], TOKLEN(tb[k], te[k]), tb[k], INT_MAX);
        if (v[k] < 0)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: size line: negative %s %ld", s->path,
                              s->line, names[k], v[k]);
    }
    if (m->symmetric && v[0] != v[1])
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: a symmetric matrix must be square, the size line says %ld x %ld",
                          s->path, s->line, v[0], v[1]);
    /* Memory the declared size needs before any entry is read: readers and CHOLMOD hold
     * O(rows + columns) arrays (column pointers, markers, workspace: about 24 bytes per row and
     * column). A three-line file declaring 2e8 rows would take gigabytes before the size
     * mismatch with its model shows: refuse it here, against the machine's memory. */
    {
        long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
        double mem = pages > 0 && psize > 0 ? (double)pages * (double)psize : 1e18;
        double need = 24.0 * ((double)v[0] + (double)v[1]);
        if (need > 0.25 * mem)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: size line declares %ld x %ld: its row and column arrays "
                              "alone would take %.3g GB, more than a quarter of this machine's "
                              "%.3g GB of memory",
                              s->path, s->line, v[0], v[1], 1e-9 * need, 1e-9 * mem);
    }
    m->nrow = (int)v[0];
    m->ncol = (int)v[1];
    /* Number of positions the file may fill. */
    double npos =
        m->symmetric ? 0.5 * (double)v[0] * ((double)v[0] + 1.0) : (double)v[0] * (double)v[1];
    if (m->array) {
        if (npos > (double)INT_MAX)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: array of %ld x %ld is too large",
                              s->path, s->line, v[0], v[1]);
        *nnz = (long)npos;
    } else {
        if ((double)v[2] > npos)
            return TVDS_ERROR(
                ctx, TVDS_ERR_PARSE,
                "%s:%ld: size line declares %ld entries, more than the %.0f positions "
                "of a %s %ld x %ld matrix",
                s->path, s->line, v[2], npos, m->symmetric ? "symmetric" : "general", v[0], v[1]);
        *nnz = v[2];
    }
    return TVDS_OK;
}

/* Parse one value token into *x, with the message for each defect. */
static int parse_value(mm_src *s, int integer, const char *b, const char *e, double *x,
                       tvds_ctx *ctx)
{
    if (integer) {
        long v;
        int r = parse_long(b, e, &v);
        if (r == 0)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: value '%.*s' is not an integer (the banner says integer)",
                              s->path, s->line, TOKLEN(b, e), b);
        if (r < 0)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: integer value '%.*s' overflows",
                              s->path, s->line, TOKLEN(b, e), b);
        *x = (double)v;
        return TVDS_OK;
    }
    int r = parse_real(b, e, x);
    if (r == 1) return TVDS_OK;
    if (r == -2)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: value '%.*s' is not finite", s->path,
                          s->line, TOKLEN(b, e), b);
    if (r == -1)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: value '%.*s' overflows a double", s->path,
                          s->line, TOKLEN(b, e), b);
    return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: value '%.*s' is not a number", s->path, s->line,
                      TOKLEN(b, e), b);
}

static int parse_index(mm_src *s, const char *what, const char *b, const char *e, int limit,
                       int *idx, tvds_ctx *ctx)
{
    long v;
    int r = parse_long(b, e, &v);
    if (r == 0)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: %s index '%.*s' is not an integer", s->path,
                          s->line, what, TOKLEN(b, e), b);
    if (r < 0 || v < 1 || v > limit) {
        if (r > 0 && v == 0)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: %s index 0: Matrix Market indices start at 1", s->path,
                              s->line, what);
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: %s index %.*s out of range 1..%d", s->path,
                          s->line, what, TOKLEN(b, e), b, limit);
    }
    *idx = (int)(v - 1);
    return TVDS_OK;
}

/* Lines left in the buffer: bounds the entries a truncated file can hold, so that a size line
 * that lies about the count does not allocate for entries that are not there. */
static long lines_left(const mm_src *s)
{
    const char *end = s->buf + s->len, *p = s->pos;
    long n = p < end ? 1 : 0;
    while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        p++;
        if (p < end) n++;
    }
    return n;
}

static int too_few(mm_src *s, long got, long want, tvds_ctx *ctx)
{
    return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                      "%s:%ld: file ends after %ld of the %ld entries the size line declares "
                      "(truncated file?)",
                      s->path, s->line > 0 ? s->line : 1, got, want);
}

static int too_many(mm_src *s, long want, tvds_ctx *ctx)
{
    return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                      "%s:%ld: more entries than the %ld the size line declares", s->path, s->line,
                      want);
}

/* Entry position and file order, for the sorted duplicate search. */
typedef struct mm_pos {
    int col, row;
    long k; /* index in file order */
} mm_pos;

static int pos_cmp(const void *a, const void *b)
{
    const mm_pos *p = a, *q = b;
    if (p->col != q->col) return p->col < q->col ? -1 : 1;
    if (p->row != q->row) return p->row < q->row ? -1 : 1;
    return p->k < q->k ? -1 : p->k > q->k;
}

/* The same search as check_duplicates in O(nnz) memory (sort by position, then file order):
 * for a size line declaring far more rows and columns than there are entries, whose
 * O(rows + columns) markers would otherwise make a three-line file allocate and touch
 * gigabytes. Each run of equal positions pairs its first two entries; the pair reported is the
 * one whose second entry comes first in the file, as in check_duplicates. */
static int find_duplicates_sorted(const mm_parsed *m, const long *line, long *first, long *second,
                                  tvds_ctx *ctx, const char *path)
{
    long nnz = m->nnz;
    mm_pos *p = tvds_malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *p);
    if (!p) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
    for (long k = 0; k < nnz; k++) {
        p[k].col = m->col[k];
        p[k].row = m->row[k];
        p[k].k = k;
    }
    qsort(p, (size_t)nnz, sizeof *p, pos_cmp);
    *first = *second = -1;
    for (long q = 1; q < nnz; q++)
        if (p[q].col == p[q - 1].col && p[q].row == p[q - 1].row &&
            (q < 2 || p[q - 2].col != p[q].col || p[q - 2].row != p[q].row) &&
            (*second < 0 || line[p[q].k] < line[*second])) {
            *first = p[q - 1].k;
            *second = p[q].k;
        }
    tvds_free(p);
    return TVDS_OK;
}

/* Duplicate positions (after symmetric normalisation), reported at the later line of the
 * earliest-detected pair in file order. O(nnz + n), no per-entry allocation; O(nnz) memory
 * (find_duplicates_sorted) when the declared size is large against the entry count. */
static int check_duplicates(mm_src *s, const mm_parsed *m, const long *line, const int *orig_upper,
                            tvds_ctx *ctx)
{
    long nnz = m->nnz;
    int ncol = m->ncol, nrow = m->nrow;
    long *colptr = NULL, *perm = NULL, *seen = NULL;
    long best_first = -1, best_second = -1;
    int rc = TVDS_OK;
    if ((double)nrow + (double)ncol > 4.0 * (double)nnz + 65536.0) {
        rc = find_duplicates_sorted(m, line, &best_first, &best_second, ctx, s->path);
        if (rc != TVDS_OK) return rc;
        goto report;
    }
    colptr = tvds_calloc((size_t)ncol + 1, sizeof *colptr);
    perm = tvds_malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *perm);
    seen = tvds_malloc((size_t)(nrow > 0 ? nrow : 1) * sizeof *seen);
    if (!colptr || !perm || !seen) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", s->path);
        goto done;
    }
    for (long k = 0; k < nnz; k++)
        colptr[m->col[k] + 1]++;
    for (int j = 0; j < ncol; j++)
        colptr[j + 1] += colptr[j];
    for (long k = 0; k < nnz; k++)
        perm[colptr[m->col[k]]++] = k; /* stable: file order */
    for (int j = ncol; j > 0; j--)
        colptr[j] = colptr[j - 1];
    colptr[0] = 0;
    for (int i = 0; i < nrow; i++)
        seen[i] = -1;
    for (int j = 0; j < ncol; j++) {
        for (long p = colptr[j]; p < colptr[j + 1]; p++) {
            long k = perm[p];
            long f = seen[m->row[k]];
            if (f >= colptr[j] && f < p) {
                long first = perm[f];
                if (best_second < 0 || line[k] < line[best_second]) {
                    best_first = first;
                    best_second = k;
                }
            } else {
                seen[m->row[k]] = p;
            }
        }
    }
report:
    if (best_second >= 0) {
        long a = best_first, b = best_second;
        int i = m->row[b] + 1, j = m->col[b] + 1;
        if (m->symmetric && orig_upper[a] != orig_upper[b])
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: entry (%d,%d) and its mirror (%d,%d) on line %ld are both "
                            "given: a symmetric file stores one triangle only",
                            s->path, line[b], orig_upper[b] ? i : j, orig_upper[b] ? j : i,
                            orig_upper[a] ? i : j, orig_upper[a] ? j : i, line[a]);
        else
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: duplicate entry (%d,%d), first given on line %ld", s->path,
                            line[b], orig_upper[b] ? i : j, orig_upper[b] ? j : i, line[a]);
    }
done:
    tvds_free(colptr);
    tvds_free(perm);
    tvds_free(seen);
    return rc;
}

static int parse_entries(mm_src *s, mm_parsed *m, int integer, long nnz, tvds_ctx *ctx)
{
    long cap = nnz;
    long left = lines_left(s);
    if (cap > left) cap = left; /* the file cannot hold more; the count check reports it */
    size_t ncap = (size_t)(cap > 0 ? cap : 1);
    long *line = NULL;
    int *orig_upper = NULL;
    int rc = TVDS_OK;
    m->row = tvds_malloc(ncap * sizeof *m->row);
    m->col = tvds_malloc(ncap * sizeof *m->col);
    m->x = tvds_malloc(ncap * sizeof *m->x);
    if (!m->array) {
        line = tvds_malloc(ncap * sizeof *line);
        orig_upper = tvds_malloc(ncap * sizeof *orig_upper);
    }
    if (!m->row || !m->col || !m->x || (!m->array && (!line || !orig_upper))) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory for %ld entries", s->path, nnz);
        goto done;
    }
    const char *b, *e, *tb[4], *te[4];
    long k = 0;
    int ai = 0, aj = 0; /* array format: next position */
    while (next_data_line(s, &b, &e)) {
        if (k == nnz) {
            rc = too_many(s, nnz, ctx);
            goto done;
        }
        if (k >= cap) { /* cannot happen: cap counts every remaining line */
            rc = TVDS_ERROR(ctx, TVDS_ERR_INTERNAL, "%s:%ld: entry capacity", s->path, s->line);
            goto done;
        }
        if (m->array) {
            int nt = tvds_tokens(b, e, tb, te, 1);
            if (nt != 1) {
                const char *g = te[0];
                while (g < e && tvds_blank(*g))
                    g++;
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: trailing text '%.*s' after the value (array files hold "
                                "one value per line)",
                                s->path, s->line, TOKLEN(g, e), g);
                goto done;
            }
            if ((rc = parse_value(s, integer, tb[0], te[0], &m->x[k], ctx)) != TVDS_OK) goto done;
            /* Column-major; symmetric arrays hold the lower triangle, stored as upper. */
            m->row[k] = m->symmetric ? aj : ai;
            m->col[k] = m->symmetric ? ai : aj;
            if (++ai == m->nrow) {
                aj++;
                ai = m->symmetric ? aj : 0;
            }
        } else {
            int nt = tvds_tokens(b, e, tb, te, 3);
            if (nt > 3) {
                const char *g = te[2];
                while (g < e && tvds_blank(*g))
                    g++;
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: trailing text '%.*s' after the value",
                                s->path, s->line, TOKLEN(g, e), g);
                goto done;
            }
            if (nt < 3) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: entry has %d field%s, expected 3 (row column value)",
                                s->path, s->line, nt, nt == 1 ? "" : "s");
                goto done;
            }
            int i, j;
            if ((rc = parse_index(s, "row", tb[0], te[0], m->nrow, &i, ctx)) != TVDS_OK ||
                (rc = parse_index(s, "column", tb[1], te[1], m->ncol, &j, ctx)) != TVDS_OK ||
                (rc = parse_value(s, integer, tb[2], te[2], &m->x[k], ctx)) != TVDS_OK)
                goto done;
            if (m->symmetric) { /* stored as upper; orig_upper remembers the file's order */
                orig_upper[k] = i < j;
                m->row[k] = i < j ? i : j;
                m->col[k] = i < j ? j : i;
            } else { /* as given; 1 makes the messages print (row, col) */
                orig_upper[k] = 1;
                m->row[k] = i;
                m->col[k] = j;
            }
            line[k] = s->line;
        }
        k++;
    }
    if (k < nnz) {
        rc = too_few(s, k, nnz, ctx);
        goto done;
    }
    m->nnz = k;
    if (!m->array) rc = check_duplicates(s, m, line, orig_upper, ctx);
done:
    tvds_free(line);
    tvds_free(orig_upper);
    return rc;
}

/* Read and check path completely; on error m is cleared. */
static int mm_parse(const char *path, mm_parsed *m, tvds_ctx *ctx)
{
    mm_src s = {.path = path ? path : "(null)"};
    memset(m, 0, sizeof *m);
    if (!path) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "Matrix Market: no path given");
    int rc = slurp(&s, ctx);
    if (rc != TVDS_OK) {
        tvds_free(s.buf);
        return rc;
    }
    long nnz = 0;
    int integer = parse_banner(&s, m, ctx);
    if (integer < 0) {
        rc = integer;
        goto done;
    }
    if ((rc = parse_size(&s, m, &nnz, ctx)) != TVDS_OK) goto done;
    rc = parse_entries(&s, m, integer, nnz, ctx);
done:
    tvds_free(s.buf);
    if (rc != TVDS_OK) parsed_clear(m);
    return rc;
}

int tvds_mm_read(const char *path, cholmod_sparse **A, cholmod_common *cc, tvds_ctx *ctx)
{
    if (!A || !cc) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_mm_read: NULL argument");
    *A = NULL;
    mm_parsed m;
    int rc = mm_parse(path, &m, ctx);
    if (rc != TVDS_OK) return rc;
    /* Array files list every position: drop their exact zeros from the sparse form. */
    long nz = 0;
    for (long k = 0; k < m.nnz; k++)
        nz += !(m.array && m.x[k] == 0.0);
    cholmod_triplet *T = cholmod_allocate_triplet((size_t)m.nrow, (size_t)m.ncol, (size_t)nz,
                                                  m.symmetric ? 1 : 0, CHOLMOD_REAL, cc);
    if (!T) {
        parsed_clear(&m);
        return TVDS_ERROR(
            ctx, cc->status == CHOLMOD_OUT_OF_MEMORY ? TVDS_ERR_NOMEM : TVDS_ERR_SOLVER,
            "%s: CHOLMOD cannot allocate the triplet matrix (status %d)", path, cc->status);
    }
    int *Ti = T->i, *Tj = T->j;
    double *Tx = T->x;
    long t = 0;
    for (long k = 0; k < m.nnz; k++) {
        if (m.array && m.x[k] == 0.0) continue;
        Ti[t] = m.row[k];
        Tj[t] = m.col[k];
        Tx[t] = m.x[k];
        t++;
    }
    T->nnz = (size_t)t;
    parsed_clear(&m);
    *A = cholmod_triplet_to_sparse(T, (size_t)t, cc);
    cholmod_free_triplet(&T, cc);
    if (!*A)
        return TVDS_ERROR(
            ctx, cc->status == CHOLMOD_OUT_OF_MEMORY ? TVDS_ERR_NOMEM : TVDS_ERR_SOLVER,
            "%s: CHOLMOD cannot build the sparse matrix (status %d)", path, cc->status);
    return TVDS_OK;
}

int tvds_mm_read_dense(const char *path, int *nrows, int *ncols, double **A, int *symmetric,
                       tvds_ctx *ctx)
{
    if (!nrows || !ncols || !A)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_mm_read_dense: NULL argument");
    *A = NULL;
    mm_parsed m;
    int rc = mm_parse(path, &m, ctx);
    if (rc != TVDS_OK) return rc;
    size_t nr = (size_t)m.nrow, nc = (size_t)m.ncol;
    if (nc > 0 && nr > SIZE_MAX / sizeof(double) / nc) {
        parsed_clear(&m);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: %zu x %zu is too large for a dense matrix",
                          path, nr, nc);
    }
    double *D = tvds_calloc(nr * nc > 0 ? nr * nc : 1, sizeof *D);
    if (!D) {
        parsed_clear(&m);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory for a %zu x %zu matrix", path, nr,
                          nc);
    }
    for (long k = 0; k < m.nnz; k++) {
        size_t i = (size_t)m.row[k], j = (size_t)m.col[k];
        D[i + j * nr] = m.x[k];
        if (m.symmetric) D[j + i * nr] = m.x[k];
    }
    *nrows = m.nrow;
    *ncols = m.ncol;
    if (symmetric) *symmetric = m.symmetric;
    *A = D;
    parsed_clear(&m);
    return TVDS_OK;
}

/* ---- Writing ------------------------------------------------------------------------------ */

typedef struct mm_out {
    FILE *f;
    char *buf;
    size_t len, cap;
    int err;
} mm_out;

static void out_flush(mm_out *o)
{
    if (o->len && fwrite(o->buf, 1, o->len, o->f) != o->len) o->err = 1;
    o->len = 0;
}

static char *put_long(char *p, long v)
{
    char tmp[24];
    int n = 0;
    unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) *p++ = '-';
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* "i j x\n", 1-based indices, x with 17 significant digits (reads back bit for bit). */
static void out_entry(mm_out *o, long i, long j, double x)
{
    if (o->cap - o->len < 96) out_flush(o);
    char *p = o->buf + o->len;
    p = put_long(p, i);
    *p++ = ' ';
    p = put_long(p, j);
    *p++ = ' ';
    p += snprintf(p, 40, "%.17g", x);
    *p++ = '\n';
    o->len = (size_t)(p - o->buf);
}

static void out_text(mm_out *o, const char *t)
{
    size_t n = strlen(t);
    if (o->cap - o->len < n) out_flush(o);
    if (n > o->cap) {
        if (fwrite(t, 1, n, o->f) != n) o->err = 1;
        return;
    }
    memcpy(o->buf + o->len, t, n);
    o->len += n;
}

static int out_open(mm_out *o, const char *path, tvds_ctx *ctx)
{
    memset(o, 0, sizeof *o);
    o->cap = 1 << 20;
    o->buf = tvds_malloc(o->cap);
    if (!o->buf) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
    o->f = fopen(path, "wb");
    if (!o->f) {
        tvds_free(o->buf);
        o->buf = NULL;
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    }
    return TVDS_OK;
}

static int out_close(mm_out *o, const char *path, tvds_ctx *ctx)
{
    out_flush(o);
    int bad = o->err || ferror(o->f);
    if (fclose(o->f) != 0) bad = 1;
    tvds_free(o->buf);
    o->buf = NULL;
    if (bad) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    return TVDS_OK;
}

/* Banner, comment lines (each line of comment prefixed by '%') and size line. */
static void out_header(mm_out *o, int symmetric, const char *comment, long nrow, long ncol,
                       long nnz)
{
    out_text(o, symmetric ? "%%MatrixMarket matrix coordinate real symmetric\n"
                          : "%%MatrixMarket matrix coordinate real general\n");
    if (comment) {
        const char *c = comment;
        while (*c) {
            const char *nl = strchr(c, '\n');
            size_t n = nl ? (size_t)(nl - c) : strlen(c);
            out_text(o, "%");
            if (n) out_text(o, " ");
            while (n) { /* copy in pieces through a small buffer */
                char piece[256];
                size_t m = n < sizeof piece - 1 ? n : sizeof piece - 1;
                memcpy(piece, c, m);
                piece[m] = '\0';
                out_text(o, piece);
                c += m;
                n -= m;
            }
            out_text(o, "\n");
            if (nl) c = nl + 1;
        }
    }
    char line[80], *p = line;
    p = put_long(p, nrow);
    *p++ = ' ';
    p = put_long(p, ncol);
    *p++ = ' ';
    p = put_long(p, nnz);
    *p++ = '\n';
    *p = '\0';
    out_text(o, line);
}

int tvds_mm_write(const char *path, const cholmod_sparse *A, const char *comment, tvds_ctx *ctx)
{
    if (!path || !A) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_mm_write: NULL argument");
    if (A->xtype != CHOLMOD_REAL || A->itype != CHOLMOD_INT || A->dtype != CHOLMOD_DOUBLE)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "%s: tvds writes real double matrices with int indices only", path);
    if (A->stype != 0 && A->nrow != A->ncol)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s: symmetric matrix is not square", path);
    const int *Ap = A->p, *Ai = A->i, *Anz = A->nz;
    const double *Ax = A->x;
    long ncol = (long)A->ncol;
    /* A stype != 0 matrix uses one triangle only: count what is written. */
    long nnz = 0;
    for (long j = 0; j < ncol; j++) {
        long p0 = Ap[j], p1 = A->packed ? Ap[j + 1] : Ap[j] + Anz[j];
        for (long p = p0; p < p1; p++) {
            long i = Ai[p];
            if ((A->stype > 0 && i > j) || (A->stype < 0 && i < j)) continue;
            if (!isfinite(Ax[p]))
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                  "%s: entry (%ld,%ld) is not finite; not written", path, i + 1,
                                  j + 1);
            nnz++;
        }
    }
    mm_out o;
    int rc = out_open(&o, path, ctx);
    if (rc != TVDS_OK) return rc;
    out_header(&o, A->stype != 0, comment, (long)A->nrow, ncol, nnz);
    for (long j = 0; j < ncol; j++) {
        long p0 = Ap[j], p1 = A->packed ? Ap[j + 1] : Ap[j] + Anz[j];
        for (long p = p0; p < p1; p++) {
            long i = Ai[p];
            if (A->stype > 0) {
                if (i > j) continue;
                out_entry(&o, j + 1, i + 1, Ax[p]); /* lower triangle */
            } else if (A->stype < 0) {
                if (i < j) continue;
                out_entry(&o, i + 1, j + 1, Ax[p]);
            } else {
                out_entry(&o, i + 1, j + 1, Ax[p]);
            }
        }
    }
    return out_close(&o, path, ctx);
}

/* Bitwise equality, so that +0 and -0 are told apart (a symmetric file stores one of them). */
static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Zero entries are skipped, except -0.0, which is written so that it reads back as -0.0. */
static int is_plus_zero(double x)
{
    return x == 0.0 && !signbit(x);
}

int tvds_mm_write_dense(const char *path, int nrows, int ncols, const double *A, int symmetric,
                        const char *comment, tvds_ctx *ctx)
{
    if (!path || (!A && nrows > 0 && ncols > 0) || nrows < 0 || ncols < 0)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_mm_write_dense: bad argument");
    size_t nr = (size_t)nrows;
    if (symmetric && nrows != ncols)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s: symmetric matrix is %d x %d, not square",
                          path, nrows, ncols);
    long nnz = 0;
    for (int j = 0; j < ncols; j++)
        for (int i = symmetric ? j : 0; i < nrows; i++) {
            double x = A[i + j * nr];
            if (!isfinite(x))
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                  "%s: entry (%d,%d) is not finite; not written", path, i + 1,
                                  j + 1);
            if (symmetric && !same_bits(x, A[j + i * nr]))
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                  "%s: matrix is not exactly symmetric: (%d,%d) = %.17g but "
                                  "(%d,%d) = %.17g",
                                  path, i + 1, j + 1, x, j + 1, i + 1, A[j + i * nr]);
            nnz += !is_plus_zero(x);
        }
    mm_out o;
    int rc = out_open(&o, path, ctx);
    if (rc != TVDS_OK) return rc;
    out_header(&o, symmetric, comment, nrows, ncols, nnz);
    for (int j = 0; j < ncols; j++)
        for (int i = symmetric ? j : 0; i < nrows; i++) {
            double x = A[i + j * nr];
            if (!is_plus_zero(x)) out_entry(&o, i + 1, j + 1, x);
        }
    return out_close(&o, path, ctx);
}
