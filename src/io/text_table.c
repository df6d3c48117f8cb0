/* text_table.c — the one reader of each DoF-table format: dofs.txt and sets.txt of
 * substructures and of full models (docs/formats.md), over text files held in memory. */
#include "io/io_impl.h"
#include "core/hash_impl.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *dir_str(int d)
{
    static const char *const names[6] = {"ux", "uy", "uz", "rx", "ry", "rz"};
    return d >= 0 && d < 6 ? names[d] : "?";
}

/* ---- Whole text files, line by line ------------------------------------------------------ */

int tvds_text_open(tvds_text *t, const char *path, const char *what, tvds_ctx *ctx)
{
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s", path);
    FILE *f = tvds_input_open(path, what, ctx);
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
    if (memchr(buf, '\0', len)) {
        tvds_free(buf);
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s: NUL byte (binary data) in a text file", path);
    }
    t->buf = buf;
    t->len = len;
    t->pos = buf;
    return TVDS_OK;
}

void tvds_text_close(tvds_text *t)
{
    tvds_free(t->buf);
    t->buf = NULL;
}

int tvds_text_line(tvds_text *t, const char **b, const char **e)
{
    const char *end = t->buf + t->len;
    if (!t->buf || t->pos >= end) return 0;
    const char *nl = memchr(t->pos, '\n', (size_t)(end - t->pos));
    *b = t->pos;
    *e = nl ? nl : end;
    t->pos = nl ? nl + 1 : end;
    t->line++;
    const char *hash = memchr(*b, '#', (size_t)(*e - *b));
    if (hash) *e = hash;
    return 1;
}

#define TOKLEN(b, e) ((int)((e) - (b) > 40 ? 40 : (e) - (b)))

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

/* ---- dofs.txt ---------------------------------------------------------------------------- */

/* "substructure 'x': " or "" before a message's text. */
static void owner_prefix(char *buf, size_t n, const char *owner)
{
    if (owner)
        snprintf(buf, n, "%s: ", owner);
    else
        buf[0] = '\0';
}

