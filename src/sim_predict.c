/* sim_predict.c — forces at t_n, the central-difference predictor (diagonal in modal
 * coordinates, dense M^-1 in physical ones), the constraint corrector and the initial state. */
#include <cblas.h>
#include <math.h>

#include "elements_impl.h"
#include "sim_impl.h"

/* Add a force F on physical DoF dof to a coordinate force vector. */
static void add_force(const sim_sub *s, int dof, double F, double *v)
{
    if (!s->modal) {
        v[dof] += F;
        return;
    }
    const double *y = s->Y + (size_t)dof * s->n;
    for (int i = 0; i < s->n; i++)
        v[i] += F * y[i];
}

/* fext and fel at time t from coordinates x and coordinate velocities vel (vel stored in
 * each sub's tmp), fdamp = C vel. Element forces are asked once per call (once per step;
 * tvds_data_create asks once more for the initial acceleration at t_0). */
static int forces(const tvds_model *m, tvds_data *d, double t, tvds_ctx *ctx)
{
    double gs = tvds_fn_eval(&m->gravity_fn, t);
    double ba = m->has_base_acc ? tvds_fn_eval(&m->base_acc, t) : 0.0;
    for (int i = 0; i < d->nsub; i++) {
        sim_sub *s = &d->sub[i];
        const tvds_substructure *S = m->subs[i];
        int n = s->n;
        for (int k = 0; k < n; k++) {
            s->fext[k] = gs * s->fgrav[k] + ba * s->fbase[k];
            s->fel[k] = 0.0;
        }
        /* Damping force C v in coordinates. */
        const double *v = s->tmp;
        if (s->damp_kind == TVDS_DAMP_NONE) {
            for (int k = 0; k < n; k++)
                s->fdamp[k] = 0.0;
        } else if (s->modal) {
            double a, b;
            tvds_damping_at(&m->damping[i], t, &a, &b);
            for (int k = 0; k < n; k++)
                s->fdamp[k] = (a + b * s->w2[k]) * v[k];
        } else {
            double a = 0.0, b = 0.0;
            int mat = s->damp_kind == TVDS_DAMP_MATRIX;
            if (!mat) tvds_damping_at(&m->damping[i], t, &a, &b);
            if (mat) {
                cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, 1.0, S->C, n, v, 1, 0.0, s->fdamp,
                            1);
            } else {
                cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, a, S->M, n, v, 1, 0.0, s->fdamp, 1);
                cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, b, S->K, n, v, 1, 1.0, s->fdamp, 1);
            }
        }
    }
    for (int l = 0; l < m->nload; l++) {
        const tvds_load *L = &m->loads[l];
        if (L->sub < 0 || L->sub >= d->nsub || L->dof < 0 || L->dof >= d->sub[L->sub].n)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "load '%s': bad DoF", L->name ? L->name : "?");
        add_force(&d->sub[L->sub], L->dof, tvds_fn_eval(&L->fn, t), d->sub[L->sub].fext);
    }
    if (m->nel > 0) {
        for (int e = 0; e < m->nel; e++) {
            const tvds_element *E = &m->elements[e];
            const sim_sub *a = &d->sub[E->sub[0]];
            double du = sim_phys(a, a->x, E->dof[0]), dv = sim_phys(a, a->tmp, E->dof[0]);
            if (E->sub[1] >= 0) {
                const sim_sub *b = &d->sub[E->sub[1]];
                du -= sim_phys(b, b->x, E->dof[1]);
                dv -= sim_phys(b, b->tmp, E->dof[1]);
            }
            d->el_du[e] = du;
            d->el_dv[e] = dv;
        }
        int rc = tvds_elements_force(m, t, d->h, d->el_du, d->el_dv, d->el_state, d->el_f, ctx);
        if (rc) return rc;
        for (int e = 0; e < m->nel; e++) {
            const tvds_element *E = &m->elements[e];
            add_force(&d->sub[E->sub[0]], E->dof[0], d->el_f[e], d->sub[E->sub[0]].fel);
            if (E->sub[1] >= 0)
                add_force(&d->sub[E->sub[1]], E->dof[1], -d->el_f[e], d->sub[E->sub[1]].fel);
        }
    }
    return TVDS_OK;
}

/* acc = M^-1 (fext + fel - fdamp - K x) in coordinates (into acc). */
static void accel(const tvds_model *m, const sim_sub *s, int i, double *acc)
{
    int n = s->n;
    if (s->modal) {
        for (int k = 0; k < n; k++)
            acc[k] = s->fext[k] + s->fel[k] - s->fdamp[k] - s->w2[k] * s->x[k];
        return;
    }
    const double *K = m->subs[i]->K;
    double *r = s->cpush; /* scratch */
    for (int k = 0; k < n; k++)
        r[k] = s->fext[k] + s->fel[k] - s->fdamp[k];
    cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, -1.0, K, n, s->x, 1, 1.0, r, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, 1.0, s->Y, n, r, 1, 0.0, acc, 1);
}

