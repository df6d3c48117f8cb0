/* face_shape_impl.h — shape functions of 3D surface faces (3-, 4-, 6-, 8- and 9-node), shared
 * by the contact geometry (engine/contact/face.h) and the loads on face sets (io). */
#ifndef TVDS_FACE_SHAPE_IMPL_H
#define TVDS_FACE_SHAPE_IMPL_H

/* Largest number of nodes of one face (9-node quadrilateral). */
#define FACE_MAX_NODES 9

/* Is nn a supported face (3, 4, 6, 8 or 9 nodes)? */
int face_supported(int nn);
/* Triangle (3, 6 nodes: xi in {xi1, xi2 >= 0, xi1 + xi2 <= 1}) or quadrilateral (4, 8, 9:
 * xi in [-1, 1]^2)? */
int face_is_tri(int nn);

/* Shape functions N (nn) and, when dN is not NULL, their derivatives dN (nn x 2: dN[2k + i] =
 * dN_k / dxi_i) at xi. Node order: corners counter-clockwise seen from the side the normal
 * points to, then midside nodes (edge 1-2, 2-3, ...), then the centre (9-node). */
void face_shape(int nn, const double xi[2], double *N, double *dN);
/* Second derivatives d2N (nn x 3: d2N[3k] = d2N_k/dxi1^2, [3k+1] = d2/dxi1 dxi2,
 * [3k+2] = d2/dxi2^2) at xi. */
void face_shape2(int nn, const double xi[2], double *d2N);

/* N, dN and d2N together (each may be NULL) at xi. */
void face_shape_all(int nn, const double xi[2], double *N, double *dN, double *d2N);

/* Natural coordinates of the corners of the reference face (nn corners: 3 or 4) */
void face_corner_xi(int nn, int k, double xi[2]);
/* Number of corners (3 or 4). */
int face_ncorner(int nn);

#endif
