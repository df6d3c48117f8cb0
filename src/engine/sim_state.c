/* sim_state.c — helpers every phase shares: physical displacements from the stepping
 * coordinates, state-buffer versions and rotation, node DoFs, contact-point entries, the
 * candidate flexibility G. */
#include <cblas.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "engine/sim_impl.h"

void sim_lumped_kx(const sim_sub *s, const double *x, const double *xp, double *y, double *yd)
{
    int n = s->n;
    const double *restrict xr = x, *restrict pr = xp;
    double *restrict yr = y, *restrict dr = yd;
    if (s->ndg > 0) {
        /* By diagonals: unit-stride streams, vectorised. The main diagonal, stored first
         * when K has one (sim_data.c), initialises the sums. */
        int o = 0;
        if (s->dgoff[0] == 0) {
            const double *restrict dv = s->dgv;
            if (xp) {
#pragma omp simd
                for (int r = 0; r < n; r++) {
                    yr[r] = dv[r] * xr[r];
                    dr[r] = dv[r] * (xr[r] - pr[r]);
                }
            } else {
#pragma omp simd
                for (int r = 0; r < n; r++)
                    yr[r] = dv[r] * xr[r];
            }
            o = 1;
        } else {
            for (int r = 0; r < n; r++)
                yr[r] = 0.0;
            if (xp)
                for (int r = 0; r < n; r++)
                    dr[r] = 0.0;
        }
        for (; o < s->ndg; o++) {
            int off = s->dgoff[o], lo = off < 0 ? -off : 0, hi = off > 0 ? n - off : n;
            const double *restrict dv = s->dgv + (size_t)o * n;
            if (xp) {
#pragma omp simd
                for (int r = lo; r < hi; r++) {
                    yr[r] += dv[r] * xr[r + off];
                    dr[r] += dv[r] * (xr[r + off] - pr[r + off]);
                }
            } else {
#pragma omp simd
                for (int r = lo; r < hi; r++)
                    yr[r] += dv[r] * xr[r + off];
            }
        }
        return;
    }
    const int *restrict kp = s->kp, *restrict ki = s->ki;
    const double *restrict kv = s->kv;
    for (int r = 0; r < n; r++) {
        double a = 0.0, b = 0.0;
        if (xp) {
            for (int q = kp[r]; q < kp[r + 1]; q++) {
                a += kv[q] * xr[ki[q]];
                b += kv[q] * (xr[ki[q]] - pr[ki[q]]);
            }
            dr[r] = b;
        } else {
            for (int q = kp[r]; q < kp[r + 1]; q++)
                a += kv[q] * xr[ki[q]];
        }
        yr[r] = a;
    }
}

double sim_phys(const sim_sub *s, const double *x, int dof)
{
    if (!s->modal) return x[dof];
    const double *restrict y = s->Y + (size_t)dof * s->n;
    /* Eight partial sums (four SSE2 vectors in the portable build): one running sum waits for
     * each addition in turn, and these dot products (the contact DoFs' displacements, O(n)
     * each) are the per-contact cost of the modal path (docs/performance.md). */
    double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0, a4 = 0.0, a5 = 0.0, a6 = 0.0, a7 = 0.0;
    int n = s->n, i = 0;
    for (; i + 8 <= n; i += 8) {
        a0 += y[i] * x[i];
        a1 += y[i + 1] * x[i + 1];
        a2 += y[i + 2] * x[i + 2];
        a3 += y[i + 3] * x[i + 3];
        a4 += y[i + 4] * x[i + 4];
        a5 += y[i + 5] * x[i + 5];
        a6 += y[i + 6] * x[i + 6];
        a7 += y[i + 7] * x[i + 7];
    }
    double a = ((a0 + a4) + (a1 + a5)) + ((a2 + a6) + (a3 + a7));
    for (; i < n; i++)
        a += y[i] * x[i];
    return a;
}

#if defined(__GNUC__)
/* Two doubles as one vector (GCC and clang vector extensions; unaligned loads by memcpy). */
typedef double sim_v2d __attribute__((vector_size(16)));
static inline sim_v2d v2_load(const double *p)
{
    sim_v2d v;
    memcpy(&v, p, sizeof v);
    return v;
}
#endif

