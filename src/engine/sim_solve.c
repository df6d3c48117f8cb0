/* sim_solve.c — the contact-space system W lambda = B_C u* + g0, W = h^2 B_C M^-1 B_E^T:
 * direct LU with an active-set / stick-slip loop (subs-a, subs-b, subs-c) and projected
 * Gauss-Seidel (FiLm). */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>

#include "engine/sim_impl.h"

static const char *row_where(const tvds_model *m, const tvds_data *d, const sim_row *R, char *buf,
                             size_t nbuf)
{
    if (R->kind == 0) {
        snprintf(buf, nbuf, "bilateral '%s'", m->bil[R->cp].name ? m->bil[R->cp].name : "?");
    } else if (R->kind == 3) {
        const char *nm = m->elements[R->cp].name;
        snprintf(buf, nbuf, "element '%s' (stick row)", nm ? nm : "?");
    } else {
        const sim_cp *c = &d->cp[R->cp];
        const tvds_contact *C = &m->contacts[c->contact];
        snprintf(buf, nbuf, "contact '%s' (slave node %ld, %s row)", C->name ? C->name : "?",
                 c->node, R->kind == 1 ? "normal" : "tangential");
    }
    return buf;
}

/* Diagonal check: a non-positive W_ii means the row's constraint force does not oppose its
 * own violation (friction too large against the coupling). */
static int check_diag(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
    int nr = d->nrow;
    double wmax = 0.0;
    for (int i = 0; i < nr; i++) {
        double w = fabs(d->W[i + (size_t)i * nr]);
        if (w > wmax) wmax = w;
    }
    for (int i = 0; i < nr; i++) {
        double w = d->W[i + (size_t)i * nr];
        if (!(w > 1e-14 * wmax) || !(w > 0.0)) {
            char buf[256];
            double t = d->t0 + (double)d->step * d->h;
            return TVDS_ERROR(ctx, TVDS_ERR_SINGULAR,
                              "t = %.9g s, step %ld: %s: constraint operator W has a "
                              "non-positive diagonal %.6g (friction coefficient too large for "
                              "the geometry and mass coupling, or a DoF-less constraint)",
                              t, d->step, row_where(m, d, &d->row[i], buf, sizeof buf), w);
        }
    }
    return TVDS_OK;
}

/* Rank-deficient W (docs/theory.md, "Redundant constraints"): a redundant but consistent
 * set of rows (a bilateral relation that the stick rows already impose, say) has a singular W
 * and infinitely many multiplier sets giving the same constraint force. The minimum-norm one
 * comes from a complete orthogonal factorisation with column pivoting (dgelsy, preallocated
 * workspace): the rank is the number of diagonal entries of R above rcond times the largest,
 * rcond = 64 nr eps. The set is consistent when every row is satisfied to round-off:
 * |W lambda - rhs|_i <= 1e-8 (|rhs_i| + sum_j |W_ij lambda_j|) + 64 eps rhs_mag_i (rhs_mag:
 * the magnitude of the terms summed into rhs_i). Otherwise the rows contradict each other
 * (TVDS_ERR_SINGULAR). */
static int redundant_solve(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
    int nr = d->nrow;
    for (size_t k = 0; k < (size_t)nr * nr; k++)
        d->ls_W[k] = d->W[k];
    for (int i = 0; i < nr; i++) {
        d->lam[i] = d->row[i].rhs;
        d->jpvt[i] = 0;
    }
    lapack_int rank = 0;
    double rcond = 64.0 * nr * DBL_EPSILON;
    lapack_int info = LAPACKE_dgelsy_work(LAPACK_COL_MAJOR, nr, nr, 1, d->ls_W, nr, d->lam, nr,
                                          d->jpvt, rcond, &rank, d->ls_work, d->ls_lwork);
    double t = d->t0 + (double)d->step * d->h;
    if (info != 0)
        return TVDS_ERROR(ctx, TVDS_ERR_SOLVER,
                          "t = %.9g s, step %ld: rank-revealing solve of W failed (info %d)", t,
                          d->step, (int)info);
    int worst = -1;
    double worst_r = 0.0;
    for (int i = 0; i < nr; i++) {
        double res = -d->row[i].rhs, sc = fabs(d->row[i].rhs);
        for (int j = 0; j < nr; j++) {
            double w = d->W[i + (size_t)j * nr] * d->lam[j];
            res += w;
            sc += fabs(w);
        }
        double tol = 1e-8 * sc + 64.0 * DBL_EPSILON * d->row[i].rhs_mag;
        if (!(fabs(res) <= tol) && fabs(res) / (tol + 1e-300) > worst_r) {
            worst_r = fabs(res) / (tol + 1e-300);
            worst = i;
        }
    }
    if (worst >= 0) {
        char buf[256];
        return TVDS_ERROR(ctx, TVDS_ERR_SINGULAR,
                          "t = %.9g s, step %ld: constraint operator W (%d rows, rank %d) is "
                          "singular and the constraints are inconsistent (redundant rows that "
                          "contradict each other; worst at %s)",
                          t, d->step, nr, (int)rank,
                          row_where(m, d, &d->row[worst], buf, sizeof buf));
    }
    d->n_redundant++;
    return TVDS_OK;
}

