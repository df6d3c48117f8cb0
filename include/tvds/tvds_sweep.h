/* tvds_sweep.h — parameter sweeps: a regular grid of runs of one case with `--set`-style
 * overrides, one result row per run, parallel over runs (OpenMP threads; MPI ranks in the CLI),
 * and the squeal-propensity map (docs/performance.md, `tvds sweep`). */
#ifndef TVDS_SWEEP_H
#define TVDS_SWEEP_H

#include <signal.h>

#include "tvds/tvds_model.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TVDS_SWEEP_MAX_AXES 8

/* The result of one run. */
typedef struct tvds_sweep_row {
    long index;                        /* run index: last axis fastest */
    double param[TVDS_SWEEP_MAX_AXES]; /* the axis values of this run */
    int status;                        /* TVDS_OK or the run's error code */
    int unstable;                      /* 1 unstable (squeal), 0 stable */
    double rms, peak;                  /* transient: RMS and peak |x| of the channel over the
                                          run [channel unit]; CEA: NaN */
    double f_dom;                      /* transient: dominant frequency of the channel over
                                          the second half [Hz]; CEA: frequency of the most
                                          unstable eigenvalue [Hz] */
    double growth;                     /* transient: ln(RMS'_q4 / RMS'_q2) / (t_end / 2) with
                                          RMS' the RMS about the mean over the 2nd and 4th
                                          quarter of the run [1/s]; CEA: largest real part
                                          of the locus [1/s] */
    double cpu_seconds;                /* CPU time of the run (read, setup, steps) [s] */
} tvds_sweep_row;

/* One grid axis: the case key (as `--set`, "contact.tip.mu") takes n values evenly spaced
 * from a to b (n = 1: a only). */
typedef struct tvds_sweep_axis {
    char key[128];
    double a, b;
    int n;
} tvds_sweep_axis;

enum tvds_sweep_mode {
    TVDS_SWEEP_TRANSIENT = 0, /* time integration to t_end of each run */
    TVDS_SWEEP_CEA            /* complex eigenvalue locus along the master surface */
};

typedef struct tvds_sweep_opts {
    int mode;                /* enum tvds_sweep_mode; default transient */
    const char *channel;     /* history channel (name, or name before " ["); NULL (default):
                                the first channel after time */
    const char *const *sets; /* fixed overrides applied to every run before the grid's */
    int nsets;
    int nthreads;                /* OpenMP threads over runs; 0 (default): OpenMP's default */
    int cea_npos;                /* CEA positions along the surface (5 % .. 95 %); default 21 */
    double cea_t_eval;           /* CEA: time of the steady sliding state [s]; < 0 (default):
                                    t_end / 2 (the case's drive is still moving there) */
    double growth_tol;           /* transient: unstable when the growth rate of the fluctuation
                                    (see tvds_sweep_row) exceeds growth_tol / t_end; default
                                    2 ln(1.05) (RMS up 5 % from the second to the last quarter) */
    const unsigned char *done;   /* tvds_sweep_count entries or NULL: runs with done[idx] != 0
                                    are skipped (already finished: --resume) */
    volatile sig_atomic_t *stop; /* nonzero: runs not started are skipped and running ones stop
                                    at their next step; tvds_sweep_run then returns
                                    TVDS_ERR_INTERRUPTED. May be NULL */
    void (*row_done)(void *user, const tvds_sweep_row *row); /* called once per finished run,
                                  as it finishes, one call at a time (from any thread) */
    void *user;                                              /* passed to row_done */
    int cea_refine; /* CEA: 1 (default) refine the positions automatically (docs/cea.md,
                       "Refinement"); 0: the cea_npos positions only */
} tvds_sweep_opts;

TVDS_API tvds_sweep_opts tvds_sweep_opts_default(void);

/* Number of runs of the grid (product of the axis sizes), or -1 when an axis is invalid
 * (n < 1, nax outside 1..TVDS_SWEEP_MAX_AXES). */
TVDS_API long tvds_sweep_count(const tvds_sweep_axis *ax, int nax);

/* Parse "section.key=a:b:n" (or "type.NAME.key=a:b:n"; "key=a" is one value) into *ax.
 * Returns TVDS_OK or TVDS_ERR_INVALID with a message. */
