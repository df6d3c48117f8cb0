/* cmd_sweep.c — `tvds sweep`: a grid of runs over case parameters (OpenMP threads, MPI ranks). */
#include <stdio.h>

#include "cli/cli.h"

int tvds_cmd_sweep(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return tvds_cli_usage_error("sweep: not implemented yet");
}
