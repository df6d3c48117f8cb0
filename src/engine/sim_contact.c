/* sim_contact.c — contact detection at t_{n+1} (kinematic, deformed or mixed geometry per
 * method), trial stick/slip states and assembly of the B_C / B_E rows (docs/theory.md). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "engine/friction_laws_impl.h"
#include "engine/sim_impl.h"

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void normalize3(double a[3])
{
    double l = sqrt(dot3(a, a));
    if (l > 0.0)
        for (int k = 0; k < 3; k++)
            a[k] /= l;
}

/* Displacement of (sub, dof) from x_prev (which 2), x (0), x_new (1) or the velocities in tmp
 * (3); 0 for dof < 0. */
static double u_of(const tvds_data *d, int sub, int dof, int which)
{
    if (dof < 0) return 0.0;
    return sim_u(d, sub, dof, which);
}

double sim_cp_rel(const tvds_data *d, const sim_cp *c, const double v[3], int which)
{
    double r = 0.0;
    for (int e = 0; e < c->ne; e++)
        r += c->e_w[e] * v[c->e_dir[e]] * u_of(d, c->e_sub[e], c->e_dof[e], which);
    return r;
}

static int kin_defined(const tvds_fn *f)
{
    return !(f->kind == TVDS_FN_CONST && f->amp == 0.0 && f->offset == 0.0);
}

static void add_entry(sim_cp *c, int sub, int dof, int dir, double w)
{
    if (dof < 0 || c->ne >= SIM_ROW_MAX_CP) return;
    c->e_sub[c->ne] = sub;
    c->e_dof[c->ne] = dof;
    c->e_dir[c->ne] = dir;
    c->e_w[c->ne] = w;
    c->ne++;
}

/* Master node k position for the given geometry: undeformed (deformed = 0), X + u*
 * (deformed = 1) or X + u_n (deformed = 2, the penalty law at t_n). */
static void master_pos(const tvds_model *m, const tvds_data *d, int ic, int k, int deformed,
                       double P[2])
{
    const tvds_contact *C = &m->contacts[ic];
    const long *dd = d->mnodes_dofs[ic] + 3 * k;
    const double *X = d->mnodes_X[ic] + 3 * k;
    int which = deformed == 2 ? 0 : 1;
    for (int a = 0; a < 2; a++)
        P[a] = X[a] + (deformed ? u_of(d, C->master_sub, (int)dd[a], which) : 0.0);
}

/* Unit normal and tangents of a rigid master (t1 made orthogonal to n, t2 = n x t1). */
static void rigid_frame(const tvds_contact *C, double n[3], double t[2][3])
{
    double tt[3] = {0, 0, 0};
    n[0] = n[1] = n[2] = 0.0;
    for (int a = 0; a < C->dim; a++) {
        n[a] = C->rigid_normal[a];
        tt[a] = C->rigid_t1[a];
    }
    normalize3(n);
    double tn = dot3(tt, n);
    for (int a = 0; a < 3; a++)
        tt[a] -= tn * n[a];
    normalize3(tt);
    memcpy(t[0], tt, sizeof tt);
    t[1][0] = n[1] * tt[2] - n[2] * tt[1];
    t[1][1] = n[2] * tt[0] - n[0] * tt[2];
    t[1][2] = n[0] * tt[1] - n[1] * tt[0];
}

static double seg_alpha(const double P1[2], const double P2[2], const double Q[2])
{
    double ex = P2[0] - P1[0], ey = P2[1] - P1[1];
    return ((Q[0] - P1[0]) * ex + (Q[1] - P1[1]) * ey) / (ex * ex + ey * ey);
}

