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
#include "tvds/tvds_output.h"

static void compare_help(FILE *out)
{
    fprintf(out,
            "usage: tvds compare CASE [--methods subs-a,subs-b,subs-c,film] [-o DIR]\n"
            "                    [--cea DIR | --f-cea HZ | --window F,T0,T1[,G]...]\n"
            "                    [--t0 T0 --t1 T1] [--set S.K=V]...\n"
            "\n"
            "Run the contact methods one after the other in this process on the same model and\n"
            "step (so that their CPU times compare), write each method's outputs to DIR/<method>/\n"
            "and compare them with FiLm: DIR/report.md, DIR/metrics.csv and the figures\n"
            "DIR/accel_<method>.png (acceleration against FiLm), DIR/spectrograms.png and\n"
            "DIR/contact.png (normal force and sliding speed). With unstable windows (--cea,\n"
            "--window) it measures the growth of the band envelope of the response across each\n"
            "(DIR/growth.csv, DIR/envelopes.png, DIR/<method>/envelope.csv) against the CEA's\n"
            "prediction, and judges the findings of the Machines 2022 paper on it\n"
            "(docs/squeal.md, docs/burst-metrics.md).\n"
            "\n"
            "options:\n"
            "  --methods LIST  comma-separated methods (default subs-a,subs-b,subs-c,film)\n"
            "  -o, --out DIR   output directory (default out/<case name>/compare)\n"
            "  --cea DIR       a CEA output directory: every window of DIR/unstable.csv is\n"
            "                  measured (columns by name: s_in/s_out or s_start/s_end; f_hz,\n"
            "                  'f at max Re' or f_min/f_max; optional branch, t_start, t_end,\n"
            "                  growth_pred or 'predicted growth'; without times the run's\n"
            "                  contact position gives them, except on a face-set master (3D),\n"
            "                  where a position is no path abscissa: a row without times is\n"
            "                  refused there, one with times nan left out with a note)\n"
            "  --f-cea HZ      the CEA frequency directly (one window: the metric window)\n"
            "  --window F,T0,T1[,G]  an unstable window by hand: band centre F [Hz], entry and\n"
            "                  exit times [s], predicted growth G (repeatable)\n"
            "  --band REL      -3 dB half-width of the band / F (default 0.05)\n"
            "  --mask MS       half-span masked around each master-node crossing [ms]\n"
            "                  (default 4 band kernel widths; 0 = no masking)\n"
            "  --t0 T, --t1 T  metric window [s] (default: end of the damping schedule to t_end)\n"
            "  --accel NAME    acceleration probe compared (default: the first one)\n"
            "  --contact N     contact index reported (default 0)\n"
            "  --no-plots      do not draw the PNG figures\n"
            "  --cpu-rounds N  time the methods interleaved, N rounds of --cpu-steps steps\n"
            "                  each (default 0: only the runs' own CPU times)\n"
            "  --cpu-steps K   steps per method and round (default 16384)\n"
            "  --no-align      rows at the first step after each multiple of out_dt, as 'tvds\n"
            "                  run' (default: every round(out_dt / dt) steps, uniform samples)\n"
            "  --analyse-only  do not run: analyse the outputs already in DIR/<method>/ (CPU\n"
            "                  times from their summary.json) and rewrite the report\n"
            "  --set S.K=V     override a case key (as 'tvds run'; repeatable)\n"
            "  -q, --quiet     no progress on stderr, no summary on stdout\n"
            "  -h, --help      this help\n"
            "\n"
            "DIR belongs to one command at a time (DIR/.lock; --analyse-only too): a second one\n"
            "exits 2. A compare first removes an earlier one's report, metrics, figures and\n"
            "method folders (tvds's files only). report.md and metrics.csv are written whole\n"
            "(temporary file, then rename). Ctrl-C, SIGTERM or SIGHUP stop the running method\n"
            "at its next step (exit 3); report.md then says which methods ran to their end,\n"
            "which was stopped (its summary.json says \"interrupted\") and which did not start.\n"
            "\n"
            "exit codes: 0 success (a failed method is reported, not fatal), 2 bad input or\n"
            "DIR in use, 3 interrupted, 1 internal error.\n"
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

/* Column index of a header field named name (units in brackets ignored), or -1. */
static int header_col(char **fields, int nf, const char *name)
{
    size_t n = strlen(name);
    for (int k = 0; k < nf; k++) {
        const char *f = fields[k];
        while (*f == ' ')
            f++;
        if (!strncmp(f, name, n) && (f[n] == '\0' || f[n] == ' ' || f[n] == '[')) return k;
    }
    return -1;
}

/* Split line in place at commas (newline removed); returns the field count (<= cap). */
static int split_csv(char *line, char **fields, int cap)
{
    line[strcspn(line, "\r\n")] = '\0';
    int nf = 0;
    char *p = line;
    while (nf < cap) {
        fields[nf++] = p;
        char *q = strchr(p, ',');
        if (!q) break;
        *q = '\0';
        p = q + 1;
    }
    return nf;
}

int tvds_cli_read_windows(const char *dir, tvds_growth_window *w, int *src_line, int cap, int *nw,
                          int *has_times)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/unstable.csv", dir);
    *nw = 0;
    FILE *fp = fopen(path, "r");
    if (!fp) {
        tvds_cli_usage_error("compare: cannot read %s", path);
        return -1;
    }
    char line[4096], *fld[64];
    if (!fgets(line, sizeof line, fp)) {
        fclose(fp);
        tvds_cli_usage_error("%s:1: empty file (expected a header)", path);
        return 2;
    }
    int nf = split_csv(line, fld, 64);
    /* Positions: the interpolated crossings of Re = 0 (s_in, s_out) when given, else the
     * grid's (s_start, s_end); frequency: f_hz, else the branch's at its largest real part,
     * else the middle of its range; predicted growth under either name. */
    int cb = header_col(fld, nf, "branch"), cs0 = header_col(fld, nf, "s_in"),
        cs1 = header_col(fld, nf, "s_out"), ct0 = header_col(fld, nf, "t_start"),
        ct1 = header_col(fld, nf, "t_end"), cf = header_col(fld, nf, "f_hz"),
        cf0 = header_col(fld, nf, "f_min"), cf1 = header_col(fld, nf, "f_max"),
        cg = header_col(fld, nf, "growth_pred");
    if (cs0 < 0 || cs1 < 0) {
        cs0 = header_col(fld, nf, "s_start");
        cs1 = header_col(fld, nf, "s_end");
    }
    *has_times = ct0 >= 0 && ct1 >= 0;
    if (cf < 0) cf = header_col(fld, nf, "f at max Re");
    if (cg < 0) cg = header_col(fld, nf, "predicted growth");
    if (cs0 < 0 || cs1 < 0 || (cf < 0 && (cf0 < 0 || cf1 < 0))) {
        fclose(fp);
        tvds_cli_usage_error("%s:1: header lacks the positions (s_in, s_out or s_start, s_end) or "
                             "the frequency (f_hz, 'f at max Re' or f_min, f_max)",
                             path);
        return 2;
    }
    int lineno = 1, rc = 0;
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        if (line[0] == '\n' || line[0] == '#') continue;
        nf = split_csv(line, fld, 64);
        double v[9];
        const int col[9] = {cb, cs0, cs1, ct0, ct1, cf, cf0, cf1, cg};
        int bad = 0;
        for (int k = 0; k < 9; k++) {
            v[k] = NAN;
            if (col[k] < 0) continue;
            if (col[k] >= nf) {
                bad = 1;
                continue;
            }
            /* Times and the predicted growth are "nan" for a window the path does not cross. */
            const char *f = fld[col[k]];
            while (*f == ' ')
                f++;
            int optional = k == 3 || k == 4 || k == 8;
            if (optional && (!strcmp(f, "nan") || !strcmp(f, "-nan"))) continue;
            if (tvds_cli_parse_double(f, &v[k])) bad = 1;
        }
        if (bad) {
            tvds_cli_usage_error("%s:%d: bad row (a number is missing or malformed)", path, lineno);
            rc = 2;
            break;
        }
        if (*nw >= cap) {
            fprintf(stderr, "compare: %s: only the first %d windows are measured\n", path, cap);
            break;
        }
        src_line[*nw] = lineno;
        tvds_growth_window *g = &w[(*nw)++];
        g->branch = cb >= 0 ? (int)v[0] : -1;
        g->s0 = v[1] < v[2] ? v[1] : v[2];
        g->s1 = v[1] < v[2] ? v[2] : v[1];
        g->t0 = v[3];
        g->t1 = v[4];
        g->f_hz = cf >= 0 ? v[5] : 0.5 * (v[6] + v[7]);
        g->growth_pred = v[8];
    }
    fclose(fp);
    return rc;
}

