/* hermite.c — C1 master curve in 2D: cubic Hermite segments through the master nodes with
 * tangents from averaged nodal normals (hermite.h, docs/theory.md). */
#include <math.h>
#include <stddef.h>

#include "engine/contact/hermite.h"

/* Unit direction from a to b into e; returns the length. */
static double unit_dir(const double a[2], const double b[2], double e[2])
{
    double dx = b[0] - a[0], dy = b[1] - a[1], l = sqrt(dx * dx + dy * dy);
    e[0] = l > 0.0 ? dx / l : 0.0;
    e[1] = l > 0.0 ? dy / l : 0.0;
    return l;
}

/* Unit nodal tangent from the chord directions before (ea, may be NULL) and after (eb). */
static void nodal_tangent(const double *ea, const double eb[2], double tau[2])
{
    double sx = eb[0], sy = eb[1];
    if (ea) {
        sx += ea[0];
        sy += ea[1];
    }
    double l = sqrt(sx * sx + sy * sy);
    if (!(l > 1e-12)) { /* the surface folds back on itself: keep the chord's */
        tau[0] = eb[0];
        tau[1] = eb[1];
        return;
    }
    tau[0] = sx / l;
    tau[1] = sy / l;
}

int tvds_c1_segment(const double *P0, const double P1[2], const double P2[2], const double *P3,
                    tvds_c1_seg *s)
{
    double e[2], ea[2], eb[2], t1[2], t2[2];
    double L = unit_dir(P1, P2, e);
    if (!(L > 0.0)) return -1;
    if (P0 && unit_dir(P0, P1, ea) > 0.0)
        nodal_tangent(ea, e, t1);
    else
        nodal_tangent(NULL, e, t1);
    if (P3 && unit_dir(P2, P3, eb) > 0.0)
        nodal_tangent(e, eb, t2);
    else
        nodal_tangent(NULL, e, t2);
    for (int a = 0; a < 2; a++) {
        s->P1[a] = P1[a];
        s->P2[a] = P2[a];
        s->m1[a] = L * t1[a];
        s->m2[a] = L * t2[a];
    }
    return 0;
}

void tvds_c1_eval(const tvds_c1_seg *s, double xi, double x[2], double dx[2], double ddx[2])
{
    double x2 = xi * xi, x3 = x2 * xi;
    double h00 = 2.0 * x3 - 3.0 * x2 + 1.0, h10 = x3 - 2.0 * x2 + xi;
    double h01 = -2.0 * x3 + 3.0 * x2, h11 = x3 - x2;
    double d00 = 6.0 * x2 - 6.0 * xi, d10 = 3.0 * x2 - 4.0 * xi + 1.0;
    double d01 = -d00, d11 = 3.0 * x2 - 2.0 * xi;
    double s00 = 12.0 * xi - 6.0, s10 = 6.0 * xi - 4.0, s01 = -s00, s11 = 6.0 * xi - 2.0;
    for (int a = 0; a < 2; a++) {
        if (x) x[a] = h00 * s->P1[a] + h10 * s->m1[a] + h01 * s->P2[a] + h11 * s->m2[a];
        if (dx) dx[a] = d00 * s->P1[a] + d10 * s->m1[a] + d01 * s->P2[a] + d11 * s->m2[a];
        if (ddx) ddx[a] = s00 * s->P1[a] + s10 * s->m1[a] + s01 * s->P2[a] + s11 * s->m2[a];
    }
}

double tvds_c1_project(const tvds_c1_seg *s, const double Q[2], double xi0)
{
    double xi = xi0;
    for (int it = 0; it < 12; it++) {
        double x[2], dx[2], ddx[2];
        tvds_c1_eval(s, xi, x, dx, ddx);
        double r0 = x[0] - Q[0], r1 = x[1] - Q[1];
        double f = dx[0] * r0 + dx[1] * r1;
        double j2 = dx[0] * dx[0] + dx[1] * dx[1];
        double fp = ddx[0] * r0 + ddx[1] * r1 + j2;
        /* Newton where the distance is convex in xi, else a Gauss-Newton step. */
        double step = fp > 0.25 * j2 ? f / fp : f / j2;
        xi -= step;
        /* Newton converges quadratically: after a step below 1e-12 the error is ~1e-24. */
        if (fabs(step) < 1e-12) break;
    }
    return xi;
}

void tvds_c1_frame(const tvds_c1_seg *s, double xi, double t[2], double n[2])
{
    double dx[2];
    tvds_c1_eval(s, xi, NULL, dx, NULL);
    double l = sqrt(dx[0] * dx[0] + dx[1] * dx[1]);
    t[0] = dx[0] / l;
    t[1] = dx[1] / l;
    n[0] = -t[1];
    n[1] = t[0];
}

void tvds_c1_weights(double xi, double w[2])
{
    double x2 = xi * xi, x3 = x2 * xi;
    w[0] = 2.0 * x3 - 3.0 * x2 + 1.0;
    w[1] = -2.0 * x3 + 3.0 * x2;
}

void tvds_c1_frame_xy(int n, const double *xy, int k, double a, double t[2], double nrm[2],
                      double wgt[2])
{
    tvds_c1_seg sg;
    tvds_c1_segment(k > 0 ? xy + 2 * k - 2 : NULL, xy + 2 * k, xy + 2 * k + 2,
                    k + 2 < n ? xy + 2 * k + 4 : NULL, &sg);
    tvds_c1_frame(&sg, a, t, nrm);
    tvds_c1_weights(a, wgt);
}
