/* cmd_compare.c — `tvds compare`: run several contact methods on one case and report how they
 * agree with FiLm (tvds_compare.h); stage lines and method lists shared with `tvds study`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_compare_impl.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_compare.h"

static void compare_help(FILE *out)
{
    fprintf(out,
            "usage: tvds compare CASE [--methods subs-a,subs-b,subs-c,film] [-o DIR]\n"
            "                    [--cea DIR | --f-cea HZ] [--t0 T0 --t1 T1] [--set S.K=V]...\n"
            "\n"
            "Run the contact methods one after the other in this process on the same model and\n"
            "step (so that their CPU times compare), write each method's outputs to DIR/<method>/\n"
            "and compare them with FiLm: DIR/report.md, DIR/metrics.csv and the figures\n"
            "DIR/accel_<method>.png (acceleration against FiLm), DIR/spectrograms.png and\n"
            "DIR/contact.png (normal force and sliding speed). The report checks the findings of\n"
            "the Machines 2022 paper against this run (docs/squeal.md).\n"
            "\n"
            "options:\n"
            "  --methods LIST  comma-separated methods (default subs-a,subs-b,subs-c,film)\n"
            "  -o, --out DIR   output directory (default out/<case name>/compare)\n"
            "  --cea DIR       a 'tvds cea' output directory: its strongest unstable window\n"
            "                  gives the CEA frequency the bursts are compared with\n"
            "  --f-cea HZ      the CEA frequency directly\n"
            "  --t0 T, --t1 T  metric window [s] (default: end of the damping schedule to t_end)\n"
            "  --accel NAME    acceleration probe compared (default: the first one)\n"
            "  --contact N     contact index reported (default 0)\n"
            "  --no-plots      do not draw the PNG figures\n"
            "  --analyse-only  do not run: analyse the outputs already in DIR/<method>/ (CPU\n"
            "                  times from their summary.json) and rewrite the report\n"
            "  --set S.K=V     override a case key (as 'tvds run'; repeatable)\n"
            "  -q, --quiet     no progress on stderr, no summary on stdout\n"
            "  -h, --help      this help\n"
            "\n"
            "exit codes: 0 success (a failed method is reported, not fatal), 2 bad input,\n"
            "3 interrupted, 1 internal error.\n"
            "\n"
            "example:\n"
            "  tvds compare models/beam_on_beam/beam_on_beam.ini --methods subs-b,film \\\n"
            "      --set run.t_end=0.3 -o out/cmp\n");
}

void tvds_cli_compare_stage(void *user, int method, int index, int count)
{
    tvds_cli_progress *p = user;
    if (p->quiet) return;
    tvds_cli_progress_clear(p);
    fprintf(stderr, "%s: [%d/%d] %s ...\n", p->prefix, index + 1, count, tvds_method_name(method));
    fflush(stderr);
}

int tvds_cli_parse_methods(const char *list, tvds_compare_opts *o)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    o->nmethods = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int m = tvds_method_from_name(tok);
        if (m < 0 || o->nmethods >= TVDS_METHOD_COUNT) return -1;
        for (int j = 0; j < o->nmethods; j++)
            if (o->methods[j] == m) return -1;
        o->methods[o->nmethods++] = m;
    }
    return o->nmethods > 0 ? 0 : -1;
}

int tvds_cli_read_unstable(const char *dir, double *f, double *s0, double *s1)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/unstable.csv", dir);
    FILE *fp = fopen(path, "r");
    if (!fp) return -1;
    char line[1024];
    double best = -INFINITY;
    int found = 0;
    if (!fgets(line, sizeof line, fp)) {
        fclose(fp);
        return -1;
    }
    while (fgets(line, sizeof line, fp)) {
        int b;
        double a0, a1, fmin, fmax, re;
        if (sscanf(line, "%d,%lf,%lf,%lf,%lf,%lf", &b, &a0, &a1, &fmin, &fmax, &re) != 6) continue;
        if (re > best) {
            best = re;
            *f = 0.5 * (fmin + fmax);
            *s0 = a0;
            *s1 = a1;
            found = 1;
        }
    }
    fclose(fp);
    return found ? 0 : 1;
}

void tvds_cli_compare_print(const tvds_compare_result *res, const char *outdir)
{
    printf("%-7s %-12s %10s %9s %8s %10s %10s %8s %10s\n", "method", "status", "CPU [s]", "us/step",
           "ratio", "peak", "RMS diff", "peak/F", "f_dom [Hz]");
    for (int i = 0; i < res->n; i++) {
        const tvds_compare_entry *e = &res->e[i];
        printf("%-7s %-12s %10.3f %9.3f %7.1f%% %10.4g %10.4g %8.3f %10.1f\n",
               tvds_method_name(e->method), tvds_run_status_word(e->status), e->run.cpu_seconds,
               e->run.us_per_step, 100.0 * e->cpu_ratio, e->peak, e->rms_diff, e->peak_ratio,
               e->f_dom);
    }
    printf("report: %s/report.md\n", outdir);
}

/* Number after "key": in a summary.json text; NaN when absent. */
static double json_num(const char *text, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(text, pat);
    if (!p) return NAN;
    return strtod(p + strlen(pat), NULL);
}

