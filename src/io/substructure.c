/* substructure.c — substructure directories: read, write and validate (docs/formats.md). */
#include "tvds/tvds_io.h"
#include "io/io_impl.h"
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

/* Symmetry tolerance of M and K: |A(i,j) - A(j,i)| <= SYM_TOL * max|A| (docs/formats.md). */
static const double SYM_TOL = 1e-10;
/* K is accepted as positive semidefinite when K + PSD_SHIFT * lambda_lo * M is positive
 * definite, lambda_lo = max_i K(i,i)/M(i,i) <= largest eigenvalue of (K, M): eigenvalues of
 * (K, M) down to -PSD_SHIFT * lambda_lo (round-off of rigid-body modes) pass. */
static const double PSD_SHIFT = 1e-8;

static const char *const dir_names[6] = {"ux", "uy", "uz", "rx", "ry", "rz"};

static const char *dir_name(int d)
{
    return d >= 0 && d < 6 ? dir_names[d] : "?";
}

#define TOKLEN(b, e) ((int)((e) - (b) > 40 ? 40 : (e) - (b)))

/* ---- Names in messages -------------------------------------------------------------------- */

/* "dir/file" (or "file" for a substructure built in memory). */
static void file_of(char *buf, size_t n, const tvds_substructure *s, const char *file)
{
    if (s && s->path)
        snprintf(buf, n, "%s/%s", s->path, file);
    else
        snprintf(buf, n, "%s", file);
}

/* "DoF 3 (node 12 uy)" or "DoF 21 (mode 1)", DoFs numbered from 1. */
static void dof_label(char *buf, size_t n, const tvds_substructure *s, int k)
{
    const tvds_dof *d = &s->dofs[k];
    if (d->kind == TVDS_DOF_MODAL)
        snprintf(buf, n, "DoF %d (mode %ld)", k + 1, d->node);
    else
        snprintf(buf, n, "DoF %d (node %ld %s)", k + 1, d->node, dir_name(d->dir));
}

static const char *sub_name(const tvds_substructure *s)
{
    return s && s->name ? s->name : "(unnamed)";
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

/* ---- Validation --------------------------------------------------------------------------- */

/* Upper triangle of A + shift*B (B may be NULL) as a CHOLMOD symmetric matrix. */
static cholmod_sparse *upper_sparse(int n, const double *A, double shift, const double *B,
                                    cholmod_common *cc)
{
    size_t nn = (size_t)n, nnz = 0;
    for (size_t j = 0; j < nn; j++)
        for (size_t i = 0; i <= j; i++) {
            double v = A[i + j * nn] + (B ? shift * B[i + j * nn] : 0.0);
            nnz += v != 0.0;
        }
    cholmod_sparse *S = cholmod_allocate_sparse(nn, nn, nnz, 1, 1, 1, CHOLMOD_REAL, cc);
    if (!S) return NULL;
    int *Sp = S->p, *Si = S->i;
    double *Sx = S->x;
    int p = 0;
    for (size_t j = 0; j < nn; j++) {
        Sp[j] = p;
        for (size_t i = 0; i <= j; i++) {
            double v = A[i + j * nn] + (B ? shift * B[i + j * nn] : 0.0);
            if (v != 0.0) {
                Si[p] = (int)i;
                Sx[p] = v;
                p++;
            }
        }
    }
    Sp[n] = p;
    return S;
}

/* LL' of A + shift*B in the natural order: *fail = -1 if positive definite, else the 0-based
 * index of the DoF where the factorization breaks down (the leading block up to and including
 * it is not positive definite). */
static int cholesky_check(int n, const double *A, double shift, const double *B, int *fail,
                          tvds_ctx *ctx)
{
    cholmod_common cc;
    int rc = tvds_cholmod_start(&cc);
    if (rc != TVDS_OK) return TVDS_ERROR(ctx, rc, "cannot start CHOLMOD");
    tvds_ctx *caller_ctx = tvds_io_cholmod_ctx_swap(ctx);
    cc.nmethods = 1;
    cc.method[0].ordering = CHOLMOD_NATURAL;
    cc.postorder = 0;
    *fail = -1;
    cholmod_sparse *S = upper_sparse(n, A, shift, B, &cc);
    cholmod_factor *L = S ? cholmod_analyze(S, &cc) : NULL;
    if (L) cholmod_factorize(S, L, &cc);
    if (!S || !L || cc.status < CHOLMOD_OK) {
        rc = TVDS_ERROR(ctx, cc.status == CHOLMOD_OUT_OF_MEMORY ? TVDS_ERR_NOMEM : TVDS_ERR_SOLVER,
                        "CHOLMOD failed (status %d)", cc.status);
    } else if (cc.status == CHOLMOD_NOT_POSDEF || L->minor < (size_t)n) {
        *fail = (int)L->minor;
        if (L->Perm) *fail = ((const int *)L->Perm)[L->minor];
    }
    cholmod_free_factor(&L, &cc);
    cholmod_free_sparse(&S, &cc);
    cholmod_finish(&cc);
    tvds_io_cholmod_ctx_swap(caller_ctx);
    return rc;
}

static int check_finite(const tvds_substructure *s, const double *A, const char *what,
                        const char *file, tvds_ctx *ctx)
{
    size_t n = (size_t)s->n;
    for (size_t k = 0; k < n * n; k++)
        if (!isfinite(A[k])) {
            char f[PATH_MAX + 64], li[96], lj[96];
            file_of(f, sizeof f, s, file);
            dof_label(li, sizeof li, s, (int)(k % n));
            dof_label(lj, sizeof lj, s, (int)(k / n));
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "%s: substructure '%s': %s has a non-finite entry at %s, %s", f,
                              sub_name(s), what, li, lj);
        }
    return TVDS_OK;
}