/* Up to this many rows, or when W is banded (rows of contact points that share only their
 * neighbours' DoFs), W is factored in place by the unblocked partial-pivoting band LU below
 * (the algorithm of LAPACK's dgbtf2, on full column-major storage: the row interchanges keep
 * U within kl + ku above the diagonal; ipiv 1-based, L stored as eliminated, without the later
 * interchanges): for the 1-4 rows of a typical step the LAPACK call overhead exceeds the
 * arithmetic, and a band of m rows costs O(m kl (kl + ku)) instead of O(m^3). With
 * kl = ku = n - 1 it is the dense LU, with the same operations in the same order. */
#define SMALL_LU 8

static int band_lu(int n, int kl, int ku, double *A, int *ipiv)
{
    int info = 0, kv = kl + ku;
    for (int j = 0; j < n; j++) {
        int ie = j + kl < n - 1 ? j + kl : n - 1, ke = j + kv < n - 1 ? j + kv : n - 1;
        int p = j;
        double amax = fabs(A[j + (size_t)j * n]);
        for (int i = j + 1; i <= ie; i++)
            if (fabs(A[i + (size_t)j * n]) > amax) amax = fabs(A[i + (size_t)j * n]), p = i;
        ipiv[j] = p + 1;
        if (A[p + (size_t)j * n] == 0.0) {
            if (!info) info = j + 1;
            continue;
        }
        if (p != j)
            for (int k = j; k <= ke; k++) {
                double t = A[j + (size_t)k * n];
                A[j + (size_t)k * n] = A[p + (size_t)k * n];
                A[p + (size_t)k * n] = t;
            }
        double r = 1.0 / A[j + (size_t)j * n];
        for (int i = j + 1; i <= ie; i++)
            A[i + (size_t)j * n] *= r;
        for (int k = j + 1; k <= ke; k++) {
            double a = A[j + (size_t)k * n];
            if (a == 0.0) continue;
            for (int i = j + 1; i <= ie; i++)
                A[i + (size_t)k * n] -= A[i + (size_t)j * n] * a;
        }
    }
    return info;
}

static void band_lu_solve(int n, int kl, int ku, const double *A, const int *ipiv, double *b)
{
    for (int j = 0; j < n; j++) {
        int p = ipiv[j] - 1, ie = j + kl < n - 1 ? j + kl : n - 1;
        if (p != j) {
            double t = b[j];
            b[j] = b[p];
            b[p] = t;
        }
        for (int i = j + 1; i <= ie; i++)
            b[i] -= A[i + (size_t)j * n] * b[j];
    }
    for (int j = n - 1; j >= 0; j--) {
        b[j] /= A[j + (size_t)j * n];
        for (int i = j - kl - ku > 0 ? j - kl - ku : 0; i < j; i++)
            b[i] -= A[i + (size_t)j * n] * b[j];
    }
}

/* band_lu and band_lu_solve for n = 2, written out: the same operations in the same order
 * (the branches on the band, the pivot, the zero tests), without the loops' bookkeeping.
 * Returns band_lu's info. A one-row W (n = 1) is its own LU: lambda = rhs / W. */
static int lu2_factor(int kl, int ku, double *A, int *ipiv)
{
    int info = 0, kv = kl + ku;
    int p = kl >= 1 && fabs(A[1]) > fabs(A[0]) ? 1 : 0;
    ipiv[0] = p + 1;
    if (A[p] == 0.0) {
        info = 1;
    } else {
        if (p == 1) {
            double t = A[0];
            A[0] = A[1], A[1] = t;
            if (kv >= 1) t = A[2], A[2] = A[3], A[3] = t;
        }
        double r = 1.0 / A[0];
        if (kl >= 1) A[1] *= r;
        if (kv >= 1 && A[2] != 0.0 && kl >= 1) A[3] -= A[1] * A[2];
    }
    ipiv[1] = 2;
    if (A[3] == 0.0 && !info) info = 2;
    return info;
}

static void lu2_solve(int kl, int ku, const double *A, const int *ipiv, double *b)
{
    if (ipiv[0] == 2) {
        double t = b[0];
        b[0] = b[1], b[1] = t;
    }
    if (kl >= 1) b[1] -= A[1] * b[0];
    b[1] /= A[3];
    if (kl + ku >= 1) b[0] -= A[2] * b[1];
    b[0] /= A[0];
}

/* LU solve of W lambda = rhs: the band LU above when W is small or its band narrow (its cost
 * n kl (kl + ku) well below the n^3 / 3 of LAPACK's dense dgetrf), else dgetrf; one or two
 * rows (a contact point and a drive, the common step) written out (lu2_factor). */
