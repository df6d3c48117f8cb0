/* cmd_study.c — `tvds study`: the beam-on-beam squeal study behind `make run`: generate and
 * reduce the model, CEA along the sliding path, transients over an unstable window, report. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_compare_impl.h"
#include "tvds/tvds_beams.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_cea.h"
#include "tvds/tvds_compare.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"

/* Defaults chosen in docs/squeal.md: C starts at x = 43 mm so that the strongest unstable
 * window of the CEA (s = 50.6 ... 51.1 mm from the first master node, 10.57 kHz) is crossed
 * at t = 0.34 s, just after the damping schedule ends (0.25 s); 0.1 s of sliding follows. */
#define STUDY_S0    0.043
#define STUDY_T_END 0.45
#define STUDY_DS    1e-4

static void study_help(FILE *out)
{
    fprintf(out,
            "usage: tvds study CASE -o DIR [--s0 X] [--t-end T] [--methods LIST] [options]\n"
            "\n"
            "The beam-on-beam squeal study (docs/squeal.md), what `make run` runs:\n"
            "  1. generate the plane-stress FE models of the two beams with tip C at x = s0 and\n"
            "     reduce them (Craig-Bampton) into DIR/model/ (as 'tvds model beam-on-beam');\n"
            "  2. read CASE with its substructures taken from DIR/model/ and t_end = T;\n"
            "  3. complex eigenvalue analysis along the sliding path of the run (every 0.1 mm)\n"
            "     into DIR/cea/; the strongest unstable window crossed after the damping\n"
            "     schedule gives the frequency the bursts are compared with;\n"
            "  4. transients with each method (default subs-b and film) one after the other,\n"
            "     DIR/<method>/, and the comparison report DIR/report.md with its figures.\n"
            "\n"
            "options:\n"
            "  -o, --out DIR     output directory (required)\n"
            "  --s0 X            initial x of tip C on beam 2 [m] (default %g)\n"
            "  --t-end T         simulated time [s] (default %g)\n"
            "  --methods LIST    methods compared (default subs-b,film)\n"
            "  --ds D            CEA position spacing [m] (default %g)\n"
            "  --threads N       OpenMP threads of the CEA (default: OpenMP's)\n"
            "  --no-plots        no PNG figures\n"
            "  --set S.K=V       override a case key (repeatable)\n"
            "  -q, --quiet       no progress on stderr\n"
            "  -h, --help        this help\n"
            "\n"
            "CASE must name two substructures beam1 and beam2 (models/beam_on_beam/\n"
            "beam_on_beam.ini). Progress goes to stderr; the summary table to stdout.\n"
            "Ctrl-C, SIGTERM or SIGHUP stop the study at the next position (CEA) or step\n"
            "(transients); report.md then says it was interrupted, and where.\n"
            "\n"
            "exit codes: 0 success, 2 bad input, 3 solver failure or interrupted, 1 internal.\n",
            STUDY_S0, STUDY_T_END, STUDY_DS);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Absolute path of dir (relative to the working directory). */
static int abs_path(const char *dir, char *out, size_t n)
{
    if (dir[0] == '/') return snprintf(out, n, "%s", dir) < (int)n ? 0 : -1;
    char cwd[2048];
    if (!getcwd(cwd, sizeof cwd)) return -1;
    return snprintf(out, n, "%s/%s", cwd, dir) < (int)n ? 0 : -1;
}

/* Curvilinear abscissa of the slave node of contact c on its (undeformed) master surface. */
static int slave_abscissa(const tvds_model *m, int c, double *s)
{
    const tvds_contact *ct = &m->contacts[c];
    if (ct->master_kind == TVDS_MASTER_RIGID || ct->nmaster < 2) return -1;
    const tvds_substructure *ss = m->subs[ct->slave_sub], *ms = m->subs[ct->master_sub];
    int k = tvds_substructure_find_dof(ss, ct->slave_nodes[0], TVDS_DIR_X);
    if (k < 0) return -1;
    double px = ss->dofs[k].xyz[0], py = ss->dofs[k].xyz[1];
    double acc = 0.0, best = INFINITY;
    for (int i = 0; i + 1 < ct->nmaster; i++) {
        int a = tvds_substructure_find_dof(ms, ct->master_nodes[i], TVDS_DIR_X);
        int b = tvds_substructure_find_dof(ms, ct->master_nodes[i + 1], TVDS_DIR_X);
        if (a < 0 || b < 0) return -1;
        double ax = ms->dofs[a].xyz[0], ay = ms->dofs[a].xyz[1];
        double dx = ms->dofs[b].xyz[0] - ax, dy = ms->dofs[b].xyz[1] - ay;
        double len = hypot(dx, dy);
        double u = ((px - ax) * dx + (py - ay) * dy) / (len * len);
        if (u < 0.0) u = 0.0;
        if (u > 1.0) u = 1.0;
        double d = hypot(ax + u * dx - px, ay + u * dy - py);
        if (d < best) {
            best = d;
            *s = acc + u * len;
        }
        acc += len;
    }
    return 0;
}

int tvds_cmd_study(int argc, char **argv)
{
    const char *case_path = NULL, *outdir = NULL, *val;
    double s0 = STUDY_S0, t_end = STUDY_T_END, ds = STUDY_DS, v;
    int quiet = 0, threads = 0, plots = 1, code = 2, r;
    tvds_cli_sets sets = {0};
    tvds_compare_opts o = tvds_compare_opts_default();
    o.nmethods = 2;
    o.methods[0] = TVDS_METHOD_SUBS_B;
    o.methods[1] = TVDS_METHOD_FILM;
    const tvds_cli_opt opts[] = {{"--quiet", "-q", NULL, &quiet, 1},
                                 {"--no-plots", NULL, NULL, &plots, 0},
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
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--s0", NULL, &val)) != 0) {
            if (r < 0 || tvds_cli_parse_double(val, &s0) || s0 <= 0) {
                if (r > 0) tvds_cli_usage_error("study: --s0 '%s' is not a positive number", val);
                goto usage_fail;
            }
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--t-end", NULL, &val)) != 0) {
            if (r < 0 || tvds_cli_parse_double(val, &t_end) || t_end <= 0) {
                if (r > 0)
                    tvds_cli_usage_error("study: --t-end '%s' is not a positive number", val);
                goto usage_fail;
            }
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--ds", NULL, &val)) != 0) {
            if (r < 0 || tvds_cli_parse_double(val, &ds) || ds <= 0) {
                if (r > 0) tvds_cli_usage_error("study: --ds '%s' is not a positive number", val);
                goto usage_fail;
            }
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--threads", NULL, &val)) != 0) {
            if (r < 0 || tvds_cli_parse_double(val, &v) || v < 0 || v != floor(v)) {
                if (r > 0) tvds_cli_usage_error("study: --threads '%s' is not a count", val);
                goto usage_fail;
            }
            threads = (int)v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--methods", NULL, &val)) != 0) {
            if (r < 0) goto usage_fail;
            if (tvds_cli_parse_methods(val, &o)) {
                tvds_cli_usage_error("study: bad --methods '%s'", val);
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
    /* The case is read once its model is generated: a missing file is reported before. */
    FILE *cf = fopen(case_path, "r");
    if (!cf) {
        tvds_cli_usage_error("%s: cannot open: %s", case_path, strerror(errno));
        goto usage_fail;
    }
    fclose(cf);

    double t_start = now_s(), t_model = 0, t_cea = 0, t_runs = 0;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int rc;
    code = 0;
    /* Ctrl-C, SIGTERM, SIGHUP: every stage stops cleanly (the CEA between positions, the runs
     * between steps) and report.md says where the study was interrupted. */
    const char *stage = "model";
    volatile sig_atomic_t *stop = tvds_cli_stop_flag();
    tvds_cli_sigint(1);
    tvds_model *m = NULL;
    tvds_cea_result *cea = NULL;
    double *pos = NULL;
    char mdir[2048], d1[2100], d2[2100], ovr[3][2200], cdir[2048];
    tvds_cli_progress pg;
    tvds_cli_progress_init(&pg, quiet, "study");

    /* 1. Model: always regenerated (well under a second) so that the study runs from the FE
     *    generator and the reduction, at the chosen s0. */
    if ((rc = tvds_mkdir_p(outdir, &ctx))) goto fail;
    snprintf(mdir, sizeof mdir, "%s/model", outdir);
    tvds_reduce_stats st[2];
    {
        tvds_bob_params p = tvds_bob_default();
        p.s0 = s0;
        cholmod_common cc;
        if ((rc = tvds_cholmod_start(&cc))) goto fail;
        tvds_cholmod_ctx(&ctx);
        rc = tvds_bob_write(&p, mdir, st, &cc, &ctx);
        tvds_cholmod_ctx(NULL);
        cholmod_finish(&cc);
        if (rc) goto fail;
        t_model = now_s() - t_start;
    }

    if (*stop) goto interrupted;

    /* 2. The case on that model. */
    {
        char am[2048];
        if (abs_path(mdir, am, sizeof am)) {
            rc = TVDS_ERROR(&ctx, TVDS_ERR_IO, "study: path of %s too long", mdir);
            goto fail;
        }
        snprintf(d1, sizeof d1, "%s/beam1", am);
        snprintf(d2, sizeof d2, "%s/beam2", am);
        snprintf(ovr[0], sizeof ovr[0], "substructure.beam1.dir=%s", d1);
        snprintf(ovr[1], sizeof ovr[1], "substructure.beam2.dir=%s", d2);
        snprintf(ovr[2], sizeof ovr[2], "run.t_end=%.17g", t_end);
        /* Our overrides first, the user's after them (they win). */
        const char **all = malloc((size_t)(sets.n + 3) * sizeof *all);
        if (!all) {
            rc = TVDS_ERROR(&ctx, TVDS_ERR_NOMEM, "study: out of memory");
            goto fail;
        }
        for (int i = 0; i < 3; i++)
            all[i] = ovr[i];
        for (int i = 0; i < sets.n; i++)
            all[3 + i] = sets.v[i];
        rc = tvds_case_read(case_path, all, sets.n + 3, &m, &ctx);
        free(all);
        if (rc) goto fail;
    }
    /* Stage 1 is reported once the case has been read on its model (an error in the case is
     * then the only line on stderr). */
    if (!quiet) {
        fprintf(stderr, "study: [1/4] beam-on-beam FE models (s0 = %g m), Craig-Bampton -> %s\n",
                s0, mdir);
        fprintf(stderr, "study:       beam1 %d -> %d DoFs, beam2 %d -> %d DoFs (%.2f s)\n", st[0].n,
                st[0].nb + st[0].nm, st[1].n, st[1].nb + st[1].nm, t_model);
    }
    if (m->ncontact < 1) {
        rc = TVDS_ERROR(&ctx, TVDS_ERR_INVALID, "study: %s has no contact", case_path);
        goto fail;
    }

    /* 3. CEA along the path of the run. */
    double s_a = 0.0, len = 0.0, t_damp = 0.0;
    if (slave_abscissa(m, 0, &s_a)) {
        rc = TVDS_ERROR(&ctx, TVDS_ERR_INVALID,
                        "study: contact '%s' needs a master surface and a slave with ux",
                        m->contacts[0].name);
        goto fail;
    }
    if ((rc = tvds_cea_surface_length(m, 0, &len, &ctx))) goto fail;
    for (int s = 0; s < m->nsub; s++)
        if (m->damping[s].kind == TVDS_DAMP_RAYLEIGH &&
            m->damping[s].t_hold + m->damping[s].t_ramp > t_damp)
            t_damp = m->damping[s].t_hold + m->damping[s].t_ramp;
    /* Travel of the slave from the Subs-a kinematics (the carriage motion). */
    const tvds_fn *kin = &m->contacts[0].slave_kin[0];
    double trav_end = fabs(tvds_fn_eval(kin, t_end)), trav_damp = fabs(tvds_fn_eval(kin, t_damp));
    double sc0 = s_a - 5e-4, sc1 = s_a + trav_end + 5e-4;
    if (sc0 < 0) sc0 = 0;
    if (sc1 > len) sc1 = len;
    int npos = (int)ceil((sc1 - sc0) / ds) + 1;
    if (npos < 2) npos = 2;
    pos = malloc((size_t)npos * sizeof *pos);
    if (!pos) {
        rc = TVDS_ERROR(&ctx, TVDS_ERR_NOMEM, "study: out of memory");
        goto fail;
    }
    for (int i = 0; i < npos; i++)
        pos[i] = sc0 + (sc1 - sc0) * i / (npos - 1);
    if (!quiet)
        fprintf(stderr,
                "study: [2/4] CEA at %d positions, s = %.2f ... %.2f mm (sliding path of the run; "
                "damping ends at s = %.2f mm)\n",
                npos, 1e3 * sc0, 1e3 * sc1, 1e3 * (s_a + trav_damp));
    double tc = now_s();
    tvds_cea_options co = tvds_cea_options_default();
    co.nthreads = threads;
    co.stop = stop;
    stage = "CEA";
    if ((rc = tvds_cea_run(m, 0, pos, npos, &co, &cea, &ctx))) goto fail;
    t_cea = now_s() - tc;
    snprintf(cdir, sizeof cdir, "%s/cea", outdir);
    if ((rc = tvds_mkdir_p(cdir, &ctx))) goto fail;
    if ((rc = tvds_cea_write_csv(cea, cdir, &ctx))) goto fail;
    if (plots) {
        tvds_ctx pc;
        tvds_ctx_init(&pc);
        tvds_cea_plot(cea, cdir, &pc); /* a figure that cannot be drawn is not fatal */
    }
    /* The strongest window crossed once the damping is low. */
    int wbest = -1;
    for (int w = 0; w < cea->nwin; w++) {
        if (cea->win[w].s_end < s_a + trav_damp) continue;
        if (wbest < 0 || cea->win[w].re_max > cea->win[wbest].re_max) wbest = w;
    }
    if (!quiet) {
        fprintf(stderr, "study:       %d unstable window(s) on the path (%.1f s)\n", cea->nwin,
                t_cea);
        for (int w = 0; w < cea->nwin; w++)
            fprintf(stderr,
                    "study:       branch %d, s = %.2f ... %.2f mm, %.1f ... %.1f Hz, max Re %.3g "
                    "1/s%s\n",
                    cea->win[w].branch, 1e3 * cea->win[w].s_start, 1e3 * cea->win[w].s_end,
                    cea->win[w].f_min, cea->win[w].f_max, cea->win[w].re_max,
                    w == wbest ? "  <- compared" : "");
    }
    if (wbest >= 0) {
        o.f_cea = 0.5 * (cea->win[wbest].f_min + cea->win[wbest].f_max);
        o.s_cea0 = cea->win[wbest].s_start;
        o.s_cea1 = cea->win[wbest].s_end;
    } else if (!quiet) {
        fprintf(stderr, "study:       no unstable window after the damping schedule: the "
                        "transients are compared without a CEA frequency\n");
    }

    /* 4. Transients and report. */
    if (!quiet)
        fprintf(stderr, "study: [3/4] transients to t = %g s (dt = auto), methods run in turn\n",
                t_end);
    o.plots = plots;
    o.progress = tvds_cli_progress_show;
    o.stage = tvds_cli_compare_stage;
    o.user = &pg;
    o.stop = tvds_cli_stop_flag();
    double tr = now_s();
    tvds_compare_result res;
    stage = "transients";
    rc = tvds_compare_run(m, outdir, &o, &res, &ctx);
    tvds_cli_progress_clear(&pg);
    t_runs = now_s() - tr;
    if (rc < 0) goto fail;
    if (!quiet) fprintf(stderr, "study: [4/4] report %s/report.md\n", outdir);

    /* The study's own section: the CEA along the path and the stage timings. */
    {
        char path[2100];
        snprintf(path, sizeof path, "%s/report.md", outdir);
        FILE *fp = fopen(path, "a");
        if (!fp) {
            rc = TVDS_ERROR(&ctx, TVDS_ERR_IO, "%s: cannot append", path);
            goto fail;
        }
        fprintf(fp, "\n## Study: CEA along the sliding path\n\n");
        fprintf(fp,
                "Tip C starts at x = %.4g mm (s = %.4g mm from the first master node); the "
                "carriage moves it by %.4g mm up to t = %g s (%.4g mm when the damping "
                "schedule ends at %g s). CEA every %.3g mm on s = %.4g … %.4g mm (%d "
                "positions, %d branches, largest backward error %.2g):\n\n",
                1e3 * s0, 1e3 * s_a, 1e3 * trav_end, t_end, 1e3 * trav_damp, t_damp, 1e3 * ds,
                1e3 * sc0, 1e3 * sc1, npos, cea->nbranch, cea->resid_max);
        if (cea->nwin == 0)
            fprintf(fp, "No unstable window on the path.\n");
        else {
            fprintf(fp, "| branch | s [mm] | time crossed [s] | f [Hz] | max Re [1/s] "
                        "|\n|---|---|---|---|---|\n");
            for (int w = 0; w < cea->nwin; w++) {
                const tvds_cea_window *cw = &cea->win[w];
                /* time at which C reaches the window (steady 30 mm/s after the ramp) */
                double ta = NAN, tb = NAN;
                for (double t = 0.0; t <= t_end + 1e-12; t += 1e-4) {
                    double sp = s_a + fabs(tvds_fn_eval(kin, t));
                    if (!isfinite(ta) && sp >= cw->s_start) ta = t;
                    if (!isfinite(tb) && sp >= cw->s_end) tb = t;
                }
                fprintf(fp, "| %d | %.2f … %.2f | %.3f … %.3f | %.1f … %.1f | %.3g |%s\n",
                        cw->branch, 1e3 * cw->s_start, 1e3 * cw->s_end, ta, tb, cw->f_min,
                        cw->f_max, cw->re_max, w == wbest ? " ← compared" : "");
            }
        }
        fprintf(fp, "\n![stability](cea/stability.png)\n\n![locus](cea/locus.png)\n");
        fprintf(fp,
                "\n## Study: wall time\n\n| stage | wall [s] |\n|---|---|\n"
                "| model generation and reduction | %.2f |\n| CEA | %.2f |\n"
                "| transients, metrics, figures | %.2f |\n| total | %.2f |\n",
                t_model, t_cea, t_runs, now_s() - t_start);
        fclose(fp);
    }
    if (!quiet) tvds_cli_compare_print(&res, outdir);
    if (!quiet) fprintf(stderr, "study: done in %.1f s\n", now_s() - t_start);
    goto done;

interrupted:
    if (*stop && rc == TVDS_OK)
        rc = TVDS_ERROR(&ctx, TVDS_ERR_INTERRUPTED, "study: interrupted after the %s stage",
                        stage);
fail:
    if (rc == TVDS_ERR_INTERRUPTED) {
        /* The study's summary: report.md replaced (whole) by the reason it stopped. */
        char rp[2100], tp[2110];
        snprintf(rp, sizeof rp, "%s/report.md", outdir);
        snprintf(tp, sizeof tp, "%s.tmp", rp);
        FILE *fp = fopen(tp, "w");
        if (fp) {
            int sig = (int)*stop;
            fprintf(fp,
                    "# Beam-on-beam study: interrupted\n\nStatus: **interrupted** (%s) during the "
                    "%s stage, after %.1f s.\n\n%s\n\nThe outputs of the finished stages "
                    "(model/, cea/, and for the transients each method's summary.json, which "
                    "says \"interrupted\" for the run that was stopped) are whole; run the "
                    "study again to complete it.\n",
                    tvds_cli_signal_name(sig), stage, now_s() - t_start, ctx.msg);
            if ((fclose(fp) != 0) | (rename(tp, rp) != 0)) remove(tp);
        }
    }
    code = tvds_cli_report(rc, &ctx);
done:
    tvds_cli_sigint(0);
    free(pos);
    tvds_cea_result_free(&cea);
    tvds_model_free(&m);
    tvds_cli_sets_free(&sets);
    return code;

usage_fail:
    tvds_cli_sets_free(&sets);
    return code;
}