static int check_symmetric(const tvds_substructure *s, const double *A, const char *what,
                           const char *file, tvds_ctx *ctx)
{
    size_t n = (size_t)s->n;
    double amax = 0.0;
    for (size_t k = 0; k < n * n; k++)
        if (fabs(A[k]) > amax) amax = fabs(A[k]);
    double tol = SYM_TOL * amax, worst = 0.0;
    size_t wi = 0, wj = 0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = j + 1; i < n; i++) {
            double d = fabs(A[i + j * n] - A[j + i * n]);
            if (d > worst) {
                worst = d;
                wi = i;
                wj = j;
            }
        }
    if (worst > tol) {
        char f[PATH_MAX + 64], li[96], lj[96];
        file_of(f, sizeof f, s, file);
        dof_label(li, sizeof li, s, (int)wi);
        dof_label(lj, sizeof lj, s, (int)wj);
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "%s: substructure '%s': %s is not symmetric: %s(%zu,%zu) = %.17g but "
                          "%s(%zu,%zu) = %.17g (difference %.3g > %.0e * max|%s| = %.3g) at %s, %s",
                          f, sub_name(s), what, what, wi + 1, wj + 1, A[wi + wj * n], what, wj + 1,
                          wi + 1, A[wj + wi * n], worst, SYM_TOL, what, tol, li, lj);
    }
    return TVDS_OK;
}

/* The whole check; dof_lines/set_lines (may be NULL) give line numbers for messages. */
/* The DoF table (labels unique, one position per node) and the node sets, with hash tables:
 * linear in the number of DoFs and set entries. */
