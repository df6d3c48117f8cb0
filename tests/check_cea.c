/* check_cea.c — complex eigenvalue analysis: primal assembly against merged models, mu = 0
 * symmetry, the closed-form flutter threshold of a friction oscillator, MAC tracking. */
#include <check.h>
#include <complex.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "tvds/tvds_bench.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_cea.h"
#include "tvds_test.h"
#include "core/test_hooks_impl.h"

#define PI 3.14159265358979323846

/* ---- Model building helpers ---------------------------------------------------------------- */

typedef struct dof_spec {
    long node;
    int dir;
    double x, y;
} dof_spec;

/* Append a substructure with diagonal M and K (m[i], k[i]) and the given DoF labels. */
static int add_sub(tvds_model *m, const char *name, int n, const double *mass, const double *kdiag,
                   const dof_spec *d)
{
    tvds_substructure *s = tvds_calloc(1, sizeof *s);
    ck_assert_ptr_nonnull(s);
    s->name = tvds_strdup(name);
    s->n = n;
    s->M = tvds_calloc((size_t)n * n, sizeof(double));
    s->K = tvds_calloc((size_t)n * n, sizeof(double));
    s->dofs = tvds_calloc((size_t)n, sizeof(tvds_dof));
    for (int i = 0; i < n; i++) {
        s->M[(size_t)i * n + i] = mass[i];
        s->K[(size_t)i * n + i] = kdiag[i];
        s->dofs[i].kind = TVDS_DOF_PHYSICAL;
        s->dofs[i].node = d[i].node;
        s->dofs[i].dir = d[i].dir;
        s->dofs[i].xyz[0] = d[i].x;
        s->dofs[i].xyz[1] = d[i].y;
    }
    m->subs = tvds_realloc(m->subs, (size_t)(m->nsub + 1) * sizeof *m->subs);
    m->damping = tvds_realloc(m->damping, (size_t)(m->nsub + 1) * sizeof *m->damping);
    memset(&m->damping[m->nsub], 0, sizeof *m->damping);
    m->subs[m->nsub] = s;
    return m->nsub++;
}

static void add_bil(tvds_model *m, int nterms, const tvds_term *terms)
{
    m->bil = tvds_realloc(m->bil, (size_t)(m->nbil + 1) * sizeof *m->bil);
    tvds_bilateral *b = &m->bil[m->nbil++];
    memset(b, 0, sizeof *b);
    b->name = tvds_strdup("tie");
    b->nterms = nterms;
    b->terms = tvds_malloc((size_t)nterms * sizeof *terms);
    memcpy(b->terms, terms, (size_t)nterms * sizeof *terms);
}

static void add_spring(tvds_model *m, int sa, int da, int sb, int db, double k)
{
    m->elements = tvds_realloc(m->elements, (size_t)(m->nel + 1) * sizeof *m->elements);
    tvds_element *e = &m->elements[m->nel++];
    memset(e, 0, sizeof *e);
    e->name = tvds_strdup("spring");
    e->kind = TVDS_EL_SPRING;
    e->sub[0] = sa;
    e->dof[0] = da;
    e->sub[1] = sb;
    e->dof[1] = db;
    e->k = k;
}

static void add_contact(tvds_model *m, int slave_sub, long slave_node, int master_sub, int nmaster,
                        const long *master_nodes, double mu)
{
    m->contacts = tvds_realloc(m->contacts, (size_t)(m->ncontact + 1) * sizeof *m->contacts);
    tvds_contact *c = &m->contacts[m->ncontact++];
    memset(c, 0, sizeof *c);
    c->name = tvds_strdup("tip");
    c->dim = 2;
    c->slave_sub = slave_sub;
    c->nslave = 1;
    c->slave_nodes = tvds_malloc(sizeof(long));
    c->slave_nodes[0] = slave_node;
    c->master_kind = TVDS_MASTER_SURFACE;
    c->master_sub = master_sub;
    c->nmaster = nmaster;
    c->master_nodes = tvds_malloc((size_t)nmaster * sizeof(long));
    memcpy(c->master_nodes, master_nodes, (size_t)nmaster * sizeof(long));
    c->mu_s = c->mu_k = mu;
}

static void jacobi_eig(int n, double *A, double *ev)
{
    /* Cyclic Jacobi on a small symmetric matrix (row-major n x n), eigenvalues ascending. */
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = 0.0;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                off += A[i * n + j] * A[i * n + j];
        if (off < 1e-30) break;
        for (int p = 0; p < n; p++)
            for (int q = p + 1; q < n; q++) {
                double apq = A[p * n + q];
                if (fabs(apq) < 1e-300) continue;
                double theta = (A[q * n + q] - A[p * n + p]) / (2.0 * apq);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < n; k++) {
                    double akp = A[k * n + p], akq = A[k * n + q];
                    A[k * n + p] = c * akp - s * akq;
                    A[k * n + q] = s * akp + c * akq;
                }
                for (int k = 0; k < n; k++) {
                    double apk = A[p * n + k], aqk = A[q * n + k];
                    A[p * n + k] = c * apk - s * aqk;
                    A[q * n + k] = s * apk + c * aqk;
                }
            }
    }
    for (int i = 0; i < n; i++)
        ev[i] = A[i * n + i];
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && ev[j] < ev[j - 1]; j--) {
            double t = ev[j];
            ev[j] = ev[j - 1];
            ev[j - 1] = t;
        }
}

/* Undamped frequencies [rad/s] of (K, M) with M diagonal: eigenvalues of M^-1/2 K M^-1/2. */
static void undamped(int n, const double *K, const double *mdiag, double *w)
{
    double A[64];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i * n + j] = K[i * n + j] / sqrt(mdiag[i] * mdiag[j]);
    jacobi_eig(n, A, w);
    for (int i = 0; i < n; i++)
        w[i] = sqrt(w[i]);
}

/* ---- 1. Tie of two chains against the merged chain ------------------------------------------ */

/* Chain A: ground -k1- a1 -k2- a2; chain B: b3 -k3- b4 -k4- ground; tie a2 = b3. */
static tvds_model *two_chains(double alpha, double beta)
{
    tvds_model *m = tvds_model_create();
    ck_assert_ptr_nonnull(m);
    dof_spec da[2] = {{1, TVDS_DIR_X, 0, 0}, {2, TVDS_DIR_X, 1, 0}};
    dof_spec db[2] = {{3, TVDS_DIR_X, 1, 0}, {4, TVDS_DIR_X, 2, 0}};
    double ma[2] = {2.0, 1.0}, mb[2] = {0.5, 3.0};
    double k1 = 1e4, k2 = 2e4, k3 = 5e3, k4 = 3e4;
    /* Chain stiffness as substructure matrices plus springs between DoFs. */
    double ka[2] = {k1 + k2, k2}, kb[2] = {k3, k3 + k4};
    int A = add_sub(m, "A", 2, ma, ka, da), B = add_sub(m, "B", 2, mb, kb, db);
    /* Off-diagonal chain coupling inside each substructure. */
    m->subs[A]->K[0 * 2 + 1] = m->subs[A]->K[1 * 2 + 0] = -k2;
    m->subs[B]->K[0 * 2 + 1] = m->subs[B]->K[1 * 2 + 0] = -k3;
    for (int i = 0; i < 2; i++) {
        m->damping[i].kind = TVDS_DAMP_RAYLEIGH;
        m->damping[i].alpha = m->damping[i].alpha0 = alpha;
        m->damping[i].beta = m->damping[i].beta0 = beta;
    }
    tvds_term t[2] = {{A, 1, 1.0}, {B, 0, -1.0}};
    add_bil(m, 2, t);
    return m;
}

/* Backward error allowed to the eigenpairs of r: LAPACK's own test programs accept a backward
 * error |A x - lambda x| / (|A| |x|) of up to THRESH n ulp for a problem of order n (the
 * ratio they print, with THRESH = 30 in dtest.in), whatever the BLAS kernel. The CEA solves
 * the linearised problem of order n = 2 nred (the quadratic's backward error, tvds'
 * resid_max, is that of the scaled linearisation to a factor of order 1: cea_eig.c). ARPACK
 * stops at a residual of eps relative to the Ritz value (tol = 0), below that bound. */
static double backward_bound(const tvds_cea_result *r)
{
    double b = 30.0 * 2.0 * r->nred * DBL_EPSILON;
    if (getenv("TVDS_TEST_VERBOSE"))
        fprintf(stderr, "cea: backward error %.3g, bound %.3g (n = %d)\n", r->resid_max, b,
                2 * r->nred);
    return b;
}

START_TEST(test_tie_matches_merged)
{
    const double alpha = 3.0, beta = 2e-5;
    for (int damped = 0; damped < 2; damped++) {
        tvds_model *m = two_chains(damped ? alpha : 0.0, damped ? beta : 0.0);
        /* Merged chain: a1, (a2 = b3), b4. */
        double k1 = 1e4, k2 = 2e4, k3 = 5e3, k4 = 3e4;
        double Km[9] = {k1 + k2, -k2, 0, -k2, k2 + k3, -k3, 0, -k3, k3 + k4};
        double mm[3] = {2.0, 1.5, 3.0}, w[3];
        undamped(3, Km, mm, w);
        tvds_cea_options o = tvds_cea_options_default();
        o.refine = 0; /* the positions given only: the checks index them */
        o.nmodes = 3;
        double s[3] = {0.0, 0.5, 1.0};
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        tvds_cea_result *r = NULL;
        ck_assert_msg(tvds_cea_run(m, -1, s, 3, &o, &r, &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert_int_eq(r->nbranch, 3);
        ck_assert_int_eq(r->ndof, 4);
        ck_assert_int_eq(r->nred, 3);
        for (int p = 0; p < 3; p++)
            for (int b = 0; b < 3; b++) {
                /* Rayleigh modes: zeta = alpha / (2 w) + beta w / 2, s = -zeta w +- i w_d. */
                double z = damped ? alpha / (2 * w[b]) + beta * w[b] / 2 : 0.0;
                double wd = w[b] * sqrt(1 - z * z);
                size_t k = (size_t)p * 3 + b;
                ck_assert_double_eq_tol(r->freq[k], wd / (2 * PI), 1e-10 * wd);
                ck_assert_double_eq_tol(r->re[k], -z * w[b], 1e-9 * w[b]);
                ck_assert_double_eq_tol(r->zeta[k], z, 1e-10);
            }
        ck_assert_int_eq(r->nwin, 0);
        /* Backward error of every eigenpair at round-off level. */
        ck_assert_msg(r->resid_max < backward_bound(r), "backward error %g", r->resid_max);
        tvds_cea_result_free(&r);
        ck_assert_ptr_null(r);
        tvds_model_free(&m);
    }
}
END_TEST

/* ---- 2. mu = 0 on an inclined flexible master against a penalty model --------------------- */

static const double G30 = PI / 6.0;

/* Slave: one node (x, y); master: three nodes on a line at 30 degrees, each (x, y) on springs. */
static tvds_model *inclined(double mu, int *nm)
{
    tvds_model *m = tvds_model_create();
    dof_spec ds[2] = {{1, TVDS_DIR_X, 0.3, 0.5}, {1, TVDS_DIR_Y, 0.3, 0.5}};
    double ms[2] = {0.8, 0.8}, ks[2] = {2e4, 1e4};
    add_sub(m, "slave", 2, ms, ks, ds);
    double c = cos(G30), sn = sin(G30), L = 0.5;
    dof_spec dm[6];
    double mm[6], km[6];
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 2; k++) {
            dm[2 * i + k] = (dof_spec){10 + i, k, i * L * c, i * L * sn};
            mm[2 * i + k] = 0.3 + 0.1 * i;
            km[2 * i + k] = (k ? 3e4 : 5e4) * (1.0 + 0.7 * i);
        }
    }
    add_sub(m, "master", 6, mm, km, dm);
    long mn[3] = {10, 11, 12};
    add_contact(m, 0, 1, 1, 3, mn, mu);
    m->contacts[0].slave_kin[0] = (tvds_fn){.kind = TVDS_FN_RAMP, .amp = 1e3, .t0 = 0, .t1 = 1e4};
    *nm = 6;
    return m;
}

