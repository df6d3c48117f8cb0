/* cea_solve.c — the CEA's eigen-solve at one position (constraint null space, projection). */
#include "analysis/cea_impl.h"

static int cmp_int(const void *a, const void *b)
{
    int u = *(const int *)a, v = *(const int *)b;
    return (u > v) - (u < v);
}

/* Null-space basis Z (p x (p - rank)) of the rows restricted to J, by SVD. */
static int null_space(cea_work *w, int p, int use_e, double *Z, int *rank)
{
    const cea_rows *r = &w->rows;
    int nr = r->nrows;
    *rank = 0;
    if (nr == 0) {
        for (int j = 0; j < p * p; j++)
            Z[j] = 0.0;
        for (int j = 0; j < p; j++)
            Z[(size_t)j * p + j] = 1.0;
        return 0;
    }
    memset(w->BJ, 0, (size_t)nr * p * sizeof(double));
    for (int i = 0; i < nr; i++)
        for (int k = r->ptr[i]; k < r->ptr[i + 1]; k++)
            w->BJ[(size_t)w->isj[r->col[k]] * nr + i] += use_e ? r->be[k] : r->bc[k];
    double dummy = 0.0;
    /* Full V^T: its last p - rank rows span the null space. */
    int info = LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'A', nr, p, w->BJ, nr, w->sv, &dummy, 1, w->VT,
                              p, w->superb);
    if (info != 0) return info;
    int ns = nr < p ? nr : p, rk = 0;
    double tol = 1e-12 * (ns > 0 ? w->sv[0] : 0.0) * (nr > p ? nr : p);
    for (int i = 0; i < ns; i++)
        if (w->sv[i] > tol) rk++;
    *rank = rk;
    for (int c = 0; c < p - rk; c++)
        for (int j = 0; j < p; j++)
            Z[(size_t)c * p + j] = w->VT[(size_t)j * p + (rk + c)];
    return 0;
}

/* X_c = L_E^T X L_C (nr x nr) with L = [e_F | Z on J]. */
static void project(const cea_problem *p, cea_work *w, const double *X, int nf, int nz, int pj,
                    double *Xc)
{
    int N = p->N, nr = nf + nz;
    double *T = w->T; /* N x nr: X L_C */
    for (int c = 0; c < nf; c++)
        memcpy(T + (size_t)c * N, X + (size_t)w->F[c] * N, N * sizeof *T);
    for (int z = 0; z < nz; z++) {
        double *tc = T + (size_t)(nf + z) * N;
        memset(tc, 0, N * sizeof *tc);
        for (int j = 0; j < pj; j++) {
            double zz = w->ZC[(size_t)z * pj + j];
            if (zz == 0.0) continue;
            const double *xc = X + (size_t)w->J[j] * N;
            for (int i = 0; i < N; i++)
                tc[i] += zz * xc[i];
        }
    }
    for (int c = 0; c < nr; c++) {
        const double *tc = T + (size_t)c * N;
        double *out = Xc + (size_t)c * nr;
        for (int r = 0; r < nf; r++)
            out[r] = tc[w->F[r]];
        for (int z = 0; z < nz; z++) {
            double acc = 0.0;
            for (int j = 0; j < pj; j++)
                acc += w->ZE[(size_t)z * pj + j] * tc[w->J[j]];
            out[nf + z] = acc;
        }
    }
}