static int check_tables(const tvds_substructure *s, const long *dof_lines, const long *set_lines,
                        tvds_ctx *ctx)
{
    const char *name = sub_name(s);
    char f[PATH_MAX + 64], la[96], lb[96];
    int n = s->n, rc = TVDS_OK;
    tvds_lmap labels, nodes, modes;
    tvds_smap set_names;
    memset(&set_names, 0, sizeof set_names);
    memset(&labels, 0, sizeof labels);
    memset(&nodes, 0, sizeof nodes);
    memset(&modes, 0, sizeof modes);
    if (tvds_lmap_init(&labels, (size_t)n) != TVDS_OK ||
        tvds_lmap_init(&nodes, (size_t)n) != TVDS_OK || tvds_lmap_init(&modes, 16) != TVDS_OK)
        goto nomem;
    /* The DoF table. */
    file_of(f, sizeof f, s, "dofs.txt");
    for (int k = 0; k < n; k++) {
        const tvds_dof *d = &s->dofs[k];
        char at[64] = "";
        if (dof_lines) snprintf(at, sizeof at, ":%ld", dof_lines[k]);
        int ok = d->kind == TVDS_DOF_MODAL
                     ? d->node >= 1 && isfinite(d->freq_hz) && d->freq_hz >= 0.0
                     : d->kind == TVDS_DOF_PHYSICAL && d->node >= 1 && d->dir >= 0 && d->dir < 6 &&
                           d->node <= LONG_MAX / 8 && isfinite(d->xyz[0]) && isfinite(d->xyz[1]) &&
                           isfinite(d->xyz[2]);
        if (!ok) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                            "%s%s: substructure '%s': DoF %d has an invalid kind, node, "
                            "direction, coordinate or frequency",
                            f, at, name, k + 1);
            goto out;
        }
        /* Earlier DoF with the same label, and the node's first physical DoF (its
         * coordinates), from hash tables: linear in n. */
        int q = -1, dup = 0;
        if (d->kind == TVDS_DOF_MODAL) {
            if ((rc = tvds_lmap_put(&modes, d->node, k, &q)) != TVDS_OK) goto nomem;
            dup = q >= 0;
        } else {
            int first;
            if ((rc = tvds_lmap_put(&labels, 6 * d->node + d->dir, k, &q)) != TVDS_OK ||
                (rc = tvds_lmap_put(&nodes, d->node, k, &first)) != TVDS_OK)
                goto nomem;
            dup = q >= 0;
            if (!dup && first >= 0 && memcmp(s->dofs[first].xyz, d->xyz, sizeof d->xyz) != 0) {
                const tvds_dof *o = &s->dofs[first];
                dof_label(la, sizeof la, s, k);
                dof_label(lb, sizeof lb, s, first);
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                "%s%s: substructure '%s': node %ld has coordinates (%.17g, "
                                "%.17g, %.17g) at %s but (%.17g, %.17g, %.17g) at %s",
                                f, at, name, d->node, d->xyz[0], d->xyz[1], d->xyz[2], la,
                                o->xyz[0], o->xyz[1], o->xyz[2], lb);
                goto out;
            }
        }
        if (dup) {
            dof_label(la, sizeof la, s, k);
            dof_label(lb, sizeof lb, s, q);
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                            "%s%s: substructure '%s': duplicate DoF label: %s repeats %s", f, at,
                            name, la, lb);
            goto out;
        }
    }
    /* Node sets name nodes that have physical DoFs. */
    file_of(f, sizeof f, s, "sets.txt");
    if (tvds_smap_init(&set_names, (size_t)s->nsets) != TVDS_OK) goto nomem;
    for (int k = 0; k < s->nsets; k++) {
        const tvds_nodeset *set = &s->sets[k];
        char at[64] = "";
        if (set_lines) snprintf(at, sizeof at, ":%ld", set_lines[k]);
        if (!set->name || set->n < 1 || !set->nodes) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s%s: substructure '%s': set %d is empty", f,
                            at, name, k + 1);
            goto out;
        }
        int q;
        if (tvds_smap_put(&set_names, set->name, k, &q) != TVDS_OK) goto nomem;
        if (q >= 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                            "%s%s: substructure '%s': set '%s' is defined twice", f, at, name,
                            set->name);
            goto out;
        }
        for (int i = 0; i < set->n; i++)
            if (tvds_lmap_get(&nodes, set->nodes[i]) < 0) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                "%s%s: substructure '%s': set '%s' names node %ld, which has "
                                "no DoF in the DoF table",
                                f, at, name, set->name, set->nodes[i]);
                goto out;
            }
    }
    file_of(f, sizeof f, s, "sets.txt");
    /* Face sets: supported face sizes, nodes with the three translations. */
    for (int k = 0; k < s->nfsets; k++) {
        const tvds_faceset *fs = &s->fsets[k];
        if (!fs->name || fs->nface < 1 || !fs->nn || !fs->nodes) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s: substructure '%s': face set %d is empty", f,
                            name, k + 1);
            goto out;
        }
        for (int q = 0; q < fs->nface; q++) {
            int nn = fs->nn[q];
            if (nn != 3 && nn != 4 && nn != 6 && nn != 8 && nn != 9) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                "%s: substructure '%s': face set '%s': face %d has %d nodes "
                                "(3, 4, 6, 8 or 9)",
                                f, name, fs->name, q + 1, nn);
                goto out;
            }
            for (int i = 0; i < nn; i++) {
                long nd = fs->nodes[(size_t)q * TVDS_FACE_MAX_NODES + i];
                for (int dir = 0; dir < 3; dir++)
                    if (tvds_substructure_find_dof(s, nd, dir) < 0) {
                        rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                        "%s: substructure '%s': face set '%s': face %d: node "
                                        "%ld has no %s in the DoF table (a face node needs ux, uy "
                                        "and uz)",
                                        f, name, fs->name, q + 1, nd, dir_name(dir));
                        goto out;
                    }
            }
        }
    }
    goto out;
nomem:
    rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "substructure '%s': out of memory", name);
out:
    tvds_lmap_free(&labels);
    tvds_lmap_free(&nodes);
    tvds_lmap_free(&modes);
    tvds_smap_free(&set_names);
    return rc;
}

