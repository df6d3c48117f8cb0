/* substructure.c — substructure directories: read and write (docs/formats.md); the checks are
 * in substructure_check.c. */
#include "tvds/tvds_io.h"
#include "io/io_impl.h"
#include "io/substructure_impl.h"
#include "tvds/tvds_output.h"
#include "core/hash_impl.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int dir_from_token(const char *b, const char *e)
{
    for (int d = 0; d < 6; d++)
        if ((size_t)(e - b) == 2 && memcmp(b, dir_names[d], 2) == 0) return d;
    return -1;
}

#define TOKLEN(b, e) ((int)((e) - (b) > 40 ? 40 : (e) - (b)))

/* ---- Line-oriented text files ------------------------------------------------------------- */

typedef struct txt {
    char path[PATH_MAX + 32];
    char *buf;
    size_t len;
    const char *pos;
    long line;
} txt;

static int txt_open(txt *t, const char *path, tvds_ctx *ctx)
{
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s", path);
    FILE *f = tvds_input_open(path, "substructure file", ctx);
    if (!f) return tvds_input_open_error(path, ctx);
    size_t cap = 4096, len = 0;
    char *buf = tvds_malloc(cap);
    while (buf) {
        if (cap - len < 2) {
            char *nb = tvds_realloc(buf, cap * 2);
            if (!nb) {
                tvds_free(buf);
                buf = NULL;
                break;
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
    if (!buf) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
    if (bad) {
        tvds_free(buf);
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: read error", path);
    }
    buf[len] = '\0';
    t->buf = buf;
    t->len = len;
    t->pos = buf;
    if (memchr(buf, '\0', len)) {
        tvds_free(buf);
        t->buf = NULL;
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s: NUL byte (binary data) in a text file", path);
    }
    return TVDS_OK;
}

static void txt_close(txt *t)
{
    tvds_free(t->buf);
    t->buf = NULL;
}

/* Next line without its end of line and its '#' comment; 0 at end of file. */
static int txt_line(txt *t, const char **b, const char **e)
{
    const char *end = t->buf + t->len;
    if (t->pos >= end) return 0;
    const char *nl = memchr(t->pos, '\n', (size_t)(end - t->pos));
    *b = t->pos;
    *e = nl ? nl : end;
    t->pos = nl ? nl + 1 : end;
    t->line++;
    const char *hash = memchr(*b, '#', (size_t)(*e - *b));
    if (hash) *e = hash;
    return 1;
}

static int blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Next whitespace-separated token of [*p, e); 0 when none is left. */
static int tok(const char **p, const char *e, const char **tb, const char **te)
{
    const char *q = *p;
    while (q < e && blank(*q))
        q++;
    if (q >= e) {
        *p = q;
        return 0;
    }
    *tb = q;
    while (q < e && !blank(*q))
        q++;
    *te = q;
    *p = q;
    return 1;
}

static int parse_long_tok(const char *b, const char *e, long *v)
{
    const char *q = b;
    if (q < e && (*q == '+' || *q == '-')) q++;
    if (q == e) return 0;
    for (; q < e; q++)
        if (*q < '0' || *q > '9') return 0;
    errno = 0;
    char *end;
    long x = strtol(b, &end, 10);
    if (end != e || errno == ERANGE) return 0;
    *v = x;
    return 1;
}

/* Finite decimal number (no hexadecimal, no NaN, no infinity). */
static int parse_double_tok(const char *b, const char *e, double *v)
{
    for (const char *q = b; q < e; q++) {
        char c = *q;
        if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
            return 0;
    }
    errno = 0;
    char *end;
    double x = strtod(b, &end);
    if (end != e || end == b || !isfinite(x)) return 0;
    *v = x;
    return 1;
}

static int valid_name(const char *b, const char *e)
{
    if (b == e) return 0;
    for (const char *q = b; q < e; q++) {
        char c = *q;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.'))
            return 0;
    }
    return 1;
}

static char *dup_range(const char *b, const char *e)
{
    size_t n = (size_t)(e - b);
    char *d = tvds_malloc(n + 1);
    if (d) {
        memcpy(d, b, n);
        d[n] = '\0';
    }
    return d;
}

/* ---- Reading the parts -------------------------------------------------------------------- */

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Read a square dense matrix; Matrix Market errors get the substructure's name appended. */
static int read_square(const char *dir, const char *file, const char *name, int *n, double **A,
                       tvds_ctx *ctx)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    tvds_ctx local;
    tvds_ctx_init(&local);
    int nr = 0, nc = 0;
    int rc = tvds_mm_read_dense(path, &nr, &nc, A, NULL, &local);
    if (rc != TVDS_OK)
        return tvds_error_at(ctx, rc, local.src_file, local.src_line, "%s (substructure '%s')",
                             local.msg, name);
    if (nr != nc) {
        tvds_free(*A);
        *A = NULL;
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s: substructure '%s': %s is %d x %d, not square",
                          path, name, file, nr, nc);
    }
    if (nr == 0) {
        tvds_free(*A);
        *A = NULL;
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s: substructure '%s': %s is empty (0 x 0)", path,
                          name, file);
    }
    *n = nr;
    return TVDS_OK;
}