int tvds_dofs_txt_read(const char *path, const char *owner, int modal_ok, int *n_out,
                       tvds_dof **dofs_out, long **lines_out, tvds_ctx *ctx)
{
    *n_out = 0;
    *dofs_out = NULL;
    *lines_out = NULL;
    char who[320];
    owner_prefix(who, sizeof who, owner);
    tvds_text t;
    int rc = tvds_text_open(&t, path, "DoF table", ctx);
    if (rc != TVDS_OK) return rc;
    tvds_nix x;
    tvds_lmap modes;
    memset(&x, 0, sizeof x);
    memset(&modes, 0, sizeof modes);
    tvds_dof *d = NULL;
    long *dl = NULL;
    int cnt = 0, alloc = 0;
    if (tvds_lmap_init(&x.map, 1024) != TVDS_OK || tvds_lmap_init(&modes, 16) != TVDS_OK) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
        goto done;
    }
    const char *b, *e, *tb[6], *te[6];
    while (tvds_text_line(&t, &b, &e)) {
        int nt = tvds_tokens(b, e, tb, te, 5);
        if (nt == 0) continue;
        if (cnt == INT_MAX - 1) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: %stoo many DoFs", path, t.line, who);
            goto done;
        }
        if (cnt == alloc) {
            alloc = alloc ? (alloc > INT_MAX / 2 ? INT_MAX - 1 : 2 * alloc) : 1024;
            tvds_dof *nd = tvds_realloc(d, (size_t)alloc * sizeof *d);
            long *nl = nd ? tvds_realloc(dl, (size_t)alloc * sizeof *dl) : NULL;
            if (nd) d = nd;
            if (nl) dl = nl;
            if (!nd || !nl) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
                goto done;
            }
        }
        tvds_dof *dd = &d[cnt];
        memset(dd, 0, sizeof *dd);
        if (modal_ok && te[0] - tb[0] == 4 && memcmp(tb[0], "mode", 4) == 0) {
            if (nt != 3) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: %sa modal DoF line is 'mode <k> <freq_hz>' (%s%d fields "
                                "found)",
                                path, t.line, who, nt > 5 ? "more than " : "", nt > 5 ? 5 : nt);
                goto done;
            }
            dd->kind = TVDS_DOF_MODAL;
            dd->dir = TVDS_DIR_NONE;
            if (!tvds_token_long(tb[1], te[1], &dd->node) || dd->node < 1) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: %smode number '%.*s' is not an integer >= 1", path, t.line,
                                who, TOKLEN(tb[1], te[1]), tb[1]);
                goto done;
            }
            if (!tvds_token_double(tb[2], te[2], &dd->freq_hz) || dd->freq_hz < 0.0) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: %sfrequency '%.*s' is not a finite number >= 0", path,
                                t.line, who, TOKLEN(tb[2], te[2]), tb[2]);
                goto done;
            }
            int prev;
            if (tvds_lmap_put(&modes, dd->node, cnt, &prev) != TVDS_OK) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
                goto done;
            }
            if (prev >= 0) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                "%s:%ld: %smode %ld listed twice (first on line %ld)", path, t.line,
                                who, dd->node, dl[prev]);
                goto done;
            }
        } else {
            if (nt != 5) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: %sa physical DoF line is '<node> <ux|uy|uz|rx|ry|rz> "
                                "<x> <y> <z>' (%s%d fields found)",
                                path, t.line, who, nt > 5 ? "more than " : "", nt > 5 ? 5 : nt);
                goto done;
            }
            dd->kind = TVDS_DOF_PHYSICAL;
            /* Node ids up to LONG_MAX / 8 (substructure checks combine node and direction). */
            if (!tvds_token_long(tb[0], te[0], &dd->node) || dd->node < 1) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: %snode '%.*s' is not an integer >= 1",
                                path, t.line, who, TOKLEN(tb[0], te[0]), tb[0]);
                goto done;
            }
            if (dd->node > LONG_MAX / 8) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: %snode %ld is larger than %ld", path,
                                t.line, who, dd->node, LONG_MAX / 8);
                goto done;
            }
            dd->dir = tvds_token_dir(tb[1], te[1]);
            if (dd->dir < 0) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: %sdirection '%.*s' is not one of ux uy uz rx ry rz", path,
                                t.line, who, TOKLEN(tb[1], te[1]), tb[1]);
                goto done;
            }
            for (int c = 0; c < 3; c++)
                if (!tvds_token_double(tb[2 + c], te[2 + c], &dd->xyz[c])) {
                    rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                    "%s:%ld: %scoordinate %c '%.*s' is not a finite number", path,
                                    t.line, who, "xyz"[c], TOKLEN(tb[2 + c], te[2 + c]), tb[2 + c]);
                    goto done;
                }
            int prev, first;
            if (tvds_nix_add(&x, dd->node, dd->dir, cnt, &prev, &first) != TVDS_OK) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
                goto done;
            }
            if (prev >= 0) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                "%s:%ld: %snode %ld %s listed twice (first on line %ld)", path,
                                t.line, who, dd->node, dir_str(dd->dir), dl[prev]);
                goto done;
            }
            if (first >= 0 && memcmp(d[first].xyz, dd->xyz, sizeof dd->xyz) != 0) {
                const tvds_dof *o = &d[first];
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                "%s:%ld: %snode %ld %s has coordinates (%.17g, %.17g, %.17g) but "
                                "node %ld %s on line %ld has (%.17g, %.17g, %.17g): the DoFs of a "
                                "node share its coordinates",
                                path, t.line, who, dd->node, dir_str(dd->dir), dd->xyz[0],
                                dd->xyz[1], dd->xyz[2], o->node, dir_str(o->dir), dl[first],
                                o->xyz[0], o->xyz[1], o->xyz[2]);
                goto done;
            }
        }
        dl[cnt++] = t.line;
    }
    if (cnt == 0) rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s: %sno DoF in the table", path, who);
done:
    tvds_text_close(&t);
    tvds_nix_free(&x);
    tvds_lmap_free(&modes);
    if (rc != TVDS_OK) {
        tvds_free(d);
        tvds_free(dl);
        return rc;
    }
    *n_out = cnt;
    *dofs_out = d;
    *lines_out = dl;
    return TVDS_OK;
}

