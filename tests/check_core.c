/* check_core.c — status table, error context, allocator hooks, time functions, damping. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "tvds/tvds_model.h"
#include "core/test_hooks_impl.h"

START_TEST(test_status_table)
{
    ck_assert_str_eq(tvds_strerror(TVDS_OK), "success");
    ck_assert_str_eq(tvds_status_name(TVDS_ERR_PARSE), "TVDS_ERR_PARSE");
    ck_assert_str_eq(tvds_strerror(12345), "unknown status");
    ck_assert_int_eq(tvds_status_exit_code(TVDS_OK), 0);
    ck_assert_int_eq(tvds_status_exit_code(TVDS_ERR_PARSE), 2);
    ck_assert_int_eq(tvds_status_exit_code(TVDS_ERR_DIVERGED), 3);
    ck_assert_int_eq(tvds_status_exit_code(TVDS_ERR_NOMEM), 1);
}
END_TEST

START_TEST(test_ctx_first_error_wins)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int rc = TVDS_ERROR(&ctx, TVDS_ERR_PARSE, "%s:%d: bad\nthing", "a.mtx", 3);
    ck_assert_int_eq(rc, TVDS_ERR_PARSE);
    TVDS_ERROR(&ctx, TVDS_ERR_IO, "second");
    ck_assert_int_eq(ctx.status, TVDS_ERR_PARSE);
    ck_assert_str_eq(ctx.msg, "a.mtx:3: bad thing");
    ck_assert_int_eq(TVDS_ERROR(NULL, TVDS_ERR_IO, "x"), TVDS_ERR_IO);
}
END_TEST

START_TEST(test_alloc_injection)
{
    long before = tvds_alloc_count();
    void *p = tvds_malloc(8);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(tvds_alloc_count(), before + 1);
    tvds_alloc_fail_after(1);
    void *q = tvds_malloc(8);
    ck_assert_ptr_nonnull(q);
    ck_assert_ptr_null(tvds_malloc(8));
    ck_assert_ptr_null(tvds_calloc(1, 8));
    tvds_alloc_fail_after(-1);
    void *r = tvds_calloc(2, 8);
    ck_assert_ptr_nonnull(r);
    tvds_free(p);
    tvds_free(q);
    tvds_free(r);
}
END_TEST

START_TEST(test_fn_smooth_ramp)
{
    tvds_fn f = {.kind = TVDS_FN_SMOOTH_RAMP, .amp = 2.0, .t0 = 0.0, .t1 = 0.1};
    ck_assert_double_eq(tvds_fn_eval(&f, -1.0), 0.0);
    ck_assert_double_eq(tvds_fn_eval(&f, 0.2), 2.0);
    ck_assert_double_eq_tol(tvds_fn_eval(&f, 0.05), 1.0, 1e-15);
    /* Derivatives against central differences of the value. */
    double t = 0.0237, h = 1e-6;
    double d1 = (tvds_fn_eval(&f, t + h) - tvds_fn_eval(&f, t - h)) / (2 * h);
    double d2 =
        (tvds_fn_eval(&f, t + h) - 2 * tvds_fn_eval(&f, t) + tvds_fn_eval(&f, t - h)) / (h * h);
    ck_assert_double_eq_tol(tvds_fn_deriv(&f, t, 1), d1, 1e-6 * fabs(d1));
    ck_assert_double_eq_tol(tvds_fn_deriv(&f, t, 2), d2, 1e-3 * fabs(d2));
    /* Zero slope at both ends. */
    ck_assert_double_eq_tol(tvds_fn_deriv(&f, 1e-12, 1), 0.0, 1e-9);
}
END_TEST

