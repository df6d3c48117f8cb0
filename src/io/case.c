/* case.c — case files: INI text (libinih) and --set overrides into a tvds_model. */
#include "tvds/tvds_case.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Raw entries ---------------------------------------------------------------------------- */

typedef struct case_section {
    char *type;
    char *name;   /* NULL for unnamed sections */
    char raw[64]; /* header text as libinih reports it (truncated like libinih) */
    int line;     /* 0 when added by an override */
    int set_idx;  /* override that added it, or -1 */
} case_section;

typedef struct case_entry {
    int sec;
    char *key;
    char *value;
    int line;
    int set_idx; /* override that wrote it, or -1 */
    int used;
} case_entry;

typedef struct parser {
    const char *file; /* for messages */
    const char *base_dir;
    const char *const *overrides;
    case_section *secs;
    int nsec, capsec;
    case_entry *ents;
    int nent, capent;
    /* reader state */
    FILE *fp;
    const char *str;
    char *linebuf;
    size_t linecap;
    int lineno;
    int indented;
    int cur_sec;
    int last_key_line; /* a key line seen in the current section (continuations allowed) */
    tvds_ctx *ctx;
    int failed; /* a status once an error was recorded */
} parser;

typedef struct sec_spec {
    const char *type;
    int named;
    const char *const *keys;
} sec_spec;

static const char *const run_keys[] = {
    "name",    "method", "dt",     "dt_safety", "allow_unstable_dt",
    "t_end",   "out_dt", "window", "film_tol",  "film_maxit",
    "v_stick", "path",   NULL};
static const char *const sub_keys[] = {"dir",   "damping", "alpha",  "beta", "alpha0",
                                       "beta0", "t_hold",  "t_ramp", NULL};
static const char *const contact_keys[] = {
    "slave",    "master",          "dim",         "point",       "normal", "t1",      "motion_x",
    "motion_y", "motion_z",        "mu",          "mu_s",        "mu_k",   "mu_axis", "exact_stick",
    "v_stick",  "initially_stuck", "law",         "kn",          "pen0",   "kt",      "cn",
    "ct",       "slave_kin_x",     "slave_kin_y", "slave_kin_z", NULL};
static const char *const constraint_keys[] = {"terms", "value", NULL};
static const char *const load_keys[] = {"dof", "f", NULL};
static const char *const gravity_keys[] = {"g", "scale", NULL};
static const char *const base_keys[] = {"dir", "acc", NULL};
static const char *const element_keys[] = {
    "type",     "dof1",   "dof2",      "k",         "b",       "kindF", "Fst",
    "Fsl",      "dvL",    "rigid",     "kindPS",    "dxSD0",   "Fs0",   "dFfrel",
    "eps_dvsl", "eps_dI", "kindTrans", "eps_sigma", "eps_tau", NULL};
static const char *const initial_keys[] = {"dof", "u0", "v0", NULL};
static const char *const probe_keys[] = {"quantity", "dof", "point", NULL};

static const sec_spec specs[] = {
    {"run", 0, run_keys},         {"substructure", 1, sub_keys},
    {"contact", 1, contact_keys}, {"constraint", 1, constraint_keys},
    {"load", 1, load_keys},       {"gravity", 0, gravity_keys},
    {"base", 0, base_keys},       {"element", 1, element_keys},
    {"initial", 1, initial_keys}, {"probe", 1, probe_keys},
};
#define NSPECS ((int)(sizeof specs / sizeof specs[0]))

static const sec_spec *find_spec(const char *type)
{
    for (int i = 0; i < NSPECS; i++)
        if (strcmp(specs[i].type, type) == 0) return &specs[i];
    return NULL;
}

static const char *const dir_names[6] = {"ux", "uy", "uz", "rx", "ry", "rz"};

/* ---- Errors --------------------------------------------------------------------------------- */

/* Record "where: message" where is file:line or --set override. First error wins. */
static int verr(parser *p, int code, int line, int set_idx, const char *fmt, va_list ap)
{
    char buf[768];
    vsnprintf(buf, sizeof buf, fmt, ap);
    if (!p->failed) p->failed = code;
    if (set_idx >= 0)
        return TVDS_ERROR(p->ctx, code, "--set %.200s: %s", p->overrides[set_idx], buf);
    return TVDS_ERROR(p->ctx, code, "%.200s:%d: %s", p->file, line > 0 ? line : 1, buf);
}

static int TVDS_PRINTF(4, 5) err_line(parser *p, int code, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = verr(p, code, line, -1, fmt, ap);
    va_end(ap);
    return rc;
}

static int TVDS_PRINTF(4, 5) err_ent(parser *p, int code, const case_entry *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = verr(p, code, e->line, e->set_idx, fmt, ap);
    va_end(ap);
    return rc;
}

static int TVDS_PRINTF(4, 5) err_sec(parser *p, int code, int sec, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = verr(p, code, p->secs[sec].line, p->secs[sec].set_idx, fmt, ap);
    va_end(ap);
    return rc;
}

/* "[contact tip]" for messages. */
static const char *sec_label(const parser *p, int sec, char *buf, size_t size)
{
    const case_section *s = &p->secs[sec];
    if (s->name)
        snprintf(buf, size, "[%s %s]", s->type, s->name);
    else
        snprintf(buf, size, "[%s]", s->type);
    return buf;
}

/* ---- Small parsing helpers ------------------------------------------------------------------ */

/* Full-string finite number. */
static int parse_double(const char *s, double *out)
{
    if (!s || !*s) return 0;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(v) || errno == ERANGE) return 0;
    *out = v;
    return 1;
}

static int parse_long(const char *s, long *out)
{
    if (!s || !*s) return 0;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE) return 0;
    *out = v;
    return 1;
}

static int is_integer_text(const char *s)
{
    long v;
    return parse_long(s, &v);
}

/* Split s (modified in place) at whitespace into at most maxtok tokens; returns the count, or
 * maxtok + 1 when there are more. */
static int split_ws(char *s, char **tok, int maxtok)
{
    int n = 0;
    char *q = s;
    for (;;) {
        while (*q && isspace((unsigned char)*q))
            q++;
        if (!*q) break;
        if (n == maxtok) return maxtok + 1;
        tok[n++] = q;
        while (*q && !isspace((unsigned char)*q))
            q++;
        if (*q) *q++ = '\0';
    }
    return n;
}

/* Split s (modified) at ':' into at most 3 fields; returns the count (4 when more). */
static int split_colon(char *s, char **f)
{
    int n = 0;
    f[n++] = s;
    for (char *q = s; *q; q++)
        if (*q == ':') {
            if (n == 3) return 4;
            *q = '\0';
            f[n++] = q + 1;
        }
    return n;
}

static int dir_from_name(const char *s)
{
    for (int i = 0; i < 6; i++)
        if (strcmp(s, dir_names[i]) == 0) return i;
    return -1;
}

static char *join_path(const char *base, const char *rel)
{
    if (rel[0] == '/' || !base || !*base || strcmp(base, ".") == 0) return tvds_strdup(rel);
    size_t nb = strlen(base), nr = strlen(rel);
    char *p = tvds_malloc(nb + nr + 2);
    if (!p) return NULL;
    memcpy(p, base, nb);
    p[nb] = '/';
    memcpy(p + nb + 1, rel, nr + 1);
    return p;
}

