/* cli.h — shared helpers and the command entry points of the `tvds` command line. */
#ifndef TVDS_CLI_H
#define TVDS_CLI_H

#include <signal.h>
#include <stdio.h>

#include "tvds/tvds.h"
#include "tvds/tvds_model.h"
#include "tvds/tvds_run.h"

/* A subcommand: argv[0] is the command name. Returns the process exit code
 * (0 success, 1 internal error, 2 bad input, 3 divergence or solver failure). */
typedef int (*tvds_cli_fn)(int argc, char **argv);

int tvds_cmd_run(int argc, char **argv);
int tvds_cmd_check(int argc, char **argv);
int tvds_cmd_validate(int argc, char **argv);
int tvds_cmd_cea(int argc, char **argv);
int tvds_cmd_spectrogram(int argc, char **argv);
int tvds_cmd_reduce(int argc, char **argv);
int tvds_cmd_import(int argc, char **argv);
int tvds_cmd_model(int argc, char **argv);
int tvds_cmd_bench(int argc, char **argv);
int tvds_cmd_sweep(int argc, char **argv);
/* `tvds study --convergence` (cmd_convergence.c). */
int tvds_cmd_study_convergence(int argc, char **argv);

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

/* A row of an option table (ended by a row with lng NULL): with str, "--lng VALUE",
 * "--lng=VALUE" or "shrt VALUE" stores VALUE (a pointer into argv) in *str; without, the flag
 * "--lng" or "shrt" sets *flag = set_to. */
typedef struct tvds_cli_opt {
    const char *lng, *shrt;
    const char **str;
    int *flag;
    int set_to;
} tvds_cli_opt;
/* Match argv[*i] against the table t (advancing *i past a value): 1 taken, 0 none of them,
 * -1 value missing (error printed). */
int tvds_cli_opt_table(int argc, char **argv, int *i, const tvds_cli_opt *t);
/* Whether a is "-h" or "--help". */
int tvds_cli_is_help(const char *a);

/* "--set S.K=V" (or "--set=S.K=V") at argv[*i]: adds the value to sets and advances *i.
 * Returns 1 when taken, 0 when argv[*i] is another option, or minus the exit code after
 * printing the error (-2 missing value, -1 out of memory). */
int tvds_cli_opt_set(int argc, char **argv, int *i, tvds_cli_sets *sets);

/* A non-option argument a of command cmd taken as the case file: an unknown option ("-x") or a
 * second case file is an error (printed, returns 2); otherwise sets *case_path, returns 0. */
int tvds_cli_case_arg(const char *cmd, const char *a, const char **case_path);

/* The last branch of the option loop of a command taking CASE and --set: argv[*i] is a --set
 * (tvds_cli_opt_set) or else the case file (tvds_cli_case_arg). Returns 0 when taken, otherwise
 * the exit code after printing the error. */
int tvds_cli_case_or_set(int argc, char **argv, int *i, const char *cmd, tvds_cli_sets *sets,
                         const char **case_path);

/* Strict numbers of an option value: the whole string, no overflow; a double must be finite.
 * Return 0 and set *v, or -1 (*v untouched). */
int tvds_cli_parse_double(const char *s, double *v);
int tvds_cli_parse_int(const char *s, int *v);

/* Read the case file path with the --set overrides (sets is freed either way) into *m;
 * ctx is initialised here and holds the message. Returns 0, or the exit code after printing
 * the error as one line "tvds: ..." on stderr. */
int tvds_cli_read_case(const char *path, tvds_cli_sets *sets, tvds_model **m, tvds_ctx *ctx);

/* Progress line of runs on stderr: percent, simulated time, steps/s, time left, refreshed in
 * place at most 4 times a second once a run has taken 2 s; nothing unless stderr is a terminal
 * and not --quiet. quiet also silences a command's own stage lines (prefix: "compare", ...). */
typedef struct tvds_cli_progress {
    int quiet, tty, shown;
    double last;  /* monotonic time of the last update [s] */
    double start; /* monotonic time of tvds_cli_progress_init [s] */
    long base;    /* tvds_cli_progress_count: items done before this process (--resume) */
    const char *prefix;
} tvds_cli_progress;
void tvds_cli_progress_init(tvds_cli_progress *p, int quiet, const char *prefix);
/* A tvds_progress_fn; user is a tvds_cli_progress. */
void tvds_cli_progress_show(void *user, const tvds_progress *pr);
/* Progress of a count of items (CEA positions, sweep runs): "prefix: done/total what, rate/s,
 * time left", from 2 s after tvds_cli_progress_init on: in place at most 4 times a second on a
 * terminal, else one line every 10 s (logs of batch jobs); nothing with quiet. The rate counts
 * the items of this process (done - p->base). */
void tvds_cli_progress_count(tvds_cli_progress *p, const char *what, long done, long total);
/* tvds_cea_options.progress; user is a tvds_cli_progress (what: "positions"). */
void tvds_cli_progress_positions(void *user, int done, int total);
/* Erase the progress line if one is shown. */
void tvds_cli_progress_clear(tvds_cli_progress *p);

/* Stop signals (SIGINT, SIGTERM, SIGHUP): install (1) or restore (0) handlers that set the stop
 * flag (a tvds_run_opts.stop) to the signal's number; each handler resets itself, so a second
 * signal kills at once. */
void tvds_cli_sigint(int install);
volatile sig_atomic_t *tvds_cli_stop_flag(void);
/* "SIGINT", "SIGTERM", "SIGHUP" or "signal". */
const char *tvds_cli_signal_name(int sig);
/* cli_stop.c: for commands that change nothing on disk outside a critical section (reduce,
 * import). Once the stop flag is set, a thread waits grace_s for the command's own checks; if
 * the command is then still running and not inside tvds_cli_stop_critical(1) ... (0), it
 * prints one line naming cmd and the signal, calls cleanup(arg) (may be NULL: what the command
 * would undo on a failure, e.g. remove the output directory it created) and ends the process
 * with exit code 3. Returns 0, or -1 when the thread cannot start (stops are then only the
 * command's own). _end joins it. */
int tvds_cli_stop_watchdog(const char *cmd, double grace_s, void (*cleanup)(void *), void *arg);
void tvds_cli_stop_critical(int enter);
/* What a failed or stopped reduce/import undoes in its output directory: the stage of an
 * uncommitted write (tvds_commit_abort) and, when the command created the directory, the
 * directory itself if nothing else is in it. */
typedef struct tvds_outdir tvds_outdir;
typedef struct tvds_cli_outdir_undo {
    const char *dir;
    int existed;      /* the directory was there before the command */
    tvds_outdir **od; /* the command's lock on it, released first (NULL: none) */
} tvds_cli_outdir_undo;
void tvds_cli_outdir_undo_fn(void *undo);
void tvds_cli_stop_watchdog_end(void);

#endif
