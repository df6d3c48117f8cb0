/* beams_impl.h — internal entry points of the beam generator, for its tests. */
#ifndef TVDS_BEAMS_IMPL_H
#define TVDS_BEAMS_IMPL_H

#include "tvds/tvds.h"

/* Stiffness and consistent mass of one 9-node plane-stress quadrilateral. xy: node
 * coordinates, node a + 3 b at (xi, eta) = (a - 1, b - 1); DoFs node-major (x, y). Returns 0 when
 * the Jacobian is not positive at a Gauss point, 1 otherwise. */
TVDS_API int tvds_q9_element_(const double xy[9][2], double E, double nu, double rho, double width,
                              double Ke[18][18], double Me[18][18]);

#endif
