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

/* dofs.txt (tvds_dofs_txt_read), as many DoFs as M.mtx has rows. *lines receives the line of
 * each DoF (for later messages). */
static int read_dofs(tvds_substructure *s, const char *dir, long **lines, tvds_ctx *ctx)
{
    char path[PATH_MAX + 32], owner[300];
    snprintf(path, sizeof path, "%s/dofs.txt", dir);
    snprintf(owner, sizeof owner, "substructure '%s'", s->name);
    int n = 0;
    int rc = tvds_dofs_txt_read(path, owner, 1, &n, &s->dofs, lines, ctx);
    if (rc != TVDS_OK) return rc;
    if (n > s->n)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s:%ld: %s: more DoFs than the %d of M.mtx", path,
                          (*lines)[s->n], owner, s->n);
    if (n < s->n)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s:%ld: %s: %d DoFs listed but M.mtx is %d x %d",
                          path, (*lines)[n - 1], owner, n, s->n, s->n);
    return TVDS_OK;
}

/* sets.txt (tvds_sets_txt_read), when present: node sets and face sets. */
static int read_sets(tvds_substructure *s, const char *dir, long **set_lines, tvds_ctx *ctx)
{
    char path[PATH_MAX + 32], owner[300];
    snprintf(path, sizeof path, "%s/sets.txt", dir);
    if (!file_exists(path)) return TVDS_OK;
    snprintf(owner, sizeof owner, "substructure '%s'", s->name);
    tvds_sets_txt st;
    int rc = tvds_sets_txt_read(path, owner, s->n, s->dofs, &st, ctx);
    if (rc != TVDS_OK) return rc;
    s->nsets = st.nsets;
    s->sets = st.sets;
    *set_lines = st.set_lines;
    s->nfsets = st.nfsets;
    s->fsets = st.fsets;
    return TVDS_OK;
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
    tvds_text t;
    rc = tvds_text_open(&t, tpath, "recovery table", ctx);
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
    while (tvds_text_line(&t, &b, &e)) {
        int nt = tvds_tokens(b, e, tb, te, 6);
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
        if (!tvds_token_name(tb[0], te[0])) {
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
        if (!tvds_token_long(tb[1], te[1], &r->node) || r->node < 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: substructure '%s': node '%.*s' is not an integer >= 0 (0: "
                            "not a node)",
                            tpath, t.line, s->name, TOKLEN(tb[1], te[1]), tb[1]);
            goto done;
        }
        r->dir = tvds_token_dir(tb[2], te[2]);
        if (r->dir < 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: substructure '%s': direction '%.*s' is not one of ux uy uz "
                            "rx ry rz",
                            tpath, t.line, s->name, TOKLEN(tb[2], te[2]), tb[2]);
            goto done;
        }
        for (int c = 0; c < 3; c++)
            if (!tvds_token_double(tb[3 + c], te[3 + c], &r->xyz[c])) {
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
    tvds_text_close(&t);
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
