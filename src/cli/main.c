/* main.c — the `tvds` command: the table of subcommands and dispatch. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_compare_impl.h"

/* `tvds study`, or its mesh convergence study with --convergence (cmd_convergence.c, which
 * runs the study's own models and survey). */
static int cmd_study_or_convergence(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--convergence")) return tvds_cmd_study_convergence(argc, argv);
    return tvds_cmd_study(argc, argv);
}

/* One row per subcommand; later commands (validate, reduce, model, cea, spectrogram, compare,
 * sweep, bench, study) join here, each implemented in src/cli/cmd_<name>.c. */
static const struct {
    const char *name;
    tvds_cli_fn fn;
    const char *summary;
} commands[] = {
    {"run", tvds_cmd_run, "run a case: time integration, CSV histories and summary.json"},
    {"check", tvds_cmd_check, "read and validate a case and its substructures, print a summary"},
    {"validate", tvds_cmd_validate, "run every shipped validation case against its reference"},
    {"cea", tvds_cmd_cea, "complex eigenvalue locus along the sliding path, unstable windows"},
    {"spectrogram", tvds_cmd_spectrogram, "STFT spectrogram of a history channel (CSV + PNG)"},
    {"reduce", tvds_cmd_reduce, "Craig-Bampton reduction of a full Matrix Market model"},
    {"import", tvds_cmd_import, "import a full FE model from CalculiX, Abaqus or Nastran"},
    {"model", tvds_cmd_model,
     "generate FE models: beam-on-beam (full, reduced), block (3D solid), disc-brake"},
    {"compare", tvds_cmd_compare, "run several contact methods, compare them with FiLm (report)"},
    {"study", cmd_study_or_convergence,
     "beam-on-beam squeal study: model, CEA, transients, report"},
    {"sweep", tvds_cmd_sweep, "parameter grid of runs (OpenMP, MPI): CSV and squeal map"},
    {"bench", tvds_cmd_bench, "benchmarks: per-step cost, paths, CEA, reduction, scaling"},
};
#define NCOMMANDS ((int)(sizeof commands / sizeof commands[0]))

static void usage(FILE *out)
{
    fprintf(out,
            "usage: tvds <command> [options]\n"
            "       tvds <command> --help\n"
            "       tvds --help | --version\n"
            "\n"
            "tvds %s: friction-induced vibration analysis by time-variant dynamic "
            "substructuring.\n"
            "\n"
            "commands:\n",
            TVDS_VERSION);
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n"
                 "exit codes: 0 success, 1 internal error or an output that cannot be written\n"
                 "(full disk), 2 bad input (one line on stderr naming file and line) or an\n"
                 "output directory in use, 3 divergence, solver failure or interruption\n"
                 "(SIGINT, SIGTERM, SIGHUP; outputs so far are kept).\n"
                 "Case files: docs/case-file.md. Outputs: docs/outputs.md.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("tvds %s\n", tvds_version(NULL, NULL, NULL));
        return 0;
    }
    for (int i = 0; i < NCOMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    return tvds_cli_usage_error("unknown command '%s' (see 'tvds --help')", argv[1]);
}
