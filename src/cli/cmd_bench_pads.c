/* cmd_bench_pads.c — `tvds bench`'s pad-on-plate section: the per-step cost of square pads of
 * m = 1 .. 256 contact nodes on a 1019-DoF Craig-Bampton plate (tvds_bench_cbpad_write), all
 * models stepped in interleaved rounds so that the ratios come from one run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cmd_bench_impl.h"
#include "tvds/tvds_bench.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_sim.h"

#define PADS_N 7

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int bench_padplate(btab *t, const char *dir, int R, int quick)
{
    /* The family (subs-b), then FiLm at m = 16 and 64: the rows' order. */
    static const int sides[PADS_N] = {1, 2, 4, 8, 16, 4, 8};
    static const int film[PADS_N] = {0, 0, 0, 0, 0, 1, 1};
    static const long nst_full[PADS_N] = {2000, 1000, 500, 100, 20, 500, 100};
    int use[PADS_N] = {1, 1, 1, !quick, !quick, 1, !quick};
    tvds_model *m[PADS_N] = {NULL};
    tvds_data *d[PADS_N] = {NULL};
    double us[PADS_N][16], med[PADS_N];
    long nst[PADS_N];
    int rc = TVDS_OK, n_plate = 3 * 37 * 9 + 20;
    if (R > 16) R = 16;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    for (int i = 0; i < PADS_N && !rc; i++) {
        if (!use[i]) continue;
        char sub[4200], cpath[4300];
        snprintf(sub, sizeof sub, "%s/cbpad_%d", dir, sides[i] * sides[i]);
        rc = tvds_bench_cbpad_write(sub, 37, 8, sides[i], cpath, sizeof cpath, &ctx);
        if (rc) {
            rc = bench_fail("pad-on-plate model", rc, &ctx);
            break;
        }
        if ((rc = tvds_case_read(cpath, NULL, 0, &m[i], &ctx))) {
            rc = bench_fail(cpath, rc, &ctx);
            break;
        }
        m[i]->opt.method = film[i] ? TVDS_METHOD_FILM : TVDS_METHOD_SUBS_B;
        m[i]->opt.nonconverged_error = 0; /* FiLm at m = 64 may hit film_maxit: counted */
        if ((rc = tvds_data_create(m[i], &d[i], &ctx))) {
            rc = bench_fail(cpath, rc, &ctx);
            break;
        }
        /* Past the press ramp (0.2 ms) untimed: the segments are of the pad sliding. */
        while (!rc && tvds_data_time(d[i]) < 3e-4)
            rc = tvds_step(m[i], d[i], &ctx);
        if (rc) rc = bench_fail(cpath, rc, &ctx);
        nst[i] = quick ? nst_full[i] / 4 : nst_full[i];
    }
    for (int r = 0; r < R && !rc; r++)
        for (int i = 0; i < PADS_N && !rc; i++) {
            if (!use[i]) continue;
            double c0 = tvds_bench_thread_cpu();
            for (long k = 0; k < nst[i] && !rc; k++)
                rc = tvds_step(m[i], d[i], &ctx);
            if (rc) rc = bench_fail("pad-on-plate step", rc, &ctx);
            us[i][r] = 1e6 * (tvds_bench_thread_cpu() - c0) / (double)nst[i];
        }
    for (int i = 0; i < PADS_N && !rc; i++) {
        if (!use[i]) continue;
        qsort(us[i], (size_t)R, sizeof us[i][0], cmp_dbl);
        med[i] = R % 2 ? us[i][R / 2] : 0.5 * (us[i][R / 2 - 1] + us[i][R / 2]);
        char item[64];
        int mm = sides[i] * sides[i];
        snprintf(item, sizeof item, "m = %d %s us/step", mm, film[i] ? "film" : "subs-b");
        bench_add(t, "pads", item, med[i], "us",
                  "%d x %d pad sliding on a %d-DoF Craig-Bampton plate, median of %d interleaved "
                  "segments of %ld steps",
                  sides[i], sides[i], n_plate, R, nst[i]);
    }
    if (!rc) {
        /* The law: us = a m^p through the two largest m, and the ratios to m = 16. */
        int hi = quick ? 2 : 4;
        double mh = (double)sides[hi] * sides[hi], ml = (double)sides[hi - 1] * sides[hi - 1];
        double p = log(med[hi] / med[hi - 1]) / log(mh / ml);
        bench_add(t, "pads", "exponent p (us ~ m^p)", p, "-", "log(us(%g) / us(%g)) / log(%g)", mh,
                  ml, mh / ml);
        if (!quick) {
            double r64 = med[3] / med[2], r256 = med[4] / med[2];
            bench_add(t, "pads", "m = 64 / m = 16", r64, "-", "target <= 10: %s",
                      r64 <= 10.0 ? "met" : "missed");
            bench_add(t, "pads", "m = 256 / m = 16", r256, "-", "target <= 100: %s",
                      r256 <= 100.0 ? "met" : "missed");
            bench_add(t, "pads", "m = 64 subs-b / film", med[3] / med[6], "-", NULL);
        }
        bench_add(t, "pads", "m = 16 subs-b / film", med[2] / med[5], "-", NULL);
    }
    for (int i = 0; i < PADS_N; i++) {
        tvds_data_free(&d[i]);
        tvds_model_free(&m[i]);
    }
    return rc;
}
