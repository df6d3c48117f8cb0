/* sim_contact.c — the detect phase: contact geometry at t_{n+1} (kinematic, deformed or mixed
 * per method) and trial stick/slip states (docs/theory.md). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "engine/contact/master.h"
#include "engine/sim_impl.h"

/* Displacement of (sub, dof) from x_prev (which 2), x (0), x_new (1) or the velocities in tmp
 * (3); 0 for dof < 0. */
static double u_of(const tvds_data *d, int sub, int dof, int which)
{
    if (dof < 0) return 0.0;
    return sim_u(d, sub, dof, which);
}

static int kin_defined(const tvds_fn *f)
{
    return !(f->kind == TVDS_FN_CONST && f->amp == 0.0 && f->offset == 0.0);
}

/* Entries of rel(u) = u_C - (1 - alpha) u_T1 - alpha u_T2 of a point on a 2D segment master (as
 * the kind's weights give them), with their displacements in x_new already known: the slave's
 * us and the segment nodes' u1, u2 (the values sim_u returns for this version of x_new). */
static void seg2d_entries(const tvds_model *m, tvds_data *d, sim_cp *c, const double us[3],
                          const double u1[2], const double u2[2])
{
    const tvds_contact *C = &m->contacts[c->contact];
    const long *dd = d->mnodes_dofs[c->contact];
    int ss = C->slave_sub, ms = C->master_sub, k1 = c->seg, k2 = c->seg + 1;
    double N1 = 1.0 - c->alpha, N2 = c->alpha;
    if (c->e_seg2d == c->seg && c->ne == 6 && !d->check.reuse_off) {
        /* Still on the segment of the last build: the same DoFs, new weights. */
        c->e_w[1] = c->e_w[4] = -N1;
        c->e_w[2] = c->e_w[5] = -N2;
        for (int q = 0; q < 2; q++) {
            c->e_u[1][3 * q] = us[q];
            c->e_u[1][3 * q + 1] = u1[q];
            c->e_u[1][3 * q + 2] = u2[q];
        }
        sim_cp_stamp(d, c, 1);
        return;
    }
    c->ne = 0;
    int full = 1;
    for (int q = 0; q < 2; q++) {
        int n0 = c->ne;
        sim_cp_add_entry(c, ss, c->sdof[q], q, 1.0);
        sim_cp_add_entry(c, ms, (int)dd[3 * k1 + q], q, -N1);
        sim_cp_add_entry(c, ms, (int)dd[3 * k2 + q], q, -N2);
        if (c->ne - n0 != 3) {
            full = 0;
            continue;
        }
        c->e_u[1][n0] = us[q];
        c->e_u[1][n0 + 1] = u1[q];
        c->e_u[1][n0 + 2] = u2[q];
    }
    if (full) sim_cp_stamp(d, c, 1);
    c->e_seg2d = full && c->ne == 6 ? c->seg : -1;
}

