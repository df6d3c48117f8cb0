/* check_study.c — the squeal study's library parts on synthetic inputs: the choice of the window
 * a transient crosses, the windows' table and report.md's stage table, the study's --mesh. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/study_impl.h"
#include "tvds/tvds_study.h"
#include "tvds_test.h"

/* Three windows of a survey: w0 weak, w1 the strongest (a master node at 40.3 mm inside it),
 * w2 the strongest node-free one. */
static tvds_cea_window windows3[3];
static tvds_cea_result survey3;

static void make_survey(void)
{
    static const double s_in[3] = {0.0300, 0.0400, 0.0502}, s_out[3] = {0.0304, 0.0406, 0.0506};
    static const double g[3] = {2.0, 9.0, 6.0}, re[3] = {3.0, 12.0, 8.5};
    memset(windows3, 0, sizeof windows3);
    memset(&survey3, 0, sizeof survey3);
    for (int w = 0; w < 3; w++) {
        tvds_cea_window *cw = &windows3[w];
        cw->branch = w;
        cw->s_in = cw->s_start = s_in[w];
        cw->s_out = cw->s_end = s_out[w];
        cw->f_peak = 7000.0;
        cw->re_max = re[w];
        cw->growth_pred = g[w];
        cw->t_start = cw->t_end = NAN;
        cw->anti_peak = NAN; /* 2D: no mode family */
    }
    survey3.nwin = 3;
    survey3.win = windows3;
}

/* The studied window is the strongest without a master node within the masked span of its
 * edges: the node at 40.3 mm rules out w1; with nodes in every window there is none. */
START_TEST(test_window_choice)
{
    make_survey();
    double S[] = {0.0403, 0.045, 0.055};
    study_nodes nd = {S, 3, 0.0125};
    ck_assert_int_eq(study_strongest(&survey3), 1);
    ck_assert_int_eq(study_target(&survey3, &nd), 2);
    ck_assert_double_eq(study_window_node(&survey3, 1, &nd), 0.0403);
    ck_assert(isnan(study_window_node(&survey3, 2, &nd)));
    ck_assert(isnan(study_window_node(&survey3, -1, &nd)));
    ck_assert_double_eq(study_max_re(&survey3), 12.0);
    /* The masked span around w2's edge (0.0125 m/s x tvds_compare_mask_half(7 kHz) + the CEA's
     * resolution 0.05 mm) reaches a node 0.06 mm after its exit, not one 0.2 mm after. */
    double mh = 0.0125 * tvds_compare_mask_half(7000.0, 0.0) + TVDS_STUDY_DS_MIN;
    ck_assert(mh > 6e-5 && mh < 2e-4);
    double S2[] = {0.0302, 0.0403, 0.0506 + 0.9 * mh};
    study_nodes nd2 = {S2, 3, 0.0125};
    ck_assert_int_eq(study_target(&survey3, &nd2), -1);
    double S3[] = {0.0403, 0.0506 + mh + 1e-4};
    study_nodes nd3 = {S3, 2, 0.0125};
    ck_assert_int_eq(study_target(&survey3, &nd3), 2);
    tvds_cea_result none = {0};
    ck_assert_int_eq(study_strongest(&none), -1);
    ck_assert(study_max_re(&none) == -INFINITY);
}
END_TEST

/* The windows' table of report.md: one row per window, the strongest and the studied marked. */
START_TEST(test_windows_table)
{
    make_survey();
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(fp);
    study_windows_table(fp, &survey3, 1, 2, 12.5);
    tvds_cea_result none = {0};
    study_windows_table(fp, &none, -1, -1, 12.5);
    fclose(fp);
    const char *want =
        "| branch | s_in … s_out [mm] | width [mm] | f at max Re [Hz] | max Re [1/s] | "
        "predicted growth at 12 mm/s |\n"
        "|---|---|---|---|---|---|\n"
        "| 0 | 30.000 … 30.400 | 0.400 | 7000 | 3 | 2 |\n"
        "| 1 | 40.000 … 40.600 | 0.600 | 7000 | 12 | 9 | ← strongest\n"
        "| 2 | 50.200 … 50.600 | 0.400 | 7000 | 8.5 | 6 | ← strongest without a master node "
        "(studied)\n"
        "No unstable window.\n";
    ck_assert_str_eq(buf, want);
    free(buf);
}
END_TEST