/* ---- sets.txt ---------------------------------------------------------------------------- */

void tvds_sets_txt_free(tvds_sets_txt *st)
{
    for (int k = 0; k < st->nsets; k++) {
        tvds_free(st->sets[k].name);
        tvds_free(st->sets[k].nodes);
    }
    tvds_free(st->sets);
    tvds_free(st->set_lines);
    for (int k = 0; k < st->nfsets; k++) {
        tvds_free(st->fsets[k].name);
        tvds_free(st->fsets[k].nn);
        tvds_free(st->fsets[k].nodes);
    }
    tvds_free(st->fsets);
    memset(st, 0, sizeof *st);
}

typedef struct face_at {
    long line;
    int set, k; /* face k of face set set */
} face_at;

typedef struct sets_reader {
    const char *path, *who;
    tvds_nix x; /* the DoF table's nodes */
    tvds_smap names, fnames;
    tvds_sets_txt *st;
    int cap_sets, cap_nodes;
    face_at *face; /* nface: every face in file order, checked against the DoFs at the end */
    int nface, cap_face;
} sets_reader;

/* The nodes of each face need ux, uy and uz: checked once the whole file is read. */
static int faces_have_dofs(const sets_reader *r, tvds_ctx *ctx)
{
    for (int i = 0; i < r->nface; i++) {
        const face_at *f = &r->face[i];
        const tvds_faceset *fs = &r->st->fsets[f->set];
        const long *nodes = fs->nodes + (size_t)f->k * TVDS_FACE_MAX_NODES;
        for (int a = 0; a < fs->nn[f->k]; a++) {
            int slot = tvds_lmap_get(&r->x.map, nodes[a]);
            for (int d = 0; d < 3; d++)
                if (slot < 0 || r->x.dof[slot][d] < 0)
                    return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                      "%s:%ld: %sface set '%s': node %ld has no %s in the DoF "
                                      "table (a face node needs ux, uy and uz)",
                                      r->path, f->line, r->who, fs->name, nodes[a], dir_str(d));
        }
    }
    return TVDS_OK;
}

/* One "face <name> <node>..." line (p after the keyword): a face of 3, 4, 6, 8 or 9 distinct
 * nodes, each with ux, uy and uz, appended to face set <name> (created on its first line). */