/* Follow the slave point Q along the master surface from segment *seg. */
static int surface_search(const tvds_model *m, tvds_data *d, sim_cp *c, int deformed,
                          const double Q[2], double t, tvds_ctx *ctx)
{
    const tvds_contact *C = &m->contacts[c->contact];
    int nseg = C->nmaster - 1;
    double P1[2], P2[2];
    const double eps = 1e-9;
    if (c->seg < 0) {
        /* First search: the segment whose projection is inside and nearest. */
        int best = -1;
        double bestd = INFINITY;
        for (int sg = 0; sg < nseg; sg++) {
            master_pos(m, d, c->contact, sg, deformed, P1);
            master_pos(m, d, c->contact, sg + 1, deformed, P2);
            double a = seg_alpha(P1, P2, Q);
            if (a < -eps || a > 1.0 + eps) continue;
            double px = P1[0] + a * (P2[0] - P1[0]) - Q[0], py = P1[1] + a * (P2[1] - P1[1]) - Q[1];
            double dist = px * px + py * py;
            if (dist < bestd) {
                bestd = dist;
                best = sg;
            }
        }
        if (best < 0)
            return TVDS_ERROR(ctx, TVDS_ERR_CONTACT_LOST,
                              "t = %.9g s, step %ld: contact '%s': slave node %ld at (%g, %g) "
                              "is beyond the ends of the master surface",
                              t, d->step, C->name ? C->name : "?", c->node, Q[0], Q[1]);
        c->seg = best;
    }
    for (int guard = 0; guard <= nseg; guard++) {
        master_pos(m, d, c->contact, c->seg, deformed, P1);
        master_pos(m, d, c->contact, c->seg + 1, deformed, P2);
        double a = seg_alpha(P1, P2, Q);
        if (a < 0.0 && c->seg > 0) {
            c->seg--;
            continue;
        }
        if (a > 1.0 && c->seg < nseg - 1) {
            c->seg++;
            continue;
        }
        if (a < -eps || a > 1.0 + eps) {
            int first = a < 0.0;
            return TVDS_ERROR(ctx, TVDS_ERR_CONTACT_LOST,
                              "t = %.9g s, step %ld: contact '%s': slave node %ld left the "
                              "master surface past its %s node %ld (alpha = %g)",
                              t, d->step, C->name ? C->name : "?", c->node,
                              first ? "first" : "last", C->master_nodes[first ? 0 : nseg], a);
        }
        c->alpha = a < 0.0 ? 0.0 : a > 1.0 ? 1.0 : a;
        return TVDS_OK;
    }
    return TVDS_OK;
}

