/* elements.c — discrete element forces: springs, dampers and the ElasticFriction element
 * (compliant form through the hook of src/engine/friction_laws_impl.h; the rigid stick-slip form
 * applies its last force here and is stepped by src/engine/sim_elements.c). */
#include <math.h>

#include "engine/elements_impl.h"
#include "engine/friction_laws_impl.h"

static size_t el_nstate(const tvds_element *el)
{
    return el->kind == TVDS_EL_ELASTIC_FRICTION ? TVDS_EF_NSTATE : 1;
}

size_t tvds_elements_state_size(const tvds_model *m)
{
    size_t n = 0;
    if (!m) return 0;
    for (int e = 0; e < m->nel; e++)
        n += el_nstate(&m->elements[e]);
    return n;
}

int tvds_elements_init(const tvds_model *m, double *state, tvds_ctx *ctx)
{
    size_t off = 0;
    for (int e = 0; e < m->nel; e++) {
        const tvds_element *el = &m->elements[e];
        const char *nm = el->name ? el->name : "?";
        if (el->kind == TVDS_EL_ELASTIC_FRICTION) {
            int rc = tvds_ef_check(el, ctx);
            if (rc) return rc;
            if (state) tvds_ef_hook_init(el, NAN, state + off);
        } else if (el->kind == TVDS_EL_SPRING || el->kind == TVDS_EL_DAMPER) {
            if (state) state[off] = 0.0;
        } else {
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "element '%s': unknown kind %d", nm, el->kind);
        }
        off += el_nstate(el);
    }
    return TVDS_OK;
}

int tvds_elements_force(const tvds_model *m, double t, double h, const double *du, const double *dv,
                        double *state, double *force, double *res, tvds_ctx *ctx)
{
    size_t off = 0;
    for (int e = 0; e < m->nel; e++) {
        const tvds_element *el = &m->elements[e];
        double r[TVDS_EL_NRES] = {0};
        r[TVDS_EL_DX] = du[e];
        r[TVDS_EL_DV] = dv[e];
        if (el->kind == TVDS_EL_ELASTIC_FRICTION) {
            tvds_ef_out o;
            if (!state) { /* keep the forces and results of the previous call */
                off += el_nstate(el);
                continue;
            }
            if (el->rigid && el->kindF == TVDS_EF_STICK_SLIP) {
                /* Rigid stick-slip: the force of the last step, -Fi on DoF a; the engine
                 * steps the element with its stick row (src/engine/sim_elements.c). */
                tvds_ef_state st;
                if (isnan(state[off + 1]))
                    tvds_ef_init(el, du[e], &st);
                else
                    tvds_ef_state_unpack(state + off, &st);
                tvds_ef_state_pack(&st, state + off);
                force[e] = -st.Fi;
                r[TVDS_EL_FI] = st.Fi;
                r[TVDS_EL_SF] = st.sf;
                if (res)
                    for (int k = 0; k < TVDS_EL_NRES; k++)
                        res[(size_t)e * TVDS_EL_NRES + k] = r[k];
                off += el_nstate(el);
                continue;
            }
            int rc = tvds_ef_hook_force(el, t, h, du[e], dv[e], state + off, &force[e], &o);
            if (rc)
                return TVDS_ERROR(ctx, rc, "t = %.9g s: element '%s': ElasticFriction step failed",
                                  t, el->name ? el->name : "?");
            r[TVDS_EL_FI] = o.Fi;
            r[TVDS_EL_SF] = o.sf;
            r[TVDS_EL_PP] = o.Pp;
            r[TVDS_EL_PL] = o.Pl;
        } else if (el->kind == TVDS_EL_SPRING) {
            /* A spring pulls a back toward b; its power is k du dv. */
            force[e] = -el->k * du[e];
            r[TVDS_EL_FI] = -force[e];
            r[TVDS_EL_PP] = el->k * du[e] * dv[e];
        } else {
            /* A damper opposes the relative velocity and dissipates b dv^2. */
            force[e] = -el->b * dv[e];
            r[TVDS_EL_FI] = -force[e];
            r[TVDS_EL_PL] = el->b * dv[e] * dv[e];
        }
        if (res)
            for (int k = 0; k < TVDS_EL_NRES; k++)
                res[(size_t)e * TVDS_EL_NRES + k] = r[k];
        off += el_nstate(el);
    }
    return TVDS_OK;
}