static int face_line(sets_reader *r, long line, const char *p, const char *e, tvds_ctx *ctx)
{
    const char *path = r->path, *who = r->who, *tb, *te;
    tvds_sets_txt *st = r->st;
    if (!tvds_token_next(&p, e, &tb, &te) || !tvds_token_name(tb, te))
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: %sa face set needs a name of letters, digits, '_', '-', '.'",
                          path, line, who);
    size_t len = (size_t)(te - tb);
    int k = tvds_smap_get(&r->names, tb, len);
    if (k >= 0)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s:%ld: %s'%s' is already a node set", path, line,
                          who, st->sets[k].name);
    int q = tvds_smap_get(&r->fnames, tb, len);
    if (q < 0) {
        tvds_faceset *nf = tvds_realloc(st->fsets, (size_t)(st->nfsets + 1) * sizeof *nf);
        if (!nf) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
        st->fsets = nf;
        q = st->nfsets;
        memset(&nf[q], 0, sizeof nf[q]);
        nf[q].name = dup_range(tb, te);
        if (!nf[q].name) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
        st->nfsets++;
        if (tvds_smap_put(&r->fnames, nf[q].name, q, NULL) != TVDS_OK)
            return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
    }
    tvds_faceset *fs = &st->fsets[q];
    long nodes[TVDS_FACE_MAX_NODES];
    int nn = 0;
    while (tvds_token_next(&p, e, &tb, &te)) {
        long node;
        if (!tvds_token_long(tb, te, &node) || node < 1)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: %sface set '%s': node '%.*s' is not an integer >= 1", path,
                              line, who, fs->name, TOKLEN(tb, te), tb);
        if (nn == TVDS_FACE_MAX_NODES) {
            nn++;
            break;
        }
        for (int a = 0; a < nn; a++)
            if (nodes[a] == node)
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                  "%s:%ld: %sface set '%s': a face lists node %ld twice", path,
                                  line, who, fs->name, node);
        nodes[nn++] = node;
    }
    if (nn != 3 && nn != 4 && nn != 6 && nn != 8 && nn != 9)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "%s:%ld: %sface set '%s': a face has 3, 4, 6, 8 or 9 nodes, not %d%s",
                          path, line, who, fs->name, nn > 9 ? 10 : nn, nn > 9 ? " or more" : "");
    if (r->nface == r->cap_face) {
        int nc = r->cap_face ? 2 * r->cap_face : 64;
        face_at *nf = tvds_realloc(r->face, (size_t)nc * sizeof *nf);
        if (!nf) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
        r->face = nf;
        r->cap_face = nc;
    }
    r->face[r->nface++] = (face_at){line, q, fs->nface};
    if ((fs->nface & (fs->nface - 1)) == 0) { /* capacity doubles at powers of two */
        size_t cap = fs->nface ? 2 * (size_t)fs->nface : 1;
        int *nnn = tvds_realloc(fs->nn, cap * sizeof *nnn);
        if (nnn) fs->nn = nnn;
        long *nno = nnn ? tvds_realloc(fs->nodes, cap * TVDS_FACE_MAX_NODES * sizeof *nno) : NULL;
        if (nno) fs->nodes = nno;
        if (!nnn || !nno) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
    }
    long *dst = fs->nodes + (size_t)fs->nface * TVDS_FACE_MAX_NODES;
    for (int a = 0; a < TVDS_FACE_MAX_NODES; a++)
        dst[a] = a < nn ? nodes[a] : 0;
    fs->nn[fs->nface++] = nn;
    return TVDS_OK;
}

/* The "set <name>" head of a node set (p after the keyword): a new, empty set. */
static int set_head(sets_reader *r, long line, const char **p, const char *e, tvds_ctx *ctx)
{
    const char *path = r->path, *who = r->who, *tb, *te;
    tvds_sets_txt *st = r->st;
    if (!tvds_token_next(p, e, &tb, &te) || !tvds_token_name(tb, te))
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: %sa set needs a name of letters, digits, '_', '-', '.'", path,
                          line, who);
    size_t len = (size_t)(te - tb);
    int q = tvds_smap_get(&r->fnames, tb, len);
    if (q >= 0)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s:%ld: %s'%s' is already a face set", path, line,
                          who, st->fsets[q].name);
    int k = tvds_smap_get(&r->names, tb, len);
    if (k >= 0)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "%s:%ld: %sset '%s' is defined twice (first on line %ld)", path, line,
                          who, st->sets[k].name, st->set_lines[k]);
    if (st->nsets == r->cap_sets) {
        int nc = r->cap_sets ? 2 * r->cap_sets : 8;
        tvds_nodeset *ns = tvds_realloc(st->sets, (size_t)nc * sizeof *ns);
        if (ns) st->sets = ns;
        long *nl = ns ? tvds_realloc(st->set_lines, (size_t)nc * sizeof *nl) : NULL;
        if (nl) st->set_lines = nl;
        if (!ns || !nl) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
        r->cap_sets = nc;
    }
    tvds_nodeset *set = &st->sets[st->nsets];
    memset(set, 0, sizeof *set);
    st->set_lines[st->nsets] = line;
    set->name = dup_range(tb, te);
    if (!set->name) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
    st->nsets++;
    if (tvds_smap_put(&r->names, set->name, st->nsets - 1, NULL) != TVDS_OK)
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
    r->cap_nodes = 0;
    return TVDS_OK;
}

