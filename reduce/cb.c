/* cb.c — Craig–Bampton reduction: CHOLMOD constraint modes, ARPACK fixed-interface modes,
 * sparse-times-dense projection (docs/reduce.md). */
#include <arpack.h>
#include <cblas.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "tvds/tvds_reduce.h"
#include "core/hash_impl.h"
#include <lapacke.h>

#define RED_TWO_PI 6.283185307179586476925286766559
/* Smallest accepted (min/max diagonal of chol(K_ii))^2: 1e4 eps (docs/reduce.md). */
#define RED_RCOND_MIN 1e-12

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *dir_name(int dir)
{
    static const char *names[] = {"x", "y", "z", "rx", "ry", "rz"};
    return (dir >= 0 && dir < 6) ? names[dir] : "?";
}

tvds_reduce_opts tvds_reduce_opts_default(void)
{
    tvds_reduce_opts o;
    o.nmodes = 20;
    o.f_cut_hz = 0.0;
    o.tol = 1e-12;
    o.sigma = 0.0;
    o.m_name = NULL;
    o.k_name = NULL;
    o.stop = NULL;
    o.progress = NULL;
    o.progress_user = NULL;
    return o;
}

/* Progress and stop checks of one reduction. */
typedef struct red_watch {
    const tvds_reduce_opts *o;
    double t0;
    int stage;
    const char *name;
    long total;
} red_watch;

enum { RED_NSTAGES = 4 };

static void watch_report(red_watch *w, long done)
{
    if (!w || !w->o->progress) return;
    tvds_reduce_progress p = {w->name, w->stage, RED_NSTAGES, done, w->total, now_s() - w->t0};
    w->o->progress(w->o->progress_user, &p);
}

static void watch_stage(red_watch *w, int stage, const char *name, long total)
{
    if (!w) return;
    w->stage = stage;
    w->name = name;
    w->total = total;
    watch_report(w, 0);
}

/* TVDS_ERR_INTERRUPTED (recorded) when the stop flag is set, else TVDS_OK. */
static int watch_stop(const red_watch *w, tvds_ctx *ctx)
{
    if (!w || !w->o->stop || !*w->o->stop) return TVDS_OK;
    int sig = (int)*w->o->stop;
    return TVDS_ERROR(ctx, TVDS_ERR_INTERRUPTED, "reduce: interrupted in stage '%s' after %.1f s%s",
                      w->name ? w->name : "start", now_s() - w->t0,
                      sig == SIGTERM  ? " (SIGTERM)"
                      : sig == SIGHUP ? " (SIGHUP)"
                      : sig == SIGINT ? " (SIGINT)"
                                      : "");
}

/* Copy of A with both triangles stored (stype 0). */
static cholmod_sparse *full_storage(const cholmod_sparse *A, cholmod_common *cc)
{
    return cholmod_copy((cholmod_sparse *)A, 0, 1, cc);
}

/* Upper-triangular symmetric copy (stype +1) of the square submatrix A(idx, idx). */
static cholmod_sparse *sym_sub(cholmod_sparse *Afull, int *idx, int m, cholmod_common *cc)
{
    cholmod_sparse *S = cholmod_submatrix(Afull, idx, m, idx, m, 1, 1, cc);
    if (!S) return NULL;
    cholmod_sparse *U = cholmod_copy(S, 1, 1, cc);
    cholmod_free_sparse(&S, cc);
    return U;
}

/* LL' factorization of the symmetric A; *minor receives the failed column (or -1). */
static cholmod_factor *factor_ll(cholmod_sparse *A, long *minor, cholmod_common *cc)
{
    int save_ll = cc->final_ll;
    cc->final_ll = 1;
    *minor = -1;
    cholmod_factor *L = cholmod_analyze(A, cc);
    if (L) {
        int ok = cholmod_factorize(A, L, cc);
        if (!ok || cc->status == CHOLMOD_NOT_POSDEF || L->minor < L->n) {
            *minor = (L->minor < L->n) ? (long)L->minor : 0;
            if (L->Perm && *minor >= 0 && *minor < (long)L->n) *minor = ((int *)L->Perm)[*minor];
            cholmod_free_factor(&L, cc);
        }
    }
    cc->final_ll = save_ll;
    return L;
}

/* y = A x for a symmetric sparse A (n x n) and raw vectors. */
static int spmv(cholmod_sparse *A, const double *x, double *y, cholmod_common *cc)
{
    cholmod_dense X, Y;
    memset(&X, 0, sizeof X);
    X.nrow = X.d = A->nrow;
    X.ncol = 1;
    X.nzmax = A->nrow;
    X.x = (void *)x;
    X.xtype = CHOLMOD_REAL;
    X.dtype = CHOLMOD_DOUBLE;
    Y = X;
    Y.x = y;
    double one[2] = {1, 0}, zero[2] = {0, 0};
    return cholmod_sdmult(A, 0, one, zero, &X, &Y, cc);
}

/* y = L^-1 x with the factor of (K - sigma M). */
static int fsolve(cholmod_factor *L, const double *x, double *y, cholmod_common *cc)
{
    cholmod_dense B;
    memset(&B, 0, sizeof B);
    B.nrow = B.d = L->n;
    B.ncol = 1;
    B.nzmax = L->n;
    B.x = (void *)x;
    B.xtype = CHOLMOD_REAL;
    B.dtype = CHOLMOD_DOUBLE;
    cholmod_dense *X = cholmod_solve(CHOLMOD_A, L, &B, cc);
    if (!X) return 0;
    memcpy(y, X->x, L->n * sizeof(double));
    cholmod_free_dense(&X, cc);
    return 1;
}

/* ARPACK (mode 3, bmat G) on K x = lambda M x with L the factor of K - sigma M (n x n).
 * lambda (nev) ascending, phi n x nev M-normalised (may be NULL). */
