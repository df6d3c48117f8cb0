/* sim_subs.c — engine set-up of each substructure: the eigenbasis (modal path), M^-1
 * (physical path) or diag M and K in compressed rows (lumped path), the gravity and base
 * forces, and the stable step of central differences (tvds_stable_dt). */
#include <lapacke.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "engine/sim_impl.h"

static int sub_damping(const tvds_model *m, int i)
{
    return m->damping ? m->damping[i].kind : TVDS_DAMP_NONE;
}

/* Largest damping ratio of the top mode over the Rayleigh schedule (0 for none). */
static double rayleigh_xi_max(const tvds_damping *dp, double w)
{
    if (!dp || dp->kind != TVDS_DAMP_RAYLEIGH || w <= 0.0) return 0.0;
    double x1 = dp->alpha / (2.0 * w) + 0.5 * dp->beta * w;
    double x0 =
        (dp->t_hold > 0.0 || dp->t_ramp > 0.0) ? dp->alpha0 / (2.0 * w) + 0.5 * dp->beta0 * w : x1;
    return x1 > x0 ? x1 : x0;
}

/* Generalized eigenvalues of (K, M) of substructure s (values only). w2 has n entries. */
static int sub_eigvals(const tvds_substructure *s, double *w2, double *A, double *B,
                       const char *what, tvds_ctx *ctx)
{
    int n = s->n;
    /* A diagonal entry of M that is not a positive normal number makes M singular in double
     * precision: name it (1-based, as in the file) rather than let the eigensolver fail. */
    for (int i = 0; i < n; i++) {
        double mii = s->M[i + (size_t)i * n];
        if (!(mii > 0.0))
            return TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                              "substructure '%s': M(%d,%d) = %g: the mass matrix is not positive "
                              "definite",
                              s->name ? s->name : "?", i + 1, i + 1, mii);
        if (mii < DBL_MIN)
            return TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                              "substructure '%s': M(%d,%d) = %g is subnormal (below %g): the "
                              "mass matrix is singular in double precision",
                              s->name ? s->name : "?", i + 1, i + 1, mii, DBL_MIN);
    }
    memcpy(A, s->K, (size_t)n * n * sizeof(double));
    memcpy(B, s->M, (size_t)n * n * sizeof(double));
    lapack_int info = LAPACKE_dsygvd(LAPACK_COL_MAJOR, 1, *what, 'U', n, A, n, B, n, w2);
    if (info > n)
        return TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                          "substructure '%s': mass matrix is not positive definite",
                          s->name ? s->name : "?");
    if (info != 0)
        return TVDS_ERROR(ctx, TVDS_ERR_SOLVER,
                          "substructure '%s': eigensolver dsygvd failed (info %d)",
                          s->name ? s->name : "?", (int)info);
    double wmax = 0.0;
    for (int i = 0; i < n; i++)
        if (fabs(w2[i]) > wmax) wmax = fabs(w2[i]);
    for (int i = 0; i < n; i++) {
        if (w2[i] < 0.0) {
            if (w2[i] < -1e-9 * wmax && w2[i] < -1e-12)
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                  "substructure '%s': stiffness matrix is indefinite "
                                  "(eigenvalue %g)",
                                  s->name ? s->name : "?", w2[i]);
            w2[i] = 0.0; /* rigid-body mode within round-off */
        }
    }
    return TVDS_OK;
}

/* Relative frequency error allowed at f_band by dt = auto under exact modal propagation. */
#define EXACT_PHASE_TOL 1e-3

/* Stable step of one substructure given its largest omega^2 and damping. */
static double sub_stable_dt(const tvds_model *m, int i, double w2max, const double *Phi_top,
                            double *xi_out)
{
    *xi_out = 0.0;
    if (w2max <= 0.0) return INFINITY;
    double w = sqrt(w2max), xi = 0.0;
    int kind = sub_damping(m, i);
    if (kind == TVDS_DAMP_RAYLEIGH) xi = rayleigh_xi_max(&m->damping[i], w);
    if (kind == TVDS_DAMP_MATRIX && Phi_top && m->subs[i]->C) {
        /* xi of the top mode: phi^T C phi / (2 w) with phi mass-normalised. */
        const tvds_substructure *s = m->subs[i];
        int n = s->n;
        double a = 0.0;
        for (int c = 0; c < n; c++)
            for (int r = 0; r < n; r++)
                a += Phi_top[r] * s->C[r + (size_t)c * n] * Phi_top[c];
        xi = a / (2.0 * w);
        if (xi < 0.0) xi = 0.0;
    }
    /* Backward-difference damping: stable for (w h)^2 + 4 xi (w h) < 4 (docs/theory.md):
     * w h = 2 (sqrt(1 + xi^2) - xi) = 2 / (sqrt(1 + xi^2) + xi), the second form without the
     * cancellation and, through hypot, without the overflow of xi^2 (xi = 5e297 gave inf - inf
     * and an "unbounded" step). */
    *xi_out = xi;
    return (2.0 / w) / (hypot(1.0, xi) + xi);
}

