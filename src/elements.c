/* elements.c — discrete element forces (minimal: springs and dampers; ElasticFriction and the
 * penalty contact law plug in here through the hook of elements_impl.h). */
#include "elements_impl.h"

size_t tvds_elements_state_size(const tvds_model *m)
{
    return m ? (size_t)m->nel : 0;
}

int tvds_elements_init(const tvds_model *m, double *state, tvds_ctx *ctx)
{
    for (int e = 0; e < m->nel; e++) {
        const tvds_element *el = &m->elements[e];
        if (el->kind != TVDS_EL_SPRING && el->kind != TVDS_EL_DAMPER)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "element '%s': kind %d is not supported by this build "
                              "(springs and dampers only)",
                              el->name ? el->name : "?", el->kind);
        if (state) state[e] = 0.0;
    }
    return TVDS_OK;
}

int tvds_elements_force(const tvds_model *m, double t, double h, const double *du, const double *dv,
                        double *state, double *force, tvds_ctx *ctx)
{
    (void)t;
    (void)h;
    (void)state;
    (void)ctx;
    for (int e = 0; e < m->nel; e++) {
        const tvds_element *el = &m->elements[e];
        /* Force on DoF a: a spring pulls a back toward b, a damper opposes the relative
         * velocity. */
        force[e] = el->kind == TVDS_EL_SPRING ? -el->k * du[e] : -el->b * dv[e];
    }
    return TVDS_OK;
}