static int arpack_lowest(cholmod_sparse *Msym, cholmod_factor *L, int n, int nev, double sigma,
                         double tol, double *lambda, double *phi, int *iters, int *nops,
                         red_watch *w, cholmod_common *cc, tvds_ctx *ctx)
{
    if (nev < 1 || nev >= n)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cannot compute %d eigenpairs of a %d-DoF problem (need nev < n)", nev,
                          n);
    int ncv = 2 * nev + 1;
    if (ncv < nev + 20) ncv = nev + 20;
    if (ncv > n) ncv = n;
    int lworkl = ncv * (ncv + 8);
    double *resid = tvds_malloc((size_t)n * sizeof(double));
    double *v = tvds_malloc((size_t)n * ncv * sizeof(double));
    double *workd = tvds_malloc((size_t)3 * n * sizeof(double));
    double *workl = tvds_malloc((size_t)lworkl * sizeof(double));
    double *d = tvds_malloc((size_t)nev * sizeof(double));
    double *z = tvds_malloc((size_t)n * nev * sizeof(double));
    double *tmp = tvds_malloc((size_t)n * sizeof(double));
    a_int *select = tvds_calloc((size_t)ncv, sizeof(a_int));
    int *order = tvds_malloc((size_t)nev * sizeof(int));
    int rc = TVDS_OK;
    if (!resid || !v || !workd || !workl || !d || !z || !tmp || !select || !order) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory in the eigensolver (n = %d)", n);
        goto done;
    }
    /* Deterministic start vector rich in every mode. */
    for (int i = 0; i < n; i++)
        resid[i] = 1.0 + 0.5 * sin(0.7 * (double)i + 0.3);
    a_int iparam[11] = {0}, ipntr[14] = {0};
    iparam[0] = 1;    /* exact shifts */
    iparam[2] = 3000; /* max Arnoldi iterations */
    iparam[6] = 3;    /* shift-invert */
    a_int ido = 0, info = 1, einfo = 0;
    int ops = 0, stopped = 0;
    double last = now_s();
    /* ARPACK keeps its reverse-communication state in Fortran SAVE variables: one run at a time
     * in the whole process, under the lock the CEA's Arnoldi runs take (src/analysis/cea_eig.c). */
#ifdef _OPENMP
#pragma omp critical(tvds_arpack)
#endif
    {
        for (;;) {
            if (w && w->o->stop && *w->o->stop) { /* ARPACK's state is reset by its next ido 0 */
                stopped = 1;
                break;
            }
            if (w && w->o->progress && now_s() - last > 0.25) {
                watch_report(w, ops);
                last = now_s();
            }
            dsaupd_c(&ido, "G", n, "LM", nev, tol, resid, ncv, v, n, iparam, ipntr, workd, workl,
                     lworkl, &info);
            if (ido == -1) {
                double *x = workd + ipntr[0] - 1, *y = workd + ipntr[1] - 1;
                if (!spmv(Msym, x, tmp, cc) || !fsolve(L, tmp, y, cc)) break;
                ops++;
            } else if (ido == 1) {
                double *bx = workd + ipntr[2] - 1, *y = workd + ipntr[1] - 1;
                if (!fsolve(L, bx, y, cc)) break;
                ops++;
            } else if (ido == 2) {
                double *x = workd + ipntr[0] - 1, *y = workd + ipntr[1] - 1;
                if (!spmv(Msym, x, y, cc)) break;
            } else {
                break;
            }
        }
        if (!(ido == -1 || ido == 1 || ido == 2) && info >= 0 && (int)iparam[4] >= nev) {
            if (iters) *iters = (int)iparam[2];
            dseupd_c(1, "A", select, d, z, n, sigma, "G", n, "LM", nev, tol, resid, ncv, v, n,
                     iparam, ipntr, workd, workl, lworkl, &einfo);
        }
    }
    if (stopped) {
        rc = watch_stop(w, ctx);
        goto done;
    }
    if (ido == -1 || ido == 1 || ido == 2) {
        rc = cc->status == CHOLMOD_OUT_OF_MEMORY
                 ? TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory inside the eigensolver")
                 : TVDS_ERROR(ctx, TVDS_ERR_SOLVER,
                              "CHOLMOD failed inside the eigensolver (status %d)", cc->status);
        goto done;
    }
    if (info < 0 || (int)iparam[4] < nev) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_SOLVER,
                        "ARPACK dsaupd: info %d, %d of %d eigenpairs converged", (int)info,
                        (int)iparam[4], nev);
        goto done;
    }
    if (nops) *nops = ops;
    if (einfo != 0) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_SOLVER, "ARPACK dseupd: info %d", (int)einfo);
        goto done;
    }
    for (int k = 0; k < nev; k++)
        order[k] = k;
    for (int a = 1; a < nev; a++) { /* insertion sort, ascending lambda */
        int t = order[a], b = a;
        while (b > 0 && d[order[b - 1]] > d[t]) {
            order[b] = order[b - 1];
            b--;
        }
        order[b] = t;
    }
    for (int k = 0; k < nev; k++) {
        lambda[k] = d[order[k]];
        if (!phi) continue;
        const double *zk = z + (size_t)order[k] * n;
        double *pk = phi + (size_t)k * n;
        if (!spmv(Msym, zk, tmp, cc)) {
            rc = TVDS_ERROR(ctx,
                            cc->status == CHOLMOD_OUT_OF_MEMORY ? TVDS_ERR_NOMEM : TVDS_ERR_SOLVER,
                            "CHOLMOD sdmult failed (status %d)", cc->status);
            goto done;
        }
        double m = 0;
        for (int i = 0; i < n; i++)
            m += zk[i] * tmp[i];
        if (!(m > 0.0)) {
            /* Only with a singular M (positive semidefinite): a Ritz vector of its null space,
             * the Krylov space having run into the massless directions. */
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                            "eigenvector %d of %d (lambda %.6g) has the mass z'Mz = %.3g <= 0: M "
                            "is singular (massless directions, e.g. the CalculiX mass of "
                            "C3D20R, C3D10 or C3D4 elements) and the eigensolver's vectors "
                            "are spurious (docs/formats.md)",
                            k + 1, nev, lambda[k], m);
            goto done;
        }
        double s = 1.0 / sqrt(m);
        /* Sign convention: largest-magnitude component positive (reproducible output). */
        int imax = 0;
        for (int i = 1; i < n; i++)
            if (fabs(zk[i]) > fabs(zk[imax])) imax = i;
        if (zk[imax] < 0) s = -s;
        for (int i = 0; i < n; i++)
            pk[i] = s * zk[i];
    }
