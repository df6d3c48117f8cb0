/* cmd_study.c — `tvds study`: the beam-on-beam squeal study behind `make run` (the study itself
 * is the library's, src/analysis/study.c): options, progress on stderr, the summary on stdout. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_compare_impl.h"
#include "tvds/tvds_study.h"

static void study_help(FILE *out)
{
    fprintf(
        out,
        "usage: tvds study CASE -o DIR [options]\n"
        "       tvds study --3d CASE3D -o DIR [options]   (the pair as solids)\n"
        "       tvds study --convergence [--3d] CASE -o DIR [options]   (mesh convergence;\n"
        "                                                      see --convergence --help)\n"
        "\n"
        "The beam-on-beam squeal study (docs/squeal.md), what `make run` runs:\n"
        "  1. beam-on-beam FE models, Craig-Bampton reduction (DIR/model/), CASE read on them;\n"
        "  2. CEA survey over s = %g ... %g mm at the case's mu: linearised about the\n"
        "     preloaded sliding state (damped and undamped) and about the undeformed geometry\n"
        "     (DIR/cea/), predicted growth of each window crossed at the steady speed;\n"
        "  3. the paper's procedure for mu: CEA at mu = %g, %g, ... %g until a window's\n"
        "     predicted growth exceeds %g (DIR/cea_mu<MU>/);\n"
        "  4. (a) the paper's values: subs-b and FiLm across the strongest window without a\n"
        "     master node (its crossing kicks the band) at the case's mu (DIR/a/); (b) the\n"
        "     chosen mu: the methods across its strongest node-free window (DIR/b/);\n"
        "     each run starts C so that the window is entered at t = %g s and ends %g s after\n"
        "     leaving it; predicted growth per window beside the measured one;\n"
        "  5. DIR/report.md: the whole study with every departure from the paper.\n"
        "\n"
        "options:\n"
        "  -o, --out DIR     output directory (required)\n"
        "  --methods LIST    methods of part (b) (default subs-a,subs-b,subs-c,film)\n"
        "  --methods-a LIST  methods of part (a) (default subs-b,film)\n"
        "  --mu MU           skip the procedure: use this mu for part (b)\n"
        "  --no-transients   CEA parts only\n"
        "  --3d              the pair as solids (tvds model beam-on-beam-3d, mesh of its\n"
        "                    convergence study: beam 1 80x2x4, beam 2 50x8x4;\n"
        "                    CASE models/beam_on_beam/beam_on_beam_3d.ini): the same steps,\n"
        "                    the CEA with every node of the tip line, positions on the same\n"
        "                    axis as the 2D study, s = x_C - 1 mm (docs/squeal.md, \"The\n"
        "                    study in 3D\"); 60 CEA branches\n"
        "  --mesh B1/B2      the pair's mesh, beam 1 / beam 2 elements along x, through the\n"
        "                    thickness (and across the width in 3D), optionally ':M' fixed-\n"
        "                    interface modes per beam: 'N1XxN1Y/N2XxN2Y' or\n"
        "                    'N1XxN1YxN1Z/N2XxN2YxN2Z' (default: the study's mesh, from\n"
        "                    'tvds study --convergence')\n"
        "  --ds D            initial CEA spacing [m] (default %g; refined automatically)\n"
        "  --threads N       OpenMP threads of the CEA (default: OpenMP's)\n"
        "  --modes M         CEA branches (default 20; 60 with --3d, whose lateral and\n"
        "                    torsional modes fill the band below the 2D couplings)\n"
        "  --no-plots        no PNG figures\n"
        "  --set S.K=V       override a case key (repeatable)\n"
        "  -q, --quiet       no progress on stderr\n"
        "  -h, --help        this help\n"
        "\n"
        "CASE must name two substructures beam1 and beam2, drive A by [constraint drive] and\n"
        "load it by [load Fy] (models/beam_on_beam/beam_on_beam.ini). Progress goes to\n"
        "stderr; the summary to stdout.\n"
        "Each CEA shows its positions done/total, rate and time left after 2 s (in place\n"
        "on a terminal, else a line every 10 s). DIR belongs to one study at a time\n"
        "(DIR/.lock: a second study into DIR exits 2). A study first removes the previous\n"
        "one's report.md, cea/, cea_mu*/, a/ and b/ outputs and writes a report.md saying\n"
        "\"running\". Ctrl-C, SIGTERM or SIGHUP stop the study within about a second (exit\n"
        "3); report.md then says it was interrupted, in which stage, and which folders are\n"
        "complete, incomplete or not written.\n"
        "\n"
        "exit codes: 0 success, 2 bad input or DIR in use, 3 solver failure or interrupted,\n"
        "1 internal.\n",
        1e3 * TVDS_STUDY_S_LO, 1e3 * TVDS_STUDY_S_HI, TVDS_STUDY_MU_LO,
        TVDS_STUDY_MU_LO + TVDS_STUDY_MU_STEP, TVDS_STUDY_MU_HI, TVDS_STUDY_G_MIN,
        TVDS_STUDY_T_ENTRY, TVDS_STUDY_T_AFTER, TVDS_STUDY_DS);
}

