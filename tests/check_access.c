/* check_access.c — the accessors of tvds_access.h (what bindings read without mirroring
 * structs): version, heap context, label splitting, run options by key, channel metadata, CEA
 * options and results by name. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "tvds/tvds_access.h"
#include "tvds/tvds_case.h"

START_TEST(test_version)
{
    int a = -1, b = -1, c = -1;
    ck_assert_str_eq(tvds_version(&a, &b, &c), TVDS_VERSION);
    ck_assert_int_eq(a, TVDS_VERSION_MAJOR);
    ck_assert_int_eq(b, TVDS_VERSION_MINOR);
    ck_assert_int_eq(c, TVDS_VERSION_PATCH);
    ck_assert_int_eq(TVDS_VERSION_NUMBER, a * 10000 + b * 100 + c);
    ck_assert_str_eq(tvds_version(NULL, NULL, NULL), TVDS_VERSION);
}
END_TEST

START_TEST(test_ctx_heap)
{
    tvds_ctx *ctx = tvds_ctx_create();
    ck_assert_ptr_nonnull(ctx);
    ck_assert_int_eq(tvds_ctx_status(ctx), TVDS_OK);
    ck_assert_str_eq(tvds_ctx_message(ctx), "");
    TVDS_ERROR(ctx, TVDS_ERR_PARSE, "case.ini:%d: bad", 7);
    ck_assert_int_eq(tvds_ctx_status(ctx), TVDS_ERR_PARSE);
    ck_assert_str_eq(tvds_ctx_message(ctx), "case.ini:7: bad");
    tvds_ctx_free(&ctx);
    ck_assert_ptr_null(ctx);
    tvds_ctx_free(&ctx); /* NULL is fine */
    ck_assert_int_eq(tvds_ctx_status(NULL), TVDS_ERR_INVALID);
}
END_TEST

START_TEST(test_label_split)
{
    char n[64], u[16];
    ck_assert_int_eq(tvds_label_split("C.10001.lambda_n [N]", n, sizeof n, u, sizeof u), 0);
    ck_assert_str_eq(n, "C.10001.lambda_n");
    ck_assert_str_eq(u, "N");
    ck_assert_int_eq(tvds_label_split("v [m/s]", n, sizeof n, u, sizeof u), 0);
    ck_assert_str_eq(n, "v");
    ck_assert_str_eq(u, "m/s");
    ck_assert_int_eq(tvds_label_split("branch", n, sizeof n, u, sizeof u), 0);
    ck_assert_str_eq(n, "branch");
    ck_assert_str_eq(u, "");
    /* The last " [" opens the unit; a bracket not at the end is part of the name. */
    ck_assert_int_eq(tvds_label_split("a [x] b [Pa]", n, sizeof n, u, sizeof u), 0);
    ck_assert_str_eq(n, "a [x] b");
    ck_assert_str_eq(u, "Pa");
    ck_assert_int_eq(tvds_label_split("a [x] b", n, sizeof n, u, sizeof u), 0);
    ck_assert_str_eq(n, "a [x] b");
    ck_assert_str_eq(u, "");
    ck_assert_int_eq(tvds_label_split("[m]", n, sizeof n, u, sizeof u), 0); /* no " [" */
    ck_assert_str_eq(n, "[m]");
    ck_assert_int_eq(tvds_label_split("e []", n, sizeof n, u, sizeof u), 0);
    ck_assert_str_eq(n, "e");
    ck_assert_str_eq(u, "");
    /* Cut to fit: said, and still terminated. */
    ck_assert_int_eq(tvds_label_split("long_name [N]", n, 5, u, sizeof u), TVDS_ERR_INVALID);
    ck_assert_str_eq(n, "long");
    ck_assert_int_eq(tvds_label_split("x [N]", NULL, 0, u, sizeof u), 0);
    ck_assert_str_eq(u, "N");
    ck_assert_int_eq(tvds_label_split(NULL, n, sizeof n, u, sizeof u), TVDS_ERR_INVALID);
}
END_TEST