static int lu_solve(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
    int nr = d->nrow, kl = d->W_kl, ku = d->W_ku;
    if (nr <= 2 && !d->check.reuse_off) {
        double *A = d->W_lu, *b = d->lam;
        if (!(d->W_same && d->W_lu_ok)) {
            /* The band copy of W (outside the band W_lu keeps what it had: never read). */
            int info;
            if (nr == 1) {
                A[0] = d->W[0];
                d->ipiv[0] = 1;
                info = A[0] == 0.0;
            } else {
                A[0] = d->W[0];
                if (kl >= 1) A[1] = d->W[1];
                if (kl + ku >= 1) A[2] = d->W[2];
                A[3] = d->W[3];
                info = lu2_factor(kl, ku, A, d->ipiv);
            }
            /* The pivots' scan of the general path (a NaN pivot is skipped, as there). */
            double umax = 0.0, umin = INFINITY;
            for (int i = 0; i < nr; i++) {
                double u = fabs(A[3 * i]);
                if (u > umax) umax = u;
                if (u < umin) umin = u;
            }
            if (info != 0 || !(umin > 1e-13 * umax)) {
                int rc = redundant_solve(m, d, ctx);
                if (rc) return rc;
                goto check;
            }
            d->W_lu_ok = 1;
        }
        for (int i = 0; i < nr; i++)
            b[i] = d->row[i].rhs;
        if (nr == 1)
            b[0] /= A[0];
        else
            lu2_solve(kl, ku, A, d->ipiv, b);
        goto check;
    }
    int band = nr <= SMALL_LU || 12 * (double)kl * (kl + ku) <= (double)nr * nr;
    if (d->W_same && d->W_lu_ok) {
        /* W and its LU are those of the last solve: the substitutions alone. */
        for (int i = 0; i < nr; i++)
            d->lam[i] = d->row[i].rhs;
        if (band)
            band_lu_solve(nr, kl, ku, d->W_lu, d->ipiv, d->lam);
        else
            LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', nr, 1, d->W_lu, nr, d->ipiv, d->lam, nr);
        goto check;
    }
    if (band) {
        /* The band with the room of U's fill; outside it W (and so W_lu) is zero. */
        for (int j = 0; j < nr; j++) {
            int i0 = j - kl - ku > 0 ? j - kl - ku : 0, i1 = j + kl < nr ? j + kl + 1 : nr;
            for (int i = i0; i < i1; i++)
                d->W_lu[i + (size_t)j * nr] = d->W[i + (size_t)j * nr];
        }
    } else {
        for (size_t k = 0; k < (size_t)nr * nr; k++)
            d->W_lu[k] = d->W[k];
    }
    for (int i = 0; i < nr; i++)
        d->lam[i] = d->row[i].rhs;
    lapack_int info = band ? band_lu(nr, kl, ku, d->W_lu, d->ipiv)
                           : LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, nr, nr, d->W_lu, nr, d->ipiv);
    double umax = 0.0;
    int imin = -1;
    double umin = INFINITY;
    for (int i = 0; i < nr; i++) {
        double u = fabs(d->W_lu[i + (size_t)i * nr]);
        if (u > umax) umax = u;
        if (u < umin) umin = u, imin = i;
    }
    if (info != 0 || !(umin > 1e-13 * umax)) {
        int rc = redundant_solve(m, d, ctx);
        if (rc) return rc;
    } else {
        if (band)
            band_lu_solve(nr, kl, ku, d->W_lu, d->ipiv, d->lam);
        else
            LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', nr, 1, d->W_lu, nr, d->ipiv, d->lam, nr);
        d->W_lu_ok = 1;
    }
    (void)imin;
check:
    for (int i = 0; i < nr; i++)
        if (!isfinite(d->lam[i])) {
            char buf[256];
            double t = d->t0 + (double)d->step * d->h;
            return TVDS_ERROR(ctx, TVDS_ERR_DIVERGED,
                              "t = %.9g s, step %ld: non-finite constraint force at %s", t, d->step,
                              row_where(m, d, &d->row[i], buf, sizeof buf));
        }
    return TVDS_OK;
}

/* du_c = -h^2 M^-1 B_E^T lambda at the candidate DoFs, evaluated lazily: the solve needs it at
 * the DoFs of a few contact points only, while the candidates span whole master surfaces.
 * cand_correction invalidates the cache (new multipliers); du_cand computes one entry. */
static void cand_correction(tvds_data *d)
{
    d->du_ver++;
}

/* du of pool entry pe's candidate from W's pairs (pe, b), which hold G(pe, b) for the entries b
 * of its bucket in the bucket's order: the sum of du_cand's bucket walk, term by term. */
static inline double pair_du(const tvds_data *d, int pe)
{
    const double h2 = d->h * d->h, *restrict lam = d->lam, *restrict be = d->p_be;
    const int *restrict prow = d->p_row, *restrict pb = d->wp_b + d->wp_first[pe];
    const double *restrict pg = d->wp_g + d->wp_first[pe];
    double u = 0.0;
    for (int p = 0; p < d->wp_len[pe]; p++) {
        int b = pb[p];
        double l = lam[prow[b]];
        if (l == 0.0) continue;
        u += -h2 * l * be[b] * pg[p];
    }
    return u;
}