/* Geometry of one contact point at t_{n+1}. */
static int cp_geometry(const tvds_model *m, tvds_data *d, sim_cp *c, int mode, double t1, double t0,
                       tvds_ctx *ctx)
{
    const tvds_contact *C = &m->contacts[c->contact];
    int dim = C->dim, ss = C->slave_sub;
    double us[3] = {0, 0, 0}, kin1[3] = {0, 0, 0}, kin0[3] = {0, 0, 0};
    sim_cp_promote(d, c); /* before the entries' x_new displacements are replaced */
    c->has_kin = 0;
    int two = dim == 2 && c->sdof[0] >= 0 && c->sdof[1] >= 0;
    if (two) sim_u2(d, ss, c->sdof[0], c->sdof[1], 1, us); /* one pass for both */
    for (int a = 0; a < dim; a++) {
        if (!two) us[a] = u_of(d, ss, c->sdof[a], 1);
        if (mode != 0) continue; /* the prescribed kinematics serve subs-a only */
        kin1[a] = tvds_fn_eval_hint(&C->slave_kin[a], t1, &c->kin_hint[0][a]);
        kin0[a] = tvds_fn_eval_hint(&C->slave_kin[a], t0, &c->kin_hint[1][a]);
        if (kin_defined(&C->slave_kin[a])) c->has_kin = 1;
    }
    /* Slave point used for the search: the prescribed kinematics (subs-a) or the predicted
     * deformed position (others). */
    double Q[3];
    for (int a = 0; a < 3; a++)
        Q[a] = c->X[a] + (mode == 0 ? kin1[a] : us[a]);
    /* The master point: closest point to Q (searched in the geometry of the method; kept while
     * stuck), its frame (predicted or undeformed direction), its predicted position. */
    const sim_master_type *M = sim_master_of(m, c);
    int keep = c->state_prev == TVDS_STICK && c->seg >= 0;
    if (d->check.search_global && !keep) c->seg = -1;
    double Pc[3], Pm[3]; /* predicted master point, magnitude of the positions it is made of */
    int conf_s = mode != 0 ? SIM_CONF_PREDICTED : SIM_CONF_UNDEFORMED;
    int conf_f = mode == 1 ? SIM_CONF_PREDICTED : SIM_CONF_UNDEFORMED;
    int seg2d = C->master_kind == TVDS_MASTER_SURFACE && !d->check.geometry_table;
    if (seg2d) {
        /* A deformable segment master: its own one-call geometry (same values), and the
         * entries of rel(u) with their predicted displacements, which it has read. */
        double u1[2], u2[2];
        int rc = sim_seg2d_geometry(m, d, c, conf_s, conf_f, Q, t1, keep, Pc, Pm, u1, u2, ctx);
        if (rc) return rc;
        seg2d_entries(m, d, c, us, u1, u2);
    } else {
        int rc = M->closest(m, d, c, conf_s, Q, t1, keep, ctx);
        if (rc) return rc;
        M->frame(m, d, c, conf_f);
        M->point(m, d, c, SIM_CONF_PREDICTED, t1, Pc, Pm);
    }
    /* Prescribed motion of the master point: increment over the step (at the start, h^2/2 times
     * the acceleration at t_0) and central increment (t_{n+1} - t_{n-1}) / 2. */
    double p1[3] = {0, 0, 0}, p0[3] = {0, 0, 0};
    memset(c->dP, 0, sizeof c->dP);
    memset(c->dPc, 0, sizeof c->dPc);
    if (M->prescribed) {
        double pm[3], a0[3];
        M->motion(m, c, t1, 0, p1);
        M->motion(m, c, t0, 0, p0);
        M->motion(m, c, t1 - d->h - d->h, 0, pm);
        if (d->init_mode) M->motion(m, c, t0, 2, a0);
        for (int a = 0; a < dim; a++) {
            c->dP[a] = d->init_mode ? 0.5 * d->h * d->h * a0[a] : p1[a] - p0[a];
            c->dPc[a] = 0.5 * (p1[a] - pm[a]);
        }
    }
    /* Entries of rel(u) = u_C - sum_k N_k u_k per direction. */
    if (!seg2d) {
        int node[SIM_MASTER_MAX_NODES];
        double N[SIM_MASTER_MAX_NODES];
        int nw = M->weights(m, d, c, node, N);
        const long *dd = d->mnodes_dofs[c->contact];
        double R[9];
        if (M->node_frame) M->node_frame(m, c, R);
        c->ne = 0;
        c->e_seg2d = -1;
        for (int q = 0; q < dim; q++) {
            sim_cp_add_entry(c, ss, c->sdof[q], q, 1.0);
            for (int k = 0; k < nw; k++) {
                const long *nd = dd + 3 * node[k];
                if (!M->node_frame) {
                    sim_cp_add_entry(c, C->master_sub, (int)nd[q], q, -N[k]);
                    continue;
                }
                /* A turning master: its DoFs are in its own frame, R turns them to this one. */
                for (int j = 0; j < 3; j++)
                    if (R[3 * q + j] != 0.0)
                        sim_cp_add_entry(c, C->master_sub, (int)nd[j], q, -N[k] * R[3 * q + j]);
            }
        }
    }
    /* Predicted gap with the actual predicted positions. */
    double g = 0.0, gm = 0.0;
    for (int a = 0; a < dim; a++) {
        g += c->n[a] * (c->X[a] + us[a] - Pc[a]);
        gm += fabs(c->n[a]) * (fabs(c->X[a]) + fabs(us[a]) + fabs(Pc[a]) + Pm[a]);
    }
    c->gap_pred = g;
    c->gap_mag = gm;
    c->rel_n = sim_cp_rel(d, c, c->n, 1);
    c->g0 = g - c->rel_n;
    /* Tangential relative velocity used to choose the sliding direction: from the relative
     * displacements (the common case) only for a point that is not open, when it is needed
     * (sim_cp_vkin: detection below, or the solve activating an open point). */
    c->vkin_ok = d->init_mode || (mode == 0 && c->has_kin);
    for (int k = 0; k < c->ntan && c->vkin_ok; k++) {
        double v;
        if (mode == 0 && c->has_kin) {
            v = 0.0;
            for (int a = 0; a < dim; a++)
                v += c->t[k][a] * (kin1[a] - kin0[a] - c->dP[a]);
        } else {
            v = sim_cp_rel(d, c, c->t[k], 1) - sim_cp_rel(d, c, c->t[k], 0) -
                sim_dot3(c->t[k], c->dP);
        }
        if (d->init_mode && !(mode == 0 && c->has_kin)) {
            /* Start: x_new - x holds only h^2/2 a_0; add the initial relative velocity, so
             * that v is the estimate at t_{1/2}. */
            double vp = 0.0; /* master velocity over the first step (a ramp starting at t_0
                                included) */
            if (M->prescribed)
                for (int a = 0; a < dim; a++)
                    vp += c->t[k][a] * (p1[a] - p0[a]) / d->h;
            v += d->h * (sim_cp_rel(d, c, c->t[k], 3) - vp);
        }
        c->vkin[k] = v / d->h;
    }
    return TVDS_OK;
}

