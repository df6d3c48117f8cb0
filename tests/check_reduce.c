/* check_reduce.c — Craig–Bampton reduction: analytic bar, exact static condensation for
 * boundary loads, reduced vs full eigenfrequencies of the shipped beams, coupling of the
 * reduced pair against the monolithic glued model, output round trip, error paths. */
#include <check.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tvds/tvds_beams.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_reduce.h"
#define TVDS_TEST_CHOLMOD
#include "tvds_test.h"

#define RD_PI 3.14159265358979323846

/* Eigenfrequencies [Hz] (ascending) of a dense reduced substructure. */
static void dense_freqs(const tvds_substructure *s, double *f)
{
    int n = s->n;
    double *K = malloc(sizeof(double) * n * n), *M = malloc(sizeof(double) * n * n);
    memcpy(K, s->K, sizeof(double) * n * n);
    memcpy(M, s->M, sizeof(double) * n * n);
    ck_assert_int_eq(LAPACKE_dsygv(LAPACK_COL_MAJOR, 1, 'N', 'U', n, K, n, M, n, f), 0);
    for (int k = 0; k < n; k++)
        f[k] = sqrt(fabs(f[k])) / (2 * RD_PI);
    free(K);
    free(M);
}

/* Fixed-free bar of n linear elements (length 1 m, E = 1e7 Pa, rho = 1e3 kg/m^3, A = 1 m^2),
 * consistent mass; DoF k is node k + 1 (node 0 clamped). */
static void bar_matrices(int n, double E, double rho, double len, cholmod_sparse **M,
                         cholmod_sparse **K)
{
    double h = len / n;
    cholmod_triplet *TK = cholmod_allocate_triplet(n, n, 3 * n, 1, CHOLMOD_REAL, &cc);
    cholmod_triplet *TM = cholmod_allocate_triplet(n, n, 3 * n, 1, CHOLMOD_REAL, &cc);
    for (int e = 0; e < n; e++) { /* element between nodes e and e + 1 -> DoFs e - 1, e */
        int a = e - 1, b = e;
        int idx[3][2] = {{a, a}, {a, b}, {b, b}};
        double kv[3] = {E / h, -E / h, E / h}, mv[3] = {rho * h / 3, rho * h / 6, rho * h / 3};
        for (int t = 0; t < 3; t++) {
            if (idx[t][0] < 0) continue;
            size_t k = TK->nnz++;
            TM->nnz++;
            ((int *)TK->i)[k] = ((int *)TM->i)[k] = idx[t][0];
            ((int *)TK->j)[k] = ((int *)TM->j)[k] = idx[t][1];
            ((double *)TK->x)[k] = kv[t];
            ((double *)TM->x)[k] = mv[t];
        }
    }
    *K = cholmod_triplet_to_sparse(TK, 0, &cc);
    *M = cholmod_triplet_to_sparse(TM, 0, &cc);
    cholmod_free_triplet(&TK, &cc);
    cholmod_free_triplet(&TM, &cc);
}

