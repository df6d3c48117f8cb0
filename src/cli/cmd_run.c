/* cmd_run.c — `tvds run`: read a case, run it, write the outputs, show progress. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_run.h"

static void run_help(FILE *out)
{
    fprintf(
        out,
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
        "about 2 s. Ctrl-C stops the run cleanly: outputs are flushed and summary.json says\n"
        "\"interrupted\".\n"
        "\n"
        "exit codes: 0 success, 2 bad input, 3 divergence, solver failure or interrupted\n"
        "(outputs so far kept), 1 internal error.\n"
        "\n"
        "example:\n"
        "  tvds run models/shoe/sdnd100a_lagrange.ini -o out/shoe --method film "
        "--set run.t_end=0.2\n");
}

static volatile sig_atomic_t stop_flag = 0;

static void on_sigint(int sig)
{
    (void)sig;
    stop_flag = 1;
}

typedef struct progress_state {
    int enabled;
    int shown;
} progress_state;

static void show_progress(void *user, const tvds_progress *p)
{
    progress_state *ps = user;
    if (!ps->enabled || p->wall_s < 2.0) return;
    double frac = p->t_end > 0 ? p->t / p->t_end : 0.0;
    double left = frac > 0 ? p->wall_s * (1.0 - frac) / frac : 0.0;
    fprintf(stderr, "\r  %5.1f%%  t = %-11.6g s  %10.0f steps/s  %6.0f s left   ", 100.0 * frac,
            p->t, p->steps_per_s, left);
    fflush(stderr);
    ps->shown = 1;
}

int tvds_cmd_run(int argc, char **argv)
{
    const char *case_path = NULL, *outdir = NULL, *method = NULL, *val;
    int quiet = 0;
    tvds_cli_sets sets = {0};
    int code = 0, r;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            run_help(stdout);
            tvds_cli_sets_free(&sets);
            return 0;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            quiet = 1;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--out", "-o", &val)) != 0) {
            if (r < 0) goto usage_fail;
            outdir = val;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--method", NULL, &val)) != 0) {
            if (r < 0) goto usage_fail;
            method = val;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--set", NULL, &val)) != 0) {
            if (r < 0) goto usage_fail;
            if (tvds_cli_sets_add(&sets, val)) {
                tvds_cli_sets_free(&sets);
                return tvds_cli_report(TVDS_ERR_NOMEM, NULL);
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            tvds_cli_usage_error("run: unknown option '%s' (see 'tvds run --help')", a);
            goto usage_fail;
        } else if (!case_path) {
            case_path = a;
        } else {
            tvds_cli_usage_error("run: more than one case file ('%s', '%s')", case_path, a);
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
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    int rc = tvds_case_read(case_path, sets.v, sets.n, &m, &ctx);
    tvds_cli_sets_free(&sets);
    if (rc) return tvds_cli_report(rc, &ctx);
    if (meth >= 0) m->opt.method = meth;

    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND; /* a second Ctrl-C kills at once */
    sigaction(SIGINT, &sa, &old);

    progress_state ps = {!quiet && isatty(STDERR_FILENO), 0};
    tvds_run_result res;
    tvds_run_opts o = tvds_run_opts_default();
    o.progress = show_progress;
    o.user = &ps;
    o.stop = &stop_flag;
    o.result = &res;
    char defdir[512];
    if (!outdir) {
        snprintf(defdir, sizeof defdir, "out/%s", m->name);
        outdir = defdir;
    }
    rc = tvds_run(m, outdir, &o, &ctx);
    sigaction(SIGINT, &old, NULL);
    if (ps.shown) fprintf(stderr, "\r%72s\r", "");
    if (rc) {
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
    return 2;
}