/* Eigen-solution at one position into *out. */
void cea_solve_position(const cea_problem *p, double s, cea_work *w, cea_pos *out)
{
    int N = p->N;
    out->err = TVDS_OK;
    out->info = 0;
    out->ncand = 0;
    out->lambda_n = 0.0;
    cea_geom *g = w->geo;
    memset(g, 0, sizeof *g);
    if (p->has_contact && cea_contact_geometries(p, s, g)) {
        out->err = TVDS_ERR_INVALID;
        out->info = -3;
        return;
    }
    double lam = 0.0;
    if (p->deformed) {
        int src = p->gen_static ? cea_static_state_gen(p, g, w, &lam)
                                : cea_static_state(p, s, g, w, &lam);
        if (src) {
            out->err = src;
            out->info = -2;
            return;
        }
    }
    out->lambda_n = lam == 0.0 ? 0.0 : -lam;
    out->slope = atan2(g->t[1], g->t[0]);
    out->chi = cea_build_rows(p, g, w);
    if (p->gen_static)
        cea_tangent_stiffness_gen(p, g, w);
    else
        cea_tangent_stiffness(p, g, lam, out->chi, w);
    const cea_rows *r = &w->rows;
    /* Columns touched by the constraints. */
    int pj = 0;
    for (int k = 0; k < r->nnz; k++)
        w->J[pj++] = r->col[k];
    qsort(w->J, (size_t)pj, sizeof(int), cmp_int);
    int u = 0;
    for (int k = 0; k < pj; k++)
        if (u == 0 || w->J[k] != w->J[u - 1]) w->J[u++] = w->J[k];
    pj = u;
    for (int i = 0; i < N; i++)
        w->isj[i] = -1;
    for (int j = 0; j < pj; j++)
        w->isj[w->J[j]] = j;
    int nf = 0;
    for (int i = 0; i < N; i++)
        if (w->isj[i] < 0) w->F[nf++] = i;
    int rc_, re_;
    int info = null_space(w, pj, 0, w->ZC, &rc_);
    if (!info) info = null_space(w, pj, 1, w->ZE, &re_);
    if (info) {
        out->err = TVDS_ERR_SOLVER;
        out->info = info;
        return;
    }
    if (rc_ != re_) {
        out->err = TVDS_ERR_SINGULAR;
        out->info = rc_ * 1000 + re_;
        return;
    }
    int nz = pj - rc_, nr = nf + nz;
    out->nred = nr;
    if (nr < 1) {
        out->err = TVDS_ERR_SINGULAR;
        return;
    }
    project(p, w, p->M, nf, nz, pj, w->Mc);
    project(p, w, w->Kt, nf, nz, pj, w->Kc);
    if (cea_lateral_damping(p, g, lam, w))
        project(p, w, w->Ct, nf, nz, pj, w->Cc);
    else if (p->has_c)
        project(p, w, p->C, nf, nz, pj, w->Cc);
    else
        memset(w->Cc, 0, (size_t)nr * nr * sizeof(double));

    /* Damped: the model's C or the lateral friction damping (the ARPACK operator skips C_c
     * when it is zero). */
    int has_c = 0;
    for (size_t i = 0; i < (size_t)nr * nr && !has_c; i++)
        has_c = w->Cc[i] != 0.0;
    cea_eig_problem pb = {.n = nr,
                          .M = w->Mc,
                          .K = w->Kc,
                          .C = w->Cc,
                          .has_c = has_c,
                          .wmin = 2.0 * TVDS_PI * p->fmin_hz,
                          .ncand = p->ncand,
                          .solver = p->solver,
                          .wshift = p->wshift,
                          .stop = p->stop};
    int nc = 0;
    /* T (N x N) is free after the projections: the ARPACK path's LU goes there. */
    out->err = cea_eig_solve(&w->eig, &pb, w->T, out->lre, out->lim, w->Q, &nc, &out->resid,
                             &out->eig, &out->info);
    if (out->err) return;
    out->ncand = nc;
    for (int c = 0; c < nc; c++) {
        /* Physical mode shape u = L_C q. */
        const double *vre = w->Q + (size_t)c * 2 * nr, *vim = vre + nr;
        double *uc = out->u + (size_t)c * N * 2;
        memset(uc, 0, (size_t)N * 2 * sizeof(double));
        for (int f = 0; f < nf; f++) {
            uc[2 * w->F[f]] = vre[f];
            uc[2 * w->F[f] + 1] = vim[f];
        }
        for (int z = 0; z < nz; z++)
            for (int j = 0; j < pj; j++) {
                double zz = w->ZC[(size_t)z * pj + j];
                uc[2 * w->J[j]] += zz * vre[nf + z];
                uc[2 * w->J[j] + 1] += zz * vim[nf + z];
            }
    }
}
