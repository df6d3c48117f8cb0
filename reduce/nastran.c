/* nastran.c — import of two DMIG matrices (stiffness, mass) of a Nastran punch or bulk data
 * file, with GRID coordinates (docs/formats.md): small, large and free field entries with
 * continuations, IFO 1 and 6, TIN 1 and 2. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/hash_impl.h"
#include "import_impl.h"
#include "io/io_impl.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_reduce.h"

#define NAS_FIELD  33              /* field text, NUL included */
#define NAS_MAX_ID (LONG_MAX / 16) /* 8 * id + component must fit a long */

/* One bulk data entry: its name and data fields (fields 2-9 of each line of a small field
 * entry, 2-5 of a large field line), each with the line it was read on. */
typedef struct nas_card {
    char name[NAS_FIELD];
    char (*f)[NAS_FIELD];
    long *fl;
    int nf, cap;
    long line; /* first line */
} nas_card;

typedef struct nas_mat {
    char name[NAS_FIELD];
    int ifo, tin; /* 0 until the header entry is read */
    long hline;   /* header line */
    tvds_imp_matrix a;
} nas_mat;

typedef struct nas_data {
    const char *pch; /* the punch file (DMIG entries are read from it) */
    nas_mat *mats;
    int nmats, mcap;
    /* GRID points: id -> slot */
    tvds_lmap grid_slot;
    long *gid, *gline;
    const char **gfile;
    double (*gxyz)[3];
    int ngrid, gcap;
} nas_data;

static void trim_copy(char *dst, const char *src, size_t n)
{
    while (n > 0 && isspace((unsigned char)*src)) {
        src++;
        n--;
    }
    while (n > 0 && isspace((unsigned char)src[n - 1]))
        n--;
    if (n > NAS_FIELD - 1) n = NAS_FIELD - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int card_push(nas_card *c, const char *text, size_t n, long line, const char *path,
                     tvds_ctx *ctx)
{
    if (c->nf == c->cap) {
        int nc = c->cap ? 2 * c->cap : 64;
        if (nc > (1 << 26))
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: entry with more than %d fields", path,
                              line, 1 << 26);
        char(*nf)[NAS_FIELD] = tvds_realloc(c->f, (size_t)nc * sizeof *nf);
        if (nf) c->f = nf;
        long *nl = nf ? tvds_realloc(c->fl, (size_t)nc * sizeof *nl) : NULL;
        if (nl) c->fl = nl;
        if (!nl) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
        c->cap = nc;
    }
    while (n > 0 && isspace((unsigned char)*text)) {
        text++;
        n--;
    }
    while (n > 0 && isspace((unsigned char)text[n - 1]))
        n--;
    if (n > NAS_FIELD - 1)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: field '%.40s...' longer than %d characters",
                          path, line, text, NAS_FIELD - 1);
    memcpy(c->f[c->nf], text, n);
    c->f[c->nf][n] = '\0';
    c->fl[c->nf++] = line;
    return TVDS_OK;
}

/* Nastran integer: digits with an optional sign, nothing else. */
static int nas_int(const char *s, long *v)
{
    char *end;
    errno = 0;
    *v = strtol(s, &end, 10);
    return *s && end != s && !*end && !errno;
}

/* Nastran real: a decimal point is required; exponent E or D with optional sign, or a sign
 * alone ("1.5+3" = 1.5E+3, "-.5-2" = -0.5E-2). */
static int nas_real(const char *s, double *v)
{
    char b[2 * NAS_FIELD + 2];
    size_t k = 0;
    int dot = 0, exp = 0;
    for (const char *p = s; *p && k < sizeof b - 3; p++) {
        char c = (char)toupper((unsigned char)*p);
        if (c == 'D') c = 'E';
        if (c == '.' && !exp) dot = 1;
        if (c == 'E') {
            if (exp) return 0;
            exp = 1;
        } else if ((c == '+' || c == '-') && p > s && !(k > 0 && b[k - 1] == 'E')) {
            if (exp) return 0;
            b[k++] = 'E'; /* the implied exponent */
            exp = 1;
        }
        b[k++] = c;
    }
    b[k] = '\0';
    if (!dot) return 0;
    char *end;
    errno = 0;
    *v = strtod(b, &end);
    return end != b && !*end && isfinite(*v) && errno != ERANGE;
}