START_TEST(test_bar_analytic)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    const int n = 200;
    const double E = 1e7, rho = 1e3, len = 1.0, h = len / n, c = sqrt(E / rho);
    cholmod_sparse *M, *K;
    bar_matrices(n, E, rho, len, &M, &K);
    int bnd = n - 1, rec = n / 2;
    tvds_reduce_opts o = tvds_reduce_opts_default();
    tvds_substructure *s = NULL;
    tvds_reduce_stats st;
    ck_assert_int_eq(tvds_reduce_cb(M, K, NULL, 1, &bnd, 1, &rec, 0, NULL, &o, &s, &st, &cc, &ctx),
                     TVDS_OK);
    ck_assert_int_eq(s->n, 21);
    ck_assert_int_eq(st.nm, 20);
    /* Fixed-interface modes: the discrete fixed-fixed bar, theta = k pi / n, exactly. */
    for (int k = 1; k <= 20; k++) {
        double th = k * RD_PI / n;
        double w2 = 6 * c * c / (h * h) * (1 - cos(th)) / (2 + cos(th));
        ck_assert_int_eq(s->dofs[k].kind, TVDS_DOF_MODAL);
        ck_assert_double_le(fabs(s->dofs[k].freq_hz / (sqrt(w2) / (2 * RD_PI)) - 1), 1e-10);
    }
    /* Reduced model vs the discrete fixed-free bar, theta = (2k - 1) pi / (2n). Craig-Bampton
     * is a Rayleigh-Ritz method (error >= 0); to leading order the truncated fixed-interface
     * modes j > m (participation Gamma_j^2 = 2 rho A L / (j pi)^2 on the end's static mode,
     * amplitude lambda Gamma_j / lambda_j) raise lambda_k by lambda_k * sum_j 4 lambda_k /
     * (pi^2 j^2 lambda_j), i.e. the frequency by (2k - 1)^2 / (2 pi^2) sum_{j > m} j^-4. */
    double f[21], tail = 0;
    dense_freqs(s, f);
    for (int j = 21; j < 200000; j++)
        tail += pow((double)j, -4);
    for (int k = 1; k <= 5; k++) {
        double th = (2 * k - 1) * RD_PI / (2 * n);
        double w2 = 6 * c * c / (h * h) * (1 - cos(th)) / (2 + cos(th));
        double fd = sqrt(w2) / (2 * RD_PI), fc = (2 * k - 1) * c / (4 * len);
        double err = f[k - 1] / fd - 1,
               est = (2 * k - 1) * (2 * k - 1) / (2 * RD_PI * RD_PI) * tail;
        /* next order: (lambda_k / lambda_{m+1}) relative, <= 5 % for k <= 5 */
        ck_assert_double_le(fabs(err / est - 1), 0.06);
        /* the discrete model vs the continuum: linear elements with consistent mass
         * overestimate by (k_w h)^2 / 24 to leading order */
        double kh = (2 * k - 1) * RD_PI / (2 * len) * h;
        ck_assert_double_le(fabs((fd / fc - 1) / (kh * kh / 24) - 1), 1e-3);
    }
    /* The recovery row of the mid node: static mode of a unit end displacement is x / L. */
    ck_assert_double_eq_tol(s->rec[0].row[0], (rec + 1.0) / n, 1e-12);
    tvds_substructure_free(&s);
    ck_assert_ptr_null(s);
    cholmod_free_sparse(&M, &cc);
    cholmod_free_sparse(&K, &cc);
}
END_TEST

static tvds_substructure *reduce_model(const tvds_fe_model *m, const char *bspec, const char *rspec,
                                       int nmodes)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int nb, nr = 0, *b = NULL, *r = NULL;
    ck_assert_int_eq(tvds_reduce_parse_spec(bspec, m->n, m->dofs, m->nsets, m->sets, &nb, &b, &ctx),
                     TVDS_OK);
    if (rspec)
        ck_assert_int_eq(
            tvds_reduce_parse_spec(rspec, m->n, m->dofs, m->nsets, m->sets, &nr, &r, &ctx),
            TVDS_OK);
    tvds_reduce_opts o = tvds_reduce_opts_default();
    o.nmodes = nmodes;
    tvds_substructure *s = NULL;
    int rc = tvds_reduce_cb(m->M, m->K, m->dofs, nb, b, nr, r, m->nsets, m->sets, &o, &s, NULL, &cc,
                            &ctx);
    ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
    tvds_free(b);
    tvds_free(r);
    return s;
}

/* Loads on boundary DoFs: the reduced model gives the full model's static response exactly
 * (constraint modes are the exact static solution), at boundary DoFs and recovered points. */
