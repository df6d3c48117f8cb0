/* prog.c — an external program built against an installed tvds with `pkg-config --cflags --libs
 * tvds` alone (tests/install.sh): version macros against tvds_version(), a case read with an
 * override, stepped to t_end, channels read through the accessors of tvds_access.h. */
#include <stdio.h>
#include <string.h>

#include <tvds/tvds_access.h>
#include <tvds/tvds_case.h>
#include <tvds/tvds_sim.h>

int main(int argc, char **argv)
{
    int major, minor, patch;
    const char *v = tvds_version(&major, &minor, &patch);
    if (strcmp(v, TVDS_VERSION) != 0 || major != TVDS_VERSION_MAJOR ||
        minor != TVDS_VERSION_MINOR || patch != TVDS_VERSION_PATCH) {
        fprintf(stderr, "prog: header %s, library %s\n", TVDS_VERSION, v);
        return 1;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: prog CASE\n");
        return 2;
    }
    const char *sets[] = {"run.t_end=0.01"};
    tvds_ctx *ctx = tvds_ctx_create();
    tvds_model *m = NULL;
    tvds_data *d = NULL;
    int rc = tvds_case_read(argv[1], sets, 1, &m, ctx);
    if (!rc) rc = tvds_data_create(m, &d, ctx);
    while (!rc && tvds_data_time(d) < tvds_model_t_end(m) * (1 - 1e-12))
        rc = tvds_step(m, d, ctx);
    if (rc) {
        fprintf(stderr, "prog: %s\n", tvds_ctx_message(ctx));
    } else {
        printf("tvds %s: %s, %ld steps of %g s to t = %g s (t_end %g s)\n", v, tvds_model_name(m),
               tvds_data_steps(d), tvds_data_dt(d), tvds_data_time(d), tvds_model_t_end(m));
        int n = tvds_channel_count(d, TVDS_GROUP_HISTORY);
        int nv;
        const char *const *labels;
        const double *values;
        tvds_channels(d, TVDS_GROUP_HISTORY, &nv, &labels, &values);
        for (int i = 0; i < n; i++) {
            char name[128], unit[32];
            tvds_channel_info(d, TVDS_GROUP_HISTORY, i, name, sizeof name, unit, sizeof unit);
            printf("  %s = %.6g %s\n", name, values[i], unit);
        }
    }
    tvds_data_free(&d);
    tvds_model_free(&m);
    tvds_ctx_free(&ctx);
    return rc ? 1 : 0;
}