/* Integer field that may be blank (then 0). */
static int nas_int_or_blank(const char *s, long *v)
{
    if (!*s) {
        *v = 0;
        return 1;
    }
    return nas_int(s, v);
}

/* Field i of c, "" beyond the last. */
static const char *fld(const nas_card *c, int i)
{
    return i < c->nf ? c->f[i] : "";
}

static nas_mat *find_mat(nas_data *d, const char *name)
{
    for (int i = 0; i < d->nmats; i++)
        if (strcasecmp(d->mats[i].name, name) == 0) return &d->mats[i];
    return NULL;
}

static nas_mat *get_mat(nas_data *d, const char *name, tvds_ctx *ctx)
{
    nas_mat *m = find_mat(d, name);
    if (m) return m;
    if (d->nmats == d->mcap) {
        int nc = d->mcap ? 2 * d->mcap : 8;
        nas_mat *nm = tvds_realloc(d->mats, (size_t)nc * sizeof *nm);
        if (!nm) {
            TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
            return NULL;
        }
        d->mats = nm;
        d->mcap = nc;
    }
    m = &d->mats[d->nmats++];
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    m->a.path = d->pch;
    m->a.name = m->name;
    return m;
}

static const char *const dmig_column = "'DMIG NAME GJ CJ (blank) G1 C1 A1 (blank) G2 C2 A2 ...'";

/* DMIG header "NAME 0 IFO TIN TOUT POLAR (blank) NCOL" or column entry "NAME GJ CJ (blank)
 * G1 C1 A1 B1 G2 ...". */
static int dmig_card(nas_data *d, const nas_card *c, const char *path, tvds_ctx *ctx)
{
    const char *name = c->nf > 0 ? c->f[0] : "";
    if (!*name)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: DMIG without a matrix name", path, c->line);
    nas_mat *m = get_mat(d, name, ctx);
    if (!m) return TVDS_ERR_NOMEM;
    long gj, cj;
    if (c->nf < 2 || !nas_int(c->f[1], &gj) || gj < 0)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: DMIG %s: field 3 '%s' is neither 0 (header) nor a column's "
                          "grid or scalar point id",
                          path, c->line, name, c->nf > 1 ? c->f[1] : "");
    if (gj == 0) { /* header */
        long ifo, tin;
        if (m->tin)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: DMIG %s: a second header entry (the first on line %ld)",
                              path, c->line, name, m->hline);
        if (c->nf < 4 || !nas_int(c->f[2], &ifo) || !nas_int(c->f[3], &tin))
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: DMIG %s: expected the header 'DMIG NAME 0 IFO TIN TOUT "
                              "POLAR (blank) NCOL' with integers IFO and TIN",
                              path, c->line, name);
        if (ifo != 1 && ifo != 6)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: DMIG %s: IFO %ld: tvds reads square (1) and symmetric (6) "
                              "matrices, not rectangular (2, 9) ones",
                              path, c->line, name, ifo);
        if (tin != 1 && tin != 2)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: DMIG %s: TIN %ld: tvds reads real single (1) and double "
                              "(2) precision terms, not complex (3, 4) ones",
                              path, c->line, name, tin);
        m->ifo = (int)ifo;
        m->tin = (int)tin;
        m->hline = c->line;
        m->a.mode = ifo == 6 ? TVDS_IMP_SYM_ONCE : TVDS_IMP_SQUARE;
        return TVDS_OK;
    }
    if (c->nf < 3 || !nas_int_or_blank(c->f[2], &cj) || cj < 0 || cj > 6)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: DMIG %s: column component '%s' is not an integer 0-6 or "
                          "blank (%s)",
                          path, c->line, name, c->nf > 2 ? c->f[2] : "", dmig_column);
    if (cj == 0)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: DMIG %s: column of scalar point %ld (component 0 or blank): "
                          "tvds labels grid point components 1-6 only",
                          path, c->line, name, gj);
    if (gj > NAS_MAX_ID)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: DMIG %s: id %ld too large", path, c->line,
                          name, gj);
    if (c->nf > 3 && c->f[3][0])
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: DMIG %s: field 5 '%s' must be blank (%s)",
                          path, c->fl[3], name, c->f[3], dmig_column);
    int terms = 0;
    for (int k = 4; k < c->nf; k += 4) {
        const char *g = c->f[k], *cc = k + 1 < c->nf ? c->f[k + 1] : "",
                   *a = k + 2 < c->nf ? c->f[k + 2] : "", *b = k + 3 < c->nf ? c->f[k + 3] : "";
        long line = c->fl[k];
        if (!*g && !*cc && !*a && !*b) continue; /* blank fields of a short last line */
        long gi, ci;
        double v;
        if (!nas_int(g, &gi) || gi < 1 || gi > NAS_MAX_ID)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: DMIG %s: row point id '%s' is not an integer >= 1 (%s)",
                              path, line, name, g, dmig_column);
        if (!nas_int_or_blank(cc, &ci) || ci < 0 || ci > 6)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: DMIG %s: row component '%s' of point %ld is not an "
                              "integer 0-6 or blank",
                              path, line, name, cc, gi);
        if (ci == 0)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: DMIG %s: row of scalar point %ld (component 0 or blank): "
                              "tvds labels grid point components 1-6 only",
                              path, line, name, gi);
        if (!nas_real(a, &v))
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: DMIG %s: term '%s' of row %ld.%ld is not a finite Nastran "
                              "real (a decimal point, exponent E, D or a sign: 1.5+3)",
                              path, line, name, a, gi, ci);
        if (*b)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: DMIG %s: imaginary part '%s' given: tvds reads real "
                              "matrices (TIN 1, 2; the field after each term blank)",
                              path, line, name, b);
        int rc = tvds_imp_push(&m->a, gi, (int)ci, gj, (int)cj, v, line, ctx);
        if (rc) return rc;
        terms++;
    }
    if (terms == 0)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: DMIG %s: column %ld.%ld without a term",
                          path, c->line, name, gj, cj);
    return TVDS_OK;
}

