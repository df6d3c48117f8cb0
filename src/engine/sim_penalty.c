/* sim_penalty.c — penalty contact points at t_n: geometry from x, kinematics from the
 * coordinate velocities, one step of the penalty law each (docs/theory.md 8.1). */
#include <math.h>
#include <string.h>

#include "engine/friction_laws_impl.h"
#include "engine/sim_impl.h"

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

int sim_penalty_forces(const tvds_model *m, tvds_data *d, double t, tvds_ctx *ctx)
{
    double h = d->h;
    for (int i = 0; i < d->ncp; i++) {
        sim_cp *c = &d->cp[i];
        if (!c->pen || d->law_cached) continue;
        const tvds_contact *C = &m->contacts[c->contact];
        const sim_sub *ss = &d->sub[C->slave_sub];
        int dim = C->dim;
        double u[3] = {0, 0, 0}, v[3] = {0, 0, 0}, rel_u[3] = {0, 0, 0}, rel_v[3] = {0, 0, 0};
        for (int a = 0; a < dim; a++)
            if (c->sdof[a] >= 0) {
                u[a] = sim_u(d, C->slave_sub, c->sdof[a], 0);
                v[a] = sim_phys(ss, ss->tmp, c->sdof[a]);
            }
        tvds_pen_kin kin = {0.0, 0.0, {0.0, 0.0}, {0.0, 0.0}};
        double g = 0.0;
        c->ne = 0;
        if (C->master_kind == TVDS_MASTER_RIGID) {
            sim_rigid_frame(C, c->n, c->t);
            double P[3] = {0, 0, 0}, Pd[3] = {0, 0, 0};
            for (int a = 0; a < dim; a++) {
                double p = tvds_fn_eval(&C->rigid_motion[a], t);
                P[a] = C->rigid_point[a] + p;
                /* Master velocity consistent with the slave's: the exact derivative at t_0
                 * (v_0), the backward difference afterwards. */
                Pd[a] = d->law_init ? tvds_fn_deriv(&C->rigid_motion[a], t, 1)
                                    : (p - tvds_fn_eval(&C->rigid_motion[a], t - h)) / h;
                rel_u[a] = c->X[a] + u[a] - P[a];
                rel_v[a] = v[a] - Pd[a];
                sim_cp_add_entry(c, C->slave_sub, c->sdof[a], a, 1.0);
            }
            c->seg = 0;
            c->alpha = 0.0;
            c->s = dot3(c->t[0], rel_u);
            for (int k = 0; k < c->ntan; k++)
                kin.ut[k] = dot3(c->t[k], rel_u);
        } else {
            double Q[3] = {c->X[0] + u[0], c->X[1] + u[1], 0.0};
            int rc = sim_surface_search(m, d, c, 2, Q, t, ctx);
            if (rc) return rc;
            double P1[2], P2[2];
            sim_master_pos(m, d, c->contact, c->seg, 2, P1);
            sim_master_pos(m, d, c->contact, c->seg + 1, 2, P2);
            double tx = P2[0] - P1[0], ty = P2[1] - P1[1], L = sqrt(tx * tx + ty * ty);
            c->t[0][0] = tx / L, c->t[0][1] = ty / L, c->t[0][2] = 0.0;
            c->n[0] = -c->t[0][1], c->n[1] = c->t[0][0], c->n[2] = 0.0;
            memset(c->t[1], 0, sizeof c->t[1]);
            double a = c->alpha;
            const long *dd = d->mnodes_dofs[c->contact];
            const sim_sub *ms = &d->sub[C->master_sub];
            int k1 = c->seg, k2 = c->seg + 1;
            for (int q = 0; q < 2; q++) {
                int d1 = (int)dd[3 * k1 + q], d2 = (int)dd[3 * k2 + q];
                double v1 = d1 >= 0 ? sim_phys(ms, ms->tmp, d1) : 0.0;
                double v2 = d2 >= 0 ? sim_phys(ms, ms->tmp, d2) : 0.0;
                rel_u[q] = Q[q] - ((1.0 - a) * P1[q] + a * P2[q]);
                rel_v[q] = v[q] - (1.0 - a) * v1 - a * v2;
                sim_cp_add_entry(c, C->slave_sub, c->sdof[q], q, 1.0);
                sim_cp_add_entry(c, C->master_sub, d1, q, -(1.0 - a));
                sim_cp_add_entry(c, C->master_sub, d2, q, -a);
            }
            const double *S = d->mnodes_s[c->contact];
            /* Relative tangential displacement: the material position of the slave along the
             * master (undeformed arc length). */
            c->s = S[k1] + a * (S[k2] - S[k1]);
            kin.ut[0] = c->s;
        }
        g = dot3(c->n, rel_u);
        kin.dn = -g;
        kin.vn = -dot3(c->n, rel_v);
        for (int k = 0; k < c->ntan; k++)
            kin.vt[k] = dot3(c->t[k], rel_v);
        double *st = d->pen_state + (size_t)TVDS_PEN_NSTATE * i;
        if (d->law_init) {
            tvds_pen_state s0;
            tvds_pen_init(C, kin.dn, kin.ut, &s0);
            tvds_pen_state_pack(&s0, st);
        }
        tvds_pen_out o;
        tvds_pen_step_packed(C, st, &kin, h, &o);
        for (int a = 0; a < 3; a++) {
            c->pen_F[a] = o.FN * c->n[a];
            for (int k = 0; k < c->ntan; k++)
                c->pen_F[a] += o.Ft[k] * c->t[k][a];
        }
        c->state = o.state;
        c->lam_n = o.FN;
        c->ft[0] = o.Ft[0];
        c->ft[1] = o.Ft[1];
        c->vt[0] = kin.vt[0];
        c->vt[1] = kin.vt[1];
        c->p_fric = o.p_fric;
        c->p_wear = o.p_wear;
        c->gap = -(C->pen0 + kin.dn);
        c->gap_pred = c->gap;
    }
    return TVDS_OK;
}