/* dofs.txt: one line per reduced DoF, "<node> <dir> <x> <y> <z>" or "mode <k> <freq_hz>".
 * *lines receives the line of each DoF (for later messages). */
static int read_dofs(tvds_substructure *s, const char *dir, long **lines, tvds_ctx *ctx)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/dofs.txt", dir);
    txt t;
    int rc = txt_open(&t, path, ctx);
    if (rc != TVDS_OK) return rc;
    s->dofs = tvds_calloc((size_t)s->n, sizeof *s->dofs);
    *lines = tvds_calloc((size_t)s->n, sizeof **lines);
    if (!s->dofs || !*lines) {
        txt_close(&t);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
    }
    const char *b, *e, *tb[6], *te[6];
    int k = 0;
    while (txt_line(&t, &b, &e)) {
        const char *p = b;
        int nt = 0;
        while (nt < 6 && tok(&p, e, &tb[nt], &te[nt]))
            nt++;
        if (nt == 0) continue;
        if (k == s->n) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                            "%s:%ld: substructure '%s': more DoFs than the %d of M.mtx", path,
                            t.line, s->name, s->n);
            goto done;
        }
        tvds_dof *d = &s->dofs[k];
        (*lines)[k] = t.line;
        if (te[0] - tb[0] == 4 && memcmp(tb[0], "mode", 4) == 0) {
            if (nt != 3) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: substructure '%s': a modal DoF line is 'mode <k> "
                                "<freq_hz>' (%d fields found)",
                                path, t.line, s->name, nt);
                goto done;
            }
            d->kind = TVDS_DOF_MODAL;
            d->dir = TVDS_DIR_NONE;
            if (!parse_long_tok(tb[1], te[1], &d->node) || d->node < 1) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: substructure '%s': mode number '%.*s' is not an "
                                "integer >= 1",
                                path, t.line, s->name, TOKLEN(tb[1], te[1]), tb[1]);
                goto done;
            }
            if (!parse_double_tok(tb[2], te[2], &d->freq_hz) || d->freq_hz < 0.0) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: substructure '%s': frequency '%.*s' is not a finite "
                                "number >= 0",
                                path, t.line, s->name, TOKLEN(tb[2], te[2]), tb[2]);
                goto done;
            }
        } else {
            if (nt != 5) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: substructure '%s': a physical DoF line is '<node> "
                                "<ux|uy|uz|rx|ry|rz> <x> <y> <z>' (%s%d fields found)",
                                path, t.line, s->name, nt > 5 ? "more than " : "", nt > 5 ? 5 : nt);
                goto done;
            }
            d->kind = TVDS_DOF_PHYSICAL;
            if (!parse_long_tok(tb[0], te[0], &d->node) || d->node < 1) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: substructure '%s': node '%.*s' is not an integer >= 1 "
                                "(nor 'mode')",
                                path, t.line, s->name, TOKLEN(tb[0], te[0]), tb[0]);
                goto done;
            }
            d->dir = dir_from_token(tb[1], te[1]);
            if (d->dir < 0) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: substructure '%s': direction '%.*s' is not one of ux uy "
                                "uz rx ry rz",
                                path, t.line, s->name, TOKLEN(tb[1], te[1]), tb[1]);
                goto done;
            }
            for (int c = 0; c < 3; c++)
                if (!parse_double_tok(tb[2 + c], te[2 + c], &d->xyz[c])) {
                    rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                    "%s:%ld: substructure '%s': coordinate %c '%.*s' is not a "
                                    "finite number",
                                    path, t.line, s->name, "xyz"[c], TOKLEN(tb[2 + c], te[2 + c]),
                                    tb[2 + c]);
                    goto done;
                }
        }
        k++;
    }
    if (k < s->n)
        rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                        "%s:%ld: substructure '%s': %d DoFs listed but M.mtx is %d x %d", path,
                        t.line > 0 ? t.line : 1, s->name, k, s->n, s->n);
