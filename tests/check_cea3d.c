/* check_cea3d.c — complex eigenvalue analysis on face-set masters (3D node-to-face) and with
 * several nodes on deformable masters about the preloaded state: the 2D locus from its
 * extrusion, invariance under a rotation of the whole model, independent penalty models with
 * finite-difference tangents, two independent copies, and the symmetric and antisymmetric
 * modes about a mirror plane (docs/cea.md). */
#include <check.h>
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "tvds/tvds_cea.h"
#include "tvds_test.h"

#define PI 3.14159265358979323846

/* ---- Model building ----------------------------------------------------------------------- */

static void rot_apply(const double R[9], const double x[3], double y[3])
{
    for (int i = 0; i < 3; i++)
        y[i] = R[3 * i] * x[0] + R[3 * i + 1] * x[1] + R[3 * i + 2] * x[2];
}

/* Rotation by th about the unit axis ax (Rodrigues), row-major. */
static void rotation(const double ax[3], double th, double R[9])
{
    double c = cos(th), s = sin(th);
    double K[9] = {0, -ax[2], ax[1], ax[2], 0, -ax[0], -ax[1], ax[0], 0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            R[3 * i + j] = (i == j ? c : 0.0) + (1 - c) * ax[i] * ax[j] + s * K[3 * i + j];
}

static const double ID3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

/* A substructure of nn nodes with 3 DoFs each (x, y, z) at X (nn x 3), with block-diagonal
 * mass and stiffness: node i has the 3 x 3 blocks Mb + 9 i, Kb + 9 i (row-major). Everything is
 * turned by R: X' = R X, M' = R M R^T, K' = R K R^T. */
static int add_sub3(tvds_model *m, const char *name, int nn, const long *ids, const double *X,
                    const double *Mb, const double *Kb, const double R[9])
{
    int n = 3 * nn;
    tvds_substructure *s = tvds_calloc(1, sizeof *s);
    ck_assert_ptr_nonnull(s);
    s->name = tvds_strdup(name);
    s->n = n;
    s->M = tvds_calloc((size_t)n * n, sizeof(double));
    s->K = tvds_calloc((size_t)n * n, sizeof(double));
    s->dofs = tvds_calloc((size_t)n, sizeof(tvds_dof));
    for (int i = 0; i < nn; i++) {
        double xr[3];
        rot_apply(R, X + 3 * i, xr);
        for (int k = 0; k < 3; k++) {
            tvds_dof *d = &s->dofs[3 * i + k];
            d->kind = TVDS_DOF_PHYSICAL;
            d->node = ids[i];
            d->dir = TVDS_DIR_X + k;
            memcpy(d->xyz, xr, sizeof xr);
        }
        for (int q = 0; q < 2; q++) {
            const double *B = (q ? Kb : Mb) + 9 * i;
            double *T = q ? s->K : s->M;
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) {
                    double v = 0.0;
                    for (int c = 0; c < 3; c++)
                        for (int d = 0; d < 3; d++)
                            v += R[3 * a + c] * B[3 * c + d] * R[3 * b + d];
                    T[(size_t)(3 * i + b) * n + 3 * i + a] = v;
                }
        }
    }
    m->subs = tvds_realloc(m->subs, (size_t)(m->nsub + 1) * sizeof *m->subs);
    m->damping = tvds_realloc(m->damping, (size_t)(m->nsub + 1) * sizeof *m->damping);
    memset(&m->damping[m->nsub], 0, sizeof *m->damping);
    m->subs[m->nsub] = s;
    return m->nsub++;
}

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

/* Load F (3, turned by R) on node i of substructure sub. */
static void add_load3(tvds_model *m, int sub, int i, const double F[3], const double R[9])
{
    double Fr[3];
    rot_apply(R, F, Fr);
    for (int k = 0; k < 3; k++)
        add_load(m, sub, 3 * i + k, Fr[k]);
}

/* Contact of the slave nodes of substructure ss on the face set of substructure ms: nface
 * faces of nnf nodes (indices into master_ids, the face's node order); the slave body travels with
 * the velocity v (turned by R, 1e3 m/s: a ramp over the whole run). */
static void add_face_contact(tvds_model *m, int ss, int nsl, const long *sl, int ms, int nm,
                             const long *mids, int nface, int nnf, const int *corners, double mu,
                             const double v[3], const double R[9])
{
    m->contacts = tvds_realloc(m->contacts, (size_t)(m->ncontact + 1) * sizeof *m->contacts);
    tvds_contact *c = &m->contacts[m->ncontact++];
    memset(c, 0, sizeof *c);
    c->name = tvds_strdup("C");
    c->dim = 3;
    c->slave_sub = ss;
    c->nslave = nsl;
    c->slave_nodes = tvds_malloc((size_t)nsl * sizeof(long));
    memcpy(c->slave_nodes, sl, (size_t)nsl * sizeof(long));
    c->master_kind = TVDS_MASTER_FACES;
    c->master_sub = ms;
    c->nmaster = nm;
    c->master_nodes = tvds_malloc((size_t)nm * sizeof(long));
    memcpy(c->master_nodes, mids, (size_t)nm * sizeof(long));
    c->nface = nface;
    c->face_nn = tvds_malloc((size_t)nface * sizeof(int));
    c->face_node = tvds_calloc((size_t)nface * TVDS_FACE_MAX_NODES, sizeof(int));
    for (int f = 0; f < nface; f++) {
        c->face_nn[f] = nnf;
        for (int q = 0; q < nnf; q++)
            c->face_node[f * TVDS_FACE_MAX_NODES + q] = corners[nnf * f + q];
    }
    c->mu_s = c->mu_k = mu;
    double vr[3];
    rot_apply(R, v, vr);
    for (int k = 0; k < 3; k++)
        c->slave_kin[k] = (tvds_fn){.kind = TVDS_FN_RAMP, .amp = 1e3 * vr[k], .t0 = 0, .t1 = 1e3};
}

/* ---- The 2D inclined case and its extrusion ----------------------------------------------- */

static const double G30 = PI / 6.0, SEG = 0.5, WID = 0.2, PRE = 600.0, MU = 0.3;

static double mass_master(int i)
{
    return 0.3 + 0.1 * i;
}

static double k_master(int i, int k)
{
    return k == 2 ? 4e4 * (1.0 + 0.5 * i) : (k ? 3e4 : 5e4) * (1.0 + 0.7 * i);
}

/* 2D: slave (x, y) pressed by PRE along -n on a three-node master at 30 degrees, each master
 * node on springs in x and y; the slave slides up the slope (chi = +1). */
static tvds_model *inclined2d(void)
{
    tvds_model *m = tvds_model_create();
    tvds_substructure *s[2] = {NULL, NULL};
    for (int b = 0; b < 2; b++) {
        int n = b ? 6 : 2;
        s[b] = tvds_calloc(1, sizeof *s[b]);
        s[b]->name = tvds_strdup(b ? "master" : "slave");
        s[b]->n = n;
        s[b]->M = tvds_calloc((size_t)n * n, sizeof(double));
        s[b]->K = tvds_calloc((size_t)n * n, sizeof(double));
        s[b]->dofs = tvds_calloc((size_t)n, sizeof(tvds_dof));
        for (int i = 0; i < n; i++) {
            int node = i / 2, k = i % 2;
            tvds_dof *d = &s[b]->dofs[i];
            d->kind = TVDS_DOF_PHYSICAL;
            d->dir = k;
            d->node = b ? 10 + node : 1;
            d->xyz[0] = b ? node * SEG * cos(G30) : 0.0;
            d->xyz[1] = b ? node * SEG * sin(G30) : 0.0;
            s[b]->M[(size_t)i * n + i] = b ? mass_master(node) : 0.8;
            s[b]->K[(size_t)i * n + i] = b ? k_master(node, k) : (k ? 1e4 : 2e4);
        }
    }
    m->subs = tvds_calloc(2, sizeof *m->subs);
    m->damping = tvds_calloc(2, sizeof *m->damping);
    m->subs[0] = s[0], m->subs[1] = s[1], m->nsub = 2;
    m->contacts = tvds_calloc(1, sizeof *m->contacts);
    tvds_contact *c = &m->contacts[0];
    m->ncontact = 1;
    c->name = tvds_strdup("tip");
    c->dim = 2;
    c->slave_sub = 0;
    c->nslave = 1;
    c->slave_nodes = tvds_malloc(sizeof(long));
    c->slave_nodes[0] = 1;
    c->master_kind = TVDS_MASTER_SURFACE;
    c->master_sub = 1;
    c->nmaster = 3;
    c->master_nodes = tvds_malloc(3 * sizeof(long));
    for (int i = 0; i < 3; i++)
        c->master_nodes[i] = 10 + i;
    c->mu_s = c->mu_k = MU;
    c->slave_kin[0] = (tvds_fn){.kind = TVDS_FN_RAMP, .amp = 1e3 * cos(G30), .t0 = 0, .t1 = 1e3};
    c->slave_kin[1] = (tvds_fn){.kind = TVDS_FN_RAMP, .amp = 1e3 * sin(G30), .t0 = 0, .t1 = 1e3};
    add_load(m, 0, 0, PRE * sin(G30));
    add_load(m, 0, 1, -PRE * cos(G30));
    return m;
}

/* The extrusion over the width WID along z: each 2D master node becomes a front (z = +WID/2)
 * and a back node (z = -WID/2) with half its mass and stiffness in x, y (and a z spring); the
 * two segments become two 4-node faces (T1 front, T2 front, T2 back, T1 back: normal = the 2D
 * n). The slave gains a z DoF on a spring. ncopy independent copies side by side (copy c at
 * z + 10 c), all slave nodes in one substructure and all faces in one master; everything
 * turned by R. */