int sim_predict(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
    double h = d->h, t = d->t0 + (double)d->step * h;
    for (int i = 0; i < d->nsub; i++) {
        sim_sub *s = &d->sub[i];
        for (int k = 0; k < s->n; k++)
            s->tmp[k] = (s->x[k] - s->x_prev[k]) / h;
    }
    int rc = forces(m, d, t, ctx);
    if (rc) return rc;
    for (int i = 0; i < d->nsub; i++) {
        sim_sub *s = &d->sub[i];
        accel(m, s, i, s->x_new);
        for (int k = 0; k < s->n; k++) {
            double xn = 2.0 * s->x[k] - s->x_prev[k] + h * h * s->x_new[k];
            if (!isfinite(xn))
                return TVDS_ERROR(ctx, TVDS_ERR_DIVERGED,
                                  "t = %.9g s, step %ld: non-finite predicted state in "
                                  "substructure '%s' (coordinate %d)",
                                  t, d->step, m->subs[i]->name ? m->subs[i]->name : "?", k);
            s->x_new[k] = xn;
        }
    }
    return TVDS_OK;
}

void sim_correct(const tvds_model *m, tvds_data *d)
{
    (void)m;
    double h2 = d->h * d->h;
    for (int r = 0; r < d->nrow; r++) {
        const sim_row *R = &d->row[r];
        double l = d->lam[r];
        if (l == 0.0) continue;
        for (int e = R->off; e < R->off + R->ne; e++) {
            double c = h2 * d->p_be[e] * l;
            if (c == 0.0) continue;
            sim_sub *s = &d->sub[d->p_sub[e]];
            const double *y = s->Y + (size_t)d->p_dof[e] * s->n;
            for (int k = 0; k < s->n; k++)
                s->x_new[k] -= c * y[k];
        }
    }
}

int sim_initial(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
    double h = d->h;
    /* x = Y (M u0): the modal projection (Phi^T M u0) or u0 itself (M^-1 M u0). Velocities
     * likewise; x_new and cpush are scratch here. */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < d->nsub; i++) {
            sim_sub *s = &d->sub[i];
            for (int k = 0; k < s->n; k++)
                s->x_new[k] = 0.0;
        }
        for (int c = 0; c < m->nic; c++) {
            const tvds_initial *I0 = &m->ics[c];
            if (I0->sub < 0 || I0->sub >= d->nsub || I0->dof < 0 || I0->dof >= d->sub[I0->sub].n)
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "initial condition %d: bad DoF", c);
            d->sub[I0->sub].x_new[I0->dof] = pass == 0 ? I0->u0 : I0->v0;
        }
        for (int i = 0; i < d->nsub; i++) {
            sim_sub *s = &d->sub[i];
            const tvds_substructure *S = m->subs[i];
            int n = s->n;
            double *out = pass == 0 ? s->x : s->tmp;
            for (int k = 0; k < n; k++) {
                out[k] = 0.0;
                s->cpush[k] = 0.0;
            }
            for (int c = 0; c < n; c++)
                for (int r = 0; r < n; r++)
                    s->cpush[r] += S->M[r + (size_t)c * n] * s->x_new[c];
            for (int c = 0; c < n; c++) {
                const double *Yc = s->Y + (size_t)c * n;
                for (int k = 0; k < n; k++)
                    out[k] += Yc[k] * s->cpush[c];
            }
        }
    }
    int rc = forces(m, d, d->t0, ctx);
    if (rc) return rc;
    for (int i = 0; i < d->nsub; i++) {
        sim_sub *s = &d->sub[i];
        accel(m, s, i, s->x_new);
        /* x_{-1} = x_0 - h v_0 + h^2/2 a_0: second-order start of central differences. */
        for (int k = 0; k < s->n; k++) {
            s->x_prev[k] = s->x[k] - h * s->tmp[k] + 0.5 * h * h * s->x_new[k];
            s->x_new[k] = s->x[k] + 0.5 * h * h * s->x_new[k];
            s->cpush[k] = s->x_new[k];
        }
    }
    if (d->nrow == 0 && m->nbil == 0 && d->ncp == 0) return TVDS_OK;
    /* Constraint forces at t_0, at acceleration level: x_new = x_0 + h^2/2 a_0 is corrected
     * by the rows (initially active contacts, bilaterals with their second derivative), and
     * x_{-1} receives the same correction, so that step 0 starts with the constrained
     * acceleration (docs/theory.md, "Start"). */
    d->init_mode = 1;
    rc = sim_detect(m, d, ctx);
    if (!rc) rc = sim_solve_direct(m, d, ctx);
    d->init_mode = 0;
    if (rc) return rc;
    sim_correct(m, d);
    for (int i = 0; i < d->nsub; i++) {
        sim_sub *s = &d->sub[i];
        for (int k = 0; k < s->n; k++)
            s->x_prev[k] += s->x_new[k] - s->cpush[k];
    }
    d->film_iter_sum = d->film_iter_max = d->film_steps = 0;
    d->as_iter_max = d->as_nonconv = 0;
    for (int i = 0; i < d->ncp; i++) {
        sim_cp *c = &d->cp[i];
        c->state = c->state_prev;
        c->lam_n = c->ft[0] = c->ft[1] = 0.0;
    }
    d->nrow = 0;
    return TVDS_OK;
}