/* Fill res->e[i].run and status from DIR/<method>/summary.json (for --analyse-only). */
static int read_summaries(const char *outdir, const tvds_compare_opts *o, tvds_compare_result *res)
{
    memset(res, 0, sizeof *res);
    res->n = o->nmethods;
    for (int i = 0; i < o->nmethods; i++) {
        char path[1024], text[8192];
        snprintf(path, sizeof path, "%s/%s/summary.json", outdir, tvds_method_name(o->methods[i]));
        FILE *fp = fopen(path, "r");
        if (!fp) return tvds_cli_usage_error("compare: cannot read %s", path);
        size_t n = fread(text, 1, sizeof text - 1, fp);
        fclose(fp);
        text[n] = '\0';
        tvds_compare_entry *e = &res->e[i];
        e->method = o->methods[i];
        e->status = strstr(text, "\"status\": \"ok\"") ? TVDS_OK : TVDS_ERR_DIVERGED;
        e->run.steps = (long)json_num(text, "steps");
        e->run.dt = json_num(text, "dt");
        e->run.t_reached = json_num(text, "t_reached");
        e->run.cpu_seconds = json_num(text, "cpu_seconds");
        e->run.us_per_step = json_num(text, "us_per_step");
        e->run.wall_seconds = json_num(text, "wall_seconds");
        e->run.status = e->status;
    }
    return 0;
}