/* GRID ID CP X1 X2 X3 CD PS SEID. */
static int grid_card(nas_data *d, const nas_card *c, const char *path, tvds_ctx *ctx)
{
    long id, cp, cd;
    double x[3] = {0, 0, 0};
    const char *e = "";
    if (c->nf < 1 || !nas_int(c->f[0], &id) || id < 1 || id > NAS_MAX_ID)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: GRID: id '%s' is not an integer >= 1", path,
                          c->line, c->nf > 0 ? c->f[0] : e);
    if (!nas_int_or_blank(c->nf > 1 ? c->f[1] : e, &cp) || cp != 0)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: GRID %ld: coordinate system CP '%s': tvds reads coordinates "
                          "in the basic system (CP blank or 0)",
                          path, c->line, id, fld(c, 1));
    for (int k = 0; k < 3; k++) {
        const char *s = 2 + k < c->nf ? c->f[2 + k] : e;
        if (*s && !nas_real(s, &x[k]))
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: GRID %ld: X%d '%s' is not a finite Nastran real", path,
                              c->fl[2 + k], id, k + 1, s);
    }
    if (!nas_int_or_blank(c->nf > 5 ? c->f[5] : e, &cd) || cd != 0)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: GRID %ld: displacement system CD '%s': tvds names components "
                          "1-6 along the basic axes (CD blank or 0)",
                          path, c->line, id, fld(c, 5));
    int old;
    if (tvds_lmap_put(&d->grid_slot, id, d->ngrid, &old) != TVDS_OK)
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    if (old >= 0) {
        if (memcmp(d->gxyz[old], x, sizeof x) != 0)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: GRID %ld defined again with other coordinates (first on "
                              "%s:%ld)",
                              path, c->line, id, d->gfile[old], d->gline[old]);
        return TVDS_OK;
    }
    if (d->ngrid == d->gcap) {
        int nc = d->gcap ? 2 * d->gcap : 1024;
        long *ni = tvds_realloc(d->gid, (size_t)nc * sizeof *ni);
        if (ni) d->gid = ni;
        long *nl = ni ? tvds_realloc(d->gline, (size_t)nc * sizeof *nl) : NULL;
        if (nl) d->gline = nl;
        const char **nf = nl ? tvds_realloc(d->gfile, (size_t)nc * sizeof *nf) : NULL;
        if (nf) d->gfile = nf;
        double(*nx)[3] = nf ? tvds_realloc(d->gxyz, (size_t)nc * sizeof *nx) : NULL;
        if (nx) d->gxyz = nx;
        if (!nx) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        d->gcap = nc;
    }
    d->gid[d->ngrid] = id;
    d->gline[d->ngrid] = c->line;
    d->gfile[d->ngrid] = path;
    memcpy(d->gxyz[d->ngrid++], x, sizeof x);
    return TVDS_OK;
}

