/* plate.c — thin-plate (Kirchhoff) reference of the clamped-free annular disc: the roots of
 * the 4 x 4 Bessel-function determinant, with I_n by its power series and K_n by the
 * trapezoidal rule on its integral representation (docs/validation.md). */
#define _XOPEN_SOURCE 700 /* jn, yn */
#include <math.h>

#include "fe/disc_impl.h"
#include "tvds/tvds_disc.h"

#define PL_PI 3.14159265358979323846

/* I_n(x) = sum_k (x/2)^(2k+n) / (k! (k+n)!): positive terms, no cancellation; stopped when a
 * term no longer changes the sum (at most 200 terms for x <= 40). */
double tvds_bessel_i_(int n, double x)
{
    double t = 1, y = 0.5 * x;
    for (int k = 1; k <= n; k++)
        t *= y / k;
    double s = t;
    for (int k = 1; k < 500; k++) {
        t *= y * y / ((double)k * (k + n));
        s += t;
        if (t < 1e-17 * s) break;
    }
    return s;
}

/* K_n(x) = int_0^inf exp(-x cosh t) cosh(n t) dt: the trapezoidal rule with step h on an
 * integrand analytic in the strip |Im t| < pi/2 errs by about exp(-pi^2 / h) (1e-21 for
 * h = 1/20, relative); the tail is cut where the terms fall below 1e-300 or 1e-22 of the sum. */
double tvds_bessel_k_(int n, double x)
{
    const double h = 0.05;
    double s = 0.5 * exp(-x);
    for (int k = 1; k < 100000; k++) {
        double t = k * h, e = -x * cosh(t) + n * t;
        double f = 0.5 * (exp(e) + exp(-x * cosh(t) - n * t));
        s += f;
        if (e < -690 || (f < 1e-22 * s && n * t < x * cosh(t))) break;
    }
    return h * s;
}

/* Value, first and second derivative in r and d/dr of the Laplacian (with cos n theta) of the
 * four solutions J_n, Y_n, I_n, K_n of lambda r at r. */
static void basis(int n, double lam, double r, double w[4], double w1[4], double w2[4],
                  double lap1[4])
{
    double x = lam * r, z[4], z1[4];
    z[0] = jn(n, x);
    z1[0] = -jn(n + 1, x) + n / x * z[0];
    z[1] = yn(n, x);
    z1[1] = -yn(n + 1, x) + n / x * z[1];
    z[2] = tvds_bessel_i_(n, x);
    z1[2] = tvds_bessel_i_(n + 1, x) + n / x * z[2];
    z[3] = tvds_bessel_k_(n, x);
    z1[3] = -tvds_bessel_k_(n + 1, x) + n / x * z[3];
    for (int c = 0; c < 4; c++) {
        double sg = c < 2 ? -1.0 : 1.0; /* J, Y: nabla^2 Z = -lam^2 Z; I, K: +lam^2 Z */
        double z2 = -z1[c] / x + (sg + (double)n * n / (x * x)) * z[c];
        w[c] = z[c];
        w1[c] = lam * z1[c];
        w2[c] = lam * lam * z2;
        lap1[c] = sg * lam * lam * w1[c];
    }
}

static double det4(double A[4][4])
{
    double a[4][4], d = 1;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            a[i][j] = A[i][j];
    for (int c = 0; c < 4; c++) {
        int p = c;
        for (int r = c + 1; r < 4; r++)
            if (fabs(a[r][c]) > fabs(a[p][c])) p = r;
        if (a[p][c] == 0) return 0;
        if (p != c) {
            for (int j = 0; j < 4; j++) {
                double t = a[c][j];
                a[c][j] = a[p][j];
                a[p][j] = t;
            }
            d = -d;
        }
        d *= a[c][c];
        for (int r = c + 1; r < 4; r++) {
            double f = a[r][c] / a[c][c];
            for (int j = c; j < 4; j++)
                a[r][j] -= f * a[c][j];
        }
    }
    return d;
}

/* The frequency determinant for a = 1, b = ratio: rows w(b) = 0, w'(b) = 0 (clamped), radial
 * moment w'' + nu (w' - n^2 w) = 0 and Kirchhoff shear (nabla^2 w)' - (1 - nu) n^2 (w' - w) = 0
 * at r = 1 (free). Columns scaled to unit length, which moves no root. */
static double cf_det(double ratio, double nu, int n, double lam)
{
    double A[4][4], w[4], w1[4], w2[4], l1[4];
    basis(n, lam, ratio, w, w1, w2, l1);
    for (int c = 0; c < 4; c++) {
        A[0][c] = w[c];
        A[1][c] = w1[c];
    }
    basis(n, lam, 1.0, w, w1, w2, l1);
    double nn = (double)n * n;
    for (int c = 0; c < 4; c++) {
        A[2][c] = w2[c] + nu * (w1[c] - nn * w[c]);
        A[3][c] = l1[c] - (1 - nu) * nn * (w1[c] - w[c]);
    }
    for (int c = 0; c < 4; c++) {
        double s = 0;
        for (int r = 0; r < 4; r++)
            s += A[r][c] * A[r][c];
        s = sqrt(s);
        for (int r = 0; r < 4; r++)
            A[r][c] /= s;
    }
    return det4(A);
}

int tvds_annular_plate_cf(double ratio, double nu, int n, int nroots, double *lambda2,
                          tvds_ctx *ctx)
{
    if (!(ratio > 0.05 && ratio < 0.95) || n < 0 || n > 20 || nroots < 1 || nroots > 8 ||
        !(nu > -1 && nu < 0.5))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "annular plate: need 0.05 < b/a < 0.95, -1 < nu < 0.5, 0 <= n <= 20, "
                          "1 <= roots <= 8");
    /* Scan lambda a by steps of 1/400 (the roots of one n are further apart than pi / (1 - b/a)
     * / 2 in lambda a), then bisect each sign change to the last bit. */
    const double step = 1.0 / 400;
    int found = 0;
    double lo = 0.2, flo = cf_det(ratio, nu, n, lo);
    for (double hi = lo + step; found < nroots && hi < 40; hi += step) {
        double fhi = cf_det(ratio, nu, n, hi);
        if ((flo < 0) != (fhi < 0)) {
            double a = lo, b = hi, fa = flo;
            for (int it = 0; it < 200 && b - a > 4e-16 * b; it++) {
                double m = 0.5 * (a + b), fm = cf_det(ratio, nu, n, m);
                if ((fm < 0) == (fa < 0)) {
                    a = m;
                    fa = fm;
                } else {
                    b = m;
                }
            }
            double l = 0.5 * (a + b);
            lambda2[found++] = l * l;
        }
        lo = hi;
        flo = fhi;
    }
    if (found < nroots)
        return TVDS_ERROR(ctx, TVDS_ERR_SOLVER,
                          "annular plate: %d of %d roots with %d nodal diameters below lambda a = "
                          "40",
                          found, nroots, n);
    return TVDS_OK;
}