void sim_phys2(const sim_sub *s, const double *x, int dof0, int dof1, double u[2])
{
    if (!s->modal) {
        u[0] = x[dof0];
        u[1] = x[dof1];
        return;
    }
#if defined(__GNUC__)
    /* The two rows of sim_phys in one pass over x, each with its eight partial sums (four
     * two-lane vectors: lanes (0,1), (2,3), (4,5), (6,7)) added in sim_phys's order: the same
     * values bit for bit, with x read once (a master node's two in-plane DoFs). */
    const double *restrict y = s->Y + (size_t)dof0 * s->n, *restrict z = s->Y + (size_t)dof1 * s->n;
    sim_v2d a01 = {0.0, 0.0}, a23 = a01, a45 = a01, a67 = a01;
    sim_v2d b01 = a01, b23 = a01, b45 = a01, b67 = a01;
    int n = s->n, i = 0;
    for (; i + 8 <= n; i += 8) {
        sim_v2d x0 = v2_load(x + i), x1 = v2_load(x + i + 2), x2 = v2_load(x + i + 4),
                x3 = v2_load(x + i + 6);
        a01 += v2_load(y + i) * x0;
        a23 += v2_load(y + i + 2) * x1;
        a45 += v2_load(y + i + 4) * x2;
        a67 += v2_load(y + i + 6) * x3;
        b01 += v2_load(z + i) * x0;
        b23 += v2_load(z + i + 2) * x1;
        b45 += v2_load(z + i + 4) * x2;
        b67 += v2_load(z + i + 6) * x3;
    }
    sim_v2d sa = a01 + a45, ta = a23 + a67, sb = b01 + b45, tb = b23 + b67;
    double a = (sa[0] + sa[1]) + (ta[0] + ta[1]);
    double b = (sb[0] + sb[1]) + (tb[0] + tb[1]);
    for (; i < n; i++) {
        a += y[i] * x[i];
        b += z[i] * x[i];
    }
    u[0] = a;
    u[1] = b;
#else
    u[0] = sim_phys(s, x, dof0);
    u[1] = sim_phys(s, x, dof1);
#endif
}

void sim_touch(tvds_data *d, int which)
{
    if (which >= 0) {
        /* One buffer (the predictor's x_new at every step): the loop below, that buffer's
         * iteration only. */
        for (int i = 0; i < d->nsub; i++) {
            d->sub[i].ver[which] = ++d->ver_counter;
            if (which == 1) d->sub[i].ucn1 = 0;
        }
        return;
    }
    for (int i = 0; i < d->nsub; i++)
        for (int w = 0; w < 3; w++)
            if (which < 0 || which == w) {
                d->sub[i].ver[w] = ++d->ver_counter;
                if (w == 1) d->sub[i].ucn1 = 0;
            }
}

long sim_flush_tiny(tvds_data *d)
{
    long nz = 0;
    for (int i = 0; i < d->nsub; i++) {
        sim_sub *s = &d->sub[i];
        long z0 = nz;
        double *v[2] = {s->x, s->x_prev};
        for (int b = 0; b < 2; b++) {
            double *x = v[b];
            /* The smallest nonzero magnitude first, a pass in four independent minima (one
             * running minimum is a chain of dependent operations, and GCC keeps an OpenMP simd
             * reduction's lanes in memory): usually above SIM_TINY. */
            double m0 = INFINITY, m1 = INFINITY, m2 = INFINITY, m3 = INFINITY;
            int q = 0;
            for (; q + 4 <= s->n; q += 4) {
                double a0 = fabs(x[q]), a1 = fabs(x[q + 1]), a2 = fabs(x[q + 2]),
                       a3 = fabs(x[q + 3]);
                a0 = a0 > 0.0 ? a0 : INFINITY;
                a1 = a1 > 0.0 ? a1 : INFINITY;
                a2 = a2 > 0.0 ? a2 : INFINITY;
                a3 = a3 > 0.0 ? a3 : INFINITY;
                m0 = a0 < m0 ? a0 : m0;
                m1 = a1 < m1 ? a1 : m1;
                m2 = a2 < m2 ? a2 : m2;
                m3 = a3 < m3 ? a3 : m3;
            }
            for (; q < s->n; q++) {
                double a = fabs(x[q]);
                a = a > 0.0 ? a : INFINITY;
                m0 = a < m0 ? a : m0;
            }
            double mn = m0 < m1 ? m0 : m1, mm = m2 < m3 ? m2 : m3;
            mn = mn < mm ? mn : mm;
            if (!(mn < SIM_TINY)) continue;
            for (int k = 0; k < s->n; k++)
                if (x[k] != 0.0 && fabs(x[k]) < SIM_TINY) {
                    x[k] = 0.0;
                    nz++;
                }
        }
        if (nz > z0) {
            s->ver[0] = ++d->ver_counter;
            s->ver[2] = ++d->ver_counter;
        }
    }
    return nz;
}

void sim_rotate(tvds_data *d)
{
    for (int i = 0; i < d->nsub; i++) {
        sim_sub *s = &d->sub[i];
        /* x_old <- x_prev <- x <- x_new, and x_new takes the buffer x_old had (scratch). */
        double *p = s->x_old;
        s->x_old = s->x_prev;
        s->ver_old = s->ver[2];
        s->x_prev = s->x;
        s->x = s->x_new;
        s->x_new = p;
        double *u2 = s->uc[2];
        long *c2 = s->ucv[2], v2 = s->ver[2];
        s->uc[2] = s->uc[0], s->ucv[2] = s->ucv[0], s->ver[2] = s->ver[0];
        s->uc[0] = s->uc[1], s->ucv[0] = s->ucv[1], s->ver[0] = s->ver[1];
        s->uc[1] = u2, s->ucv[1] = c2, s->ver[1] = v2;
        s->ucn1 = 0;
        s->ver[1] = ++d->ver_counter; /* x_new is scratch until the next predictor */
    }
}