START_TEST(test_static_exact)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_fe_model *m = bob_beam(2, 0);
    tvds_substructure *s = reduce_model(m, "top", "T.y", 20);
    int nb = s->n - 20;
    ck_assert_int_eq(nb, 200);
    cholmod_dense *F = cholmod_zeros((size_t)m->n, 1, CHOLMOD_REAL, &cc);
    double *fr = calloc((size_t)s->n, sizeof(double));
    for (int j = 0; j < nb; j++) {
        int g = 0;
        while (m->dofs[g].node != s->dofs[j].node || m->dofs[g].dir != s->dofs[j].dir)
            g++;
        double v = 0.01 * sin(1.3 * j + 0.2) + (s->dofs[j].dir == TVDS_DIR_Y ? -0.02 : 0.0);
        ((double *)F->x)[g] = v;
        fr[j] = v;
    }
    cholmod_factor *L = cholmod_analyze(m->K, &cc);
    ck_assert_int_eq(cholmod_factorize(m->K, L, &cc), 1);
    cholmod_dense *U = cholmod_solve(CHOLMOD_A, L, F, &cc);
    double *Kr = malloc(sizeof(double) * s->n * s->n);
    memcpy(Kr, s->K, sizeof(double) * s->n * s->n);
    ck_assert_int_eq(LAPACKE_dposv(LAPACK_COL_MAJOR, 'U', s->n, 1, Kr, s->n, fr, s->n), 0);
    double umax = 0, err = 0;
    for (int j = 0; j < nb; j++) {
        int g = 0;
        while (m->dofs[g].node != s->dofs[j].node || m->dofs[g].dir != s->dofs[j].dir)
            g++;
        double uf = ((double *)U->x)[g];
        umax = fmax(umax, fabs(uf));
        err = fmax(err, fabs(uf - fr[j]));
    }
    /* Modal amplitudes vanish: the fixed-interface modes are not excited statically. */
    for (int k = nb; k < s->n; k++)
        err = fmax(err, fabs(fr[k]));
    /* Round-off level: a few eps times the condition number of K (CHOLMOD's estimate from
     * the factor's diagonal). */
    double tol = 100 * DBL_EPSILON / cholmod_rcond(L, &cc);
    ck_assert_double_gt(umax, 1e-4);
    ck_assert_double_le(tol, 1e-7);
    ck_assert_double_le(err, tol * umax);
    /* Recovery row of T.y. */
    int gT = 0;
    while (m->dofs[gT].node != s->rec[0].node || m->dofs[gT].dir != TVDS_DIR_Y)
        gT++;
    double uT = 0;
    for (int c = 0; c < s->n; c++)
        uT += s->rec[0].row[c] * fr[c];
    ck_assert_double_le(fabs(uT - ((double *)U->x)[gT]), tol * umax);
    free(Kr);
    free(fr);
    cholmod_free_dense(&U, &cc);
    cholmod_free_dense(&F, &cc);
    cholmod_free_factor(&L, &cc);
    tvds_substructure_free(&s);
    tvds_fe_model_free(&m, &cc);
}
END_TEST

/* Reduced vs full eigenfrequencies of the shipped beams: first ten within 0.5 %. */
START_TEST(test_beam2_freqs_vs_full)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_fe_model *m = bob_beam(2, 0);
    tvds_substructure *s = reduce_model(m, "top", NULL, 20);
    double ff[10], fr[220];
    ck_assert_int_eq(tvds_eigs_lowest(m->M, m->K, 10, 0, 1e-12, ff, NULL, &cc, &ctx), TVDS_OK);
    dense_freqs(s, fr);
    for (int k = 0; k < 10; k++) {
        ck_assert_double_ge(fr[k], ff[k] * (1 - 1e-9)); /* Rayleigh-Ritz: from above */
        ck_assert_double_le(fr[k] / ff[k] - 1, 0.005);
    }
    tvds_substructure_free(&s);
    tvds_fe_model_free(&m, &cc);
}
END_TEST