static double du_cand(tvds_data *d, int sb, int a, int k, int key, int pe)
{
    if (d->du_cv[k] == d->du_ver) return d->du_c[k];
    const sim_sub *s = &d->sub[sb];
    double h2 = d->h * d->h, u = 0.0;
    if (pe >= 0 && d->wp_n >= 0 && !d->check.reuse_off) {
        u = pair_du(d, pe); /* pool entry pe has candidate k */
    } else if (d->w_points_last) {
        u = sim_wbuild_du(d, sb, a); /* 3D points' W: through B_E^T lambda merged */
    } else {
        /* Only the entries of a's bucket (those of build_W, same rows) act on it through G. */
        for (int b = d->comp_head[key]; b >= 0; b = d->p_next[b]) {
            double l = d->lam[d->p_row[b]];
            if (l == 0.0) continue;
            int cb = d->p_cand[b] - d->cand_base[sb];
            u += -h2 * l * d->p_be[b] * s->G[a + (size_t)cb * s->ncand];
        }
    }
    d->du_c[k] = u;
    d->du_cv[k] = d->du_ver;
    return u;
}

/* Relative displacement correction of a contact point along v. An entry whose bucket holds no
 * row entry is not moved by the multipliers (its du is 0: skipped). A point with rows finds
 * its entries in the pool: those of its normal row, in its order. */
static double cp_rel_corr(tvds_data *d, sim_cp *c, const double v[3])
{
    double r = 0.0;
    int pe0 = c->row_n >= 0 ? d->row[c->row_n].off : -1;
    if (pe0 >= 0 && d->wp_n >= 0 && !d->check.reuse_off && c->ntan == 1 && d->nrowpts == 1) {
        /* The only point with rows, one tangent: each du is read once per solve, so each
         * entry's du is summed straight from its pairs (du_cand's sum, term by term) without
         * the cache. With two tangents, or points whose entries share candidates (3D faces,
         * pads), the cache computes each du once for all the reads (the 3D beam-on-beam's
         * contact step was 22 % slower without it). */
        for (int e = 0; e < c->ne; e++)
            r += c->e_w[e] * v[c->e_dir[e]] * pair_du(d, pe0 + e);
        return r;
    }
    sim_cp_keys(d, c);
    for (int e = 0; e < c->ne; e++) {
        int sb = c->e_sub[e], k = c->e_cand[e];
        int key = d->check.rows_dense ? d->cand_base[sb] : c->e_comp[e];
        if (d->comp_head[key] < 0) continue;
        r += c->e_w[e] * v[c->e_dir[e]] *
             du_cand(d, sb, k - d->cand_base[sb], k, key, pe0 >= 0 ? pe0 + e : -1);
    }
    return r;
}

static void mu_of(const tvds_contact *C, int k, double *mus, double *muk)
{
    if (C->anisotropic) {
        *mus = *muk = C->mu_axis[k];
    } else {
        *mus = C->mu_s;
        *muk = C->mu_k;
    }
}

/* Forces on the slave from the final multipliers (published channels). */
static void cp_forces(const tvds_model *m, tvds_data *d)
{
    for (int i = 0; i < d->ncp; i++) {
        sim_cp *c = &d->cp[i];
        if (c->pen) continue;
        c->lam_n = 0.0;
        c->ft[0] = c->ft[1] = 0.0;
        if (c->row_n < 0) continue;
        c->lam_n = -d->lam[c->row_n];
        for (int k = 0; k < c->ntan; k++) {
            if (c->row_t[k] >= 0)
                c->ft[k] = -d->lam[c->row_t[k]];
            else
                c->ft[k] = -c->mu_t[k] * c->sdir[k] * c->lam_n;
        }
    }
    for (int b = 0; b < m->nbil; b++)
        d->lam_bil[b] = d->lam[b];
}

