/* check_validate.c — SDND100/SDND104 references, the one-DoF shoes over the friction laws, the
 * shipped case files and the validation driver. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tvds/tvds_case.h"
#include "tvds/tvds_validate.h"

static const double PI = 3.14159265358979323846;

START_TEST(test_sdnd100_extrema)
{
    /* mu m g / k = 1e-4 m: the amplitude drops by 0.2 mm per half cycle, 0.85 -> -0.65 -> 0.45
     * -> -0.25 -> 0.05 mm, and 0.05 mm is inside the stick band: the shoe stays there. */
    const double r[6] = {0.85e-3, -0.65e-3, 0.45e-3, -0.25e-3, 0.05e-3, 0.05e-3};
    for (int n = 0; n < 6; n++)
        ck_assert_double_eq_tol(tvds_sdnd100_extremum(0.85e-3, 0.1, 1.0, 10.0, 1e4, n), r[n],
                                1e-18);
    /* The seed's table: DY = r cos45. */
    ck_assert_double_eq_tol(tvds_sdnd100_extremum(0.85e-3, 0.1, 1, 10, 1e4, 1) * cos(PI / 4),
                            -4.596e-4, 0.5e-7);
    /* One-way friction (mu / sqrt 2): the seed's modeling D table. */
    double md[4] = {-5.010e-4, 4.010e-4, -3.010e-4, 2.010e-4};
    for (int n = 1; n <= 4; n++)
        ck_assert_double_eq_tol(tvds_sdnd100_extremum(0.85e-3, 0.1 / sqrt(2.0), 1, 10, 1e4, n) *
                                    cos(PI / 4),
                                md[n - 1], 0.5e-7);
}
END_TEST

START_TEST(test_sdnd104_analytic)
{
    double P;
    /* The seed's reference table (means over [4, 12] s), to half a unit of its last digit. */
    ck_assert_int_eq(tvds_sdnd104_wear_power(15.0, 1.0, 0.1, 1.0, 10.0, 4.0, 12.0, &P), TVDS_OK);
    ck_assert_double_eq_tol(P, 15.26709959, 0.5e-8);
    tvds_sdnd104_wear_power(1.5, 1.0, 0.1, 1.0, 10.0, 4.0, 12.0, &P);
    ck_assert_double_eq_tol(P, 0.40906245, 0.5e-8);
    tvds_sdnd104_wear_power(1.01, 1.0, 0.1, 1.0, 10.0, 4.0, 12.0, &P);
    ck_assert_double_eq_tol(P, 2.261641e-4, 0.5e-10);
    tvds_sdnd104_wear_power(0.99, 1.0, 0.1, 1.0, 10.0, 4.0, 12.0, &P);
    ck_assert(P == 0.0);
    /* Slip-slip tends to the asymptotic period mean 2 m g a0 / (w^2 T) sqrt(4 - eta^2 pi^2)
     * (seed: 15.1146144886 W for a0 = 15). */
    double a0 = 15.0, eta = 1.0 / 15.0, w = 2.0 * PI;
    double Pinf = 2.0 * 10.0 * a0 / (w * w) * sqrt(4.0 - eta * eta * PI * PI);
    ck_assert_double_eq_tol(Pinf, 15.1146144886, 1e-10);
    tvds_sdnd104_wear_power(a0, 1.0, 0.1, 1.0, 10.0, 200.0, 300.0, &P);
    ck_assert_double_eq_tol(P, Pinf, 1e-9);
    /* Regime boundary: eta = 1 sticks for ever; just above it the wear is tiny but >= 0. */
    tvds_sdnd104_wear_power(1.0, 1.0, 0.1, 1.0, 10.0, 4.0, 12.0, &P);
    ck_assert(P == 0.0);
    tvds_sdnd104_wear_power(1.0 + 1e-3, 1.0, 0.1, 1.0, 10.0, 4.0, 12.0, &P);
    ck_assert(P > 0.0 && P < 2.261641e-4);
    ck_assert_int_eq(tvds_sdnd104_wear_power(-1.0, 1.0, 0.1, 1.0, 10.0, 4.0, 12.0, &P),
                     TVDS_ERR_INVALID);
}
END_TEST

