/* cli_import_dir.c — the output directory of `tvds import` for every format (lock, commit,
 * stop), shared by cmd_import.c and cmd_import_fe.c (cmd_import_impl.h). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cmd_import_impl.h"
#include "tvds/tvds_io.h"
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
    tvds_ctx_init(&s->ctx);
    rc = tvds_cholmod_start(&s->cc);
    if (rc) return tvds_cli_import_end(s, rc, NULL);
    s->cc_on = 1;
    tvds_cholmod_ctx(&s->ctx);
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
    if (s->cc_on) {
        tvds_cholmod_ctx(NULL);
        cholmod_finish(&s->cc);
        s->cc_on = 0;
    }
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

int tvds_cli_import_args(int argc, char **argv, const tvds_cli_opt *opts, void (*help)(FILE *),
                         const char *name, const char **pos, int npos)
{
    int np = 0, r;
    for (int k = 0; k < npos; k++)
        pos[k] = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (tvds_cli_is_help(a)) {
            help(stdout);
            return -1;
        } else if ((r = tvds_cli_opt_table(argc, argv, &i, opts)) != 0) {
            if (r < 0) return 2;
        } else if (a[0] == '-') {
            return tvds_cli_usage_error("%s: unknown option '%s' (see 'tvds %s --help')", name, a,
                                        name);
        } else if (np < npos) {
            pos[np++] = a;
        } else {
            return tvds_cli_usage_error("%s: unexpected argument '%s' (see 'tvds %s --help')", name,
                                        a, name);
        }
    }
    return 0;
}

void tvds_cli_import_dropped(const tvds_ccx_info *info)
{
    if (info->sets_dropped)
        printf("import: %d node set(s) left out, no node with a DoF (first: %s)\n",
               info->sets_dropped, info->first_dropped);
    if (info->faces_dropped)
        printf("import: %d face(s) left out, a node without ux, uy, uz (first in surface %s); "
               "%d surface(s) left out entirely\n",
               info->faces_dropped, info->first_face_dropped, info->fsets_dropped);
}
