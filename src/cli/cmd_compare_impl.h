/* cmd_compare_impl.h — helpers shared by `tvds compare` and `tvds study` (progress display,
 * method lists, CEA windows read back, Ctrl-C handling). */
#ifndef TVDS_CMD_COMPARE_IMPL_H
#define TVDS_CMD_COMPARE_IMPL_H

#include <signal.h>

#include "tvds/tvds_compare.h"

/* Progress state: enabled (not --quiet), tty (stderr is a terminal: one line refreshed in
 * place; otherwise a line every 10 s), inline line shown, time of the last printed line. */
typedef struct tvds_cli_progress {
    int enabled, tty, inline_shown;
    double last_line;
    const char *prefix; /* "compare", "study" */
} tvds_cli_progress;

int tvds_cmd_compare(int argc, char **argv);
int tvds_cmd_study(int argc, char **argv);

/* tvds_compare_stage_fn and tvds_progress_fn printing on stderr; user is a tvds_cli_progress. */
void tvds_cli_compare_stage(void *user, int method, int index, int count);
void tvds_cli_compare_progress(void *user, const tvds_progress *pr);
/* Clear a progress line left on the terminal. */
void tvds_cli_compare_progress_end(tvds_cli_progress *p);
/* "subs-b,film" into o->methods; -1 on an unknown or repeated method. */
int tvds_cli_parse_methods(const char *list, tvds_compare_opts *o);
/* Strongest window (largest real part) of DIR/unstable.csv: frequency (middle of its range)
 * and positions. 0 found, 1 no window listed, -1 file unreadable. */
int tvds_cli_read_unstable(const char *dir, double *f, double *s0, double *s1);
/* Table of a comparison on stdout. */
void tvds_cli_compare_print(const tvds_compare_result *res, const char *outdir);
/* Ctrl-C: install (1) or restore (0) the handler setting the stop flag. */
void tvds_cli_compare_sigint(int install);
volatile sig_atomic_t *tvds_cli_compare_stop_flag(void);

#endif
