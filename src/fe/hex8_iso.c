/* hex8_iso.c — 8-node isoparametric hexahedron of general shape with incompatible modes
 * (Taylor's correction), for the curved meshes of the disc-brake generator (docs/models.md). */
#include <math.h>
#include <string.h>

#include <lapacke.h>

#include "fe/disc_impl.h"
#include "tvds/tvds_reduce.h"

/* Column col of B (strains xx yy zz, engineering shears yz xz xy) for direction a, gradient g. */
static void bcol(double B[6][33], int col, int a, const double g[3])
{
    for (int r = 0; r < 6; r++)
        B[r][col] = 0;
    B[a][col] = g[a];
    if (a == 0) {
        B[4][col] = g[2];
        B[5][col] = g[1];
    } else if (a == 1) {
        B[3][col] = g[2];
        B[5][col] = g[0];
    } else {
        B[3][col] = g[1];
        B[4][col] = g[0];
    }
}

/* Jacobian J[c][d] = dx_c / dxi_d at xi from the node coordinates; returns det J and the
 * inverse (Ji[d][c] = dxi_d / dx_c). */
static double jacobian(const double x[8][3], const double xi[3], double Ji[3][3], double dN[8][3])
{
    double J[3][3] = {{0}};
    for (int l = 0; l < 8; l++) {
        int o[3];
        tvds_hex8_corner(l, o);
        double s[3], f[3];
        for (int c = 0; c < 3; c++) {
            s[c] = o[c] ? 1.0 : -1.0;
            f[c] = 0.5 * (1 + s[c] * xi[c]);
        }
        for (int d = 0; d < 3; d++)
            dN[l][d] = 0.5 * s[d] * f[(d + 1) % 3] * f[(d + 2) % 3];
        for (int c = 0; c < 3; c++)
            for (int d = 0; d < 3; d++)
                J[c][d] += x[l][c] * dN[l][d];
    }
    double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
                 J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                 J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
    for (int c = 0; c < 3; c++)
        for (int d = 0; d < 3; d++) { /* cofactor transpose / det */
            int c1 = (c + 1) % 3, c2 = (c + 2) % 3, d1 = (d + 1) % 3, d2 = (d + 2) % 3;
            Ji[d][c] = (J[c1][d1] * J[c2][d2] - J[c1][d2] * J[c2][d1]) / det;
        }
    return det;
}

int tvds_hex8_iso_(const double x[8][3], double E, double nu, double rho, int incompatible,
                   double Ke[24][24], double Me[24][24])
{
    double lam = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
    double D[6][6] = {{0}};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            D[i][j] = lam;
        D[i][i] = lam + 2 * mu;
        D[3 + i][3 + i] = mu;
    }
    const int nd = incompatible ? 33 : 24;
    double K[33][33], J0i[3][3], dN[8][3];
    memset(K, 0, sizeof K);
    memset(Me, 0, sizeof(double) * 576);
    const double zero[3] = {0, 0, 0}, gq = 1.0 / sqrt(3.0);
    double det0 = jacobian(x, zero, J0i, dN);
    if (!(det0 > 0)) return 0;
    for (int gp = 0; gp < 8; gp++) {
        int o[3];
        tvds_hex8_corner(gp, o);
        double xi[3] = {o[0] ? gq : -gq, o[1] ? gq : -gq, o[2] ? gq : -gq}, Ji[3][3];
        double detJ = jacobian(x, xi, Ji, dN);
        if (!(detJ > 0)) return 0;
        double N[8], B[6][33];
        for (int l = 0; l < 8; l++) {
            int c0[3];
            tvds_hex8_corner(l, c0);
            N[l] = 1;
            for (int c = 0; c < 3; c++)
                N[l] *= 0.5 * (1 + (c0[c] ? 1.0 : -1.0) * xi[c]);
            double g[3];
            for (int c = 0; c < 3; c++)
                g[c] = Ji[0][c] * dN[l][0] + Ji[1][c] * dN[l][1] + Ji[2][c] * dN[l][2];
            for (int a = 0; a < 3; a++)
                bcol(B, 3 * l + a, a, g);
        }
        if (incompatible)
            for (int m = 0; m < 3; m++) { /* mode 1 - xi_m^2: d/dxi_m = -2 xi_m */
                double g[3];
                for (int c = 0; c < 3; c++)
                    g[c] = J0i[m][c] * (-2.0 * xi[m]) * det0 / detJ;
                for (int a = 0; a < 3; a++)
                    bcol(B, 24 + 3 * m + a, a, g);
            }
        for (int j = 0; j < nd; j++) {
            double DB[6];
            for (int i = 0; i < 6; i++) {
                double s = 0;
                for (int k = 0; k < 6; k++)
                    s += D[i][k] * B[k][j];
                DB[i] = s;
            }
            for (int i = 0; i < nd; i++) {
                double s = 0;
                for (int k = 0; k < 6; k++)
                    s += B[k][i] * DB[k];
                K[i][j] += s * detJ;
            }
        }
        for (int a = 0; a < 8; a++)
            for (int b = 0; b < 8; b++)
                for (int c = 0; c < 3; c++)
                    Me[3 * a + c][3 * b + c] += rho * N[a] * N[b] * detJ;
    }
    if (incompatible) { /* K_c = K_uu - K_ua K_aa^-1 K_au */
        double Kaa[81], X[9 * 24];
        for (int i = 0; i < 9; i++)
            for (int j = 0; j < 9; j++)
                Kaa[i * 9 + j] = K[24 + i][24 + j];
        for (int i = 0; i < 9; i++)
            for (int j = 0; j < 24; j++)
                X[i * 24 + j] = K[24 + i][j];
        if (LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', 9, 24, Kaa, 9, X, 24) != 0) return 0;
        for (int i = 0; i < 24; i++)
            for (int j = 0; j < 24; j++) {
                double s = 0;
                for (int k = 0; k < 9; k++)
                    s += K[i][24 + k] * X[k * 24 + j];
                K[i][j] -= s;
            }
    }
    for (int i = 0; i < 24; i++)
        for (int j = 0; j < 24; j++)
            Ke[i][j] = 0.5 * (K[i][j] + K[j][i]);
    return 1;
}
