/* cea_eig.c — eigensolvers of the CEA's projected quadratic problem: dense LAPACK or
 * shift-invert Arnoldi with ARPACK (docs/cea.md, "Eigenvalues"). */
#include "analysis/cea_eig.h"

#include <arpack.h>
#include <cblas.h>
#include <complex.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "tvds/tvds_cea.h"

/* The ARPACK path guarantees that no eigenvalue with a frequency up to the highest kept one,
 * w_top, is missed when its real part is within RE_COVER w_top of zero (damping ratios up to
 * 0.24, growth rates up to 0.25 w_top): a band far wider than the real parts of the lightly
 * damped branches a squeal study follows. */
#define RE_COVER 0.25
/* The complex shift lies this fraction of its frequency left of the imaginary axis (docs/cea.md,
 * "Complex shift"). */
#define SHIFT_OFF 1e-3

void cea_eig_work_free(cea_eig_work *w)
{
    if (!w) return;
    if (w->small) cea_eig_work_free(w->small);
    void *ptrs[] = {w->RW,     w->RT,     w->rtau,   w->Mk,     w->Kk,      w->Ck,   w->small,
                    w->A,      w->B,      w->VR,     w->ar,     w->ai,      w->beta, w->ipiv,
                    w->V,      w->resid,  w->workd,  w->workl,  w->workev,  w->dr,   w->di,
                    w->select, w->lpiv,   w->t,      w->order,  w->yr,      w->yi,   w->zlu,
                    w->zV,     w->zresid, w->zworkd, w->zworkl, w->zworkev, w->zd,   w->zt,
                    w->rwork,  w->xr,     w->yr2};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
        tvds_free(ptrs[i]);
    memset(w, 0, sizeof *w);
}

int cea_eig_work_alloc(cea_eig_work *w, int nmax, int ncand, int arpack)
{
    memset(w, 0, sizeof *w);
    if (nmax < 1) nmax = 1;
    if (ncand < 1) ncand = 1;
    w->nmax = nmax;
    w->ncand = ncand;
    w->arpack = arpack;
    size_t n2 = 2 * (size_t)nmax;
    int nord = (int)n2;
    if (arpack) {
        /* nev grows from 2 ncand + 8 (each oscillating pair is two Ritz values) by doubling, to
         * at most 8 ncand + 32; ncv = 2 nev + 1 as ARPACK recommends for nonsymmetric problems. */
        int nev_max = 8 * ncand + 32;
        if (nev_max > (int)n2 - 3) nev_max = (int)n2 - 3;
        if (nev_max < 1) nev_max = 1;
        int ncv_max = 2 * nev_max + 1;
        if (ncv_max > (int)n2) ncv_max = (int)n2;
        w->nev_max = nev_max;
        w->ncv_max = ncv_max;
        size_t ncv = (size_t)ncv_max;
        w->V = tvds_malloc(n2 * ncv * sizeof(double));
        w->resid = tvds_malloc(n2 * sizeof(double));
        w->workd = tvds_malloc(3 * n2 * sizeof(double));
        w->workl = tvds_malloc((3 * ncv * ncv + 6 * ncv) * sizeof(double));
        w->workev = tvds_malloc(3 * ncv * sizeof(double));
        w->dr = tvds_malloc((ncv + 1) * sizeof(double));
        w->di = tvds_malloc((ncv + 1) * sizeof(double));
        w->select = tvds_calloc(ncv, sizeof(a_int));
        w->lpiv = tvds_malloc((size_t)nmax * sizeof(int));
        w->t = tvds_malloc((size_t)nmax * sizeof(double));
        if (ncv_max + 1 > nord) nord = ncv_max + 1;
        size_t kk = 2 * (size_t)ncand;
        w->RW = tvds_malloc((size_t)nmax * kk * sizeof(double));
        w->RT = tvds_malloc((size_t)nmax * kk * sizeof(double));
        w->rtau = tvds_malloc(kk * sizeof(double));
        w->Mk = tvds_malloc(kk * kk * sizeof(double));
        w->Kk = tvds_malloc(kk * kk * sizeof(double));
        w->Ck = tvds_malloc(kk * kk * sizeof(double));
        w->small = tvds_calloc(1, sizeof *w->small);
        if (!w->V || !w->resid || !w->workd || !w->workl || !w->workev || !w->dr || !w->di ||
            !w->select || !w->lpiv || !w->t || !w->RW || !w->RT || !w->rtau || !w->Mk || !w->Kk ||
            !w->Ck || !w->small)
            goto nomem;
        if (cea_eig_work_alloc(w->small, (int)kk, (int)kk, 0)) goto nomem;
        if (arpack == 2) {
            size_t nz = sizeof(double _Complex);
            w->zlu = tvds_malloc((size_t)nmax * (size_t)nmax * nz);
            w->zV = tvds_malloc(n2 * ncv * nz);
            w->zresid = tvds_malloc(n2 * nz);
            w->zworkd = tvds_malloc(3 * n2 * nz);
            w->zworkl = tvds_malloc((3 * ncv * ncv + 5 * ncv) * nz);
            w->zworkev = tvds_malloc(2 * ncv * nz);
            w->zd = tvds_malloc((ncv + 1) * nz);
            w->zt = tvds_malloc((size_t)nmax * nz);
            w->rwork = tvds_malloc(ncv * sizeof(double));
            w->xr = tvds_malloc(2 * (size_t)nmax * sizeof(double));
            w->yr2 = tvds_malloc(2 * (size_t)nmax * sizeof(double));
            if (!w->zlu || !w->zV || !w->zresid || !w->zworkd || !w->zworkl || !w->zworkev ||
                !w->zd || !w->zt || !w->rwork || !w->xr || !w->yr2)
                goto nomem;
        }
    } else {
        w->A = tvds_malloc(n2 * n2 * sizeof(double));
        w->B = tvds_malloc(n2 * n2 * sizeof(double));
        w->VR = tvds_malloc(n2 * n2 * sizeof(double));
        w->ar = tvds_malloc(n2 * sizeof(double));
        w->ai = tvds_malloc(n2 * sizeof(double));
        w->beta = tvds_malloc(n2 * sizeof(double));
        w->ipiv = tvds_malloc(n2 * sizeof(int));
        if (!w->A || !w->B || !w->VR || !w->ar || !w->ai || !w->beta || !w->ipiv) goto nomem;
    }
    w->order = tvds_malloc((size_t)nord * sizeof(int));
    w->yr = tvds_malloc((size_t)nmax * sizeof(double));
    w->yi = tvds_malloc((size_t)nmax * sizeof(double));
    if (!w->order || !w->yr || !w->yi) goto nomem;
    return TVDS_OK;
nomem:
    cea_eig_work_free(w);
    return TVDS_ERR_NOMEM;
}