START_TEST(test_beam1_freqs_vs_full)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_fe_model *m = bob_beam(1, 0);
    tvds_substructure *s = reduce_model(m, "A,C", NULL, 20);
    ck_assert_int_eq(s->n, 24);
    /* The carriage is free: two rigid translations; the full model needs a negative shift. */
    double ff[12], fr[24];
    double sigma = -pow(2 * RD_PI * 10.0, 2);
    ck_assert_int_eq(tvds_eigs_lowest(m->M, m->K, 12, sigma, 1e-12, ff, NULL, &cc, &ctx), TVDS_OK);
    dense_freqs(s, fr);
    /* Rigid modes: zero up to round-off, eps * lambda_max ~ (0.01 Hz)^2 here. */
    ck_assert_double_gt(ff[2], 10.0);
    for (int k = 0; k < 2; k++) {
        ck_assert_double_le(ff[k], 1e-3 * ff[2]);
        ck_assert_double_le(fr[k], 1e-3 * ff[2]);
    }
    for (int k = 2; k < 12; k++) {
        ck_assert_double_ge(fr[k], ff[k] * (1 - 1e-9));
        ck_assert_double_le(fr[k] / ff[k] - 1, 0.005);
    }
    tvds_substructure_free(&s);
    tvds_fe_model_free(&m, &cc);
}
END_TEST

/* The two reduced beams tied at C (primal assembly) against the monolithic glued FE model. */
START_TEST(test_coupling_glued)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_bob_params p = tvds_bob_default();
    tvds_fe_model *m1 = NULL, *m2 = NULL, *g = NULL;
    ck_assert_int_eq(tvds_beam1_build(&p.beam1, p.s0, &m1, &cc, &ctx), TVDS_OK);
    ck_assert_int_eq(tvds_beam2_build(&p.beam2, &m2, &cc, &ctx), TVDS_OK);
    ck_assert_int_eq(tvds_bob_glued_build(&p, &g, &cc, &ctx), TVDS_OK);
    ck_assert_int_eq(g->n, m1->n + m2->n - 2);
    tvds_substructure *r1 = reduce_model(m1, "A,C", NULL, 20);
    tvds_substructure *r2 = reduce_model(m2, "top", NULL, 20);
    /* Node of beam 2's upper edge under C. */
    long cnode = m1->sets[1].nodes[0], tnode = -1;
    int kc = tvds_substructure_find_dof(r1, cnode, TVDS_DIR_X);
    for (int k = 0; k < r2->n; k++)
        if (r2->dofs[k].kind == TVDS_DOF_PHYSICAL && fabs(r2->dofs[k].xyz[0] - p.s0) < 1e-12)
            tnode = r2->dofs[k].node;
    ck_assert_int_ge(kc, 0);
    ck_assert_int_gt(tnode, 0);
    int n2 = r2->n, n = r2->n + r1->n - 2;
    int *map = malloc(sizeof(int) * r1->n);
    for (int k = 0, next = n2; k < r1->n; k++) {
        if (r1->dofs[k].kind == TVDS_DOF_PHYSICAL && r1->dofs[k].node == cnode)
            map[k] = tvds_substructure_find_dof(r2, tnode, r1->dofs[k].dir);
        else
            map[k] = next++;
    }
    double *K = calloc((size_t)n * n, sizeof(double)), *M = calloc((size_t)n * n, sizeof(double));
    for (int j = 0; j < n2; j++)
        for (int i = 0; i < n2; i++) {
            K[i + (size_t)j * n] = r2->K[i + (size_t)j * n2];
            M[i + (size_t)j * n] = r2->M[i + (size_t)j * n2];
        }
    for (int j = 0; j < r1->n; j++)
        for (int i = 0; i < r1->n; i++) {
            K[map[i] + (size_t)map[j] * n] += r1->K[i + (size_t)j * r1->n];
            M[map[i] + (size_t)map[j] * n] += r1->M[i + (size_t)j * r1->n];
        }
    double *lam = malloc(sizeof(double) * n), ff[10];
    ck_assert_int_eq(LAPACKE_dsygv(LAPACK_COL_MAJOR, 1, 'N', 'U', n, K, n, M, n, lam), 0);
    ck_assert_int_eq(tvds_eigs_lowest(g->M, g->K, 10, 0, 1e-12, ff, NULL, &cc, &ctx), TVDS_OK);
    for (int k = 0; k < 10; k++) {
        double fr = sqrt(lam[k]) / (2 * RD_PI);
        ck_assert_double_ge(fr, ff[k] * (1 - 1e-9));
        ck_assert_double_le(fr / ff[k] - 1, 0.005);
    }
    free(lam);
    free(K);
    free(M);
    free(map);
    tvds_substructure_free(&r1);
    tvds_substructure_free(&r2);
    tvds_fe_model_free(&m1, &cc);
    tvds_fe_model_free(&m2, &cc);
    tvds_fe_model_free(&g, &cc);
}
END_TEST