/* Everything but the tables (checked by check_tables). */
static int validate(const tvds_substructure *s, const long *dof_lines, const long *set_lines,
                    tvds_ctx *ctx)
{
    if (!s) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "substructure: NULL");
    const char *name = sub_name(s);
    char f[PATH_MAX + 64], la[96];
    if (s->n < 1 || !s->M || !s->K || !s->dofs)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "substructure '%s': needs n >= 1, M, K and the DoF table (n = %d)", name,
                          s->n);
    int n = s->n;
    int rc = check_tables(s, dof_lines, set_lines, ctx);
    if (rc != TVDS_OK) return rc;
    /* Recovery rows. */
    file_of(f, sizeof f, s, "recovery.txt");
    for (int k = 0; k < s->nrec; k++) {
        const tvds_recovery *r = &s->rec[k];
        int ok = r->name && r->row && r->node >= 0 && r->dir >= 0 && r->dir < 6;
        for (int j = 0; ok && j < n; j++)
            ok = isfinite(r->row[j]);
        if (!ok)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "%s: substructure '%s': recovery row %d ('%s') has an invalid "
                              "node, direction or non-finite coefficient",
                              f, name, k + 1, r->name ? r->name : "?");
    }
    /* Matrices: finite, M and K symmetric. */
    if ((rc = check_finite(s, s->M, "M", "M.mtx", ctx)) != TVDS_OK ||
        (rc = check_finite(s, s->K, "K", "K.mtx", ctx)) != TVDS_OK ||
        (s->C && (rc = check_finite(s, s->C, "C", "C.mtx", ctx)) != TVDS_OK) ||
        (rc = check_symmetric(s, s->M, "M", "M.mtx", ctx)) != TVDS_OK ||
        (rc = check_symmetric(s, s->K, "K", "K.mtx", ctx)) != TVDS_OK)
        return rc;
    /* M positive definite: LL' must not break down. */
    int fail;
    if ((rc = cholesky_check(n, s->M, 0.0, NULL, &fail, ctx)) != TVDS_OK) return rc;
    if (fail >= 0) {
        file_of(f, sizeof f, s, "M.mtx");
        dof_label(la, sizeof la, s, fail);
        return TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                          "%s: substructure '%s': M is not positive definite: its Cholesky "
                          "factorization (LL', natural order) breaks down at %s",
                          f, name, la);
    }
    /* K positive semidefinite: no eigenvalue of (K, M) below -shift (see PSD_SHIFT). */
    size_t nn = (size_t)n;
    double lambda_lo = 0.0;
    for (size_t i = 0; i < nn; i++) {
        double kii = s->K[i + i * nn];
        if (kii < 0.0) {
            file_of(f, sizeof f, s, "K.mtx");
            dof_label(la, sizeof la, s, (int)i);
            return TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                              "%s: substructure '%s': K is not positive semidefinite: negative "
                              "diagonal K(%zu,%zu) = %.17g at %s",
                              f, name, i + 1, i + 1, kii, la);
        }
        double r = kii / s->M[i + i * nn]; /* M(i,i) > 0: M is positive definite */
        if (r > lambda_lo) lambda_lo = r;
    }
    if (lambda_lo == 0.0) {
        /* Zero diagonal: a positive semidefinite K is then exactly zero. */
        for (size_t k = 0; k < nn * nn; k++)
            if (s->K[k] != 0.0) {
                file_of(f, sizeof f, s, "K.mtx");
                dof_label(la, sizeof la, s, (int)(k % nn));
                return TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                                  "%s: substructure '%s': K is not positive semidefinite: zero "
                                  "diagonal but a nonzero entry in the row of %s",
                                  f, name, la);
            }
        return TVDS_OK;
    }
    double shift = PSD_SHIFT * lambda_lo;
    if ((rc = cholesky_check(n, s->K, shift, s->M, &fail, ctx)) != TVDS_OK) return rc;
    if (fail >= 0) {
        file_of(f, sizeof f, s, "K.mtx");
        dof_label(la, sizeof la, s, fail);
        return TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                          "%s: substructure '%s': K is not positive semidefinite: K + %.3g M is "
                          "not positive definite (breakdown at %s), so (K, M) has an eigenvalue "
                          "below -%.3g 1/s^2",
                          f, name, shift, la, shift);
    }
    return TVDS_OK;
}

int tvds_substructure_validate(const tvds_substructure *s, tvds_ctx *ctx)
{
    return validate(s, NULL, NULL, ctx);
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
    if ((rc = validate(s, dof_lines, set_lines, ctx)) != TVDS_OK) goto fail;
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
