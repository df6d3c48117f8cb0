/* sim.c — the orchestrator: the contact methods' table, the start and the time step as
 * sequences of named phases (predict, detect, solve, correct, record), the engine's accessors.
 * The phases call only downward (sim_impl.h lists the layers); none calls another. */
#include "engine/friction_laws_impl.h"
#include "engine/sim_impl.h"

const sim_method sim_methods[TVDS_METHOD_COUNT] = {
    {"subs-a", 0, sim_solve_direct},
    {"subs-b", 1, sim_solve_direct},
    {"subs-c", 2, sim_solve_direct},
    {"film", 1, sim_solve_film},
};

/* The start (docs/theory.md, "Start"): x_0 and x_{-1} from u0, v0 and the acceleration at t_0,
 * constrained by the rows active at t_0. */
static int start(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
    double h = d->h;
    sim_touch(d, -1);
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
    int rc = sim_forces(m, d, d->t0, 0, ctx);
    if (rc) return rc;
    d->law_cached = 1; /* step 0 reuses the element and penalty forces at t_0 */
    for (int i = 0; i < d->nsub; i++) {
        sim_sub *s = &d->sub[i];
        sim_accel(m, s, i, s->x_new);
        /* x_{-1} = x_0 - h v_0 + h^2/2 a_0: second-order start of central differences. */
        for (int k = 0; k < s->n; k++) {
            s->x_prev[k] = s->x[k] - h * s->tmp[k] + 0.5 * h * h * s->x_new[k];
            s->x_new[k] = s->x[k] + 0.5 * h * h * s->x_new[k];
            s->cpush[k] = s->x_new[k];
        }
    }
    sim_touch(d, -1); /* x_prev and x_new rewritten */
    if (d->nrow == 0 && m->nbil == 0 && d->ncp == 0 && d->nrig == 0) return TVDS_OK;
    /* Constraint forces at t_0, at acceleration level: x_new = x_0 + h^2/2 a_0 is corrected
     * by the rows (initially active contacts, bilaterals with their second derivative), and
     * x_{-1} receives the same correction, so that step 0 starts with the constrained
     * acceleration (docs/theory.md, "Start"). */
    d->init_mode = 1;
    /* Sticking rigid stick-slip elements hold their relative acceleration at zero. */
    for (int e = 0, off = 0; e < m->nel; e++) {
        const tvds_element *E = &m->elements[e];
        d->rig_row[e] = sim_rigid_el(E) && d->el_state[off] == 0.0; /* sf = stick */
        off += E->kind == TVDS_EL_ELASTIC_FRICTION ? TVDS_EF_NSTATE : 1;
    }
    rc = sim_detect(m, d, ctx);
    if (!rc) rc = sim_solve_direct(m, d, ctx);
    d->init_mode = 0;
    for (int e = 0; e < m->nel; e++)
        d->rig_row[e] = 0;
    if (rc) return rc;
    sim_correct(m, d);
    for (int i = 0; i < d->nsub; i++) {
        sim_sub *s = &d->sub[i];
        for (int k = 0; k < s->n; k++)
            s->x_prev[k] += s->x_new[k] - s->cpush[k];
    }
    sim_touch(d, -1);
    d->film_iter_sum = d->film_iter_max = d->film_steps = 0;
    d->as_iter_max = d->as_nonconv = d->film_nonconv = d->film_finished = 0;
    d->as_least = 0;
    for (int i = 0; i < d->ncp; i++) {
        sim_cp *c = &d->cp[i];
        if (c->pen) continue; /* keeps the law's state and forces at t_0 */
        c->state = c->state_prev;
        c->lam_n = c->ft[0] = c->ft[1] = 0.0;
    }
    d->nrow = 0;
    return TVDS_OK;
}

int tvds_data_create(const tvds_model *m, tvds_data **pd, tvds_ctx *ctx)
{
    if (!pd) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_data_create: NULL output");
    *pd = NULL;
    tvds_data *d = NULL;
    int rc = sim_data_setup(m, &d, ctx);
    if (rc) return rc;
    d->geometry = sim_methods[d->method].geometry;
    rc = start(m, d, ctx);
    if (rc) {
        tvds_data_free(&d);
        return rc;
    }
    sim_record_initial(m, d);
    *pd = d;
    return TVDS_OK;
}

int tvds_step(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
    if (!m || !d) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_step: NULL model or data");
    /* Damped coordinates that have decayed below SIM_TINY are set to zero: they would reach
     * the subnormal range and slow every pass over them (sim_flush_tiny). */
    if (d->step % SIM_FLUSH_EVERY == 0 && !d->check.flush_off) sim_flush_tiny(d);
    int rc = sim_predict(m, d, ctx); /* x_new = x* */
    if (rc) return rc;
    sim_rigid_begin(m, d); /* rigid stick-slip elements: stick row or sliding force */
    do {
        rc = sim_detect(m, d, ctx);
        if (rc) return rc;
        rc = sim_methods[d->method].solve(m, d, ctx);
        if (rc) return rc;
    } while (sim_rigid_check(m, d)); /* a released stick row: solve again without it */
    sim_correct(m, d);
    sim_rigid_end(m, d);
    /* A non-finite corrected state is caught by sim_record's energy pass (one pass less). */
    rc = sim_record(m, d, ctx);
    if (rc) return rc;
    /* Commit: rotate the three state buffers. */
    sim_rotate(d);
    for (int i = 0; i < d->ncp; i++) {
        d->cp[i].state_prev = d->cp[i].state;
        d->ctc_closed[d->cp[i].contact] += d->cp[i].state != 0;
    }
    d->step++;
    if (d->rec_every > 1 && ++d->rec_phase == d->rec_every) d->rec_phase = 0;
    return TVDS_OK;
}

double tvds_data_time(const tvds_data *d)
{
    return d ? d->t0 + (double)d->step * d->h : 0.0;
}

double tvds_data_dt(const tvds_data *d)
{
    return d ? d->h : 0.0;
}

long tvds_data_steps(const tvds_data *d)
{
    return d ? d->step : 0;
}

double tvds_data_stable_dt(const tvds_data *d)
{
    return d ? d->h_stable : 0.0;
}

long tvds_contact_closed_steps(const tvds_data *d, int c)
{
    return d && c >= 0 && c < d->nctc && d->ctc_closed ? d->ctc_closed[c] : 0;
}

long tvds_data_nonconverged(const tvds_data *d)
{
    return d ? d->film_nonconv + d->as_nonconv : 0;
}

int tvds_channels(const tvds_data *d, int group, int *n, const char *const **names,
                  const double **values)
{
    if (n) *n = 0;
    if (!d || group < 0 || group >= TVDS_GROUP_COUNT) return TVDS_ERR_INVALID;
    if (n) *n = d->nch[group];
    if (names) *names = (const char *const *)d->chname[group];
    if (values) *values = d->chval[group];
    return TVDS_OK;
}

int tvds_summary(const tvds_data *d, int *n, const char *const **names, const double **values)
{
    if (n) *n = 0;
    if (!d) return TVDS_ERR_INVALID;
    /* The step leaves the summary to be published here, on demand (its per-contact window
     * means are a pass over the points with two divisions each): the run data are the
     * caller's mutable object, and sumval a cache of it. */
    if (d->summary_stale) {
        sim_publish_summary((tvds_data *)d);
        ((tvds_data *)d)->summary_stale = 0;
    }
    if (n) *n = d->nsum;
    if (names) *names = (const char *const *)d->sumname;
    if (values) *values = d->sumval;
    return TVDS_OK;
}
