/* sim_assemble.c — the B_C / B_E rows of the constraint system from the bilaterals, the rigid
 * stick-slip elements' stick rows and the contact points' trial states (docs/theory.md); the
 * solvers rebuild them whenever their active set changes. */
#include <math.h>

#include "engine/sim_impl.h"

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Write entry np of the pool (cand: the DoF's candidate in the run's numbering); *same stays 1
 * while it equals the entry W was built from, *sst while its candidate and row do. */
static inline void pool_put(tvds_data *d, int np, int sb, int df, int cand, int row, double bc,
                            double be, int *same, int *sst)
{
    int st = d->p_cand[np] == cand && d->p_row[np] == row;
    *sst &= st;
    *same &= st && d->p_bc[np] == bc && d->p_be[np] == be;
    d->p_sub[np] = sb;
    d->p_dof[np] = df;
    d->p_cand[np] = cand;
    d->p_row[np] = row;
    d->p_bc[np] = bc;
    d->p_be[np] = be;
}

void sim_assemble(const tvds_model *m, tvds_data *d)
{
    int nr = 0, np = 0, npts = 0;
    int same = d->W_valid && d->W_dense == d->check.rows_dense && !d->check.reuse_off, sst = same;
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
                                : -tvds_fn_eval_hint(&B->value, t1, &d->bil_hint[b]);
        double mag = fabs(v);
        for (int k = 0; k < B->nterms; k++, np++) {
            const tvds_term *T = &B->terms[k];
            pool_put(d, np, T->sub, T->dof, d->cand_base[T->sub] + d->sub[T->sub].cand[T->dof],
                     nr - 1, T->coef, T->coef, &same, &sst);
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
            pool_put(d, np, sb, df, d->cand_base[sb] + d->sub[sb].cand[df], nr - 1, coef, coef,
                     &same, &sst);
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
        sim_cp_keys(d, c);
        npts++;
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
                int dir = c->e_dir[e];
                pool_put(d, np, c->e_sub[e], c->e_dof[e], c->e_cand[e], nr, c->e_w[e] * bc[dir],
                         c->e_w[e] * bev[dir], &same, &sst);
            }
            if (r < 0) {
                R->rhs = c->gap_pred;
                /* The gap is a difference of positions X + u. */
                R->rhs_mag = fabs(c->gap_pred) + c->Xmag + fabs(c->rel_n) + fabs(c->g0);
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
    d->nrowpts = npts;
    d->W_same = same && np == d->W_np && nr == d->W_n;
    d->W_struct = sst && np == d->W_np && nr == d->W_n;
}