START_TEST(test_fn_harmonic_and_table)
{
    tvds_fn h = {.kind = TVDS_FN_HARMONIC, .amp = 1.5, .freq = 1.0};
    ck_assert_double_eq_tol(tvds_fn_eval(&h, 0.25), 1.5, 1e-15);
    ck_assert_double_eq_tol(tvds_fn_deriv(&h, 0.0, 1), 1.5 * 6.283185307179586, 1e-12);
    double tt[3] = {0.0, 1.0, 3.0}, vv[3] = {0.0, 2.0, 0.0};
    tvds_fn tab = {.kind = TVDS_FN_TABLE, .ntab = 3, .tab_t = tt, .tab_v = vv};
    ck_assert_double_eq_tol(tvds_fn_eval(&tab, 0.5), 1.0, 1e-15);
    ck_assert_double_eq_tol(tvds_fn_eval(&tab, 2.0), 1.0, 1e-15);
    ck_assert_double_eq(tvds_fn_eval(&tab, 5.0), 0.0);
    ck_assert_double_eq_tol(tvds_fn_deriv(&tab, 2.0, 1), -1.0, 1e-15);
}
END_TEST

/* tvds_fn_eval_hint: the value of tvds_fn_eval bit for bit, from any hint (stale, out of range,
 * the next segment, far away), with t moving forward, backward and jumping, on a table of
 * uneven segments; the hint left is the segment that holds t; other kinds leave it alone. */
START_TEST(test_fn_eval_hint)
{
    enum { NT = 23 };
    double tt[NT], vv[NT];
    for (int k = 0; k < NT; k++) {
        tt[k] = 0.01 * k * k - 0.3;
        vv[k] = sin(1.7 * k) + 0.1 * k;
    }
    tvds_fn tab = {.kind = TVDS_FN_TABLE, .ntab = NT, .tab_t = tt, .tab_v = vv, .offset = 0.25};
    int hint = 0, checked = 0, moved = 0;
    unsigned r = 12345u;
    double t = tt[0] - 0.1;
    for (int i = 0; i < 20000; i++) {
        r = 1103515245u * r + 12345u;
        int mode = (int)(r >> 16) % 8;
        if (mode < 5) {
            t += 1e-3; /* forward, as a run steps */
        } else if (mode == 5) {
            t -= 7e-3; /* backward */
        } else if (mode == 6) {
            t = tt[0] - 0.2 + (tt[NT - 1] - tt[0] + 0.4) * ((r >> 8) % 1000) / 999.0; /* a jump */
        } else {
            t = tt[(r >> 8) % NT]; /* on a table point */
        }
        if (i % 97 == 0) hint = (int)((r >> 4) % 60) - 20; /* stale or out of range */
        int h0 = hint;
        double a = tvds_fn_eval(&tab, t), b = tvds_fn_eval_hint(&tab, t, &hint);
        ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "t = %.17g: %.17g vs %.17g", t, a, b);
        if (t > tt[0] && t < tt[NT - 1]) {
            ck_assert_msg(hint >= 0 && hint < NT - 1 && tt[hint] <= t && t < tt[hint + 1],
                          "t = %.17g: hint %d", t, hint);
            checked++;
            moved += hint != h0;
        }
    }
    ck_assert_int_gt(checked, 10000);
    ck_assert_int_gt(moved, 100);
    tvds_fn ramp = {.kind = TVDS_FN_SMOOTH_RAMP, .amp = 2.0, .t0 = 0.1, .t1 = 0.3};
    hint = 7;
    double a = tvds_fn_eval(&ramp, 0.2), b = tvds_fn_eval_hint(&ramp, 0.2, &hint);
    ck_assert(memcmp(&a, &b, sizeof a) == 0);
    ck_assert_int_eq(hint, 7);
    ck_assert_double_eq(tvds_fn_eval_hint(NULL, 1.0, &hint), 0.0);
}
END_TEST

/* tvds_fn_integral against composite Simpson quadrature of tvds_fn_eval over intervals that
 * straddle the kinks of the ramps and the table's points (split there, Simpson is exact to
 * 1e-12 on these smooth pieces), for every kind with an offset. */
static double simpson(const tvds_fn *f, double a, double b)
{
    const int n = 20000;
    double h = (b - a) / n, s = tvds_fn_eval(f, a) + tvds_fn_eval(f, b);
    for (int i = 1; i < n; i++)
        s += (i % 2 ? 4.0 : 2.0) * tvds_fn_eval(f, a + i * h);
    return s * h / 3.0;
}

