/* cmd_compare_impl.h — helpers shared by `tvds compare` and `tvds study` (progress display,
 * method lists, CEA windows read back). */
#ifndef TVDS_CMD_COMPARE_IMPL_H
#define TVDS_CMD_COMPARE_IMPL_H

#include "tvds/tvds_compare.h"

int tvds_cmd_compare(int argc, char **argv);
int tvds_cmd_study(int argc, char **argv);

/* tvds_compare_stage_fn printing "PREFIX: [i/n] method ..." on stderr (clearing a progress line
 * first), unless quiet; user is a tvds_cli_progress (cli.h). */
void tvds_cli_compare_stage(void *user, int method, int index, int count);
/* "subs-b,film" into o->methods; -1 on an unknown or repeated method. */
int tvds_cli_parse_methods(const char *list, tvds_compare_opts *o);
/* Strongest window (largest real part) of DIR/unstable.csv: frequency (middle of its range)
 * and positions. 0 found, 1 no window listed, -1 file unreadable. */
int tvds_cli_read_unstable(const char *dir, double *f, double *s0, double *s1);
/* Table of a comparison on stdout. */
void tvds_cli_compare_print(const tvds_compare_result *res, const char *outdir);

#endif