/* tvds_study_geom.positions_end: the progress line erased. */
static void progress_end(void *user)
{
    tvds_cli_progress_clear(user);
}

/* tvds_study_opts.note: one line of progress on stderr, none with -q. */
static void note(void *user, const char *text)
{
    const tvds_cli_progress *pg = user;
    if (!pg->quiet) fputs(text, stderr);
}

/* tvds_study_opts.stage: the CEA's positions shown under a new prefix. */
static void stage(void *user, const char *prefix)
{
    tvds_cli_progress *pg = user;
    tvds_cli_progress_init(pg, pg->quiet, prefix);
}

/* The study's summary on stdout. */
static void summary(const tvds_study_result *r, const char *outdir)
{
    if (r->nwin > 0)
        printf("study: mu = %g (paper): %d window(s) on s = %g ... %g mm, max Re %.4g 1/s, "
               "largest predicted growth %.3g\n",
               r->mu_case, r->nwin, 1e3 * TVDS_STUDY_S_LO, 1e3 * TVDS_STUDY_S_HI, r->max_re,
               r->growth);
    else
        printf("study: mu = %g (paper): no window on s = %g ... %g mm\n", r->mu_case,
               1e3 * TVDS_STUDY_S_LO, 1e3 * TVDS_STUDY_S_HI);
    if (r->mu_given)
        printf("study: mu of part (b): %g (--mu)\n", r->mu_pick);
    else if (r->found)
        printf("study: procedure for mu: mu = %g (lowest whose strongest node-free window "
               "predicts a growth >= %g)\n",
               r->mu_pick, TVDS_STUDY_G_MIN);
    else
        printf("study: procedure for mu: no mu up to %g gives a predicted growth of %g\n",
               TVDS_STUDY_MU_HI, TVDS_STUDY_G_MIN);
    if (r->ran_a) tvds_cli_compare_print(&r->a, outdir);
    if (r->ran_b) tvds_cli_compare_print(&r->b, outdir);
}

