/* face.c — geometry of 3D master faces: shape functions of the 3-, 4-, 6-, 8- and 9-node
 * faces, closest-point projection (Newton in natural coordinates, then the boundary edges)
 * and the contact frame (n, t1, t2). Derivation: docs/theory.md, section 3b. */
#include <math.h>
#include <string.h>

#include "engine/contact/face.h"

int face_inside(int nn, const double xi[2], double tol)
{
    if (face_is_tri(nn)) return xi[0] >= -tol && xi[1] >= -tol && xi[0] + xi[1] <= 1.0 + tol;
    return fabs(xi[0]) <= 1.0 + tol && fabs(xi[1]) <= 1.0 + tol;
}

void face_point(int nn, const double *P, const double xi[2], double x[3], double a1[3],
                double a2[3])
{
    double N[FACE_MAX_NODES], dN[2 * FACE_MAX_NODES];
    face_shape_all(nn, xi, N, dN, NULL);
    for (int a = 0; a < 3; a++) {
        double s = 0.0, s1 = 0.0, s2 = 0.0;
        for (int k = 0; k < nn; k++) {
            s += N[k] * P[3 * k + a];
            s1 += dN[2 * k] * P[3 * k + a];
            s2 += dN[2 * k + 1] * P[3 * k + a];
        }
        x[a] = s;
        if (a1) a1[a] = s1;
        if (a2) a2[a] = s2;
    }
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

int face_frame(int nn, const double *P, const double xi[2], double n[3], double t1[3], double t2[3])
{
    double x[3], a1[3], a2[3];
    face_point(nn, P, xi, x, a1, a2);
    cross3(a1, a2, n);
    double ln = sqrt(dot3(n, n)), l1 = sqrt(dot3(a1, a1));
    if (!(ln > 0.0) || !(l1 > 0.0)) return -1;
    for (int a = 0; a < 3; a++) {
        n[a] /= ln;
        t1[a] = a1[a] / l1;
    }
    cross3(n, t1, t2);
    return 0;
}

/* Point, tangents and second derivatives x_,11, x_,12, x_,22 at xi. */
static void face_point2(int nn, const double *P, const double xi[2], double x[3], double a1[3],
                        double a2[3], double x11[3], double x12[3], double x22[3])
{
    double N[FACE_MAX_NODES], dN[2 * FACE_MAX_NODES], d2N[3 * FACE_MAX_NODES];
    face_shape_all(nn, xi, N, dN, d2N);
    for (int a = 0; a < 3; a++) {
        double s = 0, s1 = 0, s2 = 0, s11 = 0, s12 = 0, s22 = 0;
        for (int k = 0; k < nn; k++) {
            double p = P[3 * k + a];
            s += N[k] * p;
            s1 += dN[2 * k] * p;
            s2 += dN[2 * k + 1] * p;
            s11 += d2N[3 * k] * p;
            s12 += d2N[3 * k + 1] * p;
            s22 += d2N[3 * k + 2] * p;
        }
        x[a] = s, a1[a] = s1, a2[a] = s2, x11[a] = s11, x12[a] = s12, x22[a] = s22;
    }
}

static double dist2(const double x[3], const double Q[3])
{
    double r[3] = {x[0] - Q[0], x[1] - Q[1], x[2] - Q[2]};
    return dot3(r, r);
}

/* Closest point of edge e (corners e -> e+1, a straight segment in natural coordinates) to
 * Q: Newton on s in [0, 1] with the curvature term (quadratic faces have curved edges) from
 * the start s0. Returns the squared distance and the natural coordinates in xi. */
static double edge_closest(int nn, const double *P, const double Q[3], int e, double s0,
                           double xi[2])
{
    int nc = face_ncorner(nn);
    double A[2], B[2];
    face_corner_xi(nn, e, A);
    face_corner_xi(nn, (e + 1) % nc, B);
    double dxi[2] = {B[0] - A[0], B[1] - A[1]};
    double s = s0;
    for (int it = 0; it < 30; it++) {
        double z[2] = {A[0] + s * dxi[0], A[1] + s * dxi[1]};
        double x[3], a1[3], a2[3], x11[3], x12[3], x22[3], xs[3], xss[3], r[3];
        face_point2(nn, P, z, x, a1, a2, x11, x12, x22);
        for (int a = 0; a < 3; a++) {
            xs[a] = a1[a] * dxi[0] + a2[a] * dxi[1];
            xss[a] = x11[a] * dxi[0] * dxi[0] + 2.0 * x12[a] * dxi[0] * dxi[1] +
                     x22[a] * dxi[1] * dxi[1];
            r[a] = x[a] - Q[a];
        }
        double g = dot3(xs, r), hh = dot3(xs, xs) + dot3(r, xss);
        if (!(hh > 0.0)) hh = dot3(xs, xs);
        if (!(hh > 0.0)) break;
        double sn = s - g / hh;
        if (sn < 0.0) sn = 0.0;
        if (sn > 1.0) sn = 1.0;
        double ds = fabs(sn - s);
        s = sn;
        if (ds <= 1e-15) break;
    }
    xi[0] = A[0] + s * dxi[0];
    xi[1] = A[1] + s * dxi[1];
    double x[3];
    face_point(nn, P, xi, x, NULL, NULL);
    return dist2(x, Q);
}

double face_closest(int nn, const double *P, const double Q[3], const double *start, double xi[2],
                    int *inside, int *edge)
{
    double z[2];
    if (start && face_inside(nn, start, 0.5))
        z[0] = start[0], z[1] = start[1];
    else if (face_is_tri(nn))
        z[0] = z[1] = 1.0 / 3.0;
    else
        z[0] = z[1] = 0.0;
    /* Newton on f(xi) = |x(xi) - Q|^2 / 2: gradient g_i = a_i . r, Hessian a_i . a_j +
     * r . x_,ij (Gauss-Newton a_i . a_j where the full Hessian is not positive definite). */
    int conv = 0;
    double dm_prev = INFINITY;
    for (int it = 0; it < 40; it++) {
        double x[3], a1[3], a2[3], x11[3], x12[3], x22[3], r[3];
        face_point2(nn, P, z, x, a1, a2, x11, x12, x22);
        for (int a = 0; a < 3; a++)
            r[a] = x[a] - Q[a];
        double g1 = dot3(a1, r), g2 = dot3(a2, r);
        double h11 = dot3(a1, a1), h12 = dot3(a1, a2), h22 = dot3(a2, a2);
        double k11 = h11 + dot3(r, x11), k12 = h12 + dot3(r, x12), k22 = h22 + dot3(r, x22);
        if (k11 > 0.0 && k11 * k22 - k12 * k12 > 0.0) h11 = k11, h12 = k12, h22 = k22;
        double det = h11 * h22 - h12 * h12;
        if (!(det > 0.0)) break;
        double d1 = -(h22 * g1 - h12 * g2) / det, d2 = -(h11 * g2 - h12 * g1) / det;
        /* Keep far iterates near the face: steps of at most one natural unit. */
        double dm = fmax(fabs(d1), fabs(d2));
        if (dm > 1.0) d1 /= dm, d2 /= dm;
        z[0] += d1;
        z[1] += d2;
        /* Converged: a step at round-off, or steps that stop shrinking below 1e-9 (the
         * iterate then wanders at the round-off of Q relative to the face's size: for a node
         * far from the origin or over a small face that can exceed 1e-14 natural units, and a
         * slave on a shared edge would then be inside neither face). */
        if (dm <= 1e-14 || (dm < 1e-9 && dm >= 0.5 * dm_prev)) {
            conv = 1;
            break;
        }
        dm_prev = dm;
        if (fabs(z[0]) > 4.0 || fabs(z[1]) > 4.0) break;
    }
    if (conv && face_inside(nn, z, 1e-9)) {
        /* Round-off beyond the edge: back onto it. */
        if (face_is_tri(nn)) {
            if (z[0] < 0.0) z[0] = 0.0;
            if (z[1] < 0.0) z[1] = 0.0;
            double s = z[0] + z[1];
            if (s > 1.0) z[0] /= s, z[1] /= s;
        } else {
            for (int i = 0; i < 2; i++)
                z[i] = z[i] < -1.0 ? -1.0 : z[i] > 1.0 ? 1.0 : z[i];
        }
        double x[3];
        face_point(nn, P, z, x, NULL, NULL);
        if (xi) xi[0] = z[0], xi[1] = z[1];
        if (inside) *inside = 1;
        if (edge) *edge = -1;
        return dist2(x, Q);
    }
    /* The closest point lies on the boundary: the nearest of the edges' closest points. A
     * straight edge has one minimum (one Newton start); a curved one is started from both
     * ends and the middle. */
    int nc = face_ncorner(nn), linear = nn == 3 || nn == 4;
    double best = INFINITY, bz[2] = {0, 0};
    int be = -1;
    for (int e = 0; e < nc; e++) {
        static const double starts[3] = {0.5, 0.0, 1.0};
        for (int s = 0; s < (linear ? 1 : 3); s++) {
            double ze[2];
            double d = edge_closest(nn, P, Q, e, starts[s], ze);
            if (d < best) best = d, bz[0] = ze[0], bz[1] = ze[1], be = e;
        }
    }
    if (xi) xi[0] = bz[0], xi[1] = bz[1];
    if (inside) *inside = 0;
    if (edge) *edge = be;
    return best;
}
