/* elements_impl.h — discrete elements (springs, dampers, ElasticFriction) as explicit forces:
 * the hook through which the engine asks src/engine/elements.c for element forces at t_n. */
#ifndef TVDS_ELEMENTS_IMPL_H
#define TVDS_ELEMENTS_IMPL_H

#include <stddef.h>

#include "tvds/tvds_model.h"

/* Result channels of one element, in this order (TVDS_EL_NRES doubles per element):
 * internal force Fi [N] (> 0 stretched), friction state sf [-] (enum tvds_ef_sf; springs and
 * dampers: 0), displacement difference dx [m], velocity difference dv [m/s], power into the
 * element's spring Pp [W] and power lost Pl >= 0 [W] over the step. */
enum { TVDS_EL_FI, TVDS_EL_SF, TVDS_EL_DX, TVDS_EL_DV, TVDS_EL_PP, TVDS_EL_PL, TVDS_EL_NRES };

/* Number of doubles of internal state all elements of m need (springs and dampers 1,
 * ElasticFriction TVDS_EF_NSTATE). The engine allocates it once in tvds_data_create. */
size_t tvds_elements_state_size(const tvds_model *m);

/* Check the elements of m and initialise their state (state has tvds_elements_state_size
 * doubles; an ElasticFriction element takes its initial displacement difference from the first
 * tvds_elements_force call). Returns TVDS_OK or TVDS_ERR_INVALID recorded in ctx (unsupported
 * kind, bad parameters). */
int tvds_elements_init(const tvds_model *m, double *state, tvds_ctx *ctx);

/* Forces of all elements at time t [s] with step h [s]. du[e] = u[a] - u[b] [m] and
 * dv[e] = backward-difference velocity difference [m/s] of element e (b = ground: 0). On return
 * force[e] is the force on DoF a [N]; DoF b receives -force[e]. res (may be NULL) receives
 * TVDS_EL_NRES doubles per element (above). state is advanced: the engine calls this exactly
 * once per step, for t_n. state = NULL re-evaluates the stateless elements (springs, dampers)
 * only and leaves force[e] and res of the stateful ones (ElasticFriction) as the previous call
 * set them: the engine's step 0 reuses the evaluation at t_0. A rigid stick-slip
 * ElasticFriction element is not stepped here: force[e] = -Fi of its last step (the engine
 * steps it with a stick row, src/engine/sim_elements.c). No allocation. Returns TVDS_OK
 * or an error recorded in ctx. */
int tvds_elements_force(const tvds_model *m, double t, double h, const double *du, const double *dv,
                        double *state, double *force, double *res, tvds_ctx *ctx);

/* The penalty contact law (TVDS_LAW_PENALTY) is an explicit force between the slave node and
 * the master as well; the engine calls it per contact point in src/engine/sim_contact.c
 * (sim_penalty_forces) with the law of src/engine/friction_laws_impl.h. */

#endif
