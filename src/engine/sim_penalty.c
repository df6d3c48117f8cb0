/* sim_penalty.c — penalty contact points at t_n: geometry from x, kinematics from the
 * coordinate velocities, one step of the penalty law each (docs/theory.md 8.1). */
#include "engine/contact/master.h"
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
        /* The master point closest to the slave in the current configuration, its frame,
         * position, prescribed velocity (the exact derivative at t_0, consistent with v_0; the
         * backward difference afterwards, as the slave's) and the velocities of its nodes. */
        const sim_master_type *M = sim_master_of(m, c);
        double Q[3] = {0, 0, 0}, P[3], Pm[3], Pd[3] = {0, 0, 0};
        for (int a = 0; a < dim; a++)
            Q[a] = c->X[a] + u[a];
        int rc = M->closest(m, d, c, SIM_CONF_CURRENT, Q, t, 0, ctx);
        if (rc) return rc;
        M->frame(m, d, c, SIM_CONF_CURRENT);
        M->point(m, d, c, SIM_CONF_CURRENT, t, P, Pm);
        if (M->prescribed) {
            if (d->law_init) {
                M->motion(m, c, t, 1, Pd);
            } else {
                double p[3], pp[3];
                M->motion(m, c, t, 0, p);
                M->motion(m, c, t - h, 0, pp);
                for (int a = 0; a < dim; a++)
                    Pd[a] = (p[a] - pp[a]) / h;
            }
        }
        int node[SIM_MASTER_MAX_NODES];
        double N[SIM_MASTER_MAX_NODES];
        int nw = M->weights(m, d, c, node, N);
        const long *dd = d->mnodes_dofs[c->contact];
        const sim_sub *ms = nw > 0 ? &d->sub[C->master_sub] : NULL;
        c->ne = 0;
        c->e_seg2d = -1;
        for (int q = 0; q < dim; q++) {
            rel_u[q] = Q[q] - P[q];
            rel_v[q] = v[q] - Pd[q];
            sim_cp_add_entry(c, C->slave_sub, c->sdof[q], q, 1.0);
            for (int k = 0; k < nw; k++) {
                int dk = (int)dd[3 * node[k] + q];
                rel_v[q] -= N[k] * (dk >= 0 ? sim_phys(ms, ms->tmp, dk) : 0.0);
                sim_cp_add_entry(c, C->master_sub, dk, q, -N[k]);
            }
        }
        /* Relative tangential displacement: the slave's coordinate along the master, then the
         * components of rel(u) along the further tangents. */
        kin.ut[0] = c->s;
        for (int k = 1; k < c->ntan; k++)
            kin.ut[k] = dot3(c->t[k], rel_u);
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
