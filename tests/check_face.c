/* check_face.c — geometry of the 3D master faces (src/face.c): shape functions, closest-point
 * projection, contact frame, and the handover at edges and corners. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "engine/contact/face.h"

static const int kinds[5] = {3, 4, 6, 8, 9};

/* Reference natural coordinates of node k (corners, midsides, centre). */
static void node_xi(int nn, int k, double xi[2])
{
    static const double q[9][2] = {{-1, -1}, {1, -1}, {1, 1},  {-1, 1}, {0, -1},
                                   {1, 0},   {0, 1},  {-1, 0}, {0, 0}};
    static const double t[6][2] = {{0, 0}, {1, 0}, {0, 1}, {0.5, 0}, {0.5, 0.5}, {0, 0.5}};
    const double *c = (nn == 3 || nn == 6) ? t[k] : q[k];
    xi[0] = c[0], xi[1] = c[1];
}

/* A curved face: the reference nodes mapped to x = (2 xi1 + 0.3 xi2, 1.5 xi2, 0.2 xi1^2 -
 * 0.1 xi1 xi2 + 0.15 xi2^2) + a shift; its nodes lie on a smooth surface, so quadratic faces
 * are curved and linear ones flat or warped. */
static void curved_face(int nn, double *P)
{
    for (int k = 0; k < nn; k++) {
        double z[2];
        node_xi(nn, k, z);
        P[3 * k] = 0.3 + 2.0 * z[0] + 0.3 * z[1];
        P[3 * k + 1] = -0.2 + 1.5 * z[1];
        P[3 * k + 2] = 0.1 + 0.2 * z[0] * z[0] - 0.1 * z[0] * z[1] + 0.15 * z[1] * z[1];
    }
}

static double urand(void)
{
    return rand() / (double)RAND_MAX;
}

/* A random point of the reference domain, away from its boundary by margin. */
static void random_xi(int nn, double xi[2], double margin)
{
    if (nn == 3 || nn == 6) {
        do {
            xi[0] = urand(), xi[1] = urand();
        } while (xi[0] < margin || xi[1] < margin || xi[0] + xi[1] > 1.0 - margin);
    } else {
        xi[0] = (1.0 - margin) * (2.0 * urand() - 1.0);
        xi[1] = (1.0 - margin) * (2.0 * urand() - 1.0);
    }
}

/* Partition of unity, Kronecker property at the nodes, derivatives and second derivatives
 * against central finite differences. */
START_TEST(test_shape_functions)
{
    srand(7);
    for (int q = 0; q < 5; q++) {
        int nn = kinds[q];
        ck_assert(face_supported(nn));
        for (int k = 0; k < nn; k++) {
            double z[2], N[FACE_MAX_NODES];
            node_xi(nn, k, z);
            face_shape(nn, z, N, NULL);
            for (int j = 0; j < nn; j++)
                ck_assert_double_eq_tol(N[j], j == k ? 1.0 : 0.0, 1e-15);
        }
        for (int trial = 0; trial < 20; trial++) {
            double z[2], N[FACE_MAX_NODES], dN[2 * FACE_MAX_NODES], d2N[3 * FACE_MAX_NODES];
            random_xi(nn, z, 0.0);
            face_shape(nn, z, N, dN);
            face_shape2(nn, z, d2N);
            double s = 0, s1 = 0, s2 = 0;
            for (int k = 0; k < nn; k++)
                s += N[k], s1 += dN[2 * k], s2 += dN[2 * k + 1];
            ck_assert_double_eq_tol(s, 1.0, 1e-14);
            ck_assert_double_eq_tol(s1, 0.0, 1e-14);
            ck_assert_double_eq_tol(s2, 0.0, 1e-14);
            const double e = 1e-5;
            for (int i = 0; i < 2; i++) {
                double zp[2] = {z[0], z[1]}, zm[2] = {z[0], z[1]};
                zp[i] += e, zm[i] -= e;
                double Np[FACE_MAX_NODES], Nm[FACE_MAX_NODES], dNp[2 * FACE_MAX_NODES],
                    dNm[2 * FACE_MAX_NODES];
                face_shape(nn, zp, Np, dNp);
                face_shape(nn, zm, Nm, dNm);
                for (int k = 0; k < nn; k++) {
                    /* Central differences are exact to O(e^2) x third derivatives (0 for
                     * these polynomials of degree <= 2 per variable, except the cubic terms of
                     * the 8- and 9-node faces). */
                    ck_assert_double_eq_tol((Np[k] - Nm[k]) / (2 * e), dN[2 * k + i], 1e-9);
                    /* d(dN_k/dxi_i)/dxi_j: entries (i, j) of the second derivative. */
                    for (int j = 0; j < 2; j++) {
                        double fd = (dNp[2 * k + j] - dNm[2 * k + j]) / (2 * e);
                        int idx = i == 0 && j == 0 ? 0 : i == 1 && j == 1 ? 2 : 1;
                        ck_assert_double_eq_tol(fd, d2N[3 * k + idx], 1e-8);
                    }
                }
            }
        }
    }
}
END_TEST

