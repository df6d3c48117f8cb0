/* disc_impl.h — internal entry points of the disc-brake generator and its plate reference,
 * for their tests. */
#ifndef TVDS_DISC_IMPL_H
#define TVDS_DISC_IMPL_H

#include "tvds/tvds.h"

/* Stiffness and consistent mass of an 8-node isoparametric hexahedron of any (convex) shape:
 * x[l] node l's coordinates, corners ordered as tvds_hex8_corner; 2 x 2 x 2 Gauss points;
 * incompatible != 0 adds the nine incompatible modes with Taylor's correction (their gradients
 * from the centre Jacobian, weighted det J0 / det J, so that the element passes the patch
 * test), condensed statically. For a box it equals tvds_hex8_box. Returns 1, or 0 when det J
 * is not positive at a Gauss point or the condensation fails. */
TVDS_API int tvds_hex8_iso_(const double x[8][3], double E, double nu, double rho, int incompatible,
                            double Ke[24][24], double Me[24][24]);

/* Modified Bessel functions of the first and second kind of integer order n >= 0, x > 0: I_n
 * by its power series (positive terms), K_n by the trapezoidal rule on int_0^inf exp(-x cosh t)
 * cosh(n t) dt (exponentially convergent, positive integrand). */
TVDS_API double tvds_bessel_i_(int n, double x);
TVDS_API double tvds_bessel_k_(int n, double x);

#endif