/* report.md of a study stopped in its survey: the status, the message and each stage's folder
 * with its state; written whole (no temporary file left). */
START_TEST(test_status_report)
{
    char dir[256], path[300];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_study_");
    int st[ST_N] = {0};
    st[ST_MODEL] = SS_DONE;
    st[ST_CEA] = SS_RUNNING;
    st[ST_B] = SS_SKIPPED;
    study_status_report(dir, "Beam-on-beam study: interrupted", "**interrupted**", "why", st);
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *md = tvds_test_slurp(path, NULL);
    ck_assert_ptr_nonnull(md);
    const char *want =
        "# Beam-on-beam study: interrupted\n\nStatus: **interrupted**\n\nwhy\n"
        "\n## Outputs of this study\n\n| stage | folder | state |\n|---|---|---|\n"
        "| models | `model/` | complete |\n"
        "| CEA survey | `cea/` | **incomplete**: stopped in this stage (what it holds is "
        "partial) |\n"
        "| procedure for mu | `cea_mu<MU>/` | not written (an earlier study's outputs were "
        "removed at the start) |\n"
        "| part (a) transients | `a/` | not written (an earlier study's outputs were removed at "
        "the start) |\n"
        "| part (b) transients | `b/` | not needed (nothing written) |\n";
    ck_assert_str_eq(md, want);
    free(md);
    snprintf(path, sizeof path, "%s/report.md.tmp", dir);
    FILE *tmp = fopen(path, "r");
    ck_assert_ptr_null(tmp);
    ck_assert_int_eq(tvds_test_rmtree(dir), 0);
}
END_TEST

/* --mesh: beam 1 / beam 2 element counts, optionally ":M" modes; 3D a third count each. */
START_TEST(test_parse_mesh)
{
    tvds_bob_params p;
    int modes = -1;
    const char *s = "40x2/20x4:12";
    ck_assert_int_eq(tvds_study_parse_mesh(&s, 0, &p, &modes), 0);
    ck_assert_str_eq(s, "");
    ck_assert_int_eq(p.beam1.nx, 40);
    ck_assert_int_eq(p.beam1.ny, 2);
    ck_assert_int_eq(p.beam2.nx, 20);
    ck_assert_int_eq(p.beam2.ny, 4);
    ck_assert_int_eq(modes, 12);
    ck_assert_int_eq(p.modes1, 12);
    s = "10x1x3/12x2x5";
    ck_assert_int_eq(tvds_study_parse_mesh(&s, 1, &p, &modes), 0);
    ck_assert_int_eq(p.beam1.nz, 3);
    ck_assert_int_eq(p.beam2.nz, 5);
    ck_assert_int_eq(modes, 0);
    const char *bad[] = {"10x1x1/10", "0x2/20x4", "40x2-20x4", "40x2/20x4:0"};
    for (int k = 0; k < 4; k++) {
        s = bad[k];
        ck_assert_int_eq(tvds_study_parse_mesh(&s, 1, &p, &modes), -1);
    }
}
END_TEST

Suite *study_suite(void)
{
    Suite *s = suite_create("study");
    TCase *tc = tcase_create("report");
    tcase_add_test(tc, test_window_choice);
    tcase_add_test(tc, test_windows_table);
    tcase_add_test(tc, test_status_report);
    tcase_add_test(tc, test_parse_mesh);
    suite_add_tcase(s, tc);
    return s;
}