START_TEST(test_shoe_sdnd100_laws)
{
    double dy[4];
    /* Exact stick-slip: the extrema to the event-timing error of the step (measured 3e-7 at
     * h = 1e-5; the bound 2 Fsl h / (m w) / r on the amplitude is 4e-4 relative on the last). */
    ck_assert_int_eq(tvds_shoe_sdnd100(TVDS_SHOE_EXACT, 0, 0.0, 1e-5, dy), TVDS_OK);
    for (int n = 1; n <= 4; n++) {
        double ref = tvds_sdnd100_extremum(0.85e-3, 0.1, 1, 10, 1e4, n) * cos(PI / 4);
        ck_assert_double_eq_tol(dy[n - 1], ref, 2.0 * 1.0 * 1e-5 / 100.0);
    }
    /* Penalty: the series tangential spring loses the dissipation of 2 mu F_N / kt of travel
     * at each reversal, so the error of the last extremum scales as 1/kt: 10 x kt, 1/10 error. */
    double e[2];
    double kts[2] = {4e6, 4e7};
    double ref4 = tvds_sdnd100_extremum(0.85e-3, 0.1, 1, 10, 1e4, 4) * cos(PI / 4);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(tvds_shoe_sdnd100(TVDS_SHOE_PENALTY, 0, kts[i], 1e-5, dy), TVDS_OK);
        e[i] = dy[3] - ref4;
        ck_assert(e[i] > 0.0); /* less dissipation than Coulomb: larger amplitude */
    }
    ck_assert_double_eq_tol(e[0] / e[1], 10.0, 0.5);
    /* Quasi-static estimate: between two rests the slider travels |dr| - 2 delta (the series
     * spring, delta = mu F_N / kt, flips elastically at each reversal; only delta on the first
     * half cycle, with kt delta^2 / 2 stored), so each half cycle's drop 2 mu F_N / k shrinks by
     * 4 mu F_N delta / (k (|r_a| + |r_b|)) (mu F_N delta / (k (|r_a| + |r_b|)) the first time).
     * The mass rings on kt (undamped) at each reversal, which the estimate ignores: the measured
     * surplus is of its order and below it. */
    double est = 0.0, FN = 10.0, mu = 0.1, k = 1e4, delta = mu * FN / kts[0];
    const double rr[5] = {0.85e-3, 0.65e-3, 0.45e-3, 0.25e-3, 0.05e-3};
    for (int i = 0; i < 4; i++)
        est += (i == 0 ? 1.0 : 4.0) * mu * FN * delta / (k * (rr[i] + rr[i + 1]));
    est *= cos(PI / 4);
    ck_assert(e[0] > 0.2 * est && e[0] < est);
    ck_assert_int_eq(tvds_shoe_sdnd100(TVDS_SHOE_PENALTY, 0, 4e7, 1e-2, dy), TVDS_ERR_INVALID);
}
END_TEST

START_TEST(test_shoe_sdnd104_laws)
{
    double P;
    /* Exact stick: a permanent stick wears exactly nothing (no threshold involved). */
    ck_assert_int_eq(tvds_shoe_sdnd104(TVDS_SHOE_EXACT, 0.99, 0.0, 3e-5, 1e-4, &P), TVDS_OK);
    ck_assert(P == 0.0);
    ck_assert_int_eq(tvds_shoe_sdnd104(TVDS_SHOE_EXACT, 1.5, 0.0, 0.0, 1e-5, &P), TVDS_OK);
    ck_assert_double_eq_tol(P, 0.40906245, 1e-4 * 0.40906245);
    /* Penalty, Code_Aster's settings: its own tolerance 5e-4; elastic stick, exactly 0. */
    ck_assert_int_eq(tvds_shoe_sdnd104(TVDS_SHOE_PENALTY, 1.5, 9e6, 3e-5, 1e-4, &P), TVDS_OK);
    ck_assert_double_eq_tol(P, 0.40906245, 5e-4 * 0.40906245);
    tvds_shoe_sdnd104(TVDS_SHOE_PENALTY, 0.99, 9e6, 3e-5, 1e-4, &P);
    ck_assert(P == 0.0);
}
END_TEST

/* Belt-driven oscillator through the ElasticFriction element against its closed form. */
START_TEST(test_shoe_belt)
{
    const double t[4] = {0.3, 0.45, 0.8, 0.95};
    double x[4];
    double h = 1e-5, V = 0.1, K = 100.0, A = 0.01, w = 10.0, Fst = 2.0, k = 1e6;
    double R = sqrt(A * A + V * V / (w * w));
    /* Rigid (stick rows): each event is located within 2 steps, at most (V + R w) 2h of
     * position. */
    double tol_rigid = (V + R * w) * 2.0 * h;
    ck_assert_int_eq(tvds_shoe_belt(1, k, 2000.0, h, 4, t, x), TVDS_OK);
    for (int i = 0; i < 4; i++)
        ck_assert_double_eq_tol(x[i], tvds_belt_closed_form(t[i]), tol_rigid);
    /* Compliant: the contact lags by up to Fst/k in position and Fst/(k V) in time. */
    double tol_el = tol_rigid + Fst / k * (1.0 + (V + R * w) / V);
    ck_assert_int_eq(tvds_shoe_belt(0, k, 2000.0, h, 4, t, x), TVDS_OK);
    for (int i = 0; i < 4; i++)
        ck_assert_double_eq_tol(x[i], tvds_belt_closed_form(t[i]), tol_el);
    /* The closed form itself: stick at V t, first release at Fst/(K V) = 0.2 s, back to
     * Fsl/K - A = 0 at the end of the slip (0.2 + 0.4712 s). */
    ck_assert_double_eq_tol(tvds_belt_closed_form(0.1), 0.01, 1e-15);
    ck_assert_double_eq_tol(tvds_belt_closed_form(0.2 + (2 * PI - 2 * atan(1.0)) / w), 0.0, 1e-12);
    ck_assert_double_eq_tol(tvds_belt_closed_form(0.2), Fst / K, 1e-15);
}
END_TEST