int sim_solve_direct(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
    int maxit = 10 + 4 * d->ncp, it, rc;
    /* Flags against cycling: a contact point may be switched to stick, or released, once,
     * while all changes of a pass are made together. When that leaves a released point inside
     * the master, the passes go on by Murty's least-index rule (one normal change per pass, the
     * violated point of least index: finite for the positive definite normal part), with the
     * release flags ignored (docs/theory.md, "Active set: the final set verified"). */
    int least = 0;
    for (int i = 0; i < d->ncp; i++)
        d->cp[i].tried_stick = d->cp[i].released = 0;
    for (it = 0;; it++) {
        sim_assemble(m, d);
        if (d->nrow == 0) break;
        if (!d->W_same) {
            sim_build_W(d);
            rc = check_diag(m, d, ctx);
            if (rc) return rc;
        }
        rc = lu_solve(m, d, ctx);
        if (rc) return rc;
        if (d->ncp == 0) break;
        cand_correction(d);
        int changed = 0, blocked = 0, flipped = 0;
        double lmax = 0.0;
        for (int r = 0; r < d->nrow; r++)
            if (fabs(d->lam[r]) > lmax) lmax = fabs(d->lam[r]);
        for (int i = 0; i < d->ncp; i++) {
            sim_cp *c = &d->cp[i];
            const tvds_contact *C = &m->contacts[c->contact];
            if (c->pen) continue;
            if (c->state == TVDS_OPEN) {
                /* Corrected gap of an open point: penetration brought by the others. */
                double g = c->gap_pred + cp_rel_corr(d, c, c->n);
                double lref = fabs(c->gap_pred) + 1e-300;
                if (g < -1e-9 * lref - 1e-15 && c->released && !least) blocked = 1;
                if (g < -1e-9 * lref - 1e-15 && least && flipped) changed = 1; /* next pass */
                if (g < -1e-9 * lref - 1e-15 && (!c->released || least) && !flipped) {
                    flipped = least;
                    /* Activated sliding in the direction of its predicted relative velocity
                     * (the next pass may make it stick). */
                    sim_cp_vkin(d, c);
                    double vm = 0.0;
                    for (int k = 0; k < c->ntan; k++)
                        vm += c->vkin[k] * c->vkin[k];
                    vm = sqrt(vm);
                    for (int k = 0; k < c->ntan; k++) {
                        double mus, muk;
                        mu_of(C, k, &mus, &muk);
                        c->tstick[k] = 0;
                        c->mu_t[k] = vm > 0.0 ? muk : 0.0;
                        c->sdir[k] = vm > 0.0 ? (C->anisotropic ? (c->vkin[k] > 0.0 ? 1.0 : -1.0)
                                                                : c->vkin[k] / vm)
                                              : 0.0;
                    }
                    c->state = TVDS_SLIP;
                    changed = 1;
                }
                continue;
            }
            double lamN = -d->lam[c->row_n];
            if (lamN < -1e-12 * lmax && least && flipped) {
                changed = 1; /* released at a later pass */
                continue;
            }
            if (lamN < -1e-12 * lmax) {
                /* Tensile: release. */
                flipped = least;
                c->state = TVDS_OPEN;
                c->tstick[0] = c->tstick[1] = 0;
                c->released = 1;
                changed = 1;
                continue;
            }
            if (lamN < 0.0) lamN = 0.0;
            /* Stuck axes: within the static cone? */
            double ft[2] = {0, 0}, ftm = 0.0;
            int nst = 0;
            for (int k = 0; k < c->ntan; k++)
                if (c->tstick[k]) {
                    ft[k] = -d->lam[c->row_t[k]];
                    ftm += ft[k] * ft[k];
                    nst++;
                }
            ftm = sqrt(ftm);
            if (nst > 0) {
                for (int k = 0; k < c->ntan; k++) {
                    if (!c->tstick[k]) continue;
                    double mus, muk;
                    mu_of(C, k, &mus, &muk);
                    double need = C->anisotropic ? fabs(ft[k]) : ftm;
                    if (need > mus * lamN * (1.0 + 1e-12)) {
                        /* Slides in the direction the stick force was holding (chi = sign
                         * of the tangential multiplier). */
                        if (C->anisotropic) {
                            c->tstick[k] = 0;
                            c->sdir[k] = ft[k] > 0.0 ? -1.0 : 1.0;
                            c->mu_t[k] = muk;
                        } else {
                            for (int q = 0; q < c->ntan; q++) {
                                c->tstick[q] = 0;
                                c->sdir[q] = -ft[q] / ftm;
                                mu_of(C, q, &mus, &muk);
                                c->mu_t[q] = muk;
                            }
                        }
                        c->tried_stick = 1;
                        changed = 1;
                        break;
                    }
                }
            }
            /* Slipping axes: does the corrected sliding velocity reverse within the step? */
            if (C->exact_stick && !c->tried_stick) {
                double vs = 0.0;
                for (int k = 0; k < c->ntan; k++) {
                    if (c->tstick[k] || c->mu_t[k] <= 0.0) continue;
                    double v = c->vkin[k] * d->h + cp_rel_corr(d, c, c->t[k]);
                    /* vkin holds the predicted (or prescribed) velocity; the correction is the
                     * constraint response. */
                    if (d->geometry == 0 && c->has_kin) continue;
                    if (C->anisotropic) {
                        if (v * c->sdir[k] < 0.0) {
                            c->tstick[k] = 1;
                            c->mu_t[k] = 0.0;
                            c->sdir[k] = 0.0;
                            c->tried_stick = 1;
                            changed = 1;
                        }
                    } else {
                        vs += v * c->sdir[k];
                    }
                }
                if (!C->anisotropic && vs < 0.0) {
                    for (int k = 0; k < c->ntan; k++) {
                        double mus, muk;
                        mu_of(C, k, &mus, &muk);
                        if (mus <= 0.0 && muk <= 0.0) continue;
                        c->tstick[k] = 1;
                        c->mu_t[k] = 0.0;
                        c->sdir[k] = 0.0;
                    }
                    c->tried_stick = 1;
                    changed = 1;
                }
            }
            int any = 0;
            for (int k = 0; k < c->ntan; k++)
                any |= c->tstick[k];
            c->state = any ? TVDS_STICK : TVDS_SLIP;
        }
        if (!changed && blocked) {
            /* A released point is inside the master: not a solution. */
            least = changed = 1;
            maxit = it + 10 + 4 * d->ncp;
            d->as_least++;
        }
        if (!changed) break;
        if (it >= maxit) {
            d->as_nonconv++;
            break;
        }
    }
    if (it > d->as_iter_max) d->as_iter_max = it;
    cp_forces(m, d);
    return TVDS_OK;
}

/* ---- FiLm: verification of the final set and the direct finish (docs/theory.md, "FiLm: the
 * final set verified") ----------------------------------------------------------------------- */