/* Backward error of the eigenpair (s, q) of the quadratic problem:
 * |(s^2 M + s C + K) q| / ((|s|^2 |M|_F + |s| |C|_F + |K|_F) |q|); round-off level (1e-15)
 * for an accurate pair. */
static double backward_error(cea_eig_work *w, const cea_eig_problem *pb, double sr, double si,
                             const double *qr, const double *qi, double fk, double fm, double fc)
{
    int n = pb->n;
    double s2r = sr * sr - si * si, s2i = 2 * sr * si;
    double *yr = w->yr, *yi = w->yi;
    for (int r = 0; r < n; r++)
        yr[r] = yi[r] = 0.0;
    for (int c = 0; c < n; c++) {
        /* column c of s^2 M + s C + K, times q_c */
        double ar, ai, qcr = qr[c], qci = qi[c];
        const double *mc = pb->M + (size_t)c * n, *cc = pb->C + (size_t)c * n,
                     *kc = pb->K + (size_t)c * n;
        for (int r = 0; r < n; r++) {
            ar = s2r * mc[r] + sr * cc[r] + kc[r];
            ai = s2i * mc[r] + si * cc[r];
            yr[r] += ar * qcr - ai * qci;
            yi[r] += ar * qci + ai * qcr;
        }
    }
    double ny = 0.0, nq = 0.0;
    for (int r = 0; r < n; r++) {
        ny += yr[r] * yr[r] + yi[r] * yi[r];
        nq += qr[r] * qr[r] + qi[r] * qi[r];
    }
    double a2 = sr * sr + si * si;
    double den = (a2 * fm + sqrt(a2) * fc + fk) * sqrt(nq);
    return den > 0 ? sqrt(ny) / den : 0.0;
}

/* Sort idx[0..nc) by frequency im[]; equal frequencies (a coalesced flutter pair) by decreasing
 * real part, so that the order does not depend on round-off. Insertion sort: few hundred. */
static void sort_by_frequency(int *idx, int nc, const double *re, const double *im)
{
    for (int a = 1; a < nc; a++) {
        int key = idx[a];
        double ki = im[key], kr = re[key];
        int b = a - 1;
        while (b >= 0) {
            int o = idx[b];
            double oi = im[o], orr = re[o];
            double tol = 1e-9 * (fabs(oi) + fabs(ki));
            if (!(oi > ki + tol || (fabs(oi - ki) <= tol && orr < kr))) break;
            idx[b + 1] = idx[b];
            b--;
        }
        idx[b + 1] = key;
    }
}

/* Frequency scale w0 = sqrt(|K|_1 / |M|_1) of the state x = [q; s q / w0]. */
static double freq_scale(const cea_eig_problem *pb)
{
    int n = pb->n;
    double nk = LAPACKE_dlange(LAPACK_COL_MAJOR, '1', n, n, pb->K, n);
    double nm = LAPACKE_dlange(LAPACK_COL_MAJOR, '1', n, n, pb->M, n);
    return nk > 0 && nm > 0 ? sqrt(nk / nm) : 1.0;
}

/* ---- Dense: all 2n eigenvalues (LAPACK dgeev on the standard form, or dggev) ------------- */