static const char *case_text = "[run]\n"
                               "name = acc\n"
                               "dt = 1e-4\n"
                               "t_end = 0.01\n"
                               "out_dt = 1e-3\n"
                               "film_maxit = 37\n"
                               "max_steps = 5000\n"
                               "[substructure mass]\n"
                               "dir = shoe\n"
                               "[contact base]\n"
                               "slave = mass:contact\n"
                               "master = rigid\n"
                               "point = 0 0 0\n"
                               "normal = 0 0 1\n"
                               "mu = 0.1\n"
                               "[gravity]\n"
                               "g = 0 0 -10\n"
                               "[probe dz]\n"
                               "quantity = u\n"
                               "dof = mass:1:uz\n";

static tvds_model *read_model(tvds_ctx *ctx, const char *const *sets, int nsets)
{
    tvds_model *m = NULL;
    tvds_ctx_init(ctx);
    int rc = tvds_case_read_string(case_text, "acc.ini", "tests/data/case", sets, nsets, &m, ctx);
    ck_assert_msg(rc == 0, "%s", ctx->msg);
    return m;
}

START_TEST(test_model_options)
{
    tvds_ctx ctx;
    const char *sets[] = {"run.method=film"};
    tvds_model *m = read_model(&ctx, sets, 1);
    ck_assert_str_eq(tvds_model_name(m), "acc");
    ck_assert(tvds_model_t_end(m) == 0.01);
    ck_assert(tvds_model_dt(m) == 1e-4);
    ck_assert(tvds_model_out_dt(m) == 1e-3);
    ck_assert_int_eq(tvds_model_method(m), TVDS_METHOD_FILM);
    double v;
    ck_assert_int_eq(tvds_model_option(m, "film_maxit", &v, &ctx), 0);
    ck_assert(v == 37);
    ck_assert_int_eq(tvds_model_option(m, "max_steps", &v, &ctx), 0);
    ck_assert(v == 5000);
    ck_assert_int_eq(tvds_model_option(m, "t_end", &v, &ctx), 0);
    ck_assert(v == 0.01);
    ck_assert_int_eq(tvds_model_option(m, "path", &v, &ctx), 0);
    ck_assert(v == TVDS_PATH_AUTO);
    /* Every key listed is known, and the list ends. */
    int k = 0;
    for (; tvds_model_option_key(k); k++)
        ck_assert_int_eq(tvds_model_option(m, tvds_model_option_key(k), &v, &ctx), 0);
    ck_assert_int_eq(k, 18);
    ck_assert_int_eq(tvds_model_option(m, "search", &v, &ctx), 0);
    ck_assert(v == TVDS_SEARCH_WALK);
    ck_assert_int_eq(tvds_model_option(m, "reuse_off", &v, &ctx), 0);
    ck_assert(v == 0);
    ck_assert_int_eq(tvds_model_option(m, "t_emd", &v, &ctx), TVDS_ERR_INVALID);
    ck_assert_str_eq(ctx.msg, "unknown run option 't_emd'");
    ck_assert_int_eq(tvds_model_nsub(m), 1);
    ck_assert_str_eq(tvds_model_sub_name(m, 0), "mass");
    ck_assert_ptr_null(tvds_model_sub_name(m, 1));
    ck_assert_int_eq(tvds_model_sub_ndof(m, 0), 3);
    ck_assert_int_eq(tvds_model_sub_ndof(m, -1), -1);
    ck_assert_int_eq(tvds_model_ncontact(m), 1);
    ck_assert_str_eq(tvds_model_contact_name(m, 0), "base");
    ck_assert_int_eq(tvds_model_find_contact(m, "base"), 0);
    ck_assert_int_eq(tvds_model_find_contact(m, "top"), -1);
    ck_assert_int_eq(tvds_model_nprobe(m), 1);
    ck_assert_str_eq(tvds_model_probe_name(m, 0), "dz");
    tvds_model_free(&m);
    /* dt = auto: 0 from the accessors. */
    const char *autodt[] = {"run.dt=auto"};
    m = read_model(&ctx, autodt, 1);
    ck_assert(tvds_model_dt(m) == 0.0);
    tvds_model_free(&m);
    ck_assert(isnan(tvds_model_t_end(NULL)));
    ck_assert_str_eq(tvds_model_name(NULL), "");
}
END_TEST

