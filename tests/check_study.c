/* check_study.c — the squeal study's library parts on synthetic inputs: the choice of the window
 * a transient crosses, the windows' table and report.md's stage table, the study's --mesh. */
#include <check.h>
#include <math.h>
#include <signal.h>
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

/* tvds_study_run's progress goes to the caller's callbacks (the library prints nothing). */
typedef struct notes {
    char text[8192];
    int nnote, nstage;
} notes;

static void on_note(void *user, const char *text)
{
    notes *n = user;
    n->nnote++;
    strncat(n->text, text, sizeof n->text - strlen(n->text) - 1);
}

static void on_stage(void *user, const char *prefix)
{
    notes *n = user;
    n->nstage++;
    (void)prefix;
}

static const char *sig_name(int sig)
{
    return sig == 15 ? "SIGTERM" : "other";
}

/* The whole study on a coarse pair without transients: every CEA stage runs, the progress comes
 * through the callbacks, report.md is the complete one and the summary is filled in. A stop set
 * before the start ends it after the models: report.md then says interrupted, by which signal
 * and in which stage, and which folders are whole. */
START_TEST(test_study_run)
{
    char dir[256], path[300];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_study_run_");
    tvds_bob_params mesh;
    int modes = 0;
    const char *ms = "20x1/10x2";
    ck_assert_int_eq(tvds_study_parse_mesh(&ms, 0, &mesh, &modes), 0);
    notes nt;
    memset(&nt, 0, sizeof nt);
    volatile sig_atomic_t stop = 0;
    tvds_study_opts o = tvds_study_opts_default();
    o.geom.mesh = &mesh;
    o.geom.mesh_txt = "20x1/10x2";
    o.geom.stop = &stop;
    o.ds = 0.005;
    o.mu = 0.7;
    o.transients = 0;
    o.plots = 0;
    o.threads = 1;
    o.note = on_note;
    o.stage = on_stage;
    o.signal_name = sig_name;
    o.user = &nt;
    tvds_study_result res;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int rc = tvds_study_run("models/beam_on_beam/beam_on_beam.ini", dir, &o, &res, &ctx);
    ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
    ck_assert(strstr(nt.text, "study: [1/4] beam-on-beam models") != NULL);
    ck_assert(strstr(nt.text, "study: [2/4] CEA survey") != NULL);
    ck_assert(strstr(nt.text, "study: report ") != NULL);
    ck_assert_int_ge(nt.nstage, 4); /* three survey loci, then the transients' prefix */
    ck_assert_double_eq(res.mu_case, 0.3);
    ck_assert_double_eq(res.mu_pick, 0.7);
    ck_assert_int_eq(res.mu_given, 1);
    ck_assert_int_eq(res.ran_a + res.ran_b, 0);
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *md = tvds_test_slurp(path, NULL);
    ck_assert_ptr_nonnull(md);
    ck_assert(strstr(md, "# Beam-on-beam squeal study\n") == md);
    ck_assert(strstr(md, "μ = 0.7 given on the command line") != NULL);
    ck_assert(strstr(md, "| procedure for mu | `cea_mu<MU>/` | complete |") != NULL);
    ck_assert(strstr(md, "| part (b) transients | `b/` | not needed (nothing written) |") != NULL);
    free(md);
    snprintf(path, sizeof path, "%s/cea/locus.csv", dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    fclose(f);

    stop = 15;
    nt.nnote = 0;
    rc = tvds_study_run("models/beam_on_beam/beam_on_beam.ini", dir, &o, &res, &ctx);
    ck_assert_int_eq(rc, TVDS_ERR_INTERRUPTED);
    snprintf(path, sizeof path, "%s/report.md", dir);
    md = tvds_test_slurp(path, NULL);
    ck_assert_ptr_nonnull(md);
    ck_assert(strstr(md, "# Beam-on-beam study: interrupted\n") == md);
    ck_assert(strstr(md, "**interrupted** (SIGTERM) during the model stage") != NULL);
    ck_assert(strstr(md, "| models | `model/` | complete |") != NULL);
    ck_assert(strstr(md, "| CEA survey | `cea/` | not written (an earlier") != NULL);
    free(md);
    /* the earlier study's survey is gone with it */
    snprintf(path, sizeof path, "%s/cea/locus.csv", dir);
    f = fopen(path, "r");
    ck_assert_ptr_null(f);
    ck_assert_int_eq(tvds_test_rmtree(dir), 0);
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
    TCase *tr = tcase_create("run");
    tcase_set_timeout(tr, 120);
    tcase_add_test(tr, test_study_run);
    suite_add_tcase(s, tr);
    return s;
}