/* Every shipped case file reads (the case parser and the substructure directories agree). */
START_TEST(test_case_files_read)
{
    int n;
    const tvds_vcase *c = tvds_validate_cases(&n);
    ck_assert_int_gt(n, 10);
    int nengine = 0;
    for (int i = 0; i < n; i++) {
        if (!c[i].case_file) {
            ck_assert(c[i].law != NULL);
            continue;
        }
        nengine++;
        int ns = 0;
        while (ns < 3 && c[i].sets[ns])
            ns++;
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        tvds_model *m = NULL;
        int rc = tvds_case_read(c[i].case_file, c[i].sets, ns, &m, &ctx);
        if (rc) fprintf(stderr, "%s: %s\n", c[i].case_file, ctx.msg);
        ck_assert_int_eq(rc, TVDS_OK);
        ck_assert(m->opt.t_end > 0.0);
        tvds_model_free(&m);
    }
    ck_assert_int_ge(nengine, 10);
}
END_TEST

/* The driver on the law-level analytic rows, and its printing. */
START_TEST(test_validate_driver)
{
    tvds_validate_opts o = {".", "sdnd104-analytic", "law", NULL, 0};
    tvds_vresult *res = NULL;
    int nres = 0;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_validate_run(&o, &res, &nres, &ctx), TVDS_OK);
    ck_assert_int_eq(nres, 4);
    for (int i = 0; i < nres; i++)
        ck_assert_int_eq(res[i].status, TVDS_V_PASS);
    char buf[4096];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    ck_assert_int_eq(tvds_validate_print(f, res, nres, 1), 0);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "| case | quantity | reference |"));
    ck_assert_ptr_nonnull(strstr(buf, "| law:sdnd104-analytic | P(a0=0.99) | 0 | 0 |"));
    tvds_free(res);
    /* A missing case file is an ERROR row, not a crash. */
    o.root = "/nonexistent";
    o.filter = "sdnd100-b";
    o.group = NULL;
    ck_assert_int_eq(tvds_validate_run(&o, &res, &nres, &ctx), TVDS_OK);
    ck_assert_int_eq(nres, 4);
    ck_assert_int_eq(res[0].status, TVDS_V_ERROR);
    ck_assert_ptr_nonnull(strstr(res[0].msg, "/nonexistent"));
    tvds_free(res);
}
END_TEST

/* Through the engine: SDND100 modeling A with exact constraints, 0.1 % of the analytic
 * extrema (the validation target), and SDND104's permanent stick with exactly zero wear. */
START_TEST(test_validate_engine_sdnd100a)
{
    tvds_validate_opts o = {".", "sdnd100-a-lagrange", "engine", NULL, 0};
    tvds_vresult *res = NULL;
    int nres = 0;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_validate_run(&o, &res, &nres, &ctx), TVDS_OK);
    ck_assert_int_eq(nres, 4);
    for (int i = 0; i < nres; i++) {
        if (res[i].status != TVDS_V_PASS) fprintf(stderr, "%s\n", res[i].msg);
        ck_assert_int_eq(res[i].status, TVDS_V_PASS);
    }
    tvds_free(res);
}
END_TEST

Suite *validate_suite(void)
{
    Suite *s = suite_create("validate");
    TCase *tc = tcase_create("references");
    tcase_add_test(tc, test_sdnd100_extrema);
    tcase_add_test(tc, test_sdnd104_analytic);
    suite_add_tcase(s, tc);
    tc = tcase_create("shoes");
    tcase_add_test(tc, test_shoe_sdnd100_laws);
    tcase_add_test(tc, test_shoe_sdnd104_laws);
    tcase_add_test(tc, test_shoe_belt);
    tcase_set_timeout(tc, 20);
    suite_add_tcase(s, tc);
    tc = tcase_create("driver");
    tcase_add_test(tc, test_case_files_read);
    tcase_add_test(tc, test_validate_driver);
    tcase_add_test(tc, test_validate_engine_sdnd100a);
    tcase_set_timeout(tc, 20);
    suite_add_tcase(s, tc);
    return s;
}