done:
    tvds_free(resid);
    tvds_free(v);
    tvds_free(workd);
    tvds_free(workl);
    tvds_free(d);
    tvds_free(z);
    tvds_free(tmp);
    tvds_free(select);
    tvds_free(order);
    return rc;
}

/* Factor K - sigma M (both symmetric upper); fails with a message naming the DoF. */
static int factor_shifted(cholmod_sparse *Ks, cholmod_sparse *Ms, double sigma, cholmod_factor **L,
                          cholmod_common *cc, tvds_ctx *ctx)
{
    cholmod_sparse *A = Ks;
    if (sigma != 0.0) {
        double a1[2] = {1, 0}, a2[2] = {-sigma, 0};
        A = cholmod_add(Ks, Ms, a1, a2, 1, 1, cc);
        if (!A) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cannot form K - sigma M");
    }
    long minor;
    *L = factor_ll(A, &minor, cc);
    if (A != Ks) cholmod_free_sparse(&A, cc);
    if (!*L) {
        if (minor < 0)
            return TVDS_ERROR(
                ctx, cc->status == CHOLMOD_OUT_OF_MEMORY ? TVDS_ERR_NOMEM : TVDS_ERR_SOLVER,
                "CHOLMOD factorization failed (status %d)", cc->status);
        return TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                          "K - sigma M is not positive definite (breakdown at DoF %ld)", minor);
    }
    return TVDS_OK;
}

int tvds_eigs_lowest(const cholmod_sparse *M, const cholmod_sparse *K, int nev, double sigma,
                     double tol, double *freq_hz, double *phi, cholmod_common *cc, tvds_ctx *ctx)
{
    if (!M || !K || !freq_hz || M->nrow != M->ncol || K->nrow != M->nrow || K->ncol != M->ncol)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "eigs: M and K must be square and of one size");
    if (sigma > 0) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "eigs: shift sigma must be <= 0");
    int n = (int)M->nrow, rc;
    cholmod_sparse *Mf = full_storage(M, cc), *Kf = full_storage(K, cc);
    cholmod_sparse *Ms = Mf ? cholmod_copy(Mf, 1, 1, cc) : NULL;
    cholmod_sparse *Ks = Kf ? cholmod_copy(Kf, 1, 1, cc) : NULL;
    cholmod_factor *L = NULL;
    double *lambda = tvds_malloc((size_t)(nev > 0 ? nev : 1) * sizeof(double));
    if (!Ms || !Ks || !lambda) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "eigs: out of memory");
        goto done;
    }
    rc = factor_shifted(Ks, Ms, sigma, &L, cc, ctx);
    if (rc) goto done;
    rc = arpack_lowest(Ms, L, n, nev, sigma, tol > 0 ? tol : 1e-12, lambda, phi, NULL, NULL, NULL,
                       cc, ctx);
    if (rc) goto done;
    for (int k = 0; k < nev; k++)
        freq_hz[k] = sqrt(fabs(lambda[k])) / RED_TWO_PI;
done:
    cholmod_free_factor(&L, cc);
    cholmod_free_sparse(&Mf, cc);
    cholmod_free_sparse(&Kf, cc);
    cholmod_free_sparse(&Ms, cc);
    cholmod_free_sparse(&Ks, cc);
    tvds_free(lambda);
    return rc;
}

/* R = T' (A T), nr x nr, symmetrised; T is n x nr (ld n). The product by T' goes by blocks
 * of 64 columns, with a stop check and a progress report after each (w may be NULL); returns
 * 1, 0 on a CHOLMOD failure, -1 when stopped. */
static int project(cholmod_sparse *A, const double *T, int n, int nr, double *R, double *AT,
                   red_watch *w, cholmod_common *cc)
{
    cholmod_dense X, Y;
    memset(&X, 0, sizeof X);
    X.nrow = X.d = (size_t)n;
    X.ncol = (size_t)nr;
    X.nzmax = (size_t)n * nr;
    X.x = (void *)T;
    X.xtype = CHOLMOD_REAL;
    X.dtype = CHOLMOD_DOUBLE;
    Y = X;
    Y.x = AT;
    double one[2] = {1, 0}, zero[2] = {0, 0};
    if (!cholmod_sdmult(A, 0, one, zero, &X, &Y, cc)) return 0;
    for (int j0 = 0; j0 < nr; j0 += 64) {
        if (w && w->o->stop && *w->o->stop) return -1;
        int nc = nr - j0 < 64 ? nr - j0 : 64;
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, nr, nc, n, 1.0, T, n,
                    AT + (size_t)j0 * n, n, 0.0, R + (size_t)j0 * nr, nr);
        watch_report(w, j0 + nc);
    }
    for (int j = 0; j < nr; j++)
        for (int i = j + 1; i < nr; i++) {
            double s = 0.5 * (R[i + (size_t)j * nr] + R[j + (size_t)i * nr]);
            R[i + (size_t)j * nr] = s;
            R[j + (size_t)i * nr] = s;
        }
    return 1;
}

/* K_r = T'KT from the Craig-Bampton identities instead of a product of full height: with
 * K_ii Psi = -K_ib and K_ii Phi = M_ii Phi Lambda, Phi' M_ii Phi = I,
 *   K_r = [ K_bb + K_ib' Psi   0      ]
 *         [ 0                  Lambda ]
 * (the boundary block is the Schur complement of K_ii, the coupling vanishes). Cost
 * nnz(K_ib) nb instead of n (nb + nm)^2; Psi is read from T (rows iidx, columns 0..nb-1).
 * R is nr x nr, nr = nb + nm. */
