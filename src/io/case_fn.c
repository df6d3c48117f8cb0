/* case_fn.c — time functions of case files (constants, ramps, sines, tables) from and to text. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/case_impl.h"
#include "io/io_impl.h"

/* ---- Time functions ---------------------------------------------------------------------------
 */

static int fn_table_push(tvds_fn *f, int *cap, double t, double v)
{
    if (f->ntab == *cap) {
        int nc = *cap ? 2 * *cap : 16;
        double *nt = tvds_realloc(f->tab_t, (size_t)nc * sizeof *nt);
        if (!nt) return 0;
        f->tab_t = nt;
        double *nv = tvds_realloc(f->tab_v, (size_t)nc * sizeof *nv);
        if (!nv) return 0;
        f->tab_v = nv;
        *cap = nc;
    }
    f->tab_t[f->ntab] = t;
    f->tab_v[f->ntab] = v;
    f->ntab++;
    return 1;
}

static int fn_fail(tvds_fn *f, char *msg, size_t msgsize, int code, const char *fmt, ...)
    TVDS_PRINTF(5, 6);
static int fn_fail(tvds_fn *f, char *msg, size_t msgsize, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (msg && msgsize) vsnprintf(msg, msgsize, fmt, ap);
    va_end(ap);
    tvds_fn_clear(f);
    return code;
}

static int fn_read_table_file(const char *path, const char *shown, tvds_fn *f, int *cap, char *msg,
                              size_t msgsize)
{
    tvds_ctx lctx;
    tvds_ctx_init(&lctx);
    FILE *fp = tvds_input_open(path, "table file", &lctx);
    if (!fp && errno)
        return fn_fail(f, msg, msgsize, TVDS_ERR_IO, "cannot open table file '%s': %s", shown,
                       strerror(errno));
    if (!fp) return fn_fail(f, msg, msgsize, TVDS_ERR_IO, "%s", lctx.msg);
    char *line = NULL;
    size_t cap_line = 0;
    int lineno = 0, rc = TVDS_OK;
    while (getline(&line, &cap_line, fp) >= 0) {
        lineno++;
        for (char *q = line; *q; q++)
            if (*q == ',' || *q == ';' || *q == '\t' || *q == '\r' || *q == '\n') *q = ' ';
        char *tok[3];
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        int nt = case_split_ws(line, tok, 2);
        if (nt == 0) continue;
        double t, v;
        if (nt != 2 || !case_parse_double(tok[0], &t) || !case_parse_double(tok[1], &v)) {
            rc = fn_fail(f, msg, msgsize, TVDS_ERR_PARSE,
                         "table file '%s' line %d: expected two finite numbers 't value'", shown,
                         lineno);
            break;
        }
        if (!fn_table_push(f, cap, t, v)) {
            rc = fn_fail(f, msg, msgsize, TVDS_ERR_NOMEM, "out of memory");
            break;
        }
    }
    free(line); /* allocated by getline */
    fclose(fp);
    if (rc == TVDS_OK && f->ntab == 0)
        rc = fn_fail(f, msg, msgsize, TVDS_ERR_PARSE, "table file '%s' has no rows", shown);
    return rc;
}