/* The first field of a line (free field when it holds a comma, else columns 1-8) in first;
 * returns 1 when it starts an entry (not blank, '+...' or '*...': a continuation). *large
 * receives 1 for a large field line (name ending in '*', or a '*' continuation). */
static int line_start(const char *s, char first[NAS_FIELD], int *large)
{
    const char *comma = strchr(s, ',');
    size_t l = comma ? (size_t)(comma - s) : strlen(s);
    trim_copy(first, s, comma || l < 8 ? l : 8);
    size_t fl = strlen(first);
    *large = fl > 0 && first[fl - 1] == '*';
    return first[0] && first[0] != '+' && first[0] != '*';
}

/* Split one physical line into c: free field when it holds a comma, else fixed columns (8
 * characters, or 16 on a large field line); a line that starts an entry resets c. */
static int read_line(char *s, long line, const char *path, nas_card *c, tvds_ctx *ctx)
{
    char first[NAS_FIELD];
    int large, rc;
    char *comma = strchr(s, ',');
    if (line_start(s, first, &large)) {
        c->nf = 0;
        c->line = line;
        size_t l = strlen(first) - (size_t)large;
        for (size_t k = 0; k < l; k++)
            c->name[k] = (char)toupper((unsigned char)first[k]);
        c->name[l] = '\0';
    }
    const int per = large ? 4 : 8, width = large ? 16 : 8;
    if (comma) {
        char *p = comma + 1;
        int k = 0;
        for (;;) {
            char *q = strchr(p, ',');
            size_t n = q ? (size_t)(q - p) : strlen(p);
            if (k < per) {
                if ((rc = card_push(c, p, n, line, path, ctx))) return rc;
            } else if (k > per) {
                return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                  "%s:%ld: more than %d data fields and a continuation mark on "
                                  "a free field line",
                                  path, line, per);
            } /* k == per: the continuation mark (field 10), ignored */
            k++;
            if (!q) break;
            p = q + 1;
        }
        for (; k < per; k++) /* fields left out at the end are blank */
            if ((rc = card_push(c, "", 0, line, path, ctx))) return rc;
        return TVDS_OK;
    }
    size_t l = strlen(s);
    for (int k = 0; k < per; k++) {
        size_t a = 8 + (size_t)k * (size_t)width;
        size_t n = a >= l ? 0 : (l - a < (size_t)width ? l - a : (size_t)width);
        if ((rc = card_push(c, a >= l ? "" : s + a, n, line, path, ctx))) return rc;
    }
    return TVDS_OK; /* columns 73-80 (continuation mark, sequence number) ignored */
}

static int dispatch(nas_data *d, const nas_card *c, const char *path, int dmig, tvds_ctx *ctx)
{
    if (dmig && strcmp(c->name, "DMIG") == 0) return dmig_card(d, c, path, ctx);
    if (strcmp(c->name, "GRID") == 0) return grid_card(d, c, path, ctx);
    return TVDS_OK; /* other entries are not read */
}