int tvds_cli_parse_window(const char *text, tvds_growth_window *w)
{
    char buf[256], *fld[5];
    snprintf(buf, sizeof buf, "%s", text);
    int nf = split_csv(buf, fld, 5);
    double v[4] = {NAN, NAN, NAN, NAN};
    if (nf < 3 || nf > 4) return -1;
    for (int k = 0; k < nf; k++)
        if (tvds_cli_parse_double(fld[k], &v[k])) return -1;
    if (!(v[0] > 0.0) || !(v[2] > v[1])) return -1;
    w->branch = -1;
    w->f_hz = v[0];
    w->t0 = v[1];
    w->t1 = v[2];
    w->s0 = 0.0;
    w->s1 = -1.0;
    w->growth_pred = v[3];
    return 0;
}

void tvds_cli_compare_print(const tvds_compare_result *res, const char *outdir)
{
    printf("%-7s %-12s %10s %9s %8s %10s %10s %8s %10s\n", "method", "status", "CPU [s]", "us/step",
           "ratio", "peak", "RMS diff", "peak/F", "f_dom [Hz]");
    for (int i = 0; i < res->n; i++) {
        const tvds_compare_entry *e = &res->e[i];
        char ratio[16] = "       -";
        if (isfinite(e->cpu_ratio)) snprintf(ratio, sizeof ratio, "%7.1f%%", 100.0 * e->cpu_ratio);
        printf("%-7s %-12s %10.3f %9.3f %8s %10.4g %10.4g %8.3f %10.1f\n",
               tvds_method_name(e->method), tvds_run_status_word(e->status), e->run.cpu_seconds,
               e->run.us_per_step, ratio, e->peak, e->rms_diff, e->peak_ratio, e->f_dom);
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

/* On a face-set master a window of DIR/unstable.csv needs its times: a position along a face
 * set is no path abscissa (docs/burst-metrics.md, "Window times"). A row whose times the file
 * gives as nan (the CEA's path does not cross it) is left out with a note; a file without time
 * columns is refused at its first window. Returns 0 or 2 (message printed). */
static int face_set_windows(const tvds_model *m, const tvds_compare_opts *o, const char *dir,
                            tvds_growth_window *win, const int *line, int *nwin, int has_times,
                            int quiet)
{
    if (o->contact < 0 || o->contact >= m->ncontact ||
        m->contacts[o->contact].master_kind != TVDS_MASTER_FACES)
        return 0;
    int n = 0;
    for (int w = 0; w < *nwin; w++) {
        const tvds_growth_window *g = &win[w];
        if (isfinite(g->t0) && isfinite(g->t1)) {
            win[n++] = *g;
            continue;
        }
        if (!has_times) {
            tvds_cli_usage_error(
                "%s/unstable.csv:%d: window at %g Hz is given by position only (s = %g ... %g "
                "mm): on contact '%s', a face set, a position is no path abscissa, so the run "
                "gives no times for it; add t_start and t_end (tvds cea writes them) or give "
                "--window F,T0,T1",
                dir, line[w], g->f_hz, 1e3 * g->s0, 1e3 * g->s1, m->contacts[o->contact].name);
            return 2;
        }
        if (!quiet)
            fprintf(stderr,
                    "compare: %s/unstable.csv:%d: window at %g Hz not crossed by the CEA's path "
                    "(t_start, t_end nan): not measured (on a face set a position gives no "
                    "times)\n",
                    dir, line[w], g->f_hz);
    }
    *nwin = n;
    return 0;
}

int tvds_cmd_compare(int argc, char **argv)
{
    const char *case_path = NULL, *outdir = NULL, *cea_dir = NULL, *val;
    int quiet = 0, analyse_only = 0, code = 2, r;
    tvds_cli_sets sets = {0};
    tvds_compare_opts o = tvds_compare_opts_default();
    tvds_growth_window win[TVDS_COMPARE_MAX_WINDOWS];
    int nwin = 0, win_line[TVDS_COMPARE_MAX_WINDOWS], cea_times = 0;
    const tvds_cli_opt opts[] = {{"--quiet", "-q", NULL, &quiet, 1},
                                 {"--no-plots", NULL, NULL, &o.plots, 0},
                                 {"--no-align", NULL, NULL, &o.align_out, 0},
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
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--window", NULL, &val)) != 0) {
            if (r < 0) goto usage_fail;
            if (nwin >= TVDS_COMPARE_MAX_WINDOWS || tvds_cli_parse_window(val, &win[nwin])) {
                tvds_cli_usage_error("compare: bad --window '%s' (F,T0,T1[,G]: F > 0 Hz, T1 > T0 "
                                     "s; at most %d)",
                                     val, TVDS_COMPARE_MAX_WINDOWS);
                goto usage_fail;
            }
            nwin++;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--band", NULL, &val)) != 0) {
            if (r < 0 || tvds_cli_parse_double(val, &v) || !(v > 0.0 && v < 0.5)) {
                if (r > 0) tvds_cli_usage_error("compare: --band '%s' is not in (0, 0.5)", val);
                goto usage_fail;
            }
            o.band_rel = v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--cpu-rounds", NULL, &val)) != 0) {
            char *end = NULL;
            long lv = r > 0 ? strtol(val, &end, 10) : 0;
            if (r < 0 || !end || *end || lv < 1 || lv > 64) {
                if (r > 0) tvds_cli_usage_error("compare: --cpu-rounds '%s' is not in 1..64", val);
                goto usage_fail;
            }
            o.cpu_rounds = (int)lv;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--cpu-steps", NULL, &val)) != 0) {
            char *end = NULL;
            long lv = r > 0 ? strtol(val, &end, 10) : 0;
            if (r < 0 || !end || *end || lv < 1) {
                if (r > 0) tvds_cli_usage_error("compare: --cpu-steps '%s' is not >= 1", val);
                goto usage_fail;
            }
            o.cpu_steps = lv;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--mask", NULL, &val)) != 0) {
            if (r < 0 || tvds_cli_parse_double(val, &v) || !(v >= 0.0)) {
                if (r > 0) tvds_cli_usage_error("compare: --mask '%s' is not >= 0 ms", val);
                goto usage_fail;
            }
            o.mask_half = v > 0.0 ? 1e-3 * v : -1.0;
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
        if (nwin > 0) {
            tvds_cli_usage_error("compare: give --cea or --window, not both");
            goto usage_fail;
        }
        int rr = tvds_cli_read_windows(cea_dir, win, win_line, TVDS_COMPARE_MAX_WINDOWS, &nwin,
                                       &cea_times);
        if (rr) {
            code = 2;
            goto usage_fail;
        }
        if (nwin == 0 && !quiet)
            fprintf(stderr, "compare: %s/unstable.csv lists no unstable window\n", cea_dir);
    }
    tvds_ctx ctx;
    tvds_model *m = NULL;
    if ((code = tvds_cli_read_case(case_path, &sets, &m, &ctx)) != 0) return code;
    if (cea_dir && face_set_windows(m, &o, cea_dir, win, win_line, &nwin, cea_times, quiet)) {
        tvds_model_free(&m);
        return 2;
    }
    if (nwin > 0) {
        o.nwindows = nwin;
        o.windows = win;
        /* The spectrograms mark the window of largest predicted growth (or the first). */
        int best = 0;
        for (int w = 1; w < nwin; w++)
            if (win[w].growth_pred > win[best].growth_pred) best = w;
        if (!(o.f_cea > 0.0)) o.f_cea = win[best].f_hz;
    }

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
        /* The runs' directory belongs to this analysis while it rewrites the report (a compare
         * running there refuses it, and the other way round). */
        tvds_outdir *od = NULL;
        if ((rc = tvds_outdir_open(outdir, &od, &ctx)) != TVDS_OK) {
            tvds_model_free(&m);
            return tvds_cli_report(rc, &ctx);
        }
        if (o.nmethods == 0) tvds_cli_parse_methods("subs-a,subs-b,subs-c,film", &o);
        if (read_summaries(outdir, &o, &res)) {
            tvds_outdir_close(&od);
            tvds_model_free(&m);
            return 2;
        }
        rc = tvds_compare_analyse(m, outdir, &o, &res, &ctx);
        if (rc == TVDS_OK) rc = tvds_compare_report(m, outdir, &o, &res, &ctx);
        tvds_outdir_close(&od);
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
    for (int i = 0; rc >= 0 && i < res.n; i++)
        if (res.e[i].resampled) {
            fprintf(stderr,
                    "compare: warning: %s's rows are not uniform in time (out_dt %g s is not a "
                    "multiple of dt %g s): its metrics interpolate (see report.md)\n",
                    tvds_method_name(res.e[i].method), m->opt.out_dt, res.e[i].run.dt);
            break;
        }
    tvds_model_free(&m);
    return code;

usage_fail:
    tvds_cli_sets_free(&sets);
    return code;
}