static void reduced_stiffness(const cholmod_sparse *Kbb, const cholmod_sparse *Kib, const double *T,
                              int n, int nb, int nm, const int *iidx, const double *lambda,
                              double *R)
{
    int nr = nb + nm;
    memset(R, 0, (size_t)nr * nr * sizeof *R);
    const int *Bp = Kbb->p, *Bi = Kbb->i, *Ip = Kib->p, *Ii = Kib->i;
    const double *Bx = Kbb->x, *Ix = Kib->x;
    for (int c = 0; c < nb; c++)
        for (int p = Bp[c]; p < Bp[c + 1]; p++)
            R[Bi[p] + (size_t)c * nr] += Bx[p];
    for (int r = 0; r < nb; r++) /* row r of K_ib' Psi: column r of K_ib against Psi */
        for (int p = Ip[r]; p < Ip[r + 1]; p++) {
            const double v = Ix[p];
            const double *t = T + iidx[Ii[p]];
            for (int c = 0; c < nb; c++)
                R[r + (size_t)c * nr] += v * t[(size_t)c * n];
        }
    for (int j = 0; j < nb; j++)
        for (int i = j + 1; i < nb; i++) {
            double v = 0.5 * (R[i + (size_t)j * nr] + R[j + (size_t)i * nr]);
            R[i + (size_t)j * nr] = v;
            R[j + (size_t)i * nr] = v;
        }
    for (int k = 0; k < nm; k++)
        R[(size_t)(nb + k) * (nr + 1)] = lambda[k];
}

static void dof_text(const tvds_dof *dofs, int g, char *buf, size_t n)
{
    if (dofs)
        snprintf(buf, n, "DoF %d (node %ld %s)", g + 1, dofs[g].node, dir_name(dofs[g].dir));
    else
        snprintf(buf, n, "DoF %d", g + 1);
}

/* Diagonal entries of the upper-triangular symmetric A (stype +1, sorted columns). */
static double diag_upper(const cholmod_sparse *A, size_t j)
{
    const int *Ap = A->p, *Ai = A->i;
    const double *Ax = A->x;
    int p = Ap[j + 1] - 1;
    return (p >= Ap[j] && (size_t)Ai[p] == j) ? Ax[p] : 0.0;
}

/* A negative stiffness or a non-positive mass on the interior diagonal is a defect of the
 * input, not an unrestrained boundary: say so before factoring. */
static int check_interior_diagonal(const cholmod_sparse *Kii, const cholmod_sparse *Mii,
                                   const int *iidx, const tvds_dof *dofs, const char *kname,
                                   const char *mname, tvds_ctx *ctx)
{
    char la[96];
    for (size_t j = 0; j < Kii->ncol; j++) {
        double k = diag_upper(Kii, j), m = diag_upper(Mii, j);
        if (k < 0.0) {
            dof_text(dofs, iidx[j], la, sizeof la);
            return TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                              "reduce: %s: K is not positive semidefinite: negative diagonal "
                              "K(%d,%d) = %.17g at interior %s",
                              kname, iidx[j] + 1, iidx[j] + 1, k, la);
        }
        if (!(m > 0.0)) {
            dof_text(dofs, iidx[j], la, sizeof la);
            return TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                              "reduce: %s: M is not positive definite: diagonal M(%d,%d) = %.17g "
                              "at interior %s",
                              mname, iidx[j] + 1, iidx[j] + 1, m, la);
        }
    }
    return TVDS_OK;
}

/* LL' of K_ii broke down at full DoF dof. Tell a singular K_ii (zero-energy motion: the
 * boundary does not restrain the rigid-body modes) from an indefinite one (negative stiffness
 * in the input): K_ii + s M_ii with s = 1e-8 max K(i,i)/M(i,i) (a lower bound of 1e-8 of the
 * largest eigenvalue, the substructure test of docs/formats.md) is positive definite exactly
 * when every eigenvalue of (K_ii, M_ii) is above -s. */
static int explain_breakdown(cholmod_sparse *Kii, cholmod_sparse *Mii, int dof,
                             const tvds_dof *dofs, const char *kname, cholmod_common *cc,
                             tvds_ctx *ctx)
{
    double lam = 0.0;
    for (size_t j = 0; j < Kii->ncol; j++)
        lam = fmax(lam, diag_upper(Kii, j) / diag_upper(Mii, j));
    double s = 1e-8 * lam;
    double a1[2] = {1, 0}, a2[2] = {s, 0};
    cholmod_sparse *A = cholmod_add(Kii, Mii, a1, a2, 1, 1, cc);
    long minor = -1;
    cholmod_factor *L = A ? factor_ll(A, &minor, cc) : NULL;
    int singular = L != NULL;
    cholmod_free_factor(&L, cc);
    cholmod_free_sparse(&A, cc);
    if (!singular && minor < 0)
        return cc->status == CHOLMOD_OUT_OF_MEMORY
                   ? TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "reduce: CHOLMOD out of memory")
                   : TVDS_ERROR(ctx, TVDS_ERR_SOLVER, "reduce: CHOLMOD failure (status %d)",
                                cc->status);
    char la[96];
    dof_text(dofs, dof, la, sizeof la);
    if (singular)
        return TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                          "reduce: interior stiffness K_ii is singular (breakdown at %s): the "
                          "boundary DoFs do not restrain every rigid-body motion; retain more "
                          "DoFs (docs/reduce.md)",
                          la);
    return TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                      "reduce: %s: K is not positive semidefinite: K_ii + %.3g M_ii is not "
                      "positive definite either (breakdown at %s), so (K_ii, M_ii) has an "
                      "eigenvalue below -%.3g 1/s^2 (a negative stiffness in the input)",
                      kname, s, la, s);
}

