/* cli_import_dir.c — the output directory of `tvds import` for every format (lock, commit,
 * stop), shared by cmd_import.c and cmd_import_fe.c (cmd_import_impl.h). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cmd_import_impl.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_reduce.h"

int tvds_cli_import_begin(tvds_cli_import_dir *s, const char *cmd, const char *outdir)
{
    struct stat sb;
    memset(s, 0, sizeof *s);
    s->cmd = cmd;
    s->undo.dir = outdir;
    s->undo.existed = stat(outdir, &sb) == 0;
    s->undo.od = &s->od;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int rc = tvds_outdir_open(outdir, &s->od, &ctx);
    if (rc) return tvds_cli_report(rc, &ctx);
    tvds_cli_sigint(1);
    tvds_cli_stop_watchdog(cmd, 0.5, tvds_cli_outdir_undo_fn, &s->undo);
    return 0;
}

int tvds_cli_import_write(tvds_cli_import_dir *s, const tvds_fe_model *m, int rc, tvds_ctx *ctx)
{
    char stage[4200];
    const char *const *owned;
    int nowned = tvds_fe_model_files(&owned);
    if (!rc) rc = tvds_commit_begin(s->undo.dir, stage, sizeof stage, ctx);
    if (!rc) rc = tvds_fe_model_write(m, stage, ctx);
    tvds_cli_stop_critical(1); /* the renames into place are never cut half way */
    s->sig = (int)*tvds_cli_stop_flag();
    if (!rc && !s->sig) rc = tvds_commit_end(s->undo.dir, owned, nowned, ctx);
    tvds_cli_stop_watchdog_end();
    tvds_cli_stop_critical(0);
    return rc;
}

int tvds_cli_import_end(tvds_cli_import_dir *s, int rc, tvds_ctx *ctx)
{
    tvds_cli_stop_watchdog_end();
    tvds_cli_sigint(0);
    tvds_outdir_close(&s->od);
    if (rc || s->sig) tvds_cli_outdir_undo_fn(&s->undo);
    if (!rc && s->sig) {
        fprintf(stderr, "tvds: %s: interrupted (%s); nothing committed, %s is as it was\n", s->cmd,
                tvds_cli_signal_name(s->sig), s->undo.dir);
        return 3;
    }
    if (rc) return tvds_cli_report(rc, ctx);
    return 0;
}
