/* check_bench.c — no allocation in the time loop (every method, both paths) and the synthetic
 * benchmark models of tvds_bench.h. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tvds/tvds_bench.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_cea.h"
#include "tvds/tvds_sim.h"
#include "tvds_test.h"
#include "core/test_hooks_impl.h"

#define BOB_CASE "bench/cases/beam_on_beam.ini"

/* 1000 steps of the paper-size beam-on-beam model (24 + 220 reduced DoFs, one sliding contact)
 * with the counting allocator: the loop must not allocate, for every method (_i / 2) and both
 * paths (_i % 2: modal, physical). */
START_TEST(test_no_alloc_in_loop)
{
    int method = _i / 2, modal = _i % 2 == 0;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    int rc = tvds_case_read(BOB_CASE, NULL, 0, &m, &ctx);
    ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
    m->opt.method = method;
    m->opt.modal = modal;
    tvds_data *d = NULL;
    rc = tvds_data_create(m, &d, &ctx);
    ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
    const double h = tvds_data_dt(d);
    long before = tvds_alloc_count();
    for (int k = 0; k < 1000 && rc == TVDS_OK; k++)
        rc = tvds_step(m, d, &ctx);
    long after = tvds_alloc_count();
    ck_assert_msg(rc == TVDS_OK, "%s: %s", tvds_method_name(method), ctx.msg);
    ck_assert_msg(after == before, "%s (%s path): %ld allocations in 1000 steps",
                  tvds_method_name(method), modal ? "modal" : "physical", after - before);
    ck_assert_int_eq(tvds_data_steps(d), 1000);
    ck_assert_double_eq_tol(tvds_data_time(d), 1000 * h, 1e-9 * h);
    int n = 0;
    const double *v = NULL;
    tvds_channels(d, TVDS_GROUP_HISTORY, &n, NULL, &v);
    for (int c = 0; c < n; c++)
        ck_assert(isfinite(v[c]));
    tvds_data_free(&d);
    tvds_model_free(&m);
}
END_TEST

/* The exact modal integrator on the same model at the step of its 11 kHz band (8 times the
 * central-difference step): no allocation in the loop, finite channels. */
START_TEST(test_exact_no_alloc)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    int rc = tvds_case_read(BOB_CASE, NULL, 0, &m, &ctx);
    ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
    m->opt.integrator = TVDS_INTEGRATOR_EXACT;
    m->opt.f_band = 11e3;
    tvds_data *d = NULL;
    rc = tvds_data_create(m, &d, &ctx);
    ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
    ck_assert_double_eq_tol(tvds_data_dt(d), 0.9 * sqrt(24e-3) / (2.0 * 3.14159265358979 * 11e3),
                            1e-12);
    long before = tvds_alloc_count();
    for (int k = 0; k < 1000 && rc == TVDS_OK; k++)
        rc = tvds_step(m, d, &ctx);
    ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(tvds_alloc_count(), before);
    int n = 0;
    const double *v = NULL;
    tvds_channels(d, TVDS_GROUP_HISTORY, &n, NULL, &v);
    for (int c = 0; c < n; c++)
        ck_assert(isfinite(v[c]));
    tvds_data_free(&d);
    tvds_model_free(&m);
}
END_TEST

/* The floor kernel runs on the beam-on-beam sizes and rejects bad sizes. */
START_TEST(test_floor_kernel)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int n[2] = {24, 220};
    double us = -1.0;
    ck_assert_int_eq(tvds_bench_floor(2, n, 2000, 3, &us, &ctx), TVDS_OK);
    ck_assert_double_gt(us, 0.0);
    ck_assert(isfinite(us));
    n[0] = 1;
    ck_assert_int_eq(tvds_bench_floor(2, n, 10, 1, &us, &ctx), TVDS_ERR_INVALID);
    ck_assert_int_eq(tvds_bench_floor(0, n, 10, 1, &us, &ctx), TVDS_ERR_INVALID);
}
END_TEST

static void rm_sub(const char *dir)
{
    static const char *const files[] = {"M.mtx",    "K.mtx",        "C.mtx",       "dofs.txt",
                                        "sets.txt", "recovery.mtx", "recovery.txt"};
    char p[700];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        unlink(p);
    }
    rmdir(dir);
}

/* The synthetic model of size n: n + 4 DoFs, a master surface of n/2 nodes 1 mm apart, and
 * its time loop allocation-free too (subs-b and film). */
START_TEST(test_synthetic_model)
{
    char dir[64];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_bench_");
    char cpath[600], sub[600];
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int rc = tvds_bench_synthetic_write(dir, 60, cpath, sizeof cpath, &ctx);
    ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(tvds_bench_synthetic_write(dir, 7, cpath, sizeof cpath, &ctx),
                     TVDS_ERR_INVALID);
    tvds_model *m = NULL;
    tvds_ctx_init(&ctx);
    rc = tvds_case_read(cpath, NULL, 0, &m, &ctx);
    ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(m->nsub, 2);
    ck_assert_int_eq(m->subs[0]->n + m->subs[1]->n, 64);
    double L = 0.0;
    ck_assert_int_eq(tvds_cea_surface_length(m, 0, &L, &ctx), TVDS_OK);
    ck_assert_double_eq_tol(L, 29e-3, 1e-12);
    for (int method = TVDS_METHOD_SUBS_B; method <= TVDS_METHOD_FILM; method += 2) {
        m->opt.method = method;
        tvds_bench_timing t;
        rc = tvds_bench_steps(m, 1000, NULL, 0, &t, &ctx);
        ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
        ck_assert_int_eq(t.steps, 1000);
        ck_assert_int_eq(t.allocs, 0);
        ck_assert(t.us_per_step > 0.0);
    }
    tvds_model_free(&m);
    unlink(cpath);
    snprintf(sub, sizeof sub, "%s/track", dir);
    rm_sub(sub);
    snprintf(sub, sizeof sub, "%s/slider", dir);
    rm_sub(sub);
    rmdir(dir);
}
END_TEST

Suite *bench_suite(void)
{
    Suite *s = suite_create("bench");
    TCase *tc = tcase_create("no_alloc");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, test_no_alloc_in_loop, 0, 2 * TVDS_METHOD_COUNT);
    tcase_add_test(tc, test_synthetic_model);
    tcase_add_test(tc, test_exact_no_alloc);
    tcase_add_test(tc, test_floor_kernel);
    suite_add_tcase(s, tc);
    return s;
}