START_TEST(test_channel_info)
{
    tvds_ctx ctx;
    tvds_model *m = read_model(&ctx, NULL, 0);
    tvds_data *d = NULL;
    ck_assert_msg(tvds_data_create(m, &d, &ctx) == 0, "%s", ctx.msg);
    ck_assert_int_eq(tvds_step(m, d, &ctx), 0);
    ck_assert_str_eq(tvds_group_name(TVDS_GROUP_CONTACTS), "contacts");
    ck_assert_ptr_null(tvds_group_name(TVDS_GROUP_COUNT));
    ck_assert_int_eq(tvds_channel_count(d, TVDS_GROUP_COUNT), -1);
    for (int g = 0; g < TVDS_GROUP_COUNT; g++) {
        int n;
        const char *const *names;
        const double *vals;
        ck_assert_int_eq(tvds_channels(d, g, &n, &names, &vals), 0);
        ck_assert_int_eq(tvds_channel_count(d, g), n);
        for (int i = 0; i < n; i++) {
            char nm[128], un[32], back[192];
            ck_assert_int_eq(tvds_channel_info(d, g, i, nm, sizeof nm, un, sizeof un), 0);
            /* Name and unit put back together give the published label. */
            snprintf(back, sizeof back, un[0] ? "%s [%s]" : "%s", nm, un);
            ck_assert_str_eq(back, names[i]);
        }
        ck_assert_int_eq(tvds_channel_info(d, g, n, NULL, 0, NULL, 0), TVDS_ERR_INVALID);
    }
    char nm[64], un[16];
    ck_assert_int_eq(tvds_channel_info(d, TVDS_GROUP_HISTORY, 1, nm, sizeof nm, un, sizeof un), 0);
    ck_assert_str_eq(nm, "dz");
    ck_assert_str_eq(un, "m");
    ck_assert_int_eq(tvds_channel_info(d, TVDS_GROUP_CONTACTS, 1, nm, sizeof nm, un, sizeof un), 0);
    ck_assert_str_eq(nm, "base.lambda_n");
    ck_assert_str_eq(un, "N");
    tvds_data_free(&d);
    tvds_model_free(&m);
}
END_TEST

START_TEST(test_cea_options_and_result)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cea_options *o = tvds_cea_options_create();
    ck_assert_ptr_nonnull(o);
    tvds_cea_options def = tvds_cea_options_default();
    ck_assert_int_eq(o->nmodes, def.nmodes);
    ck_assert_int_eq(tvds_cea_options_set(o, "nmodes", 7, &ctx), 0);
    ck_assert_int_eq(o->nmodes, 7);
    ck_assert_int_eq(tvds_cea_options_set(o, "gap_rel", 0.125, &ctx), 0);
    ck_assert(o->gap_rel == 0.125);
    ck_assert_int_eq(tvds_cea_options_set(o, "refine", 0, &ctx), 0);
    ck_assert_int_eq(o->refine, 0);
    ck_assert_int_eq(tvds_cea_options_set(o, "nmodes", 2.5, &ctx), TVDS_ERR_INVALID);
    ck_assert_str_eq(ctx.msg, "CEA option nmodes = 2.5: need an integer");
    ck_assert_int_eq(o->nmodes, 7);
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_cea_options_set(o, "modes", 3, &ctx), TVDS_ERR_INVALID);
    ck_assert_str_eq(ctx.msg, "unknown CEA option 'modes'");
    volatile sig_atomic_t flag = 0;
    tvds_cea_options_set_stop(o, &flag);
    ck_assert_ptr_eq((void *)o->stop, (void *)&flag);

    /* A result with one window, read back field by field. */
    double s[2] = {0.0, 0.5}, f[4] = {1, 2, 3, 4};
    tvds_cea_window w;
    memset(&w, 0, sizeof w);
    w.branch = 1;
    w.s_in = 0.25;
    w.f_peak = 3.5;
    w.growth_pred = NAN;
    tvds_cea_result r;
    memset(&r, 0, sizeof r);
    r.npos = 2;
    r.nbranch = 2;
    r.s = s;
    r.freq = f;
    r.nwin = 1;
    r.win = &w;
    int np, nb, nw, len;
    ck_assert_int_eq(tvds_cea_result_size(&r, &np, &nb, &nw), 0);
    ck_assert(np == 2 && nb == 2 && nw == 1);
    ck_assert_ptr_eq(tvds_cea_result_array(&r, "s", &len), s);
    ck_assert_int_eq(len, 2);
    ck_assert_ptr_eq(tvds_cea_result_array(&r, "freq", &len), f);
    ck_assert_int_eq(len, 4);
    ck_assert_ptr_null(tvds_cea_result_array(&r, "anti", &len)); /* absent */
    ck_assert_int_eq(len, 0);
    ck_assert_ptr_null(tvds_cea_result_array(&r, "frequency", NULL));
    double out[1];
    ck_assert_int_eq(tvds_cea_result_windows(&r, "branch", out, &ctx), 0);
    ck_assert(out[0] == 1);
    ck_assert_int_eq(tvds_cea_result_windows(&r, "s_in", out, &ctx), 0);
    ck_assert(out[0] == 0.25);
    ck_assert_int_eq(tvds_cea_result_windows(&r, "f_peak", out, &ctx), 0);
    ck_assert(out[0] == 3.5);
    ck_assert_int_eq(tvds_cea_result_windows(&r, "growth_pred", out, &ctx), 0);
    ck_assert(isnan(out[0]));
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_cea_result_windows(&r, "peak", out, &ctx), TVDS_ERR_INVALID);
    ck_assert_str_eq(ctx.msg, "unknown CEA window field 'peak'");
    tvds_cea_options_free(&o);
    ck_assert_ptr_null(o);
    tvds_cea_options_free(&o);
}
END_TEST