/* Write the reduced beam 2 as a substructure directory and read it back bit for bit. */
START_TEST(test_roundtrip)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_fe_model *m = bob_beam(2, 10);
    tvds_substructure *s = reduce_model(m, "top", "T.y", 8), *t = NULL;
    char dir[] = "/tmp/tvds_reduce_rtXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    int rc = tvds_substructure_write(s, dir, &ctx);
    ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
    rc = tvds_substructure_read(dir, "beam2", &t, &ctx);
    ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(t->n, s->n);
    size_t nn = (size_t)s->n * s->n;
    ck_assert_int_eq(memcmp(t->M, s->M, nn * sizeof(double)), 0);
    ck_assert_int_eq(memcmp(t->K, s->K, nn * sizeof(double)), 0);
    for (int k = 0; k < s->n; k++) {
        ck_assert_int_eq(t->dofs[k].kind, s->dofs[k].kind);
        ck_assert_int_eq(t->dofs[k].node, s->dofs[k].node);
        ck_assert(t->dofs[k].freq_hz == s->dofs[k].freq_hz);
        ck_assert(memcmp(t->dofs[k].xyz, s->dofs[k].xyz, sizeof s->dofs[k].xyz) == 0);
    }
    ck_assert_int_eq(t->nrec, 1);
    ck_assert_int_eq(memcmp(t->rec[0].row, s->rec[0].row, (size_t)s->n * sizeof(double)), 0);
    ck_assert_int_eq(t->nsets, s->nsets);
    /* The full model directory round-trips its labels too. */
    char fdir[sizeof dir + 8];
    snprintf(fdir, sizeof fdir, "%s/full", dir);
    ck_assert_int_eq(tvds_fe_model_write(m, fdir, &ctx), TVDS_OK);
    char dp[sizeof fdir + 16], sp[sizeof fdir + 16];
    snprintf(dp, sizeof dp, "%s/dofs.txt", fdir);
    snprintf(sp, sizeof sp, "%s/sets.txt", fdir);
    int nd = 0, ns = 0;
    tvds_dof *dofs = NULL;
    tvds_nodeset *sets = NULL;
    ck_assert_int_eq(tvds_fe_dofs_read(dp, sp, &nd, &dofs, &ns, &sets, &ctx), TVDS_OK);
    ck_assert_int_eq(nd, m->n);
    ck_assert_int_eq(memcmp(dofs, m->dofs, sizeof(tvds_dof) * (size_t)nd), 0);
    ck_assert_int_eq(ns, m->nsets);
    ck_assert_int_eq(sets[0].n, m->sets[0].n);
    ck_assert_int_eq(memcmp(sets[0].nodes, m->sets[0].nodes, sizeof(long) * (size_t)sets[0].n), 0);
    tvds_free(dofs);
    tvds_fe_sets_free(ns, &sets);
    ck_assert_int_eq(tvds_test_rmtree(dir), 0);
    tvds_substructure_free(&s);
    tvds_substructure_free(&t);
    tvds_fe_model_free(&m, &cc);
}
END_TEST