done:
    txt_close(&t);
    return rc;
}

/* One "face <name> <node>..." line (the keyword read): append a face of 3, 4, 6, 8 or 9 nodes
 * to face set <name>, created on its first line. */
static int read_face_line(tvds_substructure *s, const char *path, long line, const char *p,
                          const char *e, tvds_ctx *ctx)
{
    const char *tb, *te;
    if (!tok(&p, e, &tb, &te) || !valid_name(tb, te))
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: substructure '%s': a face set needs a name of letters, "
                          "digits, '_', '-', '.'",
                          path, line, s->name);
    for (int k = 0; k < s->nsets; k++)
        if (strlen(s->sets[k].name) == (size_t)(te - tb) &&
            memcmp(s->sets[k].name, tb, (size_t)(te - tb)) == 0)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "%s:%ld: substructure '%s': '%s' is already a node set", path, line,
                              s->name, s->sets[k].name);
    tvds_faceset *fs = NULL;
    for (int k = 0; k < s->nfsets && !fs; k++)
        if (strlen(s->fsets[k].name) == (size_t)(te - tb) &&
            memcmp(s->fsets[k].name, tb, (size_t)(te - tb)) == 0)
            fs = &s->fsets[k];
    if (!fs) {
        tvds_faceset *nf = tvds_realloc(s->fsets, (size_t)(s->nfsets + 1) * sizeof *nf);
        if (!nf) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
        s->fsets = nf;
        fs = &s->fsets[s->nfsets];
        memset(fs, 0, sizeof *fs);
        fs->name = dup_range(tb, te);
        if (!fs->name) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
        s->nfsets++;
    }
    long nodes[TVDS_FACE_MAX_NODES + 1];
    int nn = 0;
    while (tok(&p, e, &tb, &te)) {
        long node;
        if (!parse_long_tok(tb, te, &node) || node < 1)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: substructure '%s': face set '%s': node '%.*s' is not an "
                              "integer >= 1",
                              path, line, s->name, fs->name, TOKLEN(tb, te), tb);
        if (nn == TVDS_FACE_MAX_NODES) {
            nn++;
            break;
        }
        for (int k = 0; k < nn; k++)
            if (nodes[k] == node)
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                  "%s:%ld: substructure '%s': face set '%s': a face lists node "
                                  "%ld twice",
                                  path, line, s->name, fs->name, node);
        nodes[nn++] = node;
    }
    if (nn != 3 && nn != 4 && nn != 6 && nn != 8 && nn != 9)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "%s:%ld: substructure '%s': face set '%s': a face has 3, 4, 6, 8 or 9 "
                          "nodes, not %d%s",
                          path, line, s->name, fs->name, nn > 9 ? 10 : nn,
                          nn > 9 ? " or more" : "");
    int *nnn = tvds_realloc(fs->nn, (size_t)(fs->nface + 1) * sizeof *nnn);
    if (!nnn) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
    fs->nn = nnn;
    long *nno =
        tvds_realloc(fs->nodes, (size_t)(fs->nface + 1) * TVDS_FACE_MAX_NODES * sizeof *nno);
    if (!nno) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
    fs->nodes = nno;
    long *dst = fs->nodes + (size_t)fs->nface * TVDS_FACE_MAX_NODES;
    for (int k = 0; k < TVDS_FACE_MAX_NODES; k++)
        dst[k] = k < nn ? nodes[k] : 0;
    fs->nn[fs->nface++] = nn;
    return TVDS_OK;
}

