/* face.c — geometry of 3D master faces: shape functions of the 3-, 4-, 6-, 8- and 9-node
 * faces, closest-point projection (Newton in natural coordinates, then the boundary edges)
 * and the contact frame (n, t1, t2). Derivation: docs/theory.md, section 3b. */
#include <math.h>
#include <string.h>

#include "engine/contact/face.h"

int face_supported(int nn)
{
    return nn == 3 || nn == 4 || nn == 6 || nn == 8 || nn == 9;
}

int face_is_tri(int nn)
{
    return nn == 3 || nn == 6;
}

int face_ncorner(int nn)
{
    return face_is_tri(nn) ? 3 : 4;
}

/* Natural coordinates of the quadrilateral nodes: corners, midsides, centre. */
static const double quad_xi[9][2] = {{-1, -1}, {1, -1}, {1, 1},  {-1, 1}, {0, -1},
                                     {1, 0},   {0, 1},  {-1, 0}, {0, 0}};
static const double tri_xi[6][2] = {{0, 0}, {1, 0}, {0, 1}, {0.5, 0}, {0.5, 0.5}, {0, 0.5}};

void face_corner_xi(int nn, int k, double xi[2])
{
    const double *c = face_is_tri(nn) ? tri_xi[k] : quad_xi[k];
    xi[0] = c[0];
    xi[1] = c[1];
}

/* 1D quadratic Lagrange functions on the nodes -1, 0, 1 (9-node face): value, first and
 * second derivative of the function of node c at s. */
static void lag3(int c, double s, double *l, double *dl, double *d2l)
{
    if (c < 0) {
        *l = 0.5 * s * (s - 1.0), *dl = s - 0.5, *d2l = 1.0;
    } else if (c == 0) {
        *l = 1.0 - s * s, *dl = -2.0 * s, *d2l = -2.0;
    } else {
        *l = 0.5 * s * (s + 1.0), *dl = s + 0.5, *d2l = 1.0;
    }
}

