/* check_master_c1.c — the C1 master curve: exact on straight masters, closer to a circle's
 * normals than straight segments and continuous across nodes, closest-point projection. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "engine/contact/hermite.h"

#define PI 3.14159265358979323846

/* Segment k of the polyline xy (n nodes) as the engine builds it. */
static void seg_of(const double *xy, int n, int k, tvds_c1_seg *s)
{
    ck_assert_int_eq(tvds_c1_segment(k > 0 ? xy + 2 * k - 2 : NULL, xy + 2 * k, xy + 2 * k + 2,
                                     k + 2 < n ? xy + 2 * k + 4 : NULL, s),
                     0);
}

/* Collinear nodes at uneven spacing on a tilted line: the curve is the chord, parametrised
 * linearly (Hermite interpolation reproduces linear functions), its frame the chord's, the
 * projection the chord's. Round-off only: a few ulps of the coordinates. */
START_TEST(test_straight_master_exact)
{
    enum { N = 6 };
    const double sp[N] = {0.0, 0.7e-3, 1.9e-3, 2.0e-3, 3.5e-3, 6.0e-3};
    const double ang = 0.37, c = cos(ang), s = sin(ang), x0 = 0.02, y0 = -0.01;
    double xy[2 * N];
    for (int i = 0; i < N; i++) {
        xy[2 * i] = x0 + c * sp[i];
        xy[2 * i + 1] = y0 + s * sp[i];
    }
    const double tol = 8.0 * 2.2e-16 * 0.03;
    for (int k = 0; k + 1 < N; k++) {
        tvds_c1_seg sg;
        seg_of(xy, N, k, &sg);
        /* The tangent is a difference of node coordinates (~0.03 m) over the chord: its
         * round-off is a few ulps of the coordinates divided by the chord length. */
        const double ttol = 16.0 * 2.2e-16 * 0.03 / (sp[k + 1] - sp[k]);
        for (int j = 0; j <= 10; j++) {
            double xi = 0.1 * j, x[2], t[2], n[2], w[2];
            tvds_c1_eval(&sg, xi, x, NULL, NULL);
            for (int a = 0; a < 2; a++)
                ck_assert_double_eq_tol(
                    x[a], xy[2 * k + a] + xi * (xy[2 * k + 2 + a] - xy[2 * k + a]), tol);
            tvds_c1_frame(&sg, xi, t, n);
            ck_assert_double_eq_tol(t[0], c, ttol);
            ck_assert_double_eq_tol(t[1], s, ttol);
            ck_assert_double_eq_tol(n[0], -s, ttol);
            ck_assert_double_eq_tol(n[1], c, ttol);
            tvds_c1_weights(xi, w);
            ck_assert_double_eq_tol(w[0] + w[1], 1.0, 1e-15);
        }
        /* A point off the line projects where the chord's projection is. */
        double L = sp[k + 1] - sp[k], a = 0.3;
        double Q[2] = {x0 + c * (sp[k] + a * L) - s * 1e-4, y0 + s * (sp[k] + a * L) + c * 1e-4};
        ck_assert_double_eq_tol(tvds_c1_project(&sg, Q, 0.5), a, ttol);
    }
}
END_TEST

/* Largest angle [rad] between the curve's normal and the exact radial direction of a circle
 * through the nodes (n + 1 nodes, angular step th), sampled at 41 points per segment; with
 * c1 = 0 the straight segments' normals. */