TVDS_API int tvds_sweep_axis_parse(const char *text, tvds_sweep_axis *ax, tvds_ctx *ctx);

/* Run the runs first, first + stride, ... (< tvds_sweep_count) of the grid over the case at
 * case_path; rows (room for every run of that share) receive them in index order and *nrows
 * their number. Runs are spread over OpenMP threads; each reads its own model (parameters
 * change the model) and owns its run data. The rows do not depend on the number of threads
 * or on the share (cpu_seconds aside). An engine failure of one run (divergence) is recorded
 * in its row (status, unstable = 1); an input error (bad key or value) stops the sweep with
 * that error. Runs skipped (o->done) or not finished (o->stop) get index -1 in rows. o may be
 * NULL (defaults). */
TVDS_API int tvds_sweep_run(const char *case_path, const tvds_sweep_axis *ax, int nax,
                            const tvds_sweep_opts *o, long first, long stride, tvds_sweep_row *rows,
                            long *nrows, tvds_ctx *ctx);

/* Write dir/sweep.csv: header "index,<keys>,status,unstable,rms,peak,f_dom_hz,growth_1_s,
 * cpu_s", one row per run (rows in any order, index -1 left out; written sorted by index), to
 * a temporary file renamed over sweep.csv (readers see the old file or the new one). */
TVDS_API int tvds_sweep_write_csv(const char *dir, const tvds_sweep_axis *ax, int nax,
                                  const tvds_sweep_row *rows, long nrows, tvds_ctx *ctx);

/* The journal of finished runs, DIR/sweep.points.csv, one line per run appended as it
 * finishes (one write each: a killed sweep leaves whole lines): every field of the row with
 * %.17g, so that the rows read back are bit for bit the rows computed.
 * tvds_sweep_journal_line formats row (nax parameters) into buf[n] ('\n'-terminated) and returns
 * its length; tvds_sweep_journal_read reads the file at path into *rows (tvds_malloc'd, caller
 * frees; the last run of an index wins) and *nrows, ignoring a last line cut short; signature
 * (a one-line description of the case, grid and options) must equal the file's first line,
 * else TVDS_ERR_INVALID: the journal belongs to another sweep or, when the two differ only
 * after " inputs=" (tvds_sweep_inputs_hash), its inputs changed since. A missing file is 0
 * rows. */
TVDS_API int tvds_sweep_journal_line(const tvds_sweep_row *row, int nax, char *buf, size_t n);
TVDS_API int tvds_sweep_journal_read(const char *path, const char *signature, int nax, long total,
                                     tvds_sweep_row **rows, long *nrows, tvds_ctx *ctx);

/* Hash (64-bit FNV-1a, 16 hex digits into hex) of the text of the case file, of the overrides
 * sets[0..nsets-1] and of every file the case reads: each regular file of its substructure
 * directories (as the case with the overrides names them) and the table files of its time
 * functions. Put into the journal's signature, it makes --resume refuse a case or an input
 * edited since the journal was begun. Special files (FIFO, device) are refused by name
 * (TVDS_ERR_IO) before any blocking read; a case that does not read returns its error. */
TVDS_API int tvds_sweep_inputs_hash(const char *case_path, const char *const *sets, int nsets,
                                    char hex[17], tvds_ctx *ctx);

/* Cut the journal at path back to the end of its last whole line (a line cut by a full disk
 * or a kill), so that the lines appended next start on a line of their own; *cut (may be NULL)
 * receives the bytes removed. A missing file is fine. */
TVDS_API int tvds_sweep_journal_trim(const char *path, long *cut, tvds_ctx *ctx);

/* Draw dir/squeal_map.png: the growth rate (transient) or largest real part (CEA) over the
 * first two parameters, unstable runs marked; a line over the first parameter when there is
 * one axis. Returns the codes of tvds_plot_render (TVDS_WARN_NO_GNUPLOT without gnuplot). */
TVDS_API int tvds_sweep_plot(const char *dir, const tvds_sweep_axis *ax, int nax,
                             const tvds_sweep_row *rows, long nrows, int mode, tvds_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