/* A face reproduces linear fields exactly: sum N_k x_k = x for the nodes of a plane face. */
START_TEST(test_shape_completeness)
{
    srand(11);
    for (int q = 0; q < 5; q++) {
        int nn = kinds[q];
        double P[3 * FACE_MAX_NODES];
        for (int k = 0; k < nn; k++) {
            double z[2];
            node_xi(nn, k, z);
            P[3 * k] = 1.0 + 0.7 * z[0] - 0.2 * z[1];
            P[3 * k + 1] = 2.0 + 0.1 * z[0] + 0.9 * z[1];
            P[3 * k + 2] = -0.5 + 0.3 * z[0] + 0.4 * z[1];
        }
        for (int trial = 0; trial < 10; trial++) {
            double z[2], x[3];
            random_xi(nn, z, 0.0);
            face_point(nn, P, z, x, NULL, NULL);
            ck_assert_double_eq_tol(x[0], 1.0 + 0.7 * z[0] - 0.2 * z[1], 1e-14);
            ck_assert_double_eq_tol(x[1], 2.0 + 0.1 * z[0] + 0.9 * z[1], 1e-14);
            ck_assert_double_eq_tol(x[2], -0.5 + 0.3 * z[0] + 0.4 * z[1], 1e-14);
        }
    }
}
END_TEST

/* Frame: n, t1, t2 orthonormal and right-handed (t1 x t2 = n), n along a1 x a2. */
START_TEST(test_frame_orthonormal)
{
    srand(3);
    for (int q = 0; q < 5; q++) {
        int nn = kinds[q];
        double P[3 * FACE_MAX_NODES];
        curved_face(nn, P);
        for (int trial = 0; trial < 20; trial++) {
            double z[2], n[3], t1[3], t2[3], x[3], a1[3], a2[3];
            random_xi(nn, z, 0.0);
            ck_assert_int_eq(face_frame(nn, P, z, n, t1, t2), 0);
            face_point(nn, P, z, x, a1, a2);
            double nn_ = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
            double tt1 = t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2];
            double tt2 = t2[0] * t2[0] + t2[1] * t2[1] + t2[2] * t2[2];
            ck_assert_double_eq_tol(nn_, 1.0, 1e-14);
            ck_assert_double_eq_tol(tt1, 1.0, 1e-14);
            ck_assert_double_eq_tol(tt2, 1.0, 1e-14);
            ck_assert_double_eq_tol(n[0] * t1[0] + n[1] * t1[1] + n[2] * t1[2], 0.0, 1e-14);
            ck_assert_double_eq_tol(n[0] * t2[0] + n[1] * t2[1] + n[2] * t2[2], 0.0, 1e-14);
            ck_assert_double_eq_tol(t1[0] * t2[0] + t1[1] * t2[1] + t1[2] * t2[2], 0.0, 1e-14);
            double c[3] = {t1[1] * t2[2] - t1[2] * t2[1], t1[2] * t2[0] - t1[0] * t2[2],
                           t1[0] * t2[1] - t1[1] * t2[0]};
            for (int a = 0; a < 3; a++)
                ck_assert_double_eq_tol(c[a], n[a], 1e-14);
            /* n is normal to both covariant tangents. */
            ck_assert_double_eq_tol(n[0] * a2[0] + n[1] * a2[1] + n[2] * a2[2], 0.0, 1e-13);
            /* This face (counter-clockwise seen from +z) has its normal toward +z. */
            ck_assert(n[2] > 0.5);
        }
    }
}
END_TEST

/* Projection exactness: Q = x(xi*) + d n(xi*) projects back on xi* at the squared distance d^2
 * (d well below the radius of curvature, about 5 here), on every face kind. */