int sim_check_model(const tvds_model *m, tvds_ctx *ctx)
{
    if (!m || m->nsub < 1 || !m->subs)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "model has no substructure");
    for (int i = 0; i < m->nsub; i++) {
        const tvds_substructure *s = m->subs[i];
        if (!s || s->n < 1 || !s->M || !s->K || !s->dofs)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "substructure %d is empty or incomplete", i);
        if (sub_damping(m, i) == TVDS_DAMP_MATRIX && !s->C)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "substructure '%s': matrix damping requested but no C matrix",
                              s->name ? s->name : "?");
    }
    return TVDS_OK;
}

/* Exact modal propagation with dt = auto: *best becomes min(*best, the step of the band of
 * interest, docs/theory.md 10b): coupled modes at f_band keep a relative frequency error
 * (w h)^2 / 24 <= EXACT_PHASE_TOL. */
int sim_band_dt(const tvds_model *m, double *best, tvds_ctx *ctx)
{
    if (m->opt.integrator != TVDS_INTEGRATOR_EXACT || !m->opt.dt_auto) return TVDS_OK;
    if (!(m->opt.f_band > 0.0))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "integrator = exact with dt = auto needs [run] f_band (the top of the "
                          "band of interest, Hz)");
    double hb = sqrt(24.0 * EXACT_PHASE_TOL) / (6.283185307179586 * m->opt.f_band);
    if (hb < *best) *best = hb;
    return TVDS_OK;
}

int tvds_stable_dt(const tvds_model *m, double *dt_crit, tvds_ctx *ctx)
{
    int rc = sim_check_model(m, ctx);
    if (rc) return rc;
    double best = INFINITY;
    int exact = m->opt.integrator == TVDS_INTEGRATOR_EXACT;
    for (int i = 0; i < m->nsub && !rc; i++) {
        const tvds_substructure *s = m->subs[i];
        int n = s->n;
        double *A = tvds_malloc((size_t)n * n * sizeof(double));
        double *B = tvds_malloc((size_t)n * n * sizeof(double));
        double *w2 = tvds_malloc((size_t)n * sizeof(double));
        if (!A || !B || !w2) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory (stable step)");
        } else {
            int vec = sub_damping(m, i) == TVDS_DAMP_MATRIX;
            rc = sub_eigvals(s, w2, A, B, vec ? "V" : "N", ctx);
            /* Exact modal propagation is stable at any step for the modal substructures; the
             * dense path keeps the limit of central differences. */
            if (!rc && !(exact && m->opt.modal && !vec)) {
                double xi;
                double dti =
                    sub_stable_dt(m, i, w2[n - 1], vec ? A + (size_t)(n - 1) * n : NULL, &xi);
                /* A damping ratio beyond a million on the top mode is no physical damping: it
                 * only shrinks the step towards zero. Say so instead of running for ever. */
                if (xi > 1e6)
                    rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                    "substructure '%s': its damping gives the highest mode "
                                    "(%.6g Hz) a damping ratio of %.3g, which limits the stable "
                                    "step of central differences to %.3g s: check the damping "
                                    "(Rayleigh alpha, beta or C.mtx)",
                                    s->name ? s->name : "?", sqrt(w2[n - 1]) / (8.0 * atan(1.0)),
                                    xi, dti);
                if (dti < best) best = dti;
            }
        }
        tvds_free(A);
        tvds_free(B);
        tvds_free(w2);
    }
    if (rc) return rc;
    rc = sim_band_dt(m, &best, ctx);
    if (rc) return rc;
    *dt_crit = best;
    return TVDS_OK;
}

/* Substructures smaller than this stay on the modal path under run.path = auto: below it the
 * eigenbasis costs as little per step as the sparse passes. */
#define SIM_LUMPED_MIN_N 16

/* Does substructure i step on the lumped physical path (docs/theory.md 9c)? run.path = auto,
 * central differences, damping none or Rayleigh, M diagonal and K with at most n^2/4
 * nonzeros (then the O(nnz) passes cost less than the modal path's O(n) per contact DoF). */