/* Read the entries of one file: DMIG (dmig != 0) and GRID; ENDDATA ends the file. */
static int read_file(nas_data *d, const char *path, int dmig, tvds_ctx *ctx)
{
    FILE *f = fopen(path, "r");
    if (!f) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    int rc = tvds_input_file_check(path, "Nastran bulk data file", f, ctx);
    if (rc) {
        fclose(f);
        return rc;
    }
    char *raw = NULL, *s = NULL;
    size_t cap = 0, scap = 0;
    long lineno = 0;
    nas_card c;
    memset(&c, 0, sizeof c);
    int open_card = 0; /* c holds an entry not yet dispatched */
    /* An input file with executive and case control: the entries follow BEGIN BULK. */
    long bulk_from = 0;
    while (getline(&raw, &cap, f) >= 0) {
        lineno++;
        const char *t = raw;
        while (isspace((unsigned char)*t))
            t++;
        if (strncasecmp(t, "BEGIN", 5) == 0 && isspace((unsigned char)t[5])) {
            t += 5;
            while (isspace((unsigned char)*t))
                t++;
            if (strncasecmp(t, "BULK", 4) == 0) {
                bulk_from = lineno;
                break;
            }
        }
    }
    rewind(f);
    lineno = 0;
    ssize_t got;
    while (!rc && (got = getline(&raw, &cap, f)) >= 0) {
        lineno++;
        if (got == 0 || raw[got - 1] != '\n') {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: the file ends in the middle of a line (truncated file?)", path,
                            lineno);
            break;
        }
        if (lineno <= bulk_from) continue;
        /* Comments from '$', tabs expanded to the next multiple of 8 columns. */
        size_t need = 8 * strlen(raw) + 1;
        if (need > scap) {
            char *ns = tvds_realloc(s, need);
            if (!ns) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
                break;
            }
            s = ns;
            scap = need;
        }
        size_t k = 0;
        for (const char *p = raw; *p && *p != '$' && *p != '\n' && *p != '\r'; p++) {
            if (*p == '\t') {
                do
                    s[k++] = ' ';
                while (k % 8);
            } else {
                s[k++] = *p;
            }
        }
        s[k] = '\0';
        const char *t = s;
        while (isspace((unsigned char)*t))
            t++;
        if (!*t) continue;
        if (strncasecmp(t, "ENDDATA", 7) == 0) break;
        if (strncasecmp(t, "BEGIN", 5) == 0 && (isspace((unsigned char)t[5]) || !t[5])) continue;
        char first[NAS_FIELD];
        int large, start = line_start(s, first, &large);
        if (start && (strncasecmp(first, "DMIG ", 5) == 0 || strncasecmp(first, "GRID ", 5) == 0)) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: '%.4s' followed by data within columns 1-8: a small field "
                            "entry has its name in columns 1-8 and each field in 8 columns (or "
                            "separate the fields by commas: free field)",
                            path, lineno, first);
            break;
        }
        if (start && strcasecmp(first, "INCLUDE") == 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: INCLUDE is not followed: give the included bulk data file "
                            "itself (its GRID entries with --bulk)",
                            path, lineno);
            break;
        }
        if (start && open_card) { /* a new entry ends the open one */
            rc = dispatch(d, &c, path, dmig, ctx);
            open_card = 0;
            if (rc) break;
        }
        if (!start && !open_card) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: a continuation line (first field blank, '+' or '*') before "
                            "any entry",
                            path, lineno);
            break;
        }
        rc = read_line(s, lineno, path, &c, ctx);
        if (rc) break;
        open_card = 1;
    }
    if (!rc && open_card) rc = dispatch(d, &c, path, dmig, ctx);
    if (!rc && ferror(f)) rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: read error", path);
    free(raw); /* getline's buffer */
    tvds_free(s);
    tvds_free(c.f);
    tvds_free(c.fl);
    fclose(f);
    return rc;
}

/* The matrix named, or the one whose name begins with letter (K: not K4). */
static int pick(nas_data *d, const char *name, char letter, const char *what, nas_mat **out,
                tvds_ctx *ctx)
{
    char list[512] = "";
    for (int i = 0; i < d->nmats; i++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", d->mats[i].name);
    }
    if (d->nmats == 0) return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s: no DMIG entry", d->pch);
    if (name) {
        *out = find_mat(d, name);
        if (!*out)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s: no DMIG matrix %s (the file has %s)",
                              d->pch, name, list);
        return TVDS_OK;
    }
    int found = 0;
    for (int i = 0; i < d->nmats; i++) {
        const char *n = d->mats[i].name;
        if (toupper((unsigned char)n[0]) == letter && !(letter == 'K' && n[1] == '4')) {
            *out = &d->mats[i];
            found++;
        }
    }
    if (found != 1)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "%s: %s DMIG matrices begin with %c (the file has %s): name the %s "
                          "matrix",
                          d->pch, found ? "several" : "none of the", letter, list, what);
    return TVDS_OK;
}

