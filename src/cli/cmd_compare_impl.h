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

/* Every window of DIR/unstable.csv into w[0..cap-1] (*nw), src_line[k] the file's line of window
 * k.
 * Columns found by name in the header (units in brackets ignored): positions s_in, s_out (or
 * s_start, s_end), frequency f_hz (or "f at max Re", or the mean of f_min and f_max), optional
 * branch, t_start, t_end (else found from the run's contact position; *has_times: the header
 * has both), growth_pred or "predicted growth" (else NaN).
 * Returns 0, -1 (file unreadable: message printed), 2 (bad header or row: file:line printed). */
int tvds_cli_read_windows(const char *dir, tvds_growth_window *w, int *src_line, int cap, int *nw,
                          int *has_times);

/* Parse "F,T0,T1[,G]" (Hz, s, s, predicted growth) into *w. Returns 0 or -1. */
int tvds_cli_parse_window(const char *text, tvds_growth_window *w);
/* Table of a comparison on stdout. */
void tvds_cli_compare_print(const tvds_compare_result *res, const char *outdir);

#endif
