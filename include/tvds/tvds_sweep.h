/* tvds_sweep.h — parameter sweeps: a regular grid of runs of one case with `--set`-style
 * overrides, one result row per run, parallel over runs (OpenMP threads; MPI ranks in the CLI),
 * and the squeal-propensity map (docs/performance.md, `tvds sweep`). */
#ifndef TVDS_SWEEP_H
#define TVDS_SWEEP_H

#include "tvds/tvds_model.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TVDS_SWEEP_MAX_AXES 8

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
    int nthreads;      /* OpenMP threads over runs; 0 (default): OpenMP's default */
    int cea_npos;      /* CEA positions along the surface (5 % .. 95 %); default 21 */
    double cea_t_eval; /* CEA: time of the steady sliding state [s]; < 0 (default):
                          t_end / 2 (the case's drive is still moving there) */
    double growth_tol; /* transient: unstable when the growth rate of the fluctuation
                          (see tvds_sweep_row) exceeds growth_tol / t_end; default
                          2 ln(1.05) (RMS up 5 % from the second to the last quarter) */
} tvds_sweep_opts;

TVDS_API tvds_sweep_opts tvds_sweep_opts_default(void);

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
 * that error. o may be NULL (defaults). */
TVDS_API int tvds_sweep_run(const char *case_path, const tvds_sweep_axis *ax, int nax,
                            const tvds_sweep_opts *o, long first, long stride, tvds_sweep_row *rows,
                            long *nrows, tvds_ctx *ctx);

/* Write dir/sweep.csv: header "index,<keys>,status,unstable,rms,peak,f_dom_hz,growth_1_s,
 * cpu_s", one row per run (rows in any order; written sorted by index). */
TVDS_API int tvds_sweep_write_csv(const char *dir, const tvds_sweep_axis *ax, int nax,
                                  const tvds_sweep_row *rows, long nrows, tvds_ctx *ctx);

/* Draw dir/squeal_map.png: the growth rate (transient) or largest real part (CEA) over the
 * first two parameters, unstable runs marked; a line over the first parameter when there is
 * one axis. Returns the codes of tvds_plot_render (TVDS_WARN_NO_GNUPLOT without gnuplot). */
TVDS_API int tvds_sweep_plot(const char *dir, const tvds_sweep_axis *ax, int nax,
                             const tvds_sweep_row *rows, long nrows, int mode, tvds_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
