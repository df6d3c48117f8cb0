/* sim.c — the time step as a sequence of named phases (predict, detect, solve, correct,
 * record) and the engine's public accessors. */
#include <math.h>

#include "engine/sim_impl.h"

int tvds_step(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
    if (!m || !d) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_step: NULL model or data");
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
