/* cmd_validate.c — `tvds validate`: run the shipped validation cases, print the table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "tvds/tvds_validate.h"

int tvds_cmd_validate(int argc, char **argv);

static void validate_usage(FILE *out)
{
    fprintf(out,
            "usage: tvds validate [--markdown] [--only engine|law] [--filter TEXT] [--root DIR]\n"
            "                     [--set section.key=value]... [--plots DIR] [--doc FILE]\n"
            "                     [--list]\n"
            "\n"
            "Runs the shipped validation cases (SDND100 friction shoe release, SDND104 wear\n"
            "power; docs/validation.md) and prints one row per checked quantity: case,\n"
            "quantity, reference, computed value, relative error, tolerance, verdict.\n"
            "\n"
            "  --markdown     print the table as Markdown (the table of docs/validation.md)\n"
            "  --only GROUP   'engine' (case files under models/shoe/ through the engine) or\n"
            "                 'law' (one-DoF checks of the friction laws and analytic references)\n"
            "  --filter TEXT  only the cases whose name contains TEXT (or one of its\n"
            "                 comma-separated parts: --filter lagrange,sdnd104-a0,law:)\n"
            "  --root DIR     directory the case files are relative to (default: .)\n"
            "  --set S        extra override for every engine case, after the case's own\n"
            "                 (e.g. --set run.dt=1e-5 for a convergence study)\n"
            "  --plots DIR    also draw the validation figures (PNG, gnuplot) into DIR:\n"
            "                 SDND100 A and D, SDND104 velocity and wear power, belt\n"
            "  --doc FILE     write the Markdown figures and table into FILE between its\n"
            "                 '<!-- tvds validate: begin -->' and '<!-- tvds validate: end -->'\n"
            "                 lines instead of stdout (implies --markdown)\n"
            "  --list         list the cases and exit\n"
            "\n"
            "Regenerate docs/validation.md (table and figures):\n"
            "  tvds validate --markdown --plots docs/img/validation --doc docs/validation.md\n"
            "\n"
            "exit codes: 0 every row PASS, 1 some row FAIL or ERROR (or internal error),\n"
            "2 bad arguments.\n");
}

#define DOC_BEGIN "<!-- tvds validate: begin -->"
#define DOC_END   "<!-- tvds validate: end -->"

/* Path of the plot directory as seen from the directory of the Markdown file doc. */
static const char *rel_to_doc(const char *plots, const char *doc)
{
    const char *slash = doc ? strrchr(doc, '/') : NULL;
    if (!slash) return plots;
    size_t n = (size_t)(slash - doc);
    if (strncmp(plots, doc, n) == 0 && plots[n] == '/') return plots + n + 1;
    return plots;
}

static void print_body(FILE *out, const tvds_vresult *res, int nres, const char *plots,
                       const char *reldir, int *bad)
{
    if (plots) {
        fprintf(out, "### Figures of the cases\n\n");
        tvds_validate_print_figures(out, reldir);
        fprintf(out, "### Table of the cases\n\n");
    }
    *bad = tvds_validate_print(out, res, nres, 1);
}

/* First line of text that is exactly line (mentions of the marker inside prose do not count). */
static char *find_line(char *text, const char *line)
{
    size_t n = strlen(line);
    for (char *p = text; (p = strstr(p, line)) != NULL; p += n)
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\r' || p[n] == '\0'))
            return p;
    return NULL;
}

