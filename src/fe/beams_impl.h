/* beams_impl.h — internal entry points of the beam generator, for its tests. */
#ifndef TVDS_BEAMS_IMPL_H
#define TVDS_BEAMS_IMPL_H

#include "tvds/tvds.h"
#include "tvds/tvds_beams.h"
#include "tvds/tvds_reduce.h"

/* Stiffness and consistent mass of one 9-node plane-stress quadrilateral. xy: node
 * coordinates, node a + 3 b at (xi, eta) = (a - 1, b - 1); DoFs node-major (x, y). Returns 0 when
 * the Jacobian is not positive at a Gauss point, 1 otherwise. */
TVDS_API int tvds_q9_element_(const double xy[9][2], double E, double nu, double rho, double width,
                              double Ke[18][18], double Me[18][18]);

/* Append node set NAME (n nodes, copied) to the full model m. */
int tvds_fe_add_set_(tvds_fe_model *m, const char *name, int n, const long *nodes, tvds_ctx *ctx);

/* Called on the reduced beam 2 before it is written (e.g. to add its master face set). */
typedef int (*tvds_bob_finish_fn)(const tvds_beam_params *beam2, tvds_substructure *r2,
                                  tvds_ctx *ctx);

/* The pair writer shared by the 2D and 3D beam-on-beam generators: DIR/beam{1,2}_full (full
 * models), Craig-Bampton reduction of beam 1 on its sets A,C and of beam 2 on b2_boundary (with
 * the recovery row T.y), finish2 (may be NULL) on the reduced beam 2, then DIR/beam{1,2}. Takes
 * ownership of b1 and b2 (freed here, also on failure). */
int tvds_bob_pair_write_(tvds_fe_model *b1, tvds_fe_model *b2, const char *b2_boundary,
                         tvds_bob_finish_fn finish2, const tvds_bob_params *p, const char *dir,
                         tvds_reduce_stats *stats, cholmod_common *cc, tvds_ctx *ctx);

#endif