/* NULL objects: a defined answer, never a crash (bindings may pass a freed handle as NULL). */
START_TEST(test_null_objects)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    double v = 0, a = 0, b = 0;
    ck_assert_int_eq(tvds_model_option(NULL, "t_end", &v, &ctx), TVDS_ERR_INVALID);
    ck_assert(isnan(tvds_model_dt(NULL)) && isnan(tvds_model_out_dt(NULL)));
    ck_assert_int_eq(tvds_model_method(NULL), -1);
    ck_assert_int_eq(tvds_model_nsub(NULL) + tvds_model_ncontact(NULL) + tvds_model_nprobe(NULL),
                     0);
    ck_assert_ptr_null(tvds_model_sub_name(NULL, 0));
    ck_assert_ptr_null(tvds_model_contact_name(NULL, 0));
    ck_assert_ptr_null(tvds_model_probe_name(NULL, 0));
    ck_assert_int_eq(tvds_model_find_contact(NULL, "C"), -1);
    ck_assert_int_eq(tvds_channel_count(NULL, 0), -1);
    ck_assert_int_eq(tvds_channel_info(NULL, 0, 0, NULL, 0, NULL, 0), TVDS_ERR_INVALID);
    ck_assert_int_eq(tvds_run_simple(NULL, "out/none", NULL, &ctx), TVDS_ERR_INVALID);
    ck_assert_int_eq(tvds_cea_options_set(NULL, "nmodes", 1, &ctx), TVDS_ERR_INVALID);
    tvds_cea_options_set_stop(NULL, NULL);
    ck_assert_int_eq(tvds_cea_default_range(NULL, 0, NULL, &a, &b, &ctx), TVDS_ERR_INVALID);
    ck_assert_int_eq(tvds_cea_result_size(NULL, NULL, NULL, NULL), TVDS_ERR_INVALID);
    ck_assert_ptr_null(tvds_cea_result_array(NULL, "s", NULL));
    ck_assert_int_eq(tvds_cea_result_windows(NULL, "s_in", &v, &ctx), TVDS_ERR_INVALID);
    ck_assert_int_eq(tvds_reduce_dir(NULL, "top", NULL, NULL, 4, 0, 1, "x", &ctx),
                     TVDS_ERR_INVALID);
    ck_assert_int_eq(tvds_import_calculix_dir(NULL, "x", 1, &ctx), TVDS_ERR_INVALID);
    /* A non-.inp job is refused before any file is opened. */
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_import_calculix_dir("job.txt", "x", 1, &ctx), TVDS_ERR_INVALID);
    ck_assert_str_eq(ctx.msg, "import: job.txt: expected a JOB.inp file");
}
END_TEST

Suite *access_suite(void)
{
    Suite *s = suite_create("access");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_version);
    tcase_add_test(tc, test_ctx_heap);
    tcase_add_test(tc, test_label_split);
    tcase_add_test(tc, test_model_options);
    tcase_add_test(tc, test_channel_info);
    tcase_add_test(tc, test_cea_options_and_result);
    tcase_add_test(tc, test_null_objects);
    suite_add_tcase(s, tc);
    return s;
}
