/* cmd_validate.c — `tvds validate`: run the shipped validation cases, print the table. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "tvds/tvds_validate.h"

int tvds_cmd_validate(int argc, char **argv);

static void validate_usage(FILE *out)
{
    fprintf(out,
            "usage: tvds validate [--markdown] [--only engine|law] [--filter TEXT] [--root DIR]\n"
            "                     [--set section.key=value]... [--list]\n"
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
            "  --list         list the cases and exit\n"
            "\n"
            "exit codes: 0 every row PASS, 1 some row FAIL or ERROR (or internal error),\n"
            "2 bad arguments.\n");
}

int tvds_cmd_validate(int argc, char **argv)
{
    tvds_validate_opts o = {NULL, NULL, NULL, NULL, 0};
    const char *sets[8];
    int markdown = 0, list = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            validate_usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--markdown")) {
            markdown = 1;
        } else if (!strcmp(argv[i], "--list")) {
            list = 1;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--only", NULL, &v)) != 0) {
            if (r < 0) return 2;
            if (strcmp(v, "engine") && strcmp(v, "law"))
                return tvds_cli_usage_error("validate: --only takes 'engine' or 'law', not '%s'",
                                            v);
            o.group = v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--filter", NULL, &v)) != 0) {
            if (r < 0) return 2;
            o.filter = v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--set", NULL, &v)) != 0) {
            if (r < 0) return 2;
            if (o.nsets == 8) return tvds_cli_usage_error("validate: at most 8 --set options");
            sets[o.nsets++] = v;
            o.sets = sets;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--root", NULL, &v)) != 0) {
            if (r < 0) return 2;
            o.root = v;
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
    int bad = tvds_validate_print(stdout, res, nres, markdown);
    if (!markdown) printf("%d of %d rows PASS\n", nres - bad, nres);
    tvds_free(res);
    return bad ? 1 : 0;
}
