/* face.h — geometry of 3D master faces (3-, 4-, 6-, 8- and 9-node): shape functions,
 * closest-point projection in natural coordinates and the local contact frame
 * (docs/theory.md, section 3b). */
#ifndef TVDS_FACE_H
#define TVDS_FACE_H

#include "core/face_shape_impl.h"

/* Is xi in the reference domain, with a margin tol (in natural coordinates)? */
int face_inside(int nn, const double xi[2], double tol);

/* Point x(xi) = sum N_k P_k and covariant tangents a1 = dx/dxi1, a2 = dx/dxi2 of the face with
 * node coordinates P (nn x 3, row k = node k); a1, a2 may be NULL. */
void face_point(int nn, const double *P, const double xi[2], double x[3], double a1[3],
                double a2[3]);

/* Unit normal n = a1 x a2 / |a1 x a2| (toward the slave side for counter-clockwise nodes),
 * t1 = a1 / |a1|, t2 = n x t1. Returns 0, or -1 for a degenerate face (|a1 x a2| = 0). */
int face_frame(int nn, const double *P, const double xi[2], double n[3], double t1[3],
               double t2[3]);

/* Closest point of the face (nodes P, nn x 3) to Q. start: the Newton iteration's starting
 * natural coordinates (NULL, or a point outside the face: the centroid). xi (may be NULL)
 * receives the natural coordinates of the closest point, in the reference domain. Returns the
 * squared distance. *inside is 1 when the closest point is an orthogonal projection inside the
 * face (margin 1e-9 in natural coordinates), 0 when it lies on the boundary (the slave is over
 * an edge or a corner, or beyond). *edge (may be NULL) receives the boundary edge (0-based,
 * edge k joins corners k and k+1) the point lies on, or -1 when inside. */
double face_closest(int nn, const double *P, const double Q[3], const double *start, double xi[2],
                    int *inside, int *edge);

#endif