/* The nodes of [p, e) appended to the last set: each with a DoF, none twice. */
static int set_nodes(sets_reader *r, long line, const char *p, const char *e, tvds_ctx *ctx)
{
    const char *path = r->path, *who = r->who, *tb, *te;
    int q = r->st->nsets - 1;
    tvds_nodeset *set = &r->st->sets[q];
    while (tvds_token_next(&p, e, &tb, &te)) {
        long node;
        if (!tvds_token_long(tb, te, &node) || node < 1)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                              "%s:%ld: %sset '%s': node '%.*s' is not an integer >= 1", path, line,
                              who, set->name, TOKLEN(tb, te), tb);
        int slot = tvds_lmap_get(&r->x.map, node);
        if (slot < 0)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "%s:%ld: %sset '%s' names node %ld, which has no DoF in the DoF "
                              "table",
                              path, line, who, set->name, node);
        if (r->x.mark[slot] == q)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s:%ld: %sset '%s' lists node %ld twice",
                              path, line, who, set->name, node);
        r->x.mark[slot] = q;
        if (set->n == r->cap_nodes) {
            int nc = r->cap_nodes ? 2 * r->cap_nodes : 16;
            long *nn = tvds_realloc(set->nodes, (size_t)nc * sizeof *nn);
            if (!nn) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
            set->nodes = nn;
            r->cap_nodes = nc;
        }
        set->nodes[set->n++] = node;
    }
    return TVDS_OK;
}

int tvds_sets_txt_read(const char *path, const char *owner, int n, const tvds_dof *dofs,
                       tvds_sets_txt *st, tvds_ctx *ctx)
{
    memset(st, 0, sizeof *st);
    char who[320];
    owner_prefix(who, sizeof who, owner);
    sets_reader r;
    memset(&r, 0, sizeof r);
    r.path = path;
    r.who = who;
    r.st = st;
    tvds_text t;
    int rc = tvds_text_open(&t, path, "node-set file", ctx);
    if (rc != TVDS_OK) return rc;
    if (tvds_nix_build(&r.x, n, dofs) != TVDS_OK || tvds_smap_init(&r.names, 16) != TVDS_OK ||
        tvds_smap_init(&r.fnames, 16) != TVDS_OK)
        goto nomem;
    const char *b, *e, *tb, *te;
    int cont = 0;
    while (tvds_text_line(&t, &b, &e)) {
        /* A trailing '\' (before any comment) continues the set on the next line. */
        const char *q = e;
        while (q > b && tvds_blank(q[-1]))
            q--;
        int next_cont = q > b && q[-1] == '\\';
        if (next_cont) e = q - 1;
        const char *p = b;
        if (!cont) {
            if (!tvds_token_next(&p, e, &tb, &te)) {
                if (next_cont) {
                    rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                    "%s:%ld: %scontinuation '\\' outside a set", path, t.line, who);
                    goto done;
                }
                continue;
            }
            if (te - tb == 4 && memcmp(tb, "face", 4) == 0) {
                if (next_cont) {
                    rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                    "%s:%ld: %sa face line cannot continue ('\\'): one face per "
                                    "line",
                                    path, t.line, who);
                    goto done;
                }
                if ((rc = face_line(&r, t.line, p, e, ctx)) != TVDS_OK) goto done;
                continue;
            }
            if (te - tb != 3 || memcmp(tb, "set", 3) != 0) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: %sexpected 'set <name> <node>...' or 'face <name> "
                                "<node>...', found '%.*s'",
                                path, t.line, who, TOKLEN(tb, te), tb);
                goto done;
            }
            if ((rc = set_head(&r, t.line, &p, e, ctx)) != TVDS_OK) goto done;
        }
        if ((rc = set_nodes(&r, t.line, p, e, ctx)) != TVDS_OK) goto done;
        const tvds_nodeset *set = &st->sets[st->nsets - 1];
        if (!next_cont && set->n == 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s:%ld: %sset '%s' is empty", path, t.line, who,
                            set->name);
            goto done;
        }
        cont = next_cont;
    }
    if (cont)
        rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: %sfile ends after a continuation '\\'", path,
                        t.line, who);
    else
        rc = faces_have_dofs(&r, ctx);
    goto done;
nomem:
    rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
done:
    tvds_text_close(&t);
    tvds_nix_free(&r.x);
    tvds_free(r.face);
    tvds_smap_free(&r.names);
    tvds_smap_free(&r.fnames);
    if (rc != TVDS_OK) tvds_sets_txt_free(st);
    return rc;
}