static tvds_model *extruded(int ncopy, const double R[9])
{
    tvds_model *m = tvds_model_create();
    int ns = ncopy, nm = 6 * ncopy;
    long sid[2], mid[12];
    double Xs[6], Ms[18] = {0}, Ks[18] = {0}, Xm[36], Mm[108] = {0}, Km[108] = {0};
    int corners[16];
    for (int c = 0; c < ncopy; c++) {
        double zc = 10.0 * c;
        sid[c] = 1 + c;
        Xs[3 * c] = Xs[3 * c + 1] = 0.0, Xs[3 * c + 2] = zc;
        for (int k = 0; k < 3; k++)
            Ms[9 * c + 4 * k] = 0.8;
        Ks[9 * c] = 2e4, Ks[9 * c + 4] = 1e4, Ks[9 * c + 8] = 1.5e4;
        for (int side = 0; side < 2; side++)
            for (int i = 0; i < 3; i++) {
                int q = 6 * c + 3 * side + i;
                mid[q] = 100 * c + 10 * (side + 1) + i;
                Xm[3 * q] = i * SEG * cos(G30);
                Xm[3 * q + 1] = i * SEG * sin(G30);
                Xm[3 * q + 2] = zc + (side ? -0.5 : 0.5) * WID;
                for (int k = 0; k < 3; k++) {
                    Mm[9 * q + 4 * k] = 0.5 * mass_master(i);
                    Km[9 * q + 4 * k] = k == 2 ? k_master(i, 2) : 0.5 * k_master(i, k);
                }
            }
        for (int f = 0; f < 2; f++) {
            int *cr = corners + 4 * (2 * c + f);
            cr[0] = 6 * c + f, cr[1] = 6 * c + f + 1, cr[2] = 6 * c + 3 + f + 1,
            cr[3] = 6 * c + 3 + f;
        }
    }
    int S = add_sub3(m, "slave", ns, sid, Xs, Ms, Ks, R);
    int Mst = add_sub3(m, "master", nm, mid, Xm, Mm, Km, R);
    double v[3] = {cos(G30), sin(G30), 0.0};
    add_face_contact(m, S, ns, sid, Mst, nm, mid, 2 * ncopy, 4, corners, MU, v, R);
    double F[3] = {PRE * sin(G30), -PRE * cos(G30), 0.0};
    for (int c = 0; c < ncopy; c++)
        add_load3(m, S, c, F, R);
    return m;
}

static double complex eig_at(const tvds_cea_result *r, int p, int b)
{
    size_t k = (size_t)p * r->nbranch + b;
    return r->re[k] + I * 2 * PI * r->freq[k];
}

/* Largest relative distance from an eigenvalue of a (position pa) to the nearest of b (pb). */
static double max_nearest(const tvds_cea_result *a, int pa, const tvds_cea_result *b, int pb)
{
    double worst = 0.0;
    for (int i = 0; i < a->nbranch; i++) {
        double complex la = eig_at(a, pa, i);
        double best = INFINITY;
        for (int j = 0; j < b->nbranch; j++) {
            double d = cabs(eig_at(b, pb, j) - la) / cabs(la);
            if (d < best) best = d;
        }
        if (best > worst) worst = best;
    }
    return worst;
}

/* The same state at position p of a and b: every eigenvalue of either within tol (relative)
 * of one of the other's, and the same static normal force to tol; what names the check. */
static void same_state(const tvds_cea_result *a, const tvds_cea_result *b, int p, double tol,
                       const char *what)
{
    double d = fmax(max_nearest(a, p, b, p), max_nearest(b, p, a, p));
    double dl = fabs(a->lambda_n[p] - b->lambda_n[p]) / (b->lambda_n[p] + 1e-300);
    if (getenv("TVDS_TEST_VERBOSE"))
        fprintf(stderr, "cea3d %s: eigenvalues %.3g, force %.3g (%.12g)\n", what, d, dl,
                a->lambda_n[p]);
    ck_assert_msg(d < tol && dl < tol, "%s: eigenvalues %g, force %g", what, d, dl);
}

static tvds_cea_options opts(int nmodes, int state)
{
    tvds_cea_options o = tvds_cea_options_default();
    o.refine = 0;
    o.nmodes = nmodes;
    o.nextra = 0;
    o.t_eval = 1.0;
    o.state = state;
    return o;
}

/* Static state of a penalty reference: K u - f - F(X, u) = 0 by Newton with the Jacobian
 * K - dF/du by central differences (step 1e-7), from the u given, to a residual below tol;
 * force(X, u, F) on n DoFs, K row-major n x n. J (n x n, the caller's: it may be large) holds the
 * last Jacobian. */
static void penalty_static(void (*force)(const double *, const double *, double *), int n,
                           const double *X, const double *K, const double *f, double tol, double *u,
                           double *J)
{
    double R[n], F[n], Fp[n], Fm[n], h = 1e-7;
    for (int it = 0; it < 50; it++) {
        force(X, u, F);
        double rn = 0.0;
        for (int i = 0; i < n; i++) {
            R[i] = -f[i] - F[i];
            for (int j = 0; j < n; j++)
                R[i] += K[i * n + j] * u[j];
            rn += R[i] * R[i];
        }
        for (int j = 0; j < n; j++) {
            double uj = u[j];
            u[j] = uj + h;
            force(X, u, Fp);
            u[j] = uj - h;
            force(X, u, Fm);
            u[j] = uj;
            for (int i = 0; i < n; i++)
                J[i * n + j] = K[i * n + j] - (Fp[i] - Fm[i]) / (2 * h);
        }
        if (sqrt(rn) < tol) break;
        int ipiv[n];
        double *A = malloc((size_t)n * n * sizeof *A), b[n];
        ck_assert_ptr_nonnull(A);
        memcpy(A, J, (size_t)n * n * sizeof *A);
        for (int i = 0; i < n; i++)
            b[i] = -R[i];
        ck_assert_int_eq(LAPACKE_dgesv(LAPACK_ROW_MAJOR, n, 1, A, n, ipiv, b, 1), 0);
        free(A);
        for (int i = 0; i < n; i++)
            u[i] += b[i];
    }
}

/* Damping of a penalty reference: C = -dF/dud at (X, u) by central differences (step 1e-6 of
 * the unit-order sliding speeds), force(X, u, ud, F) on n DoFs; row-major n x n. */
static void fd_damping(void (*force)(const double *, const double *, const double *, double *),
                       int n, const double *X, const double *u, double *C)
{
    double ud[n], Fp[n], Fm[n], h = 1e-6;
    memset(ud, 0, sizeof ud);
    for (int j = 0; j < n; j++) {
        ud[j] = h;
        force(X, u, ud, Fp);
        ud[j] = -h;
        force(X, u, ud, Fm);
        ud[j] = 0.0;
        for (int i = 0; i < n; i++)
            C[i * n + j] = -(Fp[i] - Fm[i]) / (2 * h);
    }
}

/* Largest relative distance from an eigenvalue of r (position 0) to the nearest root of the
 * quadratic problem (s^2 M + s C + J) x = 0, M = diag(md), C = NULL: undamped; J, C row-major
 * n x n (companion form [[0, I], [-M^-1 J, -M^-1 C]]). */
static double qep_dev(const tvds_cea_result *r, int n, const double *md, const double *J,
                      const double *C)
{
    int n2 = 2 * n;
    double *A = calloc((size_t)n2 * n2, sizeof *A), *er = malloc((size_t)n2 * sizeof *er),
           *ei = malloc((size_t)n2 * sizeof *ei), dum[1];
    ck_assert(A && er && ei);
    for (int i = 0; i < n; i++) {
        A[(size_t)i * n2 + n + i] = 1.0;
        for (int j = 0; j < n; j++) {
            A[(size_t)(n + i) * n2 + j] = -J[i * n + j] / md[i];
            A[(size_t)(n + i) * n2 + n + j] = C ? -C[i * n + j] / md[i] : 0.0;
        }
    }
    ck_assert_int_eq(LAPACKE_dgeev(LAPACK_ROW_MAJOR, 'N', 'N', n2, A, n2, er, ei, dum, 1, dum, 1),
                     0);
    double dev = 0.0;
    for (int b = 0; b < r->nbranch; b++) {
        double complex l = eig_at(r, 0, b);
        double best = INFINITY;
        for (int k = 0; k < n2; k++)
            best = fmin(best, cabs(l - (er[k] + I * ei[k])) / cabs(l));
        dev = fmax(dev, best);
    }
    free(A);
    free(er);
    free(ei);
    return dev;
}

/* The positions of the extrusion checks: segment 0 at alpha 0.6, segment 1 at alpha 0.5. */
static const double EXT_S[2] = {0.3, 0.75};

/* CEA of the 2D case m2 (7 branches) and of its extrusion m3 (20 branches, mirror as
 * tvds_cea_options.mirror) at EXT_S about the preloaded (st = 0) or undeformed (st = 1) state;
 * both must succeed. Returns the extrusion's options. */