static double circle_normal_error(double th, int c1, double *jump)
{
    enum { N = 9 };
    const double R = 0.05;
    double xy[2 * N];
    for (int i = 0; i < N; i++) {
        double p = PI / 2 + (i - N / 2) * th;
        xy[2 * i] = R * cos(p);
        xy[2 * i + 1] = R * sin(p);
    }
    double emax = 0.0, prev[2] = {0, 0};
    *jump = 0.0;
    /* Interior segments: the end segments have one-sided nodal tangents. */
    for (int k = 1; k + 2 < N; k++) {
        tvds_c1_seg sg;
        seg_of(xy, N, k, &sg);
        for (int j = 0; j <= 40; j++) {
            double xi = j / 40.0, x[2], t[2], n[2];
            if (c1) {
                tvds_c1_eval(&sg, xi, x, NULL, NULL);
                tvds_c1_frame(&sg, xi, t, n);
            } else {
                double dx = xy[2 * k + 2] - xy[2 * k], dy = xy[2 * k + 3] - xy[2 * k + 1];
                double L = hypot(dx, dy);
                x[0] = xy[2 * k] + xi * dx;
                x[1] = xy[2 * k + 1] + xi * dy;
                n[0] = -dy / L;
                n[1] = dx / L;
            }
            if (j == 0 && k > 1) {
                double d =
                    fabs(atan2(n[0] * prev[1] - n[1] * prev[0], n[0] * prev[0] + n[1] * prev[1]));
                if (d > *jump) *jump = d;
            }
            if (j == 40) prev[0] = n[0], prev[1] = n[1];
            /* The outward normal of the circle at the curve point's polar angle (the nodes run
             * clockwise, so n = t turned +90 degrees points inward: compare with -r). */
            double r = hypot(x[0], x[1]);
            double e = fabs(atan2(n[0] * (-x[1] / r) - n[1] * (-x[0] / r),
                                  n[0] * (-x[0] / r) + n[1] * (-x[1] / r)));
            if (e > emax) emax = e;
        }
    }
    return emax;
}

/* Nodes on a circle: straight segments err by up to th/2 (at the nodes) and jump by th there;
 * the C1 curve is continuous across nodes (the nodal normal is shared) and its error falls
 * with a higher order: at least 10 times below th/2 at th = 10 degrees, and by at least
 * 2^2.5 when th halves (the straight segments' error halves: order 1). */
START_TEST(test_circle_normals)
{
    const double th = 10.0 * PI / 180.0;
    double j0, j1, jh;
    double e0 = circle_normal_error(th, 0, &j0);
    double e1 = circle_normal_error(th, 1, &j1);
    double eh = circle_normal_error(0.5 * th, 1, &jh);
    ck_assert_double_eq_tol(e0, 0.5 * th, 1e-12);
    ck_assert_double_eq_tol(j0, th, 1e-12);
    ck_assert_msg(j1 < 1e-14, "C1 normal jumps by %g rad at a node", j1);
    ck_assert_msg(e1 < 0.05 * th, "C1 normal error %g rad, straight segments %g", e1, e0);
    ck_assert_msg(e1 / eh > pow(2.0, 2.5), "C1 error %g at th, %g at th/2", e1, eh);
}
END_TEST

/* The projection is a closest point: x'(xi) . (x(xi) - Q) = 0, for points on either side of a
 * curved segment, from a start at the other end of it. */
START_TEST(test_projection_closest)
{
    const double xy[8] = {0.0, 0.0, 1e-3, 0.1e-3, 2e-3, 0.15e-3, 3e-3, 0.1e-3};
    tvds_c1_seg sg;
    seg_of(xy, 4, 1, &sg);
    const double Q[3][2] = {{1.3e-3, 0.5e-3}, {1.8e-3, -0.3e-3}, {1.5e-3, 0.13e-3}};
    for (int i = 0; i < 3; i++) {
        double xi = tvds_c1_project(&sg, Q[i], 1.0), x[2], dx[2];
        ck_assert(xi > 0.0 && xi < 1.0);
        tvds_c1_eval(&sg, xi, x, dx, NULL);
        double f = dx[0] * (x[0] - Q[i][0]) + dx[1] * (x[1] - Q[i][1]);
        ck_assert_msg(fabs(f) < 1e-15 * hypot(dx[0], dx[1]) * 1e-3, "residual %g", f);
    }
    ck_assert_int_eq(tvds_c1_segment(NULL, xy, xy, NULL, &sg), -1);
}
END_TEST

Suite *master_c1_suite(void)
{
    Suite *s = suite_create("master_c1");
    TCase *tc = tcase_create("geometry");
    tcase_add_test(tc, test_straight_master_exact);
    tcase_add_test(tc, test_circle_normals);
    tcase_add_test(tc, test_projection_closest);
    suite_add_tcase(s, tc);
    return s;
}
