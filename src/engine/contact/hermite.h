/* hermite.h — C1 master curve in 2D: a cubic Hermite segment between two master nodes
 * with tangents from averaged nodal normals; closest-point projection, frame and load weights
 * (docs/theory.md, "C1 master surface"). Shared by the engine and the CEA. */
#ifndef TVDS_HERMITE_H
#define TVDS_HERMITE_H

/* One segment: x(xi) = H00 P1 + H10 m1 + H01 P2 + H11 m2, xi in [0, 1], with the end tangents
 * m_i = L tau_i (L = |P2 - P1|, tau_i the unit nodal tangent). */
typedef struct tvds_c1_seg {
    double P1[2], P2[2]; /* end nodes [m] */
    double m1[2], m2[2]; /* end tangent vectors [m] */
} tvds_c1_seg;

/* Segment between P1 and P2 of a polyline; P0 is the node before P1 and P3 the node after P2
 * (NULL at the ends of the surface). The nodal tangent at an interior node is the normalised sum
 * of the unit chord directions on both sides (the nodal normal, its +90 degree rotation, is
 * then the average of the two segment normals); at an end node it is the chord's. A straight
 * polyline gives the chord itself: x(xi) = P1 + xi (P2 - P1). Returns 0, or -1 when P1 = P2. */
int tvds_c1_segment(const double *P0, const double P1[2], const double P2[2], const double *P3,
                    tvds_c1_seg *s);

/* Point x(xi), first and second derivatives dx, ddx (any may be NULL). */
void tvds_c1_eval(const tvds_c1_seg *s, double xi, double x[2], double dx[2], double ddx[2]);

/* Closest point of the curve to Q: Newton on f(xi) = x'(xi) . (x(xi) - Q) = 0 from xi0, at most
 * 12 iterations (O(1)); the result is not clamped (outside [0, 1] the point belongs to a
 * neighbouring segment). */
double tvds_c1_project(const tvds_c1_seg *s, const double Q[2], double xi0);

/* Unit tangent t = x'/|x'| and normal n = (-t_y, t_x) at xi (the convention of docs/theory.md:
 * n is t turned by +90 degrees). */
void tvds_c1_frame(const tvds_c1_seg *s, double xi, double t[2], double n[2]);

/* Weights with which the contact force is shared by the segment's two nodes: the Hermite
 * position functions w = (H00(xi), H01(xi)); w0 + w1 = 1, C1 in xi with zero slope at the
 * nodes. */
void tvds_c1_weights(double xi, double w[2]);

/* Frame and weights of the C1 curve through the n nodes xy (n x 2) on segment k at xi = a: unit
 * tangent t, normal nrm, Hermite position weights wgt. */
void tvds_c1_frame_xy(int n, const double *xy, int k, double a, double t[2], double nrm[2],
                      double wgt[2]);

#endif
