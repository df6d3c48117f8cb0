/* sim_elements.c — the rigid stick-slip ElasticFriction element in the time step: a stick row
 * (kind 3, B_E = B_C) while sticking, an explicit sliding force otherwise (docs/theory.md 8.2,
 * protocol of src/engine/friction_laws_impl.h). */
#include <math.h>

#include "engine/elements_impl.h"
#include "engine/friction_laws_impl.h"
#include "engine/sim_impl.h"

/* Offset of element e in the element state array (elements.c: ElasticFriction
 * TVDS_EF_NSTATE doubles, springs and dampers 1). */
static size_t el_off(const tvds_model *m, int e)
{
    size_t off = 0;
    for (int k = 0; k < e; k++)
        off += m->elements[k].kind == TVDS_EL_ELASTIC_FRICTION ? TVDS_EF_NSTATE : 1;
    return off;
}

/* Relative displacement u_a - u_b of element E in state buffer which (0: x, 1: x_new). */
static double el_du(const tvds_data *d, const tvds_element *E, int which)
{
    double du = sim_u(d, E->sub[0], E->dof[0], which);
    if (E->sub[1] >= 0) du -= sim_u(d, E->sub[1], E->dof[1], which);
    return du;
}

/* Force F on physical DoF dof: into the coordinate force vector fel and, when move, into
 * x_new (x_new += h^2 F Y(:,dof), the explicit update of that force). */
static void push_force(tvds_data *d, int sub, int dof, double F, int move)
{
    sim_sub *s = &d->sub[sub];
    double c = d->h * d->h * F;
    const double *y = s->Y + (size_t)dof * s->n, *yx = s->Yx + (size_t)dof * s->n;
    if (s->modal) {
        for (int k = 0; k < s->n; k++)
            s->fel[k] += F * y[k];
    } else {
        s->fel[dof] += F;
    }
    if (move && s->lumped)
        s->x_new[dof] += c * s->minv[dof];
    else if (move)
        for (int k = 0; k < s->n; k++)
            s->x_new[k] += c * yx[k];
}

/* The element's internal force changes by dFi: DoF a receives -dFi, DoF b +dFi. */
static void push_el(tvds_data *d, const tvds_element *E, double dFi, int move)
{
    if (dFi == 0.0) return;
    push_force(d, E->sub[0], E->dof[0], -dFi, move);
    if (E->sub[1] >= 0) push_force(d, E->sub[1], E->dof[1], dFi, move);
}

void sim_rigid_begin(const tvds_model *m, tvds_data *d)
{
    if (d->nrig == 0) return;
    double h = d->h, t1 = d->t0 + (double)(d->step + 1) * h;
    int moved = 0;
    for (int e = 0; e < m->nel; e++) {
        const tvds_element *E = &m->elements[e];
        d->rig_row[e] = 0;
        if (!sim_rigid_el(E)) continue;
        double *buf = d->el_state + el_off(m, e);
        tvds_ef_state st;
        tvds_ef_state_unpack(buf, &st);
        double Fpred = -d->el_f[e]; /* the force of t_n the predictor applied */
        double dv_pred = (el_du(d, E, 1) - el_du(d, E, 0)) / h;
        /* dv_pred is the rate with the element applying st.Fi (= Fpred). */
        tvds_ef_rigid_request req;
        tvds_ef_rigid_begin(E, &st, t1, dv_pred, &req);
        tvds_ef_state_pack(&st, buf);
        d->rig_row[e] = req.stick_row;
        d->rig_lam[e] = 0.0;
        if (req.stick_row) {
            d->rig_fapp[e] = Fpred;
        } else {
            if (req.Fi != Fpred) moved = 1;
            push_el(d, E, req.Fi - Fpred, 1);
            d->rig_fapp[e] = req.Fi;
        }
    }
    if (moved) sim_touch(d, 1);
}

/* Index of the stick row of element e, or -1. */
static int el_row(const tvds_data *d, int e)
{
    for (int r = 0; r < d->nrow; r++)
        if (d->row[r].kind == 3 && d->row[r].cp == e) return r;
    return -1;
}

int sim_rigid_check(const tvds_model *m, tvds_data *d)
{
    if (d->nrig == 0) return 0;
    double h = d->h, t1 = d->t0 + (double)(d->step + 1) * h;
    int moved = 0;
    for (int e = 0; e < m->nel; e++) {
        if (!d->rig_row[e]) continue;
        const tvds_element *E = &m->elements[e];
        int r = el_row(d, e);
        double lam = r >= 0 ? d->lam[r] : 0.0;
        d->rig_lam[e] = lam;
        /* Internal force held by the row: the predictor's force plus the multiplier (the row
         * pushes DoF a with -lambda, as the element does with -Fi). */
        double Fi = d->rig_fapp[e] + lam;
        double Fst, Fsl;
        tvds_ef_forces(E, t1, &Fst, &Fsl);
        if (fabs(Fi) <= Fst || fabs(Fi) * h <= E->eps_dI) continue; /* sticks (final: end) */
        /* Release: slide the way the held force pulls, without the row. */
        double *buf = d->el_state + el_off(m, e);
        tvds_ef_state st;
        tvds_ef_out o;
        int redo = 0;
        tvds_ef_state_unpack(buf, &st);
        tvds_ef_rigid_end(E, &st, t1, Fi, 0.0, h, &o, &redo);
        tvds_ef_state_pack(&st, buf);
        d->rig_row[e] = 0;
        d->rig_lam[e] = 0.0;
        push_el(d, E, st.Fi - d->rig_fapp[e], 1);
        d->rig_fapp[e] = st.Fi;
        moved = 1;
    }
    if (moved) sim_touch(d, 1);
    return moved;
}

void sim_rigid_end(const tvds_model *m, tvds_data *d)
{
    if (d->nrig == 0) return;
    double h = d->h, t1 = d->t0 + (double)(d->step + 1) * h;
    for (int e = 0; e < m->nel; e++) {
        const tvds_element *E = &m->elements[e];
        if (!sim_rigid_el(E)) continue;
        double *buf = d->el_state + el_off(m, e);
        tvds_ef_state st;
        tvds_ef_out o;
        int redo = 0;
        tvds_ef_state_unpack(buf, &st);
        if (d->rig_row[e]) {
            /* Held: the multiplier is the element force; its work enters fel (the
             * correction already moved x_new). */
            tvds_ef_rigid_end(E, &st, t1, d->rig_fapp[e] + d->rig_lam[e], 0.0, h, &o, &redo);
            push_el(d, E, d->rig_lam[e], 0);
        } else {
            double dv = (el_du(d, E, 1) - el_du(d, E, 0)) / h;
            tvds_ef_rigid_end(E, &st, t1, 0.0, dv, h, &o, &redo);
        }
        tvds_ef_state_pack(&st, buf);
        d->rig_row[e] = 0;
        double *r = d->el_res + (size_t)e * TVDS_EL_NRES;
        r[TVDS_EL_FI] = o.Fi;
        r[TVDS_EL_SF] = o.sf;
        r[TVDS_EL_PP] = 0.0;
        r[TVDS_EL_PL] = o.Pl;
    }
}