/* Geometry of one contact point at t_{n+1}. */
static int cp_geometry(const tvds_model *m, tvds_data *d, sim_cp *c, int mode, double t1, double t0,
                       tvds_ctx *ctx)
{
    const tvds_contact *C = &m->contacts[c->contact];
    int dim = C->dim, ss = C->slave_sub;
    double us[3] = {0, 0, 0}, kin1[3] = {0, 0, 0}, kin0[3] = {0, 0, 0};
    c->has_kin = 0;
    for (int a = 0; a < dim; a++) {
        us[a] = u_of(d, ss, c->sdof[a], 1);
        if (mode != 0) continue; /* the prescribed kinematics serve subs-a only */
        kin1[a] = tvds_fn_eval(&C->slave_kin[a], t1);
        kin0[a] = tvds_fn_eval(&C->slave_kin[a], t0);
        if (kin_defined(&C->slave_kin[a])) c->has_kin = 1;
    }
    /* Slave point used for the search: the prescribed kinematics (subs-a) or the predicted
     * deformed position (others). */
    double Q[3];
    for (int a = 0; a < 3; a++)
        Q[a] = c->X[a] + (mode == 0 ? kin1[a] : us[a]);
    c->ne = 0;
    memset(c->dP, 0, sizeof c->dP);
    memset(c->dPc, 0, sizeof c->dPc);
    double Pc[3] = {0, 0, 0}; /* predicted master point */
    double Pm[3] = {0, 0, 0}; /* magnitude of the master positions Pc is made of */
    if (C->master_kind == TVDS_MASTER_RIGID) {
        rigid_frame(C, c->n, c->t);
        double tm1 = t1 - d->h;
        for (int a = 0; a < dim; a++) {
            double p1 = tvds_fn_eval(&C->rigid_motion[a], t1);
            double p0 = tvds_fn_eval(&C->rigid_motion[a], t0);
            double pm = tvds_fn_eval(&C->rigid_motion[a], tm1 - d->h);
            Pc[a] = C->rigid_point[a] + p1;
            c->dP[a] = d->init_mode ? 0.5 * d->h * d->h * tvds_fn_deriv(&C->rigid_motion[a], t0, 2)
                                    : p1 - p0;
            c->dPc[a] = 0.5 * (p1 - pm);
        }
        for (int a = 0; a < dim; a++)
            add_entry(c, ss, c->sdof[a], a, 1.0);
        c->seg = 0;
        c->alpha = 0.0;
        double rq[3];
        for (int a = 0; a < 3; a++)
            rq[a] = Q[a] - Pc[a];
        c->s = dot3(c->t[0], rq);
    } else {
        int stuck = c->state_prev == TVDS_STICK && c->seg >= 0;
        int deformed = mode != 0;
        if (!stuck) {
            if (d->search_global) c->seg = -1;
            int rc = surface_search(m, d, c, deformed, Q, t1, ctx);
            if (rc) return rc;
        }
        double P1[2], P2[2], D1[2], D2[2];
        master_pos(m, d, c->contact, c->seg, 1, D1);
        master_pos(m, d, c->contact, c->seg + 1, 1, D2);
        if (mode == 1) {
            P1[0] = D1[0], P1[1] = D1[1], P2[0] = D2[0], P2[1] = D2[1];
        } else {
            master_pos(m, d, c->contact, c->seg, 0, P1);
            master_pos(m, d, c->contact, c->seg + 1, 0, P2);
        }
        /* gamma: angle of T1 -> T2; t = (cos, sin), n = (-sin, cos). */
        double tx = P2[0] - P1[0], ty = P2[1] - P1[1], L = sqrt(tx * tx + ty * ty);
        c->t[0][0] = tx / L, c->t[0][1] = ty / L, c->t[0][2] = 0.0;
        c->n[0] = -c->t[0][1], c->n[1] = c->t[0][0], c->n[2] = 0.0;
        memset(c->t[1], 0, sizeof c->t[1]);
        double a = c->alpha;
        const long *dd = d->mnodes_dofs[c->contact];
        int ms = C->master_sub, k1 = c->seg, k2 = c->seg + 1;
        for (int q = 0; q < 2; q++) {
            add_entry(c, ss, c->sdof[q], q, 1.0);
            add_entry(c, ms, (int)dd[3 * k1 + q], q, -(1.0 - a));
            add_entry(c, ms, (int)dd[3 * k2 + q], q, -a);
            Pc[q] = (1.0 - a) * D1[q] + a * D2[q];
            Pm[q] = (1.0 - a) * fabs(D1[q]) + a * fabs(D2[q]);
        }
        const double *S = d->mnodes_s[c->contact];
        c->s = S[k1] + a * (S[k2] - S[k1]);
    }
    /* Predicted gap with the actual predicted positions. */
    double g = 0.0, gm = 0.0;
    for (int a = 0; a < dim; a++) {
        g += c->n[a] * (c->X[a] + us[a] - Pc[a]);
        gm += fabs(c->n[a]) * (fabs(c->X[a]) + fabs(us[a]) + fabs(Pc[a]) + Pm[a]);
    }
    c->gap_pred = g;
    c->gap_mag = gm;
    c->g0 = g - sim_cp_rel(d, c, c->n, 1);
    /* Tangential relative velocity used to choose the sliding direction. */
    for (int k = 0; k < c->ntan; k++) {
        double v;
        if (mode == 0 && c->has_kin) {
            v = 0.0;
            for (int a = 0; a < dim; a++)
                v += c->t[k][a] * (kin1[a] - kin0[a] - c->dP[a]);
        } else {
            v = sim_cp_rel(d, c, c->t[k], 1) - sim_cp_rel(d, c, c->t[k], 0) - dot3(c->t[k], c->dP);
        }
        if (d->init_mode && !(mode == 0 && c->has_kin)) {
            /* Start: x_new - x holds only h^2/2 a_0; add the initial relative velocity, so
             * that v is the estimate at t_{1/2}. */
            double vp = 0.0; /* master velocity over the first step (a ramp starting at t_0
                                included) */
            if (C->master_kind == TVDS_MASTER_RIGID)
                for (int a = 0; a < dim; a++)
                    vp += c->t[k][a] *
                          (tvds_fn_eval(&C->rigid_motion[a], t1) -
                           tvds_fn_eval(&C->rigid_motion[a], t0)) /
                          d->h;
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
    int mode = sim_methods[d->method].geometry;
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

void sim_assemble(const tvds_model *m, tvds_data *d)
{
    int nr = 0, np = 0;
    double t1 = d->t0 + (double)(d->step + 1) * d->h;
    for (int b = 0; b < m->nbil; b++) {
        const tvds_bilateral *B = &m->bil[b];
        sim_row *R = &d->row[nr++];
        R->kind = 0;
        R->cp = b;
        R->k = 0;
        R->off = np;
        R->ne = B->nterms;
        double v = d->init_mode ? -0.5 * d->h * d->h * tvds_fn_deriv(&B->value, d->t0, 2)
                                : -tvds_fn_eval(&B->value, t1);
        double mag = fabs(v);
        for (int k = 0; k < B->nterms; k++, np++) {
            const tvds_term *T = &B->terms[k];
            d->p_sub[np] = T->sub;
            d->p_dof[np] = T->dof;
            d->p_cand[np] = d->cand_base[T->sub] + d->sub[T->sub].cand[T->dof];
            d->p_bc[np] = d->p_be[np] = T->coef;
            double up = T->coef * sim_u(d, T->sub, T->dof, 1);
            v += up;
            mag += fabs(up);
            if (d->init_mode) {
                double u0 = T->coef * sim_u(d, T->sub, T->dof, 0);
                v -= u0;
                mag += fabs(u0);
            }
        }
        R->rhs = v;
        R->rhs_mag = mag;
    }
    /* Stick rows of the rigid stick-slip elements: du_{n+1} - du_n = 0 (B_E = B_C). */
    for (int e = 0; e < m->nel && d->nrig > 0; e++) {
        if (!d->rig_row[e]) continue;
        const tvds_element *E = &m->elements[e];
        sim_row *R = &d->row[nr++];
        R->kind = 3;
        R->cp = e;
        R->k = 0;
        R->off = np;
        R->ne = 0;
        double v = 0.0, mag = 0.0;
        for (int k = 0; k < 2; k++, np++, R->ne++) {
            if (k == 1 && E->sub[1] < 0) break;
            int sb = E->sub[k], df = E->dof[k];
            double coef = k == 0 ? 1.0 : -1.0;
            d->p_sub[np] = sb;
            d->p_dof[np] = df;
            d->p_cand[np] = d->cand_base[sb] + d->sub[sb].cand[df];
            d->p_bc[np] = d->p_be[np] = coef;
            double u1 = sim_u(d, sb, df, 1), u0 = sim_u(d, sb, df, 0);
            v += coef * (u1 - u0);
            mag += fabs(u1) + fabs(u0);
        }
        R->rhs = v;
        R->rhs_mag = mag;
    }
    for (int i = 0; i < d->ncp; i++) {
        sim_cp *c = &d->cp[i];
        c->row_n = c->row_t[0] = c->row_t[1] = -1;
        if (c->state == TVDS_OPEN || c->pen) continue;
        /* Normal row: B_C = n (relative), B_E = n - sum_k mu_k s_k t_k on slipping axes. */
        double be[3];
        for (int a = 0; a < 3; a++) {
            be[a] = c->n[a];
            for (int k = 0; k < c->ntan; k++)
                if (!c->tstick[k]) be[a] -= c->mu_t[k] * c->sdir[k] * c->t[k][a];
        }
        for (int r = -1; r < c->ntan; r++) {
            if (r >= 0 && !c->tstick[r]) continue;
            sim_row *R = &d->row[nr];
            const double *bc = r < 0 ? c->n : c->t[r];
            const double *bev = r < 0 ? be : c->t[r];
            R->kind = r < 0 ? 1 : 2;
            R->cp = i;
            R->k = r < 0 ? 0 : r;
            R->off = np;
            R->ne = c->ne;
            for (int e = 0; e < c->ne; e++, np++) {
                int sb = c->e_sub[e], df = c->e_dof[e], dir = c->e_dir[e];
                d->p_sub[np] = sb;
                d->p_dof[np] = df;
                d->p_cand[np] = d->cand_base[sb] + d->sub[sb].cand[df];
                d->p_bc[np] = c->e_w[e] * bc[dir];
                d->p_be[np] = c->e_w[e] * bev[dir];
            }
            if (r < 0) {
                R->rhs = c->gap_pred;
                /* The gap is a difference of positions X + u. */
                R->rhs_mag = fabs(c->gap_pred) + sqrt(dot3(c->X, c->X)) +
                             fabs(sim_cp_rel(d, c, c->n, 1)) + fabs(c->g0);
                c->row_n = nr;
            } else {
                /* Stick: no relative tangential motion from t_n to t_{n+1}. */
                double r1 = sim_cp_rel(d, c, c->t[r], 1), r0 = sim_cp_rel(d, c, c->t[r], 0);
                double dp = dot3(c->t[r], c->dP);
                R->rhs = r1 - r0 - dp;
                R->rhs_mag = fabs(r1) + fabs(r0) + fabs(dp);
                c->row_t[r] = nr;
            }
            nr++;
        }
    }
    d->nrow = nr;
    d->pool_n = np;
}

/* ---- Penalty law --------------------------------------------------------------------------- */

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
            rigid_frame(C, c->n, c->t);
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
                add_entry(c, C->slave_sub, c->sdof[a], a, 1.0);
            }
            c->seg = 0;
            c->alpha = 0.0;
            c->s = dot3(c->t[0], rel_u);
            for (int k = 0; k < c->ntan; k++)
                kin.ut[k] = dot3(c->t[k], rel_u);
        } else {
            double Q[3] = {c->X[0] + u[0], c->X[1] + u[1], 0.0};
            int rc = surface_search(m, d, c, 2, Q, t, ctx);
            if (rc) return rc;
            double P1[2], P2[2];
            master_pos(m, d, c->contact, c->seg, 2, P1);
            master_pos(m, d, c->contact, c->seg + 1, 2, P2);
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
                add_entry(c, C->slave_sub, c->sdof[q], q, 1.0);
                add_entry(c, C->master_sub, d1, q, -(1.0 - a));
                add_entry(c, C->master_sub, d2, q, -a);
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
