/* elements_impl.h — discrete elements (springs, dampers, ElasticFriction) as explicit forces:
 * the hook through which the engine asks src/elements.c for element forces at t_n. */
#ifndef TVDS_ELEMENTS_IMPL_H
#define TVDS_ELEMENTS_IMPL_H

#include "tvds/tvds_model.h"

/* Number of doubles of internal state all elements of m need (ElasticFriction: stick anchor,
 * transition state, ...). The engine allocates it once in tvds_data_create. */
size_t tvds_elements_state_size(const tvds_model *m);

/* Check the elements of m and initialise their state (state has tvds_elements_state_size
 * doubles). Returns TVDS_OK or an error recorded in ctx (unsupported kind, bad DoF). */
int tvds_elements_init(const tvds_model *m, double *state, tvds_ctx *ctx);

/* Forces of all elements at time t [s] with step h [s]. du[e] = u[a] - u[b] [m] and
 * dv[e] = backward-difference velocity difference [m/s] of element e (b = ground: 0). On return
 * force[e] is the force on DoF a [N]; DoF b receives -force[e]. state is advanced (the engine
 * calls this exactly once per step, for t_n). No allocation. Returns TVDS_OK or an error. */
int tvds_elements_force(const tvds_model *m, double t, double h, const double *du, const double *dv,
                        double *state, double *force, tvds_ctx *ctx);

/* Hook for the penalty contact law (TVDS_LAW_PENALTY): it is to be implemented here as an
 * explicit force between the slave node and the master, like an element; until then
 * tvds_data_create rejects penalty contacts with TVDS_ERR_INVALID. */

#endif