static int eig_dense(cea_eig_work *w, const cea_eig_problem *pb, int *nc_out, int *info_out)
{
    int nr = pb->n, n2 = 2 * nr, standard = 0, info = 0;
    /* State space x = [q; q' / w0]: A x = s B x, A = [[0, w0 I], [-K / w0, -C]],
     * B = [[I, 0], [0, M]]. The frequency scale w0 = sqrt(|K|_1 / |M|_1) balances the blocks
     * (w0 = 1 is the textbook form; its blocks differ by |K| / |M| ~ w^2, which costs digits). */
    double w0 = freq_scale(pb);
    if (pb->solver != TVDS_CEA_QZ) {
        /* Standard form A' = [[0, w0 I], [-M^-1 K / w0, -M^-1 C]] when M is well
         * conditioned. */
        memcpy(w->B, pb->M, (size_t)nr * nr * sizeof(double));
        double anorm = LAPACKE_dlange(LAPACK_COL_MAJOR, '1', nr, nr, w->B, nr), rcond = 0.0;
        int inf2 = LAPACKE_dgetrf(LAPACK_COL_MAJOR, nr, nr, w->B, nr, w->ipiv);
        if (inf2 == 0) inf2 = LAPACKE_dgecon(LAPACK_COL_MAJOR, '1', nr, w->B, nr, anorm, &rcond);
        if (inf2 == 0 && rcond > 1e-12) {
            standard = 1;
            /* RHS [K C] (nr x 2nr) into the lower half of A, then solve. */
            double *R = w->VR; /* scratch nr x 2nr */
            memcpy(R, pb->K, (size_t)nr * nr * sizeof(double));
            memcpy(R + (size_t)nr * nr, pb->C, (size_t)nr * nr * sizeof(double));
            LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', nr, n2, w->B, nr, w->ipiv, R, nr);
            memset(w->A, 0, (size_t)n2 * n2 * sizeof(double));
            for (int i = 0; i < nr; i++)
                w->A[(size_t)(nr + i) * n2 + i] = w0;
            for (int c = 0; c < n2; c++)
                for (int i = 0; i < nr; i++)
                    w->A[(size_t)c * n2 + nr + i] = -R[(size_t)c * nr + i] / (c < nr ? w0 : 1.0);
        } else if (pb->solver == TVDS_CEA_STANDARD) {
            *info_out = -1;
            return TVDS_ERR_SINGULAR;
        }
    }
    double dummy[1];
    if (standard) {
        info = LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', 'V', n2, w->A, n2, w->ar, w->ai, dummy, 1,
                             w->VR, n2);
        for (int i = 0; i < n2; i++)
            w->beta[i] = 1.0;
    } else {
        memset(w->A, 0, (size_t)n2 * n2 * sizeof(double));
        memset(w->B, 0, (size_t)n2 * n2 * sizeof(double));
        for (int i = 0; i < nr; i++) {
            w->A[(size_t)(nr + i) * n2 + i] = w0;
            w->B[(size_t)i * n2 + i] = 1.0;
        }
        for (int c = 0; c < nr; c++)
            for (int i = 0; i < nr; i++) {
                w->A[(size_t)c * n2 + nr + i] = -pb->K[(size_t)c * nr + i] / w0;
                w->A[(size_t)(nr + c) * n2 + nr + i] = -pb->C[(size_t)c * nr + i];
                w->B[(size_t)(nr + c) * n2 + nr + i] = pb->M[(size_t)c * nr + i];
            }
        /* ldvl >= 1 even without left vectors (LAPACKE checks it). */
        info = LAPACKE_dggev(LAPACK_COL_MAJOR, 'N', 'V', n2, w->A, n2, w->B, n2, w->ar, w->ai,
                             w->beta, dummy, 1, w->VR, n2);
    }
    if (info != 0) {
        *info_out = info;
        return TVDS_ERR_SOLVER;
    }
    /* Oscillating eigenvalues (Im > 0 above wmin), finite (beta = 0: infinite eigenvalue). The
     * state vector's scaling (q' / w0) leaves s itself unscaled. */
    int nc = 0;
    for (int i = 0; i < n2; i++) {
        double b = w->beta[i];
        if (b == 0.0 || !(fabs(b) > 1e-13 * hypot(w->ar[i], w->ai[i]))) continue;
        /* LAPACK stores a complex pair with the positive imaginary part first; only that one
         * is kept (the vector is columns i, i+1 as re, im). */
        if (!(w->ai[i] > 0.0) || !(b > 0.0) || i + 1 >= n2) continue;
        if (!(w->ai[i] / b > pb->wmin)) continue;
        w->order[nc++] = i;
    }
    for (int k = 0; k < nc; k++) {
        int i = w->order[k];
        w->ar[i] /= w->beta[i];
        w->ai[i] /= w->beta[i];
    }
    sort_by_frequency(w->order, nc, w->ar, w->ai);
    *nc_out = nc;
    return TVDS_OK;
}

/* ---- ARPACK: shift-invert Arnoldi on the linearisation --------------------------------------
 *
 * With x = [q; s q / w0] and mu = s / w0 the pencil is A x = mu B x,
 * A = [[0, I], [-K / w0^2, -C / w0]], B = [[I, 0], [0, M]]. For a real shift sigma (tau =
 * sigma / w0) the operator OP = (A - tau B)^-1 B has the eigenvalues nu = 1 / (mu - tau), the
 * largest |nu| belonging to the s nearest sigma. Solving (A - tau B) y = B v by blocks:
 *   D(sigma) y1 = -(w0^2 M v2 + w0 (C + sigma M) v1),  y2 = v1 + tau y1,
 * D(sigma) = K + sigma C + sigma^2 M (order n): one real LU per position, then two or three
 * matrix-vector products and two triangular solves per Arnoldi step. OP is applied as a standard
 * operator (ARPACK mode 1, bmat I): no B inner product is needed, so a singular M (massless
 * DoFs: infinite s, nu = 0) is harmless, and s = sigma + w0 / nu afterwards. */