static int check_mat(nas_mat *m, tvds_ctx *ctx)
{
    if (!m->tin)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: DMIG %s: no header entry 'DMIG %s 0 IFO TIN ...' in the file",
                          m->a.path, m->a.n ? m->a.line[0] : 0L, m->name, m->name);
    if (m->tin == 1)
        for (size_t k = 0; k < m->a.n; k++) {
            float x = (float)m->a.val[k];
            if (!isfinite(x))
                return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                  "%s:%ld: DMIG %s: term %g overflows single precision (TIN 1)",
                                  m->a.path, m->a.line[k], m->name, m->a.val[k]);
            m->a.val[k] = (double)x;
        }
    return TVDS_OK;
}

static int id_cmp(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

int tvds_import_nastran(const char *pch_path, const char *k_name, const char *m_name,
                        const char *bulk_path, tvds_fe_model **out, tvds_ccx_info *info,
                        cholmod_common *cc, tvds_ctx *ctx)
{
    if (!pch_path || !out || !cc)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "import nastran: missing argument");
    *out = NULL;
    if (info) memset(info, 0, sizeof *info);
    nas_data d;
    memset(&d, 0, sizeof d);
    d.pch = pch_path;
    tvds_fe_model *m = NULL;
    long *ids = NULL;
    double(*xyz)[3] = NULL;
    int rc = tvds_lmap_init(&d.grid_slot, 1024) != TVDS_OK
                 ? TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory")
                 : TVDS_OK;
    if (!rc) rc = read_file(&d, pch_path, 1, ctx);
    if (!rc && bulk_path) rc = read_file(&d, bulk_path, 0, ctx);
    nas_mat *K = NULL, *M = NULL;
    if (!rc) rc = pick(&d, k_name, 'K', "stiffness", &K, ctx);
    if (!rc) rc = pick(&d, m_name, 'M', "mass", &M, ctx);
    if (!rc && K == M)
        rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s: DMIG %s named as both stiffness and mass",
                        pch_path, K->name);
    if (!rc) rc = check_mat(K, ctx);
    if (!rc) rc = check_mat(M, ctx);
    if (!rc && d.ngrid > 0) { /* the GRID table in ascending id order */
        ids = tvds_malloc((size_t)d.ngrid * sizeof *ids);
        xyz = tvds_malloc((size_t)d.ngrid * sizeof *xyz);
        if (!ids || !xyz) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        if (!rc) {
            memcpy(ids, d.gid, (size_t)d.ngrid * sizeof *ids);
            qsort(ids, (size_t)d.ngrid, sizeof *ids, id_cmp);
            for (int g = 0; g < d.ngrid; g++)
                memcpy(xyz[g], d.gxyz[tvds_lmap_get(&d.grid_slot, ids[g])], sizeof xyz[g]);
        }
    }
    if (!rc) {
        char where[600];
        snprintf(where, sizeof where, "the GRID entries of %s%s%s", pch_path,
                 bulk_path ? " and " : "", bulk_path ? bulk_path : "");
        tvds_imp_coords co = {NULL, d.ngrid, ids, (const double(*)[3])xyz, where};
        rc = tvds_imp_assemble(&K->a, &M->a, &co, &m, cc, ctx);
    }
    if (!rc) {
        const char *b = strrchr(pch_path, '/');
        b = b ? b + 1 : pch_path;
        size_t l = strcspn(b, ".");
        m->name = tvds_malloc(l + 1);
        if (!m->name) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        } else {
            memcpy(m->name, b, l);
            m->name[l] = '\0';
        }
    }
    if (!rc && info) info->nodes = d.ngrid;
    for (int i = 0; i < d.nmats; i++)
        tvds_imp_matrix_free(&d.mats[i].a);
    tvds_free(d.mats);
    tvds_lmap_free(&d.grid_slot);
    tvds_free(d.gid);
    tvds_free(d.gline);
    tvds_free(d.gfile);
    tvds_free(d.gxyz);
    tvds_free(ids);
    tvds_free(xyz);
    if (rc) {
        tvds_fe_model_free(&m, cc);
        return rc;
    }
    *out = m;
    return TVDS_OK;
}