/* sets.txt: "set <name> <node>..." (a line ending in '\' continues on the next line) and
 * "face <name> <node>..." (one face per line; the lines of one name make a face set). */
static int read_sets(tvds_substructure *s, const char *dir, long **set_lines, tvds_ctx *ctx)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/sets.txt", dir);
    if (!file_exists(path)) return TVDS_OK;
    txt t;
    int rc = txt_open(&t, path, ctx);
    if (rc != TVDS_OK) return rc;
    int cap_sets = 0, cap_nodes = 0, cont = 0;
    const char *b, *e, *tb, *te;
    /* Set names and the nodes of the current set in hash tables: linear in the file. */
    tvds_smap names;
    tvds_lmap in_set;
    memset(&names, 0, sizeof names);
    memset(&in_set, 0, sizeof in_set);
    if (tvds_smap_init(&names, 16) != TVDS_OK) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
        goto done;
    }
    while (txt_line(&t, &b, &e)) {
        /* A trailing '\' (before any comment) continues the set on the next line. */
        const char *q = e;
        while (q > b && blank(q[-1]))
            q--;
        int next_cont = q > b && q[-1] == '\\';
        if (next_cont) e = q - 1;
        const char *p = b;
        if (!cont) {
            if (!tok(&p, e, &tb, &te)) {
                if (next_cont) {
                    rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                    "%s:%ld: substructure '%s': continuation '\\' outside a set",
                                    path, t.line, s->name);
                    goto done;
                }
                continue;
            }
            if (te - tb == 4 && memcmp(tb, "face", 4) == 0) {
                if (next_cont) {
                    rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                    "%s:%ld: substructure '%s': a face line cannot continue "
                                    "('\\')",
                                    path, t.line, s->name);
                    goto done;
                }
                if ((rc = read_face_line(s, path, t.line, p, e, ctx)) != TVDS_OK) goto done;
                continue;
            }
            if (te - tb != 3 || memcmp(tb, "set", 3) != 0) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: substructure '%s': expected 'set <name> <node>...' or "
                                "'face <name> <node>...', found '%.*s'",
                                path, t.line, s->name, TOKLEN(tb, te), tb);
                goto done;
            }
            if (!tok(&p, e, &tb, &te) || !valid_name(tb, te)) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: substructure '%s': a set needs a name of letters, digits, "
                                "'_', '-', '.'",
                                path, t.line, s->name);
                goto done;
            }
            for (int k = 0; k < s->nfsets; k++)
                if (strlen(s->fsets[k].name) == (size_t)(te - tb) &&
                    memcmp(s->fsets[k].name, tb, (size_t)(te - tb)) == 0) {
                    rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                    "%s:%ld: substructure '%s': '%s' is already a face set", path,
                                    t.line, s->name, s->fsets[k].name);
                    goto done;
                }
            int k = tvds_smap_get(&names, tb, (size_t)(te - tb));
            if (k >= 0) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                "%s:%ld: substructure '%s': set '%s' is defined twice (first "
                                "on line %ld)",
                                path, t.line, s->name, s->sets[k].name, (*set_lines)[k]);
                goto done;
            }
            if (s->nsets == cap_sets) {
                int nc = cap_sets ? 2 * cap_sets : 8;
                tvds_nodeset *ns = tvds_realloc(s->sets, (size_t)nc * sizeof *ns);
                long *nl = ns ? tvds_realloc(*set_lines, (size_t)nc * sizeof *nl) : NULL;
                if (ns) s->sets = ns;
                if (nl) *set_lines = nl;
                if (!ns || !nl) {
                    rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
                    goto done;
                }
                cap_sets = nc;
            }
            tvds_nodeset *set = &s->sets[s->nsets];
            memset(set, 0, sizeof *set);
            (*set_lines)[s->nsets] = t.line;
            s->nsets++;
            set->name = dup_range(tb, te);
            tvds_lmap_free(&in_set);
            if (!set->name || tvds_smap_put(&names, set->name, s->nsets - 1, NULL) != TVDS_OK ||
                tvds_lmap_init(&in_set, 64) != TVDS_OK) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
                goto done;
            }
            cap_nodes = 0;
        }
        tvds_nodeset *set = &s->sets[s->nsets - 1];
        while (tok(&p, e, &tb, &te)) {
            long node;
            if (!parse_long_tok(tb, te, &node) || node < 1) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: substructure '%s': set '%s': node '%.*s' is not an "
                                "integer >= 1",
                                path, t.line, s->name, set->name, TOKLEN(tb, te), tb);
                goto done;
            }
            int seen;
            if (tvds_lmap_put(&in_set, node, set->n, &seen) != TVDS_OK) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
                goto done;
            }
            if (seen >= 0) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                "%s:%ld: substructure '%s': set '%s' lists node %ld twice", path,
                                t.line, s->name, set->name, node);
                goto done;
            }
            if (set->n == cap_nodes) {
                int nc = cap_nodes ? 2 * cap_nodes : 16;
                long *nn = tvds_realloc(set->nodes, (size_t)nc * sizeof *nn);
                if (!nn) {
                    rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
                    goto done;
                }
                set->nodes = nn;
                cap_nodes = nc;
            }
            set->nodes[set->n++] = node;
        }
        if (!next_cont && set->n == 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s:%ld: substructure '%s': set '%s' is empty",
                            path, t.line, s->name, set->name);
            goto done;
        }
        cont = next_cont;
    }
    if (cont)
        rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                        "%s:%ld: substructure '%s': file ends after a continuation '\\'", path,
                        t.line, s->name);