static void apply_op(const cea_eig_problem *pb, cea_eig_work *w, const double *lu, double w0,
                     double sigma, const double *x, double *y)
{
    int n = pb->n;
    const double *v1 = x, *v2 = x + n;
    double *t = w->t;
    for (int i = 0; i < n; i++)
        t[i] = w0 * w0 * v2[i] + w0 * sigma * v1[i];
    cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, 1.0, pb->M, n, t, 1, 0.0, y, 1);
    if (pb->has_c) cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, w0, pb->C, n, v1, 1, 1.0, y, 1);
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, 1, lu, n, w->lpiv, y, n);
    double tau = sigma / w0;
    for (int i = 0; i < n; i++) {
        y[i] = -y[i];
        y[n + i] = v1[i] + tau * y[i];
    }
}

/* The shift: 1 % of the lowest frequency any single DoF would have alone (sqrt(min K_ii / M_ii),
 * an upper bound of the lowest natural frequency by Rayleigh's quotient), at most 1 % of w0;
 * negative, so that D(sigma) is regular with rigid-body modes (s = 0, at distance |sigma|, are
 * not oscillating ones and at most 100 times nearer sigma than the lowest wanted s, which keeps
 * the Arnoldi basis accurate) and the wanted s, nearest the origin, are the nearest sigma. */
static double pick_shift(const cea_eig_problem *pb, double w0)
{
    int n = pb->n;
    double r = INFINITY;
    for (int i = 0; i < n; i++) {
        double m = pb->M[(size_t)i * n + i], k = pb->K[(size_t)i * n + i];
        if (m > 0 && k > 0 && k / m < r) r = k / m;
    }
    double w = isfinite(r) ? sqrt(r) : w0;
    if (w > w0) w = w0;
    return -0.01 * w;
}

/* What arnoldi() and arnoldi_z() return when pb->stop is raised (below every ARPACK info code,
 * the lowest of which is -9999). A run left half way is not resumed: the next call starts from
 * ido = 0, so ARPACK's saved state does not carry over. */
#define ARNOLDI_STOPPED (-100000)

/* One Arnoldi run with nev, ncv; the Ritz pairs in w->dr, w->di (s) and w->V (x). Returns the
 * ARPACK info (0 ok) and the converged count in *nconv. */
static int arnoldi(cea_eig_work *w, const cea_eig_problem *pb, const double *lu, double w0,
                   double sigma, int nev, int ncv, int *nconv, int *nops)
{
    int n = pb->n, n2 = 2 * n;
    a_int iparam[11] = {0}, ipntr[14] = {0};
    iparam[0] = 1;   /* exact shifts */
    iparam[2] = 500; /* restarts */
    iparam[6] = 1;   /* the operator is the shift-inverted one already */
    int lworkl = 3 * ncv * ncv + 6 * ncv;
    /* Deterministic start vector rich in every mode: the result does not depend on the thread
     * or on what ran before. */
    for (int i = 0; i < n2; i++)
        w->resid[i] = 1.0 + 0.5 * sin(0.7 * (double)i + 0.3);
    a_int ido = 0, info = 1;
    for (;;) {
        dnaupd_c(&ido, "I", n2, "LM", nev, 0.0, w->resid, ncv, w->V, n2, iparam, ipntr, w->workd,
                 w->workl, lworkl, &info);
        if (ido != -1 && ido != 1) break;
        if (pb->stop && *pb->stop) return ARNOLDI_STOPPED;
        apply_op(pb, w, lu, w0, sigma, w->workd + ipntr[0] - 1, w->workd + ipntr[1] - 1);
        (*nops)++;
    }
    *nconv = (int)iparam[4];
    if (info < 0) return (int)info;
    if (info == 1 || info == 3 || *nconv < nev) return info ? (int)info : 1;
    /* Ritz vectors overwrite the basis (Z = V, allowed for howmny A). */
    a_int *select = w->select;
    dneupd_c(1, "A", select, w->dr, w->di, w->V, n2, 0.0, 0.0, w->workev, "I", n2, "LM", nev, 0.0,
             w->resid, ncv, w->V, n2, iparam, ipntr, w->workd, w->workl, lworkl, &info);
    *nconv = (int)iparam[4];
    return (int)info;
}