/* Round-off bound of row i's residual (a gap or a tangential displacement, [m]): the round-off
 * of its right-hand side, 64 eps rhs_mag, plus what film_tol leaves of the multipliers,
 * tol W_ii lmax. */
static double film_bound(const tvds_data *d, int i, double tol, double lmax)
{
    int nr = d->nrow;
    return 64.0 * DBL_EPSILON * d->row[i].rhs_mag + tol * d->W[i + (size_t)i * nr] * lmax;
}

static double film_res(const tvds_data *d, int i)
{
    int nr = d->nrow;
    double r = d->row[i].rhs;
    for (int j = 0; j < nr; j++)
        r -= d->W[i + (size_t)j * nr] * d->lam[j];
    return r;
}

/* The least-index row whose condition the multipliers violate, or -1: a normal row open
 * (lambda = 0) with its corrected gap below -bound or closed (lambda < 0) with |gap| > bound; a
 * stuck tangential row (its point's mu_t = 0 on that axis) that moves by more than the bound or
 * leaves the static cone; a bilateral or element row off by more than the bound. */
static int film_violated(const tvds_model *m, const tvds_data *d, double tol)
{
    int nr = d->nrow;
    double lmax = 0.0;
    for (int i = 0; i < nr; i++)
        lmax = fmax(lmax, fabs(d->lam[i]));
    for (int i = 0; i < nr; i++) {
        const sim_row *R = &d->row[i];
        double res = film_res(d, i), b = film_bound(d, i, tol, lmax);
        if (R->kind == 1) {
            if (d->lam[i] > 0.0 || (d->lam[i] == 0.0 ? res < -b : fabs(res) > b)) return i;
            continue;
        }
        if (R->kind != 2) {
            if (fabs(res) > b) return i;
            continue;
        }
        const sim_cp *c = &d->cp[R->cp];
        if (c->mu_t[R->k] > 0.0 || d->lam[c->row_n] == 0.0) continue; /* sliding, or open */
        if (fabs(res) > b) return i;
        double mus, muk;
        mu_of(&m->contacts[c->contact], R->k, &mus, &muk);
        double ft = fabs(d->lam[i]);
        if (!m->contacts[c->contact].anisotropic && c->ntan == 2 && c->row_t[1 - R->k] >= 0)
            ft = hypot(d->lam[i], d->lam[c->row_t[1 - R->k]]);
        if (ft > mus * -d->lam[c->row_n] * (1.0 + 1e-12)) return i;
    }
    return -1;
}

/* Direct finish of a FiLm step whose Gauss-Seidel result violates a condition: the set that
 * Gauss-Seidel identified (closed points: lambda_N < 0; stuck axes: mu_t = 0; sliding axes
 * with the direction e of their multiplier, lambda_t = -mu_k e lambda_N) is solved exactly by
 * LU, then corrected one row at a time, the violated row of least index first (an open row
 * that penetrates closes, a closed one that pulls opens, a stuck axis beyond the static cone
 * slides along its force): Murty's least-index rule, finite for the positive definite normal
 * part. Returns 0 when the final set satisfies every condition within its bound. */