static int valid_name(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-') return 0;
    return 1;
}

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
    FILE *fp = fopen(path, "r");
    if (!fp)
        return fn_fail(f, msg, msgsize, TVDS_ERR_IO, "cannot open table file '%s': %s", shown,
                       strerror(errno));
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
        int nt = split_ws(line, tok, 2);
        if (nt == 0) continue;
        double t, v;
        if (nt != 2 || !parse_double(tok[0], &t) || !parse_double(tok[1], &v)) {
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
    int nt = split_ws(buf, tok, ntokmax);
    int rc = TVDS_OK;
    double offset = 0.0;
    if (nt == 0) {
        rc = fn_fail(f, msg, msgsize, TVDS_ERR_PARSE, "empty time function");
        goto done;
    }
    if (nt >= 3 && (strcmp(tok[nt - 2], "+") == 0 || strcmp(tok[nt - 2], "-") == 0)) {
        if (!parse_double(tok[nt - 1], &offset)) {
            rc = fn_fail(f, msg, msgsize, TVDS_ERR_PARSE, "offset '%s' is not a finite number",
                         tok[nt - 1]);
            goto done;
        }
        if (tok[nt - 2][0] == '-') offset = -offset;
        nt -= 2;
    }
    double a[3] = {0, 0, 0};
    const char *kw = tok[0];
    if (nt == 1 && parse_double(kw, &a[0])) {
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
            if (!parse_double(tok[i], &a[i - 1])) {
                rc =
                    fn_fail(f, msg, msgsize, TVDS_ERR_PARSE, "'%s' is not a finite number", tok[i]);
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
        if (nt == 2 && !parse_double(tok[1], &t0)) {
            char *path = join_path(base_dir, tok[1]);
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
                if (!parse_double(tok[i], &t) || !parse_double(tok[i + 1], &v)) {
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

/* ---- Reading the INI text ------------------------------------------------------------------- */

static int add_section(parser *p, const char *type, const char *name, const char *raw, int line,
                       int set_idx)
{
    if (p->nsec == p->capsec) {
        int nc = p->capsec ? 2 * p->capsec : 16;
        case_section *ns = tvds_realloc(p->secs, (size_t)nc * sizeof *ns);
        if (!ns) return -1;
        p->secs = ns;
        p->capsec = nc;
    }
    case_section *s = &p->secs[p->nsec];
    memset(s, 0, sizeof *s);
    s->type = tvds_strdup(type);
    s->name = name ? tvds_strdup(name) : NULL;
    snprintf(s->raw, sizeof s->raw, "%s", raw);
    s->line = line;
    s->set_idx = set_idx;
    if (!s->type || (name && !s->name)) {
        tvds_free(s->type);
        tvds_free(s->name);
        return -1;
    }
    return p->nsec++;
}

static int add_entry(parser *p, int sec, const char *key, const char *value, int line, int set_idx)
{
    if (p->nent == p->capent) {
        int nc = p->capent ? 2 * p->capent : 64;
        case_entry *ne = tvds_realloc(p->ents, (size_t)nc * sizeof *ne);
        if (!ne) return -1;
        p->ents = ne;
        p->capent = nc;
    }
    case_entry *e = &p->ents[p->nent];
    memset(e, 0, sizeof *e);
    e->sec = sec;
    e->key = tvds_strdup(key);
    e->value = tvds_strdup(value);
    e->line = line;
    e->set_idx = set_idx;
    if (!e->key || !e->value) {
        tvds_free(e->key);
        tvds_free(e->value);
        return -1;
    }
    return p->nent++;
}

static int find_section(const parser *p, const char *type, const char *name)
{
    for (int i = 0; i < p->nsec; i++) {
        const case_section *s = &p->secs[i];
        if (strcmp(s->type, type) != 0) continue;
        if ((!name && !s->name) || (name && s->name && strcmp(name, s->name) == 0)) return i;
    }
    return -1;
}

static case_entry *find_entry(parser *p, int sec, const char *key)
{
    for (int i = 0; i < p->nent; i++)
        if (p->ents[i].sec == sec && strcmp(p->ents[i].key, key) == 0) return &p->ents[i];
    return NULL;
}

/* Section header "[type name]" seen by the reader at line. */
static void reader_section(parser *p, char *text, const char *raw)
{
    char *tok[3];
    char label[96];
    snprintf(label, sizeof label, "%s", raw);
    int nt = split_ws(text, tok, 2);
    p->last_key_line = 0;
    if (nt == 0) {
        err_line(p, TVDS_ERR_PARSE, p->lineno, "empty section header '[]'");
        return;
    }
    if (nt > 2) {
        err_line(p, TVDS_ERR_PARSE, p->lineno,
                 "section header '[%s]' has more than two words (expected [type] or [type NAME])",
                 label);
        return;
    }
    const sec_spec *sp = find_spec(tok[0]);
    if (!sp) {
        err_line(p, TVDS_ERR_PARSE, p->lineno,
                 "unknown section [%s] (expected run, substructure, contact, constraint, load, "
                 "gravity, base, element, initial or probe)",
                 label);
        return;
    }
    if (sp->named && nt != 2) {
        err_line(p, TVDS_ERR_PARSE, p->lineno, "section [%s] needs a name: [%s NAME]", tok[0],
                 tok[0]);
        return;
    }
    if (!sp->named && nt != 1) {
        err_line(p, TVDS_ERR_PARSE, p->lineno, "section [%s] takes no name", tok[0]);
        return;
    }
    if (nt == 2 && !valid_name(tok[1])) {
        err_line(p, TVDS_ERR_PARSE, p->lineno,
                 "name '%s' of [%s] may only use letters, digits, '_' and '-'", tok[1], tok[0]);
        return;
    }
    int prev = find_section(p, tok[0], nt == 2 ? tok[1] : NULL);
    if (prev >= 0) {
        err_line(p, TVDS_ERR_PARSE, p->lineno, "duplicate section [%s] (first at line %d)", label,
                 p->secs[prev].line);
        return;
    }
    int s = add_section(p, tok[0], nt == 2 ? tok[1] : NULL, raw, p->lineno, -1);
    if (s < 0) {
        err_line(p, TVDS_ERR_NOMEM, p->lineno, "out of memory");
        return;
    }
    p->cur_sec = s;
}

/* fgets-like reader for libinih that counts lines and checks the line syntax itself, so that
 * every error carries its line number (this libinih build has no line numbers in handlers). */
static char *case_reader(char *str, int num, void *stream)
{
    parser *p = stream;
    ssize_t len;
    if (p->fp) {
        len = getline(&p->linebuf, &p->linecap, p->fp);
        if (len < 0) return NULL;
    } else {
        if (!p->str || !*p->str) return NULL;
        const char *nl = strchr(p->str, '\n');
        size_t n = nl ? (size_t)(nl - p->str) + 1 : strlen(p->str);
        if (n + 1 > p->linecap) {
            char *nb = realloc(p->linebuf, n + 1); /* freed with free, like getline's buffer */
            if (!nb) return NULL;
            p->linebuf = nb;
            p->linecap = n + 1;
        }
        memcpy(p->linebuf, p->str, n);
        p->linebuf[n] = '\0';
        p->str += n;
        len = (ssize_t)n;
    }
    p->lineno++;
    char *line = p->linebuf;
    if (p->lineno == 1 && (unsigned char)line[0] == 0xEF && (unsigned char)line[1] == 0xBB &&
        (unsigned char)line[2] == 0xBF)
        line += 3, len -= 3;
    p->indented = line[0] == ' ' || line[0] == '\t';
    /* Line end normalised to "\n" (CRLF files); libinih's buffer holds num - 1 characters. */
    size_t vis = (size_t)len;
    while (vis > 0 && (line[vis - 1] == '\n' || line[vis - 1] == '\r'))
        vis--;
    line[vis] = '\0';
    if (vis + 2 > (size_t)num) {
        err_line(p, TVDS_ERR_PARSE, p->lineno,
                 "line longer than %d characters (split long values over indented continuation "
                 "lines or use a table file)",
                 num - 2);
        snprintf(str, (size_t)num, "\n");
        return str;
    }
    memcpy(str, line, vis);
    str[vis] = '\n';
    str[vis + 1] = '\0';
    if (p->failed) return str;

    /* Syntax as libinih sees it: comment, [section], key = value, or a continuation. */
    char *s = line;
    while (*s && isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    if (!*s || *s == ';' || *s == '#') return str;
    if (p->indented && p->last_key_line) return str; /* continuation of the previous value */
    if (*s == '[') {
        char *close = strchr(s, ']');
        if (!close) {
            err_line(p, TVDS_ERR_PARSE, p->lineno, "section header without closing ']'");
            return str;
        }
        if (p->indented) {
            err_line(p, TVDS_ERR_PARSE, p->lineno, "indented section header");
            return str;
        }
        char after[8];
        char *rest = close + 1;
        while (*rest && isspace((unsigned char)*rest))
            rest++;
        if (*rest && *rest != ';' && *rest != '#') {
            snprintf(after, sizeof after, "%s", rest);
            err_line(p, TVDS_ERR_PARSE, p->lineno, "text after section header: '%s...'", after);
            return str;
        }
        *close = '\0';
        char raw[64];
        snprintf(raw, sizeof raw, "%s", s + 1);
        reader_section(p, s + 1, raw);
        return str;
    }
    char *eq = strpbrk(s, "=:");
    if (!eq || eq == s) {
        err_line(p, TVDS_ERR_PARSE, p->lineno, "expected 'key = value', '[section]' or a comment");
        return str;
    }
    if (p->cur_sec < 0) {
        err_line(p, TVDS_ERR_PARSE, p->lineno, "key outside any section");
        return str;
    }
    p->last_key_line = p->lineno;
    return str;
}

static int case_handler(void *user, const char *section, const char *name, const char *value)
{
    parser *p = user;
    if (p->failed) return 1;
    if (p->cur_sec < 0) return 1; /* reported by the reader */
    if (strncmp(section, p->secs[p->cur_sec].raw, 49) != 0) {
        err_line(p, TVDS_ERR_PARSE, p->lineno, "malformed section header");
        return 1;
    }
    if (p->indented && p->nent > 0) {
        case_entry *last = &p->ents[p->nent - 1];
        if (last->sec == p->cur_sec && strcmp(last->key, name) == 0) {
            size_t a = strlen(last->value), b = strlen(value);
            char *nv = tvds_realloc(last->value, a + b + 2);
            if (!nv) {
                err_line(p, TVDS_ERR_NOMEM, p->lineno, "out of memory");
                return 1;
            }
            nv[a] = ' ';
            memcpy(nv + a + 1, value, b + 1);
            last->value = nv;
            return 1;
        }
    }
    case_entry *prev = find_entry(p, p->cur_sec, name);
    if (prev) {
        char lab[160];
        err_line(p, TVDS_ERR_PARSE, p->lineno, "duplicate key '%s' in %s (first at line %d)", name,
                 sec_label(p, p->cur_sec, lab, sizeof lab), prev->line);
        return 1;
    }
    if (add_entry(p, p->cur_sec, name, value, p->lineno, -1) < 0)
        err_line(p, TVDS_ERR_NOMEM, p->lineno, "out of memory");
    return 1;
}

static int TVDS_PRINTF(4, 5) err_set(parser *p, int code, int set_idx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = verr(p, code, 0, set_idx, fmt, ap);
    va_end(ap);
    return rc;
}

/* Apply "--set" overrides: "type.key=value" or "type.NAME.key=value". */
static int apply_overrides(parser *p, int n)
{
    for (int i = 0; i < n; i++) {
        const char *o = p->overrides[i];
        const char *eq = o ? strchr(o, '=') : NULL;
        if (!eq) return err_set(p, TVDS_ERR_INVALID, i, "expected section.key=value");
        size_t nl = (size_t)(eq - o);
        char lhs[256];
        if (nl >= sizeof lhs) return err_set(p, TVDS_ERR_INVALID, i, "key too long");
        memcpy(lhs, o, nl);
        lhs[nl] = '\0';
        while (nl > 0 && isspace((unsigned char)lhs[nl - 1]))
            lhs[--nl] = '\0';
        char *dot1 = strchr(lhs, '.'), *dot2 = strrchr(lhs, '.');
        if (!dot1) return err_set(p, TVDS_ERR_INVALID, i, "expected section.key=value");
        *dot1 = '\0';
        const char *type = lhs, *key = dot2 + 1, *name = NULL;
        if (dot2 != dot1) {
            *dot2 = '\0';
            name = dot1 + 1;
        }
        while (*eq == '=' || isspace((unsigned char)*eq))
            eq++;
        char value[1024];
        snprintf(value, sizeof value, "%s", eq);
        for (size_t k = strlen(value); k > 0 && isspace((unsigned char)value[k - 1]); k--)
            value[k - 1] = '\0';
        const sec_spec *sp = find_spec(type);
        if (!sp) return err_set(p, TVDS_ERR_INVALID, i, "unknown section type '%s'", type);
        if (!*key) return err_set(p, TVDS_ERR_INVALID, i, "empty key");
        if (sp->named && !name)
            return err_set(p, TVDS_ERR_INVALID, i, "[%s] sections are named: write %s.NAME.%s=...",
                           type, type, key);
        if (!sp->named && name)
            return err_set(p, TVDS_ERR_INVALID, i, "[%s] takes no name: write %s.KEY=...", type,
                           type);
        int sec = find_section(p, type, name);
        if (sec < 0) {
            if (sp->named)
                return err_set(p, TVDS_ERR_INVALID, i, "no section [%s %s] in the case file", type,
                               name);
            sec = add_section(p, type, NULL, type, 0, i);
            if (sec < 0) return err_set(p, TVDS_ERR_NOMEM, i, "out of memory");
        }
        case_entry *e = find_entry(p, sec, key);
        if (e) {
            char *nv = tvds_strdup(value);
            if (!nv) return err_set(p, TVDS_ERR_NOMEM, i, "out of memory");
            tvds_free(e->value);
            e->value = nv;
            e->line = 0;
            e->set_idx = i;
        } else if (add_entry(p, sec, key, value, 0, i) < 0) {
            return err_set(p, TVDS_ERR_NOMEM, i, "out of memory");
        }
    }
    return TVDS_OK;
}

/* Every key must belong to its section type. */
static int check_keys(parser *p)
{
    for (int i = 0; i < p->nent; i++) {
        case_entry *e = &p->ents[i];
        const sec_spec *sp = find_spec(p->secs[e->sec].type);
        int ok = 0;
        for (const char *const *k = sp->keys; *k; k++)
            if (strcmp(*k, e->key) == 0) ok = 1;
        if (!ok) {
            char lab[160];
            return err_ent(p, TVDS_ERR_PARSE, e, "unknown key '%s' in %s", e->key,
                           sec_label(p, e->sec, lab, sizeof lab));
        }
    }
    return TVDS_OK;
}

/* ---- Typed getters: each marks the entry used; absent optional keys keep the default ------- */

static case_entry *get(parser *p, int sec, const char *key)
{
    case_entry *e = find_entry(p, sec, key);
    if (e) e->used = 1;
    return e;
}

static int missing(parser *p, int sec, const char *key)
{
    char lab[160];
    return err_sec(p, TVDS_ERR_PARSE, sec, "%s: missing key '%s'",
                   sec_label(p, sec, lab, sizeof lab), key);
}

/* Number with bounds lo <= v (lo_strict: lo < v), v <= hi. */
static int get_num(parser *p, int sec, const char *key, int required, double *out, double lo,
                   int lo_strict, double hi)
{
    case_entry *e = get(p, sec, key);
    if (!e) return required ? missing(p, sec, key) : TVDS_OK;
    double v;
    if (!parse_double(e->value, &v))
        return err_ent(p, TVDS_ERR_PARSE, e, "%s: '%s' is not a finite number", key, e->value);
    if ((lo_strict ? !(v > lo) : !(v >= lo)) || !(v <= hi)) {
        if (hi < HUGE_VAL)
            return err_ent(p, TVDS_ERR_INVALID, e, "%s = %g is outside %s%g, %g]", key, v,
                           lo_strict ? "(" : "[", lo, hi);
        return err_ent(p, TVDS_ERR_INVALID, e, "%s = %g must be %s %g", key, v,
                       lo_strict ? ">" : ">=", lo);
    }
    *out = v;
    return TVDS_OK;
}

static int get_int(parser *p, int sec, const char *key, int *out, long lo, long hi)
{
    case_entry *e = get(p, sec, key);
    if (!e) return TVDS_OK;
    long v;
    if (!parse_long(e->value, &v))
        return err_ent(p, TVDS_ERR_PARSE, e, "%s: '%s' is not an integer", key, e->value);
    if (v < lo || v > hi)
        return err_ent(p, TVDS_ERR_INVALID, e, "%s = %ld is outside [%ld, %ld]", key, v, lo, hi);
    *out = (int)v;
    return TVDS_OK;
}

static int get_bool(parser *p, int sec, const char *key, int *out)
{
    case_entry *e = get(p, sec, key);
    if (!e) return TVDS_OK;
    const char *v = e->value;
    if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "on") || !strcmp(v, "1"))
        *out = 1;
    else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off") || !strcmp(v, "0"))
        *out = 0;
    else
        return err_ent(p, TVDS_ERR_PARSE, e, "%s: expected yes or no, got '%s'", key, v);
    return TVDS_OK;
}

/* One of the NULL-terminated words; *out = its index. */
static int get_enum(parser *p, int sec, const char *key, const char *const *words, int *out)
{
    case_entry *e = get(p, sec, key);
    if (!e) return TVDS_OK;
    for (int i = 0; words[i]; i++)
        if (strcmp(words[i], e->value) == 0) {
            *out = i;
            return TVDS_OK;
        }
    char list[256] = "";
    for (int i = 0; words[i]; i++) {
        strncat(list, words[i], sizeof list - strlen(list) - 1);
        if (words[i + 1])
            strncat(list, words[i + 2] ? ", " : " or ", sizeof list - strlen(list) - 1);
    }
    return err_ent(p, TVDS_ERR_PARSE, e, "%s: '%s' is not one of %s", key, e->value, list);
}

/* Copy a value into a fixed buffer; a value that does not fit is an error, never truncated. */
static int copy_value(parser *p, const case_entry *e, const char *key, const char *text, char *buf,
                      size_t size)
{
    if (strlen(text) >= size)
        return err_ent(p, TVDS_ERR_PARSE, e, "%s: value longer than %zu characters", key, size - 1);
    memcpy(buf, text, strlen(text) + 1);
    return TVDS_OK;
}

/* Exactly n numbers. *given = 1 when present. */
static int get_vec(parser *p, int sec, const char *key, int n, double *out, int *given)
{
    case_entry *e = get(p, sec, key);
    if (given) *given = e != NULL;
    if (!e) return TVDS_OK;
    char buf[512];
    char *tok[8];
    int rc = copy_value(p, e, key, e->value, buf, sizeof buf);
    if (rc) return rc;
    int nt = split_ws(buf, tok, 6);
    if (nt != n)
        return err_ent(p, TVDS_ERR_PARSE, e, "%s: expected %d numbers, got %s%d", key, n,
                       nt > 6 ? "more than " : "", nt > 6 ? 6 : nt);
    for (int i = 0; i < n; i++)
        if (!parse_double(tok[i], &out[i]))
            return err_ent(p, TVDS_ERR_PARSE, e, "%s: '%s' is not a finite number", key, tok[i]);
    return TVDS_OK;
}

static int get_fn(parser *p, int sec, const char *key, int required, tvds_fn *f)
{
    case_entry *e = get(p, sec, key);
    if (!e) return required ? missing(p, sec, key) : TVDS_OK;
    char msg[512];
    tvds_fn nf;
    int rc = tvds_fn_parse(e->value, p->base_dir, &nf, msg, sizeof msg);
    if (rc) return err_ent(p, rc, e, "%s: %s", key, msg);
    tvds_fn_clear(f);
    *f = nf;
    return TVDS_OK;
}

/* Reference "SUB:NODE:DIR" or "SUB:mode:K" to a reduced DoF. */
static int parse_dof_ref(parser *p, const tvds_model *m, const case_entry *e, const char *key,
                         const char *text, int *sub, int *dof)
{
    char buf[256];
    char *f[4];
    int rc = copy_value(p, e, key, text, buf, sizeof buf);
    if (rc) return rc;
    int nf = split_colon(buf, f);
    if (nf != 3)
        return err_ent(p, TVDS_ERR_PARSE, e, "%s: '%s' is not SUB:NODE:DIR (DIR ux uy uz rx ry rz)",
                       key, text);
    int is = tvds_model_find_sub(m, f[0]);
    if (is < 0) return err_ent(p, TVDS_ERR_INVALID, e, "%s: unknown substructure '%s'", key, f[0]);
    const tvds_substructure *s = m->subs[is];
    if (strcmp(f[1], "mode") == 0) {
        long k;
        if (!parse_long(f[2], &k))
            return err_ent(p, TVDS_ERR_PARSE, e, "%s: mode number '%s' is not an integer", key,
                           f[2]);
        for (int i = 0; i < s->n; i++)
            if (s->dofs[i].kind == TVDS_DOF_MODAL && s->dofs[i].node == k) {
                *sub = is;
                *dof = i;
                return TVDS_OK;
            }
        return err_ent(p, TVDS_ERR_INVALID, e, "%s: substructure '%s' has no modal DoF %ld", key,
                       f[0], k);
    }
    long node;
    if (!parse_long(f[1], &node))
        return err_ent(p, TVDS_ERR_PARSE, e, "%s: node '%s' is not an integer", key, f[1]);
    int dir = dir_from_name(f[2]);
    if (dir < 0)
        return err_ent(p, TVDS_ERR_PARSE, e,
                       "%s: unknown direction '%s' (expected ux, uy, uz, rx, ry or rz)", key, f[2]);
    int d = tvds_substructure_find_dof(s, node, dir);
    if (d < 0)
        return err_ent(p, TVDS_ERR_INVALID, e, "%s: substructure '%s' has no DoF %s at node %ld",
                       key, f[0], dir_names[dir], node);
    *sub = is;
    *dof = d;
    return TVDS_OK;
}

static int node_exists(const tvds_substructure *s, long node)
{
    for (int i = 0; i < s->n; i++)
        if (s->dofs[i].kind == TVDS_DOF_PHYSICAL && s->dofs[i].node == node) return 1;
    return 0;
}

/* "SUB:SET" or "SUB:NODE" into a freshly allocated node list. */
static int parse_nodes_ref(parser *p, const tvds_model *m, const case_entry *e, const char *key,
                           int *sub, int *n, long **nodes)
{
    char buf[256];
    char *f[4];
    int rc = copy_value(p, e, key, e->value, buf, sizeof buf);
    if (rc) return rc;
    int nf = split_colon(buf, f);
    if (nf != 2)
        return err_ent(p, TVDS_ERR_PARSE, e, "%s: '%s' is not SUB:NODESET or SUB:NODE", key,
                       e->value);
    int is = tvds_model_find_sub(m, f[0]);
    if (is < 0) return err_ent(p, TVDS_ERR_INVALID, e, "%s: unknown substructure '%s'", key, f[0]);
    const tvds_substructure *s = m->subs[is];
    long node;
    if (parse_long(f[1], &node)) {
        if (!node_exists(s, node))
            return err_ent(p, TVDS_ERR_INVALID, e, "%s: substructure '%s' has no node %ld", key,
                           f[0], node);
        *nodes = tvds_malloc(sizeof **nodes);
        if (!*nodes) return err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
        (*nodes)[0] = node;
        *n = 1;
    } else {
        int k = tvds_substructure_find_set(s, f[1]);
        if (k < 0)
            return err_ent(p, TVDS_ERR_INVALID, e, "%s: substructure '%s' has no node set '%s'",
                           key, f[0], f[1]);
        const tvds_nodeset *ns = &s->sets[k];
        if (ns->n <= 0)
            return err_ent(p, TVDS_ERR_INVALID, e, "%s: node set '%s' is empty", key, f[1]);
        *nodes = tvds_malloc((size_t)ns->n * sizeof **nodes);
        if (!*nodes) return err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
        memcpy(*nodes, ns->nodes, (size_t)ns->n * sizeof **nodes);
        *n = ns->n;
    }
    *sub = is;
    return TVDS_OK;
}

/* Every node must carry translational DoFs ux, uy (and uz in 3D). */
static int check_translations(parser *p, const tvds_model *m, const case_entry *e, int sub, int n,
                              const long *nodes, int dim)
{
    const tvds_substructure *s = m->subs[sub];
    for (int i = 0; i < n; i++)
        for (int d = 0; d < dim; d++)
            if (tvds_substructure_find_dof(s, nodes[i], d) < 0)
                return err_ent(p, TVDS_ERR_INVALID, e,
                               "%s: node %ld of '%s' has no DoF %s (a %dD contact needs %s)",
                               e->key, nodes[i], s->name, dir_names[d], dim,
                               dim == 2 ? "ux and uy" : "ux, uy and uz");
    return TVDS_OK;
}

static int count_type(const parser *p, const char *type)
{
    int n = 0;
    for (int i = 0; i < p->nsec; i++)
        if (strcmp(p->secs[i].type, type) == 0) n++;
    return n;
}

/* ---- Sections into the model ---------------------------------------------------------------- */

static const char *const method_words[] = {"subs-a", "subs-b", "subs-c", "film", NULL};
static const char *const path_words[] = {"physical", "modal", NULL};
static const char *const yesno_dummy[] = {NULL};

static int build_run(parser *p, tvds_model *m, const char *default_name)
{
    int sec = find_section(p, "run", NULL);
    if (sec < 0)
        return err_line(p, TVDS_ERR_PARSE, p->lineno, "missing section [run] (t_end is required)");
    tvds_options *o = &m->opt;
    int rc;
    case_entry *e = get(p, sec, "name");
    if (e && !valid_name(e->value))
        return err_ent(p, TVDS_ERR_PARSE, e, "name '%s' may only use letters, digits, '_' and '-'",
                       e->value);
    m->name = tvds_strdup(e ? e->value : default_name);
    if (!m->name) return err_sec(p, TVDS_ERR_NOMEM, sec, "out of memory");
    if ((rc = get_enum(p, sec, "method", method_words, &o->method))) return rc;
    e = get(p, sec, "dt");
    if (e && strcmp(e->value, "auto") == 0) {
        o->dt_auto = 1;
    } else if (e) {
        if ((rc = get_num(p, sec, "dt", 1, &o->dt, 0.0, 1, HUGE_VAL))) return rc;
        o->dt_auto = 0;
    }
    if ((rc = get_num(p, sec, "dt_safety", 0, &o->dt_safety, 0.0, 1, 1.0))) return rc;
    if ((rc = get_bool(p, sec, "allow_unstable_dt", &o->allow_unstable_dt))) return rc;
    if ((rc = get_num(p, sec, "t_end", 1, &o->t_end, 0.0, 1, HUGE_VAL))) return rc;
    if ((rc = get_num(p, sec, "out_dt", 0, &o->out_dt, 0.0, 0, HUGE_VAL))) return rc;
    double w[2];
    int given;
    if ((rc = get_vec(p, sec, "window", 2, w, &given))) return rc;
    if (given) {
        e = get(p, sec, "window");
        if (!(w[1] > w[0]) || w[0] < 0)
            return err_ent(p, TVDS_ERR_INVALID, e, "window: need 0 <= T0 < T1 (got %g %g)", w[0],
                           w[1]);
        if (w[1] > o->t_end * (1 + 1e-12))
            return err_ent(p, TVDS_ERR_INVALID, e, "window: T1 = %g is after t_end = %g", w[1],
                           o->t_end);
        o->win_t0 = w[0];
        o->win_t1 = w[1];
    }
    if ((rc = get_num(p, sec, "film_tol", 0, &o->film_tol, 0.0, 1, 1.0))) return rc;
    if ((rc = get_int(p, sec, "film_maxit", &o->film_maxit, 1, 1000000))) return rc;
    if ((rc = get_num(p, sec, "v_stick", 0, &o->v_stick, 0.0, 0, HUGE_VAL))) return rc;
    if ((rc = get_enum(p, sec, "path", path_words, &o->modal))) return rc;
    if (!o->dt_auto && o->dt > o->t_end)
        return err_ent(p, TVDS_ERR_INVALID, get(p, sec, "dt"), "dt = %g is longer than t_end = %g",
                       o->dt, o->t_end);
    (void)yesno_dummy;
    return TVDS_OK;
}

static const char *const damping_words[] = {"none", "rayleigh", "matrix", NULL};

static int build_substructures(parser *p, tvds_model *m)
{
    int n = count_type(p, "substructure");
    if (n == 0)
        return err_line(p, TVDS_ERR_PARSE, p->lineno > 0 ? p->lineno : 1,
                        "no [substructure NAME] section");
    m->subs = tvds_calloc((size_t)n, sizeof *m->subs);
    m->damping = tvds_calloc((size_t)n, sizeof *m->damping);
    if (!m->subs || !m->damping) return err_line(p, TVDS_ERR_NOMEM, 1, "out of memory");
    for (int sec = 0; sec < p->nsec; sec++) {
        if (strcmp(p->secs[sec].type, "substructure") != 0) continue;
        case_entry *e = get(p, sec, "dir");
        if (!e) return missing(p, sec, "dir");
        char *dir = join_path(p->base_dir, e->value);
        if (!dir) return err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
        tvds_substructure *s = NULL;
        int rc = tvds_substructure_read(dir, p->secs[sec].name, &s, p->ctx);
        tvds_free(dir);
        if (rc) {
            if (!p->failed) p->failed = rc;
            if (p->ctx && p->ctx->status == TVDS_OK)
                err_ent(p, rc, e, "dir: cannot read substructure '%s': %s", e->value,
                        tvds_strerror(rc));
            return rc;
        }
        int k = m->nsub++;
        m->subs[k] = s;
        if (!s->name || strcmp(s->name, p->secs[sec].name) != 0) {
            char *nn = tvds_strdup(p->secs[sec].name);
            if (!nn) return err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
            tvds_free(s->name);
            s->name = nn;
        }
        tvds_damping *d = &m->damping[k];
        d->kind = TVDS_DAMP_NONE;
        if ((rc = get_enum(p, sec, "damping", damping_words, &d->kind))) return rc;
        static const char *const rk[] = {"alpha", "beta", "alpha0", "beta0", "t_hold", "t_ramp"};
        if (d->kind != TVDS_DAMP_RAYLEIGH)
            for (int i = 0; i < 6; i++) {
                case_entry *x = get(p, sec, rk[i]);
                if (x)
                    return err_ent(p, TVDS_ERR_INVALID, x,
                                   "%s only applies with damping = rayleigh", rk[i]);
            }
        if (d->kind == TVDS_DAMP_RAYLEIGH) {
            if ((rc = get_num(p, sec, "alpha", 0, &d->alpha, 0.0, 0, HUGE_VAL))) return rc;
            if ((rc = get_num(p, sec, "beta", 0, &d->beta, 0.0, 0, HUGE_VAL))) return rc;
            d->alpha0 = d->alpha;
            d->beta0 = d->beta;
            if ((rc = get_num(p, sec, "alpha0", 0, &d->alpha0, 0.0, 0, HUGE_VAL))) return rc;
            if ((rc = get_num(p, sec, "beta0", 0, &d->beta0, 0.0, 0, HUGE_VAL))) return rc;
            if ((rc = get_num(p, sec, "t_hold", 0, &d->t_hold, 0.0, 0, HUGE_VAL))) return rc;
            if ((rc = get_num(p, sec, "t_ramp", 0, &d->t_ramp, 0.0, 0, HUGE_VAL))) return rc;
        }
        if (d->kind == TVDS_DAMP_MATRIX && !s->C)
            return err_ent(p, TVDS_ERR_INVALID, get(p, sec, "damping"),
                           "damping = matrix but substructure '%s' has no C matrix", s->name);
    }
    return TVDS_OK;
}

static void normalize3(double *v)
{
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int i = 0; i < 3; i++)
        v[i] /= n;
}

static const char *const law_words[] = {"lagrange", "penalty", NULL};

static int build_contact(parser *p, tvds_model *m, int sec, tvds_contact *c)
{
    int rc;
    char lab[160];
    sec_label(p, sec, lab, sizeof lab);
    c->name = tvds_strdup(p->secs[sec].name);
    if (!c->name) return err_sec(p, TVDS_ERR_NOMEM, sec, "out of memory");
    case_entry *es = get(p, sec, "slave"), *em = get(p, sec, "master");
    if (!es) return missing(p, sec, "slave");
    if (!em) return missing(p, sec, "master");
    if ((rc = parse_nodes_ref(p, m, es, "slave", &c->slave_sub, &c->nslave, &c->slave_nodes)))
        return rc;
    int rigid = strcmp(em->value, "rigid") == 0;
    c->master_kind = rigid ? TVDS_MASTER_RIGID : TVDS_MASTER_SURFACE;
    c->dim = rigid ? 3 : 2;
    if ((rc = get_int(p, sec, "dim", &c->dim, 2, 3))) return rc;
    if (!rigid) {
        if ((rc = parse_nodes_ref(p, m, em, "master", &c->master_sub, &c->nmaster,
                                  &c->master_nodes)))
            return rc;
        if (c->nmaster < 2)
            return err_ent(p, TVDS_ERR_INVALID, em,
                           "master: a master surface needs a node set of at least 2 nodes");
        if (c->master_sub == c->slave_sub)
            return err_ent(p, TVDS_ERR_INVALID, em,
                           "master: slave and master are in the same substructure '%s'",
                           m->subs[c->slave_sub]->name);
        if (c->dim != 2)
            return err_ent(p, TVDS_ERR_INVALID, get(p, sec, "dim"),
                           "dim: a master surface is 2D (x-y plane)");
        if ((rc = check_translations(p, m, em, c->master_sub, c->nmaster, c->master_nodes, 2)))
            return rc;
        static const char *const rigid_only[] = {"point",    "normal",   "t1",
                                                 "motion_x", "motion_y", "motion_z"};
        for (int i = 0; i < 6; i++) {
            case_entry *x = get(p, sec, rigid_only[i]);
            if (x)
                return err_ent(p, TVDS_ERR_INVALID, x, "%s only applies with master = rigid",
                               rigid_only[i]);
        }
    } else {
        c->master_sub = -1;
        int given;
        if ((rc = get_vec(p, sec, "point", 3, c->rigid_point, &given))) return rc;
        if ((rc = get_vec(p, sec, "normal", 3, c->rigid_normal, &given))) return rc;
        if (!given) return missing(p, sec, "normal");
        case_entry *en = get(p, sec, "normal");
        double *nv = c->rigid_normal;
        if (nv[0] == 0 && nv[1] == 0 && nv[2] == 0)
            return err_ent(p, TVDS_ERR_INVALID, en, "normal: zero vector");
        if (c->dim == 2 && nv[2] != 0)
            return err_ent(p, TVDS_ERR_INVALID, en,
                           "normal: a 2D contact works in the x-y plane (z component must be 0)");
        normalize3(nv);
        double *t1 = c->rigid_t1;
        if ((rc = get_vec(p, sec, "t1", 3, t1, &given))) return rc;
        if (given) {
            case_entry *et = get(p, sec, "t1");
            if (t1[0] == 0 && t1[1] == 0 && t1[2] == 0)
                return err_ent(p, TVDS_ERR_INVALID, et, "t1: zero vector");
            normalize3(t1);
            double dot = t1[0] * nv[0] + t1[1] * nv[1] + t1[2] * nv[2];
            if (fabs(dot) > 1e-9)
                return err_ent(p, TVDS_ERR_INVALID, et,
                               "t1 is not perpendicular to the normal (cosine %g)", dot);
        } else {
            /* t1 = n x e_z (in-plane tangent in 2D); e_x projected when n is along z. */
            t1[0] = nv[1];
            t1[1] = -nv[0];
            t1[2] = 0.0;
            if (hypot(t1[0], t1[1]) < 1e-6) {
                t1[0] = 1.0 - nv[0] * nv[0];
                t1[1] = -nv[0] * nv[1];
                t1[2] = -nv[0] * nv[2];
            }
            normalize3(t1);
        }
        static const char *const mk[3] = {"motion_x", "motion_y", "motion_z"};
        for (int k = 0; k < 3; k++)
            if ((rc = get_fn(p, sec, mk[k], 0, &c->rigid_motion[k]))) return rc;
    }
    if ((rc = check_translations(p, m, es, c->slave_sub, c->nslave, c->slave_nodes, c->dim)))
        return rc;
    /* Friction */
    case_entry *emu = get(p, sec, "mu"), *ems = get(p, sec, "mu_s"), *emk = get(p, sec, "mu_k");
    if (emu && (ems || emk))
        return err_ent(p, TVDS_ERR_INVALID, ems ? ems : emk,
                       "give either mu or mu_s/mu_k, not both");
    double mu = 0.0;
    if ((rc = get_num(p, sec, "mu", 0, &mu, 0.0, 0, HUGE_VAL))) return rc;
    c->mu_s = c->mu_k = mu;
    if (ems && (rc = get_num(p, sec, "mu_s", 0, &c->mu_s, 0.0, 0, HUGE_VAL))) return rc;
    if (emk && (rc = get_num(p, sec, "mu_k", 0, &c->mu_k, 0.0, 0, HUGE_VAL))) return rc;
    if (ems && !emk) c->mu_k = c->mu_s;
    if (emk && !ems) c->mu_s = c->mu_k;
    int given;
    if ((rc = get_vec(p, sec, "mu_axis", 2, c->mu_axis, &given))) return rc;
    if (given) {
        if (c->mu_axis[0] < 0 || c->mu_axis[1] < 0)
            return err_ent(p, TVDS_ERR_INVALID, get(p, sec, "mu_axis"),
                           "mu_axis: friction coefficients must be >= 0");
        c->anisotropic = 1;
    }
    c->exact_stick = 1;
    if ((rc = get_bool(p, sec, "exact_stick", &c->exact_stick))) return rc;
    c->v_stick = m->opt.v_stick;
    if ((rc = get_num(p, sec, "v_stick", 0, &c->v_stick, 0.0, 0, HUGE_VAL))) return rc;
    if ((rc = get_bool(p, sec, "initially_stuck", &c->initially_stuck))) return rc;
    /* Law */
    c->law = TVDS_LAW_LAGRANGE;
    if ((rc = get_enum(p, sec, "law", law_words, &c->law))) return rc;
    static const char *const pk[] = {"kn", "pen0", "kt", "cn", "ct"};
    if (c->law != TVDS_LAW_PENALTY) {
        for (int i = 0; i < 5; i++) {
            case_entry *x = get(p, sec, pk[i]);
            if (x)
                return err_ent(p, TVDS_ERR_INVALID, x, "%s only applies with law = penalty", pk[i]);
        }
    } else {
        if ((rc = get_num(p, sec, "kn", 1, &c->kn, 0.0, 1, HUGE_VAL))) return rc;
        if ((rc = get_num(p, sec, "pen0", 0, &c->pen0, 0.0, 0, HUGE_VAL))) return rc;
        if ((rc = get_num(p, sec, "kt", 0, &c->kt, 0.0, 0, HUGE_VAL))) return rc;
        if ((rc = get_num(p, sec, "cn", 0, &c->cn, 0.0, 0, HUGE_VAL))) return rc;
        if ((rc = get_num(p, sec, "ct", 0, &c->ct, 0.0, 0, HUGE_VAL))) return rc;
    }
    static const char *const sk[3] = {"slave_kin_x", "slave_kin_y", "slave_kin_z"};
    for (int k = 0; k < 3; k++)
        if ((rc = get_fn(p, sec, sk[k], 0, &c->slave_kin[k]))) return rc;
    return TVDS_OK;
}

static int build_constraint(parser *p, tvds_model *m, int sec, tvds_bilateral *b)
{
    int rc;
    b->name = tvds_strdup(p->secs[sec].name);
    if (!b->name) return err_sec(p, TVDS_ERR_NOMEM, sec, "out of memory");
    case_entry *e = get(p, sec, "terms");
    if (!e) return missing(p, sec, "terms");
    size_t len = strlen(e->value);
    char *buf = tvds_malloc(len + 1);
    char **tok = tvds_malloc((len / 2 + 2) * sizeof *tok);
    if (!buf || !tok) {
        tvds_free(buf);
        tvds_free(tok);
        return err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
    }
    memcpy(buf, e->value, len + 1);
    int nt = split_ws(buf, tok, (int)(len / 2 + 1));
    rc = TVDS_OK;
    if (nt == 0) rc = err_ent(p, TVDS_ERR_PARSE, e, "terms: empty");
    if (!rc) {
        b->terms = tvds_calloc((size_t)nt, sizeof *b->terms);
        if (!b->terms) rc = err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
    }
    for (int i = 0; !rc && i < nt; i++) {
        tvds_term *t = &b->terms[i];
        t->coef = 1.0;
        char *star = strchr(tok[i], '*');
        if (star) {
            *star = '\0';
            if (!parse_double(star + 1, &t->coef) || t->coef == 0.0) {
                rc = err_ent(p, TVDS_ERR_PARSE, e,
                             "terms: coefficient '%s' is not a finite nonzero number", star + 1);
                break;
            }
        }
        if ((rc = parse_dof_ref(p, m, e, "terms", tok[i], &t->sub, &t->dof))) break;
        for (int j = 0; j < i; j++)
            if (b->terms[j].sub == t->sub && b->terms[j].dof == t->dof) {
                rc = err_ent(p, TVDS_ERR_INVALID, e, "terms: DoF '%s' appears twice", tok[i]);
                break;
            }
        b->nterms = i + 1;
    }
    tvds_free(buf);
    tvds_free(tok);
    if (rc) return rc;
    return get_fn(p, sec, "value", 0, &b->value);
}

static int build_load(parser *p, tvds_model *m, int sec, tvds_load *l)
{
    int rc;
    l->name = tvds_strdup(p->secs[sec].name);
    if (!l->name) return err_sec(p, TVDS_ERR_NOMEM, sec, "out of memory");
    case_entry *e = get(p, sec, "dof");
    if (!e) return missing(p, sec, "dof");
    if ((rc = parse_dof_ref(p, m, e, "dof", e->value, &l->sub, &l->dof))) return rc;
    return get_fn(p, sec, "f", 1, &l->fn);
}

static const char *const eltype_words[] = {"spring", "damper", "elastic_friction", NULL};
static const char *const kindF_words[] = {"stick-slip", "continuous", NULL};
static const char *const kindPS_words[] = {"unloaded", "preload-dx", "preload-force", NULL};
static const char *const kindTrans_words[] = {"gevrey", "tanh", NULL};

static int build_element(parser *p, tvds_model *m, int sec, tvds_element *el)
{
    int rc;
    el->name = tvds_strdup(p->secs[sec].name);
    if (!el->name) return err_sec(p, TVDS_ERR_NOMEM, sec, "out of memory");
    case_entry *et = get(p, sec, "type");
    if (!et) return missing(p, sec, "type");
    if ((rc = get_enum(p, sec, "type", eltype_words, &el->kind))) return rc;
    case_entry *e1 = get(p, sec, "dof1"), *e2 = get(p, sec, "dof2");
    if (!e1) return missing(p, sec, "dof1");
    if ((rc = parse_dof_ref(p, m, e1, "dof1", e1->value, &el->sub[0], &el->dof[0]))) return rc;
    el->sub[1] = -1;
    el->dof[1] = -1;
    if (e2 && strcmp(e2->value, "ground") != 0) {
        if ((rc = parse_dof_ref(p, m, e2, "dof2", e2->value, &el->sub[1], &el->dof[1]))) return rc;
        if (el->sub[1] == el->sub[0] && el->dof[1] == el->dof[0])
            return err_ent(p, TVDS_ERR_INVALID, e2, "dof2: same DoF as dof1");
    }
    /* Keys that do not apply to the type are errors: they would be silently ignored. */
    static const char *const ef_only[] = {"kindF",  "Fst",       "Fsl",       "dvL",     "rigid",
                                          "kindPS", "dxSD0",     "Fs0",       "dFfrel",  "eps_dvsl",
                                          "eps_dI", "kindTrans", "eps_sigma", "eps_tau", NULL};
    if (el->kind != TVDS_EL_ELASTIC_FRICTION)
        for (int i = 0; ef_only[i]; i++) {
            case_entry *x = get(p, sec, ef_only[i]);
            if (x)
                return err_ent(p, TVDS_ERR_INVALID, x, "%s only applies to type = elastic_friction",
                               ef_only[i]);
        }
    if (el->kind == TVDS_EL_SPRING) {
        case_entry *x = get(p, sec, "b");
        if (x) return err_ent(p, TVDS_ERR_INVALID, x, "b does not apply to type = spring");
        return get_num(p, sec, "k", 1, &el->k, 0.0, 0, HUGE_VAL);
    }
    if (el->kind == TVDS_EL_DAMPER) {
        case_entry *x = get(p, sec, "k");
        if (x) return err_ent(p, TVDS_ERR_INVALID, x, "k does not apply to type = damper");
        return get_num(p, sec, "b", 1, &el->b, 0.0, 0, HUGE_VAL);
    }
    /* elastic_friction */
    if ((rc = get_num(p, sec, "k", 1, &el->k, 0.0, 1, HUGE_VAL))) return rc;
    if ((rc = get_num(p, sec, "b", 0, &el->b, 0.0, 0, HUGE_VAL))) return rc;
    el->kindF = TVDS_EF_STICK_SLIP;
    if ((rc = get_enum(p, sec, "kindF", kindF_words, &el->kindF))) return rc;
    if ((rc = get_fn(p, sec, "Fsl", 1, &el->Fsl))) return rc;
    if (el->kindF == TVDS_EF_STICK_SLIP) {
        if ((rc = get_fn(p, sec, "Fst", 1, &el->Fst))) return rc;
        case_entry *x = get(p, sec, "dvL");
        if (x) return err_ent(p, TVDS_ERR_INVALID, x, "dvL only applies with kindF = continuous");
    } else {
        case_entry *x = get(p, sec, "Fst");
        if (x) return err_ent(p, TVDS_ERR_INVALID, x, "Fst only applies with kindF = stick-slip");
        if ((rc = get_num(p, sec, "dvL", 1, &el->dvL, 0.0, 1, HUGE_VAL))) return rc;
    }
    if ((rc = get_bool(p, sec, "rigid", &el->rigid))) return rc;
    el->kindPS = TVDS_EF_UNLOADED;
    if ((rc = get_enum(p, sec, "kindPS", kindPS_words, &el->kindPS))) return rc;
    case_entry *xd = get(p, sec, "dxSD0"), *xf = get(p, sec, "Fs0");
    if (xd && el->kindPS != TVDS_EF_PRELOAD_DX)
        return err_ent(p, TVDS_ERR_INVALID, xd, "dxSD0 only applies with kindPS = preload-dx");
    if (xf && el->kindPS != TVDS_EF_PRELOAD_FORCE)
        return err_ent(p, TVDS_ERR_INVALID, xf, "Fs0 only applies with kindPS = preload-force");
    if ((rc = get_num(p, sec, "dxSD0", el->kindPS == TVDS_EF_PRELOAD_DX, &el->dxSD0, -HUGE_VAL, 0,
                      HUGE_VAL)))
        return rc;
    if ((rc = get_num(p, sec, "Fs0", el->kindPS == TVDS_EF_PRELOAD_FORCE, &el->Fs0, -HUGE_VAL, 0,
                      HUGE_VAL)))
        return rc;
    el->dFfrel = 0.01;
    el->eps_dvsl = 1e-6;
    el->eps_dI = 1e-9;
    el->kindTrans = TVDS_EF_GEVREY;
    el->eps_sigma = 0.1;
    el->eps_tau = 0.1;
    if ((rc = get_num(p, sec, "dFfrel", 0, &el->dFfrel, 0.0, 1, HUGE_VAL))) return rc;
    if ((rc = get_num(p, sec, "eps_dvsl", 0, &el->eps_dvsl, 0.0, 1, HUGE_VAL))) return rc;
    if ((rc = get_num(p, sec, "eps_dI", 0, &el->eps_dI, 0.0, 1, HUGE_VAL))) return rc;
    if ((rc = get_enum(p, sec, "kindTrans", kindTrans_words, &el->kindTrans))) return rc;
    if ((rc = get_num(p, sec, "eps_sigma", 0, &el->eps_sigma, 0.0, 1, HUGE_VAL))) return rc;
    if ((rc = get_num(p, sec, "eps_tau", 0, &el->eps_tau, 0.0, 1, HUGE_VAL))) return rc;
    return TVDS_OK;
}

/* [initial NAME]: dof = SUB:NODE:DIR or SUB:SET:DIR; appends to m->ics (capacity cap). */
static int build_initial(parser *p, tvds_model *m, int sec, int *cap)
{
    int rc;
    case_entry *e = get(p, sec, "dof");
    if (!e) return missing(p, sec, "dof");
    double u0 = 0.0, v0 = 0.0;
    if ((rc = get_num(p, sec, "u0", 0, &u0, -HUGE_VAL, 0, HUGE_VAL))) return rc;
    if ((rc = get_num(p, sec, "v0", 0, &v0, -HUGE_VAL, 0, HUGE_VAL))) return rc;
    char buf[256];
    char *f[4];
    if ((rc = copy_value(p, e, "dof", e->value, buf, sizeof buf))) return rc;
    int nf = split_colon(buf, f);
    int sub = -1, ndof = 0;
    int dofs_buf[1];
    int *dofs = dofs_buf;
    if (nf == 3 && !is_integer_text(f[1]) && strcmp(f[1], "mode") != 0) {
        sub = tvds_model_find_sub(m, f[0]);
        if (sub < 0) return err_ent(p, TVDS_ERR_INVALID, e, "dof: unknown substructure '%s'", f[0]);
        const tvds_substructure *s = m->subs[sub];
        int k = tvds_substructure_find_set(s, f[1]);
        if (k < 0)
            return err_ent(p, TVDS_ERR_INVALID, e, "dof: substructure '%s' has no node set '%s'",
                           f[0], f[1]);
        int dir = dir_from_name(f[2]);
        if (dir < 0) return err_ent(p, TVDS_ERR_PARSE, e, "dof: unknown direction '%s'", f[2]);
        const tvds_nodeset *ns = &s->sets[k];
        dofs = tvds_malloc((size_t)(ns->n > 0 ? ns->n : 1) * sizeof *dofs);
        if (!dofs) return err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
        for (int i = 0; i < ns->n; i++) {
            int d = tvds_substructure_find_dof(s, ns->nodes[i], dir);
            if (d < 0) {
                tvds_free(dofs);
                return err_ent(p, TVDS_ERR_INVALID, e, "dof: node %ld of set '%s' has no DoF %s",
                               ns->nodes[i], f[1], dir_names[dir]);
            }
            dofs[ndof++] = d;
        }
    } else {
        if ((rc = parse_dof_ref(p, m, e, "dof", e->value, &sub, &dofs_buf[0]))) return rc;
        ndof = 1;
    }
    rc = TVDS_OK;
    for (int i = 0; i < ndof && !rc; i++) {
        for (int j = 0; j < m->nic; j++)
            if (m->ics[j].sub == sub && m->ics[j].dof == dofs[i]) {
                rc = err_ent(p, TVDS_ERR_INVALID, e,
                             "dof: DoF %d of '%s' already has initial conditions", dofs[i],
                             m->subs[sub]->name);
                break;
            }
        if (rc) break;
        if (m->nic == *cap) {
            int nc = *cap ? 2 * *cap : 16;
            tvds_initial *ni = tvds_realloc(m->ics, (size_t)nc * sizeof *ni);
            if (!ni) {
                rc = err_ent(p, TVDS_ERR_NOMEM, e, "out of memory");
                break;
            }
            m->ics = ni;
            *cap = nc;
        }
        tvds_initial *ic = &m->ics[m->nic++];
        ic->sub = sub;
        ic->dof = dofs[i];
        ic->u0 = u0;
        ic->v0 = v0;
    }
    if (dofs != dofs_buf) tvds_free(dofs);
    return rc;
}

static const char *const quantity_words[] = {"u", "v", "a", NULL};

static int build_probe(parser *p, tvds_model *m, int sec, tvds_probe *pr)
{
    int rc;
    pr->name = tvds_strdup(p->secs[sec].name);
    if (!pr->name) return err_sec(p, TVDS_ERR_NOMEM, sec, "out of memory");
    pr->kind = TVDS_PROBE_U;
    if ((rc = get_enum(p, sec, "quantity", quantity_words, &pr->kind))) return rc;
    case_entry *ed = get(p, sec, "dof"), *ep = get(p, sec, "point");
    pr->dof = -1;
    pr->rec = -1;
    if (ed && ep) return err_ent(p, TVDS_ERR_INVALID, ep, "give either dof or point, not both");
    if (!ed && !ep) return missing(p, sec, "dof' or 'point");
    if (ed) return parse_dof_ref(p, m, ed, "dof", ed->value, &pr->sub, &pr->dof);
    char buf[256];
    char *f[4];
    if ((rc = copy_value(p, ep, "point", ep->value, buf, sizeof buf))) return rc;
    if (split_colon(buf, f) != 2)
        return err_ent(p, TVDS_ERR_PARSE, ep, "point: '%s' is not SUB:RECOVERY", ep->value);
    pr->sub = tvds_model_find_sub(m, f[0]);
    if (pr->sub < 0)
        return err_ent(p, TVDS_ERR_INVALID, ep, "point: unknown substructure '%s'", f[0]);
    const tvds_substructure *s = m->subs[pr->sub];
    for (int i = 0; i < s->nrec; i++)
        if (s->rec[i].name && strcmp(s->rec[i].name, f[1]) == 0) pr->rec = i;
    if (pr->rec < 0)
        return err_ent(p, TVDS_ERR_INVALID, ep,
                       "point: substructure '%s' has no recovery point '%s'", f[0], f[1]);
    return TVDS_OK;
}

static int build_model(parser *p, tvds_model *m, const char *default_name)
{
    int rc;
    if ((rc = build_run(p, m, default_name))) return rc;
    if ((rc = build_substructures(p, m))) return rc;

    int nc = count_type(p, "contact"), nb = count_type(p, "constraint"), nl = count_type(p, "load"),
        ne = count_type(p, "element"), np = count_type(p, "probe");
    if ((nc && !(m->contacts = tvds_calloc((size_t)nc, sizeof *m->contacts))) ||
        (nb && !(m->bil = tvds_calloc((size_t)nb, sizeof *m->bil))) ||
        (nl && !(m->loads = tvds_calloc((size_t)nl, sizeof *m->loads))) ||
        (ne && !(m->elements = tvds_calloc((size_t)ne, sizeof *m->elements))) ||
        (np && !(m->probes = tvds_calloc((size_t)np, sizeof *m->probes))))
        return err_line(p, TVDS_ERR_NOMEM, 1, "out of memory");
    int iccap = 0;
    for (int sec = 0; sec < p->nsec; sec++) {
        const char *t = p->secs[sec].type;
        /* Count first so that a failed build still frees what it half-filled. */
        if (!strcmp(t, "contact")) {
            rc = build_contact(p, m, sec, &m->contacts[m->ncontact++]);
        } else if (!strcmp(t, "constraint")) {
            rc = build_constraint(p, m, sec, &m->bil[m->nbil++]);
        } else if (!strcmp(t, "load")) {
            rc = build_load(p, m, sec, &m->loads[m->nload++]);
        } else if (!strcmp(t, "element")) {
            rc = build_element(p, m, sec, &m->elements[m->nel++]);
        } else if (!strcmp(t, "probe")) {
            rc = build_probe(p, m, sec, &m->probes[m->nprobe++]);
        } else if (!strcmp(t, "initial")) {
            rc = build_initial(p, m, sec, &iccap);
        } else if (!strcmp(t, "gravity")) {
            int given;
            if ((rc = get_vec(p, sec, "g", 3, m->gravity, &given))) return rc;
            if (!given) return missing(p, sec, "g");
            rc = get_fn(p, sec, "scale", 0, &m->gravity_fn);
        } else if (!strcmp(t, "base")) {
            int given;
            if ((rc = get_vec(p, sec, "dir", 3, m->base_dir, &given))) return rc;
            if (!given) return missing(p, sec, "dir");
            if (m->base_dir[0] == 0 && m->base_dir[1] == 0 && m->base_dir[2] == 0)
                return err_ent(p, TVDS_ERR_INVALID, get(p, sec, "dir"), "dir: zero vector");
            normalize3(m->base_dir);
            m->has_base_acc = 1;
            rc = get_fn(p, sec, "acc", 1, &m->base_acc);
        }
        if (rc) return rc;
    }
    return TVDS_OK;
}

/* ---- Entry points -----------------------------------------------------------------------------
 */

static void parser_free(parser *p)
{
    for (int i = 0; i < p->nsec; i++) {
        tvds_free(p->secs[i].type);
        tvds_free(p->secs[i].name);
    }
    tvds_free(p->secs);
    for (int i = 0; i < p->nent; i++) {
        tvds_free(p->ents[i].key);
        tvds_free(p->ents[i].value);
    }
    tvds_free(p->ents);
    free(p->linebuf); /* getline's buffer */
}

static int case_read_common(parser *p, const char *default_name, const char *path, int noverrides,
                            tvds_model **pm)
{
    int r = ini_parse_stream(case_reader, p, case_handler, p);
    if (!p->failed && r > 0)
        err_line(p, TVDS_ERR_PARSE, r, "expected 'key = value', '[section]' or a comment");
    if (!p->failed && r < 0) err_line(p, TVDS_ERR_NOMEM, 1, "cannot parse (libinih error %d)", r);
    if (p->failed) return p->failed;
    if (apply_overrides(p, noverrides)) return p->failed;
    if (check_keys(p)) return p->failed;
    tvds_model *m = tvds_model_create();
    if (!m) return err_line(p, TVDS_ERR_NOMEM, 1, "out of memory");
    if (path && !(m->case_path = tvds_strdup(path))) {
        tvds_model_free(&m);
        return err_line(p, TVDS_ERR_NOMEM, 1, "out of memory");
    }
    int rc = build_model(p, m, default_name);
    if (!rc) {
        /* Every key was read by some section: anything left is a key of the wrong kind. */
        for (int i = 0; i < p->nent; i++)
            if (!p->ents[i].used) {
                char lab[160];
                rc = err_ent(p, TVDS_ERR_PARSE, &p->ents[i], "key '%s' is not used in %s",
                             p->ents[i].key, sec_label(p, p->ents[i].sec, lab, sizeof lab));
                break;
            }
    }
    if (rc) {
        tvds_model_free(&m);
        return rc;
    }
    *pm = m;
    return TVDS_OK;
}

static char *dirname_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return tvds_strdup(".");
    if (slash == path) return tvds_strdup("/");
    size_t n = (size_t)(slash - path);
    char *d = tvds_malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, path, n);
    d[n] = '\0';
    return d;
}

/* Base name without directory and extension, e.g. "models/shoe/sdnd100.ini" -> "sdnd100". */
static void stem_of(const char *path, char *out, size_t size)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(out, size, "%s", b);
    char *dot = strrchr(out, '.');
    if (dot && dot != out) *dot = '\0';
    for (char *q = out; *q; q++)
        if (!isalnum((unsigned char)*q) && *q != '_' && *q != '-') *q = '_';
    if (!*out) snprintf(out, size, "case");
}

