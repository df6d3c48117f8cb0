/* cmd_import_impl.h — the subcommands of `tvds import` for other codes' matrices
 * (cmd_import_fe.c); argv[0] is the format name. */
#ifndef TVDS_CMD_IMPORT_IMPL_H
#define TVDS_CMD_IMPORT_IMPL_H

#include "cli/cli.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_reduce.h"

int tvds_cmd_import_abaqus(int argc, char **argv);
int tvds_cmd_import_nastran(int argc, char **argv);

/* One import's output directory (cmd_import.c), for every format: DIR is the command's from
 * tvds_cli_import_begin (locked: a second import or reduce into it is refused at once, exit
 * 2), nothing in it changes before the commit of tvds_cli_import_write (stage, manifest,
 * renames: docs/reliability.md), a stop before the commit ends the process within a second
 * (tvds_cli_stop_watchdog) and a directory the command created is removed again. */
typedef struct tvds_cli_import_dir {
    const char *cmd;
    tvds_outdir *od;
    tvds_cli_outdir_undo undo;
    int sig;           /* the signal that stopped the import, or 0 */
    tvds_ctx ctx;      /* the import's errors (CHOLMOD's too) */
    cholmod_common cc; /* the import's CHOLMOD workspace */
    int cc_on;
} tvds_cli_import_dir;
/* Lock DIR, install the stop handlers and the watchdog, start CHOLMOD with its errors into
 * s->ctx. Returns 0 or the exit code (then nothing is left to end). */
int tvds_cli_import_begin(tvds_cli_import_dir *s, const char *cmd, const char *outdir);
/* Write m into DIR through the commit, unless rc (the import's status) is an error. */
int tvds_cli_import_write(tvds_cli_import_dir *s, const tvds_fe_model *m, int rc, tvds_ctx *ctx);
/* Release CHOLMOD, DIR (undone on failure or stop) and the handlers; the exit code: 0, 3 when
 * stopped (nothing committed), else the report of rc from ctx. */
int tvds_cli_import_end(tvds_cli_import_dir *s, int rc, tvds_ctx *ctx);

/* The arguments of an import subcommand (name: "import abaqus"): -h/--help prints help and
 * gives -1 (exit 0), the options of opts, and at most npos positional arguments into pos[]
 * (NULL when absent). Returns 0, -1 (help printed) or the exit code of a usage error. */
int tvds_cli_import_args(int argc, char **argv, const tvds_cli_opt *opts, void (*help)(FILE *),
                         const char *name, const char **pos, int npos);
/* The lines on what the deck gave that was left out (node sets, faces, surfaces). */
void tvds_cli_import_dropped(const tvds_ccx_info *info);

#endif