/* The reduced mass T' M T is positive definite when M is (T has full column rank): a failed
 * dense Cholesky is a defect of the input M. */
static int check_reduced_mass(const tvds_substructure *s, const char *mname, tvds_ctx *ctx)
{
    int nr = s->n;
    double *A = tvds_malloc((size_t)nr * nr * sizeof *A);
    if (!A) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "reduce: out of memory");
    memcpy(A, s->M, (size_t)nr * nr * sizeof *A);
    lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'U', nr, A, nr);
    tvds_free(A);
    if (info == 0) return TVDS_OK;
    char la[96];
    int k = (int)info - 1;
    if (k < 0) return TVDS_ERROR(ctx, TVDS_ERR_SOLVER, "reduce: LAPACK dpotrf info %d", (int)info);
    if (s->dofs[k].kind == TVDS_DOF_MODAL)
        snprintf(la, sizeof la, "fixed-interface mode %ld", s->dofs[k].node);
    else
        snprintf(la, sizeof la, "boundary node %ld %s", s->dofs[k].node, dir_name(s->dofs[k].dir));
    return TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                      "reduce: %s: M is not positive definite: the reduced mass T'MT is not "
                      "(Cholesky breaks down at reduced DoF %d, %s)",
                      mname, k + 1, la);
}

/* The state of one Craig–Bampton reduction, shared by its stages. */
typedef struct cb_work {
    tvds_reduce_opts o;
    red_watch w;
    tvds_reduce_stats st;
    double t0;
    const char *kname, *mname;
    int n, nb, ni, nm, nr;
    int *pos;  /* -1 interior, else boundary slot */
    int *iidx; /* interior DoF -> full index */
    int *bidx;
    double *freq, *lambda, *phi, *T, *AT;
    cholmod_sparse *Mf, *Kf, *Kii, *Mii, *Kib, *Kbb;
    cholmod_factor *L, *Ls;
    tvds_substructure *s;
} cb_work;

static int cb_nomem(tvds_ctx *ctx)
{
    return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "reduce: out of memory");
}

static int cb_cholfail(cholmod_common *cc, tvds_ctx *ctx)
{
    if (cc->status == CHOLMOD_OUT_OF_MEMORY)
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "reduce: CHOLMOD out of memory");
    return TVDS_ERROR(ctx, TVDS_ERR_SOLVER, "reduce: CHOLMOD failure (status %d)", cc->status);
}

/* Boundary slots and interior DoF list; the recovery DoFs checked. */
static int cb_partition(cb_work *cb, const int *boundary, int nrec, const int *recover,
                        tvds_ctx *ctx)
{
    int rc = TVDS_OK;
    for (int i = 0; i < cb->n; i++)
        cb->pos[i] = -1;
    for (int j = 0; j < cb->nb; j++) {
        int b = boundary[j];
        if (b < 0 || b >= cb->n) {
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "reduce: boundary DoF index %d out of range [0, %d)", b, cb->n);
        }
        if (cb->pos[b] >= 0) {
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "reduce: boundary DoF %d listed twice", b);
        }
        cb->pos[b] = j;
        cb->bidx[j] = b;
    }
    for (int r = 0; r < nrec; r++)
        if (recover[r] < 0 || recover[r] >= cb->n) {
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "reduce: recovery DoF index %d out of range",
                              recover[r]);
        }
    for (int i = 0, k = 0; i < cb->n; i++)
        if (cb->pos[i] < 0) cb->iidx[k++] = i;
    return rc;
}

/* K_ii, M_ii, K_ib, K_bb from full-storage copies of M and K. */
static int cb_submatrices(cb_work *cb, const cholmod_sparse *M, const cholmod_sparse *K,
                          cholmod_common *cc, tvds_ctx *ctx)
{
    int rc = TVDS_OK;
    /* Submatrices. */
    cb->Mf = full_storage(M, cc);
    cb->Kf = full_storage(K, cc);
    if (!cb->Mf || !cb->Kf) return cb_cholfail(cc, ctx);
    cb->Kii = sym_sub(cb->Kf, cb->iidx, cb->ni, cc);
    cb->Mii = sym_sub(cb->Mf, cb->iidx, cb->ni, cc);
    cb->Kib = cholmod_submatrix(cb->Kf, cb->iidx, cb->ni, cb->bidx, cb->nb, 1, 1, cc);
    cb->Kbb = cholmod_submatrix(cb->Kf, cb->bidx, cb->nb, cb->bidx, cb->nb, 1, 1, cc);
    if (!cb->Kbb) return cb_cholfail(cc, ctx);
    if (!cb->Kii || !cb->Mii || !cb->Kib) return cb_cholfail(cc, ctx);
    cholmod_free_sparse(&cb->Mf, cc);
    cholmod_free_sparse(&cb->Kf, cc);
    return rc;
}