START_TEST(test_fn_integral)
{
    double tt[4] = {-0.5, 0.2, 1.0, 3.0}, vv[4] = {1.0, 2.0, -1.0, 0.5};
    tvds_fn fs[6] = {
        {.kind = TVDS_FN_CONST, .amp = 2.5, .offset = 0.5},
        {.kind = TVDS_FN_RAMP, .amp = 3.0, .t0 = 0.3, .t1 = 1.1, .offset = -0.2},
        {.kind = TVDS_FN_SMOOTH_RAMP, .amp = -2.0, .t0 = -0.4, .t1 = 0.9, .offset = 0.1},
        {.kind = TVDS_FN_HARMONIC, .amp = 1.5, .freq = 0.7, .phase = 0.3, .offset = 0.25},
        {.kind = TVDS_FN_TABLE, .ntab = 4, .tab_t = tt, .tab_v = vv, .offset = 0.0},
        {.kind = TVDS_FN_HARMONIC, .amp = 1.5, .freq = 0.0, .phase = 0.3},
    };
    /* Breakpoints of every function (Simpson is exact between them). */
    double br[] = {-2.0, -0.5, -0.4, 0.0, 0.2, 0.3, 0.9, 1.0, 1.1, 3.0, 4.0};
    int nb = (int)(sizeof br / sizeof br[0]);
    for (int k = 0; k < 6; k++) {
        double total = 0.0;
        for (int i = 0; i + 1 < nb; i++) {
            double q = simpson(&fs[k], br[i], br[i + 1]);
            ck_assert_double_eq_tol(tvds_fn_integral(&fs[k], br[i], br[i + 1]), q,
                                    1e-11 * (1.0 + fabs(q)));
            total += q;
        }
        ck_assert_double_eq_tol(tvds_fn_integral(&fs[k], -2.0, 4.0), total, 1e-10);
    }
    ck_assert_double_eq(tvds_fn_integral(NULL, 0.0, 1.0), 0.0);
}
END_TEST

START_TEST(test_damping_schedule)
{
    tvds_damping d = {.kind = TVDS_DAMP_RAYLEIGH,
                      .alpha = 0.24,
                      .beta = 4e-8,
                      .alpha0 = 40.0,
                      .beta0 = 4e-8,
                      .t_hold = 0.2,
                      .t_ramp = 0.05};
    double a, b;
    tvds_damping_at(&d, 0.1, &a, &b);
    ck_assert_double_eq(a, 40.0);
    tvds_damping_at(&d, 0.225, &a, &b);
    ck_assert_double_eq_tol(a, 0.5 * (40.0 + 0.24), 1e-12);
    tvds_damping_at(&d, 0.3, &a, &b);
    ck_assert_double_eq(a, 0.24);
    ck_assert_double_eq(b, 4e-8);
}
END_TEST

START_TEST(test_methods)
{
    ck_assert_int_eq(tvds_method_from_name("subs-c"), TVDS_METHOD_SUBS_C);
    ck_assert_int_eq(tvds_method_from_name("nope"), -1);
    ck_assert_str_eq(tvds_method_name(TVDS_METHOD_FILM), "film");
    ck_assert_ptr_null(tvds_method_name(99));
    tvds_model *m = tvds_model_create();
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(m->opt.method, TVDS_METHOD_SUBS_B);
    tvds_model_free(&m);
    ck_assert_ptr_null(m);
    tvds_model_free(&m);
}
END_TEST

Suite *core_suite(void)
{
    Suite *s = suite_create("core");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_status_table);
    tcase_add_test(tc, test_ctx_first_error_wins);
    tcase_add_test(tc, test_alloc_injection);
    tcase_add_test(tc, test_fn_smooth_ramp);
    tcase_add_test(tc, test_fn_harmonic_and_table);
    tcase_add_test(tc, test_fn_eval_hint);
    tcase_add_test(tc, test_fn_integral);
    tcase_add_test(tc, test_damping_schedule);
    tcase_add_test(tc, test_methods);
    suite_add_tcase(s, tc);
    return s;
}