/* All of N, dN, d2N (each may be NULL) at xi. */
static void shape_all(int nn, const double xi[2], double *N, double *dN, double *d2N)
{
    double x = xi[0], y = xi[1];
    double n_[FACE_MAX_NODES], dn_[2 * FACE_MAX_NODES], d2n_[3 * FACE_MAX_NODES];
    double *n = N ? N : n_, *dn = dN ? dN : dn_, *d2n = d2N ? d2N : d2n_;
    if (face_is_tri(nn)) {
        double L[3] = {1.0 - x - y, x, y};
        static const double dL[3][2] = {{-1, -1}, {1, 0}, {0, 1}};
        if (nn == 3) {
            for (int k = 0; k < 3; k++) {
                n[k] = L[k];
                dn[2 * k] = dL[k][0], dn[2 * k + 1] = dL[k][1];
                d2n[3 * k] = d2n[3 * k + 1] = d2n[3 * k + 2] = 0.0;
            }
            return;
        }
        for (int k = 0; k < 3; k++) {
            n[k] = L[k] * (2.0 * L[k] - 1.0);
            for (int i = 0; i < 2; i++)
                dn[2 * k + i] = (4.0 * L[k] - 1.0) * dL[k][i];
            d2n[3 * k] = 4.0 * dL[k][0] * dL[k][0];
            d2n[3 * k + 1] = 4.0 * dL[k][0] * dL[k][1];
            d2n[3 * k + 2] = 4.0 * dL[k][1] * dL[k][1];
        }
        /* Midsides: 4 (corners 1-2), 5 (2-3), 6 (3-1). */
        for (int k = 0; k < 3; k++) {
            int a = k, b = (k + 1) % 3, q = 3 + k;
            n[q] = 4.0 * L[a] * L[b];
            for (int i = 0; i < 2; i++)
                dn[2 * q + i] = 4.0 * (L[a] * dL[b][i] + L[b] * dL[a][i]);
            d2n[3 * q] = 8.0 * dL[a][0] * dL[b][0];
            d2n[3 * q + 1] = 4.0 * (dL[a][0] * dL[b][1] + dL[a][1] * dL[b][0]);
            d2n[3 * q + 2] = 8.0 * dL[a][1] * dL[b][1];
        }
        return;
    }
    if (nn == 4) {
        for (int k = 0; k < 4; k++) {
            double xk = quad_xi[k][0], yk = quad_xi[k][1];
            double a = 1.0 + x * xk, b = 1.0 + y * yk;
            n[k] = 0.25 * a * b;
            dn[2 * k] = 0.25 * xk * b, dn[2 * k + 1] = 0.25 * yk * a;
            d2n[3 * k] = 0.0, d2n[3 * k + 1] = 0.25 * xk * yk, d2n[3 * k + 2] = 0.0;
        }
        return;
    }
    if (nn == 8) {
        for (int k = 0; k < 4; k++) {
            double xk = quad_xi[k][0], yk = quad_xi[k][1];
            double a = 1.0 + x * xk, b = 1.0 + y * yk, c = x * xk + y * yk - 1.0;
            n[k] = 0.25 * a * b * c;
            dn[2 * k] = 0.25 * xk * b * (2.0 * x * xk + y * yk);
            dn[2 * k + 1] = 0.25 * yk * a * (x * xk + 2.0 * y * yk);
            d2n[3 * k] = 0.5 * b;
            d2n[3 * k + 1] = 0.25 * xk * yk * (2.0 * x * xk + 2.0 * y * yk + 1.0);
            d2n[3 * k + 2] = 0.5 * a;
        }
        for (int k = 4; k < 8; k++) {
            double xk = quad_xi[k][0], yk = quad_xi[k][1];
            if (xk == 0.0) {
                n[k] = 0.5 * (1.0 - x * x) * (1.0 + y * yk);
                dn[2 * k] = -x * (1.0 + y * yk), dn[2 * k + 1] = 0.5 * (1.0 - x * x) * yk;
                d2n[3 * k] = -(1.0 + y * yk), d2n[3 * k + 1] = -x * yk, d2n[3 * k + 2] = 0.0;
            } else {
                n[k] = 0.5 * (1.0 + x * xk) * (1.0 - y * y);
                dn[2 * k] = 0.5 * xk * (1.0 - y * y), dn[2 * k + 1] = -y * (1.0 + x * xk);
                d2n[3 * k] = 0.0, d2n[3 * k + 1] = -y * xk, d2n[3 * k + 2] = -(1.0 + x * xk);
            }
        }
        return;
    }
    /* 9-node: tensor product of the 1D quadratic Lagrange functions. */
    for (int k = 0; k < 9; k++) {
        double lx, dlx, d2lx, ly, dly, d2ly;
        lag3((int)quad_xi[k][0], x, &lx, &dlx, &d2lx);
        lag3((int)quad_xi[k][1], y, &ly, &dly, &d2ly);
        n[k] = lx * ly;
        dn[2 * k] = dlx * ly, dn[2 * k + 1] = lx * dly;
        d2n[3 * k] = d2lx * ly, d2n[3 * k + 1] = dlx * dly, d2n[3 * k + 2] = lx * d2ly;
    }
}

void face_shape(int nn, const double xi[2], double *N, double *dN)
{
    shape_all(nn, xi, N, dN, NULL);
}

void face_shape2(int nn, const double xi[2], double *d2N)
{
    shape_all(nn, xi, NULL, NULL, d2N);
}

int face_inside(int nn, const double xi[2], double tol)
{
    if (face_is_tri(nn)) return xi[0] >= -tol && xi[1] >= -tol && xi[0] + xi[1] <= 1.0 + tol;
    return fabs(xi[0]) <= 1.0 + tol && fabs(xi[1]) <= 1.0 + tol;
}

void face_point(int nn, const double *P, const double xi[2], double x[3], double a1[3],
                double a2[3])
{
    double N[FACE_MAX_NODES], dN[2 * FACE_MAX_NODES];
    shape_all(nn, xi, N, dN, NULL);
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
    shape_all(nn, xi, N, dN, d2N);
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
