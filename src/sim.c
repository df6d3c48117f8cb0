/* sim.c — time-stepping engine (placeholder until the engine lands: every entry point fails). */
#include "tvds/tvds_sim.h"

int tvds_stable_dt(const tvds_model *m, double *dt_crit, tvds_ctx *ctx)
{
    return TVDS_ERROR(ctx, TVDS_ERR_INTERNAL, "engine not built yet");
}
int tvds_data_create(const tvds_model *m, tvds_data **d, tvds_ctx *ctx)
{
    *d = NULL;
    return TVDS_ERROR(ctx, TVDS_ERR_INTERNAL, "engine not built yet");
}
void tvds_data_free(tvds_data **d)
{
    if (d) *d = NULL;
}
int tvds_step(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
    return TVDS_ERROR(ctx, TVDS_ERR_INTERNAL, "engine not built yet");
}
double tvds_data_time(const tvds_data *d) { return 0.0; }
double tvds_data_dt(const tvds_data *d) { return 0.0; }
long tvds_data_steps(const tvds_data *d) { return 0; }
int tvds_channels(const tvds_data *d, int group, int *n, const char *const **names,
                  const double **values)
{
    *n = 0;
    return TVDS_ERR_INTERNAL;
}
int tvds_summary(const tvds_data *d, int *n, const char *const **names, const double **values)
{
    *n = 0;
    return TVDS_ERR_INTERNAL;
}
