/* face_shape.c — shape functions of the 3-, 4-, 6-, 8- and 9-node faces of 3D surfaces: the
 * contact geometry (engine/contact/face.c) and the loads on face sets (io/case_loads.c) share
 * them. */
#include <stddef.h>

#include "core/face_shape_impl.h"

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
void face_shape_all(int nn, const double xi[2], double *N, double *dN, double *d2N)
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
    face_shape_all(nn, xi, N, dN, NULL);
}

void face_shape2(int nn, const double xi[2], double *d2N)
{
    face_shape_all(nn, xi, NULL, NULL, d2N);
}
