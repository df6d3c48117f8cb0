/* tvds_run.h — the run driver: step a model to t_end, record sampled channels to CSV files and
 * keep summary.json current (docs/outputs.md). */
#ifndef TVDS_RUN_H
#define TVDS_RUN_H

#include <signal.h>

#include "tvds/tvds_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Progress of a run, passed to the progress callback. */
typedef struct tvds_progress {
    double t;           /* simulated time reached [s] */
    double t_end;       /* [s] */
    long steps;         /* steps taken */
    double wall_s;      /* wall-clock time since the start of the run [s] */
    double steps_per_s; /* mean stepping rate so far [1/s] */
} tvds_progress;

typedef void (*tvds_progress_fn)(void *user, const tvds_progress *p);

/* What a run did (filled by tvds_run when tvds_run_opts.result is set). */
typedef struct tvds_run_result {
    int status; /* return value of tvds_run */
    long steps;
    double dt;          /* step used [s] */
    double t_reached;   /* [s] */
    double cpu_seconds; /* stepping loop, outputs and setup excluded [s] */
    double us_per_step;
    double wall_seconds;
    double setup_cpu_seconds; /* tvds_data_create (eigenbases, flexibilities) [s] */
    long rows;                /* rows written to history.csv */
    double out_dt;            /* row interval aimed at [s]: m->opt.out_dt, or with align_out
                                 the multiple of dt it was rounded to (0: every step) */
} tvds_run_result;

typedef struct tvds_run_opts {
    tvds_progress_fn progress;   /* called at most every progress_interval; may be NULL */
    void *user;                  /* passed to progress */
    volatile sig_atomic_t *stop; /* checked before every step; nonzero stops the run cleanly
                                    (outputs flushed, status "interrupted"); may be NULL */
    double progress_interval;    /* wall seconds between progress calls; default 0.25 */
    double summary_interval;     /* wall seconds between summary.json / CSV refreshes; default 2 */
    tvds_run_result *result;     /* filled on return when not NULL */
    int align_out;               /* nonzero: rows every k = max(1, round(out_dt / dt)) steps
                                    (out_dt rounded to a multiple of the step used), so that the
                                    samples are uniform; 0 (default): the first step on or after
                                    every multiple of out_dt (uniform only when out_dt is a
                                    multiple of dt) */
} tvds_run_opts;

/* Defaults: no callback, no stop flag, intervals 0.25 s and 2 s, no result, no alignment. */
TVDS_API tvds_run_opts tvds_run_opts_default(void);

/* Run m from its initial conditions to m->opt.t_end. outdir (NULL: "out/<m->name>") is created
 * with its parents, locked for this run (TVDS_ERR_BUSY when another process holds it), cleared
 * of an earlier run's outputs, and receives history.csv, contacts.csv, energy.csv (rows at the
 * first step on or after every multiple of m->opt.out_dt, and at the last step) and summary.json
 * (rewritten atomically every summary_interval and at the end). o may be NULL (defaults). Returns
 * TVDS_OK, the engine's error (TVDS_ERR_DIVERGED, ...: outputs so far kept valid, summary status
 * names it), TVDS_ERR_INTERRUPTED when *o->stop was set (a signal number in *o->stop is named in
 * the message), TVDS_ERR_WRITE when an output cannot be written (disk full: the CSVs end at their
 * last whole row, summary.json says "write_failed"). */
TVDS_API int tvds_run(const tvds_model *m, const char *outdir, const tvds_run_opts *o,
                      tvds_ctx *ctx);

/* Word for summary.json's "status" of a run that ended with code: "ok", "interrupted",
 * "diverged", "contact_lost", "singular", "solver_failure", "invalid_input", "failed". */
TVDS_API const char *tvds_run_status_word(int code);

/* A run that could not start (its case file did not read): take outdir as tvds_run would
 * (lock), remove the outputs of any earlier run there and write summary.json with the status
 * of code ("invalid_input", ...) and message, so that nothing in outdir says "ok". case_name
 * may be NULL. Returns TVDS_ERR_BUSY when another process owns outdir. */
TVDS_API int tvds_run_record_failure(const char *outdir, const char *case_name, int code,
                                     const char *message, tvds_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
