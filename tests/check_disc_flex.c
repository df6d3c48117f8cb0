/* check_disc_flex.c — the face set of a substructure that turns about an axis (a flexible disc
 * under a shoe; docs/theory.md 3d), through the case file: `master = disc:ring` with omega,
 * point and normal.
 *
 * The disc is an annulus of 4-node faces in the plane z = 0 (radii 80-120 mm, 48 sectors), each
 * node held to the ground by springs of stiffness k (a Winkler disc) with a lumped mass; a hub
 * node below the plane tells the face set's outside. The shoe is the belt-driven stick-slip
 * oscillator of check_contact3d's test_disc_belt_stick_slip (1 kg pressed with 10 N, spring
 * 100 N/m along y, mu_s = 0.2, mu_k = 0.1) at radius r = 0.1 m on the x axis, the disc turning at
 * omega = V / r, V = 0.1 m/s. */
#include <check.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/contact/face.h"
#include "engine/sim_impl.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_sim.h"
#define TVDS_TEST_ENGINE
#include "tvds_test.h"

#define PI 3.14159265358979323846

#define NSEC  48
#define NRING 3
#define RIN   0.08
#define DR    0.02
#define RSHOE 0.1
#define VBELT 0.1
#define HSTEP 1e-5

/* The disc's directory: nodes (ring i, sector j) numbered 1 + i NSEC + (j + shift) mod NSEC, so
 * that shift turns the labels by shift sectors (the same mesh, numbered from another sector),
 * faces listed from sector shift on; kxy, kz the ground stiffness of every node in the plane and
 * along the axis, mnode its mass. */
static void write_disc(const char *dir, int shift, double kxy, double kz, double mnode)
{
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    int nn = NRING * NSEC + 1, n = 3 * nn;
    size_t cap = (size_t)n * 48 + 1024;
    char *M = malloc(cap), *K = malloc(cap), *D = malloc((size_t)n * 64), *S = malloc(65536);
    int lm =
        snprintf(M, cap, "%%%%MatrixMarket matrix coordinate real symmetric\n%d %d %d\n", n, n, n);
    int lk =
        snprintf(K, cap, "%%%%MatrixMarket matrix coordinate real symmetric\n%d %d %d\n", n, n, n);
    for (int g = 1; g <= n; g++) {
        lm += snprintf(M + lm, cap - lm, "%d %d %.17g\n", g, g, mnode);
        lk += snprintf(K + lk, cap - lk, "%d %d %.17g\n", g, g, g % 3 == 0 ? kz : kxy);
    }
    /* dofs.txt in label order: label L = 1 + i NSEC + jl holds sector j = jl - shift. */
    int ld = 0;
    for (int i = 0; i < NRING; i++)
        for (int jl = 0; jl < NSEC; jl++) {
            int j = ((jl - shift) % NSEC + NSEC) % NSEC;
            double r = RIN + i * DR, ph = 2.0 * PI * j / NSEC;
            for (int a = 0; a < 3; a++)
                ld += snprintf(D + ld, (size_t)n * 64 - ld, "%d u%c %.17g %.17g 0\n",
                               1 + i * NSEC + jl, "xyz"[a], r * cos(ph), r * sin(ph));
        }
    for (int a = 0; a < 3; a++)
        ld += snprintf(D + ld, (size_t)n * 64 - ld, "%d u%c 0 0 -0.01\n", nn, "xyz"[a]);
    int ls = 0;
    for (int q = 0; q < NSEC; q++) {
        int j = (q + shift) % NSEC;
        for (int i = 0; i + 1 < NRING; i++) {
            int a = 1 + i * NSEC + (j + shift) % NSEC, b = 1 + (i + 1) * NSEC + (j + shift) % NSEC,
                c = 1 + (i + 1) * NSEC + (j + 1 + shift) % NSEC,
                d = 1 + i * NSEC + (j + 1 + shift) % NSEC;
            /* Counter-clockwise seen from +z: inner, outer, outer next, inner next. */
            ls += snprintf(S + ls, 65536 - ls, "face ring %d %d %d %d\n", a, b, c, d);
        }
    }
    tvds_test_write_file(dir, "M.mtx", M);
    tvds_test_write_file(dir, "K.mtx", K);
    tvds_test_write_file(dir, "dofs.txt", D);
    tvds_test_write_file(dir, "sets.txt", S);
    free(M);
    free(K);
    free(D);
    free(S);
}