int tvds_fn_parse(const char *text, const char *base_dir, tvds_fn *f, char *msg, size_t msgsize)
{
    memset(f, 0, sizeof *f);
    if (msg && msgsize) msg[0] = '\0';
    if (!text) return fn_fail(f, msg, msgsize, TVDS_ERR_PARSE, "empty time function");
    size_t len = strlen(text);
    char *buf = tvds_malloc(len + 1);
    int ntokmax = (int)(len / 2 + 2);
    char **tok = tvds_malloc((size_t)(ntokmax + 1) * sizeof *tok);
    if (!buf || !tok) {
        tvds_free(buf);
        tvds_free(tok);
        return fn_fail(f, msg, msgsize, TVDS_ERR_NOMEM, "out of memory");
    }
    memcpy(buf, text, len + 1);
    int nt = case_split_ws(buf, tok, ntokmax);
    int rc = TVDS_OK;
    double offset = 0.0;
    if (nt == 0) {
        rc = fn_fail(f, msg, msgsize, TVDS_ERR_PARSE, "empty time function");
        goto done;
    }
    if (nt >= 3 && (strcmp(tok[nt - 2], "+") == 0 || strcmp(tok[nt - 2], "-") == 0)) {
        if (!case_parse_double(tok[nt - 1], &offset)) {
            rc = fn_fail(f, msg, msgsize, TVDS_ERR_PARSE, "offset '%s' %s", tok[nt - 1],
                         case_bad_number_why(tok[nt - 1]));
            goto done;
        }
        if (tok[nt - 2][0] == '-') offset = -offset;
        nt -= 2;
    }
    double a[3] = {0, 0, 0};
    const char *kw = tok[0];
    if (nt == 1 && case_parse_double(kw, &a[0])) {
        f->kind = TVDS_FN_CONST;
        f->amp = a[0];
    } else if (strcmp(kw, "const") == 0 || strcmp(kw, "ramp") == 0 || strcmp(kw, "smooth") == 0 ||
               strcmp(kw, "harmonic") == 0) {
        int is_h = kw[0] == 'h', is_c = kw[0] == 'c';
        int nmin = is_c ? 1 : is_h ? 2 : 3, nmax = is_c ? 1 : 3;
        if (nt - 1 < nmin || nt - 1 > nmax) {
            rc = fn_fail(f, msg, msgsize, TVDS_ERR_PARSE, "'%s' takes %s", kw,
                         is_c   ? "one number: const AMP"
                         : is_h ? "2 or 3 numbers: harmonic AMP FREQ_HZ [PHASE_RAD]"
                                : (kw[0] == 'r' ? "3 numbers: ramp AMP T0 T1"
                                                : "3 numbers: smooth AMP T0 T1"));
            goto done;
        }
        for (int i = 1; i < nt; i++)
            if (!case_parse_double(tok[i], &a[i - 1])) {
                rc = fn_fail(f, msg, msgsize, TVDS_ERR_PARSE, "'%s' %s", tok[i],
                             case_bad_number_why(tok[i]));
                goto done;
            }
        f->amp = a[0];
        if (is_c) {
            f->kind = TVDS_FN_CONST;
        } else if (is_h) {
            if (a[1] < 0) {
                rc = fn_fail(f, msg, msgsize, TVDS_ERR_PARSE, "harmonic frequency %g Hz < 0", a[1]);
                goto done;
            }
            f->kind = TVDS_FN_HARMONIC;
            f->freq = a[1];
            f->phase = a[2];
        } else {
            if (!(a[2] > a[1])) {
                rc = fn_fail(f, msg, msgsize, TVDS_ERR_PARSE,
                             "%s needs T1 > T0 (got T0 = %g, T1 = %g)", kw, a[1], a[2]);
                goto done;
            }
            f->kind = kw[0] == 'r' ? TVDS_FN_RAMP : TVDS_FN_SMOOTH_RAMP;
            f->t0 = a[1];
            f->t1 = a[2];
        }
    } else if (strcmp(kw, "table") == 0) {
        int cap = 0;
        f->kind = TVDS_FN_TABLE;
        double t0;
        if (nt == 2 && !case_parse_double(tok[1], &t0)) {
            char *path = case_join_path(base_dir, tok[1]);
            if (!path) {
                rc = fn_fail(f, msg, msgsize, TVDS_ERR_NOMEM, "out of memory");
                goto done;
            }
            rc = fn_read_table_file(path, tok[1], f, &cap, msg, msgsize);
            tvds_free(path);
            if (rc) goto done;
        } else {
            if (nt < 3 || (nt - 1) % 2 != 0) {
                rc = fn_fail(f, msg, msgsize, TVDS_ERR_PARSE,
                             "table takes a file name or pairs 'T V T V ...' (got %d numbers)",
                             nt - 1);
                goto done;
            }
            for (int i = 1; i + 1 < nt; i += 2) {
                double t, v;
                if (!case_parse_double(tok[i], &t) || !case_parse_double(tok[i + 1], &v)) {
                    rc =
                        fn_fail(f, msg, msgsize, TVDS_ERR_PARSE,
                                "table pair '%s %s' is not two finite numbers", tok[i], tok[i + 1]);
                    goto done;
                }
                if (!fn_table_push(f, &cap, t, v)) {
                    rc = fn_fail(f, msg, msgsize, TVDS_ERR_NOMEM, "out of memory");
                    goto done;
                }
            }
        }
        for (int i = 1; i < f->ntab; i++)
            if (!(f->tab_t[i] > f->tab_t[i - 1])) {
                rc = fn_fail(f, msg, msgsize, TVDS_ERR_PARSE,
                             "table times must increase strictly (%g after %g)", f->tab_t[i],
                             f->tab_t[i - 1]);
                goto done;
            }
    } else {
        rc = fn_fail(f, msg, msgsize, TVDS_ERR_PARSE,
                     "unknown time function '%s' (expected a number, const, ramp, smooth, "
                     "harmonic or table)",
                     kw);
        goto done;
    }
    f->offset = offset;
done:
    tvds_free(buf);
    tvds_free(tok);
    return rc;
}

/* snprintf appending at *n into buf[size] (buf may be NULL), counting the full length. */
static void TVDS_PRINTF(4, 5) appendf(char *buf, size_t size, int *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t at = (size_t)*n;
    int k =
        vsnprintf(buf && at < size ? buf + at : NULL, buf && at < size ? size - at : 0, fmt, ap);
    va_end(ap);
    if (k > 0) *n += k;
}

static const char *num(double v, char b[32])
{
    tvds_format_double(v, b);
    return b;
}

int tvds_fn_format(const tvds_fn *f, char *buf, size_t size)
{
    int n = 0;
    char b0[32], b1[32], b2[32];
    if (buf && size) buf[0] = '\0';
    if (!f) {
        appendf(buf, size, &n, "0");
        return n;
    }
    switch (f->kind) {
    case TVDS_FN_CONST:
        appendf(buf, size, &n, "%s", num(f->amp, b0));
        break;
    case TVDS_FN_RAMP:
    case TVDS_FN_SMOOTH_RAMP:
        appendf(buf, size, &n, "%s %s %s %s", f->kind == TVDS_FN_RAMP ? "ramp" : "smooth",
                num(f->amp, b0), num(f->t0, b1), num(f->t1, b2));
        break;
    case TVDS_FN_HARMONIC:
        appendf(buf, size, &n, "harmonic %s %s %s", num(f->amp, b0), num(f->freq, b1),
                num(f->phase, b2));
        break;
    case TVDS_FN_TABLE:
        appendf(buf, size, &n, "table");
        for (int i = 0; i < f->ntab; i++)
            appendf(buf, size, &n, " %s %s", num(f->tab_t[i], b0), num(f->tab_v[i], b1));
        break;
    default:
        appendf(buf, size, &n, "?");
    }
    if (f->offset != 0.0) appendf(buf, size, &n, " + %s", num(f->offset, b0));
    return n;
}