done:
    tvds_smap_free(&names);
    tvds_lmap_free(&in_set);
    txt_close(&t);
    return rc;
}

/* recovery.txt ("<name> <node> <dir> <x> <y> <z>" per row) with recovery.mtx (nrec x n). */
static int read_recovery(tvds_substructure *s, const char *dir, tvds_ctx *ctx)
{
    char tpath[PATH_MAX + 32], mpath[PATH_MAX + 32];
    snprintf(tpath, sizeof tpath, "%s/recovery.txt", dir);
    snprintf(mpath, sizeof mpath, "%s/recovery.mtx", dir);
    int has_t = file_exists(tpath), has_m = file_exists(mpath);
    if (!has_t && !has_m) return TVDS_OK;
    if (has_t != has_m)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "%s: substructure '%s': recovery rows need both recovery.txt and "
                          "recovery.mtx",
                          has_t ? mpath : tpath, s->name);
    int nrow = 0, ncol = 0;
    double *R = NULL;
    tvds_ctx local;
    tvds_ctx_init(&local);
    int rc = tvds_mm_read_dense(mpath, &nrow, &ncol, &R, NULL, &local);
    if (rc != TVDS_OK)
        return tvds_error_at(ctx, rc, local.src_file, local.src_line, "%s (substructure '%s')",
                             local.msg, s->name);
    if (ncol != s->n || nrow == 0) {
        tvds_free(R);
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "%s: substructure '%s': recovery matrix is %d x %d, expected "
                          "<rows> x %d (one column per DoF) with at least one row",
                          mpath, s->name, nrow, ncol, s->n);
    }
    txt t;
    rc = txt_open(&t, tpath, ctx);
    if (rc != TVDS_OK) {
        tvds_free(R);
        return rc;
    }
    tvds_smap names; /* recovery names seen: linear in the file */
    s->rec = tvds_calloc((size_t)nrow, sizeof *s->rec);
    if (tvds_smap_init(&names, (size_t)nrow) != TVDS_OK) {
        tvds_free(s->rec);
        s->rec = NULL;
    }
    if (!s->rec) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", tpath);
        goto done;
    }
    const char *b, *e, *tb[7], *te[7];
    while (txt_line(&t, &b, &e)) {
        const char *p = b;
        int nt = 0;
        while (nt < 7 && tok(&p, e, &tb[nt], &te[nt]))
            nt++;
        if (nt == 0) continue;
        if (s->nrec == nrow) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                            "%s:%ld: substructure '%s': more recovery rows than the %d of "
                            "recovery.mtx",
                            tpath, t.line, s->name, nrow);
            goto done;
        }
        if (nt != 6) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: substructure '%s': a recovery line is '<name> <node> "
                            "<ux|uy|uz|rx|ry|rz> <x> <y> <z>'",
                            tpath, t.line, s->name);
            goto done;
        }
        tvds_recovery *r = &s->rec[s->nrec];
        if (!valid_name(tb[0], te[0])) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: substructure '%s': recovery name '%.*s' is not made of "
                            "letters, digits, '_', '-', '.'",
                            tpath, t.line, s->name, TOKLEN(tb[0], te[0]), tb[0]);
            goto done;
        }
        int k = tvds_smap_get(&names, tb[0], (size_t)(te[0] - tb[0]));
        if (k >= 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                            "%s:%ld: substructure '%s': recovery row '%s' is defined twice", tpath,
                            t.line, s->name, s->rec[k].name);
            goto done;
        }
        if (!parse_long_tok(tb[1], te[1], &r->node) || r->node < 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: substructure '%s': node '%.*s' is not an integer >= 0 (0: "
                            "not a node)",
                            tpath, t.line, s->name, TOKLEN(tb[1], te[1]), tb[1]);
            goto done;
        }
        r->dir = dir_from_token(tb[2], te[2]);
        if (r->dir < 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: substructure '%s': direction '%.*s' is not one of ux uy uz "
                            "rx ry rz",
                            tpath, t.line, s->name, TOKLEN(tb[2], te[2]), tb[2]);
            goto done;
        }
        for (int c = 0; c < 3; c++)
            if (!parse_double_tok(tb[3 + c], te[3 + c], &r->xyz[c])) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: substructure '%s': coordinate %c '%.*s' is not a finite "
                                "number",
                                tpath, t.line, s->name, "xyz"[c], TOKLEN(tb[3 + c], te[3 + c]),
                                tb[3 + c]);
                goto done;
            }
        r->name = dup_range(tb[0], te[0]);
        r->row = tvds_malloc((size_t)s->n * sizeof *r->row);
        s->nrec++; /* owned from here on, even if partly allocated */
        if (!r->name || !r->row || tvds_smap_put(&names, r->name, s->nrec - 1, NULL) != TVDS_OK) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", tpath);
            goto done;
        }
        for (int j = 0; j < s->n; j++)
            r->row[j] = R[(size_t)(s->nrec - 1) + (size_t)j * nrow];
    }
    if (s->nrec < nrow)
        rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                        "%s:%ld: substructure '%s': %d recovery rows named but recovery.mtx has %d",
                        tpath, t.line > 0 ? t.line : 1, s->name, s->nrec, nrow);