static void write_shoe(const char *dir)
{
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    tvds_test_write_file(dir, "M.mtx",
                         "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1\n2 2 1\n"
                         "3 3 1\n");
    tvds_test_write_file(dir, "K.mtx",
                         "%%MatrixMarket matrix coordinate real symmetric\n3 3 1\n2 2 100\n");
    tvds_test_write_file(dir, "dofs.txt", "1 ux 0.1 0 0\n1 uy 0.1 0 0\n1 uz 0.1 0 0\n");
    tvds_test_write_file(dir, "sets.txt", "set shoe 1\n");
}

/* The case: the shoe on the rigid disc (flex = 0) or on the face set of disc directory ddir
 * turning with it (the disc's Rayleigh damping: alpha > 0 mass-, alpha < 0 stiffness-
 * proportional with beta = -alpha); omega NULL: V / r from the start with the shoe carried at
 * V, else that time function with the shoe at rest. Its path into path. */
static void write_case_omega(const char *dir, const char *name, const char *ddir, int flex,
                             double alpha, const char *method, double t_end, const char *omega,
                             char *path, size_t np)
{
    char text[2048], dsec[256] = "", om[128];
    if (flex)
        snprintf(dsec, sizeof dsec, "[substructure disc]\ndir = %s\n%s%.17g\n", ddir,
                 alpha > 0   ? "damping = rayleigh\nalpha = "
                 : alpha < 0 ? "damping = rayleigh\nbeta = "
                             : "# alpha ",
                 fabs(alpha));
    if (omega)
        snprintf(om, sizeof om, "%s", omega);
    else
        snprintf(om, sizeof om, "%.17g", VBELT / RSHOE);
    snprintf(text, sizeof text,
             "[run]\nname = %s\nmethod = %s\ndt = %g\nt_end = %g\n"
             "[substructure shoe]\ndir = shoe\n%s"
             "[contact disc]\nslave = shoe:shoe\nmaster = %s\npoint = 0 0 0\n"
             "normal = 0 0 1\nomega = %s\nmu_s = 0.2\nmu_k = 0.1\ninitially_stuck = yes\n"
             "[load press]\ndof = shoe:1:uz\nf = -10\n"
             "[initial v]\ndof = shoe:1:uy\nv0 = %g\n"
             "[probe y]\ndof = shoe:1:uy\n[probe x]\ndof = shoe:1:ux\n",
             name, method, HSTEP, t_end, dsec, flex ? "disc:ring" : "disc", om,
             omega ? 0.0 : VBELT);
    snprintf(path, np, "%s/%s.ini", dir, name);
    tvds_test_write_file(NULL, path, text);
}

static void write_case(const char *dir, const char *name, const char *ddir, int flex, double alpha,
                       const char *method, double t_end, char *path, size_t np)
{
    write_case_omega(dir, name, ddir, flex, alpha, method, t_end, NULL, path, np);
}