/* Replace the generated part of the Markdown file doc. Returns 0 or a CLI exit code. */
static int write_doc(const char *doc, const tvds_vresult *res, int nres, const char *plots,
                     int *bad)
{
    FILE *f = fopen(doc, "rb");
    if (!f) return tvds_cli_usage_error("validate: cannot read '%s'", doc);
    char *text = NULL;
    long len = -1;
    if (fseek(f, 0, SEEK_END) == 0) len = ftell(f);
    if (len >= 0 && fseek(f, 0, SEEK_SET) == 0) text = malloc((size_t)len + 1);
    if (text && fread(text, 1, (size_t)len, f) != (size_t)len) {
        free(text);
        text = NULL;
    }
    fclose(f);
    if (!text) return tvds_cli_usage_error("validate: cannot read '%s'", doc);
    text[len] = '\0';
    char *b = find_line(text, DOC_BEGIN), *e = b ? find_line(b, DOC_END) : NULL;
    if (!b || !e) {
        free(text);
        return tvds_cli_usage_error("validate: '%s' has no '%s' ... '%s' lines", doc, DOC_BEGIN,
                                    DOC_END);
    }
    b += strlen(DOC_BEGIN);
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", doc);
    FILE *o = fopen(tmp, "wb");
    if (!o) {
        free(text);
        return tvds_cli_usage_error("validate: cannot write '%s'", tmp);
    }
    fwrite(text, 1, (size_t)(b - text), o);
    fputs("\n\n", o);
    print_body(o, res, nres, plots, plots ? rel_to_doc(plots, doc) : NULL, bad);
    fputs("\n", o);
    fputs(e, o);
    free(text);
    int err = ferror(o);
    if (fclose(o) != 0 || err || rename(tmp, doc) != 0) {
        remove(tmp);
        return tvds_cli_usage_error("validate: cannot write '%s'", doc);
    }
    return 0;
}

int tvds_cmd_validate(int argc, char **argv)
{
    const char *plots = NULL, *doc = NULL;
    tvds_validate_opts o = {NULL, NULL, NULL, NULL, 0};
    const char *sets[8];
    int markdown = 0, list = 0;
    const tvds_cli_opt opts[] = {
        {"--markdown", NULL, NULL, &markdown, 1}, {"--list", NULL, NULL, &list, 1},
        {"--filter", NULL, &o.filter, NULL, 0},   {"--plots", NULL, &plots, NULL, 0},
        {"--root", NULL, &o.root, NULL, 0},       {NULL, NULL, NULL, NULL, 0}};
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        if (tvds_cli_is_help(argv[i])) {
            validate_usage(stdout);
            return 0;
        } else if ((r = tvds_cli_opt_table(argc, argv, &i, opts)) != 0) {
            if (r < 0) return 2;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--only", NULL, &v)) != 0) {
            if (r < 0) return 2;
            if (strcmp(v, "engine") && strcmp(v, "law"))
                return tvds_cli_usage_error("validate: --only takes 'engine' or 'law', not '%s'",
                                            v);
            o.group = v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--set", NULL, &v)) != 0) {
            if (r < 0) return 2;
            if (o.nsets == 8) return tvds_cli_usage_error("validate: at most 8 --set options");
            sets[o.nsets++] = v;
            o.sets = sets;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--doc", NULL, &v)) != 0) {
            if (r < 0) return 2;
            doc = v;
            markdown = 1;
        } else {
            return tvds_cli_usage_error("validate: unknown argument '%s' (see 'tvds validate "
                                        "--help')",
                                        argv[i]);
        }
    }
    if (list) {
        int n;
        const tvds_vcase *c = tvds_validate_cases(&n);
        for (int i = 0; i < n; i++)
            printf("%-22s %-6s %s%s%s%s\n", c[i].name, c[i].group, c[i].what,
                   c[i].case_file ? "  [" : "", c[i].case_file ? c[i].case_file : "",
                   c[i].case_file ? "]" : "");
        return 0;
    }
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_vresult *res = NULL;
    int nres = 0;
    int rc = tvds_validate_run(&o, &res, &nres, &ctx);
    if (rc) return tvds_cli_report(rc, &ctx);
    if (nres == 0) {
        tvds_free(res);
        return tvds_cli_usage_error("validate: no case matches");
    }
    if (plots) {
        tvds_ctx pctx;
        tvds_ctx_init(&pctx);
        int prc = tvds_validate_plots(plots, &o, &pctx);
        if (prc < 0) {
            tvds_free(res);
            return tvds_cli_report(prc, &pctx);
        }
        if (prc > 0) fprintf(stderr, "tvds validate: warning: %s\n", pctx.msg);
    }
    int bad = 0;
    if (doc) {
        int drc = write_doc(doc, res, nres, plots, &bad);
        if (drc) {
            tvds_free(res);
            return drc;
        }
        fprintf(stderr, "tvds validate: %s updated (%d of %d rows PASS)\n", doc, nres - bad, nres);
    } else if (markdown) {
        print_body(stdout, res, nres, plots, plots, &bad);
    } else {
        bad = tvds_validate_print(stdout, res, nres, 0);
        printf("%d of %d rows PASS\n", nres - bad, nres);
    }
    tvds_free(res);
    return bad ? 1 : 0;
}