done:
    tvds_smap_free(&names);
    txt_close(&t);
    tvds_free(R);
    return rc;
}

/* ---- Read --------------------------------------------------------------------------------- */

/* Base name of a directory path, trailing slashes ignored. */
static char *base_name(const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && dir[b - 1] != '/')
        b--;
    return dup_range(dir + b, dir + n);
}

static const char *const sub_files[] = {"M.mtx",    "K.mtx",        "C.mtx",       "dofs.txt",
                                        "sets.txt", "recovery.txt", "recovery.mtx"};

int tvds_substructure_files(const char *const **names)
{
    if (names) *names = sub_files;
    return (int)(sizeof sub_files / sizeof sub_files[0]);
}

int tvds_substructure_read(const char *dir, const char *name, tvds_substructure **ps, tvds_ctx *ctx)
{
    if (!ps) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_substructure_read: NULL argument");
    *ps = NULL;
    if (!dir) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_substructure_read: no directory");
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: not a substructure directory: %s", dir,
                          stat(dir, &st) != 0 ? strerror(errno) : "not a directory");
    int rc = tvds_manifest_check(dir, sub_files, tvds_substructure_files(NULL), ctx);
    if (rc) return rc;
    tvds_substructure *s = tvds_calloc(1, sizeof *s);
    long *dof_lines = NULL, *set_lines = NULL;
    if (!s) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", dir);
    s->name = name ? tvds_strdup(name) : base_name(dir);
    s->path = tvds_strdup(dir);
    if (!s->name || !s->path) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", dir);
        goto fail;
    }
    int nk = 0, nc = 0;
    if ((rc = read_square(dir, "M.mtx", s->name, &s->n, &s->M, ctx)) != TVDS_OK) goto fail;
    if ((rc = read_square(dir, "K.mtx", s->name, &nk, &s->K, ctx)) != TVDS_OK) goto fail;
    if (nk != s->n) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                        "%s/K.mtx: substructure '%s': K is %d x %d but M.mtx is %d x %d", dir,
                        s->name, nk, nk, s->n, s->n);
        goto fail;
    }
    char cpath[PATH_MAX + 32];
    snprintf(cpath, sizeof cpath, "%s/C.mtx", dir);
    if (file_exists(cpath)) {
        if ((rc = read_square(dir, "C.mtx", s->name, &nc, &s->C, ctx)) != TVDS_OK) goto fail;
        if (nc != s->n) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                            "%s: substructure '%s': C is %d x %d but M.mtx is %d x %d", cpath,
                            s->name, nc, nc, s->n, s->n);
            goto fail;
        }
    }
    if ((rc = read_dofs(s, dir, &dof_lines, ctx)) != TVDS_OK) goto fail;
    if ((rc = read_sets(s, dir, &set_lines, ctx)) != TVDS_OK) goto fail;
    if ((rc = read_recovery(s, dir, ctx)) != TVDS_OK) goto fail;
    if ((rc = tvds_substructure_check_lines(s, dof_lines, set_lines, ctx)) != TVDS_OK) goto fail;
    tvds_free(dof_lines);
    tvds_free(set_lines);
    *ps = s;
    return TVDS_OK;