/* Friction coefficients of a contact along tangent k: static and kinetic. */
static void mu_of(const tvds_contact *C, int k, double *mus, double *muk)
{
    if (C->anisotropic) {
        *mus = *muk = C->mu_axis[k];
    } else {
        *mus = C->mu_s;
        *muk = C->mu_k;
    }
}

int sim_detect(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
    int mode = d->geometry;
    /* FiLm tries stick first, except at the start (tvds_data_create), where the trial states
     * follow the initial relative velocity and the direct solve is used. */
    int film = d->method == TVDS_METHOD_FILM && !d->init_mode;
    double t0 = d->t0 + (double)d->step * d->h, t1 = t0 + d->h;
    for (int i = 0; i < d->ncp; i++) {
        sim_cp *c = &d->cp[i];
        const tvds_contact *C = &m->contacts[c->contact];
        if (c->pen) continue; /* explicit force at t_n (sim_penalty_forces) */
        int rc = cp_geometry(m, d, c, mode, t1, t0, ctx);
        if (rc) return rc;
        c->tstick[0] = c->tstick[1] = 0;
        c->sdir[0] = c->sdir[1] = 0.0;
        c->mu_t[0] = c->mu_t[1] = 0.0;
        /* FiLm decides the active set inside its projected iteration, so a point enters it
         * unless it is predicted open beyond round-off: the predicted gap of a point resting
         * on a master that is itself corrected by constraints (a blocked substructure under
         * gravity falls with the slave in the prediction) is a difference of positions at
         * round-off level, whose sign says nothing. The direct solve catches that case by
         * its check of the corrected gaps of open points. */
        double gtol = film ? 64.0 * DBL_EPSILON * c->gap_mag : 0.0;
        if (c->gap_pred > gtol) {
            c->state = TVDS_OPEN;
            continue;
        }
        sim_cp_vkin(d, c);
        double vmag = 0.0;
        for (int k = 0; k < c->ntan; k++)
            vmag += c->vkin[k] * c->vkin[k];
        vmag = sqrt(vmag);
        double vst = C->v_stick > 0.0 ? C->v_stick : m->opt.v_stick;
        int stick_ok = C->exact_stick || c->state_prev == TVDS_STICK;
        int any_stick = 0;
        for (int k = 0; k < c->ntan; k++) {
            double mus, muk;
            mu_of(C, k, &mus, &muk);
            if (mus <= 0.0 && muk <= 0.0) continue; /* frictionless along this axis */
            double vk = C->anisotropic ? fabs(c->vkin[k]) : vmag;
            if (film || (stick_ok && (c->state_prev == TVDS_STICK || vk < vst))) {
                c->tstick[k] = 1;
                any_stick = 1;
            } else if (vk > 0.0) {
                c->sdir[k] = C->anisotropic ? (c->vkin[k] > 0.0 ? 1.0 : -1.0) : c->vkin[k] / vmag;
                c->mu_t[k] = muk;
            }
        }
        c->state = any_stick ? TVDS_STICK : TVDS_SLIP;
    }
    return TVDS_OK;
}