static int film_finish(const tvds_model *m, tvds_data *d, double tol)
{
    int nr = d->nrow, maxpass = 4 * nr + 10;
    int *unk = d->jpvt, *piv = d->ipiv;
    double *x = d->ls_work, *cs = d->ls_work + nr, *A = d->ls_W;
    for (int pass = 0; pass < maxpass; pass++) {
        int bad = film_violated(m, d, tol);
        if (bad < 0) return 0;
        /* Flip the least-index violated row. */
        const sim_row *R = &d->row[bad];
        if (R->kind == 1) {
            if (d->lam[bad] == 0.0) {
                d->lam[bad] = -DBL_MIN; /* closes (the solve below sets it) */
            } else if (d->lam[bad] > 0.0) {
                d->lam[bad] = 0.0;
                const sim_cp *c = &d->cp[R->cp];
                for (int k = 0; k < c->ntan; k++)
                    if (c->row_t[k] >= 0) d->lam[c->row_t[k]] = 0.0;
            }
        } else if (R->kind == 2) {
            sim_cp *c = &d->cp[R->cp];
            double mus, muk;
            mu_of(&m->contacts[c->contact], R->k, &mus, &muk);
            double ft = fabs(d->lam[bad]);
            if (!m->contacts[c->contact].anisotropic && c->ntan == 2 && c->row_t[1 - R->k] >= 0)
                ft = hypot(d->lam[bad], d->lam[c->row_t[1 - R->k]]);
            if (ft > mus * -d->lam[c->row_n] * (1.0 + 1e-12)) {
                for (int k = 0; k < c->ntan; k++)
                    if (c->row_t[k] >= 0 && (m->contacts[c->contact].anisotropic ? k == R->k : 1))
                        c->mu_t[k] = muk > 0.0 ? muk : 1e-300;
            }
        }
        /* Unknowns: every row but open normal rows, their tangential rows and sliding axes. */
        int nu = 0;
        for (int i = 0; i < nr; i++) {
            const sim_row *Q = &d->row[i];
            unk[i] = -1;
            cs[i] = 0.0;
            if (Q->kind == 1 && d->lam[i] == 0.0) continue;
            if (Q->kind == 2) {
                sim_cp *c = &d->cp[Q->cp];
                if (d->lam[c->row_n] == 0.0) continue;
                if (c->mu_t[Q->k] > 0.0 && d->lam[i] == 0.0) c->mu_t[Q->k] = 0.0; /* no direction */
                if (c->mu_t[Q->k] > 0.0) {
                    double mus, muk, e;
                    mu_of(&m->contacts[c->contact], Q->k, &mus, &muk);
                    double lm = fabs(d->lam[i]);
                    if (!m->contacts[c->contact].anisotropic && c->ntan == 2 &&
                        c->row_t[1 - Q->k] >= 0)
                        lm = hypot(d->lam[i], d->lam[c->row_t[1 - Q->k]]);
                    e = lm > 0.0 ? d->lam[i] / lm : 0.0;
                    cs[i] = -muk * e; /* lambda_t = cs lambda_N */
                    continue;
                }
            }
            unk[i] = nu++;
        }
        for (int i = 0; i < nr; i++) {
            if (unk[i] < 0) continue;
            x[unk[i]] = d->row[i].rhs;
            for (int j = 0; j < nr; j++) {
                if (unk[j] < 0) continue;
                double a = d->W[i + (size_t)j * nr];
                if (d->row[j].kind == 1) {
                    const sim_cp *c = &d->cp[d->row[j].cp];
                    for (int k = 0; k < c->ntan; k++)
                        if (c->row_t[k] >= 0 && unk[c->row_t[k]] < 0)
                            a += cs[c->row_t[k]] * d->W[i + (size_t)c->row_t[k] * nr];
                }
                A[unk[i] + (size_t)unk[j] * nu] = a;
            }
        }
        if (nu > 0 && LAPACKE_dgesv(LAPACK_COL_MAJOR, nu, 1, A, nu, piv, x, nu) != 0) return -1;
        for (int i = 0; i < nr; i++)
            if (unk[i] >= 0) d->lam[i] = x[unk[i]];
        for (int i = 0; i < nr; i++) {
            const sim_row *Q = &d->row[i];
            if (Q->kind != 2 || unk[i] >= 0) continue;
            const sim_cp *c = &d->cp[Q->cp];
            d->lam[i] = d->lam[c->row_n] == 0.0 ? 0.0 : cs[i] * d->lam[c->row_n];
        }
        /* A closed row that pulls (lambda > 0) is opened by a later pass. */
    }
    return film_violated(m, d, tol) < 0 ? 0 : -1;
}