/* A boundary that does not restrain rigid-body motion is refused with a clear message. */
START_TEST(test_free_floating_refused)
{
    /* Beam 1 held only at C.y can slide along x. Depending on round-off the LL' of K_ii breaks
     * down (negative pivot: nx = 10) or ends with a pivot at round-off level (nx = 50); both
     * must be refused. */
    static const int nxs[2] = {10, 50};
    for (int t = 0; t < 2; t++) {
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        tvds_fe_model *m = bob_beam(1, nxs[t]);
        int nb, *b = NULL;
        ck_assert_int_eq(
            tvds_reduce_parse_spec("C.y", m->n, m->dofs, m->nsets, m->sets, &nb, &b, &ctx),
            TVDS_OK);
        ck_assert_int_eq(nb, 1);
        tvds_substructure *s = NULL;
        int rc =
            tvds_reduce_cb(m->M, m->K, m->dofs, nb, b, 0, NULL, 0, NULL, NULL, &s, NULL, &cc, &ctx);
        ck_assert_int_eq(rc, TVDS_ERR_NOT_POSDEF);
        ck_assert_ptr_null(s);
        ck_assert_ptr_nonnull(strstr(ctx.msg, "rigid-body"));
        tvds_free(b);
        /* Both directions of C restrain the pair (the carriage keeps A from rotating). */
        tvds_ctx_init(&ctx);
        ck_assert_int_eq(
            tvds_reduce_parse_spec("C", m->n, m->dofs, m->nsets, m->sets, &nb, &b, &ctx), TVDS_OK);
        tvds_reduce_opts o = tvds_reduce_opts_default();
        o.nmodes = 4;
        ck_assert_int_eq(
            tvds_reduce_cb(m->M, m->K, m->dofs, nb, b, 0, NULL, 0, NULL, &o, &s, NULL, &cc, &ctx),
            TVDS_OK);
        tvds_substructure_free(&s);
        tvds_free(b);
        tvds_fe_model_free(&m, &cc);
    }
}
END_TEST

START_TEST(test_spec_and_cutoff)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_fe_model *m = bob_beam(2, 10);
    int nb, *b = NULL;
    ck_assert_int_eq(
        tvds_reduce_parse_spec("top.y, T, #0", m->n, m->dofs, m->nsets, m->sets, &nb, &b, &ctx),
        TVDS_OK);
    ck_assert_int_eq(nb, 20 + 2 + 1);
    ck_assert_int_eq(m->dofs[b[0]].dir, TVDS_DIR_Y);
    ck_assert_int_eq(b[22], 0);
    tvds_free(b);
    ck_assert_int_eq(
        tvds_reduce_parse_spec("nosuch", m->n, m->dofs, m->nsets, m->sets, &nb, &b, &ctx),
        TVDS_ERR_INVALID);
    ck_assert_ptr_null(b);
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(
        tvds_reduce_parse_spec("99999", m->n, m->dofs, m->nsets, m->sets, &nb, &b, &ctx),
        TVDS_ERR_INVALID);
    tvds_ctx_init(&ctx);
    /* Cut-off: exactly the fixed-interface modes below f_cut are kept. */
    tvds_substructure *all = reduce_model(m, "top", NULL, 40);
    double fcut = 0.5 * (all->dofs[all->n - 40 + 11].freq_hz + all->dofs[all->n - 40 + 12].freq_hz);
    ck_assert_int_eq(tvds_reduce_parse_spec("top", m->n, m->dofs, m->nsets, m->sets, &nb, &b, &ctx),
                     TVDS_OK);
    tvds_reduce_opts o = tvds_reduce_opts_default();
    o.nmodes = 0;
    o.f_cut_hz = fcut;
    tvds_substructure *s = NULL;
    tvds_reduce_stats st;
    ck_assert_int_eq(
        tvds_reduce_cb(m->M, m->K, m->dofs, nb, b, 0, NULL, 0, NULL, &o, &s, &st, &cc, &ctx),
        TVDS_OK);
    ck_assert_int_eq(st.nm, 12);
    ck_assert_double_lt(st.f_max_hz, fcut);
    tvds_free(b);
    tvds_substructure_free(&s);
    tvds_substructure_free(&all);
    tvds_fe_model_free(&m, &cc);
}
END_TEST

/* Progress and stop of a reduction (tvds_reduce_opts.progress, .stop): the four stages in
 * order, done <= total, the same substructure as without a callback; a stop flag set during
 * the eigensolver ends the call with TVDS_ERR_INTERRUPTED naming the stage, nothing returned. */