START_TEST(test_projection_exact)
{
    srand(5);
    for (int q = 0; q < 5; q++) {
        int nn = kinds[q];
        double P[3 * FACE_MAX_NODES];
        curved_face(nn, P);
        for (int trial = 0; trial < 50; trial++) {
            double z[2], n[3], t1[3], t2[3], x[3], Q[3];
            random_xi(nn, z, 0.02);
            face_frame(nn, P, z, n, t1, t2);
            face_point(nn, P, z, x, NULL, NULL);
            double dd = 0.2 * (2.0 * urand() - 1.0); /* above or below (penetration) */
            for (int a = 0; a < 3; a++)
                Q[a] = x[a] + dd * n[a];
            double xi[2];
            int inside = -1, edge = 7;
            double d2 = face_closest(nn, P, Q, NULL, NULL, &inside, &edge);
            ck_assert_double_eq_tol(d2, dd * dd, 1e-13);
            /* From a start near the answer, as the engine's warm start. */
            double st[2] = {z[0] + 0.01, z[1] - 0.01};
            d2 = face_closest(nn, P, Q, st, xi, &inside, &edge);
            ck_assert_int_eq(inside, 1);
            ck_assert_int_eq(edge, -1);
            ck_assert_double_eq_tol(xi[0], z[0], 1e-11);
            ck_assert_double_eq_tol(xi[1], z[1], 1e-11);
            ck_assert_double_eq_tol(d2, dd * dd, 1e-13);
        }
    }
}
END_TEST

/* Beyond an edge the closest point is on that edge (inside = 0, the edge reported); beyond a
 * corner it is the corner. Flat unit faces in z = 0, the slave 0.1 above. */
START_TEST(test_edge_and_corner)
{
    /* Quadrilateral [0, 2] x [0, 2] (4, 8 and 9 nodes) and the triangle (0,0) (2,0) (0,2). */
    for (int q = 0; q < 5; q++) {
        int nn = kinds[q];
        int tri = nn == 3 || nn == 6;
        double P[3 * FACE_MAX_NODES];
        for (int k = 0; k < nn; k++) {
            double z[2];
            node_xi(nn, k, z);
            P[3 * k] = tri ? 2.0 * z[0] : 1.0 + z[0];
            P[3 * k + 1] = tri ? 2.0 * z[1] : 1.0 + z[1];
            P[3 * k + 2] = 0.0;
        }
        /* Beyond the edge y = 0 (edge 0 in both). */
        double Q[3] = {0.7, -0.3, 0.1}, xi[2], x[3];
        int inside, edge;
        double d2 = face_closest(nn, P, Q, NULL, NULL, &inside, &edge);
        ck_assert_int_eq(inside, 0);
        ck_assert_int_eq(edge, 0);
        face_closest(nn, P, Q, NULL, xi, &inside, &edge);
        face_point(nn, P, xi, x, NULL, NULL);
        ck_assert_double_eq_tol(x[0], 0.7, 1e-12);
        ck_assert_double_eq_tol(x[1], 0.0, 1e-12);
        ck_assert_double_eq_tol(d2, 0.09 + 0.01, 1e-12);
        /* Beyond the corner (0, 0). */
        double Qc[3] = {-0.2, -0.3, 0.1};
        d2 = face_closest(nn, P, Qc, NULL, xi, &inside, &edge);
        ck_assert_int_eq(inside, 0);
        face_point(nn, P, xi, x, NULL, NULL);
        ck_assert_double_eq_tol(x[0], 0.0, 1e-12);
        ck_assert_double_eq_tol(x[1], 0.0, 1e-12);
        ck_assert_double_eq_tol(d2, 0.04 + 0.09 + 0.01, 1e-12);
        /* Just inside the edge: a valid projection. */
        double Qi[3] = {0.7, 1e-6, -0.05};
        d2 = face_closest(nn, P, Qi, NULL, xi, &inside, &edge);
        ck_assert_int_eq(inside, 1);
        ck_assert_double_eq_tol(d2, 0.0025, 1e-14);
    }
}
END_TEST

/* Handover: a point moving across the shared edge of two faces has a continuous closest point.
 * Two quadrilaterals [0,1]x[0,1] and [1,2]x[0,1] in z = 0 (4 nodes) and the same pair tilted
 * into a roof (ridge along x = 1): on a flat pair exactly one face has a valid projection
 * except on the edge itself, where both do; over the ridge of a convex roof, neither does,
 * and both give the ridge point. */