int sim_node_dofs(const tvds_substructure *s, long node, int dofs[3], double X[3])
{
    int found = 0;
    X[0] = X[1] = X[2] = 0.0;
    for (int k = 0; k < 3; k++) {
        dofs[k] = tvds_substructure_find_dof(s, node, k);
        if (dofs[k] >= 0) {
            memcpy(X, s->dofs[dofs[k]].xyz, 3 * sizeof(double));
            found = 1;
        }
    }
    return found;
}

int sim_rigid_el(const tvds_element *E)
{
    return E->kind == TVDS_EL_ELASTIC_FRICTION && E->rigid && E->kindF == TVDS_EF_STICK_SLIP;
}

int sim_cand_flex(sim_sub *s, const double *wk, tvds_ctx *ctx)
{
    /* G = Yc^T diag(wk) Yc with Yc = Y(:, candidates), n x nc: one BLAS dsyrk on the weighted
     * columns sqrt(wk) .* Y(:,j) (wk >= 0), O(n nc^2 / 2) flops at BLAS speed. */
    int n = s->n, nc = s->ncand;
    if (nc == 0) return TVDS_OK;
    double *Yc = tvds_malloc((size_t)n * nc * sizeof(double));
    if (!Yc) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory (candidate flexibility)");
    for (int a = 0; a < nc; a++) {
        const double *y = s->Y + (size_t)s->cand_dof[a] * n;
        double *yc = Yc + (size_t)a * n;
        for (int k = 0; k < n; k++)
            yc[k] = wk ? sqrt(wk[k]) * y[k] : y[k];
    }
    cblas_dsyrk(CblasColMajor, CblasUpper, CblasTrans, nc, n, 1.0, Yc, n, 0.0, s->G, nc);
    for (int b = 0; b < nc; b++)
        for (int a = b + 1; a < nc; a++)
            s->G[a + (size_t)b * nc] = s->G[b + (size_t)a * nc];
    tvds_free(Yc);
    return TVDS_OK;
}

/* Union-find root with path halving. */
static int uf_root(int *p, int a)
{
    while (p[a] != a) {
        p[a] = p[p[a]];
        a = p[a];
    }
    return a;
}

int sim_cand_comp(const tvds_substructure *S, sim_sub *s, int with_stiffness, tvds_ctx *ctx)
{
    int n = s->n, nc = s->ncand;
    if (nc == 0) return TVDS_OK;
    if (!s->gcomp) {
        s->gcomp = tvds_malloc((size_t)nc * sizeof *s->gcomp);
        if (!s->gcomp) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory (G components)");
    }
    int *p = tvds_malloc((size_t)n * sizeof *p);
    if (!p) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory (G components)");
    /* M^-1 (and f(M^-1 K) M^-1, the one-step flexibility of exact propagation) has the block
     * structure of the connected components of the graph of M (of M, K and C): two DoFs in
     * different components are not coupled, in exact arithmetic, by the correction of a step. */
    for (int k = 0; k < n; k++)
        p[k] = k;
    const double *mats[3] = {S->M, with_stiffness ? S->K : NULL, with_stiffness ? S->C : NULL};
    for (int q = 0; q < 3; q++) {
        const double *A = mats[q];
        if (!A) continue;
        for (int j = 0; j < n; j++)
            for (int i = j + 1; i < n; i++)
                if (A[i + (size_t)j * n] != 0.0 || A[j + (size_t)i * n] != 0.0) {
                    int ri = uf_root(p, i), rj = uf_root(p, j);
                    if (ri != rj) p[ri > rj ? ri : rj] = ri < rj ? ri : rj;
                }
    }
    /* Candidate a's component: its lowest candidate (p reused: root DoF -> that candidate). */
    int *first = tvds_malloc((size_t)n * sizeof *first);
    if (!first) {
        tvds_free(p);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory (G components)");
    }
    for (int k = 0; k < n; k++)
        first[k] = -1;
    for (int a = 0; a < nc; a++) {
        int r = uf_root(p, s->cand_dof[a]);
        if (first[r] < 0) first[r] = a;
        s->gcomp[a] = first[r];
    }
    s->gdiag = 1;
    for (int b = 0; b < nc; b++)
        for (int a = 0; a < nc; a++) {
            if (s->gcomp[a] != s->gcomp[b])
                s->G[a + (size_t)b * nc] = 0.0;
            else if (a != b)
                s->gdiag = 0;
        }
    tvds_free(first);
    tvds_free(p);
    return TVDS_OK;
}