/* Factor K_ii (and K_ii - sigma M_ii for a shift). */
static int cb_factor(cb_work *cb, const tvds_dof *dofs, cholmod_common *cc, tvds_ctx *ctx)
{
    int rc = TVDS_OK;
    double t1;
    /* Factor K_ii: it must be positive definite (the boundary restrains rigid-body motion). */
    if ((rc = check_interior_diagonal(cb->Kii, cb->Mii, cb->iidx, dofs, cb->kname, cb->mname, ctx)))
        return rc;
    if ((rc = watch_stop(&cb->w, ctx))) return rc;
    watch_stage(&cb->w, 1, "factor", 1);
    {
        long minor;
        cb->L = factor_ll(cb->Kii, &minor, cc);
        if (!cb->L) {
            if (minor < 0) return cb_cholfail(cc, ctx);
            return explain_breakdown(cb->Kii, cb->Mii, cb->iidx[minor], dofs, cb->kname, cc, ctx);
        }
        cb->st.nnz_L = (long)(cb->L->is_super ? cb->L->xsize : cb->L->nzmax);
        cb->st.rcond_Kii = cholmod_rcond(cb->L, cc);
        /* A zero-energy motion may survive LL' with a pivot at round-off level instead of a
         * negative one: (min/max diagonal of L)^2 near eps is a singular K_ii. */
        if (cb->st.rcond_Kii < RED_RCOND_MIN) {
            return TVDS_ERROR(
                ctx, TVDS_ERR_NOT_POSDEF,
                "reduce: interior stiffness K_ii is numerically singular (rcond ~ %.2g):"
                " the boundary DoFs do not restrain every rigid-body motion; retain "
                "more DoFs (docs/reduce.md)",
                cb->st.rcond_Kii);
        }
    }
    if (cb->o.sigma != 0.0) {
        rc = factor_shifted(cb->Kii, cb->Mii, cb->o.sigma, &cb->Ls, cc, ctx);
        if (rc) return rc;
    }
    t1 = now_s();
    cb->st.t_factor = t1 - cb->t0;
    watch_report(&cb->w, 1);
    if ((rc = watch_stop(&cb->w, ctx))) return rc;
    watch_stage(&cb->w, 2, "modes", 0);
    return rc;
}

/* Fixed-interface modes: ARPACK, widened until the cut-off frequency is passed. */
static int cb_modes(cb_work *cb, cholmod_common *cc, tvds_ctx *ctx)
{
    int rc = TVDS_OK;
    /* Fixed-interface modes first (their number fixes the width of T). */
    {
        double tm = now_s();
        int nev = cb->o.nmodes > 0 ? cb->o.nmodes : 20;
        if (nev > cb->ni - 1) nev = cb->ni - 1;
        for (;;) {
            tvds_free(cb->lambda);
            tvds_free(cb->phi);
            cb->lambda = tvds_malloc((size_t)nev * sizeof(double));
            cb->phi = tvds_malloc((size_t)cb->ni * nev * sizeof(double));
            if (!cb->lambda || !cb->phi) {
                return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "reduce: out of memory for %d modes", nev);
            }
            rc = arpack_lowest(cb->Mii, cb->Ls ? cb->Ls : cb->L, cb->ni, nev, cb->o.sigma,
                               cb->o.tol, cb->lambda, cb->phi, &cb->st.arpack_iter,
                               &cb->st.arpack_nops, &cb->w, cc, ctx);
            if (rc) return rc;
            double fmax = sqrt(fabs(cb->lambda[nev - 1])) / RED_TWO_PI;
            if (cb->o.nmodes > 0 || fmax >= cb->o.f_cut_hz || nev >= cb->ni - 1) break;
            nev = 2 * nev < cb->ni - 1 ? 2 * nev : cb->ni - 1;
        }
        cb->nm = nev;
        if (cb->o.f_cut_hz > 0) {
            cb->nm = 0;
            while (cb->nm < nev && sqrt(fabs(cb->lambda[cb->nm])) / RED_TWO_PI < cb->o.f_cut_hz)
                cb->nm++;
        }
        cb->freq = tvds_malloc((size_t)(cb->nm > 0 ? cb->nm : 1) * sizeof(double));
        if (!cb->freq) {
            return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "reduce: out of memory");
        }
        for (int k = 0; k < cb->nm; k++)
            cb->freq[k] = sqrt(fabs(cb->lambda[k])) / RED_TWO_PI;
        cb->st.t_modes = now_s() - tm;
    }
    watch_report(&cb->w, cb->st.arpack_nops);
    if ((rc = watch_stop(&cb->w, ctx))) return rc;
    watch_stage(&cb->w, 3, "constraint modes", cb->nb);
    return rc;
}

/* Constraint modes and the transformation T. */
static int cb_constraint_modes(cb_work *cb, cholmod_common *cc, tvds_ctx *ctx)
{
    int rc = TVDS_OK;
    /* T = [[I, 0], [Psi, Phi]] in the full model's DoF order (n x nr dense). */
    cb->nr = cb->nb + cb->nm;
    cb->T = tvds_calloc((size_t)cb->n * cb->nr, sizeof(double));
    if (!cb->T) {
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "reduce: out of memory for T (%d x %d)", cb->n,
                          cb->nr);
    }
    {
        double ts = now_s();
        const int bs = 64; /* right-hand sides per CHOLMOD solve */
        cholmod_dense *B =
            cholmod_allocate_dense((size_t)cb->ni, (size_t)bs, (size_t)cb->ni, CHOLMOD_REAL, cc);
        if (!B) return cb_cholfail(cc, ctx);
        const int *Kp = cb->Kib->p, *Ki = cb->Kib->i;
        const double *Kx = cb->Kib->x;
        for (int j0 = 0; j0 < cb->nb && rc == TVDS_OK; j0 += bs) {
            if ((rc = watch_stop(&cb->w, ctx))) break;
            if (j0 > 0) watch_report(&cb->w, j0);
            int nc = cb->nb - j0 < bs ? cb->nb - j0 : bs;
            double *bx = B->x;
            B->ncol = (size_t)nc;
            memset(bx, 0, (size_t)cb->ni * nc * sizeof(double));
            for (int c = 0; c < nc; c++)
                for (int p = Kp[j0 + c]; p < Kp[j0 + c + 1]; p++)
                    bx[Ki[p] + (size_t)c * cb->ni] = Kx[p];
            cholmod_dense *X = cholmod_solve(CHOLMOD_A, cb->L, B, cc);
            if (!X) {
                rc = TVDS_ERROR(
                    ctx, cc->status == CHOLMOD_OUT_OF_MEMORY ? TVDS_ERR_NOMEM : TVDS_ERR_SOLVER,
                    "reduce: CHOLMOD solve failed (status %d)", cc->status);
                break;
            }
            const double *xx = X->x;
            for (int c = 0; c < nc; c++) {
                double *tc = cb->T + (size_t)(j0 + c) * cb->n;
                tc[cb->bidx[j0 + c]] = 1.0;
                for (int r = 0; r < cb->ni; r++)
                    tc[cb->iidx[r]] = -xx[r + (size_t)c * cb->ni];
            }
            cholmod_free_dense(&X, cc);
        }
        B->ncol = (size_t)bs;
        cholmod_free_dense(&B, cc);
        if (rc) return rc;
        for (int k = 0; k < cb->nm; k++) {
            double *tc = cb->T + (size_t)(cb->nb + k) * cb->n;
            const double *pk = cb->phi + (size_t)k * cb->ni;
            for (int r = 0; r < cb->ni; r++)
                tc[cb->iidx[r]] = pk[r];
        }
        cb->st.t_static = now_s() - ts;
    }
    watch_report(&cb->w, cb->nb);
    tvds_free(cb->phi);
    cb->phi = NULL;
    cholmod_free_factor(&cb->L, cc);
    cholmod_free_factor(&cb->Ls, cc);
    cholmod_free_sparse(&cb->Kii, cc);
    cholmod_free_sparse(&cb->Mii, cc);
    return rc;
}