typedef struct progress_log {
    int n, last_index, bad;
    int seen[5];
    volatile sig_atomic_t *stop_in_modes;
} progress_log;

static void log_progress(void *user, const tvds_reduce_progress *p)
{
    progress_log *l = user;
    l->n++;
    if (p->index < l->last_index || p->index < 1 || p->index > p->count || p->count != 4 ||
        (p->total > 0 && p->done > p->total) || p->done < 0 || !(p->wall_s >= 0))
        l->bad++;
    l->last_index = p->index;
    l->seen[p->index] = 1;
    if (l->stop_in_modes && !strcmp(p->stage, "modes")) *l->stop_in_modes = SIGTERM;
}

START_TEST(test_progress_and_stop)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_fe_model *m = bob_beam(2, 0);
    int nb, *b = NULL;
    ck_assert_int_eq(tvds_reduce_parse_spec("top", m->n, m->dofs, m->nsets, m->sets, &nb, &b, &ctx),
                     TVDS_OK);
    progress_log log;
    memset(&log, 0, sizeof log);
    tvds_reduce_opts o = tvds_reduce_opts_default();
    o.progress = log_progress;
    o.progress_user = &log;
    tvds_substructure *s = NULL, *ref = reduce_model(m, "top", NULL, 20);
    int rc = tvds_reduce_cb(m->M, m->K, m->dofs, nb, b, 0, NULL, 0, NULL, &o, &s, NULL, &cc, &ctx);
    ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(log.bad, 0);
    for (int k = 1; k <= 4; k++)
        ck_assert_msg(log.seen[k], "stage %d not reported", k);
    ck_assert_int_eq(s->n, ref->n);
    ck_assert(!memcmp(s->K, ref->K, (size_t)s->n * s->n * sizeof *s->K));
    tvds_substructure_free(&s);
    volatile sig_atomic_t stop = 0;
    memset(&log, 0, sizeof log);
    log.stop_in_modes = &stop;
    o.stop = &stop;
    tvds_ctx_init(&ctx);
    rc = tvds_reduce_cb(m->M, m->K, m->dofs, nb, b, 0, NULL, 0, NULL, &o, &s, NULL, &cc, &ctx);
    ck_assert_int_eq(rc, TVDS_ERR_INTERRUPTED);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(ctx.msg, "interrupted in stage 'modes'") && strstr(ctx.msg, "SIGTERM"),
                  "%s", ctx.msg);
    ck_assert(!log.seen[3] && !log.seen[4]);
    /* ARPACK's state was left mid-run: the next reduction starts afresh and agrees. */
    o.stop = NULL;
    log.stop_in_modes = NULL;
    tvds_ctx_init(&ctx);
    rc = tvds_reduce_cb(m->M, m->K, m->dofs, nb, b, 0, NULL, 0, NULL, &o, &s, NULL, &cc, &ctx);
    ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
    ck_assert(!memcmp(s->K, ref->K, (size_t)s->n * s->n * sizeof *s->K));
    tvds_substructure_free(&s);
    tvds_substructure_free(&ref);
    tvds_free(b);
    tvds_fe_model_free(&m, &cc);
}
END_TEST

Suite *reduce_suite(void)
{
    Suite *s = suite_create("reduce");
    TCase *tc = tcase_create("reduce");
    tcase_add_checked_fixture(tc, cc_setup, cc_teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_bar_analytic);
    tcase_add_test(tc, test_static_exact);
    tcase_add_test(tc, test_beam2_freqs_vs_full);
    tcase_add_test(tc, test_beam1_freqs_vs_full);
    tcase_add_test(tc, test_coupling_glued);
    tcase_add_test(tc, test_roundtrip);
    tcase_add_test(tc, test_free_floating_refused);
    tcase_add_test(tc, test_spec_and_cutoff);
    tcase_add_test(tc, test_progress_and_stop);
    suite_add_tcase(s, tc);
    return s;
}