int tvds_cmd_compare(int argc, char **argv)
{
    const char *case_path = NULL, *outdir = NULL, *cea_dir = NULL, *val;
    int quiet = 0, analyse_only = 0, code = 2, r;
    tvds_cli_sets sets = {0};
    tvds_compare_opts o = tvds_compare_opts_default();
    const tvds_cli_opt opts[] = {{"--quiet", "-q", NULL, &quiet, 1},
                                 {"--no-plots", NULL, NULL, &o.plots, 0},
                                 {"--analyse-only", NULL, NULL, &analyse_only, 1},
                                 {"--out", "-o", &outdir, NULL, 0},
                                 {"--cea", NULL, &cea_dir, NULL, 0},
                                 {"--accel", NULL, &o.accel, NULL, 0},
                                 {NULL, NULL, NULL, NULL, 0}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        double v;
        if (tvds_cli_is_help(a)) {
            compare_help(stdout);
            tvds_cli_sets_free(&sets);
            return 0;
        } else if ((r = tvds_cli_opt_table(argc, argv, &i, opts)) != 0) {
            if (r < 0) goto usage_fail;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--methods", NULL, &val)) != 0) {
            if (r < 0) goto usage_fail;
            if (tvds_cli_parse_methods(val, &o)) {
                tvds_cli_usage_error("compare: bad --methods '%s' (comma-separated subs-a, "
                                     "subs-b, subs-c, film, each once)",
                                     val);
                goto usage_fail;
            }
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--f-cea", NULL, &val)) != 0) {
            if (r < 0) goto usage_fail;
            if (tvds_cli_parse_double(val, &v) || v <= 0) {
                tvds_cli_usage_error("compare: --f-cea '%s' is not a positive number", val);
                goto usage_fail;
            }
            o.f_cea = v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--t0", NULL, &val)) != 0) {
            if (r < 0 || tvds_cli_parse_double(val, &o.t0)) {
                if (r > 0) tvds_cli_usage_error("compare: --t0 '%s' is not a number", val);
                goto usage_fail;
            }
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--t1", NULL, &val)) != 0) {
            if (r < 0 || tvds_cli_parse_double(val, &o.t1)) {
                if (r > 0) tvds_cli_usage_error("compare: --t1 '%s' is not a number", val);
                goto usage_fail;
            }
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--contact", NULL, &val)) != 0) {
            if (r < 0 || tvds_cli_parse_double(val, &v) || v < 0 || v != floor(v)) {
                if (r > 0) tvds_cli_usage_error("compare: --contact '%s' is not an index", val);
                goto usage_fail;
            }
            o.contact = (int)v;
        } else if ((r = tvds_cli_case_or_set(argc, argv, &i, "compare", &sets, &case_path)) != 0) {
            code = r;
            goto usage_fail;
        }
    }
    if (!case_path) {
        tvds_cli_usage_error("compare: missing CASE (see 'tvds compare --help')");
        goto usage_fail;
    }
    if (cea_dir) {
        int rr = tvds_cli_read_unstable(cea_dir, &o.f_cea, &o.s_cea0, &o.s_cea1);
        if (rr < 0) {
            tvds_cli_usage_error("compare: cannot read %s/unstable.csv", cea_dir);
            goto usage_fail;
        }
        if (rr > 0 && !quiet)
            fprintf(stderr, "compare: %s/unstable.csv lists no unstable window\n", cea_dir);
    }

    tvds_ctx ctx;
    tvds_model *m = NULL;
    if ((code = tvds_cli_read_case(case_path, &sets, &m, &ctx)) != 0) return code;
    char defdir[512];
    if (!outdir) {
        snprintf(defdir, sizeof defdir, "out/%s/compare", m->name);
        outdir = defdir;
    }
    tvds_cli_progress pg;
    tvds_cli_progress_init(&pg, quiet, "compare");
    o.progress = tvds_cli_progress_show;
    o.stage = tvds_cli_compare_stage;
    o.user = &pg;
    o.stop = tvds_cli_stop_flag();
    tvds_compare_result res;
    int rc;
    if (analyse_only) {
        if (o.nmethods == 0) tvds_cli_parse_methods("subs-a,subs-b,subs-c,film", &o);
        if (read_summaries(outdir, &o, &res)) {
            tvds_model_free(&m);
            return 2;
        }
        rc = tvds_compare_analyse(m, outdir, &o, &res, &ctx);
        if (rc == TVDS_OK) rc = tvds_compare_report(m, outdir, &o, &res, &ctx);
    } else {
        tvds_cli_sigint(1);
        rc = tvds_compare_run(m, outdir, &o, &res, &ctx);
        tvds_cli_sigint(0);
    }
    tvds_cli_progress_clear(&pg);
    if (rc < 0)
        code = tvds_cli_report(rc, &ctx);
    else if (!quiet)
        tvds_cli_compare_print(&res, outdir);
    tvds_model_free(&m);
    return code;

usage_fail:
    tvds_cli_sets_free(&sets);
    return code;
}