START_TEST(test_edge_handover)
{
    for (int roof = 0; roof < 2; roof++) {
        double h = roof ? 0.2 : 0.0;
        double A[12] = {0, 0, 0, 1, 0, h, 1, 1, h, 0, 1, 0};
        double B[12] = {1, 0, h, 2, 0, 0, 2, 1, 0, 1, 1, h};
        for (int i = 0; i <= 40; i++) {
            double Q[3] = {0.8 + 0.01 * i, 0.5, 0.5};
            double xa[2], xb[2], pa[3], pb[3];
            int ia, ib;
            double da = face_closest(4, A, Q, NULL, xa, &ia, NULL);
            double db = face_closest(4, B, Q, NULL, xb, &ib, NULL);
            face_point(4, A, xa, pa, NULL, NULL);
            face_point(4, B, xb, pb, NULL, NULL);
            /* The surface's closest point: the nearer of the two. */
            double *p = da <= db ? pa : pb;
            if (!roof) {
                ck_assert_double_eq_tol(p[0], Q[0], 1e-12);
                ck_assert_double_eq_tol(p[1], 0.5, 1e-12);
                ck_assert_int_eq(ia || ib, 1);
            } else {
                /* Convex ridge: the slope of either face is 0.2, the normal of face A points
                 * to -x. Points with |x - 1| < 0.2 * (0.5 - 0.2 ...) lie in the ridge region. */
                ck_assert(p[0] <= 1.0 + 1e-12 || db <= da);
                if (!ia && !ib) {
                    ck_assert_double_eq_tol(pa[0], 1.0, 1e-12);
                    ck_assert_double_eq_tol(pb[0], 1.0, 1e-12);
                    ck_assert_double_eq_tol(da, db, 1e-12);
                }
            }
        }
    }
}
END_TEST

/* Newton's stopping test at round-off. A slave node of the 3D beam-on-beam's tip line on beam
 * 2's upper face (its plane, y = 0), travelled by s = 0.0285862 m: the Newton steps settle at
 * ~2e-14 natural units, the round-off of Q relative to the 2 mm face, and a test at 1e-14 never
 * passed, so the node was reported over the face's edge, and over neither of the faces that
 * hold it. The projection must be the orthogonal one, inside the face. Then a sweep along the
 * line z = 2.5 mm over 40 mm of such faces: every position is taken by its face. */
START_TEST(test_newton_round_off)
{
    double P[12] = {0.048000000000000008, 0, 0.0049999999999999992,
                    0.050000000000000003, 0, 0.0049999999999999992,
                    0.050000000000000003, 0, 0,
                    0.048000000000000008, 0, 0};
    double Q[3] = {0.048586206896551729, 0, 0.0024999999999999996}, xi[2], x[3];
    int inside, edge;
    double d2 = face_closest(4, P, Q, NULL, xi, &inside, &edge);
    ck_assert_int_eq(inside, 1);
    ck_assert_int_eq(edge, -1);
    ck_assert_double_le(d2, 1e-30);
    face_point(4, P, xi, x, NULL, NULL);
    ck_assert_double_eq_tol(x[0], Q[0], 1e-15); /* ~20 ulp of 0.05 m */
    int missed = 0;
    for (int i = 0; i <= 3000; i++) {
        double s = 0.011 + 0.03 * i / 3000.0, qx = 0.0186 + s;
        double x0 = 0.002 * floor(qx / 0.002);
        double F[12] = {x0, 0, 0.005, x0 + 0.002, 0, 0.005, x0 + 0.002, 0, 0, x0, 0, 0};
        double q[3] = {qx, 0, 0.0025};
        face_closest(4, F, q, NULL, xi, &inside, NULL);
        missed += !inside && qx > x0 + 1e-12 && qx < x0 + 0.002 - 1e-12;
    }
    ck_assert_int_eq(missed, 0);
}
END_TEST

Suite *face_suite(void)
{
    Suite *s = suite_create("face");
    TCase *tc = tcase_create("geometry");
    tcase_add_test(tc, test_shape_functions);
    tcase_add_test(tc, test_shape_completeness);
    tcase_add_test(tc, test_frame_orthonormal);
    tcase_add_test(tc, test_projection_exact);
    tcase_add_test(tc, test_edge_and_corner);
    tcase_add_test(tc, test_edge_handover);
    tcase_add_test(tc, test_newton_round_off);
    suite_add_tcase(s, tc);
    return s;
}