/* The output substructure: reduced K and M. */
static int cb_project(cb_work *cb, const cholmod_sparse *M, cholmod_common *cc, tvds_ctx *ctx)
{
    int rc = TVDS_OK;
    cb->s = tvds_calloc(1, sizeof *cb->s);
    if (!cb->s) return cb_nomem(ctx);
    cb->s->n = cb->nr;
    cb->s->name = tvds_strdup("craig-bampton");
    cb->s->M = tvds_malloc((size_t)cb->nr * cb->nr * sizeof(double));
    cb->s->K = tvds_malloc((size_t)cb->nr * cb->nr * sizeof(double));
    cb->s->dofs = tvds_calloc((size_t)cb->nr, sizeof(tvds_dof));
    cb->AT = tvds_malloc((size_t)cb->n * cb->nr * sizeof(double));
    if (!cb->s->name || !cb->s->M || !cb->s->K || !cb->s->dofs || !cb->AT) return cb_nomem(ctx);
    if ((rc = watch_stop(&cb->w, ctx))) return rc;
    watch_stage(&cb->w, 4, "projection", cb->nr);
    {
        double tp = now_s();
        reduced_stiffness(cb->Kbb, cb->Kib, cb->T, cb->n, cb->nb, cb->nm, cb->iidx, cb->lambda,
                          cb->s->K);
        int pr = project((cholmod_sparse *)M, cb->T, cb->n, cb->nr, cb->s->M, cb->AT, &cb->w, cc);
        if (pr < 0) return watch_stop(&cb->w, ctx);
        if (!pr) return cb_cholfail(cc, ctx);
        cb->st.t_project = now_s() - tp;
    }
    tvds_free(cb->AT);
    cb->AT = NULL;
    return rc;
}

/* DoFs of the reduced model: the boundary ones, then the modal ones. */
static void cb_reduced_dofs(cb_work *cb, const tvds_dof *dofs)
{
    for (int j = 0; j < cb->nb; j++) {
        tvds_dof *dd = &cb->s->dofs[j];
        if (dofs) {
            *dd = dofs[cb->bidx[j]];
            dd->kind = TVDS_DOF_PHYSICAL;
            dd->freq_hz = 0;
        } else {
            dd->kind = TVDS_DOF_PHYSICAL;
            dd->node = cb->bidx[j] + 1;
            dd->dir = TVDS_DIR_X;
        }
    }
    for (int k = 0; k < cb->nm; k++) {
        tvds_dof *dd = &cb->s->dofs[cb->nb + k];
        dd->kind = TVDS_DOF_MODAL;
        dd->node = k + 1;
        dd->dir = TVDS_DIR_NONE;
        dd->freq_hz = cb->freq[k];
    }
}

/* Node sets whose nodes all have a boundary DoF. */
static int cb_sets(cb_work *cb, int nsets, const tvds_nodeset *sets, tvds_ctx *ctx)
{
    int rc = TVDS_OK;
    if (nsets > 0 && sets) {
        cb->s->sets = tvds_calloc((size_t)nsets, sizeof(tvds_nodeset));
        if (!cb->s->sets) return cb_nomem(ctx);
        tvds_lmap bnodes; /* nodes with a boundary DoF */
        if (tvds_lmap_init(&bnodes, (size_t)cb->nb) != TVDS_OK) return cb_nomem(ctx);
        for (int j = 0; j < cb->nb; j++)
            if (tvds_lmap_put(&bnodes, cb->s->dofs[j].node, j, NULL) != TVDS_OK) {
                tvds_lmap_free(&bnodes);
                return cb_nomem(ctx);
            }
        for (int q = 0; q < nsets; q++) {
            int all = 1;
            for (int a = 0; a < sets[q].n && all; a++)
                all = tvds_lmap_get(&bnodes, sets[q].nodes[a]) >= 0;
            if (!all || sets[q].n < 1) continue;
            tvds_nodeset *ns = &cb->s->sets[cb->s->nsets];
            ns->name = tvds_strdup(sets[q].name);
            ns->nodes = tvds_malloc((size_t)sets[q].n * sizeof(long));
            cb->s->nsets++;
            if (!ns->name || !ns->nodes) {
                tvds_lmap_free(&bnodes);
                return cb_nomem(ctx);
            }
            ns->n = sets[q].n;
            memcpy(ns->nodes, sets[q].nodes, (size_t)ns->n * sizeof(long));
        }
        tvds_lmap_free(&bnodes);
    }
    return rc;
}