static int eig_arpack(cea_eig_work *w, const cea_eig_problem *pb, double *lu, int *nc_out,
                      cea_eig_stats *st, int *info_out)
{
    int n = pb->n, n2 = 2 * n;
    double w0 = freq_scale(pb), sigma = pick_shift(pb, w0);
    /* LU of D(sigma); a sigma that happens to be an eigenvalue moves away. */
    for (int tries = 0;; tries++) {
        for (size_t i = 0; i < (size_t)n * n; i++)
            lu[i] = pb->K[i] + sigma * sigma * pb->M[i] + (pb->has_c ? sigma * pb->C[i] : 0.0);
        int inf = LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, lu, n, w->lpiv);
        if (inf == 0) break;
        if (inf < 0 || tries == 3) {
            *info_out = inf;
            return TVDS_ERR_SOLVER;
        }
        sigma *= 1.37;
    }
    st->sigma = sigma;
    /* Two Ritz values per oscillating pair and a margin for the disc's edge. */
    int nev = 2 * pb->ncand + pb->ncand / 2 + 8;
    if (nev > w->nev_max) nev = w->nev_max;
    for (;;) {
        int ncv = 2 * nev + 1, nconv = 0;
        if (ncv > w->ncv_max) ncv = w->ncv_max;
        st->attempts++;
        st->nev = nev;
        st->ncv = ncv;
        int info = arnoldi(w, pb, lu, w0, sigma, nev, ncv, &nconv, &st->nops);
        st->nconv = nconv;
        if (info == ARNOLDI_STOPPED) return TVDS_ERR_INTERRUPTED;
        if (info < 0) {
            *info_out = info;
            return TVDS_ERR_SOLVER;
        }
        int enclosed = 0, nc = 0;
        double need = 0.0;
        if (info == 0) {
            /* s = sigma + w0 / nu; the radius of the disc about sigma that holds every Ritz value
             * found: all eigenvalues inside it are found (they have the larger |nu|). */
            double radius = 0.0;
            /* dneupd stores a complex pair nu, conj(nu) in consecutive places, Im nu > 0
             * first; the oscillating s (Im s > 0) is then the second. */
            for (int k = 0; k < nconv; k++) {
                if (w->di[k] == 0.0) continue;
                if (k + 1 == nconv) { /* half a pair at the end: left out */
                    nconv = k;
                    break;
                }
                if (!(w->di[k] > 0.0) || w->di[k + 1] != -w->di[k] || w->dr[k + 1] != w->dr[k]) {
                    *info_out = -5;
                    return TVDS_ERR_INTERNAL;
                }
                k++;
            }
            for (int k = 0; k < nconv; k++) {
                double a = w->dr[k], b = w->di[k], m2 = a * a + b * b;
                double sr = m2 > 0 ? sigma + w0 * a / m2 : INFINITY;
                double si = m2 > 0 ? -w0 * b / m2 : 0.0;
                w->dr[k] = sr;
                w->di[k] = si;
                double d = hypot(sr - sigma, si);
                if (d > radius) radius = d;
            }
            st->radius = radius;
            for (int k = 1; k < nconv; k++)
                if (w->di[k] > pb->wmin && isfinite(w->dr[k]) && w->di[k - 1] == -w->di[k])
                    w->order[nc++] = k;
            sort_by_frequency(w->order, nc, w->dr, w->di);
            /* Enclosed: the disc reaches beyond every s with 0 < Im s <= w_top (the highest
             * kept frequency) and |Re s| <= RE_COVER w_top, the farthest of which from sigma
             * is at sqrt(w_top^2 + (RE_COVER w_top + |sigma|)^2). */
            if (nc >= pb->ncand) {
                double wtop = w->di[w->order[pb->ncand - 1]];
                need = hypot(wtop, RE_COVER * wtop + fabs(sigma));
                enclosed = need < radius;
            } else if (nconv >= n2 - 3) {
                enclosed = 1; /* all but the farthest eigenvalues: nothing more to find */
            }
        }
        if (enclosed) {
            *nc_out = nc;
            return TVDS_OK;
        }
        if (nev >= w->nev_max) {
            *info_out = info > 0 ? info : -3;
            return TVDS_ERR_SOLVER;
        }
        /* Enlarge by the ratio of the discs' areas (eigenvalue counts grow like the radius for
         * a chain, faster for a solid), at least by half. */
        double grow = need > st->radius && st->radius > 0 ? pow(need / st->radius, 2) : 2.0;
        if (grow < 1.5) grow = 1.5;
        nev = (int)ceil(grow * nev) + 8;
        if (nev > w->nev_max) nev = w->nev_max;
    }
}

/* ---- ARPACK with a complex shift (docs/cea.md, "Complex shift") -----------------------------
 *
 * sigma = i ws, tau = sigma / w0: the same operator OP = (A - tau B)^-1 B, now complex, with
 *   D(sigma) y1 = -(w0^2 M v2 + w0 (C + sigma M) v1),  y2 = v1 + tau y1,
 * D(sigma) = K - ws^2 M + i ws C: one complex LU per position (zgetrf), complex Arnoldi
 * (znaupd, mode 1, bmat I). nu = 1 / (mu - tau): the largest |nu| are the s nearest i ws, one
 * Ritz value per eigenvalue (the conjugates lie near -i ws, far away). */

static void apply_op_z(const cea_eig_problem *pb, cea_eig_work *w, double w0, double _Complex sg,
                       const double _Complex *x, double _Complex *y)
{
    int n = pb->n;
    const double _Complex *v1 = x, *v2 = x + n;
    double _Complex *t = w->zt;
    double *X = w->xr, *Y = w->yr2;
    /* M (w0^2 v2 + w0 sigma v1) + w0 C v1 through the real products: columns re, im. */
    for (int i = 0; i < n; i++) {
        double _Complex a = w0 * w0 * v2[i] + w0 * sg * v1[i];
        X[i] = creal(a);
        X[n + i] = cimag(a);
    }
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, 2, n, 1.0, pb->M, n, X, n, 0.0, Y, n);
    if (pb->has_c) {
        for (int i = 0; i < n; i++) {
            X[i] = creal(v1[i]);
            X[n + i] = cimag(v1[i]);
        }
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, 2, n, w0, pb->C, n, X, n, 1.0, Y,
                    n);
    }
    for (int i = 0; i < n; i++)
        t[i] = Y[i] + I * Y[n + i];
    LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, 'N', n, 1, w->zlu, n, w->lpiv, t, n);
    double _Complex tau = sg / w0;
    for (int i = 0; i < n; i++) {
        y[i] = -t[i];
        y[n + i] = v1[i] + tau * y[i];
    }
}