int tvds_cmd_study(int argc, char **argv)
{
    const char *case_path = NULL, *outdir = NULL, *val, *mesh_txt = NULL;
    double v;
    tvds_bob_params mesh_p;
    int quiet = 0, code = 2, r, notrans = 0;
    tvds_study_opts so = tvds_study_opts_default();
    tvds_study_geom *geom = &so.geom;
    tvds_compare_opts *oa = &so.a, *ob = &so.b;
    tvds_cli_sets sets = {0};
    const tvds_cli_opt opts[] = {{"--quiet", "-q", NULL, &quiet, 1},
                                 {"--no-plots", NULL, NULL, &so.plots, 0},
                                 {"--no-transients", NULL, NULL, &notrans, 1},
                                 {"--3d", NULL, NULL, &geom->dim3, 1},
                                 {"--out", "-o", &outdir, NULL, 0},
                                 {NULL, NULL, NULL, NULL, 0}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (tvds_cli_is_help(a)) {
            study_help(stdout);
            tvds_cli_sets_free(&sets);
            return 0;
        } else if ((r = tvds_cli_opt_table(argc, argv, &i, opts)) != 0) {
            if (r < 0) goto usage_fail;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--ds", NULL, &val)) != 0) {
            if (r < 0 || tvds_cli_parse_double(val, &so.ds) || so.ds <= 0) {
                if (r > 0) tvds_cli_usage_error("study: --ds '%s' is not a positive number", val);
                goto usage_fail;
            }
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--mu", NULL, &val)) != 0) {
            if (r < 0 || tvds_cli_parse_double(val, &so.mu) || so.mu <= 0) {
                if (r > 0) tvds_cli_usage_error("study: --mu '%s' is not a positive number", val);
                goto usage_fail;
            }
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--mesh", NULL, &val)) != 0) {
            if (r < 0) goto usage_fail;
            mesh_txt = val;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--modes", NULL, &val)) != 0) {
            if (r < 0 || tvds_cli_parse_double(val, &v) || v < 1 || v > 500 || v != floor(v)) {
                if (r > 0) tvds_cli_usage_error("study: --modes '%s' is not a count 1..500", val);
                goto usage_fail;
            }
            geom->nmodes = (int)v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--threads", NULL, &val)) != 0) {
            if (r < 0 || tvds_cli_parse_double(val, &v) || v < 0 || v != floor(v)) {
                if (r > 0) tvds_cli_usage_error("study: --threads '%s' is not a count", val);
                goto usage_fail;
            }
            so.threads = (int)v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--methods", NULL, &val)) != 0) {
            if (r < 0) goto usage_fail;
            if (tvds_cli_parse_methods(val, ob)) {
                tvds_cli_usage_error("study: bad --methods '%s'", val);
                goto usage_fail;
            }
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--methods-a", NULL, &val)) != 0) {
            if (r < 0) goto usage_fail;
            if (tvds_cli_parse_methods(val, oa)) {
                tvds_cli_usage_error("study: bad --methods-a '%s'", val);
                goto usage_fail;
            }
        } else if ((r = tvds_cli_case_or_set(argc, argv, &i, "study", &sets, &case_path)) != 0) {
            code = r;
            goto usage_fail;
        }
    }
    if (!case_path || !outdir) {
        tvds_cli_usage_error("study: need CASE and -o DIR (see 'tvds study --help')");
        goto usage_fail;
    }
    if (mesh_txt) {
        const char *mp = mesh_txt;
        int mm = 0;
        if (tvds_study_parse_mesh(&mp, geom->dim3, &mesh_p, &mm) || *mp) {
            tvds_cli_usage_error(geom->dim3
                                     ? "study: bad --mesh '%s' (want N1XxN1YxN1Z/N2XxN2YxN2Z, "
                                       "e.g. 80x2x4/50x8x4)"
                                     : "study: bad --mesh '%s' (want N1XxN1Y/N2XxN2Y, e.g. "
                                       "100x2/50x4)",
                                 mesh_txt);
            goto usage_fail;
        }
        geom->mesh = &mesh_p;
        geom->mesh_txt = mesh_txt;
    }
    FILE *cf = fopen(case_path, "r");
    if (!cf) {
        tvds_cli_usage_error("%s: cannot open: %s", case_path, strerror(errno));
        goto usage_fail;
    }
    fclose(cf);

    tvds_cli_progress pg;
    tvds_cli_progress_init(&pg, quiet, "study");
    so.transients = !notrans;
    so.sets = sets.v;
    so.nsets = sets.n;
    geom->positions = tvds_cli_progress_positions;
    geom->positions_end = progress_end;
    geom->user = &pg;
    geom->stop = tvds_cli_stop_flag();
    oa->progress = ob->progress = tvds_cli_progress_show;
    oa->stage = ob->stage = tvds_cli_compare_stage;
    oa->user = ob->user = &pg;
    so.note = note;
    so.stage = stage;
    so.signal_name = tvds_cli_signal_name;
    so.user = &pg;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_study_result res;
    /* Ctrl-C, SIGTERM, SIGHUP: every stage stops cleanly (the CEA between positions, the runs
     * between steps) and report.md says where the study was interrupted. */
    tvds_cli_sigint(1);
    int rc = tvds_study_run(case_path, outdir, &so, &res, &ctx);
    tvds_cli_progress_clear(&pg);
    if (rc)
        code = tvds_cli_report(rc, &ctx);
    else {
        code = 0;
        summary(&res, outdir);
        if (!quiet) fprintf(stderr, "study: done in %.1f s\n", res.seconds);
    }
    tvds_cli_sigint(0);
    tvds_cli_sets_free(&sets);
    return code;

usage_fail:
    tvds_cli_sets_free(&sets);
    return code;
}
