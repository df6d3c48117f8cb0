/* check_wbuild.c — the points' construction of W (src/engine/sim_wbuild.c) against the plain
 * sum W_ij = h^2 sum_a sum_b bc_a G(a, b) be_b over the rows' pool entries, at every step of a
 * 3 x 3 pad pressed and dragged on a Craig-Bampton plate (dense G), with subs-b (stick and slip
 * rows, the Gt cache across the active-set passes) and FiLm. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/sim_impl.h" /* test hooks: the pool, G, W and the construction counters */
#include "tvds/tvds_bench.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_sim.h"
#include "tvds_test.h"

/* max over W_ij of |W_ij - ref_ij| / tol_ij with ref the plain sum and tol its bound: the two
 * orders of summation each add at most one rounding per operation on a term's path, the points'
 * (2 e + 15) (H over e entries, Gt over e, two 3-term projections, h^2, the pool's products
 * bc = e_w vc), the plain sum's ne_i ne_j + 4; each rounding at most eps |term|. */
static double w_error(const tvds_data *d, int *nbad)
{
    int nr = d->nrow;
    double h2 = d->h * d->h, worst = 0.0;
    *nbad = 0;
    for (int i = 0; i < nr; i++)
        for (int j = 0; j < nr; j++) {
            const sim_row *Ri = &d->row[i], *Rj = &d->row[j];
            double ref = 0.0, mag = 0.0;
            for (int a = Ri->off; a < Ri->off + Ri->ne; a++)
                for (int b = Rj->off; b < Rj->off + Rj->ne; b++) {
                    if (d->p_sub[a] != d->p_sub[b]) continue;
                    const sim_sub *s = &d->sub[d->p_sub[a]];
                    int ca = d->p_cand[a] - d->cand_base[d->p_sub[a]];
                    int cb = d->p_cand[b] - d->cand_base[d->p_sub[b]];
                    double t = d->p_bc[a] * s->G[ca + (size_t)cb * s->ncand] * d->p_be[b];
                    ref += t;
                    mag += fabs(t);
                }
            ref *= h2;
            mag *= h2;
            int e = Ri->ne > Rj->ne ? Ri->ne : Rj->ne;
            double tol = ((double)Ri->ne * Rj->ne + 2.0 * e + 19.0) * DBL_EPSILON * mag;
            double err = fabs(d->W[i + (size_t)j * nr] - ref);
            if (err > tol) (*nbad)++;
            if (tol > 0.0 && err / tol > worst) worst = err / tol;
            if (tol == 0.0 && err > 0.0) worst = INFINITY;
        }
    return worst;
}

static char dir[256];

static void pad_setup(void)
{
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_wbuild_");
}

static void pad_teardown(void)
{
    ck_assert_int_eq(tvds_test_rmtree(dir), 0);
}

/* _i = 0: subs-b, 1: FiLm. 1.5 ms: the press ramp (0.2 ms) and the drag, stick and slip. */
START_TEST(test_points_vs_plain)
{
    int method = _i == 0 ? TVDS_METHOD_SUBS_B : TVDS_METHOD_FILM;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    char cpath[512];
    ck_assert_msg(tvds_bench_cbpad_write(dir, 8, 4, 3, cpath, sizeof cpath, &ctx) == TVDS_OK, "%s",
                  ctx.msg);
    tvds_model *m = NULL;
    ck_assert_msg(tvds_case_read(cpath, NULL, 0, &m, &ctx) == TVDS_OK, "%s", ctx.msg);
    m->opt.method = method;
    m->opt.nonconverged_error = 0;
    tvds_data *d = NULL;
    ck_assert_msg(tvds_data_create(m, &d, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(d->ncp, 9);
    d->check.w_points = 1;
    long pairs0 = d->w_pair_builds;
    int nstick = 0, nslip = 0, ncheck = 0;
    long built = 0;
    while (tvds_data_time(d) < 1.5e-3) {
        ck_assert_msg(tvds_step(m, d, &ctx) == TVDS_OK, "%s", ctx.msg);
        for (int i = 0; i < d->ncp; i++) {
            nstick += d->cp[i].state == TVDS_STICK;
            nslip += d->cp[i].state == TVDS_SLIP;
        }
        if (d->nrow == 0 || !d->W_valid || d->W_n != d->nrow) continue;
        long nb = d->w_point_builds;
        if (nb == built) continue; /* W_same: the W of an earlier step, checked then */
        built = nb;
        int nbad;
        double e = w_error(d, &nbad);
        ck_assert_msg(nbad == 0, "%s step %ld: %d entries of W beyond the bound (worst %.3g x)",
                      tvds_method_name(method), d->step, nbad, e);
        ncheck++;
    }
    ck_assert_int_eq(d->w_pair_builds, pairs0);
    ck_assert_int_gt(ncheck, 1000);
    ck_assert_int_gt(nslip, 0);
    if (method == TVDS_METHOD_SUBS_B) {
        ck_assert_int_gt(nstick, 0);
        ck_assert_int_gt(d->w_gt_reused, 0); /* active-set passes on one geometry */
    }
    tvds_data_free(&d);
    tvds_model_free(&m);
}
END_TEST

Suite *wbuild_suite(void)
{
    Suite *s = suite_create("wbuild");
    TCase *tc = tcase_create("points");
    tcase_add_checked_fixture(tc, pad_setup, pad_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_points_vs_plain, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}