/* One complex Arnoldi run with nev, ncv; the Ritz values nu in w->zd, vectors in w->zV. */
static int arnoldi_z(cea_eig_work *w, const cea_eig_problem *pb, double w0, double _Complex sg,
                     int nev, int ncv, int *nconv, int *nops)
{
    int n = pb->n, n2 = 2 * n;
    a_int iparam[11] = {0}, ipntr[14] = {0};
    iparam[0] = 1;
    iparam[2] = 500;
    iparam[6] = 1;
    int lworkl = 3 * ncv * ncv + 5 * ncv;
    for (int i = 0; i < n2; i++)
        w->zresid[i] = 1.0 + 0.5 * sin(0.7 * (double)i + 0.3);
    a_int ido = 0, info = 1;
    for (;;) {
        znaupd_c(&ido, "I", n2, "LM", nev, 0.0, w->zresid, ncv, w->zV, n2, iparam, ipntr, w->zworkd,
                 w->zworkl, lworkl, w->rwork, &info);
        if (ido != -1 && ido != 1) break;
        if (pb->stop && *pb->stop) return ARNOLDI_STOPPED;
        apply_op_z(pb, w, w0, sg, w->zworkd + ipntr[0] - 1, w->zworkd + ipntr[1] - 1);
        (*nops)++;
    }
    *nconv = (int)iparam[4];
    if (info < 0) return (int)info;
    if (info == 1 || info == 3 || *nconv < nev) return info ? (int)info : 1;
    zneupd_c(1, "A", w->select, w->zd, w->zV, n2, 0.0, w->zworkev, "I", n2, "LM", nev, 0.0,
             w->zresid, ncv, w->zV, n2, iparam, ipntr, w->zworkd, w->zworkl, lworkl, w->rwork,
             &info);
    *nconv = (int)iparam[4];
    return (int)info;
}

/* The kept pairs go to the real layout of the real shift: the Im s > 0 member at order[c] =
 * 2 c + 1 with dr, di; V's columns 2 c, 2 c + 1 hold Re q and -Im q. */
static int eig_arpack_z(cea_eig_work *w, const cea_eig_problem *pb, int *nc_out, cea_eig_stats *st,
                        int *info_out)
{
    int n = pb->n, n2 = 2 * n;
    double w0 = freq_scale(pb), ws = pb->wshift;
    double _Complex sg = 0.0;
    for (int tries = 0;; tries++) {
        /* SHIFT_OFF ws left of the axis: a lightly damped eigenvalue at ws stays that far. */
        sg = -SHIFT_OFF * ws + I * ws;
        for (size_t i = 0; i < (size_t)n * n; i++)
            w->zlu[i] = pb->K[i] + sg * sg * pb->M[i] + (pb->has_c ? sg * pb->C[i] : 0.0);
        int inf = LAPACKE_zgetrf(LAPACK_COL_MAJOR, n, n, w->zlu, n, w->lpiv);
        if (inf == 0) break;
        if (inf < 0 || tries == 3) {
            *info_out = inf;
            return TVDS_ERR_SOLVER;
        }
        ws *= 0.999; /* an eigenvalue at i ws: move off it */
    }
    st->sigma = creal(sg);
    st->sigma_im = ws;
    /* One Ritz value per eigenvalue and a margin for the disc's edge. */
    int nev = pb->ncand + pb->ncand / 4 + 8;
    if (nev > w->nev_max) nev = w->nev_max;
    for (;;) {
        int ncv = 2 * nev + 1, nconv = 0;
        if (ncv > w->ncv_max) ncv = w->ncv_max;
        if (ncv > n2) ncv = n2;
        st->attempts++;
        st->nev = nev;
        st->ncv = ncv;
        int info = arnoldi_z(w, pb, w0, sg, nev, ncv, &nconv, &st->nops);
        st->nconv = nconv;
        if (info == ARNOLDI_STOPPED) return TVDS_ERR_INTERRUPTED;
        if (info < 0) {
            *info_out = info;
            return TVDS_ERR_SOLVER;
        }
        int enclosed = 0, nc = 0;
        double need = 0.0;
        if (info == 0) {
            double radius = 0.0;
            for (int k = 0; k < nconv; k++) {
                double _Complex nu = w->zd[k], sk = cabs(nu) > 0 ? sg + w0 / nu : INFINITY;
                double d = cabs(sk - sg);
                if (d > radius) radius = d;
                if (!(cimag(sk) > pb->wmin) || !isfinite(creal(sk))) continue;
                /* The pair's layout: Im s > 0 member at 2 nc + 1 (its vector, conjugated, as
                 * in the real path's second member), the other at 2 nc. */
                w->dr[2 * nc] = w->dr[2 * nc + 1] = creal(sk);
                w->di[2 * nc] = -cimag(sk);
                w->di[2 * nc + 1] = cimag(sk);
                const double _Complex *z = w->zV + (size_t)k * n2;
                double *vr = w->V + (size_t)(2 * nc) * n2, *vi = vr + n2;
                for (int r = 0; r < n2; r++) {
                    vr[r] = creal(z[r]);
                    vi[r] = -cimag(z[r]);
                }
                w->order[nc] = 2 * nc + 1;
                nc++;
            }
            st->radius = radius;
            sort_by_frequency(w->order, nc, w->dr, w->di);
            /* Enclosed: with h the largest distance in frequency of a kept eigenvalue from ws,
             * the disc holds the rectangle |Im s - ws| <= h, |Re s| <= RE_COVER h, whose
             * farthest corners from sigma are at sqrt(h^2 + (RE_COVER h + |Re sigma|)^2). */
            if (nc >= pb->ncand) {
                double h = 0.0;
                for (int c = 0; c < pb->ncand; c++) {
                    double d = fabs(w->di[w->order[c]] - ws);
                    if (d > h) h = d;
                }
                need = hypot(h, RE_COVER * h - creal(sg));
                enclosed = need < radius;
            } else if (nconv >= n2 - 3) {
                enclosed = 1;
            }
        }
        if (enclosed) {
            *nc_out = nc;
            return TVDS_OK;
        }
        if (nev >= w->nev_max || nev >= n2 - 3) {
            *info_out = info > 0 ? info : -3;
            return TVDS_ERR_SOLVER;
        }
        double grow = need > st->radius && st->radius > 0 ? pow(need / st->radius, 2) : 2.0;
        if (grow < 1.5) grow = 1.5;
        nev = (int)ceil(grow * nev) + 8;
        if (nev > w->nev_max) nev = w->nev_max;
        if (nev > n2 - 3) nev = n2 - 3;
    }
}

