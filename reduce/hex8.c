/* hex8.c — stiffness and consistent mass of an 8-node hexahedron with box geometry (isotropic
 * linear elasticity), optionally with Wilson-Taylor incompatible modes; shared by the block
 * generator and the 3D beam-on-beam generator (docs/models.md). */
#include <math.h>
#include <string.h>

#include <lapacke.h>

#include "tvds/tvds_reduce.h"

/* Node l at offsets corner[l] in {0, 1}^3 of the box; DoF 3 l + a. */
static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                 {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

void tvds_hex8_corner(int l, int off[3])
{
    for (int c = 0; c < 3; c++)
        off[c] = corner[l][c];
}

/* Column col of B (strains xx yy zz, engineering shears yz xz xy) for displacement direction a
 * with shape-function gradient g. */
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

int tvds_hex8_box(double E, double nu, double rho, const double h[3], int incompatible,
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
    /* 24 compatible DoFs, then 9 incompatible ones (mode m = 1 - xi_m^2, direction a:
     * 24 + 3 m + a), condensed statically. For a box the Jacobian is constant, so the
     * incompatible modes pass the patch test without Taylor's correction. */
    const int nd = incompatible ? 33 : 24;
    double K[33][33];
    memset(K, 0, sizeof K);
    memset(Me, 0, sizeof(double) * 576);
    const double gq = 1.0 / sqrt(3.0), detJ = h[0] * h[1] * h[2] / 8.0;
    for (int gp = 0; gp < 8; gp++) {
        double xi[3] = {corner[gp][0] ? gq : -gq, corner[gp][1] ? gq : -gq,
                        corner[gp][2] ? gq : -gq};
        double N[8], B[6][33];
        for (int l = 0; l < 8; l++) {
            double s[3], f[3], g[3];
            for (int c = 0; c < 3; c++) {
                s[c] = corner[l][c] ? 1.0 : -1.0;
                f[c] = 0.5 * (1 + s[c] * xi[c]);
            }
            N[l] = f[0] * f[1] * f[2];
            for (int c = 0; c < 3; c++)
                g[c] = 0.5 * s[c] * (2.0 / h[c]) * f[(c + 1) % 3] * f[(c + 2) % 3];
            for (int a = 0; a < 3; a++)
                bcol(B, 3 * l + a, a, g);
        }
        if (incompatible)
            for (int m = 0; m < 3; m++) {
                double g[3] = {0, 0, 0};
                g[m] = -2.0 * xi[m] * (2.0 / h[m]);
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
    if (incompatible) {
        /* K_c = K_uu - K_ua K_aa^-1 K_au. */
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