static int sub_lumped(const tvds_model *m, int i)
{
    const tvds_substructure *S = m->subs[i];
    int n = S->n;
    if (m->opt.modal != TVDS_PATH_AUTO || m->opt.integrator != TVDS_INTEGRATOR_CENTRAL ||
        sub_damping(m, i) == TVDS_DAMP_MATRIX || n < SIM_LUMPED_MIN_N)
        return 0;
    size_t nnz = 0;
    for (int c = 0; c < n; c++)
        for (int r = 0; r < n; r++) {
            if (r != c && S->M[r + (size_t)c * n] != 0.0) return 0;
            if (S->K[r + (size_t)c * n] != 0.0) nnz++;
        }
    return nnz <= (size_t)n * n / 4;
}

const char *tvds_substructure_path(const tvds_model *m, int i)
{
    if (!m || i < 0 || i >= m->nsub) return NULL;
    if (sub_lumped(m, i)) return "lumped";
    return m->opt.modal && sub_damping(m, i) != TVDS_DAMP_MATRIX ? "modal" : "physical";
}

/* The lumped path's arrays of substructure i: diag M, its inverse, K in compressed rows. */
static int sub_lumped_setup(const tvds_substructure *S, sim_sub *s)
{
    int n = S->n;
    size_t nnz = 0;
    for (size_t k = 0; k < (size_t)n * n; k++)
        nnz += S->K[k] != 0.0;
    s->mdiag = tvds_malloc((size_t)n * sizeof *s->mdiag);
    s->minv = tvds_malloc((size_t)n * sizeof *s->minv);
    s->kp = tvds_malloc((size_t)(n + 1) * sizeof *s->kp);
    s->ki = tvds_malloc((nnz > 0 ? nnz : 1) * sizeof *s->ki);
    s->kv = tvds_malloc((nnz > 0 ? nnz : 1) * sizeof *s->kv);
    if (!s->mdiag || !s->minv || !s->kp || !s->ki || !s->kv) return TVDS_ERR_NOMEM;
    int q = 0;
    for (int r = 0; r < n; r++) {
        s->mdiag[r] = S->M[r + (size_t)r * n];
        s->minv[r] = 1.0 / s->mdiag[r];
        s->kp[r] = q;
        for (int c = 0; c < n; c++) {
            double v = S->K[r + (size_t)c * n];
            if (v == 0.0) continue;
            s->ki[q] = c;
            s->kv[q++] = v;
        }
    }
    s->kp[n] = q;
    s->kx_ver = -1;
    /* Diagonal storage when K has few distinct diagonals (padding at most nnz): a chain, a
     * structured mesh numbered along its rows. */
    int *seen = tvds_calloc((size_t)(2 * n - 1), sizeof *seen), nd = 0;
    if (!seen) return TVDS_ERR_NOMEM;
    for (int r = 0; r < n; r++)
        for (int k = s->kp[r]; k < s->kp[r + 1]; k++)
            if (!seen[s->ki[k] - r + n - 1]++) nd++;
    if (nd > 0 && (size_t)nd * n <= 2 * nnz) {
        s->dgoff = tvds_malloc((size_t)nd * sizeof *s->dgoff);
        s->dgv = tvds_calloc((size_t)nd * n, sizeof *s->dgv);
        if (!s->dgoff || !s->dgv) {
            tvds_free(seen);
            return TVDS_ERR_NOMEM;
        }
        /* The main diagonal first (it initialises the products, sim_lumped_kx), then the
         * others in increasing offset. */
        int nk = 0, has_main = seen[n - 1] != 0;
        if (has_main) s->dgoff[nk++] = 0;
        for (int o = 0; o < 2 * n - 1; o++) {
            if (has_main && o == n - 1)
                seen[o] = 0;
            else if (seen[o])
                seen[o] = nk, s->dgoff[nk++] = o - (n - 1);
            else
                seen[o] = -1;
        }
        for (int r = 0; r < n; r++)
            for (int k = s->kp[r]; k < s->kp[r + 1]; k++)
                s->dgv[(size_t)seen[s->ki[k] - r + n - 1] * n + r] = s->kv[k];
        s->ndg = nd;
    }
    tvds_free(seen);
    return TVDS_OK;
}