/* Rayleigh-Ritz refinement of the kept Ritz pairs: the quadratic problem projected on the real
 * basis W of their q parts (re and im, orthonormalised), W^T (s^2 M + s C + K) W, solved dense
 * (order 2 nc), each Ritz pair replaced by the nearest projected one when that has the smaller
 * backward error on the full problem. A Ritz vector of the Arnoldi basis carries round-off of
 * the order eps |nu_max| / |nu| (the operator's largest eigenvalue, that of the lowest mode,
 * against its own), so the higher kept pairs have backward errors up to 1e-13; the projection
 * removes most of it, and on a real basis a neutral (conservative) mode stays neutral: the
 * real parts of the undamped locus are not round-off 1e-9 |s| large. */
static void refine_ritz(cea_eig_work *w, const cea_eig_problem *pb, int nc, double sigma,
                        double sigma_im)
{
    int n = pb->n, kk = 2 * nc;
    if (nc < 1) return;
    /* Distance from sigma of the nearest eigenvalue found (the largest |nu|). */
    double d0 = INFINITY;
    for (int c = 0; c < nc; c++) {
        double d = hypot(w->dr[w->order[c]] - sigma, w->di[w->order[c]] - sigma_im);
        if (d < d0) d0 = d;
    }
    double *W = w->RW, *T = w->RT;
    for (int c = 0; c < nc; c++) {
        const double *z = w->V + (size_t)(w->order[c] - 1) * 2 * n;
        memcpy(W + (size_t)(2 * c) * n, z, (size_t)n * sizeof *W);
        memcpy(W + (size_t)(2 * c + 1) * n, z + 2 * (size_t)n, (size_t)n * sizeof *W);
    }
    if (LAPACKE_dgeqrf(LAPACK_COL_MAJOR, n, kk, W, n, w->rtau) ||
        LAPACKE_dorgqr(LAPACK_COL_MAJOR, n, kk, kk, W, n, w->rtau))
        return;
    const double *X[3] = {pb->M, pb->K, pb->C};
    double *Xk[3] = {w->Mk, w->Kk, w->Ck};
    for (int k = 0; k < 3; k++) {
        if (k == 2 && !pb->has_c) {
            memset(w->Ck, 0, (size_t)kk * kk * sizeof(double));
            continue;
        }
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, kk, n, 1.0, X[k], n, W, n, 0.0, T,
                    n);
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, kk, kk, n, 1.0, W, n, T, n, 0.0, Xk[k],
                    kk);
    }
    cea_eig_work *sw = w->small;
    cea_eig_problem sp = {.n = kk,
                          .M = w->Mk,
                          .K = w->Kk,
                          .C = w->Ck,
                          .has_c = pb->has_c,
                          .wmin = pb->wmin,
                          .ncand = kk,
                          .solver = TVDS_CEA_AUTO};
    int snc = 0, sinfo = 0;
    if (eig_dense(sw, &sp, &snc, &sinfo) != TVDS_OK) return;
    double fk = LAPACKE_dlange(LAPACK_COL_MAJOR, 'F', n, n, pb->K, n);
    double fm = LAPACKE_dlange(LAPACK_COL_MAJOR, 'F', n, n, pb->M, n);
    double fc = LAPACKE_dlange(LAPACK_COL_MAJOR, 'F', n, n, pb->C, n);
    double *qr = T, *qi = T + n, *pr = T + 2 * (size_t)n, *pi = T + 3 * (size_t)n;
    for (int c = 0; c < nc; c++) {
        int i = w->order[c], best = -1;
        double dmin = INFINITY;
        for (int k = 0; k < snc; k++) {
            int j = sw->order[k];
            if (j < 0) continue; /* taken */
            double d = hypot(sw->ar[j] - w->dr[i], sw->ai[j] - w->di[i]);
            if (d < dmin) dmin = d, best = k;
        }
        if (best < 0) continue;
        int j = sw->order[best];
        double *zr = w->V + (size_t)(i - 1) * 2 * n, *zi = zr + 2 * (size_t)n;
        for (int r = 0; r < n; r++) {
            qr[r] = zr[r];
            qi[r] = -zi[r];
        }
        cblas_dgemv(CblasColMajor, CblasNoTrans, n, kk, 1.0, W, n, sw->VR + (size_t)j * 2 * kk, 1,
                    0.0, pr, 1);
        cblas_dgemv(CblasColMajor, CblasNoTrans, n, kk, 1.0, W, n,
                    sw->VR + (size_t)(j + 1) * 2 * kk, 1, 0.0, pi, 1);
        double be0 = backward_error(w, pb, w->dr[i], w->di[i], qr, qi, fk, fm, fc);
        double be1 = backward_error(w, pb, sw->ar[j], sw->ai[j], pr, pi, fk, fm, fc);
        /* Accepted at the round-off level of the Arnoldi basis for this pair. */
        double level = 64 * DBL_EPSILON * hypot(w->dr[i] - sigma, w->di[i] - sigma_im) / d0;
        if (!(be1 <= (be0 > level ? be0 : level))) continue;
        sw->order[best] = -1;
        w->dr[i] = w->dr[i - 1] = sw->ar[j];
        w->di[i] = sw->ai[j];
        w->di[i - 1] = -sw->ai[j];
        for (int r = 0; r < n; r++) {
            zr[r] = pr[r];
            zi[r] = -pi[r];
        }
    }
    sort_by_frequency(w->order, nc, w->dr, w->di);
}