static tvds_cea_options plane_and_extrusion(const tvds_model *m2, const tvds_model *m3, int st,
                                            int mirror, tvds_cea_result **r2, tvds_cea_result **r3)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_options o2 = opts(7, st ? TVDS_CEA_UNDEFORMED : TVDS_CEA_DEFORMED);
    tvds_cea_options o3 = opts(20, o2.state);
    o3.mirror = mirror;
    ck_assert_msg(tvds_cea_run(m2, 0, EXT_S, 2, &o2, r2, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_msg(tvds_cea_run(m3, 0, EXT_S, 2, &o3, r3, &ctx) == TVDS_OK, "%s", ctx.msg);
    return o3;
}

START_TEST(test_extrusion_gives_2d)
{
    /* The 2D preloaded case and its extrusion at two positions (segment 0 at alpha 0.6,
     * segment 1 at alpha 0.5), about both states: every 2D eigenvalue is an eigenvalue of the
     * 3D model (its modes symmetric about the midplane; the antisymmetric and z modes are the
     * extra ones), and the static normal force is the same. */
    tvds_model *m2 = inclined2d(), *m3 = extruded(1, ID3);
    const double *s = EXT_S;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    for (int st = 0; st < 2; st++) {
        tvds_cea_result *r2 = NULL, *r3 = NULL;
        tvds_cea_options o3 = plane_and_extrusion(m2, m3, st, 0, &r2, &r3);
        ck_assert_int_eq(r3->nred, 20);
        ck_assert_int_eq(r2->nbranch, 7);
        for (int p = 0; p < 2; p++) {
            double d = max_nearest(r2, p, r3, p);
            double dl = fabs(r3->lambda_n[p] - r2->lambda_n[p]) / (r2->lambda_n[p] + 1e-300);
            if (getenv("TVDS_TEST_VERBOSE"))
                fprintf(stderr, "cea3d extrusion: state %d s = %g: eigenvalues %.3g, force %.3g\n",
                        st, s[p], d, dl);
            double rt = tvds_test_lapack_rtol(2 * r3->nred);
            ck_assert_msg(d < rt, "state %d s = %g: 2D eigenvalue vs extrusion %.3g", st, s[p], d);
            if (st == 0) {
                /* The lateral friction damping acts on the z (out-of-plane) DoFs only: the 2D
                 * eigenvalues above are kept, the others change. */
                tvds_cea_options of = o3;
                of.no_lateral = 1;
                tvds_cea_result *rf = NULL;
                ck_assert_msg(tvds_cea_run(m3, 0, s + p, 1, &of, &rf, &ctx) == TVDS_OK, "%s",
                              ctx.msg);
                double df = max_nearest(r3, p, rf, 0), d2f = max_nearest(r2, p, rf, 0);
                if (getenv("TVDS_TEST_VERBOSE"))
                    fprintf(stderr, "cea3d extrusion: s = %g: frozen direction %.3g (2D %.3g)\n",
                            s[p], df, d2f);
                ck_assert_msg(df > 1e-3 && d2f < rt, "frozen direction: %g, 2D %g", df, d2f);
                tvds_cea_result_free(&rf);
                ck_assert(r2->lambda_n[p] > 100.0);
                ck_assert_msg(dl < rt, "normal force %.15g vs %.15g", r3->lambda_n[p],
                              r2->lambda_n[p]);
            } else {
                ck_assert_double_eq(r3->lambda_n[p], 0.0);
            }
        }
        tvds_cea_result_free(&r2);
        tvds_cea_result_free(&r3);
    }
    tvds_model_free(&m2);
    tvds_model_free(&m3);
}
END_TEST

START_TEST(test_rotation_invariance)
{
    /* The extruded model turned by 0.7 rad about (1, 2, 3): positions, masses, stiffnesses,
     * loads and the drive; no eigenvalue and no normal force changes beyond round-off. */
    double ax[3] = {1 / sqrt(14.0), 2 / sqrt(14.0), 3 / sqrt(14.0)}, R[9];
    rotation(ax, 0.7, R);
    double s[2] = {0.3, 0.75};
    tvds_model *m0 = extruded(1, ID3), *m1 = extruded(1, R);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    for (int st = 0; st < 2; st++) {
        tvds_cea_options o = opts(20, st ? TVDS_CEA_UNDEFORMED : TVDS_CEA_DEFORMED);
        tvds_cea_result *r0 = NULL, *r1 = NULL;
        ck_assert_msg(tvds_cea_run(m0, 0, s, 2, &o, &r0, &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert_msg(tvds_cea_run(m1, 0, s, 2, &o, &r1, &ctx) == TVDS_OK, "%s", ctx.msg);
        for (int p = 0; p < 2; p++) {
            /* As sets: the tracking's labels are arbitrary within the degenerate pairs of
             * front and back z modes. */
            char what[64];
            snprintf(what, sizeof what, "rotation: state %d s = %g", st, s[p]);
            same_state(r1, r0, p, tvds_test_lapack_rtol(2 * r0->nred), what);
        }
        tvds_cea_result_free(&r0);
        tvds_cea_result_free(&r1);
    }
    tvds_model_free(&m0);
    tvds_model_free(&m1);
}
END_TEST

START_TEST(test_two_copies)
{
    /* Two independent copies of the extruded case, both slave nodes active (one per copy's
     * faces): every eigenvalue of one copy appears twice, about both states; the static normal
     * force doubles. */
    double s[2] = {0.3, 0.75};
    tvds_model *m1 = extruded(1, ID3), *m2 = extruded(2, ID3);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    for (int st = 0; st < 2; st++) {
        tvds_cea_options o1 = opts(20, st ? TVDS_CEA_UNDEFORMED : TVDS_CEA_DEFORMED);
        tvds_cea_options o2 = opts(40, o1.state);
        o2.slave = TVDS_CEA_ALL_SLAVES;
        tvds_cea_result *r1 = NULL, *r2 = NULL;
        ck_assert_msg(tvds_cea_run(m1, 0, s, 2, &o1, &r1, &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert_msg(tvds_cea_run(m2, 0, s, 2, &o2, &r2, &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert_int_eq(r2->nbranch, 40);
        for (int p = 0; p < 2; p++) {
            double worst = 0.0;
            for (int b = 0; b < 20; b++) {
                /* The two nearest eigenvalues of the pair of copies. */
                double complex l = eig_at(r1, p, b);
                double d1 = INFINITY, d2 = INFINITY;
                for (int c = 0; c < 40; c++) {
                    double d = cabs(eig_at(r2, p, c) - l) / cabs(l);
                    if (d < d1)
                        d2 = d1, d1 = d;
                    else if (d < d2)
                        d2 = d;
                }
                if (d2 > worst) worst = d2;
            }
            double dl = fabs(r2->lambda_n[p] - 2 * r1->lambda_n[p]) / (r1->lambda_n[p] + 1e-300);
            if (getenv("TVDS_TEST_VERBOSE"))
                fprintf(stderr, "cea3d copies: state %d s = %g: eigenvalues %.3g, force %.3g\n", st,
                        s[p], worst, dl);
            double rt = tvds_test_lapack_rtol(2 * r2->nred);
            ck_assert_msg(worst < rt, "state %d s = %g: second copy's eigenvalue %.3g", st, s[p],
                          worst);
            ck_assert_msg(dl < rt, "normal force %.15g vs 2 x %.15g", r2->lambda_n[p],
                          r1->lambda_n[p]);
        }
        tvds_cea_result_free(&r1);
        tvds_cea_result_free(&r2);
    }
    tvds_model_free(&m1);
    tvds_model_free(&m2);
}
END_TEST

/* ---- A warped face on springs against an independent penalty model ------------------------ */

/* Bilinear face (corners P, 4 x 3, at natural (-1,-1), (1,-1), (1,1), (-1,1)): point, shape
 * functions, tangents and the twist x_,12 at (x1, x2). */
static void bil_point(const double *P, const double xi[2], double xp[3], double Nq[4], double a1[3],
                      double a2[3], double a12[3])
{
    static const double sg[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int k = 0; k < 3; k++)
        xp[k] = a1[k] = a2[k] = a12[k] = 0.0;
    for (int q = 0; q < 4; q++) {
        double A = 1 + sg[q][0] * xi[0], B = 1 + sg[q][1] * xi[1];
        Nq[q] = 0.25 * A * B;
        for (int k = 0; k < 3; k++) {
            xp[k] += Nq[q] * P[3 * q + k];
            a1[k] += 0.25 * sg[q][0] * B * P[3 * q + k];
            a2[k] += 0.25 * sg[q][1] * A * P[3 * q + k];
            a12[k] += 0.25 * sg[q][0] * sg[q][1] * P[3 * q + k];
        }
    }
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Orthogonal projection of Q on the bilinear face by Newton (full Hessian). */
static void bil_project(const double *P, const double Q[3], double xi[2])
{
    xi[0] = xi[1] = 0.0;
    for (int it = 0; it < 60; it++) {
        double xp[3], Nq[4], a1[3], a2[3], a12[3], r[3];
        bil_point(P, xi, xp, Nq, a1, a2, a12);
        for (int k = 0; k < 3; k++)
            r[k] = xp[k] - Q[k];
        double g1 = dot3(a1, r), g2 = dot3(a2, r);
        double h11 = dot3(a1, a1), h12 = dot3(a1, a2) + dot3(r, a12), h22 = dot3(a2, a2);
        double det = h11 * h22 - h12 * h12;
        xi[0] -= (h22 * g1 - h12 * g2) / det;
        xi[1] -= (h11 * g2 - h12 * g1) / det;
    }
}

enum { PW_N = 15 };
static const double PW_KP = 1e11, PW_MU = 0.35;
static const double PW_V[3] = {1.0, 0.4, 0.3}; /* the slave's travel: oblique to the face */
static const double PW_F[3] = {60.0, -40.0, -600.0};
static const double PW_XS[3] = {-0.2, -0.1, 0.3};
static const double PW_XM[12] = {-0.5, -0.5, 0, 0.5, -0.5, 0, 0.5, 0.5, 0.04, -0.5, 0.5, 0};

/* Mass (diagonal, per DoF) and stiffness (block diagonal, row-major 15 x 15) of the slave
 * node and the four face nodes. */
static void pw_blocks(double *md, double *Kb)
{
    static const double ks[9] = {2e4, 3e3, 2e3, 3e3, 1.5e4, 1e3, 2e3, 1e3, 1e4};
    for (int i = 0; i < 3; i++)
        md[i] = 0.8;
    memcpy(Kb, ks, sizeof ks);
    for (int q = 0; q < 4; q++) {
        double *B = Kb + 9 * (q + 1);
        double d[3] = {3e4 * (1 + 0.3 * q), 4e4, 2.5e4 * (1 + 0.5 * q)};
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                B[3 * a + b] = a == b ? d[a] : 4e3 * (1 + ((a + b + q) % 3));
        for (int k = 0; k < 3; k++)
            md[3 + 3 * q + k] = 0.3 + 0.05 * q;
    }
}

static tvds_model *pw_model(void)
{
    double md[PW_N], Kb[45], Mb[45] = {0};
    pw_blocks(md, Kb);
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < 3; k++)
            Mb[9 * i + 4 * k] = md[3 * i + k];
    tvds_model *m = tvds_model_create();
    long sid = 1, mid[4] = {10, 11, 12, 13};
    int S = add_sub3(m, "slave", 1, &sid, PW_XS, Mb, Kb, ID3);
    int Mst = add_sub3(m, "master", 4, mid, PW_XM, Mb + 9, Kb + 9, ID3);
    int corners[4] = {0, 1, 2, 3};
    add_face_contact(m, S, 1, &sid, Mst, 4, mid, 1, 4, corners, PW_MU, PW_V, ID3);
    add_load3(m, S, 0, PW_F, ID3);
    return m;
}

/* Penalty reference of a slave node (DoFs 0..2) on a face of the n / 3 - 1 nodes after it, at
 * the placed coordinates X (n): stiffness blocks Kb (3 x 3 row-major per node, the slave's
 * first), load F0 on the slave. Static state by Newton to the residual tol (penalty_static),
 * its tangent into J and friction damping into C (fd_damping; both n x n, the caller's);
 * returns the normal force |F_C| / sqrt(1 + mu^2). */
static double face_reference(int n, const double *X, const double *Kb, const double F0[3],
                             double tol, void (*force)(const double *, const double *, double *),
                             void (*force_v)(const double *, const double *, const double *,
                                             double *),
                             double *J, double *C)
{
    double *K = calloc((size_t)n * n, sizeof *K), f[n], u[n], F[n];
    ck_assert_ptr_nonnull(K);
    for (int i = 0; i < n / 3; i++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                K[(3 * i + a) * n + 3 * i + b] = Kb[9 * i + 3 * a + b];
    memset(f, 0, sizeof f);
    memset(u, 0, sizeof u);
    memcpy(f, F0, 3 * sizeof *f);
    penalty_static(force, n, X, K, f, tol, u, J);
    free(K);
    force(X, u, F);
    fd_damping(force_v, n, X, u, C);
    return sqrt(dot3(F, F)) / sqrt(1 + PW_MU * PW_MU);
}

/* CEA of m at position s with nmodes branches: r[0] about the preloaded state, r[1] about the
 * undeformed one, r[2] preloaded with the friction direction frozen (no lateral damping). */
static void cea_three_states(const tvds_model *m, double s, int nmodes, tvds_cea_result *r[3])
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    for (int k = 0; k < 3; k++) {
        tvds_cea_options o = opts(nmodes, k == 1 ? TVDS_CEA_UNDEFORMED : TVDS_CEA_DEFORMED);
        o.no_lateral = k == 2;
        r[k] = NULL;
        ck_assert_msg(tvds_cea_run(m, 0, &s, 1, &o, &r[k], &ctx) == TVDS_OK, "%s", ctx.msg);
    }
}

/* Penalty force of a slave node at x[0..2] on a face of nq nodes (DoFs 3..3 nq + 2 of F) from
 * its closest point xp on the deformed face (shape functions Nq, tangents a1, a2 there): normal
 * force kp times the penetration along n = a1 x a2 / |a1 x a2|, friction mu along the
 * tangential part of the travel v0 + ud_C - sum_q N_q ud_q (ud NULL: 0). */
static void face_penalty(const double *x, int nq, const double xp[3], const double *Nq,
                         const double a1[3], const double a2[3], const double v0[3],
                         const double *ud, double *F)
{
    double n[3] = {a1[1] * a2[2] - a1[2] * a2[1], a1[2] * a2[0] - a1[0] * a2[2],
                   a1[0] * a2[1] - a1[1] * a2[0]};
    double nl = sqrt(dot3(n, n)), g = 0.0;
    for (int k = 0; k < 3; k++)
        n[k] /= nl;
    for (int k = 0; k < 3; k++)
        g += n[k] * (x[k] - xp[k]);
    double v[3];
    for (int k = 0; k < 3; k++) {
        v[k] = v0[k];
        for (int q = 0; ud && q <= nq; q++)
            v[k] += (q ? -Nq[q - 1] : 1.0) * ud[3 * q + k];
    }
    double vn = dot3(v, n), t[3], tl = 0.0;
    for (int k = 0; k < 3; k++) {
        t[k] = v[k] - vn * n[k];
        tl += t[k] * t[k];
    }
    double fn = -PW_KP * g;
    for (int k = 0; k < 3; k++) {
        double fc = fn * (n[k] - PW_MU * t[k] / sqrt(tl));
        F[k] = fc;
        for (int q = 0; q < nq; q++)
            F[3 + 3 * q + k] = -Nq[q] * fc;
    }
}

/* Penalty contact force on the 15 DoFs at X + u (X: the placed slave, then the face nodes):
 * exact projection on the deformed face, normal force kp times the penetration along its
 * normal, friction mu along the tangential part of the travel v. */
static void pw_force_v(const double *X, const double *u, const double *ud, double *F);

static void pw_force(const double *X, const double *u, double *F)
{
    pw_force_v(X, u, NULL, F);
}

/* pw_force with the velocities ud (NULL: 0) added to the travel: the friction direction is
 * that of the tangential part of v + ud_C - sum_q N_q ud_q. */
static void pw_force_v(const double *X, const double *u, const double *ud, double *F)
{
    double x[PW_N], xi[2], xp[3], Nq[4], a1[3], a2[3], a12[3];
    for (int i = 0; i < PW_N; i++)
        x[i] = X[i] + u[i];
    bil_project(x + 3, x, xi);
    bil_point(x + 3, xi, xp, Nq, a1, a2, a12);
    face_penalty(x, 4, xp, Nq, a1, a2, PW_V, ud, F);
}

START_TEST(test_preload_matches_penalty)
{
    /* A slave node pressed by 600 N on a warped 4-node face whose corners sit on coupled
     * springs, sliding obliquely (its travel has a component along the normal) with mu = 0.35:
     * the face tilts and twists under the load. Reference: a penalty model written here
     * (projection on the deformed bilinear face, normal force kp x penetration, friction along
     * the tangential part of the travel), static state by Newton and tangent by central finite
     * differences; it converges to the constrained eigenvalues as O(k / kp) ~ 5e-7. */
    tvds_model *m = pw_model();
    double s = 0.25;
    tvds_cea_result *r[3];
    cea_three_states(m, s, 14, r);
    ck_assert_int_eq(r[0]->nred, 14);
    /* Placed slave: the closest point of X_s + s v / |v| on the undeformed face. */
    double X[PW_N], Q[3], xi[2], Nq[4], a1[3], a2[3], a12[3], vl = sqrt(dot3(PW_V, PW_V));
    memcpy(X + 3, PW_XM, sizeof PW_XM);
    for (int k = 0; k < 3; k++)
        Q[k] = PW_XS[k] + s * PW_V[k] / vl;
    bil_project(PW_XM, Q, xi);
    bil_point(PW_XM, xi, X, Nq, a1, a2, a12);
    double md[PW_N], Kb[45];
    pw_blocks(md, Kb);
    /* The friction direction follows the sliding velocity: the reference's damping C. */
    static double J[PW_N * PW_N], C[PW_N * PW_N];
    double lnp = face_reference(PW_N, X, Kb, PW_F, 1e-9 * 600.0, pw_force, pw_force_v, J, C);
    ck_assert_msg(fabs(r[0]->lambda_n[0] - lnp) < 1e-6 * lnp, "lambda_n %.12g vs penalty %.12g",
                  r[0]->lambda_n[0], lnp);
    double dev = qep_dev(r[0], PW_N, md, J, C), devu = qep_dev(r[1], PW_N, md, J, C);
    double devf = qep_dev(r[2], PW_N, md, J, NULL), devx = qep_dev(r[0], PW_N, md, J, NULL);
    if (getenv("TVDS_TEST_VERBOSE"))
        fprintf(stderr,
                "cea3d penalty: lambda_n %.12g / %.12g, eigenvalues %.3g (undeformed %.3g); "
                "frozen direction vs frozen reference %.3g, full vs frozen reference %.3g\n",
                r[0]->lambda_n[0], lnp, dev, devu, devf, devx);
    ck_assert_msg(dev < 2e-5, "preloaded linearisation vs penalty: %g", dev);
    ck_assert_msg(devu > 1e-3, "undeformed vs penalty: %g", devu);
    ck_assert_msg(devf < 2e-5, "frozen friction direction vs frozen penalty: %g", devf);
    ck_assert_msg(devx > 1e-3, "the lateral damping matters: %g", devx);
    for (int k = 0; k < 3; k++)
        tvds_cea_result_free(&r[k]);
    tvds_model_free(&m);
}
END_TEST

/* ---- A curved 9-node face against a penalty model ----------------------------------------- */

enum { Q9_N = 30 };
static const double Q9_XI[9][2] = {{-1, -1}, {1, -1}, {1, 1},  {-1, 1}, {0, -1},
                                   {1, 0},   {0, 1},  {-1, 0}, {0, 0}};
static const double Q9_F[3] = {-40.0, 25.0, -500.0}, Q9_V[3] = {0.8, -0.5, 0.2};
static const double Q9_XS[3] = {0.05, 0.1, 0.4};

/* 1D quadratic Lagrange function of the node at c in {-1, 0, 1}: value and derivatives. */
static void lag1(double c, double x, double *l, double *dl, double *d2l)
{
    if (c < 0)
        *l = 0.5 * x * (x - 1), *dl = x - 0.5, *d2l = 1.0;
    else if (c > 0)
        *l = 0.5 * x * (x + 1), *dl = x + 0.5, *d2l = 1.0;
    else
        *l = 1 - x * x, *dl = -2 * x, *d2l = -2.0;
}

/* 9-node face (nodes P, 9 x 3): point, shape functions, tangents and second derivatives. */
static void q9_point(const double *P, const double xi[2], double xp[3], double Nq[9], double a1[3],
                     double a2[3], double x11[3], double x12[3], double x22[3])
{
    for (int k = 0; k < 3; k++)
        xp[k] = a1[k] = a2[k] = x11[k] = x12[k] = x22[k] = 0.0;
    for (int q = 0; q < 9; q++) {
        double lx, dlx, d2lx, ly, dly, d2ly;
        lag1(Q9_XI[q][0], xi[0], &lx, &dlx, &d2lx);
        lag1(Q9_XI[q][1], xi[1], &ly, &dly, &d2ly);
        Nq[q] = lx * ly;
        for (int k = 0; k < 3; k++) {
            double p = P[3 * q + k];
            xp[k] += lx * ly * p;
            a1[k] += dlx * ly * p;
            a2[k] += lx * dly * p;
            x11[k] += d2lx * ly * p;
            x12[k] += dlx * dly * p;
            x22[k] += lx * d2ly * p;
        }
    }
}

static void q9_project(const double *P, const double Q[3], double xi[2])
{
    xi[0] = xi[1] = 0.0;
    for (int it = 0; it < 60; it++) {
        double xp[3], Nq[9], a1[3], a2[3], x11[3], x12[3], x22[3], r[3];
        q9_point(P, xi, xp, Nq, a1, a2, x11, x12, x22);
        for (int k = 0; k < 3; k++)
            r[k] = xp[k] - Q[k];
        double g1 = dot3(a1, r), g2 = dot3(a2, r);
        double h11 = dot3(a1, a1) + dot3(r, x11), h12 = dot3(a1, a2) + dot3(r, x12),
               h22 = dot3(a2, a2) + dot3(r, x22);
        double det = h11 * h22 - h12 * h12;
        xi[0] -= (h22 * g1 - h12 * g2) / det;
        xi[1] -= (h11 * g2 - h12 * g1) / det;
    }
}

/* Penalty force at X + u on the 30 DoFs (slave, then the 9 face nodes), as pw_force. */
static void q9_force_v(const double *X, const double *u, const double *ud, double *F);

static void q9_force(const double *X, const double *u, double *F)
{
    q9_force_v(X, u, NULL, F);
}

/* q9_force with the velocities ud added to the travel, as pw_force_v. */
static void q9_force_v(const double *X, const double *u, const double *ud, double *F)
{
    double x[Q9_N], xi[2], xp[3], Nq[9], a1[3], a2[3], x11[3], x12[3], x22[3];
    for (int i = 0; i < Q9_N; i++)
        x[i] = X[i] + u[i];
    q9_project(x + 3, x, xi);
    q9_point(x + 3, xi, xp, Nq, a1, a2, x11, x12, x22);
    face_penalty(x, 9, xp, Nq, a1, a2, Q9_V, ud, F);
}

/* Node coordinates of the curved face (a shallow bowl z = 0.06 (xi1^2 + 0.5 xi2^2) with a
 * twist) and the stiffness blocks (coupled 3 x 3 springs per node). */
static void q9_setup(double *XM, double *md, double *Kb)
{
    static const double ks[9] = {2e4, 3e3, 2e3, 3e3, 1.5e4, 1e3, 2e3, 1e3, 1e4};
    memcpy(Kb, ks, sizeof ks);
    for (int k = 0; k < 3; k++)
        md[k] = 0.8;
    for (int q = 0; q < 9; q++) {
        double x1 = Q9_XI[q][0], x2 = Q9_XI[q][1];
        XM[3 * q] = 0.5 * x1 + 0.03 * x2;
        XM[3 * q + 1] = 0.5 * x2;
        XM[3 * q + 2] = 0.06 * (x1 * x1 + 0.5 * x2 * x2) + 0.02 * x1 * x2;
        double *B = Kb + 9 * (q + 1);
        double d[3] = {3e4 * (1 + 0.1 * q), 4e4, 2.5e4 * (1 + 0.2 * q)};
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                B[3 * a + b] = a == b ? d[a] : 3e3 * (1 + ((a + b + q) % 3));
        for (int k = 0; k < 3; k++)
            md[3 + 3 * q + k] = 0.2 + 0.03 * q;
    }
}

START_TEST(test_curved_face_penalty)
{
    /* The penalty check of preload_matches_penalty on a curved 9-node face (a shallow twisted
     * bowl: every second derivative x_,ij of the face is nonzero), so that the curvature terms
     * of the closest point's motion enter the preload stiffness. */
    double XM[27], md[Q9_N], Kb[90], Mb[90] = {0};
    q9_setup(XM, md, Kb);
    for (int i = 0; i < 10; i++)
        for (int k = 0; k < 3; k++)
            Mb[9 * i + 4 * k] = md[3 * i + k];
    tvds_model *m = tvds_model_create();
    long sid = 1, mid[9];
    int nodes[9];
    for (int q = 0; q < 9; q++)
        mid[q] = 10 + q, nodes[q] = q;
    int S = add_sub3(m, "slave", 1, &sid, Q9_XS, Mb, Kb, ID3);
    int Mst = add_sub3(m, "master", 9, mid, XM, Mb + 9, Kb + 9, ID3);
    add_face_contact(m, S, 1, &sid, Mst, 9, mid, 1, 9, nodes, PW_MU, Q9_V, ID3);
    add_load3(m, S, 0, Q9_F, ID3);
    double s = 0.2;
    tvds_cea_result *r[3];
    cea_three_states(m, s, Q9_N - 1, r);
    /* Placed slave and the penalty model's static state, tangent and damping. */
    double X[Q9_N], Q[3], xi[2], Nq[9], a1[3], a2[3], x11[3], x12[3], x22[3];
    double vl = sqrt(dot3(Q9_V, Q9_V));
    memcpy(X + 3, XM, sizeof XM);
    for (int k = 0; k < 3; k++)
        Q[k] = Q9_XS[k] + s * Q9_V[k] / vl;
    q9_project(XM, Q, xi);
    q9_point(XM, xi, X, Nq, a1, a2, x11, x12, x22);
    static double J[Q9_N * Q9_N], C[Q9_N * Q9_N];
    double lnp = face_reference(Q9_N, X, Kb, Q9_F, 1e-9 * 500.0, q9_force, q9_force_v, J, C);
    double dev = qep_dev(r[0], Q9_N, md, J, C), devu = qep_dev(r[1], Q9_N, md, J, C);
    double devf = qep_dev(r[2], Q9_N, md, J, NULL);
    if (getenv("TVDS_TEST_VERBOSE"))
        fprintf(stderr,
                "cea3d curved face: lambda_n %.12g / %.12g, eigenvalues %.3g "
                "(undeformed %.3g, frozen direction vs frozen reference %.3g)\n",
                r[0]->lambda_n[0], lnp, dev, devu, devf);
    ck_assert_int_eq(r[0]->nbranch, Q9_N - 1);
    ck_assert_msg(fabs(r[0]->lambda_n[0] - lnp) < 1e-6 * lnp, "lambda_n %.12g vs penalty %.12g",
                  r[0]->lambda_n[0], lnp);
    ck_assert_msg(dev < 2e-5, "preloaded linearisation vs penalty: %g", dev);
    ck_assert_msg(devu > 1e-3, "undeformed vs penalty: %g", devu);
    ck_assert_msg(devf < 2e-5, "frozen friction direction vs frozen penalty: %g", devf);
    for (int k = 0; k < 3; k++)
        tvds_cea_result_free(&r[k]);
    tvds_model_free(&m);
}
END_TEST

/* ---- Several nodes on a deformable 2D master about the preloaded state ---------------------- */

enum { TW_N = 10 };
static const double TW_OFF = 0.45; /* abscissa of the second slave node from the first */
static const double TW_K[4] = {2e4, 1e4, 2.5e4, 1.2e4}, TW_KC[2] = {5e3, 4e3};
static const double TW_M[4] = {0.8, 0.8, 0.6, 0.6}, TW_P[2] = {600.0, 400.0};

/* The inclined master of inclined2d with a slave body of two nodes (1 at abscissa 0, 2 at
 * TW_OFF), coupled by springs in x and y, each pressed along -n. */
static tvds_model *two_nodes2d(void)
{
    tvds_model *m = inclined2d();
    tvds_substructure *S = m->subs[0];
    tvds_free(S->M);
    tvds_free(S->K);
    tvds_free(S->dofs);
    S->n = 4;
    S->M = tvds_calloc(16, sizeof(double));
    S->K = tvds_calloc(16, sizeof(double));
    S->dofs = tvds_calloc(4, sizeof(tvds_dof));
    for (int i = 0; i < 4; i++) {
        int a = i / 2, k = i % 2;
        S->dofs[i] = (tvds_dof){.kind = TVDS_DOF_PHYSICAL, .node = 1 + a, .dir = k};
        S->dofs[i].xyz[0] = a * TW_OFF * cos(G30);
        S->dofs[i].xyz[1] = a * TW_OFF * sin(G30);
        S->M[i * 4 + i] = TW_M[i];
        S->K[i * 4 + i] = TW_K[i] + TW_KC[k];
        S->K[(i ^ 2) * 4 + i] = -TW_KC[k];
    }
    tvds_contact *c = &m->contacts[0];
    c->nslave = 2;
    c->slave_nodes = tvds_realloc(c->slave_nodes, 2 * sizeof(long));
    c->slave_nodes[1] = 2;
    m->nload = 0;
    for (int i = 0; i < 2; i++)
        tvds_free(m->loads[i].name);
    for (int a = 0; a < 2; a++) {
        add_load(m, 0, 2 * a, TW_P[a] * sin(G30));
        add_load(m, 0, 2 * a + 1, -TW_P[a] * cos(G30));
    }
    return m;
}

/* The master segments of the two slave nodes at the test's position s = 0.3. */
static const int TW_SEG[2] = {0, 1};

/* Penalty force of the two slave nodes (DoFs 0..3) on their segments TW_SEG[a] of the master
 * (DoFs 4..9) at X + u: projection on the deformed segment, normal force kp x penetration,
 * friction mu along the deformed tangent (both slide up the slope). */
static void tw_force(const double *X, const double *u, double *F)
{
    const int *seg = TW_SEG;
    memset(F, 0, TW_N * sizeof *F);
    for (int a = 0; a < 2; a++) {
        double x1[2], x2[2], xc[2];
        for (int k = 0; k < 2; k++) {
            xc[k] = X[2 * a + k] + u[2 * a + k];
            x1[k] = X[4 + 2 * seg[a] + k] + u[4 + 2 * seg[a] + k];
            x2[k] = X[6 + 2 * seg[a] + k] + u[6 + 2 * seg[a] + k];
        }
        double d[2] = {x2[0] - x1[0], x2[1] - x1[1]}, L = hypot(d[0], d[1]);
        double t[2] = {d[0] / L, d[1] / L}, n[2] = {-t[1], t[0]};
        double al = ((xc[0] - x1[0]) * t[0] + (xc[1] - x1[1]) * t[1]) / L;
        double g = (xc[0] - x1[0]) * n[0] + (xc[1] - x1[1]) * n[1], fn = -PW_KP * g;
        for (int k = 0; k < 2; k++) {
            double fc = fn * (n[k] - MU * t[k]);
            F[2 * a + k] += fc;
            F[4 + 2 * seg[a] + k] -= (1 - al) * fc;
            F[6 + 2 * seg[a] + k] -= al * fc;
        }
    }
}

START_TEST(test_two_nodes_2d_penalty)
{
    /* Two slave nodes of one body on the two segments of the deformable inclined master,
     * pressed by 600 N and 400 N, about the preloaded state: against an independent penalty
     * model (exact deformed segments, static state by Newton, central finite-difference
     * tangent), O(k / kp) ~ 5e-7. Both nodes' preload stiffnesses matter: the undeformed
     * linearisation is far off. */
    tvds_model *m = two_nodes2d();
    double s = 0.3; /* node 1 on segment 0 at alpha 0.6, node 2 on segment 1 at alpha 0.5 */
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_options o = opts(8, TVDS_CEA_DEFORMED);
    o.slave = TVDS_CEA_ALL_SLAVES;
    tvds_cea_result *rd = NULL, *ru = NULL;
    ck_assert_msg(tvds_cea_run(m, 0, &s, 1, &o, &rd, &ctx) == TVDS_OK, "%s", ctx.msg);
    o.state = TVDS_CEA_UNDEFORMED;
    ck_assert_msg(tvds_cea_run(m, 0, &s, 1, &o, &ru, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(rd->nred, 8);
    double X[TW_N], K[TW_N * TW_N] = {0}, md[TW_N], f[TW_N] = {0}, u[TW_N] = {0};
    for (int i = 0; i < 3; i++)
        X[4 + 2 * i] = i * SEG * cos(G30), X[5 + 2 * i] = i * SEG * sin(G30);
    for (int a = 0; a < 2; a++) {
        double sa = s + a * TW_OFF;
        X[2 * a] = sa * cos(G30), X[2 * a + 1] = sa * sin(G30);
        f[2 * a] = TW_P[a] * sin(G30), f[2 * a + 1] = -TW_P[a] * cos(G30);
    }
    for (int i = 0; i < 4; i++) {
        md[i] = TW_M[i];
        K[i * TW_N + i] = TW_K[i] + TW_KC[i % 2];
        K[i * TW_N + (i ^ 2)] = -TW_KC[i % 2];
    }
    for (int i = 0; i < 6; i++) {
        md[4 + i] = mass_master(i / 2);
        K[(4 + i) * TW_N + 4 + i] = k_master(i / 2, i % 2);
    }
    static double J[TW_N * TW_N];
    double F[TW_N];
    penalty_static(tw_force, TW_N, X, K, f, 1e-9 * 600.0, u, J);
    tw_force(X, u, F);
    double lnp = (hypot(F[0], F[1]) + hypot(F[2], F[3])) / sqrt(1 + MU * MU);
    double A[TW_N * TW_N], er[TW_N], ei[TW_N], dum[1];
    for (int i = 0; i < TW_N; i++)
        for (int j = 0; j < TW_N; j++)
            A[i * TW_N + j] = J[i * TW_N + j] / md[i];
    ck_assert_int_eq(
        LAPACKE_dgeev(LAPACK_ROW_MAJOR, 'N', 'N', TW_N, A, TW_N, er, ei, dum, 1, dum, 1), 0);
    double dev[2] = {0, 0};
    for (int q = 0; q < 2; q++) {
        const tvds_cea_result *r = q ? ru : rd;
        for (int b = 0; b < r->nbranch; b++) {
            double complex l = eig_at(r, 0, b), mu2 = -(l * l);
            double best = INFINITY;
            for (int k = 0; k < TW_N; k++) {
                double d = cabs(mu2 - (er[k] + I * ei[k])) / cabs(mu2);
                if (d < best) best = d;
            }
            if (best > dev[q]) dev[q] = best;
        }
    }
    if (getenv("TVDS_TEST_VERBOSE"))
        fprintf(stderr,
                "cea3d two nodes 2D: lambda_n %.12g / %.12g, eigenvalues %.3g "
                "(undeformed %.3g)\n",
                rd->lambda_n[0], lnp, dev[0], dev[1]);
    ck_assert_msg(fabs(rd->lambda_n[0] - lnp) < 1e-6 * lnp, "lambda_n %.12g vs penalty %.12g",
                  rd->lambda_n[0], lnp);
    ck_assert_msg(dev[0] < 2e-5, "preloaded linearisation vs penalty: %g", dev[0]);
    ck_assert_msg(dev[1] > 1e-3, "undeformed vs penalty: %g", dev[1]);
    /* The same two nodes as two contacts (one node each, --contact all): the same static state
     * and eigenvalues to round-off. */
    tvds_contact *c = &m->contacts[0];
    m->contacts = tvds_realloc(m->contacts, 2 * sizeof *m->contacts);
    c = &m->contacts[0];
    m->contacts[1] = *c;
    tvds_contact *c2 = &m->contacts[1];
    c2->name = tvds_strdup("tip2");
    c2->slave_nodes = tvds_malloc(sizeof(long));
    c2->slave_nodes[0] = 2;
    c2->master_nodes = tvds_malloc(3 * sizeof(long));
    memcpy(c2->master_nodes, c->master_nodes, 3 * sizeof(long));
    c->nslave = c2->nslave = 1;
    m->ncontact = 2;
    tvds_cea_result *rc2 = NULL;
    o.state = TVDS_CEA_DEFORMED;
    o.slave = 0;
    ck_assert_msg(tvds_cea_run(m, TVDS_CEA_ALL_CONTACTS, &s, 1, &o, &rc2, &ctx) == TVDS_OK, "%s",
                  ctx.msg);
    same_state(rc2, rd, 0, tvds_test_lapack_rtol(2 * rc2->nred), "two contacts");
    tvds_cea_result_free(&rc2);
    tvds_cea_result_free(&rd);
    tvds_cea_result_free(&ru);
    tvds_model_free(&m);
}
END_TEST

/* The only contact of m, `name`: the nslave nodes ids of substructure S (3D) on a rigid master
 * with friction mu. The caller sets the master's geometry and motion (a disc: its kind too). */
static tvds_contact *rigid_contact(tvds_model *m, const char *name, int S, int nslave,
                                   const long *ids, double mu)
{
    m->contacts = tvds_calloc(1, sizeof *m->contacts);
    m->ncontact = 1;
    tvds_contact *c = &m->contacts[0];
    c->name = tvds_strdup(name);
    c->dim = 3;
    c->slave_sub = S;
    c->nslave = nslave;
    c->slave_nodes = tvds_malloc((size_t)nslave * sizeof(long));
    memcpy(c->slave_nodes, ids, (size_t)nslave * sizeof(long));
    c->master_sub = -1;
    c->master_kind = TVDS_MASTER_RIGID;
    c->mu_s = c->mu_k = mu;
    return c;
}

static const double DK[9] = {1.5e4, 3e3, 2e3, 3e3, 1e4, 1.5e3, 2e3, 1.5e3, 1.2e4};

START_TEST(test_contact_set)
{
    /* The two-node body of two_nodes_2d with its second node pulled off the master (200 N
     * along +n): in the static state the second node's multiplier would pull, so it is
     * released, and the result is that of the first node alone (--slave 0, the one-node path),
     * its second node free on its springs. */
    tvds_model *m = two_nodes2d();
    m->loads[2].fn.amp = -200.0 * sin(G30);
    m->loads[3].fn.amp = 200.0 * cos(G30);
    double s = 0.3;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_options o = opts(8, TVDS_CEA_DEFORMED);
    o.slave = TVDS_CEA_ALL_SLAVES;
    tvds_cea_result *ra = NULL, *r1 = NULL;
    ck_assert_msg(tvds_cea_run(m, 0, &s, 1, &o, &ra, &ctx) == TVDS_OK, "%s", ctx.msg);
    o.slave = 0;
    ck_assert_msg(tvds_cea_run(m, 0, &s, 1, &o, &r1, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(ra->nred, 9);
    ck_assert_int_eq(r1->nred, 9);
    same_state(ra, r1, 0, 1e-10, "contact set, released node");
    tvds_cea_result_free(&ra);
    tvds_cea_result_free(&r1);
    tvds_model_free(&m);
    /* The same on a rigid plane: two coupled blocks on the plane z = 0 moving along +x, the
     * second pulled up. */
    m = tvds_model_create();
    long ids[2] = {1, 2};
    double X[6] = {0, 0, 0, 0.3, 0, 0}, Mb[18] = {0}, Kb[18];
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 3; k++)
            Mb[9 * i + 4 * k] = 1.0 + 0.2 * i;
    memcpy(Kb, DK, sizeof DK);
    memcpy(Kb + 9, DK, sizeof DK);
    int S = add_sub3(m, "blocks", 2, ids, X, Mb, Kb, ID3);
    for (int k = 0; k < 3; k++) {
        /* Couple the blocks: k_c (u_1 - u_2)^2 / 2 per direction. */
        double kc = 2e3 * (1 + k), *K = m->subs[S]->K;
        K[k * 6 + k] += kc, K[(k + 3) * 6 + k + 3] += kc;
        K[(k + 3) * 6 + k] -= kc, K[k * 6 + k + 3] -= kc;
    }
    double F1[3] = {0, 0, -50}, F2[3] = {0, 0, 20};
    add_load3(m, S, 0, F1, ID3);
    add_load3(m, S, 1, F2, ID3);
    tvds_contact *c = rigid_contact(m, "plane", S, 2, ids, 0.3);
    c->rigid_normal[2] = c->rigid_t1[0] = 1.0;
    c->rigid_motion[0] = (tvds_fn){.kind = TVDS_FN_RAMP, .amp = 1e3, .t0 = 0, .t1 = 1e3};
    o = opts(5, TVDS_CEA_DEFORMED);
    o.slave = TVDS_CEA_ALL_SLAVES;
    ck_assert_msg(tvds_cea_run(m, 0, &s, 1, &o, &ra, &ctx) == TVDS_OK, "%s", ctx.msg);
    o.slave = 0;
    ck_assert_msg(tvds_cea_run(m, 0, &s, 1, &o, &r1, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(ra->nred, 5);
    same_state(ra, r1, 0, 1e-10, "contact set, released node on the plane");
    tvds_cea_result_free(&ra);
    tvds_cea_result_free(&r1);
    tvds_model_free(&m);
}
END_TEST

/* Three blocks on the rigid plane z = 0 moving along +x; blocks 1 and 3 coupled in z by a
 * positive off-diagonal stiffness (a lever: pulling 3 up pushes 1 down); block 2 pressed, 1 and
 * 3 pulled up. nslave: the first nslave blocks are the contact's slave nodes. */
static tvds_model *lever_blocks(int nslave)
{
    tvds_model *m = tvds_model_create();
    long ids[3] = {1, 2, 3};
    double X[9] = {0, 0, 0, 0.3, 0, 0, 0.6, 0, 0}, Mb[27] = {0}, Kb[27];
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 3; k++)
            Mb[9 * i + 4 * k] = 1.0 + 0.2 * i;
        memcpy(Kb + 9 * i, DK, sizeof DK);
    }
    int S = add_sub3(m, "blocks", 3, ids, X, Mb, Kb, ID3);
    double *K = m->subs[S]->K, a = 6e3;
    K[8 * 9 + 2] = K[2 * 9 + 8] = a; /* z of block 1 with z of block 3 */
    double F[3][3] = {{0, 0, 10.0}, {0, 0, -100.0}, {0, 0, 100.0}};
    for (int i = 0; i < 3; i++)
        add_load3(m, S, i, F[i], ID3);
    tvds_contact *c = rigid_contact(m, "plane", S, nslave, ids, 0.3);
    c->rigid_normal[2] = c->rigid_t1[0] = 1.0;
    c->rigid_motion[0] = (tvds_fn){.kind = TVDS_FN_RAMP, .amp = 1e3, .t0 = 0, .t1 = 1e3};
    return m;
}

START_TEST(test_contact_set_take_back)
{
    /* Blocks 1 and 3 pull in the bilateral solve and are released together; block 3 then
     * lifts and, through the lever, pushes block 1 into the plane: block 1 is taken back. The
     * set {1, 2} is the result: equal to the same model with blocks 1 and 2 as the only slave
     * nodes. */
    tvds_model *m3 = lever_blocks(3), *m2 = lever_blocks(2);
    double s = 0.0;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_options o = opts(6, TVDS_CEA_DEFORMED);
    o.slave = TVDS_CEA_ALL_SLAVES;
    tvds_cea_result *r3 = NULL, *r2 = NULL;
    ck_assert_msg(tvds_cea_run(m3, 0, &s, 1, &o, &r3, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_msg(tvds_cea_run(m2, 0, &s, 1, &o, &r2, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(r3->nred, 7);
    same_state(r3, r2, 0, 1e-10, "take back");
    tvds_cea_result_free(&r3);
    tvds_cea_result_free(&r2);
    tvds_model_free(&m3);
    tvds_model_free(&m2);
}
END_TEST

/* ---- Rotating disc ------------------------------------------------------------------------- */

static const double DM[3] = {1.0, 1.2, 0.9}, DF[3] = {10.0, -6.0, -50.0}, DW = 10.0, DMU = 0.3;

/* A shoe (one node, full stiffness DK) pressed by DF on the face z = 0 of a disc turning at DW
 * about +z, at radius r on the x axis; belt: instead a rigid plane z = 0 moving along +y at
 * DW r, the disc's surface speed there. */
static tvds_model *shoe(double r, int belt)
{
    tvds_model *m = tvds_model_create();
    long id = 1;
    double X[3] = {r, 0.0, 0.0}, Mb[9] = {0};
    for (int k = 0; k < 3; k++)
        Mb[4 * k] = DM[k];
    int S = add_sub3(m, "shoe", 1, &id, X, Mb, DK, ID3);
    add_load3(m, S, 0, DF, ID3);
    tvds_contact *c = rigid_contact(m, "pad", S, 1, &id, DMU);
    c->rigid_normal[2] = 1.0;
    if (belt) {
        c->rigid_t1[0] = 1.0;
        c->rigid_motion[1] =
            (tvds_fn){.kind = TVDS_FN_RAMP, .amp = 1e3 * DW * r, .t0 = 0, .t1 = 1e3};
    } else {
        c->master_kind = TVDS_MASTER_DISC;
        c->omega = (tvds_fn){.kind = TVDS_FN_CONST, .amp = DW};
    }
    return m;
}

/* Penalty force of the shoe at x = X + u on the disc: kp times the penetration along the axis,
 * friction mu against the slave's sliding relative to the material point under it. */
static void disc_force_v(const double X[3], const double u[3], const double *ud, double F[3]);

static void disc_force(const double X[3], const double u[3], double F[3])
{
    disc_force_v(X, u, NULL, F);
}

/* disc_force with the shoe's velocity ud (NULL: at rest): w = ud - omega e_z x r in the
 * disc's plane. */
static void disc_force_v(const double X[3], const double u[3], const double *ud, double F[3])
{
    double x[3] = {X[0] + u[0], X[1] + u[1], X[2] + u[2]};
    double w[3] = {DW * x[1], -DW * x[0], 0.0}; /* ud - omega e_z x r */
    if (ud) w[0] += ud[0], w[1] += ud[1];
    double wl = hypot(w[0], w[1]), fn = -PW_KP * x[2];
    for (int k = 0; k < 3; k++)
        F[k] = fn * ((k == 2 ? 1.0 : 0.0) - DMU * w[k] / wl);
}

static double shoe_eig_dev(const tvds_cea_result *a, const tvds_cea_result *b)
{
    return fmax(max_nearest(a, 0, b, 0), max_nearest(b, 0, a, 0));
}

START_TEST(test_disc_shoe)
{
    /* (a) Against a penalty model of the shoe on the disc (exact material velocity under the
     * displaced shoe, friction along the slip velocity including the shoe's own, static state
     * by Newton, central finite-difference tangent and damping) at r = 0.2 m,
     * where the friction direction turning with the contact point matters (mu lambda_N / r is
     * 0.7 % of the stiffness): O(k / kp) ~ 2e-7.
     * (b) The equivalent belt (v = omega r): the disc differs by that turning, O(1 / r): the
     * deviation falls tenfold from r = 1 m to 10 m and is below 1e-3 at 10 m. */
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_options o = opts(2, TVDS_CEA_DEFORMED);
    double s = 0.0, r0 = 0.2;
    tvds_model *md = shoe(r0, 0);
    tvds_cea_result *rd = NULL, *rb = NULL;
    ck_assert_msg(tvds_cea_run(md, 0, &s, 1, &o, &rd, &ctx) == TVDS_OK, "%s", ctx.msg);
    double X[3] = {r0, 0, 0}, u[3] = {0, 0, 0}, J[9], R[3], F[3], Fp[3], Fm[3], h = 1e-8;
    for (int it = 0; it < 50; it++) {
        disc_force(X, u, F);
        double rn = 0.0;
        for (int i = 0; i < 3; i++) {
            R[i] = -DF[i] - F[i];
            for (int j = 0; j < 3; j++)
                R[i] += DK[3 * i + j] * u[j];
            rn += R[i] * R[i];
        }
        for (int j = 0; j < 3; j++) {
            double uj = u[j];
            u[j] = uj + h;
            disc_force(X, u, Fp);
            u[j] = uj - h;
            disc_force(X, u, Fm);
            u[j] = uj;
            for (int i = 0; i < 3; i++)
                J[3 * i + j] = DK[3 * i + j] - (Fp[i] - Fm[i]) / (2 * h);
        }
        if (sqrt(rn) < 1e-10 * 50.0) break;
        int ipiv[3];
        double A[9], b[3] = {-R[0], -R[1], -R[2]};
        memcpy(A, J, sizeof A);
        ck_assert_int_eq(LAPACKE_dgesv(LAPACK_ROW_MAJOR, 3, 1, A, 3, ipiv, b, 1), 0);
        for (int i = 0; i < 3; i++)
            u[i] += b[i];
    }
    disc_force(X, u, F);
    double lnp = F[2];
    double C[9];
    fd_damping(disc_force_v, 3, X, u, C);
    double dev = qep_dev(rd, 3, DM, J, C);
    tvds_model *mb = shoe(r0, 1);
    ck_assert_msg(tvds_cea_run(mb, 0, &s, 1, &o, &rb, &ctx) == TVDS_OK, "%s", ctx.msg);
    double dbelt0 = shoe_eig_dev(rd, rb);
    if (getenv("TVDS_TEST_VERBOSE"))
        fprintf(stderr, "cea3d disc r = %g: lambda_n %.12g / %.12g, eigenvalues %.3g (belt %.3g)\n",
                r0, rd->lambda_n[0], lnp, dev, dbelt0);
    ck_assert_int_eq(rd->nbranch, 2);
    ck_assert_msg(fabs(rd->lambda_n[0] - lnp) < 1e-6 * lnp, "lambda_n %.12g vs penalty %.12g",
                  rd->lambda_n[0], lnp);
    ck_assert_msg(dev < 2e-5, "disc vs penalty: %g", dev);
    ck_assert_msg(dbelt0 > 1e-3, "the turning of the friction direction matters: %g", dbelt0);
    tvds_cea_result_free(&rd);
    tvds_cea_result_free(&rb);
    tvds_model_free(&md);
    tvds_model_free(&mb);
    double d[2];
    for (int q = 0; q < 2; q++) {
        double r = q ? 10.0 : 1.0;
        md = shoe(r, 0);
        mb = shoe(r, 1);
        ck_assert_msg(tvds_cea_run(md, 0, &s, 1, &o, &rd, &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert_msg(tvds_cea_run(mb, 0, &s, 1, &o, &rb, &ctx) == TVDS_OK, "%s", ctx.msg);
        d[q] = shoe_eig_dev(rd, rb);
        tvds_cea_result_free(&rd);
        tvds_cea_result_free(&rb);
        tvds_model_free(&md);
        tvds_model_free(&mb);
    }
    /* (c) Without preload (undeformed state) nothing turns: the rows of disc and belt are the
     * same and so are the eigenvalues, to round-off. */
    o.state = TVDS_CEA_UNDEFORMED;
    md = shoe(r0, 0);
    mb = shoe(r0, 1);
    ck_assert_msg(tvds_cea_run(md, 0, &s, 1, &o, &rd, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_msg(tvds_cea_run(mb, 0, &s, 1, &o, &rb, &ctx) == TVDS_OK, "%s", ctx.msg);
    double du = shoe_eig_dev(rd, rb);
    tvds_cea_result_free(&rd);
    tvds_cea_result_free(&rb);
    tvds_model_free(&md);
    tvds_model_free(&mb);
    if (getenv("TVDS_TEST_VERBOSE"))
        fprintf(stderr, "cea3d disc vs belt: r = 1: %.3g, r = 10: %.3g, undeformed %.3g\n", d[0],
                d[1], du);
    ck_assert_msg(du < 1e-12, "disc vs belt, undeformed: %g", du);
    ck_assert_msg(d[1] < 1e-3 && d[1] / d[0] > 0.08 && d[1] / d[0] < 0.12,
                  "disc vs belt: %g (r = 1), %g (r = 10)", d[0], d[1]);
}
END_TEST

/* ---- Lateral friction damping on a rigid plane: closed form ------------------------------- */

static const double LB_M = 2.0, LB_K[3] = {2e4, 8e3, 3e4}, LB_P = 50.0, LB_MU = 0.3;

/* A block (mass LB_M in every direction, springs LB_K along x, y, z) pressed by LB_P on the
 * rigid plane z = 0 (normal +z), which moves along -x at v: the block slides along +x. */
static tvds_model *lateral_block(double v)
{
    tvds_model *m = tvds_model_create();
    long id = 1;
    double X[3] = {0, 0, 0}, Mb[9] = {0}, Kb[9] = {0}, F[3] = {0, 0, -LB_P};
    for (int k = 0; k < 3; k++)
        Mb[4 * k] = LB_M, Kb[4 * k] = LB_K[k];
    int S = add_sub3(m, "block", 1, &id, X, Mb, Kb, ID3);
    add_load3(m, S, 0, F, ID3);
    tvds_contact *c = rigid_contact(m, "plane", S, 1, &id, LB_MU);
    c->rigid_normal[2] = c->rigid_t1[0] = 1.0;
    c->rigid_motion[0] = (tvds_fn){.kind = TVDS_FN_RAMP, .amp = -1e3 * v, .t0 = 0, .t1 = 1e3};
    return m;
}

START_TEST(test_lateral_block)
{
    /* The normal DoF is eliminated; along the sliding direction x the block oscillates on k_x
     * undamped (the friction force's size is fixed by the normal row); across it, the friction
     * force turns with the lateral velocity: m y'' + c y' + k_y y = 0, c = mu lambda_N / v,
     * lambda = -c / (2 m) +- i sqrt(k_y / m - c^2 / (4 m^2)), at two sliding speeds (c ~ 1 / v).
     * With the direction frozen (no_lateral) or about the undeformed state (lambda_N unknown,
     * left out) the lateral branch is undamped. */
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    double s = 0.0, vs[2] = {0.5, 2.0};
    for (int q = 0; q < 2; q++) {
        tvds_model *m = lateral_block(vs[q]);
        double c = LB_MU * LB_P / vs[q], re = -c / (2 * LB_M);
        double wy = sqrt(LB_K[1] / LB_M - re * re), wx = sqrt(LB_K[0] / LB_M),
               wy0 = sqrt(LB_K[1] / LB_M);
        for (int v = 0; v < 3; v++) {
            tvds_cea_options o = opts(2, v == 2 ? TVDS_CEA_UNDEFORMED : TVDS_CEA_DEFORMED);
            o.no_lateral = v == 1;
            tvds_cea_result *r = NULL;
            ck_assert_msg(tvds_cea_run(m, 0, &s, 1, &o, &r, &ctx) == TVDS_OK, "%s", ctx.msg);
            ck_assert_int_eq(r->nbranch, 2);
            /* Branch 0: lateral (k_y < k_x), branch 1: along the sliding. */
            double complex ly = eig_at(r, 0, 0), lx = eig_at(r, 0, 1);
            double complex ey = v == 0 ? re + I * wy : I * wy0;
            double dy = cabs(ly - ey) / wy0, dx = cabs(lx - I * wx) / wx;
            if (getenv("TVDS_TEST_VERBOSE"))
                fprintf(stderr,
                        "cea3d lateral block v = %g (%s): lateral %.10g%+.10gi (expected "
                        "%.10g%+.10gi) dev %.3g, along %.3g, lambda_n %.12g\n",
                        vs[q], v == 0 ? "full" : (v == 1 ? "frozen" : "undeformed"), creal(ly),
                        cimag(ly), creal(ey), cimag(ey), dy, dx, r->lambda_n[0]);
            double rt = tvds_test_lapack_rtol(2 * r->nred);
            ck_assert_msg(dy < rt && dx < rt, "v = %g variant %d: lateral %g, along %g", vs[q], v,
                          dy, dx);
            if (v < 2)
                ck_assert_msg(fabs(r->lambda_n[0] - LB_P) < rt * LB_P, "lambda_n %.15g",
                              r->lambda_n[0]);
            tvds_cea_result_free(&r);
        }
        tvds_model_free(&m);
    }
}
END_TEST

START_TEST(test_path_range)
{
    /* The extruded slave starts on the first master node and travels up the slope: it stays on
     * the two faces for s in [0, 2 SEG]; a position beyond is refused, so is a face-set range on
     * another master. */
    tvds_model *m = extruded(1, ID3), *m2 = inclined2d();
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    double lo = NAN, hi = NAN;
    ck_assert_msg(tvds_cea_path_range(m, 0, 0, 1.0, &lo, &hi, &ctx) == TVDS_OK, "%s", ctx.msg);
    /* Exact up to the margin of a valid projection, 1e-9 in natural coordinates (2.5e-10 m). */
    ck_assert_msg(fabs(lo) < 3e-10 && fabs(hi - 2 * SEG) < 3e-10, "range [%.15g, %.15g]", lo, hi);
    tvds_cea_options o = opts(20, TVDS_CEA_DEFORMED);
    tvds_cea_result *r = NULL;
    double s = 2 * SEG + 1e-3;
    ck_assert_int_eq(tvds_cea_run(m, 0, &s, 1, &o, &r, &ctx), TVDS_ERR_INVALID);
    ck_assert_ptr_null(r);
    ck_assert_ptr_nonnull(strstr(ctx.msg, "off its face set"));
    ck_assert_int_eq(tvds_cea_path_range(m2, 0, 0, 1.0, &lo, &hi, &ctx), TVDS_ERR_INVALID);
    tvds_model_free(&m);
    tvds_model_free(&m2);
}
END_TEST

START_TEST(test_growth_on_faces)
{
    /* The growth along the case's path on a face set: s(t) is the slave's travel along its
     * direction (1 m/s up the slope here). A window [0.2, 0.4] m of branch 0 with a constant
     * real part sigma is crossed from t = 0.2 to 0.4 s: G = exp(0.2 sigma). */
    tvds_model *m = extruded(1, ID3);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_options o = opts(3, TVDS_CEA_UNDEFORMED);
    double s[3] = {0.0, 0.5, 1.0}, sa = NAN, sigma = 2.0;
    tvds_cea_result *r = NULL;
    ck_assert_msg(tvds_cea_run(m, 0, s, 3, &o, &r, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(tvds_cea_slave_abscissa(m, 0, 0, &sa, &ctx), TVDS_OK);
    ck_assert_double_eq(sa, 0.0);
    for (int p = 0; p < r->npos; p++)
        r->re[(size_t)p * r->nbranch] = sigma;
    tvds_free(r->win);
    r->win = tvds_calloc(1, sizeof *r->win);
    r->nwin = 1;
    r->win[0].branch = 0;
    r->win[0].s_in = 0.2;
    r->win[0].s_out = 0.4;
    ck_assert_int_eq(tvds_cea_growth(r, m, 0, sa, 1.0, 1e-4, &ctx), TVDS_OK);
    ck_assert_double_eq_tol(r->win[0].t_start, 0.2, 2e-4);
    ck_assert_double_eq_tol(r->win[0].t_end, 0.4, 2e-4);
    ck_assert_double_eq_tol(log(r->win[0].growth_pred), 0.2 * sigma, 2e-3 * sigma);
    tvds_cea_result_free(&r);
    tvds_model_free(&m);
}
END_TEST

/* ---- Symmetric and antisymmetric modes about a mirror plane ------------------------------- */

START_TEST(test_mirror_share)
{
    /* The extrusion is symmetric about z = 0 (the slave node on it, the master's front and back
     * nodes its mirror images): every mode is symmetric (share < 1e-10) or antisymmetric
     * (share > 1 - 1e-10) about it, and the 2D (in-plane) eigenvalues are symmetric ones,
     * about both states. Only eigenvalues apart from every other one are
     * checked: a free master node's mode has the same eigenvalue in both families, and any
     * combination of the two is then an eigenvector. */
    tvds_model *m2 = inclined2d(), *m3 = extruded(1, ID3);
    const double *s = EXT_S;
    for (int st = 0; st < 2; st++) {
        tvds_cea_result *r2 = NULL, *r3 = NULL;
        plane_and_extrusion(m2, m3, st, 3, &r2, &r3);
        ck_assert_ptr_nonnull(r3->anti);
        ck_assert_ptr_null(r2->anti);
        for (int p = 0; p < 2; p++) {
            int nsym = 0, nanti = 0;
            for (int b = 0; b < r3->nbranch; b++) {
                double complex l = eig_at(r3, p, b);
                double gap = INFINITY, d2 = INFINITY;
                for (int c = 0; c < r3->nbranch; c++)
                    if (c != b) gap = fmin(gap, cabs(eig_at(r3, p, c) - l) / cabs(l));
                for (int c = 0; c < r2->nbranch; c++)
                    d2 = fmin(d2, cabs(eig_at(r2, p, c) - l) / cabs(l));
                double a = r3->anti[(size_t)p * r3->nbranch + b];
                if (getenv("TVDS_TEST_VERBOSE"))
                    fprintf(stderr,
                            "cea3d mirror: state %d s = %g branch %d: %.6g Hz, share %.3g, "
                            "gap %.3g, 2D %.3g\n",
                            st, s[p], b, cimag(l) / (2 * PI), a, gap, d2);
                ck_assert(a >= 0.0 && a <= 1.0 + 1e-12);
                if (gap < 1e-6) continue;
                if (d2 < 1e-12) {
                    ck_assert_msg(a < 1e-10, "in-plane branch %d: share %.3g", b, a);
                    nsym++;
                } else {
                    /* Out of plane: the master's z motions are symmetric where the front and
                     * back nodes move apart, antisymmetric where they move together. */
                    ck_assert_msg(a < 1e-10 || a > 1 - 1e-10, "branch %d: share %.3g", b, a);
                    nanti += a > 0.5;
                }
            }
            ck_assert_msg(nsym >= 3 && nanti >= 3, "state %d s = %g: %d symmetric, %d antisym.", st,
                          s[p], nsym, nanti);
        }
        /* The share at the window's peak is the branch's there. */
        for (int w = 0; w < r3->nwin; w++) {
            const tvds_cea_window *cw = &r3->win[w];
            int p = cw->s_peak == s[0] ? 0 : 1;
            ck_assert_double_eq(cw->anti_peak, r3->anti[(size_t)p * r3->nbranch + cw->branch]);
        }
        tvds_cea_result_free(&r2);
        tvds_cea_result_free(&r3);
    }
    tvds_model_free(&m2);
    tvds_model_free(&m3);
}
END_TEST

START_TEST(test_mirror_refused)
{
    /* Not symmetric about x = 0 (the master runs from x = 0 to 0.87), nor about z = 0 once
     * turned: refused, naming a node; an unknown plane is refused too. */
    double s[1] = {0.3}, ax[3] = {1 / sqrt(14.0), 2 / sqrt(14.0), 3 / sqrt(14.0)}, R[9];
    rotation(ax, 0.7, R);
    tvds_model *m = extruded(1, ID3), *mr = extruded(1, R);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_options o = opts(20, TVDS_CEA_DEFORMED);
    tvds_cea_result *r = NULL;
    o.mirror = 1;
    ck_assert_int_eq(tvds_cea_run(m, 0, s, 1, &o, &r, &ctx), TVDS_ERR_INVALID);
    ck_assert_ptr_null(r);
    ck_assert_msg(strstr(ctx.msg, "mirror plane x = 0: node 1") &&
                      strstr(ctx.msg, "of substructure 'master'") &&
                      strstr(ctx.msg, "has no mirror image"),
                  "%s", ctx.msg);
    o.mirror = 3;
    ck_assert_int_eq(tvds_cea_run(mr, 0, s, 1, &o, &r, &ctx), TVDS_ERR_INVALID);
    ck_assert_msg(strstr(ctx.msg, "has no mirror image"), "%s", ctx.msg);
    ck_assert_int_eq(tvds_cea_run(m, 0, s, 1, &o, &r, &ctx), TVDS_OK);
    tvds_cea_result_free(&r);
    o.mirror = 4;
    ck_assert_int_eq(tvds_cea_run(m, 0, s, 1, &o, &r, &ctx), TVDS_ERR_INVALID);
    tvds_model_free(&m);
    tvds_model_free(&mr);
}
END_TEST

Suite *cea3d_suite(void)
{
    Suite *s = suite_create("cea3d");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_extrusion_gives_2d);
    tcase_add_test(tc, test_rotation_invariance);
    tcase_add_test(tc, test_two_copies);
    tcase_add_test(tc, test_preload_matches_penalty);
    tcase_add_test(tc, test_curved_face_penalty);
    tcase_add_test(tc, test_two_nodes_2d_penalty);
    tcase_add_test(tc, test_contact_set);
    tcase_add_test(tc, test_contact_set_take_back);
    tcase_add_test(tc, test_disc_shoe);
    tcase_add_test(tc, test_lateral_block);
    tcase_add_test(tc, test_path_range);
    tcase_add_test(tc, test_growth_on_faces);
    tcase_add_test(tc, test_mirror_share);
    tcase_add_test(tc, test_mirror_refused);
    suite_add_tcase(s, tc);
    return s;
}