/* Recovery rows: the rows of T of the recovery DoFs. */
static int cb_recovery(cb_work *cb, const tvds_dof *dofs, int nrec, const int *recover,
                       tvds_ctx *ctx)
{
    int rc = TVDS_OK;
    if (nrec > 0) {
        cb->s->rec = tvds_calloc((size_t)nrec, sizeof(tvds_recovery));
        if (!cb->s->rec) return cb_nomem(ctx);
        for (int r = 0; r < nrec; r++) {
            tvds_recovery *rr = &cb->s->rec[r];
            cb->s->nrec++;
            int g = recover[r];
            char name[64];
            long node = dofs ? dofs[g].node : g + 1;
            int dir = dofs ? dofs[g].dir : TVDS_DIR_X;
            snprintf(name, sizeof name, "node%ld.%s", node, dir_name(dir));
            rr->name = tvds_strdup(name);
            rr->node = node;
            rr->dir = dir;
            if (dofs) memcpy(rr->xyz, dofs[g].xyz, sizeof rr->xyz);
            rr->row = tvds_malloc((size_t)cb->nr * sizeof(double));
            if (!rr->name || !rr->row) return cb_nomem(ctx);
            for (int c = 0; c < cb->nr; c++)
                rr->row[c] = cb->T[g + (size_t)c * cb->n];
        }
    }
    return rc;
}

int tvds_reduce_cb(const cholmod_sparse *M, const cholmod_sparse *K, const tvds_dof *dofs, int nb,
                   const int *boundary, int nrec, const int *recover, int nsets,
                   const tvds_nodeset *sets, const tvds_reduce_opts *opt, tvds_substructure **out,
                   tvds_reduce_stats *stats, cholmod_common *cc, tvds_ctx *ctx)
{
    cb_work work, *cb = &work;
    memset(cb, 0, sizeof *cb);
    cb->t0 = now_s();
    cb->o = opt ? *opt : tvds_reduce_opts_default();
    cb->w = (red_watch){&cb->o, cb->t0, 0, NULL, 0};
    const tvds_reduce_opts o = cb->o;
    if (out) *out = NULL;
    if (!M || !K || !out || (nb > 0 && !boundary) || (nrec > 0 && !recover) || nb < 0 || nrec < 0)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "reduce: missing argument");
    if (M->nrow != M->ncol || K->nrow != K->ncol || M->nrow != K->nrow)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "reduce: M (%zu x %zu) and K (%zu x %zu) must be square and of one size",
                          M->nrow, M->ncol, K->nrow, K->ncol);
    if (M->xtype != CHOLMOD_REAL || K->xtype != CHOLMOD_REAL)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "reduce: M and K must be real");
    if (o.sigma > 0)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "reduce: shift sigma = %g must be <= 0", o.sigma);
    if (o.nmodes < 0 || (o.nmodes == 0 && !(o.f_cut_hz > 0)))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "reduce: give a number of modes > 0 or a cut-off frequency");
    int n = (int)M->nrow;
    if (nb < 1 || nb >= n)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "reduce: %d boundary DoFs for a %d-DoF model (need 1 <= nb < n)", nb, n);
    /* ARPACK computes at most n_i - 1 of the n_i fixed-interface modes. */
    if (o.nmodes > n - nb - 1)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "reduce: %d fixed-interface modes asked for, but the interior has %d "
                          "DoFs, so at most %d can be computed; ask for fewer modes or retain "
                          "fewer DoFs",
                          o.nmodes, n - nb, n - nb - 1 > 0 ? n - nb - 1 : 0);
    cb->kname = o.k_name ? o.k_name : "K";
    cb->mname = o.m_name ? o.m_name : "M";
    cb->n = n;
    cb->nb = nb;
    cb->ni = n - nb;
    cb->pos = tvds_malloc((size_t)n * sizeof(int));
    cb->iidx = tvds_malloc((size_t)cb->ni * sizeof(int));
    cb->bidx = tvds_malloc((size_t)nb * sizeof(int));
    int rc = !cb->pos || !cb->iidx || !cb->bidx ? cb_nomem(ctx) : TVDS_OK;
    if (!rc) rc = cb_partition(cb, boundary, nrec, recover, ctx);
    if (!rc) rc = cb_submatrices(cb, M, K, cc, ctx);
    if (!rc) rc = cb_factor(cb, dofs, cc, ctx);
    if (!rc) rc = cb_modes(cb, cc, ctx);
    if (!rc) rc = cb_constraint_modes(cb, cc, ctx);
    if (!rc) rc = cb_project(cb, M, cc, ctx);
    if (!rc) cb_reduced_dofs(cb, dofs);
    if (!rc) rc = cb_sets(cb, nsets, sets, ctx);
    if (!rc) rc = cb_recovery(cb, dofs, nrec, recover, ctx);
    if (!rc) {
        cb->st.f_max_hz = cb->nm > 0 ? cb->freq[cb->nm - 1] : 0;
        rc = check_reduced_mass(cb->s, cb->mname, ctx);
    }
    if (rc == TVDS_OK) {
        *out = cb->s;
        cb->s = NULL;
    }
    tvds_substructure_free(&cb->s);
    cholmod_free_factor(&cb->L, cc);
    cholmod_free_factor(&cb->Ls, cc);
    cholmod_free_sparse(&cb->Mf, cc);
    cholmod_free_sparse(&cb->Kf, cc);
    cholmod_free_sparse(&cb->Kii, cc);
    cholmod_free_sparse(&cb->Mii, cc);
    cholmod_free_sparse(&cb->Kib, cc);
    cholmod_free_sparse(&cb->Kbb, cc);
    tvds_free(cb->pos);
    tvds_free(cb->iidx);
    tvds_free(cb->bidx);
    tvds_free(cb->freq);
    tvds_free(cb->lambda);
    tvds_free(cb->phi);
    tvds_free(cb->T);
    tvds_free(cb->AT);
    tvds_reduce_stats st = cb->st;
    st.n = n;
    st.nb = nb;
    st.ni = cb->ni;
    st.nm = cb->nm;
    st.nnz_K = (long)cholmod_nnz((cholmod_sparse *)K, cc);
    st.t_total = now_s() - cb->t0;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0) st.peak_rss_kb = ru.ru_maxrss;
    if (stats) *stats = st;
    return rc;
}