/* ARPACK keeps state between reverse-communication calls in Fortran SAVE variables: one
 * Arnoldi run at a time in the whole process. The LU and the projection outside it run in
 * parallel. */
static int eig_arpack_locked(cea_eig_work *w, const cea_eig_problem *pb, double *lu, int *nc,
                             cea_eig_stats *st, int *info)
{
    int rc;
#ifdef _OPENMP
#pragma omp critical(tvds_arpack)
#endif
    rc = pb->wshift > 0.0 ? eig_arpack_z(w, pb, nc, st, info) : eig_arpack(w, pb, lu, nc, st, info);
    return rc;
}

int cea_eig_solve(cea_eig_work *w, const cea_eig_problem *pb, double *lu, double *lre, double *lim,
                  double *Q, int *nc_out, double *resid, cea_eig_stats *st, int *info)
{
    int n = pb->n, nc = 0, rc;
    memset(st, 0, sizeof *st);
    *info = 0;
    *nc_out = 0;
    *resid = 0.0;
    if (n > w->nmax) return TVDS_ERR_INTERNAL;
    if (w->arpack) {
        if (n < 4) {
            *info = -4;
            return TVDS_ERR_INVALID;
        }
        if (pb->wshift > 0.0 && !w->zlu) return TVDS_ERR_INTERNAL;
        rc = eig_arpack_locked(w, pb, lu, &nc, st, info);
        if (!rc) refine_ritz(w, pb, nc < pb->ncand ? nc : pb->ncand, st->sigma, st->sigma_im);
    } else {
        rc = eig_dense(w, pb, &nc, info);
    }
    if (rc) return rc;
    if (nc > pb->ncand) nc = pb->ncand;
    double fk = LAPACKE_dlange(LAPACK_COL_MAJOR, 'F', n, n, pb->K, n);
    double fm = LAPACKE_dlange(LAPACK_COL_MAJOR, 'F', n, n, pb->M, n);
    double fc = LAPACKE_dlange(LAPACK_COL_MAJOR, 'F', n, n, pb->C, n);
    const double *sre = w->arpack ? w->dr : w->ar, *sim = w->arpack ? w->di : w->ai;
    for (int c = 0; c < nc; c++) {
        int i = w->order[c];
        lre[c] = sre[i];
        lim[c] = sim[i];
        /* q: the first n entries of the state vector. Dense: columns i, i + 1 of VR are the re
         * and im parts of the vector of the pair's Im > 0 member. ARPACK: a pair of Ritz values
         * nu, conj(nu) has the vector z_i + i z_i+1 for Im nu > 0 (stored first), which is
         * Im s < 0: the Im s > 0 member's vector is z_i - i z_i+1 (stored second). */
        double *qr = Q + (size_t)c * 2 * n, *qi = qr + n;
        if (w->arpack) {
            /* eig_arpack checked that i - 1 is the pair's other member. */
            const double *zr = w->V + (size_t)(i - 1) * 2 * n, *zi = zr + 2 * (size_t)n;
            for (int k = 0; k < n; k++) {
                qr[k] = zr[k];
                qi[k] = -zi[k];
            }
        } else {
            const double *zr = w->VR + (size_t)i * 2 * n, *zi = zr + 2 * (size_t)n;
            memcpy(qr, zr, (size_t)n * sizeof *qr);
            memcpy(qi, zi, (size_t)n * sizeof *qi);
        }
        double be = backward_error(w, pb, lre[c], lim[c], qr, qi, fk, fm, fc);
        if (!(be <= *resid)) *resid = be;
    }
    *nc_out = nc;
    return TVDS_OK;
}