START_TEST(test_mu0_symmetric_penalty)
{
    int nm;
    tvds_model *m = inclined(0.0, &nm);
    double s[2] = {0.3, 0.75}; /* segment 0 at alpha 0.6, segment 1 at alpha 0.5 */
    tvds_cea_options o = tvds_cea_options_default();
    o.refine = 0; /* the positions given only: the checks index them */
    o.nmodes = 7;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_result *r = NULL;
    ck_assert_msg(tvds_cea_run(m, 0, s, 2, &o, &r, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(r->nbranch, 7);
    ck_assert_int_eq(r->nred, 7);
    for (int p = 0; p < 2; p++) {
        /* Independent reference: the constraint as a very stiff spring kp b b^T; the constrained
         * frequencies are the limit kp -> inf, with relative error O(k / kp) = 1e-7 here. */
        double kp = 1e12;
        int seg = p == 0 ? 0 : 1;
        double a = p == 0 ? 0.6 : 0.5;
        double n[2] = {-sin(G30), cos(G30)};
        double b[8] = {0};
        b[0] = n[0], b[1] = n[1];
        b[2 + 2 * seg] = -(1 - a) * n[0], b[3 + 2 * seg] = -(1 - a) * n[1];
        b[4 + 2 * seg] = -a * n[0], b[5 + 2 * seg] = -a * n[1];
        double K[64] = {0}, md[8];
        const tvds_substructure *S = m->subs[0], *Mst = m->subs[1];
        for (int i = 0; i < 2; i++)
            K[i * 8 + i] = S->K[i * 2 + i], md[i] = S->M[i * 2 + i];
        for (int i = 0; i < 6; i++)
            K[(i + 2) * 8 + i + 2] = Mst->K[i * 6 + i], md[i + 2] = Mst->M[i * 6 + i];
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 8; j++)
                K[i * 8 + j] += kp * b[i] * b[j];
        double w[8];
        undamped(8, K, md, w);
        for (int br = 0; br < 7; br++) {
            size_t k = (size_t)p * 7 + br;
            double f = w[br] / (2 * PI);
            ck_assert_msg(fabs(r->freq[k] - f) <= 1e-6 * f, "s=%g branch %d: %.12g vs %.12g", s[p],
                          br, r->freq[k], f);
            /* No damping, no friction: the coupled system is conservative. */
            ck_assert_msg(fabs(r->re[k]) <= 1e-9 * w[br], "re %g", r->re[k]);
        }
    }
    ck_assert_int_eq(r->nwin, 0);
    tvds_cea_result_free(&r);
    tvds_model_free(&m);
}
END_TEST

/* ---- 3. Mode-coupling flutter: closed-form critical mu --------------------------------------- */

/* A block (x, y) held by a horizontal spring k1, a vertical spring k2 and a spring k3 inclined at
 * 45 degrees, pressed on a "belt" of mass m2 on a normal spring kH that moves along x; the belt's
 * two surface nodes are fixed in x and tied in y. Coupled equations (docs/cea.md):
 *   m x'' + K11 x + (K12 - chi mu kH) y - chi mu m2 y'' = 0
 *   (m + m2) y'' + K21 x + (K22 + kH) y = 0. */
static const double FM = 1.0, FM2 = 0.5, FK1 = 1.5e4, FK2 = 1e4, FK3 = 1e4, FKH = 2e4;

/* The block of the flutter test into m at (x, 0): mass FM in x and y, springs k1 and k2 along
 * them and k3 at 45 degrees (K = [k1 + k3/2, k3/2; k3/2, k2 + k3/2]); returns its index. */
static int add_flutter_block(tvds_model *m, double x)
{
    dof_spec ds[2] = {{1, TVDS_DIR_X, x, 0}, {1, TVDS_DIR_Y, x, 0}};
    double ms[2] = {FM, FM}, ks[2] = {FK1 + FK3 / 2, FK2 + FK3 / 2};
    int S = add_sub(m, "block", 2, ms, ks, ds);
    m->subs[S]->K[1] = m->subs[S]->K[2] = FK3 / 2; /* k3 cos45 sin45 */
    return S;
}

/* The block on the two-node belt of springs kx = 1e4, kH / 2 (node masses m2 / 2), fixed in x;
 * tie: the nodes tied in y (else free vertically on their springs). The block slides towards
 * +x relative to the belt: chi = +1. */
static tvds_model *block_on_two_nodes(double mu, int tie)
{
    tvds_model *m = tvds_model_create();
    int S = add_flutter_block(m, 0.5);
    dof_spec db[4] = {{10, TVDS_DIR_X, 0, 0},
                      {10, TVDS_DIR_Y, 0, 0},
                      {11, TVDS_DIR_X, 1, 0},
                      {11, TVDS_DIR_Y, 1, 0}};
    double mb[4] = {FM2 / 2, FM2 / 2, FM2 / 2, FM2 / 2}, kb[4] = {1e4, FKH / 2, 1e4, FKH / 2};
    int B = add_sub(m, "belt", 4, mb, kb, db);
    tvds_term fx0 = {B, 0, 1.0}, fx1 = {B, 2, 1.0}, ty[2] = {{B, 1, 1.0}, {B, 3, -1.0}};
    add_bil(m, 1, &fx0);
    add_bil(m, 1, &fx1);
    if (tie) add_bil(m, 2, ty);
    long mn[2] = {10, 11};
    add_contact(m, S, 1, B, 2, mn, mu);
    m->contacts[0].slave_kin[0] = (tvds_fn){.kind = TVDS_FN_RAMP, .amp = 1e3, .t0 = 0, .t1 = 1e4};
    return m;
}

static tvds_model *oscillator(double mu)
{
    return block_on_two_nodes(mu, 1);
}

/* Coefficients of det(K - L M) = A L^2 + B L + C in L = omega^2 for x = chi mu. */
static void osc_poly(double x, double *A, double *B, double *C)
{
    double K11 = FK1 + FK3 / 2, K12 = FK3 / 2, K22p = FK2 + FK3 / 2 + FKH, Mt = FM + FM2;
    *A = FM * Mt;
    *B = -(K11 * Mt + FM * K22p + x * FM2 * K12);
    *C = K11 * K22p - K12 * (K12 - x * FKH);
}

static double osc_mu_crit(void)
{
    /* Discriminant B^2 - 4AC = 0 as a quadratic in x = chi mu; the smaller positive root. */
    double K11 = FK1 + FK3 / 2, K12 = FK3 / 2, K22p = FK2 + FK3 / 2 + FKH, Mt = FM + FM2;
    double a = K11 * Mt + FM * K22p, b = FM2 * K12, c0 = K11 * K22p - K12 * K12, d = FKH * K12;
    double qa = b * b, qb = 2 * a * b - 4 * FM * Mt * d, qc = a * a - 4 * FM * Mt * c0;
    return (-qb - sqrt(qb * qb - 4 * qa * qc)) / (2 * qa);
}

static double max_re(const tvds_cea_result *r)
{
    double v = -INFINITY;
    for (int i = 0; i < r->npos * r->nbranch; i++)
        if (r->re[i] > v) v = r->re[i];
    return v;
}

START_TEST(test_flutter_closed_form)
{
    double muc = osc_mu_crit();
    ck_assert(muc > 0.6 && muc < 0.7); /* 0.6458 for these numbers */
    tvds_cea_options o = tvds_cea_options_default();
    o.refine = 0; /* the positions given only: the checks index them */
    o.nmodes = 2;
    o.t_eval = 1.0;
    double s = 0.5;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    /* Eigenvalues against the closed form below and above the threshold. */
    double mus[2] = {0.3, muc + 0.05};
    for (int k = 0; k < 2; k++) {
        tvds_model *m = oscillator(mus[k]);
        tvds_cea_result *r = NULL;
        ck_assert_msg(tvds_cea_run(m, 0, &s, 1, &o, &r, &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert_int_eq(r->nbranch, 2);
        ck_assert(r->chi == 1.0);
        double A, B, C;
        osc_poly(mus[k], &A, &B, &C);
        double complex D = csqrt((double complex)(B * B - 4 * A * C));
        double complex L[2] = {(-B - D) / (2 * A), (-B + D) / (2 * A)};
        for (int j = 0; j < 2; j++) {
            double complex lam = csqrt(-L[j]); /* principal root: Im >= 0 */
            if (cimag(lam) < 0) lam = -lam;
            int found = 0;
            for (int b = 0; b < 2; b++)
                if (fabs(r->re[b] - creal(lam)) <= 1e-7 * cabs(lam) &&
                    fabs(2 * PI * r->freq[b] - cimag(lam)) <= 1e-9 * cabs(lam))
                    found = 1;
            ck_assert_msg(found, "mu %g: eigenvalue %g%+gi not found (%g%+gi, %g%+gi)", mus[k],
                          creal(lam), cimag(lam), r->re[0], 2 * PI * r->freq[0], r->re[1],
                          2 * PI * r->freq[1]);
        }
        if (k == 1) {
            ck_assert_int_eq(r->nwin, 1);
            ck_assert(r->win[0].re_max > 0);
        } else {
            ck_assert_int_eq(r->nwin, 0);
        }
        tvds_cea_result_free(&r);
        tvds_model_free(&m);
    }
    /* Scan mu on a grid of 0.01: the first unstable grid point is the first above mu_c. */
    double h = 0.01, first = NAN;
    for (int i = 0; i <= 40 && isnan(first); i++) {
        double mu = 0.45 + i * h;
        tvds_model *m = oscillator(mu);
        tvds_cea_result *r = NULL;
        ck_assert_msg(tvds_cea_run(m, 0, &s, 1, &o, &r, &ctx) == TVDS_OK, "%s", ctx.msg);
        if (r->nwin > 0) first = mu;
        tvds_cea_result_free(&r);
        tvds_model_free(&m);
    }
    ck_assert_msg(first > muc && first <= muc + h + 1e-12, "first unstable mu %g, mu_c %g", first,
                  muc);
    /* Reversed sliding (chi = -1): the same mu is stable (flutter needs chi mu in (mu_c, ...)). */
    o.chi = -1.0;
    tvds_model *m = oscillator(muc + 0.1);
    tvds_cea_result *r = NULL;
    ck_assert_msg(tvds_cea_run(m, 0, &s, 1, &o, &r, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(r->nwin, 0);
    ck_assert(max_re(r) <= 1e-6);
    tvds_cea_result_free(&r);
    tvds_model_free(&m);
}
END_TEST

START_TEST(test_solvers_and_threads_agree)
{
    tvds_model *m = oscillator(0.7);
    add_spring(m, 0, 0, 1, 1, 2e3); /* couples block x to belt y: exercises elements */
    double s[6];
    for (int i = 0; i < 6; i++)
        s[i] = 0.2 * i;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_options o = tvds_cea_options_default();
    o.refine = 0; /* the positions given only: the checks index them */
    o.nmodes = 2;
    o.t_eval = 1.0;
    tvds_cea_result *r[3] = {NULL, NULL, NULL};
    o.solver = TVDS_CEA_QZ;
    o.nthreads = 1;
    ck_assert_msg(tvds_cea_run(m, 0, s, 6, &o, &r[0], &ctx) == TVDS_OK, "%s", ctx.msg);
    o.solver = TVDS_CEA_STANDARD;
    ck_assert_msg(tvds_cea_run(m, 0, s, 6, &o, &r[1], &ctx) == TVDS_OK, "%s", ctx.msg);
    o.solver = TVDS_CEA_AUTO;
    o.nthreads = 2;
    ck_assert_msg(tvds_cea_run(m, 0, s, 6, &o, &r[2], &ctx) == TVDS_OK, "%s", ctx.msg);
    for (int k = 1; k < 3; k++)
        for (int i = 0; i < 12; i++) {
            double sc = 2 * PI * r[0]->freq[i];
            ck_assert_double_eq_tol(r[k]->freq[i], r[0]->freq[i], 1e-9 * r[0]->freq[i]);
            ck_assert_double_eq_tol(r[k]->re[i], r[0]->re[i], 1e-9 * sc);
        }
    for (int k = 0; k < 3; k++) {
        ck_assert_msg(r[k]->resid_max < backward_bound(r[k]), "solver %d: backward error %g", k,
                      r[k]->resid_max);
        tvds_cea_result_free(&r[k]);
    }
    tvds_model_free(&m);
}
END_TEST

/* The C1 master kind on a straight master: the curve is the chord and the frame the chord's, so
 * with the belt rigid in y (its two nodes tied), where the split of the contact force between
 * them does not matter, the eigenvalues are those of straight segments to round-off at every
 * position, unstable ones included (mu = 0.7 > mu_c). */
START_TEST(test_c1_straight_master)
{
    double s[6];
    for (int i = 0; i < 6; i++)
        s[i] = 0.2 * i;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_options o = tvds_cea_options_default();
    o.nmodes = 2;
    o.t_eval = 1.0;
    tvds_cea_result *r[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        tvds_model *m = oscillator(0.7);
        if (k) m->contacts[0].master_kind = TVDS_MASTER_SURFACE_C1;
        ck_assert_msg(tvds_cea_run(m, 0, s, 6, &o, &r[k], &ctx) == TVDS_OK, "%s", ctx.msg);
        tvds_model_free(&m);
    }
    ck_assert_int_eq(r[0]->nwin, 1);
    ck_assert_int_eq(r[1]->nwin, 1);
    for (int i = 0; i < 12; i++) {
        double sc = 2 * PI * r[0]->freq[i];
        double rt = tvds_test_lapack_rtol(2 * r[0]->nred);
        ck_assert_double_eq_tol(r[1]->freq[i], r[0]->freq[i], rt * r[0]->freq[i]);
        ck_assert_double_eq_tol(r[1]->re[i], r[0]->re[i], rt * sc);
    }
    tvds_cea_result_free(&r[0]);
    tvds_cea_result_free(&r[1]);
}
END_TEST

/* ---- 4. MAC tracking through an exact crossing ---------------------------------------------- */

START_TEST(test_mac_tracking_crossing)
{
    /* Slave x mode: sqrt(kx / m) at every position, decoupled (mu = 0, horizontal master).
     * The upper vertical mode moves from omega^2 = 4e4 (alpha = 0) to 2.5e4 (alpha = 1) and
     * crosses it at kx = 3e4. Sorting by frequency would swap them; tracking must not. */
    tvds_model *m = tvds_model_create();
    dof_spec ds[2] = {{1, TVDS_DIR_X, 0, 0}, {1, TVDS_DIR_Y, 0, 0}};
    double ms[2] = {1.0, 1.0}, ks[2] = {3e4, 1e4};
    add_sub(m, "slave", 2, ms, ks, ds);
    dof_spec dm[4] = {{10, TVDS_DIR_X, 0, 0},
                      {10, TVDS_DIR_Y, 0, 0},
                      {11, TVDS_DIR_X, 1, 0},
                      {11, TVDS_DIR_Y, 1, 0}};
    double mm[4] = {1, 1, 1, 1}, km[4] = {1, 1e4, 1, 4e4};
    int B = add_sub(m, "master", 4, mm, km, dm);
    tvds_term f0 = {B, 0, 1.0}, f1 = {B, 2, 1.0};
    add_bil(m, 1, &f0);
    add_bil(m, 1, &f1);
    long mn[2] = {10, 11};
    add_contact(m, 0, 1, B, 2, mn, 0.0);
    int np = 41;
    double s[41];
    for (int i = 0; i < np; i++)
        s[i] = (double)i / (np - 1);
    tvds_cea_options o = tvds_cea_options_default();
    o.refine = 0; /* the positions given only: the checks index them */
    o.nmodes = 3;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_result *r = NULL;
    ck_assert_msg(tvds_cea_run(m, 0, s, np, &o, &r, &ctx) == TVDS_OK, "%s", ctx.msg);
    double fx = sqrt(3e4) / (2 * PI);
    int bx = -1;
    for (int b = 0; b < 3; b++)
        if (fabs(r->freq[b] - fx) < 1e-9 * fx) bx = b;
    ck_assert_int_ge(bx, 0);
    ck_assert_int_eq(bx, 1); /* between the two vertical modes at alpha = 0 */
    for (int i = 0; i < np; i++)
        ck_assert_msg(fabs(r->freq[(size_t)i * 3 + bx] - fx) < 1e-9 * fx,
                      "x-mode branch left its mode at s = %g (%g Hz)", s[i],
                      r->freq[(size_t)i * 3 + bx]);
    /* The upper vertical branch ends at sqrt(2.5e4), below the x mode: a crossing happened. */
    int bu = 2;
    ck_assert_double_eq_tol(r->freq[bu], sqrt(4e4) / (2 * PI), 1e-9 * fx);
    ck_assert_double_eq_tol(r->freq[(size_t)(np - 1) * 3 + bu], sqrt(2.5e4) / (2 * PI), 1e-9 * fx);
    for (int i = 1; i < np; i++) {
        double d = fabs(r->freq[(size_t)i * 3 + bu] - r->freq[(size_t)(i - 1) * 3 + bu]);
        ck_assert_msg(d < 0.05 * fx, "branch jump at s = %g", s[i]);
        ck_assert(r->mac[(size_t)i * 3 + bx] > 0.999);
    }
    tvds_cea_result_free(&r);
    tvds_model_free(&m);
}
END_TEST

/* ---- Rigid master ------------------------------------------------------------------------ */

/* A constant load `value` [N] on DoF dof of substructure sub (below). */
static void add_load(tvds_model *m, int sub, int dof, double value);

/* The block of the flutter test (mu = 0.4) on a rigid belt y = 0 moving along +x at 1e3 m/s,
 * pressed by `press` [N] along -y (0: no load). */
static tvds_model *block_on_belt(double press)
{
    tvds_model *m = tvds_model_create();
    int S = add_flutter_block(m, 0.0);
    if (press != 0.0) add_load(m, S, 1, -press);
    long dummy = 0;
    add_contact(m, S, 1, -1, 1, &dummy, 0.4);
    tvds_contact *c = &m->contacts[0];
    c->master_kind = TVDS_MASTER_RIGID;
    c->rigid_normal[1] = 1.0;
    c->rigid_t1[0] = 1.0;
    c->rigid_motion[0] = (tvds_fn){.kind = TVDS_FN_RAMP, .amp = 1e3, .t0 = 0, .t1 = 1e4};
    return m;
}

START_TEST(test_rigid_master_closed_form)
{
    /* The block of the flutter test on a rigid belt moving along +x: the slave slides towards
     * -x relative to it (chi = -1). y = 0 gives lambda = -K21 x and
     * m x'' + (K11 + chi mu K21) x = 0. */
    tvds_model *m = block_on_belt(0.0);
    tvds_cea_options o = tvds_cea_options_default();
    o.refine = 0; /* the positions given only: the checks index them */
    o.nmodes = 1;
    o.t_eval = 1.0;
    double s[2] = {0.0, 5.0}; /* a rigid master has no length: positions are labels */
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_result *r = NULL;
    ck_assert_msg(tvds_cea_run(m, 0, s, 2, &o, &r, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert(r->chi == -1.0);
    ck_assert_int_eq(r->nred, 1);
    double w = sqrt((FK1 + FK3 / 2 - 0.4 * FK3 / 2) / FM);
    for (int p = 0; p < 2; p++) {
        ck_assert_double_eq_tol(r->freq[p], w / (2 * PI), tvds_test_lapack_rtol(2 * r->nred) * w);
        ck_assert_double_eq_tol(r->re[p], 0.0, 1e-9 * w);
    }
    double L;
    ck_assert_int_eq(tvds_cea_surface_length(m, 0, &L, &ctx), TVDS_ERR_INVALID);
    tvds_cea_result_free(&r);
    tvds_model_free(&m);
}
END_TEST

/* The locus figures say which locus they show (damped or undamped, mu) and give positions in
 * mm, as the tables do; locus.csv keeps metres. */
START_TEST(test_locus_figures_labelled)
{
    tvds_model *m = block_on_belt(0.0);
    tvds_cea_options o = tvds_cea_options_default();
    o.refine = 0;
    o.nmodes = 1;
    o.t_eval = 1.0;
    double s[2] = {0.0, 5.0};
    char dir[64];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_locusfig_");
    for (int u = 0; u < 2; u++) {
        o.undamped = u;
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        tvds_cea_result *r = NULL;
        ck_assert_msg(tvds_cea_run(m, 0, s, 2, &o, &r, &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert(r->mu == m->contacts[0].mu_k && r->undamped == u);
        ck_assert_int_eq(tvds_cea_write_csv(r, dir, &ctx), TVDS_OK);
        (void)tvds_cea_plot(r, dir, &ctx); /* the scripts are written with or without gnuplot */
        char want[96];
        snprintf(want, sizeof want, "(%s, mu = %g)", u ? "undamped" : "damped", r->mu);
        static const char *const gp[2] = {"locus.gp", "stability.gp"};
        for (int k = 0; k < 2; k++) {
            char *t = tvds_test_slurp_in(dir, gp[k]);
            ck_assert_msg(t && strstr(t, want), "%s: no '%s'", gp[k], want);
            ck_assert_msg(strstr(t, "position [mm]") && strstr(t, "$1*1e3") &&
                              !strstr(t, "position [m]"),
                          "%s: positions not in mm", gp[k]);
            free(t);
        }
        tvds_cea_result_free(&r);
    }
    (void)tvds_test_rmtree(dir);
    tvds_model_free(&m);
}
END_TEST

/* ---- Errors --------------------------------------------------------------------------------- */

START_TEST(test_errors)
{
    tvds_model *m = oscillator(0.5);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_result *r = NULL;
    double s = 2.0;
    tvds_cea_options o0 = tvds_cea_options_default();
    o0.t_eval = 1.0;
    ck_assert_int_eq(tvds_cea_run(m, 0, &s, 1, &o0, &r, &ctx), TVDS_ERR_INVALID);
    ck_assert_ptr_null(r);
    ck_assert_msg(strstr(ctx.msg, "off the master surface") != NULL, "%s", ctx.msg);
    tvds_ctx_init(&ctx);
    s = 0.5;
    ck_assert_int_eq(tvds_cea_run(m, 3, &s, 1, NULL, &r, &ctx), TVDS_ERR_INVALID);
    /* No sliding velocity: chi cannot be derived. */
    tvds_fn_clear(&m->contacts[0].slave_kin[0]);
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_cea_run(m, 0, &s, 1, NULL, &r, &ctx), TVDS_ERR_INVALID);
    ck_assert(strstr(ctx.msg, "chi") != NULL);
    /* ARPACK asked for on a problem too small for it: said so, not blamed on the geometry. */
    tvds_cea_options oa = tvds_cea_options_default();
    oa.refine = 0;
    oa.chi = 1.0;
    oa.nmodes = 1;
    oa.solver = TVDS_CEA_ARPACK;
    tvds_ctx_init(&ctx);
    ck_assert_int_ne(tvds_cea_run(m, 0, &s, 1, &oa, &r, &ctx), TVDS_OK);
    ck_assert_ptr_null(r);
    ck_assert_msg(strstr(ctx.msg, "needs a larger problem") != NULL, "%s", ctx.msg);
    double L = 0;
    ck_assert_int_eq(tvds_cea_surface_length(m, 0, &L, &ctx), TVDS_OK);
    ck_assert_double_eq_tol(L, 1.0, 1e-15);
    /* Allocation failures are reported and leak nothing (ASan checks the leaks). */
    tvds_cea_options o = tvds_cea_options_default();
    o.refine = 0; /* the positions given only: the checks index them */
    o.chi = 1.0;
    o.nthreads = 1;
    for (int k = 0; k < 40; k++) {
        tvds_ctx_init(&ctx);
        tvds_alloc_fail_after(k);
        int rc = tvds_cea_run(m, 0, &s, 1, &o, &r, &ctx);
        tvds_alloc_fail_after(-1);
        if (rc == TVDS_OK) {
            tvds_cea_result_free(&r);
            break;
        }
        ck_assert_int_eq(rc, TVDS_ERR_NOMEM);
        ck_assert_ptr_null(r);
    }
    tvds_model_free(&m);
}
END_TEST

/* ---- Linearisation about the preloaded sliding state ------------------------------------- */

static void add_load(tvds_model *m, int sub, int dof, double value)
{
    m->loads = tvds_realloc(m->loads, (size_t)(m->nload + 1) * sizeof *m->loads);
    tvds_load *l = &m->loads[m->nload++];
    memset(l, 0, sizeof *l);
    l->name = tvds_strdup("preload");
    l->sub = sub;
    l->dof = dof;
    l->fn = (tvds_fn){.kind = TVDS_FN_CONST, .amp = value};
}

/* The eigenvalues er + i ei (nd) of the nd x nd row-major matrix A (not modified). */
static void eig_real(const double *A, int nd, double *er, double *ei)
{
    double *B = malloc((size_t)nd * nd * sizeof *B), dum[1];
    ck_assert_ptr_nonnull(B);
    memcpy(B, A, (size_t)nd * nd * sizeof *B);
    ck_assert_int_eq(LAPACKE_dgeev(LAPACK_ROW_MAJOR, 'N', 'N', nd, B, nd, er, ei, dum, 1, dum, 1),
                     0);
    free(B);
}

/* Largest relative distance |mu2 - e| / |mu2| from each of the first nb branches of r (position
 * 0, mu2 = -lambda^2) to the nearest of the ne eigenvalues e = er + i ei of an undamped reference
 * M^-1 K (whose s^2 = -e). */
static double branch_dev(const tvds_cea_result *r, int nb, const double *er, const double *ei,
                         int ne)
{
    double dev = 0.0;
    for (int b = 0; b < nb; b++) {
        double complex l = r->re[b] + I * 2 * PI * r->freq[b], mu2 = -(l * l);
        double best = INFINITY;
        for (int k = 0; k < ne; k++)
            best = fmin(best, cabs(mu2 - (er[k] + I * ei[k])) / cabs(mu2));
        dev = fmax(dev, best);
    }
    return dev;
}

/* Penalty model of the inclined case: contact force from the exact deformed geometry of the
 * segment seg (x_C projected on the deformed T1 T2), normal force kp times the penetration,
 * friction chi mu along the deformed tangent. F (8) is the force on the 8 DoFs. */
static void penalty_force(const double *X, const double *u, int seg, double kp, double chimu,
                          double *F)
{
    double x1[2], x2[2], xc[2];
    for (int k = 0; k < 2; k++) {
        xc[k] = X[k] + u[k];
        x1[k] = X[2 + 2 * seg + k] + u[2 + 2 * seg + k];
        x2[k] = X[4 + 2 * seg + k] + u[4 + 2 * seg + k];
    }
    double d[2] = {x2[0] - x1[0], x2[1] - x1[1]}, L = hypot(d[0], d[1]);
    double t[2] = {d[0] / L, d[1] / L}, n[2] = {-t[1], t[0]};
    double a = ((xc[0] - x1[0]) * t[0] + (xc[1] - x1[1]) * t[1]) / L;
    double g = (xc[0] - x1[0]) * n[0] + (xc[1] - x1[1]) * n[1];
    double ln = -kp * g, e[2] = {n[0] - chimu * t[0], n[1] - chimu * t[1]};
    memset(F, 0, 8 * sizeof *F);
    for (int k = 0; k < 2; k++) {
        F[k] = ln * e[k];
        F[2 + 2 * seg + k] = -(1 - a) * ln * e[k];
        F[4 + 2 * seg + k] = -a * ln * e[k];
    }
}

START_TEST(test_deformed_matches_penalty)
{
    /* The inclined master (three nodes on springs at 30 degrees) with the slave pressed on it
     * by 600 N along -n and sliding with mu = 0.3: the master rotates under the load, which the
     * deformed linearisation must account for. Reference: an independent penalty model with the
     * exact nonlinear contact geometry, its static state by Newton and its tangent stiffness by
     * central finite differences; its eigenvalues converge to the constrained ones as
     * O(k / kp) = 5e-7 here. */
    const double mu = 0.3, P = 600.0, kp = 1e11;
    int nm;
    tvds_model *m = inclined(mu, &nm);
    double n0[2] = {-sin(G30), cos(G30)};
    add_load(m, 0, 0, -P * n0[0]);
    add_load(m, 0, 1, -P * n0[1]);
    double s = 0.3; /* segment 0, alpha 0.6 */
    tvds_cea_options o = tvds_cea_options_default();
    o.refine = 0;
    o.nmodes = 7;
    o.t_eval = 1.0;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_result *rd = NULL, *ru = NULL;
    ck_assert_msg(tvds_cea_run(m, 0, &s, 1, &o, &rd, &ctx) == TVDS_OK, "%s", ctx.msg);
    o.state = TVDS_CEA_UNDEFORMED;
    ck_assert_msg(tvds_cea_run(m, 0, &s, 1, &o, &ru, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert(rd->chi == 1.0);
    ck_assert_double_eq(ru->lambda_n[0], 0.0);

    /* Penalty model: X = slave placed at s, then the master nodes. */
    double X[8], K[64] = {0}, md[8], f[8] = {0}, u[8] = {0};
    double c = cos(G30), sn = sin(G30), L = 0.5;
    for (int i = 0; i < 3; i++)
        X[2 + 2 * i] = i * L * c, X[3 + 2 * i] = i * L * sn;
    X[0] = 0.6 * X[4], X[1] = 0.6 * X[5];
    const tvds_substructure *S = m->subs[0], *Mst = m->subs[1];
    for (int i = 0; i < 2; i++)
        K[i * 8 + i] = S->K[i * 2 + i], md[i] = S->M[i * 2 + i];
    for (int i = 0; i < 6; i++)
        K[(i + 2) * 8 + i + 2] = Mst->K[i * 6 + i], md[i + 2] = Mst->M[i * 6 + i];
    f[0] = -P * n0[0], f[1] = -P * n0[1];
    double J[64], R[8], Fp[8], Fm[8], h = 1e-7;
    for (int it = 0; it < 50; it++) {
        double F[8];
        penalty_force(X, u, 0, kp, mu, F);
        double rn = 0.0;
        for (int i = 0; i < 8; i++) {
            R[i] = -f[i] - F[i];
            for (int j = 0; j < 8; j++)
                R[i] += K[i * 8 + j] * u[j];
            rn += R[i] * R[i];
        }
        for (int j = 0; j < 8; j++) {
            double uj = u[j];
            u[j] = uj + h;
            penalty_force(X, u, 0, kp, mu, Fp);
            u[j] = uj - h;
            penalty_force(X, u, 0, kp, mu, Fm);
            u[j] = uj;
            for (int i = 0; i < 8; i++)
                J[i * 8 + j] = K[i * 8 + j] - (Fp[i] - Fm[i]) / (2 * h);
        }
        if (sqrt(rn) < 1e-9 * P) break;
        int ipiv[8];
        double A[64], b[8];
        memcpy(A, J, sizeof A);
        for (int i = 0; i < 8; i++)
            b[i] = -R[i];
        ck_assert_int_eq(LAPACKE_dgesv(LAPACK_ROW_MAJOR, 8, 1, A, 8, ipiv, b, 1), 0);
        for (int i = 0; i < 8; i++)
            u[i] += b[i];
    }
    /* Static normal force: kp times the penetration. */
    double F[8];
    penalty_force(X, u, 0, kp, mu, F);
    double lnp = hypot(F[0], F[1]) / sqrt(1 + mu * mu);
    ck_assert_msg(fabs(rd->lambda_n[0] - lnp) < 1e-6 * lnp, "lambda_n %.12g vs penalty %.12g",
                  rd->lambda_n[0], lnp);
    /* Eigenvalues of M^-1 K_T: s^2 = -eig; the penalty mode (~kp / m) is the largest. */
    double A[64], er[8], ei[8];
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            A[i * 8 + j] = J[i * 8 + j] / md[i];
    eig_real(A, 8, er, ei);
    double maxdev_d = branch_dev(rd, 7, er, ei, 8), maxdev_u = branch_dev(ru, 7, er, ei, 8);
    ck_assert_msg(maxdev_d < 2e-5, "deformed linearisation vs penalty: %g", maxdev_d);
    /* The preload matters here: the undeformed linearisation is far off, so the check above
     * can fail. */
    ck_assert_msg(maxdev_u > 1e-3, "undeformed vs penalty: %g", maxdev_u);
    tvds_cea_result_free(&rd);
    tvds_cea_result_free(&ru);
    tvds_model_free(&m);
}
END_TEST

START_TEST(test_deformed_rigid_master)
{
    /* On a rigid master nothing rotates: the deformed and undeformed linearisations agree,
     * and the static normal force of the block pressed by 100 N, held in x by its springs
     * against the friction, is 100 / (1 + chi mu K21 / K11). */
    tvds_model *m = block_on_belt(100.0);
    tvds_cea_options o = tvds_cea_options_default();
    o.nmodes = 1;
    o.t_eval = 1.0;
    double s[2] = {0.0, 5.0};
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_result *rd = NULL, *ru = NULL;
    ck_assert_msg(tvds_cea_run(m, 0, s, 2, &o, &rd, &ctx) == TVDS_OK, "%s", ctx.msg);
    o.state = TVDS_CEA_UNDEFORMED;
    ck_assert_msg(tvds_cea_run(m, 0, s, 2, &o, &ru, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(rd->npos, ru->npos);
    double K11 = FK1 + FK3 / 2, K21 = FK3 / 2, chi = -1.0, ln = 100.0 / (1 + chi * 0.4 * K21 / K11);
    for (int p = 0; p < rd->npos; p++) {
        ck_assert_double_eq_tol(rd->freq[p], ru->freq[p], 1e-12 * rd->freq[p]);
        ck_assert_double_eq_tol(rd->re[p], ru->re[p], 1e-9 * rd->freq[p]);
        ck_assert_double_eq_tol(rd->lambda_n[p], ln, 1e-10 * ln);
    }
    tvds_cea_result_free(&rd);
    tvds_cea_result_free(&ru);
    tvds_model_free(&m);
}
END_TEST

/* The block of the flutter test on a two-node deformable master whose nodes are free
 * vertically on springs kH / 2 each (no tie): the stiffness and mass the block feels through
 * the contact change with alpha, and so does the critical friction coefficient. */
static tvds_model *oscillator_free_nodes(double mu)
{
    return block_on_two_nodes(mu, 0);
}

START_TEST(test_refine_finds_narrow_window)
{
    /* mu = 0.652 is unstable only for alpha in about [0.415, 0.585] (the coalescence of the two
     * branches is closest there): a uniform grid of four positions 0.3 apart misses the
     * window; with the refinement (default ds_min = 2.5e-4 of the span) the same four positions
     * find it, with edges where a 2001-position grid puts them. */
    tvds_model *m = oscillator_free_nodes(0.652);
    tvds_cea_options o = tvds_cea_options_default();
    o.nmodes = 2;
    o.t_eval = 1.0;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    enum { NF = 2001 };
    static double sf[NF];
    for (int i = 0; i < NF; i++)
        sf[i] = (double)i / (NF - 1);
    o.refine = 0;
    tvds_cea_result *rf = NULL, *rc = NULL, *rr = NULL;
    ck_assert_msg(tvds_cea_run(m, 0, sf, NF, &o, &rf, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(rf->nwin, 1);
    double w_in = rf->win[0].s_in, w_out = rf->win[0].s_out;
    ck_assert(w_in > 0.35 && w_out < 0.65 && w_out - w_in < 0.2);
    double sc[4] = {0.05, 0.35, 0.65, 0.95};
    ck_assert_msg(tvds_cea_run(m, 0, sc, 4, &o, &rc, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(rc->nwin, 0);
    o.refine = 1;
    ck_assert_msg(tvds_cea_run(m, 0, sc, 4, &o, &rr, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(rr->nwin, 1);
    ck_assert_int_eq(rr->capped, 0);
    ck_assert(rr->npos == 4 + rr->nrefined && rr->npos < 400);
    ck_assert_msg(fabs(rr->win[0].s_in - w_in) < 1e-3 && fabs(rr->win[0].s_out - w_out) < 1e-3,
                  "refined window [%g, %g], fine [%g, %g]", rr->win[0].s_in, rr->win[0].s_out, w_in,
                  w_out);
    ck_assert_double_eq_tol(rr->win[0].re_max, rf->win[0].re_max, 0.02 * rf->win[0].re_max);
    /* Positions stay in path order. */
    for (int i = 1; i < rr->npos; i++)
        ck_assert(rr->s[i] > rr->s[i - 1]);
    tvds_cea_result_free(&rf);
    tvds_cea_result_free(&rc);
    tvds_cea_result_free(&rr);
    tvds_model_free(&m);
}
END_TEST

START_TEST(test_growth_along_path)
{
    /* The flutter oscillator above mu_c is unstable at every position with one real part
     * sigma (nothing depends on the position). Its slave starts at s = 0.5 of the unit belt and
     * slides at 0.1 m/s (slave_kin ramp): over [0, 3 s] it stays inside, G = exp(3 sigma);
     * over [0, 8 s] it leaves at s = 1 (t = 5 s), G = exp(5 sigma). */
    tvds_model *m = oscillator(osc_mu_crit() + 0.05);
    tvds_cea_options o = tvds_cea_options_default();
    o.nmodes = 2;
    o.t_eval = 1.0;
    double s[5] = {0.0, 0.25, 0.5, 0.75, 1.0};
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_result *r = NULL;
    ck_assert_msg(tvds_cea_run(m, 0, s, 5, &o, &r, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(r->nwin, 1);
    double sigma = r->win[0].re_max, sa;
    ck_assert(sigma > 0);
    ck_assert_double_eq_tol(r->win[0].s_in, 0.0, 1e-12);
    ck_assert_double_eq_tol(r->win[0].s_out, 1.0, 1e-12);
    ck_assert_int_eq(tvds_cea_slave_abscissa(m, 0, 0, &sa, &ctx), TVDS_OK);
    ck_assert_double_eq_tol(sa, 0.5, 1e-12);
    ck_assert_int_eq(tvds_cea_growth(r, m, 0, sa, 3.0, 1e-3, &ctx), TVDS_OK);
    ck_assert_double_eq_tol(r->win[0].t_start, 0.0, 1e-12);
    ck_assert_double_eq_tol(r->win[0].t_end, 3.0, 1e-12);
    ck_assert_double_eq_tol(log(r->win[0].growth_pred), 3.0 * sigma, 1e-6 * sigma);
    ck_assert_int_eq(tvds_cea_growth(r, m, 0, sa, 8.0, 1e-3, &ctx), TVDS_OK);
    ck_assert_double_eq_tol(r->win[0].t_end, 5.0, 1.5e-3);
    ck_assert_double_eq_tol(log(r->win[0].growth_pred), 5.0 * sigma, 2e-3 * sigma);
    /* A path that starts beyond the surface never enters: NaN. */
    ck_assert_int_eq(tvds_cea_growth(r, m, 0, 1.5, 1.0, 1e-3, &ctx), TVDS_OK);
    ck_assert(isnan(r->win[0].growth_pred) && isnan(r->win[0].t_start));
    tvds_cea_result_free(&r);
    tvds_model_free(&m);
}
END_TEST

/* ---- Several contact nodes --------------------------------------------------------------------
 */

/* Two copies of the friction oscillator in one model: blocks 1 (x = 0.5) and 2 (x = 2.5) in one
 * substructure, on one master surface 10-11-12-13 whose halves 10-11 and 12-13 are the two belts
 * (each held in x, its two nodes tied in y); the segment 11-12 carries no slave. */
static tvds_model *two_oscillators(double mu)
{
    tvds_model *m = tvds_model_create();
    dof_spec ds[4] = {{1, TVDS_DIR_X, 0.5, 0},
                      {1, TVDS_DIR_Y, 0.5, 0},
                      {2, TVDS_DIR_X, 2.5, 0},
                      {2, TVDS_DIR_Y, 2.5, 0}};
    double ms[4] = {FM, FM, FM, FM};
    double ks[4] = {FK1 + FK3 / 2, FK2 + FK3 / 2, FK1 + FK3 / 2, FK2 + FK3 / 2};
    int S = add_sub(m, "blocks", 4, ms, ks, ds);
    m->subs[S]->K[0 * 4 + 1] = m->subs[S]->K[1 * 4 + 0] = FK3 / 2;
    m->subs[S]->K[2 * 4 + 3] = m->subs[S]->K[3 * 4 + 2] = FK3 / 2;
    dof_spec db[8];
    double mb[8], kb[8];
    for (int i = 0; i < 4; i++) {
        db[2 * i] = (dof_spec){10 + i, TVDS_DIR_X, i, 0};
        db[2 * i + 1] = (dof_spec){10 + i, TVDS_DIR_Y, i, 0};
        mb[2 * i] = mb[2 * i + 1] = FM2 / 2;
        kb[2 * i] = 1e4;
        kb[2 * i + 1] = FKH / 2;
    }
    int B = add_sub(m, "belts", 8, mb, kb, db);
    for (int i = 0; i < 4; i++) {
        tvds_term fx = {B, 2 * i, 1.0};
        add_bil(m, 1, &fx);
    }
    tvds_term tie0[2] = {{B, 1, 1.0}, {B, 3, -1.0}}, tie1[2] = {{B, 5, 1.0}, {B, 7, -1.0}};
    add_bil(m, 2, tie0);
    add_bil(m, 2, tie1);
    long mn[4] = {10, 11, 12, 13};
    add_contact(m, S, 1, B, 4, mn, mu);
    tvds_contact *c = &m->contacts[0];
    c->nslave = 2;
    c->slave_nodes = tvds_realloc(c->slave_nodes, 2 * sizeof(long));
    c->slave_nodes[1] = 2;
    c->slave_kin[0] = (tvds_fn){.kind = TVDS_FN_RAMP, .amp = 1e3, .t0 = 0, .t1 = 1e4};
    return m;
}

/* The same two oscillators as two contacts: block 1 on belt 10-11, block 2 on belt 12-13. */
static tvds_model *two_oscillators_two_contacts(double mu)
{
    tvds_model *m = two_oscillators(mu);
    tvds_contact *c = &m->contacts[0];
    c->nslave = 1;
    c->nmaster = 2;
    long mn[2] = {12, 13};
    add_contact(m, 0, 2, 1, 2, mn, mu);
    m->contacts[1].slave_kin[0] = m->contacts[0].slave_kin[0];
    return m;
}

/* Each of the 2 branches of r1 (one system) found twice among the 4 of r2 (two copies of it),
 * within 1e-6 (relative); returns the largest such distance. what, mu: the message's. */
static double found_twice(const tvds_cea_result *r1, const tvds_cea_result *r2, const char *what,
                          double mu)
{
    double worst = 0.0;
    for (int b = 0; b < 2; b++) {
        double complex l1 = r1->re[b] + I * 2 * PI * r1->freq[b];
        int hits = 0;
        for (int q = 0; q < 4; q++) {
            double complex l2 = r2->re[q] + I * 2 * PI * r2->freq[q];
            double d = cabs(l2 - l1) / cabs(l1);
            if (d < 1e-6) {
                hits++;
                worst = fmax(worst, d);
            }
        }
        ck_assert_msg(hits == 2, "%s, mu %g: eigenvalue %g%+gi found %d times", what, mu, creal(l1),
                      cimag(l1), hits);
    }
    return worst;
}

START_TEST(test_multi_two_systems)
{
    /* Both nodes active: every eigenvalue of the single oscillator appears twice, below and
     * above its flutter threshold. The two copies are computed in one projected problem whose
     * null-space basis mixes them: they agree with the single-node run to round-off. */
    double muc = osc_mu_crit(), mus[2] = {0.3, muc + 0.05};
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    double worst = 0.0;
    int n2 = 0; /* order of the two systems' linearised problem */
    for (int k = 0; k < 2; k++) {
        tvds_cea_options o = tvds_cea_options_default();
        o.refine = 0;
        o.t_eval = 1.0;
        o.nmodes = 2;
        o.nextra = 0;
        double s = 0.5;
        tvds_model *m1 = oscillator(mus[k]);
        tvds_cea_result *r1 = NULL, *r2 = NULL;
        ck_assert_msg(tvds_cea_run(m1, 0, &s, 1, &o, &r1, &ctx) == TVDS_OK, "%s", ctx.msg);
        tvds_model *m2 = two_oscillators(mus[k]);
        o.nmodes = 4;
        o.slave = TVDS_CEA_ALL_SLAVES;
        ck_assert_msg(tvds_cea_run(m2, 0, &s, 1, &o, &r2, &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert_int_eq(r2->nred, 2 * r1->nred);
        ck_assert(r2->chi == 1.0);
        worst = fmax(worst, found_twice(r1, r2, "one contact", mus[k]));
        n2 = 2 * r2->nred;
        ck_assert_int_eq(r2->nwin, k == 1 ? 2 : 0);
        /* As two contacts (TVDS_CEA_ALL_CONTACTS): the same eigenvalues again. */
        tvds_model *m3 = two_oscillators_two_contacts(mus[k]);
        tvds_cea_result *r3 = NULL;
        ck_assert_msg(tvds_cea_run(m3, TVDS_CEA_ALL_CONTACTS, &s, 1, &o, &r3, &ctx) == TVDS_OK,
                      "%s", ctx.msg);
        ck_assert_int_eq(r3->nred, 2 * r1->nred);
        worst = fmax(worst, found_twice(r1, r3, "two contacts", mus[k]));
        tvds_cea_result_free(&r3);
        tvds_model_free(&m3);
        tvds_cea_result_free(&r1);
        tvds_cea_result_free(&r2);
        tvds_model_free(&m1);
        tvds_model_free(&m2);
    }
    ck_assert_msg(worst < tvds_test_lapack_rtol(n2), "two systems vs one: %g", worst);
    /* A position that puts the second node off the surface is refused. */
    tvds_model *m = two_oscillators(0.3);
    tvds_cea_options o = tvds_cea_options_default();
    o.slave = TVDS_CEA_ALL_SLAVES;
    o.t_eval = 1.0;
    double s = 1.2; /* node 1 at 1.2 is on the surface [0, 3], node 2 at 3.2 is off */
    tvds_cea_result *r = NULL;
    ck_assert_int_eq(tvds_cea_run(m, 0, &s, 1, &o, &r, &ctx), TVDS_ERR_INVALID);
    ck_assert_ptr_null(r);
    tvds_model_free(&m);
}
END_TEST

/* A full symmetric positive definite stiffness K = k0 (Q Q^T / n + I) (n x n), Q with entries
 * in [-1, 1) from a fixed linear congruence started at seed. */
static void spd_stiffness(int n, double k0, unsigned long long seed, double *K)
{
    double *Q = malloc((size_t)n * n * sizeof *Q);
    ck_assert_ptr_nonnull(Q);
    unsigned long long st = seed;
    for (int i = 0; i < n * n; i++) {
        st = st * 6364136223846793005ULL + 1442695040888963407ULL;
        Q[i] = (double)(st >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double a = i == j ? 1.0 : 0.0;
            for (int q = 0; q < n; q++)
                a += Q[i * n + q] * Q[j * n + q] / n;
            K[i * n + j] = k0 * a;
        }
    free(Q);
}

START_TEST(test_multi_rigid_penalty)
{
    /* NB blocks in one substructure with a full symmetric positive definite stiffness (every x
     * coupled with every y), pressed on a rigid belt moving along +x (chi = -1) by 50 N each:
     * the multi-node primal assembly against an independent penalty model, contact stiffness kp
     * in y and the friction force chi mu kp y in x at every node. The penalty eigenvalues and
     * normal forces converge to the constrained ones as O(k / kp) = 1e-7. */
    enum { NB = 4, ND = 2 * NB };
    const double mu = 0.4, kp = 1e11, P = 50.0, k0 = 1e4;
    tvds_model *m = tvds_model_create();
    dof_spec ds[ND];
    double ms[ND], kd[ND];
    for (int i = 0; i < NB; i++) {
        ds[2 * i] = (dof_spec){1 + i, TVDS_DIR_X, i, 0};
        ds[2 * i + 1] = (dof_spec){1 + i, TVDS_DIR_Y, i, 0};
        ms[2 * i] = ms[2 * i + 1] = 1.0 + 0.25 * i;
        kd[2 * i] = kd[2 * i + 1] = 0.0;
    }
    int S = add_sub(m, "blocks", ND, ms, kd, ds);
    double K[ND * ND];
    spd_stiffness(ND, k0, 12345, K);
    for (int i = 0; i < ND; i++)
        for (int j = 0; j < ND; j++)
            m->subs[S]->K[(size_t)j * ND + i] = K[i * ND + j];
    long dummy = 0;
    add_contact(m, S, 1, -1, 1, &dummy, mu);
    tvds_contact *c = &m->contacts[0];
    c->master_kind = TVDS_MASTER_RIGID;
    c->rigid_normal[1] = 1.0;
    c->rigid_t1[0] = 1.0;
    c->rigid_motion[0] = (tvds_fn){.kind = TVDS_FN_RAMP, .amp = 1e3, .t0 = 0, .t1 = 1e4};
    c->nslave = NB;
    c->slave_nodes = tvds_realloc(c->slave_nodes, NB * sizeof(long));
    for (int i = 0; i < NB; i++) {
        c->slave_nodes[i] = 1 + i;
        add_load(m, S, 2 * i + 1, -P);
    }
    tvds_cea_options o = tvds_cea_options_default();
    o.refine = 0;
    o.t_eval = 1.0;
    o.nmodes = NB;
    o.nextra = 0;
    o.slave = TVDS_CEA_ALL_SLAVES;
    double s = 0.0;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_result *r = NULL;
    ck_assert_msg(tvds_cea_run(m, 0, &s, 1, &o, &r, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert(r->chi == -1.0);
    ck_assert_int_eq(r->nred, NB);
    ck_assert_int_eq(r->nbranch, NB);
    /* Penalty model: K_p = K + kp e_y e_y^T - chi mu kp e_x e_y^T at every node. */
    double chi = -1.0, Kp[ND * ND], u[ND], A[ND * ND], er[ND], ei[ND];
    int ipiv[ND];
    memcpy(Kp, K, sizeof Kp);
    for (int i = 0; i < NB; i++) {
        Kp[(2 * i + 1) * ND + 2 * i + 1] += kp;
        Kp[(2 * i) * ND + 2 * i + 1] += -chi * mu * kp;
    }
    memcpy(A, Kp, sizeof A);
    for (int i = 0; i < ND; i++)
        u[i] = (i % 2) ? -P : 0.0;
    ck_assert_int_eq(LAPACKE_dgesv(LAPACK_ROW_MAJOR, ND, 1, A, ND, ipiv, u, 1), 0);
    double ln = 0.0;
    for (int i = 0; i < NB; i++)
        ln += -kp * u[2 * i + 1];
    double dln = fabs(r->lambda_n[0] - ln) / ln;
    ck_assert_msg(dln < 10 * k0 / kp, "sum of normal forces %.12g vs penalty %.12g", r->lambda_n[0],
                  ln);
    for (int i = 0; i < ND; i++)
        for (int j = 0; j < ND; j++)
            A[i * ND + j] = Kp[i * ND + j] / ms[i];
    eig_real(A, ND, er, ei);
    double maxdev = branch_dev(r, NB, er, ei, ND);
    ck_assert_msg(maxdev < 10 * k0 / kp, "multi-node vs penalty: %g", maxdev);
    /* The friction terms matter: the penalty model without them is far off. */
    for (int i = 0; i < ND; i++)
        for (int j = 0; j < ND; j++)
            A[i * ND + j] =
                (Kp[i * ND + j] + (i % 2 == 0 && j == i + 1 ? chi * mu * kp : 0.0)) / ms[i];
    eig_real(A, ND, er, ei);
    double dev0 = branch_dev(r, NB, er, ei, ND);
    ck_assert_msg(dev0 > 1e-2, "mu = 0 penalty vs multi-node: %g", dev0);
    tvds_cea_result_free(&r);
    tvds_model_free(&m);
}
END_TEST

/* Three blocks (3 DoFs each, equal masses per node) with a full symmetric positive definite
 * stiffness, pressed by 50 N each on a rigid plane of normal R e_z that moves along
 * R (-1, -0.5, 0): the slaves slide along R (1, 0.5, 0) / |.|, oblique to the plane's t1 = R e_x.
 * Everything is rotated by R (stiffness, coordinates, normal, motion, loads). K0 (9 x 9,
 * row-major, unrotated) is returned when non-NULL. */
enum { P3_NB = 3, P3_ND = 9 };
static const double P3_MU = 0.35, P3_P = 50.0, P3_K0 = 1e4;

static tvds_model *plane3d(const double R[9], double *K0)
{
    tvds_model *m = tvds_model_create();
    dof_spec ds[P3_ND];
    double ms[P3_ND], kd[P3_ND];
    for (int i = 0; i < P3_NB; i++)
        for (int k = 0; k < 3; k++) {
            ds[3 * i + k] = (dof_spec){1 + i, TVDS_DIR_X + k, R[0] * i, R[3] * i};
            ms[3 * i + k] = 1.0 + 0.3 * i;
            kd[3 * i + k] = 0.0;
        }
    int S = add_sub(m, "blocks", P3_ND, ms, kd, ds);
    double K[P3_ND * P3_ND], G[P3_ND * P3_ND] = {0};
    spd_stiffness(P3_ND, P3_K0, 777, K);
    if (K0) memcpy(K0, K, sizeof K);
    for (int b = 0; b < P3_NB; b++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                G[(3 * b + i) * P3_ND + 3 * b + j] = R[i * 3 + j];
    /* K' = G K G^T (symmetric: the storage order does not matter). */
    for (int i = 0; i < P3_ND; i++)
        for (int j = 0; j < P3_ND; j++) {
            double a = 0.0;
            for (int p = 0; p < P3_ND; p++)
                for (int q = 0; q < P3_ND; q++)
                    a += G[i * P3_ND + p] * K[p * P3_ND + q] * G[j * P3_ND + q];
            m->subs[S]->K[(size_t)j * P3_ND + i] = a;
        }
    long dummy = 0;
    add_contact(m, S, 1, -1, 1, &dummy, P3_MU);
    tvds_contact *c = &m->contacts[0];
    c->dim = 3;
    c->master_kind = TVDS_MASTER_RIGID;
    double v0[3] = {-1.0, -0.5, 0.0};
    for (int k = 0; k < 3; k++) {
        c->rigid_normal[k] = R[k * 3 + 2];
        c->rigid_t1[k] = R[k * 3 + 0];
        double v = R[k * 3 + 0] * v0[0] + R[k * 3 + 1] * v0[1];
        c->rigid_motion[k] = (tvds_fn){.kind = TVDS_FN_RAMP, .amp = 1e3 * v, .t0 = 0, .t1 = 1e4};
    }
    c->nslave = P3_NB;
    c->slave_nodes = tvds_realloc(c->slave_nodes, P3_NB * sizeof(long));
    for (int i = 0; i < P3_NB; i++) {
        c->slave_nodes[i] = 1 + i;
        for (int k = 0; k < 3; k++)
            add_load(m, S, 3 * i + k, -P3_P * R[k * 3 + 2]);
    }
    return m;
}

START_TEST(test_multi_plane3d)
{
    /* (a) Against a penalty model: per node the force kp g (n - mu t) with g = n . u, i.e. the
     * stiffness kp (n - mu t) n^T, t the sliding direction, and the damping of t turning with
     * the tangential velocity (finite differences); converges as O(k / kp) = 1e-7. With the
     * direction frozen (no_lateral) the CEA matches the stiffness-only reference.
     * (b) Rotating the whole model by R changes no eigenvalue and no normal force beyond
     * round-off. */
    const double kp = 1e11;
    double Id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, R[9];
    double ax[3] = {1 / sqrt(14.0), 2 / sqrt(14.0), 3 / sqrt(14.0)}, th = 0.7;
    double cth = cos(th), sth = sin(th);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double cross = 0.0;
            if (i != j) {
                int k = 3 - i - j;
                double sg = ((j - i + 3) % 3 == 1) ? -1.0 : 1.0;
                cross = sg * ax[k];
            }
            R[i * 3 + j] = (i == j ? cth : 0.0) + (1 - cth) * ax[i] * ax[j] + sth * cross;
        }
    double K0[P3_ND * P3_ND];
    tvds_model *m0 = plane3d(Id, K0), *m1 = plane3d(R, NULL);
    tvds_cea_options o = tvds_cea_options_default();
    o.refine = 0;
    o.t_eval = 1.0;
    o.nmodes = 2 * P3_NB;
    o.nextra = 0;
    o.slave = TVDS_CEA_ALL_SLAVES;
    double s = 0.0;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_result *r0 = NULL, *r1 = NULL;
    ck_assert_msg(tvds_cea_run(m0, 0, &s, 1, &o, &r0, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_msg(tvds_cea_run(m1, 0, &s, 1, &o, &r1, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(r0->nred, 2 * P3_NB);
    ck_assert_int_eq(r0->nbranch, 2 * P3_NB);
    /* (a) Penalty: n = e_z, t = (1, 0.5, 0) / |.| (the slave relative to the plane). */
    double n[3] = {0, 0, 1}, t[3] = {1 / sqrt(1.25), 0.5 / sqrt(1.25), 0};
    double Kp[P3_ND * P3_ND], A[P3_ND * P3_ND], u[P3_ND], er[P3_ND], ei[P3_ND], dum[1];
    int ipiv[P3_ND];
    memcpy(Kp, K0, sizeof Kp);
    for (int b = 0; b < P3_NB; b++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                Kp[(3 * b + i) * P3_ND + 3 * b + j] += kp * (n[i] - P3_MU * t[i]) * n[j];
    memcpy(A, Kp, sizeof A);
    for (int i = 0; i < P3_ND; i++)
        u[i] = i % 3 == 2 ? -P3_P : 0.0;
    ck_assert_int_eq(LAPACKE_dgesv(LAPACK_ROW_MAJOR, P3_ND, 1, A, P3_ND, ipiv, u, 1), 0);
    double ln = 0.0;
    for (int b = 0; b < P3_NB; b++)
        ln += -kp * u[3 * b + 2];
    double dln = fabs(r0->lambda_n[0] - ln) / ln;
    ck_assert_msg(dln < 10 * P3_K0 / kp, "normal force %.12g vs penalty %.12g", r0->lambda_n[0],
                  ln);
    const tvds_substructure *S = m0->subs[0];
    for (int i = 0; i < P3_ND; i++)
        for (int j = 0; j < P3_ND; j++)
            A[i * P3_ND + j] = Kp[i * P3_ND + j] / S->M[(size_t)i * P3_ND + i];
    eig_real(A, P3_ND, er, ei);
    double dpen = branch_dev(r0, r0->nbranch, er, ei, P3_ND), drot = 0.0;
    for (int b = 0; b < r0->nbranch; b++) {
        double complex l0 = r0->re[b] + I * 2 * PI * r0->freq[b];
        double complex l1 = r1->re[b] + I * 2 * PI * r1->freq[b];
        double d = cabs(l1 - l0) / cabs(l0);
        if (d > drot) drot = d;
    }
    ck_assert_msg(dpen > 1e-2, "the lateral friction damping matters here: %g", dpen);
    /* The penalty friction kp g mu w / |w| turns with the tangential velocity w = P (v + u'):
     * its damping -dF/du' by central differences (the plane moves at 0.1 (-1, -0.5, 0) m/s),
     * then the roots of s^2 M + s C + Kp (companion form). */
    double Cp[P3_ND * P3_ND] = {0}, vr[3] = {0.1, 0.05, 0.0}, hv = 1e-7;
    for (int b = 0; b < P3_NB; b++) {
        double gb = -kp * u[3 * b + 2];
        for (int j = 0; j < 3; j++) {
            double fpm[2][3];
            for (int q = 0; q < 2; q++) {
                double w[3] = {vr[0], vr[1], 0.0};
                w[j] += q ? -hv : hv;
                w[2] = 0.0; /* the tangential part */
                double wl = sqrt(w[0] * w[0] + w[1] * w[1]);
                for (int i = 0; i < 3; i++)
                    fpm[q][i] = gb * (n[i] - P3_MU * w[i] / wl);
            }
            for (int i = 0; i < 3; i++)
                Cp[(3 * b + i) * P3_ND + 3 * b + j] = -(fpm[0][i] - fpm[1][i]) / (2 * hv);
        }
    }
    double Q2[4 * P3_ND * P3_ND] = {0}, qr[2 * P3_ND], qi[2 * P3_ND];
    for (int i = 0; i < P3_ND; i++) {
        double mi = S->M[(size_t)i * P3_ND + i];
        Q2[i * 2 * P3_ND + P3_ND + i] = 1.0;
        for (int j = 0; j < P3_ND; j++) {
            Q2[(P3_ND + i) * 2 * P3_ND + j] = -Kp[i * P3_ND + j] / mi;
            Q2[(P3_ND + i) * 2 * P3_ND + P3_ND + j] = -Cp[i * P3_ND + j] / mi;
        }
    }
    ck_assert_int_eq(
        LAPACKE_dgeev(LAPACK_ROW_MAJOR, 'N', 'N', 2 * P3_ND, Q2, 2 * P3_ND, qr, qi, dum, 1, dum, 1),
        0);
    double dqep = 0.0;
    for (int b = 0; b < r0->nbranch; b++) {
        double complex l0 = r0->re[b] + I * 2 * PI * r0->freq[b];
        double best = INFINITY;
        for (int k = 0; k < 2 * P3_ND; k++)
            best = fmin(best, cabs(l0 - (qr[k] + I * qi[k])) / cabs(l0));
        dqep = fmax(dqep, best);
    }
    /* Frozen friction direction: the stiffness-only reference. */
    tvds_cea_result *rf = NULL;
    o.no_lateral = 1;
    ck_assert_msg(tvds_cea_run(m0, 0, &s, 1, &o, &rf, &ctx) == TVDS_OK, "%s", ctx.msg);
    double dfro = branch_dev(rf, rf->nbranch, er, ei, P3_ND);
    tvds_cea_result_free(&rf);
    if (getenv("TVDS_TEST_VERBOSE"))
        fprintf(stderr,
                "cea plane3d: vs penalty with damping %.3g, frozen vs stiffness-only %.3g\n", dqep,
                dfro);
    ck_assert_msg(dqep < 10 * P3_K0 / kp, "3D plane vs penalty: %g", dqep);
    ck_assert_msg(dfro < 10 * P3_K0 / kp, "3D plane, frozen direction, vs penalty: %g", dfro);
    /* (b) */
    double dl = fabs(r1->lambda_n[0] - r0->lambda_n[0]) / r0->lambda_n[0];
    double rt = tvds_test_lapack_rtol(2 * r1->nred);
    ck_assert_msg(drot < rt && dl < rt, "rotated model: eigenvalues %g, normal force %g", drot, dl);
    tvds_cea_result_free(&r0);
    tvds_cea_result_free(&r1);
    tvds_model_free(&m0);
    tvds_model_free(&m1);
}
END_TEST

/* ---- Shift-invert Arnoldi (ARPACK) against the dense eigenproblem ------------------------- */

static tvds_cea_result *cea_with(const tvds_model *m, const double *s, int npos, int solver,
                                 const tvds_cea_options *base)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_options o = *base;
    o.solver = solver;
    tvds_cea_result *r = NULL;
    ck_assert_msg(tvds_cea_run(m, 0, s, npos, &o, &r, &ctx) == TVDS_OK, "solver %d: %s", solver,
                  ctx.msg);
    return r;
}

/* The same branches, windows and eigenvalues: |s_a - s_d| <= tol(p, b) (absolute, 1/s). */
static void same_locus(const tvds_cea_result *d, const tvds_cea_result *a, const double *tol)
{
    ck_assert_int_eq(a->npos, d->npos);
    ck_assert_int_eq(a->nbranch, d->nbranch);
    for (int i = 0; i < d->npos * d->nbranch; i++) {
        ck_assert(isfinite(d->freq[i]) && isfinite(a->freq[i]));
        double ds = hypot(2 * PI * (a->freq[i] - d->freq[i]), a->re[i] - d->re[i]);
        ck_assert_msg(ds <= tol[i], "position %d branch %d: %.17g%+.17gi vs %.17g%+.17gi (%g > %g)",
                      i / d->nbranch, i % d->nbranch, a->re[i], 2 * PI * a->freq[i], d->re[i],
                      2 * PI * d->freq[i], ds, tol[i]);
    }
    ck_assert_int_eq(a->nwin, d->nwin);
    for (int w = 0; w < d->nwin; w++) {
        ck_assert_int_eq(a->win[w].branch, d->win[w].branch);
        ck_assert_double_eq(a->win[w].s_start, d->win[w].s_start);
        ck_assert_double_eq(a->win[w].s_end, d->win[w].s_end);
    }
}

/* The same eigenvalues to the last bit, position by position and branch by branch. */
static void identical_locus(const tvds_cea_result *a, const tvds_cea_result *b)
{
    ck_assert_int_eq(a->npos, b->npos);
    ck_assert_int_eq(a->nbranch, b->nbranch);
    for (int i = 0; i < b->npos * b->nbranch; i++) {
        ck_assert_double_eq(a->freq[i], b->freq[i]);
        ck_assert_double_eq(a->re[i], b->re[i]);
    }
}

/* Perturbation bound for the chain: an eigenpair with backward error eta is an exact one of a
 * problem within eta (relative, in the norms of resid[]), so each computed s is within
 * kappa(s) eta |s| of an exact one (Tisseur 2000, first order). For M = m I and a nearly
 * symmetric K, kappa(s) <= sqrt(n) (w_G^2 / |s|^2 + 1) / 2 with w_G^2 = max_i sum_j |K_ij| / m
 * (Gershgorin, above every w^2); friction's nonsymmetry and the first-order term are covered
 * by the factor 10. */
static void chain_tol(const tvds_model *m, const tvds_cea_result *d, const tvds_cea_result *a,
                      double *tol)
{
    const tvds_substructure *sub = m->subs[0];
    int n = sub->n;
    double wg2 = 0.0;
    for (int i = 0; i < n; i++) {
        double row = 0.0;
        for (int j = 0; j < n; j++)
            row += fabs(sub->K[(size_t)j * n + i]);
        if (row / sub->M[(size_t)i * n + i] > wg2) wg2 = row / sub->M[(size_t)i * n + i];
    }
    for (int i = 0; i < d->npos * d->nbranch; i++) {
        int p = i / d->nbranch;
        double s2 = pow(2 * PI * d->freq[i], 2) + d->re[i] * d->re[i];
        double kappa = sqrt((double)d->nred) * (wg2 / s2 + 1) / 2;
        tol[i] = 10 * kappa * (d->resid[p] + a->resid[p]) * sqrt(s2);
    }
}

/* The dense locus (options od) and ARPACK's (options oa) of m at s[0..npos-1] into *d and *a
 * (the caller frees them): the same branches, windows and eigenvalues within the chain's
 * perturbation bound (chain_tol). */
static void arpack_as_dense(const tvds_model *m, const double *s, int npos,
                            const tvds_cea_options *od, const tvds_cea_options *oa,
                            tvds_cea_result **d, tvds_cea_result **a)
{
    *d = cea_with(m, s, npos, TVDS_CEA_STANDARD, od);
    *a = cea_with(m, s, npos, TVDS_CEA_ARPACK, oa);
    double *tol = malloc((size_t)npos * (*d)->nbranch * sizeof *tol);
    ck_assert_ptr_nonnull(tol);
    chain_tol(m, *d, *a, tol);
    same_locus(*d, *a, tol);
    free(tol);
}

/* Options of the chain checks: positions as given, evaluated at t = 0.5 s, every slave node. */
static tvds_cea_options chain_opts(void)
{
    tvds_cea_options o = tvds_cea_options_default();
    o.refine = 0;
    o.t_eval = 0.5;
    o.slave = TVDS_CEA_ALL_SLAVES;
    return o;
}

START_TEST(test_arpack_chain)
{
    /* 240 DoFs, 10 contact nodes on a rigid line with friction, preloaded state. */
    tvds_model *m = tvds_bench_cea_chain(240, 10);
    ck_assert_ptr_nonnull(m);
    tvds_cea_options o = chain_opts();
    o.nthreads = 2;
    double s[3] = {0.0, 0.5, 1.0};
    tvds_cea_result *d, *a;
    arpack_as_dense(m, s, 3, &o, &o, &d, &a);
    ck_assert_int_eq(d->nbranch, 20);
    ck_assert_msg(a->resid_max < backward_bound(a), "ARPACK backward error %g", a->resid_max);
    ck_assert(a->arpack && !d->arpack);
    /* auto takes ARPACK from TVDS_CEA_ARPACK_MIN_DOFS up; one thread gives the same numbers
     * as two (a deterministic start vector, one Arnoldi run at a time). */
    o.nthreads = 1;
    tvds_cea_result *u = cea_with(m, s, 3, TVDS_CEA_AUTO, &o);
    ck_assert(u->arpack);
    identical_locus(u, a);
    tvds_cea_result_free(&u);
    tvds_cea_result_free(&d);
    tvds_cea_result_free(&a);
    tvds_model_free(&m);
}
END_TEST

START_TEST(test_arpack_beam_on_beam)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    ck_assert_msg(tvds_case_read("models/beam_on_beam/beam_on_beam.ini", NULL, 0, &m, &ctx) ==
                      TVDS_OK,
                  "%s", ctx.msg);
    tvds_cea_options o = tvds_cea_options_default();
    o.refine = 0;
    o.nthreads = 2;
    double s[2] = {0.036, 0.0505};
    /* Damped, then undamped: the conservative locus, whose neutral branches must stay below
     * the threshold 1e-9 |s| (no round-off windows). */
    for (int und = 0; und < 2; und++) {
        o.undamped = und;
        tvds_cea_result *d = cea_with(m, s, 2, TVDS_CEA_STANDARD, &o);
        tvds_cea_result *q = cea_with(m, s, 2, TVDS_CEA_QZ, &o);
        tvds_cea_result *a = cea_with(m, s, 2, TVDS_CEA_ARPACK, &o);
        /* The two dense LAPACK solvers, both backward stable (resid ~1e-15), disagree by up to
         * 1e-6 on the lowest branch: the conditioning of the lowest eigenvalues of this stiff
         * model (spectrum 40 Hz to 1 MHz, kappa ~ (w_max / w)^2) times round-off. That is the
         * accuracy to which the dense reference is determined; ARPACK, whose backward error is
         * at most 64 eps times the ratio of the kept eigenvalues' distances from the shift
         * (below 1e-11 here, checked), must agree with it to twice that. */
        int nb = d->nbranch;
        ck_assert_int_eq(nb, 20);
        double dq_max = 0.0, tol[2 * 20];
        for (int i = 0; i < 2 * nb; i++) {
            double dq = hypot(2 * PI * (q->freq[i] - d->freq[i]), q->re[i] - d->re[i]);
            if (dq / (2 * PI * d->freq[i]) > dq_max) dq_max = dq / (2 * PI * d->freq[i]);
        }
        ck_assert(dq_max > 0 && dq_max < 1e-5);
        for (int i = 0; i < 2 * nb; i++)
            tol[i] = 2 * dq_max * 2 * PI * d->freq[i];
        same_locus(d, a, tol);
        same_locus(d, q, tol);
        ck_assert_msg(a->resid_max < 1e-11, "ARPACK backward error %g", a->resid_max);
        ck_assert_int_eq(a->arpack_attempts, 1);
        /* Neutral in the dense result (all but the coalesced 10.57 kHz pair): neutral here. */
        for (int i = 0; und && i < 2 * nb; i++)
            if (fabs(d->re[i]) < 1e-9 * 2 * PI * d->freq[i])
                ck_assert_msg(fabs(a->re[i]) < 1e-9 * 2 * PI * a->freq[i],
                              "branch %d at %g Hz: Re %g", i % nb, a->freq[i], a->re[i]);
        tvds_cea_result_free(&d);
        tvds_cea_result_free(&q);
        tvds_cea_result_free(&a);
    }
    tvds_model_free(&m);
}
END_TEST

/* A chain free in x (no springs to ground) touching a rigid line at one node: the x
 * translation is a rigid-body mode (s = 0 twice), K_c is singular, and the shift must be
 * nonzero. The undeformed state (no static equilibrium exists with friction pulling the free
 * chain along). */
START_TEST(test_arpack_rigid_body)
{
    tvds_model *m = tvds_bench_cea_chain(120, 1);
    ck_assert_ptr_nonnull(m);
    tvds_substructure *sub = m->subs[0];
    for (int i = 0; i < sub->n; i++)
        sub->K[(size_t)i * sub->n + i] -= 1e4; /* the ground springs */
    tvds_cea_options o = tvds_cea_options_default();
    o.refine = 0;
    o.t_eval = 0.5;
    o.state = TVDS_CEA_UNDEFORMED;
    o.fmin_hz = 0.1;
    double s[2] = {0.0, 1.0};
    tvds_cea_result *d, *a;
    arpack_as_dense(m, s, 2, &o, &o, &d, &a);
    /* K_c is singular: the lowest elastic mode of the free chain is far below the grounded
     * chain's 159 Hz. */
    ck_assert(d->freq[0] > 0.1 && d->freq[0] < 100.0);
    tvds_cea_result_free(&d);
    tvds_cea_result_free(&a);
    tvds_model_free(&m);
}
END_TEST

/* Springs to ground 30 times stiffer crowd the chain's lowest 30 eigenvalues into 1 % of
 * frequency (886 to 898 Hz for the 20 branches): the first Arnoldi run (2.5 ncand + 8 Ritz
 * values) does not reach around the whole band of real parts the path guarantees, the second,
 * enlarged one does, and the answer is the dense one. 300 times stiffer, no run of the largest
 * size encloses them: a clear error that names the dense solver. */
START_TEST(test_arpack_enlarges)
{
    tvds_cea_options o = chain_opts();
    double s[2] = {0.0, 1.0};
    tvds_model *m = tvds_bench_cea_chain(240, 1);
    ck_assert_ptr_nonnull(m);
    tvds_substructure *sub = m->subs[0];
    for (int i = 0; i < sub->n; i++)
        sub->K[(size_t)i * sub->n + i] += 30 * 1e4;
    tvds_cea_result *d, *a;
    arpack_as_dense(m, s, 2, &o, &o, &d, &a);
    ck_assert_int_ge(a->arpack_attempts, 2);
    ck_assert(d->freq[19] < 1.02 * d->freq[0]);
    tvds_cea_result_free(&d);
    tvds_cea_result_free(&a);
    for (int i = 0; i < sub->n; i++)
        sub->K[(size_t)i * sub->n + i] += 270 * 1e4;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    o.solver = TVDS_CEA_ARPACK;
    ck_assert_int_eq(tvds_cea_run(m, 0, s, 2, &o, &a, &ctx), TVDS_ERR_SOLVER);
    ck_assert_ptr_null(a);
    ck_assert_msg(strstr(ctx.msg, "did not enclose") && strstr(ctx.msg, "--solver standard"), "%s",
                  ctx.msg);
    tvds_model_free(&m);
}
END_TEST

/* The complex shift (docs/cea.md, "Complex shift") at the chain's ground-spring frequency
 * w_g = sqrt(k_g / m), below which no eigenvalue lies (TVDS_BENCH_CEA_CHAIN_FG). 1. The 240-DoF
 * chain with 10 contact nodes: the dense locus within the perturbation bound (chain_tol), the
 * backward errors at round-off, the same windows (none). 2. Springs to ground 30 and 300 times
 * stiffer crowd the 20 branches into 1 % and 0.14 % of frequency: the real shift needs two
 * runs and 1500 operator applications per position, then fails to enclose them at all; the
 * complex shift (at the new w_g) encloses them in its first run with the dense answer and at
 * most a third of those applications (185 measured). There, auto falls back to the dense path
 * and says so. */
START_TEST(test_arpack_complex_shift)
{
    tvds_cea_options o = chain_opts();
    double s[3] = {0.0, 0.5, 1.0};
    tvds_model *m = tvds_bench_cea_chain(240, 10);
    ck_assert_ptr_nonnull(m);
    const double kg = 1e4, mass = 0.01;
    ck_assert_double_eq_tol(TVDS_BENCH_CEA_CHAIN_FG, sqrt(kg / mass) / (2 * PI), 1e-12);
    tvds_cea_options od = o;
    o.shift_hz = TVDS_BENCH_CEA_CHAIN_FG;
    tvds_cea_result *d, *a;
    arpack_as_dense(m, s, 3, &od, &o, &d, &a);
    ck_assert_int_eq(d->nbranch, 20);
    ck_assert_msg(a->resid_max < backward_bound(a), "complex shift: backward error %g",
                  a->resid_max);
    ck_assert_int_eq(a->arpack_attempts, 1);
    ck_assert(d->freq[0] >= TVDS_BENCH_CEA_CHAIN_FG * (1 - 1e-12));
    tvds_cea_result_free(&d);
    tvds_cea_result_free(&a);
    /* auto with a shift takes the ARPACK path; the dense solvers refuse one. */
    od.shift_hz = o.shift_hz;
    a = cea_with(m, s, 1, TVDS_CEA_AUTO, &od);
    ck_assert(a->arpack);
    tvds_cea_result_free(&a);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    od.solver = TVDS_CEA_STANDARD;
    ck_assert_int_eq(tvds_cea_run(m, 0, s, 1, &od, &a, &ctx), TVDS_ERR_INVALID);
    ck_assert_msg(strstr(ctx.msg, "complex shift"), "%s", ctx.msg);
    tvds_model_free(&m);

    m = tvds_bench_cea_chain(240, 1);
    ck_assert_ptr_nonnull(m);
    tvds_substructure *sub = m->subs[0];
    const double stiffer[2] = {30, 300};
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < sub->n; i++)
            sub->K[(size_t)i * sub->n + i] += (stiffer[k] - (k ? stiffer[0] : 0)) * kg;
        od.shift_hz = 0.0;
        od.solver = TVDS_CEA_ARPACK;
        o.shift_hz = sqrt((1 + stiffer[k]) * kg / mass) / (2 * PI);
        arpack_as_dense(m, s, 2, &od, &o, &d, &a);
        ck_assert(d->freq[19] < (k ? 1.002 : 1.02) * d->freq[0]);
        ck_assert_msg(a->resid_max < backward_bound(a), "complex shift: backward error %g",
                      a->resid_max);
        ck_assert_int_eq(a->arpack_attempts, 1);
        tvds_cea_result *r = NULL;
        tvds_ctx_init(&ctx);
        /* 300 times stiffer: auto's real shift fails and the dense path answers, saying so. */
        od.solver = k == 0 ? TVDS_CEA_ARPACK : TVDS_CEA_AUTO;
        int rc = tvds_cea_run(m, 0, s, 2, &od, &r, &ctx);
        ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
        if (k == 0) {
            ck_assert_int_ge(r->arpack_attempts, 2);
            ck_assert_msg(r->arpack_nops > 3 * a->arpack_nops, "real %g, complex %g applications",
                          r->arpack_nops, a->arpack_nops);
            ck_assert(!r->arpack_failure[0]);
        } else {
            ck_assert(!r->arpack);
            ck_assert_msg(strstr(r->arpack_failure, "did not enclose"), "%s", r->arpack_failure);
            identical_locus(r, d);
        }
        tvds_cea_result_free(&r);
        tvds_cea_result_free(&d);
        tvds_cea_result_free(&a);
    }
    tvds_model_free(&m);
}
END_TEST

/* A stop raised part way (here by the progress callback after the third position, one thread):
 * tvds_cea_run returns TVDS_ERR_INTERRUPTED with the finished positions tracked, bit for bit the
 * first three of the uninterrupted locus, marked partial; a stop before any position returns no
 * locus. Before, an interrupted CEA returned nothing ("nothing written"). */
typedef struct stop_at {
    volatile sig_atomic_t stop;
    int at, calls, last_total;
} stop_at;

static void stop_progress(void *user, int done, int total)
{
    stop_at *a = user;
    a->calls++;
    a->last_total = total;
    if (done == a->at) a->stop = SIGINT;
}

START_TEST(test_stop_keeps_finished)
{
    tvds_model *m = oscillator(0.7);
    add_spring(m, 0, 0, 1, 1, 2e3);
    double s[6];
    for (int i = 0; i < 6; i++)
        s[i] = 0.2 * i;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_options o = tvds_cea_options_default();
    o.refine = 0;
    o.nmodes = 2;
    o.t_eval = 1.0;
    o.nthreads = 1;
    tvds_cea_result *full = NULL, *r = NULL;
    ck_assert_msg(tvds_cea_run(m, 0, s, 6, &o, &full, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(full->partial, 0);
    stop_at a = {0, 3, 0, 0};
    o.stop = &a.stop;
    o.progress = stop_progress;
    o.user = &a;
    int rc = tvds_cea_run(m, 0, s, 6, &o, &r, &ctx);
    ck_assert_msg(rc == TVDS_ERR_INTERRUPTED, "rc %d: %s", rc, ctx.msg);
    ck_assert_msg(strstr(ctx.msg, "interrupted after 3 of 6 positions"), "%s", ctx.msg);
    ck_assert_int_eq(a.calls, 3);
    ck_assert_int_eq(a.last_total, 6);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->partial, 1);
    ck_assert_int_eq(r->npos, 3);
    ck_assert_int_eq(r->nbranch, full->nbranch);
    for (int i = 0; i < 3; i++) {
        ck_assert(r->s[i] == s[i]);
        for (int b = 0; b < r->nbranch; b++) {
            int k = i * r->nbranch + b;
            ck_assert(r->freq[k] == full->freq[k] && r->re[k] == full->re[k]);
        }
    }
    tvds_cea_result_free(&r);
    /* Stopped before the first position. */
    tvds_ctx_init(&ctx);
    a.stop = SIGTERM;
    a.calls = 0;
    ck_assert_int_eq(tvds_cea_run(m, 0, s, 6, &o, &r, &ctx), TVDS_ERR_INTERRUPTED);
    ck_assert_ptr_null(r);
    ck_assert_int_eq(a.calls, 0);
    ck_assert_msg(strstr(ctx.msg, "none finished"), "%s", ctx.msg);
    tvds_cea_result_free(&full);
    tvds_model_free(&m);
}
END_TEST

/* Positions handed back (tvds_cea_options.known, as cea --resume does) are taken, not solved
 * again, and give the same locus bit for bit; the others are solved and reported (solved). */
typedef struct keep_solved {
    tvds_cea_solved v[16];
    double *buf[16];
    int n;
} keep_solved;

static void keep_one(void *user, const tvds_cea_solved *p)
{
    keep_solved *k = user;
    ck_assert_int_lt(k->n, 16);
    size_t nd = (size_t)p->ncand * (2 + 2 * (size_t)p->ndof);
    double *b = malloc((nd ? nd : 1) * sizeof *b);
    ck_assert_ptr_nonnull(b);
    memcpy(b, p->lre, (size_t)p->ncand * sizeof *b);
    memcpy(b + p->ncand, p->lim, (size_t)p->ncand * sizeof *b);
    memcpy(b + 2 * p->ncand, p->u, (size_t)p->ncand * p->ndof * 2 * sizeof *b);
    k->v[k->n] = *p;
    k->v[k->n].lre = b;
    k->v[k->n].lim = b + p->ncand;
    k->v[k->n].u = b + 2 * p->ncand;
    k->buf[k->n++] = b;
}

START_TEST(test_known_positions_taken)
{
    tvds_model *m = oscillator(0.7);
    add_spring(m, 0, 0, 1, 1, 2e3);
    double s[6];
    for (int i = 0; i < 6; i++)
        s[i] = 0.2 * i;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_options o = tvds_cea_options_default();
    o.refine = 0;
    o.nmodes = 2;
    o.t_eval = 1.0;
    o.nthreads = 1;
    keep_solved all = {.n = 0}, again = {.n = 0};
    o.solved = keep_one;
    o.user = &all;
    tvds_cea_result *r0 = NULL, *r1 = NULL;
    ck_assert_msg(tvds_cea_run(m, 0, s, 6, &o, &r0, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(all.n, 6);
    /* Four of the six known (0, 1, 3, 5): only 2 and 4 are solved. */
    tvds_cea_solved kn[4] = {all.v[0], all.v[1], all.v[3], all.v[5]};
    static const int at[4] = {0, 1, 3, 5};
    for (int i = 0; i < 4; i++)
        ck_assert(kn[i].s == s[at[i]]);
    o.known = kn;
    o.nknown = 4;
    o.user = &again;
    o.nthreads = 2;
    ck_assert_msg(tvds_cea_run(m, 0, s, 6, &o, &r1, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(again.n, 2);
    ck_assert(again.v[0].s == s[2] || again.v[0].s == s[4]);
    ck_assert_int_eq(r1->npos, r0->npos);
    for (int k = 0; k < r0->npos * r0->nbranch; k++)
        ck_assert(r1->freq[k] == r0->freq[k] && r1->re[k] == r0->re[k] && r1->mac[k] == r0->mac[k]);
    ck_assert(r1->resid_max == r0->resid_max);
    for (int i = 0; i < all.n; i++)
        free(all.buf[i]);
    for (int i = 0; i < again.n; i++)
        free(again.buf[i]);
    tvds_cea_result_free(&r0);
    tvds_cea_result_free(&r1);
    tvds_model_free(&m);
}
END_TEST

Suite *cea_suite(void)
{
    Suite *s = suite_create("cea");
    TCase *tc = tcase_create("cea");
    tcase_set_timeout(tc, 20);
    tcase_add_test(tc, test_tie_matches_merged);
    tcase_add_test(tc, test_mu0_symmetric_penalty);
    tcase_add_test(tc, test_flutter_closed_form);
    tcase_add_test(tc, test_solvers_and_threads_agree);
    tcase_add_test(tc, test_c1_straight_master);
    tcase_add_test(tc, test_mac_tracking_crossing);
    tcase_add_test(tc, test_rigid_master_closed_form);
    tcase_add_test(tc, test_locus_figures_labelled);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_deformed_matches_penalty);
    tcase_add_test(tc, test_deformed_rigid_master);
    tcase_add_test(tc, test_refine_finds_narrow_window);
    tcase_add_test(tc, test_growth_along_path);
    tcase_add_test(tc, test_multi_two_systems);
    tcase_add_test(tc, test_multi_rigid_penalty);
    tcase_add_test(tc, test_multi_plane3d);
    tcase_add_test(tc, test_stop_keeps_finished);
    tcase_add_test(tc, test_known_positions_taken);
    suite_add_tcase(s, tc);
    TCase *ta = tcase_create("arpack");
    tcase_set_timeout(ta, 20);
    tcase_add_test(ta, test_arpack_chain);
    tcase_add_test(ta, test_arpack_rigid_body);
    suite_add_tcase(s, ta);
    /* Twelve eigenanalyses of the 244-DoF beam-on-beam, and Arnoldi runs of 272 Ritz values:
     * minutes under valgrind, out of that run (ASan runs them). */
    TCase *tl = tcase_create("arpack_long");
    tcase_set_tags(tl, "long");
    tcase_set_timeout(tl, 30);
    tcase_add_test(tl, test_arpack_beam_on_beam);
    tcase_add_test(tl, test_arpack_enlarges);
    tcase_add_test(tl, test_arpack_complex_shift);
    suite_add_tcase(s, tl);
    return s;
}