/* Eigenbasis (modal) or M^-1 (physical) of substructure i. */
int sim_sub_setup(const tvds_model *m, int i, sim_sub *s, tvds_ctx *ctx)
{
    const tvds_substructure *S = m->subs[i];
    int n = S->n, rc = TVDS_OK;
    double *A = tvds_malloc((size_t)n * n * sizeof(double));
    double *B = tvds_malloc((size_t)n * n * sizeof(double));
    if (!A || !B) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory (substructure set-up)");
        goto done;
    }
    s->damp_kind = sub_damping(m, i);
    s->lumped = sub_lumped(m, i);
    s->modal = m->opt.modal && s->damp_kind != TVDS_DAMP_MATRIX && !s->lumped;
    rc = sub_eigvals(S, s->w2, A, B, "V", ctx);
    if (rc) goto done;
    s->w2max = s->w2[n - 1];
    /* The stable step from the same eigensolution (tvds_stable_dt would solve again), with
     * its check of the damping (as tvds_stable_dt). */
    double xi;
    s->dt_cd = sub_stable_dt(
        m, i, s->w2max, s->damp_kind == TVDS_DAMP_MATRIX ? A + (size_t)(n - 1) * n : NULL, &xi);
    if (xi > 1e6 && !(m->opt.integrator == TVDS_INTEGRATOR_EXACT && s->modal)) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                        "substructure '%s': its damping gives the highest mode (%.6g Hz) a "
                        "damping ratio of %.3g, which limits the stable step of central "
                        "differences to %.3g s: check the damping (Rayleigh alpha, beta or C.mtx)",
                        S->name ? S->name : "?", sqrt(s->w2max) / (8.0 * atan(1.0)), xi, s->dt_cd);
        goto done;
    }
    if (s->lumped) {
        /* Y = M^-1 = diag(1 / m_jj), exactly the factors the steps use. */
        if ((rc = sub_lumped_setup(S, s))) {
            rc = TVDS_ERROR(ctx, rc, "out of memory (substructure set-up)");
            goto done;
        }
        memset(s->Y, 0, (size_t)n * n * sizeof(double));
        for (int j = 0; j < n; j++)
            s->Y[j + (size_t)j * n] = s->minv[j];
    } else if (s->modal) {
        /* A holds Phi (columns, Phi^T M Phi = I); Y(:,j) = Phi(j,:)^T. */
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                s->Y[k + (size_t)j * n] = A[j + (size_t)k * n];
    } else {
        memcpy(B, S->M, (size_t)n * n * sizeof(double));
        lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'U', n, B, n);
        if (info == 0) info = LAPACKE_dpotri(LAPACK_COL_MAJOR, 'U', n, B, n);
        if (info != 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                            "substructure '%s': mass matrix is not positive definite",
                            S->name ? S->name : "?");
            goto done;
        }
        for (int c = 0; c < n; c++)
            for (int r = 0; r <= c; r++) {
                double v = B[r + (size_t)c * n];
                s->Y[r + (size_t)c * n] = v;
                s->Y[c + (size_t)r * n] = v;
            }
    }
    /* Gravity and base-acceleration forces: M r with r the rigid-body field of a direction
     * (1 on physical translational DoFs of that direction, 0 on modal DoFs). */
    for (int k = 0; k < n; k++)
        s->tmp[k] = 0.0;
    double *fg = A, *fb = B; /* physical forces, reuse scratch */
    for (int r = 0; r < n; r++)
        fg[r] = fb[r] = 0.0;
    for (int c = 0; c < n; c++) {
        const tvds_dof *dc = &S->dofs[c];
        if (dc->kind != TVDS_DOF_PHYSICAL || dc->dir < 0 || dc->dir > 2) continue;
        double rg = m->gravity[dc->dir];
        double rb = m->has_base_acc ? m->base_dir[dc->dir] : 0.0;
        for (int r = 0; r < n; r++) {
            double Mrc = S->M[r + (size_t)c * n];
            fg[r] += Mrc * rg;
            fb[r] -= Mrc * rb;
        }
    }
    for (int k = 0; k < n; k++) {
        if (s->modal) {
            double ag = 0.0, ab = 0.0;
            for (int r = 0; r < n; r++) {
                ag += s->Y[k + (size_t)r * n] * fg[r];
                ab += s->Y[k + (size_t)r * n] * fb[r];
            }
            s->fgrav[k] = ag;
            s->fbase[k] = ab;
        } else {
            s->fgrav[k] = fg[k];
            s->fbase[k] = fb[k];
        }
    }
    s->fext_kind = 0;
    for (int k = 0; k < n; k++)
        if (s->fgrav[k] != 0.0 || s->fbase[k] != 0.0) s->fext_kind = 2;
    for (int l = 0; l < m->nload && s->fext_kind == 0; l++)
        if (m->loads[l].sub == i) s->fext_kind = 1;
    /* The one load of a modal substructure on a valid DoF is added in the predictor's pass. */
    s->load1 = -1;
    for (int l = 0, nl = 0; l < m->nload; l++)
        if (m->loads[l].sub == i && ++nl)
            s->load1 = nl == 1 && s->modal && m->loads[l].dof >= 0 && m->loads[l].dof < n ? l : -1;
done:
    tvds_free(A);
    tvds_free(B);
    return rc;
}
