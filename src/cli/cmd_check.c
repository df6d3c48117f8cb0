/* cmd_check.c — `tvds check`: read and validate a case and its substructures, print a summary. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "tvds/tvds_case.h"

static void check_help(FILE *out)
{
    fprintf(out,
            "usage: tvds check CASE [--set section.key=value]...\n"
            "\n"
            "Read the case file CASE and the substructures it names, validate everything (keys,\n"
            "numbers, names of substructures, nodes and node sets, matrices) and print a\n"
            "summary: substructures with their DoFs (physical/modal), stepping path (modal,\n"
            "lumped or physical: what run.path chooses) and frequency range,\n"
            "contacts, constraints, loads, elements, probes, the stable time step and the\n"
            "step that a run would use. Nothing is integrated and nothing is written.\n"
            "\n"
            "options:\n"
            "  --set S.K=V   override key K of section S (TYPE.NAME.K=V for named sections)\n"
            "  -h, --help    this help\n"
            "\n"
            "exit codes: 0 valid, 2 bad input (one line on stderr: file:line: message).\n"
            "\n"
            "example:\n"
            "  tvds check models/shoe/sdnd100a_lagrange.ini --set contact.base.mu=0.2\n");
}

int tvds_cmd_check(int argc, char **argv)
{
    const char *case_path = NULL;
    tvds_cli_sets sets = {0};
    int code = 2, r;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (tvds_cli_is_help(a)) {
            check_help(stdout);
            tvds_cli_sets_free(&sets);
            return 0;
        } else if ((r = tvds_cli_case_or_set(argc, argv, &i, "check", &sets, &case_path)) != 0) {
            code = r;
            goto usage_fail;
        }
    }
    if (!case_path) {
        tvds_cli_usage_error("check: missing CASE (see 'tvds check --help')");
        goto usage_fail;
    }
    tvds_ctx ctx;
    tvds_model *m = NULL;
    if ((code = tvds_cli_read_case(case_path, &sets, &m, &ctx)) != 0) return code;
    int rc = tvds_model_print(m, stdout, &ctx);
    fflush(stdout);
    tvds_model_free(&m);
    if (rc) return tvds_cli_report(rc, &ctx);
    return 0;

usage_fail:
    tvds_cli_sets_free(&sets);
    return code;
}
