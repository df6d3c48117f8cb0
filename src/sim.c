/* sim.c — the time step as a sequence of named phases (predict, detect, solve, correct,
 * record) and the engine's public accessors. */
#include <math.h>

#include "sim_impl.h"

int tvds_step(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
    if (!m || !d) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_step: NULL model or data");
    int rc = sim_predict(m, d, ctx); /* x_new = x* */
    if (rc) return rc;
    rc = sim_detect(m, d, ctx);
    if (rc) return rc;
    rc = sim_methods[d->method].solve(m, d, ctx);
    if (rc) return rc;
    sim_correct(m, d);
    double t = d->t0 + (double)d->step * d->h;
    for (int i = 0; i < d->nsub; i++) {
        const sim_sub *s = &d->sub[i];
        const double *restrict xn = s->x_new;
        double chk = 0.0; /* NaN when any value is not finite */
        int n = s->n;
#pragma omp simd reduction(+ : chk)
        for (int k = 0; k < n; k++)
            chk += xn[k] * 0.0;
        if (chk == 0.0) continue;
        for (int k = 0; k < s->n; k++)
            if (!isfinite(xn[k]))
                return TVDS_ERROR(ctx, TVDS_ERR_DIVERGED,
                                  "t = %.9g s, step %ld: non-finite state in substructure '%s' "
                                  "(coordinate %d) after the constraint correction",
                                  t, d->step, m->subs[i]->name ? m->subs[i]->name : "?", k);
    }
    rc = sim_record(m, d, ctx);
    if (rc) return rc;
    /* Commit: rotate the three state buffers. */
    sim_rotate(d);
    for (int i = 0; i < d->ncp; i++)
        d->cp[i].state_prev = d->cp[i].state;
    d->step++;
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
    if (n) *n = d->nsum;
    if (names) *names = (const char *const *)d->sumname;
    if (values) *values = d->sumval;
    return TVDS_OK;
}
