/* cmd_run.c — `tvds run`: read a case, run it, write the outputs, show progress. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_run.h"

static void run_help(FILE *out)
{
    fprintf(out,
            "usage: tvds run CASE [-o DIR] [--method M] [--set section.key=value]... [--quiet]\n"
            "\n"
            "Integrate the case file CASE from its initial conditions to [run] t_end and write\n"
            "history.csv, contacts.csv, energy.csv and summary.json into DIR (default\n"
            "out/<case name>/, created with its parents).\n"
            "\n"
            "options:\n"
            "  -o, --out DIR        output directory\n"
            "  --method M           contact method: subs-a, subs-b, subs-c or film (overrides\n"
            "                       [run] method)\n"
            "  --set S.K=V          override key K of section S as if written in the case file;\n"
            "                       named sections as TYPE.NAME.K=V (repeatable)\n"
            "  -q, --quiet          no progress line and no final report on stdout\n"
            "  -h, --help           this help\n"
            "\n"
            "A progress line is shown on stderr (when it is a terminal) for runs longer than\n"
            "about 2 s. Ctrl-C, SIGTERM or SIGHUP stop the run cleanly: the CSVs end at their\n"
            "last whole row and summary.json says \"interrupted\". DIR belongs to one run at a\n"
            "time (DIR/.lock); a run clears the outputs of the previous one before it starts,\n"
            "and with -o a case that does not read leaves a summary.json saying why.\n"
            "\n"
            "exit codes: 0 success, 2 bad input or DIR in use by another run, 3 divergence,\n"
            "solver failure or interrupted (outputs so far kept), 1 internal error or an output\n"
            "that cannot be written (disk full; summary.json says \"write_failed\").\n"
            "\n"
            "example:\n"
            "  tvds run models/shoe/sdnd100a_lagrange.ini -o out/shoe --method film "
            "--set run.t_end=0.2\n");
}

int tvds_cmd_run(int argc, char **argv)
{
    const char *case_path = NULL, *outdir = NULL, *method = NULL;
    int quiet = 0;
    tvds_cli_sets sets = {0};
    int code = 2, r;
    const tvds_cli_opt opts[] = {{"--quiet", "-q", NULL, &quiet, 1},
                                 {"--out", "-o", &outdir, NULL, 0},
                                 {"--method", NULL, &method, NULL, 0},
                                 {NULL, NULL, NULL, NULL, 0}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (tvds_cli_is_help(a)) {
            run_help(stdout);
            tvds_cli_sets_free(&sets);
            return 0;
        } else if ((r = tvds_cli_opt_table(argc, argv, &i, opts)) != 0) {
            if (r < 0) goto usage_fail;
        } else if ((r = tvds_cli_case_or_set(argc, argv, &i, "run", &sets, &case_path)) != 0) {
            code = r;
            goto usage_fail;
        }
    }
    if (!case_path) {
        tvds_cli_usage_error("run: missing CASE (see 'tvds run --help')");
        goto usage_fail;
    }
    int meth = -1;
    if (method && (meth = tvds_method_from_name(method)) < 0) {
        tvds_cli_usage_error("run: unknown method '%s' (expected subs-a, subs-b, subs-c or film)",
                             method);
        goto usage_fail;
    }

    tvds_ctx ctx;
    tvds_model *m = NULL;
    /* A stop signal during the set-up stops the run before its first step (summary.json says
     * "interrupted") instead of killing it half way. */
    tvds_cli_sigint(1);
    if ((code = tvds_cli_read_case(case_path, &sets, &m, &ctx)) != 0) {
        tvds_cli_sigint(0);
        /* With -o the directory is known although the case is not: an earlier run's "ok"
         * outputs there are replaced by a summary saying why this one did not run. */
        if (outdir) {
            tvds_ctx fctx;
            tvds_ctx_init(&fctx);
            if (tvds_run_record_failure(outdir, NULL, ctx.status, ctx.msg, &fctx) == TVDS_ERR_BUSY)
                tvds_cli_report(TVDS_ERR_BUSY, &fctx);
        }
        return code;
    }
    if (meth >= 0) m->opt.method = meth;

    tvds_cli_progress ps;
    tvds_cli_progress_init(&ps, quiet, "run");
    tvds_run_result res;
    tvds_run_opts o = tvds_run_opts_default();
    o.progress = tvds_cli_progress_show;
    o.user = &ps;
    o.stop = tvds_cli_stop_flag();
    o.result = &res;
    char defdir[512];
    if (!outdir) {
        snprintf(defdir, sizeof defdir, "out/%s", m->name);
        outdir = defdir;
    }
    int rc = tvds_run(m, outdir, &o, &ctx);
    tvds_cli_sigint(0);
    tvds_cli_progress_clear(&ps);
    if (rc > 0) /* reached t_end with a warning: said on stderr, exit 0 */
        fprintf(stderr, "tvds: warning: %s\n", ctx.msg[0] ? ctx.msg : tvds_strerror(rc));
    if (rc < 0) {
        code = tvds_cli_report(rc, &ctx);
    } else if (!quiet) {
        printf("tvds: %s (%s): %ld steps of %.6g s to t = %.6g s, %.3f s CPU (%.3g us/step); "
               "outputs in %s\n",
               m->name, tvds_method_name(m->opt.method), res.steps, res.dt, res.t_reached,
               res.cpu_seconds, res.us_per_step, outdir);
    }
    tvds_model_free(&m);
    return code;

usage_fail:
    tvds_cli_sets_free(&sets);
    return code;
}