int tvds_case_read(const char *path, const char *const *overrides, int noverrides, tvds_model **m,
                   tvds_ctx *ctx)
{
    if (!m) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_case_read: NULL model pointer");
    *m = NULL;
    if (!path) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_case_read: NULL path");
    FILE *fp = fopen(path, "r");
    if (!fp) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    parser p;
    memset(&p, 0, sizeof p);
    p.file = path;
    p.overrides = overrides;
    p.fp = fp;
    p.cur_sec = -1;
    p.ctx = ctx;
    char *base = dirname_of(path);
    if (!base) {
        fclose(fp);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    }
    p.base_dir = base;
    char stem[128];
    stem_of(path, stem, sizeof stem);
    int rc = case_read_common(&p, stem, path, noverrides, m);
    fclose(fp);
    parser_free(&p);
    tvds_free(base);
    return rc;
}

int tvds_case_read_string(const char *text, const char *name_for_errors, const char *base_dir,
                          const char *const *overrides, int noverrides, tvds_model **m,
                          tvds_ctx *ctx)
{
    if (!m) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_case_read_string: NULL model pointer");
    *m = NULL;
    if (!text) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_case_read_string: NULL text");
    parser p;
    memset(&p, 0, sizeof p);
    p.file = name_for_errors ? name_for_errors : "case.ini";
    p.overrides = overrides;
    p.str = text;
    p.cur_sec = -1;
    p.ctx = ctx;
    p.base_dir = base_dir ? base_dir : ".";
    char stem[128];
    stem_of(p.file, stem, sizeof stem);
    int rc = case_read_common(&p, stem, NULL, noverrides, m);
    parser_free(&p);
    return rc;
}