int sim_solve_film(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
    int it = 0, rc, restarts = 0;
again:
    sim_assemble(m, d);
    int nr = d->nrow;
    if (nr > 0) {
        if (!d->W_same) {
            sim_build_W(d);
            rc = check_diag(m, d, ctx);
            if (rc) return rc;
        }
        for (int i = 0; i < nr; i++)
            d->lam[i] = 0.0;
        int maxit = m->opt.film_maxit > 0 ? m->opt.film_maxit : 100;
        double tol = m->opt.film_tol > 0.0 ? m->opt.film_tol : 1e-10;
        int converged = 0;
        if (d->check.film_direct) maxit = 0, converged = 1; /* the finish alone (test hook) */
        for (it = 1; it <= maxit; it++) {
            double dmax = 0.0, lmax = 0.0;
            for (int i = 0; i < nr; i++) {
                const sim_row *R = &d->row[i];
                if (R->kind == 2) continue; /* tangential rows: with their normal row */
                double res = R->rhs;
                for (int j = 0; j < nr; j++)
                    res -= d->W[i + (size_t)j * nr] * d->lam[j];
                double ln = d->lam[i] + res / d->W[i + (size_t)i * nr];
                if (R->kind == 1 && ln > 0.0) ln = 0.0; /* no tension */
                double dl = fabs(ln - d->lam[i]);
                if (dl > dmax) dmax = dl;
                d->lam[i] = ln;
                if (fabs(ln) > lmax) lmax = fabs(ln);
                if (R->kind != 1) continue;
                /* Tangential rows of this contact point, then the friction cone. */
                sim_cp *c = &d->cp[R->cp];
                const tvds_contact *C = &m->contacts[c->contact];
                double FN = -ln, lt[2] = {0, 0}, old[2] = {0, 0}, ltm = 0.0;
                int has = 0;
                for (int k = 0; k < c->ntan; k++) {
                    int rt = c->row_t[k];
                    if (rt < 0) continue;
                    has = 1;
                    double rs = d->row[rt].rhs;
                    for (int j = 0; j < nr; j++)
                        rs -= d->W[rt + (size_t)j * nr] * d->lam[j];
                    old[k] = d->lam[rt];
                    lt[k] = old[k] + rs / d->W[rt + (size_t)rt * nr];
                    d->lam[rt] = lt[k];
                    ltm += lt[k] * lt[k];
                }
                if (!has) continue;
                ltm = sqrt(ltm);
                /* Hysteresis: a sticking point slips above mu_s F_N, a slipping one sticks
                 * again below mu_k F_N. */
                for (int k = 0; k < c->ntan; k++) {
                    int rt = c->row_t[k];
                    if (rt < 0) continue;
                    double mus, muk;
                    mu_of(C, k, &mus, &muk);
                    double need = C->anisotropic ? fabs(lt[k]) : ltm;
                    int slipping = c->mu_t[k] > 0.0;
                    double lim = (slipping ? muk : mus) * FN;
                    if (need > lim) {
                        lt[k] = need > 0.0 ? lt[k] * muk * FN / need : 0.0;
                        c->mu_t[k] = muk > 0.0 ? muk : 1e-300;
                    } else {
                        c->mu_t[k] = 0.0;
                    }
                    d->lam[rt] = lt[k];
                    double dt2 = fabs(lt[k] - old[k]);
                    if (dt2 > dmax) dmax = dt2;
                    if (fabs(lt[k]) > lmax) lmax = fabs(lt[k]);
                }
            }
            if (dmax <= tol * lmax || lmax == 0.0) {
                converged = 1;
                break;
            }
        }
        if (it > maxit) it = maxit;
        /* The final set verified from the residuals, not the increments: on a nearly singular
         * W (slave nodes on master edges and vertices) the increments of a slow Gauss-Seidel
         * fall below film_tol while rows still penetrate or pull. Such a step is finished by the
         * direct solve of its set (film_finish). A step that reached film_maxit stays counted
         * as non-converged: the iteration limit is the user's. */
        if (converged && film_violated(m, d, tol) >= 0) {
            d->film_finished++;
            converged = film_finish(m, d, tol) == 0;
        }
        /* A point predicted open has no row: its corrected gap is checked as the direct
         * solve checks it, and a point that the others push into the master enters the set
         * (stuck, as FiLm tries first); the step is solved again. */
        if (d->ncp > 0) {
            cand_correction(d);
            int added = 0;
            for (int i = 0; i < d->ncp; i++) {
                sim_cp *c = &d->cp[i];
                if (c->pen || c->row_n >= 0 || c->state != TVDS_OPEN) continue;
                double g = c->gap_pred + cp_rel_corr(d, c, c->n);
                if (!(g < -1e-9 * fabs(c->gap_pred) - 1e-15)) continue;
                const tvds_contact *C = &m->contacts[c->contact];
                int any = 0;
                for (int k = 0; k < c->ntan; k++) {
                    double mus, muk;
                    mu_of(C, k, &mus, &muk);
                    c->tstick[k] = mus > 0.0 || muk > 0.0;
                    c->mu_t[k] = c->sdir[k] = 0.0;
                    any |= c->tstick[k];
                }
                c->state = any ? TVDS_STICK : TVDS_SLIP;
                added = 1;
            }
            if (added && restarts++ < d->ncp) goto again;
            if (added) converged = 0;
        }
        /* An unconverged step gives multipliers that satisfy neither the constraints nor the
         * friction law to the tolerance asked for: never an answer that passes silently. */
        if (!converged) {
            d->film_nonconv++;
            if (m->opt.nonconverged_error)
                return TVDS_ERROR(ctx, TVDS_ERR_SOLVER,
                                  "t = %.9g s (step %ld): FiLm Gauss-Seidel did not reach "
                                  "film_tol = %g in film_maxit = %d iterations, or its "
                                  "result failed the residual check and the direct finish "
                                  "found no consistent set (raise [run] film_maxit, or set "
                                  "[run] nonconverged = warn to go on and count such steps)",
                                  d->t0 + (double)(d->step + 1) * d->h, d->step + 1, tol, maxit);
        }
        /* States from the converged multipliers. */
        for (int i = 0; i < d->ncp; i++) {
            sim_cp *c = &d->cp[i];
            if (c->row_n < 0 || c->pen) continue;
            if (d->lam[c->row_n] >= 0.0) {
                c->state = TVDS_OPEN;
                continue;
            }
            int slip = 0;
            for (int k = 0; k < c->ntan; k++)
                if (c->row_t[k] >= 0 && c->mu_t[k] > 0.0) {
                    slip = 1;
                    double l = d->lam[c->row_t[k]];
                    c->sdir[k] = l > 0.0 ? 1.0 : l < 0.0 ? -1.0 : 0.0;
                }
            c->state = slip ? TVDS_SLIP : TVDS_STICK;
        }
    }
    d->film_iter_sum += it;
    if (it > d->film_iter_max) d->film_iter_max = it;
    d->film_steps++;
    /* FiLm keeps B_E = B_C (tangential rows carry the sliding force): publish from rows. */
    for (int i = 0; i < d->ncp; i++) {
        sim_cp *c = &d->cp[i];
        if (c->pen) continue;
        c->lam_n = 0.0;
        c->ft[0] = c->ft[1] = 0.0;
        if (c->row_n < 0) continue;
        c->lam_n = -d->lam[c->row_n];
        if (c->lam_n < 0.0) c->lam_n = 0.0;
        for (int k = 0; k < c->ntan; k++)
            if (c->row_t[k] >= 0) c->ft[k] = -d->lam[c->row_t[k]];
    }
    for (int b = 0; b < m->nbil; b++)
        d->lam_bil[b] = d->lam[b];
    return TVDS_OK;
}
