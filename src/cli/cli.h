/* cli.h — shared helpers and the command entry points of the `tvds` command line. */
#ifndef TVDS_CLI_H
#define TVDS_CLI_H

#include <stdio.h>

#include "tvds/tvds.h"

/* A subcommand: argv[0] is the command name. Returns the process exit code
 * (0 success, 1 internal error, 2 bad input, 3 divergence or solver failure). */
typedef int (*tvds_cli_fn)(int argc, char **argv);

int tvds_cmd_run(int argc, char **argv);
int tvds_cmd_check(int argc, char **argv);
int tvds_cmd_validate(int argc, char **argv);
int tvds_cmd_cea(int argc, char **argv);
int tvds_cmd_spectrogram(int argc, char **argv);
int tvds_cmd_reduce(int argc, char **argv);
int tvds_cmd_model(int argc, char **argv);
int tvds_cmd_bench(int argc, char **argv);
int tvds_cmd_sweep(int argc, char **argv);

/* Print "tvds: message" as one line on stderr and return exit code 2. */
int tvds_cli_usage_error(const char *fmt, ...) TVDS_PRINTF(1, 2);
/* Print the context's message as one line "tvds: ..." on stderr; return the exit code of
 * status (tvds_status_exit_code). */
int tvds_cli_report(int status, const tvds_ctx *ctx);

/* Growing list of --set strings (pointers into argv). */
typedef struct tvds_cli_sets {
    const char **v;
    int n, cap;
} tvds_cli_sets;
int tvds_cli_sets_add(tvds_cli_sets *s, const char *item);
void tvds_cli_sets_free(tvds_cli_sets *s);

/* Option with a value: "--opt VALUE" or "--opt=VALUE" (short "-o VALUE"). If argv[*i] is this
 * option, sets *value, advances *i past the value and returns 1; returns -1 when the value is
 * missing (after printing the error), 0 when argv[*i] is another option. */
int tvds_cli_opt_value(int argc, char **argv, int *i, const char *lng, const char *shrt,
                       const char **value);

#endif