fail:
    tvds_free(dof_lines);
    tvds_free(set_lines);
    tvds_substructure_free(&s);
    return rc;
}

/* ---- Write -------------------------------------------------------------------------------- */

static int bitwise_symmetric(int n, const double *A)
{
    size_t nn = (size_t)n;
    for (size_t j = 0; j < nn; j++)
        for (size_t i = j + 1; i < nn; i++)
            if (memcmp(&A[i + j * nn], &A[j + i * nn], sizeof(double)) != 0) return 0;
    return 1;
}

static int write_matrix(const char *dir, const char *file, const tvds_substructure *s,
                        const double *A, tvds_ctx *ctx)
{
    char path[PATH_MAX + 32], comment[256];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    snprintf(comment, sizeof comment, "tvds substructure '%s': %s", sub_name(s), file);
    return tvds_mm_write_dense(path, s->n, s->n, A, bitwise_symmetric(s->n, A), comment, ctx);
}

static int close_text(FILE *f, const char *path, tvds_ctx *ctx)
{
    int bad = ferror(f);
    if (fclose(f) != 0) bad = 1;
    if (bad) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    return TVDS_OK;
}

static int remove_if_present(const char *dir, const char *file, tvds_ctx *ctx)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (unlink(path) != 0 && errno != ENOENT)
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot remove stale file: %s", path,
                          strerror(errno));
    return TVDS_OK;
}

