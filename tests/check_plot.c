/* check_plot.c — gnuplot figures: PNG output, panels, a missing gnuplot as a warning, errors. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tvds/tvds_plot.h"
#include "tvds_test.h"

static char dir[64];

static void setup(void)
{
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_plot_");
    char p[128];
    snprintf(p, sizeof p, "%s/data.csv", dir);
    FILE *f = fopen(p, "w");
    fputs("t [s],u [m],v [m/s]\n", f);
    for (int i = 0; i < 50; i++)
        fprintf(f, "%g,%g,%g\n", i * 0.01, 1e-3 * i * i, 0.5 + i);
    fclose(f);
    snprintf(p, sizeof p, "%s/grid.csv", dir);
    f = fopen(p, "w");
    fputs("t [s],f [Hz],A [1]\n", f);
    for (int i = 0; i < 10; i++) {
        if (i) fputc('\n', f);
        for (int j = 0; j < 8; j++)
            fprintf(f, "%d,%d,%g\n", i, 10 * j, 1.0 + i * j);
    }
    fclose(f);
}

static void teardown(void)
{
    ck_assert_int_eq(tvds_test_rmtree(dir), 0);
}

static int is_png(const char *path)
{
    unsigned char sig[8] = {0};
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(sig, 1, 8, f);
    fclose(f);
    static const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    return n == 8 && memcmp(sig, png, 8) == 0;
}

START_TEST(test_panels_png)
{
    char data[128], grid[128], out[128], script[128];
    snprintf(data, sizeof data, "%s/data.csv", dir);
    snprintf(grid, sizeof grid, "%s/grid.csv", dir);
    snprintf(out, sizeof out, "%s/fig.png", dir);
    snprintf(script, sizeof script, "%s/fig.gp", dir);
    tvds_plot_series lines[2] = {
        {.file = data, .header_lines = 1, .xcol = 1, .ycol = 2, .title = "u (it's quoted)"},
        {.file = data,
         .header_lines = 1,
         .xcol = 1,
         .ycol = 3,
         .style = TVDS_PLOT_POINTS,
         .title = "v",
         .color = "#d62728"}};
    tvds_plot_series sc = {.file = data,
                           .header_lines = 1,
                           .xcol = 2,
                           .ycol = 3,
                           .ccol = 1,
                           .style = TVDS_PLOT_SCATTER_COLOR};
    tvds_plot_series hm = {.file = grid,
                           .header_lines = 1,
                           .xcol = 1,
                           .ycol = 2,
                           .ccol = 3,
                           .style = TVDS_PLOT_HEATMAP};
    tvds_plot_refline ref = {.value = 30, .label = "marked", .color = "red", .dashed = 1};
    tvds_plot_panel p[3] = {tvds_plot_panel_default(), tvds_plot_panel_default(),
                            tvds_plot_panel_default()};
    p[0].title = "lines";
    p[0].xlabel = "t [s]";
    p[0].ylabel = "u [m]";
    p[0].logy = 1;
    p[0].nseries = 2;
    p[0].series = lines;
    p[1].nseries = 1;
    p[1].series = &sc;
    p[1].cblabel = "t [s]";
    p[2].nseries = 1;
    p[2].series = &hm;
    p[2].nrefs = 1;
    p[2].refs = &ref;
    p[2].xmin = 0;
    p[2].xmax = 9;
    tvds_plot_figure fig = {
        .output = out, .width = 800, .height = 900, .title = "test", .npanels = 3, .panels = p};
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int rc = tvds_plot_render(&fig, &ctx);
    ck_assert_msg(rc == TVDS_OK, "%d %s", rc, ctx.msg);
    ck_assert(is_png(out));
    ck_assert_int_eq(access(script, R_OK), 0);
    /* The script alone can be written without running anything. */
    unlink(script);
    ck_assert_int_eq(tvds_plot_write_script(&fig, script, &ctx), TVDS_OK);
    FILE *f = fopen(script, "r");
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    ck_assert(strstr(buf, "set terminal pngcairo size 800,900") != NULL);
    ck_assert(strstr(buf, "set multiplot layout 3,1") != NULL);
    ck_assert(strstr(buf, "'u (it''s quoted)'") != NULL);
    ck_assert(strstr(buf, "set logscale y") != NULL);
    ck_assert(strstr(buf, "with image") != NULL);
    /* Paths relative to the script's folder (the folder can move; gnuplot runs in it). */
    ck_assert(strstr(buf, "set output 'fig.png'") != NULL);
    ck_assert(strstr(buf, "'data.csv' skip 1") != NULL);
    ck_assert(strstr(buf, dir) == NULL);
}
END_TEST

START_TEST(test_missing_gnuplot_is_warning)
{
    char data[128], out[128];
    snprintf(data, sizeof data, "%s/data.csv", dir);
    snprintf(out, sizeof out, "%s/fig2.png", dir);
    tvds_plot_series s = {.file = data, .header_lines = 1, .xcol = 1, .ycol = 2};
    tvds_plot_panel p = tvds_plot_panel_default();
    p.nseries = 1;
    p.series = &s;
    tvds_plot_figure fig = {.output = out, .npanels = 1, .panels = &p};
    setenv("TVDS_GNUPLOT", "/nonexistent/gnuplot", 1);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int rc = tvds_plot_render(&fig, &ctx);
    unsetenv("TVDS_GNUPLOT");
    ck_assert_int_eq(rc, TVDS_WARN_NO_GNUPLOT);
    ck_assert_int_gt(rc, 0);
    ck_assert_int_eq(ctx.status, TVDS_OK); /* a later error can still be recorded */
    ck_assert(strstr(ctx.msg, "/nonexistent/gnuplot") != NULL);
    ck_assert_int_eq(tvds_status_exit_code(rc), 0);
}
END_TEST

START_TEST(test_errors)
{
    char data[128], out[128];
    snprintf(data, sizeof data, "%s/data.csv", dir);
    snprintf(out, sizeof out, "%s/fig3.png", dir);
    tvds_plot_series s = {.file = data, .header_lines = 1, .xcol = 1, .ycol = 0};
    tvds_plot_panel p = tvds_plot_panel_default();
    p.nseries = 1;
    p.series = &s;
    tvds_plot_figure fig = {.output = out, .npanels = 1, .panels = &p};
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_plot_render(&fig, &ctx), TVDS_ERR_INVALID);
    /* gnuplot rejects the script: its message comes back in ctx. */
    s.using = "1:(";
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_plot_render(&fig, &ctx), TVDS_ERR_IO);
    ck_assert_msg(strstr(ctx.msg, "gnuplot failed") != NULL, "%s", ctx.msg);
    fig.output = NULL;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_plot_render(&fig, &ctx), TVDS_ERR_INVALID);
}
END_TEST

Suite *plot_suite(void)
{
    Suite *s = suite_create("plot");
    TCase *tc = tcase_create("plot");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 20);
    tcase_add_test(tc, test_panels_png);
    tcase_add_test(tc, test_missing_gnuplot_is_warning);
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    return s;
}