/* y(t) of the shoe (history channel 1) over the run, into y[0 .. *n). */
static double *run_y(const char *path, int *n, int expect_kind, double *bal)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    ck_assert_msg(tvds_case_read(path, NULL, 0, &m, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(m->contacts[0].master_kind, expect_kind);
    tvds_data *d = NULL;
    ck_assert_msg(tvds_data_create(m, &d, &ctx) == TVDS_OK, "%s", ctx.msg);
    int cap = (int)(m->opt.t_end / HSTEP) + 16, k = 0;
    double *y = malloc(sizeof(double) * cap);
    while (tvds_data_time(d) < m->opt.t_end && k < cap) {
        ck_assert_msg(tvds_step(m, d, &ctx) == TVDS_OK, "%s", ctx.msg);
        y[k++] = ch(d, TVDS_GROUP_HISTORY, 1);
    }
    *n = k;
    *bal = summary(d, "energy balance error [-]");
    tvds_data_free(&d);
    tvds_model_free(&m);
    return y;
}

/* A very stiff disc reproduces the rigid disc (master = disc): every method, over a stick, a
 * slip and the next stick. The disc's compliance moves the contact point by at most the largest
 * force over the ground stiffness, F/k with F = 10 N, 1e-8 m; the stick-slip events fall on
 * steps (3 V h, as against the closed form in test_disc_belt_stick_slip). */
START_TEST(test_stiff_disc_is_rigid_disc)
{
    static const char *const methods[4] = {"subs-a", "subs-b", "subs-c", "film"};
    const double k = 1e9;
    char dir[64], sub[128], pr[256], pf[256];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_discflex_");
    snprintf(sub, sizeof sub, "%s/shoe", dir);
    write_shoe(sub);
    snprintf(sub, sizeof sub, "%s/disc", dir);
    write_disc(sub, 0, k, k, 1.0);
    int mth = _i;
    /* The disc's nodes critically damped (alpha = 2 sqrt(k / m)): the press of the shoe, applied
     * at once, would otherwise leave them ringing with lambda_N between 0 and 2 x 10 N. */
    write_case(dir, "rigid", NULL, 0, 0.0, methods[mth], 0.45, pr, sizeof pr);
    write_case(dir, "flex", "disc", 1, 2.0 * sqrt(k / 1.0), methods[mth], 0.45, pf, sizeof pf);
    int nr, nf;
    double br, bf;
    double *yr = run_y(pr, &nr, TVDS_MASTER_DISC, &br),
           *yf = run_y(pf, &nf, TVDS_MASTER_FACES_ROT, &bf);
    ck_assert_int_eq(nr, nf);
    double err = 0.0, ymax = 0.0;
    for (int i = 0; i < nr; i++) {
        err = fmax(err, fabs(yr[i] - yf[i]));
        ymax = fmax(ymax, fabs(yr[i]));
    }
    double tol = 3.0 * VBELT * HSTEP + 10.0 / k;
    ck_assert_msg(err <= tol, "%s: |y_flex - y_rigid| = %g > %g (y up to %g)", methods[mth], err,
                  tol, ymax);
    ck_assert_double_gt(ymax, 0.015); /* it was carried to the slip point (F_st / K = 0.02) */
    /* The energy balance as on the rigid disc (test_disc_belt_stick_slip: 1e-4 bounds the
     * dissipation's and the work's central increments over two slip phases). */
    ck_assert_msg(bf < 1e-4 && br < 1e-4, "%s: balance error %g (rigid %g)", methods[mth], bf, br);
    free(yr);
    free(yf);
    (void)tvds_test_rmtree(dir);
}
END_TEST

/* The same disc numbered from another sector (labels turned by 7 sectors, faces listed from
 * there) is the same mesh: the runs agree to the round-off of the sums taken in another order.
 * A soft disc (its nodes deflect by 1e-4 m under the shoe) so that its deformation matters. */
START_TEST(test_disc_numbered_from_another_sector)
{
    char dir[64], sub[128], pa[256], pb[256];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_discsec_");
    snprintf(sub, sizeof sub, "%s/shoe", dir);
    write_shoe(sub);
    snprintf(sub, sizeof sub, "%s/discA", dir);
    write_disc(sub, 0, 1e5, 1e5, 0.01);
    snprintf(sub, sizeof sub, "%s/discB", dir);
    write_disc(sub, 7, 1e5, 1e5, 0.01);
    write_case(dir, "a", "discA", 1, 0.0, "subs-b", 0.3, pa, sizeof pa);
    write_case(dir, "b", "discB", 1, 0.0, "subs-b", 0.3, pb, sizeof pb);
    int na, nb;
    double ba, bb;
    double *ya = run_y(pa, &na, TVDS_MASTER_FACES_ROT, &ba),
           *yb = run_y(pb, &nb, TVDS_MASTER_FACES_ROT, &bb);
    ck_assert_int_eq(na, nb);
    double err = 0.0, ymax = 0.0;
    for (int i = 0; i < na; i++) {
        err = fmax(err, fabs(ya[i] - yb[i]));
        ymax = fmax(ymax, fabs(ya[i]));
    }
    /* Round-off of positions of 0.1 m, carried over the steps: eps x 0.1 m x steps. */
    double tol = 1.1e-16 * 0.1 * na;
    ck_assert_msg(err <= tol, "|y_A - y_B| = %g > %g", err, tol);
    ck_assert_double_gt(ymax, 0.015);
    ck_assert(ba == bb || fabs(ba - bb) <= 1e-9 * fabs(ba));
    free(ya);
    free(yb);
    (void)tvds_test_rmtree(dir);
}
END_TEST

/* A stuck shoe rides the disc's deformed surface: on a disc soft in its plane (ground springs of
 * 1e3 N/m, the nodes dragged by up to 1e-3 m) and stiff along the axis, the shoe's position and
 * its material point C + R(theta) (sum N_k (X_k + u_k)) stay together while it sticks (the
 * stick rows hold the relative displacement with the master's entries turned by R, and the
 * rotation's chord is exact: docs/theory.md 3d), to the round-off of 0.1 m positions over the
 * steps. The axial ringing of the press is damped by beta = 2 / omega_z. */
START_TEST(test_stuck_shoe_rides_the_surface)
{
    static const char *const methods[2] = {"subs-b", "subs-c"};
    const double kz = 1e7, m_node = 1.0;
    char dir[64], sub[128], path[256];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_discride_");
    snprintf(sub, sizeof sub, "%s/shoe", dir);
    write_shoe(sub);
    snprintf(sub, sizeof sub, "%s/disc", dir);
    write_disc(sub, 0, 1e3, kz, m_node);
    /* The disc spun up from rest (omega: 0 -> 1 rad/s over 0.5 s) under the shoe at rest: the
     * shoe sticks on the material point under it from the start. */
    write_case_omega(dir, "ride", "disc", 1, -2.0 / sqrt(kz / m_node), methods[_i], 0.15,
                     "smooth 1 0 0.5", path, sizeof path);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    ck_assert_msg(tvds_case_read(path, NULL, 0, &m, &ctx) == TVDS_OK, "%s", ctx.msg);
    tvds_data *d = NULL;
    ck_assert_msg(tvds_data_create(m, &d, &ctx) == TVDS_OK, "%s", ctx.msg);
    const tvds_contact *C = &m->contacts[0];
    const tvds_substructure *sd = m->subs[C->master_sub], *ss = m->subs[C->slave_sub];
    double err = 0.0, umax = 0.0;
    int nstuck = 0, steps = 0;
    while (tvds_data_time(d) < m->opt.t_end) {
        ck_assert_msg(tvds_step(m, d, &ctx) == TVDS_OK, "%s", ctx.msg);
        steps++;
        const sim_cp *c = &d->cp[0];
        if (c->state != TVDS_STICK) continue;
        nstuck++;
        int nn = C->face_nn[c->seg];
        double N[9], Pb[3] = {0, 0, 0}, Q[3];
        face_shape(nn, c->xi, N, NULL);
        for (int q = 0; q < nn; q++) {
            int dd[3];
            double X[3];
            long node = C->master_nodes[C->face_node[(size_t)c->seg * TVDS_FACE_MAX_NODES + q]];
            ck_assert(sim_node_dofs(sd, node, dd, X));
            for (int a = 0; a < 3; a++) {
                double u = sim_u(d, C->master_sub, dd[a], 0);
                umax = fmax(umax, fabs(u));
                Pb[a] += N[q] * (X[a] + u);
            }
        }
        double th = c->mth, P[3]; /* the angle at t_{n+1} */
        P[0] = cos(th) * Pb[0] - sin(th) * Pb[1];
        P[1] = sin(th) * Pb[0] + cos(th) * Pb[1];
        P[2] = Pb[2];
        int sq[3];
        double XQ[3];
        ck_assert(sim_node_dofs(ss, 1, sq, XQ));
        for (int a = 0; a < 3; a++)
            Q[a] = XQ[a] + sim_u(d, C->slave_sub, sq[a], 0);
        err = fmax(err, hypot(hypot(Q[0] - P[0], Q[1] - P[1]), Q[2] - P[2]));
    }
    double tol = 16.0 * 2.2e-16 * 0.12 * steps;
    ck_assert_msg(err <= tol, "%s: |x_shoe - x_P| = %g > %g while stuck", methods[_i], err, tol);
    ck_assert_int_gt(nstuck, steps / 2);
    ck_assert_double_gt(umax, 1e-4); /* the surface was dragged */
    tvds_data_free(&d);
    tvds_model_free(&m);
    (void)tvds_test_rmtree(dir);
}
END_TEST

Suite *disc_flex_suite(void)
{
    Suite *s = suite_create("disc_flex");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_stiff_disc_is_rigid_disc, 0, 4);
    tcase_add_test(tc, test_disc_numbered_from_another_sector);
    tcase_add_loop_test(tc, test_stuck_shoe_rides_the_surface, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}