int tvds_substructure_write(const tvds_substructure *s, const char *dir, tvds_ctx *ctx)
{
    if (!s || !dir) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_substructure_write: NULL");
    if (s->n < 1 || !s->M || !s->K || !s->dofs)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "%s: substructure '%s': nothing to write (n = %d, M, K or DoFs missing)",
                          dir, sub_name(s), s->n);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot create directory: %s", dir,
                          strerror(errno));
    int rc;
    /* Written in place, the files are no longer those of a manifest an earlier `tvds reduce`
     * left (that one writes through a stage and tvds_commit_end). */
    if ((rc = remove_if_present(dir, "manifest.txt", ctx)) != TVDS_OK) return rc;
    if ((rc = write_matrix(dir, "M.mtx", s, s->M, ctx)) != TVDS_OK ||
        (rc = write_matrix(dir, "K.mtx", s, s->K, ctx)) != TVDS_OK)
        return rc;
    rc = s->C ? write_matrix(dir, "C.mtx", s, s->C, ctx) : remove_if_present(dir, "C.mtx", ctx);
    if (rc != TVDS_OK) return rc;

    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/dofs.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    fprintf(f, "# tvds substructure '%s': %d reduced DoFs, in matrix order\n", sub_name(s), s->n);
    fprintf(f, "# <node> <ux|uy|uz|rx|ry|rz> <x> <y> <z>  |  mode <k> <freq_hz>\n");
    for (int k = 0; k < s->n; k++) {
        const tvds_dof *d = &s->dofs[k];
        if (d->kind == TVDS_DOF_MODAL)
            fprintf(f, "mode %ld %.17g\n", d->node, d->freq_hz);
        else
            fprintf(f, "%ld %s %.17g %.17g %.17g\n", d->node, dir_name(d->dir), d->xyz[0],
                    d->xyz[1], d->xyz[2]);
    }
    if ((rc = close_text(f, path, ctx)) != TVDS_OK) return rc;

    snprintf(path, sizeof path, "%s/sets.txt", dir);
    f = fopen(path, "w");
    if (!f) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    fprintf(f,
            "# tvds substructure '%s': node sets, 'set <name> <node>...', '\\' continues;\n"
            "# face sets, 'face <name> <node>...' (one face per line)\n",
            sub_name(s));
    for (int k = 0; k < s->nsets; k++) {
        const tvds_nodeset *set = &s->sets[k];
        fprintf(f, "set %s", set->name);
        for (int i = 0; i < set->n; i++) {
            if (i > 0 && i % 16 == 0) fputs(" \\\n   ", f);
            fprintf(f, " %ld", set->nodes[i]);
        }
        fputc('\n', f);
    }
    for (int k = 0; k < s->nfsets; k++) {
        const tvds_faceset *fs = &s->fsets[k];
        for (int q = 0; q < fs->nface; q++) {
            fprintf(f, "face %s", fs->name);
            for (int i = 0; i < fs->nn[q]; i++)
                fprintf(f, " %ld", fs->nodes[(size_t)q * TVDS_FACE_MAX_NODES + i]);
            fputc('\n', f);
        }
    }
    if ((rc = close_text(f, path, ctx)) != TVDS_OK) return rc;

    if (s->nrec == 0) {
        if ((rc = remove_if_present(dir, "recovery.txt", ctx)) != TVDS_OK) return rc;
        return remove_if_present(dir, "recovery.mtx", ctx);
    }
    snprintf(path, sizeof path, "%s/recovery.txt", dir);
    f = fopen(path, "w");
    if (!f) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    fprintf(f,
            "# tvds substructure '%s': rows of recovery.mtx, '<name> <node> <dir> <x> <y> <z>'\n",
            sub_name(s));
    for (int k = 0; k < s->nrec; k++) {
        const tvds_recovery *r = &s->rec[k];
        fprintf(f, "%s %ld %s %.17g %.17g %.17g\n", r->name, r->node, dir_name(r->dir), r->xyz[0],
                r->xyz[1], r->xyz[2]);
    }
    if ((rc = close_text(f, path, ctx)) != TVDS_OK) return rc;
    size_t nr = (size_t)s->nrec, nn = (size_t)s->n;
    double *R = tvds_malloc(nr * nn * sizeof *R);
    if (!R) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", dir);
    for (size_t k = 0; k < nr; k++)
        for (size_t j = 0; j < nn; j++)
            R[k + j * nr] = s->rec[k].row[j];
    snprintf(path, sizeof path, "%s/recovery.mtx", dir);
    char comment[256];
    snprintf(comment, sizeof comment,
             "tvds substructure '%s': recovery rows (u_point = row . u), names in recovery.txt",
             sub_name(s));
    rc = tvds_mm_write_dense(path, s->nrec, s->n, R, 0, comment, ctx);
    tvds_free(R);
    return rc;
}
