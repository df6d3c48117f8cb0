/* substructure_check.c — the checks of a substructure: finite, symmetric M and K, M positive
 * definite, K positive semidefinite, consistent DoF, set and recovery tables (docs/formats.md). */
#include "io/substructure_impl.h"
#include "io/io_impl.h"
#include "core/hash_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Symmetry tolerance of M and K: |A(i,j) - A(j,i)| <= SYM_TOL * max|A| (docs/formats.md). */
static const double SYM_TOL = 1e-10;
/* K is accepted as positive semidefinite when K + PSD_SHIFT * lambda_lo * M is positive
 * definite, lambda_lo = max_i K(i,i)/M(i,i) <= largest eigenvalue of (K, M): eigenvalues of
 * (K, M) down to -PSD_SHIFT * lambda_lo (round-off of rigid-body modes) pass. */
static const double PSD_SHIFT = 1e-8;

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
int tvds_substructure_check_lines(const tvds_substructure *s, const long *dof_lines,
                                  const long *set_lines, tvds_ctx *ctx)
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
    return tvds_substructure_check_lines(s, NULL, NULL, ctx);
}
